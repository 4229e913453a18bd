/* SPDX-License-Identifier: BSD-3-Clause
 * Reload (docs/configuration.md#reload, docs/architecture.md#reload): SIGHUP and
 * /udpfan/reload re-read the config file on the control lcore, validate it as start-up
 * does, diff it against the running config (uf_config_diff: the schema says which keys a
 * new plan can apply), and either refuse it whole or build the new destinations' state and
 * publish one new plan through the RCU swap. Workers only ever see the pointer change.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uf_app.h"
#include "uf_notify.h"

static void
dest_ctr_sub(struct uf_dest_ctr *a, const struct uf_dest_ctr *b)
{
	a->copies -= RTE_MIN(a->copies, b->copies);
#define SUB(f, h) a->f -= RTE_MIN(a->f, b->f);
	UF_DEST_COUNTERS(SUB)
#undef SUB
}

/* slot s's counts summed over the workers (what a new occupant starts from) */
static void
slot_sum(const struct uf_app *app, uint16_t s, struct uf_dest_ctr *out)
{
	uint16_t k;

	memset(out, 0, sizeof(*out));
	for (k = 0; k < app->n_workers; k++)
		uf_dest_ctr_add(out, &app->w[k]->dctr[s]);
	out->liveness_suspect += app->res.live[s].suspect; /* the control lcore's */
}

void
uf_app_liveness(struct uf_app *app)
{
	struct uf_resolve *r = &app->res;
	struct uf_dest_ctr c;
	int i;

	for (i = 0; i < r->cfg->n_dests; i++) {
		const struct uf_neigh *e;
		uint16_t s = r->dest_slot[i];

		if (r->dest_neigh[i] < 0 || !r->cfg->dests[i].liveness)
			continue;
		e = &r->neigh.e[r->dest_neigh[i]];
		if (!uf_neigh_live_due(&r->live[s], e))
			continue;
		slot_sum(app, s, &c);
		uf_neigh_live_account(&r->live[s], e, c.tx_ok);
	}
}

void
uf_app_dest_counters(const struct uf_app *app, int i, struct uf_dest_ctr *out)
{
	uint16_t s = app->res.dest_slot[i];

	slot_sum(app, s, out);
	dest_ctr_sub(out, &app->res.slot_base[s]);
}

static void
set_result(struct uf_app *app, const char *result, const char *reason)
{
	pthread_mutex_lock(&app->reload_lock);
	snprintf(app->reload_result, sizeof(app->reload_result), "%s", result);
	snprintf(app->reload_reason, sizeof(app->reload_reason), "%s", reason);
	pthread_mutex_unlock(&app->reload_lock);
}

/* the next hop, MAC and neighbour entry of every destination of cfg, into r (whose neigh
 * table is replaced: entries still needed keep their state; new ones start INCOMPLETE) */
static int
resolve_dests(struct uf_resolve *r, const struct uf_config *cfg, const struct uf_neigh_table *old,
	      uint64_t now_ms)
{
	struct uf_neigh_params np;
	int i;

	uf_neigh_params_of(cfg, &np);

	uf_neigh_init(&r->neigh, &np);
	for (i = 0; i < cfg->n_dests; i++)
		if (uf_resolve_dest(r, cfg, i, old, now_ms) != 0)
			return -ENOSPC;
	return 0;
}

/* counter slots for the new destinations: a kept one's, else never used, else retired,
 * else one this reload frees; -ENOSPC never happens with n_dests <= UF_MAX_DESTS */
static int
assign_slots(struct uf_app *app, struct uf_resolve *r, const struct uf_config *nw,
	     const struct uf_cfg_diff *d)
{
	const struct uf_resolve *cur = &app->res;
	bool taken[UF_MAX_DESTS] = { false };
	int i, s, pass;

	for (i = 0; i < nw->n_dests; i++) {
		if (d->dest_old[i] < 0)
			continue;
		r->dest_slot[i] = cur->dest_slot[d->dest_old[i]];
		taken[r->dest_slot[i]] = true;
	}
	for (s = 0; s < UF_MAX_DESTS; s++)
		if (r->slot_state[s] == UF_SLOT_USED && !taken[s])
			r->slot_state[s] = UF_SLOT_RETIRED; /* removed now */
	for (i = 0; i < nw->n_dests; i++) {
		if (d->dest_old[i] >= 0)
			continue;
		for (pass = 0, s = UF_MAX_DESTS; pass < 2 && s == UF_MAX_DESTS; pass++)
			for (s = 0; s < UF_MAX_DESTS; s++)
				if (!taken[s] && r->slot_state[s] == (pass == 0 ? UF_SLOT_FREE
										: UF_SLOT_RETIRED))
					break;
		if (s == UF_MAX_DESTS)
			return -ENOSPC;
		taken[s] = true;
		r->dest_slot[i] = (uint16_t)s;
		/* a new destination counts from here (a retired slot holds its old counts) */
		slot_sum(app, (uint16_t)s, &r->slot_base[s]);
		if (s + 1 > r->n_slots)
			r->n_slots = (uint16_t)(s + 1);
	}
	for (s = 0; s < UF_MAX_DESTS; s++)
		if (taken[s])
			r->slot_state[s] = UF_SLOT_USED;
	return 0;
}

