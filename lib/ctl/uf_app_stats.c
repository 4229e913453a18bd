/* SPDX-License-Identifier: BSD-3-Clause
 * Stats on the control lcore: the snapshot (workers' counters summed, the control plane's,
 * destinations, ports), the hints for drops the host's settings cause, and where a snapshot
 * goes each interval (the human line, the JSON line, telemetry's published copy).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <net/if.h>

#include <rte_cycles.h>

#include "uf_app.h"
#include "uf_env.h"

/*
 * Each pool member's distinct senders in the interval that ends now: per worker, linear
 * counting over the member's 512-bit sketch (-m ln(zeros / m)), summed over workers (a
 * sender that RSS spread over two workers counts twice). Then a new interval: the workers
 * clear and fill the other bank. docs/configuration.md#pools.
 */
static void
pool_senders(struct uf_app *app, struct uf_snap *s)
{
	const double m = UF_SENDERS_WORDS * 64;
	uint32_t ep = __atomic_load_n(&app->sh.senders_epoch, __ATOMIC_RELAXED);
	int i, k, j;

	for (i = 0; i < app->cfg->n_dests; i++) {
		if (!app->cfg->dests[i].is_member)
			continue;
		s->dests[i].senders = 0;
		for (k = 0; k < app->n_workers; k++) {
			/* the workers index members by counter slot */
			const uint64_t *b = app->w[k]->senders[ep & 1][app->res.dest_slot[i]];
			unsigned int zeros = 0;

			for (j = 0; j < UF_SENDERS_WORDS; j++)
				zeros += 64 - (unsigned int)__builtin_popcountll(__atomic_load_n(
							      &b[j], __ATOMIC_RELAXED));
			/* all bits set: report the estimate at one zero */
			s->dests[i].senders += (uint64_t)(-m * log(RTE_MAX(zeros, 1u) / m) + 0.5);
		}
	}
	__atomic_store_n(&app->sh.senders_epoch, ep + 1, __ATOMIC_RELAXED);
}

