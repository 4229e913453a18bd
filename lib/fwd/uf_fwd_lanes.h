/* SPDX-License-Identifier: BSD-3-Clause
 * The worker's burst paths shared between uf_fwd.c and uf_fwd_lis.c (the lanes of plans with
 * several listeners, docs/architecture.md#listeners). Only those two include this.
 */
#ifndef UF_FWD_LANES_H
#define UF_FWD_LANES_H

#include "uf_fwd_dp.h"

/* prefetch this many packets ahead of the one being classified */
#define PREFETCH_AHEAD 4

/* a burst on port pi of a plan with several listeners: the multi classify loop (uf_fwd.c) */
void uf_worker_rx_listeners(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi,
			    struct rte_mbuf **pkts, uint16_t n);

/* the same where some listeners are IPv6 (plan->multi6): their lane first (uf_fwd_lis.c) */
void uf_worker_rx_listeners6(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi,
			     struct rte_mbuf **pkts, uint16_t n);

/* worker_fan6's n datagrams (w->rx6_m, w->rx6_in), lis[] their listeners and view[] their
 * views, grouped by listener, stably, in place (uf_fwd_lis.c) */
void uf_fan6_by_listener(struct uf_worker *w, const struct uf_plan *plan,
			 const struct uf_plan **view, uint8_t *lis, uint16_t n);

/* a view of an IPv4 listener whose engine is single6: its datagrams' IPv6 copies, in place
 * (uf_fwd_lis.c) */
void uf_fanout_single46(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
			const struct uf_rx_info *ins, uint16_t n, struct uf_lis_ctr *lc);

/* a view of an IPv4 listener whose engine is single_keep or single_own: its datagrams
 * rewritten in place, the template's form known (uf_fwd_lis.c) */
void uf_fan_single_form(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **pkts,
			const struct uf_rx_info *ins, uint16_t n, struct uf_lis_ctr *lc);

#endif /* UF_FWD_LANES_H */
