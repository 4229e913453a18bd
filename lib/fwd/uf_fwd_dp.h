/* SPDX-License-Identifier: BSD-3-Clause
 * The per-packet path. Only uf_fwd.c and the benches include this.
 *
 * No locks, no syscalls, no heap: the worker writes its own counters and buffers, reads the
 * plan it loaded at the top of the pass, and allocates only from mempools (per-lcore cache).
 */
#ifndef UF_FWD_DP_H
#define UF_FWD_DP_H

#include <rte_branch_prediction.h>
#include <rte_ethdev.h>
#include <rte_lpm.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>

#include "uf_fwd.h"

/*
 * TX buffers: frames collect per (worker, port) and go to the PMD when the buffer holds a
 * burst, or when the drain timer fires. A full TX ring gets `tx_retries` more tries, then
 * the rest is freed and counted as ring_full: a worker never waits on a ring (invariant 3).
 *
 * Faults stay on their port (docs/loss-accounting.md, link_down): a flush that follows one
 * which made no progress gets no retries, and a port that made none for stall_tsc, or whose
 * link the control lcore saw go down, is skipped: its copies are freed and counted as
 * link_down without calling tx_burst, so the worker's time goes to the ports that work.
 */
static inline void
uf_txb_lost(struct uf_worker *w, struct uf_txbuf *b, uint16_t from, enum uf_txdrop why)
{
	uint64_t lost = 0;
	uint16_t i;

	for (i = from; i < b->n; i++) {
		uint16_t d = b->dest[i];

		if (d == UF_DEST_CTL) {
			w->ctr.ctl_tx_drop++;
		} else {
			w->dctr[d].tx_drop++;
			lost++;
		}
	}
	rte_pktmbuf_free_bulk(b->m + from, b->n - from);
	w->ctr.tx_drop[why] += lost;
}

/* The port is skipped: true when the buffer was dropped, false when it should be tried
 * (the link came back, or a stalled port is due a probe). */
static __rte_noinline bool
uf_txb_skip(struct uf_worker *w, struct uf_txbuf *b)
{
	uint32_t gen = __atomic_load_n(b->link_gen, __ATOMIC_ACQUIRE);
	uint64_t now;

	if (!__atomic_load_n(b->link_down, __ATOMIC_RELAXED)) {
		if (gen != b->link_gen_seen) {
			/* the link came up (again): a fresh start */
			b->link_gen_seen = gen;
			b->stalled = 0;
			b->stall_since = 0;
			return false;
		}
		now = rte_rdtsc();
		if (now >= b->next_probe) {
			b->next_probe = now + w->probe_tsc;
			return false;
		}
	}
	uf_txb_lost(w, b, 0, UF_TXDROP_LINK_DOWN);
	b->n = 0;
	b->n_ctl = 0;
	return true;
}

/* tx_burst took nothing: start the clock, or mark the port stalled once it ran out */
static __rte_noinline void
uf_txb_no_progress(struct uf_worker *w, struct uf_txbuf *b)
{
	uint64_t now = rte_rdtsc();

	if (b->stall_since == 0) {
		b->stall_since = now;
	} else if (w->stall_tsc != 0 && !b->stalled && now - b->stall_since >= w->stall_tsc) {
		__atomic_store_n(&b->stalled, 1, __ATOMIC_RELAXED);
		b->link_gen_seen = __atomic_load_n(b->link_gen, __ATOMIC_ACQUIRE);
		b->next_probe = now + w->probe_tsc;
	}
}

static inline void
uf_txb_flush(struct uf_worker *w, struct uf_txbuf *b, uint16_t queue)
{
	uint16_t sent, i, n = b->n;
	uint32_t tries = 0, retries;

	if (n == 0)
		return;
	if (unlikely(b->stalled | __atomic_load_n(b->link_down, __ATOMIC_RELAXED)) &&
	    uf_txb_skip(w, b))
		return;
	/* no retries while the port is making no progress: one tx_burst per flush */
	retries = likely(b->stall_since == 0) ? w->tx_retries : 0;
	sent = rte_eth_tx_burst(b->port_id, queue, b->m, n);
	while (unlikely(sent < n) && tries < retries) {
		sent += rte_eth_tx_burst(b->port_id, queue, b->m + sent, n - sent);
		tries++;
	}
	w->ctr.tx_retries += tries;
	if (likely(sent == n)) {
		w->ctr.tx_ok += n - b->n_ctl;
		w->ctr.ctl_tx_ok += b->n_ctl;
	} else {
		uint64_t ok = 0;

		for (i = 0; i < sent; i++) {
			if (b->dest[i] == UF_DEST_CTL)
				w->ctr.ctl_tx_ok++;
			else
				ok++;
		}
		w->ctr.tx_ok += ok;
		uf_txb_lost(w, b, sent, b->stalled ? UF_TXDROP_LINK_DOWN : UF_TXDROP_RING_FULL);
	}
	if (unlikely(sent == 0))
		uf_txb_no_progress(w, b);
	else if (unlikely(b->stall_since != 0)) {
		b->stall_since = 0;
		__atomic_store_n(&b->stalled, 0, __ATOMIC_RELAXED);
	}
	b->n = 0;
	b->n_ctl = 0;
}

/*
 * Queue one frame in a TX buffer whose fill level the caller holds in *fill (&b->n, or a
 * register copy of it while one buffer takes a whole burst); a full burst goes to the PMD.
 * The buffer never holds more than a burst: it is flushed when it reaches one, and a burst
 * plus a control drain fits (UF_TXB_CAP, static_assert in uf_fwd.h).
 */
