/* SPDX-License-Identifier: BSD-3-Clause
 * A reset of one port loses nothing on another (docs/architecture.md#port-reset-without-
 * pausing-the-other-ports): the control side quiesces only the resetting port's queues
 * (uf_workers_quiesce: the worker skips them and drops their copies as link_down, one RCU
 * grace period), and the worker keeps polling and sending on every other port.
 *
 * Two ports made from rte_rings (rte_eth_from_rings): a (index 0) is reset, b (index 1)
 * receives the listen traffic; each datagram has two copies, one out of each port. The test
 * plays the control lcore: quiesce a, stop it, hold it stopped for RESET_MS (a slow device
 * reset: seconds on ENA) while it feeds b at RATE datagrams a second, start it, unquiesce.
 * b's RX ring holds 1023 frames (half a second at RATE): a worker that stopped polling b for
 * the reset would overflow it. Every datagram fed to b must come out of b; a's copies during
 * the reset are counted as tx_drop.link_down; frames waiting on a's RX ring are not touched
 * during the reset and are received after it.
 *
 * Needs EAL without hugepages and two lcores: --no-huge --no-pci -l 0,1 (eal suite).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "uf_config.h"
#include "uf_fwd_dp.h"
#include "uf_plan.h"

#include "../unit/uf_test.h"
#include "uf_ring_port.h"

#define RESET_MS 2000 /* how long port a stays down */
#define RATE 2000     /* datagrams a second fed to b meanwhile */
#define BEFORE 200    /* datagrams before and after the reset */
#define ON_A 8        /* frames waiting on a's RX ring during the reset */

static struct rte_mempool *pool;
static struct rte_ring *rx[2], *tx[2];
static uint16_t port[2];
static struct rte_ether_addr mac[2];
static unsigned out[2];     /* frames seen on each port's TX ring */
static unsigned enq_failed; /* b's RX ring was full */

/* a datagram to listener b:5000 (to port a's address: not the listener, dropped) */
static struct rte_mbuf *
datagram(int to, unsigned seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;

	if (m == NULL) {
		fprintf(stderr, "pool empty\n");
		exit(1);
	}
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	udp = (struct rte_udp_hdr *)(ip + 1);
	memset(eth, 0, 42 + 32);
	eth->dst_addr = mac[to];
	eth->src_addr.addr_bytes[0] = 0x02;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(28 + 32);
	ip->packet_id = rte_cpu_to_be_16((uint16_t)seq);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(to == 1 ? 0xc6120002 : 0xc6120102);
	ip->dst_addr = rte_cpu_to_be_32(to == 1 ? 0xc612000a : 0xc612010a);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(40000);
	udp->dst_port = rte_cpu_to_be_16(5000);
	udp->dgram_len = rte_cpu_to_be_16(8 + 32);
	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
	m->data_len = 42 + 32;
	m->pkt_len = m->data_len;
	return m;
}

/* what the worker sent, counted and freed */
static void
drain_tx(void)
{
	struct rte_mbuf *m[64];
	unsigned k;
	int i;

	for (i = 0; i < 2; i++) {
		k = rte_ring_dequeue_burst(tx[i], (void **)m, RTE_DIM(m), NULL);
		rte_pktmbuf_free_bulk(m, k);
		out[i] += k;
	}
}

/* n datagrams to b, one every 1/rate s (0: as fast as the ring takes them) */
static void
feed_b(unsigned n, unsigned rate)
{
	const uint64_t hz = rte_get_tsc_hz(), t0 = rte_rdtsc();
	unsigned i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = datagram(1, i);

		while (rate != 0 && rte_rdtsc() < t0 + hz * i / rate)
			drain_tx();
		if (rte_ring_enqueue(rx[1], m) != 0) {
			enq_failed++;
			rte_pktmbuf_free(m);
		}
		drain_tx();
	}
}

