/* SPDX-License-Identifier: BSD-3-Clause
 * Differential test of the fan-out engines (lib/fwd/uf_fanout.h, docs/architecture.md#fan-out):
 * the same bursts through every engine that serves the plan (uf_plan_engine_serves) must give
 * the same frames, in the same order on each port, and the same counters as the general one,
 * generic_vlan (it serves every IPv4 view). A simple plan (no rules, every destination
 * resolved and unsampled) goes through the engine uf_plan_build chose, every other simple
 * engine that serves it (single*, one_egress*, simple*, their tagged forms), generic, mixed
 * (where nothing chains), and "select": generic_vlan with set->simple cleared, the path
 * through uf_select.
 *
 * Scenarios: N = 1 (padded to 60 B, too big); N = 4 on one port (padding to 60 B or not);
 * N = 3 on one port; N = 4 over two ports (one pads to 60 B); chaining mixed with copies; a
 * copy pool too small for the burst (tx_drop.nombuf); a header pool too small
 * (drop.nombuf); payloads over the egress MTU (drop.too_big); IPv4 inputs with IP options
 * and with bytes after the UDP datagram (the full classifier's, odd_ip). Bursts of 1 to 64 cross
 * the TX buffer's flush point. The egress ports are net_ring vdevs, whose TX ring is their RX
 * ring: what a run sent is read back and compared byte for byte.
 *
 * IPv6 (docs/architecture.md#ipv6): the same scenarios with IPv6 in and out (v66), IPv4 in
 * and IPv6 out (v46), IPv6 in and both families out (v6m). Their reference is the general
 * IPv6 engine, mixed, with the IPv6 lane off (plan->fast6 cleared: every datagram through
 * the one classify loop, uf_classify6 and the listener lookup); every engine that serves the
 * plan (single6, mixed_one_egress, mixed_simple, mixed) runs with the lane on and off.
 *
 * Needs EAL without hugepages: --no-huge --no-pci -l 0 (eal suite, not parallel).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "uf_config.h"
#include "uf_fwd_dp.h"
#include "uf_plan.h"

#include "../unit/uf_test.h"
#include "uf_ring_port.h"

#define N_PORTS 2
#define MAX_OUT 1000 /* frames one run may leave in a port's ring (net_ring: 1024) */

static struct rte_mempool *in_pool;
static uint16_t ring_port[N_PORTS];
static struct rte_ether_addr port_mac[N_PORTS];

struct scenario {
	const char *name;
	int n_dests;
	bool two_ports;    /* destinations alternate between port 0 and port 1 */
	bool chain;        /* fanout: chain, threshold 200 B */
	unsigned copy_cap; /* copy pool size (0: plenty) */
	unsigned hdr_cap;  /* header pool size (0: plenty) */
	bool big;          /* some payloads over the egress MTU (port MTU 1000 in the plan) */
	bool vlan;         /* the last port used is tagged: VLAN 7, PCP 2 (the 46-byte header) */
	bool padded;       /* one port: it too pads to 60 B (the one-egress fast path's test) */
	bool zero_cksum;   /* forward.udp_checksum: zero (the copies carry none) */
	bool partial;      /* port 0 completes partial checksums; every fifth input has one */
	/* the templates' form (uf_set.hdr_form): destination 1 has `source: original` unless
	 * plain; orig: every one has; own_sport: forward.source_port 7777 */
	bool plain, orig, own_sport;
	/* two listeners on port 0 (UDP 5000: the even destinations, 5001: the odd ones), the
	 * inputs alternating between them: the multi classify loop, the views' engines */
	bool listeners;
	/* port 0 has the service address 198.18.0.99 and every input is sent to it (the fleet's
	 * routed case): the frames and counters must be those of the same inputs to the port's
	 * own address. (A datagram to it that its fast test does not take, and with N > 1 any
	 * mixed with datagrams to the port's own address, leaves after the burst's others:
	 * docs/architecture.md#service-addresses.) */
	bool svc;
	bool svc_ref; /* the reference run of a svc scenario: its inputs to the port's own address */
	/* every seventh input arrives with a tag the PMD took out (VLAN 7 in vlan_tci, as
	 * af_packet hands the kernel's over): vlan_unknown on this device without tagged ports,
	 * in every path, the IPv6 lanes' fast tests included */
	bool stripped;
	/* IPv4 inputs the fast tests leave to the full classifier: every sixth with 4 bytes of
	 * IP options (its payload at 46), every fifth of the others with 3 bytes in its IP
	 * packet after its UDP datagram (the IP length over the UDP length's) */
	bool odd_ip;
	int fam; /* FAM_44 (IPv4 only), FAM_66, FAM_46, FAM_6M */
};

enum {
	FAM_44,
	FAM_66,
	FAM_46,
	FAM_6M
};

/* IPv6 datagrams in (the listener on 2001:db8:a::10) */
static bool
in6_of(const struct scenario *s)
{
	return s->fam == FAM_66 || s->fam == FAM_6M;
}

/* destination i is IPv6 */
static bool
dest6_of(const struct scenario *s, int i)
{
	return s->fam == FAM_66 || s->fam == FAM_46 || (s->fam == FAM_6M && i % 2 == 0);
}

/* what one run left behind */
struct outcome {
	struct uf_lcore_ctr ctr;
	struct uf_dest_ctr dctr[UF_MAX_DESTS];
	struct uf_lis_ctr lctr[2];
	unsigned n_out[N_PORTS];
	uint16_t len[N_PORTS][MAX_OUT];
	uint16_t segs[N_PORTS][MAX_OUT];
	uint8_t *bytes[N_PORTS][MAX_OUT];
};

static const uint16_t bursts[] = { 1, 7, 32, 64, 3, 31, 33, 17 };

static uint16_t
payload_of(unsigned seq, const struct scenario *s)
{
	static const uint16_t sizes[] = { 10, 32, 18, 250, 64, 600, 1, 199, 200, 1400 };
	uint16_t p = sizes[seq % RTE_DIM(sizes)];

	if (p > 900 && !s->big)
		p = 300;
	/* to a service address, a datagram the fast test cannot take (a frame under 48 bytes)
	 * leaves after the burst's others: here every one can, so the order is the reference's */
	if ((s->svc || s->svc_ref) && p < 6)
		p = 6;
	return p;
}

