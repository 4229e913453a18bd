/* SPDX-License-Identifier: BSD-3-Clause */
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_pause.h>
#include <rte_rcu_qsbr.h>

#include "uf_unmap_guard.h"

/*
 * Why (docs/pmd-quirks.md, "Unmapped under a running worker"): net_memif's disconnect runs on
 * EAL's interrupt thread when the peer goes. It clears the port's connected flag, then
 * munmap()s the shared regions the rings live in, with no wait for the lcores polling the
 * port: a worker that read the flag just before is still reading a ring, and faults (DPDK
 * 22.11 to 24.11, rte_eth_memif.c; seen on 3 of 4 peer kills here). The PMD offers no
 * hook, but it calls munmap() through the PLT: this definition comes first in the lookup
 * order, waits for an RCU grace period of the workers (each reports a quiescent state once a
 * pass, outside any burst), and then unmaps. A burst that starts after the wait reads the
 * cleared flag and touches nothing. Every other munmap() waits the same way while armed,
 * a few microseconds at most, none of them on a worker's path.
 */

static struct rte_rcu_qsbr *guard_q;
static uint32_t guard_users; /* munmap() calls between loading guard_q and done with it */
static uint64_t guard_waits;
static __thread unsigned int guard_self = RTE_QSBR_THRID_INVALID;

typedef int (*munmap_fn)(void *, size_t);
static munmap_fn next_munmap;

static int
unmap_next(void *addr, size_t len)
{
	munmap_fn fn = __atomic_load_n(&next_munmap, __ATOMIC_RELAXED);

	if (fn == NULL) {
		/* libc's, or a sanitizer's interceptor in front of it */
		fn = (munmap_fn)dlsym(RTLD_NEXT, "munmap");
		if (fn == NULL || fn == munmap)
			return (int)syscall(SYS_munmap, addr, len);
		__atomic_store_n(&next_munmap, fn, __ATOMIC_RELAXED);
	}
	return fn(addr, len);
}

int
munmap(void *addr, size_t len)
{
	struct rte_rcu_qsbr *q;

	__atomic_fetch_add(&guard_users, 1, __ATOMIC_SEQ_CST);
	q = __atomic_load_n(&guard_q, __ATOMIC_SEQ_CST);
	if (q != NULL) {
		/* rte_rcu_qsbr_start's full barrier orders the PMD's flag store before the
		 * token the workers acknowledge */
		rte_rcu_qsbr_synchronize(q, guard_self);
		__atomic_fetch_add(&guard_waits, 1, __ATOMIC_RELAXED);
	}
	__atomic_fetch_sub(&guard_users, 1, __ATOMIC_RELEASE);
	return unmap_next(addr, len);
}

void
uf_unmap_guard_arm(struct rte_rcu_qsbr *q)
{
	__atomic_store_n(&guard_q, q, __ATOMIC_SEQ_CST);
}

void
uf_unmap_guard_disarm(void)
{
	__atomic_store_n(&guard_q, NULL, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&guard_users, __ATOMIC_ACQUIRE) != 0)
		rte_pause();
}

void
uf_unmap_guard_self(unsigned int thread_id)
{
	guard_self = thread_id;
}

uint64_t
uf_unmap_guard_waits(void)
{
	return __atomic_load_n(&guard_waits, __ATOMIC_RELAXED);
}
