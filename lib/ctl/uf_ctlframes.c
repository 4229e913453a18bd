/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_arp.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "uf_ctlframes.h"
#include "uf_ndp.h"
#include "uf_pkt6.h"

static const struct rte_ether_addr bcast = { .addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
static const struct rte_ether_addr zero_mac;

void
uf_ctlframes_init(struct uf_ctlframes *cf, const struct uf_config *cfg, const struct uf_port *ports,
		  struct uf_worker *const *w, uint16_t n_workers, struct uf_neigh_table *neigh,
		  struct uf_ctl_ctr *ctr)
{
	int i;

	memset(cf, 0, sizeof(*cf));
	cf->cfg = cfg;
	cf->ports = ports;
	cf->w = w;
	cf->n_workers = n_workers;
	cf->neigh = neigh;
	cf->ctr = ctr;
	for (i = 0; i < cfg->n_ports; i++) { /* full buckets to start with */
		cf->icmp_tokens[i] = cfg->control.icmp_rate;
		cf->neigh_tokens[i] = cfg->control.neigh_rate;
	}
}

/*
 * Send m, an untagged frame of port pi, through worker wk: on a tagged port with its tag
 * (VLAN id and vlan_pcp) put in front of the EtherType, in software (docs/configuration.md#vlans).
 */
static void
ctl_send(struct uf_ctlframes *cf, uint16_t wk, uint16_t pi, struct rte_mbuf *m)
{
	const struct uf_cfg_port *cp = cf->ports[pi].cfg;

	m->ol_flags = 0;
	m->port = cf->ports[pi].port_id;
	if (cp->vlan != 0) {
		uint8_t *f = (uint8_t *)rte_pktmbuf_prepend(m, UF_VLAN_LEN);

		if (f == NULL) { /* no headroom: never with udpfan's pools */
			cf->ctr->ctl_nombuf++;
			rte_pktmbuf_free(m);
			return;
		}
		uf_vlan_insert(f, (uint16_t)(cp->vlan_pcp << 13 | cp->vlan));
	}
	if (rte_ring_sp_enqueue(cf->w[wk]->ctl_tx, m) != 0) {
		cf->ctr->ctl_ring_full++;
		rte_pktmbuf_free(m);
	}
}

/* a fresh control frame from worker 0's pool (it sends on queue 0), NULL counted */
static struct rte_mbuf *
ctl_alloc(struct uf_ctlframes *cf, uint16_t pi)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(cf->ports[pi].pool[0]);

	if (m == NULL)
		cf->ctr->ctl_nombuf++;
	return m;
}

static void
send_arp(struct uf_ctlframes *cf, uint16_t pi, uint16_t op, const struct rte_ether_addr *dst,
	 rte_be32_t tip)
{
	const struct uf_port *p = &cf->ports[pi];
	struct rte_mbuf *m = ctl_alloc(cf, pi);
	uint16_t len;

	if (m == NULL)
		return;
	len = uf_arp_build(rte_pktmbuf_mtod(m, uint8_t *), op, dst, &p->mac, p->cfg->ip, &zero_mac,
			   tip);
	m->data_len = len;
	m->pkt_len = len;
	/* worker 0 sends it on queue 0: the mbuf comes from that queue's pool */
	ctl_send(cf, 0, pi, m);
}

void
uf_ctlframes_neigh_send(void *arg, uint16_t port, rte_be32_t ip, const struct rte_ether_addr *mac)
{
	struct uf_ctlframes *cf = arg;

	send_arp(cf, port, RTE_ARP_OP_REQUEST, mac != NULL ? mac : &bcast, ip);
	cf->ctr->arp_requests_sent++;
}

/*
 * The address of port pi an NS for TARGET goes out from (RFC 4861 7.2.2: one of the
 * interface's): a link-local one for a link-local target, else one whose prefix holds the
 * target, else the first that is not link-local, else the first. NULL: the port has none.
 */
static const struct uf_ip6 *
ns_source(const struct uf_cfg_port *cp, const struct uf_ip6 *target)
{
	int i;

	if (cp->n_ip6 == 0)
		return NULL;
	for (i = 0; i < cp->n_ip6; i++)
		if (uf_ip6_is_link_local(target)
				    ? uf_ip6_is_link_local(&cp->ip6[i])
				    : uf_ip6_in_prefix(target, &cp->ip6[i], cp->ip6_prefix_len[i]))
			return &cp->ip6[i];
	for (i = 0; i < cp->n_ip6; i++)
		if (!uf_ip6_is_link_local(&cp->ip6[i]))
			return &cp->ip6[i];
	return &cp->ip6[0];
}

