/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include "uf_place.h"

/* the first CPU an lcore may run on (rte_lcore_to_cpu_id gives the core's topology id) */
static int
lcore_cpu(unsigned int lcore)
{
	rte_cpuset_t set = rte_lcore_cpuset(lcore);
	int cpu;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

void
uf_place_lcores(struct uf_place *pl, const uint16_t *worker_lcore, int n_workers)
{
	int i;

	pl->main_cpu = lcore_cpu(rte_get_main_lcore());
	pl->n_workers = n_workers;
	for (i = 0; i < n_workers; i++) {
		pl->worker_cpu[i] = lcore_cpu(worker_lcore[i]);
		pl->worker_socket[i] = (int)rte_lcore_to_socket_id(worker_lcore[i]);
	}
}

static int __rte_format_printf(3, 4) warn_f(uf_env_note_fn warn, void *arg, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (warn != NULL)
		warn(arg, msg);
	return 1;
}

/* Is cpu b in the thread_siblings_list of cpu a ("0,8" or "0-1")? */
static bool
ht_siblings(int a, int b)
{
	char path[512], buf[256];
	const char *c;
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 uf_env_sysfs_root(), a);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	if (fgets(buf, sizeof(buf), f) == NULL) {
		fclose(f);
		return false;
	}
	fclose(f);
	for (c = buf; *c != '\0' && *c != '\n';) {
		char *end;
		long lo = strtol(c, &end, 10), hi = lo;

		if (end == c)
			break;
		c = end;
		if (*c == '-') {
			hi = strtol(c + 1, &end, 10);
			c = end;
		}
		if (b >= lo && b <= hi)
			return true;
		if (*c == ',')
			c++;
	}
	return false;
}

double
uf_cgroup_cpu_limit(const char *cgroup_file)
{
	char line[512], path[1024], dir[768], buf[128];
	double best = 0;
	FILE *f = fopen(cgroup_file != NULL ? cgroup_file : "/proc/self/cgroup", "r");

	if (f == NULL)
		return 0;
	dir[0] = '\0';
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "0::", 3) == 0) { /* cgroup v2 */
			snprintf(dir, sizeof(dir), "%s", line + 3);
			dir[strcspn(dir, "\n")] = '\0';
		}
	}
	fclose(f);
	/* the kernel writes an absolute path; anything else (a hand-made or foreign file) names
	 * no cgroup we can find: no limit known */
	if (dir[0] != '/')
		return 0;
	/* the effective quota is the smallest along the path to the root */
	for (;;) {
		FILE *m;

		snprintf(path, sizeof(path), "%s/fs/cgroup%s/cpu.max", uf_env_sysfs_root(),
			 strcmp(dir, "/") == 0 ? "" : dir);
		m = fopen(path, "r");
		if (m != NULL) {
			long quota, period;

			if (fgets(buf, sizeof(buf), m) != NULL &&
			    sscanf(buf, "%ld %ld", &quota, &period) == 2 && period > 0) {
				double cpus = (double)quota / (double)period;

				if (best == 0 || cpus < best)
					best = cpus;
			}
			fclose(m);
		}
		if (strcmp(dir, "/") == 0 || dir[0] == '\0')
			break;
		*strrchr(dir, '/') = '\0';
		if (dir[0] == '\0')
			snprintf(dir, sizeof(dir), "/");
	}
	return best;
}

int
uf_placement_check(const struct uf_place *pl, const char *cgroup_file, uf_env_note_fn warn,
		   void *arg)
{
	double limit;
	int n = 0, i, j;

	for (i = 0; i < pl->n_workers; i++) {
		for (j = 0; j < pl->n_ports; j++)
			if (pl->port_socket[j] >= 0 && pl->worker_socket[i] != pl->port_socket[j])
				n += warn_f(warn, arg,
					    "worker %d runs on CPU %d (NUMA socket %d) but port %s "
					    "is on socket %d: every packet crosses the interconnect; "
					    "give it lcores on socket %d",
					    i, pl->worker_cpu[i], pl->worker_socket[i],
					    pl->port_name[j], pl->port_socket[j],
					    pl->port_socket[j]);
		if (pl->worker_cpu[i] == pl->main_cpu)
			n += warn_f(warn, arg,
				    "the main lcore shares CPU %d with worker %d: the worker "
				    "busy-polls, so ARP, ICMP and stats wait for the scheduler; give the "
				    "main lcore a CPU of its own",
				    pl->main_cpu, i);
		for (j = 0; j < i; j++) {
			if (pl->worker_cpu[i] == pl->worker_cpu[j])
				n += warn_f(warn, arg,
					    "workers %d and %d busy-poll on the same CPU %d: each "
					    "gets half of it at best, in time slices of milliseconds; "
					    "give every worker a CPU of its own",
					    j, i, pl->worker_cpu[i]);
			else if (ht_siblings(pl->worker_cpu[j], pl->worker_cpu[i]))
				n += warn_f(warn, arg,
					    "workers %d and %d are on hyper-thread siblings (CPUs "
					    "%d and %d): they share one core's execution units; prefer "
					    "one worker per physical core",
					    j, i, pl->worker_cpu[j], pl->worker_cpu[i]);
		}
	}
	limit = uf_cgroup_cpu_limit(cgroup_file);
	if (limit > 0 && limit < (double)pl->n_workers)
		n += warn_f(warn, arg,
			    "the cgroup's CPU quota allows %.2f CPUs but %d worker%s busy-poll%s: "
			    "CFS throttles the whole group for the rest of each period, and every "
			    "worker stops at once (loss in bursts); raise cpu.max to at least %d CPUs "
			    "or run fewer workers",
			    limit, pl->n_workers, pl->n_workers == 1 ? "" : "s",
			    pl->n_workers == 1 ? "s" : "", pl->n_workers + 1);
	return n;
}
