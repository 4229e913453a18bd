/* SPDX-License-Identifier: BSD-3-Clause
 * lib/plan: the fan-out plan built on the plain heap (socket -1, no EAL), next hops and
 * multicast MACs. The config is built by hand so that only lib/plan is under test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "uf_plan.h"
#include "uf_test.h"

static struct rte_ether_addr
mac(uint8_t a, uint8_t last)
{
	struct rte_ether_addr m = { { 0x02, a, 0x00, 0x00, 0x00, last } };

	return m;
}

/*
 * Two ports and three destinations:
 *   wan 10.0.0.10/24 gw 10.0.0.1 (listen, UDP 5000)   lan 10.0.2.1/24
 *   [0] 10.0.0.20:6000 via wan, source ours,  ttl 64
 *   [1] 10.0.1.20:6001 via wan, source original, ttl 16, sample 10
 *   [2] 10.0.2.30:6002 via lan, source 198.51.100.7, ttl 200
 */
static struct uf_config cfg;
static struct uf_cfg_dest dests[3];
static struct uf_cfg_rule rules[2];
static uint16_t rule0_to[] = { 2, 0 };
static uint16_t rule1_to[] = { 1 };

static struct rte_ether_addr port_mac[2];
static uint16_t port_mtu[2] = { 1500, 9000 };
static bool port_chain[2] = { true, false };
static struct rte_ether_addr dest_mac[3];
static bool dest_res[3] = { false, true, false };

static void
setup(void)
{
	memset(&cfg, 0, sizeof(cfg));
	memset(dests, 0, sizeof(dests));
	snprintf(cfg.ports[0].name, UF_NAME_MAX, "wan");
	cfg.ports[0].ip = ip_of("10.0.0.10");
	cfg.ports[0].prefix_len = 24;
	cfg.ports[0].has_gateway = true;
	cfg.ports[0].gateway = ip_of("10.0.0.1");
	snprintf(cfg.ports[1].name, UF_NAME_MAX, "lan");
	cfg.ports[1].ip = ip_of("10.0.2.1");
	cfg.ports[1].prefix_len = 24;
	cfg.n_ports = 2;
	cfg.listen.port = 0;
	cfg.listen.udp_port = 5000;

	dests[0] = (struct uf_cfg_dest){ .ip = ip_of("10.0.0.20"),
					 .udp_port = 6000,
					 .port = 0,
					 .source = UF_SRC_OURS,
					 .sample = 1,
					 .ttl = 64 };
	dests[1] = (struct uf_cfg_dest){ .ip = ip_of("10.0.1.20"),
					 .udp_port = 6001,
					 .port = 0,
					 .source = UF_SRC_ORIGINAL,
					 .sample = 10,
					 .ttl = 16 };
	dests[2] = (struct uf_cfg_dest){ .ip = ip_of("10.0.2.30"),
					 .udp_port = 6002,
					 .port = 1,
					 .source = UF_SRC_FIXED,
					 .source_ip = ip_of("198.51.100.7"),
					 .sample = 1,
					 .ttl = 200 };
	cfg.dests = dests;
	cfg.n_dests = 3;
	cfg.n_rules = 0;
	cfg.rules = NULL;
	cfg.fwd.udp_checksum = UF_CKSUM_COMPUTE;
	cfg.fwd.keep_source_port = false;
	cfg.fwd.source_port = 7000;
	cfg.fwd.fanout = UF_FANOUT_AUTO;
	cfg.fwd.chain_min_payload = 0;

	rules[0] = (struct uf_cfg_rule){
		.prefix = ip_of("192.0.2.0"), .len = 24, .n_to = 2, .to = rule0_to
	};
	rules[1] = (struct uf_cfg_rule){ .prefix = 0, .len = 0, .n_to = 1, .to = rule1_to };

	port_mac[0] = mac(0xaa, 1);
	port_mac[1] = mac(0xaa, 2);
	dest_mac[0] = mac(0xbb, 0x20);
	dest_mac[1] = mac(0xbb, 0x01); /* the gateway's */
	dest_mac[2] = mac(0xbb, 0x30);
}

