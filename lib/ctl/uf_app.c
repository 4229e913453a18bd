/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <net/if.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_lpm.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include <rte_timer.h>

#include "uf_app.h"
#include "uf_env.h"
#include "uf_place.h"
#include "uf_tel.h"

#define CTL_RING_SIZE 1024
#define CTL_SLEEP_US 500
#define LINK_WAIT_MS_DEFAULT 5000
/* link state (docs/architecture.md, "Link state"): read this often on the control lcore,
 * and at once after a link-change interrupt */
#define LINK_POLL_MS 100
/* a port skipped for making no TX progress is tried again this often */
#define TX_PROBE_MS 100

static const struct rte_ether_addr bcast = { .addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
static const struct rte_ether_addr zero_mac;

static const char *
ip_str(rte_be32_t ip, char *buf)
{
	struct in_addr a = { .s_addr = ip };

	return inet_ntop(AF_INET, &a, buf, INET_ADDRSTRLEN);
}

static uint64_t
now_ms(const struct uf_app *app)
{
	return (rte_rdtsc() - app->start_tsc) * 1000 / rte_get_tsc_hz();
}

/* ---- plan ---- */

static int
publish_plan(struct uf_app *app)
{
	const struct uf_config *cfg = app->cfg;
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
		.dest_mac = app->dest_mac,
		.dest_resolved = app->dest_resolved,
		.lpm = app->lpm,
		.socket = app->ports[cfg->listen.port].socket,
	};
	struct uf_plan *np, *old;
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN], m[RTE_ETHER_ADDR_FMT_SIZE];
	int i;

	for (i = 0; i < cfg->n_ports; i++) {
		port_mac[i] = app->ports[i].mac;
		port_mtu[i] = app->ports[i].plan.mtu;
		port_chain[i] = app->ports[i].plan.chain_ok;
		port_chain_min[i] = app->ports[i].plan.chain_min_frame;
	}
	for (i = 0; i < cfg->n_dests; i++) {
		const struct uf_neigh *e;
		bool was;

		if (app->dest_neigh[i] < 0)
			continue;
		e = &app->neigh.e[app->dest_neigh[i]];
		was = app->dest_resolved[i];
		app->dest_resolved[i] = uf_neigh_usable(e);
		app->dest_mac[i] = e->mac;
		if (app->plan_version == 0 || was == app->dest_resolved[i])
			continue;
		rte_ether_format_addr(m, sizeof(m), &e->mac);
		if (app->dest_resolved[i])
			UF_LOG(INFO, "destination %s:%u: next hop %s is at %s",
			       ip_str(cfg->dests[i].ip, a), cfg->dests[i].udp_port,
			       ip_str(e->ip, b), m);
		else
			UF_LOG(WARNING,
			       "destination %s:%u: next hop %s does not answer ARP (%s); its "
			       "copies are dropped and counted as no_neighbor",
			       ip_str(cfg->dests[i].ip, a), cfg->dests[i].udp_port,
			       ip_str(e->ip, b), uf_neigh_state_name(e->state));
	}
	in.version = app->plan_version + 1;
	np = uf_plan_build(&in);
	if (np == NULL) {
		UF_LOG(ERR, "cannot build a new plan (%s); the old one stays",
		       rte_strerror(rte_errno));
		return -1;
	}
	app->plan_version = in.version;
	old = app->sh.plan;
	__atomic_store_n(&app->sh.plan, np, __ATOMIC_RELEASE);
	if (old != NULL) {
		/* every worker has moved past the old plan once each has been quiescent */
		rte_rcu_qsbr_synchronize(app->sh.qsbr, RTE_QSBR_THRID_INVALID);
		uf_plan_free(old);
		app->ctl.plan_updates++;
	}
	return 0;
}

/* ---- control frames ---- */

static void
ctl_send(struct uf_app *app, uint16_t wk, struct rte_mbuf *m)
{
	if (rte_ring_sp_enqueue(app->w[wk]->ctl_tx, m) != 0) {
		app->ctl.ctl_ring_full++;
		rte_pktmbuf_free(m);
	}
}

static void
send_arp(struct uf_app *app, uint16_t pi, uint16_t op, const struct rte_ether_addr *dst,
	 rte_be32_t tip)
{
	struct uf_port *p = &app->ports[pi];
	struct rte_mbuf *m = rte_pktmbuf_alloc(p->pool[0]);
	uint16_t len;

	if (m == NULL) {
		app->ctl.ctl_nombuf++;
		return;
	}
	len = uf_arp_build(rte_pktmbuf_mtod(m, uint8_t *), op, dst, &p->mac, p->cfg->ip, &zero_mac,
			   tip);
	m->data_len = len;
	m->pkt_len = len;
	m->port = p->port_id;
	/* worker 0 sends it on queue 0: the mbuf comes from that queue's pool */
	ctl_send(app, 0, m);
}

static void
neigh_send_cb(void *arg, uint16_t port, rte_be32_t ip, const struct rte_ether_addr *mac)
{
	struct uf_app *app = arg;

	send_arp(app, port, RTE_ARP_OP_REQUEST, mac != NULL ? mac : &bcast, ip);
	app->ctl.arp_requests_sent++;
}

