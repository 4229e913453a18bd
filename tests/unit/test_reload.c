/* SPDX-License-Identifier: BSD-3-Clause
 * Reload's diff (lib/config/uf_cfg_diff.c, docs/configuration.md#reload): which changes a
 * new plan applies (hot) and which need a restart (refused), how destinations are matched
 * across the two files, and that the schema table says how to compare every row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uf_cfg_schema.h"
#include "uf_config.h"
#include "uf_test.h"

/* the running config; each case swaps one line (or adds some) */
static const char base[] = "eal:\n"
			   "  lcores: \"0-1\"\n"
			   "  extra_args: [\"--no-telemetry\"]\n"
			   "ports:\n"
			   "  - name: wan\n"
			   "    device: \"net_af_xdp0,iface=eth1\"\n"
			   "    ip: 10.0.0.10/24\n"
			   "  - name: lan\n"
			   "    device: \"net_af_xdp1,iface=eth2\"\n"
			   "    ip: 10.0.2.1/24\n"
			   "    gateway: 10.0.2.254\n"
			   "listen:\n"
			   "  port: wan\n"
			   "  udp_port: 5000\n"
			   "destinations:\n"
			   "  - { ip: 10.0.0.20, udp_port: 6000 }\n"
			   "  - { ip: 10.0.0.21, udp_port: 6001, ttl: 64 }\n"
			   "  - { ip: 10.0.0.22, udp_port: 6002 }\n"
			   "forward:\n"
			   "  udp_checksum: compute\n"
			   "  burst: 32\n"
			   "stats:\n"
			   "  interval_s: 1\n"
			   "arp:\n"
			   "  retry_ms: 200\n"
			   "control:\n"
			   "  icmp_rate: 100\n";

static struct uf_config *
parse_str(const char *text)
{
	struct uf_err err;
	struct uf_config *c = uf_config_parse(text, strlen(text), "r.yaml", &err);

	if (c == NULL) {
		fprintf(stderr, "parse: %s\n", err.msg);
		abort();
	}
	return c;
}

/* base with FROM replaced by TO (FROM must be there) */
static struct uf_config *
variant(const char *from, const char *to)
{
	char buf[4096];
	const char *p = strstr(base, from);
	struct uf_config *c;

	if (p == NULL)
		abort();
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - base), base, to, p + strlen(from));
	c = parse_str(buf);
	return c;
}

static struct uf_cfg_diff d;

static int
diff_with(const char *from, const char *to)
{
	struct uf_config *a = parse_str(base), *b = variant(from, to);
	int n = uf_config_diff(a, b, &d);

	uf_config_free(a);
	uf_config_free(b);
	return n;
}

static void
test_same(void)
{
	CHECK_EQ(diff_with("udp_port: 5000", "udp_port: 5000"), 0);
	CHECK_EQ(d.n_hot, 0);
	CHECK_EQ(d.n_restart, 0);
	CHECK_EQ(d.dest_old[0], 0);
	CHECK_EQ(d.dest_old[2], 2);
	/* the same values written otherwise are no change */
	CHECK_EQ(diff_with("  - { ip: 10.0.0.21, udp_port: 6001, ttl: 64 }\n",
			   "  - ip: 10.0.0.21\n    udp_port: 6001\n"),
		 0);
}

