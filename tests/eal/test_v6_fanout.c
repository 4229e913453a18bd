/* SPDX-License-Identifier: BSD-3-Clause
 * IPv6 through the worker, byte-exact (docs/architecture.md#ipv6):
 * v6 -> v6, v6 -> v4, v4 -> v6 and v4 -> v4 in one plan, tagged (802.1Q) in and out, an
 * IPv6 multicast destination (33:33 MAC, no neighbour), `source: original` v6 -> v6, IPv6
 * rules (first match), an IPv6 pool (round-robin) and a sampled IPv6 destination, and the
 * IPv6 drops by reason (extension header, fragment header,
 * zero checksum, not our UDP port, no rule) and ICMPv6 to the control ring.
 *
 * The frames go in through a net_ring port (rte_eth_from_rings) and uf_worker_rx, as the
 * worker loop hands them; what leaves lands on the ring for the test. Every expected frame is
 * built here from its fields with DPDK's own checksum functions (rte_ipv4_cksum,
 * rte_ipv4/6_udptcp_cksum): nothing is captured from udpfan. Every copy must equal one
 * expected frame byte for byte, each expected frame be matched once, and each copy's
 * checksums verify by a full recomputation (a sum from scratch, uf_test_udp_sum_ok). The
 * ledger (docs/loss-accounting.md) holds: rx == forwarded + control + drops, fanout ==
 * copies_attempted == tx_ok.
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
#include <rte_ring.h>

#include "uf_config.h"
#include "uf_fwd_dp.h"
#include "uf_plan.h"

#include "../unit/uf_test.h"
#include "uf_ring_port.h"
#include "uf_compat.h"

#define VLAN 100
#define PCP 3
#define MAX_EXP 16
#define FLEN 256

static struct rte_mempool *pool;
static struct rte_ring *rx_ring, *tx_ring;
static uint16_t port;
static struct rte_ether_addr port_mac;

static const char cfg_text[] =
		"ports:\n"
		"  - { name: p, device: net_ring0, ip: 198.18.0.10/24, ip6: [\"2001:db8::10/64\"] }\n"
		"  - { name: t, device: net_ring0, ip: 198.18.1.10/24, ip6: [\"2001:db8:1::10/64\"],"
		" vlan: 100, vlan_pcp: 3 }\n"
		"listeners:\n"
		"  - name: in6\n    port: p\n    ip: \"2001:db8::10\"\n    udp_port: 5000\n"
		"    destinations:\n"
		"      - { ip: \"2001:db8::21\", udp_port: 6000, mac: \"02:00:00:00:00:21\", ttl: 7 }\n"
		"      - { ip: 198.18.0.22, udp_port: 6001, mac: \"02:00:00:00:00:22\" }\n"
		"      - { ip: \"2001:db8:1::23\", udp_port: 6002, mac: \"02:00:00:00:00:23\", port: t }\n"
		"      - { ip: \"ff0e::1234\", udp_port: 6003 }\n"
		"      - { ip: \"2001:db8::2a\", udp_port: 6004, mac: \"02:00:00:00:00:2a\","
		" source: original }\n"
		"    rules:\n"
		"      - { from: \"2001:db8:bad::/48\", to: [1] }\n"
		"      - { from: \"2001:db8::/32\", to: [0, 1, 2, 3, 4] }\n"
		"  - name: in4\n    port: p\n    ip: 198.18.0.10\n    udp_port: 5001\n"
		"    destinations:\n"
		"      - { ip: \"2001:db8::24\", udp_port: 7000, mac: \"02:00:00:00:00:24\" }\n"
		"      - { ip: 198.18.0.25, udp_port: 7001, mac: \"02:00:00:00:00:25\" }\n"
		"      - { ip: \"2001:db8:1::27\", udp_port: 7002, mac: \"02:00:00:00:00:27\", port: t }\n"
		"  - name: in6t\n    port: t\n    ip: \"2001:db8:1::10\"\n    udp_port: 5002\n"
		"    destinations:\n"
		"      - { ip: \"2001:db8::28\", udp_port: 8000, mac: \"02:00:00:00:00:28\", port: p }\n"
		"      - { ip: 198.18.1.29, udp_port: 8001, mac: \"02:00:00:00:00:29\" }\n"
		"  - name: in6p\n    port: p\n    ip: \"2001:db8::10\"\n    udp_port: 5003\n"
		"    destinations:\n"
		"      - pool:\n          balance: round-robin\n          members:\n"
		"            - { ip: \"2001:db8::31\", udp_port: 9000, mac: \"02:00:00:00:00:31\" }\n"
		"            - { ip: \"2001:db8::32\", udp_port: 9000, mac: \"02:00:00:00:00:32\" }\n"
		"      - { ip: \"2001:db8::33\", udp_port: 9001, mac: \"02:00:00:00:00:33\", sample: 2 }\n";

static void
ip6(const char *s, uint8_t *out)
{
	struct uf_ip6 a;

	if (uf_parse_ipv6(s, &a) != 0) {
		fprintf(stderr, "bad address %s\n", s);
		exit(1);
	}
	memcpy(out, a.b, 16);
}

static void
mac(unsigned last, struct rte_ether_addr *m)
{
	static const struct rte_ether_addr base = { { 0x02, 0, 0, 0, 0, 0 } };

	*m = base;
	m->addr_bytes[5] = (uint8_t)last;
}

/* Ethernet (+ 802.1Q tag when tci >= 0) with EtherType et at f; the length of the L2 header */
static uint32_t
eth(uint8_t *f, const struct rte_ether_addr *dst, const struct rte_ether_addr *src, int tci,
    uint16_t et)
{
	struct rte_ether_hdr *e = (struct rte_ether_hdr *)f;

	e->dst_addr = *dst;
	e->src_addr = *src;
	if (tci < 0) {
		e->ether_type = rte_cpu_to_be_16(et);
		return RTE_ETHER_HDR_LEN;
	}
	e->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
	((struct rte_vlan_hdr *)(e + 1))->vlan_tci = rte_cpu_to_be_16((uint16_t)tci);
	((struct rte_vlan_hdr *)(e + 1))->eth_proto = rte_cpu_to_be_16(et);
	return RTE_ETHER_HDR_LEN + 4;
}

