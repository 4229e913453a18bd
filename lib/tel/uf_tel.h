/* SPDX-License-Identifier: BSD-3-Clause
 * DPDK telemetry commands: /udpfan/stats (the stats JSON object), /udpfan/ports and
 * /udpfan/neighbors, served from the control lcore's last snapshot; /udpfan/health, live (dpdk-telemetry.py reads
 * them). Dict keys are snake_case: 22.11 rejects anything outside [A-Za-z0-9_/].
 */
#ifndef UF_TEL_H
#define UF_TEL_H

#include <stddef.h>
#include <stdint.h>

#include "uf_health.h"
#include "uf_snap_pub.h"

/* /udpfan/droptrace's answer (docs/loss-accounting.md#drop-trace) */
struct uf_tel_dtrace {
	bool armed;     /* frames still wanted, or the last ones not yet written */
	char path[256]; /* the pcapng file (the last trace's when not armed) */
	uint64_t want;  /* frames asked for */
	uint64_t written;
	uint64_t missed; /* taken but lost: no buffer, ring full (since start) */
};

/* What the commands serve: the published snapshot, and the control side's reset request. */
struct uf_tel_ops {
	struct uf_snap_pub *pub;
	/* /udpfan/port_reset,<name>: 0, or -EINVAL for a name that is no port; thread-safe */
	int (*reset_port)(void *arg, const char *port_name);
	/* /udpfan/reload: reload now and wait for the result (docs/configuration.md#reload);
	 * 0, or -errno when the control loop did not answer */
	int (*reload)(void *arg, char *result, size_t rlen, char *reason, size_t len,
		      uint64_t *generation);
	/* /udpfan/health: the state, degraded and why, the drain (docs/deployment.md#health-
	 * and-drain), as of now; 0 */
	int (*health)(void *arg, struct uf_health *out);
	/* /udpfan/droptrace[,N]: N > 0 arms a trace of the next N drops (-EBUSY while one is
	 * armed); N 0 only reads the state. 0 with out filled */
	int (*droptrace)(void *arg, uint32_t n, struct uf_tel_dtrace *out);
	void *arg;
};

/* Serve ops (copied) from now on; the commands are registered once per process. */
void uf_tel_register(const struct uf_tel_ops *ops);

/* Stop serving ops (the commands then answer an error). */
void uf_tel_unregister(const struct uf_tel_ops *ops);

#endif /* UF_TEL_H */
