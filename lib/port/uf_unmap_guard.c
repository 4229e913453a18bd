/* SPDX-License-Identifier: BSD-3-Clause */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_interrupts.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>

#include "uf_common.h"
#include "uf_compat.h"
#include "uf_unmap_guard.h"

/*
 * Why (docs/pmd-quirks.md, "Unmapped under a running worker"): net_memif's disconnect runs on
 * EAL's interrupt thread when the peer goes. It clears the port's connected flag, then
 * munmap()s the shared regions the rings live in, with no wait for the lcores polling the
 * port, and it raises no link-change event before (or after) that a callback could wait in.
 * udpfan's munmap() comes here first. Only that thread waits, and only while a memif port
 * exists: the other threads that unmap (the control lcore, the workers themselves, the
 * vhost-events thread that unmaps a guest's memory while holding the virtqueues' locks a
 * worker's burst spins on) never wait here, so none of them can wait for a worker that waits
 * for them. The interrupt thread's wait is bounded all the same.
 *
 * The workers report to the guard's own RCU variable once a pass, outside every burst; no
 * memory is freed by it, and nothing on a worker ever reports on their behalf.
 */

static struct rte_rcu_qsbr *guard_q;
static uint32_t guard_users; /* hooks between loading guard_q and done with it */
static uint32_t guard_ports; /* memif ports set up: armed while non-zero */
static uint32_t guard_timeout_ms;
static uint64_t guard_waits, guard_timeouts;
static __thread bool guard_inside; /* this thread is in the hook (its log line's munmap()) */

