/* SPDX-License-Identifier: BSD-3-Clause
 * lib/neigh: the ARP neighbour state machine on a fake millisecond clock, with a send
 * callback that records every request asked for; the same machine for IPv6 neighbours
 * (NS/NA: uf_neigh_add6, uf_neigh_learn6, uf_neigh_tick46), side by side with IPv4 ones.
 */
#include <stdio.h>
#include <string.h>

#include "uf_neigh.h"
#include "uf_pkt6.h"
#include "uf_test.h"

#define RETRY 100
#define REACH 30000
#define PROBES 3

struct sent {
	uint64_t at;
	uint16_t port;
	rte_be32_t ip;
	bool is_ip6;
	struct uf_ip6 ip6;
	bool bcast;
	struct rte_ether_addr mac;
};

struct rec {
	uint64_t now;
	int n;
	struct sent s[4096];
};

static void
record(void *arg, uint16_t port, rte_be32_t ip, const struct rte_ether_addr *mac)
{
	struct rec *r = arg;
	struct sent *s;

	if (r->n >= (int)RTE_DIM(r->s))
		return;
	s = &r->s[r->n++];
	s->at = r->now;
	s->port = port;
	s->ip = ip;
	s->is_ip6 = false;
	s->bcast = mac == NULL;
	if (mac != NULL)
		s->mac = *mac;
	else
		memset(&s->mac, 0, sizeof(s->mac));
}

static void
record6(void *arg, uint16_t port, const struct uf_ip6 *ip6, const struct rte_ether_addr *mac)
{
	struct rec *r = arg;

	int n = r->n;

	record(arg, port, 0, mac);
	if (r->n > n) {
		r->s[n].is_ip6 = true;
		r->s[n].ip6 = *ip6;
	}
}

static struct uf_neigh_table tbl;
static struct rec rec;

static void
setup(void)
{
	struct uf_neigh_params prm = { .reachable_ms = REACH,
				       .retry_ms = RETRY,
				       .max_probes = PROBES };

	uf_neigh_init(&tbl, &prm);
	memset(&rec, 0, sizeof(rec));
}

/* tick every millisecond in [from, to]; returns how many ticks reported a change */
static int
run(uint64_t from, uint64_t to)
{
	int changed = 0;
	uint64_t t;

	for (t = from; t <= to; t++) {
		rec.now = t;
		if (uf_neigh_tick(&tbl, t, record, &rec))
			changed++;
	}
	return changed;
}

static rte_be32_t
ip(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	uint8_t x[4] = { a, b, c, d };
	rte_be32_t v;

	memcpy(&v, x, 4);
	return v;
}

static struct rte_ether_addr
mac(uint8_t last)
{
	struct rte_ether_addr m = { { 0x02, 0x00, 0x00, 0x00, 0x00, last } };

	return m;
}

/* INCOMPLETE: broadcasts at t0, +r, +2r, +4r, +8r, +8r, ...; FAILED after max_probes */
static void
test_incomplete_backoff_and_failed(void)
{
	const uint64_t t0 = 1000;
	/* the backoff after the k-th request: r, 2r, 4r, 8r, then 8r for good */
	static const uint64_t gap[] = { RETRY,     2 * RETRY, 4 * RETRY, 8 * RETRY,
					8 * RETRY, 8 * RETRY, 8 * RETRY };
	uint64_t want = t0, failed_at = 0;
	rte_be32_t a = ip(10, 0, 0, 1);
	int i, e;

	setup();
	e = uf_neigh_add(&tbl, 0, a, NULL, t0);
	CHECK_EQ(e, 0);
	CHECK_EQ(tbl.n, 1);
	CHECK_EQ(tbl.e[e].state, UF_NS_INCOMPLETE);
	CHECK(!uf_neigh_usable(&tbl.e[e]), "an unresolved neighbour is not usable");
	CHECK_EQ(uf_neigh_add(&tbl, 0, a, NULL, t0 + 5), 0); /* the same entry again */
	CHECK_EQ(tbl.n, 1);

	/* step the clock 1 ms at a time and note when the state turns FAILED */
	for (rec.now = t0; rec.now <= t0 + 5000; rec.now++) {
		uf_neigh_tick(&tbl, rec.now, record, &rec);
		if (failed_at == 0 && tbl.e[e].state == UF_NS_FAILED)
			failed_at = rec.now;
	}
	CHECK(rec.n >= (int)RTE_DIM(gap), "%d requests sent in 5 s", rec.n);
	for (i = 0; i < rec.n && i < (int)RTE_DIM(gap) + 1; i++) {
		CHECK_EQ(rec.s[i].at, want);
		CHECK(rec.s[i].bcast, "request %d is a broadcast", i);
		CHECK_EQ(rec.s[i].port, 0);
		CHECK_EQ(rec.s[i].ip, a);
		if (i < (int)RTE_DIM(gap))
			want += gap[i];
	}
	/* max_probes requests went unanswered for their whole wait: failed when the next is due */
	CHECK_EQ(failed_at, t0 + RETRY + 2 * RETRY + 4 * RETRY);
	CHECK(!uf_neigh_usable(&tbl.e[e]), "a failed neighbour is not usable");
	/* FAILED keeps asking, by broadcast, never slower than 8 x retry */
	for (i = 1; i < rec.n; i++) {
		CHECK(rec.s[i].bcast, "request %d is a broadcast", i);
		CHECK(rec.s[i].at - rec.s[i - 1].at <= 8 * RETRY, "gap %d is %" PRIu64 " ms", i,
		      rec.s[i].at - rec.s[i - 1].at);
	}
	rec.n = 0;
	run(t0 + 5001, t0 + 60000);
	CHECK(rec.n >= 55000 / (8 * RETRY) - 1, "FAILED still asks: %d requests in 55 s", rec.n);
	for (i = 0; i < rec.n; i++)
		CHECK(rec.s[i].bcast && rec.s[i].ip == a, "request %d is a broadcast for a", i);
	CHECK_EQ(tbl.e[e].state, UF_NS_FAILED);
}

