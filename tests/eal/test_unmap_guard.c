/* SPDX-License-Identifier: BSD-3-Clause
 * The munmap() guard (lib/port/uf_unmap_guard.c, docs/pmd-quirks.md, "Unmapped under a running
 * worker") with udpfan's munmap() linked in, on EAL's real interrupt thread (an alarm's
 * callback runs there, as net_memif's disconnect does). A worker thread reads a "connected"
 * flag, then a ring in a mapped page, then reports a quiescent state to the guard's RCU
 * variable, as the worker loop does.
 *
 *   memif_race       armed (a memif port), the interrupt thread clears the flag and unmaps
 *                    the ring while the worker holds 100 ms between its flag check and its
 *                    read: the unmap returns only after that read (without the wait the test
 *                    dies of SIGSEGV), the worker reads nothing after; the worker's own
 *                    munmap() and the control thread's do not wait
 *   vhost_lock       a thread that is not the interrupt thread (vhost-events) holds a lock
 *                    the worker's burst spins on and unmaps, as vhost_user_msg_handler does
 *                    under the virtqueues' access_lock on SET_MEM_TABLE: it does not wait for
 *                    the worker, so nothing deadlocks
 *   intr_bounded     the same lock held by the interrupt thread itself: its wait ends at the
 *                    time-out, counted and logged, and the unmap goes on
 *   disarmed         no memif port: the interrupt thread's munmap() does not wait
 *
 * Needs EAL without hugepages: --no-huge --no-pci (eal suite).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include <rte_alarm.h>
#include <rte_eal.h>
#include <rte_interrupts.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>
#include <rte_spinlock.h>

#include "uf_unmap_guard.h"

#include "../unit/uf_test.h"

#define HOLD_US 100000 /* a burst that takes long */
#define TIMEOUT_MS 300 /* the guard's time-out in this test */
#define STUCK_MS 2000  /* a thread whose munmap() has not returned by then is stuck */

struct sim {
	volatile uint8_t *ring;  /* the shared region */
	rte_spinlock_t *lock;    /* taken in the burst (vhost's access_lock), or NULL */
	uint32_t connected;      /* the PMD's flag */
	uint32_t inside;         /* between the flag check and the ring read */
	uint32_t spinning;       /* waiting for the lock in a burst */
	uint32_t reads;          /* ring reads done */
	uint32_t own_unmap_done; /* the worker's own munmap() returned */
	uint32_t stop;
};

/* an unmap run on some thread, and what the worker had done when it returned */
struct unmap_job {
	struct sim *s;
	void *addr;
	rte_spinlock_t *hold; /* held across the munmap(), or NULL */
	int guard_ret;        /* the hook's verdict, for the caller's thread */
	int ret;
	uint32_t reads_after;
	double secs;
	uint32_t done;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *
page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		abort();
	return p;
}

static void *
worker(void *arg)
{
	struct sim *s = arg;
	struct rte_rcu_qsbr *q = uf_unmap_guard_qsbr();

	rte_rcu_qsbr_thread_register(q, 0);
	rte_rcu_qsbr_thread_online(q, 0);
	/* a worker's own munmap() while it is online: waiting for itself would hang here */
	if (munmap(page(), 4096) == 0)
		__atomic_store_n(&s->own_unmap_done, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&s->connected, __ATOMIC_RELAXED)) {
			__atomic_store_n(&s->inside, 1, __ATOMIC_RELEASE);
			if (s->lock != NULL) { /* vhost's enqueue: spins until the lock is free */
				__atomic_store_n(&s->spinning, 1, __ATOMIC_SEQ_CST);
				rte_spinlock_lock(s->lock);
				__atomic_store_n(&s->spinning, 0, __ATOMIC_RELAXED);
				rte_spinlock_unlock(s->lock);
			} else {
				usleep(HOLD_US);
			}
			(void)s->ring[6];
			__atomic_fetch_add(&s->reads, 1, __ATOMIC_RELEASE);
			__atomic_store_n(&s->inside, 0, __ATOMIC_RELEASE);
		}
		rte_rcu_qsbr_quiescent(q, 0);
	}
	rte_rcu_qsbr_thread_offline(q, 0);
	rte_rcu_qsbr_thread_unregister(q, 0);
	return NULL;
}

