/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ref_gen: bounded, paced UDP generator for the kernel side of the benches (sendmmsg).
 *
 *   ref_gen --dst IP:PORT [--dst IP:PORT ...] [--rate PPS] [--duration S] [--count N]
 *           [--size BYTES] [--batch 64] [--gso K] [--short-last] [--flows F] [--cpu N]
 *           [--json PATH] [--quiet]
 *
 * Every datagram carries its sequence number (u64, little endian) in its first 8 payload
 * bytes, as tests/tools/udp_send.py does, and goes to every --dst (so one generator can also
 * load N sinks the way a fan-out forwarder would). Arrival pattern: bursts of --batch
 * datagrams back to back (one sendmmsg per destination), bursts spaced so the average is
 * --rate datagrams/s; --rate 0 floods. If the generator falls more than 50 ms behind its
 * schedule it does not try to catch up (late_resets counts that): what it reports as sent is
 * what it sent. Always bounded: --duration (default 10 s, at most 600) and/or --count.
 *
 * --gso K: datagrams leave as UDP_SEGMENT trains of K (one message, the kernel splits it);
 * with --short-last the last datagram of each train is half as long (a receiver must keep
 * that length). Needs tx checksum offload on the sending interface. --flows F: F source ports
 * per destination, one per burst in turn.
 *
 * JSON to stdout (and --json PATH): datagrams (sequence numbers used), sent (datagrams the
 * kernel accepted, summed over destinations), bytes (payload bytes of those), errors,
 * seconds, rate (datagrams per second, per destination).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <endian.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#define REF_TOOL "ref_gen"
#include "ref_common.h"

#define MAX_FLOWS 64
#define MAX_GSO 64
#define MAX_DURATION 600.0

static void
sleep_until(double t)
{
	struct timespec ts;
	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stop)
		;
}

static struct {
	uint64_t sent, bytes, errors, refused;
	int last_errno;
} st;

