/* SPDX-License-Identifier: BSD-3-Clause
 * What the key-by-key parse cannot check: the whole document. In order: what must be there,
 * the ports among themselves, the listen port, the destinations (reference, address,
 * reachability, duplicates), the rules (references, shadowing). Each part stops at the
 * first error, which names the offending entry's position (docs/configuration.md).
 */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_byteorder.h>

#include "uf_cfg_internal.h"

static bool
in_subnet(rte_be32_t a, rte_be32_t net, uint8_t len)
{
	uint32_t mask = len == 0 ? 0 : ~0u << (32 - len);

	return ((rte_be_to_cpu_32(a) ^ rte_be_to_cpu_32(net)) & mask) == 0;
}

/* the sections a forwarder cannot run without, and EAL options that exclude each other */
static int
validate_required(struct uf_cfg_pctx *p, yaml_node_t *root)
{
	const struct uf_cfg_state *st = p->st;
	const struct uf_config *cfg = st->cfg;

	if (cfg->eal.in_memory && cfg->eal.no_huge) {
		uf_cfg_perr(p, root, "eal",
			    "in_memory and no_huge exclude each other in EAL; no_huge "
			    "already keeps nothing in hugetlbfs, drop in_memory");
		return -1;
	}
	if (!st->have_ports || cfg->n_ports == 0) {
		uf_cfg_perr(p, root, "ports", "at least one port is required");
		return -1;
	}
	if (st->have_listeners) {
		/* the listeners form: destinations and rules go inside each listener */
		if (st->have_listen || st->have_dests || st->have_rules) {
			uf_cfg_perr(p, st->listeners, "listeners",
				    "listeners and the top-level %s exclude each other: put the "
				    "destinations and rules inside each listener",
				    st->have_listen  ? "listen"
				    : st->have_dests ? "destinations"
						     : "rules");
			return -1;
		}
		if (cfg->n_listeners == 0) {
			uf_cfg_perr(p, st->listeners, "listeners",
				    "at least one listener is required");
			return -1;
		}
		return 0;
	}
	if (!st->have_listen || st->listen_port == NULL || cfg->listen.udp_port == 0) {
		uf_cfg_perr(p, st->listen != NULL ? st->listen : root, "listen",
			    "needs port (a port name) and udp_port");
		return -1;
	}
	if (!st->have_dests || cfg->n_dests == 0) {
		uf_cfg_perr(p, root, "destinations", "at least one destination is required");
		return -1;
	}
	return 0;
}

