/* SPDX-License-Identifier: BSD-3-Clause
 * Copy versus chain, measured: the cost of turning one received datagram into N frames with
 * the real datapath (uf_worker_rx: classify, fan out, TX buffer, hand to the PMD), in cycles
 * per output frame, for payloads of 32..1400 bytes.
 *
 * The egress is net_null, whose TX frees every frame (chains and shared segments included),
 * so what is measured is building plus freeing; the NIC's side of a chain (a second
 * descriptor, a second DMA read) is not, and favours chaining here. The input is prepared the
 * way net_pcap's infinite_rx prepares it (allocate, copy the frame in); that cost is measured
 * apart and subtracted. Before timing, the chained frames are linearised and compared with
 * the copied ones byte for byte: both modes must produce the same wire image.
 *
 *   uf_fanout_bench [-n DESTS] [-i ITERATIONS] -- EAL args are built in (one lcore, no PCI)
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

/* chained and copied frames must be the same bytes on the wire */
static int
same_wire(const struct uf_config *cfg, struct uf_shared *sh, const uint8_t *frame, size_t len)
{
	struct uf_plan *pc = make_plan(cfg, UF_FANOUT_COPY), *ph = make_plan(cfg, UF_FANOUT_CHAIN);
	struct uf_worker *wc = make_worker(cfg, sh, false), *wh = make_worker(cfg, sh, true);
	struct rte_mbuf *a[1], *b[1];
	uint8_t x[2048], y[2048];
	int i, bad = 0;

	wc->burst = wh->burst = UF_TXB_CAP; /* keep the frames in the buffer to look at them */
	a[0] = rte_pktmbuf_alloc(in_pool);
	b[0] = rte_pktmbuf_alloc(in_pool);
	rte_memcpy(rte_pktmbuf_mtod(a[0], void *), frame, len);
	rte_memcpy(rte_pktmbuf_mtod(b[0], void *), frame, len);
	a[0]->data_len = b[0]->data_len = (uint16_t)len;
	a[0]->pkt_len = b[0]->pkt_len = (uint32_t)len;
	uf_worker_rx(wc, pc, 0, a, 1);
	uf_worker_rx(wh, ph, 0, b, 1);
	for (i = 0; i < wc->txb[0].n; i++) {
		struct rte_mbuf *c = wc->txb[0].m[i], *h = wh->txb[0].m[i];
		const void *xc = rte_pktmbuf_read(c, 0, c->pkt_len, x);
		const void *yh = rte_pktmbuf_read(h, 0, h->pkt_len, y);

		if (c->pkt_len != h->pkt_len || h->nb_segs != (len - 42 >= 18 ? 2 : 1) ||
		    memcmp(xc, yh, c->pkt_len) != 0)
			bad++;
	}
	if (wc->txb[0].n != cfg->n_dests || wh->txb[0].n != cfg->n_dests)
		bad++;
	uf_worker_flush(wc);
	uf_worker_flush(wh);
	uf_plan_free(pc);
	uf_plan_free(ph);
	rte_free(wc);
	rte_free(wh);
	return bad;
}

int
main(int argc, char **argv)
{
	static const uint16_t payloads[] = { 32, 64, 128, 256, 512, 1024, 1400 };
	char *eal[] = { argv[0],  "-l",        "1",           "--no-pci",        "--in-memory",
			"--vdev", "net_null0", "--log-level", "lib.eal:warning", NULL };
	struct uf_shared sh;
	struct uf_config *cfg;
	long iters = 200000;
	int n = 4, c, k, bad = 0;
	uint8_t frame[2048];

	while ((c = getopt(argc, argv, "n:i:")) != -1) {
		if (c == 'n')
			n = atoi(optarg);
		else if (c == 'i')
			iters = atol(optarg);
	}
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "EAL init failed (hugepages? run as root)\n");
		return 77;
	}
	if (bench_setup() != 0) {
		fprintf(stderr, "setup failed\n");
		return 1;
	}
	memset(&sh, 0, sizeof(sh));
	cfg = make_cfg(n);

	printf("copy vs chain: N = %d, cycles per output frame (build + free), TSC %.0f MHz, "
	       "%ld bursts of %d\n",
	       n, rte_get_tsc_hz() / 1e6, iters, BURST);
	printf("%8s %10s %10s %8s\n", "payload", "copy", "chain", "chain/copy");
	for (k = 0; k < (int)RTE_DIM(payloads); k++) {
		size_t len = build_input(frame, payloads[k], (uint32_t)k);
		struct uf_plan *pc = make_plan(cfg, UF_FANOUT_COPY);
		struct uf_plan *ph = make_plan(cfg, UF_FANOUT_CHAIN);
		struct uf_worker *wc = make_worker(cfg, &sh, false);
		struct uf_worker *wh = make_worker(cfg, &sh, true);
		double prep, tc, th;
		int r;

		bad += same_wire(cfg, &sh, frame, len);
		run(wc, pc, frame, len, iters / 10); /* warm up */
		run(wh, ph, frame, len, iters / 10);
		prep = prep_cost(frame, len, iters);
		tc = 1e18, th = 1e18;
		for (r = 0; r < 3; r++) { /* best of three: the VM is shared */
			tc = RTE_MIN(tc, run(wc, pc, frame, len, iters) - prep);
			th = RTE_MIN(th, run(wh, ph, frame, len, iters) - prep);
		}
		printf("%8u %10.1f %10.1f %8.2f\n", payloads[k], tc / (BURST * n), th / (BURST * n),
		       th / tc);
		uf_plan_free(pc);
		uf_plan_free(ph);
		rte_free(wc);
		rte_free(wh);
	}
	printf("wire images: %s\n", bad == 0 ? "chained == copied for every payload" : "DIFFER");
	uf_config_free(cfg);
	rte_eth_dev_stop(null_port);
	rte_eal_cleanup();
	return bad == 0 ? 0 : 1;
}
