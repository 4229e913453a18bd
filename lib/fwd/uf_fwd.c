/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "uf_fwd_dp.h"
#include "uf_fwd_lanes.h"

/* passes that received a full burst read the clock once in this many (uf_worker_main) */
#define UF_CLOCK_EVERY 8

/*
 * A frame larger than one of our buffers (only pcap and jumbo do this): too_big, unless it is
 * longer than the port's MTU, then the classifier names it from the headers in the first
 * segment (too_long, gro_coalesced, or what else it is) like any frame over the MTU.
 */
static enum uf_drop
unlinearized_reason(const struct rte_mbuf *m, const struct uf_port_id *pid)
{
	struct uf_rx_info info;
	enum uf_drop why = UF_DROP_TOO_LONG;

	if (m->pkt_len <= pid->max_len)
		return UF_DROP_TOO_BIG;
	/* headers: 14 + up to 60 of IPv4 + 8 of UDP */
	if (m->data_len >= 82 && uf_classify_full(rte_pktmbuf_mtod(m, const uint8_t *), m->pkt_len,
						  m->ol_flags, pid, &info, &why) != UF_V_DROP)
		return UF_DROP_TOO_LONG;
	return why;
}

/* a frame that could not be made one segment: counted by its reason, and traced */
static __rte_noinline void
unlinearized_drop(struct uf_worker *w, uint16_t pi, const struct rte_mbuf *m,
		  const struct uf_port_id *pid)
{
	const enum uf_drop why = unlinearized_reason(m, pid);

	w->ctr.drop[why]++;
	UF_DTRACE(w, pi, m, why);
}

/* A control frame of a port on a device with tagged ports: its VLAN id rides along (a
 * frame of a device without any keeps its flags: the classifier passed no tag) */
static inline void
ctl_mark(const struct uf_worker *w, uint16_t pi, struct rte_mbuf *m)
{
	if (w->ports[pi].alias || w->ports[pi].n_vlans != 0) {
		m->ol_flags |= RTE_MBUF_F_RX_VLAN_STRIPPED;
		m->vlan_tci = w->ports[pi].vlan;
	}
}

/* Hand control frames to the control lcore and free the drops (both paths' tail). */
static inline void
rx_tail(struct uf_worker *w, struct rte_mbuf **ctl, uint16_t nc, struct rte_mbuf **drop,
	uint16_t nd)
{
	uint16_t i, q;

	if (nc > 0) {
		q = (uint16_t)rte_ring_sp_enqueue_burst(w->ctl_rx, (void **)ctl, nc, NULL);
		w->ctr.control += q;
		/* ARP/ICMP answered now, not at the control lcore's next deadline */
		if (q > 0 && w->shared != NULL)
			uf_shared_wake_ctl(w->shared);
		if (unlikely(q < nc)) {
			w->ctr.drop[UF_DROP_CTL_OVERFLOW] += nc - q;
			for (i = q; i < nc; i++) {
				UF_DTRACE(w, UINT16_MAX, ctl[i], UF_DROP_CTL_OVERFLOW);
				drop[nd++] = ctl[i];
			}
		}
	}
	if (nd > 0)
		rte_pktmbuf_free_bulk(drop, nd);
}

/*
 * The drop trace (docs/loss-accounting.md#drop-trace), armed: take one of the frames still
 * wanted, copy it into the trace's pool and hand it to the control lcore, which writes it to
 * a pcapng file. No lock, no system call: a compare-and-swap, a copy and a ring enqueue; what
 * finds no buffer or a full ring is counted in dtrace_missed.
 */
