/* SPDX-License-Identifier: BSD-3-Clause
 * The workers' guard against net_memif unmapping a running queue's rings from EAL's interrupt
 * thread (docs/pmd-quirks.md, "Unmapped under a running worker"). udpfan's munmap()
 * (uf_munmap.c, linked into the udpfan program only) calls uf_unmap_guard_before_unmap()
 * first: while a memif port exists and only on EAL's interrupt thread, it waits (bounded)
 * until each worker has passed a quiescent point on the guard's own RCU variable, which
 * nothing frees memory by. Everywhere else it returns at once.
 */
#ifndef UF_UNMAP_GUARD_H
#define UF_UNMAP_GUARD_H

#include <stdbool.h>
#include <stdint.h>

struct rte_rcu_qsbr;

/* The longest a munmap() on the interrupt thread waits for the workers; then it logs a
 * warning and unmaps */
#define UF_UNMAP_GUARD_TIMEOUT_MS 500

/* The guard's RCU variable for n workers (thread ids 0 .. n - 1): the workers report to it
 * once a pass (lib/fwd: uf_shared.unmap_qsbr). Control lcore: init before the workers start,
 * fini after they stopped (it waits for a munmap() still using the variable). */
int uf_unmap_guard_init(unsigned int n_workers);
void uf_unmap_guard_fini(void);
struct rte_rcu_qsbr *uf_unmap_guard_qsbr(void);

/* A port whose PMD unmaps under the workers (net_memif) was set up / is gone: the guard is
 * armed while there is one. */
void uf_unmap_guard_port_add(void);
void uf_unmap_guard_port_del(void);

/* Whether the PMD behind driver_name, as loaded in this process, waits for the bursts before
 * it unmaps (net_memif with the carried patch, uf_compat.h UF_MEMIF_QUIESCE_SYMBOL): then the
 * guard need not be armed for its ports. False for every other driver, and where unsure. */
bool uf_unmap_guard_pmd_quiesces(const char *driver_name);

/* munmap()'s hook: 1 if it waited for a grace period of the workers, 0 if there was nothing
 * to wait for (disarmed, not EAL's interrupt thread, no RCU variable, or a munmap() of the
 * guard's own log line), -ETIMEDOUT after UF_UNMAP_GUARD_TIMEOUT_MS (logged). */
int uf_unmap_guard_before_unmap(void);

struct uf_unmap_guard_stats {
	uint64_t waits;    /* grace periods waited for */
	uint64_t timeouts; /* of them, given up after the time-out */
};
void uf_unmap_guard_stats_get(struct uf_unmap_guard_stats *st);

/* The tests' shorter time-out (0: UF_UNMAP_GUARD_TIMEOUT_MS) */
void uf_unmap_guard_timeout_set(uint32_t ms);

#endif
