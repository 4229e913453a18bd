/* SPDX-License-Identifier: BSD-3-Clause
 * Reload's diff across listeners (lib/config/uf_cfg_diff.c, docs/configuration.md#reload):
 * a destination or a rule that moves from one listener to another, or a destination that
 * moves among the others, is a hot change; and the plan the new file builds sends the moved
 * destination the other listener's datagrams (what a reload that applies it publishes).
 * Before the diff compared them, the first case was "no change" and the reload kept the old
 * plan: datagrams to the old listener still reached the destination, none from the new one.
 */
#include <stdio.h>
#include <string.h>

#include "uf_plan.h"
#include "uf_test.h"

#define PORTS                                                      \
	"ports:\n"                                                 \
	"  - { name: wan, device: net_ring0, ip: 10.0.0.10/24 }\n" \
	"listeners:\n"

/* two listeners on wan: A (2055) and B (6343), each with destinations D_A and D_B and
 * rules R_A and R_B */
#define TWO(d_a, r_a, d_b, r_b)                             \
	PORTS "  - name: a\n"                               \
	      "    port: wan\n"                             \
	      "    udp_port: 2055\n"                        \
	      "    destinations:\n" d_a r_a "  - name: b\n" \
	      "    port: wan\n"                             \
	      "    udp_port: 6343\n"                        \
	      "    destinations:\n" d_b r_b

#define X "      - { ip: 10.0.0.20, udp_port: 9000 }\n"
#define Y "      - { ip: 10.0.0.21, udp_port: 9000 }\n"
#define Z "      - { ip: 10.0.0.22, udp_port: 9000 }\n"
#define RULE "    rules:\n      - { from: 192.0.2.0/24, to: [0] }\n"

static struct uf_cfg_diff d;

static struct uf_config *
parse(const char *text)
{
	struct uf_err err;
	struct uf_config *c;

	memset(&err, 0, sizeof(err));
	c = uf_config_parse(text, strlen(text), "m.yaml", &err);
	CHECK(c != NULL, "parsed: %s", err.msg);
	return c;
}

static int
diff(const char *a, const char *b)
{
	struct uf_config *x = parse(a), *y = parse(b);
	int n = -1;

	if (x != NULL && y != NULL)
		n = uf_config_diff(x, y, &d);
	uf_config_free(x);
	uf_config_free(y);
	return n;
}

static struct rte_ether_addr port_mac[1];
static uint16_t port_mtu[1] = { 1500 };
static bool port_chain[1] = { true };
static struct rte_ether_addr dest_mac[UF_MAX_DESTS];
static bool dest_res[UF_MAX_DESTS];

/* the destinations (by address) listener l's datagrams go to, without rules */
static int
copies_of(const struct uf_config *cfg, int l, rte_be32_t *ip, int max)
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
	struct uf_plan *plan;
	const struct uf_set *s;
	int i, n;

	for (i = 0; i < UF_MAX_DESTS; i++)
		dest_res[i] = true;
	plan = uf_plan_build(&in);
	if (plan == NULL)
		return -1;
	s = &plan->lis[l].sets[0];
	for (n = 0; n < s->n && n < max; n++)
		ip[n] = cfg->dests[plan->set_dests[s->first + n]].ip; /* slot = index here */
	uf_plan_free(plan);
	return n;
}

/* Y from A to B, at the same place in the flat list: only its listener differs */
static void
test_destination_to_other_listener(void)
{
	static const char a[] = TWO(X Y, "", Z, ""), b[] = TWO(X, "", Y Z, "");
	struct uf_config *cfg;
	rte_be32_t ip[4];

	CHECK_EQ(diff(a, b), 1);
	CHECK_EQ(d.n_restart, 0);
	CHECK_EQ(d.n_hot, 1);
	CHECK_STR(d.hot, "destinations[1].listener");
	CHECK_EQ(d.dest_old[1], 1); /* still itself: its counters and neighbour stay */
	CHECK_EQ(d.n_changed, 1);
	/* and back */
	CHECK_EQ(diff(b, a), 1);
	CHECK_STR(d.hot, "destinations[1].listener");

	/* what the reload publishes: B's datagrams reach Y, A's do not */
	cfg = parse(b);
	if (cfg == NULL)
		return;
	CHECK_EQ(copies_of(cfg, 0, ip, 4), 1);
	CHECK_EQ(ip[0], ip_of("10.0.0.20"));
	CHECK_EQ(copies_of(cfg, 1, ip, 4), 2);
	CHECK_EQ(ip[0], ip_of("10.0.0.21"));
	CHECK_EQ(ip[1], ip_of("10.0.0.22"));
	uf_config_free(cfg);
}

/* Z from B to the front of A: a move in the list and to another listener */
static void
test_destination_moves_up(void)
{
	CHECK_EQ(diff(TWO(X, "", Y Z, ""), TWO(Z X, "", Y, "")), 3);
	CHECK_EQ(d.n_restart, 0);
	CHECK_HAS(d.hot, "destinations[1] (10.0.0.20:9000) moved from destinations[0]");
	CHECK_HAS(d.hot, "destinations[2] (10.0.0.21:9000) moved from destinations[1]");
	CHECK_HAS(d.hot, "destinations[0].listener");
	CHECK_EQ(d.dest_old[0], 2);
	/* within one listener: a reorder alone */
	CHECK_EQ(diff(TWO(X Y, "", Z, ""), TWO(Y X, "", Z, "")), 1);
	CHECK_STR(d.hot, "destinations[1] (10.0.0.20:9000) moved from destinations[0]");
	/* one removed above the others shifts them, no move */
	CHECK_EQ(diff(TWO(X Y, "", Z, ""), TWO(Y, "", Z, "")), 1);
	CHECK_HAS(d.hot, "(10.0.0.20:9000) removed");
}

/* a rule from A to B: the same text, another listener's datagrams */
static void
test_rule_to_other_listener(void)
{
	CHECK_EQ(diff(TWO(X, RULE, Y, ""), TWO(X, "", Y, RULE)), 2);
	CHECK_EQ(d.n_restart, 0);
	CHECK_HAS(d.hot, "rules[0].listener");
	CHECK_HAS(d.hot, "rules[0].to"); /* its [0] is Y now */
	/* the same destination index in both listeners: only the listener tells them apart */
	CHECK_EQ(diff(TWO(X, RULE, X, ""), TWO(X, "", X, RULE)), 2);
	CHECK_HAS(d.hot, "rules[0].listener");
	/* nothing moved: no change */
	CHECK_EQ(diff(TWO(X, RULE, Y, ""), TWO(X, RULE, Y, "")), 0);
}

int
main(void)
{
	RUN(test_destination_to_other_listener);
	RUN(test_destination_moves_up);
	RUN(test_rule_to_other_listener);
	return uf_t_summary();
}