static struct uf_plan *
build(uint64_t version)
{
	struct uf_plan_input in = {
		.cfg = &cfg,
		.port_mac = port_mac,
		.port_mtu = port_mtu,
		.port_chain_ok = port_chain,
		.dest_mac = dest_mac,
		.dest_resolved = dest_res,
		.lpm = NULL,
		.version = version,
		.socket = -1,
	};

	return uf_plan_build(&in);
}

/* the template of destination i, field by field (network order, by hand) */
static void
check_tmpl(const struct uf_plan *plan, int i, const char *src_ip, uint16_t sport)
{
	const uint8_t *h = plan->dests[i].tmpl.hdr;
	const struct uf_cfg_dest *d = &dests[i];
	rte_be32_t v;

	CHECK_MEM(h, dest_mac[i].addr_bytes, 6);
	CHECK_MEM(h + 6, port_mac[d->port].addr_bytes, 6);
	CHECK_EQ(uf_t_get16(h + 12), 0x0800);
	CHECK_EQ(h[14], 0x45);
	CHECK_EQ(h[22], d->ttl);
	CHECK_EQ(h[23], 17);
	memcpy(&v, h + 26, 4);
	if (src_ip == NULL) {
		CHECK_EQ(plan->dests[i].tmpl.keep_src_ip, true);
	} else {
		CHECK_EQ(v, ip_of(src_ip));
		CHECK_EQ(plan->dests[i].tmpl.keep_src_ip, false);
	}
	memcpy(&v, h + 30, 4);
	CHECK_EQ(v, d->ip);
	if (sport == 0)
		CHECK_EQ(plan->dests[i].tmpl.keep_sport, true);
	else
		CHECK_EQ(uf_t_get16(h + 34), sport);
	CHECK_EQ(uf_t_get16(h + 36), d->udp_port);
}

