/* SPDX-License-Identifier: BSD-3-Clause
 * Neighbour Discovery and ICMPv6 echo on the control lcore (lib/ctl/uf_ctlframes.c,
 * docs/architecture.md#neighbour-discovery), through the control path as the workers feed
 * it: frames put on a worker's worker→control ring, uf_ctlframes_poll, what comes back on
 * its control→worker ring read byte for byte. The expected frames are built here from the
 * RFC 4861 layout with DPDK's own checksum (rte_ipv6_udptcp_cksum), not with lib/neigh's
 * builders.
 *
 * What it shows, on a port with 2001:db8::10/64 and fe80::10/64 and gateway6 fe80::1:
 *   - an NS for 2001:db8::10 to its solicited-node group: a Solicited+Override NA to the
 *     sender's SLLA; an NS from :: (DAD): an Override NA to ff02::1 at 33:33:00:00:00:01;
 *   - NSs with hop limit 64, a wrong checksum, a multicast target: counted by reason, no
 *     answer; an NS for another address: ndp.ignored;
 *   - spoofed NAs with a broadcast, zero or multicast TLLA, NSs with a group SLLA or
 *     Ethernet source: ndp.bad_lladdr, nothing learned, nothing answered;
 *   - resolution: the NS udpfan sends for 2001:db8::20 (to ff02::1:ff00:20 at
 *     33:33:ff:00:00:20, from 2001:db8::10) and for the gateway fe80::1 (from fe80::10);
 *     NAs from them make them reachable (the snapshot says so), a different MAC without
 *     Override is not taken, with Override it is;
 *   - unsolicited NAs for both ip6 with the gratuitous ARP;
 *   - echo requests answered within control.icmp_rate, the rest rate_limited; a router
 *     advertisement: icmp6.ignored;
 *   - 20,000 ARP requests and NSs for us in 400 ms with control.neigh_rate 100: answered
 *     within the bucket (100 + 40), the rest arp.rate_limited / ndp.rate_limited;
 *   - a gratuitous ARP of a tracked IPv4 next hop: learned and counted (arp.gratuitous);
 *   - every frame put on the ring lands in exactly one arp / ndp / icmp / icmp6 counter.
 *
 * Needs EAL without hugepages: --no-huge --no-pci -l 0 (eal suite).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "uf_ctlframes.h"
#include "uf_pkt6.h"
#include "uf_resolve.h"

#include "../unit/uf_test.h"
#include "uf_ring_port.h"
#include "uf_compat.h"

static struct rte_mempool *pool;
static struct uf_worker *w;
static struct uf_ctlframes cf;
static struct uf_ctl_ctr ctr;
static struct uf_resolve res;
static struct uf_port ports[1];
static struct uf_snap snap;

static const struct rte_ether_addr our_mac = { { 0x02, 0x00, 0x00, 0x00, 0x00, 0x10 } };
static const struct rte_ether_addr peer_mac = { { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 } };
static const struct rte_ether_addr gw_mac = { { 0x02, 0x00, 0x00, 0x00, 0x0f, 0x01 } };

static struct uf_ip6
a6(const char *s)
{
	struct uf_ip6 a;

	if (inet_pton(AF_INET6, s, a.b) != 1)
		abort();
	return a;
}

/*
 * An Ethernet/IPv6/ICMPv6 NDP frame (RFC 4861 4.3, 4.4) into f: TYPE with FLAGS (NA) and
 * TARGET, one link-layer address option OPT (1 SLLA, 2 TLLA, 0 none) holding OPT_MAC.
 * Returns its length.
 */
