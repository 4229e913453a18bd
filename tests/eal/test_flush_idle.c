/* SPDX-License-Identifier: BSD-3-Clause
 * At a low rate no datagram waits for the drain timer (docs/architecture.md#tx-buffers-drain-
 * timer-bounded-retries): the worker loop (uf_worker_main, on its own lcore) flushes its TX
 * buffers on the first pass that finds the RX queues empty.
 *
 * One port made from two rte_rings (rte_eth_from_rings): the test enqueues a datagram on its
 * RX ring and waits for the copy on its TX ring. The drain timer is set to 10 s, so a worker
 * that flushed only on the timer (or on a full burst) would hold every one of these lone
 * datagrams for 10 s; each must come out within 200 ms (the worker's thread may be off the CPU
 * for a few ms on a shared machine; the time seen is printed). Then a burst of 64 at once:
 * all 64 come out, and the ledger (rx == forwarded, copies_attempted == tx_ok) holds.
 *
 * Then forward.idle_sleep_us (docs/configuration.md#forward): the worker is launched again
 * sleeping 1 ms after each empty pass. Left idle for 300 ms it makes at most a few hundred
 * passes (busy polling makes hundreds of thousands), and lone datagrams still come out
 * within 200 ms each.
 *
 * Then forward.flush_idle_us (the same page): launched again holding the idle flush for
 * HOLD_MS. A lone datagram comes out no sooner than HOLD_MS after it went in (and within
 * HOLD_MS + 200 ms); of two sent HOLD_MS / 2 apart, the first is still held 1.2 x HOLD_MS
 * after it went in (the second restarted the wait), and both come out.
 *
 * Needs EAL without hugepages and two lcores: --no-huge --no-pci -l 0,1 (eal suite).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "uf_config.h"
#include "uf_fwd_dp.h"
#include "uf_plan.h"

#include "../unit/uf_test.h"
#include "uf_ring_port.h"

#define LONE 20           /* datagrams sent one at a time */
#define WAIT_MS 200       /* the most one may take */
#define DRAIN_US 10000000 /* the drain timer: 10 s */
#define HOLD_MS 100       /* forward.flush_idle_us in its phase */

static struct rte_mempool *pool;
static struct rte_ring *rx_ring, *tx_ring;
static uint16_t port;
static struct rte_ether_addr port_mac;

static struct rte_mbuf *
datagram(unsigned seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;

	if (m == NULL) {
		fprintf(stderr, "pool empty\n");
		exit(1);
	}
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	udp = (struct rte_udp_hdr *)(ip + 1);
	memset(eth, 0, 42 + 32);
	eth->dst_addr = port_mac;
	eth->src_addr.addr_bytes[0] = 0x02;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(28 + 32);
	ip->packet_id = rte_cpu_to_be_16((uint16_t)seq);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0xc6120002);
	ip->dst_addr = rte_cpu_to_be_32(0xc612000a);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(40000);
	udp->dst_port = rte_cpu_to_be_16(5000);
	udp->dgram_len = rte_cpu_to_be_16(8 + 32);
	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
	m->data_len = 42 + 32;
	m->pkt_len = m->data_len;
	return m;
}

