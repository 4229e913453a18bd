/* SPDX-License-Identifier: BSD-3-Clause
 * lib/config and IPv6 (docs/configuration.md#ipv6): `ip:` literals of either family for
 * destinations, listeners and rules' `from:`, ports[].ip6 and gateway6, the family checks
 * (each error at its FILE:LINE:COL), the reload identity of the new keys, and that files
 * using IPv6 load whole (start-up and reload).
 *
 * Expected addresses come from inet_pton of the test's own literals; expected positions from
 * where the offending token is in the test's own text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "uf_config.h"
#include "uf_test.h"
#include "uf_test_cfg.h"

static bool
ip6_is(const struct uf_ip6 *a, const char *s)
{
	struct uf_ip6 b = ip6_of(s);

	return memcmp(a->b, b.b, 16) == 0;
}

/* a dual-stack port, a v4-only port, a v6-only port */
#define PORTS                                                     \
	"ports:\n"                                                \
	"  - name: wan\n"                                         \
	"    device: net_ring0\n"                                 \
	"    ip: 10.0.0.10/24\n"                                  \
	"    ip6: [\"2001:db8::10/64\", \"fe80::10/64\"]\n"       \
	"    gateway6: fe80::1\n"                                 \
	"  - { name: v4, device: net_ring1, ip: 10.1.0.10/24 }\n" \
	"  - { name: v6, device: net_ring2, ip6: [\"2001:db8:6::10/64\"] }\n"

/* ---- what parses ---- */

static void
test_mixed_families(void)
{
	static const char text[] = PORTS
			"listeners:\n"
			"  - name: in4\n"
			"    port: wan\n"
			"    udp_port: 2055\n"
			"    destinations:\n"
			"      - { ip: 10.0.0.20, udp_port: 9000 }\n"
			"      - { ip: \"2001:db8::20\", udp_port: 9001, ttl: 9 }\n"
			"      - { ip: \"2001:db8:99::1\", udp_port: 9002, source: \"2001:db8::11\" }\n"
			"      - { ip: \"fe80::77\", udp_port: 9003 }\n"
			"      - { ip: \"ff02::fb\", udp_port: 9004 }\n"
			"      - { ip: \"2001:db8:6::30\", udp_port: 9005, port: v6 }\n"
			"  - name: in6\n"
			"    port: wan\n"
			"    ip: \"2001:db8::10\"\n"
			"    udp_port: 2055\n"
			"    destinations:\n"
			"      - { ip: \"2001:db8::21\", udp_port: 9000, source: original }\n"
			"      - { ip: 10.0.0.21, udp_port: 9000, source: 10.0.0.10 }\n"
			"    rules:\n"
			"      - { from: \"2001:db8:1::/48\", to: [0] }\n"
			"      - { from: \"::/0\", to: [1] }\n";
	struct uf_config *c = PARSE_OK(text);
	const struct uf_cfg_port *p;

	if (c == NULL)
		return;
	p = &c->ports[0];
	CHECK_EQ(p->n_ip6, 2);
	CHECK(ip6_is(&p->ip6[0], "2001:db8::10"), "ip6[0]");
	CHECK(ip6_is(&p->ip6[1], "fe80::10"), "ip6[1]");
	CHECK_EQ(p->ip6_prefix_len[0], 64);
	CHECK(p->has_gateway6 && ip6_is(&p->gateway6, "fe80::1"), "gateway6");
	CHECK_EQ(p->ip, ip_of("10.0.0.10"));
	CHECK_EQ(c->ports[1].n_ip6, 0);
	CHECK_EQ(c->ports[2].ip, 0);
	CHECK_EQ(c->ports[2].n_ip6, 1);

	CHECK(!c->listeners[0].is_ip6, "in4 is IPv4 (the port's ip)");
	CHECK_EQ(c->listeners[0].ip, ip_of("10.0.0.10"));
	CHECK(c->listeners[1].is_ip6 && ip6_is(&c->listeners[1].ip6, "2001:db8::10"), "in6");

	CHECK(!c->dests[0].is_ip6, "10.0.0.20 is IPv4");
	CHECK(c->dests[1].is_ip6 && ip6_is(&c->dests[1].ip6, "2001:db8::20"), "dest 1");
	CHECK_EQ(c->dests[1].ip, 0);
	CHECK_EQ(c->dests[1].ttl, 9);
	CHECK_EQ(c->dests[2].source, UF_SRC_FIXED);
	CHECK(c->dests[2].source_is_ip6 && ip6_is(&c->dests[2].source_ip6, "2001:db8::11"),
	      "a fixed IPv6 source");
	CHECK_EQ(c->dests[5].port, 2);
	CHECK_EQ(c->dests[6].source, UF_SRC_ORIGINAL);
	CHECK(c->dests[6].is_ip6 && c->dests[6].listener == 1, "dest 6 of in6");
	CHECK(!c->dests[7].source_is_ip6 && c->dests[7].source_ip == ip_of("10.0.0.10"),
	      "a fixed IPv4 source");
	CHECK(c->rules[0].is_ip6 && ip6_is(&c->rules[0].prefix6, "2001:db8:1::") &&
			      c->rules[0].len == 48,
	      "rule 0");
	CHECK(c->rules[1].is_ip6 && c->rules[1].len == 0, "::/0");
	CHECK_EQ(c->rules[1].to[0], 7); /* in6's destination 1, made global */
	uf_config_free(c);
}

