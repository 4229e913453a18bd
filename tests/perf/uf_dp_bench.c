/* SPDX-License-Identifier: BSD-3-Clause
 * uf_dp_bench: the per-datagram cost of uf_worker_rx at 32 B, N = 1 and N = 4, copy mode, in
 * cycles per input datagram, input preparation subtracted (the set-up: uf_bench_dp.h, shared
 * with uf_fanout_bench.c).
 *
 *   uf_dp_bench [-n 1|4] [-f 4|6|46] [-R RULES] [-i BURSTS_PER_ROUND] [-r ROUNDS] [-H] [-g]
 *               [-p] [-V] [-S] [-L] [-M]
 *
 * Rows: IPv4 (v4 in, v4 out), IPv6 (v6 in, v6 out) and v4 in, v6 out, each at N = 1 and 4 (-n,
 * -f: one of them). The rows are interleaved: each round runs every row once, in turn, so a
 * neighbour that slows the machine slows all of them alike; a row's figure is its best round,
 * and each IPv6 row's ratio to the IPv4 row of its N is given per round (median and spread:
 * the rounds' lowest and highest) and for the best rounds. Keep a round short enough to fit a
 * time slice on a shared machine: -i 500 -r 300. -R RULES: RULES source rules (the sender
 * matches the last; the others /24s or /64s it does not), through the LPM of its family.
 * -H: no hugepages, to count instructions under valgrind --tool=callgrind (-i 200 -r 3); -g:
 * the input carries a NIC's GOOD IPv4 and UDP checksum verdicts (RX offloads on: the software
 * header sum is skipped; docs/pmd-quirks.md, "RX checksum verdicts"); -p: the port completes
 * partial UDP checksums (partial_csum: the net_pcap row's, so inmem.py's udpfan pays it too);
 * -V: a tagged port; -S: to the port's service address (IPv4 rows only); -s BYTES: another
 * payload size (docs/benchmarks.md#copy-versus-chain: 1400); -c: chained copies (fanout:
 * chain) instead of copied ones (the IPv6 engine never chains); -L: two listeners on the port
 * (`listeners[]`: UDP 5000 with the row's destinations, where every datagram goes, and UDP
 * 5001 with one), the path of a plan with several listeners (docs/architecture.md#listeners);
 * -M: as -L, listener l1 of the other family (an IPv6 one beside IPv4 rows, an IPv4 one beside
 * IPv6 rows, the port dual-stack): the lanes of a plan with listeners of both families.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "uf_config.h"
#include "uf_fwd_dp.h"
#include "uf_plan.h"

#include "uf_bench_dp.h"

/* the floor: the same input handed to net_null untouched (testpmd io's work) */
static double
io_cost(const uint8_t *frame, size_t len, long iters)
{
	struct rte_mbuf *m[BURST];
	uint64_t t0 = rte_rdtsc();
	long it;

	for (it = 0; it < iters; it++) {
		fill(m, frame, len);
		if (rte_eth_tx_burst(null_port, 0, m, BURST) != BURST)
			exit(1);
	}
	return (double)(rte_rdtsc() - t0) / iters;
}

/* the rules of -R: K - 1 that the sender misses, then the one it matches */
static int bench_rules;
static bool bench_listeners;
static bool bench_mixed; /* -M: l1 of the other family */

static int
rules_text(char *t, size_t cap, bool six, int n_dests)
{
	int o = 0, k, i;

	if (bench_rules == 0)
		return 0;
	o += snprintf(t + o, cap - (size_t)o, "rules:\n");
	for (k = 0; k < bench_rules; k++) {
		const bool last = k + 1 == bench_rules;

		if (six)
			o += last ? snprintf(t + o, cap - (size_t)o,
					     "  - { from: \"2001:db8::/64\"")
				  : snprintf(t + o, cap - (size_t)o,
					     "  - { from: \"2001:db8:1:%x::/64\"", k);
		else
			o += last ? snprintf(t + o, cap - (size_t)o, "  - { from: 198.18.0.0/24")
				  : snprintf(t + o, cap - (size_t)o, "  - { from: 10.%d.%d.0/24",
					     k >> 8, k & 255);
		o += snprintf(t + o, cap - (size_t)o, ", to: [");
		for (i = 0; i < n_dests; i++)
			o += snprintf(t + o, cap - (size_t)o, "%s%d", i ? ", " : "", i);
		o += snprintf(t + o, cap - (size_t)o, "] }\n");
	}
	return o;
}

