/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ref_common.h: what the reference tools of this folder (ref_mmsg, ref_gso, ref_gen, ref_sink)
 * share: the error exit, IPv4:PORT parsing, clocks, CPU pinning, the stop flag and its signal
 * handlers, socket set-up, receive slots, the UDP_GRO / UDP_SEGMENT control messages and the
 * JSON write-out; and for the two forwarders their common options, their once-a-second stats
 * line and the head of their JSON object.
 *
 * Header only, every function static inline, so that each tool still builds from its one .c
 * file (cc -O2 -Wall -Wextra -Werror -o ref_mmsg ref_mmsg.c). Define REF_TOOL, the program
 * name ("ref_mmsg"), before including it: die() and the JSON head use it.
 */
#ifndef REF_COMMON_H
#define REF_COMMON_H

#ifndef REF_TOOL
#error "define REF_TOOL (the program name) before including ref_common.h"
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif

#define MAX_DST 64
#define MAX_BATCH 1024
#define SLOT_SIZE 65536 /* the largest UDP payload and a GRO buffer (64 KiB) fit: never truncate */

static volatile sig_atomic_t stop; /* set by SIGTERM and SIGINT */

static inline void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* SIGTERM and SIGINT set stop. No SA_RESTART: a blocked recvmmsg or sleep returns EINTR. */
static inline void
catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

static inline void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static inline void
die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs(REF_TOOL ": ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static inline int
parse_ipport(const char *s, struct sockaddr_in *sa)
{
	const char *c = strrchr(s, ':');
	char host[INET_ADDRSTRLEN];
	char *end;
	unsigned long port;

	if (!c || c == s || (size_t)(c - s) >= sizeof(host))
		return -1;
	memcpy(host, s, (size_t)(c - s));
	host[c - s] = '\0';
	errno = 0;
	port = strtoul(c + 1, &end, 10);
	if (errno || end == c + 1 || *end || port == 0 || port > 65535)
		return -1;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

static inline double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline double
tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* --cpu N: pin the process to CPU N (N < 0: leave it alone) */
static inline void
pin_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		die("sched_setaffinity(cpu %d): %s", cpu, strerror(errno));
}

/* the kernel's drop counter of a socket (SO_MEMINFO; 0 where it cannot be read) */
static inline uint32_t
sock_drops(int fd)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	memset(mem, 0, sizeof(mem));
	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) < 0 ||
	    len < (socklen_t)((SK_MEMINFO_DROPS + 1) * sizeof(uint32_t)))
		return 0;
	return mem[SK_MEMINFO_DROPS];
}

/* A receiving UDP socket bound to sa: receive buffer rcvbuf bytes (SO_RCVBUFFORCE, else
 * SO_RCVBUF as far as allowed; <= 0: the default), UDP_GRO if gro, and a receive timeout of
 * tmo_us microseconds so that a blocked recvmmsg wakes up for the clocks of the caller. */
static inline int
rx_socket(const struct sockaddr_in *sa, long rcvbuf, int gro, long tmo_us)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (rcvbuf > 0) {
		int v = (int)rcvbuf;
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) < 0)
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	}
	if (gro) {
		int one = 1;
		if (setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) < 0)
			die("setsockopt UDP_GRO: %s", strerror(errno));
	}
	struct timeval tmo = { .tv_sec = 0, .tv_usec = tmo_us };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	if (bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0)
		die("bind: %s", strerror(errno));
	return fd;
}

/* the receive buffer the kernel actually gave fd */
static inline int
rcvbuf_of(int fd)
{
	int v = 0;
	socklen_t l = sizeof(v);

	getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &l);
	return v;
}

/* a sending UDP socket with a 4 MiB send buffer (SO_SNDBUFFORCE, else SO_SNDBUF) */
static inline int
tx_socket(void)
{
	int v = 4 << 20;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	return fd;
}

/* a forwarder's socket to destination d: connected, so the route is looked up once, not per
 * datagram */
static inline int
dst_socket(const struct sockaddr_in *dst, unsigned int d)
{
	int fd = tx_socket();

	if (connect(fd, (const struct sockaddr *)dst, sizeof(*dst)) < 0)
		die("connect dst %u: %s", d, strerror(errno));
	return fd;
}

/* room for one int (UDP_GRO, receive) or one u16 (UDP_SEGMENT, send) */
#define CTRL_LEN CMSG_SPACE(sizeof(int))
union ctrl {
	struct cmsghdr align;
	char buf[CTRL_LEN];
};