/* the listen: form on an IPv6-only port listens on its first ip6 */
static void
test_v6_only_port(void)
{
	static const char text[] =
			"ports:\n"
			"  - name: p\n"
			"    device: net_ring0\n"
			"    ip6: [\"2001:db8::10/64\", \"2001:db8:1::10/64\"]\n"
			"listen: { port: p, udp_port: 2055 }\n"
			"destinations:\n"
			"  - { ip: \"2001:db8:1::20\", udp_port: 9000, source: original }\n";
	struct uf_config *c = PARSE_OK(text);

	if (c == NULL)
		return;
	CHECK(c->listeners[0].is_ip6 && ip6_is(&c->listeners[0].ip6, "2001:db8::10"),
	      "the first ip6");
	CHECK_EQ(c->ports[0].ip, 0);
	uf_config_free(c);
}

/* ---- errors, each at its position ---- */

#define LIS_HEAD(port) \
	"listeners:\n  - name: l\n    port: " port "\n    udp_port: 2055\n    destinations:\n"

static void
test_port_errors(void)
{
	char t[2048];

	EXPECT_ERR("ports:\n  - { name: p, device: net_ring0, ip6: [\"2001:db8::zz/64\"] }\n",
		   "\"2001:db8::zz/64\"", "ports[0].ip6[0]",
		   "is not an IPv6 address with a prefix length");
	EXPECT_ERR("ports:\n  - { name: p, device: net_ring0, ip6: [\"2001:db8::1\"] }\n",
		   "\"2001:db8::1\"", "ports[0].ip6[0]", "with a prefix length");
	EXPECT_ERR("ports:\n  - { name: p, device: net_ring0, ip6: [\"2001:db8::1/128\"] }\n",
		   "\"2001:db8::1/128\"", "ports[0].ip6[0]", "/128 leaves no neighbours");
	EXPECT_ERR("ports:\n  - { name: p, device: net_ring0, ip6: [\"2001:db8::1/129\"] }\n",
		   "\"2001:db8::1/129\"", "ports[0].ip6[0]", "with a prefix length");
	EXPECT_ERR("ports:\n  - { name: p, device: net_ring0, ip6: [\"ff02::1/64\"] }\n",
		   "\"ff02::1/64\"", "ports[0].ip6[0]", "ff02::1 cannot be a port's address");
	EXPECT_ERR("ports:\n  - { name: p, device: net_ring0, ip6: [\"::ffff:10.0.0.1/120\"] }\n",
		   "\"::ffff", "ports[0].ip6[0]", "cannot be a port's address");
	EXPECT_ERR("ports:\n  - { name: p, device: net_ring0, ip6: [\"::1/64\"] }\n", "\"::1/64\"",
		   "ports[0].ip6[0]", "cannot be a port's address");
	EXPECT_ERR("ports:\n  - { name: p, device: net_ring0,\n      ip6: [\"2001:db8::1/64\", "
		   "\"2001:db8::1/48\"] }\n",
		   "\"2001:db8::1/48\"", "ports[0].ip6[1]", "2001:db8::1 is also ports[0].ip6[0]");
	EXPECT_ERR("ports:\n  - { name: p, device: net_ring0, ip6: [\"a::1/64\", \"a::2/64\", "
		   "\"a::3/64\", \"a::4/64\", \"a::5/64\"] }\n",
		   "[", "ports[0].ip6", "5 entries; at most 4");
	EXPECT_ERR("ports:\n  - { name: p, device: net_ring0, ip6: [] }\n", "[]", "ports[0].ip6",
		   "expected 1..4 IPv6 addresses");
	EXPECT_ERR("ports:\n  - { name: p, device: net_ring0 }\n", "{ name", "ports[0]",
		   "needs an ip (10.0.0.10/24) or ip6");

	/* one address on two ports */
	snprintf(t, sizeof(t), "%s",
		 "ports:\n  - { name: a, device: net_ring0, ip6: [\"2001:db8::1/64\"] }\n"
		 "  - { name: b, device: net_ring1, ip6: [\"2001:db8::2/64\", "
		 "\"2001:db8::1/64\"] }\n"
		 "listen: { port: a, udp_port: 1 }\n"
		 "destinations:\n  - { ip: \"2001:db8::3\", udp_port: 1 }\n");
	EXPECT_ERR_NTH(t, "\"2001:db8::1/64\"", 2, 0, "ports[1].ip6[1]",
		       "2001:db8::1 is also ports[0]'s");

	/* gateway6: link-local or on a prefix; not the port's own; a port with ip6 */
	snprintf(t, sizeof(t),
		 "ports:\n  - name: p\n    device: net_ring0\n    ip: 10.0.0.1/24\n"
		 "    ip6: [\"2001:db8::10/64\"]\n    gateway6: \"2001:db9::1\"\n"
		 "listen: { port: p, udp_port: 1 }\ndestinations:\n  - { ip: 10.0.0.2, udp_port: "
		 "1 }\n");
	EXPECT_ERR(t, "\"2001:db9::1\"", "ports[0].gateway6",
		   "2001:db9::1 is neither link-local nor on one of the port's ip6 prefixes");
	snprintf(t, sizeof(t),
		 "ports:\n  - name: p\n    device: net_ring0\n    ip: 10.0.0.1/24\n"
		 "    gateway6: fe80::1\n"
		 "listen: { port: p, udp_port: 1 }\ndestinations:\n  - { ip: 10.0.0.2, udp_port: "
		 "1 }\n");
	EXPECT_ERR(t, "fe80::1", "ports[0].gateway6", "(the port has no ip6)");
	snprintf(t, sizeof(t),
		 "ports:\n  - name: p\n    device: net_ring0\n    ip: 10.0.0.1/24\n"
		 "    ip6: [\"2001:db8::10/64\"]\n    gateway6: \"2001:db8::10\"\n"
		 "listen: { port: p, udp_port: 1 }\ndestinations:\n  - { ip: 10.0.0.2, udp_port: "
		 "1 }\n");
	EXPECT_ERR(t, "\"2001:db8::10\"\n", "ports[0].gateway6", "is the port's own address");
	EXPECT_ERR("ports:\n  - { name: p, device: net_ring0, ip: 10.0.0.1/24, gateway6: "
		   "\"10.0.0.1\" }\n",
		   "\"10.0.0.1\"", "ports[0].gateway6", "is not an IPv6 address");
	EXPECT_ERR("ports:\n  - { name: p, device: net_ring0, ip: 10.0.0.1/24, gateway6: "
		   "\"ff02::2\" }\n",
		   "\"ff02::2\"", "ports[0].gateway6", "cannot be a next hop");
	/* an IPv4 gateway on an IPv6-only port */
	snprintf(t, sizeof(t),
		 "ports:\n  - name: p\n    device: net_ring0\n    ip6: [\"2001:db8::10/64\"]\n"
		 "    gateway: 10.0.0.1\n"
		 "listen: { port: p, udp_port: 1 }\ndestinations:\n  - { ip: \"2001:db8::2\", "
		 "udp_port: 1 }\n");
	EXPECT_ERR(t, "10.0.0.1", "ports[0].gateway", "the port has no IPv4 address");
}

