/* SPDX-License-Identifier: BSD-3-Clause
 * Receiver pools (lib/plan uf_pool, docs/architecture.md#pools): the rendezvous table's
 * spread over 10,000 senders, what moves when a member is added, removed, fails and comes
 * back (at 8 members, and bucket by bucket at every size from 1 to 300), round robin, the plan's pool tables, the config's pool form and its errors, and the
 * lookup's cost at 2, 16 and 256 members (printed; docs/benchmarks.md#pool-lookup).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include "uf_config.h"
#include "uf_plan.h"
#include "uf_pool.h"
#include "uf_test.h"

#define N_SENDERS 10000
#define MAXM 301

struct tpool {
	struct uf_pool_rt rt;
	uint16_t table[UF_POOL_BUCKETS];
	uint16_t rr[MAXM];
	uint64_t ids[MAXM];
	uint16_t dests[MAXM];
	bool up[MAXM];
};

static struct tpool A, B, C;

static rte_be32_t
sender(int i)
{
	/* 10.0.0.0/16 upwards, as a collector tier's exporters might be numbered */
	return rte_cpu_to_be_32(0x0a000000u + (uint32_t)i * 7u + 1u);
}

/* n members with identities from member numbers (not positions), all up */
static void
tpool_init(struct tpool *p, uint16_t n, const int *numbers, enum uf_balance bal)
{
	struct uf_cfg_dest d;
	uint16_t i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < n; i++) {
		memset(&d, 0, sizeof(d));
		d.ip = rte_cpu_to_be_32(0xc0a80000u + (uint32_t)(numbers ? numbers[i] : i) + 10u);
		d.udp_port = 2055;
		p->ids[i] = uf_pool_member_id(&d);
		p->dests[i] = (uint16_t)(numbers ? numbers[i] : i);
		p->up[i] = true;
	}
	p->rt.n = n;
	p->rt.balance = (uint8_t)bal;
	p->rt.table = p->table;
	p->rt.rr = p->rr;
}

static void
tpool_fill(struct tpool *p)
{
	p->rt.n_up = uf_pool_fill(p->table, p->rr, p->rt.n, p->ids, p->up, p->dests);
}

/* the member (destination number) of sender i, and whether it is a failover */
static uint16_t
member_of(const struct tpool *p, int i, bool *alt)
{
	uint16_t e = uf_pool_pick(&p->rt, uf_pool_key(&p->rt, sender(i), 0, 0, 0));

	if (alt != NULL)
		*alt = (e & UF_POOL_ALT) != 0;
	return e & UF_POOL_DEST;
}

/* Over 10,000 senders every member gets its share within the stated tolerance. */
static void
test_distribution(void)
{
	static const struct {
		uint16_t n;
		double tol; /* max |count - share| / share */
	} cases[] = { { 2, 0.05 }, { 4, 0.10 }, { 8, 0.12 }, { 16, 0.20 } };
	unsigned int c;

	for (c = 0; c < RTE_DIM(cases); c++) {
		uint32_t cnt[MAXM] = { 0 };
		double share = (double)N_SENDERS / cases[c].n, worst = 0;
		int i;

		tpool_init(&A, cases[c].n, NULL, UF_BAL_HASH_SENDER);
		tpool_fill(&A);
		CHECK_EQ(A.rt.n_up, cases[c].n);
		for (i = 0; i < N_SENDERS; i++)
			cnt[member_of(&A, i, NULL)]++;
		for (i = 0; i < cases[c].n; i++) {
			double dev = ((double)cnt[i] - share) / share;

			if (dev < 0)
				dev = -dev;
			if (dev > worst)
				worst = dev;
		}
		printf("distribution: %u members, %d senders: worst member %.1f%% off its share "
		       "(tolerance %.0f%%)\n",
		       cases[c].n, N_SENDERS, worst * 100, cases[c].tol * 100);
		CHECK(worst <= cases[c].tol, "%u members: worst %.3f > %.3f", cases[c].n, worst,
		      cases[c].tol);
	}
}

