/* SPDX-License-Identifier: BSD-3-Clause
 * Kernel mode: one UDP socket and one thread per port; recvmmsg batches of 64 (blocking for
 * the first datagram, 100 ms at most, so a stop is seen), IP_PKTINFO for the destination
 * address, an 8 MiB receive buffer (SO_RCVBUFFORCE as root, else SO_RCVBUF up to rmem_max),
 * and the socket's own drop counter (SO_MEMINFO) at the end.
 */
#include <errno.h>
#include <linux/filter.h>
#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "sink.h"

#define DGRAM_BUF 2048 /* the sequence number is all we read; longer ones are truncated */
#define RCV_TIMEOUT_MS 100

struct kworker {
	uint16_t port; /* host order */
	int fd;
	int rcvbuf; /* what the kernel granted (it doubles the request for its overhead) */
	bool forced;
	bool started;
	pthread_t th;
	int err;        /* errno that stopped the thread, 0 if none */
	uint64_t drops; /* SK_MEMINFO_DROPS before the stop filter: receive-buffer overflows */
	bool drops_read;
	struct uf_sink_count cnt;
	uint8_t bufs[SINK_BATCH][DGRAM_BUF];
	uint8_t ctl[SINK_BATCH][CMSG_SPACE(sizeof(struct in_pktinfo))];
};

static struct kworker kw[SINK_MAX_PORTS];
static int n_kw;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static rte_be32_t
pktinfo_dst(struct msghdr *mh)
{
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			return pi.ipi_addr.s_addr;
		}
	}
	return 0;
}

/*
 * Stopping without losing count: first a socket filter that refuses everything, so that what
 * arrives from now on is counted by the kernel (UDP InErrors) instead of queued; then read
 * what is queued; then close (after that: UDP NoPorts). Without this the datagrams still in
 * the receive queue at close() vanish from every counter (the kernel counts InDatagrams when
 * they are read).
 */
static void
drain(struct kworker *w, struct mmsghdr *msgs, struct sockaddr_in *from, rte_be16_t port)
{
	struct sock_filter refuse = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog prog = { .len = 1, .filter = &refuse };
	int i, n;

	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	/* the receive-buffer drops so far, before the filter adds its refusals to the count */
	if (getsockopt(w->fd, SOL_SOCKET, SO_MEMINFO, mem, &len) == 0 &&
	    len > SK_MEMINFO_DROPS * sizeof(uint32_t))
		w->drops = mem[SK_MEMINFO_DROPS];
	w->drops_read = true;
	if (setsockopt(w->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) != 0)
		return;
	for (;;) {
		uint64_t now;

		for (i = 0; i < SINK_BATCH; i++) {
			msgs[i].msg_hdr.msg_namelen = sizeof(from[i]);
			msgs[i].msg_hdr.msg_control = w->ctl[i];
			msgs[i].msg_hdr.msg_controllen = sizeof(w->ctl[i]);
		}
		n = recvmmsg(w->fd, msgs, SINK_BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		now = now_ns();
		for (i = 0; i < n; i++)
			uf_sink_account(&w->cnt, pktinfo_dst(&msgs[i].msg_hdr), port,
					from[i].sin_addr.s_addr, from[i].sin_port, w->bufs[i],
					msgs[i].msg_len, now);
		UF_STORE(&w->cnt.total, w->cnt.total + (uint64_t)n);
	}
}

static void *
kernel_loop(void *arg)
{
	struct kworker *w = arg;
	struct mmsghdr msgs[SINK_BATCH];
	struct sockaddr_in from[SINK_BATCH];
	struct iovec iov[SINK_BATCH];
	const rte_be16_t port = rte_cpu_to_be_16(w->port);
	int i, n;

	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < SINK_BATCH; i++) {
		iov[i].iov_base = w->bufs[i];
		iov[i].iov_len = DGRAM_BUF;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &from[i];
	}
	while (!sink_stopping()) {
		uint64_t now;

		for (i = 0; i < SINK_BATCH; i++) {
			msgs[i].msg_hdr.msg_namelen = sizeof(from[i]);
			msgs[i].msg_hdr.msg_control = w->ctl[i];
			msgs[i].msg_hdr.msg_controllen = sizeof(w->ctl[i]);
		}
		n = recvmmsg(w->fd, msgs, SINK_BATCH, MSG_WAITFORONE, NULL);
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				w->err = errno;
				break;
			}
			continue;
		}
		now = now_ns();
		for (i = 0; i < n; i++) {
			struct msghdr *mh = &msgs[i].msg_hdr;

			uf_sink_account(&w->cnt, pktinfo_dst(mh), port, from[i].sin_addr.s_addr,
					from[i].sin_port, w->bufs[i], msgs[i].msg_len, now);
		}
		UF_STORE(&w->cnt.total, w->cnt.total + (uint64_t)n);
	}
	drain(w, msgs, from, port);
	return NULL;
}

