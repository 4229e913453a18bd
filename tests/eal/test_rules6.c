/* SPDX-License-Identifier: BSD-3-Clause
 * IPv6 rules as a longest-prefix table (uf_prefix6: uf_rules_lpm6, uf_plan_lookup6;
 * docs/configuration.md#rules): for 1, 16, 1,024 and 4,096 random rules (first match: ordered
 * longest prefix first, as validation wants them, with and without a ::/0 catch-all), of any
 * length (/16 to /128) or of 1, 3, 4 or 8 lengths (the hash table up to UF_PREFIX6_MAX_LENS,
 * past it an rte_lpm6), the set the table gives every sampled sender is the one the first-match
 * walk over the rules gives (the plan built without the table), misses included. The
 * addresses are drawn inside the rules' prefixes, one bit past them, and at random.
 *
 * Needs EAL without hugepages: --no-huge --no-pci -l 0 (eal suite).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "uf_config.h"
#include "uf_plan.h"

#include "../unit/uf_test.h"

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint32_t
rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)(rnd_state >> 16);
}

struct rule {
	uint8_t a[16];
	int len;
};

static int
by_len_desc(const void *x, const void *y)
{
	return ((const struct rule *)y)->len - ((const struct rule *)x)->len;
}

/* the prefix A/LEN with its host bits cleared */
static void
mask(uint8_t *a, int len)
{
	int i;

	for (i = 0; i < 16; i++) {
		int keep = len - 8 * i;

		a[i] &= keep >= 8 ? 0xff : keep <= 0 ? 0 : (uint8_t)(0xff << (8 - keep));
	}
}

/* the lengths of the rules of one() with n_lens > 0: its first n_lens */
static const int few_lens[] = { 64, 48, 56, 128, 96, 80, 72, 120 };