/* Removing one of N moves exactly its senders; adding one moves only senders to it. */
static void
test_remap(void)
{
	int nums[MAXM], i, moved, on_removed;
	const uint16_t n = 8;

	for (i = 0; i < MAXM; i++)
		nums[i] = i;
	/* remove member 3: B has the 7 others (its identity gone, not just down) */
	tpool_init(&A, n, nums, UF_BAL_HASH_SENDER);
	tpool_fill(&A);
	{
		int rest[7] = { 0, 1, 2, 4, 5, 6, 7 };

		tpool_init(&B, 7, rest, UF_BAL_HASH_SENDER);
		tpool_fill(&B);
	}
	moved = 0;
	on_removed = 0;
	for (i = 0; i < N_SENDERS; i++) {
		uint16_t a = member_of(&A, i, NULL), b = member_of(&B, i, NULL);

		on_removed += a == 3;
		if (a != b) {
			moved++;
			CHECK(a == 3, "sender %d moved from %u (not the removed member) to %u", i,
			      a, b);
		}
	}
	CHECK_EQ(moved, on_removed);
	printf("remap: removing 1 of 8 members moved %.2f%% of senders (1/8 = 12.50%%)\n",
	       100.0 * moved / N_SENDERS);
	CHECK(moved > N_SENDERS / 8 * 0.8 && moved < N_SENDERS / 8 * 1.2, "moved %d", moved);

	/* add a 9th (number 8): only senders now on it moved */
	tpool_init(&B, 9, nums, UF_BAL_HASH_SENDER);
	tpool_fill(&B);
	moved = 0;
	for (i = 0; i < N_SENDERS; i++) {
		uint16_t a = member_of(&A, i, NULL), b = member_of(&B, i, NULL);

		if (a != b) {
			moved++;
			CHECK(b == 8, "sender %d moved from %u to %u, not the new member", i, a, b);
		}
	}
	printf("remap: adding a 9th member moved %.2f%% of senders (1/9 = 11.11%%)\n",
	       100.0 * moved / N_SENDERS);
	CHECK(moved > N_SENDERS / 9 * 0.8 && moved < N_SENDERS / 9 * 1.2, "moved %d", moved);

	/* the order members are listed in does not matter: identities do */
	{
		int rev[8] = { 7, 6, 5, 4, 3, 2, 1, 0 };

		tpool_init(&B, 8, rev, UF_BAL_HASH_SENDER);
		tpool_fill(&B);
		for (i = 0, moved = 0; i < N_SENDERS; i++)
			moved += member_of(&A, i, NULL) != member_of(&B, i, NULL);
		CHECK_EQ(moved, 0);
	}
}

/*
 * Bucket by bucket, at every size from 1 to 300 members: adding member N to members
 * 0..N-1 moves only buckets to it, about 1/(N+1) of them; removing member N/2 from 0..N
 * moves only its buckets. Nothing moves between members the change did not touch (with a
 * bucket count that grew with the members, 64 -> 65 moved half of every sender).
 */
static int
moved_senders(const struct tpool *a, const struct tpool *b)
{
	int i, moved = 0;

	for (i = 0; i < N_SENDERS; i++)
		moved += member_of(a, i, NULL) != member_of(b, i, NULL);
	return moved;
}

/* buckets that differ between a and b; any that differs must be `to`'s in b (add) or
 * `from`'s in a (remove): returns -1 after a CHECK when one is not */
static int
moved_buckets(const struct tpool *a, const struct tpool *b, int to, int from)
{
	uint32_t bkt;
	int moved = 0;

	for (bkt = 0; bkt < UF_POOL_BUCKETS; bkt++) {
		uint16_t x = a->table[bkt] & UF_POOL_DEST, y = b->table[bkt] & UF_POOL_DEST;

		if (x == y)
			continue;
		moved++;
		if ((to >= 0 && y != to) || (from >= 0 && x != from)) {
			CHECK(false, "bucket %u moved from member %u to %u", bkt, x, y);
			return -1;
		}
	}
	return moved;
}

