/* SPDX-License-Identifier: BSD-3-Clause
 * Fuzz the control lcore's frame path with its neighbour table (docs/testing.md#fuzzing):
 * frames put on a worker's worker→control ring, uf_ctlframes_poll answering and learning
 * (ARP, NS/NA, ICMP and ICMPv6 echo), the neighbour timers ticking between them, as
 * tests/eal/test_ndp_ctl.c drives them. Unlike the other harnesses it needs EAL (rings and
 * mbufs): --no-huge --no-shconf, one lcore, started once.
 *
 * The input is a list of records: a control byte, then a 16-bit length and that many
 * bytes of frame (the last one cut short at the end of the input). The control byte's low
 * 6 bits advance the clock (ms), bit 6 runs the neighbour timers before the frame, bit 7
 * polls before it (a record without one waits in the ring; everything is polled at the end).
 * Each input starts from a fresh table (a port with 198.18.0.10/24, 2001:db8::10/64 and
 * fe80::10/64, gateway6 fe80::1, next hops 198.18.0.20, 2001:db8::20 and fe80::1) and full
 * buckets (control.icmp_rate 5, control.neigh_rate 8).
 *
 * Properties checked besides memory safety:
 *   - the ledger: every frame handed over lands in exactly one control counter;
 *   - no neighbour is ever learned at a group (multicast, broadcast) or zero MAC, and no
 *     answer goes to one (only a DAD answer to 33:33:00:00:00:01, as RFC 4861 7.2.4 says);
 *   - the answers a poll sends are its answered counters' increase (nothing lost here);
 *   - ARP and NS answers stay within the control.neigh_rate bucket, echo replies within
 *     control.icmp_rate's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "uf_ctlframes.h"
#include "uf_resolve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ICMP_RATE 5
#define NEIGH_RATE 8

static const char cfg_text[] = "ports:\n"
			       "  - name: p\n"
			       "    device: net_null0\n"
			       "    ip: 198.18.0.10/24\n"
			       "    ip6: [\"2001:db8::10/64\", \"fe80::10/64\"]\n"
			       "    gateway6: fe80::1\n"
			       "listen: { port: p, udp_port: 5000 }\n"
			       "destinations:\n"
			       "  - { ip: 198.18.0.20, udp_port: 6000 }\n"
			       "  - { ip: \"2001:db8::20\", udp_port: 6000 }\n"
			       "  - { ip: \"2001:db8:99::5\", udp_port: 6001 }\n"
			       "arp: { retry_ms: 10, max_probes: 2, reachable_s: 1 }\n"
			       "control: { icmp_rate: 5, neigh_rate: 8 }\n"
			       "health: { tcp_port: 8080, http_path: /healthz, rate: 50 }\n";

static struct uf_config *cfg;
static struct rte_mempool *pool;
static struct uf_worker *w;
static struct uf_port ports[1];
static const struct rte_ether_addr our_mac = { { 0x02, 0x18, 0x00, 0x00, 0x00, 0x10 } };

/* what EAL holds, given back at exit (the sanitizer build's leak check) */
static void
cleanup(void)
{
	rte_ring_free(w->ctl_rx);
	rte_ring_free(w->ctl_tx);
	rte_free(w);
	rte_mempool_free(pool);
	uf_config_free(cfg);
	rte_eal_cleanup();
}