/* Eth/IPv6/UDP: its length; nh: the next header (UDP: a UDP datagram with its checksum, or
 * 0 with zero_ck; anything else: an 8-byte extension header before the UDP one) */
static uint32_t
frame6(uint8_t *f, const struct rte_ether_addr *dmac, const struct rte_ether_addr *smac, int tci,
       const char *src, const char *dst, uint16_t sport, uint16_t dport, uint8_t hlim,
       uint8_t tclass, const uint8_t *pl, uint16_t plen, uint8_t nh, bool zero_ck)
{
	const uint32_t l2 = eth(f, dmac, smac, tci, RTE_ETHER_TYPE_IPV6);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f + l2);
	const uint32_t ext = nh == IPPROTO_UDP ? 0 : 8;
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)((uint8_t *)(ip + 1) + ext);

	memset(ip, 0, sizeof(*ip) + ext);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)tclass << 20);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(ext + 8 + plen));
	ip->proto = nh;
	ip->hop_limits = hlim;
	ip6(src, UF_IP6_BYTES(ip->src_addr));
	ip6(dst, UF_IP6_BYTES(ip->dst_addr));
	if (ext) /* the extension header says UDP follows */
		((uint8_t *)(ip + 1))[0] = IPPROTO_UDP;
	udp->src_port = rte_cpu_to_be_16(sport);
	udp->dst_port = rte_cpu_to_be_16(dport);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(8 + plen));
	udp->dgram_cksum = 0;
	memcpy(udp + 1, pl, plen);
	if (!zero_ck && ext == 0)
		udp->dgram_cksum = rte_ipv6_udptcp_cksum(ip, udp);
	return l2 + 40 + ext + 8 + plen;
}

