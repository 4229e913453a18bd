/* SPDX-License-Identifier: BSD-3-Clause
 * The forwarder's life: ports, workers and the first plan at start-up; then the control lcore
 * (ARP, ICMP, neighbour timers, plan updates, stats, telemetry), which sleeps between ticks;
 * then a clean stop that drains the workers and writes the final stats.
 */
#ifndef UF_APP_H
#define UF_APP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "uf_config.h"
#include "uf_fwd.h"
#include "uf_neigh.h"
#include "uf_port.h"
#include "uf_stats.h"

struct rte_lpm;
struct uf_app;

struct uf_app_opts {
	double duration_s;      /* 0: until a signal */
	const char *stats_json; /* overrides stats.json; NULL: the config's */
	FILE *human;            /* the stats line and the final ledger (stderr) */
	uint32_t link_wait_ms;
	/* SIGHUP, on the control lcore: NULL logs that reload is not implemented and goes on */
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
	struct rte_lpm *lpm;
	bool timers; /* a port's PMD needs rte_timer_manage() (ENA) */

	/* neighbours: destination → entry (-1: static MAC or multicast) */
	struct uf_neigh_table neigh;
	int dest_neigh[UF_MAX_DESTS];
	struct rte_ether_addr dest_mac[UF_MAX_DESTS];
	bool dest_resolved[UF_MAX_DESTS];
	uint64_t plan_version;

	struct uf_ctl_ctr ctl;
	double icmp_tokens[UF_MAX_PORTS];
	uint64_t icmp_last_ms[UF_MAX_PORTS];
	bool link_was_up[UF_MAX_PORTS]; /* the link as last checked (check_links) */
	bool tx_stalled[UF_MAX_PORTS];  /* a worker skips the port: no TX progress */
	uint64_t next_link_ms;
	volatile int lsc_pending; /* set by the LSC callback (interrupt thread) */
	uint64_t lsc_events;
	volatile int reset_pending[UF_MAX_PORTS];
	volatile int reload_pending; /* SIGHUP seen; the control loop answers it */

	/* stats */
	uint64_t start_tsc;
	uint64_t prev_snap_tsc;
	struct uf_snap snap[2];
	int cur;
	FILE *json;
	pthread_mutex_t tel_lock; /* the telemetry thread reads tel_snap */
	struct uf_snap tel_snap;
	bool tel_ready;
	/* drop reasons that point at the host's settings: what was last told the operator */
	uint64_t hint_told[UF_DROP_MAX];
	uint64_t hint_tsc[UF_DROP_MAX];

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

/* Ask the control loop to reload (SIGHUP; async-signal-safe). It never stops udpfan. */
void uf_app_request_reload(struct uf_app *app);

/* Ask the control lcore to reset a port (as a device reset event does); thread-safe. */
void uf_app_request_reset(struct uf_app *app, int port);

/* Close ports and free what init made. */
void uf_app_fini(struct uf_app *app);

/* Take a snapshot of every counter (control lcore). */
void uf_app_snapshot(struct uf_app *app, struct uf_snap *s, bool final);

#endif /* UF_APP_H */
