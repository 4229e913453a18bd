/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sys_time.so: an LD_PRELOAD shim that times a process's socket send, receive and poll
 * calls, for docs/benchmarks.md (bench 2: where a contender's CPU goes on veth).
 *
 * Not part of udpfan. On the veth bed the kernel's transmit path (skb, veth, bridge, the
 * sink's receive in softirq) runs inside the sender's send call: the AF_XDP PMD's TX kick
 * (send), the packet PMD's (sendto), a socket forwarder's sendto / sendmmsg. Tick-sampled
 * CPU accounting on the development VM misses most of that time (docs/benchmarks.md,
 * bench 2); a clock read on each side of the call does not. Each call costs two vDSO clock
 * reads (~50 ns), against the microseconds a send takes there.
 *
 *   LD_PRELOAD=build/scripts/bench/ref/sys_time.so UF_SYS_TIME_DIR=DIR program ...
 *
 * At exit each process writes DIR/sys-time.PID.json: its pid and comm, and for each thread
 * that made such a call (its tid and name) per call kind (send, recv, poll) the calls and
 * the seconds spent in them. Per thread, so that a reader can tell the forwarding thread's
 * calls from start-up work (udpfan's netlink requests: ~15 ms). send: send, sendto,
 * sendmsg, sendmmsg; recv: recv, recvfrom, recvmsg, recvmmsg; poll: poll, ppoll,
 * epoll_wait, select. A process killed by a signal it does not handle writes nothing; a
 * forked child (nfacctd's plugin) starts from zero.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum {
	K_SEND,
	K_RECV,
	K_POLL,
	K_MAX
};
enum {
	MAX_THREADS = 64
}; /* threads past the 63rd share the last slot, its tid -1 */

struct slot {
	long tid;
	char name[16];
	uint64_t calls[K_MAX], ns[K_MAX];
};

static const char *const kind_name[K_MAX] = { "send", "recv", "poll" };
static struct slot slots[MAX_THREADS];
static unsigned int n_slots;
static __thread struct slot *my_slot;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct slot *
new_slot(void)
{
	unsigned int i = __atomic_fetch_add(&n_slots, 1, __ATOMIC_RELAXED);
	struct slot *s;

	if (i >= MAX_THREADS - 1) {
		s = &slots[MAX_THREADS - 1];
		s->tid = -1;
		return s;
	}
	s = &slots[i];
	s->tid = (long)syscall(SYS_gettid);
	if (prctl(PR_GET_NAME, s->name) != 0)
		s->name[0] = '\0';
	s->name[sizeof(s->name) - 1] = '\0';
	return s;
}

static void
account(int kind, uint64_t t0)
{
	uint64_t d = now_ns() - t0;

	if (my_slot == NULL)
		my_slot = new_slot();
	__atomic_fetch_add(&my_slot->ns[kind], d, __ATOMIC_RELAXED);
	__atomic_fetch_add(&my_slot->calls[kind], 1, __ATOMIC_RELAXED);
}

/* a forked child counts its own calls only */
static void
child_reset(void)
{
	memset(slots, 0, sizeof(slots));
	n_slots = 0;
	my_slot = NULL;
}

__attribute__((constructor)) static void
init(void)
{
	pthread_atfork(NULL, NULL, child_reset);
}

static void *
next_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (p == NULL) {
		fprintf(stderr, "sys_time: %s not found\n", name);
		abort();
	}
	return p;
}

/* One wrapper: resolve the next definition once, time the call, keep errno. */
#define TIMED(kind, ret, name, params, args)                   \
	ret name params                                        \
	{                                                      \
		static ret(*real) params;                      \
		uint64_t t0;                                   \
		ret ret_;                                      \
		int e;                                         \
                                                               \
		if (real == NULL)                              \
			real = (ret(*) params)next_sym(#name); \
		t0 = now_ns();                                 \
		ret_ = real args;                              \
		e = errno;                                     \
		account(kind, t0);                             \
		errno = e;                                     \
		return ret_;                                   \
	}

TIMED(K_SEND, ssize_t, send, (int fd, const void *b, size_t n, int fl), (fd, b, n, fl))
TIMED(K_SEND, ssize_t, sendto,
      (int fd, const void *b, size_t n, int fl, const struct sockaddr *a, socklen_t al),
      (fd, b, n, fl, a, al))
TIMED(K_SEND, ssize_t, sendmsg, (int fd, const struct msghdr *m, int fl), (fd, m, fl))
TIMED(K_SEND, int, sendmmsg, (int fd, struct mmsghdr *v, unsigned int n, int fl), (fd, v, n, fl))
TIMED(K_RECV, ssize_t, recv, (int fd, void *b, size_t n, int fl), (fd, b, n, fl))
TIMED(K_RECV, ssize_t, recvfrom,
      (int fd, void *b, size_t n, int fl, struct sockaddr *a, socklen_t *al), (fd, b, n, fl, a, al))
TIMED(K_RECV, ssize_t, recvmsg, (int fd, struct msghdr *m, int fl), (fd, m, fl))
TIMED(K_RECV, int, recvmmsg,
      (int fd, struct mmsghdr *v, unsigned int n, int fl, struct timespec *t), (fd, v, n, fl, t))
TIMED(K_POLL, int, poll, (struct pollfd * f, nfds_t n, int t), (f, n, t))
TIMED(K_POLL, int, ppoll,
      (struct pollfd * f, nfds_t n, const struct timespec *t, const sigset_t *s), (f, n, t, s))
TIMED(K_POLL, int, epoll_wait, (int ep, struct epoll_event *ev, int n, int t), (ep, ev, n, t))
TIMED(K_POLL, int, select, (int n, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *t),
      (n, rd, wr, ex, t))

static void
json_name(FILE *f, const char *s)
{
	for (; *s != '\0'; s++)
		fputc(*s == '"' || *s == '\\' || (unsigned char)*s < 0x20 ? '_' : *s, f);
}

__attribute__((destructor)) static void
write_out(void)
{
	const char *dir = getenv("UF_SYS_TIME_DIR");
	unsigned int i, n = __atomic_load_n(&n_slots, __ATOMIC_ACQUIRE);
	char path[4096], comm[16] = "";
	FILE *f;
	int k;

	if (dir == NULL)
		return;
	if (prctl(PR_GET_NAME, comm) != 0)
		comm[0] = '\0';
	comm[sizeof(comm) - 1] = '\0';
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	snprintf(path, sizeof(path), "%s/sys-time.%d.json", dir, (int)getpid());
	f = fopen(path, "w");
	if (f == NULL)
		return;
	/* names as JSON strings: quotes, backslashes and control bytes become '_' */
	fprintf(f, "{\"pid\": %d, \"comm\": \"", (int)getpid());
	json_name(f, comm);
	fprintf(f, "\", \"threads\": [");
	for (i = 0; i < n; i++) {
		const struct slot *s = &slots[i];

		fprintf(f, "%s{\"tid\": %ld, \"name\": \"", i ? ", " : "", s->tid);
		json_name(f, s->name);
		fprintf(f, "\"");
		for (k = 0; k < K_MAX; k++)
			fprintf(f, ", \"%s\": {\"calls\": %lu, \"s\": %.6f}", kind_name[k],
				(unsigned long)__atomic_load_n(&s->calls[k], __ATOMIC_RELAXED),
				(double)__atomic_load_n(&s->ns[k], __ATOMIC_RELAXED) / 1e9);
		fprintf(f, "}");
	}
	fprintf(f, "]}\n");
	fclose(f);
}
