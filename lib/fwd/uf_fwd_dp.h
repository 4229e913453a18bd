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

static inline void
uf_txb_add(struct uf_worker *w, uint16_t pi, struct rte_mbuf *m, uint16_t dest)
{
	struct uf_txbuf *b = &w->txb[pi];

	b->m[b->n] = m;
	b->dest[b->n] = dest;
	if (unlikely(dest == UF_DEST_CTL))
		b->n_ctl++;
	if (unlikely(++b->n >= w->burst))
		uf_txb_flush(w, b, w->id);
}

/*
 * Copy versus chain, per datagram. Copying writes the 42-byte header and the payload into a
 * fresh mbuf; chaining writes the header into a small mbuf whose next segment is the received
 * mbuf, shared by refcount. Chaining saves the payload copy but costs a second mbuf per
 * frame, a refcount update, two TX descriptors on the NIC, and it rules out MBUF_FAST_FREE
 * and PMDs that mangle chains (af_xdp).
 *
 * Measured (tests/perf/uf_fanout_bench -n 4 -i 200000: build N = 4 frames with this code and
 * free them through net_null, cycles per output frame, one lcore, 2-vCPU AMD EPYC VM at
 * 2.6 GHz, 2026-11-30; docs/benchmarks.md):
 *
 *   payload   32    64   128   256   512  1024  1400
 *   copy    47.0  47.9  51.4  56.8  67.0  79.6  90.8
 *   chain   64.8  64.9  64.8  65.5  65.8  65.9  65.4
 *
 * Chaining wins from about 512 bytes, before counting the NIC's second descriptor and DMA
 * read, which this bench cannot see and which move the crossing further up: auto chains at
 * 512 (UF_CHAIN_MIN_PAYLOAD_DEFAULT) where every egress PMD of the set can, copies below.
 * The threshold is the set's: the plan's, raised where an egress PMD breaks short chains
 * (ENA LLQ, chain_min_frame in docs/pmd-quirks.md), at no extra cost here.
 */
static inline void
uf_copy_one(struct rte_mbuf *c, const struct uf_dest_rt *d, const struct uf_rx_info *in,
	    const uint8_t *payload, uint32_t p_sum, bool udp_cksum, uint16_t pad_to)
{
	uint8_t *h = rte_pktmbuf_mtod(c, uint8_t *);
	uint32_t len = UF_HDR_LEN + in->payload_len;

	uf_hdr_write(h, &d->tmpl, in, p_sum, udp_cksum);
	rte_memcpy(h + UF_HDR_LEN, payload, in->payload_len);
	if (unlikely(len < pad_to)) {
		memset(h + len, 0, pad_to - len);
		len = pad_to;
	}
	c->data_len = (uint16_t)len;
	c->pkt_len = len;
}

