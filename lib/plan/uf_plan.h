/* SPDX-License-Identifier: BSD-3-Clause
 * The fan-out plan: everything a worker needs to turn one datagram into N frames, resolved
 * ahead of time. Immutable once published; the control lcore builds a new one when a
 * neighbour's MAC changes, publishes it with one atomic store, and frees the old one after
 * every worker has passed a quiescent point (rte_rcu_qsbr).
 */
#ifndef UF_PLAN_H
#define UF_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_lpm.h>

#include "uf_compat.h"
#include "uf_config.h"
#include "uf_pkt.h"
#include "uf_pkt6.h"
#include "uf_pool.h"
#include "uf_prefix6.h"

/*
 * IPv6 (docs/architecture.md#ipv6). A destination's IPv6 side, by counter slot
 * (plan->d6, NULL when nothing in the plan is IPv6): an IPv6 destination's Eth/IPv6/UDP
 * template (uf_tmpl6 has no room for a tag: a tagged port's copy gets its tag put in after
 * the header is written, uf_vlan_insert). An IPv4 destination of an IPv6 listener keeps its
 * uf_dest_rt.tmpl, derived for IPv6 input (uf_tmpl_from6).
 */
struct uf_dest6_rt {
	struct uf_tmpl6 t6;
	bool is6;  /* an IPv6 destination: t6; else uf_dest_rt.tmpl (IPv4) */
	bool vlan; /* is6 on a tagged port */
	uint16_t vlan_tci;
};

/* An IPv6 listener's rule: its index in the listener is its set (first match, linear) */
struct uf_rule6 {
	struct uf_ip6 prefix;
	uint8_t len;
};

/* One destination, as the worker sees it. */
struct uf_dest_rt {
	struct uf_tmpl tmpl;
	uint16_t egress;      /* port index: the worker's TX buffer */
	uint16_t idx;         /* position in destinations[] */
	uint32_t sample;      /* 1: every datagram */
	uint16_t max_payload; /* egress MTU - 28 */
	bool resolved;        /* the template carries a valid next-hop MAC */
	bool chain_ok;        /* the egress PMD transmits chained mbufs correctly */
	bool is_pool;         /* a pool: no template; plan->pools[pool] picks the member */
	uint16_t pool;
} __rte_cache_aligned;

/* The destinations one sender gets (all of them without rules; a rule's `to` with). */
struct uf_set {
	uint32_t first; /* into uf_plan.set_dests: 4096 rules x 256 members overflow 16 bits */
	uint16_t n;
	uint16_t max_payload; /* the smallest of its destinations' */
	bool any_resolved;
	bool chain_ok;
	bool simple;      /* every member resolved and unsampled: the fast path copies to all */
	bool one_egress;  /* every member leaves through the same port */
	uint8_t hdr_form; /* enum uf_hdr_form: what every member's template is */
	/* chain at and above this payload: the plan's, raised to what every member's egress PMD
	 * can chain (ENA LLQ: no chained frame under 225 B) */
	uint32_t chain_min_payload;
};

/* A port's service addresses (docs/configuration.md#service-addresses), by family. */
struct uf_plan_svc {
	uint8_t n4, n6;
	rte_be32_t ip4[UF_MAX_PORT_SVC];
	struct uf_ip6 ip6[UF_MAX_PORT_SVC];
};

/*
 * The fan-out engine of one plan view (docs/architecture.md#fan-out): decided once, when the
 * plan is built (uf_plan_engine), from what the view's datagrams need; the worker switches on
 * it once per burst. Each engine is one specialisation of the one fan-out body
 * (lib/fwd/uf_fanout.h), by constant flags; the general ones serve every view of their
 * family, the others only the views uf_plan_engine_serves says.
 */
