/* SPDX-License-Identifier: BSD-3-Clause
 * Reload: what changed between the running config and a new one, key by key, and whether
 * each change can be applied by a new plan ("hot") or needs ports or lcores restarted
 * (docs/configuration.md#reload). The classification is the schema's: each row's `hot`
 * flag (uf_cfg_schema.c); a container row's flag says what adding or removing an item is.
 * Lists are compared item by item: by identity where the list has one (destinations: ip
 * and udp_port), else by position; an item's listener too, and a destination's place
 * among the others (a reorder). A new list must get a row in `lists` below.
 */
#include <stdio.h>
#include <string.h>

#include "uf_cfg_schema.h"

/* ---- the schema rows' comparators: the rows whose value is not one plain field ---- */

/* two addresses of either family, each with its family: the same family and address */
static bool
same_addr(bool x_is_ip6, bool y_is_ip6, rte_be32_t x, rte_be32_t y, const struct uf_ip6 *x6,
	  const struct uf_ip6 *y6)
{
	return x_is_ip6 == y_is_ip6 && (x_is_ip6 ? memcmp(x6, y6, 16) == 0 : x == y);
}

bool
uf_cfg_same_extra_args(const void *a, const void *b)
{
	const struct uf_config *x = a, *y = b;
	int i;

	if (x->eal.n_extra != y->eal.n_extra)
		return false;
	for (i = 0; i < x->eal.n_extra; i++)
		if (strcmp(x->eal.extra_args[i], y->eal.extra_args[i]) != 0)
			return false;
	return true;
}

bool
uf_cfg_same_port_ip(const void *a, const void *b)
{
	const struct uf_cfg_port *x = a, *y = b;

	return x->ip == y->ip && x->prefix_len == y->prefix_len;
}

bool
uf_cfg_same_port_ip6(const void *a, const void *b)
{
	const struct uf_cfg_port *x = a, *y = b;

	return x->n_ip6 == y->n_ip6 &&
	       memcmp(x->ip6, y->ip6, (size_t)x->n_ip6 * sizeof(x->ip6[0])) == 0 &&
	       memcmp(x->ip6_prefix_len, y->ip6_prefix_len, (size_t)x->n_ip6) == 0;
}

bool
uf_cfg_same_port_service(const void *a, const void *b)
{
	const struct uf_cfg_port *x = a, *y = b;
	int i;

	if (x->n_svc != y->n_svc)
		return false;
	for (i = 0; i < x->n_svc; i++) {
		const struct uf_cfg_svc *s = &x->svc[i], *t = &y->svc[i];

		if (s->answer != t->answer ||
		    !same_addr(s->is_ip6, t->is_ip6, s->ip, t->ip, &s->ip6, &t->ip6))
			return false;
	}
	return true;
}

bool
uf_cfg_same_port_gw6(const void *a, const void *b)
{
	const struct uf_cfg_port *x = a, *y = b;

	return x->has_gateway6 == y->has_gateway6 &&
	       (!x->has_gateway6 || memcmp(&x->gateway6, &y->gateway6, 16) == 0);
}

bool
uf_cfg_same_dest_ip(const void *a, const void *b)
{
	const struct uf_cfg_dest *x = a, *y = b;

	return same_addr(x->is_ip6, y->is_ip6, x->ip, y->ip, &x->ip6, &y->ip6);
}

bool
uf_cfg_same_dest_mac(const void *a, const void *b)
{
	const struct uf_cfg_dest *x = a, *y = b;

	return x->has_mac == y->has_mac &&
	       (!x->has_mac || rte_is_same_ether_addr(&x->mac, &y->mac));
}

/* a pool entry stays the same entry (the k-th pool), a member in the same pool; the pool's
 * own settings are compared in uf_config_diff (uf_cfg_diff.c), its members as destinations */
bool
uf_cfg_same_dest_pool(const void *a, const void *b)
{
	const struct uf_cfg_dest *x = a, *y = b;

	return x->is_pool == y->is_pool && x->is_member == y->is_member &&
	       (!(x->is_pool || x->is_member) || x->pool == y->pool);
}

bool
uf_cfg_same_dest_source(const void *a, const void *b)
{
	const struct uf_cfg_dest *x = a, *y = b;

	return x->source == y->source &&
	       (x->source != UF_SRC_FIXED ||
		same_addr(x->source_is_ip6, y->source_is_ip6, x->source_ip, y->source_ip,
			  &x->source_ip6, &y->source_ip6));
}

bool
uf_cfg_same_rule_from(const void *a, const void *b)
{
	const struct uf_cfg_rule *x = a, *y = b;

	return x->len == y->len &&
	       same_addr(x->is_ip6, y->is_ip6, x->prefix, y->prefix, &x->prefix6, &y->prefix6);
}

