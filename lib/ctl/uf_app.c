/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <net/if.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>
#include <rte_timer.h>

#include "uf_app.h"
#include "uf_env.h"
#include "uf_notify.h"
#include "uf_unmap_guard.h"

#define LINK_WAIT_MS_DEFAULT 5000

uint64_t
uf_app_now_ms(const struct uf_app *app)
{
	return (rte_rdtsc() - app->start_tsc) * 1000 / rte_get_tsc_hz();
}

/* The link poll's period: fast while a peer-process link that raises no link-change
 * interrupt is down (its peer's connect is seen within UF_LINK_POLL_PEER_MS), else
 * UF_LINK_POLL_MS (docs/architecture.md#link-state). */
static uint32_t
link_poll_ms(const struct uf_app *app)
{
	int i;

	for (i = 0; i < app->cfg->n_ports; i++)
		if (app->ports[i].quirk->link_is_peer && !app->ports[i].plan.lsc &&
		    !app->link_was_up[i])
			return UF_LINK_POLL_PEER_MS;
	return UF_LINK_POLL_MS;
}

/* One pass of the control lcore; returns when it next has something to do by the clock
 * (ms; the neighbour timers and the link poll). */
static uint64_t
ctl_tick(struct uf_app *app)
{
	uint64_t ms = uf_app_now_ms(app), next;
	bool changed;

	struct uf_neigh_table *nt = &app->res.neigh;
	uint64_t probes = nt->live_probes, downs = nt->live_downs;

	changed = uf_ctlframes_poll(&app->cf, ms);
	changed |= uf_neigh_tick46(nt, ms, uf_ctlframes_neigh_send, uf_ctlframes_neigh_send6,
				   &app->cf);
	app->ctl.arp_liveness_probes += nt->live_probes - probes;
	app->ctl.arp_liveness_down += nt->live_downs - downs;
	if (changed)
		uf_resolve_publish(&app->res, app->ports, &app->sh, &app->ctl);
	/* after the publish: no worker sends by the plan with a failed member any more */
	uf_app_liveness(app);
	uf_app_handle_resets(app);
	if (ms >= app->next_link_ms ||
	    __atomic_exchange_n(&app->lsc_pending, 0, __ATOMIC_ACQ_REL)) {
		uf_app_check_links(app);
		uf_app_check_faults(app);
		app->next_link_ms = ms + link_poll_ms(app);
	}
	if (app->timers)
		rte_timer_manage();
	/* after the link check: a link that came up re-arms its neighbours' timers */
	next = uf_neigh_next_ms(&app->res.neigh, ms);
	return RTE_MIN(next, app->next_link_ms);
}

/* Work handed over since the last pass, by a worker or another thread? */
static bool
ctl_work_pending(struct uf_app *app)
{
	int i;

	if (__atomic_load_n(&app->sh.quit, __ATOMIC_RELAXED) || uf_app_term_pending(app) ||
	    __atomic_load_n(&app->lsc_pending, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&app->reload_req, __ATOMIC_RELAXED) !=
			    __atomic_load_n(&app->reload_done, __ATOMIC_RELAXED))
		return true;
	for (i = 0; i < app->cfg->n_ports; i++)
		if (__atomic_load_n(&app->reset_pending[i], __ATOMIC_RELAXED))
			return true;
	return uf_ctlframes_pending(&app->cf);
}

/*
 * Sleep until `until` (TSC) or until someone hands the control lcore work
 * (docs/architecture.md#the-control-lcore): it says it sleeps (ctl_sleeping), looks for work
 * once more, then waits on the eventfd that uf_shared_wake_ctl writes. Without the eventfd,
 * or where a PMD's timers need rte_timer_manage(), it naps UF_CTL_SLEEP_POLL_US at most.
 */
static void
ctl_sleep(struct uf_app *app, uint64_t until)
{
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz(), ns, drain;
	struct pollfd pfd = { .fd = app->sh.ctl_wake_fd, .events = POLLIN };
	struct timespec ts;

	if (until <= now)
		return;
	ns = (until - now) * 1000000000ULL / hz;
	if (app->sh.ctl_wake_fd < 0 || app->timers) {
		ns = RTE_MIN(ns, (uint64_t)UF_CTL_SLEEP_POLL_US * 1000);
		ts = (struct timespec){ .tv_sec = 0, .tv_nsec = (long)ns };
		nanosleep(&ts, NULL);
		return;
	}
	ts = (struct timespec){ .tv_sec = (time_t)(ns / 1000000000ULL),
				.tv_nsec = (long)(ns % 1000000000ULL) };
	__atomic_store_n(&app->sh.ctl_sleeping, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!ctl_work_pending(app))
		(void)ppoll(&pfd, 1, &ts, NULL); /* EINTR (a signal): the loop looks */
	__atomic_store_n(&app->sh.ctl_sleeping, 0, __ATOMIC_RELAXED);
	/* a write after the timeout (the waker saw us asleep just before) is read here or
	 * wakes the next sleep at once: one extra pass, nothing lost */
	(void)!read(app->sh.ctl_wake_fd, &drain, sizeof(drain));
}

