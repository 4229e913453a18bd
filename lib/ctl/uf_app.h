/* SPDX-License-Identifier: BSD-3-Clause
 * The forwarder's life: ports, workers and the first plan at start-up; then the control lcore
 * (ARP, ICMP, neighbour timers, plan updates, stats, telemetry), which sleeps between ticks;
 * then a clean stop that drains the workers and writes the final stats. uf_app.c composes
 * the parts: uf_resolve (destinations, plan), uf_ctlframes (ARP/ICMP), uf_app_watch.c (links,
 * resets), uf_app_stats.c (snapshots, stats output), uf_app_workers.c (lib/fwd workers),
 * lib/port, lib/tel.
 */
#ifndef UF_APP_H
#define UF_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>

#include "uf_config.h"
#include "uf_ctlframes.h"
#include "uf_fwd.h"
#include "uf_health.h"
#include "uf_port.h"
#include "uf_resolve.h"
#include "uf_snap_pub.h"
#include "uf_stats.h"
#include "uf_tel.h"

/* link state (docs/architecture.md, "Link state"): read this often on the control lcore,
 * and at once after a link-change interrupt */
#define UF_LINK_POLL_MS 100
/* ... and this often while a peer-process link without a link-change interrupt (net_memif)
 * is down: its copies are dropped as tx_drop.link_down until the poll sees the peer, so the
 * poll is what a peer (re)connect costs (docs/architecture.md#link-state) */
#define UF_LINK_POLL_PEER_MS 1
/* the control lcore sleeps until its next deadline, at most this long (every source of
 * work wakes it: docs/architecture.md#the-control-lcore) */
#define UF_CTL_SLEEP_MAX_MS UF_LINK_POLL_MS
/* ... and at most this long where a PMD needs rte_timer_manage() (ENA's watchdog), or
 * where the wake-up eventfd could not be made */
#define UF_CTL_SLEEP_POLL_US 500
/* a port skipped for making no TX progress is tried again this often */
#define UF_TX_PROBE_MS 100
/* forward.flush_idle_us auto where a port's tx_burst is a system call (af_xdp, af_packet):
 * on the veth bed 10 and 20 sent a burst that arrived in pieces in one call alike
 * (docs/benchmarks.md#where-the-cpu-goes-on-veth) */
#define UF_FLUSH_IDLE_US_SYSCALL 10

struct uf_app;

/* The drop trace's control side (uf_droptrace.c, docs/loss-accounting.md#drop-trace) */
enum uf_dtrace_state {
	UF_DTRACE_IDLE,
	UF_DTRACE_ARMED,
	UF_DTRACE_CLOSING
};
struct uf_dtrace {
	enum uf_dtrace_state state; /* the control lcore's */
	uint32_t req;               /* a request's N (telemetry), through __atomic builtins */
	FILE *f;
	bool werr;
	char path[256];
	uint64_t want, written, missed0;
	uint64_t tsc0, ns0; /* the clocks at the start: a copy's TSC to the file's time */
	uint64_t token;     /* the RCU grace period that closes it */
	pthread_mutex_t lock;
	struct uf_tel_dtrace pub; /* for telemetry, under lock */
};

struct uf_app_opts {
	double duration_s;      /* 0: until a signal */
	const char *stats_json; /* overrides stats.json; NULL: the config's */
	FILE *human;            /* the stats line and the final ledger (stderr) */
	uint32_t link_wait_ms;
	/* SIGHUP and /udpfan/reload, on the control lcore: NULL is the built-in reload
	 * (uf_app_reload, docs/configuration.md#reload) */
	void (*on_reload)(struct uf_app *app, void *arg);
	void *reload_arg;
};

struct uf_app {
	const struct uf_config *cfg;
	struct uf_app_opts opts;
	uint16_t n_workers;
	uint16_t worker_lcore[UF_MAX_WORKERS];
	struct uf_port ports[UF_MAX_PORTS];
	int n_ports_up; /* initialised, for unwinding */
	struct uf_worker *w[UF_MAX_WORKERS];
	struct uf_shared sh;
	bool timers; /* a port's PMD needs rte_timer_manage() (ENA) */

