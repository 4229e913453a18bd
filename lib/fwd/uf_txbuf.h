/* SPDX-License-Identifier: BSD-3-Clause
 * TX buffers of the per-packet path: frames collect per (worker, port) and go to the PMD a
 * burst at a time (docs/architecture.md#fan-out). Included through uf_fwd_dp.h.
 */
#ifndef UF_TXBUF_H
#define UF_TXBUF_H

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

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

#endif /* UF_TXBUF_H */