static void
test_plan_no_rules(void)
{
	struct uf_plan *plan;
	int i;

	setup();
	plan = build(7);
	CHECK(plan != NULL, "built on the heap");
	if (plan == NULL)
		return;
	CHECK_EQ(plan->version, 7);
	CHECK_EQ(plan->n_dests, 3);
	CHECK_EQ(plan->udp_cksum, true);
	CHECK_EQ(plan->fanout, UF_FANOUT_AUTO);
	CHECK_EQ(plan->chain_min_payload, 60 - 42); /* chained frames never need padding */
	CHECK_EQ(plan->in_dst_ip, ip_of("10.0.0.10"));
	CHECK_EQ(uf_t_get16((const uint8_t *)&plan->in_dst_port), 5000);
	CHECK(plan->lpm == NULL, "no rules, no LPM");
	CHECK_EQ(plan->rte_mem, false);

	/* one set, every destination in order */
	CHECK_EQ(plan->n_sets, 1);
	CHECK_EQ(plan->sets[0].n, 3);
	CHECK_EQ(plan->sets[0].first, 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(plan->set_dests[plan->sets[0].first + i], i);
	CHECK_EQ(plan->sets[0].max_payload, 1500 - 28);
	CHECK_EQ(plan->sets[0].any_resolved, true);
	CHECK_EQ(plan->sets[0].chain_ok, false); /* lan cannot chain */

	/* per destination */
	for (i = 0; i < 3; i++) {
		CHECK_EQ(plan->dests[i].egress, dests[i].port);
		CHECK_EQ(plan->dests[i].idx, i);
		CHECK_EQ(plan->dests[i].sample, dests[i].sample);
		CHECK_EQ(plan->dests[i].max_payload, port_mtu[dests[i].port] - 28);
		CHECK_EQ(plan->dests[i].resolved, dest_res[i]);
		CHECK_EQ(plan->dests[i].chain_ok, port_chain[dests[i].port]);
	}
	check_tmpl(plan, 0, "10.0.0.10", 7000);
	check_tmpl(plan, 1, NULL, 0); /* original: the sender's address and port */
	check_tmpl(plan, 2, "198.51.100.7", 7000);
	uf_plan_free(plan);

	/* the sender's port kept for every destination */
	cfg.fwd.keep_source_port = true;
	cfg.fwd.chain_min_payload = 512;
	cfg.fwd.udp_checksum = UF_CKSUM_ZERO;
	plan = build(8);
	if (plan == NULL)
		return;
	for (i = 0; i < 3; i++)
		CHECK_EQ(plan->dests[i].tmpl.keep_sport, true);
	CHECK_EQ(plan->chain_min_payload, 512);
	CHECK_EQ(plan->udp_cksum, false);
	check_tmpl(plan, 2, "198.51.100.7", 0);
	uf_plan_free(plan);

	/* fanout: chain chains whatever is above the padding edge; the threshold is auto's */
	cfg.fwd.fanout = UF_FANOUT_CHAIN;
	plan = build(8);
	if (plan == NULL)
		return;
	CHECK_EQ(plan->chain_min_payload, 60 - 42);
	uf_plan_free(plan);
	cfg.fwd.fanout = UF_FANOUT_AUTO;
}

static void
test_plan_rules(void)
{
	struct uf_plan *plan;

	setup();
	cfg.rules = rules;
	cfg.n_rules = 2;
	plan = build(1);
	CHECK(plan != NULL, "built");
	if (plan == NULL)
		return;
	CHECK_EQ(plan->n_sets, 2);
	/* set 0: rule 0's destinations, in the rule's order */
	CHECK_EQ(plan->sets[0].n, 2);
	CHECK_EQ(plan->set_dests[plan->sets[0].first], 2);
	CHECK_EQ(plan->set_dests[plan->sets[0].first + 1], 0);
	CHECK_EQ(plan->sets[0].max_payload, 1500 - 28); /* min(9000, 1500) - 28 */
	CHECK_EQ(plan->sets[0].any_resolved, false);    /* 2 and 0 are unresolved */
	CHECK_EQ(plan->sets[0].chain_ok, false);
	/* set 1: rule 1's */
	CHECK_EQ(plan->sets[1].n, 1);
	CHECK_EQ(plan->set_dests[plan->sets[1].first], 1);
	CHECK_EQ(plan->sets[1].any_resolved, true);
	CHECK_EQ(plan->sets[1].chain_ok, true);
	CHECK_EQ(plan->sets[1].max_payload, 1500 - 28);
	/* members do not overlap */
	CHECK(plan->sets[1].first >= plan->sets[0].first + plan->sets[0].n ||
			      plan->sets[0].first >= plan->sets[1].first + plan->sets[1].n,
	      "sets' member ranges are disjoint");
	uf_plan_free(plan);

	/* a set of the jumbo port alone takes its MTU */
	rule1_to[0] = 2;
	port_chain[1] = true;
	plan = build(2);
	if (plan != NULL) {
		CHECK_EQ(plan->sets[1].max_payload, 9000 - 28);
		CHECK_EQ(plan->sets[1].chain_ok, true);
		CHECK_EQ(plan->sets[1].any_resolved, false);
		CHECK_EQ(plan->sets[0].chain_ok, true);
	}
	uf_plan_free(plan);
	rule1_to[0] = 1;
	port_chain[1] = false;
}

/* A set chains from the larger of the plan's threshold and what each member's egress PMD can
 * chain: ENA LLQ copies frames under 225 B (chain_min_frame 225 = payload 183). */
static void
test_plan_chain_min(void)
{
	uint16_t chain_min[2] = { 225, 0 };
	struct uf_plan_input in = {
		.cfg = &cfg,
		.port_mac = port_mac,
		.port_mtu = port_mtu,
		.port_chain_ok = port_chain,
		.port_chain_min_frame = chain_min,
		.dest_mac = dest_mac,
		.dest_resolved = dest_res,
		.socket = -1,
	};
	struct uf_plan *plan;

	setup();
	cfg.fwd.fanout = UF_FANOUT_CHAIN; /* the plan's own threshold: 18 */
	cfg.rules = rules;
	cfg.n_rules = 2;
	plan = uf_plan_build(&in);
	CHECK(plan != NULL, "built");
	if (plan == NULL)
		return;
	CHECK_EQ(plan->chain_min_payload, 18);
	CHECK_EQ(plan->sets[0].chain_min_payload, 225 - 42); /* 2 (lan) and 0 (wan: ENA) */
	CHECK_EQ(plan->sets[1].chain_min_payload, 225 - 42); /* 1 (wan) */
	uf_plan_free(plan);
	/* the other port's set keeps the plan's; auto's 512 is above ENA's already */
	rule1_to[0] = 2;
	plan = uf_plan_build(&in);
	if (plan != NULL)
		CHECK_EQ(plan->sets[1].chain_min_payload, 18);
	uf_plan_free(plan);
	rule1_to[0] = 1;
	cfg.fwd.fanout = UF_FANOUT_AUTO;
	cfg.fwd.chain_min_payload = 512;
	plan = uf_plan_build(&in);
	if (plan != NULL)
		CHECK_EQ(plan->sets[0].chain_min_payload, 512);
	uf_plan_free(plan);
	/* no per-port array (unit callers, old inputs): the plan's */
	in.port_chain_min_frame = NULL;
	plan = uf_plan_build(&in);
	if (plan != NULL)
		CHECK_EQ(plan->sets[1].chain_min_payload, 512);
	uf_plan_free(plan);
}

/* Ports ask for MULTI_SEGS only when the config can produce a chained copy. */
static void
test_may_chain(void)
{
	setup();
	cfg.fwd.chain_min_payload = 512;
	CHECK_EQ(uf_plan_may_chain(&cfg), true); /* auto, 3 destinations, MTU the device's */
	cfg.fwd.fanout = UF_FANOUT_COPY;
	CHECK_EQ(uf_plan_may_chain(&cfg), false);
	cfg.fwd.fanout = UF_FANOUT_AUTO;
	cfg.ports[0].mtu = 500; /* at most 472 B of payload: never 512 */
	CHECK_EQ(uf_plan_may_chain(&cfg), false);
	cfg.fwd.fanout = UF_FANOUT_CHAIN; /* chain from 18 B */
	CHECK_EQ(uf_plan_may_chain(&cfg), true);
	cfg.fwd.fanout = UF_FANOUT_AUTO;
	cfg.ports[0].mtu = 1500;
	CHECK_EQ(uf_plan_may_chain(&cfg), true);
	cfg.n_dests = 1; /* one copy per datagram: the received mbuf itself */
	CHECK_EQ(uf_plan_may_chain(&cfg), false);
	cfg.n_dests = 3;
	cfg.rules = rules; /* rules of 2 and 1 destinations: rule 0 can chain */
	cfg.n_rules = 2;
	CHECK_EQ(uf_plan_may_chain(&cfg), true);
	rules[0].n_to = 1;
	CHECK_EQ(uf_plan_may_chain(&cfg), false);
	rules[0].n_to = 2;
}

static void
test_plan_unresolved(void)
{
	struct uf_plan *plan;
	int i;

	setup();
	for (i = 0; i < 3; i++)
		dest_res[i] = false;
	plan = build(3);
	if (plan != NULL) {
		CHECK_EQ(plan->sets[0].any_resolved, false);
		for (i = 0; i < 3; i++)
			CHECK_EQ(plan->dests[i].resolved, false);
	}
	uf_plan_free(plan);
	dest_res[0] = false;
	dest_res[1] = true;
	dest_res[2] = false;
	uf_plan_free(NULL); /* harmless */
}

/* ---- a copy written from the plan's template verifies from scratch ---- */

static bool
udp_ok(const uint8_t *ip)
{
	const uint8_t *udp = ip + 20;
	size_t ulen = uf_t_get16(udp + 4);
	uint32_t s = uf_t_sum16(0, ip + 12, 8) + 17 + (uint32_t)ulen;

	return uf_t_fold(uf_t_sum16(s, udp, ulen)) == 0xffff;
}

static void
test_plan_copy_verifies(void)
{
	uint8_t payload[333], out[512];
	struct uf_rx_info in;
	struct uf_plan *plan;
	uint32_t p;
	size_t i;
	int d;

	setup();
	plan = build(4);
	if (plan == NULL)
		return;
	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + 3);
	memset(&in, 0, sizeof(in));
	in.payload_off = 42;
	in.payload_len = sizeof(payload);
	in.src_ip = ip_of("192.0.2.7");
	in.src_port = htons(40000);
	in.ip_id = htons(99);
	in.tos = 0;
	in.udp_cksum = 0; /* the sender sent none */
	p = uf_in_sum(&in, payload, plan->in_dst_ip, plan->in_dst_port);
	for (d = 0; d < 3; d++) {
		uf_hdr_write(out, &plan->dests[d].tmpl, &in, p, plan->udp_cksum);
		memcpy(out + 42, payload, sizeof(payload));
		CHECK(uf_t_fold(uf_t_sum16(0, out + 14, 20)) == 0xffff, "dest %d: IPv4 checksum",
		      d);
		CHECK(udp_ok(out + 14), "dest %d: UDP checksum", d);
	}
	uf_plan_free(plan);
}