/* Rewrite the received mbuf into the last copy: no allocation, no payload copy. */
static inline void
uf_inplace(struct rte_mbuf *m, const struct uf_dest_rt *d, const struct uf_rx_info *in,
	   uint32_t p_sum, bool udp_cksum, uint16_t pad_to)
{
	uint32_t len = UF_HDR_LEN + in->payload_len;
	uint8_t *h;

	/* drop the received headers (any IP options) and trailing padding */
	m->data_off = (uint16_t)(m->data_off + in->payload_off - UF_HDR_LEN);
	h = rte_pktmbuf_mtod(m, uint8_t *);
	uf_hdr_write(h, &d->tmpl, in, p_sum, udp_cksum);
	if (unlikely(len < pad_to)) {
		memset(h + len, 0, pad_to - len);
		len = pad_to;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	m->ol_flags = 0;
}

/*
 * Who gets a copy when the set is not simple: sampling first (deterministic: datagrams 0, N,
 * 2N, ... per worker and destination), then resolution. Fills sel (copies to build), nn
 * (unresolved) and samp (sampled out); counts nothing, so that a datagram dropped whole
 * afterwards leaves no trace in the per-destination counters either.
 */
static __rte_noinline uint16_t
uf_select(struct uf_worker *w, const struct uf_plan *plan, const struct uf_set *set, uint16_t *sel,
	  uint16_t *nn, uint16_t *n_nn, uint16_t *samp, uint16_t *n_samp)
{
	uint16_t j, k = 0;

	for (j = 0; j < set->n; j++) {
		uint16_t di = plan->set_dests[set->first + j];
		const struct uf_dest_rt *d = &plan->dests[di];

		if (d->sample > 1) {
			uint32_t c = w->sample_ctr[di];

			w->sample_ctr[di] = c + 1 >= d->sample ? 0 : c + 1;
			if (c != 0) {
				samp[(*n_samp)++] = di;
				continue;
			}
		}
		if (!d->resolved) {
			nn[(*n_nn)++] = di;
			continue;
		}
		sel[k++] = di;
	}
	return k;
}

/* the per-destination side of what uf_select decided, once the datagram is forwarded */
static __rte_noinline void
uf_select_commit(struct uf_worker *w, const uint16_t *nn, uint16_t n_nn, const uint16_t *samp,
		 uint16_t n_samp)
{
	uint16_t j;

	for (j = 0; j < n_samp; j++)
		w->dctr[samp[j]].sampled_out++;
	for (j = 0; j < n_nn; j++) {
		w->dctr[nn[j]].copies++;
		w->dctr[nn[j]].no_neighbor++;
		w->dctr[nn[j]].tx_drop++;
	}
	w->ctr.sampled_out += n_samp;
	w->ctr.tx_drop[UF_TXDROP_NO_NEIGHBOR] += n_nn;
}

/* Fan one datagram out. Takes ownership of m on every path. */
static inline void
uf_fanout(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf *m,
	  const struct uf_rx_info *in)
{
	const struct uf_set *set = &plan->sets[0];
	const uint8_t *payload;
	const uint16_t *sel;
	uint16_t sel_buf[UF_MAX_DESTS], nn[UF_MAX_DESTS], samp[UF_MAX_DESTS];
	struct rte_mbuf *nm[UF_MAX_DESTS];
	uint32_t p_sum = 0, got;
	uint16_t k, j, need, n_nn = 0, n_samp = 0;
	bool chain;

	if (plan->lpm != NULL) {
		uint32_t nh;

		if (unlikely(!uf_plan_lookup(plan, in->src_ip, &nh))) {
			w->ctr.drop[UF_DROP_NO_RULE]++;
			rte_pktmbuf_free(m);
			return;
		}
		set = &plan->sets[nh];
	}
	if (unlikely(in->payload_len > set->max_payload)) {
		w->ctr.drop[UF_DROP_TOO_BIG]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (likely(set->simple)) {
		/* every member resolved, none sampled: the set's list is the copy list */
		sel = &plan->set_dests[set->first];
		k = set->n;
	} else {
		if (unlikely(!set->any_resolved)) {
			w->ctr.drop[UF_DROP_NO_NEIGHBOR]++;
			for (j = 0; j < set->n; j++)
				w->dctr[plan->set_dests[set->first + j]].no_neighbor++;
			rte_pktmbuf_free(m);
			return;
		}
		k = uf_select(w, plan, set, sel_buf, nn, &n_nn, samp, &n_samp);
		sel = sel_buf;
	}

	chain = plan->fanout != UF_FANOUT_COPY && w->hdr_pool != NULL && set->chain_ok &&
		in->payload_len >= set->chain_min_payload && k > 1;
	need = chain ? k : (uint16_t)(k > 0 ? k - 1 : 0);
	got = need;
	if (need > 0) {
		struct rte_mempool *mp = chain ? w->hdr_pool : w->copy_pool;

		if (unlikely(rte_pktmbuf_alloc_bulk(mp, nm, need) != 0)) {
			/* short of buffers: take what there is, count the rest */
			for (got = 0; got < need; got++) {
				nm[got] = rte_pktmbuf_alloc(mp);
				if (nm[got] == NULL)
					break;
			}
		}
	}
	if (unlikely(chain && got == 0)) {
		w->ctr.drop[UF_DROP_NOMBUF]++;
		rte_pktmbuf_free(m);
		return;
	}

	w->ctr.forwarded++;
	w->ctr.fanout += set->n;
	w->ctr.copies_attempted += k + n_nn;
	if (unlikely(n_nn | n_samp))
		uf_select_commit(w, nn, n_nn, samp, n_samp);
	if (unlikely(k == 0)) {
		rte_pktmbuf_free(m);
		return;
	}
	if (unlikely(got < need)) {
		/* the copies that found no buffer: the first ones (the in-place copy always goes) */
		uint16_t miss = (uint16_t)(need - got);

		for (j = 0; j < miss; j++) {
			w->dctr[sel[j]].copies++;
			w->dctr[sel[j]].tx_drop++;
		}
		w->ctr.tx_drop[UF_TXDROP_NOMBUF] += miss;
		if (sel != sel_buf)
			memcpy(sel_buf, sel, k * sizeof(sel[0]));
		memmove(sel_buf, sel_buf + miss, (k - miss) * sizeof(sel[0]));
		sel = sel_buf;
		k = (uint16_t)(k - miss);
	}

	payload = rte_pktmbuf_mtod_offset(m, const uint8_t *, in->payload_off);
	if (plan->udp_cksum)
		p_sum = uf_in_sum(in, payload, plan->in_dst_ip, plan->in_dst_port);

	if (chain) {
		/* m becomes the shared payload segment of k frames */
		m->data_off = (uint16_t)(m->data_off + in->payload_off);
		m->data_len = in->payload_len;
		m->pkt_len = in->payload_len;
		m->ol_flags = 0;
		if (k > 1)
			rte_mbuf_refcnt_update(m, (int16_t)(k - 1));
		w->ctr.chained += k;
		for (j = 0; j < k; j++) {
			const struct uf_dest_rt *d = &plan->dests[sel[j]];
			struct rte_mbuf *h = nm[j];

			uf_hdr_write(rte_pktmbuf_mtod(h, uint8_t *), &d->tmpl, in, p_sum,
				     plan->udp_cksum);
			h->data_len = UF_HDR_LEN;
			h->pkt_len = UF_HDR_LEN + in->payload_len;
			h->nb_segs = 2;
			h->next = m;
			w->dctr[d->idx].copies++;
			uf_txb_add(w, d->egress, h, d->idx);
		}
		return;
	}

	for (j = 0; j + 1 < k; j++) {
		const struct uf_dest_rt *d = &plan->dests[sel[j]];

		uf_copy_one(nm[j], d, in, payload, p_sum, plan->udp_cksum,
			    w->txb[d->egress].pad_to);
		w->dctr[d->idx].copies++;
		uf_txb_add(w, d->egress, nm[j], d->idx);
	}
	{
		const struct uf_dest_rt *d = &plan->dests[sel[k - 1]];

		uf_inplace(m, d, in, p_sum, plan->udp_cksum, w->txb[d->egress].pad_to);
		w->dctr[d->idx].copies++;
		uf_txb_add(w, d->egress, m, d->idx);
	}
}

/*
 * The common case, hoisted out of uf_fanout: no rules, every destination resolved and
 * unsampled (plan->fast). What is per plan is read once per burst, what is per destination
 * is counted once per burst, and the buffers for the copies come from the mempool in one
 * bulk get per burst (not one per datagram: each get pays the per-lcore cache lookup). Per
 * datagram there is the size check and N header writes. A datagram the slow path must see
 * (a chained one) goes there.
 */
#define UF_FAST_STASH 256

static inline void
uf_fanout_fast(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
	       const struct uf_rx_info *ins, uint16_t n)
{
	const struct uf_set *set = &plan->sets[0];
	const uint16_t *sel = &plan->set_dests[set->first];
	const uint16_t k = set->n, max_payload = set->max_payload;
	const bool cksum = plan->udp_cksum;
	const uint32_t chain_min = (plan->fanout != UF_FANOUT_COPY && w->hdr_pool != NULL &&
				    set->chain_ok && k > 1)
						   ? set->chain_min_payload
						   : UINT32_MAX;
	const struct uf_dest_rt *last = &plan->dests[sel[k - 1]];
	const uint16_t last_pad = w->txb[last->egress].pad_to;
	struct rte_mempool *const pool = w->copy_pool;
	const bool one_egress = set->one_egress;
	struct uf_txbuf *const b = &w->txb[last->egress];
	const uint16_t burst = w->burst;
	struct rte_mbuf *stash[UF_FAST_STASH];
	uint32_t done = 0, too_big = 0, nombuf = 0, n_stash = 0, used = 0;
	uint16_t i, j, bn = b->n;

	if (k > 1 && (uint32_t)n * (k - 1) <= UF_FAST_STASH &&
	    likely(rte_pktmbuf_alloc_bulk(pool, stash, n * (k - 1)) == 0))
		n_stash = (uint32_t)n * (k - 1);

	for (i = 0; i < n; i++) {
		const struct uf_rx_info *in = &ins[i];
		struct rte_mbuf *m = pkts[i];
		struct rte_mbuf *own[UF_MAX_DESTS], **nm = own;
		const uint8_t *payload;
		uint32_t p_sum = 0;
		uint16_t got = k - 1;

		if (unlikely(in->payload_len > max_payload)) {
			too_big++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (unlikely(in->payload_len >= chain_min)) {
			if (one_egress)
				b->n = bn;
			uf_fanout(w, plan, m, in);
			if (one_egress)
				bn = b->n;
			continue;
		}
		payload = rte_pktmbuf_mtod_offset(m, const uint8_t *, in->payload_off);
		if (cksum)
			p_sum = uf_in_sum(in, payload, plan->in_dst_ip, plan->in_dst_port);
		if (likely(used + got <= n_stash)) {
			nm = stash + used;
			used += got;
		} else if (k > 1 && unlikely(rte_pktmbuf_alloc_bulk(pool, own, k - 1) != 0)) {
			/* short of buffers: take what there is; the first copies go without */
			for (got = 0; got < k - 1; got++) {
				own[got] = rte_pktmbuf_alloc(pool);
				if (own[got] == NULL)
					break;
			}
			for (j = 0; j < k - 1 - got; j++)
				w->dctr[sel[j]].tx_drop++;
			nombuf += k - 1 - got;
		}
		if (likely(one_egress)) {
			/* one TX buffer for all: its fill level stays in a register */
			for (j = 0; j < got; j++) {
				const struct uf_dest_rt *d = &plan->dests[sel[k - 1 - got + j]];

				uf_copy_one(nm[j], d, in, payload, p_sum, cksum, last_pad);
				b->m[bn] = nm[j];
				b->dest[bn++] = d->idx;
				if (unlikely(bn >= burst)) {
					b->n = bn;
					uf_txb_flush(w, b, w->id);
					bn = 0;
				}
			}
			uf_inplace(m, last, in, p_sum, cksum, last_pad);
			b->m[bn] = m;
			b->dest[bn++] = last->idx;
			if (unlikely(bn >= burst)) {
				b->n = bn;
				uf_txb_flush(w, b, w->id);
				bn = 0;
			}
		} else {
			for (j = 0; j < got; j++) {
				const struct uf_dest_rt *d = &plan->dests[sel[k - 1 - got + j]];

				uf_copy_one(nm[j], d, in, payload, p_sum, cksum,
					    w->txb[d->egress].pad_to);
				uf_txb_add(w, d->egress, nm[j], d->idx);
			}
			uf_inplace(m, last, in, p_sum, cksum, last_pad);
			uf_txb_add(w, last->egress, m, last->idx);
		}
		done++;
	}
	if (one_egress)
		b->n = bn;
	if (unlikely(used < n_stash)) /* datagrams that went elsewhere left buffers over */
		rte_pktmbuf_free_bulk(stash + used, n_stash - used);
	/* copies per destination: every datagram done here gave each member one (attempted) */
	if (likely(done > 0)) {
		for (j = 0; j < k; j++)
			w->dctr[sel[j]].copies += done;
		w->ctr.forwarded += done;
		w->ctr.fanout += (uint64_t)done * k;
		w->ctr.copies_attempted += (uint64_t)done * k;
	}
	if (unlikely(too_big | nombuf)) {
		w->ctr.drop[UF_DROP_TOO_BIG] += too_big;
		w->ctr.tx_drop[UF_TXDROP_NOMBUF] += nombuf;
	}
}

#endif /* UF_FWD_DP_H */
