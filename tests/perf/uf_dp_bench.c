/* SPDX-License-Identifier: BSD-3-Clause
 * uf_dp_bench: the per-datagram cost of uf_worker_rx at 32 B, N = 1 and N = 4, copy mode, in
 * cycles per input datagram, input preparation subtracted (the set-up: uf_bench_dp.h, shared
 * with uf_fanout_bench.c).
 *
 *   uf_dp_bench [-n 1|4] [-f 4|6] [-i BURSTS_PER_ROUND] [-r ROUNDS] [-H] [-g] [-p]: IPv4 rows,
 *   then IPv6 rows (v6 in, v6 out: uf_fanout_mixed; -f: one family), best round (keep a round
 *   short enough to fit a time slice on a shared machine: -i 500 -r 300); -H: no hugepages, to
 *   count instructions under valgrind --tool=callgrind (-i 200 -r 3); -g: the input carries a
 *   NIC's GOOD IPv4 and UDP checksum verdicts (RX offloads on: the software header sum is
 *   skipped; docs/pmd-quirks.md, "RX checksum verdicts"); -p: the port completes partial UDP
 *   checksums (partial_csum: the net_pcap row's, so inmem.py's udpfan pays it too); -s BYTES:
 *   another payload size (docs/benchmarks.md#copy-versus-chain: 1400); -c: chained copies
 *   (fanout: chain) instead of copied ones
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

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0],           "-l",     "1",         "--no-pci",
			"--in-memory",     "--vdev", "net_null0", "--log-level",
			"lib.eal:warning", NULL,     NULL,        NULL };
	int n_eal = 9;
	struct uf_shared sh;
	long iters = 100000;
	int c, k, r, rounds = 7, only = 0, only_fam = 0, payload = 32;
	bool chain = false;
	uint8_t frame[2048];

	while ((c = getopt(argc, argv, "i:r:n:f:s:cHgpVS")) != -1) {
		if (c == 'S') { /* every datagram to the port's service address */
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
		} else if (c == 's') {
			payload = atoi(optarg);
		} else if (c == 'c') {
			chain = true;
		} else if (c == 'n')
			only = atoi(optarg);
		else if (c == 'f')
			only_fam = atoi(optarg);
		else if (c == 'i')
			iters = atol(optarg);
		else if (c == 'r')
			rounds = atoi(optarg);
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
	for (k = 0; k < 4; k++) {
		/* IPv4 N = 1, 4, then IPv6 N = 1, 4 (v6 in, v6 out), the same run */
		const int n = k % 2 == 0 ? 1 : 4, fam = k < 2 ? 4 : 6;
		struct uf_config *cfg;

		if ((only != 0 && n != only) || (only_fam != 0 && fam != only_fam) ||
		    (fam == 6 && (bench_vlan != 0 || bench_svc)))
			continue;
		cfg = fam == 4 ? make_cfg(n) : make_cfg6(n);
		size_t len = fam == 4 ? build_input(frame, (uint16_t)payload, 1)
				      : build_input6(frame, (uint16_t)payload, 1);

		if (bench_vlan != 0) { /* the same frame, tagged */
			memmove(frame + 16, frame + 12, len - 12);
			frame[12] = 0x81;
			frame[13] = 0x00;
			frame[14] = (uint8_t)(bench_vlan >> 8);
			frame[15] = (uint8_t)bench_vlan;
			len += 4;
		}
		struct uf_plan *pc = make_plan(cfg, chain ? UF_FANOUT_CHAIN : UF_FANOUT_COPY);
		struct uf_worker *wc = make_worker(cfg, &sh, chain);
		double prep = 1e18, tc = 1e18, io = 1e18;

		run(wc, pc, frame, len, iters / 10); /* warm up */
		for (r = 0; r < rounds; r++) {       /* best of: the VM is shared */
			prep = RTE_MIN(prep, prep_cost(frame, len, iters));
			tc = RTE_MIN(tc, run(wc, pc, frame, len, iters));
			io = RTE_MIN(io, io_cost(frame, len, iters));
		}
		/* one worker thread: datagrams per CPU-second is the TSC rate over the cycles */
		printf("%sIPv%d N=%d %d B%s: %.1f cycles per input datagram (prep %.1f subtracted; io "
		       "to net_null: %.1f), %.2f Mpps per CPU-second, forwarded %" PRIu64 "\n",
		       bench_vlan != 0 ? "VLAN " : "", fam, n, payload, chain ? " chained" : "",
		       (tc - prep) / BURST, prep / BURST, (io - prep) / BURST,
		       (double)rte_get_tsc_hz() / ((tc - prep) / BURST) / 1e6, wc->ctr.forwarded);
		uf_plan_free(pc);
		rte_free(wc);
		uf_config_free(cfg);
	}
	rte_eth_dev_stop(null_port);
	rte_eal_cleanup();
	return 0;
}