static void
test_dest_errors(void)
{
	char t[2048];

	/* the brief's two: a v6 destination on a port with no ip6; original across families */
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("wan") "      - { ip: 10.0.0.20, udp_port: 9000 }\n"
				       "      - { ip: \"2001:db8:1::5\", udp_port: 9000, port: v4 }\n");
	EXPECT_ERR(t, "{ ip: \"2001:db8:1::5\"", "listeners[0].destinations[1]",
		   "2001:db8:1::5 is IPv6 and port v4 has no ip6 (add ports[].ip6)");
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("wan") "      - { ip: \"2001:db8::20\", udp_port: 9000, source: "
				       "original }\n");
	EXPECT_ERR(t, "{ ip: \"2001:db8::20\"", "listeners[0].destinations[0]",
		   "source: original keeps the sender's IPv4 address, which an IPv6 destination "
		   "cannot carry (listener l is IPv4)");
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("v6") "      - { ip: 10.0.0.20, udp_port: 9000, port: wan, source: "
				      "original }\n");
	EXPECT_ERR(t, "{ ip: 10.0.0.20", "listeners[0].destinations[0]",
		   "keeps the sender's IPv6 address, which an IPv4 destination cannot carry");
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("wan") "      - { ip: \"2001:db8::20\", udp_port: 9000, source: "
				       "10.0.0.10 }\n");
	EXPECT_ERR(t, "{ ip:", "listeners[0].destinations[0]",
		   "source is an IPv4 address and the destination IPv6");
	/* an IPv4 destination on an IPv6-only port */
	snprintf(t, sizeof(t), PORTS LIS_HEAD("v6") "      - { ip: 10.0.0.20, udp_port: 9000 }\n");
	EXPECT_ERR(t, "{ ip: 10.0.0.20", "listeners[0].destinations[0]",
		   "10.0.0.20 is IPv4 and port v6 has no IPv4 address");
	/* reachability: off the prefixes without gateway6 (port v6), with it fine (wan) */
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("v6") "      - { ip: \"2001:db8:7::1\", udp_port: 9000 }\n");
	EXPECT_ERR(t, "{ ip:", "listeners[0].destinations[0]",
		   "2001:db8:7::1 is not on port v6's ip6 prefixes and the port has no gateway6");
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("v6") "      - { ip: \"2001:db8:7::1\", udp_port: 9000, mac: "
				      "\"02:00:00:00:00:07\" }\n");
	uf_config_free(PARSE_OK(t));
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("v6") "      - { ip: \"ff0e::1\", udp_port: 9000, mac: "
				      "\"02:00:00:00:00:07\" }\n");
	EXPECT_ERR(t, "{ ip:", "listeners[0].destinations[0]", "ff0e::1 is multicast");
	snprintf(t, sizeof(t), PORTS LIS_HEAD("v6") "      - { ip: \"::1\", udp_port: 9000 }\n");
	EXPECT_ERR(t, "{ ip:", "listeners[0].destinations[0]", "::1 cannot be a destination");
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("v6") "      - { ip: \"::ffff:10.0.0.1\", udp_port: 9000 }\n");
	EXPECT_ERR(t, "{ ip:", "listeners[0].destinations[0]", "cannot be a destination");
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("v6") "      - { ip: \"2001:db8:6::10\", udp_port: 9000 }\n");
	EXPECT_ERR(t, "{ ip:", "listeners[0].destinations[0]",
		   "2001:db8:6::10 is port v6's own address");
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("v6") "      - { ip: \"2001:db8:6::1\", udp_port: 9000 }\n"
				      "      - { ip: \"2001:db8:6:0::1\", udp_port: 9000 }\n");
	EXPECT_ERR(t, "{ ip: \"2001:db8:6:0", "listeners[0].destinations[1]",
		   "[2001:db8:6::1]:9000 is also listeners[0].destinations[0]");
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("v6") "      - { ip: \"2001:db8::g\", udp_port: 9000 }\n");
	EXPECT_ERR(t, "\"2001:db8::g\"", "listeners[0].destinations[0].ip",
		   "\"2001:db8::g\" is not an IPv6 address");
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("v6") "      - { ip: \"2001:db8:6::1\", udp_port: 9, source: "
				      "\"2001:db8::zz\" }\n");
	EXPECT_ERR(t, "\"2001:db8::zz\"", "listeners[0].destinations[0].source",
		   "expected ours, original or an IPv4 or IPv6 address");
	/* a pool member is a destination like any other */
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("wan") "      - pool:\n          members:\n"
				       "            - { ip: \"2001:db8::31\", udp_port: 1, port: v4 }\n");
	EXPECT_ERR(t, "{ ip: \"2001:db8::31\"", "listeners[0].destinations[0].pool.members[0]",
		   "is IPv6 and port v4 has no ip6");
}

