/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ref_sink: counting UDP sink for the benches (recvmmsg, optionally UDP_GRO).
 *
 *   ref_sink --port P [--bind IP] [--gro] [--rcvbuf BYTES] [--batch 64] [--idle S]
 *            [--timeout S] [--max-time S] [--ready PATH] [--max-seq N] [--cpu N]
 *            [--json PATH] [--poll-us N]
 *
 * Counts datagrams (with --gro: the segments of each coalesced buffer, the last one may be
 * shorter), payload bytes, distinct sequence numbers (u64 LE in the first 8 payload bytes,
 * as ref_gen and tests/tools/udp_send.py write them; a bitmap of --max-seq entries),
 * duplicates, datagrams older than the newest seen (reordered), and the socket's own drop
 * counter (SO_MEMINFO: datagrams the kernel dropped because this sink was too slow).
 * Stops --idle seconds after the last datagram (default 2), after --timeout seconds if none
 * ever came (default 60), after --max-time seconds in any case (default 600), or on SIGTERM /
 * SIGINT; then prints one JSON object to stdout (and to --json PATH).
 *
 * --poll-us N: never sleep on the socket; drain it without blocking, then sleep N us. On veth
 * whoever sends to a sink runs the sink's receive path, wake-up included, in its own context
 * (a cross-CPU wake-up is an IPI, dear in a VM); a polling sink takes that cost out of the
 * forwarder being measured. The receive buffer must hold N us of traffic.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <endian.h>
#include <stdint.h>
#include <sys/socket.h>

#define REF_TOOL "ref_sink"
#include "ref_common.h"

static struct {
	uint64_t dgrams, bytes, distinct, dups, reordered, out_of_range, short_dg, calls, bufs;
	uint64_t max_seq;
	int any;
} st;

static uint64_t *seen;
static uint64_t max_seq_slots;
static unsigned int
		seq_off; /* --seq-offset: 24 behind a NetFlow v5 header (udpfan-gen --netflow-v5) */