/* make_cfg / make_cfg6 of uf_bench_dp.h with -R's rules, or v4 in, v6 out (fam 46) */
static struct uf_config *
bench_cfg(int fam, int n)
{
	static char text[1 << 20];
	struct uf_config *base = fam == 4 ? make_cfg(n) : fam == 6 ? make_cfg6(n) : NULL, *cfg;
	struct uf_err err;
	/* -L: the destinations are listener l0's */
	const char *ind = bench_listeners ? "    " : "";
	int o, i;

	if (fam != 46 && bench_rules == 0 && !bench_listeners)
		return base;
	uf_config_free(base);
	if (fam == 46 || bench_mixed)
		o = snprintf(text, sizeof(text),
			     "ports:\n  - { name: p, device: net_null0, ip: 198.18.0.10/24,"
			     " ip6: [\"2001:db8::10/64\"] }\n"
			     "listen: { port: p, udp_port: 5000 }\ndestinations:\n");
	else if (fam == 6)
		o = snprintf(text, sizeof(text),
			     "ports:\n  - { name: p, device: net_null0, ip6: [\"2001:db8::10/64\"] }\n"
			     "listen: { port: p, udp_port: 5000 }\ndestinations:\n");
	else
		o = snprintf(text, sizeof(text),
			     "ports:\n  - { name: p, device: net_null0, ip: 198.18.0.10/24 }\n"
			     "listen: { port: p, udp_port: 5000 }\ndestinations:\n");
	if (bench_listeners) { /* the listen line becomes listener l0's */
		char *l = strstr(text, "listen: {");
		/* l1's family: l0's (fam 46: an IPv4 listener to IPv6), or with -M the other */
		const bool l1_is6 = bench_mixed ? fam == 4 || fam == 46 : fam == 6;
		const bool l1_to6 = bench_mixed ? l1_is6 : fam != 4;

		o = (int)(l - text);
		o += snprintf(text + o, sizeof(text) - (size_t)o,
			      "listeners:\n  - name: l1\n    port: p\n    udp_port: 5001\n"
			      "    ip: %s\n"
			      "    destinations:\n      - { ip: %s, udp_port: 7000, mac: "
			      "\"02:00:00:00:00:77\" }\n  - name: l0\n    port: p\n"
			      "    udp_port: 5000\n    ip: %s\n    destinations:\n",
			      l1_is6 ? "\"2001:db8::10\"" : "198.18.0.10",
			      l1_to6 ? "\"2001:db8::77\"" : "198.18.0.77",
			      fam == 6 ? "\"2001:db8::10\"" : "198.18.0.10");
	}
	for (i = 0; i < n; i++)
		o += fam == 4 ? snprintf(text + o, sizeof(text) - (size_t)o,
					 "%s  - { ip: 198.18.0.%d, udp_port: %d, mac: "
					 "\"02:00:00:00:00:%02x\" }\n",
					 ind, 21 + i, 6000 + i, 0x21 + i)
			      : snprintf(text + o, sizeof(text) - (size_t)o,
					 "%s  - { ip: \"2001:db8::%x\", udp_port: %d, mac: "
					 "\"02:00:00:00:00:%02x\" }\n",
					 ind, 0x21 + i, 6000 + i, 0x21 + i);
	o += rules_text(text + o, sizeof(text) - (size_t)o, fam == 6, n);
	cfg = uf_config_parse(text, (size_t)o, "bench", &err);
	if (cfg == NULL) {
		fprintf(stderr, "config: %s\n", err.msg);
		exit(1);
	}
	return cfg;
}

