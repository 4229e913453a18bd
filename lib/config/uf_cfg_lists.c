/* SPDX-License-Identifier: BSD-3-Clause
 * The config's lists of items (ports, destinations with their pools, rules, listeners) and
 * the listen mapping: each item walked by uf_cfg_walk_map with its section's schema rows,
 * then checked for the keys it must have. docs/configuration.md describes each list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uf_cfg_schema.h"

/* ---- pools (docs/configuration.md#pools) ---- */

/* destinations[].pool.members: each a destination of its own, at dests[next_member..] */
int
uf_cfg_parse_members(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		     const char *kp, void *base)
{
	struct uf_cfg_pool *pool = base;
	struct uf_cfg_state *st = p->st;
	struct uf_config *cfg = st->cfg;
	int saved = st->item, n, i;
	yaml_node_item_t *it;
	char ip[96];

	if (uf_cfg_get_list(p, v, kp, UF_MAX_DESTS, &n) < 0)
		return -1;
	if (n == 0) {
		uf_cfg_perr(p, v, kp, "a pool needs at least one member");
		return -1;
	}
	pool->first = (uint16_t)st->next_member;
	pool->n = (uint16_t)n;
	for (i = 0, it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *mn = yaml_document_get_node(p->doc, *it);
		int di = st->next_member++;
		struct uf_cfg_dest *d = &cfg->dests[di];

		snprintf(ip, sizeof(ip), "%s[%d]", kp, i);
		st->item = di;
		uf_cfg_apply_defaults("destinations[]", d);
		d->liveness = true; /* a member's default (docs/configuration.md#pools) */
		d->pos = uf_cfg_pos_of(mn);
		d->listener = (uint8_t)RTE_MAX(st->lis, 0);
		st->in_member = true;
		if (uf_cfg_walk_map(p, mn, ip, "destinations[]", d) < 0)
			return -1;
		st->in_member = false;
		if (d->is_pool) {
			uf_cfg_perr(p, mn, ip, "a pool member cannot be a pool");
			return -1;
		}
		if (d->sample != 1) {
			uf_cfg_perr(p, mn, ip,
				    "sample applies to the whole pool: put it beside pool");
			return -1;
		}
		if ((d->ip == 0 && !d->is_ip6) || d->udp_port == 0) {
			uf_cfg_perr(p, mn, ip, "needs %s",
				    d->ip == 0 && !d->is_ip6 ? "an ip" : "a udp_port");
			return -1;
		}
		d->is_member = true;
		d->pool = (uint16_t)(pool - cfg->pools);
	}
	st->item = saved;
	return 0;
}

/* destinations[].pool: the entry stands for its members */
int
uf_cfg_parse_pool(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		  const char *kp, void *base)
{
	struct uf_cfg_dest *d = base;
	struct uf_config *cfg = p->st->cfg;
	struct uf_cfg_pool *pool;

	if (p->st->in_member) {
		uf_cfg_perr(p, v, kp, "a pool member cannot be a pool");
		return -1;
	}
	pool = &cfg->pools[cfg->n_pools];
	uf_cfg_apply_defaults("destinations[].pool", pool);
	pool->entry = (uint16_t)p->st->item;
	pool->pos = uf_cfg_pos_of(v);
	d->is_pool = true;
	d->pool = (uint16_t)cfg->n_pools++;
	if (uf_cfg_walk_map(p, v, kp, "destinations[].pool", pool) < 0)
		return -1;
	if (pool->n == 0) {
		uf_cfg_perr(p, v, kp, "needs members");
		return -1;
	}
	return 0;
}

/* how many members the pools of destinations[] list, before they are walked */
static int
count_members(struct uf_cfg_pctx *p, yaml_node_t *v)
{
	yaml_node_item_t *it;
	int n = 0;

	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *dn = yaml_document_get_node(p->doc, *it);
		yaml_node_t *pn = uf_cfg_map_get(p, dn, "pool");
		yaml_node_t *mn = pn != NULL ? uf_cfg_map_get(p, pn, "members") : NULL;

		if (mn != NULL && mn->type == YAML_SEQUENCE_NODE)
			n += (int)(mn->data.sequence.items.top - mn->data.sequence.items.start);
	}
	return n;
}

/* ---- the lists ---- */