	struct uf_resolve res; /* destinations' next hops, the published plan */
	struct uf_ctl_ctr ctl;
	struct uf_ctlframes cf; /* ARP/ICMP */

	/* links and resets (uf_app_watch.c); the int flags only through __atomic builtins */
	bool link_was_up[UF_MAX_PORTS]; /* the link as last checked */
	bool tx_stalled[UF_MAX_PORTS];  /* a worker skips the port: no TX progress */
	uint64_t next_link_ms;
	int lsc_pending; /* set by the LSC callback (interrupt thread) */
	uint64_t lsc_events;
	int reset_pending[UF_MAX_PORTS]; /* UF_RESET_REQUESTED | UF_RESET_EVENT */
	/* reload (uf_reload.c): requests (SIGHUP, telemetry) bump reload_req; the control loop
	 * answers every request up to reload_req with one reload and then sets reload_done
	 * (both through __atomic builtins), so requests in a row coalesce */
	uint64_t reload_req;
	uint64_t reload_done;
	struct uf_config *cfg_owned; /* a reloaded config (app->cfg), freed at the next one */
	uint64_t cfg_generation;     /* configs applied since start */
	bool chain_set_up;           /* the ports were asked for chaining at start (want_chain) */
	pthread_mutex_t reload_lock; /* the last result, for the telemetry thread */
	char reload_result[16];
	char reload_reason[512];

	/* stats */
	uint64_t start_tsc;
	uint64_t prev_snap_tsc;
	struct uf_snap snap[2];
	int cur;
	FILE *json;
	struct uf_snap_pub pub; /* the last snapshot, for telemetry */
	struct uf_tel_ops tel;
	/* drop reasons that point at the host's settings: what was last told the operator */
	uint64_t hint_told[UF_DROP_MAX];
	uint64_t hint_tsc[UF_DROP_MAX];

	/* health and the drain (uf_app_health.c, docs/deployment.md#health-and-drain): the
	 * state and the last evaluation, the control lcore's; SIGTERMs so far (term_req, the
	 * signal handler's, through __atomic builtins) and those the control lcore has seen;
	 * the copy telemetry reads, under health_lock, with the drain's end (TSC; 0: none) */
	enum uf_health_state hstate;
	struct uf_health health;
	uint64_t term_req;
	uint64_t term_seen;
	uint64_t drain_end_tsc;
	uint32_t drain_len_s; /* the drain under way's drain_s */
	pthread_mutex_t health_lock;
	struct uf_health health_pub;
	uint64_t health_pub_end;

	struct uf_dtrace dt;

	/* a failure the control lcore hit while running (a port reset that failed) */
	bool failed;
	struct uf_err fail;
};

/* After rte_eal_init: ports, pools, workers, plan. err gets the one-line reason. */
int uf_app_init(struct uf_app *app, const struct uf_config *cfg, const struct uf_app_opts *o,
		struct uf_err *err);

/* Start ports, launch workers, run the control loop until quit or duration, stop, write the
 * final stats. Returns 0, or -1 with err. */
int uf_app_run(struct uf_app *app, struct uf_err *err);

/* Ask the loop to stop (async-signal-safe). */
void uf_app_request_stop(struct uf_app *app);

/* SIGTERM (async-signal-safe): with control.drain_s > 0 the first one starts a drain, the
 * next one stops; else a stop (docs/deployment.md#health-and-drain). */
void uf_app_request_term(struct uf_app *app);

/* Ask the control loop to reload (SIGHUP; async-signal-safe). It never stops udpfan. */
void uf_app_request_reload(struct uf_app *app);

/* Answer pending reload requests (control lcore): re-read cfg->path, validate, diff, apply
 * what a new plan can or refuse it all; logs, counts and keeps the result. True when a new
 * config was applied. */
bool uf_app_answer_reload(struct uf_app *app);

/* Reload now and wait for the answer (a telemetry thread): 0 with the result, reason and
 * generation, or -ETIMEDOUT / -ESHUTDOWN when the control loop did not answer. */
int uf_app_reload_wait(struct uf_app *app, uint32_t timeout_ms, char *result, size_t rlen,
		       char *reason, size_t len, uint64_t *generation);