/* drain until `want` frames came out of each port, or ms passed */
static void
wait_out(unsigned want_a, unsigned want_b, unsigned ms)
{
	const uint64_t end = rte_rdtsc() + rte_get_tsc_hz() / 1000 * ms;

	while ((out[0] < want_a || out[1] < want_b) && rte_rdtsc() < end)
		drain_tx();
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0],
			"-l",
			"0,1",
			"--no-pci",
			"--no-huge",
			"-m",
			"256",
			"--log-level",
			"lib.eal:warning",
			"--file-prefix",
			"uf_port_reset",
			NULL };
	static const char cfg_text[] =
			"ports:\n"
			"  - { name: a, device: net_ring0, ip: 198.18.1.10/24 }\n"
			"  - { name: b, device: net_ring1, ip: 198.18.0.10/24 }\n"
			"listen: { port: b, udp_port: 5000 }\ndestinations:\n"
			"  - { ip: 198.18.1.21, udp_port: 6000, mac: \"02:00:00:00:00:21\", port: a }\n"
			"  - { ip: 198.18.0.22, udp_port: 6001, mac: \"02:00:00:00:00:22\" }\n";
	struct rte_ether_addr dmac[2];
	bool resolved[2] = { true, true }, chain_ok[2] = { true, true };
	uint16_t mtu[2] = { 1500, 1500 };
	struct uf_plan_input pin = { .port_mac = mac,
				     .port_mtu = mtu,
				     .port_chain_ok = chain_ok,
				     .dest_mac = dmac,
				     .dest_resolved = resolved,
				     .version = 1,
				     .socket = -1 };
	const unsigned during = RATE * RESET_MS / 1000;
	unsigned i, waiting_a, link_down_before;
	struct uf_config *cfg;
	struct uf_shared sh;
	struct uf_worker *w;
	struct uf_err err;
	uint64_t t0;
	double q_us;
	int ret;

	(void)argc;
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("in", 8191, 256, 0, 2176, SOCKET_ID_ANY);
	if (pool == NULL || uf_ring_port_add("a", pool, &rx[0], &tx[0], &port[0], &mac[0]) != 0 ||
	    uf_ring_port_add("b", pool, &rx[1], &tx[1], &port[1], &mac[1]) != 0) {
		fprintf(stderr, "port setup failed\n");
		return 1;
	}
	cfg = uf_config_parse(cfg_text, sizeof(cfg_text) - 1, "port_reset", &err);
	if (cfg == NULL) {
		fprintf(stderr, "config: %s\n", err.msg);
		return 1;
	}
	dmac[0] = cfg->dests[0].mac;
	dmac[1] = cfg->dests[1].mac;
	pin.cfg = cfg;
	memset(&sh, 0, sizeof(sh));
	sh.plan = uf_plan_build(&pin);
	sh.qsbr = rte_zmalloc("qsbr", rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE);
	w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (sh.plan == NULL || sh.qsbr == NULL || w == NULL || rte_rcu_qsbr_init(sh.qsbr, 1) != 0) {
		fprintf(stderr, "plan / worker setup failed\n");
		return 1;
	}
	w->n_ports = 2;
	w->burst = 32;
	w->tx_retries = 4;
	w->drain_tsc = rte_get_tsc_hz() / 10000; /* 100 us */
	w->flush_idle = true;
	w->shared = &sh;
	w->copy_pool = pool;
	for (i = 0; i < 2; i++) {
		w->ports[i].port_id = port[i];
		w->ports[i].id.mac = mac[i];
		w->ports[i].id.ip = cfg->ports[i].ip;
		w->ports[i].id.listen = i == 1;
		w->ports[i].id.listen_udp = rte_cpu_to_be_16(5000);
		w->ports[i].id.max_len = uf_port_max_len(1500);
		uf_worker_port_id(w, (uint16_t)i);
		w->port_idx[port[i]] = (uint8_t)i;
		w->txb[i].port_id = port[i];
	}
	w->ctl_tx = rte_ring_create("reset_ctx", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	w->ctl_rx = rte_ring_create("reset_crx", 1024, SOCKET_ID_ANY,
				    RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (w->ctl_tx == NULL || w->ctl_rx == NULL) {
		fprintf(stderr, "ctl ring failed\n");
		return 1;
	}
	uf_worker_link_init(w, 0, 100);
	if (rte_eal_remote_launch(uf_worker_main, w, rte_get_next_lcore(-1, 1, 0)) != 0) {
		fprintf(stderr, "launch failed\n");
		return 1;
	}

	/* before: both copies of each */
	feed_b(BEFORE, 0);
	wait_out(BEFORE, BEFORE, 2000);
	CHECK_EQ(out[0], BEFORE);
	CHECK_EQ(out[1], BEFORE);

	/* the reset of a, as uf_app_handle_resets does it */
	t0 = rte_rdtsc();
	ret = uf_workers_quiesce(&sh, 1u << 0, 5000);
	q_us = (double)(rte_rdtsc() - t0) * 1e6 / rte_get_tsc_hz();
	CHECK(ret == 0, "quiesce: %d", ret);
	link_down_before = (unsigned)w->ctr.tx_drop[UF_TXDROP_LINK_DOWN];
	CHECK_EQ(link_down_before, 0);
	rte_eth_dev_stop(port[0]);
	for (i = 0; i < ON_A; i++)
		CHECK(rte_ring_enqueue(rx[0], datagram(0, i)) == 0, "enqueue on a");
	feed_b(during, RATE); /* RESET_MS long */
	wait_out(0, BEFORE + during, 2000);
	waiting_a = rte_ring_count(rx[0]);
	CHECK(rte_eth_dev_start(port[0]) == 0, "restart a");
	uf_workers_unquiesce(&sh, 1u << 0);
	/* the control lcore's next link check: a is up */
	__atomic_store_n(&sh.link_down[0], 0, __ATOMIC_RELEASE);
	__atomic_fetch_add(&sh.link_gen[0], 1, __ATOMIC_RELEASE);

	printf("reset of a: quiesced in %.0f us; %u datagrams fed to b over %d ms: %u out of b, "
	       "%u refused by b's full RX ring; %u copies for a dropped as link_down; %u of %u "
	       "frames left untouched on a's RX ring\n",
	       q_us, during, RESET_MS, out[1] - BEFORE, enq_failed,
	       (unsigned)w->ctr.tx_drop[UF_TXDROP_LINK_DOWN], waiting_a, ON_A);
	CHECK_EQ(enq_failed, 0);
	CHECK_EQ(out[1], BEFORE + during);
	CHECK_EQ(out[0], BEFORE);
	CHECK_EQ(waiting_a, ON_A);

	/* after: a forwards again, and what waited on its ring is received */
	feed_b(BEFORE, 0);
	wait_out(2 * BEFORE, 2 * BEFORE + during, 2000);
	for (i = 0; i < 200 && rte_ring_count(rx[0]) != 0; i++)
		rte_delay_us_sleep(1000);

	__atomic_store_n(&sh.quit, 1, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	CHECK_EQ(out[0], 2 * BEFORE);
	CHECK_EQ(out[1], 2 * BEFORE + during + 0);
	CHECK_EQ(rte_ring_count(rx[0]), 0);
	CHECK_EQ(w->ctr.tx_drop[UF_TXDROP_LINK_DOWN], during);
	CHECK_EQ(w->ctr.rx, 2 * BEFORE + during + ON_A);
	CHECK_EQ(w->ctr.tx_ok, 2 * (2 * BEFORE) + during);

	rte_ring_free(w->ctl_tx);
	rte_ring_free(w->ctl_rx);
	rte_free(w);
	rte_free(sh.qsbr);
	uf_plan_free(sh.plan);
	uf_config_free(cfg);
	rte_eth_dev_stop(port[0]);
	rte_eth_dev_stop(port[1]);
	rte_eal_cleanup();
	printf("%d passed, %d failed\n", uf_t_passed, uf_t_failed);
	return uf_t_failed == 0 ? 0 : 1;
}
