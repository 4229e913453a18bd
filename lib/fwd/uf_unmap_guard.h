/* SPDX-License-Identifier: BSD-3-Clause
 * The workers' guard against a PMD that unmaps the memory of a running queue from another
 * thread (docs/pmd-quirks.md, "Unmapped under a running worker"): while armed, every
 * munmap() in the process first waits until each online worker has been quiescent once
 * (rte_rcu_qsbr), so that no worker is still inside an RX or TX burst begun before the PMD
 * marked the port disconnected. udpfan defines munmap() for the whole process and exports
 * it (meson.build), so the PMDs EAL loads bind to it.
 */
#ifndef UF_UNMAP_GUARD_H
#define UF_UNMAP_GUARD_H

#include <stdint.h>

struct rte_rcu_qsbr;

/* Arm with the workers' RCU variable (before they start); disarm before it is freed: it
 * waits for any munmap() still using it. Control lcore. */
void uf_unmap_guard_arm(struct rte_rcu_qsbr *q);
void uf_unmap_guard_disarm(void);

/* A worker says which RCU thread it is, so that a munmap() of its own does not wait for
 * itself. */
void uf_unmap_guard_self(unsigned int thread_id);

/* How many munmap() calls waited for the workers (the unit test reads it). */
uint64_t uf_unmap_guard_waits(void);

#endif