/* learn: REACHABLE with the MAC; changed only when the usable MAC appears or changes */
static void
test_learn(void)
{
	struct rte_ether_addr m1 = mac(1), m2 = mac(2);
	rte_be32_t a = ip(10, 0, 0, 1);
	int e;

	setup();
	e = uf_neigh_add(&tbl, 0, a, NULL, 0);
	run(0, 10);
	CHECK_EQ(rec.n, 1);
	CHECK_EQ(uf_neigh_learn(&tbl, 0, a, &m1, 20), true);
	CHECK_EQ(tbl.e[e].state, UF_NS_REACHABLE);
	CHECK(uf_neigh_usable(&tbl.e[e]), "reachable is usable");
	CHECK_MEM(tbl.e[e].mac.addr_bytes, m1.addr_bytes, 6);
	CHECK_EQ(uf_neigh_learn(&tbl, 0, a, &m1, 30), false);
	CHECK_EQ(uf_neigh_learn(&tbl, 0, a, &m2, 40), true);
	CHECK_MEM(tbl.e[e].mac.addr_bytes, m2.addr_bytes, 6);
	CHECK_EQ(uf_neigh_learn(&tbl, 0, a, &m2, 50), false);
	/* no more requests while reachable */
	rec.n = 0;
	run(51, 51 + REACH - 20);
	CHECK_EQ(rec.n, 0);

	/* an address we do not need is not learned */
	CHECK_EQ(uf_neigh_learn(&tbl, 0, ip(10, 0, 0, 99), &m1, 60), false);
	CHECK_EQ(tbl.n, 1);
	CHECK_EQ(uf_neigh_find(&tbl, 0, ip(10, 0, 0, 99)), -1);
	/* nor the right address on another port */
	CHECK_EQ(uf_neigh_learn(&tbl, 1, a, &m1, 60), false);
	CHECK_EQ(tbl.n, 1);
	CHECK_MEM(tbl.e[e].mac.addr_bytes, m2.addr_bytes, 6);
}

/* REACHABLE → (reachable_ms) → PROBE: unicast to the known MAC, still usable → FAILED */
static void
test_probe_then_failed(void)
{
	struct rte_ether_addr m1 = mac(1);
	rte_be32_t a = ip(10, 0, 0, 1);
	const uint64_t tl = 500; /* when learned */
	uint64_t failed_at = 0, t;
	int e, i, changes = 0;

	setup();
	e = uf_neigh_add(&tbl, 0, a, NULL, 0);
	run(0, tl - 1);
	CHECK_EQ(uf_neigh_learn(&tbl, 0, a, &m1, tl), true);
	rec.n = 0;
	changes = run(tl, tl + REACH - 1);
	CHECK_EQ(rec.n, 0);
	CHECK_EQ(changes, 0);
	CHECK_EQ(tbl.e[e].state, UF_NS_REACHABLE);

	/* stale: unicast probes at +0, +r, +3r; usable throughout */
	for (t = tl + REACH; t <= tl + REACH + 20 * RETRY; t++) {
		rec.now = t;
		if (uf_neigh_tick(&tbl, t, record, &rec)) {
			changes++;
			if (failed_at == 0)
				failed_at = t;
		}
		if (failed_at == 0) {
			CHECK(uf_neigh_usable(&tbl.e[e]), "usable while probing (t=%" PRIu64 ")",
			      t);
			if (t >= tl + REACH)
				CHECK(tbl.e[e].state == UF_NS_PROBE, "PROBE at t=%" PRIu64, t);
		}
	}
	CHECK(rec.n >= PROBES, "%d requests", rec.n);
	for (i = 0; i < PROBES && i < rec.n; i++) {
		static const uint64_t at[PROBES] = { 0, RETRY, 3 * RETRY };

		CHECK_EQ(rec.s[i].at, tl + REACH + at[i]);
		CHECK(!rec.s[i].bcast, "probe %d is unicast", i);
		CHECK_MEM(rec.s[i].mac.addr_bytes, m1.addr_bytes, 6);
		CHECK_EQ(rec.s[i].ip, a);
	}
	/* no answer to max_probes probes: FAILED when the next one is due, reported as a change */
	CHECK_EQ(failed_at, tl + REACH + 7 * RETRY);
	CHECK_EQ(changes, 1);
	CHECK_EQ(tbl.e[e].state, UF_NS_FAILED);
	CHECK(!uf_neigh_usable(&tbl.e[e]), "failed is not usable");
	/* and then it asks by broadcast again, with unicast probes to the old MAC between */
	CHECK(rec.n > PROBES, "requests after failing");
	for (i = PROBES; i < rec.n; i++) {
		CHECK(rec.s[i].at >= failed_at, "request %d after failing", i);
		if (!rec.s[i].bcast)
			CHECK_MEM(rec.s[i].mac.addr_bytes, m1.addr_bytes, 6);
		if (i > PROBES)
			CHECK(rec.s[i].at - rec.s[i - 1].at <= RETRY,
			      "requests %d and %d %" PRIu64 " ms apart", i - 1, i,
			      rec.s[i].at - rec.s[i - 1].at);
	}
	if (rec.n > PROBES)
		CHECK(rec.s[PROBES].at - failed_at <= RETRY,
		      "the first broadcast comes soon (%" PRIu64 " ms)",
		      rec.s[PROBES].at - failed_at);

	/* learning again: REACHABLE, changed */
	CHECK_EQ(uf_neigh_learn(&tbl, 0, a, &m1, tl + REACH + 30 * RETRY), true);
	CHECK_EQ(tbl.e[e].state, UF_NS_REACHABLE);
	CHECK(uf_neigh_usable(&tbl.e[e]), "usable again");
}

