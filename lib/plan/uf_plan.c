/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_malloc.h>

#include "uf_plan.h"

void
uf_mcast_mac(rte_be32_t ip, struct rte_ether_addr *mac)
{
	const uint8_t *b = (const uint8_t *)&ip;

	mac->addr_bytes[0] = 0x01;
	mac->addr_bytes[1] = 0x00;
	mac->addr_bytes[2] = 0x5e;
	mac->addr_bytes[3] = b[1] & 0x7f;
	mac->addr_bytes[4] = b[2];
	mac->addr_bytes[5] = b[3];
}

rte_be32_t
uf_next_hop(const struct uf_config *cfg, const struct uf_cfg_dest *d)
{
	const struct uf_cfg_port *p = &cfg->ports[d->port];
	uint32_t mask = ~0u << (32 - p->prefix_len);

	if (((rte_be_to_cpu_32(d->ip) ^ rte_be_to_cpu_32(p->ip)) & mask) == 0 || !p->has_gateway)
		return d->ip;
	return p->gateway;
}

/*
 * The pools: each one's table from its members' states, and its entry's summary of them
 * (resolved: some member is; the smallest payload any member takes; chains if all can).
 * docs/architecture.md#pools.
 */
/* destination i's index in plan->dests: its counter slot (docs/architecture.md#reload) */
static inline uint16_t
slot_of(const struct uf_plan_input *in, int i)
{
	return in->dest_slot != NULL ? in->dest_slot[i] : (uint16_t)i;
}

static int
pools_build(struct uf_plan *plan, const struct uf_plan_input *in, uint16_t *tables)
{
	const struct uf_config *cfg = in->cfg;
	uint64_t ids[UF_MAX_DESTS];
	uint16_t dests[UF_MAX_DESTS];
	bool up[UF_MAX_DESTS];
	int i, j;

	for (i = 0; i < cfg->n_pools; i++) {
		const struct uf_cfg_pool *cp = &cfg->pools[i];
		struct uf_pool_rt *p = &plan->pools[i];
		struct uf_dest_rt *rt = &plan->dests[slot_of(in, cp->entry)];

		if (cp->n == 0 || cp->first + cp->n > cfg->n_dests)
			return -1;
		p->entry = slot_of(in, cp->entry);
		p->n = cp->n;
		p->balance = (uint8_t)cp->balance;
		p->sender_port = cp->sender_port;
		p->table = tables;
		p->rr = tables + UF_POOL_BUCKETS;
		tables += UF_POOL_BUCKETS + cp->n;
		rt->is_pool = true;
		rt->pool = (uint16_t)i;
		rt->idx = slot_of(in, cp->entry);
		rt->sample = cfg->dests[cp->entry].sample;
		rt->max_payload = UINT16_MAX;
		rt->chain_ok = true;
		rt->resolved = false;
		for (j = 0; j < cp->n; j++) {
			const struct uf_dest_rt *m = &plan->dests[slot_of(in, cp->first + j)];

			dests[j] = slot_of(in, cp->first + j);
			ids[j] = uf_pool_member_id(&cfg->dests[cp->first + j]);
			up[j] = m->resolved && (in->port_up == NULL || in->port_up[m->egress]);
			rt->resolved |= m->resolved;
			rt->chain_ok &= m->chain_ok;
			rt->max_payload = RTE_MIN(rt->max_payload, m->max_payload);
		}
		rt->egress = plan->dests[slot_of(in, cp->first)].egress;
		p->n_up = uf_pool_fill(p->table, p->rr, cp->n, ids, up, dests);
	}
	return 0;
}

/* listener l's sets: one per rule, or one of all its destinations */
static int
lis_n_sets(const struct uf_config *cfg, int l)
{
	return cfg->listeners[l].n_rules > 0 ? cfg->listeners[l].n_rules : 1;
}