/* unique names, devices and addresses; a gateway on its port's subnet */
static int
validate_ports(struct uf_cfg_pctx *p)
{
	const struct uf_config *cfg = p->st->cfg;
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN], key[64];
	int i, j;

	for (i = 0; i < cfg->n_ports; i++)
		((struct uf_cfg_port *)&cfg->ports[i])->dev = (uint16_t)i;
	for (i = 0; i < cfg->n_ports; i++) {
		const struct uf_cfg_port *pi = &cfg->ports[i];

		for (j = 0; j < i; j++) {
			const struct uf_cfg_port *pj = &cfg->ports[j];

			snprintf(key, sizeof(key), "ports[%d]", i);
			if (strcmp(pi->name, pj->name) == 0) {
				uf_cfg_perr_pos(p, &pi->pos, key, "name \"%s\" is also ports[%d]'s",
						pi->name, j);
				return -1;
			}
			/* one device, several logical ports: each on its own VLAN, at most one
			 * untagged (docs/configuration.md#vlans); the first owns the device */
			if (strcmp(pi->dev_name, pj->dev_name) == 0) {
				if (pi->vlan == pj->vlan) {
					uf_cfg_perr_pos(p, &pi->device_pos, key,
							"device \"%s\" is also ports[%d]'s, %s",
							pi->dev_name, j,
							pi->vlan == 0 ? "both untagged"
								      : "on the same vlan");
					return -1;
				}
				if (strcmp(pi->device, pj->device) != 0) {
					uf_cfg_perr_pos(p, &pi->device_pos, key,
							"device \"%s\" is ports[%d]'s with other "
							"devargs (\"%s\"): a shared device is "
							"written the same way by every port on it",
							pi->device, j, pj->device);
					return -1;
				}
				if (pi->mtu != pj->mtu || pi->rx_desc != pj->rx_desc ||
				    pi->tx_desc != pj->tx_desc || pi->mbufs != pj->mbufs) {
					uf_cfg_perr_pos(p, &pi->pos, key,
							"shares device \"%s\" with ports[%d] but "
							"not its mtu, rx_desc, tx_desc or mbufs "
							"(the device's, set alike on each)",
							pi->dev_name, j);
					return -1;
				}
				if (cfg->ports[j].dev == j && pi->dev == i)
					((struct uf_cfg_port *)pi)->dev = (uint16_t)j;
			}
			if (pi->ip == pj->ip) {
				uf_cfg_perr_pos(p, &pi->pos, key, "ip %s is also ports[%d]'s",
						uf_ip_str(pi->ip, a), j);
				return -1;
			}
		}
		if (pi->vlan_pcp != 0 && pi->vlan == 0) {
			snprintf(key, sizeof(key), "ports[%d].vlan_pcp", i);
			uf_cfg_perr_pos(p, &pi->pos, key,
					"priority bits on an untagged port (set ports[].vlan)");
			return -1;
		}
		if (pi->has_gateway && !in_subnet(pi->gateway, pi->ip, pi->prefix_len)) {
			snprintf(key, sizeof(key), "ports[%d].gateway", i);
			uf_cfg_perr_pos(p, &pi->gateway_pos, key,
					"%s is not on the port's subnet %s/%u",
					uf_ip_str(pi->gateway, a), uf_ip_str(pi->ip, b),
					pi->prefix_len);
			return -1;
		}
	}
	return 0;
}

/* listeners[i]: its port, its address, no twin (port, udp_port, ip) nor namesake */
static int
validate_listener(struct uf_cfg_pctx *p, int i)
{
	struct uf_config *cfg = p->st->cfg;
	struct uf_cfg_listener *l = &cfg->listeners[i];
	yaml_node_t *lp = p->st->lis_port[i];
	const char *pn = (const char *)lp->data.scalar.value;
	int idx = uf_config_port_by_name(cfg, pn), j;
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN], key[64];
	const struct uf_cfg_port *port;

	if (idx < 0) {
		snprintf(key, sizeof(key), "listeners[%d].port", i);
		uf_cfg_perr(p, lp, key, "no port is named \"%s\"", pn);
		return -1;
	}
	l->port = (uint16_t)idx;
	port = &cfg->ports[idx];
	if (l->has_ip) {
		snprintf(key, sizeof(key), "listeners[%d].ip", i);
		uf_ip_str(l->ip, a);
		if (!in_subnet(l->ip, port->ip, port->prefix_len) ||
		    uf_ipv4_is_mcast(rte_be_to_cpu_32(l->ip))) {
			uf_cfg_perr_pos(p, &l->ip_pos, key,
					"%s is not a unicast address on port %s's subnet %s/%u", a,
					port->name, uf_ip_str(port->ip, b), port->prefix_len);
			return -1;
		}
		for (j = 0; j < cfg->n_ports; j++) {
			if (j != idx && cfg->ports[j].ip == l->ip) {
				uf_cfg_perr_pos(p, &l->ip_pos, key, "%s is port %s's address", a,
						cfg->ports[j].name);
				return -1;
			}
		}
	} else {
		l->ip = port->ip;
	}
	snprintf(key, sizeof(key), "listeners[%d]", i);
	for (j = 0; j < i; j++) {
		const struct uf_cfg_listener *e = &cfg->listeners[j];

		if (strcmp(e->name, l->name) == 0) {
			uf_cfg_perr_pos(p, &l->pos, key, "name \"%s\" is also listeners[%d]'s",
					l->name, j);
			return -1;
		}
		if (e->port == l->port && e->udp_port == l->udp_port && e->ip == l->ip) {
			uf_cfg_perr_pos(p, &l->pos, key,
					"port %s, %s:%u is also listeners[%d]'s (%s)", port->name,
					uf_ip_str(l->ip, a), l->udp_port, j, e->name);
			return -1;
		}
	}
	return 0;
}

