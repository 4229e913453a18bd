/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ref_gso: reference kernel-socket UDP fan-out forwarder, recvmmsg + UDP_GRO on receive,
 * sendmmsg + UDP_SEGMENT on send (the "stack batching" socket engine).
 *
 * Not part of udpfan: a yardstick for docs/benchmarks. Same contract as ref_mmsg (one thread,
 * every destination gets every datagram, payload untouched), same options, same counters, all
 * in datagrams, never in buffers:
 *
 *   ref_gso --listen IP:PORT --dst IP:PORT [--dst IP:PORT ...] [--batch 64] [--duration S]
 *           [--json PATH] [--rcvbuf BYTES] [--cpu N] [--quiet] [--pack] [--no-gro]
 *
 * Receive: the listening socket has UDP_GRO set, so the kernel may hand back several
 * same-flow datagrams as one buffer; a UDP_GRO cmsg then carries the segment size. A buffer
 * of length L with segment size S holds ceil(L / S) datagrams: all S bytes long except the
 * last, which may be shorter (1..S bytes).
 *
 * Send: per destination, the received batch becomes one sendmmsg on a socket connected to
 * that destination. A coalesced buffer is one message of that batch carrying a UDP_SEGMENT
 * cmsg with S: the kernel cuts it back into the same datagrams, the shorter last one
 * included, after one pass through the stack. Other datagrams are plain messages of the same
 * sendmmsg. With --pack, runs of consecutive received datagrams of equal size (optionally
 * ended by one shorter datagram) are also sent as one UDP_SEGMENT message, gathered with one
 * iovec per datagram (no copy): that is the GSO half working without GRO.
 *
 * GRO on veth: UDP_GRO hands back coalesced buffers only for what reaches the socket as a
 * GSO train. veth does no GRO of its own unless NAPI is on (XDP attached, or ethtool -K gro
 * on), so with ordinary senders (one datagram per send) the GRO half does nothing on the veth
 * test bed: measured 1.00 datagram per receive. It shows when the sender emits UDP_SEGMENT
 * trains (ref_gen --gso K). rx_dgrams_per_buffer in the JSON says which case a run was in.
 *
 * Older kernels answer EIO to UDP_SEGMENT when the egress device has no tx checksum offload
 * (the veth test bed turns it off: ethtool -K fwd0 tx on); 6.18 segments and checksums in
 * software instead (tried with tx off). On EIO this program warns once and from then on sends
 * the segments of each train as separate datagrams; a segment size the route's MTU refuses
 * (EINVAL) is split the same way, for that message only.
 *
 * Stats line, JSON and error policy as in ref_mmsg.c: EAGAIN/ENOBUFS count as drops (the rest
 * of that destination's batch), any other error drops that message's datagrams, ECONNREFUSED
 * is retried and counted in tx_refused. Nothing is fatal after start-up. One difference:
 * rx_sock_drops (and rxq_drop in the stats line) is the kernel's count of dropped socket
 * buffers, and with GRO a buffer can hold several datagrams (a dropped train of 8 counts 1).
 */
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
#define SLOT_SIZE 65536  /* a GRO buffer is at most 64 KiB */
#define MAX_UDP4 65507   /* largest IPv4 UDP payload: one GSO message can carry no more */
#define PACK_MAX_SEGS 64 /* UDP_MAX_SEGMENTS on every kernel that has UDP_SEGMENT */
#define SPLIT_CHUNK 256

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
	fputs("ref_gso: ", stderr);
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

/* room for one int (UDP_GRO, receive) or one u16 (UDP_SEGMENT, send) */
union ctrl {
	struct cmsghdr align;
	char buf[CMSG_SPACE(sizeof(int))];
};

static struct {
	uint64_t rx, rx_bufs, rx_calls, rx_trains, tx_ok, tx_err, tx_nobuf, tx_other, tx_refused;
	uint64_t tx_msgs, tx_gso_msgs, split_msgs;
	int last_errno;
} st;

static int gso_ok = 1; /* cleared on the first EIO from UDP_SEGMENT */

/* the send side of one received batch, shared by all destinations */
static struct mmsghdr *ent;  /* messages */
static unsigned int *ent_dg; /* datagrams per message */
static uint16_t *ent_seg;    /* segment size of a GSO message, 0 for a plain one */
static union ctrl *ent_ctrl;

static void
set_segment(unsigned int e, uint16_t seg)
{
	struct msghdr *m = &ent[e].msg_hdr;
	struct cmsghdr *c;

	ent_seg[e] = seg;
	if (!seg) {
		m->msg_control = NULL;
		m->msg_controllen = 0;
		return;
	}
	m->msg_control = ent_ctrl[e].buf;
	m->msg_controllen = CMSG_SPACE(sizeof(uint16_t));
	c = CMSG_FIRSTHDR(m);
	c->cmsg_level = SOL_UDP;
	c->cmsg_type = UDP_SEGMENT;
	c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
	memcpy(CMSG_DATA(c), &seg, sizeof(seg));
}

static void send_msgs(int fd, struct mmsghdr *m, const unsigned int *dg, const uint16_t *seg,
		      unsigned int n);

/* Send one GSO message as separate datagrams (EIO fallback, or a segment size the egress
 * path refuses): every iovec is cut at the segment size. */
static void
split_send(int fd, const struct msghdr *gm, uint16_t seg)
{
	static struct mmsghdr m[SPLIT_CHUNK];
	static struct iovec iov[SPLIT_CHUNK];
	unsigned int n = 0;

	st.split_msgs++;
	for (size_t v = 0; v < gm->msg_iovlen; v++) {
		uint8_t *p = gm->msg_iov[v].iov_base;
		size_t left = gm->msg_iov[v].iov_len;
		while (left > 0) {
			size_t len = left < seg ? left : seg;
			iov[n].iov_base = p;
			iov[n].iov_len = len;
			memset(&m[n], 0, sizeof(m[n]));
			m[n].msg_hdr.msg_iov = &iov[n];
			m[n].msg_hdr.msg_iovlen = 1;
			p += len;
			left -= len;
			if (++n == SPLIT_CHUNK) {
				send_msgs(fd, m, NULL, NULL, n);
				n = 0;
			}
		}
	}
	if (n)
		send_msgs(fd, m, NULL, NULL, n);
}

/* Send m[0..n) on a connected socket. dg[i]: datagrams in message i (NULL: 1 each);
 * seg[i]: its segment size (NULL: all plain). Never blocks, never fails the program. */
static void
send_msgs(int fd, struct mmsghdr *m, const unsigned int *dg, const uint16_t *seg, unsigned int n)
{
	unsigned int off = 0, refused = 0;

	while (off < n) {
		int r = sendmmsg(fd, m + off, n - off, MSG_DONTWAIT);

		if (r > 0) {
			st.tx_msgs += (unsigned int)r;
			for (unsigned int i = off; i < off + (unsigned int)r; i++) {
				st.tx_ok += dg ? dg[i] : 1;
				if (seg && seg[i])
					st.tx_gso_msgs++;
			}
			off += (unsigned int)r;
			continue;
		}
		int e = r == 0 ? EPROTO : errno; /* r == 0: not expected */
		unsigned int this_dg = dg ? dg[off] : 1;
		if (e == EINTR)
			continue;
		if (e == ECONNREFUSED) { /* a pending ICMP error, now cleared: retry */
			st.tx_refused++;
			if (++refused <= n)
				continue;
		} else if (e == EAGAIN ||
			   e == ENOBUFS) { /* queue full: drop the rest of the batch */
			for (unsigned int i = off; i < n; i++) {
				st.tx_err += dg ? dg[i] : 1;
				st.tx_nobuf += dg ? dg[i] : 1;
			}
			return;
		} else if (seg && seg[off] && (e == EIO || e == EINVAL || e == EMSGSIZE)) {
			if (e == EIO && gso_ok) {
				gso_ok = 0;
				fprintf(stderr,
					"ref_gso: UDP_SEGMENT send failed with EIO: the egress device "
					"has no tx checksum offload (ethtool -K IF tx on); sending "
					"segments one by one from now on\n");
			}
			split_send(fd, &m[off].msg_hdr, seg[off]);
			off++;
			continue;
		}
		st.last_errno = e;
		st.tx_err += this_dg;
		st.tx_other += this_dg;
		off++;
	}
}

/* one destination: the whole batch in one sendmmsg while UDP_SEGMENT works */
static void
send_batch(int fd, unsigned int ne)
{
	if (gso_ok) {
		send_msgs(fd, ent, ent_dg, ent_seg, ne);
		return;
	}
	unsigned int i = 0;
	while (i < ne) {
		unsigned int j = i;
		while (j < ne && !ent_seg[j])
			j++;
		if (j > i)
			send_msgs(fd, ent + i, ent_dg + i, ent_seg + i, j - i);
		if (j < ne)
			split_send(fd, &ent[j].msg_hdr, ent_seg[j]);
		i = j + 1;
	}
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: ref_gso --listen IP:PORT --dst IP:PORT [--dst IP:PORT ...] [--batch 64]\n"
		"               [--duration S] [--json PATH] [--rcvbuf BYTES] [--cpu N] [--quiet]\n"
		"               [--pack] [--no-gro]\n");
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
		{ "pack", no_argument, NULL, 'p' },
		{ "no-gro", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_in listen_sa, dst[MAX_DST];
	unsigned int ndst = 0, batch = 64;
	double duration = 0;
	long rcvbuf = 4 << 20;
	int cpu = -1, quiet = 0, have_listen = 0, pack = 0, gro = 1, o;
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
		case 'p':
			pack = 1;
			break;
		case 'n':
			gro = 0;
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
	if (gro) {
		int one = 1;
		if (setsockopt(rfd, SOL_UDP, UDP_GRO, &one, sizeof(one)) < 0)
			die("setsockopt UDP_GRO: %s", strerror(errno));
	}
	struct timeval tmo = { .tv_sec = 0, .tv_usec = 200000 }; /* wake for stats and --duration */
	setsockopt(rfd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	if (bind(rfd, (struct sockaddr *)&listen_sa, sizeof(listen_sa)) < 0)
		die("bind: %s", strerror(errno));

	int dfd[MAX_DST];
	unsigned int pack_max = MAX_UDP4; /* largest segment the egress MTU allows */
	for (unsigned int d = 0; d < ndst; d++) {
		int v = 4 << 20, mtu = 0;
		socklen_t l = sizeof(mtu);
		dfd[d] = socket(AF_INET, SOCK_DGRAM, 0);
		if (dfd[d] < 0)
			die("socket: %s", strerror(errno));
		if (setsockopt(dfd[d], SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)) < 0)
			setsockopt(dfd[d], SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
		/* connected: the route is looked up once, not per datagram */
		if (connect(dfd[d], (struct sockaddr *)&dst[d], sizeof(dst[d])) < 0)
			die("connect dst %u: %s", d, strerror(errno));
		if (getsockopt(dfd[d], IPPROTO_IP, IP_MTU, &mtu, &l) < 0 || mtu < 68)
			mtu = 1500;
		if ((unsigned int)mtu - 28 < pack_max)
			pack_max = (unsigned int)mtu - 28;
	}

	uint8_t *slots = aligned_alloc(4096, (size_t)batch * SLOT_SIZE);
	struct mmsghdr *rx = calloc(batch, sizeof(*rx));
	struct iovec *rx_iov = calloc(batch, sizeof(*rx_iov));
	union ctrl *rx_ctrl = calloc(batch, sizeof(*rx_ctrl));
	struct iovec *tx_iov = calloc(batch, sizeof(*tx_iov));
	ent = calloc(batch, sizeof(*ent));
	ent_dg = calloc(batch, sizeof(*ent_dg));
	ent_seg = calloc(batch, sizeof(*ent_seg));
	ent_ctrl = calloc(batch, sizeof(*ent_ctrl));
	if (!slots || !rx || !rx_iov || !rx_ctrl || !tx_iov || !ent || !ent_dg || !ent_seg ||
	    !ent_ctrl)
		die("out of memory");
	for (unsigned int i = 0; i < batch; i++) {
		rx_iov[i].iov_base = slots + (size_t)i * SLOT_SIZE;
		rx_iov[i].iov_len = SLOT_SIZE;
		rx[i].msg_hdr.msg_iov = &rx_iov[i];
		rx[i].msg_hdr.msg_iovlen = 1;
		if (gro) {
			rx[i].msg_hdr.msg_control = rx_ctrl[i].buf;
			rx[i].msg_hdr.msg_controllen = sizeof(rx_ctrl[i].buf);
		}
	}

	int eff_rcvbuf = 0;
	socklen_t l = sizeof(eff_rcvbuf);
	getsockopt(rfd, SOL_SOCKET, SO_RCVBUF, &eff_rcvbuf, &l);
	fprintf(stderr,
		"ref_gso: %u destination(s), batch %u, rcvbuf %d, cpu %d, gro %s, pack %s "
		"(segments up to %u bytes)\n",
		ndst, batch, eff_rcvbuf, cpu, gro ? "on" : "off", pack ? "on" : "off", pack_max);

	struct rusage ru0, ru1;
	uint32_t drops0 = sock_drops(rfd), drops_last = drops0;
	getrusage(RUSAGE_SELF, &ru0);
	double t0 = now_s(), t_last = t0, t_end = duration > 0 ? t0 + duration : 0;
	double cpu_last = tv_s(ru0.ru_utime) + tv_s(ru0.ru_stime);
	uint64_t rx_last = 0, tx_last = 0, err_last = 0;

	while (!stop) {
		int n = recvmmsg(rfd, rx, batch, MSG_WAITFORONE, NULL);

		if (n > 0) {
			unsigned int ne = 0;
			int open = -1; /* --pack: message still taking equal-size datagrams */
			unsigned int open_bytes = 0;

			st.rx_calls++;
			st.rx_bufs += (unsigned int)n;
			for (int i = 0; i < n; i++) {
				struct msghdr *h = &rx[i].msg_hdr;
				unsigned int len = rx[i].msg_len, seg = 0;

				for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c;
				     c = CMSG_NXTHDR(h, c)) {
					if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
						int v;
						memcpy(&v, CMSG_DATA(c), sizeof(v));
						seg = v > 0 ? (unsigned int)v : 0;
					}
				}
				if (gro)
					h->msg_controllen = sizeof(
							rx_ctrl[i].buf); /* reset for the next call */
				tx_iov[i].iov_base = rx_iov[i].iov_base;
				tx_iov[i].iov_len = len;

				if (seg && len > seg) {
					/* a coalesced buffer: ceil(len / seg) datagrams, the last 1..seg bytes */
					unsigned int k = (len + seg - 1) / seg;
					if (open >= 0 && ent_dg[open] == 1)
						set_segment((unsigned int)open,
							    0); /* a run of one: plain */
					open = -1;
					st.rx += k;
					st.rx_trains++;
					memset(&ent[ne], 0, sizeof(ent[ne]));
					ent[ne].msg_hdr.msg_iov = &tx_iov[i];
					ent[ne].msg_hdr.msg_iovlen = 1;
					ent_dg[ne] = k;
					set_segment(ne, (uint16_t)seg);
					ne++;
					continue;
				}
				st.rx++;
				if (open >= 0 && len <= ent_seg[open] && len > 0 &&
				    ent_dg[open] < PACK_MAX_SEGS && open_bytes + len <= MAX_UDP4) {
					/* extend the run; a shorter datagram can only be its last */
					ent[open].msg_hdr.msg_iovlen++;
					ent_dg[open]++;
					open_bytes += len;
					if (len < ent_seg[open])
						open = -1;
					continue;
				}
				/* a new message: a plain datagram, or with --pack the start of a run */
				if (open >= 0 && ent_dg[open] == 1)
					set_segment((unsigned int)open,
						    0); /* a run of one is a plain datagram */
				open = -1;
				memset(&ent[ne], 0, sizeof(ent[ne]));
				ent[ne].msg_hdr.msg_iov = &tx_iov[i];
				ent[ne].msg_hdr.msg_iovlen = 1;
				ent_dg[ne] = 1;
				if (pack && gso_ok && len > 0 && len <= pack_max) {
					set_segment(ne, (uint16_t)len);
					open = (int)ne;
					open_bytes = len;
				} else {
					set_segment(ne, 0);
				}
				ne++;
			}
			if (open >= 0 && ent_dg[open] == 1)
				set_segment((unsigned int)open, 0);
			for (unsigned int d = 0; d < ndst; d++)
				send_batch(dfd[d], ne);
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
	char json[1400];
	snprintf(json, sizeof(json),
		 "{\"tool\": \"ref_gso\", \"rx\": %llu, \"tx_ok\": %llu, \"tx_err\": %llu, "
		 "\"seconds\": %.3f, \"cpu_user_s\": %.3f, \"cpu_sys_s\": %.3f, "
		 "\"destinations\": %u, \"batch\": %u, \"gro\": %s, \"pack\": %s, "
		 "\"rx_calls\": %llu, \"rx_buffers\": %llu, \"rx_trains\": %llu, "
		 "\"rx_dgrams_per_buffer\": %.3f, \"rx_sock_drops\": %u, \"tx_msgs\": %llu, "
		 "\"tx_gso_msgs\": %llu, \"tx_split_msgs\": %llu, \"gso_ok\": %s, "
		 "\"tx_nobuf\": %llu, \"tx_other_err\": %llu, \"tx_refused\": %llu, "
		 "\"last_errno\": %d, \"cpu\": %d}\n",
		 (unsigned long long)st.rx, (unsigned long long)st.tx_ok,
		 (unsigned long long)st.tx_err, seconds, tv_s(ru1.ru_utime) - tv_s(ru0.ru_utime),
		 tv_s(ru1.ru_stime) - tv_s(ru0.ru_stime), ndst, batch, gro ? "true" : "false",
		 pack ? "true" : "false", (unsigned long long)st.rx_calls,
		 (unsigned long long)st.rx_bufs, (unsigned long long)st.rx_trains,
		 st.rx_bufs ? (double)st.rx / (double)st.rx_bufs : 0.0, drops,
		 (unsigned long long)st.tx_msgs, (unsigned long long)st.tx_gso_msgs,
		 (unsigned long long)st.split_msgs, gso_ok ? "true" : "false",
		 (unsigned long long)st.tx_nobuf, (unsigned long long)st.tx_other,
		 (unsigned long long)st.tx_refused, st.last_errno, cpu);
	fputs(json, stdout);
	fflush(stdout);
	if (json_path) {
		FILE *f = fopen(json_path, "w");
		if (!f || fputs(json, f) < 0 || fclose(f) != 0)
			die("cannot write %s: %s", json_path, strerror(errno));
	}
	return 0;
}