int
uf_cfg_parse_ports(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		   const char *kp, void *base)
{
	struct uf_config *cfg = base;
	yaml_node_item_t *it;
	char ip[64];
	int i;

	if (uf_cfg_get_list(p, v, kp, UF_MAX_PORTS, &cfg->n_ports) < 0)
		return -1;
	p->st->have_ports = true;
	for (i = 0, it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *pn = yaml_document_get_node(p->doc, *it);
		struct uf_cfg_port *port = &cfg->ports[i];

		snprintf(ip, sizeof(ip), "ports[%d]", i);
		p->st->item = i;
		port->pos = uf_cfg_pos_of(pn);
		if (uf_cfg_walk_map(p, pn, ip, "ports[]", port) < 0)
			return -1;
		if (port->name[0] == '\0' || port->device[0] == '\0' ||
		    (port->ip == 0 && port->n_ip6 == 0)) {
			uf_cfg_perr(p, pn, ip, "needs %s",
				    port->name[0] == '\0'     ? "a name"
				    : port->device[0] == '\0' ? "a device"
							      : "an ip (10.0.0.10/24) or ip6");
			return -1;
		}
	}
	return 0;
}

int
uf_cfg_parse_listen(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		    const char *kp, void *base)
{
	p->st->have_listen = true;
	p->st->listen = v;
	return uf_cfg_walk_map(p, v, kp, "listen", base);
}

/*
 * A destinations list: its items appended to cfg->dests, for listener st->lis (-1: the
 * top-level list of the `listen:` form, listener 0). kp names the list in messages.
 */
static int
parse_dest_list(struct uf_cfg_pctx *p, yaml_node_t *v, const char *kp, struct uf_config *cfg)
{
	struct uf_cfg_state *st = p->st;
	struct uf_cfg_dest *nd;
	yaml_node_t **np;
	yaml_node_item_t *it;
	char ip[96];
	int i, n, n_members, first = cfg->n_dests;

	if (uf_cfg_get_list(p, v, kp, UF_MAX_DESTS, &n) < 0)
		return -1;
	/* pool members take entries after the list's own: every entry has its template,
	 * neighbour and counters (docs/configuration.md#pools) */
	n_members = count_members(p, v);
	if (first + n + n_members > UF_MAX_DESTS) {
		uf_cfg_perr(p, v, kp, "%d destinations and pool members in all: at most %d",
			    first + n + n_members, UF_MAX_DESTS);
		return -1;
	}
	{
		/* room for a pool per entry of this list, beside the earlier lists' pools */
		struct uf_cfg_pool *pl = realloc(cfg->pools, (size_t)RTE_MAX(cfg->n_pools + n, 1) *
									     sizeof(*cfg->pools));

		if (pl == NULL)
			return -1;
		cfg->pools = pl;
		memset(pl + cfg->n_pools, 0, (size_t)n * sizeof(*pl));
	}
	nd = realloc(cfg->dests, (size_t)RTE_MAX(first + n + n_members, 1) * sizeof(*cfg->dests));
	if (nd == NULL)
		return -1;
	cfg->dests = nd;
	np = realloc(st->dest_port,
		     (size_t)RTE_MAX(first + n + n_members, 1) * sizeof(*st->dest_port));
	if (np == NULL)
		return -1;
	st->dest_port = np;
	memset(cfg->dests + first, 0, (size_t)(n + n_members) * sizeof(*cfg->dests));
	memset(st->dest_port + first, 0, (size_t)(n + n_members) * sizeof(*st->dest_port));
	cfg->n_dests = first + n + n_members;
	cfg->n_listed += n;
	st->next_member = first + n;
	if (st->lis >= 0) {
		cfg->listeners[st->lis].first_dest = (uint16_t)first;
		cfg->listeners[st->lis].n_dests = (uint16_t)n;
		cfg->listeners[st->lis].n_members = (uint16_t)n_members;
	}
	for (i = 0, it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *dn = yaml_document_get_node(p->doc, *it);
		struct uf_cfg_dest *d = &cfg->dests[first + i];

		snprintf(ip, sizeof(ip), "%s[%d]", kp, i);
		st->item = first + i;
		uf_cfg_apply_defaults("destinations[]", d);
		d->pos = uf_cfg_pos_of(dn);
		d->listener = (uint8_t)RTE_MAX(st->lis, 0);
		if (uf_cfg_walk_map(p, dn, ip, "destinations[]", d) < 0)
			return -1;
		if (d->is_pool) {
			if (d->ip != 0 || d->is_ip6 || d->udp_port != 0 || d->has_mac ||
			    st->dest_port[first + i] != NULL ||
			    uf_cfg_map_get(p, dn, "source") != NULL ||
			    uf_cfg_map_get(p, dn, "ttl") != NULL ||
			    uf_cfg_map_get(p, dn, "liveness") != NULL) {
				uf_cfg_perr(p, dn, ip,
					    "a pool takes only pool and sample: ip, udp_port, mac, "
					    "port, source, ttl and liveness go on each member");
				return -1;
			}
			continue;
		}
		if ((d->ip == 0 && !d->is_ip6) || d->udp_port == 0) {
			uf_cfg_perr(p, dn, ip, "needs %s",
				    d->ip == 0 && !d->is_ip6 ? "an ip" : "a udp_port");
			return -1;
		}
	}
	return 0;
}