/* Fill set si (members from *n_members on) with the destinations dis[0..n). */
static void
set_fill(struct uf_plan *plan, const struct uf_plan_input *in, struct uf_set *set,
	 const uint16_t *dis, uint16_t first_di, int n, int *n_members)
{
	enum uf_hdr_form form;
	int j;

	set->first = (uint32_t)*n_members;
	set->n = (uint16_t)n;
	set->max_payload = UINT16_MAX;
	set->chain_ok = true;
	set->chain_min_payload = plan->chain_min_payload;
	set->simple = true;
	set->one_egress = true;
	for (j = 0; j < n; j++) {
		/* config index, then its counter slot: its index in plan->dests */
		uint16_t di = slot_of(in, dis != NULL ? dis[j] : first_di + j);
		const struct uf_dest_rt *rt = &plan->dests[di];

		plan->set_dests[(*n_members)++] = di;
		set->any_resolved |= rt->resolved;
		set->simple &= rt->resolved && rt->sample <= 1 && !rt->is_pool;
		set->one_egress &= !rt->is_pool &&
				   rt->egress == plan->dests[plan->set_dests[set->first]].egress;
		set->chain_ok &= rt->chain_ok;
		form = rt->is_pool || !rt->tmpl.plain ? UF_HDR_ANY
		       : rt->tmpl.keep_sport          ? UF_HDR_PLAIN_KEEP_SPORT
						      : UF_HDR_PLAIN_OWN_SPORT;
		if (j == 0)
			set->hdr_form = (uint8_t)form;
		else if (set->hdr_form != form)
			set->hdr_form = UF_HDR_ANY;
		if (in->port_chain_min_frame != NULL &&
		    in->port_chain_min_frame[rt->egress] > UF_HDR_LEN &&
		    (uint32_t)(in->port_chain_min_frame[rt->egress] - UF_HDR_LEN) >
				    set->chain_min_payload)
			set->chain_min_payload = in->port_chain_min_frame[rt->egress] - UF_HDR_LEN;
		if (rt->max_payload < set->max_payload)
			set->max_payload = rt->max_payload;
	}
}

/* no rules, one set, every member resolved and unsampled: the set read once per burst */
static bool
plan_simple_any(const struct uf_plan *plan)
{
	return plan->lpm == NULL && plan->n_rules6 == 0 && plan->n_sets == 1 &&
	       plan->sets[0].simple && plan->sets[0].n > 0;
}

/* ... and IPv4 only */
static bool
plan_simple(const struct uf_plan *plan)
{
	return plan_simple_any(plan) && !plan->has6;
}

bool
uf_plan_engine_serves(const struct uf_plan *plan, enum uf_engine e)
{
	const struct uf_set *s = &plan->sets[0];
	const bool simple = plan_simple(plan);
	/* an untagged engine writes the 42-byte header without looking at the template's */
	const bool untagged_ok = !plan->any_vlan;

	switch (e) {
	case UF_ENG_MIXED: /* never chains */
		return plan->has6 || plan->fanout == UF_FANOUT_COPY;
	case UF_ENG_GENERIC:
		return !plan->has6 && untagged_ok;
	case UF_ENG_GENERIC_VLAN:
		return !plan->has6;
	case UF_ENG_SIMPLE:
		return simple && untagged_ok;
	case UF_ENG_SIMPLE_VLAN:
		return simple;
	case UF_ENG_MIXED_SIMPLE: /* never chains */
		return plan_simple_any(plan) && (plan->has6 || plan->fanout == UF_FANOUT_COPY);
	case UF_ENG_MIXED_ONE_EGRESS:
		return plan_simple_any(plan) && (plan->has6 || plan->fanout == UF_FANOUT_COPY) &&
		       s->one_egress;
	case UF_ENG_ONE_EGRESS:
		return simple && s->one_egress && untagged_ok;
	case UF_ENG_ONE_EGRESS_KEEP:
		return simple && s->one_egress && untagged_ok &&
		       s->hdr_form == UF_HDR_PLAIN_KEEP_SPORT;
	case UF_ENG_ONE_EGRESS_OWN:
		return simple && s->one_egress && untagged_ok &&
		       s->hdr_form == UF_HDR_PLAIN_OWN_SPORT;
	case UF_ENG_ONE_EGRESS_VLAN:
		return simple && s->one_egress;
	case UF_ENG_SINGLE:
		return simple && s->n == 1 && untagged_ok;
	case UF_ENG_SINGLE_KEEP: /* its in-place rewrite computes the UDP checksum */
		return simple && s->n == 1 && untagged_ok && plan->udp_cksum &&
		       s->hdr_form == UF_HDR_PLAIN_KEEP_SPORT;
	case UF_ENG_SINGLE_OWN:
		return simple && s->n == 1 && untagged_ok && plan->udp_cksum &&
		       s->hdr_form == UF_HDR_PLAIN_OWN_SPORT;
	case UF_ENG_SINGLE6: /* one untagged IPv6 destination */
		return plan_simple_any(plan) && s->n == 1 && plan->d6 != NULL &&
		       plan->d6[plan->set_dests[s->first]].is6 &&
		       !plan->d6[plan->set_dests[s->first]].vlan;
	case UF_ENG_SINGLE_VLAN:
		return simple && s->n == 1;
	default:
		return false;
	}
}

