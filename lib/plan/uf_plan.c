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
		uint32_t buckets = uf_pool_buckets(cp->n);

		if (cp->n == 0 || cp->first + cp->n > cfg->n_dests)
			return -1;
		p->entry = slot_of(in, cp->entry);
		p->n = cp->n;
		p->balance = (uint8_t)cp->balance;
		p->sender_port = cp->sender_port;
		p->mask = buckets - 1;
		p->table = tables;
		p->rr = tables + buckets;
		tables += buckets + cp->n;
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
		p->n_up = uf_pool_fill(p->table, buckets, p->rr, cp->n, ids, up, dests);
	}
	return 0;
}

struct uf_plan *
uf_plan_build(const struct uf_plan_input *in)
{
	const struct uf_config *cfg = in->cfg;
	int n_sets = cfg->n_rules > 0 ? cfg->n_rules : 1;
	int n_slots = in->dest_slot != NULL ? in->n_slots : cfg->n_dests;
	/* a config built by hand (tests) may leave n_listed 0: no pools, all listed */
	int n_listed = cfg->n_listed > 0 ? cfg->n_listed : cfg->n_dests;
	int n_members = 0, i, j;
	size_t off_sets, off_members, off_dests, off_pools, off_tables, total;
	size_t n_table = 0;
	struct uf_plan *plan;
	uint8_t *mem;

	for (i = 0; i < cfg->n_rules; i++)
		n_members += cfg->rules[i].n_to;
	if (cfg->n_rules == 0)
		n_members = n_listed;
	for (i = 0; i < cfg->n_pools; i++)
		n_table += uf_pool_buckets(cfg->pools[i].n) + cfg->pools[i].n;

	off_dests = RTE_ALIGN_CEIL(sizeof(*plan), RTE_CACHE_LINE_SIZE);
	off_sets = off_dests + (size_t)n_slots * sizeof(struct uf_dest_rt);
	off_members = off_sets + (size_t)n_sets * sizeof(struct uf_set);
	off_pools = RTE_ALIGN_CEIL(off_members + (size_t)n_members * sizeof(uint16_t),
				   RTE_CACHE_LINE_SIZE);
	off_tables = RTE_ALIGN_CEIL(off_pools + (size_t)cfg->n_pools * sizeof(struct uf_pool_rt),
				    RTE_CACHE_LINE_SIZE);
	total = off_tables + n_table * sizeof(uint16_t);

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

	for (i = 0; i < cfg->n_dests; i++) {
		const struct uf_cfg_dest *d = &cfg->dests[i];
		const struct uf_cfg_port *eg = &cfg->ports[d->port];
		uint16_t slot = in->dest_slot != NULL ? in->dest_slot[i] : (uint16_t)i;
		struct uf_dest_rt *rt = &plan->dests[slot];

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
			.in_dst_ip = cfg->ports[cfg->listen.port].ip,
			.in_dst_port = rte_cpu_to_be_16(cfg->listen.udp_port),
		};

		uf_tmpl_build(&rt->tmpl, &s);
		rt->egress = d->port;
		rt->idx = slot;
		rt->sample = d->sample;
		rt->max_payload = (uint16_t)(in->port_mtu[d->port] - 28);
		rt->resolved = in->dest_resolved[i];
		rt->chain_ok = in->port_chain_ok[d->port];
	}
	if (pools_build(plan, in, (uint16_t *)(mem + off_tables)) < 0) {
		uf_plan_free(plan);
		rte_errno = EINVAL;
		return NULL;
	}

	n_members = 0;
	for (i = 0; i < n_sets; i++) {
		struct uf_set *set = &plan->sets[i];
		int n = cfg->n_rules > 0 ? cfg->rules[i].n_to : n_listed;

		set->first = (uint32_t)n_members;
		set->n = (uint16_t)n;
		set->max_payload = UINT16_MAX;
		set->chain_ok = true;
		set->chain_min_payload = plan->chain_min_payload;
		set->simple = true;
		set->one_egress = true;
		for (j = 0; j < n; j++) {
			uint16_t ci = cfg->n_rules > 0 ? cfg->rules[i].to[j] : (uint16_t)j;
			uint16_t di = in->dest_slot != NULL ? in->dest_slot[ci] : ci;
			const struct uf_dest_rt *rt = &plan->dests[di];

			plan->set_dests[n_members++] = di;
			set->any_resolved |= rt->resolved;
			set->simple &= rt->resolved && rt->sample <= 1 && !rt->is_pool;
			set->one_egress &= !rt->is_pool &&
					   rt->egress == plan->dests[plan->set_dests[set->first]]
									   .egress;
			set->chain_ok &= rt->chain_ok;
			if (in->port_chain_min_frame != NULL &&
			    in->port_chain_min_frame[rt->egress] > UF_HDR_LEN &&
			    (uint32_t)(in->port_chain_min_frame[rt->egress] - UF_HDR_LEN) >
					    set->chain_min_payload)
				set->chain_min_payload =
						in->port_chain_min_frame[rt->egress] - UF_HDR_LEN;
			if (rt->max_payload < set->max_payload)
				set->max_payload = rt->max_payload;
		}
	}
	plan->fast = plan->lpm == NULL && plan->n_sets == 1 && plan->sets[0].simple &&
		     plan->sets[0].n > 0;
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

struct rte_lpm *
uf_rules_lpm(const struct uf_config *cfg, int socket)
{
	struct rte_lpm_config lc = {
		.max_rules = (uint32_t)RTE_MAX(cfg->n_rules, 1),
		.number_tbl8s = 256,
	};
	struct rte_lpm *lpm;
	char name[RTE_LPM_NAMESIZE];
	static unsigned int seq;
	int i, ret;

	if (cfg->n_rules == 0)
		return NULL;
	/* every prefix longer than /24 takes a tbl8 group; give each rule one */
	lc.number_tbl8s = (uint32_t)RTE_MAX(256, cfg->n_rules);
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
	for (i = 0; i < cfg->n_rules; i++) {
		if (cfg->rules[i].len == 0)
			continue;
		ret = rte_lpm_add(lpm, rte_be_to_cpu_32(cfg->rules[i].prefix), cfg->rules[i].len,
				  (uint32_t)i);
		if (ret < 0) {
			rte_lpm_free(lpm);
			rte_errno = -ret;
			return NULL;
		}
	}
	return lpm;
}