enum uf_engine {
	UF_ENG_MIXED,        /* IPv6 involved (has6): a family per copy, no chaining */
	UF_ENG_GENERIC,      /* per datagram: rules, too_big, sampling, pools, resolution */
	UF_ENG_GENERIC_VLAN, /* the same, a destination's template tagged */
	UF_ENG_SIMPLE,       /* no rules, set 0 simple: the set read once per burst */
	UF_ENG_SIMPLE_VLAN,
	UF_ENG_MIXED_SIMPLE,     /* simple, IPv6 involved: the set per burst, a family per copy */
	UF_ENG_MIXED_ONE_EGRESS, /* ... every copy through one port */
	UF_ENG_ONE_EGRESS, /* simple, every copy through one port: its TX buffer in a register */
	UF_ENG_ONE_EGRESS_KEEP, /* ... every template plain, keeping the sender's UDP port */
	UF_ENG_ONE_EGRESS_OWN,  /* ... every template plain, a UDP port of ours */
	UF_ENG_ONE_EGRESS_VLAN,
	UF_ENG_SINGLE,      /* simple, N = 1: each datagram rewritten in place, queued as found */
	UF_ENG_SINGLE_KEEP, /* ... its template plain, keeping the sender's port; UDP checksums */
	UF_ENG_SINGLE_OWN,  /* ... its template plain, a UDP port of ours */
	UF_ENG_SINGLE_VLAN,
	UF_ENG_SINGLE6, /* simple, N = 1, to an untagged IPv6 destination: as single, a v6 header */
	UF_ENG_MAX
};

struct uf_plan {
	uint64_t version;
	uint16_t n_dests; /* entries in dests[]: counter slots (uf_plan_input.dest_slot) */
	uint16_t n_sets;
	bool udp_cksum;
	uint8_t engine; /* enum uf_engine: how the worker fans this view's datagrams out */
	bool any_vlan;  /* a destination's template is tagged: the fan-out's tagged form */
	enum uf_fanout_mode fanout;
	uint32_t chain_min_payload; /* >= 18, so chained frames never need padding */
	rte_be32_t in_dst_ip;       /* what datagrams are addressed to: the listen port's IP */
	rte_be16_t in_dst_port;     /* and UDP port */
	const struct rte_lpm *lpm;  /* NULL: no rules, every sender gets set 0; not owned */
	uint32_t catch_all;         /* the set of a 0.0.0.0/0 rule, for senders the LPM misses;
				     * UF_SET_NONE: none, they are dropped as no_rule */
	struct uf_set *sets;
	uint16_t *set_dests;
	struct uf_dest_rt *dests;
	uint16_t n_pools;
	struct uf_pool_rt *pools; /* docs/architecture.md#pools */
	void *mem;                /* one allocation holds it all */
	bool rte_mem;
	/*
	 * Listeners (docs/architecture.md#listeners). One: the fields above are its, and the
	 * worker never looks further. Several: lis[l] is listener l's view of the plan (its
	 * sets, rules, catch_all, engine, in_dst_*; dests and set_dests shared, indexes global),
	 * and lmap[pi] finds the listener of a datagram on port index pi: lmap[pi][dport] is
	 * 1 + the first listener on that UDP port (0: none), lis_ip[l] its address and
	 * lis_next[l] 1 + the next listener on the same port and UDP port (another IP).
	 */
	uint16_t n_listeners;
	struct uf_plan *lis;
	const uint8_t *lmap[UF_MAX_PORTS]; /* NULL: no listener on the port */
	rte_be32_t lis_ip[UF_MAX_LISTENERS];
	uint8_t lis_next[UF_MAX_LISTENERS];
	/*
	 * IPv6 (docs/architecture.md#ipv6). has6: this view's listener is IPv6 or
	 * one of its destinations is: its engine is UF_ENG_MIXED
	 * (copies only), and the IPv4 bodies never see it. in_is6/in_dst_ip6: an IPv6
	 * listener's address (in_dst_port as for IPv4). rules6: its rules; lpm6 the same as a
	 * longest-prefix table (uf_prefix6; not owned; NULL: a plan built without one, the unit tests: the first
	 * match by a linear walk), catch_all6 the set of a ::/0 rule (UF_SET_NONE: none). d6:
	 * per destination, shared by the views.
	 * Top level only: lis6_*, the IPv6 listeners (port index, UDP port, address, listener
	 * index), walked for each IPv6 datagram (uf_plan_listener6).
	 */
	bool has6;
	bool in_is6;
	/* one listener, IPv6: its port's bursts take the fast IPv6 test first
	 * (worker_rx_port6, lib/fwd/uf_fwd.c) */
	bool fast6;
	/* several listeners, some IPv6: the ports' bursts take their lane
	 * (uf_worker_rx_listeners6, lib/fwd/uf_fwd_lis.c) */
	bool multi6;
	struct uf_ip6 in_dst_ip6;
	uint16_t n_rules6;
	const struct uf_rule6 *rules6;
	const struct uf_prefix6 *lpm6;
	uint32_t catch_all6;
	const struct uf_dest6_rt *d6;
	uint8_t n_lis6;
	uint8_t lis6_pi[UF_MAX_LISTENERS];
	uint8_t lis6_l[UF_MAX_LISTENERS];
	rte_be16_t lis6_udp[UF_MAX_LISTENERS];
	struct uf_ip6 lis6_ip[UF_MAX_LISTENERS];
	/* Top level only: [n_ports] each port's service addresses; NULL where no port has one,
	 * and then the worker never looks (docs/architecture.md#service-addresses) */
	const struct uf_plan_svc *svc;
};