static void
send_garp(struct uf_app *app, uint16_t pi)
{
	if (!app->cfg->arp.gratuitous)
		return;
	send_arp(app, pi, RTE_ARP_OP_REQUEST, &bcast, app->ports[pi].cfg->ip);
	app->ctl.arp_gratuitous_sent++;
}

static bool
icmp_allowed(struct uf_app *app, uint16_t pi, uint64_t ms)
{
	double rate = app->cfg->control.icmp_rate;
	double t = app->icmp_tokens[pi] + rate * (double)(ms - app->icmp_last_ms[pi]) / 1000.0;

	app->icmp_last_ms[pi] = ms;
	if (t > rate)
		t = rate;
	if (t < 1.0) {
		app->icmp_tokens[pi] = t;
		return false;
	}
	app->icmp_tokens[pi] = t - 1.0;
	return true;
}

/* One frame a worker handed over. Returns true if a neighbour's MAC changed. */
static bool
handle_ctl(struct uf_app *app, uint16_t wk, struct rte_mbuf *m, uint64_t ms)
{
	struct uf_worker *w = app->w[wk];
	uint16_t pi = w->port_idx[m->port];
	struct uf_port *p = &app->ports[pi];
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t etype;
	struct uf_arp_info a;
	bool changed = false, known;

	memcpy(&etype, f + 12, 2);
	if (etype == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP) &&
	    uf_arp_parse(f, m->data_len, &a) == 0) {
		known = uf_neigh_find(&app->neigh, pi, a.sip) >= 0;
		if (known)
			changed = uf_neigh_learn(&app->neigh, pi, a.sip, &a.sha, ms);
		if (a.op == RTE_ARP_OP_REQUEST && a.tip == p->cfg->ip && a.sip != a.tip) {
			uint16_t len = uf_arp_build(f, RTE_ARP_OP_REPLY, &a.sha, &p->mac,
						    p->cfg->ip, &a.sha, a.sip);

			m->data_len = len;
			m->pkt_len = len;
			app->ctl.arp_requests_answered++;
			ctl_send(app, wk, m);
			return changed;
		}
		if (a.op == RTE_ARP_OP_REPLY && known)
			app->ctl.arp_replies_learned++;
		else if (!known)
			app->ctl.arp_ignored++;
		rte_pktmbuf_free(m);
		return changed;
	}
	if (etype == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) && app->cfg->control.icmp_rate > 0 &&
	    uf_icmp_echo_reply(f, m->data_len, &p->mac) == 0) {
		if (icmp_allowed(app, pi, ms)) {
			app->ctl.icmp_echo_answered++;
			m->ol_flags = 0;
			ctl_send(app, wk, m);
			return false;
		}
		app->ctl.icmp_rate_limited++;
		rte_pktmbuf_free(m);
		return false;
	}
	if (etype == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		app->ctl.icmp_ignored++;
	else
		app->ctl.arp_ignored++;
	rte_pktmbuf_free(m);
	return false;
}

static void handle_resets(struct uf_app *app);
static void check_links(struct uf_app *app);

static void
ctl_tick(struct uf_app *app)
{
	struct rte_mbuf *m[64];
	uint64_t ms = now_ms(app);
	bool changed = false;
	unsigned int n, i;
	uint16_t k;

	for (k = 0; k < app->n_workers; k++) {
		while ((n = rte_ring_sc_dequeue_burst(app->w[k]->ctl_rx, (void **)m, RTE_DIM(m),
						      NULL)) > 0) {
			for (i = 0; i < n; i++)
				changed |= handle_ctl(app, k, m[i], ms);
		}
	}
	changed |= uf_neigh_tick(&app->neigh, ms, neigh_send_cb, app);
	if (changed)
		publish_plan(app);
	handle_resets(app);
	if (ms >= app->next_link_ms ||
	    __atomic_exchange_n(&app->lsc_pending, 0, __ATOMIC_ACQ_REL)) {
		app->next_link_ms = ms + LINK_POLL_MS;
		check_links(app);
	}
	if (app->timers)
		rte_timer_manage();
}

/* ---- port resets ---- */

static int
on_reset_event(uint16_t port_id, enum rte_eth_event_type type, void *arg, void *ret_param)
{
	struct uf_app *app = arg;
	int i;

	(void)type;
	(void)ret_param;
	for (i = 0; i < app->cfg->n_ports; i++)
		if (app->ports[i].port_id == port_id)
			__atomic_store_n(&app->reset_pending[i], 1, __ATOMIC_RELEASE);
	return 0;
}

/* RTE_ETH_EVENT_INTR_LSC runs on the interrupt thread: note it, the control lcore acts */
static int
on_lsc_event(uint16_t port_id, enum rte_eth_event_type type, void *arg, void *ret_param)
{
	struct uf_app *app = arg;

	(void)port_id;
	(void)type;
	(void)ret_param;
	__atomic_store_n(&app->lsc_pending, 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&app->lsc_events, 1, __ATOMIC_RELAXED);
	return 0;
}