static void
test_listener_and_rule_errors(void)
{
	char t[2048];

	snprintf(t, sizeof(t),
		 PORTS
		 "listeners:\n  - name: l\n    port: wan\n    ip: \"2001:db8:5::1\"\n"
		 "    udp_port: 1\n    destinations:\n      - { ip: 10.0.0.2, udp_port: 1 }\n");
	EXPECT_ERR(t, "\"2001:db8:5::1\"", "listeners[0].ip",
		   "2001:db8:5::1 is not a unicast address on one of port wan's ip6 prefixes");
	snprintf(t, sizeof(t),
		 PORTS
		 "listeners:\n  - name: l\n    port: v4\n    ip: \"2001:db8::1\"\n"
		 "    udp_port: 1\n    destinations:\n      - { ip: 10.1.0.2, udp_port: 1 }\n");
	EXPECT_ERR(t, "\"2001:db8::1\"", "listeners[0].ip", "(the port has no ip6)");
	/* on the port's prefix but not one of its ip6: the worker takes IPv6 only to the
	 * port's own addresses (uf_classify6), so such a listener would never receive */
	snprintf(t, sizeof(t),
		 PORTS
		 "listeners:\n  - name: l\n    port: v6\n    ip: \"2001:db8:6::20\"\n"
		 "    udp_port: 1\n    destinations:\n      - { ip: \"2001:db8:6::2\", udp_port: 1 }\n");
	EXPECT_ERR(t, "\"2001:db8:6::20\"", "listeners[0].ip",
		   "2001:db8:6::20 is not one of port v6's ip6 addresses (add it to ports[].ip6)");
	snprintf(t, sizeof(t),
		 PORTS "listeners:\n  - name: l\n    port: v6\n    ip: 10.0.0.5\n"
		       "    udp_port: 1\n    destinations:\n      - { ip: \"2001:db8:6::2\", "
		       "udp_port: 1 }\n");
	EXPECT_ERR(t, "10.0.0.5", "listeners[0].ip",
		   "10.0.0.5 is IPv4 and port v6 has no IPv4 address");
	snprintf(t, sizeof(t),
		 PORTS
		 "listeners:\n  - name: l\n    port: wan\n    ip: \"2001:db8:6::10\"\n"
		 "    udp_port: 1\n    destinations:\n      - { ip: 10.0.0.2, udp_port: 1 }\n");
	EXPECT_ERR(t, "\"2001:db8:6::10\"", "listeners[0].ip", "not a unicast address");
	/* two listeners on one IPv6 address and UDP port */
	snprintf(t, sizeof(t),
		 PORTS
		 "listeners:\n"
		 "  - { name: a, port: v6, udp_port: 1, destinations: [{ ip: \"2001:db8:6::2\", "
		 "udp_port: 1 }] }\n"
		 "  - { name: b, port: v6, ip: \"2001:db8:6::10\", udp_port: 1, destinations: "
		 "[{ ip: \"2001:db8:6::3\", udp_port: 1 }] }\n");
	EXPECT_ERR(t, "{ name: b", "listeners[1]",
		   "port v6, 2001:db8:6::10:1 is also listeners[0]'s (a)");

	/* rules: of the listener's family, host bits, shadowing */
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("wan") "      - { ip: 10.0.0.20, udp_port: 9000 }\n"
				       "    rules:\n      - { from: \"2001:db8::/32\", to: [0] }\n");
	EXPECT_ERR(t, "{ from:", "listeners[0].rules[0]",
		   "an IPv6 prefix can never match: listener l receives IPv4");
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("v6") "      - { ip: \"2001:db8:6::2\", udp_port: 9000 }\n"
				      "    rules:\n      - { from: 10.0.0.0/8, to: [0] }\n");
	EXPECT_ERR(t, "{ from:", "listeners[0].rules[0]",
		   "an IPv4 prefix can never match: listener l receives IPv6");
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("v6") "      - { ip: \"2001:db8:6::2\", udp_port: 9000 }\n"
				      "    rules:\n      - { from: \"2001:db8:1:4000::/49\", to: "
				      "[0] }\n");
	EXPECT_ERR(t, "\"2001:db8:1:4000::/49\"", "listeners[0].rules[0].from",
		   "has host bits set; did you mean 2001:db8:1::/49?");
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("v6") "      - { ip: \"2001:db8:6::2\", udp_port: 9000 }\n"
				      "    rules:\n      - { from: \"2001:db8::/32\", to: [0] }\n"
				      "      - { from: \"2001:db8:ff00::/40\", to: [0] }\n");
	EXPECT_ERR(t, "{ from: \"2001:db8:ff00", "listeners[0].rules[1]",
		   "2001:db8:ff00::/40 can never match: rules[0] (2001:db8::/32) comes first");
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("v6") "      - { ip: \"2001:db8:6::2\", udp_port: 9000 }\n"
				      "    rules:\n      - { from: \"2001:db8::/33\", to: [0] }\n"
				      "      - { from: \"2001:db8:8000::/33\", to: [0] }\n");
	uf_config_free(PARSE_OK(t)); /* the two halves of a /32 */
	snprintf(t, sizeof(t),
		 PORTS LIS_HEAD("v6") "      - { ip: \"2001:db8:6::2\", udp_port: 9000 }\n"
				      "    rules:\n      - { from: \"2001:db8::/129\", to: [0] }\n");
	EXPECT_ERR(t, "\"2001:db8::/129\"", "listeners[0].rules[0].from", "is not an IPv6 prefix");
}

