/* SPDX-License-Identifier: BSD-3-Clause
 * The control lcore's watch over the ports: link state (docs/architecture.md, "Link state")
 * and TX stalls, published to the workers and logged once per change; link-change and
 * device-reset events; port resets with only the resetting device's queues quiesced (lib/fwd
 * uf_workers_quiesce): the other ports keep forwarding.
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "uf_app.h"

static int
on_reset_event(uint16_t port_id, enum rte_eth_event_type type, void *arg, void *ret_param)
{
	struct uf_app *app = arg;
	int i;

	(void)type;
	(void)ret_param;
	for (i = 0; i < app->cfg->n_ports; i++)
		if (app->ports[i].port_id == port_id)
			__atomic_fetch_or(&app->reset_pending[i], UF_RESET_EVENT, __ATOMIC_RELEASE);
	uf_shared_wake_ctl(&app->sh);
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
	uf_shared_wake_ctl(&app->sh); /* the link checked now, not at the next poll */
	return 0;
}

void
uf_app_request_reset(struct uf_app *app, int port)
{
	__atomic_fetch_or(&app->reset_pending[port], UF_RESET_REQUESTED, __ATOMIC_RELEASE);
	uf_shared_wake_ctl(&app->sh);
}

/* Port i's device: its owner and VLAN aliases, as a set of port indexes */
static uint32_t
device_ports(const struct uf_app *app, int i)
{
	uint32_t m = 0;
	int j;

	for (j = 0; j < app->cfg->n_ports; j++)
		if (app->cfg->ports[j].dev == i)
			m |= 1u << j;
	return m;
}

/* Reset each port that asked for it. Only its device's queues are quiesced: the workers stop
 * polling them and drop their copies as link_down, and the control lcore waits one RCU grace
 * period (UF_RESET_QUIESCE_MS at most) before it touches the device; every other port goes
 * on forwarding. The control lcore is the only one that touches a port's configuration. */
void
uf_app_handle_resets(struct uf_app *app)
{
	/* no link wait: the link poll (or the LSC event) sees the link come back and runs the
	 * link-up actions */
	struct uf_port_opts po = { .link_wait_ms = 0 };
	struct uf_err err;
	uint32_t ports;
	int i, j, why;

	/* a VLAN alias's request is its device's: its owner (an earlier port) is reset */
	for (i = 0; i < app->cfg->n_ports; i++)
		if (app->ports[i].owner != NULL &&
		    (why = __atomic_exchange_n(&app->reset_pending[i], 0, __ATOMIC_ACQ_REL)) != 0)
			__atomic_fetch_or(&app->reset_pending[app->cfg->ports[i].dev], why,
					  __ATOMIC_RELEASE);
	for (i = 0; i < app->cfg->n_ports; i++) {
		if (app->ports[i].owner != NULL ||
		    (why = __atomic_exchange_n(&app->reset_pending[i], 0, __ATOMIC_ACQ_REL)) == 0)
			continue;
		po.after_event = (why & UF_RESET_EVENT) != 0;
		ports = device_ports(app, i);
		if (uf_workers_quiesce(&app->sh, ports, UF_RESET_QUIESCE_MS) != 0) {
			/* resetting under a worker still in its queues would be a crash; stop */
			uf_err_set(&app->fail, UF_EXIT_OTHER,
				   "port %s: a worker did not leave its queues within %u ms for "
				   "the reset; stopping",
				   app->ports[i].cfg->name, UF_RESET_QUIESCE_MS);
			app->failed = true;
			__atomic_store_n(&app->sh.no_tx, 1, __ATOMIC_RELEASE);
			uf_app_request_stop(app);
			break;
		}
		UF_LOG(WARNING, "port %s: resetting (%s); the other ports forward on",
		       app->ports[i].cfg->name,
		       po.after_event ? "device reset event" : "request or watched xstat");
		if (uf_port_reset(&app->ports[i], app->cfg, &po, &err) != 0) {
			UF_LOG(ERR, "%s; stopping", err.msg);
			app->fail = err;
			app->failed = true;
			/* the port may be down for good: what workers still hold is freed, not sent */
			__atomic_store_n(&app->sh.no_tx, 1, __ATOMIC_RELEASE);
			uf_app_request_stop(app);
			break;
		}
		uf_workers_unquiesce(&app->sh, ports);
		UF_LOG(WARNING, "port %s: reset done, forwarding again", app->ports[i].cfg->name);
		/* as if the link had been down (link_down is still set): the next link check
		 * logs it and runs the link-up actions (gratuitous ARP, neighbour refresh) once
		 * it is up */
		for (j = 0; j < app->cfg->n_ports; j++)
			if (ports >> j & 1)
				app->link_was_up[j] = false;
		app->next_link_ms = 0;
	}
}

