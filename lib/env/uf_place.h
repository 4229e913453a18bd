/* SPDX-License-Identifier: BSD-3-Clause
 * Where the lcores landed, checked at start-up: each finding is a warning that names the
 * cost and the fix (a worker across the interconnect from its port, two busy-polling lcores
 * on one core or on hyper-thread siblings, the main lcore sharing a worker's CPU, a cgroup CPU
 * quota below the number of busy-polling lcores: the CFS throttling trap).
 */
#ifndef UF_PLACE_H
#define UF_PLACE_H

#include "uf_common.h"
#include "uf_env.h"

struct uf_place {
	int main_cpu;
	int n_workers;
	int worker_cpu[UF_MAX_WORKERS];
	int worker_socket[UF_MAX_WORKERS];
	int n_ports;
	int port_socket[UF_MAX_PORTS];
	const char *port_name[UF_MAX_PORTS];
};

/* Fill the lcore half of pl from EAL: the main lcore's CPU, and each worker lcore's first
 * CPU and socket (after rte_eal_init). The caller fills the ports. */
void uf_place_lcores(struct uf_place *pl, const uint16_t *worker_lcore, int n_workers);

/* Returns the number of warnings given to `warn`. Reads sysfs/cgroupfs under the root set by
 * uf_env_set_sysfs_root() and /proc/self/cgroup (or `cgroup_file` when not NULL). */
int uf_placement_check(const struct uf_place *pl, const char *cgroup_file, uf_env_note_fn warn,
		       void *arg);

/* CPUs the cgroup quota allows (cpu.max quota / period, the smallest along the path), or 0
 * when unlimited or unknown. */
double uf_cgroup_cpu_limit(const char *cgroup_file);

#endif /* UF_PLACE_H */