static __rte_always_inline void
uf_txb_push(struct uf_worker *w, struct uf_txbuf *b, uint16_t *fill, struct rte_mbuf *m,
	    uint16_t dest, uint16_t burst)
{
	uint16_t i = *fill;

	RTE_ASSERT(burst == w->burst && burst <= UF_TXB_CAP && i < burst);
	b->m[i] = m;
	b->dest[i] = dest;
	*fill = ++i;
	if (unlikely(i >= burst)) {
		b->n = i;
		uf_txb_flush(w, b, w->id);
		*fill = 0;
	}
}

/* Queue one frame on port index pi: a copy for destination `dest`, or a control-plane frame
 * (UF_DEST_CTL), counted apart. */
static inline void
uf_txb_add(struct uf_worker *w, uint16_t pi, struct rte_mbuf *m, uint16_t dest)
{
	struct uf_txbuf *b = &w->txb[pi];

	if (unlikely(dest == UF_DEST_CTL))
		b->n_ctl++;
	uf_txb_push(w, b, &b->n, m, dest, w->burst);
}

/*
 * Copy versus chain, per datagram. Copying writes the 42-byte header and the payload into a
 * fresh mbuf; chaining writes the header into a small mbuf whose next segment is the received
 * mbuf, shared by refcount. Chaining saves the payload copy but costs a second mbuf per
 * frame, a refcount update, two TX descriptors on the NIC, and it rules out MBUF_FAST_FREE
 * and PMDs that mangle chains (af_xdp).
 *
 * Measured by tests/perf/uf_fanout_bench: the figures are in docs/benchmarks.md#copy-versus-chain.
 *
 * Chaining wins from about 512 bytes there, before counting the NIC's second descriptor and DMA
 * read, which this bench cannot see and which move the crossing further up: auto chains at
 * 512 (UF_CHAIN_MIN_PAYLOAD_DEFAULT) where every egress PMD of the set can, copies below.
 * The threshold is the set's: the plan's, raised where an egress PMD breaks short chains
 * (ENA LLQ, chain_min_frame in docs/pmd-quirks.md), at no extra cost here.
 */
/*
 * 802.1Q (docs/configuration.md#vlans): `vlan` is a constant of each specialisation, the
 * plan's any_vlan. Without a tagged destination in the plan every header is the untagged
 * 42 bytes, written as before; with one, the template says which form (uf_hdr_write).
 */
static __rte_always_inline uint32_t
uf_hdr_len(const struct uf_tmpl *t, const bool vlan)
{
	return vlan ? t->hdr_len : UF_HDR_LEN;
}

/* g: the datagram's shared header parts (several copies), or NULL: one copy, from the input
 * and p_sum (a constant at each call site) */
static __rte_always_inline void
uf_hdr_write_v(uint8_t *h, const struct uf_tmpl *t, const struct uf_rx_info *in, uint32_t p_sum,
	       const struct uf_hdr_dg *g, bool udp_cksum, const bool vlan,
	       const enum uf_hdr_form form)
{
	/* each form with its constant offsets, as it would be alone */
	if (vlan && unlikely(t->hdr_len != UF_HDR_LEN)) {
		if (g != NULL)
			uf_hdr_write_dg_l2(h, t, g, udp_cksum, UF_ETH_VLAN_LEN, UF_HDR_ANY);
		else
			uf_hdr_write_l2(h, t, in, p_sum, udp_cksum, UF_ETH_VLAN_LEN, UF_HDR_ANY);
	} else if (g != NULL) {
		uf_hdr_write_dg_l2(h, t, g, udp_cksum, RTE_ETHER_HDR_LEN, form);
	} else {
		uf_hdr_write_l2(h, t, in, p_sum, udp_cksum, RTE_ETHER_HDR_LEN, form);
	}
}

/* A copy's payload: 16 to 32 bytes (the small datagrams that make up the packet rate) as two
 * overlapping 16-byte moves, without rte_memcpy's alignment and size dispatch (callgrind:
 * 5 fewer instructions per copy); anything else through rte_memcpy. Loaded once per datagram
 * (uf_payload_load): a store into a copy may alias the payload for the compiler, which
 * otherwise reloaded it for every copy. */
struct uf_payload {
	const uint8_t *src;
	uint32_t n;
	uint8_t a[16], b[16]; /* 16 <= n <= 32: its first and last 16 bytes */
};

static __rte_always_inline void
uf_payload_load(struct uf_payload *pl, const uint8_t *src, uint32_t n)
{
	pl->src = src;
	pl->n = n;
	if (likely(n - 16 <= 16)) {
		memcpy(pl->a, src, 16);
		memcpy(pl->b, src + n - 16, 16);
	} else { /* unused (rte_memcpy from src); set, so no compiler sees them unset */
		memset(pl->a, 0, sizeof(pl->a));
		memset(pl->b, 0, sizeof(pl->b));
	}
}

static __rte_always_inline void
uf_payload_copy(uint8_t *dst, const struct uf_payload *pl)
{
	const uint32_t n = pl->n;

	if (likely(n - 16 <= 16)) {
		memcpy(dst, pl->a, 16);
		memcpy(dst + n - 16, pl->b, 16);
	} else {
		rte_memcpy(dst, pl->src, n);
	}
}

/*
 * A copy buffer's mbuf fields, all of them, for a frame of len bytes in one segment at the
 * default headroom: what rte_pktmbuf_reset and the length stores did in two passes over the
 * mbuf, here in one, so a buffer can come from the pool raw (rte_mempool_get_bulk: no reset
 * per buffer). The pool guarantees the rest of a free mbuf: refcnt 1, next NULL, nb_segs 1
 * (__rte_mbuf_raw_sanity_check); nb_segs is written anyway (it shares a word with data_off).
 * Adjacent constant stores merge into wide ones.
 */