void
uf_app_watch_port(struct uf_app *app, int i)
{
	const struct uf_port *p = &app->ports[i];

	if (p->owner != NULL) /* a VLAN alias: its owner's events are the device's */
		return;
	if (p->plan.lsc && rte_eth_dev_callback_register(p->port_id, RTE_ETH_EVENT_INTR_LSC,
							 on_lsc_event, app) != 0)
		UF_LOG(NOTICE, "port %s: cannot register for link-change events; polled",
		       p->cfg->name);
	if (p->quirk->reset_event)
		rte_eth_dev_callback_register(p->port_id, RTE_ETH_EVENT_INTR_RESET, on_reset_event,
					      app);
}

void
uf_app_unwatch_port(struct uf_app *app, int i)
{
	const struct uf_port *p = &app->ports[i];

	if (p->owner != NULL)
		return;
	if (p->quirk != NULL && p->plan.lsc)
		rte_eth_dev_callback_unregister(p->port_id, RTE_ETH_EVENT_INTR_LSC, on_lsc_event,
						app);
	if (p->quirk != NULL && p->quirk->reset_event)
		rte_eth_dev_callback_unregister(p->port_id, RTE_ETH_EVENT_INTR_RESET,
						on_reset_event, app);
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

/* Every UF_LINK_POLL_MS and after an LSC event: each port's link as udpfan trusts it
 * (uf_port_link_get), published to the workers (link_down), logged once per change; on up,
 * the link-up actions. */
void
uf_app_check_links(struct uf_app *app)
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
			uf_ctlframes_garp(&app->cf, (uint16_t)i);
			uf_neigh_port_up(&app->res.neigh, (uint16_t)i, uf_app_now_ms(app));
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
			       p->cfg->name, app->cfg->fwd.tx_stall_ms, UF_TX_PROBE_MS);
		else if (!st && app->tx_stalled[i])
			UF_LOG(INFO, "port %s: TX makes progress again", p->cfg->name);
		app->tx_stalled[i] = st;
	}
	/* a pool's member on a port whose link changed: a plan without it, or with it again
	 * (docs/configuration.md#pools) */
	if (app->cfg->n_pools > 0 && memcmp(app->res.port_up_used, app->link_was_up,
					    sizeof(bool) * (size_t)app->cfg->n_ports) != 0)
		uf_resolve_publish(&app->res, app->ports, &app->sh, &app->ctl);
}

/* The PMD broke a queue and waits for a reset it will not signal (ENA): a watched xstat rose.
 * Read every link poll, so the reset follows within UF_LINK_POLL_MS, whatever
 * stats.interval_s is (docs/pmd-quirks.md, reset_xstats). */
void
uf_app_check_faults(struct uf_app *app)
{
	char fault[128];
	int i;

	for (i = 0; i < app->cfg->n_ports; i++) {
		struct uf_port *p = &app->ports[i];

		if (uf_port_faults(p, fault, sizeof(fault)) != 1)
			continue;
		UF_LOG(ERR, "port %s: %s rose: requesting a port reset", p->cfg->name, fault);
		p->fault_resets++;
		uf_app_request_reset(app, i);
	}
}