void __rte_cold
uf_dtrace_take(struct uf_worker *w, uint16_t pi, const struct rte_mbuf *m, enum uf_drop why)
{
	struct uf_shared *sh = w->shared;
	struct uf_dtrace_meta *meta;
	struct rte_mbuf *c;
	uint32_t left;

	left = __atomic_load_n(&sh->dtrace_left, __ATOMIC_RELAXED);
	do {
		if (left == 0) /* taken: the control lcore disarms the workers */
			return;
	} while (!__atomic_compare_exchange_n(&sh->dtrace_left, &left, left - 1, true,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	c = rte_pktmbuf_copy(
			m, sh->dtrace_pool, 0,
			RTE_MIN(m->pkt_len, (uint32_t)rte_pktmbuf_data_room_size(sh->dtrace_pool) -
							    RTE_PKTMBUF_HEADROOM));
	if (c == NULL) {
		w->dtrace_missed++;
		return;
	}
	meta = rte_mbuf_to_priv(c);
	meta->tsc = rte_rdtsc();
	meta->orig_len = m->pkt_len;
	meta->why = (uint16_t)why;
	meta->pi = pi;
	if (rte_ring_mp_enqueue(sh->dtrace_ring, c) != 0) {
		rte_pktmbuf_free(c);
		w->dtrace_missed++;
	}
}

/*
 * One IPv6 frame (EtherType IPv6, one segment, no tag left) on a port with ports[].ip6
 * (docs/architecture.md#ipv6): uf_classify6 (any UDP port: the plan finds the
 * listener, worker_fan6). A datagram waits in w->rx6_* (UF_RX6_TAKEN); ICMPv6 for us is
 * marked for the control lcore as ARP is (UF_RX6_CONTROL); anything else is counted by its
 * reason (UF_RX6_DROPPED).
 */
#define UF_RX6_TAKEN 0
#define UF_RX6_CONTROL 1
#define UF_RX6_DROPPED 2
/* uf_rx6_info.dst_idx of a datagram to service address k of its port (plan->svc) */
#define UF_SVC6_IDX 0x80
/* A frame uf_classify6 called not_for_us, against each of port pi's IPv6 service addresses
 * and their solicited-node groups: the verdict of the first that takes it (a datagram's
 * dst_idx: UF_SVC6_IDX + k), or UF_V_DROP (not_for_us it stays). */
static __rte_noinline enum uf_verdict
rx6_svc(const struct uf_worker *w, const struct uf_plan *plan, uint16_t pi, const uint8_t *f,
	uint32_t len, uint64_t ol, struct uf_rx6_info *in)
{
	const struct uf_plan_svc *sv = &plan->svc[pi];
	enum uf_drop why = UF_DROP_MALFORMED;
	enum uf_verdict v;
	int k;

	for (k = 0; k < sv->n6; k++) {
		if (!uf_classify6_svc(f, len, ol, &w->port6[pi], &sv->ip6[k], in, &why, &v))
			continue;
		if (v != UF_V_DROP)
			in->dst_idx = (uint8_t)(UF_SVC6_IDX + k);
		return v;
	}
	return UF_V_DROP;
}

static __rte_noinline int
worker_rx6(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi, struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	/* only the RX verdicts the port believes (uf_port_id.rx_ck_ignore) */
	const uint64_t ol = m->ol_flags & ~w->ports[pi].id.rx_ck_ignore;
	struct uf_rx6_info *in = &w->rx6_in[w->n_rx6];
	enum uf_drop why = UF_DROP_MALFORMED;
	enum uf_verdict v;

	v = uf_classify6(f, m->data_len, ol, &w->port6[pi], in, &why);
	/* not ours: one of the port's service addresses? (out of line: nothing here for
	 * the others) */
	if (unlikely(v == UF_V_DROP) && why == UF_DROP_NOT_FOR_US && plan->svc != NULL)
		v = rx6_svc(w, plan, pi, f, m->data_len, ol, in);
	if (v == UF_V_CONTROL) {
		ctl_mark(w, pi, m);
		return UF_RX6_CONTROL;
	}
	if (v != UF_V_FORWARD) {
		w->ctr.drop[why]++;
		UF_DTRACE(w, pi, m, why);
		return UF_RX6_DROPPED;
	}
	/* a partial checksum from a local sender: the IPv6 copies always carry one */
	if (unlikely(w->ports[pi].id.partial_csum) && uf_csum6_complete(f, ol, in))
		w->ctr.csum_completed++;
	w->rx6_m[w->n_rx6++] = m;
	return UF_RX6_TAKEN;
}

/*
 * The listener of an IPv6 datagram to service address k of port pi (in->dst_idx
 * UF_SVC6_IDX + k; docs/configuration.md#service-addresses): the one that names the address,
 * else the first that listens on one of the port's own ip6 (in their order) on that UDP
 * port; its checksum made what it would be to that listener's address. NULL: none.
 */
static __rte_noinline const struct uf_plan *
svc6_listener(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi, rte_be16_t dport,
	      uint16_t i, int *l)
{
	struct uf_rx6_info *in = &w->rx6_in[i];
	const struct uf_ip6 *svc = &plan->svc[pi].ip6[in->dst_idx - UF_SVC6_IDX];
	const struct uf_plan *v = uf_plan_listener6(plan, pi, svc, dport, l);
	int j;

	if (v != NULL)
		return v;
	for (j = 0; j < w->port6[pi].n_ip6; j++) {
		v = uf_plan_listener6(plan, pi, &w->port6[pi].ip6[j], dport, l);
		if (v != NULL) {
			in->udp_cksum = uf_udp_ck_redirect6(in->udp_cksum, svc,
							    &w->port6[pi].ip6[j]);
			return v;
		}
	}
	return NULL;
}

/*
 * The IPv6 datagrams of a burst on port index pi: each one's listener (uf_plan_listener6:
 * its address and UDP port; none: not_for_us), where there are several grouped by listener
 * (uf_fan6_by_listener), then each run of one listener's datagrams through the mixed engine
 * with its view of the plan, counted as its listener's where there are several.
 */
static __rte_noinline void
worker_fan6(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi)
{
	const struct uf_plan *view[UF_MAX_BURST];
	struct rte_mbuf *drop[UF_MAX_BURST];
	uint8_t lis[UF_MAX_BURST];
	const uint16_t n = w->n_rx6;
	uint16_t i, j, nk = 0, nd = 0;

	w->n_rx6 = 0;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = w->rx6_m[i];
		const struct uf_rx6_info in = w->rx6_in[i];
		const rte_be16_t dport = uf_rd16(rte_pktmbuf_mtod(m, const uint8_t *) +
						 in.payload_off - UF_UDP_HDR + UF_UDP_DPORT);
		const struct uf_plan *v;
		int l = 0;

		if (unlikely(in.dst_idx >= UF_SVC6_IDX))
			v = svc6_listener(w, plan, pi, dport, i, &l);
		else
			v = uf_plan_listener6(plan, pi, &w->port6[pi].ip6[in.dst_idx], dport, &l);
		if (unlikely(v == NULL)) {
			drop[nd++] = m;
			continue;
		}
		if (plan->n_listeners > 1)
			w->lctr[l].rx++;
		view[nk] = v;
		lis[nk] = (uint8_t)l;
		w->rx6_m[nk] = m;
		if (likely(in.dst_idx < UF_SVC6_IDX))
			w->rx6_in[nk++] = in;
		else /* its checksum redirected there (svc6_listener) */
			w->rx6_in[nk++] = w->rx6_in[i];
	}
	if (unlikely(nd > 0)) {
		w->ctr.drop[UF_DROP_NOT_FOR_US] += nd;
		for (i = 0; unlikely(__atomic_load_n(&w->dtrace_armed, __ATOMIC_RELAXED)) && i < nd;
		     i++)
			uf_dtrace_take(w, pi, drop[i], UF_DROP_NOT_FOR_US);
		rte_pktmbuf_free_bulk(drop, nd);
	}
	if (plan->n_listeners > 1 && nk > 1)
		uf_fan6_by_listener(w, plan, view, lis, nk);
	for (i = 0; i < nk; i = j) {
		for (j = (uint16_t)(i + 1); j < nk && view[j] == view[i]; j++)
			;
		uf_fanout_generic(w, view[i], w->rx6_m + i, NULL, w->rx6_in + i, (uint16_t)(j - i),
				  plan->n_listeners > 1 ? &w->lctr[lis[i]] : NULL);
	}
}

static __rte_noinline void worker_rx_port_rest(struct uf_worker *w, const struct uf_plan *plan,
					       uint16_t pi, struct rte_mbuf **pkts, uint16_t n);
static __rte_noinline void worker_rx_port_single46(struct uf_worker *w, const struct uf_plan *plan,
						   uint16_t pi, struct rte_mbuf **pkts, uint16_t n);

/*
 * A burst on a port of a plan whose one listener is IPv6 (plan->fast6;
 * docs/architecture.md#ipv6): the datagrams to the listener that its fast test takes
 * (uf_classify6_fast: what uf_classify6 and the listener's lookup would decide, in a few
 * compares) go to the view's engine at once: with `single` (the single6 engine) each one
 * rewritten in place as it is found (uf_single6_one), else together after the loop. Every
 * other frame (IPv4, NDP, anything the fast test does not decide, a service address) goes
 * through the one classify loop after them. The same frames and counters as that loop alone
 * (fanout_diff, eal), but for the order of a burst's datagrams that took different paths.
 */
static __rte_always_inline void
worker_rx_port6_body(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi,
		     struct rte_mbuf **pkts, uint16_t n, const bool single)
{
	const struct uf_port6_id *p6 = &w->port6[pi];
	const uint64_t ignore = w->ports[pi].id.rx_ck_ignore;
	const bool partial = w->ports[pi].id.partial_csum;
	struct rte_mbuf *fast[UF_MAX_BURST], *rest[UF_MAX_BURST];
	struct uf_rx6_info in6[UF_MAX_BURST];
	const struct uf_tmpl6 *t6 = NULL;
	struct uf_single one;
	struct uf_fast6 pat;
	uint16_t nk = 0, nr = 0, i;
	/* the prefetch's bound, once per burst (the loop's registers came out better for it:
	 * callgrind, docs/benchmarks.md#log) */
	const uint16_t pf_end = n > PREFETCH_AHEAD ? (uint16_t)(n - PREFETCH_AHEAD) : 0;
	const int k = plan->lis6_pi[0] == pi && p6->listen &&
						      (p6->listen_udp == 0 ||
						       p6->listen_udp == plan->in_dst_port)
				      ? uf_port6_addr(p6, plan->in_dst_ip6.b)
				      : -1;

	if (k < 0) { /* not the listener's port */
		worker_rx_port_rest(w, plan, pi, pkts, n);
		return;
	}
	uf_fast6_init(&pat, p6, &plan->in_dst_ip6, (uint8_t)k, plan->in_dst_port);
	if (single) {
		uf_single_begin(&one, w, plan, n, true);
		t6 = &plan->d6[one.di].t6;
	}
	for (i = 0; i < n && i < PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
		const uint64_t ol = m->ol_flags & ~ignore;
		struct uf_rx6_info one_in, *info = single ? &one_in : &in6[nk];

		if (i < pf_end)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_AHEAD], void *));
		if (likely(m->nb_segs == 1) &&
		    likely(uf_classify6_fast(f, m->data_len, ol, &pat, info))) {
			/* as worker_rx6 */
			if (unlikely(partial) && uf_csum6_complete(f, ol, info))
				w->ctr.csum_completed++;
			if (single && one.keep6) /* uf_single_begin's: the default template */
				uf_single6_keep(&one, t6, m, (uint8_t *)(uintptr_t)f, info);
			else if (single)
				uf_single6_one(&one, t6, m, info);
			else
				fast[nk] = m;
			nk++;
		} else {
			rest[nr++] = m;
		}
	}
	w->ctr.rx += nk;
	if (single)
		uf_single_end(w, &one, NULL);
	else if (likely(nk > 0))
		uf_fanout_generic(w, plan, fast, NULL, in6, nk, NULL);
	if (unlikely(nr > 0))
		worker_rx_port_rest(w, plan, pi, rest, nr);
}