static void
count(const uint8_t *p, unsigned int len)
{
	uint64_t s;

	st.dgrams++;
	st.bytes += len;
	if (len < seq_off + 8) {
		st.short_dg++;
		return;
	}
	memcpy(&s, p + seq_off, sizeof(s));
	s = le64toh(s);
	if (s >= max_seq_slots) {
		st.out_of_range++;
		return;
	}
	if (seen[s >> 6] & (1ULL << (s & 63))) {
		st.dups++;
		return;
	}
	seen[s >> 6] |= 1ULL << (s & 63);
	st.distinct++;
	if (st.any && s < st.max_seq)
		st.reordered++;
	if (!st.any || s > st.max_seq)
		st.max_seq = s;
	st.any = 1;
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: ref_sink --port P [--bind IP] [--gro] [--rcvbuf BYTES] [--batch 64]\n"
		"                [--idle S] [--timeout S] [--max-time S] [--ready PATH]\n"
		"                [--max-seq N] [--cpu N] [--json PATH] [--seq-offset N]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "bind", required_argument, NULL, 'B' },
		{ "gro", no_argument, NULL, 'g' },
		{ "rcvbuf", required_argument, NULL, 'r' },
		{ "batch", required_argument, NULL, 'b' },
		{ "idle", required_argument, NULL, 'i' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "max-time", required_argument, NULL, 'M' },
		{ "ready", required_argument, NULL, 'R' },
		{ "max-seq", required_argument, NULL, 'm' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "poll-us", required_argument, NULL, 'P' },
		{ "seq-offset", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_in sa_bind;
	unsigned int batch = 64;
	long port = -1, rcvbuf = 4 << 20;
	double idle = 2, timeout = 60, max_time = 600;
	int gro = 0, cpu = -1, o;
	long poll_us = 0;
	const char *bind_ip = "0.0.0.0", *ready = NULL, *json_path = NULL;

	max_seq_slots = 1ULL << 26;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'p':
			port = strtol(optarg, NULL, 10);
			break;
		case 'B':
			bind_ip = optarg;
			break;
		case 'g':
			gro = 1;
			break;
		case 'r':
			rcvbuf = strtol(optarg, NULL, 0);
			break;
		case 'b':
			batch = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'i':
			idle = strtod(optarg, NULL);
			break;
		case 'T':
			timeout = strtod(optarg, NULL);
			break;
		case 'M':
			max_time = strtod(optarg, NULL);
			break;
		case 'R':
			ready = optarg;
			break;
		case 'm':
			max_seq_slots = strtoull(optarg, NULL, 10);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'j':
			json_path = optarg;
			break;
		case 'P':
			poll_us = strtol(optarg, NULL, 10);
			break;
		case 'O':
			seq_off = (unsigned int)strtoul(optarg, NULL, 10);
			if (seq_off > 1400)
				die("--seq-offset must be 0..1400");
			break;
		default:
			usage();
		}
	}
	if (port < 1 || port > 65535 || optind != argc)
		usage();
	if (batch < 1 || batch > MAX_BATCH)
		die("--batch must be 1..%d", MAX_BATCH);
	if (poll_us < 0 || poll_us > 100000)
		die("--poll-us must be 0..100000");
	if (max_time <= 0 || max_time > 3600)
		die("--max-time must be in (0, 3600]");
	if (max_seq_slots < 64 || max_seq_slots > (1ULL << 32))
		die("--max-seq must be 64..2^32");
	memset(&sa_bind, 0, sizeof(sa_bind));
	sa_bind.sin_family = AF_INET;
	sa_bind.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, bind_ip, &sa_bind.sin_addr) != 1)
		die("bad --bind '%s'", bind_ip);

	pin_cpu(cpu);
	catch_signals();

	seen = calloc((size_t)(max_seq_slots + 63) / 64, sizeof(uint64_t));
	uint8_t *slots = aligned_alloc(4096, (size_t)batch * SLOT_SIZE);
	struct mmsghdr *m = calloc(batch, sizeof(*m));
	struct iovec *iov = calloc(batch, sizeof(*iov));
	union ctrl *ctl = calloc(batch, sizeof(*ctl));
	if (!seen || !slots || !m || !iov || !ctl)
		die("out of memory");
	rx_slots(m, iov, gro ? ctl : NULL, slots, batch);

	int fd = rx_socket(&sa_bind, rcvbuf, gro, 100000);
	if (ready) {
		FILE *f = fopen(ready, "w");
		if (!f)
			die("cannot create %s: %s", ready, strerror(errno));
		fclose(f);
	}

	struct rusage ru0, ru1;
	uint32_t drops0 = sock_drops(fd);
	getrusage(RUSAGE_SELF, &ru0);
	double t0 = now_s(), t_first = 0, t_lastrx = 0, t;

	while (!stop) {
		int n = recvmmsg(fd, m, batch, poll_us ? MSG_DONTWAIT : MSG_WAITFORONE, NULL);
		t = now_s();
		if (poll_us && n < (int)batch) { /* drained: nap instead of waiting on the socket */
			struct timespec nap = { .tv_sec = 0, .tv_nsec = poll_us * 1000L };
			nanosleep(&nap, NULL);
		}
		if (n > 0) {
			if (!t_lastrx)
				t_first = t;
			t_lastrx = t;
			st.calls++;
			st.bufs += (unsigned int)n;
			for (int i = 0; i < n; i++) {
				const uint8_t *p = iov[i].iov_base;
				unsigned int len = m[i].msg_len;
				unsigned int seg = gro_segment(&m[i].msg_hdr, gro);

				if (!seg || len <= seg) {
					count(p, len);
					continue;
				}
				for (unsigned int off = 0; off < len; off += seg)
					count(p + off, len - off < seg ? len - off : seg);
			}
		} else if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
			die("recvmmsg: %s", strerror(errno));
		}
		if (t_lastrx && t - t_lastrx > idle)
			break;
		if (!t_lastrx && t - t0 > timeout)
			break;
		if (t - t0 > max_time)
			break;
	}

	getrusage(RUSAGE_SELF, &ru1);
	char json[1024];
	snprintf(json, sizeof(json),
		 "{\"tool\": \"ref_sink\", \"port\": %ld, \"received\": %llu, \"bytes\": %llu, "
		 "\"distinct\": %llu, \"duplicates\": %llu, \"reordered\": %llu, "
		 "\"out_of_range\": %llu, \"short\": %llu, \"max_seq\": %lld, \"rx_calls\": %llu, "
		 "\"rx_buffers\": %llu, \"rx_sock_drops\": %u, \"gro\": %s, \"poll_us\": %ld, "
		 "\"active_s\": %.3f, \"cpu_user_s\": %.3f, \"cpu_sys_s\": %.3f}\n",
		 port, (unsigned long long)st.dgrams, (unsigned long long)st.bytes,
		 (unsigned long long)st.distinct, (unsigned long long)st.dups,
		 (unsigned long long)st.reordered, (unsigned long long)st.out_of_range,
		 (unsigned long long)st.short_dg, st.any ? (long long)st.max_seq : -1LL,
		 (unsigned long long)st.calls, (unsigned long long)st.bufs, sock_drops(fd) - drops0,
		 gro ? "true" : "false", poll_us, t_lastrx ? t_lastrx - t_first : 0.0,
		 tv_s(ru1.ru_utime) - tv_s(ru0.ru_utime), tv_s(ru1.ru_stime) - tv_s(ru0.ru_stime));
	write_json(json, json_path);
	return 0;
}
