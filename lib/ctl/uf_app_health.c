/* SPDX-License-Identifier: BSD-3-Clause
 * The instance's health and the drain, on the control lcore (docs/deployment.md#health-and-
 * drain): the state (starting, ready, draining, stopping), the degraded rule evaluated over
 * the links and next hops as the control lcore last saw them (uf_health_eval), the copy
 * telemetry's /udpfan/health reads, and what a SIGTERM does. Workers are never told: they
 * forward through a drain exactly as before it, and stop when the stop comes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "uf_app.h"
#include "uf_notify.h"

/* the health as of now: the state, the rule over links and next hops, the drain's time */
static void
evaluate(struct uf_app *app, struct uf_health *h)
{
	const struct uf_config *cfg = app->cfg;
	struct uf_health_port ports[UF_MAX_PORTS];
	struct uf_health_lis lis[UF_MAX_LISTENERS];
	struct uf_health_in in = { .state = app->hstate,
				   .n_ports = cfg->n_ports,
				   .ports = ports,
				   .n_listeners = cfg->n_listeners,
				   .lis = lis };
	int i, d;

	for (i = 0; i < cfg->n_ports; i++)
		ports[i] = (struct uf_health_port){ .name = cfg->ports[i].name,
						    .up = app->link_was_up[i] };
	for (i = 0; i < cfg->n_listeners; i++) {
		const struct uf_cfg_listener *cl = &cfg->listeners[i];
		struct uf_health_lis *l = &lis[i];

		*l = (struct uf_health_lis){ .name = cl->name, .port = cl->port };
		/* its destinations as listed, then its pools' members; a pool entry is its
		 * members */
		for (d = cl->first_dest; d < cl->first_dest + cl->n_dests + cl->n_members; d++) {
			if (cfg->dests[d].is_pool)
				continue;
			l->n_dests++;
			if (app->res.dest_resolved[d] && app->link_was_up[cfg->dests[d].port])
				l->n_reachable++;
		}
	}
	uf_health_eval(&in, h);
	h->drain_s = cfg->control.drain_s;
	h->drain_left_s = 0;
}

static bool
same_health(const struct uf_health *a, const struct uf_health *b)
{
	return a->state == b->state && a->degraded == b->degraded && a->n_reasons == b->n_reasons &&
	       memcmp(a->reasons, b->reasons, sizeof(a->reasons)) == 0;
}

void
uf_app_health_update(struct uf_app *app)
{
	struct uf_health h;
	int i;

	evaluate(app, &h);
	/* a change of the verdict or of its reasons, logged once */
	if (h.degraded && !same_health(&h, &app->health))
		for (i = 0; i < h.n_reasons; i++)
			UF_LOG(WARNING, "health: %s, degraded: %s", uf_health_state_name(h.state),
			       h.reasons[i]);
	else if (!h.degraded && app->health.degraded && h.state != UF_HEALTH_STOPPING)
		UF_LOG(NOTICE, "health: %s, no longer degraded", uf_health_state_name(h.state));
	app->health = h;
	pthread_mutex_lock(&app->health_lock);
	app->health_pub = h;
	app->health_pub_end = app->hstate == UF_HEALTH_DRAINING ? app->drain_end_tsc : 0;
	pthread_mutex_unlock(&app->health_lock);
}

void
uf_app_health_set(struct uf_app *app, enum uf_health_state st)
{
	app->hstate = st;
	uf_app_health_update(app);
}

/* the health with drain_left_s as of now: a reader on any thread (telemetry) */
static double
left_s(uint64_t end)
{
	uint64_t now = rte_rdtsc();

	return end > now ? (double)(end - now) / (double)rte_get_tsc_hz() : 0.0;
}

void
uf_app_health_get(struct uf_app *app, struct uf_health *out)
{
	uint64_t end;

	pthread_mutex_lock(&app->health_lock);
	*out = app->health_pub;
	end = app->health_pub_end;
	pthread_mutex_unlock(&app->health_lock);
	out->drain_left_s = end != 0 ? left_s(end) : 0.0;
}

void
uf_app_health_now(const struct uf_app *app, struct uf_health *out)
{
	*out = app->health;
	out->drain_left_s = app->hstate == UF_HEALTH_DRAINING ? left_s(app->drain_end_tsc) : 0.0;
}

void
uf_app_request_term(struct uf_app *app)
{
	__atomic_add_fetch(&app->term_req, 1, __ATOMIC_RELEASE);
	uf_shared_wake_ctl(&app->sh);
}

bool
uf_app_term_pending(const struct uf_app *app)
{
	return __atomic_load_n(&app->term_req, __ATOMIC_ACQUIRE) != app->term_seen;
}

bool
uf_app_drain_tick(struct uf_app *app, uint64_t now)
{
	uint64_t n = __atomic_load_n(&app->term_req, __ATOMIC_ACQUIRE), hz = rte_get_tsc_hz();
	uint32_t drain_s = app->cfg->control.drain_s;
	char status[160];

	app->term_seen = n;
	if (n == 0)
		return false;
	if (app->hstate != UF_HEALTH_DRAINING) {
		if (n > 1 || drain_s == 0 || app->hstate != UF_HEALTH_READY)
			return true;        /* today's SIGTERM: the clean stop, now */
		app->drain_len_s = drain_s; /* a reload may change drain_s meanwhile */
		app->drain_end_tsc = now + (uint64_t)drain_s * hz;
		uf_app_health_set(app, UF_HEALTH_DRAINING);
		snprintf(status, sizeof(status),
			 "draining: forwarding for %" PRIu32 " s more, then stopping (SIGTERM "
			 "again stops now)",
			 drain_s);
		UF_LOG(NOTICE, "SIGTERM: %s", status);
		uf_notify_status(status);
		return false;
	}
	if (n > 1) {
		UF_LOG(NOTICE, "SIGTERM again: stopping now, %.1f s before the drain's end",
		       left_s(app->drain_end_tsc));
		return true;
	}
	if (now < app->drain_end_tsc)
		return false;
	UF_LOG(NOTICE, "drain: %" PRIu32 " s done, stopping", app->drain_len_s);
	return true;
}