static __rte_noinline void
worker_rx_port6(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi,
		struct rte_mbuf **pkts, uint16_t n)
{
	worker_rx_port6_body(w, plan, pi, pkts, n, false);
}

static __rte_noinline void
worker_rx_port6_single(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi,
		       struct rte_mbuf **pkts, uint16_t n)
{
	worker_rx_port6_body(w, plan, pi, pkts, n, true);
}

/* an IPv6 frame worker_rx6 can take: the IPv4 classifier called it not_ipv4 (one segment,
 * no tag left: the others have other reasons) */
static inline bool
rx_is_ip6(const struct rte_mbuf *m)
{
	return m->nb_segs == 1 && !(m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) &&
	       m->data_len >= RTE_ETHER_HDR_LEN &&
	       uf_rd16(rte_pktmbuf_mtod(m, const uint8_t *) + UF_ETH_TYPE) ==
			       rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
}

/*
 * Service addresses (docs/architecture.md#service-addresses): a frame on port pi the
 * classifier called not_for_us, to one of the port's IPv4 service addresses, classified
 * again as if that address were the port's own (uf_classify_svc). UF_V_FORWARD: a datagram
 * (info), *li its listener where there are several (the one that names the address, else the
 * one on the port's own address), its partial checksum completed and its UDP checksum made
 * what it would be to that listener's address; UF_V_CONTROL: ARP or ICMP for the address;
 * UF_V_DROP: not_for_us it stays.
 */
static __rte_noinline enum uf_verdict
rx_svc4(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi, const struct rte_mbuf *m,
	struct uf_rx_info *info, int *li, const bool multi, bool partial)
{
	const struct uf_port_id *pid = &w->ports[pi].id;
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	enum uf_drop why = UF_DROP_MALFORMED;
	rte_be32_t dst, to;
	enum uf_verdict v;

	if (plan->svc[pi].n4 == 0 || m->nb_segs != 1 ||
	    (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) ||
	    (dst = uf_svc_dst4(f, m->data_len)) == 0 || uf_plan_svc4(plan, pi, dst) < 0)
		return UF_V_DROP;
	v = uf_classify_svc(f, m->data_len, m->ol_flags & ~pid->rx_ck_ignore, pid, dst, info, &why,
			    multi);
	if (v != UF_V_FORWARD)
		return v; /* a drop keeps its first reason, not_for_us */
	to = plan->in_dst_ip;
	if (multi) {
		const rte_be16_t dport = uf_rd16(f + info->payload_off - UF_UDP_HDR + UF_UDP_DPORT);

		*li = uf_plan_listener(plan, pi, dst, dport);
		to = dst;
		if (*li < 0) {
			*li = uf_plan_listener(plan, pi, pid->ip, dport);
			to = pid->ip;
		}
		if (*li < 0)
			return UF_V_DROP; /* no listener */
	}
	/* a partial checksum is completed with the address it was sent to, first */
	if (unlikely(partial) && uf_csum_complete(f, m->ol_flags, info))
		w->ctr.csum_completed++;
	info->udp_cksum = uf_udp_ck_redirect4(info->udp_cksum, dst, to);
	return UF_V_FORWARD;
}

#if UF_DP_SIMD
/* the fast test's patterns of the plan's IPv4 service addresses, port by port */
static __rte_noinline void
svc_pats_build(struct uf_worker *w, const struct uf_plan *plan)
{
	uint16_t pi;
	int k;

	for (pi = 0; pi < w->n_ports; pi++) {
		struct uf_port_id id = w->ports[pi].id;

		w->n_svc_pat[pi] = plan->svc[pi].n4;
		for (k = 0; k < plan->svc[pi].n4; k++) {
			id.ip = plan->svc[pi].ip4[k];
			uf_dp_pat_init(&w->svc_pat[pi][k], &id, false);
		}
	}
	w->svc_plan = plan;
	w->svc_version = plan->version;
}

/*
 * A frame the fast test did not pass on a port of a plan with service addresses, one
 * listener: does it pass the test of one of the port's IPv4 service addresses (the port's
 * own pattern with that address, so the same checks and verdict as the careful path and
 * uf_classify_svc give such a datagram)? Then info holds its facts, its partial checksum is
 * completed and its UDP checksum made what it would be to the listener's address, as
 * rx_svc4 does, without the careful walk and the second classification (the fleet's hot
 * case: every datagram to the service address).
 */
static __rte_noinline bool
rx_svc_fast(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi, const struct rte_mbuf *m,
	    struct uf_rx_info *info, bool partial)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t ulen;
	int k;

	if (unlikely(plan != w->svc_plan || plan->version != w->svc_version))
		svc_pats_build(w, plan);
	for (k = 0; k < w->n_svc_pat[pi]; k++) {
		if (!uf_dp_fast(f, m->data_len, m->ol_flags, &w->svc_pat[pi][k], &ulen))
			continue;
		uf_fast_info(info, f + RTE_ETHER_HDR_LEN, f + UF_HDR_LEN - UF_UDP_HDR, ulen);
		/* a partial checksum is completed with the address it was sent to, first */
		if (unlikely(partial) && uf_csum_complete(f, m->ol_flags, info))
			w->ctr.csum_completed++;
		info->udp_cksum = uf_udp_ck_redirect4(info->udp_cksum, plan->svc[pi].ip4[k],
						      plan->in_dst_ip);
		return true;
	}
	return false;
}
#else
/* never called: UF_DP_SIMD is 0 (rx_others) */
static inline bool
rx_svc_fast(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi, const struct rte_mbuf *m,
	    struct uf_rx_info *info, bool partial)
{
	RTE_SET_USED(w);
	RTE_SET_USED(plan);
	RTE_SET_USED(pi);
	RTE_SET_USED(m);
	RTE_SET_USED(info);
	RTE_SET_USED(partial);
	return false;
}
#endif

/* classify_miss's mark (in *why) on a datagram to a service address (rx_svc_fast: its
 * checksum done) */
#define UF_WHY_SVC ((enum uf_drop)UF_DROP_MAX)

#if UF_DP_SIMD

/*
 * N = 1: a frame the fast test did not pass. A datagram to one of the port's IPv4 service
 * addresses that its fast test passes (rx_svc_fast: info filled, its checksum done) is
 * forwarded with *why UF_WHY_SVC; any other frame is classified in full, with only the RX
 * verdicts the port believes. Out of line, with the burst's plan from w->rx_plan; the loop
 * takes either datagram in the same place (a second inlined uf_single_one there cost every
 * datagram 16 instructions: callgrind).
 */
static __rte_noinline enum uf_verdict
classify_miss(struct uf_worker *w, uint16_t pi, const struct rte_mbuf *m, struct uf_rx_info *info,
	      enum uf_drop *why, bool partial)
{
	const struct uf_plan *plan = w->rx_plan;
	const struct uf_port_id *pid = &w->ports[pi].id;