/* frames on the TX ring within ms milliseconds, freed; how many */
static unsigned
collect(unsigned want, unsigned ms, double *us)
{
	uint64_t t0 = rte_rdtsc(), limit = rte_get_tsc_hz() / 1000 * ms;
	struct rte_mbuf *m[64];
	unsigned got = 0, k;

	while (got < want && rte_rdtsc() - t0 < limit) {
		k = rte_ring_dequeue_burst(tx_ring, (void **)m, RTE_DIM(m), NULL);
		rte_pktmbuf_free_bulk(m, k);
		got += k;
		if (k == 0)
			rte_delay_us_sleep(10);
	}
	*us = (double)(rte_rdtsc() - t0) * 1e6 / rte_get_tsc_hz();
	return got;
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0],
			"-l",
			"0,1",
			"--no-pci",
			"--no-huge",
			"-m",
			"256",
			"--log-level",
			"lib.eal:warning",
			"--file-prefix",
			"uf_flush_idle",
			NULL };
	static const char cfg_text[] =
			"ports:\n  - { name: p, device: net_ring0, ip: 198.18.0.10/24 }\n"
			"listen: { port: p, udp_port: 5000 }\ndestinations:\n"
			"  - { ip: 198.18.0.21, udp_port: 6000, mac: \"02:00:00:00:00:21\" }\n";
	struct rte_ether_addr dmac[1];
	bool resolved[1] = { true }, chain_ok = true;
	uint16_t mtu = 1500;
	struct uf_plan_input pin = { .port_mac = &port_mac,
				     .port_mtu = &mtu,
				     .port_chain_ok = &chain_ok,
				     .dest_mac = dmac,
				     .dest_resolved = resolved,
				     .version = 1,
				     .socket = -1 };
	struct uf_shared sh;
	struct uf_config *cfg;
	struct uf_worker *w;
	struct rte_mbuf *burst[64];
	double us, worst = 0;
	unsigned i, late = 0;

	(void)argc;
	cfg = uf_ring_test_start(eal, (int)RTE_DIM(eal) - 1, "flush", cfg_text,
				 sizeof(cfg_text) - 1, "flush_idle", &pool, &rx_ring, &tx_ring,
				 &port, &port_mac);
	if (cfg == NULL)
		return 1;
	dmac[0] = cfg->dests[0].mac;
	pin.cfg = cfg;
	memset(&sh, 0, sizeof(sh));
	sh.plan = uf_plan_build(&pin);
	sh.qsbr = rte_zmalloc("qsbr", rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE);
	w = rte_zmalloc("w", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (sh.plan == NULL || sh.qsbr == NULL || w == NULL || rte_rcu_qsbr_init(sh.qsbr, 1) != 0) {
		fprintf(stderr, "plan / worker setup failed\n");
		return 1;
	}
	w->n_ports = 1;
	w->burst = 32;
	w->tx_retries = 0;
	w->drain_tsc = rte_get_tsc_hz() / 1000000 * DRAIN_US;
	w->flush_idle = true;
	w->shared = &sh;
	w->copy_pool = pool;
	w->ports[0].port_id = port;
	w->ports[0].id.mac = port_mac;
	w->ports[0].id.ip = cfg->ports[0].ip;
	w->ports[0].id.listen = true;
	w->ports[0].id.listen_udp = rte_cpu_to_be_16(5000);
	w->ports[0].id.max_len = uf_port_max_len(1500);
	uf_worker_port_id(w, 0);
	w->port_idx[port] = 0;
	w->txb[0].port_id = port;
	w->ctl_tx = rte_ring_create("flush_ctx", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (w->ctl_tx == NULL) {
		fprintf(stderr, "ctl ring failed\n");
		return 1;
	}
	uf_worker_link_init(w, 0, 100);
	if (rte_eal_remote_launch(uf_worker_main, w, rte_get_next_lcore(-1, 1, 0)) != 0) {
		fprintf(stderr, "launch failed\n");
		return 1;
	}

	/* lone datagrams, 2 ms apart: each leaves on the worker's next empty pass */
	for (i = 0; i < LONE; i++) {
		struct rte_mbuf *m = datagram(i);

		if (rte_ring_enqueue(rx_ring, m) != 0)
			exit(1);
		if (collect(1, WAIT_MS, &us) != 1)
			late++;
		worst = RTE_MAX(worst, us);
		rte_delay_us_sleep(2000);
	}
	printf("lone datagrams: %u of %u out within %d ms (drain timer %d s), slowest %.0f us\n",
	       LONE - late, LONE, WAIT_MS, DRAIN_US / 1000000, worst);
	CHECK(late == 0, "%u lone datagrams waited over %d ms", late, WAIT_MS);

	/* a burst of 64 at once: every frame out, none held */
	for (i = 0; i < RTE_DIM(burst); i++)
		burst[i] = datagram(100 + i);
	CHECK_EQ(rte_ring_enqueue_bulk(rx_ring, (void **)burst, RTE_DIM(burst), NULL),
		 RTE_DIM(burst));
	CHECK_EQ(collect(RTE_DIM(burst), WAIT_MS, &us), RTE_DIM(burst));
	printf("a burst of 64: out in %.0f us\n", us);

	__atomic_store_n(&sh.quit, 1, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	CHECK_EQ(w->ctr.rx, LONE + 64);
	CHECK_EQ(w->ctr.forwarded, LONE + 64);
	CHECK_EQ(w->ctr.copies_attempted, LONE + 64);
	CHECK_EQ(w->ctr.tx_ok, LONE + 64);
	printf("busy polling: %" PRIu64 " passes\n", w->ctr.loops);

	/* forward.idle_sleep_us: idle, the worker sleeps instead of polling */
	__atomic_store_n(&sh.quit, 0, __ATOMIC_RELEASE);
	w->idle_sleep_us = 1000;
	if (rte_eal_remote_launch(uf_worker_main, w, rte_get_next_lcore(-1, 1, 0)) != 0) {
		fprintf(stderr, "launch failed\n");
		return 1;
	}
	rte_delay_us_sleep(300 * 1000);
	late = 0;
	worst = 0;
	for (i = 0; i < 5; i++) {
		if (rte_ring_enqueue(rx_ring, datagram(200 + i)) != 0)
			exit(1);
		if (collect(1, WAIT_MS, &us) != 1)
			late++;
		worst = RTE_MAX(worst, us);
	}
	__atomic_store_n(&sh.quit, 1, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	printf("idle_sleep_us 1000: %" PRIu64 " passes in 300 ms idle + 5 datagrams, slowest "
	       "%.0f us\n",
	       w->ctr.loops, worst);
	CHECK(w->ctr.loops < 2000, "%" PRIu64 " passes: the worker did not sleep when idle",
	      w->ctr.loops);
	CHECK(late == 0, "%u datagrams waited over %d ms with idle_sleep_us", late, WAIT_MS);
	CHECK_EQ(w->ctr.forwarded, LONE + 64 + 5);

	/* forward.flush_idle_us: the idle flush waits until the queues have been empty that long */
	__atomic_store_n(&sh.quit, 0, __ATOMIC_RELEASE);
	w->idle_sleep_us = 0;
	w->flush_idle_tsc = rte_get_tsc_hz() / 1000 * HOLD_MS;
	if (rte_eal_remote_launch(uf_worker_main, w, rte_get_next_lcore(-1, 1, 0)) != 0) {
		fprintf(stderr, "launch failed\n");
		return 1;
	}
	{
		const uint64_t ms = rte_get_tsc_hz() / 1000;
		uint64_t t0 = rte_rdtsc(), t1, t2;
		double held_us;
		unsigned int early;

		if (rte_ring_enqueue(rx_ring, datagram(300)) != 0)
			exit(1);
		CHECK_EQ(collect(1, HOLD_MS + WAIT_MS, &us), 1);
		held_us = (double)(rte_rdtsc() - t0) * 1e3 / (double)ms;
		printf("flush_idle_us %d000: a lone datagram out after %.0f us\n", HOLD_MS,
		       held_us);
		CHECK(held_us >= HOLD_MS * 1000.0, "out after %.0f us, before the %d ms hold",
		      held_us, HOLD_MS);

		/*
		 * Two, HOLD_MS / 2 apart; looked at 1.2 x HOLD_MS after the first: had the second
		 * not restarted the wait, the first would be out by then (it left at HOLD_MS). The
		 * look is conclusive only if this thread kept to its times: the second went in
		 * before the first's hold ran out, and the look came before the second's did.
		 */
		t0 = rte_rdtsc();
		if (rte_ring_enqueue(rx_ring, datagram(301)) != 0)
			exit(1);
		rte_delay_us_sleep(HOLD_MS / 2 * 1000);
		t1 = rte_rdtsc();
		if (rte_ring_enqueue(rx_ring, datagram(302)) != 0)
			exit(1);
		while (rte_rdtsc() - t0 < HOLD_MS * ms * 6 / 5)
			rte_delay_us_sleep(1000);
		early = rte_ring_count(tx_ring);
		t2 = rte_rdtsc();
		if (t1 - t0 < HOLD_MS * ms && t2 - t1 < HOLD_MS * ms) {
			CHECK(early == 0,
			      "%u of two datagrams out %.0f ms after the first went in: the second "
			      "(in at %.0f ms) did not restart the wait",
			      early, (double)(t2 - t0) / (double)ms,
			      (double)(t1 - t0) / (double)ms);
		} else {
			printf("two datagrams: inconclusive, this thread was late (second in at %.0f ms, "
			       "looked at %.0f ms)\n",
			       (double)(t1 - t0) / (double)ms, (double)(t2 - t0) / (double)ms);
		}
		CHECK_EQ(collect(2, HOLD_MS + WAIT_MS, &us), 2);
	}
	__atomic_store_n(&sh.quit, 1, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	CHECK_EQ(w->ctr.forwarded, LONE + 64 + 5 + 3);
	CHECK_EQ(w->ctr.tx_ok, LONE + 64 + 5 + 3);

	rte_ring_free(w->ctl_tx);
	rte_free(w);
	rte_free(sh.qsbr);
	uf_plan_free(sh.plan);
	uf_config_free(cfg);
	rte_eth_dev_stop(port);
	rte_eal_cleanup();
	printf("%d passed, %d failed\n", uf_t_passed, uf_t_failed);
	return uf_t_failed == 0 ? 0 : 1;
}
