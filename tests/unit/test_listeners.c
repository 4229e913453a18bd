/* SPDX-License-Identifier: BSD-3-Clause
 * Several listeners: the config (listeners[], its errors at FILE:LINE:COL), the plan's
 * per-listener views and the per-port lookup (uf_plan_listener), and the classifier's
 * any-destination pass that feeds it (docs/configuration.md#listeners,
 * docs/architecture.md#listeners). No EAL: the plan is built on the heap.
 */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "uf_plan.h"
#include "uf_test.h"

#define NAME "l.yaml"

static struct uf_config *
parse(const char *text, struct uf_err *err)
{
	memset(err, 0, sizeof(*err));
	return uf_config_parse(text, strlen(text), NAME, err);
}

#define PORTS                     \
	"ports:\n"                \
	"  - name: wan\n"         \
	"    device: net_ring0\n" \
	"    ip: 10.0.0.10/24\n"  \
	"  - name: lan\n"         \
	"    device: net_ring1\n" \
	"    ip: 10.0.2.1/24\n"

/* netflow and sflow on wan, syslog on wan with its own IP, a fourth on lan; netflow has
 * rules, the others none */
static const char *const good = PORTS "listeners:\n"
				      "  - name: netflow\n"
				      "    port: wan\n"
				      "    udp_port: 2055\n"
				      "    destinations:\n"
				      "      - { ip: 10.0.0.20, udp_port: 2055 }\n"
				      "      - { ip: 10.0.2.21, udp_port: 2055, port: lan }\n"
				      "    rules:\n"
				      "      - { from: 192.0.2.0/24, to: [1, 0] }\n"
				      "      - { from: 0.0.0.0/0, to: [0] }\n"
				      "  - name: sflow\n"
				      "    port: wan\n"
				      "    udp_port: 6343\n"
				      "    destinations:\n"
				      "      - { ip: 10.0.0.20, udp_port: 6343 }\n"
				      "  - name: syslog\n"
				      "    port: wan\n"
				      "    udp_port: 2055\n"
				      "    ip: 10.0.0.14\n"
				      "    destinations:\n"
				      "      - { ip: 10.0.0.30, udp_port: 514 }\n"
				      "      - { ip: 10.0.0.31, udp_port: 514, source: original }\n"
				      "  - name: inside\n"
				      "    port: lan\n"
				      "    udp_port: 2055\n"
				      "    destinations:\n"
				      "      - { ip: 10.0.0.20, udp_port: 2056, port: wan }\n";

static void
test_config_listeners(void)
{
	struct uf_err err;
	struct uf_config *cfg = parse(good, &err);
	const struct uf_cfg_listener *l;

	CHECK(cfg != NULL, "parsed: %s", err.msg);
	if (cfg == NULL)
		return;
	CHECK_EQ(cfg->n_listeners, 4);
	CHECK_EQ(cfg->n_dests, 6);
	CHECK_EQ(cfg->n_rules, 2);
	l = &cfg->listeners[0];
	CHECK_STR(l->name, "netflow");
	CHECK_EQ(l->port, 0);
	CHECK_EQ(l->udp_port, 2055);
	CHECK_EQ(l->ip, ip_of("10.0.0.10")); /* the port's */
	CHECK_EQ(l->first_dest, 0);
	CHECK_EQ(l->n_dests, 2);
	CHECK_EQ(l->n_rules, 2);
	/* rules index the listener's destinations; made global */
	CHECK_EQ(cfg->rules[0].to[0], 1);
	CHECK_EQ(cfg->rules[0].to[1], 0);
	CHECK_EQ(cfg->dests[1].port, 1);
	l = &cfg->listeners[2];
	CHECK_EQ(l->ip, ip_of("10.0.0.14"));
	CHECK_EQ(l->first_dest, 3);
	CHECK_EQ(cfg->dests[3].listener, 2);
	CHECK_EQ(cfg->dests[3].port, 0); /* default: the listener's port */
	CHECK_EQ(cfg->dests[5].listener, 3);
	/* the legacy fields are listener 0's */
	CHECK_EQ(cfg->listen.port, 0);
	CHECK_EQ(cfg->listen.udp_port, 2055);
	uf_config_free(cfg);
}