	*why = UF_DROP_MALFORMED;
	if (unlikely(plan->svc != NULL) && m->data_len >= UF_DP_SIMD_LEN &&
	    rx_svc_fast(w, plan, pi, m, info, partial)) {
		*why = UF_WHY_SVC;
		return UF_V_FORWARD;
	}
	return uf_classify_full_ex(rte_pktmbuf_mtod(m, const uint8_t *), m->data_len,
				   m->ol_flags & ~pid->rx_ck_ignore, pid, info, why, false);
}
#else
/* never called: UF_DP_SIMD is 0 (worker_rx_port_body) */
static inline enum uf_verdict
classify_miss(struct uf_worker *w, uint16_t pi, const struct rte_mbuf *m, struct uf_rx_info *info,
	      enum uf_drop *why, bool partial)
{
	RTE_SET_USED(w);
	RTE_SET_USED(pi);
	RTE_SET_USED(m);
	RTE_SET_USED(info);
	RTE_SET_USED(partial);
	*why = UF_DROP_MALFORMED;
	return UF_V_DROP;
}
#endif

/* N = 1: a datagram classify_miss took for a service address (its checksum done) */
static __rte_always_inline bool
svc_marked(const bool single, enum uf_drop why)
{
	return UF_DP_SIMD && single && why == UF_WHY_SVC;
}

/*
 * The frames of a burst on port pi that the IPv4 classifier did not forward (other[k], for
 * the reason why[k]; cold: none is a datagram to one of the port's listeners), once per burst
 * that had any. An IPv6 frame on a port with ports[].ip6 goes to worker_rx6 (its datagrams
 * wait in w->rx6_*); a frame not for us, to one of the port's service addresses, to rx_svc4
 * (its datagrams into svc[], their facts in svc_in[] and, with several listeners, their
 * listener in svc_li[]); any other is counted by its reason and traced. Each frame is counted
 * once, by what it turned out to be. Drops and control frames are appended to drop and ctl.
 * Returns the drops | the control frames << 8 | the datagrams << 16.
 */
static __rte_noinline uint32_t
rx_others(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi, struct rte_mbuf **other,
	  const uint8_t *why, uint16_t no, struct rte_mbuf **drop, struct rte_mbuf **ctl,
	  struct rte_mbuf **svc, struct uf_rx_info *svc_in, uint8_t *svc_li, bool multi,
	  bool partial)
{
	const bool ip6 = w->port6[pi].n_ip6 > 0;
	uint16_t k, nd = 0, nc = 0, ns = 0;

	static_assert(UF_MAX_BURST <= UINT8_MAX, "the counts fit in 8 bits");
	for (k = 0; k < no; k++) {
		struct rte_mbuf *m = other[k];
		const enum uf_drop reason = (enum uf_drop)why[k];

		if (reason == UF_DROP_NOT_IPV4 && ip6 && rx_is_ip6(m)) {
			switch (worker_rx6(w, plan, pi, m)) {
			case UF_RX6_CONTROL:
				ctl[nc++] = m;
				break;
			case UF_RX6_DROPPED:
				drop[nd++] = m;
				break;
			default:
				break;
			}
			continue;
		}
		if (reason == UF_DROP_NOT_FOR_US && plan->svc != NULL) {
			int li = 0;
			enum uf_verdict v;

			/* one listener: the service address's fast test first (with the vector
			 * unit: UF_DP_SIMD) */
			if (UF_DP_SIMD && !multi && uf_dp_vec_len(m->data_len) &&
			    rx_svc_fast(w, plan, pi, m, &svc_in[ns], partial)) {
				svc_li[ns] = 0;
				svc[ns++] = m;
				continue;
			}
			v = rx_svc4(w, plan, pi, m, &svc_in[ns], &li, multi, partial);

			if (v == UF_V_FORWARD) {
				svc_li[ns] = (uint8_t)li;
				svc[ns++] = m;
				continue;
			}
			if (v == UF_V_CONTROL) {
				ctl_mark(w, pi, m);
				ctl[nc++] = m;
				continue;
			}
		}
		w->ctr.drop[reason]++;
		UF_DTRACE(w, pi, m, reason);
		drop[nd++] = m;
	}
	return nd | (uint32_t)nc << 8 | (uint32_t)ns << 16;
}

/*
 * Pass 2 with several listeners: the burst's datagrams grouped by listener, stably (a counting
 * sort; cnt[l + 1] is listener l's count on entry), each group through its listener's view of
 * the plan and that view's engine, counted as the listener's.
 */
static __rte_noinline void
worker_fan_listeners(struct uf_worker *w, const struct uf_plan *plan, struct rte_mbuf **fwd,
		     struct uf_rx_info *in, const uint8_t *lis, uint16_t *cnt, uint16_t nf)
{
	struct rte_mbuf *sorted[UF_MAX_BURST], **sp = sorted;
	struct uf_rx_info sorted_in[UF_MAX_BURST], *sip = sorted_in;
	uint32_t l;
	uint16_t i;

	/* made into each listener's start */
	for (l = 1; l <= plan->n_listeners; l++)
		cnt[l] = (uint16_t)(cnt[l] + cnt[l - 1]);
	if (likely(cnt[lis[0] + 1] - cnt[lis[0]] == nf)) {
		/* the whole burst is one listener's: as it is */
		sp = fwd;
		sip = in;
	} else {
		uint16_t at[UF_MAX_LISTENERS];

		memcpy(at, cnt, sizeof(at));
		for (i = 0; i < nf; i++) {
			uint16_t k = at[lis[i]]++;

			sorted[k] = fwd[i];
			sorted_in[k] = in[i];
		}
	}
	for (l = 0; l < plan->n_listeners; l++) {
		const uint16_t first = cnt[l], cn = (uint16_t)(cnt[l + 1] - cnt[l]);

		if (cn == 0)
			continue;
		switch (plan->lis[l].engine) {
		case UF_ENG_SINGLE6:
			/* single6 of an IPv4 listener (IPv6 out): here, not in uf_fanout_burst's
			 * switch, whose other callers never see it */
			uf_fanout_single46(w, &plan->lis[l], sp + first, sip + first, cn,
					   &w->lctr[l]);
			break;
		case UF_ENG_SINGLE_KEEP:
		case UF_ENG_SINGLE_OWN:
			uf_fan_single_form(w, &plan->lis[l], sp + first, sip + first, cn,
					   &w->lctr[l]);
			break;
		default:
			uf_fanout_burst(w, &plan->lis[l], sp + first, sip + first, cn, &w->lctr[l]);
			break;
		}
	}
}

static __rte_noinline void worker_rx_vlan(struct uf_worker *w, const struct uf_plan *plan,
					  uint16_t pi, struct rte_mbuf **pkts, uint16_t n);

/*
 * One burst of logical port pi's frames (untagged, or with their tag taken out): the one
 * classify loop, specialised by constant flags.
 *
 *   single  N = 1 (the engines UF_ENG_SINGLE*): each datagram is rewritten and queued in the
 *           pass that classifies it (uf_single_one): no second pass over the burst, no
 *           datagram facts stored and read back. form: the template's (uf_set.hdr_form);
 *           partial_c: 0 the port says whether it completes partial checksums, 1 no, 2 yes.
 *   multi   several listeners (docs/architecture.md#listeners): the frame checks pass a UDP
 *           datagram to any of the port's IPs and UDP ports, and the same pass looks its
 *           listener up (uf_plan_listener: one table load, no loop over the listeners), counts
 *           it in the listener's rx, and pass 2 groups the datagrams by listener, stably (a
 *           counting sort), each group through its listener's view and engine, counted as
 *           that listener's.
 *
 * Otherwise pass 2 fans the burst's datagrams out through the plan's engine
 * (uf_fanout_burst). A frame not forwarded goes to rx_others after the loop (IPv6, service addresses, drops);
 * the IPv6 datagrams are fanned out after the IPv4 ones. The same frames and counters either
 * way (fanout_diff, eal).
 */