void
uf_ctlframes_neigh_send6(void *arg, uint16_t port, const struct uf_ip6 *ip,
			 const struct rte_ether_addr *mac)
{
	struct uf_ctlframes *cf = arg;
	const struct uf_port *p = &cf->ports[port];
	const struct uf_ip6 *src = ns_source(p->cfg, ip);
	struct rte_mbuf *m;
	uint16_t len;

	if (src == NULL) /* validation gives an IPv6 next hop's port an ip6 */
		return;
	m = ctl_alloc(cf, port);
	if (m == NULL)
		return;
	/* mac NULL: to the target's solicited-node group; else a unicast probe */
	len = uf_ndp_ns_build(rte_pktmbuf_mtod(m, uint8_t *), &p->mac, src, ip,
			      mac != NULL ? ip : NULL, mac);
	m->data_len = len;
	m->pkt_len = len;
	cf->ctr->ndp_ns_sent++;
	ctl_send(cf, 0, port, m);
}

void
uf_ctlframes_garp(struct uf_ctlframes *cf, uint16_t pi)
{
	const struct uf_cfg_port *cp = cf->ports[pi].cfg;
	struct uf_ip6 all;
	struct rte_ether_addr all_mac;
	int i;

	if (!cf->cfg->arp.gratuitous)
		return;
	if (cp->ip != 0) { /* an IPv6-only port has no IPv4 address to announce */
		send_arp(cf, pi, RTE_ARP_OP_REQUEST, &bcast, cp->ip);
		cf->ctr->arp_gratuitous_sent++;
	}
	/* an unsolicited NA for each ip6, to all nodes, Override set (RFC 4861 7.2.6) */
	uf_ip6_all_nodes(&all);
	uf_ip6_mcast_mac(&all, &all_mac);
	for (i = 0; i < cp->n_ip6; i++) {
		struct rte_mbuf *m = ctl_alloc(cf, pi);
		uint16_t len;

		if (m == NULL)
			return;
		len = uf_ndp_na_build(rte_pktmbuf_mtod(m, uint8_t *), &cf->ports[pi].mac,
				      &cp->ip6[i], &all, &all_mac, &cp->ip6[i], UF_NA_OVERRIDE);
		m->data_len = len;
		m->pkt_len = len;
		cf->ctr->ndp_unsolicited_na_sent++;
		ctl_send(cf, 0, pi, m);
	}
}

/* a token bucket of RATE per second with a burst of RATE: may one more frame go at ms? */
static bool
bucket_take(double *tokens, uint64_t *last_ms, uint32_t rate, uint64_t ms)
{
	double t = *tokens + (double)rate * (double)(ms - *last_ms) / 1000.0;

	*last_ms = ms;
	if (t > rate)
		t = rate;
	if (t < 1.0) {
		*tokens = t;
		return false;
	}
	*tokens = t - 1.0;
	return true;
}

static bool
icmp_allowed(struct uf_ctlframes *cf, uint16_t pi, uint64_t ms)
{
	return bucket_take(&cf->icmp_tokens[pi], &cf->icmp_last_ms[pi], cf->cfg->control.icmp_rate,
			   ms);
}

/* an ARP reply or an NA answering an NS (docs/configuration.md#control) */
static bool
neigh_allowed(struct uf_ctlframes *cf, uint16_t pi, uint64_t ms)
{
	return bucket_take(&cf->neigh_tokens[pi], &cf->neigh_last_ms[pi],
			   cf->cfg->control.neigh_rate, ms);
}

/* The logical port of a frame a worker handed over: its device's port of the VLAN the
 * worker marked it with (a device with tagged ports, docs/configuration.md#vlans), else the
 * device's own. */
static uint16_t
ctl_port(const struct uf_ctlframes *cf, const struct uf_worker *w, const struct rte_mbuf *m)
{
	const struct uf_config *cfg = cf->cfg;
	uint16_t pi = w->port_idx[m->port], vid;
	int j;

	if (!(m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED))
		return pi;
	vid = m->vlan_tci & UF_VLAN_VID_MASK;
	for (j = 0; j < cfg->n_ports; j++)
		if (cfg->ports[j].dev == cfg->ports[pi].dev && cfg->ports[j].vlan == vid)
			return (uint16_t)j;
	return pi; /* the worker only marks a VLAN a port claims */
}

