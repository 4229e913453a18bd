/* SPDX-License-Identifier: BSD-3-Clause
 * Who gets a copy of a datagram when its set is not simple: sampling, a pool's member,
 * resolution (docs/architecture.md#pools). Included through uf_fwd_dp.h.
 */
#ifndef UF_SELECT_H
#define UF_SELECT_H

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>

#include "uf_fwd.h"

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

#endif /* UF_SELECT_H */
