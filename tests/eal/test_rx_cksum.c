/* SPDX-License-Identifier: BSD-3-Clause
 * The NIC's RX checksum verdicts, as the worker takes them (docs/pmd-quirks.md, "RX checksum
 * verdicts"; docs/architecture.md#checksums-rfc-1624). Where the port requests
 * RX_OFFLOAD_IPV4_CKSUM the PMD sets RTE_MBUF_F_RX_IP_CKSUM_* on each mbuf; this test sets
 * them itself on frames it builds, hands them to a net_ring port (rte_eth_from_rings: the
 * PMD passes the mbufs through, flags and all) and takes them off with rte_eth_rx_burst into
 * uf_worker_rx, as the worker loop does. No PMD on this machine computes the verdicts (the
 * software PMDs offer none, or check in software: tap), so the flags are the test's.
 *
 * What it shows, with two destinations:
 *   - IP_CKSUM_GOOD on a frame whose IPv4 header checksum is WRONG is forwarded: the software
 *     header sum was skipped (a frame with the same wrong checksum and no flag is malformed),
 *     and both copies leave with a right header checksum (the template computes its own);
 *   - IP_CKSUM_BAD on a right header, L4_CKSUM_BAD on a right datagram: malformed;
 *   - IP_CKSUM_NONE (not checked): the software sum decides, right forwarded, wrong malformed;
 *   - no flag (a port without the offload): as today, right forwarded, wrong malformed;
 * and the ledger is exact: rx == forwarded + every drop, fanout == copies_attempted ==
 * tx_ok == 2 * forwarded, drop.malformed == the malformed cases, no other drop reason.
 * Then, on a port whose verdicts are ignored (uf_port_id.rx_ck_ignore: the offloads off, or
 * ENA without an L3 check), the same flags change nothing: the software path decides.
 *
 * Needs EAL without hugepages: --no-huge --no-pci -l 0 (eal suite).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "uf_config.h"
#include "uf_fwd_dp.h"
#include "uf_plan.h"

#include "../unit/uf_test.h"
#include "uf_ring_port.h"

#define N_DESTS 2
#define PAYLOAD 32

static struct rte_mempool *pool;
static struct rte_ring *rx_ring, *tx_ring;
static uint16_t port;
static struct rte_ether_addr port_mac;

/* one case: the header checksum right or wrong, the RX flags the "NIC" set, the verdict */
struct rx_case {
	const char *name;
	bool ip_wrong;  /* the IPv4 header checksum is off by one */
	bool udp_wrong; /* the UDP checksum is off by one */
	uint64_t flags;
	bool forwarded; /* else drop.malformed */
};

static const struct rx_case cases[] = {
	{ "GOOD, header right", false, false, RTE_MBUF_F_RX_IP_CKSUM_GOOD, true },
	{ "GOOD, header WRONG: trusted", true, false, RTE_MBUF_F_RX_IP_CKSUM_GOOD, true },
	{ "GOOD+L4 GOOD, header WRONG: trusted", true, false,
	  RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD, true },
	{ "BAD, header right", false, false, RTE_MBUF_F_RX_IP_CKSUM_BAD, false },
	{ "IP GOOD, L4 BAD", false, true, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_BAD,
	  false },
	{ "NONE, header right", false, false, RTE_MBUF_F_RX_IP_CKSUM_NONE, true },
	{ "NONE, header WRONG", true, false, RTE_MBUF_F_RX_IP_CKSUM_NONE, false },
	{ "no flag, header right", false, false, 0, true },
	{ "no flag, header WRONG", true, false, 0, false },
	/* no L4 verdict: a wrong UDP checksum is carried, not dropped (architecture.md) */
	{ "no flag, UDP checksum WRONG: carried", false, true, 0, true },
};