static void
test_remap_sweep(void)
{
	int nums[MAXM], i, n, worst_n = 0;
	double worst = 0;
	struct tpool *a = &A, *b = &B, *t;

	for (i = 0; i < MAXM; i++)
		nums[i] = i;
	tpool_init(a, 1, nums, UF_BAL_HASH_SENDER);
	tpool_fill(a);
	for (n = 1; n < MAXM; n++) {
		/* the buckets member n should take: binomial(65,536, 1/(n+1)), 6 sigma */
		double want = (double)UF_POOL_BUCKETS / (n + 1), tol = 6 * sqrt(want) + 1, dev;
		int added, removed, k = n / 2;

		tpool_init(b, (uint16_t)(n + 1), nums, UF_BAL_HASH_SENDER);
		tpool_fill(b);
		added = moved_buckets(a, b, n, -1);
		dev = added - want;
		CHECK(added >= 0 && fabs(dev) <= tol,
		      "%d -> %d members: %d buckets moved, want %.0f", n, n + 1, added, want);
		if (fabs(dev) / want > worst) {
			worst = fabs(dev) / want;
			worst_n = n + 1;
		}
		if (n == 64 || n == 256)
			printf("remap sweep: %d -> %d members moved %.2f%% of senders, %.2f%% of "
			       "buckets (1/%d = %.2f%%)\n",
			       n, n + 1, 100.0 * moved_senders(a, b) / N_SENDERS,
			       100.0 * added / UF_POOL_BUCKETS, n + 1, 100.0 / (n + 1));

		/* remove member k from 0..n (an identity gone, not just down) */
		{
			int rest[MAXM], j, on_k = 0;

			for (i = 0, j = 0; i <= n; i++)
				if (i != k)
					rest[j++] = i;
			tpool_init(&C, (uint16_t)n, rest, UF_BAL_HASH_SENDER);
			tpool_fill(&C);
			for (i = 0; i < (int)UF_POOL_BUCKETS; i++)
				on_k += (b->table[i] & UF_POOL_DEST) == (unsigned int)k;
			removed = moved_buckets(b, &C, -1, k);
			CHECK(removed == on_k,
			      "%d -> %d members (member %d gone): %d buckets moved, "
			      "%d were its",
			      n + 1, n, k, removed, on_k);
			if (n == 64)
				printf("remap sweep: 65 -> 64 members moved %.2f%% of senders\n",
				       100.0 * moved_senders(b, &C) / N_SENDERS);
		}
		t = a;
		a = b;
		b = t;
	}
	printf("remap sweep: adding one member at 1..300: worst %.1f%% off 1/N (%d members)\n",
	       worst * 100, worst_n);
}

/* A member down: its senders spread over the rest (flagged failover), no other sender
 * moves; back up: every sender is where it was. */
static void
test_failover_and_return(void)
{
	uint16_t before[N_SENDERS];
	uint32_t spread[MAXM] = { 0 };
	int i, moved = 0, alts = 0;
	bool alt;

	tpool_init(&A, 4, NULL, UF_BAL_HASH_SENDER);
	tpool_fill(&A);
	for (i = 0; i < N_SENDERS; i++) {
		before[i] = member_of(&A, i, &alt);
		CHECK(!alt, "sender %d: a failover with every member up", i);
	}
	A.up[2] = false;
	tpool_fill(&A);
	CHECK_EQ(A.rt.n_up, 3);
	for (i = 0; i < N_SENDERS; i++) {
		uint16_t m = member_of(&A, i, &alt);

		CHECK(m != 2, "sender %d still on the member that is down", i);
		if (m != before[i]) {
			moved++;
			spread[m]++;
			CHECK(before[i] == 2, "sender %d moved off %u, which is up", i, before[i]);
		}
		CHECK_EQ(alt, before[i] == 2);
		alts += alt;
	}
	CHECK_EQ(moved, alts);
	for (i = 0; i < 4; i++)
		if (i != 2)
			CHECK(spread[i] > (uint32_t)moved / 3 / 2,
			      "member %d took %u of the %d failed-over senders", i, spread[i],
			      moved);
	A.up[2] = true;
	tpool_fill(&A);
	for (i = 0; i < N_SENDERS; i++)
		CHECK_EQ(member_of(&A, i, NULL), before[i]);

	/* none up: every sender stays on its own member (which drops it, counted) */
	memset(A.up, 0, sizeof(A.up));
	tpool_fill(&A);
	CHECK_EQ(A.rt.n_up, 0);
	for (i = 0; i < N_SENDERS; i++)
		CHECK_EQ(member_of(&A, i, NULL), before[i]);
}