static __rte_always_inline void
worker_rx_port_body(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi,
		    struct rte_mbuf **pkts, uint16_t n, const bool single, const bool multi,
		    const enum uf_hdr_form form, const int partial_c, const bool six)
{
	const struct uf_port_id *pid = &w->ports[pi].id;
	/* partial checksums matter only where the copies carry one; decided per port at
	 * start (quirk row); partial_c: 0 the port says, 1 no, 2 yes (a constant) */
	const bool partial = partial_c == 0 ? pid->partial_csum && (plan->udp_cksum || six)
					    : partial_c == 2;
	/* six: N = 1 to an IPv6 destination (single6 of an IPv4 listener): its template */
	const struct uf_tmpl6 *t46 =
			six ? &plan->d6[plan->set_dests[plan->sets[0].first]].t6 : NULL;
	/* one listener: a datagram forwarded here is to the port's address, its pseudo-header
	 * part once */
	const uint32_t ph_dst = uf_csum_ph_dst(pid->ip);
	/* the single engines whose form says the plan computes UDP checksums (uf_plan_engine) */
	const bool cksum_on = form != UF_HDR_ANY;
	struct rte_mbuf *drop[UF_MAX_BURST], *ctl[UF_MAX_BURST], *fwd[UF_MAX_BURST];
	struct uf_rx_info in[UF_MAX_BURST];
	/* the fast test's fixed fields, built when the port's identity was set ([1]: any_dst);
	 * a local copy: the frames' stores cannot alias it, so it is not reloaded per frame */
	const struct uf_dp_pat pat = w->ports[pi].pat[multi ? 1 : 0];
	uint8_t lis[UF_MAX_BURST];
	uint16_t cnt[UF_MAX_LISTENERS + 1];
	struct rte_mbuf *other[UF_MAX_BURST];
	uint8_t other_why[UF_MAX_BURST];
	struct uf_single one;
	uint16_t nd = 0, nc = 0, nf = 0, no = 0, i;
	/* the prefetch's bound, once per burst (the loop's registers came out better for it:
	 * callgrind, docs/benchmarks.md#log) */
	const uint16_t pf_end = n > PREFETCH_AHEAD ? (uint16_t)(n - PREFETCH_AHEAD) : 0;

	RTE_ASSERT(!(single && multi));
	w->rx_plan = plan; /* for classify_miss */
	if (multi)
		memset(cnt, 0, sizeof(cnt));
	if (single)
		uf_single_begin(&one, w, plan, n, six);
	/* pass 1: classify the burst, reading each header while the next ones are fetched */
	w->ctr.rx += n;
	for (i = 0; i < n && i < PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct uf_rx_info one_in, *info = single ? &one_in : &in[nf];
		enum uf_drop why;
		enum uf_verdict v;
		int li = 0;

		if (i < pf_end)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_AHEAD], void *));
		if (unlikely(m->nb_segs > 1) && rte_pktmbuf_linearize(m) != 0) {
			unlinearized_drop(w, pi, m, pid);
			drop[nd++] = m;
			continue;
		}
		if (UF_DP_SIMD && single) {
			/* a frame that passes the fast test goes on with its facts in registers
			 * (payload_off a constant: no move); any other is classified in full */
			const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
			const uint32_t len = m->data_len;
			uint32_t ulen;

			if (likely(uf_dp_vec_len(len) &&
				   uf_dp_fast(f, len, m->ol_flags, &pat, &ulen))) {
				struct uf_rx_info fi;

				uf_fast_info(&fi, f + RTE_ETHER_HDR_LEN,
					     f + UF_HDR_LEN - UF_UDP_HDR, ulen);
				if (partial && uf_csum_complete_ph(f, m->ol_flags, &fi, ph_dst))
					w->ctr.csum_completed++;
				if (form == UF_HDR_PLAIN_KEEP_SPORT)
					uf_single_one_keep(&one, m, (uint8_t *)(uintptr_t)f, &fi);
				else
					uf_single_one_fam(&one, m, &fi, form, cksum_on, six, t46);
				continue;
			}
			v = classify_miss(w, pi, m, info, &why, partial);
		} else
			v = uf_classify_dp_pat(rte_pktmbuf_mtod(m, const uint8_t *), m->data_len,
					       m->ol_flags, pid, &pat, info, &why, multi);
		if (likely(v == UF_V_FORWARD)) {
			const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

			if (multi) {
				/* the UDP header ends where the payload starts */
				li = uf_plan_listener(plan, pi,
						      uf_rd32(f + RTE_ETHER_HDR_LEN + UF_IP_DST),
						      uf_rd16(f + info->payload_off - UF_UDP_HDR +
							      UF_UDP_DPORT));
				if (unlikely(li < 0)) {
					v = UF_V_DROP;
					why = UF_DROP_NOT_FOR_US;
				} else if (unlikely(partial) &&
					   uf_csum_complete(f, m->ol_flags, info)) {
					w->ctr.csum_completed++;
				}
			} else if (partial && !svc_marked(single, why) &&
				   uf_csum_complete_ph(f, m->ol_flags, info, ph_dst)) {
				w->ctr.csum_completed++;
			}
		}
		if (unlikely(v != UF_V_FORWARD)) {
			if (v == UF_V_CONTROL) {
				ctl_mark(w, pi, m);
				ctl[nc++] = m;
				continue;
			}
			/* IPv6, a service address, or a drop: after the loop */
			other[no] = m;
			other_why[no++] = (uint8_t)why;
			continue;
		}
		if (multi) {
			w->lctr[li].rx++;
			lis[nf] = (uint8_t)li;
			cnt[li + 1]++;
			fwd[nf++] = m;
		} else if (single) {
			uf_single_one_fam(&one, m, info, form, cksum_on, six, t46);
		} else {
			fwd[nf++] = m;
		}
	}

	/* the frames not forwarded (rx_others); a datagram to a service address among them is
	 * taken as the others were */
	if (unlikely(no != 0)) {
		struct rte_mbuf *svc[UF_MAX_BURST];
		struct uf_rx_info svc_in[UF_MAX_BURST];
		uint8_t svc_li[UF_MAX_BURST];
		const uint32_t r = rx_others(w, plan, pi, other, other_why, no, drop + nd, ctl + nc,
					     svc, svc_in, svc_li, multi, partial);
		const uint16_t ns = (uint16_t)(r >> 16);
		uint16_t k;

		nd = (uint16_t)(nd + (r & 0xff));
		nc = (uint16_t)(nc + (r >> 8 & 0xff));
		for (k = 0; k < ns; k++) {
			if (multi) {
				w->lctr[svc_li[k]].rx++;
				lis[nf] = svc_li[k];
				cnt[svc_li[k] + 1]++;
				in[nf] = svc_in[k];
				fwd[nf++] = svc[k];
			} else if (single) {
				uf_single_one_fam(&one, svc[k], &svc_in[k], form, cksum_on, six,
						  t46);
			} else {
				in[nf] = svc_in[k];
				fwd[nf++] = svc[k];
			}
		}
	}

	/* pass 2: fan the datagrams out (the IPv6 ones after the IPv4 ones) */
	if (single) {
		uf_single_end(w, &one, NULL);
	} else if (multi) {
		if (likely(nf > 0))
			worker_fan_listeners(w, plan, fwd, in, lis, cnt, nf);
	} else if (likely(nf > 0)) {
		uf_fanout_burst(w, plan, fwd, in, nf, NULL);
	}
	if (unlikely(w->n_rx6 != 0))
		worker_fan6(w, plan, pi);
	rx_tail(w, ctl, nc, drop, nd);
}