/* Eth/IPv4/UDP with DF, as the copies carry it; no_ck: a UDP checksum of 0 (none) */
static uint32_t
frame4(uint8_t *f, const struct rte_ether_addr *dmac, const struct rte_ether_addr *smac, int tci,
       uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport, uint8_t ttl, uint8_t tos,
       uint16_t id, const uint8_t *pl, uint16_t plen, bool no_ck)
{
	const uint32_t l2 = eth(f, dmac, smac, tci, RTE_ETHER_TYPE_IPV4);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + l2);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = tos;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(28 + plen));
	ip->packet_id = rte_cpu_to_be_16(id);
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = ttl;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(sport);
	udp->dst_port = rte_cpu_to_be_16(dport);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(8 + plen));
	udp->dgram_cksum = 0;
	memcpy(udp + 1, pl, plen);
	if (!no_ck)
		udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
	return l2 + 28 + plen;
}

/* ICMPv6 echo request to our address (a control frame) */
static uint32_t
echo6(uint8_t *f, const struct rte_ether_addr *smac)
{
	const uint32_t l2 = eth(f, &port_mac, smac, -1, RTE_ETHER_TYPE_IPV6);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f + l2);
	uint8_t *icmp = (uint8_t *)(ip + 1);

	memset(ip, 0, sizeof(*ip) + 8);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(8);
	ip->proto = 58;
	ip->hop_limits = 64;
	ip6("2001:db8::5", UF_IP6_BYTES(ip->src_addr));
	ip6("2001:db8::10", UF_IP6_BYTES(ip->dst_addr));
	icmp[0] = 128; /* echo request */
	return l2 + 48;
}

struct expect {
	uint8_t f[FLEN];
	uint32_t len;
	bool seen;
};

static struct expect exp_[MAX_EXP];
static unsigned n_exp;

static struct expect *
expect_add(void)
{
	if (n_exp >= MAX_EXP) {
		fprintf(stderr, "too many expected frames\n");
		exit(1);
	}
	memset(&exp_[n_exp], 0, sizeof(exp_[n_exp]));
	return &exp_[n_exp++];
}

/* full recomputation of the copy's checksums (IPv4 header and UDP, or UDP over IPv6) */
static bool
cksums_ok(const uint8_t *f, uint32_t len)
{
	uint32_t l2 = RTE_ETHER_HDR_LEN;
	uint16_t et = rte_be_to_cpu_16(((const struct rte_ether_hdr *)f)->ether_type);

	if (et == RTE_ETHER_TYPE_VLAN) {
		et = rte_be_to_cpu_16(((const struct rte_vlan_hdr *)(f + l2))->eth_proto);
		l2 += 4;
	}
	if (len < l2 + 28)
		return false;
	if (et == RTE_ETHER_TYPE_IPV6) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(f + l2);
		const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(ip + 1);

		return udp->dgram_cksum != 0 &&
		       uf_test_udp_sum_ok(UF_IP6_CBYTES(ip->src_addr), 16, udp);
	}
	{
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(f + l2);
		const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(ip + 1);

		return rte_raw_cksum(ip, 20) == 0xffff &&
		       (udp->dgram_cksum == 0 ||
			uf_test_udp_sum_ok((const uint8_t *)&ip->src_addr, 4, udp));
	}
}