static void
test_destinations(void)
{
	/* added at the end: hot; the others keep their place */
	CHECK_EQ(diff_with("forward:", "  - { ip: 10.0.0.23, udp_port: 6003 }\nforward:"), 1);
	CHECK_EQ(d.n_restart, 0);
	CHECK_EQ(d.n_added, 1);
	CHECK_EQ(d.dest_old[3], -1);
	CHECK_EQ(d.dest_old[1], 1);
	CHECK_HAS(d.hot, "destinations[3] (10.0.0.23:6003) added");

	/* removed from the middle: the one after it moves up and is still itself */
	CHECK_EQ(diff_with("  - { ip: 10.0.0.21, udp_port: 6001, ttl: 64 }\n", ""), 1);
	CHECK_EQ(d.n_removed, 1);
	CHECK_EQ(d.dest_old[0], 0);
	CHECK_EQ(d.dest_old[1], 2);
	CHECK_HAS(d.hot, "(10.0.0.21:6001) removed");

	/* a new udp_port is another destination: one removed, one added */
	CHECK_EQ(diff_with("ip: 10.0.0.22, udp_port: 6002", "ip: 10.0.0.22, udp_port: 7002"), 2);
	CHECK_EQ(d.n_added, 1);
	CHECK_EQ(d.n_removed, 1);
	CHECK_EQ(d.n_changed, 0);
	CHECK_EQ(d.dest_old[2], -1);

	/* everything else about a destination: changed in place, hot */
	CHECK_EQ(diff_with("ttl: 64", "ttl: 9, sample: 4, source: original, port: lan, "
				      "mac: \"02:00:00:00:00:07\""),
		 5);
	CHECK_EQ(d.n_restart, 0);
	CHECK_EQ(d.n_changed, 1);
	CHECK_EQ(d.dest_old[1], 1);
	CHECK_HAS(d.hot, "destinations[1].ttl");
	CHECK_HAS(d.hot, "destinations[1].sample");
	CHECK_HAS(d.hot, "destinations[1].source");
	CHECK_HAS(d.hot, "destinations[1].port");
	CHECK_HAS(d.hot, "destinations[1].mac");
	CHECK_EQ(diff_with("ttl: 64", "ttl: 64, source: 192.0.2.1"), 1);
	CHECK_HAS(d.hot, "destinations[1].source");

	/* reordered: each destination is still itself, at another index; the order of the
	 * copies changed, a move (hot) */
	CHECK_EQ(diff_with("  - { ip: 10.0.0.20, udp_port: 6000 }\n"
			   "  - { ip: 10.0.0.21, udp_port: 6001, ttl: 64 }\n",
			   "  - { ip: 10.0.0.21, udp_port: 6001, ttl: 64 }\n"
			   "  - { ip: 10.0.0.20, udp_port: 6000 }\n"),
		 1);
	CHECK_STR(d.hot, "destinations[1] (10.0.0.20:6000) moved from destinations[0]");
	CHECK_EQ(d.n_restart, 0);
	CHECK_EQ(d.dest_old[0], 1);
	CHECK_EQ(d.dest_old[1], 0);
}

static void
test_hot_keys(void)
{
	CHECK_EQ(diff_with("udp_checksum: compute", "udp_checksum: zero"), 1);
	CHECK_STR(d.hot, "forward.udp_checksum");
	CHECK_EQ(diff_with("udp_checksum: compute", "udp_checksum: compute\n  source_port: keep"),
		 0);
	CHECK_EQ(diff_with("udp_checksum: compute", "udp_checksum: compute\n  source_port: 999"),
		 1);
	CHECK_STR(d.hot, "forward.source_port");
	CHECK_EQ(diff_with("udp_checksum: compute", "udp_checksum: compute\n  fanout: copy"), 1);
	CHECK_EQ(diff_with("interval_s: 1", "interval_s: 0.5"), 1);
	CHECK_STR(d.hot, "stats.interval_s");
	CHECK_EQ(diff_with("retry_ms: 200", "retry_ms: 300\n  reachable_s: 5"), 2);
	CHECK_EQ(d.n_restart, 0);
	CHECK_EQ(diff_with("icmp_rate: 100", "icmp_rate: 0"), 1);
	CHECK_STR(d.hot, "control.icmp_rate");
	CHECK_EQ(diff_with("icmp_rate: 100", "icmp_rate: 100\n  drain_s: 30"), 1);
	CHECK_STR(d.hot, "control.drain_s");
	CHECK_EQ(diff_with("forward:", "rules:\n  - { from: 192.0.2.0/24, to: [0, 2] }\nforward:"),
		 1);
	CHECK_EQ(d.n_restart, 0);
	CHECK_HAS(d.hot, "rules");
}

