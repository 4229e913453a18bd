/* SPDX-License-Identifier: BSD-3-Clause
 * The instance's health (docs/deployment.md#health-and-drain): one state (starting, ready,
 * draining, stopping) and whether a forwarding instance is degraded, with the reasons. The
 * control lcore fills a uf_health_in from what it knows (links, next hops) and evaluates it
 * here, a pure function a unit test drives; the stats JSON, /udpfan/health, the exporter and
 * sd_notify's STATUS show the result.
 */
#ifndef UF_HEALTH_H
#define UF_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

enum uf_health_state {
	UF_HEALTH_STARTING = 0, /* ports and workers coming up: nothing forwarded yet */
	UF_HEALTH_READY,        /* forwarding */
	UF_HEALTH_DRAINING,     /* SIGTERM with drain_s > 0: forwarding until the drain ends */
	UF_HEALTH_STOPPING,     /* the workers are stopped, the final stats written */
	UF_HEALTH_N_STATES,
};

#define UF_HEALTH_MAX_REASONS 8
#define UF_HEALTH_REASON_LEN 96

/* A port as the health rule sees it */
struct uf_health_port {
	const char *name;
	bool up; /* the link as udpfan trusts it (docs/architecture.md#link-state) */
};

/* A listener: where it receives, and how many of its destinations could be sent to now */
struct uf_health_lis {
	const char *name;
	int port;        /* index into the ports */
	int n_dests;     /* its destinations and pool members (a pool entry itself not) */
	int n_reachable; /* of those: next hop usable and egress link up */
};

struct uf_health_in {
	enum uf_health_state state;
	int n_ports;
	const struct uf_health_port *ports;
	int n_listeners;
	const struct uf_health_lis *lis;
};

struct uf_health {
	enum uf_health_state state;
	bool degraded;
	int n_reasons; /* at most UF_HEALTH_MAX_REASONS kept */
	char reasons[UF_HEALTH_MAX_REASONS][UF_HEALTH_REASON_LEN];
	uint32_t drain_s;    /* the drain a SIGTERM starts (control.drain_s) */
	double drain_left_s; /* while draining: until the stop; else 0 */
};

/*
 * The rule (docs/deployment.md#health-and-drain): a ready or draining instance is degraded
 * when a port some listener receives on is link-down, or a listener has no destination it
 * can send to (every next hop unresolved or failed, or behind a link that is down). The
 * reasons name each; starting and stopping are never degraded and list none. out's
 * drain_s and drain_left_s are left as they were.
 */
void uf_health_eval(const struct uf_health_in *in, struct uf_health *out);

/* "starting", "ready", "draining", "stopping" */
const char *uf_health_state_name(enum uf_health_state s);

#endif /* UF_HEALTH_H */