static void
setup(void)
{
	static char prefix[32];
	char *eal[] = { "fuzz_ctlpath",
			"-l",
			"0",
			"--no-pci",
			"--no-huge",
			"-m",
			"128",
			"--no-shconf",
			"--log-level",
			"*:error",
			"--no-telemetry",
			"--file-prefix",
			prefix,
			NULL };
	struct uf_err err;

	snprintf(prefix, sizeof(prefix), "fuzz_ctl%d", (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "fuzz_ctlpath: EAL init failed\n");
		abort();
	}
	cfg = uf_config_parse(cfg_text, sizeof(cfg_text) - 1, "fuzz_ctlpath", &err);
	pool = rte_pktmbuf_pool_create("fuzz_ctl", 1023, 0, 0, 2176, SOCKET_ID_ANY);
	w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (cfg == NULL || pool == NULL || w == NULL)
		abort();
	w->ctl_rx = rte_ring_create("ctl_rx", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	w->ctl_tx = rte_ring_create("ctl_tx", 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (w->ctl_rx == NULL || w->ctl_tx == NULL)
		abort();
	w->port_idx[0] = 0;
	atexit(cleanup);
	ports[0].cfg = &cfg->ports[0];
	ports[0].mac = our_mac;
	ports[0].pool[0] = pool;
}

/* every frame handed over, each in one of these (docs/loss-accounting.md) */
static uint64_t
handled(const struct uf_ctl_ctr *c)
{
	return c->arp_requests_answered + c->arp_rate_limited + c->arp_replies_learned +
	       c->arp_gratuitous + c->arp_ignored + c->ndp_ns_answered + c->ndp_rate_limited +
	       c->ndp_na_learned + c->ndp_ignored + c->ndp_bad_not_icmp6 + c->ndp_bad_hop_limit +
	       c->ndp_bad_cksum + c->ndp_bad_code + c->ndp_bad_len + c->ndp_bad_target_mcast +
	       c->ndp_bad_opt_len + c->ndp_bad_lladdr + c->ndp_bad_dad_dst + c->ndp_bad_dad_slla +
	       c->ndp_bad_solicited_mcast + c->icmp_echo_answered + c->icmp_rate_limited +
	       c->icmp_ignored + c->icmp6_echo_answered + c->icmp6_rate_limited + c->icmp6_ignored +
	       c->hc_syn + c->hc_ack_ok + c->hc_http_200 + c->hc_http_503 + c->hc_http_other +
	       c->hc_fin + c->hc_rst_in + c->hc_bad_cookie + c->hc_rst_sent + c->hc_malformed +
	       c->hc_rate_limited;
}

static uint64_t
answered(const struct uf_ctl_ctr *c)
{
	return c->arp_requests_answered + c->ndp_ns_answered + c->icmp_echo_answered +
	       c->icmp6_echo_answered + c->hc_syn + c->hc_http_200 + c->hc_http_503 +
	       c->hc_http_other + c->hc_fin + c->hc_bad_cookie + c->hc_rst_sent;
}

static bool
group_or_zero(const uint8_t *mac)
{
	const struct rte_ether_addr *a = (const struct rte_ether_addr *)mac;

	return !rte_is_unicast_ether_addr(a) || rte_is_zero_ether_addr(a);
}

/* no entry usable at, or holding, a group or zero MAC */
static void
check_table(const struct uf_neigh_table *t)
{
	int i;

	for (i = 0; i < t->n; i++) {
		const struct uf_neigh *e = &t->e[i];

		if (uf_neigh_usable(e) && group_or_zero(e->mac.addr_bytes))
			abort();
		if (!rte_is_zero_ether_addr(&e->mac) && !rte_is_unicast_ether_addr(&e->mac))
			abort();
	}
}

/* the answers of one poll: to a unicast MAC, or a DAD answer to all nodes */
static unsigned int
take_answers(void)
{
	static const uint8_t all_nodes[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };
	struct rte_mbuf *m[64];
	unsigned int n, k, total = 0;

	while ((n = rte_ring_dequeue_burst(w->ctl_tx, (void **)m, RTE_DIM(m), NULL)) > 0) {
		for (k = 0; k < n; k++) {
			const uint8_t *f = rte_pktmbuf_mtod(m[k], const uint8_t *);

			if (group_or_zero(f) && memcmp(f, all_nodes, 6) != 0)
				abort();
			rte_pktmbuf_free(m[k]);
		}
		total += n;
	}
	return total;
}

/* whatever the timers sent (requests, solicitations): not answers */
static void
drop_sent(void)
{
	struct rte_mbuf *m[64];
	unsigned int n;

	while ((n = rte_ring_dequeue_burst(w->ctl_tx, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
}

static void
poll_once(struct uf_ctlframes *cf, const struct uf_ctl_ctr *ctr, struct uf_resolve *res,
	  uint64_t ms)
{
	uint64_t before = answered(ctr);

	uf_ctlframes_poll(cf, ms);
	if (take_answers() != answered(ctr) - before)
		abort();
	check_table(&res->neigh);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	struct uf_resolve res;
	struct uf_ctlframes cf;
	struct uf_ctl_ctr ctr;
	struct uf_worker *wl[1];
	struct uf_err err;
	uint64_t fed = 0, ms = 1;
	size_t off = 0;

	if (!ready) {
		setup();
		ready = true;
	}
	memset(&ctr, 0, sizeof(ctr));
	if (uf_resolve_init(&res, cfg, SOCKET_ID_ANY, &err) != 0)
		abort();
	wl[0] = w;
	uf_ctlframes_init(&cf, cfg, ports, wl, 1, &res.neigh, &ctr, NULL);

	while (off < size) {
		const uint8_t op = data[off++];
		uint16_t len = 0;
		struct rte_mbuf *m;

		if (off + 2 <= size)
			len = (uint16_t)(data[off] << 8 | data[off + 1]);
		off += 2;
		if (off > size)
			break;
		if (len > size - off)
			len = (uint16_t)(size - off);
		if (len > 1514)
			len = 1514;
		ms += op & 0x3f;
		if (op & 0x40) {
			uf_neigh_tick46(&res.neigh, ms, uf_ctlframes_neigh_send,
					uf_ctlframes_neigh_send6, &cf);
			drop_sent();
			check_table(&res.neigh);
		}
		if ((op & 0x80) || rte_ring_full(w->ctl_rx))
			poll_once(&cf, &ctr, &res, ms);
		/* the worker hands over nothing shorter than an Ethernet header (malformed) */
		if (len >= RTE_ETHER_HDR_LEN) {
			m = rte_pktmbuf_alloc(pool);
			if (m == NULL)
				abort();
			memcpy(rte_pktmbuf_append(m, len), data + off, len);
			m->port = 0;
			if (rte_ring_sp_enqueue(w->ctl_rx, m) != 0)
				abort();
			fed++;
		}
		off += len;
	}
	poll_once(&cf, &ctr, &res, ms);

	if (handled(&ctr) != fed || ctr.ctl_ring_full != 0 || ctr.ctl_nombuf != 0)
		abort();
	/* full buckets at the start, refilled at the rate over the ms that passed */
	if (ctr.arp_requests_answered + ctr.ndp_ns_answered >
	    NEIGH_RATE + NEIGH_RATE * ms / 1000 + 1)
		abort();
	if (ctr.icmp_echo_answered + ctr.icmp6_echo_answered >
	    ICMP_RATE + ICMP_RATE * ms / 1000 + 1)
		abort();
	uf_resolve_fini(&res);
	return 0;
}
