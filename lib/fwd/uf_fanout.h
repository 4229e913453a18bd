/* SPDX-License-Identifier: BSD-3-Clause
 * The fan-out engines: one body, specialised by constant flags, and the switch on the plan
 * view's engine (docs/architecture.md#fan-out). Included through uf_fwd_dp.h.
 */
#ifndef UF_FANOUT_H
#define UF_FANOUT_H

#include "uf_copy.h"
#include "uf_select.h"
#include "uf_txbuf.h"

/* What a set gives the body: read once per burst for a simple plan, per datagram otherwise. */
struct uf_set_view {
	const uint16_t *members; /* destination indexes, set order */
	uint16_t n;
	uint16_t max_payload;
	uint32_t chain_min; /* chain at and above this payload (UINT32_MAX: never) */
};

static __rte_always_inline void
uf_set_view(struct uf_set_view *v, const struct uf_worker *w, const struct uf_plan *plan,
	    const struct uf_set *set, const bool mixed)
{
	v->members = &plan->set_dests[set->first];
	v->n = set->n;
	v->max_payload = set->max_payload;
	v->chain_min = !mixed && plan->fanout != UF_FANOUT_COPY && w->hdr_pool != NULL &&
						       set->chain_ok
				       ? set->chain_min_payload
				       : UINT32_MAX;
}

/* One frame for destination d onto its TX buffer: the one of a one-egress burst (fill level
 * in a register), or d's egress port's. count_copy: the per-destination count goes per frame
 * (a simple plan counts it per burst). */
static __rte_always_inline void
uf_fan_emit(struct uf_worker *w, const struct uf_dest_rt *d, struct rte_mbuf *f,
	    const bool count_copy, const bool one_egress, struct uf_txbuf *egress_txb,
	    uint16_t *egress_fill, uint16_t burst)
{
	if (count_copy)
		w->dctr[d->idx].copies++;
	if (one_egress) {
		uf_txb_push(w, egress_txb, egress_fill, f, d->idx, burst);
	} else {
		struct uf_txbuf *b = &w->txb[d->egress];

		uf_txb_push(w, b, &b->n, f, d->idx, burst);
	}
}

/* The header of a copy of the mixed engine for destination d (d6: its IPv6 side, NULL in a
 * view without IPv6) at h, hl bytes (uf_mixed_hl), by the destination's family */
static __rte_always_inline uint32_t
uf_mixed_hl(const struct uf_dest_rt *d, const struct uf_dest6_rt *d6)
{
	if (d6 != NULL && d6->is6)
		return d6->vlan ? UF_HDR6_LEN + UF_VLAN_LEN : UF_HDR6_LEN;
	return d->tmpl.hdr_len;
}

static __rte_always_inline void
uf_mixed_hdr(uint8_t *h, uint32_t hl, const struct uf_dest_rt *d, const struct uf_dest6_rt *d6,
	     const struct uf_rx_info *in, uint32_t p_sum, const struct uf_hdr6_dg *g6, bool cksum)
{
	if (d6 != NULL && d6->is6) {
		uf_hdr6_write_dg(h + (hl - UF_HDR6_LEN), &d6->t6, g6);
		if (d6->vlan)
			uf_vlan_insert(h, d6->vlan_tci);
	} else if (g6->src6 != NULL) {
		/* an IPv4 copy of an IPv6 datagram: the stand-in's source (uf_rx_info_from6) */
		struct uf_rx_info in4 = *in;

		in4.src_ip = uf_stand_in_src(g6->src6);
		uf_hdr_write(h, &d->tmpl, &in4, p_sum, cksum);
	} else {
		uf_hdr_write(h, &d->tmpl, in, p_sum, cksum);
	}
}

/*
 * The copies of one datagram of the mixed engine (IPv6 involved): each header written by its
 * destination's family, uf_hdr6_write (the UDP checksum always: mandatory in IPv6) or the
 * IPv4 writer (for an IPv6 datagram, from the stand-in uf_rx_info_from6 gives and a template
 * made by uf_tmpl_from6). An IPv6 destination on a tagged port: the header is written 4
 * bytes in and the tag put in front (uf_vlan_insert). Every copy but the last is a fresh
 * buffer (bufs, maybe raw: a simple plan's bulk get; the frame at the default headroom, every
 * mbuf field set by uf_mbuf_tx_init), the payload loaded once (uf_payload_load); the last
 * the received mbuf rewritten in place: its headers, 42 to 66 bytes whatever the family, give
 * way to the copy's, 42 to 66 (the headroom takes the difference).
 */
static __rte_always_inline void
uf_fan_mixed(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf *m,
	     struct rte_mbuf **bufs, const uint16_t *copy_to, uint16_t n_copies,
	     const struct uf_rx_info *in, const uint8_t *payload, uint32_t p_sum,
	     const struct uf_ip6 *src6, uint32_t src_neg, bool cksum, uint16_t burst,
	     const bool count_copy, const bool one_egress, struct uf_txbuf *egress_txb,
	     uint16_t *egress_fill, uint16_t egress_pad)
{
	/* NULL: a view without IPv6 (the differential test runs this engine there) */
	const struct uf_dest6_rt *d6s = plan->d6;
	const uint32_t plen = in->payload_len;
	struct uf_hdr6_dg g6; /* what the IPv6 copies share */
	struct uf_payload pl;
	uint16_t j;

	uf_hdr6_dg_init(&g6, in->payload_len, in->tos, in->src_port, src6, p_sum, src_neg);

	RTE_ASSERT(n_copies > 0); /* the body frees a datagram with none */
	if (n_copies > 1)
		uf_payload_load(&pl, payload, plen);
	for (j = 0; j + 1 < n_copies; j++) {
		const struct uf_dest_rt *d = &plan->dests[copy_to[j]];
		const struct uf_dest6_rt *d6 = d6s != NULL ? &d6s[copy_to[j]] : NULL;
		struct rte_mbuf *c = bufs[j];
		const uint16_t pad_to = one_egress ? egress_pad : w->txb[d->egress].pad_to;
		const uint32_t hl = uf_mixed_hl(d, d6);
		uint32_t len = hl + plen;
		uint8_t *h = (uint8_t *)c->buf_addr + RTE_PKTMBUF_HEADROOM;

		uf_mixed_hdr(h, hl, d, d6, in, p_sum, &g6, cksum);
		uf_payload_copy(h + hl, &pl);
		if (unlikely(len < pad_to)) {
			memset(h + len, 0, pad_to - len);
			len = pad_to;
		}
		uf_mbuf_tx_init(c, len);
		uf_fan_emit(w, d, c, count_copy, one_egress, egress_txb, egress_fill, burst);
	}
	{
		const struct uf_dest_rt *d = &plan->dests[copy_to[j]];
		const struct uf_dest6_rt *d6 = d6s != NULL ? &d6s[copy_to[j]] : NULL;
		const uint16_t pad_to = one_egress ? egress_pad : w->txb[d->egress].pad_to;
		const uint32_t hl = uf_mixed_hl(d, d6);
		uint32_t len = hl + plen;
		uint8_t *h;

		/* in place: the received headers (their fields already read into `in`) give way
		 * to the copy's, the payload stays where it is */
		m->data_off = (uint16_t)(m->data_off + in->payload_off - hl);
		m->ol_flags = 0;
		h = rte_pktmbuf_mtod(m, uint8_t *);
		uf_mixed_hdr(h, hl, d, d6, in, p_sum, &g6, cksum);
		if (unlikely(len < pad_to)) {
			memset(h + len, 0, pad_to - len);
			len = pad_to;
		}
		m->data_len = (uint16_t)len;
		m->pkt_len = len;
		uf_fan_emit(w, d, m, count_copy, one_egress, egress_txb, egress_fill, burst);
	}
}

