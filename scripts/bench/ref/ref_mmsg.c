/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ref_mmsg: reference kernel-socket UDP fan-out forwarder, recvmmsg + sendmmsg.
 *
 * Not part of udpfan: a yardstick for docs/benchmarks. One thread receives a batch with
 * recvmmsg, then sends the whole batch, payload untouched, to each destination with one
 * sendmmsg on a socket connected to that destination. Every destination gets every datagram.
 *
 *   ref_mmsg --listen IP:PORT --dst IP:PORT [--dst IP:PORT ...] [--batch 64]
 *            [--duration S] [--json PATH] [--rcvbuf BYTES] [--cpu N] [--quiet]
 *
 * Counters (datagrams): rx = received; tx_ok = datagrams the kernel accepted, summed over
 * destinations (N x rx when nothing is lost); tx_err = datagrams not sent: EAGAIN/ENOBUFS
 * drop the rest of that destination's batch, any other error drops one datagram; nothing is
 * fatal. ECONNREFUSED (a port-unreachable answer to an earlier datagram, reported on a later
 * send of a connected socket) is not a loss of this datagram: it is retried and counted in
 * tx_refused. rx_sock_drops is the kernel's drop counter of the listening socket (SO_MEMINFO),
 * i.e. datagrams lost before we could read them.
 *
 * Once a second, to stderr: "rx N pps | tx N pps | drop N | rxq_drop N | cpu P%" (drop: tx_err
 * in that second; rxq_drop: socket receive-queue drops in that second; cpu: this process,
 * user + system). At the end, one JSON object to stdout (and to --json PATH):
 * {rx, tx_ok, tx_err, seconds, cpu_user_s, cpu_sys_s, ...}; CPU from getrusage(RUSAGE_SELF)
 * over the forwarding loop, so CPU per forwarded datagram = (user + sys) / rx.
 * Accounting caveat: with tick-based accounting the system time includes softirq work that
 * ran in this task's context (on veth: the whole delivery of what we send, down to the sink
 * sockets), but not the receive half, which runs in the sender's context or in ksoftirqd.
 *
 * SIGTERM or SIGINT stop the loop cleanly (counters and JSON are still written).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
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