/* a burst on a port of a plan with several listeners (uf_fwd_lanes.h) */
__rte_noinline void
uf_worker_rx_listeners(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi,
		       struct rte_mbuf **pkts, uint16_t n)
{
	worker_rx_port_body(w, plan, pi, pkts, n, false, true, UF_HDR_ANY, 0, false);
}

/*
 * N = 1 with the default form (UF_ENG_SINGLE_KEEP), on a port with and without partial
 * checksums: each loop in a function of its own, so that its registers are allocated for it
 * alone (inlined into the worker's burst function with the other engines, the loop spilled
 * its index and count as that function grew: callgrind, docs/benchmarks.md#log).
 */
static __rte_noinline void
worker_rx_port_keep_partial(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi,
			    struct rte_mbuf **pkts, uint16_t n)
{
	worker_rx_port_body(w, plan, pi, pkts, n, true, false, UF_HDR_PLAIN_KEEP_SPORT, 2, false);
}

static __rte_noinline void
worker_rx_port_keep(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi,
		    struct rte_mbuf **pkts, uint16_t n)
{
	worker_rx_port_body(w, plan, pi, pkts, n, true, false, UF_HDR_PLAIN_KEEP_SPORT, 1, false);
}

static __rte_always_inline void
worker_rx_port(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi, struct rte_mbuf **pkts,
	       uint16_t n)
{
	if (unlikely(plan->n_listeners > 1)) {
		if (plan->multi6)
			uf_worker_rx_listeners6(w, plan, pi, pkts, n);
		else
			uf_worker_rx_listeners(w, plan, pi, pkts, n);
		return;
	}
	/* the one switch on the engine the plan was built with (uf_plan_engine); N = 1's also
	 * specialised for the port's partial_csum with the default form (no test of it per
	 * datagram: callgrind, 2-4 instructions fewer) */
	switch (plan->engine) {
	case UF_ENG_SINGLE_KEEP:
		if (w->ports[pi].id.partial_csum)
			worker_rx_port_keep_partial(w, plan, pi, pkts, n);
		else
			worker_rx_port_keep(w, plan, pi, pkts, n);
		break;
	case UF_ENG_SINGLE_OWN:
		worker_rx_port_body(w, plan, pi, pkts, n, true, false, UF_HDR_PLAIN_OWN_SPORT, 0,
				    false);
		break;
	case UF_ENG_SINGLE:
		worker_rx_port_body(w, plan, pi, pkts, n, true, false, UF_HDR_ANY, 0, false);
		break;
	case UF_ENG_SINGLE6:
		if (!plan->in_is6)
			worker_rx_port_single46(w, plan, pi, pkts, n);
		else if (plan->fast6)
			worker_rx_port6_single(w, plan, pi, pkts, n);
		else
			worker_rx_port_rest(w, plan, pi, pkts, n);
		break;
	case UF_ENG_MIXED:
	case UF_ENG_MIXED_SIMPLE:
	case UF_ENG_MIXED_ONE_EGRESS:
		if (plan->fast6) {
			worker_rx_port6(w, plan, pi, pkts, n);
			break;
		}
		/* fall through */
	default:
		worker_rx_port_body(w, plan, pi, pkts, n, false, false, UF_HDR_ANY, 0, false);
		break;
	}
}

/* single6 of an IPv4 listener: the N = 1 loop, each datagram rewritten in place into an
 * IPv6 copy (uf_single46_one) */
static __rte_noinline void
worker_rx_port_single46(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi,
			struct rte_mbuf **pkts, uint16_t n)
{
	worker_rx_port_body(w, plan, pi, pkts, n, true, false, UF_HDR_ANY, 0, true);
}

/* the frames of a burst worker_rx_port6 left: the one classify loop */
static __rte_noinline void
worker_rx_port_rest(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi,
		    struct rte_mbuf **pkts, uint16_t n)
{
	worker_rx_port_body(w, plan, pi, pkts, n, false, false, UF_HDR_ANY, 0, false);
}

/* worker_rx_port for one tagged port's frames: one instance, called from worker_rx_vlan's two
 * places (inlined there, its bodies were compiled twice more, and the tagged N = 1 path
 * paid 2.6 instructions per datagram more: callgrind, docs/benchmarks.md#log) */
static __rte_noinline void
worker_rx_port_tagged(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi,
		      struct rte_mbuf **pkts, uint16_t n)
{
	worker_rx_port(w, plan, pi, pkts, n);
}

void
uf_worker_rx(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi, struct rte_mbuf **pkts,
	     uint16_t n)
{
	/* a device with tagged ports: split by VLAN first (one predictable branch elsewhere) */
	if (unlikely(w->ports[pi].n_vlans != 0)) {
		worker_rx_vlan(w, plan, pi, pkts, n);
		return;
	}
	worker_rx_port(w, plan, pi, pkts, n);
}

/*
 * A burst from a device with tagged ports (docs/configuration.md#vlans): each frame's VLAN
 * id (a tag in the frame is taken out in software: the Ethernet addresses move up over it;
 * one the PMD took out is read from vlan_tci) finds its logical port; a VLAN id no port
 * claims is vlan_unknown. Then each port's frames, in their order, go through the usual
 * path (worker_rx_port, which counts them in rx). A frame that goes to the control plane
 * leaves marked RTE_MBUF_F_RX_VLAN_STRIPPED with its VLAN id in vlan_tci (0: untagged), so
 * the control lcore knows its logical port (uf_ctlframes.c).
 */
static __rte_noinline void
worker_rx_vlan(struct uf_worker *w, const struct uf_plan *plan, uint16_t pi, struct rte_mbuf **pkts,
	       uint16_t n)
{
	const struct uf_wport *wp = &w->ports[pi];
	struct rte_mbuf *drop[UF_MAX_BURST], *sorted[UF_MAX_BURST];
	uint8_t lp[UF_MAX_BURST];
	uint16_t cnt[UF_MAX_PORTS + 1] = { 0 }, at[UF_MAX_PORTS];
	uint16_t nd = 0, nk = 0, i, k;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
		bool in_frame;
		uint16_t vid = uf_vlan_of(f, m->data_len, m->ol_flags, m->vlan_tci, &in_frame);

		for (k = 0; k < wp->n_vlans && wp->vlan_id[k] != vid; k++)
			;
		if (unlikely(k == wp->n_vlans)) {
			drop[nd++] = m;
			continue;
		}
		if (in_frame) { /* uf_vlan_of saw data_len >= 18 */
			uf_vlan_strip(f);
			m->data_off = (uint16_t)(m->data_off + UF_VLAN_LEN);
			m->data_len = (uint16_t)(m->data_len - UF_VLAN_LEN);
			m->pkt_len -= UF_VLAN_LEN;
		}
		m->ol_flags &= ~(RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_RX_VLAN);
		m->vlan_tci = vid;
		lp[nk] = (uint8_t)k;
		cnt[k + 1]++;
		pkts[nk++] = m;
	}
	if (unlikely(nd > 0)) {
		w->ctr.rx += nd;
		w->ctr.drop[UF_DROP_VLAN_UNKNOWN] += nd;
		for (i = 0; unlikely(__atomic_load_n(&w->dtrace_armed, __ATOMIC_RELAXED)) && i < nd;
		     i++)
			uf_dtrace_take(w, pi, drop[i], UF_DROP_VLAN_UNKNOWN);
		rte_pktmbuf_free_bulk(drop, nd);
	}
	if (nk == 0)
		return;
	for (k = 1; k <= wp->n_vlans; k++)
		cnt[k] = (uint16_t)(cnt[k] + cnt[k - 1]);
	if (cnt[lp[0] + 1] - cnt[lp[0]] == nk) {
		/* the whole burst is one port's: as it is */
		worker_rx_port_tagged(w, plan, wp->vlan_pi[lp[0]], pkts, nk);
		return;
	}
	memcpy(at, cnt, sizeof(at));
	for (i = 0; i < nk; i++)
		sorted[at[lp[i]]++] = pkts[i];
	for (k = 0; k < wp->n_vlans; k++)
		if (cnt[k + 1] > cnt[k])
			worker_rx_port_tagged(w, plan, wp->vlan_pi[k], sorted + cnt[k],
					      (uint16_t)(cnt[k + 1] - cnt[k]));
}