/* Destination i's counters since it was added (its slot's, less what a removed
 * destination left there; uf_reload.c). */
void uf_app_dest_counters(const struct uf_app *app, int i, struct uf_dest_ctr *out);

/* Liveness accounting (docs/loss-accounting.md#liveness), after each neighbour tick: a
 * destination's tx_ok marked when its next hop answers; on a liveness failure, the copies
 * since the mark added to its liveness_suspect (uf_reload.c). */
void uf_app_liveness(struct uf_app *app);

/* Why a port's reset is pending (bits of uf_app.reset_pending): an operator's request or a
 * watched xstat, or the device's RTE_ETH_EVENT_INTR_RESET */
#define UF_RESET_REQUESTED 1
#define UF_RESET_EVENT 2

/* Ask the control lcore to reset a port (as a device reset event does); thread-safe. */
void uf_app_request_reset(struct uf_app *app, int port);

/* Close ports and free what init made. */
void uf_app_fini(struct uf_app *app);

/* Take a snapshot of every counter (control lcore). */
void uf_app_snapshot(struct uf_app *app, struct uf_snap *s, bool final);

/* ---- the parts of the control lcore, for uf_app.c (uf_app_watch.c, uf_app_stats.c) ---- */

/* Start-up (uf_app_workers.c): every worker, then the placement warnings. */
int uf_app_create_workers(struct uf_app *app, struct uf_err *err);
void uf_app_check_placement(struct uf_app *app);

/* ms since the run started (the control clock) */
uint64_t uf_app_now_ms(const struct uf_app *app);

/* Port i's link-change and reset events (its quirk row and plan say which) on / off. */
void uf_app_watch_port(struct uf_app *app, int i);
void uf_app_unwatch_port(struct uf_app *app, int i);

/* Requested port resets: quiesce the device's queues only, reset, poll them again. */
void uf_app_handle_resets(struct uf_app *app);

/* Every LINK_POLL_MS and after a link-change event: link state and TX stalls. */
void uf_app_check_links(struct uf_app *app);

/* Every LINK_POLL_MS: the rows' reset-worthy xstats; a rise requests the port's reset. */
void uf_app_check_faults(struct uf_app *app);

/* Health (uf_app_health.c), control lcore: evaluate the degraded rule now and publish it
 * (each pass); set the state and publish. */
void uf_app_health_update(struct uf_app *app);
void uf_app_health_set(struct uf_app *app, enum uf_health_state st);
/* The published health with drain_left_s as of now (any thread: telemetry). */
void uf_app_health_get(struct uf_app *app, struct uf_health *out);
/* The control lcore's own, the same (for the snapshot). */
void uf_app_health_now(const struct uf_app *app, struct uf_health *out);
/* SIGTERMs not yet seen by uf_app_drain_tick? */
bool uf_app_term_pending(const struct uf_app *app);
/* The SIGTERMs so far (now: TSC): starts the drain, or says to stop now (true). */
bool uf_app_drain_tick(struct uf_app *app, uint64_t now);

/* Open the stats JSON file (opts, else the config's; none: no file). 0, or -1 with err. */
int uf_app_stats_open(struct uf_app *app, struct uf_err *err);

/* A snapshot, the host-setting hints, the human line, the JSON line, the telemetry copy. */
void uf_app_stats_tick(struct uf_app *app, bool final);

/* The drop trace (uf_droptrace.c): set up (init); each control pass (tick); a trace under
 * way (busy: the control lcore then sleeps 1 ms at most); the workers stopped: write what is
 * left and close (stop); free the pool and ring (fini). request: a telemetry thread's
 * /udpfan/droptrace (uf_tel_ops.droptrace). */
void uf_app_dtrace_init(struct uf_app *app);
void uf_app_dtrace_tick(struct uf_app *app);
bool uf_app_dtrace_busy(const struct uf_app *app);
void uf_app_dtrace_stop(struct uf_app *app);
void uf_app_dtrace_fini(struct uf_app *app);
int uf_app_dtrace_request(struct uf_app *app, uint32_t n, struct uf_tel_dtrace *out);

#endif /* UF_APP_H */
