/* SPDX-License-Identifier: BSD-3-Clause
 * The lanes of a plan with several listeners (docs/architecture.md#listeners): IPv6
 * listeners' datagrams through the fast test and their views (docs/architecture.md#ipv6),
 * IPv4 listeners' N = 1 views (single6, single_keep, single_own). A unit of its own: compiled
 * into uf_fwd.c, its code moved GCC's inlining there and cost the v4 -> v6 N = 4 body of one
 * listener 3.6 instructions a datagram, twice (callgrind, docs/benchmarks.md#log).
 */
#include "uf_fwd_dp.h"
#include "uf_fwd_lanes.h"

/* N = 1 of an IPv4 listener's view to an untagged IPv6 destination (single6), in two passes
 * (a listener's datagrams): each rewritten in place into its IPv6 copy (uf_single46_one), as
 * the one-listener loop does */
void
uf_fanout_single46(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
		   const struct uf_rx_info *ins, uint16_t n, struct uf_lis_ctr *lc)
{
	struct uf_single s;
	const struct uf_tmpl6 *t6;
	uint16_t i;

	uf_single_begin(&s, w, plan, n, true);
	t6 = &plan->d6[s.di].t6;
	for (i = 0; i < n; i++)
		uf_single46_one(&s, t6, pkts[i], &ins[i]);
	uf_single_end(w, &s, lc);
}

/* N = 1 of an IPv4 listener's view whose engine is single_keep or single_own, in two passes:
 * each datagram rewritten in place with the template's form known (uf_fanout_single) */
void
uf_fan_single_form(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
		   const struct uf_rx_info *ins, uint16_t n, struct uf_lis_ctr *lc)
{
	if (plan->engine == UF_ENG_SINGLE_KEEP)
		uf_fanout_single(w, plan, pkts, ins, n, lc, false, UF_HDR_PLAIN_KEEP_SPORT);
	else
		uf_fanout_single(w, plan, pkts, ins, n, lc, false, UF_HDR_PLAIN_OWN_SPORT);
}

/*
 * n IPv6 datagrams (m[], in[]) of a plan with n_lis listeners grouped by listener (lis[]),
 * stably: a counting sort into m_out[], in_out[]. cnt[l + 1] is listener l's count on entry,
 * cnt[l] its first slot on return. False, and nothing moved, when all are one listener's.
 * As the IPv4 datagrams are grouped (worker_fan_listeners, uf_fwd.c).
 */
static bool
sort6_by_listener(uint16_t *cnt, uint32_t n_lis, const uint8_t *lis, struct rte_mbuf **m,
		  const struct uf_rx6_info *in, uint16_t n, struct rte_mbuf **m_out,
		  struct uf_rx6_info *in_out)
{
	uint16_t at[UF_MAX_LISTENERS];
	uint16_t i;
	uint32_t l;

	for (l = 1; l <= n_lis; l++)
		cnt[l] = (uint16_t)(cnt[l] + cnt[l - 1]);
	if (likely(cnt[lis[0] + 1] - cnt[lis[0]] == n))
		return false;
	memcpy(at, cnt, sizeof(at));
	for (i = 0; i < n; i++) {
		const uint16_t k = at[lis[i]]++;

		m_out[k] = m[i];
		in_out[k] = in[i];
	}
	return true;
}

/* worker_fan6's datagrams, each listener's in one run whatever path took them (uf_fwd_lanes.h) */
void
uf_fan6_by_listener(struct uf_worker *w, const struct uf_plan *plan, const struct uf_plan **view,
		    uint8_t *lis, uint16_t n)
{
	struct rte_mbuf *m[UF_MAX_BURST];
	struct uf_rx6_info in[UF_MAX_BURST];
	uint16_t cnt[UF_MAX_LISTENERS + 1] = { 0 };
	uint16_t i, j;
	uint32_t l;

	for (i = 0; i < n; i++)
		cnt[lis[i] + 1]++;
	if (!sort6_by_listener(cnt, plan->n_listeners, lis, w->rx6_m, w->rx6_in, n, m, in))
		return;
	memcpy(w->rx6_m, m, (size_t)n * sizeof(m[0]));
	memcpy(w->rx6_in, in, (size_t)n * sizeof(in[0]));
	for (l = 0; l < plan->n_listeners; l++)
		for (j = cnt[l]; j < cnt[l + 1]; j++) {
			lis[j] = (uint8_t)l;
			view[j] = &plan->lis[l];
		}
}

/*
 * One listener's IPv6 datagrams of a burst that the fast test took (payload right after the
 * IPv6 header), through its view (docs/architecture.md#listeners): N = 1 to an untagged IPv6
 * destination (the view's engine single6) rewritten in place as worker_rx_port6_body's
 * single loop does, any other view through the mixed engine as worker_fan6 sends it; counted
 * as the listener's.
 */