/* one row: a family and N, its input, worker and plan, its best and per-round costs */
struct row {
	int fam, n;
	struct uf_config *cfg;
	struct uf_plan *plan;
	struct uf_worker *w;
	uint8_t frame[2048];
	size_t len;
	double best, prep, io;
	double *cost; /* [rounds]: cycles per datagram, the best prep subtracted */
};

static int
cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0],           "-l",     "1",         "--no-pci",
			"--in-memory",     "--vdev", "net_null0", "--log-level",
			"lib.eal:warning", NULL,     NULL,        NULL };
	int n_eal = 9;
	struct uf_shared sh;
	long iters = 100000;
	int c, k, r, rounds = 7, only = 0, only_fam = 0, n_rows = 0, payload = 32;
	bool chain = false;
	static struct row rows[6];

	while ((c = getopt(argc, argv, "i:r:n:f:R:s:cHgpVSLM")) != -1) {
		if (c == 'R') {
			bench_rules = atoi(optarg);
		} else if (c == 's') {
			payload = atoi(optarg);
		} else if (c == 'c') {
			chain = true;
		} else if (c == 'L') {
			bench_listeners = true;
		} else if (c == 'M') {
			bench_listeners = true;
			bench_mixed = true;
		} else if (c == 'S') { /* every datagram to the port's service address */
			bench_svc = true;
		} else if (c == 'V') { /* a tagged port: tagged input, tagged copies */
			bench_vlan = 100;
		} else if (c == 'H') {        /* no hugepages: for valgrind --tool=callgrind */
			eal[4] = "--no-huge"; /* instead of --in-memory */
			eal[n_eal++] = "-m512";
			eal[n_eal++] = "--file-prefix=uf_dp_bench";
		} else if (c == 'p') {
			bench_partial = true;
		} else if (c == 'g') {
			in_ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
		} else if (c == 'n')
			only = atoi(optarg);
		else if (c == 'f')
			only_fam = atoi(optarg);
		else if (c == 'i')
			iters = atol(optarg);
		else if (c == 'r')
			rounds = atoi(optarg);
	}
	if (bench_listeners && (bench_rules != 0 || bench_svc || bench_vlan != 0)) {
		fprintf(stderr, "-L goes with none of -R, -S, -V\n");
		return 2;
	}
	if (rte_eal_init(n_eal, eal) < 0) {
		fprintf(stderr, "EAL init failed (hugepages? run as root)\n");
		return 77;
	}
	if (bench_setup() != 0) {
		fprintf(stderr, "setup failed\n");
		return 1;
	}
	memset(&sh, 0, sizeof(sh));
	for (k = 0; k < 6; k++) {
		/* IPv4 N = 1, 4, IPv6 N = 1, 4 (v6 in, v6 out), v4 in, v6 out N = 1, 4 */
		const int n = k % 2 == 0 ? 1 : 4, fam = k < 2 ? 4 : k < 4 ? 6 : 46;
		struct row *rw = &rows[n_rows];

		if ((only != 0 && n != only) || (only_fam != 0 && fam != only_fam) ||
		    (fam != 4 && (bench_vlan != 0 || bench_svc)))
			continue;
		rw->fam = fam;
		rw->n = n;
		rw->cfg = bench_cfg(fam, n);
		rw->len = fam == 6 ? build_input6(rw->frame, (uint16_t)payload, 1)
				   : build_input(rw->frame, (uint16_t)payload, 1);
		if (bench_vlan != 0) { /* the same frame, tagged */
			memmove(rw->frame + 16, rw->frame + 12, rw->len - 12);
			rw->frame[12] = 0x81;
			rw->frame[13] = 0x00;
			rw->frame[14] = (uint8_t)(bench_vlan >> 8);
			rw->frame[15] = (uint8_t)bench_vlan;
			rw->len += 4;
		}
		rw->plan = make_plan(rw->cfg, chain ? UF_FANOUT_CHAIN : UF_FANOUT_COPY);
		rw->w = make_worker(rw->cfg, &sh, chain);
		rw->best = rw->prep = rw->io = 1e18;
		rw->cost = calloc((size_t)rounds, sizeof(double));
		n_rows++;
	}
	for (k = 0; k < n_rows; k++) /* warm up */
		run(rows[k].w, rows[k].plan, rows[k].frame, rows[k].len, iters / 10);
	for (r = 0; r < rounds; r++) { /* interleaved: every row once a round */
		for (k = 0; k < n_rows; k++) {
			struct row *rw = &rows[k];
			const double prep = prep_cost(rw->frame, rw->len, iters);
			const double tc = run(rw->w, rw->plan, rw->frame, rw->len, iters);

			rw->prep = RTE_MIN(rw->prep, prep);
			rw->io = RTE_MIN(rw->io, io_cost(rw->frame, rw->len, iters));
			rw->cost[r] = tc;
		}
	}
	/* each round's cost less the best preparation (a round's own may have been preempted) */
	for (k = 0; k < n_rows; k++)
		for (r = 0; r < rounds; r++) {
			rows[k].cost[r] = (rows[k].cost[r] - rows[k].prep) / BURST;
			rows[k].best = RTE_MIN(rows[k].best, rows[k].cost[r]);
		}
	for (k = 0; k < n_rows; k++) {
		const struct row *rw = &rows[k];

		/* one worker thread: datagrams per CPU-second is the TSC rate over the cycles */
		printf("%s%s N=%d %d B%s%s%s: %.1f cycles per input datagram (prep %.1f subtracted; io "
		       "to net_null: %.1f), %.2f Mpps per CPU-second, forwarded %" PRIu64 "\n",
		       bench_vlan != 0 ? "VLAN " : "",
		       rw->fam == 4   ? "IPv4"
		       : rw->fam == 6 ? "IPv6"
				      : "IPv4 to IPv6",
		       rw->n, payload, chain ? " chained" : "", bench_rules ? " rules" : "",
		       bench_mixed       ? " two listeners, both families"
		       : bench_listeners ? " two listeners"
					 : "",
		       rw->best, rw->prep / BURST, (rw->io - rw->prep) / BURST,
		       (double)rte_get_tsc_hz() / rw->best / 1e6, rw->w->ctr.forwarded);
	}
	for (k = 0; k < n_rows; k++) {
		const struct row *rw = &rows[k], *v4 = NULL;
		double *ratio = calloc((size_t)rounds, sizeof(double));
		int j;

		for (j = 0; j < n_rows; j++)
			if (rows[j].fam == 4 && rows[j].n == rw->n)
				v4 = &rows[j];
		if (rw->fam == 4 || v4 == NULL) {
			free(ratio);
			continue;
		}
		/* per CPU-second, this row over IPv4's: IPv4's cycles over this row's */
		for (r = 0; r < rounds; r++)
			ratio[r] = v4->cost[r] / rw->cost[r];
		qsort(ratio, (size_t)rounds, sizeof(double), cmp_double);
		printf("ratio %s / IPv4 N=%d per CPU-second: best rounds %.3f, per round median "
		       "%.3f (%.3f to %.3f, %d rounds)\n",
		       rw->fam == 6 ? "IPv6" : "IPv4 to IPv6", rw->n, v4->best / rw->best,
		       ratio[rounds / 2], ratio[0], ratio[rounds - 1], rounds);
		free(ratio);
	}
	for (k = 0; k < n_rows; k++) {
		uf_plan_free(rows[k].plan);
		rte_free(rows[k].w);
		uf_config_free(rows[k].cfg);
		free(rows[k].cost);
	}
	rte_eth_dev_stop(null_port);
	rte_eal_cleanup();
	return 0;
}
