/* SPDX-License-Identifier: BSD-3-Clause
 * udpfan-sink: counts sequence-numbered UDP datagrams per destination: received, lost
 * (gaps), duplicated, reordered; per sender: received. Kernel sockets (--kernel) or a DPDK
 * port. Stops after --duration, after --idle seconds of silence once something arrived, or
 * on SIGINT/SIGTERM, and prints one JSON summary. Wiring only: the receivers are in
 * sink_kernel.c and sink_dpdk.c, the counting in lib/gen/uf_sinkcount.h.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sink.h"
#include "uf_config.h"
#include "uf_tool.h"
#include "uf_version.h"

#define POLL_MS 10

int sink_quit;

static void
on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&sink_quit, 1, __ATOMIC_RELAXED);
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --kernel --port P[,P...] [--bind ADDR] [options]\n"
		"       " PROG " --dev DEVICE --ip A.B.C.D/LEN [--port P[,P...]] [options] "
		"[-- EAL args]\n"
		"\n"
		"  --kernel           kernel UDP sockets, one thread per port (recvmmsg x 64,\n"
		"                     SO_RCVBUF 8 MiB)\n"
		"  --port P[,P...]    UDP ports (kernel: required; DPDK: default all)\n"
		"  --bind ADDR        kernel: bind to ADDR instead of 0.0.0.0\n"
		"  --dev DEVICE       DPDK: PCI address or vdev (net_af_xdp0,iface=x,busy_budget=0)\n"
		"  --ip A.B.C.D/LEN   DPDK: our address (answers ARP and ping for it)\n"
		"  --no-csum-check    DPDK: do not verify IPv4/UDP checksums\n"
		"  --queues N         DPDK: poll N RX queues (1..8, default 1) from the one lcore\n"
		"                     (a vhost-user/memif peer sending on several queues)\n"
		"  --lcores L         DPDK: main lcore, then the RX lcore (default 0,1)\n"
		"  --file-prefix P    DPDK: EAL file prefix (default udpfan-sink)\n"
		"  --in-memory        DPDK: EAL --in-memory\n"
		"  --no-huge          DPDK: EAL --no-huge (ring/pcap vdevs)\n"
		"  --duration S       stop after S seconds\n"
		"  --idle S           stop after S seconds without a datagram, once one arrived\n"
		"  --expect-first N   the sender's first sequence number: losses before the\n"
		"                     first arrival count as lost (default: unknown, not counted)\n"
		"  --expect-last N    the sender's last sequence number: a lost tail counts\n"
		"  --window N         sequence window per destination, a power of two 64..2^30\n"
		"                     (default 2^20); arrivals further behind the highest are\n"
		"                     counted as beyond_window (lost becomes an upper bound)\n"
		"  --seq-offset N     the sequence number is at payload offset N (default 0;\n"
		"                     24 for udpfan-gen --netflow-v5)\n"
		"  --latency          the 8 bytes after the sequence number are the sender's\n"
		"                     TSC (udpfan-gen --stamp, same host): a latency histogram\n"
		"                     per destination (p50/p99/p99.9 in the summary)\n"
		"  --json PATH        also write the summary there\n"
		"  --ready FILE       create FILE once receiving\n"
		"  --hold MS          after the summary, keep the port open (not polled) until its\n"
		"                     link goes down or MS ms pass (memif: let the peer close first)\n"
		"\n"
		"Exit codes: 0 done, 2 usage, 3 environment (EAL, device, bind), 1 other.\n");
}

static int
parse_ports(const char *s, struct sink_opts *o)
{
	char buf[256], *tok, *save = NULL;
	uint64_t v;
	int i;

	if (strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (uf_tool_parse_u64(tok, &v) != 0 || v == 0 || v > 65535 ||
		    o->n_ports >= SINK_MAX_PORTS)
			return -1;
		for (i = 0; i < o->n_ports; i++)
			if (o->ports[i] == v)
				return -1;
		o->ports[o->n_ports++] = (uint16_t)v;
	}
	return o->n_ports > 0 ? 0 : -1;
}

static int
parse_args(int argc, char **argv, struct sink_opts *o)
{
	static const struct option opts[] = {
		{ "kernel", no_argument, NULL, 'k' },
		{ "port", required_argument, NULL, 'p' },
		{ "bind", required_argument, NULL, 'B' },
		{ "dev", required_argument, NULL, 'd' },
		{ "ip", required_argument, NULL, 'i' },
		{ "no-csum-check", no_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 't' },
		{ "idle", required_argument, NULL, 'I' },
		{ "expect-first", required_argument, NULL, 'e' },
		{ "expect-last", required_argument, NULL, 'E' },
		{ "window", required_argument, NULL, 'w' },
		{ "seq-offset", required_argument, NULL, 'O' },
		{ "latency", no_argument, NULL, 'L' },
		{ "queues", required_argument, NULL, 'q' },
		UF_TOOL_LONGOPTS,
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		int taken = uf_tool_opt(c, optarg, &o->t);

		if (taken < 0)
			return UF_EXIT_CONFIG;
		if (taken > 0)
			continue;
		switch (c) {
		case 'k':
			o->kernel = true;
			break;
		case 'p':
			if (parse_ports(optarg, o) != 0)
				return uf_tool_usage_err(
						"--port: \"%s\" is not a list of distinct UDP ports "
						"1..65535 (at most 16)",
						optarg);
			break;
		case 'B':
			if (uf_parse_ipv4(optarg, &o->bind) != 0)
				return uf_tool_usage_err("--bind: \"%s\" is not an IPv4 address",
							 optarg);
			o->has_bind = true;
			break;
		case 'd':
			o->t.eal.dev = optarg;
			break;
		case 'i':
			if (uf_parse_ipv4_prefix(optarg, &o->ip, &o->prefix_len) != 0 ||
			    o->prefix_len == 0 || o->prefix_len > 31)
				return uf_tool_usage_err(
						"--ip: \"%s\" is not A.B.C.D/LEN with LEN 1..31",
						optarg);
			o->has_ip = true;
			break;
		case 'C':
			o->csum_check = false;
			break;
		case 't':
			if (uf_tool_parse_double(optarg, &o->duration) != 0 || !(o->duration > 0))
				return uf_tool_usage_err(
						"--duration: \"%s\" is not a number of seconds > 0",
						optarg);
			break;
		case 'I':
			if (uf_tool_parse_double(optarg, &o->idle) != 0 || !(o->idle > 0))
				return uf_tool_usage_err(
						"--idle: \"%s\" is not a number of seconds > 0",
						optarg);
			break;
		case 'e':
			if (uf_tool_parse_u64(optarg, &o->expect.first) != 0)
				return uf_tool_usage_err(
						"--expect-first: \"%s\" is not a sequence number",
						optarg);
			o->expect.has_first = true;
			break;
		case 'E':
			if (uf_tool_parse_u64(optarg, &o->expect.last) != 0)
				return uf_tool_usage_err(
						"--expect-last: \"%s\" is not a sequence number",
						optarg);
			o->expect.has_last = true;
			break;
		case 'q':
			if (uf_tool_parse_u64(optarg, &v) != 0 || v == 0 || v > UF_TOOL_MAX_QUEUES)
				return uf_tool_usage_err("--queues: \"%s\" is not 1..8", optarg);
			o->queues = (uint16_t)v;
			break;
		case 'w':
			if (uf_tool_parse_u64(optarg, &v) != 0 || v == 0 || (v & (v - 1)) != 0 ||
			    v < (UINT64_C(1) << UF_SEQ_WIN_LOG2_MIN) ||
			    v > (UINT64_C(1) << UF_SEQ_WIN_LOG2_MAX))
				return uf_tool_usage_err(
						"--window: \"%s\" is not a power of two 64..2^30",
						optarg);
			o->win_log2 = (unsigned int)__builtin_ctzll(v);
			break;
		case 'O':
			if (uf_tool_parse_u64(optarg, &v) != 0 || v > 1400)
				return uf_tool_usage_err("--seq-offset: \"%s\" is not 0..1400",
							 optarg);
			o->seq_off = (uint16_t)v;
			break;
		case 'L':
			o->latency = true;
			break;
		case 'V':
			printf(PROG " %s (udpfan)\n", UF_VERSION);
			exit(UF_EXIT_OK);
		case 'h':
			usage(stdout);
			exit(UF_EXIT_OK);
		default:
			usage(stderr);
			return UF_EXIT_CONFIG;
		}
	}
	o->t.eal.n_extra = argc - optind;
	o->t.eal.extra = argv + optind;
	if (o->kernel) {
		if (o->t.eal.dev != NULL || o->has_ip)
			return uf_tool_usage_err(
					"%s",
					"--kernel takes no --dev or --ip (those are DPDK mode)");
		if (o->n_ports == 0)
			return uf_tool_usage_err("%s", "--kernel needs --port P[,P...]");
		if (o->t.eal.n_extra != 0)
			return uf_tool_usage_err("unexpected argument \"%s\"", argv[optind]);
	} else {
		if (o->t.eal.dev == NULL || !o->has_ip)
			return uf_tool_usage_err("%s",
						 "give --kernel --port P, or --dev DEVICE --ip "
						 "A.B.C.D/LEN");
		if (o->has_bind)
			return uf_tool_usage_err("%s", "--bind is for --kernel mode");
	}
	if (o->expect.has_first && o->expect.has_last && o->expect.last < o->expect.first)
		return uf_tool_usage_err("%s", "--expect-last is below --expect-first");
	return 0;
}

static double
mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
cmp_sender(const void *a, const void *b)
{
	const struct uf_sink_sender *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static void
summary(FILE *f, const struct sink_opts *o, const struct sink_mode *mode, double secs,
	const char *stopped_by)
{
	struct uf_sink_count *cs[SINK_MAX_PORTS];
	struct uf_sink_sender *all = NULL;
	const double hz = mode->hz();
	uint64_t dest_over = 0, send_over = 0, backwards = 0;
	size_t n_all = 0, cap = 0, k;
	char addr[32];
	int n, i, first = 1;
	uint32_t j;

	n = mode->counts(cs, SINK_MAX_PORTS);
	fprintf(f,
		"{\"mode\": \"%s\", \"seconds\": %.6f, \"stopped_by\": \"%s\", \"window\": %" PRIu64
		", \"destinations\": {",
		mode->name, secs, stopped_by, UINT64_C(1) << o->win_log2);
	for (i = 0; i < n; i++) {
		for (j = 0; j < cs[i]->n_dests; j++) {
			const struct uf_sink_dest *d = &cs[i]->dests[j];

			uf_sink_addr_str(d->ip, d->port, addr, sizeof(addr));
			fprintf(f, "%s\"%s\": ", first ? "" : ", ", addr);
			uf_sink_dest_json(f, d, &o->expect, hz);
			first = 0;
		}
		dest_over += cs[i]->dest_overflow;
		send_over += cs[i]->sender_overflow;
		cap += cs[i]->n_senders;
	}
	fprintf(f, "}, \"senders\": {");
	all = cap != 0 ? calloc(cap, sizeof(*all)) : NULL;
	for (i = 0; i < n && all != NULL; i++)
		for (j = 0; j < UF_SINK_SENDER_SLOTS; j++)
			if (cs[i]->senders[j].key != 0)
				all[n_all++] = cs[i]->senders[j];
	if (n_all != 0)
		qsort(all, n_all, sizeof(*all), cmp_sender);
	first = 1;
	for (k = 0; k < n_all; k++) {
		uint64_t cnt = all[k].n;

		while (k + 1 < n_all && all[k + 1].key == all[k].key)
			cnt += all[++k].n;
		uf_sink_addr_str((rte_be32_t)(all[k].key >> 16), (rte_be16_t)all[k].key, addr,
				 sizeof(addr));
		fprintf(f, "%s\"%s\": %" PRIu64, first ? "" : ", ", addr, cnt);
		first = 0;
	}
	free(all);
	for (i = 0; i < n; i++)
		backwards += cs[i]->sender_backwards;
	fprintf(f,
		"}, \"senders_backwards\": %" PRIu64 ", \"senders_untracked\": %" PRIu64
		", \"destinations_untracked\": %" PRIu64,
		backwards, send_over, dest_over);
	fprintf(f, ", \"seq_offset\": %u", o->seq_off);
	if (o->latency) {
		/* every destination together: what a one-line table row wants */
		struct uf_lat_hist *all_lat = calloc(1, sizeof(*all_lat));

		if (all_lat != NULL) {
			for (i = 0; i < n; i++)
				for (j = 0; j < cs[i]->n_dests; j++)
					if (cs[i]->dests[j].lat != NULL)
						uf_lat_merge(all_lat, cs[i]->dests[j].lat);
			fprintf(f, ", \"latency\": ");
			uf_lat_json(f, all_lat, all_lat->hz);
			free(all_lat);
		}
	}
	mode->json(f);

	/* say in words what the numbers cannot */
	fprintf(f, ", \"notes\": [");
	first = 1;
	for (i = 0; i < n; i++) {
		for (j = 0; j < cs[i]->n_dests; j++) {
			const struct uf_sink_dest *d = &cs[i]->dests[j];

			uf_sink_addr_str(d->ip, d->port, addr, sizeof(addr));
			if (uf_seqtrack_lost(&d->st, &o->expect) < 0) {
				fprintf(f,
					"%s\"%s: no sequence number received: loss is unknown "
					"(null), not 0\"",
					first ? "" : ", ", addr);
				first = 0;
			}
			if (d->st.beyond_window != 0) {
				fprintf(f,
					"%s\"%s: %" PRIu64 " datagrams arrived more than %" PRIu64
					" behind the highest: lost is an upper bound, duplicated "
					"a lower bound\"",
					first ? "" : ", ", addr, d->st.beyond_window,
					UINT64_C(1) << o->win_log2);
				first = 0;
			}
		}
	}
	if (!o->expect.has_first || !o->expect.has_last) {
		fprintf(f,
			"%s\"lost counts gaps from %s to %s; compare with the generator's "
			"first_seq/last_seq (or pass --expect-first/--expect-last)\"",
			first ? "" : ", ",
			o->expect.has_first ? "--expect-first" : "the lowest sequence received",
			o->expect.has_last ? "--expect-last" : "the highest received");
		first = 0;
	}
	if (dest_over != 0)
		fprintf(f, "%s\"%" PRIu64 " datagrams went to destinations beyond the %d tracked\"",
			first ? "" : ", ", dest_over, n > 0 ? (int)cs[0]->max_dests : 0);
	fprintf(f, "]}\n");
}