/* "invalid" / "refused" / "applied": one reload; true when a new config runs */
static bool
reload_once(struct uf_app *app)
{
	const struct uf_config *old = app->cfg;
	struct uf_config *nw;
	struct uf_resolve *r = NULL, *keep = NULL;
	struct uf_cfg_diff *d = NULL;
	struct uf_err err;
	char why[1200];
	bool ok = false;
	int ret;

	memset(&err, 0, sizeof(err));
	nw = uf_config_load(old->path, &err);
	if (nw == NULL) {
		app->ctl.reload_invalid++;
		UF_LOG(ERR, "reload: refused, the file is invalid: %s; the running config stays",
		       err.msg);
		set_result(app, "invalid", err.msg);
		return false;
	}
	d = malloc(sizeof(*d));
	r = malloc(sizeof(*r));
	keep = malloc(sizeof(*keep));
	if (d == NULL || r == NULL || keep == NULL) {
		snprintf(why, sizeof(why), "out of memory");
		goto refuse;
	}
	uf_config_diff(old, nw, d);
	if (d->n_restart > 0) {
		snprintf(why, sizeof(why), "needs a restart: %s", d->restart);
		goto refuse;
	}
	if (d->n_hot == 0) {
		app->ctl.reload_applied++;
		UF_LOG(NOTICE, "reload: %s: no change", old->path);
		set_result(app, "applied", "no change");
		uf_config_free(nw);
		free(d);
		free(r);
		free(keep);
		return false;
	}

	/* the new destinations' state, built aside: the running one stays until the swap */
	*r = app->res;
	r->cfg = nw;
	/* every rule table anew, as a start builds them (each listener's, with several) */
	if (uf_resolve_rules(r, nw, app->ports[nw->listen.port].socket, &err) != 0) {
		snprintf(why, sizeof(why), "%s", err.msg);
		goto refuse;
	}
	if (resolve_dests(r, nw, &app->res.neigh, uf_app_now_ms(app)) != 0) {
		snprintf(why, sizeof(why), "more than %d distinct next hops", UF_NEIGH_MAX);
		goto refuse_rules;
	}
	if (assign_slots(app, r, nw, d) != 0) {
		snprintf(why, sizeof(why), "no counter slot left for a new destination");
		goto refuse_rules;
	}

	/* the swap: uf_resolve_publish returns once every worker has left the old plan */
	*keep = app->res;
	app->res = *r;
	ret = uf_resolve_publish(&app->res, app->ports, &app->sh, &app->ctl);
	if (ret != 0) {
		app->res = *keep;
		snprintf(why, sizeof(why), "cannot build the new plan: out of memory");
		goto refuse_rules;
	}
	uf_resolve_rules_free(keep); /* the old plan's, unused once it is gone */
	app->cfg = nw;
	app->cf.cfg = nw; /* arp.gratuitous, control.icmp_rate */
	uf_config_free(app->cfg_owned);
	app->cfg_owned = nw;
	__atomic_add_fetch(&app->cfg_generation, 1, __ATOMIC_RELAXED);
	app->ctl.reload_applied++;
	snprintf(why, sizeof(why), "%d destination%s (%d added, %d removed, %d changed): %s",
		 nw->n_dests, nw->n_dests == 1 ? "" : "s", d->n_added, d->n_removed, d->n_changed,
		 d->hot);
	UF_LOG(NOTICE, "reload: applied, plan %" PRIu64 ", generation %" PRIu64 ": %s",
	       app->res.plan_version, app->cfg_generation, why);
	if (uf_plan_may_chain(nw) && !app->chain_set_up)
		UF_LOG(NOTICE, "reload: chained fan-out was not set up at start (the start-up "
			       "config could not chain); copies are built until a restart");
	set_result(app, "applied", why);
	ok = true;
	free(d);
	free(r);
	free(keep);
	return ok;

refuse_rules:
	uf_resolve_rules_free(r);
refuse:
	app->ctl.reload_refused++;
	UF_LOG(ERR, "reload: refused, %s; the running config stays", why);
	set_result(app, "refused", why);
	uf_config_free(nw);
	free(d);
	free(r);
	free(keep);
	return false;
}

bool
uf_app_answer_reload(struct uf_app *app)
{
	uint64_t req = __atomic_load_n(&app->reload_req, __ATOMIC_ACQUIRE);
	bool applied = false;

	if (req == __atomic_load_n(&app->reload_done, __ATOMIC_RELAXED))
		return false;
	/* every request up to req is answered by this one reload (two HUPs: one reload) */
	uf_notify_reloading(); /* Type=notify: RELOADING=1 … READY=1 (docs/deployment.md#systemd) */
	if (app->opts.on_reload != NULL)
		app->opts.on_reload(app, app->opts.reload_arg);
	else
		applied = reload_once(app);
	uf_notify_ready("reloaded");
	if (app->hstate == UF_HEALTH_DRAINING) /* STATUS says the state: still draining */
		uf_notify_status("draining: reloaded");
	__atomic_store_n(&app->reload_done, req, __ATOMIC_RELEASE);
	return applied;
}

int
uf_app_reload_wait(struct uf_app *app, uint32_t timeout_ms, char *result, size_t rlen, char *reason,
		   size_t len, uint64_t *generation)
{
	uint64_t seq = __atomic_add_fetch(&app->reload_req, 1, __ATOMIC_ACQ_REL);
	struct timespec nap = { .tv_nsec = 1000000 };
	uint32_t waited;

	uf_shared_wake_ctl(&app->sh);
	for (waited = 0; __atomic_load_n(&app->reload_done, __ATOMIC_ACQUIRE) < seq; waited++) {
		if (__atomic_load_n(&app->sh.quit, __ATOMIC_RELAXED))
			return -ESHUTDOWN;
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		nanosleep(&nap, NULL);
	}
	pthread_mutex_lock(&app->reload_lock);
	snprintf(result, rlen, "%s", app->reload_result);
	snprintf(reason, len, "%s", app->reload_reason);
	*generation = __atomic_load_n(&app->cfg_generation, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&app->reload_lock);
	return 0;
}