enum uf_engine
uf_plan_engine(const struct uf_plan *plan)
{
	/* the most specialised first; generic_vlan serves every IPv4 view */
	static const enum uf_engine order[] = {
		UF_ENG_SINGLE_KEEP, UF_ENG_SINGLE_OWN,      UF_ENG_SINGLE,
		UF_ENG_SINGLE_VLAN, UF_ENG_ONE_EGRESS_KEEP, UF_ENG_ONE_EGRESS_OWN,
		UF_ENG_ONE_EGRESS,  UF_ENG_ONE_EGRESS_VLAN, UF_ENG_SIMPLE,
		UF_ENG_SIMPLE_VLAN, UF_ENG_GENERIC,
	};
	unsigned int i;

	if (plan->has6) {
		if (uf_plan_engine_serves(plan, UF_ENG_SINGLE6))
			return UF_ENG_SINGLE6;
		if (uf_plan_engine_serves(plan, UF_ENG_MIXED_ONE_EGRESS))
			return UF_ENG_MIXED_ONE_EGRESS;
		return uf_plan_engine_serves(plan, UF_ENG_MIXED_SIMPLE) ? UF_ENG_MIXED_SIMPLE
									: UF_ENG_MIXED;
	}
	for (i = 0; i < RTE_DIM(order); i++)
		if (uf_plan_engine_serves(plan, order[i]))
			return order[i];
	return UF_ENG_GENERIC_VLAN;
}

const char *
uf_engine_name(enum uf_engine e)
{
	static const char *const names[UF_ENG_MAX] = {
		[UF_ENG_MIXED] = "mixed",
		[UF_ENG_GENERIC] = "generic",
		[UF_ENG_GENERIC_VLAN] = "generic_vlan",
		[UF_ENG_SIMPLE] = "simple",
		[UF_ENG_SIMPLE_VLAN] = "simple_vlan",
		[UF_ENG_MIXED_SIMPLE] = "mixed_simple",
		[UF_ENG_MIXED_ONE_EGRESS] = "mixed_one_egress",
		[UF_ENG_ONE_EGRESS] = "one_egress",
		[UF_ENG_ONE_EGRESS_KEEP] = "one_egress_keep",
		[UF_ENG_ONE_EGRESS_OWN] = "one_egress_own",
		[UF_ENG_ONE_EGRESS_VLAN] = "one_egress_vlan",
		[UF_ENG_SINGLE] = "single",
		[UF_ENG_SINGLE_KEEP] = "single_keep",
		[UF_ENG_SINGLE_OWN] = "single_own",
		[UF_ENG_SINGLE_VLAN] = "single_vlan",
		[UF_ENG_SINGLE6] = "single6",
	};

	return (unsigned int)e < UF_ENG_MAX ? names[e] : "?";
}

/* listener l of a config (a config built by hand may leave listeners[] empty: NULL) */
static const struct uf_cfg_listener *
lis_of(const struct uf_config *cfg, int l)
{
	return cfg->n_listeners > l ? &cfg->listeners[l] : NULL;
}

static bool
lis_is6(const struct uf_config *cfg, int l)
{
	const struct uf_cfg_listener *cl = lis_of(cfg, l);

	return cl != NULL && cl->is_ip6;
}

/* view lp of listener l (n_lis: the plan's count): its IPv6 facts (docs/architecture.md
 * #ipv6) */
static void
view6(struct uf_plan *lp, const struct uf_config *cfg, int l, int n_lis,
      const struct uf_dest6_rt *d6, struct uf_rule6 *rules6, const struct uf_prefix6 *lpm6)
{
	const struct uf_cfg_listener *cl = lis_of(cfg, l);
	int i;

	lp->d6 = d6;
	lp->in_is6 = lis_is6(cfg, l);
	lp->has6 = lp->in_is6;
	for (i = 0; i < cfg->n_dests && !lp->has6; i++)
		lp->has6 = cfg->dests[i].is_ip6 && !cfg->dests[i].is_pool &&
			   (n_lis == 1 || cfg->dests[i].listener == l);
	if (!lp->in_is6)
		return;
	lp->in_dst_ip6 = cl->ip6;
	lp->in_dst_port = rte_cpu_to_be_16(cl->udp_port);
	lp->rules6 = rules6 + (n_lis > 1 ? cl->first_rule : 0);
	lp->n_rules6 = (uint16_t)(n_lis > 1 ? cl->n_rules : cfg->n_rules);
	lp->lpm6 = lpm6;
	lp->catch_all6 = UF_SET_NONE;
	for (i = 0; i < lp->n_rules6; i++)
		if (lp->rules6[i].len == 0) /* the last (validation) */
			lp->catch_all6 = (uint32_t)i;
}