static void
run_unmap(struct unmap_job *j)
{
	double t0;

	if (j->hold != NULL) {
		rte_spinlock_lock(j->hold);
		/* the worker's burst waits for the lock now (it cleared the flag while it held the
		 * lock before, so a 1 seen here is a burst begun since) */
		while (!__atomic_load_n(&j->s->spinning, __ATOMIC_SEQ_CST))
			rte_pause();
	}
	/* the disconnect: the flag first, then the unmap (memif_disconnect's order) */
	__atomic_store_n(&j->s->connected, 0, __ATOMIC_RELAXED);
	t0 = now_s();
	j->ret = munmap(j->addr, 4096);
	j->secs = now_s() - t0;
	j->reads_after = __atomic_load_n(&j->s->reads, __ATOMIC_ACQUIRE);
	if (j->hold != NULL)
		rte_spinlock_unlock(j->hold);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
}

static void
on_intr_thread(void *arg)
{
	struct unmap_job *j = arg;

	j->guard_ret = rte_thread_is_intr();
	run_unmap(j);
}

static void *
on_thread(void *arg)
{
	struct unmap_job *j = arg;

	j->guard_ret = rte_thread_is_intr();
	run_unmap(j);
	return NULL;
}

static bool
wait_done(struct unmap_job *j)
{
	double t0 = now_s();

	while (!__atomic_load_n(&j->done, __ATOMIC_ACQUIRE)) {
		if (now_s() - t0 > STUCK_MS / 1000.0)
			return false;
		usleep(1000);
	}
	return true;
}

static void
wait_inside(struct sim *s)
{
	while (!__atomic_load_n(&s->inside, __ATOMIC_ACQUIRE))
		rte_pause();
}

static void
start(struct sim *s, pthread_t *t)
{
	s->connected = 1;
	s->ring = page();
	if (pthread_create(t, NULL, worker, s) != 0)
		abort();
	wait_inside(s);
}

static void
stop(struct sim *s, pthread_t t)
{
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
}

static void
test_memif_race(void)
{
	struct sim s = { 0 };
	struct unmap_job j = { .s = &s };
	struct uf_unmap_guard_stats st0, st1;
	uint32_t reads0;
	pthread_t t;
	double t0;

	uf_unmap_guard_port_add();
	uf_unmap_guard_stats_get(&st0);
	start(&s, &t);
	/* the control thread's munmap() while the worker is in its burst: no wait */
	t0 = now_s();
	CHECK_EQ(munmap(page(), 4096), 0);
	CHECK(now_s() - t0 < 0.05, "the control thread's munmap() does not wait (%.3f s)",
	      now_s() - t0);
	CHECK_EQ(__atomic_load_n(&s.own_unmap_done, __ATOMIC_ACQUIRE), 1);
	wait_inside(&s);
	reads0 = __atomic_load_n(&s.reads, __ATOMIC_ACQUIRE);
	j.addr = (void *)(uintptr_t)s.ring;
	CHECK_EQ(rte_eal_alarm_set(1, on_intr_thread, &j), 0);
	CHECK(wait_done(&j), "the interrupt thread's munmap() returned");
	CHECK(j.guard_ret != 0, "the alarm ran on EAL's interrupt thread");
	CHECK_EQ(j.ret, 0);
	CHECK(j.reads_after == reads0 + 1,
	      "munmap returned after the worker's pending read (reads %u, before %u)",
	      j.reads_after, reads0);
	uf_unmap_guard_stats_get(&st1);
	CHECK_EQ(st1.waits, st0.waits + 1);
	CHECK_EQ(st1.timeouts, st0.timeouts);
	/* a few more passes: the worker reads nothing now */
	usleep(20000);
	CHECK_EQ(__atomic_load_n(&s.reads, __ATOMIC_ACQUIRE), reads0 + 1);
	stop(&s, t);
	uf_unmap_guard_port_del();
}

