/* SPDX-License-Identifier: BSD-3-Clause
 * The workers as the control side sets them up: each port as a worker sees it, one worker per
 * worker lcore (lib/fwd uf_worker_create), and the check of where the lcores landed.
 */
#include <string.h>

#include "uf_app.h"
#include "uf_place.h"

static void
place_warn(void *arg, const char *msg)
{
	(void)arg;
	UF_LOG(WARNING, "placement: %s", msg);
}

void
uf_app_check_placement(struct uf_app *app)
{
	struct uf_place pl;
	int i;

	memset(&pl, 0, sizeof(pl));
	uf_place_lcores(&pl, app->worker_lcore, app->n_workers);
	pl.n_ports = app->cfg->n_ports;
	for (i = 0; i < app->cfg->n_ports; i++) {
		/* a vdev has no socket of its own (it follows the caller's) */
		pl.port_socket[i] = app->ports[i].cfg->is_pci ? app->ports[i].socket : -1;
		pl.port_name[i] = app->ports[i].cfg->name;
	}
	uf_placement_check(&pl, NULL, place_warn, NULL);
}

/*
 * forward.flush_idle_us: the number configured, or auto: UF_FLUSH_IDLE_US_SYSCALL where some
 * port's every tx_burst is a system call (its quirk row has a kernel socket: af_xdp,
 * af_packet), else 0. There a flush on the first empty pass sends the few frames of a burst
 * that arrived in pieces, one call each; held back that long, the burst leaves in one call
 * (docs/configuration.md#forward, docs/benchmarks.md#where-the-cpu-goes-on-veth).
 */
static uint32_t
flush_idle_us(const struct uf_app *app)
{
	const struct uf_config *cfg = app->cfg;
	int i;

	if (!cfg->fwd.flush_idle_auto)
		return cfg->fwd.flush_idle_us;
	for (i = 0; i < cfg->n_ports; i++)
		if (app->ports[i].plan.tx_syscall)
			return UF_FLUSH_IDLE_US_SYSCALL;
	return 0;
}

int
uf_app_create_workers(struct uf_app *app, struct uf_err *err)
{
	const struct uf_config *cfg = app->cfg;
	const struct uf_port *lp = &app->ports[cfg->listen.port];
	struct uf_worker_port wp[UF_MAX_PORTS];
	struct uf_worker_conf wc = {
		.n_ports = (uint16_t)cfg->n_ports,
		.ports = wp,
		.burst = cfg->fwd.burst,
		.tx_retries = cfg->fwd.tx_retries,
		.drain_us = cfg->fwd.drain_us,
		.flush_idle = cfg->fwd.flush_idle,
		.flush_idle_us = flush_idle_us(app),
		.idle_sleep_us = cfg->fwd.idle_sleep_us,
		.tx_stall_ms = cfg->fwd.tx_stall_ms,
		.tx_probe_ms = UF_TX_PROBE_MS,
		.shared = &app->sh,
	};
	int i, ret;

	if (cfg->fwd.flush_idle && cfg->fwd.flush_idle_auto && wc.flush_idle_us != 0)
		UF_LOG(INFO,
		       "forward.flush_idle_us auto: %u (each flush on an af_xdp or af_packet port is a "
		       "system call)",
		       wc.flush_idle_us);
	for (i = 0; i < cfg->n_ports; i++) {
		const struct uf_port *p = &app->ports[i];

		memset(&wp[i], 0, sizeof(wp[i]));
		wp[i].port_id = p->port_id;
		wp[i].socket = p->socket;
		wp[i].name = p->cfg->name;
		wp[i].id.mac = p->mac;
		wp[i].id.ip = p->cfg->ip;
		/* an IPv4 listener's port (an IPv6 one's frames are uf_classify6's) */
		wp[i].id.listen = i == cfg->listen.port &&
				  !(cfg->n_listeners > 0 && cfg->listeners[0].is_ip6);
		/* several listeners: each port with one (the plan's lmap finds which) */
		for (int l = 0; l < cfg->n_listeners; l++)
			wp[i].id.listen |= cfg->listeners[l].port == i && !cfg->listeners[l].is_ip6;
		/* IPv6 (docs/architecture.md#ipv6): any UDP port passes the
		 * classifier, the plan's IPv6 listeners say which are forwarded */
		wp[i].id6.mac = p->mac;
		wp[i].id6.n_ip6 = p->cfg->n_ip6;
		memcpy(wp[i].id6.ip6, p->cfg->ip6, sizeof(wp[i].id6.ip6));
		wp[i].id6.listen = p->cfg->n_ip6 > 0;
		wp[i].id6.listen_udp = 0;
		wp[i].id6.max_len = uf_port_max_len(p->plan.mtu);
		wp[i].id.partial_csum = p->plan.partial_csum;
		wp[i].id.rx_ck_ignore = p->plan.rx_ck_ignore;
		wp[i].id.listen_udp = rte_cpu_to_be_16(cfg->listen.udp_port);
		wp[i].id.max_len = uf_port_max_len(p->plan.mtu);
		/* health checks (docs/deployment.md#health-checks-on-the-port): fixed for the
		 * workers' life, so health.tcp_port is a restart key */
		wp[i].id.hc_tcp = rte_cpu_to_be_16((uint16_t)cfg->health.tcp_port);
		wp[i].id6.hc_tcp = wp[i].id.hc_tcp;
		wp[i].pad_to = p->plan.pad_to;
		wp[i].vlan = p->cfg->vlan;
		wp[i].dev = p->cfg->dev;
	}
	for (i = 0; i < app->n_workers; i++) {
		wc.id = (uint16_t)i;
		wc.lcore = app->worker_lcore[i];
		wc.copy_pool = lp->pool[i];
		wc.hdr_pool = lp->hdr_pool[i];
		ret = uf_worker_create(&wc, &app->w[i], err);
		if (ret != 0)
			return ret;
	}
	return 0;
}