#if UF_DP_SIMD
/* the two 16-byte runs uf_mbuf_tx_init writes whole; a DPDK release that moves a field
 * fails here, at build time */
static_assert(offsetof(struct rte_mbuf, refcnt) == offsetof(struct rte_mbuf, data_off) + 2 &&
			      offsetof(struct rte_mbuf, nb_segs) ==
					      offsetof(struct rte_mbuf, data_off) + 4 &&
			      offsetof(struct rte_mbuf, port) ==
					      offsetof(struct rte_mbuf, data_off) + 6 &&
			      offsetof(struct rte_mbuf, ol_flags) ==
					      offsetof(struct rte_mbuf, data_off) + 8,
	      "mbuf: data_off, refcnt, nb_segs, port, ol_flags in 16 bytes");
static_assert(offsetof(struct rte_mbuf, pkt_len) == offsetof(struct rte_mbuf, packet_type) + 4 &&
			      offsetof(struct rte_mbuf, data_len) ==
					      offsetof(struct rte_mbuf, packet_type) + 8 &&
			      offsetof(struct rte_mbuf, vlan_tci) ==
					      offsetof(struct rte_mbuf, packet_type) + 10 &&
			      offsetof(struct rte_mbuf, hash) ==
					      offsetof(struct rte_mbuf, packet_type) + 12,
	      "mbuf: packet_type, pkt_len, data_len, vlan_tci, hash in 16 bytes");
#endif

static __rte_always_inline void
uf_mbuf_tx_init(struct rte_mbuf *c, uint32_t len)
{
#if UF_DP_SIMD
	/* two 16-byte stores: data_off, refcnt 1 (as it is), nb_segs 1, port, ol_flags 0; and
	 * packet_type 0, pkt_len, data_len, vlan_tci 0, the RSS hash 0 */
	_mm_storeu_si128((__m128i *)&c->data_off,
			 _mm_set_epi64x(0, (int64_t)((uint64_t)RTE_MBUF_PORT_INVALID << 48 |
						     (uint64_t)1 << 32 | (uint64_t)1 << 16 |
						     RTE_PKTMBUF_HEADROOM)));
	_mm_storeu_si128((__m128i *)&c->packet_type, _mm_set_epi32(0, (int)len, (int)len, 0));
#else
	c->data_off = RTE_PKTMBUF_HEADROOM;
	c->nb_segs = 1;
	c->port = RTE_MBUF_PORT_INVALID;
	c->ol_flags = 0;
	c->packet_type = 0;
	c->pkt_len = len;
	c->data_len = (uint16_t)len;
	c->vlan_tci = 0;
#endif
	c->vlan_tci_outer = 0;
	c->tx_offload = 0;
}

static __rte_always_inline void
uf_copy_one(struct rte_mbuf *c, const struct uf_dest_rt *d, const struct uf_payload *pl,
	    const struct uf_hdr_dg *g, bool udp_cksum, uint16_t pad_to, const bool vlan,
	    const enum uf_hdr_form form)
{
	const uint32_t plen = pl->n;
	/* the frame starts at the default headroom: uf_mbuf_tx_init sets data_off so */
	uint8_t *h = (uint8_t *)c->buf_addr + RTE_PKTMBUF_HEADROOM;
	const uint32_t hl = uf_hdr_len(&d->tmpl, vlan); /* 42, or 46 tagged */
	uint32_t len = hl + plen;

	uf_hdr_write_v(h, &d->tmpl, NULL, 0, g, udp_cksum, vlan, form); /* g: in unused */
	uf_payload_copy(h + hl, pl);
	if (unlikely(len < pad_to)) {
		memset(h + len, 0, pad_to - len);
		len = pad_to;
	}
	uf_mbuf_tx_init(c, len);
}

/* uf_copy_one where the caller has found, once for the datagram, that the frame is untagged,
 * its payload 16 to 32 bytes and the frame (len bytes) at least the port's minimum: the
 * header, two 16-byte moves, the mbuf fields. */
static __rte_always_inline void
uf_copy_small(struct rte_mbuf *c, const struct uf_dest_rt *d, const struct uf_payload *pl,
	      const struct uf_hdr_dg *g, bool udp_cksum, uint32_t len, const enum uf_hdr_form form)
{
	uint8_t *h = (uint8_t *)c->buf_addr + RTE_PKTMBUF_HEADROOM;

	RTE_ASSERT(pl->n - 16 <= 16 && len == UF_HDR_LEN + pl->n);
	uf_hdr_write_v(h, &d->tmpl, NULL, 0, g, udp_cksum, false, form);
	memcpy(h + UF_HDR_LEN, pl->a, 16);
	memcpy(h + len - 16, pl->b, 16);
	uf_mbuf_tx_init(c, len);
}

