/* SPDX-License-Identifier: BSD-3-Clause
 * Fuzz reload's diff over pairs of configs (docs/testing.md#fuzzing,
 * docs/configuration.md#reload). The input is two YAML files, the running one and the new
 * one, separated by a line "%%" (none: the new file is the same text). Where both load,
 * uf_config_diff's verdict is held to what it promises:
 *  - a verdict without restart keys ("hot" or "no change") never covers a change that needs
 *    a restart: the ports, listeners' addresses, eal, the workers' settings and stats.json,
 *    compared here field by field, are the same;
 *  - "no change": the plans built from the two files are identical, and so are the hot
 *    settings outside the plan (stats interval, ARP timers, control rates);
 *  - "hot": the plan a reload publishes (the new file with the running destinations'
 *    counter slots carried over through dest_old, new ones in fresh slots, as uf_reload.c
 *    assigns them) routes as the plan a fresh start builds from the new file, slot for slot.
 * A plan is compared through a flat encoding of everything a worker reads, destination
 * slots named by their config index. No EAL: the plan is built on the heap; a listener's
 * rule table (an LPM) is its rules' prefixes in order, what uf_rules_lpm_listener adds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uf_common.h"
#include "uf_config.h"
#include "uf_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- a plan, flat ---- */

struct enc {
	uint8_t *p;
	size_t n, cap;
};

static void
put(struct enc *e, const void *v, size_t len)
{
	if (e->n + len > e->cap) {
		size_t cap = (e->n + len) * 2;
		uint8_t *p = realloc(e->p, cap);

		if (p == NULL)
			abort();
		e->p = p;
		e->cap = cap;
	}
	memcpy(e->p + e->n, v, len);
	e->n += len;
}

#define PUT(e, v) put((e), &(v), sizeof(v))

/* a slot as the config index of the destination in it (IDX: slot -> index) */
static uint16_t
as_idx(const uint16_t *idx, uint16_t slot)
{
	return idx[slot & ~UF_POOL_ALT] | (slot & UF_POOL_ALT);
}

/* one view: the top level, or a listener's */
static void
enc_view(struct enc *e, const struct uf_plan *pl, const struct uf_config *cfg, const uint16_t *slot,
	 const uint16_t *idx)
{
	uint16_t s, k;
	int i;

	PUT(e, pl->n_sets);
	PUT(e, pl->udp_cksum);
	PUT(e, pl->engine);
	PUT(e, pl->any_vlan);
	PUT(e, pl->fanout);
	PUT(e, pl->chain_min_payload);
	PUT(e, pl->in_dst_ip);
	PUT(e, pl->in_dst_port);
	PUT(e, pl->catch_all);
	PUT(e, pl->has6);
	PUT(e, pl->in_is6);
	PUT(e, pl->in_dst_ip6);
	PUT(e, pl->n_rules6);
	for (k = 0; k < pl->n_rules6; k++)
		PUT(e, pl->rules6[k]);
	for (s = 0; s < pl->n_sets; s++) {
		struct uf_set set = pl->sets[s];

		set.first = 0; /* where its members are stored: not behaviour */
		PUT(e, set);
		for (k = 0; k < set.n; k++) {
			uint16_t m = as_idx(idx, pl->set_dests[pl->sets[s].first + k]);

			PUT(e, m);
		}
	}
	/* every destination, by config index: its runtime entry with its own slot left out */
	for (i = 0; i < cfg->n_dests; i++) {
		struct uf_dest_rt rt = pl->dests[slot[i]];

		rt.idx = 0;
		PUT(e, rt);
		if (pl->d6 != NULL)
			PUT(e, pl->d6[slot[i]]);
	}
}