static void
test_round_robin(void)
{
	tpool_init(&A, 4, NULL, UF_BAL_ROUND_ROBIN);
	tpool_fill(&A);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(A.rr[i], i);
	A.up[1] = false;
	tpool_fill(&A);
	CHECK(A.rr[1] & UF_POOL_ALT, "the turn of a member down is a failover");
	CHECK((A.rr[1] & UF_POOL_DEST) != 1, "the turn of a member down goes to another");
	CHECK_EQ(A.rr[0], 0);
	CHECK_EQ(A.rr[2], 2);
	CHECK_EQ(A.rr[3], 3);
}

/* hash-sender with sender_port, and hash-flow, use the sender's port; plain does not */
static void
test_keys(void)
{
	struct uf_pool_rt p = { .balance = UF_BAL_HASH_SENDER };
	rte_be32_t ip = sender(1);

	CHECK_EQ(uf_pool_key(&p, ip, 1, 0, 0), uf_pool_key(&p, ip, 2, 0, 0));
	p.sender_port = true;
	CHECK(uf_pool_key(&p, ip, 1, 0, 0) != uf_pool_key(&p, ip, 2, 0, 0), "port ignored");
	p.sender_port = false;
	p.balance = UF_BAL_HASH_FLOW;
	CHECK(uf_pool_key(&p, ip, 1, 5, 9) != uf_pool_key(&p, ip, 2, 5, 9), "port ignored");
	CHECK(uf_pool_key(&p, ip, 1, 5, 9) != uf_pool_key(&p, ip, 1, 5, 8), "dst port ignored");
}

/* ---- the pool in the config and the plan ---- */

#define POOL_YAML                                                          \
	"eal:\n  lcores: \"0-1\"\n"                                        \
	"ports:\n"                                                         \
	"  - name: wan\n    device: net_ring0\n    ip: 10.0.0.10/24\n"     \
	"  - name: lan\n    device: net_ring1\n    ip: 10.0.2.1/24\n"      \
	"listen:\n  port: wan\n  udp_port: 5000\n"                         \
	"destinations:\n"                                                  \
	"  - ip: 10.0.0.20\n    udp_port: 6000\n"                          \
	"  - sample: 2\n"                                                  \
	"    pool:\n"                                                      \
	"      balance: hash-flow\n"                                       \
	"      members:\n"                                                 \
	"        - { ip: 10.0.0.30, udp_port: 2055 }\n"                    \
	"        - { ip: 10.0.2.31, udp_port: 2055, port: lan, ttl: 9 }\n" \
	"        - { ip: 10.0.0.32, udp_port: 2055, source: original }\n"

static struct uf_config *
parse(const char *text, struct uf_err *err)
{
	memset(err, 0, sizeof(*err));
	return uf_config_parse(text, strlen(text), "t.yaml", err);
}

static void
test_config_pool(void)
{
	struct uf_err err;
	struct uf_config *cfg = parse(POOL_YAML, &err);

	CHECK(cfg != NULL, "refused: %s", err.msg);
	if (cfg == NULL)
		return;
	CHECK_EQ(cfg->n_listed, 2);
	CHECK_EQ(cfg->n_dests, 5);
	CHECK_EQ(cfg->n_pools, 1);
	CHECK(cfg->dests[1].is_pool, "entry 1 is the pool");
	CHECK_EQ(cfg->dests[1].sample, 2);
	CHECK_EQ(cfg->pools[0].entry, 1);
	CHECK_EQ(cfg->pools[0].first, 2);
	CHECK_EQ(cfg->pools[0].n, 3);
	CHECK_EQ(cfg->pools[0].balance, UF_BAL_HASH_FLOW);
	CHECK(cfg->dests[3].is_member && cfg->dests[3].pool == 0, "member 1");
	CHECK_EQ(cfg->dests[3].port, 1);
	CHECK_EQ(cfg->dests[3].ttl, 9);
	CHECK_EQ(cfg->dests[4].source, UF_SRC_ORIGINAL);
	CHECK_EQ(cfg->dests[2].port, 0);
	uf_config_free(cfg);
}

