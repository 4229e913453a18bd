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
#include <stdint.h>
#include <sys/socket.h>

#define REF_TOOL "ref_gso"
#include "ref_common.h"

#define MAX_UDP4 65507   /* largest IPv4 UDP payload: one GSO message can carry no more */
#define PACK_MAX_SEGS 64 /* UDP_MAX_SEGMENTS on every kernel that has UDP_SEGMENT */
#define SPLIT_CHUNK 256

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

	ent_seg[e] = seg;
	if (!seg) {
		m->msg_control = NULL;
		m->msg_controllen = 0;
		return;
	}
	put_udp_segment(m, &ent_ctrl[e], seg);
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
		FWD_OPTIONS,
		{ "pack", no_argument, NULL, 'p' },
		{ "no-gro", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fwd_args a = FWD_ARGS_INIT;
	struct fwd_meter mt;
	int pack = 0, gro = 1, o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'p':
			pack = 1;
			break;
		case 'n':
			gro = 0;
			break;
		default:
			if (!fwd_option(&a, o, optarg))
				usage();
		}
	}
	if (!a.have_listen || a.ndst == 0 || optind != argc)
		usage();

	pin_cpu(a.cpu);
	catch_signals();

	int rfd = rx_socket(&a.listen_sa, a.rcvbuf, gro, 200000); /* wake for stats, --duration */
	int dfd[MAX_DST];
	unsigned int pack_max = MAX_UDP4; /* largest segment the egress MTU allows */
	for (unsigned int d = 0; d < a.ndst; d++) {
		int mtu = 0;
		socklen_t l = sizeof(mtu);
		dfd[d] = dst_socket(&a.dst[d], d);
		if (getsockopt(dfd[d], IPPROTO_IP, IP_MTU, &mtu, &l) < 0 || mtu < 68)
			mtu = 1500;
		if ((unsigned int)mtu - 28 < pack_max)
			pack_max = (unsigned int)mtu - 28;
	}

	unsigned int batch = a.batch;
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
	rx_slots(rx, rx_iov, gro ? rx_ctrl : NULL, slots, batch);

	fprintf(stderr,
		"ref_gso: %u destination(s), batch %u, rcvbuf %d, cpu %d, gro %s, pack %s "
		"(segments up to %u bytes)\n",
		a.ndst, batch, rcvbuf_of(rfd), a.cpu, gro ? "on" : "off", pack ? "on" : "off",
		pack_max);

	fwd_meter_start(&mt, rfd, a.duration);
	while (!stop) {
		int n = recvmmsg(rfd, rx, batch, MSG_WAITFORONE, NULL);

		if (n > 0) {
			unsigned int ne = 0;
			int open = -1; /* --pack: message still taking equal-size datagrams */
			unsigned int open_bytes = 0;

			st.rx_calls++;
			st.rx_bufs += (unsigned int)n;
			for (int i = 0; i < n; i++) {
				unsigned int len = rx[i].msg_len;
				unsigned int seg = gro_segment(&rx[i].msg_hdr, gro);

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
			for (unsigned int d = 0; d < a.ndst; d++)
				send_batch(dfd[d], ne);
		} else if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
			die("recvmmsg: %s", strerror(errno));
		}
		if (fwd_meter_tick(&mt, rfd, st.rx, st.tx_ok, st.tx_err, a.quiet))
			break;
	}
	fwd_meter_stop(&mt, rfd);

	char json[1400];
	size_t h = fwd_json_head(json, sizeof(json), &mt, &a, st.rx, st.tx_ok, st.tx_err);
	snprintf(json + h, sizeof(json) - h,
		 "\"gro\": %s, \"pack\": %s, \"rx_calls\": %llu, \"rx_buffers\": %llu, "
		 "\"rx_trains\": %llu, \"rx_dgrams_per_buffer\": %.3f, \"rx_sock_drops\": %u, "
		 "\"tx_msgs\": %llu, \"tx_gso_msgs\": %llu, \"tx_split_msgs\": %llu, "
		 "\"gso_ok\": %s, \"tx_nobuf\": %llu, \"tx_other_err\": %llu, "
		 "\"tx_refused\": %llu, \"last_errno\": %d, \"cpu\": %d}\n",
		 gro ? "true" : "false", pack ? "true" : "false", (unsigned long long)st.rx_calls,
		 (unsigned long long)st.rx_bufs, (unsigned long long)st.rx_trains,
		 st.rx_bufs ? (double)st.rx / (double)st.rx_bufs : 0.0, mt.drops,
		 (unsigned long long)st.tx_msgs, (unsigned long long)st.tx_gso_msgs,
		 (unsigned long long)st.split_msgs, gso_ok ? "true" : "false",
		 (unsigned long long)st.tx_nobuf, (unsigned long long)st.tx_other,
		 (unsigned long long)st.tx_refused, st.last_errno, a.cpu);
	write_json(json, a.json_path);
	return 0;
}