static __rte_noinline void
fan6_listener(struct uf_worker *w, const struct uf_plan *view, struct rte_mbuf **ms,
	      struct uf_rx6_info *ins, uint16_t n, struct uf_lis_ctr *lc)
{
	struct uf_single one;
	const struct uf_tmpl6 *t6;
	uint16_t i;

	if (view->engine != UF_ENG_SINGLE6) {
		uf_fanout_generic(w, view, ms, NULL, ins, n, lc);
		return;
	}
	uf_single_begin(&one, w, view, n, true);
	t6 = &view->d6[one.di].t6;
	for (i = 0; i < n; i++) {
		if (one.keep6) /* uf_single_begin's: the default template */
			uf_single6_keep(&one, t6, ms[i], rte_pktmbuf_mtod(ms[i], uint8_t *),
					&ins[i]);
		else
			uf_single6_one(&one, t6, ms[i], &ins[i]);
	}
	uf_single_end(w, &one, lc);
}

/*
 * A burst on a port of a plan with several listeners, some of them IPv6 (the IPv6 lane of
 * docs/architecture.md#listeners): the datagrams to the address of the port's first IPv6
 * listener on one of its own addresses that the fast test takes, whatever their UDP port, find their listener by its
 * lookup (uf_plan_listener6), are grouped by it (sort6_by_listener), and go through its
 * view (fan6_listener). Every other frame (IPv4, another address, NDP, a UDP port no listener
 * has, anything the fast test does not decide) goes through the one classify loop after them
 * (uf_worker_rx_listeners), as it would without the lane. The same frames and counters as that
 * loop alone (fanout_diff, eal), but for the order of a burst's datagrams that took
 * different paths.
 */
void
uf_worker_rx_listeners6(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi,
			struct rte_mbuf **pkts, uint16_t n)
{
	const struct uf_port6_id *p6 = &w->port6[pi];
	const uint64_t ignore = w->ports[pi].id.rx_ck_ignore;
	const bool partial = w->ports[pi].id.partial_csum;
	struct rte_mbuf *fast[UF_MAX_BURST], *rest[UF_MAX_BURST], *sorted[UF_MAX_BURST];
	struct uf_rx6_info in6[UF_MAX_BURST], sorted_in[UF_MAX_BURST];
	uint16_t cnt[UF_MAX_LISTENERS + 1];
	uint8_t lis[UF_MAX_BURST];
	struct uf_fast6 pat;
	uint16_t nk = 0, nr = 0, i;
	const uint16_t pf_end = n > PREFETCH_AHEAD ? (uint16_t)(n - PREFETCH_AHEAD) : 0;
	int k = -1, l;

	/* the address of the port's first IPv6 listener on one of the port's own addresses (one
	 * on a service address is left to the classify loop) */
	for (l = 0; l < plan->n_lis6 && k < 0; l++)
		if (plan->lis6_pi[l] == pi && p6->listen)
			k = uf_port6_addr(p6, plan->lis6_ip[l].b);
	if (k < 0) {
		uf_worker_rx_listeners(w, plan, pi, pkts, n);
		return;
	}
	uf_fast6_init(&pat, p6, &p6->ip6[k], (uint8_t)k, 0);
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < n && i < PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
		const uint64_t ol = m->ol_flags & ~ignore;
		struct uf_rx6_info *info = &in6[nk];

		if (i < pf_end)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_AHEAD], void *));
		/* an IPv4 frame (or any other not IPv6) to the classify loop at the first test */
		if (uf_rd16(f + UF_ETH_TYPE) == RTE_BE16(RTE_ETHER_TYPE_IPV6) &&
		    likely(m->nb_segs == 1) &&
		    likely(uf_classify6_fast_port(f, m->data_len, ol, &pat, info, true)) &&
		    likely(uf_plan_listener6(plan, pi, &p6->ip6[k],
					     uf_rd16(f + UF_HDR6_LEN - UF_UDP_HDR + UF_UDP_DPORT),
					     &l) != NULL)) {
			/* as worker_rx6 */
			if (unlikely(partial) && uf_csum6_complete(f, ol, info))
				w->ctr.csum_completed++;
			w->lctr[l].rx++;
			cnt[l + 1]++;
			lis[nk] = (uint8_t)l;
			fast[nk++] = m;
		} else {
			rest[nr++] = m;
		}
	}
	w->ctr.rx += nk;
	if (likely(nk > 0)) {
		const bool moved = sort6_by_listener(cnt, plan->n_listeners, lis, fast, in6, nk,
						     sorted, sorted_in);
		struct rte_mbuf **sp = moved ? sorted : fast;
		struct uf_rx6_info *sip = moved ? sorted_in : in6;

		for (l = 0; l < plan->n_listeners; l++) {
			const uint16_t first = cnt[l], cn = (uint16_t)(cnt[l + 1] - cnt[l]);

			if (cn != 0)
				fan6_listener(w, &plan->lis[l], sp + first, sip + first, cn,
					      &w->lctr[l]);
		}
	}
	if (unlikely(nr > 0))
		uf_worker_rx_listeners(w, plan, pi, rest, nr);
}