/* listen.port names a port (the one-listener form: listener 0 gets everything); or each
 * of the listeners checks out. cfg->listen is listener 0's either way. */
static int
validate_listen(struct uf_cfg_pctx *p)
{
	struct uf_config *cfg = p->st->cfg;
	struct uf_cfg_listener *l0 = &cfg->listeners[0];
	yaml_node_t *lp = p->st->listen_port;
	const char *ln;
	int idx, i;

	if (p->st->have_listeners) {
		for (i = 0; i < cfg->n_listeners; i++)
			if (validate_listener(p, i) < 0)
				return -1;
		cfg->listen.port = l0->port;
		cfg->listen.udp_port = l0->udp_port;
		cfg->listeners_form = true;
		return 0;
	}
	ln = (const char *)lp->data.scalar.value;
	idx = uf_config_port_by_name(cfg, ln);
	if (idx < 0) {
		uf_cfg_perr(p, lp, "listen.port", "no port is named \"%s\"", ln);
		return -1;
	}
	cfg->listen.port = (uint16_t)idx;
	cfg->n_listeners = 1;
	snprintf(l0->name, sizeof(l0->name), "listen");
	l0->port = (uint16_t)idx;
	l0->udp_port = cfg->listen.udp_port;
	l0->ip = cfg->ports[idx].ip;
	l0->first_dest = 0;
	l0->n_dests = (uint16_t)cfg->n_listed;
	l0->n_members = (uint16_t)(cfg->n_dests - cfg->n_listed);
	l0->first_rule = 0;
	l0->n_rules = (uint16_t)cfg->n_rules;
	return 0;
}

/* destination i: its egress port, an address that can be sent to and reached, no twin */
static int
validate_dest(struct uf_cfg_pctx *p, int i)
{
	struct uf_config *cfg = p->st->cfg;
	struct uf_cfg_dest *d = &cfg->dests[i];
	yaml_node_t *port_node = p->st->dest_port[i];
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN], key[96];
	const struct uf_cfg_port *eg;
	uint32_t hip = rte_be_to_cpu_32(d->ip);
	int j;
	const struct uf_cfg_listener *l = &cfg->listeners[d->listener];
	const int rel = i - l->first_dest; /* its index in its list */
	char list[40];

	if (d->is_pool) {
		d->port = cfg->listeners[d->listener].port; /* its members have theirs */
		return 0; /* its members are checked as destinations of their own */
	}
	if (p->st->have_listeners)
		snprintf(list, sizeof(list), "listeners[%u].destinations", d->listener);
	else
		snprintf(list, sizeof(list), "destinations");
	if (d->is_member) {
		const struct uf_cfg_pool *pl = &cfg->pools[d->pool];

		snprintf(key, sizeof(key), "%s[%d].pool.members[%d]", list,
			 pl->entry - l->first_dest, i - pl->first);
	} else {
		snprintf(key, sizeof(key), "%s[%d]", list, rel);
	}
	if (port_node != NULL) {
		const char *pn = (const char *)port_node->data.scalar.value;
		int idx = uf_config_port_by_name(cfg, pn);

		if (idx < 0) {
			snprintf(key + strlen(key), sizeof(key) - strlen(key), ".port");
			uf_cfg_perr(p, port_node, key, "no port is named \"%s\"", pn);
			return -1;
		}
		d->port = (uint16_t)idx;
	} else {
		d->port = cfg->listeners[d->listener].port;
	}
	eg = &cfg->ports[d->port];
	if (hip == 0 || hip == 0xffffffff || (hip >> 24) == 127 || (hip >> 28) == 0xf) {
		uf_cfg_perr_pos(p, &d->pos, key, "%s cannot be a destination", uf_ip_str(d->ip, a));
		return -1;
	}
	if (uf_ipv4_is_mcast(hip) && d->has_mac) {
		uf_cfg_perr_pos(p, &d->pos, key,
				"%s is multicast: its MAC follows from the address; "
				"drop the mac key",
				uf_ip_str(d->ip, a));
		return -1;
	}
	if (d->ip == eg->ip) {
		uf_cfg_perr_pos(p, &d->pos, key, "%s is port %s's own address", uf_ip_str(d->ip, a),
				eg->name);
		return -1;
	}
	if (!uf_ipv4_is_mcast(hip) && !d->has_mac && !in_subnet(d->ip, eg->ip, eg->prefix_len) &&
	    !eg->has_gateway) {
		uf_cfg_perr_pos(p, &d->pos, key,
				"%s is not on port %s's subnet %s/%u and the port has "
				"no gateway (add ports[].gateway or a static mac)",
				uf_ip_str(d->ip, a), eg->name, uf_ip_str(eg->ip, b),
				eg->prefix_len);
		return -1;
	}
	for (j = 0; j < i; j++) {
		const struct uf_cfg_dest *e = &cfg->dests[j];

		if (!e->is_pool && e->listener == d->listener && e->ip == d->ip &&
		    e->udp_port == d->udp_port && e->port == d->port && e->source == d->source &&
		    e->source_ip == d->source_ip) {
			uf_cfg_perr_pos(p, &d->pos, key, "%s:%u is also %s[%d]",
					uf_ip_str(d->ip, a), d->udp_port, list, j - l->first_dest);
			return -1;
		}
	}
	return 0;
}