/* `listen:` is listener 0, with everything */
static void
test_config_listen_is_one_listener(void)
{
	static const char *const text = PORTS "listen:\n  port: lan\n  udp_port: 5000\n"
					      "destinations:\n"
					      "  - { ip: 10.0.2.20, udp_port: 6000 }\n"
					      "  - { ip: 10.0.2.21, udp_port: 6000 }\n";
	struct uf_err err;
	struct uf_config *cfg = parse(text, &err);

	CHECK(cfg != NULL, "parsed: %s", err.msg);
	if (cfg == NULL)
		return;
	CHECK_EQ(cfg->n_listeners, 1);
	CHECK_STR(cfg->listeners[0].name, "listen");
	CHECK_EQ(cfg->listeners[0].port, 1);
	CHECK_EQ(cfg->listeners[0].ip, ip_of("10.0.2.1"));
	CHECK_EQ(cfg->listeners[0].n_dests, 2);
	uf_config_free(cfg);
}

/* "l.yaml:LINE:COL: key: ..." with the position of the nth needle */
static void
expect_err(int fline, const char *text, const char *needle, const char *key, const char *what)
{
	struct uf_err err;
	struct uf_config *cfg = parse(text, &err);
	const char *at = strstr(text, needle), *p;
	char want[200];
	int line = 1, col = 1;

	if (at == NULL) {
		uf_t_check(false, __FILE__, fline, "test bug: %s not in the text", needle);
		return;
	}
	for (p = text; p < at; p++) {
		if (*p == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	uf_t_check(cfg == NULL, __FILE__, fline, "expected an error, the config parsed");
	uf_config_free(cfg);
	snprintf(want, sizeof(want), NAME ":%d:%d: %s: ", line, col, key);
	uf_t_check(strncmp(err.msg, want, strlen(want)) == 0 && strstr(err.msg, what) != NULL,
		   __FILE__, fline, "want \"%s...%s\", got \"%s\"", want, what, err.msg);
}

#define LIS(name, port, udp, extra)                                             \
	"  - name: " name "\n    port: " port "\n    udp_port: " udp "\n" extra \
	"    destinations:\n      - { ip: 10.0.0.20, udp_port: 6000 }\n"

static void
test_config_errors(void)
{
	expect_err(__LINE__,
		   PORTS "listeners:\n" LIS("a", "wan", "2055", "") LIS("b", "wan", "2055", ""),
		   "name: b", "listeners[1]",
		   "port wan, 10.0.0.10:2055 is also listeners[0]'s (a)");
	expect_err(__LINE__,
		   PORTS "listeners:\n" LIS("a", "wan", "2055", "")
				   LIS("b", "wan", "2055", "    ip: 10.0.0.10\n"),
		   "name: b", "listeners[1]", "is also listeners[0]'s");
	expect_err(__LINE__,
		   PORTS "listeners:\n" LIS("a", "wan", "2055", "") LIS("a", "wan", "6343", ""),
		   "name: a\n    port: wan\n    udp_port: 6343", "listeners[1]",
		   "name \"a\" is also listeners[0]'s");
	expect_err(__LINE__, PORTS "listeners:\n" LIS("a", "dmz", "2055", ""), "dmz",
		   "listeners[0].port", "no port is named \"dmz\"");
	expect_err(__LINE__, PORTS "listeners:\n" LIS("a", "wan", "2055", "    ip: 10.0.9.1\n"),
		   "10.0.9.1", "listeners[0].ip", "not a unicast address on port wan's subnet");
	expect_err(__LINE__,
		   PORTS
		   "listen:\n  port: wan\n  udp_port: 1\nlisteners:\n" LIS("a", "wan", "2", ""),
		   "- name: a", "listeners", "exclude each other");
	expect_err(__LINE__, PORTS "listeners:\n  - name: a\n    port: wan\n    udp_port: 2055\n",
		   "name: a", "listeners[0]", "needs destinations");
	expect_err(__LINE__,
		   PORTS "listeners:\n" LIS("a", "wan", "2055", "")
				   LIS("b", "wan", "6343",
				       "") "    rules:\n      - { from: 10.0.0.0/8, to: [1] }\n",
		   "1] }", "listeners[1].rules[0].to",
		   "destination 1 does not exist (there are 1)");
	expect_err(__LINE__,
		   PORTS "listeners:\n" LIS("a", "wan", "2055",
					    "") "      - {ip: 10.0.0.20, udp_port: 6000}\n",
		   "{ip:", "listeners[0].destinations[1]", "is also listeners[0].destinations[0]");
	expect_err(__LINE__, PORTS "listeners:\n" LIS("a", "wan", "0", ""), "0\n    destinations",
		   "listeners[0].udp_port", "out of range 1..65535");
	/* one IPv4 listener with an address of its own: the one-listener path takes only the
	 * port's own address, so refused (a second listener makes it work) */
	expect_err(__LINE__, PORTS "listeners:\n" LIS("a", "wan", "2055", "    ip: 10.0.0.11\n"),
		   "10.0.0.11", "listeners[0].ip", "a single listener listens on port wan's own");
}

static struct rte_ether_addr port_mac[2];
static uint16_t port_mtu[2] = { 1500, 1500 };
static bool port_chain[2] = { true, true };
static struct rte_ether_addr dest_mac[UF_MAX_DESTS];
static bool dest_res[UF_MAX_DESTS];

static struct uf_plan *
build(const struct uf_config *cfg)
{
	struct uf_plan_input in = {
		.cfg = cfg,
		.port_mac = port_mac,
		.port_mtu = port_mtu,
		.port_chain_ok = port_chain,
		.dest_mac = dest_mac,
		.dest_resolved = dest_res,
		.version = 1,
		.socket = -1,
	};
	int i;

	for (i = 0; i < UF_MAX_DESTS; i++)
		dest_res[i] = true;
	return uf_plan_build(&in);
}

static void
test_plan_views_and_lookup(void)
{
	struct uf_err err;
	struct uf_config *cfg = parse(good, &err);
	struct uf_plan *plan;
	const rte_be32_t wan = ip_of("10.0.0.10"), own = ip_of("10.0.0.14"),
			 lan = ip_of("10.0.2.1");
	int d, l;

	CHECK(cfg != NULL, "parsed: %s", err.msg);
	if (cfg == NULL)
		return;
	plan = build(cfg);
	CHECK(plan != NULL, "built");
	if (plan == NULL) {
		uf_config_free(cfg);
		return;
	}
	CHECK_EQ(plan->n_listeners, 4);
	/* the lookup: port, IP and UDP port */
	CHECK_EQ(uf_plan_listener(plan, 0, wan, rte_cpu_to_be_16(2055)), 0);
	CHECK_EQ(uf_plan_listener(plan, 0, wan, rte_cpu_to_be_16(6343)), 1);
	CHECK_EQ(uf_plan_listener(plan, 0, own, rte_cpu_to_be_16(2055)), 2);
	CHECK_EQ(uf_plan_listener(plan, 1, lan, rte_cpu_to_be_16(2055)), 3);
	/* misses: another UDP port, the own IP on sflow's port, the other port's IP */
	CHECK_EQ(uf_plan_listener(plan, 0, wan, rte_cpu_to_be_16(2056)), -1);
	CHECK_EQ(uf_plan_listener(plan, 0, own, rte_cpu_to_be_16(6343)), -1);
	CHECK_EQ(uf_plan_listener(plan, 0, lan, rte_cpu_to_be_16(2055)), -1);
	CHECK_EQ(uf_plan_listener(plan, 1, lan, rte_cpu_to_be_16(6343)), -1);
	CHECK_EQ(uf_plan_listener(plan, 1, wan, rte_cpu_to_be_16(2055)), -1);
	CHECK_EQ(uf_plan_listener(plan, 0, wan, rte_cpu_to_be_16(0)), -1);
	CHECK_EQ(uf_plan_listener(plan, 0, wan, rte_cpu_to_be_16(65535)), -1);

	/* each listener's view: its sets hold only its destinations */
	for (l = 0; l < 4; l++) {
		const struct uf_plan *lp = &plan->lis[l];
		const struct uf_cfg_listener *cl = &cfg->listeners[l];
		int s, j;

		CHECK_EQ(lp->in_dst_ip, cl->ip);
		CHECK_EQ(lp->in_dst_port, rte_cpu_to_be_16(cl->udp_port));
		CHECK_EQ(lp->n_sets, cl->n_rules > 0 ? cl->n_rules : 1);
		CHECK_EQ(lp->dests, plan->dests);
		for (s = 0; s < lp->n_sets; s++)
			for (j = 0; j < lp->sets[s].n; j++) {
				uint16_t di = lp->set_dests[lp->sets[s].first + j];

				CHECK(di >= cl->first_dest && di < cl->first_dest + cl->n_dests,
				      "listener %d set %d: destination %u is not its", l, s, di);
			}
		/* rules: no simple engine (it has an LPM in the app; here the /0 is its catch-all) */
		CHECK_EQ(uf_engine_is_simple(lp->engine), cl->n_rules == 0);
	}
	CHECK_EQ(plan->lis[0].catch_all, 1);
	CHECK_EQ(plan->lis[0].sets[0].n, 2);
	CHECK_EQ(plan->set_dests[plan->lis[0].sets[0].first], 1);
	CHECK_EQ(plan->lis[2].sets[0].n, 2);
	CHECK_EQ(plan->set_dests[plan->lis[2].sets[0].first], 3);
	/* each destination's template is built for its listener's address (the checksum delta
	 * undoes what the datagram was addressed to) */
	for (d = 0; d < cfg->n_dests; d++) {
		const struct uf_cfg_listener *cl = &cfg->listeners[cfg->dests[d].listener];
		struct uf_tmpl t;
		struct uf_tmpl_spec s = {
			.src_mac = port_mac[cfg->dests[d].port],
			.dst_mac = dest_mac[d],
			.src_ip = cfg->ports[cfg->dests[d].port].ip,
			.dst_ip = cfg->dests[d].ip,
			.src_port = rte_cpu_to_be_16(cfg->fwd.source_port),
			.dst_port = rte_cpu_to_be_16(cfg->dests[d].udp_port),
			.ttl = cfg->dests[d].ttl,
			.keep_src_ip = cfg->dests[d].source == UF_SRC_ORIGINAL,
			.keep_src_port = cfg->dests[d].source == UF_SRC_ORIGINAL ||
					 cfg->fwd.keep_source_port,
			.in_dst_ip = cl->ip,
			.in_dst_port = rte_cpu_to_be_16(cl->udp_port),
		};

		uf_tmpl_build(&t, &s);
		CHECK_EQ(plan->dests[d].tmpl.udp_delta, t.udp_delta);
	}
	uf_plan_free(plan);
	uf_config_free(cfg);
}

/* one listener: no maps, no views; the plan is as before */
static void
test_plan_one_listener(void)
{
	static const char *const text = PORTS "listen:\n  port: wan\n  udp_port: 5000\n"
					      "destinations:\n"
					      "  - { ip: 10.0.0.20, udp_port: 6000 }\n";
	struct uf_err err;
	struct uf_config *cfg = parse(text, &err);
	struct uf_plan *plan;

	CHECK(cfg != NULL, "parsed: %s", err.msg);
	if (cfg == NULL)
		return;
	plan = build(cfg);
	CHECK(plan != NULL, "built");
	if (plan != NULL) {
		CHECK_EQ(plan->n_listeners, 1);
		CHECK(plan->lis == NULL, "no views");
		CHECK(plan->lmap[0] == NULL && plan->lmap[1] == NULL, "no maps");
		CHECK(uf_engine_is_simple(plan->engine), "a simple engine");
	}
	uf_plan_free(plan);
	uf_config_free(cfg);
}

/* a datagram to 10.0.0.14:2055 (syslog's own IP) passes the any-destination pass, and the
 * one-listener pass calls it not_for_us */
static void
test_classify_any_dst(void)
{
	uint8_t f[128];
	struct uf_port_id pid = { .ip = ip_of("10.0.0.10"),
				  .listen = true,
				  .listen_udp = rte_cpu_to_be_16(2055),
				  .max_len = 1514 };
	struct uf_rx_info info;
	enum uf_drop why = UF_DROP_MAX;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(f + 34);
	const uint16_t len = 14 + 20 + 8 + 16;

	memset(f, 0, sizeof(f));
	pid.mac = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 0, 0x10 } };
	memcpy(f, pid.mac.addr_bytes, 6);
	f[6] = 0x02;
	f[11] = 0x99;
	*(uint16_t *)(f + 12) = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(20 + 8 + 16);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = ip_of("192.0.2.1");
	ip->dst_addr = ip_of("10.0.0.14");
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(40000);
	udp->dst_port = rte_cpu_to_be_16(2055);
	udp->dgram_len = rte_cpu_to_be_16(8 + 16);

	CHECK_EQ(uf_classify_dp(f, len, 0, &pid, &info, &why), UF_V_DROP);
	CHECK_EQ(why, UF_DROP_NOT_FOR_US);
	CHECK_EQ(uf_classify_dp_ex(f, len, 0, &pid, &info, &why, true), UF_V_FORWARD);
	CHECK_EQ(info.payload_len, 16);
	/* the slow pass agrees (IP options take it there) */
	CHECK_EQ(uf_classify_full_ex(f, len, 0, &pid, &info, &why, true), UF_V_FORWARD);
	why = UF_DROP_MAX;
	CHECK_EQ(uf_classify_full(f, len, 0, &pid, &info, &why), UF_V_DROP);
	CHECK_EQ(why, UF_DROP_NOT_FOR_US);
	/* a port without listeners still says not_for_us */
	pid.listen = false;
	why = UF_DROP_MAX;
	CHECK_EQ(uf_classify_dp_ex(f, len, 0, &pid, &info, &why, true), UF_V_DROP);
	CHECK_EQ(why, UF_DROP_NOT_FOR_US);
}

int
main(void)
{
	RUN(test_config_listeners);
	RUN(test_config_listen_is_one_listener);
	RUN(test_config_errors);
	RUN(test_plan_views_and_lookup);
	RUN(test_plan_one_listener);
	RUN(test_classify_any_dst);
	return uf_t_summary();
}