/* Message i of rx[0..n) receives into slot i of slots (SLOT_SIZE bytes each) through iov[i];
 * with ctl (not NULL), it also takes a control message into ctl[i]. */
static inline void
rx_slots(struct mmsghdr *rx, struct iovec *iov, union ctrl *ctl, uint8_t *slots, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		iov[i].iov_base = slots + (size_t)i * SLOT_SIZE;
		iov[i].iov_len = SLOT_SIZE;
		rx[i].msg_hdr.msg_iov = &iov[i];
		rx[i].msg_hdr.msg_iovlen = 1;
		if (ctl) {
			rx[i].msg_hdr.msg_control = ctl[i].buf;
			rx[i].msg_hdr.msg_controllen = sizeof(ctl[i].buf);
		}
	}
}

/* The segment size of a received buffer from its UDP_GRO cmsg (0: none, one datagram). With
 * gro, the room for the next call's cmsg is given back. */
static inline unsigned int
gro_segment(struct msghdr *h, int gro)
{
	unsigned int seg = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
			int v;
			memcpy(&v, CMSG_DATA(c), sizeof(v));
			seg = v > 0 ? (unsigned int)v : 0;
		}
	}
	if (gro)
		h->msg_controllen = CTRL_LEN; /* reset for the next call */
	return seg;
}

/* give m a UDP_SEGMENT cmsg in ctl: the kernel cuts its payload into seg-byte datagrams */
static inline void
put_udp_segment(struct msghdr *m, union ctrl *ctl, uint16_t seg)
{
	struct cmsghdr *c;

	m->msg_control = ctl->buf;
	m->msg_controllen = CMSG_SPACE(sizeof(uint16_t));
	c = CMSG_FIRSTHDR(m);
	c->cmsg_level = SOL_UDP;
	c->cmsg_type = UDP_SEGMENT;
	c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
	memcpy(CMSG_DATA(c), &seg, sizeof(seg));
}

/* the JSON line to stdout, and to path unless NULL */
static inline void
write_json(const char *json, const char *path)
{
	fputs(json, stdout);
	fflush(stdout);
	if (path) {
		FILE *f = fopen(path, "w");
		if (!f || fputs(json, f) < 0 || fclose(f) != 0)
			die("cannot write %s: %s", path, strerror(errno));
	}
}

/*
 * The forwarders (ref_mmsg, ref_gso): common options, stats line, head of the JSON.
 */

struct fwd_args {
	struct sockaddr_in listen_sa, dst[MAX_DST];
	unsigned int ndst, batch;
	double duration;
	long rcvbuf;
	int cpu, quiet, have_listen;
	const char *json_path;
};

#define FWD_ARGS_INIT                                     \
	{                                                 \
		.batch = 64, .rcvbuf = 4 << 20, .cpu = -1 \
	}

/* their getopt_long entries, first in each tool's table */
/* clang-format off */
#define FWD_OPTIONS                                          \
	{ "listen", required_argument, NULL, 'l' },          \
	{ "dst", required_argument, NULL, 'd' },             \
	{ "batch", required_argument, NULL, 'b' },           \
	{ "duration", required_argument, NULL, 't' },        \
	{ "json", required_argument, NULL, 'j' },            \
	{ "rcvbuf", required_argument, NULL, 'r' },          \
	{ "cpu", required_argument, NULL, 'c' },             \
	{ "quiet", no_argument, NULL, 'q' }
/* clang-format on */

/* one option of FWD_OPTIONS into a; 0: not one of them */
static inline int
fwd_option(struct fwd_args *a, int o, const char *arg)
{
	switch (o) {
	case 'l':
		if (parse_ipport(arg, &a->listen_sa) < 0)
			die("bad --listen '%s' (want IPv4:PORT)", arg);
		a->have_listen = 1;
		return 1;
	case 'd':
		if (a->ndst == MAX_DST)
			die("at most %d destinations", MAX_DST);
		if (parse_ipport(arg, &a->dst[a->ndst]) < 0)
			die("bad --dst '%s' (want IPv4:PORT)", arg);
		a->ndst++;
		return 1;
	case 'b':
		a->batch = (unsigned int)strtoul(arg, NULL, 10);
		if (a->batch < 1 || a->batch > MAX_BATCH)
			die("--batch must be 1..%d", MAX_BATCH);
		return 1;
	case 't':
		a->duration = strtod(arg, NULL);
		if (a->duration < 0)
			die("--duration must be >= 0 (0: until SIGTERM)");
		return 1;
	case 'j':
		a->json_path = arg;
		return 1;
	case 'r':
		a->rcvbuf = strtol(arg, NULL, 0);
		return 1;
	case 'c':
		a->cpu = atoi(arg);
		return 1;
	case 'q':
		a->quiet = 1;
		return 1;
	default:
		return 0;
	}
}