static struct rte_mbuf *input_frame6(unsigned seq, const struct scenario *s);

/* What an input frame of either family shares: a buffer from in_pool with its Ethernet header
 * (to port 0, from 02:..:99, ether_type), the hl - 14 bytes after it zeroed; the frame's
 * length set for payload bytes after hl of headers */
static struct rte_mbuf *
frame_begin(uint16_t ether_type, uint16_t hl, uint16_t payload, struct rte_ether_hdr **eth)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(in_pool);

	if (m == NULL) {
		fprintf(stderr, "input pool empty\n");
		exit(1);
	}
	*eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	memset(*eth, 0, hl);
	(*eth)->dst_addr = port_mac[0];
	(*eth)->src_addr.addr_bytes[0] = 0x02;
	(*eth)->src_addr.addr_bytes[5] = 0x99;
	(*eth)->ether_type = rte_cpu_to_be_16(ether_type);
	m->data_len = (uint16_t)(hl + payload);
	m->pkt_len = m->data_len;
	return m;
}

/* The UDP header but its checksum, and the payload after it, of input frame seq */
static void
frame_udp(struct rte_udp_hdr *udp, unsigned seq, uint16_t dport, uint16_t payload)
{
	uint8_t *p = (uint8_t *)(udp + 1);
	uint16_t i;

	udp->src_port = rte_cpu_to_be_16((uint16_t)(40000 + (seq & 63)));
	udp->dst_port = rte_cpu_to_be_16(dport);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(8 + payload));
	for (i = 0; i < payload; i++)
		p[i] = (uint8_t)(seq * 7 + i);
}

static struct rte_mbuf *
input_frame(unsigned seq, const struct scenario *s)
{
	const uint16_t payload = payload_of(seq, s);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	struct rte_mbuf *m;

	if (in6_of(s))
		return input_frame6(seq, s);
	const uint16_t opt = s->odd_ip && seq % 6 == 0 ? 4 : 0,
		       extra = s->odd_ip && seq % 6 != 0 && seq % 5 == 0 ? 3 : 0;

	m = frame_begin(RTE_ETHER_TYPE_IPV4, (uint16_t)(42 + opt), (uint16_t)(payload + extra),
			&eth);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	udp = (struct rte_udp_hdr *)((uint8_t *)(ip + 1) + opt);
	ip->version_ihl = (uint8_t)(RTE_IPV4_VHL_DEF + opt / 4);
	if (opt != 0)
		memset(ip + 1, 1, opt); /* NOPs */
	ip->type_of_service = (uint8_t)(seq << 2);
	/* the extra bytes' length added after the checksums, which cover the UDP datagram */
	ip->total_length = rte_cpu_to_be_16((uint16_t)(28 + opt + payload));
	ip->packet_id = rte_cpu_to_be_16((uint16_t)seq);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	/* senders 198.18.0.2-5, and every eighth 198.18.255.255: its address read as a
	 * little-endian word (0xffff12c6) carries out of 32 bits when a checksum is added to it
	 * (uf_ck_add32c's end-around carry) */
	ip->src_addr = rte_cpu_to_be_32((seq & 7) == 7 ? 0xc612ffff : 0xc6120002 + (seq & 3));
	ip->dst_addr = rte_cpu_to_be_32(s->svc ? 0xc6120063 : 0xc612000a);
	frame_udp(udp, seq, (uint16_t)(5000 + (s->listeners ? seq % 2 : 0)), payload);
	/* every third without a UDP checksum: the copies' sums come from the payload; with
	 * s->partial every fifth of the others as a local sender's CHECKSUM_PARTIAL frame leaves
	 * it: the pseudo-header's sum, not complemented (uf_csum_complete) */
	udp->dgram_cksum = seq % 3 == 0 ? 0 : rte_ipv4_udptcp_cksum(ip, udp);
	if (s->partial && seq % 3 != 0 && seq % 5 == 1)
		udp->dgram_cksum = rte_ipv4_phdr_cksum(ip, 0);
	ip->total_length = rte_cpu_to_be_16((uint16_t)(28 + opt + payload + extra));
	/* over the options too (22.11's rte_ipv4_cksum sums 20 bytes) */
	ip->hdr_checksum = 0;
	ip->hdr_checksum = (uint16_t)~rte_raw_cksum(ip, (size_t)(20 + opt));
	return m;
}

/* An IPv6 input: as input_frame's, from 2001:db8:a::2..5 to the listener 2001:db8:a::10;
 * its checksum always there (mandatory), or with s->partial every fifth as a local sender's
 * CHECKSUM_PARTIAL frame leaves it */
static struct rte_mbuf *
input_frame6(unsigned seq, const struct scenario *s)
{
	const uint16_t payload = payload_of(seq, s);
	struct rte_ether_hdr *eth;
	struct rte_mbuf *m = frame_begin(RTE_ETHER_TYPE_IPV6, 62, payload, &eth);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint8_t *a;

	/* traffic class seq * 5 (DSCP and ECN: the copies keep the DSCP, not the ECN), a flow
	 * label the copies do not keep */
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | (seq * 5 & 0xff) << 20 | (seq & 0xfffff));
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(8 + payload));
	ip->proto = IPPROTO_UDP;
	ip->hop_limits = 64;
	a = UF_IP6_BYTES(ip->src_addr);
	a[0] = 0x20, a[1] = 0x01, a[2] = 0x0d, a[3] = 0xb8, a[5] = 0x0a;
	memcpy(UF_IP6_BYTES(ip->dst_addr), a, 16);
	a[15] = (uint8_t)(2 + (seq & 3));
	UF_IP6_BYTES(ip->dst_addr)[15] = 0x10;
	frame_udp(udp, seq, (uint16_t)(5000 + (s->listeners ? seq % 2 : 0)), payload);
	udp->dgram_cksum = rte_ipv6_udptcp_cksum(ip, udp);
	if (s->partial && seq % 5 == 1)
		udp->dgram_cksum = rte_ipv6_phdr_cksum(ip, 0);
	return m;
}