void
uf_worker_link_init(struct uf_worker *w, uint32_t stall_ms, uint32_t probe_ms)
{
	uint64_t hz = rte_get_tsc_hz();
	uint16_t pi;

	w->stall_tsc = hz * stall_ms / 1000;
	w->probe_tsc = hz * probe_ms / 1000;
	for (pi = 0; pi < UF_MAX_PORTS; pi++) {
		w->txb[pi].link_down = &w->shared->link_down[pi];
		w->txb[pi].link_gen = &w->shared->link_gen[pi];
		w->txb[pi].link_gen_seen =
				__atomic_load_n(&w->shared->link_gen[pi], __ATOMIC_ACQUIRE);
		w->txb[pi].stalled = 0;
		w->txb[pi].stall_since = 0;
	}
}

uint32_t
uf_worker_flush(struct uf_worker *w)
{
	uint32_t n = 0;
	uint16_t pi;

	for (pi = 0; pi < w->n_ports; pi++) {
		n += w->txb[pi].n;
		uf_txb_flush(w, &w->txb[pi], w->id);
	}
	return n;
}

/* Frames the control lcore wants sent on this worker's queues (ARP replies and requests). */
static inline void
drain_ctl_tx(struct uf_worker *w)
{
	struct rte_mbuf *m[UF_CTL_DRAIN_MAX];
	unsigned int n, i;

	if (likely(rte_ring_empty(w->ctl_tx)))
		return;
	n = rte_ring_sc_dequeue_burst(w->ctl_tx, (void **)m, UF_CTL_DRAIN_MAX, NULL);
	for (i = 0; i < n; i++)
		uf_txb_add(w, w->port_idx[m[i]->port], m[i], UF_DEST_CTL);
}

/* A port is gone for good: free what the buffers and the control ring hold, counted. */
static void
discard_all(struct uf_worker *w)
{
	struct rte_mbuf *m;
	uint16_t pi, i;

	while (rte_ring_sc_dequeue(w->ctl_tx, (void **)&m) == 0) {
		w->ctr.ctl_tx_drop++;
		rte_pktmbuf_free(m);
	}
	for (pi = 0; pi < w->n_ports; pi++) {
		struct uf_txbuf *b = &w->txb[pi];

		for (i = 0; i < b->n; i++) {
			if (b->dest[i] == UF_DEST_CTL) {
				w->ctr.ctl_tx_drop++;
			} else {
				w->dctr[b->dest[i]].tx_drop++;
				w->ctr.tx_drop[UF_TXDROP_RING_FULL]++;
			}
		}
		rte_pktmbuf_free_bulk(b->m, b->n);
		b->n = 0;
		b->n_ctl = 0;
	}
}

int
uf_worker_main(void *arg)
{
	struct uf_worker *w = arg;
	struct uf_shared *sh = w->shared;
	struct rte_rcu_qsbr *const uq = sh->unmap_qsbr;
	struct rte_mbuf *pkts[UF_MAX_BURST];
	const uint16_t burst = w->burst, n_ports = w->n_ports, q = w->id;
	const uint64_t drain = w->drain_tsc;
	const bool flush_idle = w->flush_idle;
	const uint64_t idle_hold = w->flush_idle_tsc;
	const uint32_t idle_sleep_us = w->idle_sleep_us;
	uint64_t start, prev, last_drain, last_rx, busy = 0, loops = 0, publish_at = 1024;
	uint32_t unclocked = 0; /* passes since the clock was last read */

	rte_rcu_qsbr_thread_register(sh->qsbr, w->id);
	rte_rcu_qsbr_thread_online(sh->qsbr, w->id);
	if (uq != NULL) {
		rte_rcu_qsbr_thread_register(uq, w->id);
		rte_rcu_qsbr_thread_online(uq, w->id);
	}
	start = prev = last_drain = last_rx = rte_rdtsc();

	while (likely(!__atomic_load_n(&sh->quit, __ATOMIC_RELAXED))) {
		const struct uf_plan *plan = __atomic_load_n(&sh->plan, __ATOMIC_ACQUIRE);
		/* ports being reset: not polled (ordered after the last pass's quiescent report) */
		const uint32_t skip = __atomic_load_n(&sh->rx_skip, __ATOMIC_RELAXED);
		uint16_t pi, got = 0;
		bool full = false, worked;
		uint64_t now;

		for (pi = 0; pi < n_ports; pi++) {
			uint16_t n;

			/* an alias: its device's owner polls it */
			if (unlikely(w->ports[pi].alias || (skip >> pi & 1)))
				continue;
			n = rte_eth_rx_burst(w->ports[pi].port_id, q, pkts, burst);

			if (n == 0)
				continue;
			got = (uint16_t)(got + n);
			full |= n == burst;
			uf_worker_rx(w, plan, pi, pkts, n);
		}
		drain_ctl_tx(w);
		loops++;
		/*
		 * A pass that received a full burst reads no clock, up to UF_CLOCK_EVERY - 1 in a
		 * row: more is waiting, so no buffer is idle and the timer can wait a few passes
		 * (rdtsc costs ~25 cycles, near a cycle per datagram at N = 1). Those passes are
		 * busy; the next clocked one counts the span since the last read.
		 */
		if (full && ++unclocked < UF_CLOCK_EVERY)
			continue;
		now = rte_rdtsc();
		/*
		 * Flush when a pass found every RX queue empty: nothing more is coming to fill
		 * the buffers, so what they hold goes now, not when the drain timer fires (at low
		 * rates that timer was the whole of the delay udpfan added: up to drain_us). Under
		 * load the queues are never empty and the buffers still go as full bursts; the
		 * timer bounds the wait of a slow port's frames while other ports keep the
		 * worker busy; forward.flush_idle: false leaves it to the timer alone.
		 * forward.flush_idle_us holds that flush back until the queues have been empty
		 * that long: where each flush is a system call (af_xdp, af_packet), a burst that
		 * arrives in pieces then leaves in one call, not one per piece.
		 * docs/architecture.md#tx-buffers-drain-timer-bounded-retries
		 */
		worked = got != 0 || unclocked != 0;
		if (worked)
			last_rx = now;
		if ((got == 0 && flush_idle && now - last_rx >= idle_hold) ||
		    now - last_drain >= drain) {
			/*
			 * A flush that hands frames over is work, counted busy below: on a PMD
			 * backed by the kernel (af_xdp, af_packet) the send runs the kernel's
			 * transmit path, most of a copy's cost there, and at low rates nearly
			 * every flush comes in an idle pass (docs/loss-accounting.md, busy_pct).
			 */
			if (uf_worker_flush(w) != 0) {
				const uint64_t t = rte_rdtsc();

				if (!worked)
					busy += t - now; /* an idle pass: its flush alone */
				now = t;
			}
			last_drain = now;
		}
		rte_rcu_qsbr_quiescent(sh->qsbr, w->id);
		if (uq != NULL)
			rte_rcu_qsbr_quiescent(uq, w->id);
		/* busy: this pass received, or passes without a clock (each a full burst) led up
		 * to it (an idle pass that ends such a run is counted with them); an idle pass's
		 * flush is counted above */
		if (worked)
			busy += now - prev;
		prev = now;
		unclocked = 0;
		/*
		 * forward.idle_sleep_us: on a CPU the worker shares (the kernel-socket fallback on
		 * a busy host), a worker that never sleeps is time-sliced against the other
		 * runnable tasks and can be off its CPU for longer than the PMD's ring holds
		 * (af_xdp: 2048 frames). One that sleeps when idle is woken ahead of them.
		 * Only after an empty pass, so a loaded worker never sleeps; the sleep is not busy
		 * time. docs/configuration.md#forward
		 */
		if (unlikely(idle_sleep_us != 0) && got == 0) {
			rte_delay_us_sleep(idle_sleep_us);
			prev = rte_rdtsc();
		}
		/* publish the cycle counters every 1024 passes or so: cheap, and fresh enough */
		if (loops >= publish_at) {
			publish_at = loops + 1024;
			w->ctr.busy_cycles = busy;
			w->ctr.total_cycles = now - start;
			w->ctr.loops = loops;
			w->ctr.plan_version = plan->version;
		}
	}
	/* drain: what is buffered goes out (or is counted), then stop */
	if (unlikely(__atomic_load_n(&sh->no_tx, __ATOMIC_ACQUIRE)))
		discard_all(w);
	drain_ctl_tx(w);
	uf_worker_flush(w);
	w->ctr.busy_cycles = busy;
	w->ctr.total_cycles = rte_rdtsc() - start;
	w->ctr.loops = loops;
	if (uq != NULL) {
		rte_rcu_qsbr_thread_offline(uq, w->id);
		rte_rcu_qsbr_thread_unregister(uq, w->id);
	}
	rte_rcu_qsbr_thread_offline(sh->qsbr, w->id);
	rte_rcu_qsbr_thread_unregister(sh->qsbr, w->id);
	return 0;
}