/* ---- IPv6 configs start: uf_config_load (start-up and reload) takes them whole ---- */

static void
expect_loads(const char *file, int fline, const char *text)
{
	char dir[256], path[512];
	struct uf_config *c;
	struct uf_err err;

	uf_t_mkdtemp(dir, sizeof(dir));
	uf_t_write(dir, "v6.yaml", text);
	snprintf(path, sizeof(path), "%s/v6.yaml", dir);
	memset(&err, 0, sizeof(err));
	c = uf_config_load(path, &err);
	uf_t_check(c != NULL, file, fline, "loads: %s", err.msg);
	uf_config_free(c);
	uf_t_rmtree(dir);
}
#define EXPECT_LOADS(text) expect_loads(__FILE__, __LINE__, (text))

#define V4_PORT "ports:\n  - { name: p, device: net_ring0, ip: 10.0.0.10/24 }\n"
#define V4_DEST "      - { ip: 10.0.0.20, udp_port: 9000 }\n"

static void
test_ipv6_loads(void)
{
	static const char v4[] = V4_PORT "listen: { port: p, udp_port: 2055 }\n"
					 "destinations:\n  - { ip: 10.0.0.20, udp_port: 9000 }\n"
					 "rules:\n  - { from: 0.0.0.0/0, to: [0] }\n";
	char t[2048], dir[256], path[512];
	struct uf_config *c;
	struct uf_err err;

	/* each kind of use */
	snprintf(t, sizeof(t), PORTS LIS_HEAD("wan") V4_DEST);
	EXPECT_LOADS(t);
	snprintf(t, sizeof(t),
		 V4_PORT "listen: { port: p, udp_port: 2055 }\n"
			 "destinations:\n  - { ip: 10.0.0.20, udp_port: 9000 }\n"
			 "  - { ip: \"2001:db8::20\", udp_port: 9000, mac: \"02:00:00:00:00:01\" "
			 "}\n");
	/* (a v6 destination needs a port with ip6: validation says so first) */
	c = parse(t, &err);
	CHECK(c == NULL && strstr(err.msg, "has no ip6") != NULL, "%s", err.msg);
	uf_config_free(c);
	snprintf(t, sizeof(t),
		 "ports:\n  - { name: p, device: net_ring0, ip: 10.0.0.10/24, ip6: "
		 "[\"2001:db8::10/64\"] }\n"
		 "listen: { port: p, udp_port: 2055 }\n"
		 "destinations:\n  - { ip: 10.0.0.20, udp_port: 9000 }\n"
		 "  - { ip: \"2001:db8::20\", udp_port: 9000 }\n");
	EXPECT_LOADS(t);
	snprintf(t, sizeof(t),
		 "ports:\n  - { name: p, device: net_ring0, ip: 10.0.0.10/24, ip6: "
		 "[\"2001:db8::10/64\"] }\n"
		 "listeners:\n  - { name: a, port: p, udp_port: 1, destinations: [{ ip: 10.0.0.2, "
		 "udp_port: 1 }] }\n"
		 "  - name: b\n    port: p\n    ip: \"2001:db8::10\"\n    udp_port: 1\n"
		 "    destinations: [{ ip: 10.0.0.3, udp_port: 1 }]\n"
		 "    rules: [{ from: \"2001:db8::/32\", to: [0] }]\n");
	EXPECT_LOADS(t);
	/* the listen: form on an IPv6-only port: at the port's ip6 */
	snprintf(t, sizeof(t),
		 "ports:\n  - name: p\n    device: net_ring0\n    ip6: [\"2001:db8::10/64\"]\n"
		 "listen: { port: p, udp_port: 2055 }\n"
		 "destinations:\n  - { ip: \"2001:db8::20\", udp_port: 9000 }\n");
	EXPECT_LOADS(t);
	/* an IPv6 destination of a pool's */
	snprintf(t, sizeof(t),
		 "ports:\n  - { name: p, device: net_ring0, ip: 10.0.0.10/24, ip6: "
		 "[\"2001:db8::10/64\"] }\n"
		 "listen: { port: p, udp_port: 2055 }\n"
		 "destinations:\n  - { ip: 10.0.0.20, udp_port: 9000 }\n"
		 "  - pool:\n      members:\n        - { ip: 10.0.0.21, udp_port: 1 }\n"
		 "        - { ip: \"2001:db8::21\", udp_port: 1 }\n");
	EXPECT_LOADS(t);

	/* an IPv4 file loads as before */
	uf_t_mkdtemp(dir, sizeof(dir));
	uf_t_write(dir, "v4.yaml", v4);
	snprintf(path, sizeof(path), "%s/v4.yaml", dir);
	c = uf_config_load(path, &err);
	CHECK(c != NULL, "an IPv4 file loads: %s", err.msg);
	uf_config_free(c);
	uf_t_rmtree(dir);
}