/*
 * uf_fan_mixed for what nearly every datagram of a one-egress plan whose destinations are all
 * untagged IPv6 is (the IPv4 small-copy loop's case, docs/architecture.md#ipv6): payload 16
 * to 32 bytes, a frame at least the port's minimum, every buffer found, all its copies fit in
 * the TX buffer. The caller has tested that once for the datagram; here no copy tests its
 * family, tag, padding or buffer space, and the frames go into the TX buffer's slots (and
 * their destinations' into dslot) directly. d6s, dests: the set's, looked up once per burst.
 */
static __rte_always_inline void
uf_fan6_small(struct rte_mbuf *m, struct rte_mbuf **bufs, const struct uf_dest6_rt *const *d6s,
	      const struct uf_dest_rt *const *dests, uint16_t n_copies, const struct uf_rx_info *in,
	      const uint8_t *payload, uint32_t p_sum, const struct uf_ip6 *src6, uint32_t src_neg,
	      struct rte_mbuf **slot, uint16_t *dslot, const bool keep_sport_only)
{
	const uint32_t len = UF_HDR6_LEN + in->payload_len;
	const uf_mbuf_len_t ml = uf_mbuf_len(len);
	struct uf_hdr6_dg g6;
	struct uf_payload pl;
	uint16_t j;
	uint8_t *h;

	uf_hdr6_dg_init(&g6, in->payload_len, in->tos, in->src_port, src6, p_sum, src_neg);
	uf_payload_load(&pl, payload, in->payload_len);
	for (j = 0; j + 1 < n_copies; j++) {
		struct rte_mbuf *c = bufs[j];

		h = (uint8_t *)c->buf_addr + RTE_PKTMBUF_HEADROOM;
		uf_hdr6_write_dg_l(h, &d6s[j]->t6, &g6, true, keep_sport_only);
		uf_v16_store(h + UF_HDR6_LEN, pl.a);
		uf_v16_store(h + len - 16, pl.b);
		uf_mbuf_tx_init_l(c, ml);
		slot[j] = c;
		dslot[j] = dests[j]->idx;
	}
	/* the last in place: nothing to move where the received headers are the copy's length
	 * (IPv6 in without extension headers) */
	if (in->payload_off != UF_HDR6_LEN)
		m->data_off = (uint16_t)(m->data_off + in->payload_off - UF_HDR6_LEN);
	m->ol_flags = 0;
	h = rte_pktmbuf_mtod(m, uint8_t *);
	uf_hdr6_write_dg_l(h, &d6s[j]->t6, &g6, false, keep_sport_only);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	slot[j] = m;
	dslot[j] = dests[j]->idx;
}

/*
 * uf_fanout_body's leading run of datagrams that take uf_fan6_small with nothing else to
 * decide (payload in [lo, lo + span], the copies' buffers from the stash at *sb, set.n - 1 a
 * datagram, all of them fitting the TX buffer), up to the first that does not: from ins6
 * (six_in) or ins, whose IPv4 datagrams go to the IPv6 copies with their own checksum's sum
 * (uf_in_sum) and source. Returns how many it took; *sb and *fill move on.
 */
static __rte_always_inline uint16_t
uf_fan6_small_run(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
		  const struct uf_rx_info *ins, const struct uf_rx6_info *ins6, uint16_t n,
		  uint32_t lo, uint32_t span, uint16_t nc, const struct uf_dest6_rt *const *d6s,
		  const struct uf_dest_rt *const *dests, struct uf_txbuf *txb, uint16_t *fill,
		  uint16_t burst, struct rte_mbuf ***sb, const bool six_in)
{
	/* the fill after which a datagram's copies no longer fit */
	const int fill_max = (int)burst - nc;
	struct rte_mbuf **b = *sb;
	uint16_t f = *fill, i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct uf_rx_info in6_in;
		const struct uf_rx_info *in = six_in ? &in6_in : &ins[i];
		const uint16_t plen = six_in ? ins6[i].payload_len : in->payload_len;
		const uint8_t *payload;

		if (unlikely((uint32_t)(plen - lo) > span || (int)f > fill_max))
			break;
		if (six_in) {
			uf_rx_info_from6_l(&ins6[i], &in6_in, false);
			payload = rte_pktmbuf_mtod_offset(m, const uint8_t *, ins6[i].payload_off);
			uf_fan6_small(m, b, d6s, dests, nc, in, payload, uf_in6_sum(&ins6[i]),
				      &ins6[i].src_ip6, uf_in_src_neg6(&ins6[i].src_ip6),
				      txb->m + f, txb->dest + f, true);
		} else {
			/* the IPv6 copies need the sum even where the datagram carries none */
			payload = rte_pktmbuf_mtod_offset(m, const uint8_t *, in->payload_off);
			uf_fan6_small(m, b, d6s, dests, nc, in, payload,
				      uf_in_sum(in, payload, plan->in_dst_ip, plan->in_dst_port),
				      NULL, uf_in_src_neg4(in->src_ip), txb->m + f, txb->dest + f,
				      true);
		}
		f = (uint16_t)(f + nc);
		if (unlikely(f >= burst)) {
			txb->n = f;
			uf_txb_flush(w, txb, w->id);
			f = 0;
		}
		b += nc - 1;
	}
	*sb = b;
	*fill = f;
	return i;
}

/* Buffers for the copies of a simple plan, taken for the whole burst in one bulk get (each
 * get pays the per-lcore cache lookup); larger bursts x sets take them per datagram. */
#define UF_BURST_STASH 256

/*
 * The copies of what nearly every datagram of the common plan is (untagged, one egress, 16
 * to 32 bytes, no padding, every buffer found, all its copies fit in the TX buffer): its tests
 * taken once for all its copies, not per copy, and the buffer checked for a full burst once,
 * after the last copy (callgrind: docs/benchmarks.md#log, 2026-12-02). bufs: n_copies - 1
 * fresh buffers; m the last copy, in place; dests: set 0's destinations, last its last.
 */