/* a forwarder's clocks: the run, the once-a-second stats line, and the totals at the end */
struct fwd_meter {
	struct rusage ru0, ru1;
	uint32_t drops0, drops_last, drops; /* drops: over the run, set by fwd_meter_stop */
	double t0, t_last, t_end, cpu_last;
	double seconds, user_s, sys_s; /* set by fwd_meter_stop */
	uint64_t rx_last, tx_last, err_last;
};

/* start the run on listening socket fd; duration 0: until stop */
static inline void
fwd_meter_start(struct fwd_meter *m, int fd, double duration)
{
	memset(m, 0, sizeof(*m));
	m->drops0 = sock_drops(fd);
	m->drops_last = m->drops0;
	getrusage(RUSAGE_SELF, &m->ru0);
	m->t0 = now_s();
	m->t_last = m->t0;
	m->t_end = duration > 0 ? m->t0 + duration : 0;
	m->cpu_last = tv_s(m->ru0.ru_utime) + tv_s(m->ru0.ru_stime);
}

/* After each receive: once a second, unless quiet, the stats line to stderr
 * ("rx N pps | tx N pps | drop N | rxq_drop N | cpu P%"). 1: the duration is over. */
static inline int
fwd_meter_tick(struct fwd_meter *m, int fd, uint64_t rx, uint64_t tx_ok, uint64_t tx_err, int quiet)
{
	double t = now_s();

	if (t - m->t_last >= 1.0) {
		struct rusage ru;
		uint32_t dr = sock_drops(fd);
		getrusage(RUSAGE_SELF, &ru);
		double c = tv_s(ru.ru_utime) + tv_s(ru.ru_stime), dt = t - m->t_last;
		if (!quiet)
			fprintf(stderr,
				"rx %.0f pps | tx %.0f pps | drop %llu | "
				"rxq_drop %u | cpu %.0f%%\n",
				(double)(rx - m->rx_last) / dt, (double)(tx_ok - m->tx_last) / dt,
				(unsigned long long)(tx_err - m->err_last), dr - m->drops_last,
				100.0 * (c - m->cpu_last) / dt);
		m->rx_last = rx;
		m->tx_last = tx_ok;
		m->err_last = tx_err;
		m->drops_last = dr;
		m->cpu_last = c;
		m->t_last = t;
	}
	return m->t_end > 0 && t >= m->t_end;
}

/* end the run: seconds, CPU user and system seconds, socket drops */
static inline void
fwd_meter_stop(struct fwd_meter *m, int fd)
{
	m->seconds = now_s() - m->t0;
	getrusage(RUSAGE_SELF, &m->ru1);
	m->drops = sock_drops(fd) - m->drops0;
	m->user_s = tv_s(m->ru1.ru_utime) - tv_s(m->ru0.ru_utime);
	m->sys_s = tv_s(m->ru1.ru_stime) - tv_s(m->ru0.ru_stime);
}

/* The first fields of a forwarder's JSON object into buf: {"tool", rx, tx_ok, tx_err, seconds,
 * cpu_user_s, cpu_sys_s, destinations, batch, and a ", " for the fields that follow. Returns
 * the length written. */
static inline size_t
fwd_json_head(char *buf, size_t size, const struct fwd_meter *m, const struct fwd_args *a,
	      uint64_t rx, uint64_t tx_ok, uint64_t tx_err)
{
	int n = snprintf(buf, size,
			 "{\"tool\": \"" REF_TOOL "\", \"rx\": %llu, \"tx_ok\": %llu, "
			 "\"tx_err\": %llu, \"seconds\": %.3f, \"cpu_user_s\": %.3f, "
			 "\"cpu_sys_s\": %.3f, \"destinations\": %u, \"batch\": %u, ",
			 (unsigned long long)rx, (unsigned long long)tx_ok,
			 (unsigned long long)tx_err, m->seconds, m->user_s, m->sys_s, a->ndst,
			 a->batch);

	if (n < 0)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}

#endif /* REF_COMMON_H */