/* An answer while probing: back to REACHABLE, no change reported for the same MAC */
static void
test_probe_answered(void)
{
	struct rte_ether_addr m1 = mac(1), m2 = mac(2);
	rte_be32_t a = ip(10, 0, 0, 1);
	int e;

	setup();
	e = uf_neigh_add(&tbl, 0, a, NULL, 0);
	run(0, 0);
	uf_neigh_learn(&tbl, 0, a, &m1, 0);
	rec.n = 0;
	run(1, REACH + RETRY + 1); /* two probes */
	CHECK_EQ(rec.n, 2);
	CHECK_EQ(tbl.e[e].state, UF_NS_PROBE);
	CHECK_EQ(uf_neigh_learn(&tbl, 0, a, &m1, REACH + RETRY + 2), false);
	CHECK_EQ(tbl.e[e].state, UF_NS_REACHABLE);
	rec.n = 0;
	run(REACH + RETRY + 3, REACH + RETRY + 2 + REACH - 1);
	CHECK_EQ(rec.n, 0); /* confirmed: quiet for another reachable_ms */
	run(REACH + RETRY + 2 + REACH, REACH + RETRY + 2 + REACH);
	CHECK_EQ(rec.n, 1);
	CHECK_EQ(tbl.e[e].state, UF_NS_PROBE);
	/* a different MAC while probing is a change */
	CHECK_EQ(uf_neigh_learn(&tbl, 0, a, &m2, 2 * REACH + 200), true);
	CHECK_MEM(tbl.e[e].mac.addr_bytes, m2.addr_bytes, 6);
}

/* STATIC entries never ask and never change */
static void
test_static(void)
{
	struct rte_ether_addr ms = mac(0x55), m1 = mac(1);
	rte_be32_t a = ip(10, 0, 0, 5), b = ip(10, 0, 0, 6);
	int e, f;

	setup();
	e = uf_neigh_add(&tbl, 0, a, &ms, 0);
	CHECK_EQ(tbl.e[e].state, UF_NS_STATIC);
	CHECK(uf_neigh_usable(&tbl.e[e]), "static is usable");
	CHECK_MEM(tbl.e[e].mac.addr_bytes, ms.addr_bytes, 6);
	/* an entry learned first and then given a static MAC becomes static */
	f = uf_neigh_add(&tbl, 1, b, NULL, 0);
	CHECK_EQ(uf_neigh_add(&tbl, 1, b, &ms, 0), f);
	CHECK_EQ(tbl.e[f].state, UF_NS_STATIC);
	CHECK_EQ(run(0, 3 * REACH), 0);
	CHECK_EQ(rec.n, 0);
	CHECK_EQ(uf_neigh_learn(&tbl, 0, a, &m1, 10), false);
	CHECK_EQ(tbl.e[e].state, UF_NS_STATIC);
	CHECK_MEM(tbl.e[e].mac.addr_bytes, ms.addr_bytes, 6);
	uf_neigh_port_up(&tbl, 0, 3 * REACH + 1);
	run(3 * REACH + 1, 3 * REACH + 1000);
	CHECK_EQ(rec.n, 0);
}

/* The link came back: every entry of that port is asked about at once */
static void
test_port_up(void)
{
	struct rte_ether_addr m1 = mac(1), m2 = mac(2);
	rte_be32_t a = ip(10, 0, 0, 1), b = ip(10, 0, 1, 1), c = ip(10, 0, 0, 3);
	int ea, eb, ec, i, n_a = 0, n_b = 0, n_c = 0;
	const uint64_t up = 5000;

	setup();
	ea = uf_neigh_add(&tbl, 0, a, NULL, 0);
	eb = uf_neigh_add(&tbl, 1, b, NULL, 0);
	ec = uf_neigh_add(&tbl, 0, c, NULL, 0);
	run(0, 0);
	uf_neigh_learn(&tbl, 0, a, &m1, 1);
	uf_neigh_learn(&tbl, 1, b, &m2, 1);
	run(1, up - 1); /* c keeps failing; a and b stay reachable */
	CHECK_EQ(tbl.e[ea].state, UF_NS_REACHABLE);
	CHECK_EQ(tbl.e[ec].state, UF_NS_FAILED);
	rec.n = 0;
	/* c's next broadcast is at most 8r away; port up makes it now */
	uf_neigh_port_up(&tbl, 0, up);
	run(up, up);
	for (i = 0; i < rec.n; i++) {
		if (rec.s[i].ip == a) {
			n_a++;
			CHECK(!rec.s[i].bcast, "a reachable neighbour is re-probed by unicast");
			CHECK_MEM(rec.s[i].mac.addr_bytes, m1.addr_bytes, 6);
			CHECK_EQ(rec.s[i].port, 0);
		} else if (rec.s[i].ip == b) {
			n_b++;
		} else if (rec.s[i].ip == c) {
			n_c++;
			CHECK(rec.s[i].bcast, "a failed neighbour is asked by broadcast");
		}
	}
	CHECK_EQ(n_a, 1);
	CHECK_EQ(n_b, 0); /* another port */
	CHECK_EQ(n_c, 1);
	CHECK(uf_neigh_usable(&tbl.e[ea]), "still usable while re-probing");
	CHECK_EQ(tbl.e[eb].state, UF_NS_REACHABLE);
}

static void
test_table_full(void)
{
	int i, r = 0;

	setup();
	for (i = 0; i < UF_NEIGH_MAX; i++)
		r |= uf_neigh_add(&tbl, 0, ip(10, 1, (uint8_t)(i >> 8), (uint8_t)i), NULL, 0) != i;
	CHECK_EQ(r, 0);
	CHECK_EQ(tbl.n, UF_NEIGH_MAX);
	CHECK_EQ(uf_neigh_add(&tbl, 0, ip(10, 2, 0, 0), NULL, 0), -1);
	CHECK_EQ(uf_neigh_add(&tbl, 0, ip(10, 1, 0, 7), NULL, 0), 7); /* existing: found */
	CHECK_EQ(uf_neigh_find(&tbl, 0, ip(10, 1, 1, 0)), 256);
	CHECK_EQ(uf_neigh_find(&tbl, 1, ip(10, 1, 1, 0)), -1);
}

/* FAILED with a MAC it had: broadcasts back off to 8 x retry_ms, but a unicast probe to the
 * old MAC goes every retry_ms between them, so a neighbour that comes back at any moment
 * is asked (and, answering, usable again) within one retry_ms; broadcasts alone would take
 * up to 8 x retry_ms */