/* ---- next hop, multicast MAC ---- */

static void
test_next_hop(void)
{
	struct uf_cfg_dest d;

	setup();
	memset(&d, 0, sizeof(d));
	d.port = 0;
	d.ip = ip_of("10.0.0.20");
	CHECK_EQ(uf_next_hop(&cfg, &d), ip_of("10.0.0.20")); /* on the subnet: itself */
	d.ip = ip_of("10.0.0.255");
	CHECK_EQ(uf_next_hop(&cfg, &d), ip_of("10.0.0.255"));
	d.ip = ip_of("10.0.1.20");
	CHECK_EQ(uf_next_hop(&cfg, &d), ip_of("10.0.0.1")); /* off: the gateway */
	d.ip = ip_of("192.0.2.1");
	CHECK_EQ(uf_next_hop(&cfg, &d), ip_of("10.0.0.1"));
	/* no gateway (a static MAC makes it reachable): itself */
	d.port = 1;
	d.ip = ip_of("172.16.0.1");
	CHECK_EQ(uf_next_hop(&cfg, &d), ip_of("172.16.0.1"));
	d.ip = ip_of("10.0.2.200");
	CHECK_EQ(uf_next_hop(&cfg, &d), ip_of("10.0.2.200"));
	/* the narrowest and widest prefixes a port may have */
	cfg.ports[0].prefix_len = 31;
	d.port = 0;
	d.ip = ip_of("10.0.0.11");
	CHECK_EQ(uf_next_hop(&cfg, &d), ip_of("10.0.0.11"));
	d.ip = ip_of("10.0.0.12");
	CHECK_EQ(uf_next_hop(&cfg, &d), ip_of("10.0.0.1"));
	cfg.ports[0].prefix_len = 1;
	d.ip = ip_of("127.1.2.3");
	CHECK_EQ(uf_next_hop(&cfg, &d), ip_of("127.1.2.3"));
	d.ip = ip_of("128.0.0.1");
	CHECK_EQ(uf_next_hop(&cfg, &d), ip_of("10.0.0.1"));
}