static void
test_restart_keys(void)
{
	CHECK_EQ(diff_with("burst: 32", "burst: 64"), 1);
	CHECK_STR(d.restart, "forward.burst");
	CHECK_EQ(d.n_hot, 0);
	CHECK_EQ(diff_with("ip: 10.0.0.10/24", "ip: 10.0.0.10/24\n    mtu: 9000"), 1);
	CHECK_STR(d.restart, "ports[0].mtu");
	/* 802.1Q: a port's VLAN and priority bits are the device's set-up (restart) */
	CHECK_EQ(diff_with("ip: 10.0.0.10/24", "ip: 10.0.0.10/24\n    vlan: 5"), 1);
	CHECK_STR(d.restart, "ports[0].vlan");
	CHECK_EQ(diff_with("ip: 10.0.0.10/24", "ip: 10.0.0.10/24\n    vlan: 5\n    vlan_pcp: 3"),
		 2);
	CHECK_STR(d.restart, "ports[0].vlan, ports[0].vlan_pcp");
	CHECK_EQ(diff_with("ip: 10.0.0.10/24", "ip: 10.0.0.11/24"), 1);
	CHECK_STR(d.restart, "ports[0].ip");
	CHECK_EQ(diff_with("ip: 10.0.0.10/24", "ip: 10.0.0.10/24\n    rx_desc: 512"), 1);
	CHECK_STR(d.restart, "ports[0].rx_desc");
	CHECK_EQ(diff_with("iface=eth2", "iface=eth3"), 1);
	CHECK_STR(d.restart, "ports[1].device");
	CHECK_EQ(diff_with("listen:", "  - { name: mgmt, device: \"net_tap0\", ip: 10.9.0.1/24 }\n"
				      "listen:"),
		 1);
	CHECK_STR(d.restart, "ports[2] added");
	CHECK_EQ(diff_with("lcores: \"0-1\"", "lcores: \"0-2\""), 1);
	CHECK_STR(d.restart, "eal.lcores");
	CHECK_EQ(diff_with("[\"--no-telemetry\"]", "[]"), 1);
	CHECK_STR(d.restart, "eal.extra_args");
	CHECK_EQ(diff_with("udp_port: 5000", "udp_port: 5001"), 1);
	CHECK_STR(d.restart, "listen.udp_port");
	CHECK_EQ(diff_with("port: wan\n  udp", "port: lan\n  udp") > 0, 1);
	/* (the destinations follow the listen port: hot, but refused with it) */
	CHECK_EQ(d.n_restart, 1);
	CHECK_STR(d.restart, "listen.port");
	CHECK_EQ(diff_with("interval_s: 1", "interval_s: 1\n  json: /tmp/x.jsonl"), 1);
	CHECK_STR(d.restart, "stats.json");
}

static void
test_mixed(void)
{
	struct uf_config *a = parse_str(base), *b;

	/* hot and restart together (refused whole): three edits: a hot one and two that need a restart */
	b = variant("burst: 32", "burst: 16\n  drain_us: 50\n  fanout: copy");
	CHECK_EQ(uf_config_diff(a, b, &d), 3);
	CHECK_EQ(d.n_restart, 2);
	CHECK_STR(d.restart, "forward.burst, forward.drain_us");
	CHECK_STR(d.hot, "forward.fanout");
	uf_config_free(b);
	uf_config_free(a);
}

/* the table: every row can be compared, every list has a matcher, and the classification
 * is what docs/configuration.md#reload says */
static void
test_schema(void)
{
	static const char *const hot[] = {
		"destinations",
		"rules",
		"forward",
		"stats",
		"arp",
		"control",
		"ports[].service",
		"destinations[].ip",
		"destinations[].udp_port",
		"destinations[].mac",
		"destinations[].port",
		"destinations[].source",
		"destinations[].sample",
		"destinations[].ttl",
		"destinations[].pool",
		"destinations[].pool.balance",
		"destinations[].pool.sender_port",
		"destinations[].pool.members",
		"rules[].from",
		"rules[].to",
		"forward.udp_checksum",
		"forward.source_port",
		"forward.fanout",
		"forward.chain_min_payload",
		"stats.interval_s",
		"arp.reachable_s",
		"arp.retry_ms",
		"arp.max_probes",
		"arp.gratuitous",
		"control.icmp_rate",
		"control.neigh_rate",
		"control.drain_s",
	};
	unsigned int i, j;
	char name[96];

	for (i = 0; i < uf_cfg_schema_n; i++) {
		const struct uf_cfg_key *k = &uf_cfg_schema[i];
		bool want = false;
		size_t n = strlen(k->section);

		snprintf(name, sizeof(name), "%s%s%s", k->section, n ? "." : "", k->name);
		if (n > 2 && strcmp(k->section + n - 2, "[]") == 0)
			snprintf(name, sizeof(name), "%s.%s", k->section, k->name);
		for (j = 0; j < RTE_DIM(hot); j++)
			want |= strcmp(hot[j], name) == 0;
		CHECK(k->hot == want, "%s: hot is %d, docs/configuration.md#reload says %d", name,
		      k->hot, want);
		if (k->type != UF_CFG_MAP && k->section[0] != '\0')
			CHECK(k->same != NULL || k->size != 0,
			      "%s: uf_config_diff cannot compare it (give it .same)", name);
		if (n > 2 && strcmp(k->section + n - 2, "[]") == 0) {
			snprintf(name, sizeof(name), "%.*s", (int)(n - 2), k->section);
			CHECK(uf_cfg_diff_knows_list(name),
			      "%s: a list uf_cfg_diff.c's lists[] does not know", name);
		}
	}
}