int
uf_cfg_parse_dests(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		   const char *kp, void *base)
{
	p->st->have_dests = true;
	return parse_dest_list(p, v, kp, base);
}

/* A rules list, appended to cfg->rules for listener st->lis (-1: the top-level list). */
static int
parse_rule_list(struct uf_cfg_pctx *p, yaml_node_t *v, const char *kp, struct uf_config *cfg)
{
	struct uf_cfg_rule *nr;
	yaml_node_item_t *it;
	char ip[96];
	int i, n, first = cfg->n_rules;

	if (uf_cfg_get_list(p, v, kp, UF_MAX_RULES, &n) < 0)
		return -1;
	if (first + n > UF_MAX_RULES) {
		uf_cfg_perr(p, v, kp, "%d rules in all: at most %d", first + n, UF_MAX_RULES);
		return -1;
	}
	nr = realloc(cfg->rules, (size_t)RTE_MAX(first + n, 1) * sizeof(*cfg->rules));
	if (nr == NULL)
		return -1;
	cfg->rules = nr;
	memset(cfg->rules + first, 0, (size_t)n * sizeof(*cfg->rules));
	cfg->n_rules = first + n;
	if (p->st->lis >= 0) {
		cfg->listeners[p->st->lis].first_rule = (uint16_t)first;
		cfg->listeners[p->st->lis].n_rules = (uint16_t)n;
	}
	for (i = 0, it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *rn = yaml_document_get_node(p->doc, *it);
		struct uf_cfg_rule *r = &cfg->rules[first + i];

		snprintf(ip, sizeof(ip), "%s[%d]", kp, i);
		p->st->item = first + i;
		r->pos = uf_cfg_pos_of(rn);
		r->listener = (uint8_t)RTE_MAX(p->st->lis, 0);
		if (uf_cfg_walk_map(p, rn, ip, "rules[]", r) < 0)
			return -1;
		if (uf_cfg_map_get(p, rn, "from") == NULL || r->n_to == 0) {
			uf_cfg_perr(p, rn, ip, "needs from and to");
			return -1;
		}
	}
	return 0;
}

int
uf_cfg_parse_rules(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused, yaml_node_t *v,
		   const char *kp, void *base)
{
	p->st->have_rules = true;
	return parse_rule_list(p, v, kp, base);
}

/* listeners[].destinations and .rules: appended to the top-level arrays */
int
uf_cfg_parse_lis_dests(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused,
		       yaml_node_t *v, const char *kp, void *base __rte_unused)
{
	return parse_dest_list(p, v, kp, p->st->cfg);
}

int
uf_cfg_parse_lis_rules(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused,
		       yaml_node_t *v, const char *kp, void *base __rte_unused)
{
	return parse_rule_list(p, v, kp, p->st->cfg);
}

int
uf_cfg_parse_listeners(struct uf_cfg_pctx *p, const struct uf_cfg_key *k __rte_unused,
		       yaml_node_t *v, const char *kp, void *base)
{
	struct uf_config *cfg = base;
	struct uf_cfg_state *st = p->st;
	yaml_node_item_t *it;
	char ip[64];
	int i;

	if (uf_cfg_get_list(p, v, kp, UF_MAX_LISTENERS, &cfg->n_listeners) < 0)
		return -1;
	st->have_listeners = true;
	st->listeners = v;
	for (i = 0, it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *ln = yaml_document_get_node(p->doc, *it);
		struct uf_cfg_listener *l = &cfg->listeners[i];

		snprintf(ip, sizeof(ip), "listeners[%d]", i);
		st->lis = i;
		st->lis_node[i] = ln;
		l->pos = uf_cfg_pos_of(ln);
		if (uf_cfg_walk_map(p, ln, ip, "listeners[]", l) < 0)
			return -1;
		if (l->name[0] == '\0' || st->lis_port[i] == NULL || l->udp_port == 0 ||
		    l->n_dests == 0) {
			uf_cfg_perr(p, ln, ip, "needs %s",
				    l->name[0] == '\0'        ? "a name"
				    : st->lis_port[i] == NULL ? "a port (a port name)"
				    : l->udp_port == 0        ? "a udp_port"
							      : "destinations (at least one)");
			return -1;
		}
	}
	st->lis = -1;
	return 0;
}