/* one burst through the worker: its copies against the expected frames (all matched, once) */
static void
run(struct uf_worker *w, const char *name, struct rte_mbuf **in, unsigned n)
{
	struct rte_mbuf *got[64], *out[64];
	unsigned n_out, k, e;
	uint16_t nr;

	CHECK_EQ(rte_ring_enqueue_bulk(rx_ring, (void **)in, n, NULL), n);
	nr = rte_eth_rx_burst(port, 0, got, RTE_DIM(got));
	CHECK_EQ(nr, n);
	uf_worker_rx(w, w->shared->plan, 0, got, nr);
	uf_worker_flush(w);
	n_out = rte_ring_dequeue_burst(tx_ring, (void **)out, RTE_DIM(out), NULL);
	CHECK(n_out == n_exp, "%s: %u copies, want %u", name, n_out, n_exp);
	for (k = 0; k < n_out; k++) {
		const uint8_t *f = rte_pktmbuf_mtod(out[k], const uint8_t *);
		const uint32_t len = out[k]->pkt_len;

		CHECK(out[k]->nb_segs == 1 && out[k]->data_len == len, "%s: copy %u one segment",
		      name, k);
		CHECK(cksums_ok(f, len), "%s: copy %u: a checksum does not verify", name, k);
		for (e = 0; e < n_exp; e++)
			if (!exp_[e].seen && exp_[e].len == len && memcmp(exp_[e].f, f, len) == 0)
				break;
		if (e < n_exp) {
			exp_[e].seen = true;
			continue;
		}
		CHECK(0, "%s: copy %u (%u bytes) matches no expected frame", name, k, len);
		for (e = 0; e < len; e++)
			fprintf(stderr, "%02x%s", f[e], e % 16 == 15 ? "\n" : " ");
		fprintf(stderr, "\n");
	}
	for (e = 0; e < n_exp; e++)
		CHECK(exp_[e].seen, "%s: expected frame %u (%u bytes) not sent", name, e,
		      exp_[e].len);
	rte_pktmbuf_free_bulk(out, n_out);
	n_exp = 0;
}

/* a datagram the second rule fans out to five (v6, v4, tagged v6, multicast v6, original v6),
 * from 2001:db8:5::5 with traffic class 0xb9 (DSCP 46 kept, ECN 1 cleared): its mbuf, its
 * copies expected */