static void
enc_plan(struct enc *e, const struct uf_plan *pl, const struct uf_config *cfg, const uint16_t *slot)
{
	uint16_t idx[UF_MAX_DESTS];
	uint32_t b;
	int i, l;

	memset(idx, 0xff, sizeof(idx));
	for (i = 0; i < cfg->n_dests; i++)
		idx[slot[i]] = (uint16_t)i;
	PUT(e, pl->n_listeners);
	PUT(e, pl->n_pools);
	enc_view(e, pl, cfg, slot, idx);
	for (i = 0; i < pl->n_pools; i++) {
		const struct uf_pool_rt *p = &pl->pools[i];
		uint16_t v = as_idx(idx, p->entry);

		PUT(e, v);
		PUT(e, p->n);
		PUT(e, p->n_up);
		PUT(e, p->balance);
		PUT(e, p->sender_port);
		for (b = 0; b < UF_POOL_BUCKETS; b++) {
			v = as_idx(idx, p->table[b]);
			PUT(e, v);
		}
		for (b = 0; b < p->n; b++) {
			v = as_idx(idx, p->rr[b]);
			PUT(e, v);
		}
	}
	for (l = 0; pl->n_listeners > 1 && l < pl->n_listeners; l++) {
		enc_view(e, &pl->lis[l], cfg, slot, idx);
		PUT(e, pl->lis_ip[l]);
		PUT(e, pl->lis_next[l]);
	}
	for (i = 0; i < UF_MAX_PORTS; i++) {
		uint8_t has = pl->lmap[i] != NULL;

		PUT(e, has);
		if (has)
			put(e, pl->lmap[i], UINT16_MAX + 1);
	}
	PUT(e, pl->n_lis6);
	for (i = 0; i < pl->n_lis6; i++) {
		PUT(e, pl->lis6_pi[i]);
		PUT(e, pl->lis6_l[i]);
		PUT(e, pl->lis6_udp[i]);
		PUT(e, pl->lis6_ip[i]);
	}
	/* the rule tables: each listener's rules in order (what its LPM is built from) */
	for (i = 0; i < cfg->n_rules; i++) {
		const struct uf_cfg_rule *r = &cfg->rules[i];

		PUT(e, r->listener);
		PUT(e, r->is_ip6);
		PUT(e, r->len);
		if (r->is_ip6)
			PUT(e, r->prefix6);
		else
			PUT(e, r->prefix);
	}
}

/* ---- building ---- */

/* a destination's next hop as the neighbour table would have it: its static MAC, else a MAC
 * and whether it answered from its address and egress port alone (the same in both files) */
static void
fake_neighbour(const struct uf_cfg_dest *d, struct rte_ether_addr *mac, bool *resolved)
{
	uint64_t h = d->is_ip6 ? 0 : d->ip;
	int k;

	if (d->has_mac) { /* static: no neighbour */
		*mac = d->mac;
		*resolved = true;
		return;
	}
	for (k = 0; d->is_ip6 && k < 16; k++)
		h = h * 131 + d->ip6.b[k];
	h = uf_pool_mix64(h * 31 + d->port + 1);
	memcpy(mac->addr_bytes, &h, RTE_ETHER_ADDR_LEN);
	mac->addr_bytes[0] &= 0xfe;
	*resolved = (h >> 60) != 0; /* one in 16 unresolved */
}

static struct uf_plan *
build(const struct uf_config *cfg, const uint16_t *slot, uint16_t n_slots)
{
	static struct rte_ether_addr port_mac[UF_MAX_PORTS], dest_mac[UF_MAX_DESTS];
	static uint16_t port_mtu[UF_MAX_PORTS];
	static bool port_chain[UF_MAX_PORTS], dest_res[UF_MAX_DESTS];
	struct uf_plan_input in = {
		.cfg = cfg,
		.port_mac = port_mac,
		.port_mtu = port_mtu,
		.port_chain_ok = port_chain,
		.dest_mac = dest_mac,
		.dest_resolved = dest_res,
		.version = 1,
		.socket = -1,
		.dest_slot = slot,
		.n_slots = n_slots,
	};
	int i;

	for (i = 0; i < cfg->n_ports; i++) {
		memset(&port_mac[i], 0, sizeof(port_mac[i]));
		port_mac[i].addr_bytes[1] = (uint8_t)cfg->ports[i].dev;
		port_mtu[i] = cfg->ports[i].mtu != 0 ? cfg->ports[i].mtu : 1500;
		port_chain[i] = true;
	}
	for (i = 0; i < cfg->n_dests; i++)
		fake_neighbour(&cfg->dests[i], &dest_mac[i], &dest_res[i]);
	return uf_plan_build(&in);
}

/* ---- the restart-only settings, field by field ---- */