/* the config of an IPv6 scenario: one listener (IPv6 on 2001:db8:a::10, or IPv4), its
 * destinations by dest6_of, on port 0 or alternating between the ports; with s->listeners
 * two (UDP 5000: the even destinations, 5001: the odd ones) */
static struct uf_config *
make_cfg6(const struct scenario *s)
{
	char text[8192];
	struct uf_err err;
	struct uf_config *cfg;
	int o, i, l;

	o = snprintf(text, sizeof(text),
		     "ports:\n"
		     "  - { name: p0, device: net_ring0, ip: 198.18.0.10/24,"
		     " ip6: [\"2001:db8:a::10/64\"]%s }\n"
		     "  - { name: p1, device: net_ring1, ip: 198.19.0.10/24,"
		     " ip6: [\"2001:db8:b::10/64\"]%s }\n"
		     "forward: { udp_checksum: %s, source_port: %s }\nlisteners:\n",
		     s->vlan && !s->two_ports ? ", vlan: 7, vlan_pcp: 2" : "",
		     s->vlan && s->two_ports ? ", vlan: 7, vlan_pcp: 2" : "",
		     s->zero_cksum ? "zero" : "compute", s->own_sport ? "7777" : "keep");
	for (l = 0; l < (s->listeners ? 2 : 1); l++)
		for (i = -1; i < s->n_dests; i++) {
			int p = s->two_ports ? i % 2 : 0;
			char ip[64];

			if (i < 0) {
				o += snprintf(text + o, sizeof(text) - o,
					      "  - name: l%d\n    port: p0\n    ip: %s\n"
					      "    udp_port: %d\n    destinations:\n",
					      l, in6_of(s) ? "\"2001:db8:a::10\"" : "198.18.0.10",
					      5000 + l);
				continue;
			}
			if (s->listeners && i % 2 != l)
				continue;

			if (dest6_of(s, i))
				snprintf(ip, sizeof(ip), "\"2001:db8:%c::%x\"", 'a' + p, 0x21 + i);
			else
				snprintf(ip, sizeof(ip), "198.%d.0.%d", 18 + p, 21 + i);
			/* `source: original` only where the families match */
			o += snprintf(text + o, sizeof(text) - o,
				      "      - { ip: %s, udp_port: %d, port: p%d, mac: "
				      "\"02:00:00:00:00:%02x\"%s }\n",
				      ip, 6000 + i, p, 0x21 + i,
				      (s->orig || (i == 1 && !s->plain)) &&
								      dest6_of(s, i) == in6_of(s)
						      ? ", source: original"
						      : "");
		}
	cfg = uf_config_parse(text, (size_t)o, "fanout_diff6", &err);
	if (cfg == NULL) {
		fprintf(stderr, "config: %s\n%s", err.msg, text);
		exit(1);
	}
	return cfg;
}

static struct uf_config *
make_cfg(const struct scenario *s)
{
	char text[8192];
	struct uf_err err;
	struct uf_config *cfg;
	int o, i, l;

	if (s->fam != FAM_44)
		return make_cfg6(s);
	o = snprintf(text, sizeof(text),
		     "ports:\n"
		     "  - { name: p0, device: net_ring0, ip: 198.18.0.10/24%s%s }\n"
		     "  - { name: p1, device: net_ring1, ip: 198.19.0.10/24%s }\n"
		     "%sforward: { udp_checksum: %s, source_port: %s }\n",
		     s->vlan && !s->two_ports ? ", vlan: 7, vlan_pcp: 2" : "",
		     s->svc ? ", service: [198.18.0.99]" : "",
		     s->vlan && s->two_ports ? ", vlan: 7, vlan_pcp: 2" : "",
		     s->listeners ? "" : "listen: { port: p0, udp_port: 5000 }\n",
		     s->zero_cksum ? "zero" : "compute", s->own_sport ? "7777" : "keep");
	for (l = 0; l < (s->listeners ? 2 : 1); l++) {
		if (s->listeners)
			o += snprintf(text + o, sizeof(text) - o,
				      "%s  - name: l%d\n    port: p0\n    udp_port: %d\n  "
				      "  destinations:\n",
				      l == 0 ? "listeners:\n" : "", l, 5000 + l);
		else
			o += snprintf(text + o, sizeof(text) - o, "destinations:\n");
		for (i = 0; i < s->n_dests; i++) {
			int p = s->two_ports ? i % 2 : 0;

			if (s->listeners && i % 2 != l)
				continue;
			o += snprintf(text + o, sizeof(text) - o,
				      "%s  - { ip: 198.%d.0.%d, udp_port: %d, port: p%d, "
				      "mac: \"02:00:00:00:00:%02x\"%s }\n",
				      s->listeners ? "    " : "", 18 + p, 21 + i, 6000 + i, p,
				      0x21 + i,
				      s->orig || (i == 1 && !s->plain) ? ", source: original" : "");
		}
	}
	cfg = uf_config_parse(text, (size_t)o, "fanout_diff", &err);
	if (cfg == NULL) {
		fprintf(stderr, "config: %s\n", err.msg);
		exit(1);
	}
	return cfg;
}

/* the plan's views: its listeners' where it has several, else itself */
static struct uf_plan *
views(struct uf_plan *plan, int *n)
{
	*n = plan->n_listeners > 1 ? plan->n_listeners : 1;
	return plan->n_listeners > 1 ? plan->lis : plan;
}