static void
test_mcast_mac(void)
{
	static const uint8_t m1[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
	static const uint8_t m2[6] = { 0x01, 0x00, 0x5e, 0x7f, 0xfe, 0xfd };
	struct rte_ether_addr m;

	uf_mcast_mac(ip_of("224.1.2.3"), &m);
	CHECK_MEM(m.addr_bytes, m1, 6);
	uf_mcast_mac(ip_of("239.129.2.3"), &m); /* the second octet's high bit is not mapped */
	CHECK_MEM(m.addr_bytes, m1, 6);
	uf_mcast_mac(ip_of("239.255.254.253"), &m);
	CHECK_MEM(m.addr_bytes, m2, 6);
}

/* fuzzing: uf_set.first was 16 bits, and past 65,535 members in all a later rule pointed at
 * an earlier rule's destinations. 257 rules of 256 members each: 65,792. */
static void
test_plan_many_members(void)
{
	enum {
		N_RULES = 257,
		N_DESTS = UF_MAX_DESTS
	};
	static struct uf_cfg_dest d[N_DESTS];
	static struct rte_ether_addr dm[N_DESTS];
	static bool dr[N_DESTS];
	static struct uf_cfg_rule r[N_RULES];
	static uint16_t to[N_RULES][N_DESTS];
	struct uf_plan *plan;
	int i, j, bad = 0;

	setup();
	for (i = 0; i < N_DESTS; i++) {
		d[i] = dests[0];
		d[i].udp_port = (uint16_t)(6000 + i);
		dm[i] = mac(0xcc, (uint8_t)i);
		dr[i] = true;
	}
	for (i = 0; i < N_RULES; i++) {
		/* each rule its own order of all 256: rotated by i, the last one reversed */
		for (j = 0; j < N_DESTS; j++)
			to[i][j] = (uint16_t)(i == N_RULES - 1 ? N_DESTS - 1 - j
							       : (i + j) % N_DESTS);
		r[i] = (struct uf_cfg_rule){ .prefix = rte_cpu_to_be_32(0x0a000000u |
									(uint32_t)i << 8),
					     .len = 24,
					     .n_to = N_DESTS,
					     .to = to[i] };
	}
	cfg.dests = d;
	cfg.n_dests = N_DESTS;
	cfg.rules = r;
	cfg.n_rules = N_RULES;
	{
		struct uf_plan_input in = {
			.cfg = &cfg,
			.port_mac = port_mac,
			.port_mtu = port_mtu,
			.port_chain_ok = port_chain,
			.dest_mac = dm,
			.dest_resolved = dr,
			.version = 1,
			.socket = -1,
		};

		plan = uf_plan_build(&in);
	}
	CHECK(plan != NULL, "built");
	if (plan == NULL)
		return;
	CHECK_EQ(plan->n_sets, N_RULES);
	CHECK_EQ(plan->sets[N_RULES - 1].first, (uint32_t)(N_RULES - 1) * N_DESTS);
	for (i = 0; i < N_RULES; i++) {
		CHECK_EQ(plan->sets[i].n, N_DESTS);
		for (j = 0; j < N_DESTS; j++)
			bad += plan->set_dests[plan->sets[i].first + j] != to[i][j];
	}
	CHECK(bad == 0, "%d members point at another rule's destinations", bad);
	CHECK_EQ(plan->catch_all, UF_SET_NONE);
	uf_plan_free(plan);
}

/*
 * The lookup on a hand-filled LPM table (the real rte_lpm_lookup, no EAL): 192.0.2.0/24 is
 * rule 0 (next hop 0), and a 0.0.0.0/0 rule 1 is the catch-all for everything else.
 */
static void
test_plan_catch_all(void)
{
	struct rte_lpm *lpm = calloc(1, sizeof(*lpm)); /* tbl24: 64 MiB, untouched pages */
	struct uf_plan_input in;
	struct uf_plan *plan;
	uint32_t set = 99;

	if (lpm == NULL)
		abort();
	lpm->tbl24[0xc00002] = (struct rte_lpm_tbl_entry){ .next_hop = 0, .valid = 1, .depth = 24 };
	setup();
	cfg.rules = rules;
	cfg.n_rules = 2; /* rules[1] is 0.0.0.0/0 */
	in = (struct uf_plan_input){ .cfg = &cfg,
				     .port_mac = port_mac,
				     .port_mtu = port_mtu,
				     .port_chain_ok = port_chain,
				     .dest_mac = dest_mac,
				     .dest_resolved = dest_res,
				     .lpm = lpm,
				     .version = 1,
				     .socket = -1 };
	plan = uf_plan_build(&in);
	CHECK(plan != NULL, "built");
	if (plan == NULL) {
		free(lpm);
		return;
	}
	CHECK_EQ(plan->catch_all, 1);
	CHECK(uf_plan_lookup(plan, ip_of("192.0.2.77"), &set) && set == 0, "specific: set %u", set);
	CHECK(uf_plan_lookup(plan, ip_of("198.51.100.1"), &set) && set == 1, "catch-all: set %u",
	      set);
	CHECK(uf_plan_lookup(plan, ip_of("0.0.0.0"), &set) && set == 1, "0.0.0.0: set %u", set);
	CHECK(uf_plan_lookup(plan, ip_of("255.255.255.255"), &set) && set == 1, "255...: set %u",
	      set);
	CHECK_EQ(plan->set_dests[plan->sets[1].first], 1); /* the /0 rule's `to` */
	uf_plan_free(plan);

	/* without a /0 rule a miss matches nothing (drop.no_rule) */
	rules[1].prefix = ip_of("198.18.0.0");
	rules[1].len = 15;
	lpm->tbl24[0xc61200] = (struct rte_lpm_tbl_entry){ .next_hop = 1, .valid = 1, .depth = 15 };
	plan = uf_plan_build(&in);
	if (plan != NULL) {
		CHECK_EQ(plan->catch_all, UF_SET_NONE);
		CHECK(uf_plan_lookup(plan, ip_of("198.18.0.9"), &set) && set == 1, "/15: set %u",
		      set);
		CHECK(uf_plan_lookup(plan, ip_of("192.0.2.1"), &set) && set == 0, "/24: set %u",
		      set);
		CHECK(!uf_plan_lookup(plan, ip_of("198.51.100.1"), &set), "miss: no rule");
	}
	uf_plan_free(plan);
	free(lpm);
}

/* uf_ipv4_is_mcast, which replaces RTE_IS_IPV4_MCAST (UBSan: a signed shift in 22.11) */
static void
test_ipv4_is_mcast(void)
{
	static const struct {
		uint32_t ip;
		bool mcast;
	} c[] = {
		{ 0x00000000, false }, /* 0.0.0.0 */
		{ 0x7fffffff, false }, /* 127.255.255.255 */
		{ 0x80000000, false }, /* 128.0.0.0 */
		{ 0xdfffffff, false }, /* 223.255.255.255: the last below */
		{ 0xe0000000, true },  /* 224.0.0.0: the first */
		{ 0xe0000001, true },  /* 224.0.0.1 */
		{ 0xefffffff, true },  /* 239.255.255.255: the last */
		{ 0xf0000000, false }, /* 240.0.0.0: the first above */
		{ 0xfffffffe, false }, /* 255.255.255.254 */
		{ 0xffffffff, false }, /* 255.255.255.255 */
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(c); i++)
		CHECK(uf_ipv4_is_mcast(c[i].ip) == c[i].mcast, "0x%08x", c[i].ip);
	/* as the config and the control plane use it: network order in, swapped */
	CHECK(uf_ipv4_is_mcast(rte_be_to_cpu_32(ip_of("239.1.2.3"))), "239.1.2.3");
	CHECK(!uf_ipv4_is_mcast(rte_be_to_cpu_32(ip_of("198.18.0.1"))), "198.18.0.1");
}

/*
 * IPv6 (docs/architecture.md#ipv6): an IPv6 listener on wan (2001:db8::10, UDP
 * 5000) with an IPv6 destination, an IPv4 one and an IPv6 multicast one nobody resolved,
 * and two IPv6 rules (2001:db8:bad::/48 -> [1], ::/0 -> [0, 2]).
 */
static void
test_plan_ipv6(void)
{
	static uint16_t r0_to[] = { 1 }, r1_to[] = { 0, 2 };
	struct uf_cfg_rule r6[2];
	struct uf_plan *plan;
	struct uf_ip6 a;
	uint32_t set = 99;
	int l = -1;

	setup();
	cfg.ports[0].n_ip6 = 1;
	cfg.ports[0].ip6[0] = ip6_of("2001:db8::10");
	cfg.ports[0].ip6_prefix_len[0] = 64;
	cfg.n_listeners = 1;
	cfg.listeners[0].port = 0;
	cfg.listeners[0].udp_port = 5000;
	cfg.listeners[0].is_ip6 = true;
	cfg.listeners[0].ip6 = cfg.ports[0].ip6[0];
	cfg.listeners[0].n_dests = 3;
	dests[0] = (struct uf_cfg_dest){ .is_ip6 = true,
					 .ip6 = ip6_of("2001:db8::21"),
					 .udp_port = 6000,
					 .source = UF_SRC_OURS,
					 .sample = 1,
					 .ttl = 9 };
	dests[1].source = UF_SRC_OURS; /* v6 -> v4: original is refused by the config */
	dests[2] = (struct uf_cfg_dest){ .is_ip6 = true,
					 .ip6 = ip6_of("ff0e::1"),
					 .udp_port = 6002,
					 .source = UF_SRC_OURS,
					 .sample = 1,
					 .ttl = 64 };
	r6[0] = (struct uf_cfg_rule){ .is_ip6 = true,
				      .prefix6 = ip6_of("2001:db8:bad::"),
				      .len = 48,
				      .n_to = 1,
				      .to = r0_to };
	r6[1] = (struct uf_cfg_rule){ .is_ip6 = true, .len = 0, .n_to = 2, .to = r1_to };
	cfg.rules = r6;
	cfg.n_rules = 2;
	plan = build(1);
	CHECK(plan != NULL, "built");
	if (plan == NULL)
		return;
	CHECK(plan->has6 && plan->in_is6 && plan->engine == UF_ENG_MIXED && plan->d6 != NULL,
	      "an IPv6 view");
	CHECK_MEM(plan->in_dst_ip6.b, cfg.ports[0].ip6[0].b, 16);
	/* the IPv6 destination's template, byte by byte */
	{
		const uint8_t *h = plan->d6[0].t6.hdr;

		CHECK(plan->d6[0].is6 && !plan->d6[0].vlan, "IPv6, untagged");
		CHECK_MEM(h, dest_mac[0].addr_bytes, 6);
		CHECK_MEM(h + 6, port_mac[0].addr_bytes, 6);
		CHECK_EQ(uf_t_get16(h + 12), 0x86dd);
		CHECK_EQ(h[14] >> 4, 6);
		CHECK_EQ(h[14 + 6], 17);
		CHECK_EQ(h[14 + 7], 9); /* hop limit: ttl */
		CHECK_MEM(h + 14 + 8, cfg.ports[0].ip6[0].b, 16);
		CHECK_MEM(h + 14 + 24, dests[0].ip6.b, 16);
		CHECK_EQ(uf_t_get16(h + 54), 7000); /* forward.source_port */
		CHECK_EQ(uf_t_get16(h + 56), 6000);
	}
	CHECK_EQ(plan->dests[0].max_payload, 1500 - 48);
	CHECK_EQ(plan->dests[1].max_payload, 1500 - 28);
	CHECK(!plan->d6[1].is6, "the IPv4 destination keeps its uf_tmpl");
	/* multicast: 33:33 + the group's last 32 bits, resolved without a neighbour */
	{
		static const uint8_t mc[6] = { 0x33, 0x33, 0, 0, 0, 1 };

		CHECK_MEM(plan->d6[2].t6.hdr, mc, 6);
		CHECK(plan->dests[2].resolved, "multicast resolved");
	}
	/* rules, first match; the listener by port, address and UDP port */
	CHECK_EQ(plan->n_rules6, 2);
	a = ip6_of("2001:db8:bad::1");
	CHECK(uf_plan_lookup6(plan, &a, &set) && set == 0, "bad::1: set %u", set);
	a = ip6_of("2001:db8::5");
	CHECK(uf_plan_lookup6(plan, &a, &set) && set == 1, "::5 (::/0): set %u", set);
	CHECK_EQ(plan->set_dests[plan->sets[1].first + 1], 2);
	CHECK_EQ(plan->n_lis6, 1);
	CHECK(uf_plan_listener6(plan, 0, &cfg.ports[0].ip6[0], rte_cpu_to_be_16(5000), &l) ==
					      plan &&
			      l == 0,
	      "the listener");
	CHECK(uf_plan_listener6(plan, 0, &cfg.ports[0].ip6[0], rte_cpu_to_be_16(5001), &l) == NULL,
	      "another UDP port");
	CHECK(uf_plan_listener6(plan, 1, &cfg.ports[0].ip6[0], rte_cpu_to_be_16(5000), &l) == NULL,
	      "another port");
	uf_plan_free(plan);

	/* an IPv4 config has no IPv6 side */
	setup();
	plan = build(1);
	CHECK(plan != NULL && plan->d6 == NULL && !plan->has6 && plan->n_lis6 == 0, "IPv4 only");
	uf_plan_free(plan);
}

int
main(void)
{
	RUN(test_plan_no_rules);
	RUN(test_plan_rules);
	RUN(test_plan_chain_min);
	RUN(test_may_chain);
	RUN(test_plan_unresolved);
	RUN(test_plan_copy_verifies);
	RUN(test_next_hop);
	RUN(test_mcast_mac);
	RUN(test_ipv4_is_mcast);
	RUN(test_plan_many_members);
	RUN(test_plan_catch_all);
	RUN(test_plan_ipv6);
	return uf_t_summary();
}