static int
validate_dests(struct uf_cfg_pctx *p)
{
	int i;

	for (i = 0; i < p->st->cfg->n_dests; i++)
		if (validate_dest(p, i) < 0)
			return -1;
	return 0;
}

/* every index in `to` exists; no rule covered by an earlier one */
static int
validate_rules(struct uf_cfg_pctx *p)
{
	const struct uf_config *cfg = p->st->cfg;
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN], key[64];
	int i, j;

	for (i = 0; i < cfg->n_rules; i++) {
		const struct uf_cfg_rule *r = &cfg->rules[i];

		const struct uf_cfg_listener *l = &cfg->listeners[r->listener];
		const int n_named = l->n_dests; /* as listed: pools' members are not named */

		snprintf(key, sizeof(key), "rules[%d].to", i);
		if (p->st->have_listeners)
			snprintf(key, sizeof(key), "listeners[%u].rules[%d].to", r->listener,
				 i - l->first_rule);
		for (j = 0; j < r->n_to; j++) {
			/* its listed destinations (a pool's members are not rules' to name) */
			if (r->to[j] >= n_named) {
				uf_cfg_perr_pos(p, &r->to_pos[j], key,
						"destination %u does not exist (there are %d)",
						r->to[j], n_named);
				return -1;
			}
			/* the listener's index, made global (dests[]) */
			r->to[j] = (uint16_t)(r->to[j] + l->first_dest);
		}
		snprintf(key, sizeof(key), "rules[%d]", i);
		if (p->st->have_listeners)
			snprintf(key, sizeof(key), "listeners[%u].rules[%d]", r->listener,
				 i - l->first_rule);
		for (j = l->first_rule; j < i; j++) {
			const struct uf_cfg_rule *e = &cfg->rules[j];

			/* First match wins: a rule covered by an earlier one can never match. */
			if (e->len <= r->len && in_subnet(r->prefix, e->prefix, e->len)) {
				uf_cfg_perr_pos(p, &r->pos, key,
						"%s/%u can never match: rules[%d] (%s/%u) "
						"comes first and covers it",
						uf_ip_str(r->prefix, a), r->len, j - l->first_rule,
						uf_ip_str(e->prefix, b), e->len);
				return -1;
			}
		}
	}
	return 0;
}

int
uf_cfg_validate(struct uf_cfg_pctx *p, yaml_node_t *root)
{
	if (validate_required(p, root) < 0 || validate_ports(p) < 0 || validate_listen(p) < 0 ||
	    validate_dests(p) < 0 || validate_rules(p) < 0)
		return -1;
	return 0;
}
