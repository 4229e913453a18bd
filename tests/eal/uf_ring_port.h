/* SPDX-License-Identifier: BSD-3-Clause
 * An eal test's port on rings (net_ring via rte_eth_from_rings): the test enqueues mbufs it
 * built on rx, the worker under test receives them through the real ethdev API and what it
 * sends lands on tx for the test to read. Used by test_flush_idle.c, test_rx_cksum.c and
 * test_v6_fanout.c; uf_test_mbuf by test_ndp_ctl.c too, uf_test_udp_sum_ok by
 * test_fanout_diff.c too.
 */
#ifndef UF_RING_PORT_H
#define UF_RING_PORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "uf_config.h"

/* rings and port named after `name`, receiving into pool; 0, or -1 after saying what failed */
static inline int
uf_ring_port_add(const char *name, struct rte_mempool *pool, struct rte_ring **rx,
		 struct rte_ring **tx, uint16_t *port, struct rte_ether_addr *mac)
{
	char rn[RTE_RING_NAMESIZE];
	struct rte_eth_conf conf;
	int r;

	snprintf(rn, sizeof(rn), "%s_rx", name);
	*rx = rte_ring_create(rn, 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(rn, sizeof(rn), "%s_tx", name);
	*tx = rte_ring_create(rn, 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (pool == NULL || *rx == NULL || *tx == NULL) {
		fprintf(stderr, "setup failed\n");
		return -1;
	}
	memset(&conf, 0, sizeof(conf));
	snprintf(rn, sizeof(rn), "%s_port", name);
	r = rte_eth_from_rings(rn, rx, 1, tx, 1, SOCKET_ID_ANY);
	if (r < 0 || rte_eth_dev_configure((uint16_t)r, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup((uint16_t)r, 0, 1024, SOCKET_ID_ANY, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup((uint16_t)r, 0, 1024, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start((uint16_t)r) != 0) {
		fprintf(stderr, "port setup failed\n");
		return -1;
	}
	*port = (uint16_t)r;
	return rte_eth_macaddr_get(*port, mac) == 0 ? 0 : -1;
}

/* pool "in" and rings/port named after `name`; 0, or -1 after saying what failed */
static inline int
uf_ring_port_open(const char *name, struct rte_mempool **pool, struct rte_ring **rx,
		  struct rte_ring **tx, uint16_t *port, struct rte_ether_addr *mac)
{
	*pool = rte_pktmbuf_pool_create("in", 1023, 0, 0, 2176, SOCKET_ID_ANY);
	return uf_ring_port_add(name, *pool, rx, tx, port, mac);
}

/* the len bytes of f as one mbuf from pool; a pool that runs dry ends the test */
/* ones-complement sum of the pseudo-header (addresses at a, alen bytes each) and the UDP
 * datagram: 0xffff when its checksum is right (RFC 768, RFC 8200 8.1), summed from scratch */
static inline bool
uf_test_udp_sum_ok(const uint8_t *a, uint32_t alen, const struct rte_udp_hdr *udp)
{
	const uint16_t ulen = rte_be_to_cpu_16(udp->dgram_len);
	uint32_t s = rte_raw_cksum(a, 2 * alen) + rte_raw_cksum(udp, ulen);

	s += rte_cpu_to_be_16(IPPROTO_UDP) + rte_cpu_to_be_16(ulen);
	while (s > 0xffff)
		s = (s >> 16) + (s & 0xffff);
	return s == 0xffff;
}

static inline struct rte_mbuf *
uf_test_mbuf(struct rte_mempool *pool, const uint8_t *f, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL) {
		fprintf(stderr, "pool empty\n");
		exit(1);
	}
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), f, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return m;
}

/* An eal test's start: EAL up (eal: n_eal arguments), the ring port `name` open and the
 * config text parsed as `what`. The config, or NULL after saying what failed. */
static inline struct uf_config *
uf_ring_test_start(char **eal, int n_eal, const char *name, const char *text, size_t len,
		   const char *what, struct rte_mempool **pool, struct rte_ring **rx,
		   struct rte_ring **tx, uint16_t *port, struct rte_ether_addr *mac)
{
	struct uf_config *cfg;
	struct uf_err err;

	if (rte_eal_init(n_eal, eal) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return NULL;
	}
	if (uf_ring_port_open(name, pool, rx, tx, port, mac) != 0)
		return NULL;
	cfg = uf_config_parse(text, len, what, &err);
	if (cfg == NULL)
		fprintf(stderr, "config: %s\n", err.msg);
	return cfg;
}

#endif /* UF_RING_PORT_H */
