/* SPDX-License-Identifier: BSD-3-Clause
 * Service manager readiness (docs/deployment.md, "systemd"): the unit udpfan@.service is
 * Type=notify. Built with libsystemd (meson: dependency('libsystemd', required: false),
 * UF_HAVE_LIBSYSTEMD), these send sd_notify's READY=1, RELOADING=1 and STOPPING=1; without
 * it, or outside systemd, each is only a log line. Control lcore only, never the hot path.
 */
#ifndef UF_NOTIFY_H
#define UF_NOTIFY_H

/* The ports are up and the workers run: READY=1, STATUS "ready: " and one line ("2 ports,
 * 3 destinations"). */
void uf_notify_ready(const char *status);
/* STATUS alone: a state change that is not READY or STOPPING (draining: ...). */
void uf_notify_status(const char *status);
/* A reload starts (uf_notify_ready() again when it is over, applied or refused). */
void uf_notify_reloading(void);
/* The workers are being stopped. */
void uf_notify_stopping(void);

#endif /* UF_NOTIFY_H */