/* destination i's IPv6 side, and its IPv4 template for an IPv6 listener */
static void
dest6_build(struct uf_plan *plan, const struct uf_plan_input *in, int i,
	    const struct uf_tmpl_spec *s4, struct uf_dest6_rt *d6)
{
	const struct uf_config *cfg = in->cfg;
	const struct uf_cfg_dest *d = &cfg->dests[i];
	const struct uf_cfg_port *eg = &cfg->ports[d->port];
	const int n_lis = cfg->n_listeners > 1 ? cfg->n_listeners : 1;
	const struct uf_cfg_listener *cl = lis_of(cfg, n_lis > 1 ? d->listener : 0);
	struct uf_dest_rt *rt = &plan->dests[slot_of(in, i)];
	const bool in6 = cl != NULL && cl->is_ip6;

	d6->is6 = d->is_ip6;
	if (!d->is_ip6) {
		/* v6 -> v4: the IPv4 template's checksum delta for an IPv6 input */
		if (in6)
			uf_tmpl_from6(&rt->tmpl, s4, &cl->ip6);
		return;
	}
	struct uf_tmpl6_spec s = {
		.src_mac = in->port_mac[d->port],
		.dst_mac = in->dest_mac[i],
		/* ours: the egress port's first ip6 (docs/configuration.md#ipv6) */
		.src_ip6 = d->source == UF_SRC_FIXED ? d->source_ip6 : eg->ip6[0],
		.dst_ip6 = d->ip6,
		.src_port = s4->src_port,
		.dst_port = s4->dst_port,
		.hop_limit = d->ttl,
		.keep_src_ip = d->source == UF_SRC_ORIGINAL,
		.keep_src_port = s4->keep_src_port,
		.in_is_ip6 = in6,
		.in_dst_ip = s4->in_dst_ip,
		.in_dst_ip6 = in6 ? cl->ip6 : (struct uf_ip6){ { 0 } },
		.in_dst_port = s4->in_dst_port,
	};

	/* multicast: the group's 33:33 MAC, no neighbour to wait for */
	if (uf_ip6_is_mcast(&d->ip6)) {
		uf_ip6_mcast_mac(&d->ip6, &s.dst_mac);
		rt->resolved = true;
	}
	uf_tmpl6_build(&d6->t6, &s);
	d6->vlan = eg->vlan != 0;
	d6->vlan_tci = (uint16_t)(eg->vlan_pcp << 13 | eg->vlan);
	/* Ethernet + IPv6 + UDP: 48 bytes of the MTU are headers */
	rt->max_payload = (uint16_t)(in->port_mtu[d->port] - UF_IP6_HDR - UF_UDP_HDR);
	memset(&rt->tmpl, 0, sizeof(rt->tmpl));
}