static __rte_always_inline void
uf_fan_small(struct uf_worker *w, struct rte_mbuf *m, const struct uf_rx_info *in,
	     struct rte_mbuf **bufs, uint16_t n_copies, const struct uf_dest_rt *const *dests,
	     const struct uf_dest_rt *last, const struct uf_payload *pl, const struct uf_hdr_dg *dg,
	     bool cksum, const enum uf_hdr_form form, struct uf_txbuf *txb, uint16_t *fill,
	     uint16_t burst)
{
	const uint32_t flen = UF_HDR_LEN + pl->n;
	const uf_mbuf_len_t ml = uf_mbuf_len(flen);
	struct rte_mbuf **slot = txb->m + *fill;
	uint16_t *dslot = txb->dest + *fill;
	uint16_t j;

	for (j = 0; j + 1 < n_copies; j++) {
		const struct uf_dest_rt *d = dests[j];
		struct rte_mbuf *c = bufs[j];

		uf_copy_small(c, d, pl, dg, cksum, flen, ml, form);
		slot[j] = c;
		dslot[j] = d->idx;
	}
	uf_inplace(m, last, in, 0, dg, cksum, 0, false, form);
	slot[j] = m;
	dslot[j] = last->idx;
	*fill = (uint16_t)(*fill + n_copies);
	if (unlikely(*fill >= burst)) {
		txb->n = *fill;
		uf_txb_flush(w, txb, w->id);
		*fill = 0;
	}
}

/*
 * Fan a burst of datagrams out; takes ownership of every mbuf, on every path. The one body
 * of every engine but N = 1's (docs/architecture.md#fan-out), specialised by constant flags
 * (each call site passes literals, and the compiler drops what a specialisation does not
 * use):
 *
 *   simple  no rules, set 0 simple (every member resolved, none sampled). The set is
 *                read once per burst, its copy list is its member list, the copy buffers
 *                come raw from one bulk get per burst (uf_mbuf_tx_init sets every field as
 *                it writes each copy), and forwarded, fanout, copies_attempted and each
 *                destination's copies are added once per burst.
 *   one_egress   with simple: every member leaves through one port; that TX buffer's
 *                fill level stays in a register for the whole burst.
 *   vlan         a destination's template may be tagged: the header's form per copy.
 *   form         what every template is (uf_set.hdr_form), so no copy tests its mode.
 *   mixed        IPv6 involved: ins6 (IPv6 datagrams) or ins (IPv4 ones), IPv6 rules, a
 *                family per copy (uf_fan_mixed), no chaining; with simple (and one_egress)
 *                the set, buffers and counters per burst as for IPv4.
 *
 * Otherwise (the generic specialisation), per datagram: the rule set (no_rule), the size
 * (too_big), then uf_select for sampling and resolution (no_neighbor), with the counters
 * added per datagram. Either way the partial-allocation rule is the same: the copies that
 * found no buffer are the first ones in set order (tx_drop.nombuf), the in-place copy always
 * goes, and a chained datagram without a single header mbuf is dropped whole (drop.nombuf)
 * before anything else is counted. lc: the listener's counters where the plan has several
 * (NULL: one), added with the worker's.
 */