static struct uf_plan *
make_plan(const struct uf_config *cfg, const struct scenario *s)
{
	struct rte_ether_addr dmac[UF_MAX_DESTS];
	bool resolved[UF_MAX_DESTS], chain_ok[N_PORTS] = { true, true };
	uint16_t mtu[N_PORTS] = { 1500, s->big ? 1000 : 1500 };
	struct uf_plan_input in = { .cfg = cfg,
				    .port_mac = port_mac,
				    .port_mtu = mtu,
				    .port_chain_ok = chain_ok,
				    .dest_mac = dmac,
				    .dest_resolved = resolved,
				    .version = 1,
				    .socket = -1 };
	struct uf_plan *plan;
	int i;

	if (!s->two_ports && s->big)
		mtu[0] = 1000;
	for (i = 0; i < cfg->n_dests; i++) {
		dmac[i] = cfg->dests[i].mac;
		resolved[i] = true;
	}
	plan = uf_plan_build(&in);
	if (plan == NULL) {
		fprintf(stderr, "plan\n");
		exit(1);
	}
	{
		int nv, v;
		struct uf_plan *vw = views(plan, &nv);

		for (v = 0; v < nv; v++) {
			vw[v].fanout = s->chain ? UF_FANOUT_CHAIN : UF_FANOUT_COPY;
			vw[v].chain_min_payload = 200;
			for (i = 0; i < vw[v].n_sets; i++)
				vw[v].sets[i].chain_min_payload = 200;
		}
	}
	return plan;
}

/* one run: every burst through uf_worker_rx, a final flush, then read back what was sent */
static void
run(const struct scenario *s, int engine, bool select, bool lane6, struct outcome *o)
{
	static int pool_no;
	struct uf_config *cfg = make_cfg(s);
	struct uf_plan *plan = make_plan(cfg, s);
	struct uf_shared sh;
	struct uf_worker *w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);
	struct rte_mempool *copy_pool, *hdr_pool;
	char name[32];
	unsigned seq = 0, b, pi;

	snprintf(name, sizeof(name), "copy%d", pool_no);
	copy_pool = rte_pktmbuf_pool_create(name, s->copy_cap ? s->copy_cap : 4095, 0, 0, 2176,
					    SOCKET_ID_ANY);
	snprintf(name, sizeof(name), "hdr%d", pool_no++);
	hdr_pool = rte_pktmbuf_pool_create(name, s->hdr_cap ? s->hdr_cap : 2047, 0, 0,
					   RTE_PKTMBUF_HEADROOM + 64, SOCKET_ID_ANY);
	if (w == NULL || copy_pool == NULL || hdr_pool == NULL) {
		fprintf(stderr, "allocation failed\n");
		exit(1);
	}
	{
		int nv, v;
		struct uf_plan *vw = views(plan, &nv);

		CHECK_EQ(nv, s->listeners ? 2 : 1);
		for (v = 0; v < nv; v++) {
			CHECK(uf_engine_is_simple(vw[v].engine),
			      "%s: view %d is simple (uf_plan_build: %s)", s->name, v,
			      uf_engine_name(vw[v].engine));
			CHECK_EQ(vw[v].sets[0].one_egress, !s->two_ports || s->listeners);
			vw[v].engine = (uint8_t)engine;
			if (select)
				vw[v].sets[0].simple = false;
		}
		/* an IPv6 listener's lane (worker_rx_port6), or with several listeners theirs
		 * (worker_rx_listeners6), on or off */
		CHECK_EQ(plan->fast6, in6_of(s) && !s->listeners);
		CHECK_EQ(plan->multi6, in6_of(s) && s->listeners);
		plan->fast6 = plan->fast6 && lane6;
		plan->multi6 = plan->multi6 && lane6;
	}

	memset(&sh, 0, sizeof(sh));
	w->n_ports = N_PORTS;
	w->burst = 32;
	w->tx_retries = 0;
	w->shared = &sh;
	w->copy_pool = copy_pool;
	w->hdr_pool = hdr_pool;
	for (pi = 0; pi < N_PORTS; pi++) {
		w->ports[pi].port_id = ring_port[pi];
		w->ports[pi].id.mac = port_mac[pi];
		w->ports[pi].id.ip = cfg->ports[pi].ip;
		w->port_idx[ring_port[pi]] = (uint8_t)pi;
		w->txb[pi].port_id = ring_port[pi];
	}
	w->ports[0].id.listen = !in6_of(s);
	w->ports[0].id.listen_udp = rte_cpu_to_be_16(5000);
	w->ports[0].id.max_len = uf_port_max_len(1500);
	w->ports[0].id.partial_csum = s->partial;
	for (pi = 0; s->fam != FAM_44 && pi < N_PORTS; pi++) {
		/* as uf_app_create_workers sets a port with ip6 */
		w->port6[pi].mac = port_mac[pi];
		w->port6[pi].n_ip6 = cfg->ports[pi].n_ip6;
		memcpy(w->port6[pi].ip6, cfg->ports[pi].ip6, sizeof(w->port6[pi].ip6));
		w->port6[pi].listen = pi == 0 && in6_of(s);
		w->port6[pi].max_len = uf_port_max_len(1500);
	}
	for (pi = 0; pi < N_PORTS; pi++)
		uf_worker_port_id(w, pi);
	w->txb[1].pad_to = 60;
	if (s->padded)
		w->txb[0].pad_to = 60;
	uf_worker_link_init(w, 0, 100);

	for (b = 0; b < RTE_DIM(bursts); b++) {
		struct rte_mbuf *pkts[UF_MAX_BURST];
		uint16_t i;

		for (i = 0; i < bursts[b]; i++) {
			pkts[i] = input_frame(seq, s);
			if (s->stripped && seq % 7 == 3) {
				pkts[i]->ol_flags |=
						RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
				pkts[i]->vlan_tci = 7;
			}
			seq++;
		}
		uf_worker_rx(w, plan, 0, pkts, bursts[b]);
	}
	uf_worker_flush(w);

	memcpy(&o->ctr, &w->ctr, sizeof(o->ctr));
	memcpy(o->dctr, w->dctr, sizeof(o->dctr));
	memcpy(o->lctr, w->lctr, sizeof(o->lctr));
	for (pi = 0; pi < N_PORTS; pi++) {
		struct rte_mbuf *m[32];
		uint16_t got, i;

		o->n_out[pi] = 0;
		while ((got = rte_eth_rx_burst(ring_port[pi], 0, m, 32)) > 0) {
			for (i = 0; i < got; i++) {
				unsigned k = o->n_out[pi]++;

				if (k < MAX_OUT) {
					o->len[pi][k] = (uint16_t)m[i]->pkt_len;
					o->segs[pi][k] = m[i]->nb_segs;
					uint8_t *buf = malloc(m[i]->pkt_len);
					const void *f = rte_pktmbuf_read(m[i], 0, m[i]->pkt_len,
									 buf);

					if (f != buf)
						memcpy(buf, f, m[i]->pkt_len);
					o->bytes[pi][k] = buf;
				}
			}
			rte_pktmbuf_free_bulk(m, got);
		}
	}
	/* every buffer came back: nothing leaked, nothing freed twice */
	CHECK_EQ(rte_mempool_avail_count(copy_pool), s->copy_cap ? s->copy_cap : 4095);
	CHECK_EQ(rte_mempool_avail_count(hdr_pool), s->hdr_cap ? s->hdr_cap : 2047);
	rte_mempool_free(copy_pool);
	rte_mempool_free(hdr_pool);
	rte_free(w);
	uf_plan_free(plan);
	uf_config_free(cfg);
}