/* telemetry's /udpfan/port_reset (a telemetry thread) */
static int
tel_reset_port(void *arg, const char *name)
{
	struct uf_app *app = arg;
	int idx = uf_config_port_by_name(app->cfg, name);

	if (idx < 0)
		return -EINVAL;
	uf_app_request_reset(app, idx);
	return 0;
}

/*
 * A tagged port on net_af_xdp (docs/pmd-quirks.md#vlans): XDP sees a tag only where it is in
 * the frame. A veth or bridge port that sends to the interface with txvlan on (the kernel's
 * default) keeps it in the skb's metadata, a NIC with rxvlan on strips it: either way the
 * frame reaches udpfan untagged (the untagged port's, or vlan_unknown), and ARP on the VLAN
 * never resolves. udpfan cannot see the sender's side, so it says which settings to check.
 */
static void
vlan_xdp_warn(const struct uf_app *app)
{
	const struct uf_config *cfg = app->cfg;
	int i, j;

	for (i = 0; i < cfg->n_ports; i++) {
		const struct uf_port *p = &app->ports[i];
		char ifn[IF_NAMESIZE] = "";
		bool tagged = false;

		if (p->owner != NULL || p->quirk == NULL || p->quirk->kernel_sock != UF_KSOCK_XSK)
			continue;
		for (j = 0; j < cfg->n_ports; j++)
			tagged |= cfg->ports[j].dev == i && cfg->ports[j].vlan != 0;
		if (!tagged)
			continue;
		if (p->info.if_index == 0 || if_indextoname(p->info.if_index, ifn) == NULL)
			snprintf(ifn, sizeof(ifn), "%s", "<interface>");
		UF_LOG(WARNING,
		       "port %s: tagged ports on net_af_xdp receive a tag only where it "
		       "is in the frame: 'ethtool -K <the veth peer or bridge port that "
		       "sends to %s> txvlan off', and 'ethtool -K %s rxvlan off' on a NIC "
		       "(docs/pmd-quirks.md#vlans)",
		       p->cfg->name, ifn, ifn);
	}
}

int
uf_app_init(struct uf_app *app, const struct uf_config *cfg, const struct uf_app_opts *o,
	    struct uf_err *err)
{
	struct uf_port_opts po;
	unsigned int lcore;
	size_t sz;
	int i, ret;

	memset(app, 0, sizeof(*app));
	app->cfg = cfg;
	pthread_mutex_init(&app->reload_lock, NULL);
	pthread_mutex_init(&app->health_lock, NULL);
	app->hstate = UF_HEALTH_STARTING;
	snprintf(app->reload_result, sizeof(app->reload_result), "none");
	app->opts = *o;
	uf_app_dtrace_init(app);
	uf_snap_pub_init(&app->pub);
	app->start_tsc = app->prev_snap_tsc = rte_rdtsc();
	/* the control lcore's wake-up; without it, it naps UF_CTL_SLEEP_POLL_US at most */
	app->sh.ctl_wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (app->sh.ctl_wake_fd < 0)
		UF_LOG(NOTICE, "no eventfd (%s): the control lcore polls every %u us",
		       strerror(errno), UF_CTL_SLEEP_POLL_US);
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
	/* the munmap() guard's own RCU variable, which the workers report to; armed by a memif
	 * port (docs/pmd-quirks.md, "Unmapped under a running worker") */
	if (uf_unmap_guard_init(app->n_workers) != 0) {
		uf_err_set(err, UF_EXIT_ENV, "cannot set up RCU for %u workers", app->n_workers);
		return -ENOMEM;
	}
	app->sh.unmap_qsbr = uf_unmap_guard_qsbr();