static __rte_always_inline void
uf_fanout_body(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
	       const struct uf_rx_info *ins, const struct uf_rx6_info *ins6, uint16_t n,
	       struct uf_lis_ctr *lc, const bool simple, const bool one_egress, const bool vlan,
	       const enum uf_hdr_form form, const bool mixed)
{
	const bool cksum = plan->udp_cksum;
	/* read once: a store into a TX buffer's uint16_t dest[] may alias w->burst */
	const uint16_t burst = w->burst;
	struct uf_set_view plan_set;               /* simple: set 0, for the whole burst */
	const struct uf_dest_rt *plan_last = NULL; /* simple: its in-place copy's */
	struct uf_txbuf *egress_txb = NULL;        /* one_egress: the one TX buffer, and its fill */
	uint16_t egress_fill = 0, egress_pad = 0;
	/* one_egress: set 0's destinations, looked up once per burst */
	const struct uf_dest_rt *egress_dests[UF_MAX_DESTS];
	/* one_egress with mixed: their IPv6 sides, and whether all are untagged IPv6 */
	const struct uf_dest6_rt *egress_d6[UF_MAX_DESTS];
	bool egress_all6 = false, egress_sport6 = false; /* and all keep only the sender's port */
	struct rte_mbuf *stash[UF_BURST_STASH];
	uint32_t n_stash = 0, stash_used = 0;
	/* counted once at the end */
	uint64_t n_forwarded = 0, n_fanout = 0, n_attempted = 0, n_chained = 0;
	uint32_t n_no_rule = 0, n_too_big = 0, n_no_neighbor = 0, n_nombuf = 0, n_copy_nombuf = 0;
	uint32_t n_sampled_all = 0;
	uint16_t i, j;

	RTE_ASSERT(simple || !one_egress);
	RTE_ASSERT(!mixed || form == UF_HDR_ANY);
	if (simple) {
		uf_set_view(&plan_set, w, plan, &plan->sets[0], mixed);
		plan_last = &plan->dests[plan_set.members[plan_set.n - 1]];
		if (one_egress) {
			egress_txb = &w->txb[plan->dests[plan_set.members[plan_set.n - 1]].egress];
			egress_fill = egress_txb->n;
			egress_pad = egress_txb->pad_to;
			for (j = 0; j < plan_set.n; j++)
				egress_dests[j] = &plan->dests[plan_set.members[j]];
			if (mixed && plan->d6 != NULL) {
				egress_all6 = egress_sport6 = true;
				for (j = 0; j < plan_set.n; j++) {
					const struct uf_dest6_rt *d6 =
							&plan->d6[plan_set.members[j]];

					egress_d6[j] = d6;
					egress_all6 &= d6->is6 && !d6->vlan;
					egress_sport6 &= d6->t6.keep_sport && !d6->t6.keep_src_ip;
				}
			}
		}
		if (plan_set.n > 1 && (uint32_t)n * (plan_set.n - 1) <= UF_BURST_STASH &&
		    likely(rte_mempool_get_bulk(w->copy_pool, (void **)stash,
						n * (plan_set.n - 1)) == 0))
			n_stash = (uint32_t)n * (plan_set.n - 1);
	}

	i = 0;
	/*
	 * One egress, untagged: the burst's datagrams that take uf_fan_small's path with nothing
	 * else to decide (payload in [lo, lo + span]: 16 to 32 bytes, no padding, neither too
	 * big nor chained; buffers from the stash, which holds set.n - 1 for every datagram),
	 * in a loop of their own, up to the first that does not; the rest go through the loop
	 * below, in order. The loop below kept every test and counter live for these too, and
	 * spilled them (callgrind: docs/benchmarks.md#log).
	 */
	if (simple && one_egress && !vlan && !mixed && n_stash != 0 && plan_set.chain_min > 0) {
		const uint32_t lo = RTE_MAX(16u, egress_pad > UF_HDR_LEN
								 ? (uint32_t)egress_pad - UF_HDR_LEN
								 : 0u);
		const uint32_t hi = RTE_MIN(RTE_MIN(32u, (uint32_t)plan_set.max_payload),
					    plan_set.chain_min - 1);
		const uint32_t span = hi - lo;
		const uint16_t nc = plan_set.n, want = (uint16_t)(nc - 1);
		/* the fill after which a datagram's copies no longer fit */
		const int fill_max = (int)burst - nc;
		struct rte_mbuf **sb = stash; /* the next datagram's buffers */

		for (; hi >= lo && i < n; i++) {
			const struct uf_rx_info *in = &ins[i];
			struct rte_mbuf *m = pkts[i];
			const uint8_t *payload;
			uint32_t p_sum = 0;
			struct uf_hdr_dg dg;
			struct uf_payload pl;

			if (unlikely((uint32_t)(in->payload_len - lo) > span ||
				     (int)egress_fill > fill_max))
				break;
			payload = rte_pktmbuf_mtod_offset(m, const uint8_t *, in->payload_off);
			if (cksum)
				p_sum = uf_in_sum(in, payload, plan->in_dst_ip, plan->in_dst_port);
			uf_hdr_dg_init(&dg, in, p_sum);
			uf_payload_load(&pl, payload, in->payload_len);
			uf_fan_small(w, m, in, sb, nc, egress_dests, plan_last, &pl, &dg, cksum,
				     form, egress_txb, &egress_fill, burst);
			sb += want;
		}
		stash_used = (uint32_t)(sb - stash);
		n_forwarded = i;
	}
	/* the same for the datagrams, IPv6 or IPv4, of a one-egress set of untagged IPv6
	 * destinations that keep the sender's port only (the default): uf_fan6_small, in a loop
	 * of its own, one instance per input family */
	if (simple && one_egress && mixed && egress_all6 && egress_sport6 && n_stash != 0) {
		const uint32_t lo = RTE_MAX(
				16u,
				egress_pad > UF_HDR6_LEN ? (uint32_t)egress_pad - UF_HDR6_LEN : 0u);
		const uint32_t hi = RTE_MIN(32u, (uint32_t)plan_set.max_payload);
		struct rte_mbuf **sb = stash;

		RTE_ASSERT(i == 0); /* the IPv4 loop above is for plans without IPv6 */
		if (hi >= lo && ins6 != NULL)
			i = uf_fan6_small_run(w, plan, pkts, NULL, ins6, n, lo, hi - lo, plan_set.n,
					      egress_d6, egress_dests, egress_txb, &egress_fill,
					      burst, &sb, true);
		else if (hi >= lo)
			i = uf_fan6_small_run(w, plan, pkts, ins, NULL, n, lo, hi - lo, plan_set.n,
					      egress_d6, egress_dests, egress_txb, &egress_fill,
					      burst, &sb, false);
		stash_used = (uint32_t)(sb - stash);
		n_forwarded = i;
	}

	for (; i < n; i++) {
		const bool in6 = mixed && ins6 != NULL;
		struct uf_rx_info stand_in;
		const struct uf_rx_info *in = in6 ? &stand_in : &ins[i];
		const struct uf_ip6 *src6 = in6 ? &ins6[i].src_ip6 : NULL;
		struct rte_mbuf *m = pkts[i];
		struct uf_set_view set_buf;
		const struct uf_set_view *set = &plan_set;
		uint16_t select_buf[UF_MAX_DESTS], unresolved[UF_MAX_DESTS], sampled[UF_MAX_DESTS];
		struct rte_mbuf *fresh[UF_MAX_DESTS], **bufs = fresh;
		const uint16_t *copy_to; /* copies to build, in order; the last is m itself */
		uint16_t n_copies, n_unresolved = 0, n_sampled = 0, want, got, missed;
		uint32_t n_failover = 0;
		const uint8_t *payload;
		uint32_t p_sum = 0;
		struct uf_hdr_dg dg;
		bool chain;

		if (in6)
			/* its src_ip: what uf_select hashes (a simple plan: only an IPv4 copy
			 * needs it, and uf_mixed_hdr makes it there) */
			uf_rx_info_from6_l(&ins6[i], &stand_in, !simple);
		if (!simple) {
			const struct uf_set *s = &plan->sets[0];

			if (in6 ? plan->n_rules6 > 0 : plan->lpm != NULL) {
				uint32_t nh;
				const bool hit = in6 ? uf_plan_lookup6(plan, src6, &nh)
						     : uf_plan_lookup(plan, in->src_ip, &nh);

				if (unlikely(!hit)) {
					n_no_rule++;
					rte_pktmbuf_free(m);
					continue;
				}
				s = &plan->sets[nh];
			}
			uf_set_view(&set_buf, w, plan, s, mixed);
			set = &set_buf;
			if (unlikely(in->payload_len > set->max_payload)) {
				n_too_big++;
				rte_pktmbuf_free(m);
				continue;
			}
			if (likely(s->simple)) {
				copy_to = set->members;
				n_copies = set->n;
			} else {
				if (unlikely(!s->any_resolved)) {
					n_no_neighbor++;
					for (j = 0; j < set->n; j++)
						w->dctr[set->members[j]].no_neighbor++;
					rte_pktmbuf_free(m);
					continue;
				}
				n_copies = uf_select(w, plan, s, in, select_buf, unresolved,
						     &n_unresolved, sampled, &n_sampled,
						     &n_failover);
				copy_to = select_buf;
			}
		} else {
			if (unlikely(in->payload_len > set->max_payload)) {
				n_too_big++;
				rte_pktmbuf_free(m);
				continue;
			}
			copy_to = set->members;
			n_copies = set->n;
		}

		/* buffers: header mbufs for all when chaining, else copies for all but the last */
		chain = !mixed && in->payload_len >= set->chain_min && n_copies > 1;
		want = chain ? n_copies : (uint16_t)(n_copies > 0 ? n_copies - 1 : 0);
		if (simple && !chain && likely(stash_used + want <= n_stash)) {
			bufs = stash + stash_used;
			stash_used += want;
			got = want;
		} else {
			got = want > 0 ? uf_alloc_upto(chain ? w->hdr_pool : w->copy_pool, fresh,
						       want)
				       : 0;
		}
		if (unlikely(chain && got == 0)) {
			n_nombuf++;
			rte_pktmbuf_free(m);
			continue;
		}

		n_forwarded++;
		if (!simple) {
			n_fanout += set->n;
			n_attempted += n_copies + n_unresolved;
			uf_select_done(w, unresolved, n_unresolved, sampled, n_sampled, n_failover);
			n_sampled_all += n_sampled;
			if (unlikely(n_copies == 0)) {
				rte_pktmbuf_free(m);
				continue;
			}
		}
		missed = (uint16_t)(want - got);
		if (unlikely(missed > 0)) {
			/* the copies that found no buffer: the first ones */
			for (j = 0; j < missed; j++) {
				if (!simple) /* a simple plan counts copies per burst */
					w->dctr[copy_to[j]].copies++;
				w->dctr[copy_to[j]].tx_drop++;
			}
			n_copy_nombuf += missed;
			copy_to += missed;
			n_copies = (uint16_t)(n_copies - missed);
		}

		payload = rte_pktmbuf_mtod_offset(m, const uint8_t *, in->payload_off);
		if (mixed) {
			uint32_t src_neg;

			if (in6) {
				p_sum = uf_in6_sum(&ins6[i]);
				src_neg = uf_in_src_neg6(src6);
			} else {
				/* the IPv6 copies need it even where the IPv4 ones carry none */
				p_sum = uf_in_sum(in, payload, plan->in_dst_ip, plan->in_dst_port);
				src_neg = uf_in_src_neg4(in->src_ip);
			}
			if (one_egress && egress_all6 &&
			    likely(in->payload_len - 16u <= 16 &&
				   UF_HDR6_LEN + in->payload_len >= egress_pad && missed == 0 &&
				   egress_fill + n_copies <= burst)) {
				if (egress_sport6) /* the default: `source_port: keep` */
					uf_fan6_small(m, bufs, egress_d6, egress_dests, n_copies,
						      in, payload, p_sum, src6, src_neg,
						      egress_txb->m + egress_fill,
						      egress_txb->dest + egress_fill, true);
				else
					uf_fan6_small(m, bufs, egress_d6, egress_dests, n_copies,
						      in, payload, p_sum, src6, src_neg,
						      egress_txb->m + egress_fill,
						      egress_txb->dest + egress_fill, false);
				egress_fill = (uint16_t)(egress_fill + n_copies);
				if (unlikely(egress_fill >= burst)) {
					egress_txb->n = egress_fill;
					uf_txb_flush(w, egress_txb, w->id);
					egress_fill = 0;
				}
				continue;
			}
			uf_fan_mixed(w, plan, m, bufs, copy_to, n_copies, in, payload, p_sum, src6,
				     src_neg, cksum, burst, !simple, one_egress, egress_txb,
				     &egress_fill, egress_pad);
			continue;
		}
		if (cksum)
			p_sum = uf_in_sum(in, payload, plan->in_dst_ip, plan->in_dst_port);
		uf_hdr_dg_init(&dg, in, p_sum); /* what every copy's header shares */

		if (unlikely(chain)) {
			/* m becomes the shared payload segment of n_copies frames */
			m->data_off = (uint16_t)(m->data_off + in->payload_off);
			m->data_len = in->payload_len;
			m->pkt_len = in->payload_len;
			m->ol_flags = 0;
			if (n_copies > 1)
				rte_mbuf_refcnt_update(m, (int16_t)(n_copies - 1));
			n_chained += n_copies;
			for (j = 0; j < n_copies; j++) {
				const struct uf_dest_rt *d = &plan->dests[copy_to[j]];
				struct rte_mbuf *h = bufs[j];

				uf_hdr_write_v(rte_pktmbuf_mtod(h, uint8_t *), &d->tmpl, in, 0, &dg,
					       cksum, vlan, form);
				h->data_len = (uint16_t)uf_hdr_len(&d->tmpl, vlan);
				h->pkt_len = uf_hdr_len(&d->tmpl, vlan) + in->payload_len;
				h->nb_segs = 2;
				h->next = m;
				uf_fan_emit(w, d, h, !simple, one_egress, egress_txb, &egress_fill,
					    burst);
			}
			continue;
		}
		/* the payload (and its length) read once: a store into a copy may alias it and *in
		 * for the compiler, which reloaded them per copy */
		struct uf_payload pl;

		uf_payload_load(&pl, payload, in->payload_len);
		/* the common datagram the loop above did not take (uf_fan_small) */
		if (!vlan && one_egress &&
		    likely(pl.n - 16 <= 16 && UF_HDR_LEN + pl.n >= egress_pad && missed == 0 &&
			   egress_fill + n_copies <= burst)) {
			uf_fan_small(w, m, in, bufs, n_copies, egress_dests, plan_last, &pl, &dg,
				     cksum, form, egress_txb, &egress_fill, burst);
			continue;
		}
		for (j = 0; j + 1 < n_copies; j++) {
			const struct uf_dest_rt *d = &plan->dests[copy_to[j]];

			uf_copy_one(bufs[j], d, &pl, &dg, cksum,
				    one_egress ? egress_pad : w->txb[d->egress].pad_to, vlan, form);
			uf_fan_emit(w, d, bufs[j], !simple, one_egress, egress_txb, &egress_fill,
				    burst);
		}
		{
			/* the last copy never misses a buffer: a simple plan's is known */
			const struct uf_dest_rt *d =
					simple ? plan_last : &plan->dests[copy_to[n_copies - 1]];

			uf_inplace(m, d, in, 0, &dg, cksum,
				   one_egress ? egress_pad : w->txb[d->egress].pad_to, vlan, form);
			uf_fan_emit(w, d, m, !simple, one_egress, egress_txb, &egress_fill, burst);
		}
	}

	if (one_egress)
		egress_txb->n = egress_fill;
	if (simple && unlikely(stash_used < n_stash)) /* datagrams dropped or chained */
		rte_mempool_put_bulk(w->copy_pool, (void **)(stash + stash_used),
				     n_stash - stash_used); /* raw, as they came */
	if (simple && likely(n_forwarded > 0)) {
		/* every datagram forwarded gave each member one copy (attempted) */
		for (j = 0; j < plan_set.n; j++)
			w->dctr[plan_set.members[j]].copies += n_forwarded;
		n_fanout = n_forwarded * plan_set.n;
		n_attempted = n_fanout;
	}
	w->ctr.forwarded += n_forwarded;
	w->ctr.fanout += n_fanout;
	w->ctr.copies_attempted += n_attempted;
	if (unlikely(n_chained > 0))
		w->ctr.chained += n_chained;
	if (unlikely(n_no_rule | n_too_big | n_no_neighbor | n_nombuf | n_copy_nombuf)) {
		w->ctr.drop[UF_DROP_NO_RULE] += n_no_rule;
		w->ctr.drop[UF_DROP_TOO_BIG] += n_too_big;
		w->ctr.drop[UF_DROP_NO_NEIGHBOR] += n_no_neighbor;
		w->ctr.drop[UF_DROP_NOMBUF] += n_nombuf;
		w->ctr.tx_drop[UF_TXDROP_NOMBUF] += n_copy_nombuf;
	}
	if (lc != NULL) {
		lc->forwarded += n_forwarded;
		lc->fanout += n_fanout;
		lc->copies_attempted += n_attempted;
		lc->sampled_out += n_sampled_all;
		lc->drop_no_rule += n_no_rule;
		lc->drop_too_big += n_too_big;
		lc->drop_no_neighbor += n_no_neighbor;
		lc->drop_nombuf += n_nombuf;
	}
}