int
main(int argc, char **argv)
{
	struct sink_opts o = {
		.win_log2 = UF_SEQ_WIN_LOG2_DEFAULT,
		.csum_check = true,
		.t.eal = { .lcores = "0,1", .file_prefix = PROG },
	};
	const struct sink_mode *mode;
	struct uf_err err = { 0 };
	const char *stopped_by = "signal";
	double t0, last_change, now;
	uint64_t seen = 0, total;
	char *buf = NULL;
	size_t blen = 0;
	FILE *mem;
	int rc, ret;

	uf_tool_name = PROG;
	rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc;
	mode = o.kernel ? &sink_kernel_mode : &sink_dpdk_mode;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	if (mode->start(&o, &err) != 0) {
		fprintf(stderr, PROG ": error: %s\n", err.msg);
		mode->stop();
		mode->fini();
		return err.code != 0 ? err.code : UF_EXIT_OTHER;
	}
	if (o.t.ready != NULL && (ret = uf_tool_touch(o.t.ready)) != 0)
		fprintf(stderr, PROG ": warning: --ready %s: %s\n", o.t.ready, strerror(-ret));

	t0 = last_change = mono_s();
	while (!sink_stopping()) {
		usleep(POLL_MS * 1000);
		now = mono_s();
		total = mode->total();
		if (total != seen) {
			seen = total;
			last_change = now;
		}
		if (o.duration > 0 && now - t0 >= o.duration) {
			stopped_by = "duration";
			break;
		}
		if (o.idle > 0 && seen != 0 && now - last_change >= o.idle) {
			stopped_by = "idle";
			break;
		}
	}
	mode->stop();
	now = mono_s();

	rc = UF_EXIT_OK;
	mem = open_memstream(&buf, &blen);
	if (mem == NULL) {
		fprintf(stderr, PROG ": error: open_memstream: %s\n", strerror(errno));
		mode->fini();
		return UF_EXIT_OTHER;
	}
	summary(mem, &o, mode, now - t0, stopped_by);
	fclose(mem);
	fputs(buf, stdout);
	fflush(stdout);
	if (o.t.json != NULL && (ret = uf_tool_write_file(o.t.json, buf)) != 0) {
		fprintf(stderr, PROG ": error: --json %s: %s\n", o.t.json, strerror(-ret));
		rc = UF_EXIT_OTHER;
	}
	free(buf);
	mode->fini();
	return rc;
}