static void
test_vhost_lock(void)
{
	rte_spinlock_t lock = RTE_SPINLOCK_INITIALIZER;
	struct sim s = { .lock = &lock };
	struct unmap_job j = { .s = &s, .hold = &lock };
	struct uf_unmap_guard_stats st0, st1;
	pthread_t t, vhost;

	uf_unmap_guard_port_add(); /* a memif port as well: armed */
	uf_unmap_guard_stats_get(&st0);
	/* the vhost-events thread takes the lock, then unmaps: the worker's burst spins on the
	 * lock and reaches no quiescent point until the unmap returns */
	start(&s, &t);
	j.addr = page();
	if (pthread_create(&vhost, NULL, on_thread, &j) != 0)
		abort();
	CHECK(wait_done(&j), "munmap() under the lock returned (no deadlock)");
	if (!j.done) { /* the threads are stuck for good */
		uf_t_summary();
		_exit(1);
	}
	pthread_join(vhost, NULL);
	CHECK(j.guard_ret == 0, "the thread is not EAL's interrupt thread");
	CHECK_EQ(j.ret, 0);
	CHECK(j.secs < 0.05, "it did not wait (%.3f s)", j.secs);
	uf_unmap_guard_stats_get(&st1);
	CHECK_EQ(st1.waits, st0.waits);
	stop(&s, t);
	munmap((void *)(uintptr_t)s.ring, 4096);
	uf_unmap_guard_port_del();
}

static void
test_intr_bounded(void)
{
	rte_spinlock_t lock = RTE_SPINLOCK_INITIALIZER;
	struct sim s = { .lock = &lock };
	struct unmap_job j = { .s = &s, .hold = &lock };
	struct uf_unmap_guard_stats st0, st1;
	pthread_t t;

	uf_unmap_guard_port_add();
	uf_unmap_guard_timeout_set(TIMEOUT_MS);
	uf_unmap_guard_stats_get(&st0);
	start(&s, &t);
	j.addr = page();
	CHECK_EQ(rte_eal_alarm_set(1, on_intr_thread, &j), 0);
	CHECK(wait_done(&j), "the interrupt thread's munmap() returned");
	if (!j.done) {
		uf_t_summary();
		_exit(1);
	}
	CHECK(j.guard_ret != 0, "the alarm ran on EAL's interrupt thread");
	CHECK_EQ(j.ret, 0);
	CHECK(j.secs >= TIMEOUT_MS / 1000.0 * 0.9 && j.secs < TIMEOUT_MS / 1000.0 + 0.5,
	      "it waited for the time-out, %u ms (%.3f s)", TIMEOUT_MS, j.secs);
	uf_unmap_guard_stats_get(&st1);
	CHECK_EQ(st1.waits, st0.waits + 1);
	CHECK_EQ(st1.timeouts, st0.timeouts + 1);
	stop(&s, t);
	munmap((void *)(uintptr_t)s.ring, 4096);
	uf_unmap_guard_timeout_set(0);
	uf_unmap_guard_port_del();
}

static void
test_disarmed(void)
{
	struct sim s = { 0 };
	struct unmap_job j = { .s = &s };
	struct uf_unmap_guard_stats st0, st1;
	pthread_t t;

	uf_unmap_guard_stats_get(&st0);
	start(&s, &t);
	j.addr = page(); /* not the ring: nothing waits for the worker */
	CHECK_EQ(rte_eal_alarm_set(1, on_intr_thread, &j), 0);
	CHECK(wait_done(&j), "the interrupt thread's munmap() returned");
	CHECK_EQ(j.ret, 0);
	CHECK(j.secs < 0.05, "it did not wait (%.3f s)", j.secs);
	uf_unmap_guard_stats_get(&st1);
	CHECK_EQ(st1.waits, st0.waits);
	CHECK(munmap((void *)1, 4096) == -1 && errno == EINVAL, "a bad address: EINVAL, as libc's");
	stop(&s, t);
	munmap((void *)(uintptr_t)s.ring, 4096);
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0],
			"-l",
			"0",
			"--no-pci",
			"--no-huge",
			"-m",
			"64",
			"--log-level",
			"lib.eal:warning",
			"--file-prefix",
			"uf_unmap_guard",
			NULL };

	(void)argc;
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	if (uf_unmap_guard_init(1) != 0) {
		fprintf(stderr, "guard init failed\n");
		return 1;
	}
	RUN(test_memif_race);
	RUN(test_vhost_lock);
	RUN(test_intr_bounded);
	RUN(test_disarmed);
	uf_unmap_guard_fini();
	rte_eal_cleanup();
	return uf_t_summary();
}