/*
 * N = 1 of a simple plan: every datagram becomes its own, only copy, rewritten in place. What
 * uf_fanout_body's simple specialisation does for one member, without what a single copy
 * never needs (no buffer to take, no chaining, no copy list): the size check (too_big), the
 * header write, the TX buffer (room for the whole burst made at the start: no full-buffer
 * test per datagram), and the counters per burst.
 * Same frames and counters as the body (fanout_diff, eal, compares it with the generic one).
 * In three steps (uf_single_begin, uf_single_one per datagram, uf_single_end), so that the
 * worker's classifying pass can hand each datagram over as it finds it (uf_fwd.c).
 */
struct uf_single {
	const struct uf_dest_rt *d;
	struct uf_txbuf *b;
	struct rte_mbuf **slot; /* the TX buffer's next free entries, room for the burst */
	struct rte_mbuf **next; /* where the next datagram goes: slot + the number queued */
	uint16_t *dslot;
	rte_be32_t in_dst_ip;
	rte_be16_t in_dst_port;
	uint32_t ndelta; /* the template's udp_delta, negated (uf_single_one_keep) */
	/* single46: its IPv6 template keeps the sender's port only, and its udp_delta negated
	 * (uf_single46_one) */
	bool keep6;
	uint32_t ndelta6;
	uint16_t di, max_payload, pad;
	/* payloads in [lo, lo + span] need neither the too_big drop nor padding: one test */
	uint16_t lo, span;
	bool cksum;
	uint32_t n_too_big;
};