/* the counter of a failed check of uf_ndp_parse (docs/loss-accounting.md) */
static uint64_t *
ndp_bad(struct uf_ctl_ctr *c, enum uf_ndp_err e)
{
	switch (e) {
	case UF_NDP_HOP_LIMIT:
		return &c->ndp_bad_hop_limit;
	case UF_NDP_CKSUM:
		return &c->ndp_bad_cksum;
	case UF_NDP_CODE:
		return &c->ndp_bad_code;
	case UF_NDP_LEN:
		return &c->ndp_bad_len;
	case UF_NDP_TARGET_MCAST:
		return &c->ndp_bad_target_mcast;
	case UF_NDP_OPT_LEN:
		return &c->ndp_bad_opt_len;
	case UF_NDP_LLADDR:
		return &c->ndp_bad_lladdr;
	case UF_NDP_DAD_DST:
		return &c->ndp_bad_dad_dst;
	case UF_NDP_DAD_SLLA:
		return &c->ndp_bad_dad_slla;
	case UF_NDP_SOLICITED_MCAST:
		return &c->ndp_bad_solicited_mcast;
	default: /* NOT_ICMP6 (TYPE, SENDER, OK: not from uf_ndp_parse on an NS or NA) */
		return &c->ndp_bad_not_icmp6;
	}
}

/* Is A one of port cp's ip6? */
static bool
port_has_ip6(const struct uf_cfg_port *cp, const struct uf_ip6 *a)
{
	int i;

	for (i = 0; i < cp->n_ip6; i++)
		if (uf_ip6_eq(&cp->ip6[i], a))
			return true;
	return false;
}

/*
 * An NS or NA for port pi (docs/architecture.md#neighbour-discovery): an NS for one of its
 * ip6 is answered (a Solicited+Override NA to its sender; to all nodes, Override only, when
 * it came from :: for duplicate address detection) and its SLLA learned when its sender is
 * a tracked next hop; an NA about a tracked next hop is learned (uf_neigh_learn6). Each
 * frame lands in one counter of the ndp object. Returns true if a neighbour's MAC changed.
 */
