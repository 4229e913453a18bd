/* SPDX-License-Identifier: BSD-3-Clause
 * lib/ctl/uf_resolve for IPv6 destinations (docs/architecture.md#neighbour-discovery): each
 * one's next hop (itself on a port's ip6 prefix or link-local, else the port's gateway6,
 * link-local here; none for a group: its 33:33 MAC), one neighbour entry per distinct
 * (port, family, next hop), a reload's table taking over a running entry's state, and the
 * snapshot's destinations[] (ip, next_hop as IPv6 text, state) through the stats walk.
 * Expected addresses come from inet_pton of the test's own literals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "uf_pkt6.h"
#include "uf_resolve.h"
#include "uf_test.h"
#include "uf_test_cfg.h"

static const char text[] =
		"ports:\n"
		"  - name: wan\n"
		"    device: net_ring0\n"
		"    ip: 10.0.0.10/24\n"
		"    ip6: [\"2001:db8::10/64\", \"fe80::10/64\"]\n"
		"    gateway6: fe80::1\n"
		"  - { name: v6, device: net_ring1, ip6: [\"2001:db8:6::10/64\"] }\n"
		"listen: { port: wan, udp_port: 2055 }\n"
		"destinations:\n"
		"  - { ip: 10.0.0.20, udp_port: 9000 }\n"          /* 0: IPv4 on-link */
		"  - { ip: \"2001:db8::20\", udp_port: 9001 }\n"   /* 1: on wan's prefix */
		"  - { ip: \"2001:db8:99::1\", udp_port: 9002 }\n" /* 2: off-link: gateway6 */
		"  - { ip: \"fe80::77\", udp_port: 9003 }\n"       /* 3: link-local: itself */
		"  - { ip: \"ff02::fb\", udp_port: 9004 }\n"       /* 4: a group */
		"  - { ip: \"2001:db8:6::30\", udp_port: 9005, port: v6 }\n" /* 5: other port */
		"  - { ip: \"2001:db8:77::5\", udp_port: 9006, mac: \"02:00:00:00:00:66\" }\n" /* 6 */
		"  - { ip: \"2001:db8:98::2\", udp_port: 9007 }\n"; /* 7: the same gateway */

static struct uf_resolve res, res2;
static struct uf_snap snap;

/* the strings the stats walk gives for one destination */
struct strs {
	int n;
	char key[16][32];
	char val[16][64];
};

static void
on_str(void *arg, const char *key, const char *v)
{
	struct strs *s = arg;

	if (s->n < 16) {
		snprintf(s->key[s->n], sizeof(s->key[0]), "%s", key);
		snprintf(s->val[s->n], sizeof(s->val[0]), "%s", v);
		s->n++;
	}
}

static const char *
str_of(const struct strs *s, const char *key)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->key[i], key) == 0)
			return s->val[i];
	return "(none)";
}

static void
dest_strs(int i, struct strs *s)
{
	const struct uf_stats_visitor v = { .str = on_str };

	memset(s, 0, sizeof(*s));
	uf_stats_visit_dest(&snap.dests[i], &v, s);
}

static const struct uf_neigh *
entry_of(const struct uf_resolve *r, int i)
{
	return r->dest_neigh[i] >= 0 ? &r->neigh.e[r->dest_neigh[i]] : NULL;
}