static int
open_socket(struct kworker *w, const struct sink_opts *o, struct uf_err *err)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = RCV_TIMEOUT_MS * 1000 };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int one = 1, sz = SINK_RCVBUF;
	socklen_t len = sizeof(w->rcvbuf);
	char addr[32];

	w->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (w->fd < 0) {
		uf_err_set(err, UF_EXIT_ENV, "socket: %s", strerror(errno));
		return -1;
	}
	/* FORCE passes net.core.rmem_max (root); otherwise the kernel caps the request */
	w->forced = setsockopt(w->fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) == 0;
	if (!w->forced)
		setsockopt(w->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (getsockopt(w->fd, SOL_SOCKET, SO_RCVBUF, &w->rcvbuf, &len) != 0)
		w->rcvbuf = -1;
	setsockopt(w->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(w->fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	sa.sin_port = rte_cpu_to_be_16(w->port);
	sa.sin_addr.s_addr = o->has_bind ? o->bind : htonl(INADDR_ANY);
	if (bind(w->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		uf_sink_addr_str(sa.sin_addr.s_addr, sa.sin_port, addr, sizeof(addr));
		uf_err_set(err,
			   errno == EADDRNOTAVAIL || errno == EADDRINUSE || errno == EACCES
					   ? UF_EXIT_ENV
					   : UF_EXIT_OTHER,
			   "cannot bind %s: %s", addr, strerror(errno));
		return -1;
	}
	return 0;
}

static void
kernel_stop(void)
{
	int i;

	__atomic_store_n(&sink_quit, 1, __ATOMIC_RELAXED);
	for (i = 0; i < n_kw; i++) {
		struct kworker *w = &kw[i];
		uint32_t mem[SK_MEMINFO_VARS];
		socklen_t len = sizeof(mem);

		if (w->started) {
			pthread_join(w->th, NULL);
			w->started = false;
		}
		if (!w->drops_read && w->fd >= 0 &&
		    getsockopt(w->fd, SOL_SOCKET, SO_MEMINFO, mem, &len) == 0 &&
		    len > SK_MEMINFO_DROPS * sizeof(uint32_t))
			w->drops = mem[SK_MEMINFO_DROPS];
	}
}

static int
kernel_start(const struct sink_opts *o, struct uf_err *err)
{
	/* no EAL here to ask: the TSC's rate against CLOCK_MONOTONIC, once */
	const double tsc_hz = o->latency ? uf_tsc_hz_measure(100) : 0;
	int i, ret;

	for (i = 0; i < o->n_ports; i++) {
		struct kworker *w = &kw[n_kw++];

		memset(w, 0, sizeof(*w));
		w->fd = -1;
		w->port = o->ports[i];
		/* one destination when bound to an address; else a few (IP_PKTINFO tells) */
		if (uf_sink_count_init(&w->cnt, o->has_bind ? 1 : 4, o->win_log2) != 0) {
			uf_err_set(err, UF_EXIT_OTHER, "out of memory for the sequence windows");
			return -1;
		}
		w->cnt.seq_off = o->seq_off;
		if (o->latency && uf_sink_count_lat(&w->cnt, tsc_hz) != 0) {
			uf_err_set(err, UF_EXIT_OTHER, "out of memory for the latency histograms");
			return -1;
		}
		uf_sink_dest_add(&w->cnt, o->has_bind ? o->bind : 0, rte_cpu_to_be_16(w->port));
		if (open_socket(w, o, err) != 0)
			return -1;
	}
	for (i = 0; i < n_kw; i++) {
		ret = pthread_create(&kw[i].th, NULL, kernel_loop, &kw[i]);
		if (ret != 0) {
			uf_err_set(err, UF_EXIT_OTHER, "pthread_create: %s", strerror(ret));
			kernel_stop();
			return -1;
		}
		kw[i].started = true;
	}
	return 0;
}

static uint64_t
kernel_total(void)
{
	uint64_t t = 0;
	int i;

	for (i = 0; i < n_kw; i++)
		t += UF_LOAD(&kw[i].cnt.total);
	return t;
}

static int
kernel_counts(struct uf_sink_count **out, int max)
{
	int i;

	for (i = 0; i < n_kw && i < max; i++)
		out[i] = &kw[i].cnt;
	return i;
}

static double
kernel_hz(void)
{
	return 1e9;
}

static void
kernel_json(FILE *f)
{
	int i;

	fprintf(f, ", \"sockets\": {");
	for (i = 0; i < n_kw; i++)
		fprintf(f,
			"%s\"%u\": {\"rcvbuf\": %d, \"rcvbuf_requested\": %d, \"rcvbuf_forced\": "
			"%s, \"drops\": %" PRIu64 ", \"error\": %s%s%s}",
			i ? ", " : "", kw[i].port, kw[i].rcvbuf, SINK_RCVBUF,
			kw[i].forced ? "true" : "false", kw[i].drops, kw[i].err ? "\"" : "",
			kw[i].err ? strerror(kw[i].err) : "null", kw[i].err ? "\"" : "");
	fprintf(f, "}");
}

static void
kernel_fini(void)
{
	int i;

	for (i = 0; i < n_kw; i++) {
		if (kw[i].fd >= 0)
			close(kw[i].fd);
		uf_sink_count_free(&kw[i].cnt);
	}
	n_kw = 0;
}

const struct sink_mode sink_kernel_mode = {
	.name = "kernel",
	.start = kernel_start,
	.total = kernel_total,
	.stop = kernel_stop,
	.counts = kernel_counts,
	.hz = kernel_hz,
	.json = kernel_json,
	.fini = kernel_fini,
};