static bool
handle_ndp(struct uf_ctlframes *cf, uint16_t wk, uint16_t pi, struct rte_mbuf *m, uint64_t ms)
{
	const struct uf_port *p = &cf->ports[pi];
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	struct uf_ndp_info n;
	enum uf_ndp_err err = uf_ndp_parse(f, m->data_len, &n);
	bool changed = false;
	int svc;

	if (err != UF_NDP_OK) {
		(*ndp_bad(cf->ctr, err))++;
		rte_pktmbuf_free(m);
		return false;
	}
	if (n.type == UF_ICMP6_NA) {
		int ni = uf_neigh_find6(cf->neigh, pi, &n.target);

		if (ni >= 0) {
			const struct uf_neigh *e = &cf->neigh->e[ni];
			const struct rte_ether_addr *lla = n.has_lla ? &n.lla : NULL;

			/* Linux answers our unicast NS (a FAILED entry's probe to the MAC it had)
			 * Solicited, without a TLLA option: from that MAC, it says the neighbour
			 * is back there (RFC 4861 7.2.5 treats a solicited NA in PROBE alike) */
			if (lla == NULL && (n.flags & UF_NA_SOLICITED) != 0 &&
			    e->state == UF_NS_FAILED && !rte_is_zero_ether_addr(&e->mac) &&
			    rte_is_same_ether_addr(&e->mac, &n.eth_src))
				lla = &n.eth_src;
			/* an unsolicited NA without TLLA says nothing new (RFC 4861 7.2.5) */
			if (lla == NULL && (n.flags & UF_NA_SOLICITED) == 0) {
				cf->ctr->ndp_ignored++;
				rte_pktmbuf_free(m);
				return false;
			}
			changed = uf_neigh_learn6(cf->neigh, pi, &n.target, lla,
						  (n.flags & UF_NA_OVERRIDE) != 0, ms);
			cf->ctr->ndp_na_learned++;
		} else {
			cf->ctr->ndp_ignored++; /* not a next hop of ours (or our own address) */
		}
		rte_pktmbuf_free(m);
		return changed;
	}
	/* an NS: its sender's SLLA is news of a tracked next hop (RFC 4861 7.2.3) */
	if (n.has_lla && !uf_ip6_is_unspec(&n.src))
		changed = uf_neigh_learn6(cf->neigh, pi, &n.src, &n.lla, true, ms);
	/* a service address: answered with `neighbor: answer` (as the port's own), else
	 * ignored (docs/configuration.md#service-addresses) */
	svc = port_has_ip6(p->cfg, &n.target)
			      ? -1
			      : uf_config_port_svc(&cf->cfg->ports[pi], true, 0, &n.target);
	if (!port_has_ip6(p->cfg, &n.target) && (svc < 0 || !cf->cfg->ports[pi].svc[svc].answer)) {
		cf->ctr->ndp_ignored++;
		rte_pktmbuf_free(m);
		return changed;
	}
	if (!neigh_allowed(cf, pi, ms)) { /* its SLLA is still learned (above) */
		cf->ctr->ndp_rate_limited++;
		rte_pktmbuf_free(m);
		return changed;
	}
	if (uf_ip6_is_unspec(&n.src)) { /* DAD: the answer goes to all nodes (RFC 4861 7.2.4) */
		struct uf_ip6 all;
		struct rte_ether_addr all_mac;
		uint16_t len;

		uf_ip6_all_nodes(&all);
		uf_ip6_mcast_mac(&all, &all_mac);
		len = uf_ndp_na_build(f, &p->mac, &n.target, &all, &all_mac, &n.target,
				      UF_NA_OVERRIDE);
		m->data_len = len;
		m->pkt_len = len;
	} else {
		/* to the sender, at the MAC its SLLA names (else the frame's source) */
		uint16_t len = uf_ndp_na_build(f, &p->mac, &n.target, &n.src,
					       n.has_lla ? &n.lla : &n.eth_src, &n.target,
					       UF_NA_SOLICITED | UF_NA_OVERRIDE);

		m->data_len = len;
		m->pkt_len = len;
	}
	cf->ctr->ndp_ns_answered++;
	ctl_send(cf, wk, pi, m);
	return changed;
}

/* An IPv6 frame a worker handed over (uf_classify6's UF_V_CONTROL: ICMPv6 to us or our
 * groups): NDP, or an echo request answered within the port's ICMP bucket. */
static bool
handle_ip6(struct uf_ctlframes *cf, uint16_t wk, uint16_t pi, struct rte_mbuf *m, uint64_t ms)
{
	const struct uf_port *p = &cf->ports[pi];
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	const uint32_t icmp = RTE_ETHER_HDR_LEN + UF_IP6_HDR;
	uint8_t type = 0;

	if (m->data_len > icmp && f[RTE_ETHER_HDR_LEN + UF_IP6_NXT] == IPPROTO_ICMPV6)
		type = f[icmp];
	if (type == UF_ICMP6_NS || type == UF_ICMP6_NA)
		return handle_ndp(cf, wk, pi, m, ms);
	if (type == UF_ICMP6_ECHO_REQUEST && cf->cfg->control.icmp_rate > 0 && p->cfg->n_ip6 > 0 &&
	    uf_icmp6_echo_reply(f, m->data_len, &p->mac, &p->cfg->ip6[0]) == UF_NDP_OK) {
		if (icmp_allowed(cf, pi, ms)) {
			cf->ctr->icmp6_echo_answered++;
			ctl_send(cf, wk, pi, m);
			return false;
		}
		cf->ctr->icmp6_rate_limited++;
		rte_pktmbuf_free(m);
		return false;
	}
	cf->ctr->icmp6_ignored++;
	rte_pktmbuf_free(m);
	return false;
}