static bool
same_ports(const struct uf_config *a, const struct uf_config *b)
{
	int i, k;

	if (a->n_ports != b->n_ports)
		return false;
	for (i = 0; i < a->n_ports; i++) {
		const struct uf_cfg_port *x = &a->ports[i], *y = &b->ports[i];

		if (strcmp(x->name, y->name) != 0 || strcmp(x->device, y->device) != 0 ||
		    strcmp(x->dev_name, y->dev_name) != 0 || x->is_pci != y->is_pci ||
		    x->ip != y->ip || x->prefix_len != y->prefix_len ||
		    x->has_gateway != y->has_gateway ||
		    (x->has_gateway && x->gateway != y->gateway) || x->n_ip6 != y->n_ip6 ||
		    x->has_gateway6 != y->has_gateway6 ||
		    (x->has_gateway6 && memcmp(&x->gateway6, &y->gateway6, 16) != 0) ||
		    x->vlan != y->vlan || x->vlan_pcp != y->vlan_pcp || x->dev != y->dev ||
		    x->mtu != y->mtu || x->rx_desc != y->rx_desc || x->tx_desc != y->tx_desc ||
		    x->mbufs != y->mbufs || x->rx_checksum != y->rx_checksum)
			return false;
		for (k = 0; k < x->n_ip6; k++)
			if (memcmp(&x->ip6[k], &y->ip6[k], 16) != 0 ||
			    x->ip6_prefix_len[k] != y->ip6_prefix_len[k])
				return false;
	}
	return true;
}

static bool
same_restart_keys(const struct uf_config *a, const struct uf_config *b)
{
	int i;

	if (strcmp(a->eal.lcores, b->eal.lcores) != 0 ||
	    strcmp(a->eal.file_prefix, b->eal.file_prefix) != 0 ||
	    a->eal.in_memory != b->eal.in_memory || a->eal.no_huge != b->eal.no_huge ||
	    a->eal.memory_mb != b->eal.memory_mb || a->eal.mlockall != b->eal.mlockall ||
	    a->eal.n_extra != b->eal.n_extra)
		return false;
	for (i = 0; i < a->eal.n_extra; i++)
		if (strcmp(a->eal.extra_args[i], b->eal.extra_args[i]) != 0)
			return false;
	if (!same_ports(a, b) || a->listen.port != b->listen.port ||
	    a->listen.udp_port != b->listen.udp_port || a->n_listeners != b->n_listeners)
		return false;
	for (i = 0; i < a->n_listeners; i++) {
		const struct uf_cfg_listener *x = &a->listeners[i], *y = &b->listeners[i];

		if (strcmp(x->name, y->name) != 0 || x->port != y->port ||
		    x->udp_port != y->udp_port || x->is_ip6 != y->is_ip6 ||
		    (x->is_ip6 ? memcmp(&x->ip6, &y->ip6, 16) != 0 : x->ip != y->ip))
			return false;
	}
	return a->fwd.burst == b->fwd.burst && a->fwd.drain_us == b->fwd.drain_us &&
	       a->fwd.tx_retries == b->fwd.tx_retries && a->fwd.tx_stall_ms == b->fwd.tx_stall_ms &&
	       a->fwd.flush_idle == b->fwd.flush_idle &&
	       a->fwd.flush_idle_auto == b->fwd.flush_idle_auto &&
	       a->fwd.flush_idle_us == b->fwd.flush_idle_us &&
	       a->fwd.idle_sleep_us == b->fwd.idle_sleep_us &&
	       strcmp(a->stats.json, b->stats.json) == 0;
}

/* the hot settings no plan carries */
static bool
same_outside_plan(const struct uf_config *a, const struct uf_config *b)
{
	return a->stats.interval_s == b->stats.interval_s &&
	       a->arp.reachable_s == b->arp.reachable_s && a->arp.retry_ms == b->arp.retry_ms &&
	       a->arp.max_probes == b->arp.max_probes && a->arp.gratuitous == b->arp.gratuitous &&
	       a->control.icmp_rate == b->control.icmp_rate;
}

/* ---- the pair ---- */