void
uf_app_request_reset(struct uf_app *app, int port)
{
	__atomic_store_n(&app->reset_pending[port], 1, __ATOMIC_RELEASE);
}

/* Pause every worker, reset the port, bring it back, resume. The control lcore is the only
 * one that touches a port's configuration; workers wait without touching any queue. */
static void
handle_resets(struct uf_app *app)
{
	/* no link wait with every worker paused: the link poll (or the LSC event) sees the
	 * link come back and runs the link-up actions */
	struct uf_port_opts po = { .link_wait_ms = 0 };
	struct uf_err err;
	bool paused = false;
	int i, k;

	for (i = 0; i < app->cfg->n_ports; i++) {
		uint64_t deadline;

		if (!__atomic_exchange_n(&app->reset_pending[i], 0, __ATOMIC_ACQ_REL))
			continue;
		if (!paused) {
			bool all = true;

			__atomic_store_n(&app->sh.pause, 1, __ATOMIC_RELEASE);
			deadline = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();
			for (k = 0; k < app->n_workers; k++) {
				while (!__atomic_load_n(&app->w[k]->paused, __ATOMIC_ACQUIRE) &&
				       rte_get_tsc_cycles() < deadline)
					rte_pause();
				all &= __atomic_load_n(&app->w[k]->paused, __ATOMIC_ACQUIRE) != 0;
			}
			paused = true;
			if (!all) {
				/* resetting under a worker still polling would be a crash; stop */
				uf_err_set(&app->fail, UF_EXIT_OTHER,
					   "port %s: a worker did not pause "
					   "within 5 s for the reset; stopping",
					   app->ports[i].cfg->name);
				app->failed = true;
				__atomic_store_n(&app->sh.no_tx, 1, __ATOMIC_RELEASE);
				uf_app_request_stop(app);
				break;
			}
		}
		UF_LOG(WARNING, "port %s: resetting (device reset event or request)",
		       app->ports[i].cfg->name);
		if (uf_port_reset(&app->ports[i], app->cfg, &po, &err) != 0) {
			UF_LOG(ERR, "%s; stopping", err.msg);
			app->fail = err;
			app->failed = true;
			/* the port may be down for good: what workers still hold is freed, not sent */
			__atomic_store_n(&app->sh.no_tx, 1, __ATOMIC_RELEASE);
			uf_app_request_stop(app);
			break;
		}
		UF_LOG(WARNING, "port %s: reset done, forwarding again", app->ports[i].cfg->name);
		/* as if the link had been down: the next link check logs it and runs the
		 * link-up actions (gratuitous ARP, neighbour refresh) once it is up */
		app->link_was_up[i] = false;
		app->next_link_ms = 0;
	}
	if (paused)
		__atomic_store_n(&app->sh.pause, 0, __ATOMIC_RELEASE);
}

/* ---- stats ---- */