static void
test_next_hops(void)
{
	struct uf_config *c = PARSE_OK(text);
	struct uf_err err;
	struct uf_ip6 nh, gw = ip6_of("fe80::1");
	struct rte_ether_addr grp = { { 0x33, 0x33, 0x00, 0x00, 0x00, 0xfb } };
	static const char *const self[] = { NULL,       "2001:db8::20", NULL,
					    "fe80::77", NULL,           "2001:db8:6::30" };
	int i;

	if (c == NULL)
		return;
	CHECK_EQ(c->n_dests, 8);
	/* uf_next_hop6 on its own */
	uf_next_hop6(c, &c->dests[2], &nh);
	CHECK(uf_ip6_eq(&nh, &gw), "off-link via gateway6");
	uf_next_hop6(c, &c->dests[1], &nh);
	CHECK(uf_ip6_eq(&nh, &c->dests[1].ip6), "on-link: itself");

	CHECK_EQ(uf_resolve_init(&res, c, 0, &err), 0);
	/* entries: 10.0.0.20, 2001:db8::20, fe80::1, fe80::77, 2001:db8:6::30 */
	CHECK_EQ(res.neigh.n, 5);
	CHECK(entry_of(&res, 0) != NULL && !entry_of(&res, 0)->is_ip6, "IPv4 entry");
	for (i = 1; i < 6; i++) {
		const struct uf_neigh *e = entry_of(&res, i);
		struct uf_ip6 want;

		if (self[i] == NULL)
			continue;
		want = ip6_of(self[i]);
		CHECK(e != NULL && e->is_ip6 && uf_ip6_eq(&e->ip6, &want), "dest %d: itself", i);
		CHECK(e != NULL && e->state == UF_NS_INCOMPLETE, "dest %d incomplete", i);
		CHECK(!res.dest_resolved[i], "dest %d not resolved yet", i);
	}
	CHECK(entry_of(&res, 2) != NULL && uf_ip6_eq(&entry_of(&res, 2)->ip6, &gw),
	      "dest 2 via fe80::1");
	CHECK_EQ(res.dest_neigh[7], res.dest_neigh[2]); /* one entry for the gateway */
	CHECK_EQ(entry_of(&res, 5)->port, 1);
	CHECK_EQ(res.dest_neigh[4], -1);
	CHECK(res.dest_resolved[4], "a group needs no neighbour");
	CHECK_MEM(res.dest_mac[4].addr_bytes, grp.addr_bytes, 6);
	CHECK_EQ(res.dest_neigh[6], -1);
	CHECK(res.dest_resolved[6] && res.dest_mac[6].addr_bytes[5] == 0x66, "static mac");

	/* the gateway answers: learned, the snapshot says so in IPv6 text */
	{
		struct rte_ether_addr gm = { { 0x02, 0, 0, 0, 0, 0x01 } };
		struct strs s;

		CHECK(uf_neigh_learn6(&res.neigh, 0, &gw, &gm, true, 5), "learned");
		uf_resolve_snapshot(&res, &snap);
		CHECK_EQ(snap.n_dests, 8);
		dest_strs(2, &s);
		CHECK_STR(str_of(&s, "ip"), "2001:db8:99::1");
		CHECK_STR(str_of(&s, "next_hop"), "fe80::1");
		CHECK_STR(str_of(&s, "state"), "reachable");
		CHECK_STR(str_of(&s, "mac"), "02:00:00:00:00:01");
		dest_strs(7, &s);
		CHECK_STR(str_of(&s, "next_hop"), "fe80::1");
		CHECK_STR(str_of(&s, "state"), "reachable");
		dest_strs(1, &s);
		CHECK_STR(str_of(&s, "next_hop"), "2001:db8::20");
		CHECK_STR(str_of(&s, "state"), "incomplete");
		dest_strs(4, &s);
		CHECK_STR(str_of(&s, "ip"), "ff02::fb");
		CHECK_STR(str_of(&s, "next_hop"), "ff02::fb");
		CHECK_STR(str_of(&s, "state"), "multicast");
		CHECK_STR(str_of(&s, "mac"),
			  "33:33:00:00:00:FB"); /* rte_ether_format_addr: upper case */
		dest_strs(6, &s);
		CHECK_STR(str_of(&s, "state"), "static");
		dest_strs(0, &s);
		CHECK_STR(str_of(&s, "ip"), "10.0.0.20");
		CHECK_STR(str_of(&s, "next_hop"), "10.0.0.20");

		/* a reload's table: the gateway's entry taken over, reachable, resolved */
		res2 = res;
		uf_neigh_init(&res2.neigh, &res.neigh.prm);
		for (i = 0; i < c->n_dests; i++)
			CHECK_EQ(uf_resolve_dest(&res2, c, i, &res.neigh, 100), 0);
		CHECK_EQ(res2.neigh.n, 5);
		CHECK_EQ(entry_of(&res2, 2)->state, UF_NS_REACHABLE);
		CHECK(res2.dest_resolved[2] && res2.dest_resolved[7], "via the gateway: resolved");
		CHECK_MEM(res2.dest_mac[2].addr_bytes, gm.addr_bytes, 6);
		CHECK(!res2.dest_resolved[1], "2001:db8::20 still unresolved");
	}
	uf_resolve_fini(&res);
	uf_config_free(c);
}

/* a pool's entry has no address: no neighbour entry for it, at start or in a reload's table
 * (a reload used to add one for 0.0.0.0 and ARP for it), its members one each */
static void
test_pool_entry(void)
{
	static const char pool_text[] = "ports:\n"
					"  - { name: wan, device: net_ring0, ip: 10.0.0.10/24 }\n"
					"listen: { port: wan, udp_port: 5000 }\n"
					"destinations:\n"
					"  - { ip: 10.0.0.20, udp_port: 6000 }\n"
					"  - pool:\n"
					"      members:\n"
					"        - { ip: 10.0.0.30, udp_port: 2055 }\n"
					"        - { ip: 10.0.0.31, udp_port: 2055 }\n";
	struct uf_config *c = PARSE_OK(pool_text);
	struct uf_err err;
	int i;

	if (c == NULL)
		return;
	CHECK_EQ(c->n_dests, 4);
	CHECK(c->dests[1].is_pool, "the pool's entry");
	CHECK_EQ(uf_resolve_init(&res, c, 0, &err), 0);
	CHECK_EQ(res.neigh.n, 3);
	CHECK_EQ(res.dest_neigh[1], -1);
	CHECK_EQ(uf_neigh_find(&res.neigh, 0, 0), -1);
	res2 = res;
	uf_neigh_init(&res2.neigh, &res.neigh.prm);
	for (i = 0; i < c->n_dests; i++)
		CHECK_EQ(uf_resolve_dest(&res2, c, i, &res.neigh, 100), 0);
	CHECK_EQ(res2.neigh.n, 3);
	CHECK_EQ(res2.dest_neigh[1], -1);
	CHECK(res2.dest_resolved[1], "the plan looks at its members");
	CHECK_EQ(uf_neigh_find(&res2.neigh, 0, 0), -1);
	uf_resolve_fini(&res);
	uf_config_free(c);
}

int
main(void)
{
	RUN(test_next_hops);
	RUN(test_pool_entry);
	return uf_t_summary();
}