static void
free_outcome(struct outcome *o)
{
	unsigned pi, k;

	for (pi = 0; pi < N_PORTS; pi++)
		for (k = 0; k < o->n_out[pi] && k < MAX_OUT; k++)
			free(o->bytes[pi][k]);
}

static uint64_t
sum(const uint64_t *v, unsigned n)
{
	uint64_t s = 0;

	while (n-- > 0)
		s += v[n];
	return s;
}

static void
check_ledger(const char *name, const struct outcome *o, unsigned n_in, int n_dests)
{
	const struct uf_lcore_ctr *c = &o->ctr;
	uint64_t copies = 0, dtx_drop = 0;
	int d;

	CHECK(c->rx == n_in, "%s: rx %lu of %u", name, (unsigned long)c->rx, n_in);
	CHECK(c->rx == c->forwarded + c->control + sum(c->drop, UF_DROP_MAX),
	      "%s: rx == forwarded + control + drops", name);
	CHECK(c->copies_attempted == c->tx_ok + sum(c->tx_drop, UF_TXDROP_MAX),
	      "%s: copies_attempted == tx_ok + tx_drops", name);
	CHECK(c->fanout == c->copies_attempted + c->sampled_out,
	      "%s: fanout == copies_attempted + sampled_out", name);
	for (d = 0; d < n_dests; d++) {
		copies += o->dctr[d].copies;
		dtx_drop += o->dctr[d].tx_drop;
	}
	CHECK(copies == c->copies_attempted, "%s: per-destination copies add up", name);
	CHECK(dtx_drop == sum(c->tx_drop, UF_TXDROP_MAX), "%s: per-destination drops add up", name);
	CHECK_EQ(o->n_out[0] + o->n_out[1], c->tx_ok);
	if (o->lctr[0].rx + o->lctr[1].rx > 0) { /* two listeners: theirs add up to the worker's */
		CHECK_EQ(o->lctr[0].rx + o->lctr[1].rx,
			 c->forwarded + c->drop[UF_DROP_TOO_BIG] + c->drop[UF_DROP_NOMBUF]);
		CHECK_EQ(o->lctr[0].forwarded + o->lctr[1].forwarded, c->forwarded);
		CHECK_EQ(o->lctr[0].fanout + o->lctr[1].fanout, c->fanout);
		CHECK_EQ(o->lctr[0].copies_attempted + o->lctr[1].copies_attempted,
			 c->copies_attempted);
		CHECK_EQ(o->lctr[0].drop_too_big + o->lctr[1].drop_too_big,
			 c->drop[UF_DROP_TOO_BIG]);
	}
}

static void
compare(const char *name, const char *variant, const struct outcome *a, const struct outcome *b)
{
	unsigned pi, k, bad = 0;

	CHECK(memcmp(&a->ctr, &b->ctr, sizeof(a->ctr)) == 0, "%s: %s counters == generic_vlan's",
	      name, variant);
	CHECK(memcmp(a->dctr, b->dctr, sizeof(a->dctr)) == 0,
	      "%s: %s per-destination counters == generic_vlan's", name, variant);
	CHECK(memcmp(a->lctr, b->lctr, sizeof(a->lctr)) == 0,
	      "%s: %s per-listener counters == generic_vlan's", name, variant);
	CHECK_EQ(a->ctr.forwarded, b->ctr.forwarded);
	CHECK_EQ(a->ctr.tx_ok, b->ctr.tx_ok);
	CHECK_EQ(a->ctr.tx_drop[UF_TXDROP_NOMBUF], b->ctr.tx_drop[UF_TXDROP_NOMBUF]);
	CHECK_EQ(a->ctr.drop[UF_DROP_NOMBUF], b->ctr.drop[UF_DROP_NOMBUF]);
	CHECK_EQ(a->ctr.chained, b->ctr.chained);
	for (pi = 0; pi < N_PORTS; pi++) {
		CHECK_EQ(a->n_out[pi], b->n_out[pi]);
		for (k = 0; k < a->n_out[pi] && k < b->n_out[pi] && k < MAX_OUT; k++)
			if (a->len[pi][k] != b->len[pi][k] || a->segs[pi][k] != b->segs[pi][k] ||
			    memcmp(a->bytes[pi][k], b->bytes[pi][k], a->len[pi][k]) != 0)
				bad++;
	}
	CHECK(bad == 0, "%s: %s: %u frames differ from generic_vlan's", name, variant, bad);
}

/* the engines a scenario's plan is served by (the plan as run() makes it) */
static unsigned
engines_of(const struct scenario *s, int *eng)
{
	struct uf_config *cfg = make_cfg(s);
	struct uf_plan *plan = make_plan(cfg, s);
	unsigned k = 0;
	int e;

	for (e = 0; e < UF_ENG_MAX; e++) {
		int nv, v;
		struct uf_plan *vw = views(plan, &nv);
		bool all = true;

		for (v = 0; v < nv; v++)
			all &= uf_plan_engine_serves(&vw[v], (enum uf_engine)e);
		if (all)
			eng[k++] = e;
	}
	uf_plan_free(plan);
	uf_config_free(cfg);
	return k;
}