static uint16_t
ndp_frame(uint8_t *f, const struct rte_ether_addr *eth_dst, const struct rte_ether_addr *eth_src,
	  const char *src, const char *dst, uint8_t hlim, uint8_t type, uint8_t flags,
	  const char *target, uint8_t opt, const struct rte_ether_addr *opt_mac)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f + RTE_ETHER_HDR_LEN);
	uint8_t *m = (uint8_t *)(ip + 1);
	struct uf_ip6 s = a6(src), d = a6(dst), t = a6(target);
	uint16_t mlen = 24 + (opt != 0 ? 8 : 0), ck;

	memcpy(f, eth_dst->addr_bytes, 6);
	memcpy(f + 6, eth_src->addr_bytes, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	memset(ip, 0, sizeof(*ip));
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(mlen);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = hlim;
	memcpy(UF_IP6_BYTES(ip->src_addr), s.b, 16);
	memcpy(UF_IP6_BYTES(ip->dst_addr), d.b, 16);
	memset(m, 0, mlen);
	m[0] = type;
	m[4] = flags;
	memcpy(m + 8, t.b, 16);
	if (opt != 0) {
		m[24] = opt;
		m[25] = 1;
		memcpy(m + 26, opt_mac->addr_bytes, 6);
	}
	ck = rte_ipv6_udptcp_cksum(ip, m); /* the pseudo-header takes ip->proto: ICMPv6 */
	memcpy(m + 2, &ck, 2);
	return (uint16_t)(RTE_ETHER_HDR_LEN + 40 + mlen);
}

/* an echo request (RFC 4443 4.1) with 16 bytes of data */
static uint16_t
echo_frame(uint8_t *f, const char *src, const char *dst, uint16_t seq)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f + RTE_ETHER_HDR_LEN);
	uint8_t *m = (uint8_t *)(ip + 1);
	struct uf_ip6 s = a6(src), d = a6(dst);
	uint16_t ck;
	int k;

	memcpy(f, our_mac.addr_bytes, 6);
	memcpy(f + 6, peer_mac.addr_bytes, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	memset(ip, 0, sizeof(*ip));
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(24);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 64;
	memcpy(UF_IP6_BYTES(ip->src_addr), s.b, 16);
	memcpy(UF_IP6_BYTES(ip->dst_addr), d.b, 16);
	memset(m, 0, 24);
	m[0] = 128;
	m[4] = 0x12;
	m[5] = 0x34;
	m[6] = (uint8_t)(seq >> 8);
	m[7] = (uint8_t)seq;
	for (k = 8; k < 24; k++)
		m[k] = (uint8_t)(k * 3);
	ck = rte_ipv6_udptcp_cksum(ip, m);
	memcpy(m + 2, &ck, 2);
	return RTE_ETHER_HDR_LEN + 40 + 24;
}

/* put one frame (len bytes of buf) on the worker→control ring */
static void
feed(const uint8_t *buf, uint16_t len)
{
	struct rte_mbuf *m = uf_test_mbuf(pool, buf, len);

	m->port = 0;
	if (rte_ring_enqueue(w->ctl_rx, m) != 0)
		exit(1);
}

/* the frames on the control→worker ring, at most max */
static unsigned
take(struct rte_mbuf **out, unsigned max)
{
	return rte_ring_dequeue_burst(w->ctl_tx, (void **)out, max, NULL);
}

/* one frame out, equal to want (len bytes) */
static void
expect_one(const char *what, const uint8_t *want, uint16_t len)
{
	struct rte_mbuf *out[8];
	unsigned n = take(out, RTE_DIM(out)), k;

	CHECK(n == 1, "%s: %u frames out, want 1", what, n);
	if (n >= 1) {
		CHECK(out[0]->data_len == len, "%s: %u bytes, want %u", what, out[0]->data_len,
		      len);
		CHECK(memcmp(rte_pktmbuf_mtod(out[0], uint8_t *), want, len) == 0,
		      "%s: the frame differs", what);
	}
	for (k = 0; k < n; k++)
		rte_pktmbuf_free(out[k]);
}