/* n: the most datagrams the burst can queue. A buffer without room for them all is flushed
 * first (it holds what an earlier burst left, less than a burst), so that each datagram is
 * queued without a test for a full buffer; the full burst goes at uf_single_end. */
static __rte_always_inline void
uf_single_begin(struct uf_single *s, struct uf_worker *w, const struct uf_plan *plan, uint16_t n,
		const bool six)
{
	const struct uf_set *set = &plan->sets[0];

	/* n <= UF_MAX_BURST: after the flush the buffer takes it (UF_TXB_CAP) */
	RTE_ASSERT(set->simple && set->n == 1 && n <= UF_MAX_BURST);
	s->cksum = plan->udp_cksum;
	s->di = plan->set_dests[set->first];
	s->max_payload = set->max_payload;
	s->d = &plan->dests[s->di];
	s->b = &w->txb[s->d->egress];
	s->pad = s->b->pad_to;
	{
		/* six: an IPv6 destination's untagged header (uf_single6_one) */
		const uint32_t hl = six ? UF_HDR6_LEN : s->d->tmpl.hdr_len;
		const uint32_t lo = s->pad > hl ? s->pad - hl : 0;

		/* lo above max_payload (no such port): the one test never passes */
		s->lo = lo <= s->max_payload ? (uint16_t)lo : UINT16_MAX;
		s->span = lo <= s->max_payload ? (uint16_t)(s->max_payload - lo) : 0;
	}
	if (unlikely(s->b->n + n > w->burst))
		uf_txb_flush(w, s->b, w->id);
	s->slot = s->b->m + s->b->n;
	s->dslot = s->b->dest + s->b->n;
	s->in_dst_ip = plan->in_dst_ip;
	s->in_dst_port = plan->in_dst_port;
	s->ndelta = uf_ck_neg16(uf_ck_fold32(s->d->tmpl.udp_delta));
	s->keep6 = false;
	s->ndelta6 = 0;
	if (six) {
		const struct uf_tmpl6 *t6 = &plan->d6[s->di].t6;

		s->keep6 = t6->keep_sport && !t6->keep_src_ip;
		s->ndelta6 = uf_ck_neg16(uf_ck_fold32(t6->udp_delta));
	}
	s->next = s->slot;
	s->n_too_big = 0;
}

/* cksum_on: the caller knows the plan computes UDP checksums (s->cksum is true) */
static __rte_always_inline void
uf_single_one(struct uf_single *s, struct rte_mbuf *m, const struct uf_rx_info *in, const bool vlan,
	      const enum uf_hdr_form form, const bool cksum_on)
{
	const bool cksum = cksum_on || s->cksum;
	uint32_t p_sum = 0;

	if (likely(cksum)) /* forward.udp_checksum: compute, the default */
		p_sum = uf_in_sum(in, rte_pktmbuf_mtod_offset(m, const uint8_t *, in->payload_off),
				  s->in_dst_ip, s->in_dst_port);
	if (likely((uint16_t)(in->payload_len - s->lo) <= s->span)) {
		uf_inplace(m, s->d, in, p_sum, NULL, cksum, 0, vlan, form);
	} else if (in->payload_len > s->max_payload) {
		s->n_too_big++;
		rte_pktmbuf_free(m);
		return;
	} else {
		uf_inplace(m, s->d, in, p_sum, NULL, cksum, s->pad, vlan, form);
	}
	*s->next++ = m; /* its destination: uf_single_end */
}

#if UF_DP_SIMD
/* uf_single_one_keep's checksum for a datagram without one (its field 0): the payload summed
 * (uf_in_sum), out of line with the datagram's facts read again from the frame f (the fast
 * test's), so that the common case keeps none of them for it */
static __rte_noinline uint16_t
uf_keep_uck_nock(const uint8_t *f, rte_be32_t in_dst_ip, rte_be16_t in_dst_port, uint32_t udp_delta)
{
	struct uf_rx_info in;

	uf_fast_info(&in, f + RTE_ETHER_HDR_LEN, f + UF_HDR_LEN - UF_UDP_HDR,
		     uf_be16(uf_rd16(f + UF_HDR_LEN - UF_UDP_HDR + UF_UDP_LEN)));
	return uf_ck_fold32_neg(uf_in_sum(&in, f + UF_HDR_LEN, in_dst_ip, in_dst_port) + udp_delta +
				uf_ck_neg32(in.src_ip));
}

/* uf_single_one for a frame the fast test passed (its headers where the copy's go: nothing
 * moves) to a plain template that keeps the sender's port, the default form: the header
 * rewritten in place under masks (uf_hdr_rewrite_keep). The same frames and counters. */
static __rte_always_inline void
uf_single_one_keep(struct uf_single *s, struct rte_mbuf *m, uint8_t *f, const struct uf_rx_info *in)
{
	/* the frame's own length less any trailer: within data_len (the fast test), so 16 bits
	 * hold it, one value for both length fields (callgrind: docs/benchmarks.md#log) */
	uint16_t len = (uint16_t)(UF_HDR_LEN + in->payload_len);
	uint16_t uck;

	RTE_ASSERT(s->cksum && in->payload_off == UF_HDR_LEN);
	/* the copy's UDP checksum: P + udp_delta - the sender's IP (its source replaced),
	 * complemented, 0 sent as 0xffff. With the sender's checksum ck (P = -ck): ck - udp_delta
	 * + the sender's IP, a sum that is not 0 (ck is not; the IP added with its end-around
	 * carry), whose fold is in [1, 0xffff]: the same value without the complements
	 * (callgrind: docs/benchmarks.md#log) */
	if (likely(in->udp_cksum != 0))
		uck = uf_ck_fold32(uf_ck_add32c((uint32_t)in->udp_cksum + s->ndelta, in->src_ip));
	else
		uck = uf_keep_uck_nock(f, s->in_dst_ip, s->in_dst_port, s->d->tmpl.udp_delta);
	if (likely((uint16_t)(in->payload_len - s->lo) <= s->span)) {
		uf_hdr_rewrite_keep(f, &s->d->tmpl, uck);
	} else if (in->payload_len > s->max_payload) {
		s->n_too_big++;
		rte_pktmbuf_free(m);
		return;
	} else {
		uf_hdr_rewrite_keep(f, &s->d->tmpl, uck);
		if (len < s->pad) {
			memset(f + len, 0, s->pad - len);
			len = s->pad;
		}
	}
	m->data_len = len;
	m->pkt_len = len;
	m->ol_flags = 0;
	*s->next++ = m; /* its destination: uf_single_end */
}
#else
/* never called: UF_DP_SIMD is 0 (worker_rx_port_body) */
static __rte_always_inline void
uf_single_one_keep(struct uf_single *s, struct rte_mbuf *m, uint8_t *f, const struct uf_rx_info *in)
{
	RTE_SET_USED(s);
	RTE_SET_USED(m);
	RTE_SET_USED(f);
	RTE_SET_USED(in);
}
#endif