/* each error at FILE:LINE:COL of what is wrong */
static void
expect_err(const char *text, const char *at, const char *want)
{
	struct uf_err err;
	struct uf_config *cfg = parse(text, &err);

	CHECK(cfg == NULL, "accepted, want \"%s\"", want);
	uf_config_free(cfg);
	CHECK(strstr(err.msg, at) != NULL && strstr(err.msg, want) != NULL,
	      "want \"%s ... %s\", got \"%s\"", at, want, err.msg);
}

#define BASE                                                           \
	"ports:\n"                                                     \
	"  - name: wan\n    device: net_ring0\n    ip: 10.0.0.10/24\n" \
	"listen:\n  port: wan\n  udp_port: 5000\n"                     \
	"destinations:\n"

static void
test_config_pool_errors(void)
{
	expect_err(BASE "  - pool:\n      balance: random\n      members: [{ip: 10.0.0.2, "
			"udp_port: 1}]\n",
		   "t.yaml:10:16: destinations[0].pool.balance: ",
		   "\"random\": expected hash-sender");
	expect_err(BASE "  - pool:\n      members: []\n",
		   "t.yaml:10:16: destinations[0].pool.members", "at least one member");
	expect_err(BASE "  - pool:\n      balance: round-robin\n",
		   "t.yaml:10:7: destinations[0].pool", "needs members");
	expect_err(BASE
		   "  - ip: 10.0.0.3\n    pool:\n      members: [{ip: 10.0.0.2, udp_port: 1}]\n",
		   "t.yaml:9:5: destinations[0]", "a pool takes only pool and sample");
	expect_err(BASE
		   "  - pool:\n      members:\n        - {ip: 10.0.0.2, udp_port: 1, sample: 3}\n",
		   "t.yaml:11:11: destinations[0].pool.members[0]",
		   "sample applies to the whole pool");
	expect_err(BASE "  - pool:\n      members:\n        - {ip: 10.0.0.2}\n",
		   "t.yaml:11:11: destinations[0].pool.members[0]", "needs a udp_port");
	expect_err(BASE
		   "  - pool:\n      members:\n        - {ip: 10.0.0.2, udp_port: 1, port: x}\n",
		   "t.yaml:11:45: destinations[0].pool.members[0].port", "no port is named \"x\"");
	expect_err(BASE "  - pool:\n      members:\n        - {ip: 10.9.0.2, udp_port: 1}\n",
		   "t.yaml:11:11: destinations[0].pool.members[0]", "not on port wan's subnet");
	expect_err(BASE "  - pool:\n      members:\n        - {ip: 10.0.0.2, udp_port: 1}\n"
			"        - {ip: 10.0.0.2, udp_port: 1}\n",
		   "t.yaml:12:11: destinations[0].pool.members[1]", "is also destinations[1]");
	expect_err(BASE "  - pool:\n      members:\n        - {ip: 10.0.0.2, udp_port: 1,"
			" pool: {members: []}}\n",
		   "t.yaml:11:45: destinations[0].pool.members[0].pool", "cannot be a pool");
	expect_err(BASE "  - pool:\n      members: [{ip: 10.0.0.2, udp_port: 1}]\n"
			"rules:\n  - { from: 0.0.0.0/0, to: [1] }\n",
		   "t.yaml:12:29: rules[0].to", "destination 1 does not exist (there are 1)");
}

/* the plan: a pool entry stands for its members; a member unresolved or on a down link
 * is left out, and the set never takes the simple path */