/* ---- reload identity ---- */

static const char rbase[] =
		"ports:\n"
		"  - name: wan\n"
		"    device: net_ring0\n"
		"    ip: 10.0.0.10/24\n"
		"    ip6: [\"2001:db8::10/64\"]\n"
		"    gateway6: fe80::1\n"
		"listeners:\n"
		"  - name: in6\n"
		"    port: wan\n"
		"    ip: \"2001:db8::10\"\n"
		"    udp_port: 2055\n"
		"    destinations:\n"
		"      - { ip: \"2001:db8::20\", udp_port: 9000 }\n"
		"      - { ip: 10.0.0.20, udp_port: 9000, ttl: 64 }\n"
		"      - { ip: \"2001:db8::21\", udp_port: 9000, source: \"2001:db8::10\" }\n"
		"    rules:\n"
		"      - { from: \"2001:db8:1::/48\", to: [0] }\n"
		"      - { from: \"::/0\", to: [1, 2] }\n";

static struct uf_cfg_diff d;

static int
rdiff(const char *from, const char *to)
{
	char buf[4096];
	const char *p = strstr(rbase, from);
	struct uf_config *a, *b;
	struct uf_err err;
	int n;

	if (p == NULL)
		abort();
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - rbase), rbase, to, p + strlen(from));
	a = parse(rbase, &err);
	if (a == NULL) {
		fprintf(stderr, "base: %s\n", err.msg);
		abort();
	}
	b = parse(buf, &err);
	if (b == NULL) {
		fprintf(stderr, "variant %s -> %s: %s\n", from, to, err.msg);
		abort();
	}
	n = uf_config_diff(a, b, &d);
	uf_config_free(a);
	uf_config_free(b);
	return n;
}