/* One frame a worker handed over. Returns true if a neighbour's MAC changed. */
static bool
handle_ctl(struct uf_ctlframes *cf, uint16_t wk, struct rte_mbuf *m, uint64_t ms)
{
	struct uf_worker *w = cf->w[wk];
	uint16_t pi = ctl_port(cf, w, m);
	const struct uf_port *p = &cf->ports[pi];
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t etype;
	struct uf_arp_info a;
	bool changed = false, known;
	int svc;

	memcpy(&etype, f + 12, 2);
	if (etype == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
		return handle_ip6(cf, wk, pi, m, ms);
	if (etype == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP) &&
	    uf_arp_parse(f, m->data_len, &a) == 0) {
		known = uf_neigh_find(cf->neigh, pi, a.sip) >= 0;
		if (known)
			changed = uf_neigh_learn(cf->neigh, pi, a.sip, &a.sha, ms);
		/* a service address: answered with `neighbor: answer`, else ignored, as any
		 * request about another address (docs/configuration.md#service-addresses;
		 * the running config's: a reload changes them) */
		svc = a.op == RTE_ARP_OP_REQUEST && a.tip != p->cfg->ip
				      ? uf_config_port_svc(&cf->cfg->ports[pi], false, a.tip, NULL)
				      : -1;
		if (svc >= 0 && !cf->cfg->ports[pi].svc[svc].answer) {
			cf->ctr->arp_ignored++;
			rte_pktmbuf_free(m);
			return changed;
		}
		if (a.op == RTE_ARP_OP_REQUEST && (a.tip == p->cfg->ip || svc >= 0) &&
		    a.sip != a.tip) {
			uint16_t len;

			if (!neigh_allowed(cf, pi, ms)) { /* its sender still learned (above) */
				cf->ctr->arp_rate_limited++;
				rte_pktmbuf_free(m);
				return changed;
			}
			len = uf_arp_build(f, RTE_ARP_OP_REPLY, &a.sha, &p->mac, a.tip, &a.sha,
					   a.sip);
			m->data_len = len;
			m->pkt_len = len;
			cf->ctr->arp_requests_answered++;
			ctl_send(cf, wk, pi, m);
			return changed;
		}
		if (!known)
			cf->ctr->arp_ignored++;
		else if (a.op == RTE_ARP_OP_REPLY)
			cf->ctr->arp_replies_learned++;
		else if (a.sip == a.tip) /* its gratuitous ARP: learned above */
			cf->ctr->arp_gratuitous++;
		else /* a request about another address: uf_classify_arp hands none over */
			cf->ctr->arp_ignored++;
		rte_pktmbuf_free(m);
		return changed;
	}
	if (etype == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) && cf->cfg->control.icmp_rate > 0 &&
	    uf_icmp_echo_reply(f, m->data_len, &p->mac) == 0) {
		if (icmp_allowed(cf, pi, ms)) {
			cf->ctr->icmp_echo_answered++;
			ctl_send(cf, wk, pi, m);
			return false;
		}
		cf->ctr->icmp_rate_limited++;
		rte_pktmbuf_free(m);
		return false;
	}
	if (etype == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		cf->ctr->icmp_ignored++;
	else
		cf->ctr->arp_ignored++;
	rte_pktmbuf_free(m);
	return false;
}

bool
uf_ctlframes_poll(struct uf_ctlframes *cf, uint64_t ms)
{
	struct rte_mbuf *m[64];
	bool changed = false;
	unsigned int n, i;
	uint16_t k;

	for (k = 0; k < cf->n_workers; k++) {
		while ((n = rte_ring_sc_dequeue_burst(cf->w[k]->ctl_rx, (void **)m, RTE_DIM(m),
						      NULL)) > 0) {
			for (i = 0; i < n; i++)
				changed |= handle_ctl(cf, k, m[i], ms);
		}
	}
	return changed;
}

bool
uf_ctlframes_pending(const struct uf_ctlframes *cf)
{
	uint16_t k;

	for (k = 0; k < cf->n_workers; k++)
		if (!rte_ring_empty(cf->w[k]->ctl_rx))
			return true;
	return false;
}

void
uf_ctlframes_drain(struct uf_ctlframes *cf)
{
	uint16_t k;

	for (k = 0; k < cf->n_workers; k++) {
		struct rte_mbuf *m;

		while (rte_ring_sc_dequeue(cf->w[k]->ctl_rx, (void **)&m) == 0) {
			cf->ctr->ctl_unhandled++;
			rte_pktmbuf_free(m);
		}
		while (rte_ring_sc_dequeue(cf->w[k]->ctl_tx, (void **)&m) == 0) {
			cf->ctr->ctl_ring_full++;
			rte_pktmbuf_free(m);
		}
	}
}