static void
one(int n_rules, bool catch_all, int n_lens)
{
	const int n = n_rules - (catch_all ? 1 : 0);
	struct rule *r = calloc((size_t)n_rules, sizeof(*r));
	size_t cap = 512 + (size_t)n_rules * 96;
	char *text = malloc(cap), name[64];
	struct uf_err err;
	struct uf_config *cfg;
	struct uf_plan *walk, *table;
	struct uf_prefix6 *lpm6;
	struct rte_ether_addr mac = { { 2, 0, 0, 0, 0, 1 } }, dmac = { { 2, 0, 0, 0, 0, 2 } };
	uint16_t mtu = 1500;
	bool chain_ok = false, resolved = true;
	int i, k, o, hits = 0, misses = 0, distinct = 0;
	bool seen[129] = { false };

	if (n_lens == 0)
		snprintf(name, sizeof(name), "%d rules%s, any lengths", n_rules,
			 catch_all ? " with ::/0" : "");
	else
		snprintf(name, sizeof(name), "%d rules%s, %d lengths", n_rules,
			 catch_all ? " with ::/0" : "", n_lens);
	uf_t_case = name;
	/* distinct prefixes of /16 to /128 inside 2001:db8::/32 or 2001:db9::/32 (two clusters:
	 * nested rules), longest first: none covers a later one */
	for (i = 0; i < n; i++) {
		int j, dup;

		do {
			r[i].len = n_lens == 0 ? 16 + (int)(rnd() % 113)
					       : few_lens[rnd() % (unsigned)n_lens];
			for (j = 0; j < 16; j++)
				r[i].a[j] = (uint8_t)rnd();
			r[i].a[0] = 0x20, r[i].a[1] = 0x01, r[i].a[2] = 0x0d;
			r[i].a[3] = (uint8_t)(0xb8 + (rnd() & 1));
			if (rnd() % 4 != 0) /* most share a /48: deep tables */
				r[i].a[4] = 0, r[i].a[5] = 0x01;
			mask(r[i].a, r[i].len);
			for (dup = 0, j = 0; j < i; j++)
				dup |= r[j].len == r[i].len && memcmp(r[j].a, r[i].a, 16) == 0;
		} while (dup);
	}
	qsort(r, (size_t)n, sizeof(*r), by_len_desc);
	for (i = 0; i < n; i++) {
		distinct += !seen[r[i].len];
		seen[r[i].len] = true;
	}
	o = snprintf(text, cap,
		     "ports:\n  - { name: p, device: net_null0, ip6: [\"2001:db8::10/64\"] }\n"
		     "listen: { port: p, udp_port: 5000 }\n"
		     "destinations:\n  - { ip: \"2001:db8::21\", udp_port: 6000, mac: "
		     "\"02:00:00:00:00:21\" }\nrules:\n");
	for (i = 0; i < n; i++) {
		char s[64];

		inet_ntop(AF_INET6, r[i].a, s, sizeof(s));
		o += snprintf(text + o, cap - (size_t)o, "  - { from: \"%s/%d\", to: [0] }\n", s,
			      r[i].len);
	}
	if (catch_all)
		o += snprintf(text + o, cap - (size_t)o, "  - { from: \"::/0\", to: [0] }\n");
	cfg = uf_config_parse(text, (size_t)o, name, &err);
	CHECK(cfg != NULL, "config: %s", cfg == NULL ? err.msg : "");
	if (cfg == NULL)
		goto out;
	lpm6 = uf_rules_lpm6(cfg, SOCKET_ID_ANY);
	CHECK(lpm6 != NULL, "table built: %s", rte_strerror(rte_errno));
	/* its form: the hash table up to UF_PREFIX6_MAX_LENS lengths, else an rte_lpm6 */
	CHECK(lpm6 != NULL && (lpm6->lpm6 != NULL) == (distinct > UF_PREFIX6_MAX_LENS) &&
			      (lpm6->lpm6 != NULL || lpm6->n_lens == distinct),
	      "%d lengths: %s", distinct, lpm6 != NULL && lpm6->lpm6 != NULL ? "rte_lpm6" : "hash");
	{
		struct uf_plan_input in = { .cfg = cfg,
					    .port_mac = &mac,
					    .port_mtu = &mtu,
					    .port_chain_ok = &chain_ok,
					    .dest_mac = &dmac,
					    .dest_resolved = &resolved,
					    .version = 1,
					    .socket = -1 };

		walk = uf_plan_build(&in);
		in.lpm6 = lpm6;
		table = uf_plan_build(&in);
	}
	CHECK(walk != NULL && table != NULL && walk->lpm6 == NULL && table->lpm6 == lpm6,
	      "the two plans");
	CHECK_EQ(table->catch_all6, catch_all ? (uint32_t)n : UF_SET_NONE);
	for (k = 0; walk != NULL && table != NULL && k < 20000; k++) {
		struct uf_ip6 src;
		uint32_t s1 = 0, s2 = 0;
		bool h1, h2;

		for (i = 0; i < 16; i++)
			src.b[i] = (uint8_t)rnd();
		if (n > 0 && k % 4 != 3) {
			/* inside a rule, or one bit past it */
			const struct rule *q = &r[rnd() % (unsigned)n];
			uint8_t m[16];

			memset(m, 0xff, 16);
			mask(m, q->len);
			for (i = 0; i < 16; i++) /* the prefix's bits, the host bits random */
				src.b[i] = (uint8_t)((q->a[i] & m[i]) | (src.b[i] & ~m[i]));
			if (k % 4 == 2 && q->len > 0) /* flip the prefix's last bit */
				src.b[(q->len - 1) / 8] ^= (uint8_t)(0x80 >> ((q->len - 1) % 8));
		}
		h1 = uf_plan_lookup6(walk, &src, &s1);
		h2 = uf_plan_lookup6(table, &src, &s2);
		CHECK(h1 == h2 && (!h1 || s1 == s2), "sample %d: walk %d/%u, table %d/%u", k, h1,
		      s1, h2, s2);
		hits += h1;
		misses += !h1;
	}
	CHECK(hits > 0, "some senders matched (%d)", hits);
	CHECK(catch_all || n == 0 || misses > 0, "some senders missed (%d)", misses);
	printf("%s: %d matched, %d missed, the table and the walk agree\n", name, hits, misses);
	uf_plan_free(walk);
	uf_plan_free(table);
	uf_prefix6_free(lpm6);
	uf_config_free(cfg);
out:
	free(text);
	free(r);
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0],     "-l",  "0",           "--no-pci",        "--no-huge",
			"-m",        "512", "--log-level", "lib.eal:warning", "--file-prefix",
			"uf_rules6", NULL };

	(void)argc;
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	one(1, false, 0);
	one(1, true, 0);
	one(16, false, 0);
	one(16, true, 0);
	one(1024, false, 0);
	one(4096, true, 0);
	one(1, false, 1);
	one(16, true, 3);
	one(1024, false, 1);
	one(1024, true, 3);
	one(1024, true, 4);
	one(4096, false, 8);
	rte_eal_cleanup();
	printf("%d passed, %d failed\n", uf_t_passed, uf_t_failed);
	return uf_t_failed == 0 ? 0 : 1;
}