static struct rte_mbuf *
rule2_datagram(const struct rte_ether_addr *sender, const uint8_t *pl)
{
	const struct rte_ether_addr mc = { { 0x33, 0x33, 0x00, 0x00, 0x12, 0x34 } };
	const int tag = PCP << 13 | VLAN;
	struct rte_ether_addr m21, m22, m23, m2a;
	uint8_t f[FLEN];
	struct rte_mbuf *m = uf_test_mbuf(pool, f,
					  frame6(f, &port_mac, sender, -1, "2001:db8:5::5",
						 "2001:db8::10", 40000, 5000, 60, 0xb9, pl, 37,
						 IPPROTO_UDP, false));
	struct expect *e;

	mac(0x21, &m21);
	mac(0x22, &m22);
	mac(0x23, &m23);
	mac(0x2a, &m2a);
	e = expect_add();
	e->len = frame6(e->f, &m21, &port_mac, -1, "2001:db8::10", "2001:db8::21", 40000, 6000, 7,
			0xb8, pl, 37, IPPROTO_UDP, false);
	e = expect_add();
	e->len = frame4(e->f, &m22, &port_mac, -1, 0xc612000a, 0xc6120016, 40000, 6001, 64, 0xb8, 0,
			pl, 37, false);
	e = expect_add();
	e->len = frame6(e->f, &m23, &port_mac, tag, "2001:db8:1::10", "2001:db8:1::23", 40000, 6002,
			64, 0xb8, pl, 37, IPPROTO_UDP, false);
	e = expect_add();
	e->len = frame6(e->f, &mc, &port_mac, -1, "2001:db8::10", "ff0e::1234", 40000, 6003, 64,
			0xb8, pl, 37, IPPROTO_UDP, false);
	e = expect_add();
	e->len = frame6(e->f, &m2a, &port_mac, -1, "2001:db8:5::5", "2001:db8::2a", 40000, 6004, 64,
			0xb8, pl, 37, IPPROTO_UDP, false);
	return m;
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0],        "-l",  "0",           "--no-pci",        "--no-huge",
			"-m",           "256", "--log-level", "lib.eal:warning", "--file-prefix",
			"uf_v6_fanout", NULL };
	struct rte_ether_addr dmac[16], pmac[2], sender, m22, m24, m25, m27, m28, m29, m2a;
	bool resolved[16], chain_ok[2] = { true, true };
	uint16_t mtu[2] = { 1500, 1500 };
	struct uf_plan_input pin = { .port_mac = pmac,
				     .port_mtu = mtu,
				     .port_chain_ok = chain_ok,
				     .dest_mac = dmac,
				     .dest_resolved = resolved,
				     .version = 1,
				     .socket = -1 };
	struct uf_worker_port wp[2];
	struct uf_worker_conf wc;
	struct uf_shared sh;
	struct uf_config *cfg, *bad;
	struct uf_worker *w;
	struct uf_err err;
	struct rte_mbuf *in[16], *ctl[8];
	uint8_t f[FLEN], pl[64];
	const int tag = PCP << 13 | VLAN;
	uint64_t drops = 0, tx_drops = 0, want_drop[UF_DROP_MAX] = { 0 };
	unsigned i, d, n_in, n_ctl;

	(void)argc;
	cfg = uf_ring_test_start(eal, (int)RTE_DIM(eal) - 1, "v6", cfg_text, sizeof(cfg_text) - 1,
				 "v6_fanout", &pool, &rx_ring, &tx_ring, &port, &port_mac);
	if (cfg == NULL)
		return 1;
	/* source: original for a family mismatch: refused by the config, at its line */
	{
		static const char mis[] =
				"ports:\n  - { name: p, device: net_ring0, ip: 198.18.0.10/24,"
				" ip6: [\"2001:db8::10/64\"] }\n"
				"listen: { port: p, udp_port: 5000 }\ndestinations:\n"
				"  - { ip: \"2001:db8::21\", udp_port: 6000, mac: \"02:00:00:00:00:21\","
				" source: original }\n";

		bad = uf_config_parse(mis, sizeof(mis) - 1, "mismatch", &err);
		CHECK(bad == NULL, "source: original v4 -> v6 refused");
		CHECK(strstr(err.msg, "mismatch:5:") != NULL &&
				      strstr(err.msg, "source: original") != NULL,
		      "the error names the line: %s", err.msg);
		uf_config_free(bad);
	}
	for (d = 0; d < (unsigned)cfg->n_dests; d++) {
		dmac[d] = cfg->dests[d].mac;
		resolved[d] = cfg->dests[d].has_mac; /* the multicast one: the plan's 33:33 */
	}
	pmac[0] = pmac[1] = port_mac;
	pin.cfg = cfg;
	memset(&sh, 0, sizeof(sh));
	sh.plan = uf_plan_build(&pin);
	CHECK(sh.plan != NULL, "plan");
	CHECK(sh.plan->lis[0].has6 && sh.plan->lis[1].has6 && sh.plan->lis[2].has6 &&
			      sh.plan->lis[0].engine == UF_ENG_MIXED,
	      "every view involves IPv6: the mixed engine");

	/* the worker as uf_app_create_workers makes it: p owns net_ring0, t its VLAN alias */
	memset(wp, 0, sizeof(wp));
	for (i = 0; i < 2; i++) {
		const struct uf_cfg_port *cp = &cfg->ports[i];

		wp[i].port_id = port;
		wp[i].name = cp->name;
		wp[i].id.mac = port_mac;
		wp[i].id.ip = cp->ip;
		wp[i].id.listen = i == 0; /* in4 */
		wp[i].id.listen_udp = rte_cpu_to_be_16(5001);
		wp[i].id.max_len = uf_port_max_len(1500);
		wp[i].id6.mac = port_mac;
		wp[i].id6.n_ip6 = cp->n_ip6;
		memcpy(wp[i].id6.ip6, cp->ip6, sizeof(wp[i].id6.ip6));
		wp[i].id6.listen = true;
		wp[i].id6.max_len = uf_port_max_len(1500);
		wp[i].vlan = cp->vlan;
		wp[i].dev = cp->dev;
	}
	memset(&wc, 0, sizeof(wc));
	wc.n_ports = 2;
	wc.ports = wp;
	wc.burst = 32;
	wc.drain_us = 100;
	wc.tx_probe_ms = 100;
	wc.shared = &sh;
	wc.copy_pool = pool;
	if (uf_worker_create(&wc, &w, &err) != 0) {
		fprintf(stderr, "worker: %s\n", err.msg);
		return 1;
	}
	CHECK(w->ports[1].alias && w->ports[0].n_vlans == 2 && w->port6[1].n_ip6 == 1,
	      "t is a tagged alias of p's device, with ip6");

	mac(0x05, &sender);
	mac(0x22, &m22);
	mac(0x24, &m24);
	mac(0x25, &m25);
	mac(0x27, &m27);
	mac(0x28, &m28);
	mac(0x29, &m29);
	mac(0x2a, &m2a);
	for (i = 0; i < sizeof(pl); i++)
		pl[i] = (uint8_t)(i * 13 + 1);

	/* v6 -> v6, v4, tagged v6, multicast v6, original v6: the second rule's five
	 * (traffic class 0xb9: DSCP 46 kept, ECN 1 cleared) */
	n_in = 0;
	in[n_in++] = rule2_datagram(&sender, pl);
	run(w, "v6 in, rule 2", in, n_in);

	/* the first rule (2001:db8:bad::/48 comes first, though /32 covers it too): v6 -> v4 */
	in[0] = uf_test_mbuf(pool, f,
			     frame6(f, &port_mac, &sender, -1, "2001:db8:bad::5", "2001:db8::10",
				    40001, 5000, 60, 0, pl, 1, IPPROTO_UDP, false));
	{
		struct expect *e = expect_add();

		e->len = frame4(e->f, &m22, &port_mac, -1, 0xc612000a, 0xc6120016, 40001, 6001, 64,
				0, 0, pl, 1, false);
	}
	run(w, "v6 in, rule 1", in, 1);

	/* v4 -> v6, v4 -> v4, v4 -> tagged v6; then a v4 datagram without a UDP checksum, whose
	 * IPv6 copies carry a computed one, its IPv4 copy too (udp_checksum: compute) */
	for (i = 0; i < 2; i++) {
		struct expect *e;
		const bool no_ck = i == 1;
		const uint16_t plen = no_ck ? 64 : 20;

		in[0] = uf_test_mbuf(pool, f,
				     frame4(f, &port_mac, &sender, -1, 0xc6120002, 0xc612000a,
					    40002, 5001, 60, 0x29, 0x1234, pl, plen, no_ck));
		e = expect_add();
		e->len = frame6(e->f, &m24, &port_mac, -1, "2001:db8::10", "2001:db8::24", 40002,
				7000, 64, 0x28, pl, plen, IPPROTO_UDP, false);
		e = expect_add();
		e->len = frame4(e->f, &m25, &port_mac, -1, 0xc612000a, 0xc6120019, 40002, 7001, 64,
				0x28, 0x1234, pl, plen, false);
		e = expect_add();
		e->len = frame6(e->f, &m27, &port_mac, tag, "2001:db8:1::10", "2001:db8:1::27",
				40002, 7002, 64, 0x28, pl, plen, IPPROTO_UDP, false);
		run(w, no_ck ? "v4 in, no UDP checksum" : "v4 in", in, 1);
	}

	/* tagged in: v6 on VLAN 100 to t's listener -> untagged v6 on p, tagged v4 on t */
	in[0] = uf_test_mbuf(pool, f,
			     frame6(f, &port_mac, &sender, tag, "2001:db8:1::5", "2001:db8:1::10",
				    40003, 5002, 60, 0x10, pl, 50, IPPROTO_UDP, false));
	{
		struct expect *e;

		e = expect_add();
		e->len = frame6(e->f, &m28, &port_mac, -1, "2001:db8::10", "2001:db8::28", 40003,
				8000, 64, 0x10, pl, 50, IPPROTO_UDP, false);
		e = expect_add();
		e->len = frame4(e->f, &m29, &port_mac, tag, 0xc612010a, 0xc612011d, 40003, 8001, 64,
				0x10, 0, pl, 50, false);
	}
	run(w, "tagged v6 in", in, 1);

	/* all of it in one burst, mixed with what is dropped and an ICMPv6 echo: the copies of
	 * the first burst plus the drops, each counted by its reason */
	n_in = 0;
	in[n_in++] = uf_test_mbuf(pool, f,
				  frame6(f, &port_mac, &sender, -1, "2001:db8::5", "2001:db8::10",
					 1, 5000, 60, 0, pl, 8, 0 /* hop-by-hop */, false));
	want_drop[UF_DROP_IPV6_EXT_HDR]++;
	in[n_in++] = uf_test_mbuf(pool, f,
				  frame6(f, &port_mac, &sender, -1, "2001:db8::5", "2001:db8::10",
					 1, 5000, 60, 0, pl, 8, 44 /* fragment */, false));
	want_drop[UF_DROP_FRAGMENT]++;
	in[n_in++] = uf_test_mbuf(pool, f,
				  frame6(f, &port_mac, &sender, -1, "2001:db8::5", "2001:db8::10",
					 1, 5000, 60, 0, pl, 8, IPPROTO_UDP, true /* zero */));
	want_drop[UF_DROP_MALFORMED]++;
	in[n_in++] = uf_test_mbuf(pool, f,
				  frame6(f, &port_mac, &sender, -1, "2001:db8::5", "2001:db8::10",
					 1, 5999 /* no listener */, 60, 0, pl, 8, IPPROTO_UDP,
					 false));
	want_drop[UF_DROP_NOT_FOR_US]++;
	in[n_in++] = uf_test_mbuf(pool, f,
				  frame6(f, &port_mac, &sender, -1, "2001:db9::1", "2001:db8::10",
					 1, 5000, 60, 0, pl, 8, IPPROTO_UDP, false));
	want_drop[UF_DROP_NO_RULE]++;
	in[n_in++] = uf_test_mbuf(pool, f, echo6(f, &sender));
	in[n_in++] = rule2_datagram(&sender, pl);
	run(w, "mixed burst with drops", in, n_in);
	n_ctl = rte_ring_dequeue_burst(w->ctl_rx, (void **)ctl, RTE_DIM(ctl), NULL);
	CHECK_EQ(n_ctl, 1);
	rte_pktmbuf_free_bulk(ctl, n_ctl);

	/* a pool of two IPv6 members (round-robin: the worker's turns 0, 1, 0, 1) and an IPv6
	 * destination sampled 1 in 2 (datagrams 0 and 2), four senders in one burst */
	n_in = 0;
	for (i = 0; i < 4; i++) {
		char src[40];
		struct expect *e;
		struct rte_ether_addr mm;

		snprintf(src, sizeof(src), "2001:db8:7::%u", i + 1);
		in[n_in++] = uf_test_mbuf(pool, f,
					  frame6(f, &port_mac, &sender, -1, src, "2001:db8::10",
						 (uint16_t)(41000 + i), 5003, 60, 0, pl, 24,
						 IPPROTO_UDP, false));
		mac(i % 2 == 0 ? 0x31 : 0x32, &mm);
		e = expect_add();
		e->len = frame6(e->f, &mm, &port_mac, -1, "2001:db8::10",
				i % 2 == 0 ? "2001:db8::31" : "2001:db8::32", (uint16_t)(41000 + i),
				9000, 64, 0, pl, 24, IPPROTO_UDP, false);
		if (i % 2 == 0) {
			mac(0x33, &mm);
			e = expect_add();
			e->len = frame6(e->f, &mm, &port_mac, -1, "2001:db8::10", "2001:db8::33",
					(uint16_t)(41000 + i), 9001, 64, 0, pl, 24, IPPROTO_UDP,
					false);
		}
	}
	run(w, "pool and sampling", in, n_in);
	CHECK_EQ(w->ctr.sampled_out, 2);
	CHECK_EQ(w->lctr[3].forwarded, 4);
	CHECK_EQ(w->lctr[3].sampled_out, 2);

	/* no copy buffer at all (docs/architecture.md#fan-out, the partial-allocation rule):
	 * the first four copies in set order miss (tx_drop.nombuf), the last, the received
	 * mbuf rewritten in place, goes */
	{
		struct rte_mempool *empty =
				rte_pktmbuf_pool_create("empty", 1, 0, 0, 2176, SOCKET_ID_ANY);
		struct rte_mbuf *hold = empty != NULL ? rte_pktmbuf_alloc(empty) : NULL;
		struct expect *e;

		CHECK(hold != NULL, "the copy pool emptied");
		w->copy_pool = empty;
		in[0] = uf_test_mbuf(pool, f,
				     frame6(f, &port_mac, &sender, -1, "2001:db8:5::5",
					    "2001:db8::10", 40000, 5000, 60, 0, pl, 16, IPPROTO_UDP,
					    false));
		e = expect_add();
		e->len = frame6(e->f, &m2a, &port_mac, -1, "2001:db8:5::5", "2001:db8::2a", 40000,
				6004, 64, 0, pl, 16, IPPROTO_UDP, false);
		run(w, "no copy buffer", in, 1);
		CHECK_EQ(w->ctr.tx_drop[UF_TXDROP_NOMBUF], 4);
		/* copies: the first burst's, the mixed one's and this one; [1] the first
		 * rule's too */
		for (d = 0; d < 4; d++)
			CHECK(w->dctr[d].tx_drop == 1 && w->dctr[d].copies == (d == 1 ? 4u : 3u),
			      "dest %u: %" PRIu64 " tx_drop, %" PRIu64 " copies", d,
			      w->dctr[d].tx_drop, w->dctr[d].copies);
		CHECK(w->dctr[4].tx_drop == 0 && w->dctr[4].copies == 3,
		      "dest 4: the in-place one");
		w->copy_pool = pool;
		rte_pktmbuf_free(hold);
		rte_mempool_free(empty);
	}

	/* the ledger (docs/loss-accounting.md) */
	for (i = 0; i < UF_DROP_MAX; i++) {
		drops += w->ctr.drop[i];
		CHECK(w->ctr.drop[i] == want_drop[i], "drop.%s = %" PRIu64 ", want %" PRIu64,
		      uf_drop_names[i], w->ctr.drop[i], want_drop[i]);
	}
	CHECK_EQ(w->ctr.rx, 5 + 7 + 4 + 1);
	CHECK_EQ(w->ctr.control, 1);
	CHECK_EQ(w->ctr.forwarded, 6 + 4 + 1);
	CHECK_EQ(w->ctr.rx, w->ctr.forwarded + w->ctr.control + drops);
	CHECK_EQ(w->ctr.fanout, 5 + 1 + 3 + 3 + 2 + 5 + 4 * 2 + 5);
	CHECK_EQ(w->ctr.copies_attempted + w->ctr.sampled_out, w->ctr.fanout);
	for (i = 0; i < UF_TXDROP_MAX; i++)
		tx_drops += w->ctr.tx_drop[i];
	CHECK_EQ(tx_drops, 4);
	CHECK_EQ(w->ctr.tx_ok + tx_drops, w->ctr.copies_attempted);
	CHECK_EQ(w->ctr.tx_ok, 5 + 1 + 3 + 3 + 2 + 5 + 6 + 1);
	/* listener counters: in6 got 4 forwarded (and the no_rule), in4 2, in6t 1 */
	CHECK_EQ(w->lctr[0].forwarded, 4);
	CHECK_EQ(w->lctr[0].drop_no_rule, 1);
	CHECK_EQ(w->lctr[1].forwarded, 2);
	CHECK_EQ(w->lctr[2].forwarded, 1);
	printf("v6 fan-out: rx %" PRIu64 ", forwarded %" PRIu64 ", control %" PRIu64
	       ", drops %" PRIu64 ", copies sent %" PRIu64 "\n",
	       w->ctr.rx, w->ctr.forwarded, w->ctr.control, drops, w->ctr.tx_ok);

	uf_worker_destroy(w);
	uf_plan_free(sh.plan);
	uf_config_free(cfg);
	rte_eth_dev_stop(port);
	rte_eal_cleanup();
	printf("%d passed, %d failed\n", uf_t_passed, uf_t_failed);
	return uf_t_failed == 0 ? 0 : 1;
}
