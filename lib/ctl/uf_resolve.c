/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_rcu_qsbr.h>

#include "uf_pkt6.h"
#include "uf_resolve.h"

void
uf_next_hop6(const struct uf_config *cfg, const struct uf_cfg_dest *d, struct uf_ip6 *nh)
{
	const struct uf_cfg_port *p = &cfg->ports[d->port];
	int k;

	*nh = d->ip6;
	if (!p->has_gateway6 || uf_ip6_is_link_local(&d->ip6))
		return;
	for (k = 0; k < p->n_ip6; k++)
		if (uf_ip6_in_prefix(&d->ip6, &p->ip6[k], p->ip6_prefix_len[k]))
			return;
	*nh = p->gateway6;
}

int
uf_resolve_dest(struct uf_resolve *r, const struct uf_config *cfg, int i,
		const struct uf_neigh_table *old, uint64_t now_ms)
{
	const struct uf_cfg_dest *d = &cfg->dests[i];
	struct uf_ip6 nh6;
	rte_be32_t nh = 0;
	int n = r->neigh.n, j = -1;

	r->dest_neigh[i] = -1;
	r->dest_resolved[i] = false;
	memset(&r->dest_mac[i], 0, sizeof(r->dest_mac[i]));
	if (d->is_pool) {
		r->dest_resolved[i] = true; /* the plan looks at its members */
		return 0;
	}
	if (d->is_ip6 ? uf_ip6_is_mcast(&d->ip6) : uf_ipv4_is_mcast(rte_be_to_cpu_32(d->ip))) {
		if (d->is_ip6)
			uf_ip6_mcast_mac(&d->ip6, &r->dest_mac[i]);
		else
			uf_mcast_mac(d->ip, &r->dest_mac[i]);
		r->dest_resolved[i] = true;
		return 0;
	}
	if (d->has_mac) {
		r->dest_mac[i] = d->mac;
		r->dest_resolved[i] = true;
		return 0;
	}
	if (d->is_ip6) {
		uf_next_hop6(cfg, d, &nh6);
		r->dest_neigh[i] = uf_neigh_add6(&r->neigh, d->port, &nh6, NULL, now_ms);
		if (old != NULL)
			j = uf_neigh_find6(old, d->port, &nh6);
	} else {
		nh = uf_next_hop(cfg, d);
		r->dest_neigh[i] = uf_neigh_add(&r->neigh, d->port, nh, NULL, now_ms);
		if (old != NULL)
			j = uf_neigh_find(old, d->port, nh);
	}
	if (r->dest_neigh[i] < 0)
		return -ENOSPC;
	if (r->neigh.n > n) {
		struct uf_neigh *e = &r->neigh.e[r->dest_neigh[i]];
		bool live = false;

		if (j >= 0) {
			*e = old->e[j];                /* state, MAC, timers kept */
			live = e->live && d->liveness; /* probing on as it was */
		}
		if (!live) {
			e->live = false;
			uf_neigh_set_live(&r->neigh, r->dest_neigh[i], d->liveness, now_ms);
		}
	} else if (d->liveness && !r->neigh.e[r->dest_neigh[i]].live) {
		/* a next hop shared with another destination: probed if either asks */
		uf_neigh_set_live(&r->neigh, r->dest_neigh[i], true, now_ms);
	}
	/* what the plan gets: the entry as it is (uf_resolve_publish refreshes it) */
	r->dest_resolved[i] = uf_neigh_usable(&r->neigh.e[r->dest_neigh[i]]);
	r->dest_mac[i] = r->neigh.e[r->dest_neigh[i]].mac;
	return 0;
}