struct uf_plan *
uf_plan_build(const struct uf_plan_input *in)
{
	const struct uf_config *cfg = in->cfg;
	/* a config built by hand (unit tests) may leave listeners[] empty: `listen:` */
	const int n_lis = cfg->n_listeners > 1 ? cfg->n_listeners : 1;
	/* plan->dests is indexed by counter slot (docs/architecture.md#reload) */
	const int n_slots = in->dest_slot != NULL ? in->n_slots : cfg->n_dests;
	/* a config built by hand (tests) may leave n_listed 0: no pools, all listed */
	const int n_listed = cfg->n_listed > 0 ? cfg->n_listed : cfg->n_dests;
	int n_sets = 0, n_members = 0, n_maps = 0, i, l;
	size_t off_sets, off_members, off_dests, off_lis, off_maps, off_pools, off_tables, total;
	size_t off_d6, off_rules6, off_svc, n_table = 0;
	bool any6 = false, any_svc = false;
	struct uf_plan *plan;
	uint8_t *mem;
	bool port_map[UF_MAX_PORTS] = { false };

	if (n_lis == 1) {
		n_sets = cfg->n_rules > 0 ? cfg->n_rules : 1;
		for (i = 0; i < cfg->n_rules; i++)
			n_members += cfg->rules[i].n_to;
		if (cfg->n_rules == 0)
			n_members = n_listed;
	} else {
		for (l = 0; l < n_lis; l++) {
			const struct uf_cfg_listener *cl = &cfg->listeners[l];

			n_sets += lis_n_sets(cfg, l);
			for (i = 0; i < cl->n_rules; i++)
				n_members += cfg->rules[cl->first_rule + i].n_to;
			if (cl->n_rules == 0)
				n_members += cl->n_dests;
			if (!port_map[cl->port])
				n_maps++;
			port_map[cl->port] = true;
		}
	}
	for (i = 0; i < cfg->n_pools; i++)
		n_table += UF_POOL_BUCKETS + cfg->pools[i].n;
	for (i = 0; i < cfg->n_dests; i++)
		any6 |= cfg->dests[i].is_ip6;
	for (l = 0; l < cfg->n_listeners; l++)
		any6 |= cfg->listeners[l].is_ip6;
	for (i = 0; i < cfg->n_ports; i++)
		any_svc |= cfg->ports[i].n_svc > 0;

	off_dests = RTE_ALIGN_CEIL(sizeof(*plan), RTE_CACHE_LINE_SIZE);
	off_sets = off_dests + (size_t)n_slots * sizeof(struct uf_dest_rt);
	off_lis = RTE_ALIGN_CEIL(off_sets + (size_t)n_sets * sizeof(struct uf_set),
				 RTE_CACHE_LINE_SIZE);
	off_maps = off_lis + (n_lis > 1 ? (size_t)n_lis * sizeof(*plan) : 0);
	off_members = off_maps + (size_t)n_maps * (UINT16_MAX + 1);
	off_pools = RTE_ALIGN_CEIL(off_members + (size_t)n_members * sizeof(uint16_t),
				   RTE_CACHE_LINE_SIZE);
	off_tables = RTE_ALIGN_CEIL(off_pools + (size_t)cfg->n_pools * sizeof(struct uf_pool_rt),
				    RTE_CACHE_LINE_SIZE);
	off_d6 = RTE_ALIGN_CEIL(off_tables + n_table * sizeof(uint16_t), RTE_CACHE_LINE_SIZE);
	off_rules6 = off_d6 + (any6 ? (size_t)n_slots * sizeof(struct uf_dest6_rt) : 0);
	off_svc = RTE_ALIGN_CEIL(
			off_rules6 + (any6 ? (size_t)cfg->n_rules * sizeof(struct uf_rule6) : 0),
			RTE_CACHE_LINE_SIZE);
	total = off_svc + (any_svc ? (size_t)cfg->n_ports * sizeof(struct uf_plan_svc) : 0);

	if (in->socket >= 0) {
		mem = rte_zmalloc_socket("uf_plan", total, RTE_CACHE_LINE_SIZE, in->socket);
	} else {
		mem = aligned_alloc(RTE_CACHE_LINE_SIZE,
				    RTE_ALIGN_CEIL(total, RTE_CACHE_LINE_SIZE));
		if (mem != NULL)
			memset(mem, 0, total);
	}
	if (mem == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	plan = (struct uf_plan *)mem;
	plan->mem = mem;
	plan->rte_mem = in->socket >= 0;
	plan->version = in->version;
	plan->n_dests = (uint16_t)n_slots;
	plan->n_sets = (uint16_t)n_sets;
	plan->udp_cksum = cfg->fwd.udp_checksum == UF_CKSUM_COMPUTE;
	plan->fanout = cfg->fwd.fanout;
	/* chain: always (above the padding edge); auto: from the measured threshold up */
	plan->chain_min_payload =
			RTE_MAX(cfg->fwd.fanout == UF_FANOUT_CHAIN ? 0 : cfg->fwd.chain_min_payload,
				(uint32_t)(UF_MIN_FRAME - UF_HDR_LEN));
	plan->lpm = in->lpm;
	plan->catch_all = UF_SET_NONE;
	for (i = 0; i < cfg->n_rules; i++)
		if (cfg->rules[i].len == 0)
			plan->catch_all = (uint32_t)i;
	plan->in_dst_ip = cfg->ports[cfg->listen.port].ip;
	plan->in_dst_port = rte_cpu_to_be_16(cfg->listen.udp_port);
	plan->dests = (struct uf_dest_rt *)(mem + off_dests);
	plan->sets = (struct uf_set *)(mem + off_sets);
	plan->set_dests = (uint16_t *)(mem + off_members);
	plan->pools = (struct uf_pool_rt *)(mem + off_pools);
	plan->n_pools = (uint16_t)cfg->n_pools;
	plan->n_listeners = (uint16_t)n_lis;
	if (any_svc) {
		struct uf_plan_svc *sv = (struct uf_plan_svc *)(mem + off_svc);

		for (i = 0; i < cfg->n_ports; i++) {
			const struct uf_cfg_port *cp = &cfg->ports[i];

			for (l = 0; l < cp->n_svc; l++) {
				if (cp->svc[l].is_ip6)
					sv[i].ip6[sv[i].n6++] = cp->svc[l].ip6;
				else
					sv[i].ip4[sv[i].n4++] = cp->svc[l].ip;
			}
		}
		plan->svc = sv;
	}

	for (i = 0; i < cfg->n_dests; i++) {
		const struct uf_cfg_dest *d = &cfg->dests[i];
		const struct uf_cfg_port *eg = &cfg->ports[d->port];
		struct uf_dest_rt *rt = &plan->dests[slot_of(in, i)];
		/* what its listener's datagrams are addressed to */
		const struct uf_cfg_listener *dl = n_lis > 1 ? &cfg->listeners[d->listener] : NULL;

		if (d->is_pool)
			continue; /* below, once its members are built */
		struct uf_tmpl_spec s = {
			.src_mac = in->port_mac[d->port],
			.dst_mac = in->dest_mac[i],
			.src_ip = d->source == UF_SRC_FIXED ? d->source_ip : eg->ip,
			.dst_ip = d->ip,
			.src_port = rte_cpu_to_be_16(cfg->fwd.source_port),
			.dst_port = rte_cpu_to_be_16(d->udp_port),
			.ttl = d->ttl,
			.keep_src_ip = d->source == UF_SRC_ORIGINAL,
			.keep_src_port = d->source == UF_SRC_ORIGINAL || cfg->fwd.keep_source_port,
			.in_dst_ip = dl != NULL ? dl->ip : cfg->ports[cfg->listen.port].ip,
			.in_dst_port = rte_cpu_to_be_16(dl != NULL ? dl->udp_port
								   : cfg->listen.udp_port),
			/* a tagged egress port: the tag is in the template (docs/configuration.md#vlans) */
			.vlan = eg->vlan != 0,
			.vlan_tci = (uint16_t)(eg->vlan_pcp << 13 | eg->vlan),
		};

		uf_tmpl_build(&rt->tmpl, &s);
		rt->egress = d->port;
		rt->idx = slot_of(in, i);
		rt->sample = d->sample;
		rt->max_payload = (uint16_t)(in->port_mtu[d->port] - 28);
		rt->resolved = in->dest_resolved[i];
		rt->chain_ok = in->port_chain_ok[d->port];
		if (any6)
			dest6_build(plan, in, i, &s,
				    (struct uf_dest6_rt *)(mem + off_d6) + slot_of(in, i));
		/* (an IPv6 destination's tag is not in a uf_tmpl: the IPv4 bodies never see it) */
		plan->any_vlan |= s.vlan && !d->is_ip6;
	}
	if (any6) {
		struct uf_rule6 *r6 = (struct uf_rule6 *)(mem + off_rules6);

		for (i = 0; i < cfg->n_rules; i++) {
			r6[i].prefix = cfg->rules[i].prefix6;
			r6[i].len = cfg->rules[i].len;
		}
		for (l = 0; l < cfg->n_listeners; l++) {
			const struct uf_cfg_listener *cl = &cfg->listeners[l];

			if (!cl->is_ip6)
				continue;
			plan->lis6_pi[plan->n_lis6] = (uint8_t)cl->port;
			plan->lis6_l[plan->n_lis6] = (uint8_t)l;
			plan->lis6_udp[plan->n_lis6] = rte_cpu_to_be_16(cl->udp_port);
			plan->lis6_ip[plan->n_lis6++] = cl->ip6;
		}
	}
	if (pools_build(plan, in, (uint16_t *)(mem + off_tables)) < 0) {
		uf_plan_free(plan);
		rte_errno = EINVAL;
		return NULL;
	}

	n_members = 0;
	if (n_lis == 1) {
		if (any6)
			view6(plan, cfg, 0, 1, (struct uf_dest6_rt *)(mem + off_d6),
			      (struct uf_rule6 *)(mem + off_rules6), in->lpm6);
		for (i = 0; i < n_sets; i++) {
			if (cfg->n_rules > 0)
				set_fill(plan, in, &plan->sets[i], cfg->rules[i].to, 0,
					 cfg->rules[i].n_to, &n_members);
			else
				set_fill(plan, in, &plan->sets[i], NULL, 0, n_listed, &n_members);
		}
		plan->engine = (uint8_t)uf_plan_engine(plan);
		plan->fast6 = plan->in_is6 && plan->n_lis6 == 1;
		return plan;
	}

	/* several listeners: each one's view, then the per-port maps */
	plan->lis = (struct uf_plan *)(mem + off_lis);
	n_sets = 0;
	for (l = 0; l < n_lis; l++) {
		const struct uf_cfg_listener *cl = &cfg->listeners[l];
		struct uf_plan *lp = &plan->lis[l];

		lp->version = plan->version;
		lp->n_dests = plan->n_dests;
		lp->udp_cksum = plan->udp_cksum;
		lp->fanout = plan->fanout;
		lp->chain_min_payload = plan->chain_min_payload;
		lp->any_vlan = plan->any_vlan;
		lp->in_dst_ip = cl->ip;
		lp->in_dst_port = rte_cpu_to_be_16(cl->udp_port);
		lp->lpm = in->lis_lpm != NULL ? in->lis_lpm[l] : NULL;
		lp->catch_all = UF_SET_NONE;
		lp->sets = plan->sets + n_sets;
		lp->n_sets = (uint16_t)lis_n_sets(cfg, l);
		lp->set_dests = plan->set_dests;
		lp->dests = plan->dests;
		lp->pools = plan->pools;
		lp->n_pools = plan->n_pools;
		lp->n_listeners = 1;
		if (any6)
			view6(lp, cfg, l, n_lis, (struct uf_dest6_rt *)(mem + off_d6),
			      (struct uf_rule6 *)(mem + off_rules6),
			      in->lis_lpm6 != NULL ? in->lis_lpm6[l] : NULL);
		for (i = 0; i < cl->n_rules; i++) {
			const struct uf_cfg_rule *r = &cfg->rules[cl->first_rule + i];

			if (r->len == 0)
				lp->catch_all = (uint32_t)i;
			set_fill(plan, in, &lp->sets[i], r->to, 0, r->n_to, &n_members);
		}
		if (cl->n_rules == 0)
			set_fill(plan, in, &lp->sets[0], NULL, cl->first_dest, cl->n_dests,
				 &n_members);
		lp->engine = (uint8_t)uf_plan_engine(lp);
		n_sets += lp->n_sets;
		plan->lis_ip[l] = cl->ip;
	}
	/* the top-level fields: listener 0's (nothing reads them with several listeners) */
	plan->engine = plan->lis[0].engine;
	plan->lpm = plan->lis[0].lpm;
	plan->catch_all = plan->lis[0].catch_all;
	plan->in_dst_ip = plan->lis[0].in_dst_ip;
	plan->n_sets = plan->lis[0].n_sets;
	plan->has6 = plan->lis[0].has6;

	n_maps = 0;
	for (i = 0; i < cfg->n_ports; i++) {
		uint8_t *map;

		if (!port_map[i])
			continue;
		map = mem + off_maps + (size_t)n_maps++ * (UINT16_MAX + 1);
		plan->lmap[i] = map;
		/* last to first, so that each UDP port's chain runs in config order */
		for (l = n_lis - 1; l >= 0; l--) {
			const struct uf_cfg_listener *cl = &cfg->listeners[l];

			/* an IPv6 listener is found by uf_plan_listener6 */
			if (cl->port != i || cl->is_ip6)
				continue;
			plan->lis_next[l] = map[cl->udp_port];
			map[cl->udp_port] = (uint8_t)(l + 1);
		}
	}
	plan->multi6 = plan->n_lis6 != 0;
	return plan;
}

bool
uf_plan_may_chain(const struct uf_config *cfg)
{
	uint32_t min_payload = cfg->fwd.fanout == UF_FANOUT_CHAIN
					       ? (uint32_t)(UF_MIN_FRAME - UF_HDR_LEN)
					       : RTE_MAX(cfg->fwd.chain_min_payload,
							 (uint32_t)(UF_MIN_FRAME - UF_HDR_LEN));
	uint16_t mtu = cfg->ports[cfg->listen.port].mtu; /* 0: the device's, not known yet */
	bool multi = false;
	int i;

	if (cfg->fwd.fanout == UF_FANOUT_COPY)
		return false;
	if (mtu != 0 && (uint32_t)mtu < min_payload + 28)
		return false;
	if (cfg->n_rules == 0)
		multi = (cfg->n_listed > 0 ? cfg->n_listed : cfg->n_dests) > 1;
	if (cfg->n_listeners > 1) {
		/* the listeners without rules: one set each, of their destinations */
		multi = false;
		for (i = 0; i < cfg->n_listeners && !multi; i++)
			multi = cfg->listeners[i].n_rules == 0 && cfg->listeners[i].n_dests > 1;
	}
	for (i = 0; i < cfg->n_rules && !multi; i++)
		multi = cfg->rules[i].n_to > 1;
	return multi;
}

void
uf_plan_free(struct uf_plan *plan)
{
	if (plan == NULL)
		return;
	if (plan->rte_mem)
		rte_free(plan->mem);
	else
		free(plan->mem);
}

static struct rte_lpm *rules_lpm(const struct uf_config *cfg, int first, int n, int socket);

struct rte_lpm *
uf_rules_lpm(const struct uf_config *cfg, int socket)
{
	return rules_lpm(cfg, 0, cfg->n_rules, socket);
}

struct rte_lpm *
uf_rules_lpm_listener(const struct uf_config *cfg, int l, int socket)
{
	return rules_lpm(cfg, cfg->listeners[l].first_rule, cfg->listeners[l].n_rules, socket);
}

/* rules[first .. first + n), next hop: the index from first */
static struct rte_lpm *
rules_lpm(const struct uf_config *cfg, int first, int n, int socket)
{
	struct rte_lpm_config lc = {
		.max_rules = (uint32_t)RTE_MAX(n, 1),
		.number_tbl8s = 256,
	};
	struct rte_lpm *lpm;
	char name[RTE_LPM_NAMESIZE];
	static unsigned int seq;
	int i, ret;

	if (n == 0)
		return NULL;
	/* every prefix longer than /24 takes a tbl8 group; give each rule one */
	lc.number_tbl8s = (uint32_t)RTE_MAX(256, n);
	snprintf(name, sizeof(name), "uf_rules%u", seq++);
	lpm = rte_lpm_create(name, socket, &lc);
	if (lpm == NULL)
		return NULL;
	/*
	 * First match wins (docs/configuration.md#rules). The config rejects a rule that an earlier rule covers,
	 * so among the rules that match an address the first is the longest, and longest-prefix
	 * match gives the same answer at a cost that does not grow with the number of rules.
	 * A /0 rule (the last, then) covers every address: rte_lpm_add refuses depth 0, and the
	 * plan's catch_all stands for it where a lookup misses (uf_plan_lookup).
	 */
	for (i = 0; i < n; i++) {
		const struct uf_cfg_rule *r = &cfg->rules[first + i];

		/* an IPv6 listener's rules: plan->rules6 */
		if (r->len == 0 || r->is_ip6)
			continue;
		ret = rte_lpm_add(lpm, rte_be_to_cpu_32(r->prefix), r->len, (uint32_t)i);
		if (ret < 0) {
			rte_lpm_free(lpm);
			rte_errno = -ret;
			return NULL;
		}
	}
	return lpm;
}

/* IPv6 rules[first .. first + n) as a uf_prefix6 table, next hop: the index from first */
static struct uf_prefix6 *
rules_lpm6(const struct uf_config *cfg, int first, int n, int socket)
{
	uint8_t(*prefix)[16] = malloc((size_t)RTE_MAX(n, 1) * 16);
	uint8_t *len = malloc((size_t)RTE_MAX(n, 1));
	uint32_t *nh = malloc((size_t)RTE_MAX(n, 1) * sizeof(*nh));
	struct uf_prefix6 *t = NULL;
	int i, n6 = 0, has6 = 0;

	if (prefix == NULL || len == NULL || nh == NULL) {
		rte_errno = ENOMEM;
		goto out;
	}
	/* first match is longest-prefix match, as for IPv4 (rules_lpm); ::/0 is the view's
	 * catch_all6 */
	for (i = 0; i < n; i++) {
		const struct uf_cfg_rule *r = &cfg->rules[first + i];

		if (!r->is_ip6)
			continue;
		has6 = 1;
		if (r->len == 0)
			continue;
		memcpy(prefix[n6], r->prefix6.b, 16);
		len[n6] = r->len;
		nh[n6++] = (uint32_t)i;
	}
	if (has6)
		t = uf_prefix6_build((const uint8_t(*)[16])prefix, len, nh, n6, socket);
out:
	free(prefix);
	free(len);
	free(nh);
	return t;
}

struct uf_prefix6 *
uf_rules_lpm6(const struct uf_config *cfg, int socket)
{
	return rules_lpm6(cfg, 0, cfg->n_rules, socket);
}

struct uf_prefix6 *
uf_rules_lpm6_listener(const struct uf_config *cfg, int l, int socket)
{
	return rules_lpm6(cfg, cfg->listeners[l].first_rule, cfg->listeners[l].n_rules, socket);
}