void
uf_app_snapshot(struct uf_app *app, struct uf_snap *s, bool final)
{
	const struct uf_config *cfg = app->cfg;
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz();
	struct timespec ts;
	int i, k;

	memset(&s->tot, 0, sizeof(s->tot));
	clock_gettime(CLOCK_REALTIME, &ts);
	s->time = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	s->interval_s = (double)(now - app->prev_snap_tsc) / (double)hz;
	s->uptime_s = (double)(now - app->start_tsc) / (double)hz;
	app->prev_snap_tsc = now;
	s->final = final;
	s->tsc_hz = hz;
	s->ctl = app->ctl;
	uf_app_health_now(app, &s->health);

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

	uf_resolve_snapshot(&app->res, s);
	/* removed destinations' counts: every slot's, less the listed destinations' */
	memset(&s->reload.removed, 0, sizeof(s->reload.removed));
	for (i = 0; i < app->res.n_slots; i++)
		for (k = 0; k < app->n_workers; k++)
			uf_dest_ctr_add(&s->reload.removed, &app->w[k]->dctr[i]);
	for (i = 0; i < cfg->n_dests; i++) {
		uf_app_dest_counters(app, i, &s->dests[i].c);
#define LESS(f, h) s->reload.removed.f -= RTE_MIN(s->reload.removed.f, s->dests[i].c.f);
		UF_DEST_COUNTERS(LESS)
#undef LESS
	}
	pthread_mutex_lock(&app->reload_lock);
	snprintf(s->reload.result, sizeof(s->reload.result), "%s", app->reload_result);
	snprintf(s->reload.reason, sizeof(s->reload.reason), "%s", app->reload_reason);
	pthread_mutex_unlock(&app->reload_lock);
	s->reload.generation = app->cfg_generation;
	if (cfg->n_pools > 0)
		pool_senders(app, s);

	/* the listeners: counted by the workers with several, the totals' with one */
	s->n_listeners = cfg->n_listeners;
	for (i = 0; i < cfg->n_listeners; i++) {
		const struct uf_cfg_listener *cl = &cfg->listeners[i];
		struct uf_snap_lis *sl = &s->listeners[i];
		struct uf_lis_ctr *c = &sl->c;
		int d;

		memset(sl, 0, sizeof(*sl));
		snprintf(sl->name, sizeof(sl->name), "%s", cl->name);
		snprintf(sl->port, sizeof(sl->port), "%s", cfg->ports[cl->port].name);
		sl->ip = cl->ip;
		sl->udp_port = cl->udp_port;
		if (cfg->n_listeners > 1) {
			for (k = 0; k < app->n_workers; k++) {
				const struct uf_lis_ctr *wl = &app->w[k]->lctr[i];

#define LIS_ADD(f, h) c->f += __atomic_load_n(&wl->f, __ATOMIC_RELAXED);
				UF_LIS_COUNTERS(LIS_ADD)
#undef LIS_ADD
			}
		} else {
			const struct uf_lcore_ctr *t = &s->tot;

			c->forwarded = t->forwarded;
			c->fanout = t->fanout;
			c->sampled_out = t->sampled_out;
			c->copies_attempted = t->copies_attempted;
			c->drop_no_rule = t->drop[UF_DROP_NO_RULE];
			c->drop_too_big = t->drop[UF_DROP_TOO_BIG];
			c->drop_no_neighbor = t->drop[UF_DROP_NO_NEIGHBOR];
			c->drop_nombuf = t->drop[UF_DROP_NOMBUF];
			c->rx = c->forwarded + c->drop_no_rule + c->drop_too_big +
				c->drop_no_neighbor + c->drop_nombuf;
		}
		/* what its destinations say (the worker's tx_ok/tx_drop fields stay 0) */
		c->tx_ok = 0;
		c->tx_drop = 0;
		/* its destinations as listed, then its pools' members */
		for (d = cl->first_dest; d < cl->first_dest + cl->n_dests + cl->n_members; d++) {
			c->tx_ok += s->dests[d].c.tx_ok;
			c->tx_drop += s->dests[d].c.tx_drop;
		}
		if (cfg->n_listeners <= 1) {
			/* what destinations removed by reloads sent: the one listener's too */
			c->tx_ok += s->reload.removed.tx_ok;
			c->tx_drop += s->reload.removed.tx_drop;
		}
	}

	s->n_ports = cfg->n_ports;
	for (i = 0; i < cfg->n_ports; i++) {
		struct uf_port *p = &app->ports[i];
		struct uf_snap_port *sp = &s->ports[i];

		uf_port_snapshot(p, sp);
		sp->link_up = app->link_was_up[i];
		sp->tx_stalled = app->tx_stalled[i];
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
	static const enum uf_drop why[] = { UF_DROP_GRO_COALESCED, UF_DROP_VLAN_UNKNOWN,
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
		case UF_DROP_VLAN_UNKNOWN:
			UF_LOG(WARNING,
			       "%" PRIu64 " 802.1Q/802.1ad-tagged frames arrived on %s and were "
			       "dropped (drop.vlan_unknown): no port claims their VLAN. Give a "
			       "port that VLAN (ports[].vlan, docs/configuration.md#vlans), or "
			       "send untagged",
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

void
uf_app_stats_tick(struct uf_app *app, bool final)
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
	uf_snap_pub_put(&app->pub, s);
	app->cur ^= 1;
}

int
uf_app_stats_open(struct uf_app *app, struct uf_err *err)
{
	const char *json =
			app->opts.stats_json != NULL ? app->opts.stats_json : app->cfg->stats.json;

	if (json == NULL || json[0] == '\0')
		return 0;
	app->json = uf_env_open_append(json, "the stats file", err);
	return app->json == NULL ? -1 : 0;
}