static void
test_failed_unicast_recovery(void)
{
	struct rte_ether_addr m1 = mac(7);
	rte_be32_t a = ip(10, 0, 0, 9);
	uint64_t failed_at = 0, t, back, asked = 0;
	int e, i, n_bc = 0, n_uc = 0, first;

	setup();
	e = uf_neigh_add(&tbl, 0, a, NULL, 0);
	run(0, 0);
	CHECK_EQ(uf_neigh_learn(&tbl, 0, a, &m1, 1), true);
	for (t = 2; failed_at == 0 && t < 2 * REACH; t++) {
		rec.now = t;
		if (uf_neigh_tick(&tbl, t, record, &rec))
			failed_at = t;
	}
	CHECK_EQ(tbl.e[e].state, UF_NS_FAILED);
	first = rec.n;
	/* long after failing: the broadcasts are at their longest backoff */
	run(failed_at + 1, failed_at + 20 * RETRY);
	for (i = first; i < rec.n; i++) {
		if (rec.s[i].bcast) {
			n_bc++;
		} else {
			n_uc++;
			CHECK_MEM(rec.s[i].mac.addr_bytes, m1.addr_bytes, 6);
		}
	}
	CHECK(n_bc >= 4 && n_bc <= 8, "%d broadcasts in 20 retry_ms (backoff)", n_bc);
	CHECK(n_uc >= 20 - n_bc - 2, "%d unicast probes in 20 retry_ms", n_uc);
	/* the neighbour comes back at several moments: asked within one retry_ms each time */
	t = failed_at + 20 * RETRY;
	for (i = 0; i < 40; i++) {
		back = t + 1 + (uint64_t)(i * 37) % (2 * RETRY);
		run(t + 1, back - 1);
		first = rec.n;
		for (t = back; t <= back + 2 * RETRY && rec.n == first; t++) {
			rec.now = t;
			uf_neigh_tick(&tbl, t, record, &rec);
		}
		t--; /* the last tick run */
		CHECK(rec.n > first, "asked after coming back at %" PRIu64, back);
		if (rec.n > first) {
			CHECK(rec.s[first].at - back <= RETRY,
			      "came back at %" PRIu64 ", asked %" PRIu64 " ms later", back,
			      rec.s[first].at - back);
			asked = RTE_MAX(asked, rec.s[first].at - back);
		}
	}
	CHECK(asked <= RETRY, "worst wait %" PRIu64 " ms", asked);
	/* its reply (or a gratuitous ARP) makes it usable at once */
	t++;
	CHECK_EQ(uf_neigh_learn(&tbl, 0, a, &m1, t), true);
	CHECK_EQ(tbl.e[e].state, UF_NS_REACHABLE);
	first = rec.n;
	run(t, t + 10 * RETRY);
	CHECK_EQ(rec.n, first); /* reachable again: nothing asked until it is stale */

	/* a neighbour that never answered has no MAC to ask: broadcasts only */
	setup();
	e = uf_neigh_add(&tbl, 0, a, NULL, 0);
	run(0, 40 * RETRY);
	CHECK_EQ(tbl.e[e].state, UF_NS_FAILED);
	for (i = 0; i < rec.n; i++)
		CHECK(rec.s[i].bcast, "request %d of a never-resolved neighbour is a broadcast", i);
}

/* uf_neigh_next_ms: the control lcore sleeps until it (docs/architecture.md#the-control-lcore).
 * Two tables with the same neighbours and the same answers: one ticked every millisecond, the
 * other only at the times uf_neigh_next_ms named. Every request must go out at the same
 * millisecond to the same address in both, every state move happen in both: a tick between
 * the named times never has anything to do. */
static struct uf_neigh_table tb2;
static struct rec rec2;

static void
test_next_ms(void)
{
	struct uf_neigh_params prm = { .reachable_ms = REACH,
				       .retry_ms = RETRY,
				       .max_probes = PROBES };
	struct rte_ether_addr m1 = mac(1), m4 = mac(4), ms = mac(9);
	rte_be32_t a = ip(10, 0, 0, 1), b = ip(10, 0, 0, 2), c = ip(10, 0, 0, 3),
		   d = ip(10, 0, 0, 4);
	/* answers: a once (then silent: PROBE, FAILED with a MAC, unicast probes between the
	 * broadcasts), b never (INCOMPLETE, FAILED by broadcast), c static, d now and then */
	const struct {
		uint64_t at;
		rte_be32_t ip;
		const struct rte_ether_addr *mac;
	} ev[] = { { 1, a, &m1 },     { 250, d, &m4 },   { 20000, d, &m4 },
		   { 52345, d, &m4 }, { 70001, a, &m1 }, { 91000, d, &m4 } };
	const uint64_t end = 3 * REACH + 20000;
	uint64_t t, next, ticks = 0;
	size_t k = 0;
	int i, ch1 = 0, ch2 = 0;

	setup();
	CHECK_EQ(uf_neigh_next_ms(&tbl, 5), UINT64_MAX); /* empty: nothing ever */
	CHECK_EQ(uf_neigh_add(&tbl, 0, c, &ms, 0), 0);
	CHECK_EQ(uf_neigh_next_ms(&tbl, 5), UINT64_MAX); /* static only: nothing ever */
	uf_neigh_init(&tbl, &prm);
	uf_neigh_init(&tb2, &prm);
	memset(&rec2, 0, sizeof(rec2));
	for (i = 0; i < 2; i++) {
		struct uf_neigh_table *x = i == 0 ? &tbl : &tb2;

		uf_neigh_add(x, 0, a, NULL, 0);
		uf_neigh_add(x, 0, b, NULL, 0);
		uf_neigh_add(x, 1, c, &ms, 0);
		uf_neigh_add(x, 1, d, NULL, 0);
	}
	CHECK_EQ(uf_neigh_next_ms(&tb2, 0), 0); /* new entries: ask at once */
	CHECK_EQ(uf_neigh_next_ms(&tb2, 7), 7); /* overdue reads as now */
	next = 0;
	for (t = 0; t <= end; t++) {
		for (; k < RTE_DIM(ev) && ev[k].at == t; k++) {
			uf_neigh_learn(&tbl, 0, ev[k].ip, ev[k].mac, t);
			uf_neigh_learn(&tbl, 1, ev[k].ip, ev[k].mac, t);
			uf_neigh_learn(&tb2, 0, ev[k].ip, ev[k].mac, t);
			uf_neigh_learn(&tb2, 1, ev[k].ip, ev[k].mac, t);
			next = uf_neigh_next_ms(&tb2, t);
		}
		rec.now = rec2.now = t;
		ch1 += uf_neigh_tick(&tbl, t, record, &rec);
		if (t >= next) {
			ticks++;
			ch2 += uf_neigh_tick(&tb2, t, record, &rec2);
			next = uf_neigh_next_ms(&tb2, t);
			/* t itself: a move that asks at once (PROBE to FAILED) */
			CHECK(next >= t, "next %" PRIu64 " after a tick at %" PRIu64, next, t);
		}
		if (t == REACH + 1000) {
			/* a went stale at 1 + REACH and failed its PROBES unicast probes; d
			 * answered at 20000: still reachable; b never answered */
			CHECK_EQ(tb2.e[0].state, UF_NS_FAILED);
			CHECK_EQ(tb2.e[1].state, UF_NS_FAILED);
			CHECK_EQ(tb2.e[3].state, UF_NS_REACHABLE);
		}
	}
	CHECK(rec.n > 50, "%d requests in %" PRIu64 " ms", rec.n, end);
	CHECK_EQ(rec2.n, rec.n);
	for (i = 0; i < rec.n && i < rec2.n; i++) {
		CHECK(rec2.s[i].at == rec.s[i].at && rec2.s[i].ip == rec.s[i].ip &&
				      rec2.s[i].bcast == rec.s[i].bcast &&
				      memcmp(&rec2.s[i].mac, &rec.s[i].mac, 6) == 0,
		      "request %d: at %" PRIu64 " vs %" PRIu64, i, rec2.s[i].at, rec.s[i].at);
	}
	CHECK_EQ(ch2, ch1);
	for (i = 0; i < tbl.n; i++) {
		CHECK_EQ(tb2.e[i].state, tbl.e[i].state);
		CHECK_EQ(tb2.e[i].changes, tbl.e[i].changes);
	}
	/* a tick per request or state move, give or take: not one per millisecond */
	CHECK(ticks <= (uint64_t)rec.n + (uint64_t)ch1 + 16, "%" PRIu64 " ticks for %d requests",
	      ticks, rec.n);
}

