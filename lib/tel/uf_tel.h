/* SPDX-License-Identifier: BSD-3-Clause
 * DPDK telemetry commands: /udpfan/stats (the stats JSON object), /udpfan/ports and
 * /udpfan/neighbors, served from the control lcore's last snapshot (dpdk-telemetry.py reads
 * them). Dict keys are snake_case: 22.11 rejects anything outside [A-Za-z0-9_/].
 */
#ifndef UF_TEL_H
#define UF_TEL_H

struct uf_app;

void uf_tel_register(struct uf_app *app);
void uf_tel_unregister(struct uf_app *app);

#endif /* UF_TEL_H */
