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

/* ---- IPv6 (docs/configuration.md#ipv6) ---- */

static bool
in_prefix6(const struct uf_ip6 *a, const struct uf_ip6 *net, uint8_t len)
{
	int i;

	for (i = 0; i < 16 && len > 0; i++) {
		const int bits = RTE_MIN((int)len, 8);
		const uint8_t mask = (uint8_t)(0xff00 >> bits);

		if (((a->b[i] ^ net->b[i]) & mask) != 0)
			return false;
		len = (uint8_t)(len - bits);
	}
	return true;
}

static bool
ip6_eq(const struct uf_ip6 *a, const struct uf_ip6 *b)
{
	return memcmp(a->b, b->b, 16) == 0;
}

/* on one of the port's ip6 prefixes */
static bool
on_port6(const struct uf_cfg_port *port, const struct uf_ip6 *a)
{
	int i;

	for (i = 0; i < port->n_ip6; i++)
		if (in_prefix6(a, &port->ip6[i], port->ip6_prefix_len[i]))
			return true;
	return false;
}

/* one of the port's own ip6 addresses */
static bool
is_port6(const struct uf_cfg_port *port, const struct uf_ip6 *a)
{
	int i;

	for (i = 0; i < port->n_ip6; i++)
		if (ip6_eq(a, &port->ip6[i]))
			return true;
	return false;
}