static void
test_state_names(void)
{
	CHECK_STR(uf_neigh_state_name(UF_NS_STATIC), "static");
	CHECK_STR(uf_neigh_state_name(UF_NS_INCOMPLETE), "incomplete");
	CHECK_STR(uf_neigh_state_name(UF_NS_REACHABLE), "reachable");
	CHECK_STR(uf_neigh_state_name(UF_NS_PROBE), "probe");
	CHECK_STR(uf_neigh_state_name(UF_NS_FAILED), "failed");
}

/* 2001:db8::LAST, fe80::LAST */
static struct uf_ip6
ip6(bool link_local, uint8_t last)
{
	struct uf_ip6 a = { { 0x20, 0x01, 0x0d, 0xb8 } };

	if (link_local) {
		memset(a.b, 0, sizeof(a.b));
		a.b[0] = 0xfe;
		a.b[1] = 0x80;
	}
	a.b[15] = last;
	return a;
}

/* tick46 every millisecond in [from, to]; returns how many ticks reported a change */
static int
run46(uint64_t from, uint64_t to)
{
	int changed = 0;
	uint64_t t;

	for (t = from; t <= to; t++) {
		rec.now = t;
		if (uf_neigh_tick46(&tbl, t, record, record6, &rec))
			changed++;
	}
	return changed;
}

/* IPv6 entries: keyed by (port, family, address): 10.0.0.1 and an IPv6 address whose bytes
 * start the same are two entries; the same backoff and FAILED as IPv4, solicitations to the
 * group (mac NULL) through send6 only */
static void
test_v6_incomplete_failed(void)
{
	const uint64_t t0 = 1000;
	struct uf_ip6 g = ip6(false, 1), g_same4 = { { 10, 0, 0, 1 } };
	uint64_t want = t0;
	int e4, e6, e6b, i, n6 = 0;

	setup();
	e4 = uf_neigh_add(&tbl, 0, ip(10, 0, 0, 1), NULL, t0);
	e6 = uf_neigh_add6(&tbl, 0, &g, NULL, t0);
	e6b = uf_neigh_add6(&tbl, 0, &g_same4, NULL, t0);
	CHECK_EQ(tbl.n, 3);
	CHECK(e4 != e6 && e6 != e6b && e4 != e6b, "three entries");
	CHECK_EQ(uf_neigh_add6(&tbl, 0, &g, NULL, t0 + 1), e6); /* found again */
	CHECK_EQ(uf_neigh_find6(&tbl, 0, &g), e6);
	CHECK_EQ(uf_neigh_find6(&tbl, 1, &g), -1); /* another port */
	CHECK_EQ(uf_neigh_find(&tbl, 0, ip(10, 0, 0, 1)), e4);
	CHECK(tbl.e[e6].is_ip6 && !tbl.e[e4].is_ip6, "families");
	CHECK_EQ(tbl.e[e6].state, UF_NS_INCOMPLETE);

	run46(t0, t0 + RETRY + 2 * RETRY + 4 * RETRY);
	/* each entry asked at t0, +r, +3r, +7r: 4 requests each, 12 in all */
	CHECK_EQ(rec.n, 12);
	for (i = 0; i < rec.n; i++) {
		CHECK(rec.s[i].bcast, "request %d to the group / broadcast", i);
		if (rec.s[i].is_ip6 && uf_ip6_eq(&rec.s[i].ip6, &g)) {
			CHECK_EQ(rec.s[i].at, want);
			want += (uint64_t)RETRY << (n6 < 3 ? n6 : 3);
			n6++;
		}
	}
	CHECK_EQ(n6, 4);
	CHECK_EQ(tbl.e[e6].state, UF_NS_FAILED);
	CHECK_EQ(tbl.e[e4].state, UF_NS_FAILED);

	/* uf_neigh_tick (no send6): the IPv6 entries move on but nothing is sent for them */
	rec.n = 0;
	for (rec.now = t0 + 800; rec.now < t0 + 3000; rec.now++)
		uf_neigh_tick(&tbl, rec.now, record, &rec);
	CHECK(rec.n > 0, "IPv4 still asks");
	for (i = 0; i < rec.n; i++)
		CHECK(!rec.s[i].is_ip6 && rec.s[i].ip == ip(10, 0, 0, 1), "request %d is IPv4", i);
}