#define IGN_IP RTE_MBUF_F_RX_IP_CKSUM_MASK
#define IGN_L4 RTE_MBUF_F_RX_L4_CKSUM_MASK
static const struct {
	uint64_t ignore; /* uf_port_id.rx_ck_ignore */
	struct rx_case c;
} masked[] = {
	{ IGN_IP | IGN_L4,
	  { "offloads off: GOOD, header WRONG: summed", true, false, RTE_MBUF_F_RX_IP_CKSUM_GOOD,
	    false } },
	{ IGN_IP | IGN_L4,
	  { "offloads off: BAD, header right: summed", false, false, RTE_MBUF_F_RX_IP_CKSUM_BAD,
	    true } },
	{ IGN_IP | IGN_L4,
	  { "offloads off: L4 BAD: carried", false, false,
	    RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_BAD, true } },
	{ IGN_IP,
	  { "no L3 check: GOOD, header WRONG: summed", true, false,
	    RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD, false } },
	{ IGN_IP,
	  { "no L3 check: L4 BAD still believed", false, true,
	    RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_BAD, false } },
	{ 0,
	  { "all believed again: GOOD, header WRONG", true, false, RTE_MBUF_F_RX_IP_CKSUM_GOOD,
	    true } },
};

static struct rte_mbuf *
datagram(unsigned seq, const struct rx_case *c)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	uint8_t *pl;
	unsigned k;

	if (m == NULL) {
		fprintf(stderr, "pool empty\n");
		exit(1);
	}
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	udp = (struct rte_udp_hdr *)(ip + 1);
	pl = (uint8_t *)(udp + 1);
	memset(eth, 0, 42);
	eth->dst_addr = port_mac;
	eth->src_addr.addr_bytes[0] = 0x02;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(28 + PAYLOAD);
	ip->packet_id = rte_cpu_to_be_16((uint16_t)seq);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0xc6120002);
	ip->dst_addr = rte_cpu_to_be_32(0xc612000a);
	udp->src_port = rte_cpu_to_be_16(40000);
	udp->dst_port = rte_cpu_to_be_16(5000);
	udp->dgram_len = rte_cpu_to_be_16(8 + PAYLOAD);
	for (k = 0; k < PAYLOAD; k++)
		pl[k] = (uint8_t)(seq * 7 + k);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
	/* off by one, never 0 (a 0 UDP checksum means none) */
	if (c->ip_wrong)
		ip->hdr_checksum = rte_cpu_to_be_16(
				(uint16_t)(rte_be_to_cpu_16(ip->hdr_checksum) ^ 1));
	if (c->udp_wrong)
		udp->dgram_cksum = rte_cpu_to_be_16(
				(uint16_t)(rte_be_to_cpu_16(udp->dgram_cksum) ^ 1));
	m->data_len = 42 + PAYLOAD;
	m->pkt_len = m->data_len;
	m->ol_flags = c->flags;
	return m;
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0],       "-l",  "0",           "--no-pci",        "--no-huge",
			"-m",          "256", "--log-level", "lib.eal:warning", "--file-prefix",
			"uf_rx_cksum", NULL };
	static const char cfg_text[] =
			"ports:\n  - { name: p, device: net_ring0, ip: 198.18.0.10/24 }\n"
			"listen: { port: p, udp_port: 5000 }\ndestinations:\n"
			"  - { ip: 198.18.0.21, udp_port: 6000, mac: \"02:00:00:00:00:21\" }\n"
			"  - { ip: 198.18.0.22, udp_port: 6001, mac: \"02:00:00:00:00:22\" }\n";
	struct rte_ether_addr dmac[N_DESTS];
	bool resolved[N_DESTS] = { true, true }, chain_ok = true;
	uint16_t mtu = 1500;
	struct uf_plan_input pin = { .port_mac = &port_mac,
				     .port_mtu = &mtu,
				     .port_chain_ok = &chain_ok,
				     .dest_mac = dmac,
				     .dest_resolved = resolved,
				     .version = 1,
				     .socket = -1 };
	struct uf_shared sh;
	struct uf_config *cfg;
	struct uf_worker *w;
	uint64_t want_fwd = 0, want_malformed = 0, drops = 0;
	unsigned i, d, round;

	(void)argc;
	cfg = uf_ring_test_start(eal, (int)RTE_DIM(eal) - 1, "ck", cfg_text, sizeof(cfg_text) - 1,
				 "rx_cksum", &pool, &rx_ring, &tx_ring, &port, &port_mac);
	if (cfg == NULL)
		return 1;
	for (d = 0; d < N_DESTS; d++)
		dmac[d] = cfg->dests[d].mac;
	pin.cfg = cfg;
	memset(&sh, 0, sizeof(sh));
	sh.plan = uf_plan_build(&pin);
	w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (sh.plan == NULL || w == NULL) {
		fprintf(stderr, "plan / worker setup failed\n");
		return 1;
	}
	w->n_ports = 1;
	w->burst = 32;
	w->tx_retries = 0;
	w->shared = &sh;
	w->copy_pool = pool;
	w->ports[0].port_id = port;
	w->ports[0].id.mac = port_mac;
	w->ports[0].id.ip = cfg->ports[0].ip;
	w->ports[0].id.listen = true;
	w->ports[0].id.listen_udp = rte_cpu_to_be_16(5000);
	w->ports[0].id.max_len = uf_port_max_len(1500);
	uf_worker_port_id(w, 0);
	w->port_idx[port] = 0;
	w->txb[0].port_id = port;
	uf_worker_link_init(w, 0, 100);

	/* each case alone (the careful path sees it), then all of them in one burst, twice */
	for (round = 0; round < RTE_DIM(cases) + 2; round++) {
		struct rte_mbuf *in[RTE_DIM(cases)], *got[64], *out[64];
		const unsigned lo = round < RTE_DIM(cases) ? round : 0,
			       hi = round < RTE_DIM(cases) ? round + 1 : RTE_DIM(cases);
		uint64_t fwd_before = w->ctr.forwarded, bad_before = w->ctr.drop[UF_DROP_MALFORMED];
		unsigned n_in = 0, n_fwd = 0, n_out, k;
		uint16_t n;

		for (i = lo; i < hi; i++) {
			in[n_in++] = datagram(round * 100 + i, &cases[i]);
			n_fwd += cases[i].forwarded;
		}
		CHECK_EQ(rte_ring_enqueue_bulk(rx_ring, (void **)in, n_in, NULL), n_in);
		n = rte_eth_rx_burst(port, 0, got, RTE_DIM(got));
		CHECK_EQ(n, n_in);
		for (k = 0; k < n; k++)
			CHECK_EQ(got[k]->ol_flags,
				 cases[lo + k].flags); /* through the PMD intact */
		uf_worker_rx(w, sh.plan, 0, got, n);
		uf_worker_flush(w);
		want_fwd += n_fwd;
		want_malformed += n_in - n_fwd;
		CHECK(w->ctr.forwarded - fwd_before == n_fwd, "%s: %" PRIu64 " forwarded, want %u",
		      round < RTE_DIM(cases) ? cases[round].name : "all",
		      w->ctr.forwarded - fwd_before, n_fwd);
		CHECK(w->ctr.drop[UF_DROP_MALFORMED] - bad_before == n_in - n_fwd,
		      "%s: %" PRIu64 " malformed, want %u",
		      round < RTE_DIM(cases) ? cases[round].name : "all",
		      w->ctr.drop[UF_DROP_MALFORMED] - bad_before, n_in - n_fwd);
		/* the copies: N_DESTS per forwarded datagram, each with a right IPv4 header sum
		 * (a datagram forwarded on a trusted GOOD flag leaves repaired, not carried) */
		n_out = rte_ring_dequeue_burst(tx_ring, (void **)out, RTE_DIM(out), NULL);
		CHECK_EQ(n_out, n_fwd * N_DESTS);
		for (k = 0; k < n_out; k++) {
			const struct rte_ipv4_hdr *oip = rte_pktmbuf_mtod_offset(
					out[k], const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);

			CHECK(rte_raw_cksum(oip, sizeof(*oip)) == 0xffff,
			      "copy %u of round %u: IPv4 header checksum wrong", k, round);
		}
		rte_pktmbuf_free_bulk(out, n_out);
	}
	printf("%zu cases alone and twice in one burst: %" PRIu64 " forwarded, %" PRIu64
	       " malformed, %" PRIu64 " copies sent\n",
	       RTE_DIM(cases), w->ctr.forwarded, w->ctr.drop[UF_DROP_MALFORMED], w->ctr.tx_ok);

	/* the ledger (docs/loss-accounting.md): every frame accounted for, once */
	for (i = 0; i < UF_DROP_MAX; i++)
		drops += w->ctr.drop[i];
	for (i = 0; i < UF_DROP_MAX; i++)
		if (i != UF_DROP_MALFORMED)
			CHECK(w->ctr.drop[i] == 0, "drop.%s = %" PRIu64, uf_drop_names[i],
			      w->ctr.drop[i]);
	CHECK_EQ(w->ctr.rx, 3 * RTE_DIM(cases));
	CHECK_EQ(w->ctr.rx, w->ctr.forwarded + w->ctr.control + drops);
	CHECK_EQ(w->ctr.forwarded, want_fwd);
	CHECK_EQ(w->ctr.drop[UF_DROP_MALFORMED], want_malformed);
	CHECK_EQ(w->ctr.fanout, N_DESTS * want_fwd);
	CHECK_EQ(w->ctr.copies_attempted, N_DESTS * want_fwd);
	CHECK_EQ(w->ctr.tx_ok, N_DESTS * want_fwd);
	CHECK_EQ(w->ctr.control, 0);

	/* a port whose verdicts are not all to be believed (uf_port_plan.rx_ck_ignore): the
	 * offloads off (em sets BAD all the same), or ENA on a device without an L3 check (it
	 * marks every IPv4 frame GOOD): the flags are cleared, the software path decides */
	for (i = 0; i < RTE_DIM(masked); i++) {
		const struct rx_case *c = &masked[i].c;
		struct rte_mbuf *m = datagram(1000 + i, c), *got[4], *out[8];
		uint64_t fwd_before = w->ctr.forwarded, bad_before = w->ctr.drop[UF_DROP_MALFORMED];
		unsigned n_out;
		uint16_t n;

		w->ports[0].id.rx_ck_ignore = masked[i].ignore;
		uf_worker_port_id(w, 0);
		CHECK_EQ(rte_ring_enqueue(rx_ring, m), 0);
		n = rte_eth_rx_burst(port, 0, got, RTE_DIM(got));
		CHECK_EQ(n, 1);
		uf_worker_rx(w, sh.plan, 0, got, n);
		uf_worker_flush(w);
		CHECK(w->ctr.forwarded - fwd_before == c->forwarded &&
				      w->ctr.drop[UF_DROP_MALFORMED] - bad_before == !c->forwarded,
		      "%s: %s", c->name, c->forwarded ? "not forwarded" : "not malformed");
		n_out = rte_ring_dequeue_burst(tx_ring, (void **)out, RTE_DIM(out), NULL);
		CHECK_EQ(n_out, c->forwarded * N_DESTS);
		rte_pktmbuf_free_bulk(out, n_out);
	}
	printf("%zu cases on ports whose verdicts are ignored: as the software path says\n",
	       RTE_DIM(masked));

	rte_free(w);
	uf_plan_free(sh.plan);
	uf_config_free(cfg);
	rte_eth_dev_stop(port);
	rte_eal_cleanup();
	printf("%d passed, %d failed\n", uf_t_passed, uf_t_failed);
	return uf_t_failed == 0 ? 0 : 1;
}