bool
uf_cfg_same_rule_to(const void *a, const void *b)
{
	const struct uf_cfg_rule *x = a, *y = b;

	return x->n_to == y->n_to && memcmp(x->to, y->to, x->n_to * sizeof(*x->to)) == 0;
}

/* listeners[] (uf_cfg_diff.c matches them by position): the address (the port is the row's
 * field); their destinations and rules are items of the flat lists, compared there. Every
 * listener key needs a restart: its rte_flow rule is made when the port starts. */
bool
uf_cfg_same_lis_ip(const void *a, const void *b)
{
	const struct uf_cfg_listener *x = a, *y = b;

	return x->has_ip == y->has_ip &&
	       same_addr(x->is_ip6, y->is_ip6, x->ip, y->ip, &x->ip6, &y->ip6);
}

/* a row whose items are compared elsewhere, as items of the flat lists: a pool's members
 * (compared, matched, added and removed as destinations), a listener's destinations and
 * rules (uf_config_diff compares each one's listener and place; a move between listeners is
 * a hot change there, not a change of this listener: docs/configuration.md#reload) */
bool
uf_cfg_same_elsewhere(const void *a, const void *b)
{
	(void)a;
	(void)b;
	return true;
}

bool
uf_cfg_same_stats_json(const void *a, const void *b)
{
	return strcmp(((const struct uf_config *)a)->stats.json,
		      ((const struct uf_config *)b)->stats.json) == 0;
}

/* ---- the diff ---- */

struct list_desc {
	const char *name; /* the top-level key; its items are the section "NAME[]" */
	int (*count)(const struct uf_config *c);
	const void *(*item)(const struct uf_config *c, int i);
	/* the old item that new item NI is, or -1 (TAKEN: old items earlier new ones are,
	 * never matched twice); NULL: the item at the same position */
	int (*match)(const struct uf_config *old, const struct uf_config *nw, int ni,
		     const bool *taken);
	/* how an item is named in messages (NULL: NAME[i]) */
	void (*label)(const struct uf_config *c, int i, char *buf, size_t len);
	/* the listener item I belongs to (NULL: not a listener's); no schema row holds it */
	int (*listener)(const struct uf_config *c, int i);
};

static int
n_ports(const struct uf_config *c)
{
	return c->n_ports;
}

static const void *
port_item(const struct uf_config *c, int i)
{
	return &c->ports[i];
}

static int
n_dests(const struct uf_config *c)
{
	return c->n_dests;
}

static const void *
dest_item(const struct uf_config *c, int i)
{
	return &c->dests[i];
}

/* a destination is its address and UDP port: what its counters are kept by; a pool entry
 * (no address of its own) is the k-th pool. Entries may share an address and UDP port
 * (differing by source, egress port, listener or pool): each old one is matched once, and
 * first to the new one that agrees with it in those too, so that a reload keeps every
 * entry's counter slot its own (docs/configuration.md#reload). */
static bool
dest_same_addr(const struct uf_cfg_dest *o, const struct uf_cfg_dest *n)
{
	if (o->is_pool != n->is_pool)
		return false;
	if (n->is_pool)
		return o->pool == n->pool;
	return o->is_ip6 == n->is_ip6 && o->udp_port == n->udp_port &&
	       (n->is_ip6 ? memcmp(&o->ip6, &n->ip6, 16) == 0 : o->ip == n->ip);
}

static bool
dest_same_rest(const struct uf_cfg_dest *o, const struct uf_cfg_dest *n)
{
	return o->port == n->port && o->listener == n->listener && o->source == n->source &&
	       o->is_member == n->is_member && (!n->is_member || o->pool == n->pool) &&
	       (n->source != UF_SRC_FIXED ||
		(o->source_is_ip6 == n->source_is_ip6 &&
		 (n->source_is_ip6 ? memcmp(&o->source_ip6, &n->source_ip6, 16) == 0
				   : o->source_ip == n->source_ip)));
}

static int
dest_match(const struct uf_config *old, const struct uf_config *nw, int ni, const bool *taken)
{
	const struct uf_cfg_dest *n = &nw->dests[ni];
	int i, pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < old->n_dests; i++) {
			const struct uf_cfg_dest *o = &old->dests[i];

			if (!taken[i] && dest_same_addr(o, n) &&
			    (pass == 1 || dest_same_rest(o, n)))
				return i;
		}
	return -1;
}

static void
dest_label(const struct uf_config *c, int i, char *buf, size_t len)
{
	const uint8_t *b = (const uint8_t *)&c->dests[i].ip;
	char a6[INET6_ADDRSTRLEN];

	if (c->dests[i].is_ip6) {
		snprintf(buf, len, "destinations[%d] ([%s]:%u)", i,
			 uf_ip6_str(&c->dests[i].ip6, a6), c->dests[i].udp_port);
		return;
	}
	snprintf(buf, len, "destinations[%d] (%u.%u.%u.%u:%u)", i, b[0], b[1], b[2], b[3],
		 c->dests[i].udp_port);
}