int
uf_resolve_rules(struct uf_resolve *r, const struct uf_config *cfg, int socket, struct uf_err *err)
{
	int i;

	r->lpm = NULL;
	memset(r->lis_lpm, 0, sizeof(r->lis_lpm));
	r->lpm6 = NULL;
	memset(r->lis_lpm6, 0, sizeof(r->lis_lpm6));
	for (i = 0; cfg->n_listeners > 1 && i < cfg->n_listeners; i++) {
		if (cfg->listeners[i].n_rules == 0)
			continue;
		/* a listener's rules are of its family: one table, an rte_lpm or a uf_prefix6 */
		if (cfg->listeners[i].is_ip6)
			r->lis_lpm6[i] = uf_rules_lpm6_listener(cfg, i, socket);
		else
			r->lis_lpm[i] = uf_rules_lpm_listener(cfg, i, socket);
		if (r->lis_lpm[i] == NULL && r->lis_lpm6[i] == NULL) {
			uf_err_set(err, UF_EXIT_ENV, "cannot build listener %s's rule table: %s",
				   cfg->listeners[i].name, rte_strerror(rte_errno));
			uf_resolve_rules_free(r);
			return -ENOMEM;
		}
	}
	if (cfg->n_rules > 0 && cfg->n_listeners <= 1) {
		const bool is6 = cfg->n_listeners == 1 && cfg->listeners[0].is_ip6;

		if (is6)
			r->lpm6 = uf_rules_lpm6(cfg, socket);
		else
			r->lpm = uf_rules_lpm(cfg, socket);
		if (r->lpm == NULL && r->lpm6 == NULL) {
			uf_err_set(err, UF_EXIT_ENV, "cannot build the rule table: %s",
				   rte_strerror(rte_errno));
			uf_resolve_rules_free(r);
			return -ENOMEM;
		}
	}
	return 0;
}

void
uf_resolve_rules_free(struct uf_resolve *r)
{
	int i;

	rte_lpm_free(r->lpm);
	r->lpm = NULL;
	uf_prefix6_free(r->lpm6);
	r->lpm6 = NULL;
	for (i = 0; i < UF_MAX_LISTENERS; i++) {
		rte_lpm_free(r->lis_lpm[i]);
		r->lis_lpm[i] = NULL;
		uf_prefix6_free(r->lis_lpm6[i]);
		r->lis_lpm6[i] = NULL;
	}
}

void
uf_neigh_params_of(const struct uf_config *cfg, struct uf_neigh_params *np)
{
	memset(np, 0, sizeof(*np));
	np->reachable_ms = cfg->arp.reachable_s * 1000;
	np->retry_ms = cfg->arp.retry_ms;
	np->max_probes = cfg->arp.max_probes;
	np->live_ms = cfg->arp.liveness_ms;
	np->live_misses = cfg->arp.liveness_misses;
}

int
uf_resolve_init(struct uf_resolve *r, const struct uf_config *cfg, int socket, struct uf_err *err)
{
	struct uf_neigh_params np;
	int i;

	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	if (uf_resolve_rules(r, cfg, socket, err) != 0)
		return -ENOMEM;

	uf_neigh_params_of(cfg, &np);
	uf_neigh_init(&r->neigh, &np);
	r->n_slots = (uint16_t)cfg->n_dests;
	for (i = 0; i < cfg->n_dests; i++) {
		r->dest_slot[i] = (uint16_t)i;
		r->slot_state[i] = UF_SLOT_USED;
		if (uf_resolve_dest(r, cfg, i, NULL, 0) != 0) {
			uf_err_set(err, UF_EXIT_CONFIG, "%s: more than %d distinct next hops",
				   cfg->path, UF_NEIGH_MAX);
			return -ENOSPC;
		}
	}
	return 0;
}