/* An N = 1 IPv6 copy of len bytes at h, in m: padded to the port's minimum, its lengths set,
 * queued (its destination: uf_single_end) */
static __rte_always_inline void
uf_single6_queue(struct uf_single *s, struct rte_mbuf *m, uint8_t *h, uint32_t len)
{
	if (unlikely(len < s->pad)) {
		memset(h + len, 0, s->pad - len);
		len = s->pad;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	m->ol_flags = 0;
	*s->next++ = m; /* its destination: uf_single_end */
}

/*
 * N = 1 to an untagged IPv6 destination (the single6 engine): the received headers (their
 * fields read into plen, tclass, sport, src6) give way to the copy's 62 bytes, written by the
 * destination's template T (uf_hdr6_write: the checksum derived from P_SUM and SRC_NEG), the
 * payload where it is (off: where it starts, the headroom taking the difference; six: an
 * IPv6 input, its payload at 62 already: nothing moves). The same frames and counters as the
 * mixed body's for one copy.
 */
static __rte_always_inline void
uf_single6_rewrite(struct uf_single *s, const struct uf_tmpl6 *t, struct rte_mbuf *m, uint16_t off,
		   uint16_t plen, uint8_t tclass, rte_be16_t sport, const struct uf_ip6 *src6,
		   uint32_t p_sum, uint32_t src_neg, const bool six)
{
	uint32_t len = UF_HDR6_LEN + plen;
	uint8_t *h;

	if (!six)
		m->data_off = (uint16_t)(m->data_off + off - UF_HDR6_LEN);
	h = rte_pktmbuf_mtod(m, uint8_t *);
	uf_hdr6_write(h, t, plen, tclass, sport, src6, p_sum, src_neg);
	uf_single6_queue(s, m, h, len);
}

/* single6 of an IPv6 listener: an IPv6 datagram (uf_classify6's: its payload at 62) */
static __rte_always_inline void
uf_single6_one(struct uf_single *s, const struct uf_tmpl6 *t, struct rte_mbuf *m,
	       const struct uf_rx6_info *in)
{
	RTE_ASSERT(in->payload_off == UF_HDR6_LEN);
	if (unlikely(in->payload_len > s->max_payload)) {
		s->n_too_big++;
		rte_pktmbuf_free(m);
		return;
	}
	uf_single6_rewrite(s, t, m, UF_HDR6_LEN, in->payload_len, in->tclass, in->src_port,
			   &in->src_ip6, uf_in6_sum(in),
			   t->keep_src_ip ? 0 : uf_in_src_neg6(&in->src_ip6), true);
}

/*
 * uf_single6_one where the template keeps the sender's UDP port and not its address (the
 * default; the caller has checked): the header rewritten in place under masks
 * (uf_hdr6_rewrite_keep), the checksum from the sender's, ck (never 0 in IPv6): ck -
 * udp_delta + the sender's address, s->ndelta6 the template's udp_delta negated (once per
 * burst). Its fold is in [1, 0xffff] (the sum is not 0) and the same remainder as
 * ~fold(P + udp_delta - the address) with P = -ck: no complements, no test for 0. The same
 * frames and counters as uf_single6_one (fanout_diff).
 */
static __rte_always_inline void
uf_single6_keep(struct uf_single *s, const struct uf_tmpl6 *t, struct rte_mbuf *m, uint8_t *f,
		const struct uf_rx6_info *in)
{
	RTE_ASSERT(in->payload_off == UF_HDR6_LEN && in->udp_cksum != 0);
	if (unlikely(in->payload_len > s->max_payload)) {
		s->n_too_big++;
		rte_pktmbuf_free(m);
		return;
	}
	uf_hdr6_rewrite_keep(f, t,
			     uf_ck_fold32(in->udp_cksum + s->ndelta6 +
					  uf_ck_ip6(f + RTE_ETHER_HDR_LEN + UF_IP6_SRC)));
	uf_single6_queue(s, m, f, UF_HDR6_LEN + in->payload_len);
}

/* single6 of an IPv4 listener: an IPv4 datagram, its checksum's sum made even where the
 * plan's IPv4 copies carry none (the IPv6 copy always does). With the sender's checksum and a
 * template that keeps the sender's port only (the default), the copy's checksum straight
 * from it, as uf_single6_keep's (ck - udp_delta + the sender's IP; s->ndelta6). */
static __rte_always_inline void
uf_single46_one(struct uf_single *s, const struct uf_tmpl6 *t, struct rte_mbuf *m,
		const struct uf_rx_info *in)
{
	if (unlikely(in->payload_len > s->max_payload)) {
		s->n_too_big++;
		rte_pktmbuf_free(m);
		return;
	}
	if (likely(in->udp_cksum != 0) && s->keep6) {
		struct uf_hdr6_dg g;
		uint8_t *h;

		uf_hdr6_dg_init(&g, in->payload_len, in->tos, in->src_port, NULL, 0, 0);
		m->data_off = (uint16_t)(m->data_off + in->payload_off - UF_HDR6_LEN);
		h = rte_pktmbuf_mtod(m, uint8_t *);
		uf_hdr6_put(h, t, &g,
			    uf_ck_fold32(uf_ck_add32((uint32_t)in->udp_cksum + s->ndelta6,
						     in->src_ip)),
			    false, true);
		uf_single6_queue(s, m, h, UF_HDR6_LEN + in->payload_len);
		return;
	}
	uf_single6_rewrite(s, t, m, in->payload_off, in->payload_len, in->tos, in->src_port, NULL,
			   uf_in_sum(in,
				     rte_pktmbuf_mtod_offset(m, const uint8_t *, in->payload_off),
				     s->in_dst_ip, s->in_dst_port),
			   uf_in_src_neg4(in->src_ip), false);
}

/* uf_single_one, or with six (an IPv6 destination) uf_single46_one with its template t6 */
static __rte_always_inline void
uf_single_one_fam(struct uf_single *s, struct rte_mbuf *m, const struct uf_rx_info *in,
		  const enum uf_hdr_form form, const bool cksum_on, const bool six,
		  const struct uf_tmpl6 *t6)
{
	if (six)
		uf_single46_one(s, t6, m, in);
	else
		uf_single_one(s, m, in, false, form, cksum_on);
}

/* every datagram queued was forwarded, one copy each; lc: as uf_fanout_body's */
static __rte_always_inline void
uf_single_end(struct uf_worker *w, const struct uf_single *s, struct uf_lis_ctr *lc)
{
	const uint16_t k = (uint16_t)(s->next - s->slot);
	uint16_t j;

	for (j = 0; j < k; j++) /* one destination: stored per burst, in vector stores */
		s->dslot[j] = s->di;
	s->b->n = (uint16_t)(s->b->n + k);
	if (s->b->n >= w->burst)
		uf_txb_flush(w, s->b, w->id);
	w->dctr[s->di].copies += k;
	w->ctr.forwarded += k;
	w->ctr.fanout += k;
	w->ctr.copies_attempted += k;
	if (unlikely(s->n_too_big != 0))
		w->ctr.drop[UF_DROP_TOO_BIG] += s->n_too_big;
	if (lc != NULL) {
		lc->forwarded += k;
		lc->fanout += k;
		lc->copies_attempted += k;
		lc->drop_too_big += s->n_too_big;
	}
}

/* N = 1 in two passes (a listener's datagrams, a tagged port's): classified first, then
 * rewritten here; form: the template's where the caller knows it (the engines
 * UF_ENG_SINGLE_KEEP and _OWN, whose plans compute UDP checksums), else UF_HDR_ANY */
static __rte_always_inline void
uf_fanout_single(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
		 const struct uf_rx_info *ins, uint16_t n, struct uf_lis_ctr *lc, const bool vlan,
		 const enum uf_hdr_form form)
{
	struct uf_single s;
	uint16_t i;

	uf_single_begin(&s, w, plan, n, false);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);

		/* the default form, a datagram whose headers are where the copy's go and whose
		 * IP length is its UDP length's (what the fast test checks): in place under masks,
		 * as the one-pass engine does */
		if (UF_DP_SIMD && form == UF_HDR_PLAIN_KEEP_SPORT && !vlan &&
		    ins[i].payload_off == UF_HDR_LEN &&
		    uf_rd16(f + RTE_ETHER_HDR_LEN + UF_IP_LEN) ==
				    rte_cpu_to_be_16((uint16_t)(ins[i].payload_len +
								UF_IPV4_HDR_MIN + UF_UDP_HDR)))
			uf_single_one_keep(&s, m, f, &ins[i]);
		else
			uf_single_one(&s, m, &ins[i], vlan, form, form != UF_HDR_ANY);
	}
	uf_single_end(w, &s, lc);
}

