/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_arp.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "uf_ctlframes.h"

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
	for (i = 0; i < cfg->n_ports; i++)
		cf->icmp_tokens[i] = cfg->control.icmp_rate; /* a full bucket to start with */
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

static void
send_arp(struct uf_ctlframes *cf, uint16_t pi, uint16_t op, const struct rte_ether_addr *dst,
	 rte_be32_t tip)
{
	const struct uf_port *p = &cf->ports[pi];
	struct rte_mbuf *m = rte_pktmbuf_alloc(p->pool[0]);
	uint16_t len;

	if (m == NULL) {
		cf->ctr->ctl_nombuf++;
		return;
	}
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

void
uf_ctlframes_garp(struct uf_ctlframes *cf, uint16_t pi)
{
	if (!cf->cfg->arp.gratuitous)
		return;
	send_arp(cf, pi, RTE_ARP_OP_REQUEST, &bcast, cf->ports[pi].cfg->ip);
	cf->ctr->arp_gratuitous_sent++;
}

static bool
icmp_allowed(struct uf_ctlframes *cf, uint16_t pi, uint64_t ms)
{
	double rate = cf->cfg->control.icmp_rate;
	double t = cf->icmp_tokens[pi] + rate * (double)(ms - cf->icmp_last_ms[pi]) / 1000.0;

	cf->icmp_last_ms[pi] = ms;
	if (t > rate)
		t = rate;
	if (t < 1.0) {
		cf->icmp_tokens[pi] = t;
		return false;
	}
	cf->icmp_tokens[pi] = t - 1.0;
	return true;
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

	memcpy(&etype, f + 12, 2);
	if (etype == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP) &&
	    uf_arp_parse(f, m->data_len, &a) == 0) {
		known = uf_neigh_find(cf->neigh, pi, a.sip) >= 0;
		if (known)
			changed = uf_neigh_learn(cf->neigh, pi, a.sip, &a.sha, ms);
		if (a.op == RTE_ARP_OP_REQUEST && a.tip == p->cfg->ip && a.sip != a.tip) {
			uint16_t len = uf_arp_build(f, RTE_ARP_OP_REPLY, &a.sha, &p->mac,
						    p->cfg->ip, &a.sha, a.sip);

			m->data_len = len;
			m->pkt_len = len;
			cf->ctr->arp_requests_answered++;
			ctl_send(cf, wk, pi, m);
			return changed;
		}
		if (a.op == RTE_ARP_OP_REPLY && known)
			cf->ctr->arp_replies_learned++;
		else if (!known)
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