#define MAX_DST 64
#define MAX_BATCH 1024
#define SLOT_SIZE 65536 /* the largest UDP payload fits: never truncate */

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("ref_mmsg: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static int
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

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double
tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static uint32_t
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

static struct {
	uint64_t rx, rx_calls, tx_ok, tx_err, tx_nobuf, tx_other, tx_refused;
	int last_errno;
} st;

/* Send msgs[0..n) on a connected socket; never blocks, never fails the program. */
static void
send_all(int fd, struct mmsghdr *msgs, unsigned int n)
{
	unsigned int off = 0, refused = 0;

	while (off < n) {
		int r = sendmmsg(fd, msgs + off, n - off, MSG_DONTWAIT);

		if (r > 0) {
			st.tx_ok += (unsigned int)r;
			off += (unsigned int)r;
			continue;
		}
		if (r == 0) { /* not expected; do not spin */
			st.tx_err += n - off;
			st.tx_other += n - off;
			return;
		}
		switch (errno) {
		case EINTR:
			continue;
		case ECONNREFUSED: /* a pending ICMP error, now cleared: retry this datagram */
			st.tx_refused++;
			if (++refused <= n)
				continue;
			st.tx_err++;
			st.tx_other++;
			off++;
			break;
		case EAGAIN:
		case ENOBUFS: /* queue full: the rest of this batch would fail the same way */
			st.tx_err += n - off;
			st.tx_nobuf += n - off;
			return;
		default:
			st.last_errno = errno;
			st.tx_err++;
			st.tx_other++;
			off++;
			break;
		}
	}
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: ref_mmsg --listen IP:PORT --dst IP:PORT [--dst IP:PORT ...] [--batch 64]\n"
		"                [--duration S] [--json PATH] [--rcvbuf BYTES] [--cpu N] [--quiet]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "dst", required_argument, NULL, 'd' },
		{ "batch", required_argument, NULL, 'b' },
		{ "duration", required_argument, NULL, 't' },
		{ "json", required_argument, NULL, 'j' },
		{ "rcvbuf", required_argument, NULL, 'r' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_in listen_sa, dst[MAX_DST];
	unsigned int ndst = 0, batch = 64;
	double duration = 0;
	long rcvbuf = 4 << 20;
	int cpu = -1, quiet = 0, have_listen = 0, o;
	const char *json_path = NULL;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'l':
			if (parse_ipport(optarg, &listen_sa) < 0)
				die("bad --listen '%s' (want IPv4:PORT)", optarg);
			have_listen = 1;
			break;
		case 'd':
			if (ndst == MAX_DST)
				die("at most %d destinations", MAX_DST);
			if (parse_ipport(optarg, &dst[ndst]) < 0)
				die("bad --dst '%s' (want IPv4:PORT)", optarg);
			ndst++;
			break;
		case 'b':
			batch = (unsigned int)strtoul(optarg, NULL, 10);
			if (batch < 1 || batch > MAX_BATCH)
				die("--batch must be 1..%d", MAX_BATCH);
			break;
		case 't':
			duration = strtod(optarg, NULL);
			if (duration < 0)
				die("--duration must be >= 0 (0: until SIGTERM)");
			break;
		case 'j':
			json_path = optarg;
			break;
		case 'r':
			rcvbuf = strtol(optarg, NULL, 0);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			usage();
		}
	}
	if (!have_listen || ndst == 0 || optind != argc)
		usage();

	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			die("sched_setaffinity(cpu %d): %s", cpu, strerror(errno));
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: a blocked recvmmsg returns EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	int rfd = socket(AF_INET, SOCK_DGRAM, 0);
	if (rfd < 0)
		die("socket: %s", strerror(errno));
	if (rcvbuf > 0) {
		int v = (int)rcvbuf;
		if (setsockopt(rfd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) < 0)
			setsockopt(rfd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	}
	struct timeval tmo = { .tv_sec = 0, .tv_usec = 200000 }; /* wake for stats and --duration */
	setsockopt(rfd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	if (bind(rfd, (struct sockaddr *)&listen_sa, sizeof(listen_sa)) < 0)
		die("bind: %s", strerror(errno));

	int dfd[MAX_DST];
	for (unsigned int d = 0; d < ndst; d++) {
		int v = 4 << 20;
		dfd[d] = socket(AF_INET, SOCK_DGRAM, 0);
		if (dfd[d] < 0)
			die("socket: %s", strerror(errno));
		if (setsockopt(dfd[d], SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)) < 0)
			setsockopt(dfd[d], SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
		/* connected: the route is looked up once, not per datagram */
		if (connect(dfd[d], (struct sockaddr *)&dst[d], sizeof(dst[d])) < 0)
			die("connect dst %u: %s", d, strerror(errno));
	}

	uint8_t *slots = aligned_alloc(4096, (size_t)batch * SLOT_SIZE);
	struct mmsghdr *rx = calloc(batch, sizeof(*rx));
	struct mmsghdr *tx = calloc(batch, sizeof(*tx));
	struct iovec *rx_iov = calloc(batch, sizeof(*rx_iov));
	struct iovec *tx_iov = calloc(batch, sizeof(*tx_iov));
	if (!slots || !rx || !tx || !rx_iov || !tx_iov)
		die("out of memory");
	for (unsigned int i = 0; i < batch; i++) {
		rx_iov[i].iov_base = slots + (size_t)i * SLOT_SIZE;
		rx_iov[i].iov_len = SLOT_SIZE;
		rx[i].msg_hdr.msg_iov = &rx_iov[i];
		rx[i].msg_hdr.msg_iovlen = 1;
		tx_iov[i].iov_base = rx_iov[i].iov_base;
		tx[i].msg_hdr.msg_iov = &tx_iov[i];
		tx[i].msg_hdr.msg_iovlen = 1;
	}

	int eff_rcvbuf = 0;
	socklen_t l = sizeof(eff_rcvbuf);
	getsockopt(rfd, SOL_SOCKET, SO_RCVBUF, &eff_rcvbuf, &l);
	fprintf(stderr, "ref_mmsg: %u destination(s), batch %u, rcvbuf %d, cpu %d\n", ndst, batch,
		eff_rcvbuf, cpu);

	struct rusage ru0, ru1;
	uint32_t drops0 = sock_drops(rfd), drops_last = drops0;
	getrusage(RUSAGE_SELF, &ru0);
	double t0 = now_s(), t_last = t0, t_end = duration > 0 ? t0 + duration : 0;
	double cpu_last = tv_s(ru0.ru_utime) + tv_s(ru0.ru_stime);
	uint64_t rx_last = 0, tx_last = 0, err_last = 0;

	while (!stop) {
		int n = recvmmsg(rfd, rx, batch, MSG_WAITFORONE, NULL);

		if (n > 0) {
			st.rx_calls++;
			st.rx += (unsigned int)n;
			for (int i = 0; i < n; i++)
				tx_iov[i].iov_len = rx[i].msg_len;
			for (unsigned int d = 0; d < ndst; d++)
				send_all(dfd[d], tx, (unsigned int)n);
		} else if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
			die("recvmmsg: %s", strerror(errno));
		}

		double t = now_s();
		if (t - t_last >= 1.0) {
			struct rusage ru;
			uint32_t dr = sock_drops(rfd);
			getrusage(RUSAGE_SELF, &ru);
			double c = tv_s(ru.ru_utime) + tv_s(ru.ru_stime), dt = t - t_last;
			if (!quiet)
				fprintf(stderr,
					"rx %.0f pps | tx %.0f pps | drop %llu | rxq_drop %u | cpu %.0f%%\n",
					(double)(st.rx - rx_last) / dt,
					(double)(st.tx_ok - tx_last) / dt,
					(unsigned long long)(st.tx_err - err_last), dr - drops_last,
					100.0 * (c - cpu_last) / dt);
			rx_last = st.rx;
			tx_last = st.tx_ok;
			err_last = st.tx_err;
			drops_last = dr;
			cpu_last = c;
			t_last = t;
		}
		if (t_end > 0 && t >= t_end)
			break;
	}

	double seconds = now_s() - t0;
	getrusage(RUSAGE_SELF, &ru1);
	uint32_t drops = sock_drops(rfd) - drops0;
	char json[1024];
	snprintf(json, sizeof(json),
		 "{\"tool\": \"ref_mmsg\", \"rx\": %llu, \"tx_ok\": %llu, \"tx_err\": %llu, "
		 "\"seconds\": %.3f, \"cpu_user_s\": %.3f, \"cpu_sys_s\": %.3f, "
		 "\"destinations\": %u, \"batch\": %u, \"rx_calls\": %llu, \"rx_sock_drops\": %u, "
		 "\"tx_nobuf\": %llu, \"tx_other_err\": %llu, \"tx_refused\": %llu, "
		 "\"last_errno\": %d, \"cpu\": %d}\n",
		 (unsigned long long)st.rx, (unsigned long long)st.tx_ok,
		 (unsigned long long)st.tx_err, seconds, tv_s(ru1.ru_utime) - tv_s(ru0.ru_utime),
		 tv_s(ru1.ru_stime) - tv_s(ru0.ru_stime), ndst, batch,
		 (unsigned long long)st.rx_calls, drops, (unsigned long long)st.tx_nobuf,
		 (unsigned long long)st.tx_other, (unsigned long long)st.tx_refused, st.last_errno,
		 cpu);
	fputs(json, stdout);
	fflush(stdout);
	if (json_path) {
		FILE *f = fopen(json_path, "w");
		if (!f || fputs(json, f) < 0 || fclose(f) != 0)
			die("cannot write %s: %s", json_path, strerror(errno));
	}
	return 0;
}