/* Rules name destinations by index: reordering the destinations under unchanged rules
 * points the rules at others, a change (found 2026-12-02: the diff compared the numbers and
 * called it no change, so a reload kept the old plan). A destination added in the middle
 * shifts the indexes the same way. The swap is also a move of its own (the order of the
 * copies). */
static void
test_rules_follow_reorder(void)
{
	static const char a[] = "ports:\n  - { name: p, device: net_ring0, ip: 10.0.0.10/24 }\n"
				"listen: { port: p, udp_port: 1 }\n"
				"destinations:\n"
				"  - { ip: 10.0.0.20, udp_port: 1 }\n"
				"  - { ip: 10.0.0.21, udp_port: 1 }\n"
				"rules:\n"
				"  - { from: 10.1.0.0/16, to: [0] }\n"
				"  - { from: 0.0.0.0/0, to: [1] }\n";
	char b[1024];
	struct uf_config *x = parse_str(a), *y;
	const char *p = strstr(a, "  - { ip: 10.0.0.20");

	/* the two destinations swapped, the rules as they were */
	snprintf(b, sizeof(b),
		 "%.*s  - { ip: 10.0.0.21, udp_port: 1 }\n"
		 "  - { ip: 10.0.0.20, udp_port: 1 }\n%s",
		 (int)(p - a), a, strstr(a, "rules:"));
	y = parse_str(b);
	CHECK_EQ(uf_config_diff(x, y, &d), 3); /* and the move itself */
	CHECK_EQ(d.n_restart, 0);
	CHECK_HAS(d.hot, "destinations[1] (10.0.0.20:1) moved from destinations[0]");
	CHECK_HAS(d.hot, "rules[0].to (its destinations moved)");
	CHECK_HAS(d.hot, "rules[1].to (its destinations moved)");
	uf_config_free(y);
	/* the rules swapped with them: the same policy, a new order of the destinations */
	snprintf(b, sizeof(b),
		 "%.*s  - { ip: 10.0.0.21, udp_port: 1 }\n"
		 "  - { ip: 10.0.0.20, udp_port: 1 }\nrules:\n"
		 "  - { from: 10.1.0.0/16, to: [1] }\n  - { from: 0.0.0.0/0, to: [0] }\n",
		 (int)(p - a), a);
	y = parse_str(b);
	CHECK_EQ(uf_config_diff(x, y, &d), 3); /* the numbers changed: rows, and the move */
	CHECK_EQ(d.n_restart, 0);
	uf_config_free(y);
	/* one added before them: the old ones moved up by one */
	snprintf(b, sizeof(b), "%.*s  - { ip: 10.0.0.19, udp_port: 1 }\n%s", (int)(p - a), a, p);
	y = parse_str(b);
	/* (rule 0 now names the new one: its "added" is the change; rule 1 names 10.0.0.20) */
	CHECK_EQ(uf_config_diff(x, y, &d), 2);
	CHECK_HAS(d.hot, "(10.0.0.19:1) added");
	CHECK_HAS(d.hot, "rules[1].to (its destinations moved)");
	uf_config_free(y);
	uf_config_free(x);
}

int
main(void)
{
	test_same();
	test_rules_follow_reorder();
	test_destinations();
	test_hot_keys();
	test_restart_keys();
	test_mixed();
	test_schema();
	return uf_t_summary();
}