	memset(&po, 0, sizeof(po));
	po.nb_workers = app->n_workers;
	po.burst = cfg->fwd.burst;
	po.n_dests = (uint16_t)cfg->n_dests;
	po.want_chain = uf_plan_may_chain(cfg);
	app->chain_set_up = po.want_chain;
	po.chain_forced = cfg->fwd.fanout == UF_FANOUT_CHAIN;
	po.link_wait_ms = o->link_wait_ms != 0 ? o->link_wait_ms : LINK_WAIT_MS_DEFAULT;
	for (i = 0; i < cfg->n_ports; i++) {
		if (cfg->ports[i].dev != i) { /* a VLAN alias on an earlier port's device */
			uf_port_alias(&app->ports[i], &app->ports[cfg->ports[i].dev], cfg,
				      (uint16_t)i);
			app->n_ports_up = i + 1;
			continue;
		}
		ret = uf_port_init(&app->ports[i], cfg, (uint16_t)i, &po, err);
		app->n_ports_up = i + 1;
		if (ret != 0)
			return ret;
		if (app->ports[i].quirk->needs_timer_manage)
			app->timers = true;
	}

	vlan_xdp_warn(app);
	ret = uf_resolve_init(&app->res, cfg, app->ports[cfg->listen.port].socket, err);
	if (ret != 0)
		return ret;
	app->res.port_up = app->link_was_up; /* pools leave members on a down link out */
	ret = uf_app_create_workers(app, err);
	if (ret != 0)
		return ret;
	uf_ctlframes_init(&app->cf, cfg, app->ports, app->w, app->n_workers, &app->res.neigh,
			  &app->ctl, &app->health);
	uf_app_check_placement(app);
	if (uf_resolve_publish(&app->res, app->ports, &app->sh, &app->ctl) != 0) {
		uf_err_set(err, UF_EXIT_ENV, "cannot build the fan-out plan: out of memory");
		return -ENOMEM;
	}
	return 0;
}

void
uf_app_request_stop(struct uf_app *app)
{
	__atomic_store_n(&app->sh.quit, 1, __ATOMIC_RELAXED);
	uf_shared_wake_ctl(&app->sh);
}

void
uf_app_request_reload(struct uf_app *app)
{
	__atomic_add_fetch(&app->reload_req, 1, __ATOMIC_RELAXED);
	uf_shared_wake_ctl(&app->sh);
}

/* telemetry's /udpfan/health (a telemetry thread) */
static int
tel_health(void *arg, struct uf_health *out)
{
	uf_app_health_get(arg, out);
	return 0;
}

/* telemetry's /udpfan/reload (a telemetry thread): synchronous */
static int
tel_reload(void *arg, char *result, size_t rlen, char *reason, size_t len, uint64_t *gen)
{
	return uf_app_reload_wait(arg, 10000, result, rlen, reason, len, gen);
}

/* telemetry's /udpfan/droptrace (a telemetry thread) */
static int
tel_droptrace(void *arg, uint32_t n, struct uf_tel_dtrace *out)
{
	return uf_app_dtrace_request(arg, n, out);
}

/* Type=notify: the ports are up and the workers launched (docs/deployment.md#systemd) */
static void
notify_ready(const struct uf_app *app)
{
	const struct uf_config *cfg = app->cfg;
	char status[128];

	snprintf(status, sizeof(status), "%d port%s, %u worker%s, %d destination%s", cfg->n_ports,
		 cfg->n_ports == 1 ? "" : "s", app->n_workers, app->n_workers == 1 ? "" : "s",
		 cfg->n_dests, cfg->n_dests == 1 ? "" : "s");
	uf_notify_ready(status);
}