void
uf_app_snapshot(struct uf_app *app, struct uf_snap *s, bool final)
{
	const struct uf_config *cfg = app->cfg;
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz();
	struct timespec ts;
	char fault[128];
	int i, k, ret;

	memset(&s->tot, 0, sizeof(s->tot));
	clock_gettime(CLOCK_REALTIME, &ts);
	s->time = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	s->interval_s = (double)(now - app->prev_snap_tsc) / (double)hz;
	s->uptime_s = (double)(now - app->start_tsc) / (double)hz;
	app->prev_snap_tsc = now;
	s->final = final;
	s->plan_version = app->plan_version;
	s->tsc_hz = hz;
	s->ctl = app->ctl;

	s->n_lcores = app->n_workers;
	for (k = 0; k < app->n_workers; k++) {
		struct uf_lcore_ctr one;

		memset(&one, 0, sizeof(one));
		uf_ctr_add(&one, &app->w[k]->ctr);
		uf_ctr_add(&s->tot, &app->w[k]->ctr);
		s->lc[k].lcore = app->worker_lcore[k];
		s->lc[k].rx = one.rx;
		s->lc[k].tx = one.tx_ok + one.ctl_tx_ok;
		s->lc[k].busy_cycles = one.busy_cycles;
		s->lc[k].total_cycles = one.total_cycles;
	}

	s->n_dests = cfg->n_dests;
	for (i = 0; i < cfg->n_dests; i++) {
		struct uf_snap_dest *d = &s->dests[i];
		const struct uf_cfg_dest *cd = &cfg->dests[i];

		memset(d, 0, sizeof(*d));
		d->ip = cd->ip;
		d->udp_port = cd->udp_port;
		snprintf(d->port, sizeof(d->port), "%s", cfg->ports[cd->port].name);
		d->mac = app->dest_mac[i];
		d->next_hop = cd->ip;
		if (app->dest_neigh[i] >= 0) {
			const struct uf_neigh *e = &app->neigh.e[app->dest_neigh[i]];

			d->state = uf_neigh_state_name(e->state);
			d->next_hop = e->ip;
			d->mac = e->mac;
		} else {
			d->state = uf_ipv4_is_mcast(rte_be_to_cpu_32(cd->ip)) ? "multicast"
									      : "static";
		}
		for (k = 0; k < app->n_workers; k++)
			uf_dest_ctr_add(&d->c, &app->w[k]->dctr[i]);
	}

	s->n_ports = cfg->n_ports;
	for (i = 0; i < cfg->n_ports; i++) {
		struct uf_port *p = &app->ports[i];
		struct uf_snap_port *sp = &s->ports[i];

		snprintf(sp->name, sizeof(sp->name), "%s", p->cfg->name);
		snprintf(sp->driver, sizeof(sp->driver), "%s", p->info.driver_name);
		snprintf(sp->steering, sizeof(sp->steering), "%s", p->steering);
		sp->resets = p->resets;
		sp->reset_retries = p->reset_retries;
		sp->fault_resets = p->fault_resets;
		sp->rx_before_ready = p->rx_before_ready;
		memset(&sp->st, 0, sizeof(sp->st));
		sp->stats_ok = rte_eth_stats_get(p->port_id, &sp->st) == 0;
		sp->link_up = app->link_was_up[i];
		sp->link_downs = p->link_downs;
		sp->tx_stalled = app->tx_stalled[i];
		sp->n_xstats = RTE_MIN(p->n_xstats, UF_SNAP_XSTATS);
		ret = uf_port_xstats(p, sp->xvals, sp->xvalid, fault, sizeof(fault));
		if (ret < 0)
			sp->n_xstats = 0;
		if (ret == 1 && !final) {
			/* the PMD broke a queue and waits for a reset it will not signal (ENA) */
			UF_LOG(ERR, "port %s: %s rose: requesting a port reset", p->cfg->name,
			       fault);
			p->fault_resets++;
			uf_app_request_reset(app, i);
		}
		for (k = 0; k < sp->n_xstats; k++)
			sp->xnames[k] = p->xstat_names[k];
		sp->has_xsk = p->n_xsk > 0 && uf_xsk_query(p->xsk_fd, p->n_xsk, &sp->xsk) == 0;
		sp->has_pktsock = p->n_pktsock > 0;
		if (sp->has_pktsock) {
			struct uf_pktsock_info pi;

			if (uf_pktsock_query(p->pktsock_fd, p->n_pktsock, &pi) == 0) {
				p->pkt_packets += pi.packets;
				p->pkt_drops += pi.drops;
			}
			sp->pktsock_n = p->n_pktsock;
			sp->pktsock_packets = p->pkt_packets;
			sp->pktsock_drops = p->pkt_drops;
		}
		snprintf(sp->xdp_mode, sizeof(sp->xdp_mode), "%s", p->xdp_mode);
	}
}

/* Is any worker skipping port pi for making no TX progress? (relaxed reads) */
static bool
tx_stalled(const struct uf_app *app, int pi)
{
	int k;

	for (k = 0; k < app->n_workers; k++)
		if (__atomic_load_n(&app->w[k]->txb[pi].stalled, __ATOMIC_RELAXED))
			return true;
	return false;
}

/* Every LINK_POLL_MS and after an LSC event: each port's link as udpfan trusts it
 * (uf_port_link_get), published to the workers (link_down), logged once per change; on up,
 * the link-up actions. */
static void
check_links(struct uf_app *app)
{
	int i;

	for (i = 0; i < app->cfg->n_ports; i++) {
		struct uf_port *p = &app->ports[i];
		struct rte_eth_link link;
		bool up = uf_port_link_get(p, &link), st;

		__atomic_store_n(&app->sh.link_down[i], up ? 0 : 1, __ATOMIC_RELEASE);
		if (up && !app->link_was_up[i]) {
			/* workers that marked the port stalled try it again */
			__atomic_fetch_add(&app->sh.link_gen[i], 1, __ATOMIC_RELEASE);
			UF_LOG(INFO, "port %s: link up%s", p->cfg->name,
			       p->plan.lsc                ? " (link-change interrupt)"
			       : p->plan.link_from_kernel ? " (kernel interface)"
							  : "");
			send_garp(app, (uint16_t)i);
			uf_neigh_port_up(&app->neigh, (uint16_t)i, now_ms(app));
		} else if (!up && app->link_was_up[i]) {
			p->link_downs++;
			UF_LOG(WARNING,
			       "port %s: link down; its copies are dropped and counted as "
			       "tx_drop.link_down until it is back",
			       p->cfg->name);
		}
		app->link_was_up[i] = up;
		st = tx_stalled(app, i);
		if (st && !app->tx_stalled[i])
			UF_LOG(WARNING,
			       "port %s: TX made no progress for %u ms: skipped, its copies "
			       "counted as tx_drop.link_down, tried again every %u ms",
			       p->cfg->name, app->cfg->fwd.tx_stall_ms, TX_PROBE_MS);
		else if (!st && app->tx_stalled[i])
			UF_LOG(INFO, "port %s: TX makes progress again", p->cfg->name);
		app->tx_stalled[i] = st;
	}
}

/*
 * Frames the host's settings put on the wire and udpfan does not take (docs/pmd-quirks.md,
 * docs/loss-accounting.md): say which setting, from the control lcore, when the counter
 * first rises and then at most every HINT_REPEAT_S while it keeps rising.
 */
#define HINT_REPEAT_S 600