static bool
same_plans(const struct uf_plan *x, const struct uf_config *cx, const uint16_t *sx,
	   const struct uf_plan *y, const struct uf_config *cy, const uint16_t *sy)
{
	static struct enc ex, ey;
	bool same;

	ex.n = 0;
	ey.n = 0;
	enc_plan(&ex, x, cx, sx);
	enc_plan(&ey, y, cy, sy);
	same = ex.n == ey.n && memcmp(ex.p, ey.p, ex.n) == 0;
	return same;
}

static void
check_pair(const struct uf_config *a, const struct uf_config *b)
{
	static struct uf_cfg_diff d;
	static uint16_t ident[UF_MAX_DESTS], slot[UF_MAX_DESTS];
	bool taken[UF_MAX_DESTS] = { false };
	struct uf_plan *pa, *pb, *pr;
	int i, s, pass, n_slots;

	for (i = 0; i < UF_MAX_DESTS; i++)
		ident[i] = (uint16_t)i;
	if (uf_config_diff(a, a, &d) != 0 || uf_config_diff(b, b, &d) != 0)
		abort(); /* a file against itself */
	uf_config_diff(a, b, &d);
	if (d.n_restart > 0)
		return; /* refused: nothing applied */
	if (!same_restart_keys(a, b))
		abort(); /* "hot" or "no change" over a key that needs a restart */
	pa = build(a, ident, (uint16_t)a->n_dests);
	pb = build(b, ident, (uint16_t)b->n_dests);
	if (pa == NULL || pb == NULL)
		abort(); /* both files are valid */
	if (d.n_hot == 0) {
		if (a->n_dests != b->n_dests || !same_plans(pa, a, ident, pb, b, ident) ||
		    !same_outside_plan(a, b))
			abort(); /* "no change", yet a fresh start would run otherwise */
		uf_plan_free(pa);
		uf_plan_free(pb);
		return;
	}
	/* the reload's counter slots (uf_reload.c, assign_slots): a kept destination keeps
	 * its old one, a new one takes a never-used slot, else a removed one's */
	for (i = 0; i < b->n_dests; i++) {
		int j = d.dest_old[i];

		if (j < -1 || j >= a->n_dests || (j >= 0 && taken[j]))
			abort(); /* an old destination matched twice, or no such one */
		if (j >= 0) {
			slot[i] = (uint16_t)j;
			taken[j] = true;
		}
	}
	n_slots = a->n_dests;
	for (i = 0; i < b->n_dests; i++) {
		if (d.dest_old[i] >= 0)
			continue;
		for (pass = 0, s = UF_MAX_DESTS; pass < 2 && s == UF_MAX_DESTS; pass++)
			for (s = pass == 0 ? a->n_dests : 0; s < UF_MAX_DESTS; s++)
				if (!taken[s])
					break;
		if (s == UF_MAX_DESTS)
			abort();
		taken[s] = true;
		slot[i] = (uint16_t)s;
		n_slots = RTE_MAX(n_slots, s + 1);
	}
	pr = build(b, slot, (uint16_t)n_slots);
	if (pr == NULL || !same_plans(pr, b, slot, pb, b, ident))
		abort(); /* the reloaded plan routes otherwise than a fresh start */
	uf_plan_free(pr);
	uf_plan_free(pa);
	uf_plan_free(pb);
}

static struct uf_config *
load(const uint8_t *data, size_t size)
{
	struct uf_err err;
	char *text = malloc(size > 0 ? size : 1);
	struct uf_config *cfg;

	if (text == NULL)
		return NULL;
	memcpy(text, data, size);
	memset(&err, 0, sizeof(err));
	cfg = uf_config_parse(text, size, "fuzz.yaml", &err);
	free(text);
	return cfg;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char sep[] = "\n%%\n";
	const uint8_t *cut = NULL;
	struct uf_config *a, *b = NULL;
	size_t i;

	for (i = 0; i + 4 <= size && cut == NULL; i++)
		if (memcmp(data + i, sep, 4) == 0)
			cut = data + i;
	a = load(data, cut != NULL ? (size_t)(cut - data) + 1 : size);
	if (a == NULL)
		return 0;
	b = cut != NULL ? load(cut + 4, size - (size_t)(cut + 4 - data)) : load(data, size);
	if (b != NULL)
		check_pair(a, b);
	uf_config_free(a);
	uf_config_free(b);
	return 0;
}