/* The index of dst among port pi's IPv4 service addresses, or -1 (none, or no table). */
static inline int
uf_plan_svc4(const struct uf_plan *plan, uint16_t pi, rte_be32_t dst)
{
	const struct uf_plan_svc *s = &plan->svc[pi];
	int k;

	for (k = 0; k < s->n4; k++)
		if (s->ip4[k] == dst)
			return k;
	return -1;
}

/* The view of the plan for an IPv6 datagram to (dst, dport) on port index pi, and its
 * listener index in *l; NULL: no IPv6 listener takes it (not_for_us). */
static inline const struct uf_plan *
uf_plan_listener6(const struct uf_plan *plan, uint16_t pi, const struct uf_ip6 *dst,
		  rte_be16_t dport, int *l)
{
	int k;

	for (k = 0; k < plan->n_lis6; k++) {
		if (plan->lis6_pi[k] != pi || plan->lis6_udp[k] != dport ||
		    !uf_ip6_eq(&plan->lis6_ip[k], dst))
			continue;
		*l = plan->lis6_l[k];
		return plan->n_listeners > 1 ? &plan->lis[*l] : plan;
	}
	return NULL;
}

#define UF_SET_NONE UINT32_MAX

/* The set of an IPv6 datagram from src with rules (plan->n_rules6 > 0): the first rule
 * that covers it; false: none (no_rule). As uf_plan_lookup: first match is longest-prefix
 * match (validation refuses a covered rule), one uf_prefix6 lookup whatever the number of
 * rules, the ::/0 rule (which the table does not hold) what a miss falls back to. */
static __rte_always_inline bool
uf_plan_lookup6(const struct uf_plan *plan, const struct uf_ip6 *src, uint32_t *set)
{
	uint16_t i;

	if (likely(plan->lpm6 != NULL)) {
		if (likely(uf_prefix6_lookup(plan->lpm6, src->b, set)))
			return true;
		*set = plan->catch_all6;
		return plan->catch_all6 != UF_SET_NONE;
	}
	for (i = 0; i < plan->n_rules6; i++)
		if (uf_ip6_in_prefix(src, &plan->rules6[i].prefix, plan->rules6[i].len)) {
			*set = i;
			return true;
		}
	return false;
}

/* The listener of a datagram to (dst_ip, dport) on port index pi of a plan with several
 * listeners; -1: none (not_for_us). One table load and, but for listeners that share a UDP
 * port on one port by their IPs, one compare. */
static __rte_always_inline int
uf_plan_listener(const struct uf_plan *plan, uint16_t pi, rte_be32_t dst_ip, rte_be16_t dport)
{
	const uint8_t *map = plan->lmap[pi];
	uint32_t l;

	if (unlikely(map == NULL))
		return -1;
	l = map[rte_be_to_cpu_16(dport)];
	while (l != 0) {
		if (likely(plan->lis_ip[l - 1] == dst_ip))
			return (int)l - 1;
		l = plan->lis_next[l - 1];
	}
	return -1;
}

/*
 * The set for a datagram from src (network order), with rules (plan->lpm set): false when no
 * rule matches. A 0.0.0.0/0 rule is not in the LPM (rte_lpm_add refuses depth 0); validation
 * makes it the last rule (one before any other would cover it), so it is exactly what a
 * miss falls back to (docs/configuration.md#rules). A hit costs nothing more.
 */
static __rte_always_inline bool
uf_plan_lookup(const struct uf_plan *plan, rte_be32_t src, uint32_t *set)
{
	if (likely(rte_lpm_lookup((struct rte_lpm *)(uintptr_t)plan->lpm, rte_be_to_cpu_32(src),
				  set) == 0))
		return true;
	*set = plan->catch_all;
	return plan->catch_all != UF_SET_NONE;
}

