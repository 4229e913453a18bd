/* SPDX-License-Identifier: BSD-3-Clause
 * The munmap() guard (lib/fwd/uf_unmap_guard.c) on net_memif's disconnect race in miniature:
 * a worker thread reads a "connected" flag, then a ring in a mapped page, then reports a
 * quiescent state; another thread clears the flag and unmaps the page, as memif_disconnect
 * does on EAL's interrupt thread. The worker holds 100 ms between its flag check and its ring
 * read, so an unmap that did not wait would fault (the whole test dies: a failure nobody can
 * miss). Real rte_rcu_qsbr, real mappings, no EAL.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include <rte_pause.h>
#include <rte_rcu_qsbr.h>

#include "uf_unmap_guard.h"
#include "uf_test.h"

#define HOLD_US 100000

struct sim {
	struct rte_rcu_qsbr *q;
	volatile uint8_t *ring; /* the shared region */
	uint32_t connected;     /* the PMD's flag */
	uint32_t inside;        /* between the flag check and the ring read */
	uint32_t reads;         /* ring reads done */
	uint32_t own_unmaps;    /* the worker unmapped a page of its own (it must not wait) */
	uint32_t stop;
};

static void *
worker(void *arg)
{
	struct sim *s = arg;
	void *own;

	rte_rcu_qsbr_thread_register(s->q, 0);
	rte_rcu_qsbr_thread_online(s->q, 0);
	uf_unmap_guard_self(0);
	/* a worker's own munmap() while it is online: waiting for itself would hang here */
	own = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (own != MAP_FAILED && munmap(own, 4096) == 0)
		__atomic_store_n(&s->own_unmaps, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&s->connected, __ATOMIC_RELAXED)) {
			__atomic_store_n(&s->inside, 1, __ATOMIC_RELEASE);
			usleep(HOLD_US); /* a burst that takes long */
			(void)s->ring[6];
			__atomic_fetch_add(&s->reads, 1, __ATOMIC_RELEASE);
			__atomic_store_n(&s->inside, 0, __ATOMIC_RELEASE);
		}
		rte_rcu_qsbr_quiescent(s->q, 0);
	}
	rte_rcu_qsbr_thread_offline(s->q, 0);
	rte_rcu_qsbr_thread_unregister(s->q, 0);
	return NULL;
}

static struct rte_rcu_qsbr *
qsbr_new(void)
{
	size_t sz = rte_rcu_qsbr_get_memsize(1);
	struct rte_rcu_qsbr *q = aligned_alloc(RTE_CACHE_LINE_SIZE, RTE_ALIGN_CEIL(sz, 64));

	if (q == NULL || rte_rcu_qsbr_init(q, 1) != 0)
		abort();
	return q;
}

static volatile uint8_t *
page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		abort();
	return p;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
wait_inside(struct sim *s)
{
	while (!__atomic_load_n(&s->inside, __ATOMIC_ACQUIRE))
		rte_pause();
}

/* Armed: the unmap waits until the worker's read that began before the flag was cleared is
 * done; the worker's next pass sees the flag and reads nothing. */
static void
test_armed_unmap_waits_for_the_worker(void)
{
	struct sim s = { .q = qsbr_new(), .ring = page(), .connected = 1 };
	uint64_t waits0 = uf_unmap_guard_waits();
	uint32_t reads0;
	pthread_t t;
	double t0;

	uf_unmap_guard_arm(s.q);
	if (pthread_create(&t, NULL, worker, &s) != 0)
		abort();
	wait_inside(&s);
	/* the disconnect: the flag first, then the unmap (memif_disconnect's order) */
	__atomic_store_n(&s.connected, 0, __ATOMIC_RELAXED);
	reads0 = __atomic_load_n(&s.reads, __ATOMIC_ACQUIRE);
	t0 = now_s();
	CHECK_EQ(munmap((void *)(uintptr_t)s.ring, 4096), 0);
	CHECK(__atomic_load_n(&s.reads, __ATOMIC_ACQUIRE) == reads0 + 1,
	      "munmap returned after the worker's pending read (reads %u, before %u)",
	      __atomic_load_n(&s.reads, __ATOMIC_ACQUIRE), reads0);
	CHECK(now_s() - t0 > 0.001, "munmap waited for the worker (%.6f s)", now_s() - t0);
	CHECK_EQ(uf_unmap_guard_waits(), waits0 + 2); /* the worker's own unmap and this one */
	/* a few more passes: the worker reads nothing now */
	usleep(20000);
	CHECK_EQ(__atomic_load_n(&s.reads, __ATOMIC_ACQUIRE), reads0 + 1);
	CHECK_EQ(__atomic_load_n(&s.own_unmaps, __ATOMIC_ACQUIRE), 1);
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	/* the worker is offline: no wait, nothing to wait for */
	CHECK_EQ(munmap((void *)(uintptr_t)page(), 4096), 0);
	uf_unmap_guard_disarm();
	free(s.q);
}

/* Disarmed (before start, after stop): munmap() is the next one's, with no wait. */
static void
test_disarmed_unmap_does_not_wait(void)
{
	struct sim s = { .q = qsbr_new(), .ring = page(), .connected = 1 };
	volatile uint8_t *other = page();
	uint64_t waits0 = uf_unmap_guard_waits();
	pthread_t t;

	if (pthread_create(&t, NULL, worker, &s) != 0)
		abort();
	wait_inside(&s);
	CHECK_EQ(munmap((void *)(uintptr_t)other, 4096), 0);
	CHECK_EQ(uf_unmap_guard_waits(), waits0);
	CHECK(munmap((void *)(uintptr_t)other, 4096) == 0, "unmapping twice is no error");
	CHECK(munmap((void *)1, 4096) == -1 && errno == EINVAL, "a bad address: EINVAL, as libc's");
	__atomic_store_n(&s.connected, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	CHECK_EQ(munmap((void *)(uintptr_t)s.ring, 4096), 0);
	free(s.q);
}

int
main(void)
{
	RUN(test_armed_unmap_waits_for_the_worker);
	RUN(test_disarmed_unmap_does_not_wait);
	return uf_t_summary();
}