void
uf_worker_port_id(struct uf_worker *w, uint16_t pi)
{
	uf_dp_pat_init(&w->ports[pi].pat[0], &w->ports[pi].id, false);
	uf_dp_pat_init(&w->ports[pi].pat[1], &w->ports[pi].id, true);
}

int
uf_worker_create(const struct uf_worker_conf *c, struct uf_worker **out, struct uf_err *err)
{
	int socket = (int)rte_lcore_to_socket_id(c->lcore);
	char name[RTE_RING_NAMESIZE];
	struct uf_worker *w;
	uint16_t i;

	*out = NULL;
	w = rte_zmalloc_socket("uf_worker", sizeof(*w), RTE_CACHE_LINE_SIZE, socket);
	if (w == NULL) {
		uf_err_set(err, UF_EXIT_ENV, "cannot allocate worker %u on socket %d", c->id,
			   socket);
		return -ENOMEM;
	}
	w->id = c->id;
	w->lcore = (uint16_t)c->lcore;
	w->n_ports = c->n_ports;
	w->burst = c->burst;
	w->tx_retries = c->tx_retries;
	w->drain_tsc = rte_get_tsc_hz() * c->drain_us / 1000000;
	w->flush_idle = c->flush_idle;
	w->flush_idle_tsc = rte_get_tsc_hz() * c->flush_idle_us / 1000000;
	w->idle_sleep_us = c->idle_sleep_us;
	w->shared = c->shared;
	uf_worker_link_init(w, c->tx_stall_ms, c->tx_probe_ms);
	w->copy_pool = c->copy_pool;
	w->hdr_pool = c->hdr_pool;
	snprintf(name, sizeof(name), "uf_crx%u", c->id);
	w->ctl_rx = rte_ring_create(name, UF_CTL_RING_SIZE, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "uf_ctx%u", c->id);
	w->ctl_tx = rte_ring_create(name, UF_CTL_RING_SIZE, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (w->ctl_rx == NULL || w->ctl_tx == NULL) {
		uf_err_set(err, UF_EXIT_ENV, "cannot create control rings: %s",
			   rte_strerror(rte_errno));
		uf_worker_destroy(w);
		return -ENOMEM;
	}
	for (i = 0; i < c->n_ports; i++) {
		const struct uf_worker_port *p = &c->ports[i];

		if (p->dev == i) /* a device's DPDK port id: its owner's index */
			w->port_idx[p->port_id] = (uint8_t)i;
		w->ports[i].port_id = p->port_id;
		w->ports[i].id = p->id;
		uf_worker_port_id(w, i);
		w->port6[i] = p->id6;
		w->ports[i].vlan = p->vlan;
		w->ports[i].alias = p->dev != i;
		w->txb[i].port_id = p->port_id;
		w->txb[i].pad_to = p->pad_to;
		if (p->socket != socket)
			UF_LOG(WARNING,
			       "worker %u runs on lcore %u (socket %d) but port %s is on "
			       "socket %d: every packet crosses the interconnect; pick lcores "
			       "on socket %d",
			       c->id, c->lcore, socket, p->name, p->socket, p->socket);
	}
	/* a device with a tagged port: its owner splits its bursts by VLAN id */
	for (i = 0; i < c->n_ports; i++) {
		struct uf_wport *o = &w->ports[c->ports[i].dev];
		bool tagged = false;
		uint16_t j;

		for (j = 0; j < c->n_ports; j++)
			tagged |= c->ports[j].dev == c->ports[i].dev && c->ports[j].vlan != 0;
		if (!tagged)
			continue;
		o->vlan_id[o->n_vlans] = c->ports[i].vlan;
		o->vlan_pi[o->n_vlans++] = (uint8_t)i;
	}
	*out = w;
	return 0;
}

void
uf_worker_destroy(struct uf_worker *w)
{
	if (w == NULL)
		return;
	rte_ring_free(w->ctl_rx);
	rte_ring_free(w->ctl_tx);
	rte_free(w);
}

int
uf_workers_quiesce(struct uf_shared *sh, uint32_t ports, uint32_t timeout_ms)
{
	const uint64_t hz = rte_get_tsc_hz(),
		       deadline = rte_get_tsc_cycles() + hz * timeout_ms / 1000;
	uint64_t token;
	uint16_t pi;

	for (pi = 0; pi < UF_MAX_PORTS; pi++)
		if (ports >> pi & 1)
			__atomic_store_n(&sh->link_down[pi], 1, __ATOMIC_RELEASE);
	__atomic_fetch_or(&sh->rx_skip, ports, __ATOMIC_RELEASE);
	/* the token's release store orders the flags before it; a worker that reports a
	 * quiescent state after it (acquire) sees them on its next pass, and the pass it was in
	 * when the flags changed is over */
	token = rte_rcu_qsbr_start(sh->qsbr);
	while (!rte_rcu_qsbr_check(sh->qsbr, token, false)) {
		if (rte_get_tsc_cycles() >= deadline)
			return -ETIMEDOUT;
		rte_delay_us_sleep(20);
	}
	return 0;
}

void
uf_workers_unquiesce(struct uf_shared *sh, uint32_t ports)
{
	__atomic_fetch_and(&sh->rx_skip, ~ports, __ATOMIC_RELEASE);
}