static void
port_ifnames(const struct uf_app *app, char *buf, size_t len)
{
	size_t o = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < app->cfg->n_ports && o < len; i++) {
		const struct uf_port *p = &app->ports[i];
		char ifn[IF_NAMESIZE] = "";

		if (p->quirk->kernel_sock != UF_KSOCK_NONE && p->info.if_index != 0 &&
		    if_indextoname(p->info.if_index, ifn) == NULL)
			ifn[0] = '\0';
		o += (size_t)snprintf(buf + o, len - o, "%s%s%s%s%s", i ? ", " : "", p->cfg->name,
				      ifn[0] ? " (interface " : "", ifn, ifn[0] ? ")" : "");
	}
}

static void
wire_hints(struct uf_app *app, const struct uf_snap *s)
{
	static const enum uf_drop why[] = { UF_DROP_GRO_COALESCED, UF_DROP_VLAN_TAGGED,
					    UF_DROP_TOO_LONG };
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz();
	char ports[256];
	unsigned int i;

	for (i = 0; i < RTE_DIM(why); i++) {
		const enum uf_drop r = why[i];
		const uint64_t n = s->tot.drop[r];

		if (n <= app->hint_told[r] ||
		    (app->hint_told[r] != 0 && now - app->hint_tsc[r] < HINT_REPEAT_S * hz))
			continue;
		port_ifnames(app, ports, sizeof(ports));
		switch (r) {
		case UF_DROP_GRO_COALESCED:
			UF_LOG(WARNING,
			       "%" PRIu64 " UDP frames longer than the MTU arrived on %s and were "
			       "dropped (drop.gro_coalesced): several datagrams joined into one, "
			       "their boundaries lost. A local sender's GSO (UDP_SEGMENT) crosses "
			       "veth and bridges whole: 'ethtool -K <the veth peer or bridge port "
			       "that sends to udpfan> tx-udp-segmentation off'; the interface's "
			       "GRO: 'ethtool -K <interface> rx-udp-gro-forwarding off rx-gro-list "
			       "off' (docs/pmd-quirks.md)",
			       n, ports);
			break;
		case UF_DROP_VLAN_TAGGED:
			UF_LOG(WARNING,
			       "%" PRIu64 " 802.1Q/802.1ad-tagged frames arrived on %s and were "
			       "dropped (drop.vlan_tagged): udpfan's ports are untagged. Send "
			       "untagged, or give udpfan a kernel VLAN interface ('ip link add link "
			       "<if> name <if>.<id> type vlan id <id>') through net_af_xdp or "
			       "net_af_packet",
			       n, ports);
			break;
		default:
			UF_LOG(WARNING,
			       "%" PRIu64 " frames longer than the port's MTU arrived on %s and "
			       "were dropped (drop.too_long): a jumbo sender, or LRO/GRO on the "
			       "interface ('ethtool -K <interface> lro off gro off'); or set "
			       "ports[].mtu to the sender's",
			       n, ports);
			break;
		}
		app->hint_told[r] = n;
		app->hint_tsc[r] = now;
	}
}

static void
stats_tick(struct uf_app *app, bool final)
{
	struct uf_snap *s = &app->snap[app->cur], *prev = &app->snap[app->cur ^ 1];
	char line[512];

	uf_app_snapshot(app, s, final);
	wire_hints(app, s);
	if (app->opts.human != NULL && !final) {
		uf_stats_line(line, sizeof(line), s, prev->time != 0 ? prev : NULL);
		fprintf(app->opts.human, "%s\n", line);
		fflush(app->opts.human);
	}
	if (app->json != NULL) {
		uf_stats_json(app->json, s);
		fflush(app->json);
	}
	pthread_mutex_lock(&app->tel_lock);
	app->tel_snap = *s;
	app->tel_ready = true;
	pthread_mutex_unlock(&app->tel_lock);
	app->cur ^= 1;
}

