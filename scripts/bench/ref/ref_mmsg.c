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
#include <stdint.h>
#include <sys/socket.h>

#define REF_TOOL "ref_mmsg"
#include "ref_common.h"

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
		FWD_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fwd_args a = FWD_ARGS_INIT;
	struct fwd_meter mt;
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (!fwd_option(&a, o, optarg))
			usage();
	}
	if (!a.have_listen || a.ndst == 0 || optind != argc)
		usage();

	pin_cpu(a.cpu);
	catch_signals();

	int rfd = rx_socket(&a.listen_sa, a.rcvbuf, 0, 200000); /* wake for stats and --duration */
	int dfd[MAX_DST];
	for (unsigned int d = 0; d < a.ndst; d++)
		dfd[d] = dst_socket(&a.dst[d], d);

	unsigned int batch = a.batch;
	uint8_t *slots = aligned_alloc(4096, (size_t)batch * SLOT_SIZE);
	struct mmsghdr *rx = calloc(batch, sizeof(*rx));
	struct mmsghdr *tx = calloc(batch, sizeof(*tx));
	struct iovec *rx_iov = calloc(batch, sizeof(*rx_iov));
	struct iovec *tx_iov = calloc(batch, sizeof(*tx_iov));
	if (!slots || !rx || !tx || !rx_iov || !tx_iov)
		die("out of memory");
	rx_slots(rx, rx_iov, NULL, slots, batch);
	for (unsigned int i = 0; i < batch; i++) {
		tx_iov[i].iov_base = rx_iov[i].iov_base;
		tx[i].msg_hdr.msg_iov = &tx_iov[i];
		tx[i].msg_hdr.msg_iovlen = 1;
	}

	fprintf(stderr, "ref_mmsg: %u destination(s), batch %u, rcvbuf %d, cpu %d\n", a.ndst, batch,
		rcvbuf_of(rfd), a.cpu);

	fwd_meter_start(&mt, rfd, a.duration);
	while (!stop) {
		int n = recvmmsg(rfd, rx, batch, MSG_WAITFORONE, NULL);

		if (n > 0) {
			st.rx_calls++;
			st.rx += (unsigned int)n;
			for (int i = 0; i < n; i++)
				tx_iov[i].iov_len = rx[i].msg_len;
			for (unsigned int d = 0; d < a.ndst; d++)
				send_all(dfd[d], tx, (unsigned int)n);
		} else if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
			die("recvmmsg: %s", strerror(errno));
		}
		if (fwd_meter_tick(&mt, rfd, st.rx, st.tx_ok, st.tx_err, a.quiet))
			break;
	}
	fwd_meter_stop(&mt, rfd);

	char json[1024];
	size_t h = fwd_json_head(json, sizeof(json), &mt, &a, st.rx, st.tx_ok, st.tx_err);
	snprintf(json + h, sizeof(json) - h,
		 "\"rx_calls\": %llu, \"rx_sock_drops\": %u, \"tx_nobuf\": %llu, "
		 "\"tx_other_err\": %llu, \"tx_refused\": %llu, \"last_errno\": %d, \"cpu\": %d}\n",
		 (unsigned long long)st.rx_calls, mt.drops, (unsigned long long)st.tx_nobuf,
		 (unsigned long long)st.tx_other, (unsigned long long)st.tx_refused, st.last_errno,
		 a.cpu);
	write_json(json, a.json_path);
	return 0;
}