int
uf_unmap_guard_init(unsigned int n_workers)
{
	size_t sz = rte_rcu_qsbr_get_memsize(n_workers);
	struct rte_rcu_qsbr *q;

	q = rte_zmalloc("uf_unmap_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (q == NULL)
		return -ENOMEM;
	if (rte_rcu_qsbr_init(q, n_workers) != 0) {
		rte_free(q);
		return -EINVAL;
	}
	__atomic_store_n(&guard_q, q, __ATOMIC_SEQ_CST);
	return 0;
}

void
uf_unmap_guard_fini(void)
{
	struct rte_rcu_qsbr *q = __atomic_exchange_n(&guard_q, NULL, __ATOMIC_SEQ_CST);

	while (__atomic_load_n(&guard_users, __ATOMIC_ACQUIRE) != 0)
		rte_pause();
	rte_free(q);
}

struct rte_rcu_qsbr *
uf_unmap_guard_qsbr(void)
{
	return __atomic_load_n(&guard_q, __ATOMIC_ACQUIRE);
}

void
uf_unmap_guard_port_add(void)
{
	__atomic_fetch_add(&guard_ports, 1, __ATOMIC_SEQ_CST);
}

void
uf_unmap_guard_port_del(void)
{
	__atomic_fetch_sub(&guard_ports, 1, __ATOMIC_SEQ_CST);
}

static int
grace_period(struct rte_rcu_qsbr *q)
{
	uint32_t ms = __atomic_load_n(&guard_timeout_ms, __ATOMIC_RELAXED);
	const uint64_t hz = rte_get_tsc_hz(), t0 = rte_get_tsc_cycles();
	uint64_t token, deadline;

	if (ms == 0)
		ms = UF_UNMAP_GUARD_TIMEOUT_MS;
	deadline = t0 + hz * ms / 1000;
	/* the token's seq_cst increment orders the PMD's flag store (made before its munmap()
	 * call) before it: a worker that acknowledges the token (acquire) sees the port
	 * disconnected in every burst after, and the burst it was in has returned */
	token = rte_rcu_qsbr_start(q);
	while (!rte_rcu_qsbr_check(q, token, false)) {
		uint64_t now = rte_get_tsc_cycles();

		if (now >= deadline)
			return -ETIMEDOUT;
		/* a pass is microseconds: spin that long, then sleep between looks */
		if (now - t0 < hz / 50000)
			rte_pause();
		else
			rte_delay_us_sleep(10);
	}
	return 1;
}

int
uf_unmap_guard_before_unmap(void)
{
	struct rte_rcu_qsbr *q;
	int ret = 0;

	if (__atomic_load_n(&guard_ports, __ATOMIC_SEQ_CST) == 0 || guard_inside ||
	    !rte_thread_is_intr())
		return 0;
	guard_inside = true;
	__atomic_fetch_add(&guard_users, 1, __ATOMIC_SEQ_CST);
	q = __atomic_load_n(&guard_q, __ATOMIC_SEQ_CST);
	if (q != NULL) {
		const uint64_t t0 = rte_get_tsc_cycles();

		ret = grace_period(q);
		if (ret > 0)
			UF_LOG(INFO,
			       "munmap() guard: the workers left their bursts in %" PRIu64
			       " us (net_memif's disconnect, EAL's interrupt thread)",
			       (rte_get_tsc_cycles() - t0) * 1000000 / rte_get_tsc_hz());
		__atomic_fetch_add(&guard_waits, 1, __ATOMIC_RELAXED);
		if (ret < 0)
			__atomic_fetch_add(&guard_timeouts, 1, __ATOMIC_RELAXED);
	}
	__atomic_fetch_sub(&guard_users, 1, __ATOMIC_RELEASE);
	if (ret < 0)
		UF_LOG(WARNING,
		       "a munmap() on EAL's interrupt thread (net_memif's disconnect) waited %u ms "
		       "for the workers to leave their bursts and unmaps now: a worker still in one "
		       "may fault (docs/pmd-quirks.md, \"Unmapped under a running worker\")",
		       guard_timeout_ms != 0 ? guard_timeout_ms : UF_UNMAP_GUARD_TIMEOUT_MS);
	guard_inside = false;
	return ret;
}

void
uf_unmap_guard_stats_get(struct uf_unmap_guard_stats *st)
{
	st->waits = __atomic_load_n(&guard_waits, __ATOMIC_RELAXED);
	st->timeouts = __atomic_load_n(&guard_timeouts, __ATOMIC_RELAXED);
}

void
uf_unmap_guard_timeout_set(uint32_t ms)
{
	__atomic_store_n(&guard_timeout_ms, ms, __ATOMIC_RELAXED);
}

/* dl_iterate_phdr(): the path of the loaded librte_net_memif.so* (EAL loads the PMDs from its
 * driver directory with dlopen(), without RTLD_GLOBAL, so dlsym(RTLD_DEFAULT) misses them) */
static int
find_memif_lib(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *name = info->dlpi_name, *base = strrchr(name, '/');

	(void)size;
	base = base != NULL ? base + 1 : name;
	if (strncmp(base, "librte_net_memif.so", strlen("librte_net_memif.so")) != 0)
		return 0;
	snprintf(arg, PATH_MAX, "%s", name);
	return 1;
}

bool
uf_unmap_guard_pmd_quiesces(const char *driver_name)
{
	char path[PATH_MAX] = "";
	int (*fn)(void);
	void *h = NULL;
	bool yes;

	if (driver_name == NULL || strcmp(driver_name, "net_memif") != 0)
		return false;
	/* linked in (a static build that exports it, a program linked with the PMD) */
	fn = (int (*)(void))dlsym(RTLD_DEFAULT, UF_MEMIF_QUIESCE_SYMBOL);
	if (fn == NULL && dl_iterate_phdr(find_memif_lib, path) != 0) {
		h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
		if (h != NULL)
			fn = (int (*)(void))dlsym(h, UF_MEMIF_QUIESCE_SYMBOL);
	}
	yes = fn != NULL && fn() == 1;
	if (h != NULL)
		dlclose(h); /* the RTLD_NOLOAD reference only: EAL's stays */
	return yes;
}