/* The general engines, out of line: they keep their large stack arrays and their code out of
 * the simple plans' path (inlined, they made N = 1 measurably slower). ins6: the mixed
 * engine's IPv6 datagrams (NULL: IPv4 ones, in ins). */
static __rte_noinline void
uf_fanout_generic(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
		  const struct uf_rx_info *ins, const struct uf_rx6_info *ins6, uint16_t n,
		  struct uf_lis_ctr *lc)
{
	uf_senders_epoch(w, plan);
	switch (plan->engine) {
	case UF_ENG_MIXED:
		uf_fanout_body(w, plan, pkts, ins, ins6, n, lc, false, false, true, UF_HDR_ANY,
			       true);
		break;
	case UF_ENG_MIXED_ONE_EGRESS:
		uf_fanout_body(w, plan, pkts, ins, ins6, n, lc, true, true, true, UF_HDR_ANY, true);
		break;
	case UF_ENG_MIXED_SIMPLE:
	case UF_ENG_SINGLE6: /* where its IPv6 lane does not run (several listeners) */
		uf_fanout_body(w, plan, pkts, ins, ins6, n, lc, true, false, true, UF_HDR_ANY,
			       true);
		break;
	case UF_ENG_GENERIC:
		uf_fanout_body(w, plan, pkts, ins, NULL, n, lc, false, false, false, UF_HDR_ANY,
			       false);
		break;
	default: /* UF_ENG_GENERIC_VLAN: serves every IPv4 view */
		uf_fanout_body(w, plan, pkts, ins, NULL, n, lc, false, false, true, UF_HDR_ANY,
			       false);
		break;
	}
}

/* The untagged one-egress engines (N > 1), out of line: inlined into the worker's burst
 * function they changed the N = 1 loop's register allocation there (callgrind: +14
 * instructions per datagram at N = 1, docs/benchmarks.md#log). */
static __rte_noinline void
uf_fanout_one_egress(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
		     const struct uf_rx_info *ins, uint16_t n, struct uf_lis_ctr *lc)
{
	switch (plan->engine) {
	case UF_ENG_ONE_EGRESS_KEEP:
		uf_fanout_body(w, plan, pkts, ins, NULL, n, lc, true, true, false,
			       UF_HDR_PLAIN_KEEP_SPORT, false);
		break;
	case UF_ENG_ONE_EGRESS_OWN:
		uf_fanout_body(w, plan, pkts, ins, NULL, n, lc, true, true, false,
			       UF_HDR_PLAIN_OWN_SPORT, false);
		break;
	default: /* UF_ENG_ONE_EGRESS */
		uf_fanout_body(w, plan, pkts, ins, NULL, n, lc, true, true, false, UF_HDR_ANY,
			       false);
		break;
	}
}

/* The simple engines with a tagged destination: the header's form per destination, out of
 * line (it keeps the untagged ones as they were). */
static __rte_noinline void
uf_fanout_vlan(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
	       const struct uf_rx_info *ins, uint16_t n, struct uf_lis_ctr *lc)
{
	switch (plan->engine) {
	case UF_ENG_SINGLE_VLAN:
		uf_fanout_single(w, plan, pkts, ins, n, lc, true, UF_HDR_ANY);
		break;
	case UF_ENG_ONE_EGRESS_VLAN:
		uf_fanout_body(w, plan, pkts, ins, NULL, n, lc, true, true, true, UF_HDR_ANY,
			       false);
		break;
	default: /* UF_ENG_SIMPLE_VLAN */
		uf_fanout_body(w, plan, pkts, ins, NULL, n, lc, true, false, true, UF_HDR_ANY,
			       false);
		break;
	}
}

/*
 * Fan a burst of IPv4 datagrams out through the engine the plan view was given when it was
 * built (uf_plan_engine): the one switch. The untagged simple engines inline, the others out
 * of line. lc: the listener's counters where the plan has several, else NULL.
 */
static __rte_always_inline void
uf_fanout_burst(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
		const struct uf_rx_info *ins, uint16_t n, struct uf_lis_ctr *lc)
{
	switch (plan->engine) {
	case UF_ENG_SINGLE:
	case UF_ENG_SINGLE_KEEP:
	case UF_ENG_SINGLE_OWN:
		uf_fanout_single(w, plan, pkts, ins, n, lc, false, UF_HDR_ANY);
		break;
	case UF_ENG_ONE_EGRESS_KEEP:
	case UF_ENG_ONE_EGRESS_OWN:
	case UF_ENG_ONE_EGRESS:
		uf_fanout_one_egress(w, plan, pkts, ins, n, lc);
		break;
	case UF_ENG_SIMPLE:
		uf_fanout_body(w, plan, pkts, ins, NULL, n, lc, true, false, false, UF_HDR_ANY,
			       false);
		break;
	case UF_ENG_SINGLE_VLAN:
	case UF_ENG_ONE_EGRESS_VLAN:
	case UF_ENG_SIMPLE_VLAN:
		uf_fanout_vlan(w, plan, pkts, ins, n, lc);
		break;
	default:
		uf_fanout_generic(w, plan, pkts, ins, NULL, n, lc);
		break;
	}
}

#endif /* UF_FANOUT_H */