static void
send_all(int fd, struct mmsghdr *m, const unsigned int *dg, const unsigned int *by, unsigned int n)
{
	unsigned int off = 0, refused = 0;

	while (off < n) {
		int r = sendmmsg(fd, m + off, n - off, 0);
		if (r > 0) {
			for (unsigned int i = off; i < off + (unsigned int)r; i++) {
				st.sent += dg[i];
				st.bytes += by[i];
			}
			off += (unsigned int)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == ECONNREFUSED) { /* nobody listened to an earlier one: retry */
			st.refused++;
			if (++refused <= n)
				continue;
		}
		st.last_errno = r < 0 ? errno : 0;
		st.errors += dg[off];
		off++;
	}
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: ref_gen --dst IP:PORT [--dst IP:PORT ...] [--rate PPS] [--duration S]\n"
		"               [--count N] [--size BYTES] [--batch 64] [--gso K] [--short-last]\n"
		"               [--flows F] [--cpu N] [--json PATH] [--quiet]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dst", required_argument, NULL, 'd' },
		{ "rate", required_argument, NULL, 'r' },
		{ "duration", required_argument, NULL, 't' },
		{ "count", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'b' },
		{ "gso", required_argument, NULL, 'g' },
		{ "short-last", no_argument, NULL, 'S' },
		{ "flows", required_argument, NULL, 'f' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_in dst[MAX_DST];
	unsigned int ndst = 0, batch = 64, size = 64, gso = 1, flows = 1;
	double rate = 0, duration = 10;
	uint64_t count = 0;
	int cpu = -1, quiet = 0, short_last = 0, o;
	const char *json_path = NULL;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			if (ndst == MAX_DST)
				die("at most %d destinations", MAX_DST);
			if (parse_ipport(optarg, &dst[ndst]) < 0)
				die("bad --dst '%s' (want IPv4:PORT)", optarg);
			ndst++;
			break;
		case 'r':
			rate = strtod(optarg, NULL);
			break;
		case 't':
			duration = strtod(optarg, NULL);
			break;
		case 'n':
			count = strtoull(optarg, NULL, 10);
			break;
		case 's':
			size = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'b':
			batch = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'g':
			gso = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'S':
			short_last = 1;
			break;
		case 'f':
			flows = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'j':
			json_path = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			usage();
		}
	}
	if (ndst == 0 || optind != argc)
		usage();
	if (duration <= 0 || duration > MAX_DURATION)
		die("--duration must be in (0, %.0f] seconds", MAX_DURATION);
	if (rate < 0)
		die("--rate must be >= 0 (0: as fast as it goes)");
	if (size < 8 || size > 1472)
		die("--size must be 8..1472 (one datagram per frame at MTU 1500)");
	if (batch < 1 || batch > MAX_BATCH)
		die("--batch must be 1..%d", MAX_BATCH);
	if (gso < 1 || gso > MAX_GSO)
		die("--gso must be 1..%d", MAX_GSO);
	if (gso > 1 && (unsigned long)gso * size > 65507)
		die("--gso %u x --size %u exceeds one UDP datagram (65507 bytes)", gso, size);
	if (flows < 1 || flows > MAX_FLOWS)
		die("--flows must be 1..%d", MAX_FLOWS);

	pin_cpu(cpu);
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* pacing sleeps of ~100 us must be on time */
	catch_signals();

	static int fd[MAX_DST][MAX_FLOWS];
	for (unsigned int d = 0; d < ndst; d++) {
		for (unsigned int f = 0; f < flows; f++) {
			fd[d][f] = tx_socket();
			if (connect(fd[d][f], (struct sockaddr *)&dst[d], sizeof(dst[d])) < 0)
				die("connect: %s", strerror(errno));
		}
	}

	/* one burst: nmsg messages of gso datagrams each */
	unsigned int nmsg = (batch + gso - 1) / gso, per_burst = nmsg * gso;
	uint8_t *arena = calloc((size_t)per_burst, size);
	struct mmsghdr *m = calloc(nmsg, sizeof(*m));
	struct iovec *iov = calloc(nmsg, sizeof(*iov));
	union ctrl *ctl = calloc(nmsg, sizeof(*ctl));
	unsigned int *dg = calloc(nmsg, sizeof(*dg)), *by = calloc(nmsg, sizeof(*by));
	if (!arena || !m || !iov || !ctl || !dg || !by)
		die("out of memory");

	double t0 = now_s(), t_sched = t0, t_end = t0 + duration, t_last = t0;
	uint64_t seq = 0, sent_last = 0, late = 0;
	unsigned int flow = 0;
	struct rusage ru;

	while (!stop && (count == 0 || seq < count)) {
		unsigned int todo = per_burst, nm = 0;
		if (count && count - seq < todo)
			todo = (unsigned int)(count - seq);
		/* lay out the burst: message i covers datagrams [i*gso, i*gso + dg[i]) */
		for (unsigned int done = 0; done < todo; nm++) {
			unsigned int k = todo - done < gso ? todo - done : gso, len = 0;
			uint8_t *p = arena + (size_t)nm * gso * size;
			for (unsigned int j = 0; j < k; j++) {
				unsigned int l = (short_last && k > 1 && j == k - 1) ? size / 2
										     : size;
				uint64_t s = htole64(seq + done + j);
				if (l < 8)
					l = 8;
				memcpy(p + len, &s, sizeof(s));
				len += l;
			}
			iov[nm].iov_base = p;
			iov[nm].iov_len = len;
			memset(&m[nm], 0, sizeof(m[nm]));
			m[nm].msg_hdr.msg_iov = &iov[nm];
			m[nm].msg_hdr.msg_iovlen = 1;
			if (k > 1)
				put_udp_segment(&m[nm].msg_hdr, &ctl[nm], (uint16_t)size);
			dg[nm] = k;
			by[nm] = len;
			done += k;
		}
		for (unsigned int d = 0; d < ndst; d++)
			send_all(fd[d][flow], m, dg, by, nm);
		flow = (flow + 1) % flows;
		seq += todo;

		double t = now_s();
		if (t - t_last >= 1.0) {
			if (!quiet)
				fprintf(stderr, "tx %.0f pps\n",
					(double)(st.sent - sent_last) / (t - t_last));
			sent_last = st.sent;
			t_last = t;
		}
		if (t >= t_end)
			break;
		if (rate > 0) {
			t_sched += (double)todo / rate;
			if (t - t_sched >
			    0.05) { /* far behind: drop the debt, do not burst to repay it */
				t_sched = t;
				late++;
			} else if (t_sched > t) {
				sleep_until(t_sched < t_end ? t_sched : t_end);
			}
		}
	}

	double seconds = now_s() - t0;
	getrusage(RUSAGE_SELF, &ru);
	char json[768];
	snprintf(json, sizeof(json),
		 "{\"tool\": \"ref_gen\", \"datagrams\": %llu, \"sent\": %llu, \"bytes\": %llu, "
		 "\"errors\": %llu, \"refused\": %llu, \"last_errno\": %d, \"seconds\": %.3f, "
		 "\"rate\": %.0f, \"destinations\": %u, \"late_resets\": %llu, "
		 "\"cpu_user_s\": %.3f, \"cpu_sys_s\": %.3f}\n",
		 (unsigned long long)seq, (unsigned long long)st.sent, (unsigned long long)st.bytes,
		 (unsigned long long)st.errors, (unsigned long long)st.refused, st.last_errno,
		 seconds, (double)st.sent / ndst / seconds, ndst, (unsigned long long)late,
		 tv_s(ru.ru_utime), tv_s(ru.ru_stime));
	write_json(json, json_path);
	return 0;
}