struct uf_plan_input {
	const struct uf_config *cfg;
	const struct rte_ether_addr *port_mac; /* [cfg->n_ports] */
	const uint16_t *port_mtu;              /* [cfg->n_ports] */
	const bool *port_chain_ok;             /* [cfg->n_ports] */
	const uint16_t *port_chain_min_frame;  /* [cfg->n_ports]: 0 any; NULL: none anywhere */
	const struct rte_ether_addr *dest_mac; /* [cfg->n_dests]: the next hop's MAC */
	const bool *dest_resolved;             /* [cfg->n_dests] */
	const struct rte_lpm *lpm;
	/* [cfg->n_ports]: the link is up; NULL: every link. A pool leaves out a member that is
	 * unresolved or whose port is down (docs/configuration.md#pools) */
	const bool *port_up;
	/* [cfg->n_listeners] each listener's rules (NULL: it has none); with several listeners
	 * this, not lpm, is used (uf_rules_lpm_listener) */
	const struct rte_lpm *const *lis_lpm;
	/* the same for an IPv6 listener's rules (uf_rules_lpm6*); NULL: the linear walk */
	const struct uf_prefix6 *lpm6;
	const struct uf_prefix6 *const *lis_lpm6;
	uint64_t version;
	int socket; /* < 0: plain heap (unit tests) */
	/* [cfg->n_dests]: each destination's counter slot, its index in plan->dests and in
	 * the workers' per-destination counters; stable across reloads for a destination that
	 * stays (docs/architecture.md#reload). NULL: slot = index. */
	const uint16_t *dest_slot;
	uint16_t n_slots; /* with dest_slot: 1 + the highest slot */
};

struct uf_plan *uf_plan_build(const struct uf_plan_input *in);

/* A simple engine: no rules, set 0's members all resolved and unsampled, read once per
 * burst (the enum's order) */
static inline bool
uf_engine_is_simple(enum uf_engine e)
{
	return e >= UF_ENG_SIMPLE && e < UF_ENG_MAX;
}

/* The engine a view gets (uf_plan_build stores it in plan->engine): the most specialised one
 * that serves it. */
enum uf_engine uf_plan_engine(const struct uf_plan *plan);

/* Whether engine e gives this view's datagrams the frames and counters the general engine
 * of its family would (the differential test runs every engine that does). */
bool uf_plan_engine_serves(const struct uf_plan *plan, enum uf_engine e);

/* The engine's name, for logs and tests ("generic", "one_egress_keep", ...). */
const char *uf_engine_name(enum uf_engine e);

/*
 * Can this config ever produce a chained copy? Not with fanout: copy, not without a sender's
 * set of two or more destinations (one copy reuses the received mbuf), and not when the
 * listen port's configured MTU leaves no payload at or above chain_min_payload. Ports ask
 * for MULTI_SEGS (and give up fast-free) only when it can (docs/pmd-quirks.md).
 */
bool uf_plan_may_chain(const struct uf_config *cfg);
void uf_plan_free(struct uf_plan *plan);

/* The next hop of a destination: itself on its port's subnet, else the port's gateway.
 * Multicast destinations need none (their MAC follows from the address). */
rte_be32_t uf_next_hop(const struct uf_config *cfg, const struct uf_cfg_dest *d);
void uf_mcast_mac(rte_be32_t ip, struct rte_ether_addr *mac);

/* The rules as an LPM table (next hop = set index), less a 0.0.0.0/0 rule (the plan's
 * catch_all). NULL without rules; NULL and rte_errno on failure. Needs EAL. */
struct rte_lpm *uf_rules_lpm(const struct uf_config *cfg, int socket);
/* The same for listener l's rules alone (next hop: the rule's index in the listener). */
struct rte_lpm *uf_rules_lpm_listener(const struct uf_config *cfg, int l, int socket);
/* The IPv6 rules as a uf_prefix6 table (next hop = set index), less a ::/0 rule (the view's
 * catch_all6): the listener's (one listener) or listener l's. NULL with no IPv6 rules; NULL
 * and rte_errno on failure. Needs EAL. */
struct uf_prefix6 *uf_rules_lpm6(const struct uf_config *cfg, int socket);
struct uf_prefix6 *uf_rules_lpm6_listener(const struct uf_config *cfg, int l, int socket);

#endif /* UF_PLAN_H */