static int
dest_listener(const struct uf_config *c, int i)
{
	return c->dests[i].listener;
}

static int
n_rules(const struct uf_config *c)
{
	return c->n_rules;
}

static const void *
rule_item(const struct uf_config *c, int i)
{
	return &c->rules[i];
}

static int
rule_listener(const struct uf_config *c, int i)
{
	return c->rules[i].listener;
}

/* the `listen:` form's one listener is listen.*, compared there */
static int
n_listeners(const struct uf_config *c)
{
	return c->listeners_form ? c->n_listeners : 0;
}

static const void *
listener_item(const struct uf_config *c, int i)
{
	return &c->listeners[i];
}

static const struct list_desc lists[] = {
	{ "ports", n_ports, port_item, NULL, NULL, NULL },
	{ "destinations", n_dests, dest_item, dest_match, dest_label, dest_listener },
	{ "rules", n_rules, rule_item, NULL, NULL, rule_listener },
	{ "listeners", n_listeners, listener_item, NULL, NULL, NULL },
};

bool
uf_cfg_diff_knows_list(const char *name)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(lists); i++)
		if (strcmp(lists[i].name, name) == 0)
			return true;
	return false;
}

static void
note(struct uf_cfg_diff *d, bool hot, const char *what)
{
	char *buf = hot ? d->hot : d->restart;
	size_t len = strlen(buf);

	if (hot)
		d->n_hot++;
	else
		d->n_restart++;
	if (len + strlen(what) + 6 >= sizeof(d->hot)) {
		if (len + 4 < sizeof(d->hot) && (len < 3 || strcmp(buf + len - 3, "...") != 0))
			snprintf(buf + len, sizeof(d->hot) - len, "%s...", len ? ", " : "");
		return;
	}
	snprintf(buf + len, sizeof(d->hot) - len, "%s%s", len ? ", " : "", what);
}

static bool
row_same(const struct uf_cfg_key *k, const void *a, const void *b)
{
	const uint8_t *x = a, *y = b;

	if (k->same != NULL)
		return k->same(a, b);
	if (k->has_flag &&
	    *(const bool *)(x + k->flag_offset) != *(const bool *)(y + k->flag_offset))
		return false;
	if (k->word != NULL &&
	    *(const bool *)(x + k->word_offset) != *(const bool *)(y + k->word_offset))
		return false;
	return memcmp(x + k->offset, y + k->offset, k->size) == 0;
}

/* every row of SECTION, between the structs A and B; returns how many differ */
static int
diff_rows(const char *section, const void *a, const void *b, const char *path,
	  struct uf_cfg_diff *d)
{
	char kp[160];
	unsigned int i;
	int n = 0;

	for (i = 0; i < uf_cfg_schema_n; i++) {
		const struct uf_cfg_key *k = &uf_cfg_schema[i];

		if (strcmp(k->section, section) != 0 || k->type == UF_CFG_MAP)
			continue;
		if (k->same == NULL && k->size == 0) {
			/* nothing says how to compare it: a row this file has not been told
			 * about (tests/unit/test_reload.c); never applied blind */
			snprintf(kp, sizeof(kp), "%s%s%s (not comparable)", path, *path ? "." : "",
				 k->name);
			note(d, false, kp);
			n++;
			continue;
		}
		if (row_same(k, a, b))
			continue;
		snprintf(kp, sizeof(kp), "%s%s%s", path, *path ? "." : "", k->name);
		note(d, k->hot, kp);
		n++;
	}
	return n;
}