static void
test_plan_pool(void)
{
	struct uf_err err;
	struct uf_config *cfg = parse(POOL_YAML, &err);
	struct rte_ether_addr pmac[2] = { 0 }, dmac[5] = { 0 };
	uint16_t mtu[2] = { 1500, 1500 };
	bool chain[2] = { true, true }, res[5] = { true, true, true, true, true };
	bool link[2] = { true, true };
	struct uf_plan_input in = {
		.port_mac = pmac,
		.port_mtu = mtu,
		.port_chain_ok = chain,
		.dest_mac = dmac,
		.dest_resolved = res,
		.port_up = link,
		.socket = -1,
	};
	struct uf_plan *plan;
	const struct uf_pool_rt *p;
	uint32_t b, seen[5] = { 0 }, alt = 0;

	if (cfg == NULL) {
		CHECK(false, "refused: %s", err.msg);
		return;
	}
	in.cfg = cfg;
	res[1] = false; /* the pool entry's own: ignored */
	plan = uf_plan_build(&in);
	CHECK(plan != NULL, "no plan");
	if (plan == NULL)
		goto out;
	CHECK_EQ(plan->sets[0].n, 2);
	CHECK(!plan->sets[0].simple && !uf_engine_is_simple(plan->engine),
	      "a set with a pool is not simple");
	CHECK_EQ(plan->n_pools, 1);
	p = &plan->pools[0];
	CHECK(plan->dests[1].is_pool && plan->dests[1].resolved, "the pool entry");
	CHECK_EQ(plan->dests[1].sample, 2);
	CHECK_EQ(p->n_up, 3);
	for (b = 0; b < UF_POOL_BUCKETS; b++)
		seen[p->table[b] & UF_POOL_DEST]++;
	CHECK(seen[2] > 0 && seen[3] > 0 && seen[4] > 0 && seen[0] == 0 && seen[1] == 0,
	      "the table holds the members only");
	uf_plan_free(plan);

	/* member 1 (dests[3]) leaves through lan; lan goes down; member 2 unresolved */
	link[1] = false;
	res[4] = false;
	plan = uf_plan_build(&in);
	p = &plan->pools[0];
	CHECK_EQ(p->n_up, 1);
	memset(seen, 0, sizeof(seen));
	for (b = 0; b < UF_POOL_BUCKETS; b++) {
		seen[p->table[b] & UF_POOL_DEST]++;
		alt += (p->table[b] & UF_POOL_ALT) != 0;
	}
	CHECK_EQ(seen[2], UF_POOL_BUCKETS);
	CHECK(alt > 0 && alt < UF_POOL_BUCKETS, "failover buckets: %u", alt);
	uf_plan_free(plan);
out:
	uf_config_free(cfg);
}

/* ---- lookup cost: flat in the member count ---- */

static void
test_lookup_cost(void)
{
	static const uint16_t ns[] = { 2, 16, 256 };
	static struct tpool P;
	unsigned int c;

	for (c = 0; c < RTE_DIM(ns); c++) {
		struct timespec t0, t1;
		const uint32_t iters = 2000000;
		uint64_t sum = 0;
		uint32_t i;
		double ns_per;

		tpool_init(&P, ns[c], NULL, UF_BAL_HASH_SENDER);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		tpool_fill(&P);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("build: %u members, %u buckets: %.2f ms\n", ns[c], UF_POOL_BUCKETS,
		       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e6);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < iters; i++)
			sum += uf_pool_pick(&P.rt,
					    uf_pool_key(&P.rt, rte_cpu_to_be_32(i * 2654435761u), 0,
							0, 0));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns_per = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / iters;
		printf("lookup: %u members: %.2f ns per datagram (sum %" PRIu64 ")\n", ns[c],
		       ns_per, sum);
		CHECK(sum > 0, "no lookups");
	}
}

int
main(void)
{
	RUN(test_distribution);
	RUN(test_remap);
	RUN(test_remap_sweep);
	RUN(test_failover_and_return);
	RUN(test_round_robin);
	RUN(test_keys);
	RUN(test_config_pool);
	RUN(test_config_pool_errors);
	RUN(test_plan_pool);
	RUN(test_lookup_cost);
	return uf_t_summary();
}