/* ENA pushes TX descriptors through BAR2 (LLQ): uncached, every push is a slow PCI write */
static int
check_llq_wc(const struct uf_port *p, struct uf_err *err)
{
	char val[16], path[512];
	uint64_t bar;

	if (!p->quirk->llq_wc_bar2 || !p->cfg->is_pci)
		return 0;
	if (uf_devarg(p->cfg->device, "enable_llq", val, sizeof(val)) && val[0] == '0') {
		UF_LOG(WARNING,
		       "port %s: LLQ disabled (enable_llq=0): on 6th-generation instances "
		       "and newer this costs much of the throughput",
		       p->cfg->name);
		return 0;
	}
	if (uf_pci_bar_phys(p->cfg->dev_name, 2, &bar) != 0) {
		UF_LOG(NOTICE, "port %s: cannot read BAR2 of %s; write-combining not verified",
		       p->cfg->name, p->cfg->dev_name);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/kernel/debug/x86/pat_memtype_list", uf_env_sysfs_root());
	switch (uf_wc_check(path, bar)) {
	case 1:
		UF_LOG(INFO, "port %s: LLQ BAR2 at 0x%" PRIx64 " is write-combining", p->cfg->name,
		       bar);
		return 0;
	case 0:
		uf_err_set(err, UF_EXIT_ENV,
			   "port %s: the ENA LLQ BAR2 at 0x%" PRIx64 " is mapped "
			   "uncached, not write-combining: every TX descriptor push would be a "
			   "slow PCI write. Bind the ENI to a vfio-pci built with write-combining "
			   "(amzn-drivers get-vfio-with-wc.sh) or to igb_uio with wc_activate=1 "
			   "(docs/deployment.md); enable_llq=0 in the device string runs without "
			   "LLQ instead",
			   p->cfg->name, bar);
		return -1;
	default:
		UF_LOG(NOTICE,
		       "port %s: cannot tell whether LLQ BAR2 is write-combining (mount "
		       "debugfs: mount -t debugfs none /sys/kernel/debug)",
		       p->cfg->name);
		return 0;
	}
}

/* ---- life cycle ---- */

static void
place_warn(void *arg, const char *msg)
{
	(void)arg;
	UF_LOG(WARNING, "placement: %s", msg);
}

/* the first CPU an lcore may run on (rte_lcore_to_cpu_id gives the core's topology id) */
static int
lcore_cpu(unsigned int lcore)
{
	rte_cpuset_t set = rte_lcore_cpuset(lcore);
	int cpu;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

static void
check_placement(struct uf_app *app)
{
	struct uf_place pl;
	int i;

	memset(&pl, 0, sizeof(pl));
	pl.main_cpu = lcore_cpu(rte_get_main_lcore());
	pl.n_workers = app->n_workers;
	for (i = 0; i < app->n_workers; i++) {
		pl.worker_cpu[i] = lcore_cpu(app->worker_lcore[i]);
		pl.worker_socket[i] = (int)rte_lcore_to_socket_id(app->worker_lcore[i]);
	}
	pl.n_ports = app->cfg->n_ports;
	for (i = 0; i < app->cfg->n_ports; i++) {
		/* a vdev has no socket of its own (it follows the caller's) */
		pl.port_socket[i] = app->ports[i].cfg->is_pci ? app->ports[i].socket : -1;
		pl.port_name[i] = app->ports[i].cfg->name;
	}
	uf_placement_check(&pl, NULL, place_warn, NULL);
}

static int
init_worker(struct uf_app *app, uint16_t k, struct uf_err *err)
{
	const struct uf_config *cfg = app->cfg;
	unsigned int lcore = app->worker_lcore[k];
	int socket = (int)rte_lcore_to_socket_id(lcore);
	char name[RTE_RING_NAMESIZE];
	struct uf_worker *w;
	int i;

	w = rte_zmalloc_socket("uf_worker", sizeof(*w), RTE_CACHE_LINE_SIZE, socket);
	if (w == NULL) {
		uf_err_set(err, UF_EXIT_ENV, "cannot allocate worker %u on socket %d", k, socket);
		return -ENOMEM;
	}
	app->w[k] = w;
	w->id = k;
	w->lcore = (uint16_t)lcore;
	w->n_ports = (uint16_t)cfg->n_ports;
	w->burst = cfg->fwd.burst;
	w->tx_retries = cfg->fwd.tx_retries;
	w->drain_tsc = rte_get_tsc_hz() * cfg->fwd.drain_us / 1000000;
	w->shared = &app->sh;
	uf_worker_link_init(w, cfg->fwd.tx_stall_ms, TX_PROBE_MS);
	w->copy_pool = app->ports[cfg->listen.port].pool[k];
	w->hdr_pool = app->ports[cfg->listen.port].hdr_pool[k];
	snprintf(name, sizeof(name), "uf_crx%u", k);
	w->ctl_rx = rte_ring_create(name, CTL_RING_SIZE, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "uf_ctx%u", k);
	w->ctl_tx = rte_ring_create(name, CTL_RING_SIZE, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (w->ctl_rx == NULL || w->ctl_tx == NULL) {
		uf_err_set(err, UF_EXIT_ENV, "cannot create control rings: %s",
			   rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (i = 0; i < cfg->n_ports; i++) {
		const struct uf_port *p = &app->ports[i];

		w->port_idx[p->port_id] = (uint8_t)i;
		w->ports[i].port_id = p->port_id;
		w->ports[i].id.mac = p->mac;
		w->ports[i].id.ip = p->cfg->ip;
		w->ports[i].id.listen = i == cfg->listen.port;
		w->ports[i].id.partial_csum = p->plan.partial_csum;
		w->ports[i].id.listen_udp = rte_cpu_to_be_16(cfg->listen.udp_port);
		w->ports[i].id.max_len = uf_port_max_len(p->plan.mtu);
		w->txb[i].port_id = p->port_id;
		w->txb[i].pad_to = p->plan.pad_to;
		if (p->socket != socket)
			UF_LOG(WARNING,
			       "worker %u runs on lcore %u (socket %d) but port %s is on "
			       "socket %d: every packet crosses the interconnect; pick lcores "
			       "on socket %d",
			       k, lcore, socket, p->cfg->name, p->socket, p->socket);
	}
	return 0;
}

int
uf_app_init(struct uf_app *app, const struct uf_config *cfg, const struct uf_app_opts *o,
	    struct uf_err *err)
{
	struct uf_port_opts po;
	struct uf_neigh_params np = {
		.reachable_ms = cfg->arp.reachable_s * 1000,
		.retry_ms = cfg->arp.retry_ms,
		.max_probes = cfg->arp.max_probes,
	};
	unsigned int lcore;
	size_t sz;
	int i, ret;

	memset(app, 0, sizeof(*app));
	app->cfg = cfg;
	app->opts = *o;
	pthread_mutex_init(&app->tel_lock, NULL);
	app->start_tsc = app->prev_snap_tsc = rte_rdtsc();
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (app->n_workers >= UF_MAX_WORKERS)
			break;
		app->worker_lcore[app->n_workers++] = (uint16_t)lcore;
	}
	if (app->n_workers == 0) {
		uf_err_set(err, UF_EXIT_CONFIG, "%s: eal.lcores gives no worker lcore", cfg->path);
		return -EINVAL;
	}
	rte_timer_subsystem_init();

	sz = rte_rcu_qsbr_get_memsize(app->n_workers);
	app->sh.qsbr = rte_zmalloc("uf_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (app->sh.qsbr == NULL || rte_rcu_qsbr_init(app->sh.qsbr, app->n_workers) != 0) {
		uf_err_set(err, UF_EXIT_ENV, "cannot set up RCU for %u workers", app->n_workers);
		return -ENOMEM;
	}

	memset(&po, 0, sizeof(po));
	po.nb_workers = app->n_workers;
	po.burst = cfg->fwd.burst;
	po.n_dests = (uint16_t)cfg->n_dests;
	po.want_chain = uf_plan_may_chain(cfg);
	po.chain_forced = cfg->fwd.fanout == UF_FANOUT_CHAIN;
	po.link_wait_ms = o->link_wait_ms != 0 ? o->link_wait_ms : LINK_WAIT_MS_DEFAULT;
	for (i = 0; i < cfg->n_ports; i++) {
		ret = uf_port_init(&app->ports[i], cfg, (uint16_t)i, &po, err);
		app->n_ports_up = i + 1;
		if (ret != 0)
			return ret;
		if (app->ports[i].quirk->needs_timer_manage)
			app->timers = true;
	}

	if (cfg->n_rules > 0) {
		app->lpm = uf_rules_lpm(cfg, app->ports[cfg->listen.port].socket);
		if (app->lpm == NULL) {
			uf_err_set(err, UF_EXIT_ENV, "cannot build the rule table: %s",
				   rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}

	uf_neigh_init(&app->neigh, &np);
	for (i = 0; i < cfg->n_dests; i++) {
		const struct uf_cfg_dest *d = &cfg->dests[i];

		app->dest_neigh[i] = -1;
		if (uf_ipv4_is_mcast(rte_be_to_cpu_32(d->ip))) {
			uf_mcast_mac(d->ip, &app->dest_mac[i]);
			app->dest_resolved[i] = true;
		} else if (d->has_mac) {
			app->dest_mac[i] = d->mac;
			app->dest_resolved[i] = true;
		} else {
			app->dest_neigh[i] = uf_neigh_add(&app->neigh, d->port, uf_next_hop(cfg, d),
							  NULL, 0);
			if (app->dest_neigh[i] < 0) {
				uf_err_set(err, UF_EXIT_CONFIG,
					   "%s: more than %d distinct next hops", cfg->path,
					   UF_NEIGH_MAX);
				return -ENOSPC;
			}
		}
	}

	for (i = 0; i < app->n_workers; i++) {
		ret = init_worker(app, (uint16_t)i, err);
		if (ret != 0)
			return ret;
	}
	check_placement(app);
	if (publish_plan(app) != 0) {
		uf_err_set(err, UF_EXIT_ENV, "cannot build the fan-out plan: out of memory");
		return -ENOMEM;
	}
	return 0;
}

void
uf_app_request_stop(struct uf_app *app)
{
	__atomic_store_n(&app->sh.quit, 1, __ATOMIC_RELAXED);
}

void
uf_app_request_reload(struct uf_app *app)
{
	__atomic_store_n(&app->reload_pending, 1, __ATOMIC_RELAXED);
}

static void
answer_reload(struct uf_app *app)
{
	if (!__atomic_exchange_n(&app->reload_pending, 0, __ATOMIC_RELAXED))
		return;
	if (app->opts.on_reload != NULL)
		app->opts.on_reload(app, app->opts.reload_arg);
	else
		UF_LOG(NOTICE, "SIGHUP: reload is not implemented yet; ignored");
}

int
uf_app_run(struct uf_app *app, struct uf_err *err)
{
	const struct uf_config *cfg = app->cfg;
	const char *json = app->opts.stats_json != NULL ? app->opts.stats_json : cfg->stats.json;
	uint64_t hz = rte_get_tsc_hz(), interval, next, end = 0;
	struct uf_port_opts po = { .link_wait_ms = app->opts.link_wait_ms ? app->opts.link_wait_ms
									  : LINK_WAIT_MS_DEFAULT };
	struct timespec nap = { .tv_nsec = CTL_SLEEP_US * 1000 };
	uint16_t k;
	int i, ret;

	if (json != NULL && json[0] != '\0') {
		app->json = fopen(json, "a");
		if (app->json == NULL) {
			uf_err_set(err, UF_EXIT_ENV, "cannot open the stats file %s: %s", json,
				   strerror(errno));
			return -1;
		}
	}
	for (i = 0; i < cfg->n_ports; i++) {
		ret = uf_port_start(&app->ports[i], cfg, &po, err);
		if (ret != 0)
			return -1;
		app->link_was_up[i] = app->ports[i].link_up;
		app->sh.link_down[i] = app->ports[i].link_up ? 0 : 1;
		if (check_llq_wc(&app->ports[i], err) != 0)
			return -1;
		if (app->ports[i].plan.lsc &&
		    rte_eth_dev_callback_register(app->ports[i].port_id, RTE_ETH_EVENT_INTR_LSC,
						  on_lsc_event, app) != 0)
			UF_LOG(NOTICE, "port %s: cannot register for link-change events; polled",
			       app->ports[i].cfg->name);
		if (app->ports[i].quirk->reset_event)
			rte_eth_dev_callback_register(app->ports[i].port_id,
						      RTE_ETH_EVENT_INTR_RESET, on_reset_event,
						      app);
	}
	uf_tel_register(app);

	for (k = 0; k < app->n_workers; k++) {
		ret = rte_eal_remote_launch(uf_worker_main, app->w[k], app->worker_lcore[k]);
		if (ret != 0) {
			uf_err_set(err, UF_EXIT_OTHER, "cannot launch worker %u on lcore %u: %s", k,
				   app->worker_lcore[k], rte_strerror(-ret));
			uf_app_request_stop(app);
			rte_eal_mp_wait_lcore();
			return -1;
		}
	}
	for (i = 0; i < cfg->n_ports; i++) {
		app->icmp_tokens[i] = cfg->control.icmp_rate; /* a full bucket to start with */
		if (app->link_was_up[i])
			send_garp(app, (uint16_t)i);
	}

	app->start_tsc = app->prev_snap_tsc = rte_rdtsc();
	interval = (uint64_t)(cfg->stats.interval_s * (double)hz);
	next = app->start_tsc + interval;
	if (app->opts.duration_s > 0)
		end = app->start_tsc + (uint64_t)(app->opts.duration_s * (double)hz);

	while (!__atomic_load_n(&app->sh.quit, __ATOMIC_RELAXED)) {
		uint64_t now;

		ctl_tick(app);
		answer_reload(app);
		now = rte_rdtsc();
		if (now >= next) {
			stats_tick(app, false);
			next += interval;
			if (next < now)
				next = now + interval;
		}
		if (end != 0 && now >= end)
			break;
		nanosleep(&nap, NULL);
	}
	uf_app_request_stop(app);
	rte_eal_mp_wait_lcore();

	/* what the workers handed over last is answered no more, but it is freed and counted:
	 * fwd.control is every frame handed over, so each one lands in a control counter
	 * (docs/loss-accounting.md#control-plane-counters) */
	for (k = 0; k < app->n_workers; k++) {
		struct rte_mbuf *m;

		while (rte_ring_sc_dequeue(app->w[k]->ctl_rx, (void **)&m) == 0) {
			app->ctl.ctl_unhandled++;
			rte_pktmbuf_free(m);
		}
		while (rte_ring_sc_dequeue(app->w[k]->ctl_tx, (void **)&m) == 0) {
			app->ctl.ctl_ring_full++;
			rte_pktmbuf_free(m);
		}
	}
	stats_tick(app, true);
	if (app->opts.human != NULL)
		uf_stats_ledger(app->opts.human, &app->snap[app->cur ^ 1]);
	if (app->failed) {
		*err = app->fail;
		return -1;
	}
	return 0;
}

void
uf_app_fini(struct uf_app *app)
{
	int i;

	uf_tel_unregister(app);
	for (i = 0; i < app->n_ports_up; i++) {
		if (app->ports[i].quirk != NULL && app->ports[i].plan.lsc)
			rte_eth_dev_callback_unregister(app->ports[i].port_id,
							RTE_ETH_EVENT_INTR_LSC, on_lsc_event, app);
		if (app->ports[i].quirk != NULL && app->ports[i].quirk->reset_event)
			rte_eth_dev_callback_unregister(app->ports[i].port_id,
							RTE_ETH_EVENT_INTR_RESET, on_reset_event,
							app);
		uf_port_close(&app->ports[i]);
	}
	for (i = 0; i < app->n_workers; i++) {
		if (app->w[i] == NULL)
			continue;
		rte_ring_free(app->w[i]->ctl_rx);
		rte_ring_free(app->w[i]->ctl_tx);
		rte_free(app->w[i]);
		app->w[i] = NULL;
	}
	uf_plan_free(app->sh.plan);
	app->sh.plan = NULL;
	if (app->lpm != NULL)
		rte_lpm_free(app->lpm);
	rte_free(app->sh.qsbr);
	if (app->json != NULL)
		fclose(app->json);
	app->json = NULL;
}