int
uf_app_run(struct uf_app *app, struct uf_err *err)
{
	const struct uf_config *cfg = app->cfg;
	uint64_t hz = rte_get_tsc_hz(), interval, next, end = 0;
	struct uf_port_opts po = { .link_wait_ms = app->opts.link_wait_ms ? app->opts.link_wait_ms
									  : LINK_WAIT_MS_DEFAULT };
	uint16_t k;
	int i, ret;

	if (uf_app_stats_open(app, err) != 0)
		return -1;
	for (i = 0; i < cfg->n_ports; i++) {
		/* the event callbacks before start: a link change or reset the PMD raises while
		 * (or right after) it starts is not lost; what they note waits for the control
		 * loop (docs/architecture.md, "Link state") */
		uf_app_watch_port(app, i);
		ret = uf_port_start(&app->ports[i], cfg, &po, err);
		if (ret != 0)
			return -1;
		app->link_was_up[i] = app->ports[i].link_up;
		__atomic_store_n(&app->sh.link_down[i], app->ports[i].link_up ? 0 : 1,
				 __ATOMIC_RELAXED);
		if (uf_env_check_llq_wc(app->ports[i].cfg, app->ports[i].quirk, err) != 0)
			return -1;
	}
	app->tel = (struct uf_tel_ops){
		.pub = &app->pub,
		.reset_port = tel_reset_port,
		.reload = tel_reload,
		.health = tel_health,
		.droptrace = tel_droptrace,
		.arg = app,
	};
	uf_tel_register(&app->tel);

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
	for (i = 0; i < cfg->n_ports; i++)
		if (app->link_was_up[i])
			uf_ctlframes_garp(&app->cf, (uint16_t)i);
	uf_app_health_set(app, UF_HEALTH_READY);
	notify_ready(app);

	app->start_tsc = app->prev_snap_tsc = rte_rdtsc();
	interval = (uint64_t)(cfg->stats.interval_s * (double)hz);
	next = app->start_tsc + interval;
	if (app->opts.duration_s > 0)
		end = app->start_tsc + (uint64_t)(app->opts.duration_s * (double)hz);

	while (!__atomic_load_n(&app->sh.quit, __ATOMIC_RELAXED)) {
		uint64_t now, next_ms, until;

		next_ms = ctl_tick(app);
		uf_app_dtrace_tick(app);
		if (uf_app_answer_reload(app)) {
			/* stats.interval_s may have changed: the next tick from now */
			interval = (uint64_t)(app->cfg->stats.interval_s * (double)hz);
			next = rte_rdtsc() + interval;
		}
		now = rte_rdtsc();
		/* SIGTERM: a drain starts (workers untouched), or the stop is now */
		if (uf_app_drain_tick(app, now))
			break;
		uf_app_health_update(app);
		if (now >= next) {
			uf_app_stats_tick(app, false);
			next += interval;
			if (next < now)
				next = now + interval;
		}
		if (end != 0 && now >= end)
			break;
		/* the next deadline: neighbour timers, link poll, stats, the run's end; at most
		 * UF_CTL_SLEEP_MAX_MS (a tick due already: next_ms in the past, no sleep) */
		until = app->start_tsc +
			RTE_MIN(next_ms, uf_app_now_ms(app) + UF_CTL_SLEEP_MAX_MS) * (hz / 1000);
		until = RTE_MIN(until, next);
		if (end != 0)
			until = RTE_MIN(until, end);
		if (app->hstate == UF_HEALTH_DRAINING)
			until = RTE_MIN(until, app->drain_end_tsc);
		if (uf_app_dtrace_busy(app)) /* its ring is emptied every ms */
			until = RTE_MIN(until, now + hz / 1000);
		ctl_sleep(app, until);
	}
	uf_app_health_set(app, UF_HEALTH_STOPPING);
	uf_notify_stopping();
	uf_app_request_stop(app);
	rte_eal_mp_wait_lcore();

	/* what the workers handed over last is answered no more, but it is freed and counted:
	 * fwd.control is every frame handed over, so each one lands in a control counter
	 * (docs/loss-accounting.md#control-plane-counters) */
	uf_ctlframes_drain(&app->cf);
	uf_app_dtrace_stop(app);
	uf_app_stats_tick(app, true);
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

	uf_tel_unregister(&app->tel);
	uf_snap_pub_fini(&app->pub);
	/* every device closed before any pool is freed: TX rings hold other ports' mbufs */
	for (i = 0; i < app->n_ports_up; i++) {
		uf_app_unwatch_port(app, i);
		uf_port_release(&app->ports[i]);
	}
	for (i = 0; i < app->n_ports_up; i++)
		uf_port_close(&app->ports[i]);
	for (i = 0; i < app->n_workers; i++) {
		uf_worker_destroy(app->w[i]);
		app->w[i] = NULL;
	}
	uf_app_dtrace_fini(app);
	uf_plan_free(app->sh.plan);
	app->sh.plan = NULL;
	uf_resolve_fini(&app->res);
	app->sh.unmap_qsbr = NULL;
	uf_unmap_guard_fini();
	rte_free(app->sh.qsbr);
	/* the config main() gave stays its own to free */
	uf_config_free(app->cfg_owned);
	app->cfg_owned = NULL;
	if (app->json != NULL)
		fclose(app->json);
	app->json = NULL;
	if (app->sh.ctl_wake_fd > 0)
		close(app->sh.ctl_wake_fd);
	app->sh.ctl_wake_fd = -1;
}