/* fe80::/10: on every link */
static bool
link_local6(const struct uf_ip6 *a)
{
	return a->b[0] == 0xfe && (a->b[1] & 0xc0) == 0x80;
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

/* the port that has A as a service address, or -1 */
static int
svc_port(const struct uf_config *cfg, bool is_ip6, rte_be32_t a4, const struct uf_ip6 *a6)
{
	int i;

	for (i = 0; i < cfg->n_ports; i++)
		if (uf_config_port_svc(&cfg->ports[i], is_ip6, a4, a6) >= 0)
			return i;
	return -1;
}

/* ports[i].service (docs/configuration.md#service-addresses): each of a family the port
 * has, none a port's own address, none on two ports */
static int
validate_services(struct uf_cfg_pctx *p, int i)
{
	const struct uf_config *cfg = p->st->cfg;
	const struct uf_cfg_port *pi = &cfg->ports[i];
	char a[INET6_ADDRSTRLEN], key[64];
	int k, j;

	for (k = 0; k < pi->n_svc; k++) {
		const struct uf_cfg_svc *sv = &pi->svc[k];

		snprintf(key, sizeof(key), "ports[%d].service[%d]", i, k);
		if (sv->is_ip6)
			uf_ip6_str(&sv->ip6, a);
		else
			uf_ip_str(sv->ip, a);
		if (sv->is_ip6 ? pi->n_ip6 == 0 : pi->ip == 0) {
			uf_cfg_perr_pos(p, &sv->pos, key,
					"%s is IPv%d and the port has no address of that family "
					"(ports[].%s)",
					a, sv->is_ip6 ? 6 : 4, sv->is_ip6 ? "ip6" : "ip");
			return -1;
		}
		for (j = 0; j < cfg->n_ports; j++) {
			const struct uf_cfg_port *pj = &cfg->ports[j];

			if (sv->is_ip6 ? is_port6(pj, &sv->ip6) : pj->ip == sv->ip) {
				uf_cfg_perr_pos(p, &sv->pos, key, "%s is port %s's own address", a,
						pj->name);
				return -1;
			}
			if (j < i && uf_config_port_svc(pj, sv->is_ip6, sv->ip, &sv->ip6) >= 0) {
				uf_cfg_perr_pos(p, &sv->pos, key,
						"%s is also a service address of port %s", a,
						pj->name);
				return -1;
			}
		}
	}
	return 0;
}

/* unique names, devices and addresses; a gateway on its port's subnet */
static int
validate_ports(struct uf_cfg_pctx *p)
{
	const struct uf_config *cfg = p->st->cfg;
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN], a6[INET6_ADDRSTRLEN], key[64];
	int i, j, k;

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
			if (pi->ip != 0 && pi->ip == pj->ip) {
				uf_cfg_perr_pos(p, &pi->pos, key, "ip %s is also ports[%d]'s",
						uf_ip_str(pi->ip, a), j);
				return -1;
			}
			for (k = 0; k < pi->n_ip6; k++) {
				if (is_port6(pj, &pi->ip6[k])) {
					snprintf(key, sizeof(key), "ports[%d].ip6[%d]", i, k);
					uf_cfg_perr_pos(p, &pi->ip6_pos[k], key,
							"%s is also ports[%d]'s",
							uf_ip6_str(&pi->ip6[k], a6), j);
					return -1;
				}
			}
		}
		if (pi->has_gateway && pi->ip == 0) {
			snprintf(key, sizeof(key), "ports[%d].gateway", i);
			uf_cfg_perr_pos(p, &pi->gateway_pos, key,
					"the port has no IPv4 address (ports[].ip)");
			return -1;
		}
		if (pi->has_gateway6 && (pi->n_ip6 == 0 || (!link_local6(&pi->gateway6) &&
							    !on_port6(pi, &pi->gateway6)))) {
			snprintf(key, sizeof(key), "ports[%d].gateway6", i);
			uf_cfg_perr_pos(p, &pi->gateway6_pos, key,
					"%s is neither link-local nor on one of the port's ip6 "
					"prefixes%s",
					uf_ip6_str(&pi->gateway6, a6),
					pi->n_ip6 == 0 ? " (the port has no ip6)" : "");
			return -1;
		}
		if (pi->has_gateway6 && is_port6(pi, &pi->gateway6)) {
			snprintf(key, sizeof(key), "ports[%d].gateway6", i);
			uf_cfg_perr_pos(p, &pi->gateway6_pos, key, "%s is the port's own address",
					uf_ip6_str(&pi->gateway6, a6));
			return -1;
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
	for (i = 0; i < cfg->n_ports; i++)
		if (validate_services(p, i) < 0)
			return -1;
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
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN], a6[INET6_ADDRSTRLEN], key[64];
	const struct uf_cfg_port *port;

	if (idx < 0) {
		snprintf(key, sizeof(key), "listeners[%d].port", i);
		uf_cfg_perr(p, lp, key, "no port is named \"%s\"", pn);
		return -1;
	}
	l->port = (uint16_t)idx;
	port = &cfg->ports[idx];
	if (l->has_ip && uf_config_port_svc(port, l->is_ip6, l->ip, &l->ip6) >= 0) {
		/* one of its port's service addresses: it takes that one's datagrams
		 * (docs/configuration.md#service-addresses) */
	} else if (l->has_ip && l->is_ip6) {
		snprintf(key, sizeof(key), "listeners[%d].ip", i);
		uf_ip6_str(&l->ip6, a6);
		if (!on_port6(port, &l->ip6) || l->ip6.b[0] == 0xff) {
			uf_cfg_perr_pos(p, &l->ip_pos, key,
					"%s is not a unicast address on one of port %s's ip6 "
					"prefixes%s",
					a6, port->name,
					port->n_ip6 == 0 ? " (the port has no ip6)" : "");
			return -1;
		}
		/* the worker takes IPv6 only to the port's own addresses (uf_classify6: they are
		 * what Neighbour Discovery answers for), so a listener's must be one of them */
		if (!is_port6(port, &l->ip6)) {
			uf_cfg_perr_pos(p, &l->ip_pos, key,
					"%s is not one of port %s's ip6 addresses (add it to "
					"ports[].ip6)",
					a6, port->name);
			return -1;
		}
		for (j = 0; j < cfg->n_ports; j++) {
			if (j != idx && is_port6(&cfg->ports[j], &l->ip6)) {
				uf_cfg_perr_pos(p, &l->ip_pos, key, "%s is port %s's address", a6,
						cfg->ports[j].name);
				return -1;
			}
		}
	} else if (l->has_ip && port->ip == 0) {
		snprintf(key, sizeof(key), "listeners[%d].ip", i);
		uf_cfg_perr_pos(p, &l->ip_pos, key,
				"%s is IPv4 and port %s has no IPv4 address (ports[].ip)",
				uf_ip_str(l->ip, a), port->name);
		return -1;
	} else if (l->has_ip) {
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
		/* one IPv4 listener is served by the one-listener path, whose classifier
		 * takes UDP to the port's own address only: refused rather than every
		 * datagram counted not_for_us (docs/configuration.md#listeners) */
		if (cfg->n_listeners == 1 && l->ip != port->ip) {
			uf_cfg_perr_pos(p, &l->ip_pos, key,
					"a single listener listens on port %s's own address %s; "
					"for %s, make it the port's ip (ports[].ip), or add a second listener",
					port->name, uf_ip_str(port->ip, b), a);
			return -1;
		}
	} else if (port->ip != 0) {
		l->ip = port->ip;
	} else {
		/* an IPv6-only port: the listener takes its first ip6 */
		l->is_ip6 = true;
		l->ip6 = port->ip6[0];
	}
	snprintf(key, sizeof(key), "listeners[%d]", i);
	for (j = 0; j < i; j++) {
		const struct uf_cfg_listener *e = &cfg->listeners[j];

		if (strcmp(e->name, l->name) == 0) {
			uf_cfg_perr_pos(p, &l->pos, key, "name \"%s\" is also listeners[%d]'s",
					l->name, j);
			return -1;
		}
		if (e->port == l->port && e->udp_port == l->udp_port && e->is_ip6 == l->is_ip6 &&
		    (l->is_ip6 ? ip6_eq(&e->ip6, &l->ip6) : e->ip == l->ip)) {
			uf_cfg_perr_pos(p, &l->pos, key,
					"port %s, %s:%u is also listeners[%d]'s (%s)", port->name,
					l->is_ip6 ? uf_ip6_str(&l->ip6, a6) : uf_ip_str(l->ip, a),
					l->udp_port, j, e->name);
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
	if (l0->ip == 0) { /* an IPv6-only port */
		l0->is_ip6 = true;
		l0->ip6 = cfg->ports[idx].ip6[0];
	}
	l0->first_dest = 0;
	l0->n_dests = (uint16_t)cfg->n_listed;
	l0->n_members = (uint16_t)(cfg->n_dests - cfg->n_listed);
	l0->first_rule = 0;
	l0->n_rules = (uint16_t)cfg->n_rules;
	return 0;
}

/* source: original keeps the sender's address, which only a destination of the listener's
 * family can carry; a fixed source is of the destination's family */
static int
validate_dest_source(struct uf_cfg_pctx *p, const struct uf_cfg_dest *d,
		     const struct uf_cfg_listener *l, const char *key)
{
	const int df = d->is_ip6 ? 6 : 4, lf = l->is_ip6 ? 6 : 4;

	if (d->source == UF_SRC_ORIGINAL && df != lf) {
		uf_cfg_perr_pos(p, &d->pos, key,
				"source: original keeps the sender's IPv%d address, which an IPv%d "
				"destination cannot carry (listener %s is IPv%d): use ours or a "
				"fixed IPv%d source",
				lf, df, l->name, lf, df);
		return -1;
	}
	if (d->source == UF_SRC_FIXED && d->source_is_ip6 != d->is_ip6) {
		uf_cfg_perr_pos(p, &d->pos, key,
				"source is an IPv%d address and the destination IPv%d: give an "
				"IPv%d source",
				d->source_is_ip6 ? 6 : 4, df, df);
		return -1;
	}
	return 0;
}

/* an IPv6 destination: a port with ip6 to send it from, an address that can be sent to
 * and reached on that port, no twin */
static int
validate_dest6(struct uf_cfg_pctx *p, int i, const char *key, const char *list,
	       const struct uf_cfg_port *eg)
{
	struct uf_config *cfg = p->st->cfg;
	const struct uf_cfg_dest *d = &cfg->dests[i];
	const struct uf_cfg_listener *l = &cfg->listeners[d->listener];
	const bool mcast = d->ip6.b[0] == 0xff;
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	static const struct uf_ip6 unspec, loopback = { .b = { [15] = 1 } };
	char a[INET6_ADDRSTRLEN];
	int j;

	uf_ip6_str(&d->ip6, a);
	if (eg->n_ip6 == 0) {
		uf_cfg_perr_pos(p, &d->pos, key,
				"%s is IPv6 and port %s has no ip6 (add ports[].ip6)", a, eg->name);
		return -1;
	}
	if (ip6_eq(&d->ip6, &unspec) || ip6_eq(&d->ip6, &loopback) ||
	    memcmp(d->ip6.b, mapped, 12) == 0) {
		uf_cfg_perr_pos(p, &d->pos, key,
				"%s cannot be a destination (unspecified, loopback or IPv4-mapped)",
				a);
		return -1;
	}
	if (mcast && d->has_mac) {
		uf_cfg_perr_pos(p, &d->pos, key,
				"%s is multicast: its MAC follows from the address; drop the mac key",
				a);
		return -1;
	}
	if (svc_port(p->st->cfg, true, 0, &d->ip6) >= 0) {
		uf_cfg_perr_pos(p, &d->pos, key, "%s is a service address of port %s", a,
				p->st->cfg->ports[svc_port(p->st->cfg, true, 0, &d->ip6)].name);
		return -1;
	}
	if (is_port6(eg, &d->ip6)) {
		uf_cfg_perr_pos(p, &d->pos, key, "%s is port %s's own address", a, eg->name);
		return -1;
	}
	if (!mcast && !d->has_mac && !link_local6(&d->ip6) && !on_port6(eg, &d->ip6) &&
	    !eg->has_gateway6) {
		uf_cfg_perr_pos(p, &d->pos, key,
				"%s is not on port %s's ip6 prefixes and the port has no gateway6 "
				"(add ports[].gateway6 or a static mac)",
				a, eg->name);
		return -1;
	}
	for (j = 0; j < i; j++) {
		const struct uf_cfg_dest *e = &cfg->dests[j];

		if (!e->is_pool && e->is_ip6 && e->listener == d->listener &&
		    ip6_eq(&e->ip6, &d->ip6) && e->udp_port == d->udp_port && e->port == d->port &&
		    e->source == d->source && e->source_is_ip6 == d->source_is_ip6 &&
		    e->source_ip == d->source_ip && ip6_eq(&e->source_ip6, &d->source_ip6)) {
			uf_cfg_perr_pos(p, &d->pos, key, "[%s]:%u is also %s[%d]", a, d->udp_port,
					list, j - l->first_dest);
			return -1;
		}
	}
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
	if (validate_dest_source(p, d, l, key) < 0)
		return -1;
	if (d->is_ip6)
		return validate_dest6(p, i, key, list, eg);
	if (eg->ip == 0) {
		uf_cfg_perr_pos(p, &d->pos, key,
				"%s is IPv4 and port %s has no IPv4 address (add ports[].ip)",
				uf_ip_str(d->ip, a), eg->name);
		return -1;
	}
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
	if (svc_port(cfg, false, d->ip, NULL) >= 0) {
		uf_cfg_perr_pos(p, &d->pos, key, "%s is a service address of port %s",
				uf_ip_str(d->ip, a),
				cfg->ports[svc_port(cfg, false, d->ip, NULL)].name);
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

		if (!e->is_pool && !e->is_ip6 && e->listener == d->listener && e->ip == d->ip &&
		    e->udp_port == d->udp_port && e->port == d->port && e->source == d->source &&
		    e->source_is_ip6 == d->source_is_ip6 && e->source_ip == d->source_ip &&
		    ip6_eq(&e->source_ip6, &d->source_ip6)) {
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
	char a6[INET6_ADDRSTRLEN], b6[INET6_ADDRSTRLEN];
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
		if (r->is_ip6 != l->is_ip6) {
			uf_cfg_perr_pos(p, &r->pos, key,
					"an IPv%d prefix can never match: listener %s receives "
					"IPv%d",
					r->is_ip6 ? 6 : 4, l->name, l->is_ip6 ? 6 : 4);
			return -1;
		}
		if (r->is_ip6) {
			for (j = l->first_rule; j < i; j++) {
				const struct uf_cfg_rule *e = &cfg->rules[j];

				if (e->len <= r->len &&
				    in_prefix6(&r->prefix6, &e->prefix6, e->len)) {
					uf_cfg_perr_pos(p, &r->pos, key,
							"%s/%u can never match: rules[%d] (%s/%u) "
							"comes first and covers it",
							uf_ip6_str(&r->prefix6, a6), r->len,
							j - l->first_rule,
							uf_ip6_str(&e->prefix6, b6), e->len);
					return -1;
				}
			}
			continue;
		}
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