static void
test_reload(void)
{
	CHECK_EQ(rdiff("2055", "2055"), 0);
	CHECK_EQ(d.dest_old[0], 0);
	CHECK_EQ(d.dest_old[2], 2);
	/* the same address written otherwise is the same destination */
	CHECK_EQ(rdiff("\"2001:db8::20\"", "\"2001:0db8:0:0::20\""), 0);
	CHECK_EQ(rdiff("[\"2001:db8::10/64\"]", "[\"2001:db8:0::10/64\"]"), 0);

	CHECK_EQ(rdiff("[\"2001:db8::10/64\"]", "[\"2001:db8::10/64\", \"fe80::10/64\"]"), 1);
	CHECK_STR(d.restart, "ports[0].ip6");
	CHECK_EQ(rdiff("[\"2001:db8::10/64\"]", "[\"2001:db8::10/56\"]"), 1);
	CHECK_STR(d.restart, "ports[0].ip6");
	CHECK_EQ(rdiff("gateway6: fe80::1", "gateway6: fe80::2"), 1);
	CHECK_STR(d.restart, "ports[0].gateway6");
	CHECK_EQ(rdiff("    gateway6: fe80::1\n", ""), 1);
	CHECK_STR(d.restart, "ports[0].gateway6");
	/* a listener's IPv6 address is one of the port's ip6: moving it to another one */
	{
		static const char two[] = "ip6: [\"2001:db8::10/64\", \"2001:db8::11/64\"]";
		char a_txt[2048], b_txt[2048];
		const char *at = strstr(rbase, "ip6: [\"2001:db8::10/64\"]");
		const char *li = strstr(rbase, "ip: \"2001:db8::10\"\n    udp");
		struct uf_config *a, *b;
		struct uf_err err;

		if (at == NULL || li == NULL)
			abort();
		snprintf(a_txt, sizeof(a_txt), "%.*s%s%s", (int)(at - rbase), rbase, two,
			 at + strlen("ip6: [\"2001:db8::10/64\"]"));
		snprintf(b_txt, sizeof(b_txt), "%.*s%s%.*s%s%s", (int)(at - rbase), rbase, two,
			 (int)(li - at - (int)strlen("ip6: [\"2001:db8::10/64\"]")),
			 at + strlen("ip6: [\"2001:db8::10/64\"]"), "ip: \"2001:db8::11\"",
			 li + strlen("ip: \"2001:db8::10\""));
		a = parse(a_txt, &err);
		b = parse(b_txt, &err);
		CHECK(a != NULL && b != NULL, "two ip6, listener moved: %s", err.msg);
		if (a != NULL && b != NULL) {
			CHECK_EQ(uf_config_diff(a, b, &d), 1);
			CHECK_STR(d.restart, "listeners[0].ip");
		}
		uf_config_free(a);
		uf_config_free(b);
	}

	/* a destination is its address and UDP port, in either family */
	CHECK_EQ(rdiff("{ ip: \"2001:db8::20\", udp_port: 9000 }",
		       "{ ip: \"2001:db8::20\", udp_port: 9000, ttl: 5 }"),
		 1);
	CHECK_EQ(d.n_changed, 1);
	CHECK_EQ(d.dest_old[0], 0);
	CHECK_HAS(d.hot, "destinations[0].ttl");
	CHECK_EQ(rdiff("\"2001:db8::20\"", "\"2001:db8::22\""), 2);
	CHECK_EQ(d.n_added, 1);
	CHECK_EQ(d.n_removed, 1);
	CHECK_EQ(d.dest_old[0], -1);
	CHECK_HAS(d.hot, "([2001:db8::22]:9000) added");
	CHECK_HAS(d.hot, "([2001:db8::20]:9000) removed");
	/* reordered across families: each still itself, one moved; the rules, whose indexes
	 * now name the other destination, changed (hot) */
	CHECK_EQ(rdiff("      - { ip: \"2001:db8::20\", udp_port: 9000 }\n"
		       "      - { ip: 10.0.0.20, udp_port: 9000, ttl: 64 }\n",
		       "      - { ip: 10.0.0.20, udp_port: 9000, ttl: 64 }\n"
		       "      - { ip: \"2001:db8::20\", udp_port: 9000 }\n"),
		 3);
	CHECK_HAS(d.hot, "([2001:db8::20]:9000) moved from destinations[0]");
	CHECK_HAS(d.hot, "rules[0].to (its destinations moved)");
	CHECK_HAS(d.hot, "rules[1].to (its destinations moved)");
	CHECK_EQ(d.dest_old[0], 1);
	CHECK_EQ(d.dest_old[1], 0);
	CHECK_EQ(d.n_restart, 0);
	/* an IPv4-mapped-looking change of family is another destination */
	CHECK_EQ(rdiff("{ ip: 10.0.0.20,", "{ ip: \"2001:db8::a00:14\","), 2);
	CHECK_EQ(d.n_added, 1);
	CHECK_EQ(d.n_removed, 1);
	/* a fixed IPv6 source */
	CHECK_EQ(rdiff("source: \"2001:db8::10\"", "source: \"2001:db8::11\""), 1);
	CHECK_HAS(d.hot, "destinations[2].source");
	CHECK_EQ(rdiff("source: \"2001:db8::10\"", "source: ours"), 1);
	CHECK_HAS(d.hot, "destinations[2].source");
	/* two entries at one address and UDP port (they differ by source): a reload that
	 * keeps both keeps each its own counters (dest_old one-to-one: both matched to the
	 * first would share one counter slot, and the plan would lose one of them) */
	CHECK_EQ(rdiff("{ ip: \"2001:db8::21\", udp_port: 9000, source: \"2001:db8::10\" }",
		       "{ ip: \"2001:db8::20\", udp_port: 9000, source: \"2001:db8::10\" }"),
		 2);
	CHECK_EQ(d.dest_old[0], 0);
	CHECK_EQ(d.dest_old[2], -1);
	{
		char same[2048];
		const char *at = strstr(rbase, "2001:db8::21");
		struct uf_config *a, *b;
		struct uf_err err;

		if (at == NULL)
			abort();
		snprintf(same, sizeof(same), "%.*s2001:db8::20%s", (int)(at - rbase), rbase,
			 at + strlen("2001:db8::21"));
		a = parse(same, &err);
		b = parse(same, &err);
		CHECK(a != NULL && b != NULL, "one address twice: %s", err.msg);
		if (a != NULL && b != NULL) {
			CHECK_EQ(uf_config_diff(a, b, &d), 0);
			CHECK_EQ(d.dest_old[0], 0);
			CHECK_EQ(d.dest_old[2], 2);
		}
		uf_config_free(a);
		uf_config_free(b);
	}
	/* rules by IPv6 prefix: hot */
	CHECK_EQ(rdiff("\"2001:db8:1::/48\"", "\"2001:db8:2::/48\""), 1);
	CHECK_HAS(d.hot, "rules[0].from");
	CHECK_EQ(d.n_restart, 0);
	CHECK_EQ(rdiff("\"2001:db8:1::/48\"", "\"2001:db8:1::/49\""), 1);
	CHECK_HAS(d.hot, "rules[0].from");
}

int
main(void)
{
	RUN(test_mixed_families);
	RUN(test_v6_only_port);
	RUN(test_port_errors);
	RUN(test_dest_errors);
	RUN(test_listener_and_rule_errors);
	RUN(test_ipv6_loads);
	RUN(test_reload);
	return uf_t_summary();
}