/* learn6: NA with a TLLA makes the entry REACHABLE (solicited or not); a different MAC
 * without Override is not taken nor confirmed; with Override it is; an NA without TLLA
 * confirms a usable MAC only; STATIC and unknown entries never change */
static void
test_v6_learn_override(void)
{
	struct rte_ether_addr m1 = mac(1), m2 = mac(2), m3 = mac(3);
	struct uf_ip6 g = ip6(true, 1), other = ip6(false, 99);
	int e, s;

	setup();
	e = uf_neigh_add6(&tbl, 0, &g, NULL, 0);
	run46(0, 10);
	CHECK_EQ(rec.n, 1);
	CHECK(rec.s[0].is_ip6 && rec.s[0].bcast && uf_ip6_eq(&rec.s[0].ip6, &g),
	      "an NS to the group");
	/* no TLLA while INCOMPLETE: nothing to take */
	CHECK_EQ(uf_neigh_learn6(&tbl, 0, &g, NULL, true, 15), false);
	CHECK_EQ(tbl.e[e].state, UF_NS_INCOMPLETE);
	/* a group or zero MAC is never a neighbour's, whatever a parser let through */
	{
		const struct rte_ether_addr bad[] = { { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
						      { { 0, 0, 0, 0, 0, 0 } },
						      { { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 } } };
		unsigned int b;

		for (b = 0; b < RTE_DIM(bad); b++) {
			CHECK_EQ(uf_neigh_learn6(&tbl, 0, &g, &bad[b], true, 16), false);
			CHECK_EQ(tbl.e[e].state, UF_NS_INCOMPLETE);
		}
	}
	/* the first NA: taken whatever Override says (no MAC yet) */
	CHECK_EQ(uf_neigh_learn6(&tbl, 0, &g, &m1, false, 20), true);
	CHECK_EQ(tbl.e[e].state, UF_NS_REACHABLE);
	CHECK_MEM(tbl.e[e].mac.addr_bytes, m1.addr_bytes, 6);
	CHECK_EQ(tbl.e[e].confirmed_ms, 20);
	/* a different MAC without Override: the old one stays, not confirmed */
	CHECK_EQ(uf_neigh_learn6(&tbl, 0, &g, &m2, false, 30), false);
	CHECK_MEM(tbl.e[e].mac.addr_bytes, m1.addr_bytes, 6);
	CHECK_EQ(tbl.e[e].confirmed_ms, 20);
	/* the same MAC without Override: confirmed */
	CHECK_EQ(uf_neigh_learn6(&tbl, 0, &g, &m1, false, 40), false);
	CHECK_EQ(tbl.e[e].confirmed_ms, 40);
	/* with Override: taken */
	CHECK_EQ(uf_neigh_learn6(&tbl, 0, &g, &m2, true, 50), true);
	CHECK_MEM(tbl.e[e].mac.addr_bytes, m2.addr_bytes, 6);
	CHECK_EQ(tbl.e[e].changes, 2);
	/* stale → PROBE (unicast NS to m2 through send6) → an NA without TLLA confirms it */
	rec.n = 0;
	run46(51, 50 + REACH);
	CHECK_EQ(tbl.e[e].state, UF_NS_PROBE);
	CHECK_EQ(rec.n, 1);
	CHECK(rec.s[0].is_ip6 && !rec.s[0].bcast, "a unicast NS probe");
	CHECK_MEM(rec.s[0].mac.addr_bytes, m2.addr_bytes, 6);
	CHECK_EQ(uf_neigh_learn6(&tbl, 0, &g, NULL, false, 50 + REACH + 5), false);
	CHECK_EQ(tbl.e[e].state, UF_NS_REACHABLE);
	CHECK_EQ(tbl.e[e].confirmed_ms, 50 + REACH + 5);
	/* unknown address, other port, the IPv4 learner: nothing */
	CHECK_EQ(uf_neigh_learn6(&tbl, 0, &other, &m3, true, 60), false);
	CHECK_EQ(uf_neigh_learn6(&tbl, 1, &g, &m3, true, 60), false);
	CHECK_EQ(tbl.n, 1);
	CHECK_MEM(tbl.e[e].mac.addr_bytes, m2.addr_bytes, 6);
	/* STATIC */
	s = uf_neigh_add6(&tbl, 0, &other, &m1, 70);
	CHECK_EQ(tbl.e[s].state, UF_NS_STATIC);
	CHECK_EQ(uf_neigh_learn6(&tbl, 0, &other, &m3, true, 80), false);
	CHECK_MEM(tbl.e[s].mac.addr_bytes, m1.addr_bytes, 6);
}

/* FAILED IPv6 neighbour with a MAC: unicast NS to it between group NSs; an unsolicited NA
 * (Override) brings it back at once */
static void
test_v6_failed_recovery(void)
{
	struct rte_ether_addr m1 = mac(1), m4 = mac(4);
	struct uf_ip6 g = ip6(false, 7);
	uint64_t t = 0;
	int e, i, uc = 0, grp = 0;

	setup();
	e = uf_neigh_add6(&tbl, 0, &g, NULL, 0);
	run46(0, 0);
	CHECK_EQ(uf_neigh_learn6(&tbl, 0, &g, &m1, false, 1), true);
	/* let it go stale, probe unanswered, fail */
	for (t = 2; tbl.e[e].state != UF_NS_FAILED && t < 10 * REACH; t++)
		run46(t, t);
	CHECK_EQ(tbl.e[e].state, UF_NS_FAILED);
	rec.n = 0;
	run46(t + 1, t + 20 * RETRY);
	for (i = 0; i < rec.n; i++) {
		CHECK(rec.s[i].is_ip6, "request %d is an NS", i);
		if (rec.s[i].bcast)
			grp++;
		else if (rte_is_same_ether_addr(&rec.s[i].mac, &m1))
			uc++;
	}
	CHECK(grp >= 2 && uc >= 10, "FAILED: %d group NSs, %d unicast NSs to the old MAC", grp, uc);
	CHECK_EQ(uf_neigh_learn6(&tbl, 0, &g, &m4, true, t + 20 * RETRY + 1), true);
	CHECK_EQ(tbl.e[e].state, UF_NS_REACHABLE);
	CHECK_MEM(tbl.e[e].mac.addr_bytes, m4.addr_bytes, 6);
}

#define LIVE 200
#define MISSES 3

static void
setup_live(void)
{
	struct uf_neigh_params prm = { .reachable_ms = REACH,
				       .retry_ms = RETRY,
				       .max_probes = PROBES,
				       .live_ms = LIVE,
				       .live_misses = MISSES };

	uf_neigh_init(&tbl, &prm);
	memset(&rec, 0, sizeof(rec));
}

/*
 * Liveness (docs/configuration.md#pools): a unicast probe every LIVE ms to the known MAC;
 * answered, the entry stays REACHABLE (long past reachable_ms); unanswered MISSES times in
 * a row, FAILED when the next one is due: between MISSES x LIVE and (MISSES + 1) x LIVE
 * after the neighbour went silent. The first answer brings it back.
 */
static void
test_liveness_down_and_back(void)
{
	struct rte_ether_addr m1 = mac(1);
	rte_be32_t a = ip(10, 0, 0, 1);
	uint64_t t, dead = 2 * REACH + 50, failed_at = 0, last_answered = 0, back;
	int e, i, seen = 0, changes = 0;

	setup_live();
	e = uf_neigh_add(&tbl, 0, a, NULL, 0);
	uf_neigh_set_live(&tbl, e, true, 0);
	run(0, 9);
	CHECK_EQ(uf_neigh_learn(&tbl, 0, a, &m1, 10), true);
	rec.n = 0;
	/* it answers each probe 1 ms later until `dead`, then nothing */
	for (t = 11; t <= dead + (MISSES + 2) * LIVE; t++) {
		rec.now = t;
		if (seen < rec.n && rec.s[seen].at + 1 == t && t < dead) {
			last_answered = rec.s[seen].at;
			CHECK_EQ(uf_neigh_learn(&tbl, 0, a, &m1, t), false);
		}
		seen = rec.n;
		if (uf_neigh_tick(&tbl, t, record, &rec)) {
			changes++;
			if (failed_at == 0)
				failed_at = t;
		}
		if (t < dead)
			CHECK(tbl.e[e].state == UF_NS_REACHABLE, "REACHABLE at t=%" PRIu64, t);
	}
	/* every request was a unicast probe to m1, LIVE ms apart (none of PROBE's) */
	CHECK(rec.n >= (int)(dead / LIVE), "%d probes", rec.n);
	for (i = 0; i < rec.n && rec.s[i].at < failed_at; i++) {
		CHECK(!rec.s[i].bcast, "probe %d unicast", i);
		CHECK_MEM(rec.s[i].mac.addr_bytes, m1.addr_bytes, 6);
		if (i > 0)
			CHECK_EQ(rec.s[i].at - rec.s[i - 1].at, LIVE);
	}
	CHECK_EQ(changes, 1);
	CHECK_EQ(tbl.e[e].state, UF_NS_FAILED);
	CHECK_EQ(failed_at, last_answered + (MISSES + 1) * LIVE);
	CHECK(failed_at - dead >= MISSES * LIVE && failed_at - dead <= (MISSES + 1) * LIVE,
	      "down %" PRIu64 " ms after the last answer", failed_at - dead);
	CHECK_EQ(tbl.e[e].live_downs, 1);
	CHECK_EQ(tbl.live_downs, 1);
	CHECK_EQ(tbl.live_probes, (uint64_t)i);
	/* FAILED: the unicast probes every retry_ms find it again; then probes resume */
	back = failed_at + RETRY + 5;
	CHECK_EQ(uf_neigh_learn(&tbl, 0, a, &m1, back), true);
	CHECK_EQ(tbl.e[e].state, UF_NS_REACHABLE);
	CHECK_EQ(tbl.e[e].live_missed, 0);
	CHECK(uf_neigh_next_ms(&tbl, back) <= back + 2 * LIVE, "next probe within 2 intervals");
	rec.n = 0;
	run(back + 1, back + 2 * LIVE);
	CHECK(rec.n >= 1 && !rec.s[0].bcast, "probing again (%d)", rec.n);
}

/* A destination without liveness keeps the ARP timers: no probe before reachable_ms. */
static void
test_liveness_off(void)
{
	struct rte_ether_addr m1 = mac(1);
	rte_be32_t a = ip(10, 0, 0, 1);
	int e;

	setup_live();
	e = uf_neigh_add(&tbl, 0, a, NULL, 0);
	run(0, 9);
	CHECK_EQ(uf_neigh_learn(&tbl, 0, a, &m1, 10), true);
	rec.n = 0;
	CHECK_EQ(uf_neigh_next_ms(&tbl, 11), 10 + REACH);
	run(11, 10 * LIVE);
	CHECK_EQ(rec.n, 0);
	CHECK_EQ(tbl.e[e].state, UF_NS_REACHABLE);
	CHECK_EQ(tbl.live_probes, 0);
	/* a static entry never probes, with live set or not */
	e = uf_neigh_add(&tbl, 0, ip(10, 0, 0, 2), &m1, 0);
	uf_neigh_set_live(&tbl, e, true, 0);
	CHECK_EQ(tbl.e[e].live, false);
}

/*
 * The probes of many entries resolved at once are spread over the interval: 200 entries
 * learned in the same millisecond send at most a few probes in any one millisecond, and
 * exactly one per entry per interval.
 */
static void
test_liveness_spread(void)
{
	struct rte_ether_addr m1 = mac(1);
	int per_ms[LIVE] = { 0 }, i, n = 200, most = 0;

	setup_live();
	for (i = 0; i < n; i++) {
		rte_be32_t a = ip(10, 0, (uint8_t)(i >> 8), (uint8_t)i);
		int e = uf_neigh_add(&tbl, 0, a, NULL, 0);

		uf_neigh_set_live(&tbl, e, true, 0);
		uf_neigh_learn(&tbl, 0, a, &m1, 0);
	}
	rec.n = 0;
	/* the second interval after learning: every entry probes once (nobody answers, and
	 * MISSES > 2 keeps them all up) */
	run(1, 2 * LIVE);
	rec.n = 0;
	run(2 * LIVE + 1, 3 * LIVE);
	CHECK_EQ(rec.n, n);
	for (i = 0; i < rec.n; i++)
		per_ms[rec.s[i].at % LIVE]++;
	for (i = 0; i < LIVE; i++)
		most = RTE_MAX(most, per_ms[i]);
	CHECK(most <= 4, "at most %d probes in one ms (%d entries, %d ms)", most, n, LIVE);
}

/*
 * The liveness accounting (docs/loss-accounting.md#liveness) on the same clock: the
 * destination sends one copy per ms (tx_ok == t); each answer marks tx_ok, a failure adds
 * what was sent since the last answer: (MISSES + 1) x LIVE less the answer's 1 ms delay.
 * Two failures sum; an entry that starts over (a reload's new one) adds nothing.
 */
static void
test_liveness_account(void)
{
	struct uf_neigh_live_acct acct = { 0 };
	struct rte_ether_addr m1 = mac(1);
	rte_be32_t a = ip(10, 0, 0, 1);
	uint64_t t, last_answer = 0, want = 0, dead[2] = { 3000, 8000 }, fails = 0;
	int e, seen = 0;

	setup_live();
	e = uf_neigh_add(&tbl, 0, a, NULL, 0);
	uf_neigh_set_live(&tbl, e, true, 0);
	run(0, 9);
	rec.n = 0;
	uf_neigh_learn(&tbl, 0, a, &m1, 10);
	for (t = 10; t < 12000; t++) {
		bool silent = (t >= dead[0] && t < dead[0] + 1500) || t >= dead[1];

		rec.now = t;
		if (seen < rec.n && rec.s[seen].at + 1 == t && !silent) {
			uf_neigh_learn(&tbl, 0, a, &m1, t);
			last_answer = t;
		}
		if (tbl.e[e].state == UF_NS_FAILED && !silent) {
			uf_neigh_learn(&tbl, 0, a, &m1, t); /* back: the unicast probe of FAILED */
			last_answer = t;
		}
		seen = rec.n;
		uf_neigh_tick(&tbl, t, record, &rec);
		if (uf_neigh_live_due(&acct, &tbl.e[e])) {
			uint64_t added = uf_neigh_live_account(&acct, &tbl.e[e], t);

			if (tbl.e[e].state == UF_NS_FAILED) {
				CHECK_EQ(added, t - last_answer);
				CHECK_EQ(added, (MISSES + 1) * LIVE - 1);
				want += added;
				fails++;
			} else {
				CHECK_EQ(added, 0);
			}
			CHECK_EQ(acct.mark, t);
		}
	}
	CHECK_EQ(fails, 2);
	CHECK_EQ(acct.suspect, want);
	CHECK_EQ(tbl.e[e].live_downs, 2);
	/* a new entry for the same next hop (counters from 0): nothing added, marked again */
	tbl.e[e].live_downs = 0;
	tbl.e[e].heard = 0;
	CHECK(uf_neigh_live_due(&acct, &tbl.e[e]), "due after a reset");
	CHECK_EQ(uf_neigh_live_account(&acct, &tbl.e[e], 20000), 0);
	CHECK_EQ(acct.suspect, want);
}

/* IPv6: the same probes as unicast Neighbor Solicitations; an NA without a TLLA confirms. */
static void
test_liveness_v6(void)
{
	struct rte_ether_addr m1 = mac(6);
	struct uf_ip6 a = { { 0x20, 0x01, 0x0d, 0xb8, [15] = 7 } };
	uint64_t t, failed_at = 0;
	int e, seen = 0;

	setup_live();
	e = uf_neigh_add6(&tbl, 0, &a, NULL, 0);
	uf_neigh_set_live(&tbl, e, true, 0);
	for (t = 0; t < 10; t++)
		uf_neigh_tick46(&tbl, t, record, record6, &rec);
	CHECK_EQ(uf_neigh_learn6(&tbl, 0, &a, &m1, true, 10), true);
	rec.n = 0;
	for (t = 11; t < 3000; t++) {
		rec.now = t;
		if (seen < rec.n && rec.s[seen].at + 1 == t && t < 1000)
			uf_neigh_learn6(&tbl, 0, &a, NULL, false, t); /* NA, no TLLA */
		seen = rec.n;
		if (uf_neigh_tick46(&tbl, t, record, record6, &rec) && failed_at == 0)
			failed_at = t;
	}
	CHECK(rec.n > 0 && rec.s[0].is_ip6 && !rec.s[0].bcast, "unicast NS");
	CHECK_MEM(rec.s[0].mac.addr_bytes, m1.addr_bytes, 6);
	CHECK(failed_at >= 1000 + MISSES * LIVE && failed_at <= 1000 + (MISSES + 1) * LIVE,
	      "FAILED at %" PRIu64, failed_at);
	CHECK_EQ(tbl.e[e].live_downs, 1);
}

int
main(void)
{
	RUN(test_incomplete_backoff_and_failed);
	RUN(test_learn);
	RUN(test_probe_then_failed);
	RUN(test_probe_answered);
	RUN(test_static);
	RUN(test_failed_unicast_recovery);
	RUN(test_port_up);
	RUN(test_table_full);
	RUN(test_next_ms);
	RUN(test_state_names);
	RUN(test_v6_incomplete_failed);
	RUN(test_v6_learn_override);
	RUN(test_v6_failed_recovery);
	RUN(test_liveness_down_and_back);
	RUN(test_liveness_off);
	RUN(test_liveness_spread);
	RUN(test_liveness_account);
	RUN(test_liveness_v6);
	return uf_t_summary();
}