/* Rewrite the received mbuf into the last copy: no allocation, no payload copy. */
static __rte_always_inline void
uf_inplace(struct rte_mbuf *m, const struct uf_dest_rt *d, const struct uf_rx_info *in,
	   uint32_t p_sum, const struct uf_hdr_dg *g, bool udp_cksum, uint16_t pad_to,
	   const bool vlan, const enum uf_hdr_form form)
{
	/* 42, or 46 tagged: 4 bytes of headroom more */
	const uint32_t hl = uf_hdr_len(&d->tmpl, vlan);
	uint32_t len = hl + in->payload_len;
	uint8_t *h;

	/* drop the received headers (any IP options) and trailing padding; nothing to move
	 * where they are the copy's length (the fast test's frames: a constant, no store) */
	if (in->payload_off != hl)
		m->data_off = (uint16_t)(m->data_off + in->payload_off - hl);
	h = rte_pktmbuf_mtod(m, uint8_t *);
	uf_hdr_write_v(h, &d->tmpl, in, p_sum, g, udp_cksum, vlan, form);
	if (unlikely(len < pad_to)) {
		memset(h + len, 0, pad_to - len);
		len = pad_to;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	m->ol_flags = 0;
}

/*
 * A pool's member for one datagram (docs/architecture.md#pools): its table entry by the
 * hash of the sender or the flow, or the worker's next turn; the entry's UF_POOL_ALT bit
 * says it is a failover member. One hash, one mask, one load: flat in the member count.
 */
static __rte_always_inline uint16_t
uf_pool_member(struct uf_worker *w, const struct uf_plan *plan, const struct uf_pool_rt *p,
	       const struct uf_rx_info *in)
{
	uint16_t c;

	if (likely(p->balance != UF_BAL_ROUND_ROBIN))
		return uf_pool_pick(p, uf_pool_key(p, in->src_ip, in->src_port, plan->in_dst_ip,
						   plan->in_dst_port));
	c = w->pool_rr[p->entry];
	if (unlikely(c >= p->n)) /* a plan with fewer members replaced the last one */
		c = 0;
	w->pool_rr[p->entry] = (uint16_t)(c + 1 >= p->n ? 0 : c + 1);
	return p->rr[c];
}

/*
 * Who gets a copy when the set is not simple: sampling first (deterministic: datagrams 0, N,
 * 2N, ... per worker and destination), then a pool's member, then resolution. Fills copy_to
 * (copies to build), unresolved and sampled (sampled out) and *n_failover; counts nothing,
 * so that a datagram dropped whole afterwards leaves no trace in the per-destination
 * counters either.
 */
static __rte_noinline uint16_t
uf_select(struct uf_worker *w, const struct uf_plan *plan, const struct uf_set *set,
	  const struct uf_rx_info *in, uint16_t *copy_to, uint16_t *unresolved,
	  uint16_t *n_unresolved, uint16_t *sampled, uint16_t *n_sampled, uint32_t *n_failover)
{
	uint16_t j, k = 0;

	for (j = 0; j < set->n; j++) {
		uint16_t di = plan->set_dests[set->first + j];
		const struct uf_dest_rt *d = &plan->dests[di];

		if (d->sample > 1) {
			uint32_t c = w->sample_ctr[di];

			w->sample_ctr[di] = c + 1 >= d->sample ? 0 : c + 1;
			if (c != 0) {
				sampled[(*n_sampled)++] = di;
				continue;
			}
		}
		if (d->is_pool) {
			uint16_t e = uf_pool_member(w, plan, &plan->pools[d->pool], in);
			/* the sender's bit in the member's sketch: 9 bits of a multiplicative hash */
			uint32_t h = rte_be_to_cpu_32(in->src_ip) * 0x9e3779b1u >> 23;

			*n_failover += e >> 15;
			di = e & UF_POOL_DEST;
			d = &plan->dests[di];
			w->senders[w->senders_epoch & 1][di][h >> 6] |= 1ULL << (h & 63);
		}
		if (!d->resolved) {
			unresolved[(*n_unresolved)++] = di;
			continue;
		}
		copy_to[k++] = di;
	}
	return k;
}

/* the per-destination side of what uf_select decided, once the datagram is forwarded */
static __rte_noinline void
uf_select_commit(struct uf_worker *w, const uint16_t *unresolved, uint16_t n_unresolved,
		 const uint16_t *sampled, uint16_t n_sampled)
{
	uint16_t j;

	for (j = 0; j < n_sampled; j++)
		w->dctr[sampled[j]].sampled_out++;
	for (j = 0; j < n_unresolved; j++) {
		w->dctr[unresolved[j]].copies++;
		w->dctr[unresolved[j]].no_neighbor++;
		w->dctr[unresolved[j]].tx_drop++;
	}
	w->ctr.sampled_out += n_sampled;
	w->ctr.tx_drop[UF_TXDROP_NO_NEIGHBOR] += n_unresolved;
}

/* what uf_select left to count once the datagram is forwarded: the rare cases out of line */
static __rte_always_inline void
uf_select_done(struct uf_worker *w, const uint16_t *unresolved, uint16_t n_unresolved,
	       const uint16_t *sampled, uint16_t n_sampled, uint32_t n_failover)
{
	if (unlikely(n_unresolved | n_sampled))
		uf_select_commit(w, unresolved, n_unresolved, sampled, n_sampled);
	if (unlikely(n_failover != 0))
		w->ctr.pool_failover += n_failover;
}

/* Up to n mbufs from mp into m: in one bulk get, or, when the pool cannot give them all,
 * one by one as long as it has any. Returns how many. */
static __rte_always_inline uint16_t
uf_alloc_upto(struct rte_mempool *mp, struct rte_mbuf **m, uint16_t n)
{
	uint16_t got;

	if (likely(rte_pktmbuf_alloc_bulk(mp, m, n) == 0))
		return n;
	for (got = 0; got < n; got++) {
		m[got] = rte_pktmbuf_alloc(mp);
		if (m[got] == NULL)
			break;
	}
	return got;
}

/* What a set gives the body: read once per burst for a simple plan, per datagram otherwise. */
struct uf_set_view {
	const uint16_t *members; /* destination indexes, set order */
	uint16_t n;
	uint16_t max_payload;
	uint32_t chain_min; /* chain at and above this payload (UINT32_MAX: never) */
};

static __rte_always_inline void
uf_set_view(struct uf_set_view *v, const struct uf_worker *w, const struct uf_plan *plan,
	    const struct uf_set *set)
{
	v->members = &plan->set_dests[set->first];
	v->n = set->n;
	v->max_payload = set->max_payload;
	v->chain_min = plan->fanout != UF_FANOUT_COPY && w->hdr_pool != NULL && set->chain_ok
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

/* Buffers for the copies of a simple plan, taken for the whole burst in one bulk get (each
 * get pays the per-lcore cache lookup); larger bursts x sets take them per datagram. */
#define UF_BURST_STASH 256

/*
 * Fan a burst of datagrams out; takes ownership of every mbuf, on every path. One body,
 * specialised by two constant flags (the call sites in uf_fanout_burst pass literals, and
 * the compiler drops what a specialisation does not use):
 *
 *   simple_plan  plan->fast: no rules, set 0 simple (every member resolved, none sampled).
 *                The set is read once per burst, its copy list is its member list, the
 *                copy buffers come raw from one bulk get per burst (uf_mbuf_tx_init sets
 *                every field as it writes each copy), and forwarded, fanout,
 *                copies_attempted and each destination's copies are added once per burst.
 *   one_egress   with simple_plan: every member leaves through one port; that TX buffer's
 *                fill level stays in a register for the whole burst.
 *
 * Otherwise (the generic specialisation), per datagram: the rule set (no_rule), the size
 * (too_big), then uf_select for sampling and resolution (no_neighbor), with the counters
 * added per datagram. Either way the partial-allocation rule is the same: the copies that
 * found no buffer are the first ones in set order (tx_drop.nombuf), the in-place copy always
 * goes, and a chained datagram without a single header mbuf is dropped whole (drop.nombuf)
 * before anything else is counted. docs/architecture.md#fan-out.
 */
static __rte_always_inline void
uf_fanout_body(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
	       const struct uf_rx_info *ins, uint16_t n, const bool simple_plan,
	       const bool one_egress, const bool vlan, const enum uf_hdr_form form)
{
	const bool cksum = plan->udp_cksum;
	/* read once: a store into a TX buffer's uint16_t dest[] may alias w->burst */
	const uint16_t burst = w->burst;
	struct uf_set_view plan_set;               /* simple_plan: set 0, for the whole burst */
	const struct uf_dest_rt *plan_last = NULL; /* simple_plan: its in-place copy's */
	struct uf_txbuf *egress_txb = NULL;        /* one_egress: the one TX buffer, and its fill */
	uint16_t egress_fill = 0, egress_pad = 0;
	/* one_egress: set 0's destinations, looked up once per burst */
	const struct uf_dest_rt *egress_dests[UF_MAX_DESTS];
	struct rte_mbuf *stash[UF_BURST_STASH];
	uint32_t n_stash = 0, stash_used = 0;
	/* counted once at the end */
	uint64_t n_forwarded = 0, n_fanout = 0, n_attempted = 0, n_chained = 0;
	uint32_t n_no_rule = 0, n_too_big = 0, n_no_neighbor = 0, n_nombuf = 0, n_copy_nombuf = 0;
	uint16_t i, j;

	RTE_ASSERT(simple_plan || !one_egress);
	if (simple_plan) {
		uf_set_view(&plan_set, w, plan, &plan->sets[0]);
		plan_last = &plan->dests[plan_set.members[plan_set.n - 1]];
		if (one_egress) {
			egress_txb = &w->txb[plan->dests[plan_set.members[plan_set.n - 1]].egress];
			egress_fill = egress_txb->n;
			egress_pad = egress_txb->pad_to;
			for (j = 0; j < plan_set.n; j++)
				egress_dests[j] = &plan->dests[plan_set.members[j]];
		}
		if (plan_set.n > 1 && (uint32_t)n * (plan_set.n - 1) <= UF_BURST_STASH &&
		    likely(rte_mempool_get_bulk(w->copy_pool, (void **)stash,
						n * (plan_set.n - 1)) == 0))
			n_stash = (uint32_t)n * (plan_set.n - 1);
	}

	for (i = 0; i < n; i++) {
		const struct uf_rx_info *in = &ins[i];
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

		if (!simple_plan) {
			const struct uf_set *s = &plan->sets[0];

			if (plan->lpm != NULL) {
				uint32_t nh;

				if (unlikely(!uf_plan_lookup(plan, in->src_ip, &nh))) {
					n_no_rule++;
					rte_pktmbuf_free(m);
					continue;
				}
				s = &plan->sets[nh];
			}
			uf_set_view(&set_buf, w, plan, s);
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
		chain = in->payload_len >= set->chain_min && n_copies > 1;
		want = chain ? n_copies : (uint16_t)(n_copies > 0 ? n_copies - 1 : 0);
		if (simple_plan && !chain && likely(stash_used + want <= n_stash)) {
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
		if (!simple_plan) {
			n_fanout += set->n;
			n_attempted += n_copies + n_unresolved;
			uf_select_done(w, unresolved, n_unresolved, sampled, n_sampled, n_failover);
			if (unlikely(n_copies == 0)) {
				rte_pktmbuf_free(m);
				continue;
			}
		}
		missed = (uint16_t)(want - got);
		if (unlikely(missed > 0)) {
			/* the copies that found no buffer: the first ones */
			for (j = 0; j < missed; j++) {
				if (!simple_plan) /* a simple plan counts copies per burst */
					w->dctr[copy_to[j]].copies++;
				w->dctr[copy_to[j]].tx_drop++;
			}
			n_copy_nombuf += missed;
			copy_to += missed;
			n_copies = (uint16_t)(n_copies - missed);
		}

		payload = rte_pktmbuf_mtod_offset(m, const uint8_t *, in->payload_off);
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
				uf_fan_emit(w, d, h, !simple_plan, one_egress, egress_txb,
					    &egress_fill, burst);
			}
			continue;
		}
		/* the payload (and its length) read once: a store into a copy may alias it and *in
		 * for the compiler, which reloaded them per copy */
		struct uf_payload pl;

		uf_payload_load(&pl, payload, in->payload_len);
		/*
		 * What nearly every datagram of the common plan is (untagged, one egress, 16 to 32
		 * bytes, no padding, every buffer found, all its copies fit in the TX buffer): its
		 * tests taken once for all its copies, not per copy, and the buffer checked for a
		 * full burst once, after the last copy (callgrind: docs/benchmarks.md#log, 2026-12-02).
		 */
		if (!vlan && one_egress &&
		    likely(pl.n - 16 <= 16 && UF_HDR_LEN + pl.n >= egress_pad && missed == 0 &&
			   egress_fill + n_copies <= burst)) {
			const uint32_t flen = UF_HDR_LEN + pl.n;
			struct rte_mbuf **slot = egress_txb->m + egress_fill;
			uint16_t *dslot = egress_txb->dest + egress_fill;

			for (j = 0; j + 1 < n_copies; j++) {
				const struct uf_dest_rt *d = egress_dests[j];

				uf_copy_small(bufs[j], d, &pl, &dg, cksum, flen, form);
				slot[j] = bufs[j];
				dslot[j] = d->idx;
			}
			uf_inplace(m, plan_last, in, 0, &dg, cksum, 0, false, form);
			slot[j] = m;
			dslot[j] = plan_last->idx;
			egress_fill = (uint16_t)(egress_fill + n_copies);
			if (unlikely(egress_fill >= burst)) {
				egress_txb->n = egress_fill;
				uf_txb_flush(w, egress_txb, w->id);
				egress_fill = 0;
			}
			continue;
		}
		for (j = 0; j + 1 < n_copies; j++) {
			const struct uf_dest_rt *d = &plan->dests[copy_to[j]];

			uf_copy_one(bufs[j], d, &pl, &dg, cksum,
				    one_egress ? egress_pad : w->txb[d->egress].pad_to, vlan, form);
			uf_fan_emit(w, d, bufs[j], !simple_plan, one_egress, egress_txb,
				    &egress_fill, burst);
		}
		{
			/* the last copy never misses a buffer: a simple plan's is known */
			const struct uf_dest_rt *d =
					simple_plan ? plan_last
						    : &plan->dests[copy_to[n_copies - 1]];

			uf_inplace(m, d, in, 0, &dg, cksum,
				   one_egress ? egress_pad : w->txb[d->egress].pad_to, vlan, form);
			uf_fan_emit(w, d, m, !simple_plan, one_egress, egress_txb, &egress_fill,
				    burst);
		}
	}

	if (one_egress)
		egress_txb->n = egress_fill;
	if (simple_plan && unlikely(stash_used < n_stash)) /* datagrams dropped or chained */
		rte_mempool_put_bulk(w->copy_pool, (void **)(stash + stash_used),
				     n_stash - stash_used); /* raw, as they came */
	if (simple_plan && likely(n_forwarded > 0)) {
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
}

/* A plan with pools: a new stats interval gets a clean sender-sketch bank (the control
 * lcore reads the other) */
static __rte_always_inline void
uf_senders_epoch(struct uf_worker *w, const struct uf_plan *plan)
{
	if (plan->n_pools > 0 && w->shared != NULL) {
		uint32_t ep = __atomic_load_n(&w->shared->senders_epoch, __ATOMIC_RELAXED);

		if (unlikely(ep != w->senders_epoch)) {
			memset(w->senders[ep & 1], 0, sizeof(w->senders[0]));
			w->senders_epoch = ep;
		}
	}
}

/*
 * A plan view that involves IPv6 (plan->has6: an IPv6 listener or an IPv6 destination;
 * docs/architecture.md#ipv6). Correctness first: every copy but the last is a
 * fresh buffer, the last the received mbuf rewritten in place (its headers, 42 to 66 bytes
 * whatever the family, give way to the copy's, 42 to 66: the headroom takes the
 * difference), no chain (forward.fanout does not apply), each header written
 * by its destination's family: uf_hdr6_write (the UDP checksum always: mandatory in IPv6),
 * or the IPv4 writer (for an IPv6 datagram, from the stand-in uf_rx_info_from6 gives and a
 * template made by uf_tmpl_from6). An IPv6 destination on a tagged port: the header is
 * written 4 bytes in and the tag put in front (uf_vlan_insert). Rules, too_big, sampling,
 * pools and resolution, the counters and the partial-allocation rule (the first copies in
 * set order miss, tx_drop.nombuf; the in-place copy always goes) are those of
 * uf_fanout_body's generic specialisation. The IPv4 bodies never see such
 * a plan (it is never fast; uf_fanout_generic hands it here).
 * ins6 NULL: IPv4 datagrams (ins4); else IPv6 ones.
 */
static __rte_noinline void
uf_fanout_mixed(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
		const struct uf_rx_info *ins4, const struct uf_rx6_info *ins6, uint16_t n)
{
	const bool cksum = plan->udp_cksum, in6 = ins6 != NULL;
	const uint16_t burst = w->burst;
	uint64_t n_forwarded = 0, n_fanout = 0, n_attempted = 0;
	uint32_t n_no_rule = 0, n_too_big = 0, n_no_neighbor = 0, n_copy_nombuf = 0;
	uint16_t i, j;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct uf_rx_info stand_in;
		const struct uf_rx_info *in = in6 ? &stand_in : &ins4[i];
		const struct uf_ip6 *src6 = in6 ? &ins6[i].src_ip6 : NULL;
		const struct uf_set *s = &plan->sets[0];
		uint16_t select_buf[UF_MAX_DESTS], unresolved[UF_MAX_DESTS], sampled[UF_MAX_DESTS];
		struct rte_mbuf *bufs[UF_MAX_DESTS];
		const uint16_t *copy_to;
		uint16_t n_copies, n_unresolved = 0, n_sampled = 0, want, got, missed;
		uint32_t n_failover = 0, p_sum, src_neg, nh;
		const uint8_t *payload;

		if (in6)
			uf_rx_info_from6(&ins6[i], &stand_in);
		if (in6 ? plan->n_rules6 > 0 : plan->lpm != NULL) {
			const bool hit = in6 ? uf_plan_lookup6(plan, src6, &nh)
					     : uf_plan_lookup(plan, in->src_ip, &nh);

			if (unlikely(!hit)) {
				n_no_rule++;
				rte_pktmbuf_free(m);
				continue;
			}
			s = &plan->sets[nh];
		}
		if (unlikely(in->payload_len > s->max_payload)) {
			n_too_big++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (likely(s->simple)) {
			copy_to = &plan->set_dests[s->first];
			n_copies = s->n;
		} else {
			if (unlikely(!s->any_resolved)) {
				n_no_neighbor++;
				for (j = 0; j < s->n; j++)
					w->dctr[plan->set_dests[s->first + j]].no_neighbor++;
				rte_pktmbuf_free(m);
				continue;
			}
			n_copies = uf_select(w, plan, s, in, select_buf, unresolved, &n_unresolved,
					     sampled, &n_sampled, &n_failover);
			copy_to = select_buf;
		}
		/* buffers for all but the last copy, which is the received mbuf rewritten */
		want = n_copies > 0 ? (uint16_t)(n_copies - 1) : 0;
		got = want > 0 ? uf_alloc_upto(w->copy_pool, bufs, want) : 0;
		n_forwarded++;
		n_fanout += s->n;
		n_attempted += n_copies + n_unresolved;
		uf_select_done(w, unresolved, n_unresolved, sampled, n_sampled, n_failover);
		if (unlikely(n_copies == 0)) {
			rte_pktmbuf_free(m);
			continue;
		}
		missed = (uint16_t)(want - got);
		for (j = 0; j < missed; j++) {
			/* the copies that found no buffer: the first ones */
			w->dctr[copy_to[j]].copies++;
			w->dctr[copy_to[j]].tx_drop++;
		}
		n_copy_nombuf += missed;
		copy_to += missed;
		n_copies = (uint16_t)(n_copies - missed);

		payload = rte_pktmbuf_mtod_offset(m, const uint8_t *, in->payload_off);
		if (in6) {
			p_sum = uf_in6_sum(&ins6[i]);
			src_neg = uf_in_src_neg6(src6);
		} else {
			/* the IPv6 copies need it even where the IPv4 ones carry no checksum */
			p_sum = uf_in_sum(in, payload, plan->in_dst_ip, plan->in_dst_port);
			src_neg = uf_in_src_neg4(in->src_ip);
		}
		for (j = 0; j < n_copies; j++) {
			const struct uf_dest_rt *d = &plan->dests[copy_to[j]];
			const struct uf_dest6_rt *d6 = &plan->d6[copy_to[j]];
			const bool last = j + 1 == n_copies;
			struct rte_mbuf *c = last ? m : bufs[j];
			const uint16_t pad_to = w->txb[d->egress].pad_to;
			const uint32_t hl = d6->is6 ? (d6->vlan ? UF_HDR6_LEN + UF_VLAN_LEN
								: UF_HDR6_LEN)
						    : d->tmpl.hdr_len;
			uint32_t len = hl + in->payload_len;
			uint8_t *h;

			if (last) {
				/* in place: the received headers (their fields already read into
				 * `in`) give way to the copy's, the payload stays where it is */
				m->data_off = (uint16_t)(m->data_off + in->payload_off - hl);
				m->ol_flags = 0;
			}
			h = rte_pktmbuf_mtod(c, uint8_t *);
			if (d6->is6) {
				uf_hdr6_write(h + (hl - UF_HDR6_LEN), &d6->t6, in->payload_len,
					      in->tos, in->src_port, src6, p_sum, src_neg);
				if (d6->vlan)
					uf_vlan_insert(h, d6->vlan_tci);
			} else {
				uf_hdr_write(h, &d->tmpl, in, p_sum, cksum);
			}
			if (!last)
				rte_memcpy(h + hl, payload, in->payload_len);
			if (unlikely(len < pad_to)) {
				memset(h + len, 0, pad_to - len);
				len = pad_to;
			}
			c->data_len = (uint16_t)len;
			c->pkt_len = len;
			uf_fan_emit(w, d, c, true, false, NULL, NULL, burst);
		}
	}
	w->ctr.forwarded += n_forwarded;
	w->ctr.fanout += n_fanout;
	w->ctr.copies_attempted += n_attempted;
	if (unlikely(n_no_rule | n_too_big | n_no_neighbor | n_copy_nombuf)) {
		w->ctr.drop[UF_DROP_NO_RULE] += n_no_rule;
		w->ctr.drop[UF_DROP_TOO_BIG] += n_too_big;
		w->ctr.drop[UF_DROP_NO_NEIGHBOR] += n_no_neighbor;
		w->ctr.tx_drop[UF_TXDROP_NOMBUF] += n_copy_nombuf;
	}
}

/* The generic specialisation, out of line: it keeps its large stack arrays and its code out
 * of the simple plans' path (inlined, it made N = 1 measurably slower). A plan that involves
 * IPv6 goes to uf_fanout_mixed. */
static __rte_noinline void
uf_fanout_generic(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
		  const struct uf_rx_info *ins, uint16_t n)
{
	uf_senders_epoch(w, plan);
	if (unlikely(plan->has6)) {
		uf_fanout_mixed(w, plan, pkts, ins, NULL, n);
		return;
	}
	if (unlikely(plan->any_vlan))
		uf_fanout_body(w, plan, pkts, ins, n, false, false, true, UF_HDR_ANY);
	else
		uf_fanout_body(w, plan, pkts, ins, n, false, false, false, UF_HDR_ANY);
}

/*
 * N = 1 of a simple plan: every datagram becomes its own, only copy, rewritten in place. What
 * uf_fanout_body's simple_plan specialisation does for one member, without what a single copy
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
uf_single_begin(struct uf_single *s, struct uf_worker *w, const struct uf_plan *plan, uint16_t n)
{
	const struct uf_set *set = &plan->sets[0];

	/* n <= UF_MAX_BURST: after the flush the buffer takes it (UF_TXB_CAP) */
	RTE_ASSERT(plan->fast && set->n == 1 && n <= UF_MAX_BURST);
	s->cksum = plan->udp_cksum;
	s->di = plan->set_dests[set->first];
	s->max_payload = set->max_payload;
	s->d = &plan->dests[s->di];
	s->b = &w->txb[s->d->egress];
	s->pad = s->b->pad_to;
	{
		const uint32_t hl = s->d->tmpl.hdr_len, lo = s->pad > hl ? s->pad - hl : 0;

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
/* uf_single_one for a frame the fast test passed (its headers where the copy's go: nothing
 * moves) to a plain template that keeps the sender's port, the default form: the header
 * rewritten in place under masks (uf_hdr_rewrite_keep). The same frames and counters. */
static __rte_always_inline void
uf_single_one_keep(struct uf_single *s, struct rte_mbuf *m, uint8_t *f, const struct uf_rx_info *in)
{
	const uint32_t p_sum = uf_in_sum(in, f + UF_HDR_LEN, s->in_dst_ip, s->in_dst_port);
	uint32_t len = UF_HDR_LEN + in->payload_len;

	RTE_ASSERT(s->cksum && in->payload_off == UF_HDR_LEN);
	if (likely((uint16_t)(in->payload_len - s->lo) <= s->span)) {
		uf_hdr_rewrite_keep(f, &s->d->tmpl, p_sum, in->src_ip);
	} else if (in->payload_len > s->max_payload) {
		s->n_too_big++;
		rte_pktmbuf_free(m);
		return;
	} else {
		uf_hdr_rewrite_keep(f, &s->d->tmpl, p_sum, in->src_ip);
		if (len < s->pad) {
			memset(f + len, 0, s->pad - len);
			len = s->pad;
		}
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	m->ol_flags = 0;
	*s->next++ = m; /* its destination: uf_single_end */
}
#endif

/* every datagram queued was forwarded, one copy each */
static __rte_always_inline void
uf_single_end(struct uf_worker *w, const struct uf_single *s)
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
}

static __rte_always_inline void
uf_fanout_single(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
		 const struct uf_rx_info *ins, uint16_t n, const bool vlan)
{
	struct uf_single s;
	uint16_t i;

	uf_single_begin(&s, w, plan, n);
	for (i = 0; i < n; i++)
		uf_single_one(&s, pkts[i], &ins[i], vlan, UF_HDR_ANY, false);
	uf_single_end(w, &s);
}

/* A fast plan with a tagged destination: the same specialisations, the header's form per
 * destination, out of line (it keeps the untagged ones as they were). */
static __rte_noinline void
uf_fanout_vlan(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
	       const struct uf_rx_info *ins, uint16_t n)
{
	if (plan->sets[0].n == 1)
		uf_fanout_single(w, plan, pkts, ins, n, true);
	else if (likely(plan->sets[0].one_egress))
		uf_fanout_body(w, plan, pkts, ins, n, true, true, true, UF_HDR_ANY);
	else
		uf_fanout_body(w, plan, pkts, ins, n, true, false, true, UF_HDR_ANY);
}

/* An untagged simple plan whose copies leave through one port (the common one): the body
 * specialised for what its templates share (uf_set.hdr_form), so no copy tests its mode. */
static __rte_always_inline void
uf_fanout_one_egress(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
		     const struct uf_rx_info *ins, uint16_t n)
{
	switch (plan->sets[0].hdr_form) {
	case UF_HDR_PLAIN_KEEP_SPORT:
		uf_fanout_body(w, plan, pkts, ins, n, true, true, false, UF_HDR_PLAIN_KEEP_SPORT);
		break;
	case UF_HDR_PLAIN_OWN_SPORT:
		uf_fanout_body(w, plan, pkts, ins, n, true, true, false, UF_HDR_PLAIN_OWN_SPORT);
		break;
	default:
		uf_fanout_body(w, plan, pkts, ins, n, true, true, false, UF_HDR_ANY);
		break;
	}
}

/* Fan a burst out through the specialisation the plan allows; an untagged plan's as it
 * always was, a plan with a tagged destination's out of line (docs/configuration.md#vlans). */
static __rte_always_inline void
uf_fanout_burst(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
		const struct uf_rx_info *ins, uint16_t n)
{
	if (likely(plan->fast && !plan->any_vlan)) {
		if (plan->sets[0].n == 1)
			uf_fanout_single(w, plan, pkts, ins, n, false);
		else if (likely(plan->sets[0].one_egress))
			uf_fanout_one_egress(w, plan, pkts, ins, n);
		else
			uf_fanout_body(w, plan, pkts, ins, n, true, false, false, UF_HDR_ANY);
	} else if (plan->fast) {
		uf_fanout_vlan(w, plan, pkts, ins, n);
	} else {
		uf_fanout_generic(w, plan, pkts, ins, n);
	}
}

#endif /* UF_FWD_DP_H */