static void
expect_none(const char *what)
{
	struct rte_mbuf *out[8];
	unsigned n = take(out, RTE_DIM(out)), k;

	CHECK(n == 0, "%s: %u frames out, want none", what, n);
	for (k = 0; k < n; k++)
		rte_pktmbuf_free(out[k]);
}

static uint64_t
ctl_sum(void)
{
	return ctr.arp_requests_answered + ctr.arp_rate_limited + ctr.arp_replies_learned +
	       ctr.arp_gratuitous + ctr.arp_ignored + ctr.icmp_echo_answered +
	       ctr.icmp_rate_limited + ctr.icmp_ignored + ctr.ndp_ns_answered +
	       ctr.ndp_rate_limited + ctr.ndp_na_learned + ctr.ndp_ignored + ctr.ndp_bad_not_icmp6 +
	       ctr.ndp_bad_hop_limit + ctr.ndp_bad_cksum + ctr.ndp_bad_code + ctr.ndp_bad_len +
	       ctr.ndp_bad_target_mcast + ctr.ndp_bad_opt_len + ctr.ndp_bad_lladdr +
	       ctr.ndp_bad_dad_dst + ctr.ndp_bad_dad_slla + ctr.ndp_bad_solicited_mcast +
	       ctr.icmp6_echo_answered + ctr.icmp6_rate_limited + ctr.icmp6_ignored;
}