int
uf_resolve_publish(struct uf_resolve *r, const struct uf_port *ports, struct uf_shared *sh,
		   struct uf_ctl_ctr *ctr)
{
	const struct uf_config *cfg = r->cfg;
	struct rte_ether_addr port_mac[UF_MAX_PORTS];
	uint16_t port_mtu[UF_MAX_PORTS];
	bool port_chain[UF_MAX_PORTS];
	uint16_t port_chain_min[UF_MAX_PORTS];
	struct uf_plan_input in = {
		.cfg = cfg,
		.port_mac = port_mac,
		.port_mtu = port_mtu,
		.port_chain_ok = port_chain,
		.port_chain_min_frame = port_chain_min,
		.dest_mac = r->dest_mac,
		.dest_resolved = r->dest_resolved,
		.lpm = r->lpm,
		.dest_slot = r->dest_slot,
		.n_slots = r->n_slots,
		.port_up = r->port_up,
		.lis_lpm = (const struct rte_lpm *const *)r->lis_lpm,
		.lpm6 = r->lpm6,
		.lis_lpm6 = (const struct uf_prefix6 *const *)r->lis_lpm6,
		.socket = ports[cfg->listen.port].socket,
	};
	struct uf_plan *np, *old;
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN], m[RTE_ETHER_ADDR_FMT_SIZE];
	int i;

	for (i = 0; i < cfg->n_ports; i++) {
		port_mac[i] = ports[i].mac;
		port_mtu[i] = ports[i].plan.mtu;
		port_chain[i] = ports[i].plan.chain_ok;
		port_chain_min[i] = ports[i].plan.chain_min_frame;
	}
	for (i = 0; i < cfg->n_dests; i++) {
		const struct uf_neigh *e;
		bool was;

		if (r->dest_neigh[i] < 0)
			continue;
		e = &r->neigh.e[r->dest_neigh[i]];
		was = r->dest_resolved[i];
		r->dest_resolved[i] = uf_neigh_usable(e);
		r->dest_mac[i] = e->mac;
		if (r->plan_version == 0 || was == r->dest_resolved[i])
			continue;
		rte_ether_format_addr(m, sizeof(m), &e->mac);
		if (cfg->dests[i].is_ip6) {
			uf_ip6_str(&cfg->dests[i].ip6, a);
			uf_ip6_str(&e->ip6, b);
		} else {
			uf_ip_str(cfg->dests[i].ip, a);
			uf_ip_str(e->ip, b);
		}
		if (r->dest_resolved[i])
			UF_LOG(INFO, "destination %s%s%s:%u: next hop %s is at %s",
			       e->is_ip6 ? "[" : "", a, e->is_ip6 ? "]" : "",
			       cfg->dests[i].udp_port, b, m);
		else
			UF_LOG(WARNING,
			       "destination %s%s%s:%u: next hop %s does not answer %s (%s); its "
			       "copies are dropped and counted as no_neighbor",
			       e->is_ip6 ? "[" : "", a, e->is_ip6 ? "]" : "",
			       cfg->dests[i].udp_port, b, e->is_ip6 ? "NDP" : "ARP",
			       uf_neigh_state_name(e->state));
	}
	in.version = r->plan_version + 1;
	np = uf_plan_build(&in);
	if (np == NULL) {
		UF_LOG(ERR, "cannot build a new plan (%s); the old one stays",
		       rte_strerror(rte_errno));
		return -1;
	}
	r->plan_version = in.version;
	for (i = 0; i < cfg->n_ports; i++)
		r->port_up_used[i] = r->port_up == NULL || r->port_up[i];
	old = sh->plan;
	__atomic_store_n(&sh->plan, np, __ATOMIC_RELEASE);
	if (old != NULL) {
		/* every worker has moved past the old plan once each has been quiescent */
		rte_rcu_qsbr_synchronize(sh->qsbr, RTE_QSBR_THRID_INVALID);
		uf_plan_free(old);
		ctr->plan_updates++;
	}
	return 0;
}

void
uf_resolve_snapshot(const struct uf_resolve *r, struct uf_snap *s)
{
	const struct uf_config *cfg = r->cfg;
	int i;

	s->plan_version = r->plan_version;
	s->n_dests = cfg->n_dests;
	for (i = 0; i < cfg->n_dests; i++) {
		struct uf_snap_dest *d = &s->dests[i];
		const struct uf_cfg_dest *cd = &cfg->dests[i];

		memset(d, 0, sizeof(*d));
		d->pool = cd->is_member ? cfg->pools[cd->pool].entry + 1 : 0;
		d->ip = cd->ip;
		d->udp_port = cd->udp_port;
		snprintf(d->port, sizeof(d->port), "%s", cfg->ports[cd->port].name);
		d->mac = r->dest_mac[i];
		d->next_hop = cd->ip;
		d->is_ip6 = cd->is_ip6 && !cd->is_pool;
		d->ip6 = cd->ip6;
		d->next_hop6 = cd->ip6;
		if (cd->is_pool) {
			d->state = "pool";
		} else if (r->dest_neigh[i] >= 0) {
			const struct uf_neigh *e = &r->neigh.e[r->dest_neigh[i]];

			d->state = uf_neigh_state_name(e->state);
			d->next_hop = e->ip;
			d->next_hop6 = e->ip6;
			d->mac = e->mac;
		} else {
			d->state = (cd->is_ip6 ? uf_ip6_is_mcast(&cd->ip6)
					       : uf_ipv4_is_mcast(rte_be_to_cpu_32(cd->ip)))
						   ? "multicast"
						   : "static";
		}
	}
}

void
uf_resolve_fini(struct uf_resolve *r)
{
	uf_resolve_rules_free(r);
}