static void
diff_list(const struct uf_cfg_key *top, const struct list_desc *l, const struct uf_config *old,
	  const struct uf_config *nw, struct uf_cfg_diff *d)
{
	int no = l->count(old), nn = l->count(nw), i, j, n, last_kept = -1;
	bool moved, kept[UF_MAX_DESTS + UF_MAX_RULES + UF_MAX_PORTS + UF_MAX_LISTENERS] = { false };
	char sec[64], path[96];

	snprintf(sec, sizeof(sec), "%s[]", l->name);
	for (i = 0; i < nn; i++) {
		j = l->match != NULL ? l->match(old, nw, i, kept) : (i < no ? i : -1);
		moved = false;
		if (strcmp(l->name, "destinations") == 0)
			d->dest_old[i] = j;
		if (l->label != NULL)
			l->label(nw, i, path, sizeof(path));
		else
			snprintf(path, sizeof(path), "%s[%d]", l->name, i);
		if (j < 0) {
			strncat(path, " added", sizeof(path) - strlen(path) - 1);
			note(d, top->hot, path);
			if (strcmp(l->name, "destinations") == 0)
				d->n_added++;
			continue;
		}
		kept[j] = true;
		if (l->match != NULL && j < last_kept) {
			/* before one that was after it: the order of the copies and of a
			 * listener's set changed (an index shifted by an addition or a removal
			 * above it is not a move) */
			snprintf(path + strlen(path), sizeof(path) - strlen(path),
				 " moved from %s[%d]", l->name, j);
			note(d, top->hot, path);
			moved = true;
		}
		last_kept = RTE_MAX(last_kept, j);
		if (l->label != NULL) /* the key paths: by the new position */
			snprintf(path, sizeof(path), "%s[%d]", l->name, i);
		n = diff_rows(sec, l->item(old, j), l->item(nw, i), path, d);
		if (l->listener != NULL && l->listener(old, j) != l->listener(nw, i)) {
			/* another listener's datagrams: its row in listeners[] says so, not
			 * the item's keys (docs/configuration.md#reload) */
			strncat(path, ".listener", sizeof(path) - strlen(path) - 1);
			note(d, top->hot, path);
			n++;
		}
		if ((n > 0 || moved) && strcmp(l->name, "destinations") == 0)
			d->n_changed++;
	}
	for (j = 0; j < no; j++) {
		if (kept[j])
			continue;
		if (l->label != NULL)
			l->label(old, j, path, sizeof(path));
		else
			snprintf(path, sizeof(path), "%s[%d]", l->name, j);
		strncat(path, " removed", sizeof(path) - strlen(path) - 1);
		note(d, top->hot, path);
		if (strcmp(l->name, "destinations") == 0)
			d->n_removed++;
	}
}

int
uf_config_diff(const struct uf_config *old, const struct uf_config *nw, struct uf_cfg_diff *d)
{
	char sec[64];
	unsigned int i, j;
	int n;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < UF_MAX_DESTS; i++)
		d->dest_old[i] = -1;
	for (i = 0; i < uf_cfg_schema_n; i++) {
		const struct uf_cfg_key *k = &uf_cfg_schema[i];
		bool is_list = false, is_map = false;

		if (k->section[0] != '\0')
			continue;
		snprintf(sec, sizeof(sec), "%s[]", k->name);
		for (j = 0; j < uf_cfg_schema_n; j++) {
			is_list |= strcmp(uf_cfg_schema[j].section, sec) == 0;
			is_map |= strcmp(uf_cfg_schema[j].section, k->name) == 0;
		}
		if (is_list) {
			const struct list_desc *l = NULL;

			for (j = 0; j < RTE_DIM(lists); j++)
				if (strcmp(lists[j].name, k->name) == 0)
					l = &lists[j];
			if (l != NULL) {
				diff_list(k, l, old, nw, d);
			} else if (k->same == NULL || !k->same(old, nw)) {
				snprintf(sec, sizeof(sec), "%s (not comparable)", k->name);
				note(d, false, sec);
			}
		} else if (is_map) {
			diff_rows(k->name, old, nw, k->name, d);
		} else if (k->same != NULL || k->size != 0) {
			if (!row_same(k, old, nw))
				note(d, k->hot, k->name);
		}
	}
	/* rules name destinations by index: a rule whose indexes are the same numbers but whose
	 * destinations moved (reordered, one removed before them) points elsewhere now. The
	 * row compared the numbers; compare what they name, through dest_old (a destination
	 * added in its place is reported as such already). */
	for (i = 0; i < (unsigned int)old->n_rules && i < (unsigned int)nw->n_rules; i++) {
		const struct uf_cfg_rule *a = &old->rules[i], *b = &nw->rules[i];

		if (a->n_to != b->n_to ||
		    memcmp(a->to, b->to, (size_t)a->n_to * sizeof(a->to[0])) != 0)
			continue; /* already a change of rules[i].to */
		for (j = 0; j < b->n_to; j++) {
			const int was = d->dest_old[b->to[j]]; /* -1: added, noted above */

			if (was >= 0 && was != (int)a->to[j]) {
				snprintf(sec, sizeof(sec), "rules[%u].to (its destinations moved)",
					 i);
				note(d, true, sec);
				break;
			}
		}
	}
	/* the pools' own settings (their members are destinations, compared above): a new
	 * plan applies them, so every change here is hot */
	for (i = 0; i < (unsigned int)old->n_pools && i < (unsigned int)nw->n_pools; i++) {
		const struct uf_cfg_pool *a = &old->pools[i], *b = &nw->pools[i];

		if (a->balance != b->balance || a->sender_port != b->sender_port || a->n != b->n) {
			snprintf(sec, sizeof(sec), "destinations[%d].pool", b->entry);
			note(d, true, sec);
		}
	}
	n = d->n_hot + d->n_restart;
	return n;
}