static const char *
state_of(int dest)
{
	uf_resolve_snapshot(&res, &snap);
	return snap.dests[dest].state;
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0],      "-l",  "0",           "--no-pci",        "--no-huge",
			"-m",         "256", "--log-level", "lib.eal:warning", "--file-prefix",
			"uf_ndp_ctl", NULL };
	static const char cfg_text[] = "ports:\n"
				       "  - name: p\n"
				       "    device: net_ring0\n"
				       "    ip: 198.18.0.10/24\n"
				       "    ip6: [\"2001:db8::10/64\", \"fe80::10/64\"]\n"
				       "    gateway6: fe80::1\n"
				       "listen: { port: p, udp_port: 5000 }\n"
				       "destinations:\n"
				       "  - { ip: \"2001:db8::20\", udp_port: 6000 }\n"
				       "  - { ip: \"2001:db8:99::5\", udp_port: 6001 }\n"
				       "  - { ip: 198.18.0.20, udp_port: 6002 }\n"
				       "arp: { retry_ms: 100, max_probes: 3 }\n"
				       "control: { icmp_rate: 2, neigh_rate: 100 }\n";
	const struct rte_ether_addr sn20 = { { 0x33, 0x33, 0xff, 0x00, 0x00, 0x20 } },
				    sn10 = { { 0x33, 0x33, 0xff, 0x00, 0x00, 0x10 } },
				    sn1 = { { 0x33, 0x33, 0xff, 0x00, 0x00, 0x01 } },
				    all = { { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 } },
				    other = { { 0x02, 0x00, 0x00, 0x00, 0x00, 0x77 } },
				    bcast = { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
				    zero = { { 0 } };
	struct uf_worker *wl[1];
	struct uf_config *cfg;
	struct uf_err err;
	uint8_t in[256], want[256];
	uint16_t len, wlen;
	uint64_t fed = 0, ms;
	struct rte_mbuf *out[16];
	unsigned n, k, seq;

	(void)argc;
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	cfg = uf_config_parse(cfg_text, sizeof(cfg_text) - 1, "ndp_ctl", &err);
	if (cfg == NULL) {
		fprintf(stderr, "config: %s\n", err.msg);
		return 1;
	}
	pool = rte_pktmbuf_pool_create("ndp", 511, 0, 0, 2176, SOCKET_ID_ANY);
	w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (pool == NULL || w == NULL)
		return 1;
	w->ctl_rx = rte_ring_create("ctl_rx", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	w->ctl_tx = rte_ring_create("ctl_tx", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (w->ctl_rx == NULL || w->ctl_tx == NULL)
		return 1;
	w->port_idx[0] = 0;
	ports[0].cfg = &cfg->ports[0];
	ports[0].mac = our_mac;
	ports[0].pool[0] = pool;
	wl[0] = w;
	if (uf_resolve_init(&res, cfg, 0, &err) != 0) {
		fprintf(stderr, "resolve: %s\n", err.msg);
		return 1;
	}
	uf_ctlframes_init(&cf, cfg, ports, wl, 1, &res.neigh, &ctr, NULL);

	/* a gratuitous ARP request of the tracked next hop 198.18.0.20: learned, and counted
	 * (arp.gratuitous), not answered */
	len = uf_arp_build(in, RTE_ARP_OP_REQUEST, &bcast, &gw_mac, RTE_BE32(0xc6120014), &zero,
			   RTE_BE32(0xc6120014));
	feed(in, len), fed++;
	CHECK(uf_ctlframes_poll(&cf, 5), "198.18.0.20 learned");
	expect_none("gratuitous ARP");
	CHECK_EQ(ctr.arp_gratuitous, 1);
	CHECK_EQ(ctl_sum(), fed);
	CHECK_STR(state_of(2), "reachable");
	CHECK_MEM(snap.dests[2].mac.addr_bytes, gw_mac.addr_bytes, 6);

	/* NS for 2001:db8::10 to its group, with SLLA: a Solicited+Override NA to the SLLA */
	len = ndp_frame(in, &sn10, &peer_mac, "2001:db8::1", "ff02::1:ff00:10", 255, 135, 0,
			"2001:db8::10", 1, &peer_mac);
	feed(in, len), fed++;
	CHECK(!uf_ctlframes_poll(&cf, 10), "no neighbour changed");
	wlen = ndp_frame(want, &peer_mac, &our_mac, "2001:db8::10", "2001:db8::1", 255, 136, 0x60,
			 "2001:db8::10", 2, &our_mac);
	CHECK_EQ(wlen, 86);
	expect_one("NA to an NS", want, wlen);
	CHECK_EQ(ctr.ndp_ns_answered, 1);

	/* NS for fe80::10, unicast from the gateway without SLLA: to the frame's source */
	len = ndp_frame(in, &our_mac, &gw_mac, "fe80::1", "fe80::10", 255, 135, 0, "fe80::10", 0,
			NULL);
	feed(in, len), fed++;
	uf_ctlframes_poll(&cf, 11);
	wlen = ndp_frame(want, &gw_mac, &our_mac, "fe80::10", "fe80::1", 255, 136, 0x60, "fe80::10",
			 2, &our_mac);
	expect_one("NA to a unicast NS without SLLA", want, wlen);

	/* DAD: NS from :: → Override NA to all nodes */
	len = ndp_frame(in, &sn10, &peer_mac, "::", "ff02::1:ff00:10", 255, 135, 0, "2001:db8::10",
			0, NULL);
	feed(in, len), fed++;
	uf_ctlframes_poll(&cf, 12);
	wlen = ndp_frame(want, &all, &our_mac, "2001:db8::10", "ff02::1", 255, 136, 0x20,
			 "2001:db8::10", 2, &our_mac);
	expect_one("NA to a DAD NS", want, wlen);
	CHECK_EQ(ctr.ndp_ns_answered, 3);

	/* what a host must not accept: counted by reason, nothing sent */
	len = ndp_frame(in, &sn10, &peer_mac, "2001:db8::1", "ff02::1:ff00:10", 64, 135, 0,
			"2001:db8::10", 1, &peer_mac);
	feed(in, len), fed++;
	len = ndp_frame(in, &sn10, &peer_mac, "2001:db8::1", "ff02::1:ff00:10", 255, 135, 0,
			"2001:db8::10", 1, &peer_mac);
	in[RTE_ETHER_HDR_LEN + 40 + 2] ^= 0x01; /* the checksum off by one bit */
	feed(in, len), fed++;
	len = ndp_frame(in, &sn10, &peer_mac, "2001:db8::1", "ff02::1:ff00:10", 255, 135, 0,
			"ff02::1", 1, &peer_mac);
	feed(in, len), fed++;
	/* valid, but for an address not ours */
	len = ndp_frame(in, &sn10, &peer_mac, "2001:db8::1", "ff02::1:ff00:10", 255, 135, 0,
			"2001:db8::9910", 1, &peer_mac);
	feed(in, len), fed++;
	uf_ctlframes_poll(&cf, 13);
	expect_none("bad NSs");
	CHECK_EQ(ctr.ndp_bad_hop_limit, 1);
	CHECK_EQ(ctr.ndp_bad_cksum, 1);
	CHECK_EQ(ctr.ndp_bad_target_mcast, 1);
	CHECK_EQ(ctr.ndp_ignored, 1);
	CHECK_EQ(ctr.ndp_ns_answered, 3);

	/* resolution: the first tick asks for both next hops, by group */
	CHECK_STR(state_of(0), "incomplete");
	uf_neigh_tick46(&res.neigh, 100, uf_ctlframes_neigh_send, uf_ctlframes_neigh_send6, &cf);
	n = take(out, RTE_DIM(out));
	CHECK_EQ(n, 2);
	CHECK_EQ(ctr.ndp_ns_sent, 2);
	CHECK_EQ(ctr.arp_requests_sent, 0);
	wlen = ndp_frame(want, &sn20, &our_mac, "2001:db8::10", "ff02::1:ff00:20", 255, 135, 0,
			 "2001:db8::20", 1, &our_mac);
	CHECK(n >= 1 && out[0]->data_len == wlen &&
			      memcmp(rte_pktmbuf_mtod(out[0], uint8_t *), want, wlen) == 0,
	      "the NS for 2001:db8::20, from 2001:db8::10 to its group");
	wlen = ndp_frame(want, &sn1, &our_mac, "fe80::10", "ff02::1:ff00:1", 255, 135, 0, "fe80::1",
			 1, &our_mac);
	CHECK(n >= 2 && out[1]->data_len == wlen &&
			      memcmp(rte_pktmbuf_mtod(out[1], uint8_t *), want, wlen) == 0,
	      "the NS for the gateway fe80::1, from fe80::10 to its group");
	for (k = 0; k < n; k++)
		rte_pktmbuf_free(out[k]);

	/* spoofed: NAs for 2001:db8::20 with a broadcast, zero or multicast TLLA, an NS from
	 * it with a group SLLA, one from a group Ethernet source without SLLA: none is learned
	 * or answered, each is ndp.bad_lladdr */
	{
		const struct rte_ether_addr bad[] = { { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
						      { { 0, 0, 0, 0, 0, 0 } },
						      { { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 } } };

		for (k = 0; k < RTE_DIM(bad); k++) {
			len = ndp_frame(in, &our_mac, &peer_mac, "2001:db8::20", "2001:db8::10",
					255, 136, 0x60, "2001:db8::20", 2, &bad[k]);
			feed(in, len), fed++;
		}
		len = ndp_frame(in, &sn10, &peer_mac, "2001:db8::20", "ff02::1:ff00:10", 255, 135,
				0, "2001:db8::10", 1, &bad[2]);
		feed(in, len), fed++;
		len = ndp_frame(in, &sn10, &bad[0], "2001:db8::20", "ff02::1:ff00:10", 255, 135, 0,
				"2001:db8::10", 0, NULL);
		feed(in, len), fed++;
		CHECK(!uf_ctlframes_poll(&cf, 110), "no neighbour learned at a group or zero MAC");
		expect_none("NS with a group SLLA or source");
		CHECK_EQ(ctr.ndp_bad_lladdr, 5);
		CHECK_STR(state_of(0), "incomplete");
		CHECK_EQ(ctr.ndp_ns_answered, 3);
		CHECK_EQ(ctr.ndp_na_learned, 0);
	}

	/* the answers: a solicited NA with TLLA; the gateway's unsolicited Override NA */
	len = ndp_frame(in, &our_mac, &peer_mac, "2001:db8::20", "2001:db8::10", 255, 136, 0x60,
			"2001:db8::20", 2, &peer_mac);
	feed(in, len), fed++;
	len = ndp_frame(in, &all, &gw_mac, "fe80::1", "ff02::1", 255, 136, 0xa0, "fe80::1", 2,
			&gw_mac);
	feed(in, len), fed++;
	CHECK(uf_ctlframes_poll(&cf, 120), "the next hops' MACs appeared");
	expect_none("NAs are not answered");
	CHECK_EQ(ctr.ndp_na_learned, 2);
	CHECK_STR(state_of(0), "reachable");
	CHECK_STR(state_of(1), "reachable");
	CHECK_STR(snap.dests[1].port, "p");
	CHECK_MEM(snap.dests[0].mac.addr_bytes, peer_mac.addr_bytes, 6);
	CHECK_MEM(snap.dests[1].mac.addr_bytes, gw_mac.addr_bytes, 6);
	{
		struct uf_ip6 gw = a6("fe80::1");

		CHECK(snap.dests[1].is_ip6 && uf_ip6_eq(&snap.dests[1].next_hop6, &gw),
		      "2001:db8:99::5's next hop is the gateway");
	}

	/* another MAC for 2001:db8::20 without Override: kept; with Override: taken */
	len = ndp_frame(in, &our_mac, &other, "2001:db8::20", "2001:db8::10", 255, 136, 0x40,
			"2001:db8::20", 2, &other);
	feed(in, len), fed++;
	CHECK(!uf_ctlframes_poll(&cf, 130), "no change without Override");
	uf_resolve_snapshot(&res, &snap);
	CHECK_MEM(snap.dests[0].mac.addr_bytes, peer_mac.addr_bytes, 6);
	len = ndp_frame(in, &our_mac, &other, "2001:db8::20", "2001:db8::10", 255, 136, 0x60,
			"2001:db8::20", 2, &other);
	feed(in, len), fed++;
	CHECK(uf_ctlframes_poll(&cf, 140), "changed with Override");
	uf_resolve_snapshot(&res, &snap);
	CHECK_MEM(snap.dests[0].mac.addr_bytes, other.addr_bytes, 6);
	CHECK_EQ(ctr.ndp_na_learned, 4);
	/* an NA about nobody we track */
	len = ndp_frame(in, &all, &other, "2001:db8::55", "ff02::1", 255, 136, 0x20, "2001:db8::55",
			2, &other);
	feed(in, len), fed++;
	uf_ctlframes_poll(&cf, 150);
	CHECK_EQ(ctr.ndp_ignored, 2);

	/* unsolicited NAs with the gratuitous ARP: one per ip6, in order */
	uf_ctlframes_garp(&cf, 0);
	n = take(out, RTE_DIM(out));
	CHECK_EQ(n, 3);
	CHECK_EQ(ctr.arp_gratuitous_sent, 1);
	CHECK_EQ(ctr.ndp_unsolicited_na_sent, 2);
	wlen = ndp_frame(want, &all, &our_mac, "2001:db8::10", "ff02::1", 255, 136, 0x20,
			 "2001:db8::10", 2, &our_mac);
	CHECK(n >= 2 && out[1]->data_len == wlen &&
			      memcmp(rte_pktmbuf_mtod(out[1], uint8_t *), want, wlen) == 0,
	      "the unsolicited NA for 2001:db8::10");
	wlen = ndp_frame(want, &all, &our_mac, "fe80::10", "ff02::1", 255, 136, 0x20, "fe80::10", 2,
			 &our_mac);
	CHECK(n >= 3 && out[2]->data_len == wlen &&
			      memcmp(rte_pktmbuf_mtod(out[2], uint8_t *), want, wlen) == 0,
	      "the unsolicited NA for fe80::10");
	for (k = 0; k < n; k++)
		rte_pktmbuf_free(out[k]);

	/* echo: 5 requests at once with icmp_rate 2 (a full bucket of 2): 2 replies */
	for (seq = 0; seq < 5; seq++) {
		len = echo_frame(in, "2001:db8::1", "2001:db8::10", (uint16_t)seq);
		feed(in, len), fed++;
	}
	uf_ctlframes_poll(&cf, 1000);
	n = take(out, RTE_DIM(out));
	CHECK_EQ(n, 2);
	CHECK_EQ(ctr.icmp6_echo_answered, 2);
	CHECK_EQ(ctr.icmp6_rate_limited, 3);
	for (k = 0; k < n; k++) {
		const uint8_t *f = rte_pktmbuf_mtod(out[k], const uint8_t *);
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(f + 14);
		struct uf_ip6 s = a6("2001:db8::10"), d = a6("2001:db8::1");

		echo_frame(want, "2001:db8::1", "2001:db8::10", (uint16_t)k);
		CHECK(memcmp(f, peer_mac.addr_bytes, 6) == 0 &&
				      memcmp(f + 6, our_mac.addr_bytes, 6) == 0,
		      "reply %u: MACs swapped", k);
		CHECK(memcmp(UF_IP6_CBYTES(ip->src_addr), s.b, 16) == 0 &&
				      memcmp(UF_IP6_CBYTES(ip->dst_addr), d.b, 16) == 0,
		      "reply %u: addresses swapped", k);
		CHECK_EQ(ip->hop_limits, 64);
		CHECK_EQ(f[54], 129);
		{ /* the checksum: DPDK's over the reply with its field zeroed */
			uint8_t c[128];
			uint16_t ck;

			memcpy(c, f, out[k]->data_len);
			c[56] = c[57] = 0;
			ck = rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)(c + 14), c + 54);
			CHECK(memcmp(&ck, f + 56, 2) == 0, "reply %u: checksum", k);
		}
		CHECK(memcmp(f + 58, want + 58, 20) == 0, "reply %u: id, sequence, data kept", k);
	}
	for (k = 0; k < n; k++)
		rte_pktmbuf_free(out[k]);
	/* a router advertisement (type 134) handed over: icmp6.ignored */
	len = ndp_frame(in, &all, &gw_mac, "fe80::1", "ff02::1", 255, 134, 0, "::", 0, NULL);
	feed(in, len), fed++;
	uf_ctlframes_poll(&cf, 1001);
	expect_none("RA");
	CHECK_EQ(ctr.icmp6_ignored, 1);

	/* an unsolicited NA without TLLA about a next hop says nothing new: ignored */
	len = ndp_frame(in, &all, &other, "2001:db8::20", "ff02::1", 255, 136, 0x20, "2001:db8::20",
			0, NULL);
	feed(in, len), fed++;
	CHECK(!uf_ctlframes_poll(&cf, 1002), "no change from an unsolicited NA without TLLA");
	CHECK_EQ(ctr.ndp_ignored, 3);
	/* nobody answers: 2001:db8::20 goes PROBE, then FAILED (the unicast NSs and the group's
	 * ones, dropped here) */
	for (ms = 1100; ms < 200000 && strcmp(state_of(0), "failed") != 0; ms += 50) {
		uf_neigh_tick46(&res.neigh, ms, uf_ctlframes_neigh_send, uf_ctlframes_neigh_send6,
				&cf);
		n = take(out, RTE_DIM(out));
		for (k = 0; k < n; k++)
			rte_pktmbuf_free(out[k]);
	}
	CHECK_STR(state_of(0), "failed");
	/* Linux answers a unicast NS Solicited, without TLLA: from another MAC it proves
	 * nothing; from the MAC the entry had, the neighbour is back there */
	len = ndp_frame(in, &our_mac, &peer_mac, "2001:db8::20", "2001:db8::10", 255, 136, 0x40,
			"2001:db8::20", 0, NULL);
	feed(in, len), fed++;
	CHECK(!uf_ctlframes_poll(&cf, ms + 1), "no change from another MAC");
	CHECK_STR(state_of(0), "failed");
	len = ndp_frame(in, &our_mac, &other, "2001:db8::20", "2001:db8::10", 255, 136, 0x40,
			"2001:db8::20", 0, NULL);
	feed(in, len), fed++;
	CHECK(uf_ctlframes_poll(&cf, ms + 2), "back at the MAC it had");
	CHECK_STR(state_of(0), "reachable");
	CHECK_MEM(snap.dests[0].mac.addr_bytes, other.addr_bytes, 6);

	/* 10,000 ARP requests and 10,000 NSs for the port's addresses, 50 a ms: answered
	 * within control.neigh_rate 100 (a full bucket of 100, then 100 a second over the
	 * 400 ms), the rest arp.rate_limited / ndp.rate_limited, nothing else */
	{
		const uint64_t before = ctr.arp_requests_answered + ctr.ndp_ns_answered;
		uint64_t sent = 0, got, t0 = ms + 1000;
		unsigned int i;

		for (i = 0; i < 20000; i++) {
			if (i % 2 == 0)
				len = uf_arp_build(in, RTE_ARP_OP_REQUEST, &bcast, &peer_mac,
						   RTE_BE32(0xc6120001), &zero,
						   RTE_BE32(0xc612000a));
			else
				len = ndp_frame(in, &sn10, &peer_mac, "2001:db8::1",
						"ff02::1:ff00:10", 255, 135, 0, "2001:db8::10", 1,
						&peer_mac);
			feed(in, len), fed++;
			if (i % 50 == 49) {
				uf_ctlframes_poll(&cf, t0 + i / 50);
				n = take(out, RTE_DIM(out));
				while (n > 0) {
					for (k = 0; k < n; k++)
						rte_pktmbuf_free(out[k]);
					sent += n;
					n = take(out, RTE_DIM(out));
				}
			}
		}
		got = ctr.arp_requests_answered + ctr.ndp_ns_answered - before;
		CHECK(got >= 100 && got <= 100 + 40 + 1, "%" PRIu64 " of 20,000 answered", got);
		CHECK_EQ(sent, got);
		CHECK_EQ(ctr.arp_rate_limited + ctr.ndp_rate_limited, 20000 - got);
		CHECK(ctr.arp_rate_limited > 0 && ctr.ndp_rate_limited > 0,
		      "both families refused");
		printf("20,000 ARP requests and NSs in 400 ms: %" PRIu64 " answered, %" PRIu64
		       " arp.rate_limited, %" PRIu64 " ndp.rate_limited\n",
		       got, ctr.arp_rate_limited, ctr.ndp_rate_limited);
	}

	/* the ledger: every frame handed over in exactly one counter */
	CHECK_EQ(ctl_sum(), fed);
	CHECK_EQ(ctr.ctl_nombuf, 0);
	CHECK_EQ(ctr.ctl_ring_full, 0);
	printf("%" PRIu64 " frames handed over: %" PRIu64 " NS answered, %" PRIu64
	       " NA learned, %" PRIu64 " echo answered\n",
	       fed, ctr.ndp_ns_answered, ctr.ndp_na_learned, ctr.icmp6_echo_answered);

	uf_resolve_fini(&res);
	uf_config_free(cfg);
	rte_eal_cleanup();
	printf("%d passed, %d failed\n", uf_t_passed, uf_t_failed);
	return uf_t_failed == 0 ? 0 : 1;
}