/* how many scenarios each engine ran in (the coverage printed at the end) */
static unsigned eng_runs[UF_ENG_MAX];

static void
scenario(const struct scenario *s)
{
	int eng[UF_ENG_MAX];
	const unsigned n_eng = engines_of(s, eng);
	/* o[0]: the reference (generic_vlan; IPv6: mixed without the lane), o[1]: select,
	 * o[2 + k]: engine eng[k] */
	struct outcome *o = calloc(2 + n_eng, sizeof(*o));
	const int ref = s->fam == FAM_44 ? UF_ENG_GENERIC_VLAN : UF_ENG_MIXED;
	unsigned n_in = 0, b, pi, k;
	int v;

	uf_t_case = s->name;
	for (b = 0; b < RTE_DIM(bursts); b++)
		n_in += bursts[b];
	run(s, ref, false, false, &o[0]);
	check_ledger(s->name, &o[0], n_in, s->n_dests);
	run(s, ref, true, true, &o[1]);
	check_ledger(s->name, &o[1], n_in, s->n_dests);
	compare(s->name, "select", &o[1], &o[0]);
	if (s->svc) {
		/* the same inputs to the port's own address: the same frames, the same counters */
		struct scenario own = *s;
		struct outcome *rs = calloc(1, sizeof(*rs));

		own.svc = false;
		own.svc_ref = true;
		run(&own, UF_ENG_GENERIC_VLAN, false, false, rs);
		compare(s->name, "to the service address", &o[0], rs);
		free_outcome(rs);
		free(rs);
	}
	for (k = 0; k < n_eng; k++) {
		run(s, eng[k], false, true, &o[2 + k]);
		check_ledger(s->name, &o[2 + k], n_in, s->n_dests);
		compare(s->name, uf_engine_name((enum uf_engine)eng[k]), &o[2 + k], &o[0]);
		eng_runs[eng[k]]++;
		if (in6_of(s)) { /* and without the IPv6 lane */
			struct outcome *nl = calloc(1, sizeof(*nl));
			char what[64];

			snprintf(what, sizeof(what), "%s, no IPv6 lane",
				 uf_engine_name((enum uf_engine)eng[k]));
			run(s, eng[k], false, false, nl);
			compare(s->name, what, nl, &o[0]);
			free_outcome(nl);
			free(nl);
		}
	}
	/* a simple plan: the built engine and at least its tagged form serve it */
	CHECK(n_eng >= 2, "%s: %u engines serve the plan", s->name, n_eng);

	/* the scenario did what it is there for (a check that could fail) */
	CHECK(o[0].ctr.forwarded > 0, "%s: something forwarded", s->name);
	CHECK_EQ(o[0].ctr.chained > 0, s->chain);
	CHECK_EQ(o[0].ctr.tx_drop[UF_TXDROP_NOMBUF] > 0, s->copy_cap != 0 || s->hdr_cap != 0);
	CHECK_EQ(o[0].ctr.drop[UF_DROP_TOO_BIG] > 0, s->big);
	CHECK_EQ(o[0].ctr.drop[UF_DROP_NOMBUF] > 0, s->hdr_cap != 0);
	CHECK_EQ(o[0].ctr.csum_completed > 0, s->partial);
	CHECK_EQ(o[0].ctr.drop[UF_DROP_VLAN_UNKNOWN] > 0, s->stripped);
	if (s->listeners)
		CHECK(o[0].lctr[0].forwarded > 0 && o[0].lctr[1].forwarded > 0,
		      "%s: both listeners forwarded", s->name);
	if (s->two_ports) {
		CHECK(o[0].n_out[1] > 0 && o[0].n_out[0] > 0, "%s: both ports sent", s->name);
		CHECK(o[0].len[1][0] >= 60, "%s: port 1 pads to 60", s->name);
	}
	if (s->copy_cap == 0 && s->hdr_cap == 0)
		CHECK_EQ(o[0].ctr.tx_ok,
			 (uint64_t)o[0].ctr.forwarded *
					 (uint64_t)(s->listeners ? s->n_dests / 2 : s->n_dests));
	for (pi = 0; pi < N_PORTS; pi++) {
		/* every frame on the tagged port carries the tag, and the IPv4 header after it
		 * sums right; the other port's frames none */
		const bool tagged = s->vlan && pi == (s->two_ports ? 1u : 0u);
		unsigned k, bad = 0, bad_ck = 0;

		for (k = 0; k < o[0].n_out[pi] && k < MAX_OUT; k++) {
			const uint8_t *f = o[0].bytes[pi][k];
			const bool has = f[12] == 0x81 && f[13] == 0x00;
			const uint8_t *l3 = f + (has ? 18 : 14);
			const bool is6 = f[has ? 16 : 12] == 0x86 && f[has ? 17 : 13] == 0xdd;
			const struct rte_udp_hdr *udp =
					(const struct rte_udp_hdr *)(l3 + (is6 ? 40 : 20));
			/* the source and destination addresses, together in both families */
			const uint8_t *addrs = l3 + (is6 ? 8 : 12);
			/* every input's checksum was right (or none, or partial): every copy's
			 * is, or is none where the plan sends none (IPv6 copies: always one) */
			const bool ck_ok =
					s->zero_cksum && !is6
							? udp->dgram_cksum == 0
							: udp->dgram_cksum != 0 &&
									  uf_test_udp_sum_ok(
											  addrs,
											  is6 ? 16
											      : 4,
											  udp);

			if (has != tagged ||
			    (tagged && (f[14] != 0x40 || f[15] != 0x07 ||
					(!is6 && (f[16] != 0x08 || f[17] != 0x00 ||
						  rte_raw_cksum(f + 18, 20) != 0xffff)))))
				bad++;
			if (is6 != (s->fam == FAM_66 || s->fam == FAM_46 ||
				    (s->fam == FAM_6M && (f[has ? 16 : 12] == 0x86))))
				bad++;
			if (!ck_ok)
				bad_ck++;
		}
		CHECK(bad == 0, "%s: port %u: %u frames with a wrong tag", s->name, pi, bad);
		CHECK(bad_ck == 0, "%s: port %u: %u frames with a wrong UDP checksum", s->name, pi,
		      bad_ck);
	}
	for (v = 0; v < (int)(2 + n_eng); v++)
		free_outcome(&o[v]);
	free(o);
}

int
main(int argc, char **argv)
{
	static const struct scenario scenarios[] = {
		{ .name = "n1", .n_dests = 1 },
		/* N = 1's one test for size and padding: both sides of it */
		{ .name = "n1_padded", .n_dests = 1, .padded = true },
		{ .name = "n1_too_big", .n_dests = 1, .big = true },
		/* N = 1 where the one-pass loop does not run: copies without a UDP checksum, a
		 * port that completes partial ones (the two passes, uf_fanout_single) */
		{ .name = "n1_zero_cksum", .n_dests = 1, .zero_cksum = true },
		{ .name = "n1_partial", .n_dests = 1, .partial = true },
		{ .name = "n4_partial", .n_dests = 4, .partial = true },
		/* each template form (single_own, single, one_egress_keep, one_egress_own) */
		{ .name = "n1_own_sport", .n_dests = 1, .own_sport = true },
		{ .name = "n1_original", .n_dests = 1, .orig = true },
		{ .name = "n4_plain", .n_dests = 4, .plain = true },
		{ .name = "n4_plain_own_sport_padded",
		  .n_dests = 4,
		  .plain = true,
		  .own_sport = true,
		  .padded = true },
		{ .name = "n4_one_port", .n_dests = 4 },
		/* one egress: 18-byte payloads fill 60 B exactly, 10 and 1 need padding; three
		 * copies a datagram do not divide a 32-frame burst (the buffer's edge per datagram) */
		{ .name = "n4_one_port_padded", .n_dests = 4, .padded = true },
		{ .name = "n3_one_port", .n_dests = 3 },
		{ .name = "n4_two_ports", .n_dests = 4, .two_ports = true },
		{ .name = "n4_chain", .n_dests = 4, .chain = true },
		{ .name = "n4_chain_two_ports", .n_dests = 4, .chain = true, .two_ports = true },
		{ .name = "n4_too_big", .n_dests = 4, .big = true },
		{ .name = "n4_two_ports_too_big", .n_dests = 4, .two_ports = true, .big = true },
		{ .name = "n4_copy_shortage", .n_dests = 4, .copy_cap = 40 },
		{ .name = "n3_copy_shortage_two_ports",
		  .n_dests = 3,
		  .copy_cap = 25,
		  .two_ports = true },
		{ .name = "n4_chain_hdr_shortage", .n_dests = 4, .chain = true, .hdr_cap = 30 },
		{ .name = "n4_chain_no_hdr", .n_dests = 4, .chain = true, .hdr_cap = 1 },
		/* two listeners: the multi classify loop, each view through the engine */
		{ .name = "l2_n1", .n_dests = 2, .listeners = true },
		{ .name = "l2_n2", .n_dests = 4, .listeners = true },
		{ .name = "l2_n2_chain_too_big",
		  .n_dests = 4,
		  .listeners = true,
		  .chain = true,
		  .big = true },
		{ .name = "l2_n3_two_ports", .n_dests = 6, .listeners = true, .two_ports = true },
		{ .name = "l2_n1_vlan", .n_dests = 2, .listeners = true, .vlan = true },
		/* plain templates: the listeners' single_keep and single_own, in place where the
		 * headers allow it, written whole where not */
		{ .name = "l2_n1_plain_odd_ip",
		  .n_dests = 2,
		  .listeners = true,
		  .plain = true,
		  .odd_ip = true },
		{ .name = "l2_n1_plain_odd_ip_partial",
		  .n_dests = 2,
		  .listeners = true,
		  .plain = true,
		  .odd_ip = true,
		  .partial = true },
		{ .name = "l2_n1_plain_own_sport_odd_ip",
		  .n_dests = 2,
		  .listeners = true,
		  .plain = true,
		  .own_sport = true,
		  .odd_ip = true },
		{ .name = "n1_odd_ip", .n_dests = 1, .odd_ip = true },
		{ .name = "n4_odd_ip", .n_dests = 4, .odd_ip = true },
		/* a service address (docs/configuration.md#service-addresses): N = 1's loop, the
		 * two passes, a partial checksum completed against it, two listeners */
		{ .name = "n1_svc", .n_dests = 1, .svc = true },
		{ .name = "n1_svc_partial", .n_dests = 1, .svc = true, .partial = true },
		{ .name = "n4_svc", .n_dests = 4, .svc = true },
		{ .name = "n4_svc_zero_cksum_two_ports",
		  .n_dests = 4,
		  .svc = true,
		  .zero_cksum = true,
		  .two_ports = true },
		{ .name = "l2_n2_svc", .n_dests = 4, .listeners = true, .svc = true },
		/* IPv6 (docs/architecture.md#ipv6): v6 in and out (single6, mixed_one_egress,
		 * mixed_simple), v4 in and v6 out, v6 in and both families out */
		{ .name = "v66_n1", .n_dests = 1, .fam = FAM_66 },
		{ .name = "v66_n1_too_big", .n_dests = 1, .big = true, .fam = FAM_66 },
		{ .name = "v66_n1_partial", .n_dests = 1, .partial = true, .fam = FAM_66 },
		{ .name = "v66_n1_original", .n_dests = 1, .orig = true, .fam = FAM_66 },
		{ .name = "v66_n1_own_sport", .n_dests = 1, .own_sport = true, .fam = FAM_66 },
		{ .name = "v66_n1_vlan", .n_dests = 1, .vlan = true, .fam = FAM_66 },
		{ .name = "v66_n4_one_port", .n_dests = 4, .fam = FAM_66 },
		{ .name = "v66_n3_one_port_partial", .n_dests = 3, .partial = true, .fam = FAM_66 },
		{ .name = "v66_n4_two_ports", .n_dests = 4, .two_ports = true, .fam = FAM_66 },
		{ .name = "v66_n4_too_big", .n_dests = 4, .big = true, .fam = FAM_66 },
		{ .name = "v66_n4_copy_shortage", .n_dests = 4, .copy_cap = 40, .fam = FAM_66 },
		{ .name = "v66_n4_two_ports_vlan",
		  .n_dests = 4,
		  .two_ports = true,
		  .vlan = true,
		  .fam = FAM_66 },
		{ .name = "v46_n1", .n_dests = 1, .fam = FAM_46 },
		/* two listeners (docs/architecture.md#listeners): IPv6 ones, through their lane
		 * and without it, each view's engine (single6 in place, mixed_one_egress, the
		 * small-copy loop); IPv4 ones with IPv6 destinations (single46 in two passes) */
		{ .name = "v66_l2_n1", .n_dests = 2, .listeners = true, .fam = FAM_66 },
		{ .name = "v66_l2_n1_partial_too_big",
		  .n_dests = 2,
		  .listeners = true,
		  .partial = true,
		  .big = true,
		  .fam = FAM_66 },
		{ .name = "v66_l2_n2_plain",
		  .n_dests = 4,
		  .listeners = true,
		  .plain = true,
		  .fam = FAM_66 },
		{ .name = "v66_l2_n2_two_ports",
		  .n_dests = 4,
		  .listeners = true,
		  .two_ports = true,
		  .fam = FAM_66 },
		{ .name = "v46_l2_n1", .n_dests = 2, .listeners = true, .fam = FAM_46 },
		/* tags the PMD took out (vlan_unknown), through each lane's fast test */
		{ .name = "n1_stripped", .n_dests = 1, .stripped = true },
		{ .name = "v66_n1_stripped", .n_dests = 1, .stripped = true, .fam = FAM_66 },
		{ .name = "v66_l2_n2_stripped",
		  .n_dests = 4,
		  .listeners = true,
		  .stripped = true,
		  .fam = FAM_66 },
		{ .name = "v46_l2_n1_partial",
		  .n_dests = 2,
		  .listeners = true,
		  .partial = true,
		  .fam = FAM_46 },
		{ .name = "v46_n4_one_port", .n_dests = 4, .fam = FAM_46 },
		/* every destination `source: ours` with the sender's port (the default): the
		 * IPv6 small-copy loops (uf_fan6_small) of mixed_one_egress */
		{ .name = "v66_n4_one_port_plain", .n_dests = 4, .plain = true, .fam = FAM_66 },
		{ .name = "v66_n3_one_port_plain_partial",
		  .n_dests = 3,
		  .plain = true,
		  .partial = true,
		  .fam = FAM_66 },
		/* v4 in, every copy v6: the same loop's IPv4 instance, with partial checksums */
		{ .name = "v46_n3_one_port_partial", .n_dests = 3, .partial = true, .fam = FAM_46 },
		{ .name = "v46_n4_two_ports_zero_cksum",
		  .n_dests = 4,
		  .two_ports = true,
		  .zero_cksum = true,
		  .fam = FAM_46 },
		{ .name = "v6m_n4_one_port", .n_dests = 4, .fam = FAM_6M },
		{ .name = "v6m_n4_two_ports_vlan_own_sport",
		  .n_dests = 4,
		  .two_ports = true,
		  .vlan = true,
		  .own_sport = true,
		  .fam = FAM_6M },
		/* 802.1Q: the tagged header (docs/configuration.md#vlans) in each specialisation */
		{ .name = "n1_vlan", .n_dests = 1, .vlan = true },
		{ .name = "n4_two_ports_vlan", .n_dests = 4, .two_ports = true, .vlan = true },
		{ .name = "n4_chain_two_ports_vlan",
		  .n_dests = 4,
		  .chain = true,
		  .two_ports = true,
		  .vlan = true },
	};
	char *eal[] = { argv[0],
			"-l",
			"0",
			"--no-pci",
			"--no-huge",
			"-m",
			"512",
			"--vdev",
			"net_ring0",
			"--vdev",
			"net_ring1",
			"--log-level",
			"lib.eal:warning",
			"--file-prefix",
			"uf_fanout_diff",
			NULL };
	struct rte_eth_conf conf;
	unsigned i, pi;

	(void)argc;
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	in_pool = rte_pktmbuf_pool_create("in", 4095, 0, 0, 2176, SOCKET_ID_ANY);
	if (in_pool == NULL) {
		fprintf(stderr, "pool failed\n");
		return 1;
	}
	memset(&conf, 0, sizeof(conf));
	for (pi = 0; pi < N_PORTS; pi++) {
		char name[16];

		snprintf(name, sizeof(name), "net_ring%u", pi);
		if (rte_eth_dev_get_port_by_name(name, &ring_port[pi]) != 0 ||
		    rte_eth_dev_configure(ring_port[pi], 1, 1, &conf) != 0 ||
		    rte_eth_rx_queue_setup(ring_port[pi], 0, 1024, SOCKET_ID_ANY, NULL, in_pool) !=
				    0 ||
		    rte_eth_tx_queue_setup(ring_port[pi], 0, 1024, SOCKET_ID_ANY, NULL) != 0 ||
		    rte_eth_dev_start(ring_port[pi]) != 0) {
			fprintf(stderr, "%s: setup failed\n", name);
			return 1;
		}
		rte_eth_macaddr_get(ring_port[pi], &port_mac[pi]);
	}
	for (i = 0; i < RTE_DIM(scenarios); i++)
		scenario(&scenarios[i]);
	/* the coverage: every engine ran against the reference (the IPv6 side of the mixed
	 * engine is tests/eal/test_v6_fanout.c's) */
	for (i = 0; i < UF_ENG_MAX; i++) {
		printf("engine %-16s %u scenarios\n", uf_engine_name((enum uf_engine)i),
		       eng_runs[i]);
		if (i != UF_ENG_GENERIC_VLAN)
			CHECK(eng_runs[i] > 0, "engine %s ran", uf_engine_name((enum uf_engine)i));
	}
	for (pi = 0; pi < N_PORTS; pi++)
		rte_eth_dev_stop(ring_port[pi]);
	rte_eal_cleanup();
	printf("%d passed, %d failed\n", uf_t_passed, uf_t_failed);
	return uf_t_failed == 0 ? 0 : 1;
}
