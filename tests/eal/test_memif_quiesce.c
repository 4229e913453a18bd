/* SPDX-License-Identifier: BSD-3-Clause
 * net_memif with the patch udpfan carries for DPDK (patches/dpdk/<version>/, docs/pmd-quirks.md,
 * "Unmapped under a running worker"): its disconnect waits for the bursts before it unmaps the
 * rings, so the munmap() guard is not needed. Nothing of the guard is linked in here (libc's
 * munmap()), and it is never armed.
 *
 * This process is the memif server (udpfan's role in the lab); a worker lcore bursts RX and
 * TX on the port without a pause. A peer process (this program, "peer" mode) is the client:
 * it owns the shared memory, connects, sends for a while, and is killed (SIGKILL: its socket
 * closes and the server's interrupt thread runs memif_disconnect, which unmaps the regions
 * under the worker). That is repeated ROUNDS times; the test passes when this process
 * survives every disconnect (no SIGSEGV), each disconnect is seen (link up, then down) and the
 * worker received frames in every round.
 *
 *   test_memif_quiesce           skips (77) where the loaded net_memif does not quiesce
 *                                (uf_unmap_guard_pmd_quiesces(): Debian's 22.11, any
 *                                unpatched build)
 *   test_memif_quiesce force [N] runs all the same (N rounds): on an unpatched PMD, to see
 *                                the race
 *
 * Needs EAL without hugepages: --no-huge --no-pci, lcores 0 and 1 (eal suite).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "uf_unmap_guard.h"

#define ROUNDS 12
#define TRAFFIC_MS 150    /* the peer sends this long before it is killed */
#define LINK_WAIT_MS 8000 /* for the peer to connect (its EAL start), or the link to go */
#define BURST 32

static volatile int stop_worker;
static uint64_t rx_total, tx_total, bursts;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
link_up(uint16_t port)
{
	struct rte_eth_link l;

	if (rte_eth_link_get_nowait(port, &l) != 0)
		return -1;
	return l.link_status == RTE_ETH_LINK_UP;
}

static int
wait_link(uint16_t port, int up)
{
	double t0 = now_s();

	while (link_up(port) != up) {
		if (now_s() - t0 > LINK_WAIT_MS / 1000.0)
			return -1;
		usleep(1000);
	}
	return 0;
}

static int
port_setup(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_conf conf;

	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start(port) != 0)
		return -1;
	return 0;
}

/* one RX and one TX burst per pass, no pause: the bursts run nearly all the time */
static int
worker(void *arg)
{
	struct rte_mempool *mp = arg;
	struct rte_mbuf *b[BURST];
	uint16_t n, i, sent;

	while (!stop_worker) {
		n = rte_eth_rx_burst(0, 0, b, BURST);
		__atomic_fetch_add(&rx_total, n, __ATOMIC_RELAXED);
		if (n > 0) {
			/* back to the peer: the TX burst writes the rings as well */
			sent = rte_eth_tx_burst(0, 0, b, n);
			__atomic_fetch_add(&tx_total, sent, __ATOMIC_RELAXED);
			for (i = sent; i < n; i++)
				rte_pktmbuf_free(b[i]);
		} else if (rte_pktmbuf_alloc_bulk(mp, b, 1) == 0) {
			b[0]->data_len = b[0]->pkt_len = 60;
			if (rte_eth_tx_burst(0, 0, b, 1) == 0)
				rte_pktmbuf_free(b[0]);
		}
		__atomic_fetch_add(&bursts, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

/* the client: connect, then send (and drain what comes back) until killed */
static int
peer(const char *sock)
{
	char vdev[512];
	char *eal[] = { "test_memif_quiesce",
			"-l",
			"0",
			"--no-pci",
			"--no-huge",
			"-m",
			"64",
			"--file-prefix",
			"uf_memif_quiesce_peer",
			"--log-level",
			"lib.eal:error",
			"--vdev",
			vdev,
			NULL };
	struct rte_mbuf *b[BURST];
	struct rte_mempool *mp;
	uint16_t n, i;

	snprintf(vdev, sizeof(vdev), "net_memif0,role=client,socket=%s,socket-abstract=no,id=0",
		 sock);
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0)
		return 2;
	mp = rte_pktmbuf_pool_create("peer", 4095, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	if (mp == NULL || port_setup(0, mp) != 0)
		return 3;
	for (;;) {
		if (rte_pktmbuf_alloc_bulk(mp, b, BURST) == 0) {
			for (i = 0; i < BURST; i++)
				b[i]->data_len = b[i]->pkt_len = 60;
			n = rte_eth_tx_burst(0, 0, b, BURST);
			for (i = n; i < BURST; i++)
				rte_pktmbuf_free(b[i]);
		}
		n = rte_eth_rx_burst(0, 0, b, BURST);
		for (i = 0; i < n; i++)
			rte_pktmbuf_free(b[i]);
		usleep(100);
	}
	return 0;
}

static pid_t
spawn_peer(const char *sock)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl("/proc/self/exe", "test_memif_quiesce", "peer", sock, (char *)NULL);
		_exit(127);
	}
	return pid;
}

int
main(int argc, char **argv)
{
	char dir[] = "/tmp/uf_memif_quiesce.XXXXXX";
	char sock[128], vdev[256];
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
			"uf_memif_quiesce",
			"--vdev",
			vdev,
			NULL };
	bool force = argc > 1 && strcmp(argv[1], "force") == 0;
	int rounds = force && argc > 2 ? atoi(argv[2]) : ROUNDS;
	uint64_t rx0, disconnects = 0, rounds_rx = 0;
	struct rte_mempool *mp;
	unsigned int lcore;
	int r, status, fail = 0;
	pid_t pid;

	if (argc > 2 && strcmp(argv[1], "peer") == 0)
		return peer(argv[2]);
	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(sock, sizeof(sock), "%s/q.sock", dir);
	snprintf(vdev, sizeof(vdev), "net_memif0,role=server,socket=%s,socket-abstract=no,id=0",
		 sock);
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	if (!uf_unmap_guard_pmd_quiesces("net_memif")) {
		printf("the loaded net_memif does not quiesce its bursts on disconnect (no %s: DPDK "
		       "without udpfan's patch, e.g. Debian's 22.11)%s\n",
		       "rte_pmd_memif_quiesces_on_disconnect",
		       force ? ": running anyway (force)" : ": skipped");
		if (!force) {
			rte_eal_cleanup();
			rmdir(dir);
			return 77;
		}
	} else {
		printf("the loaded net_memif quiesces its bursts on disconnect; the munmap() guard "
		       "is not linked in\n");
	}
	mp = rte_pktmbuf_pool_create("srv", 4095, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (mp == NULL || rte_eth_dev_count_avail() != 1 || port_setup(0, mp) != 0) {
		fprintf(stderr, "memif server port set-up failed\n");
		return 1;
	}
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (rte_eal_remote_launch(worker, mp, lcore) != 0)
		return 1;
	for (r = 0; r < rounds && !fail; r++) {
		pid = spawn_peer(sock);
		if (pid < 0 || wait_link(0, 1) != 0) {
			fprintf(stderr, "round %d: the peer did not connect\n", r);
			fail = 1;
		}
		rx0 = __atomic_load_n(&rx_total, __ATOMIC_RELAXED);
		usleep(TRAFFIC_MS * 1000);
		if (__atomic_load_n(&rx_total, __ATOMIC_RELAXED) > rx0)
			rounds_rx++;
		/* the peer goes mid-traffic: the interrupt thread disconnects and unmaps */
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
		if (wait_link(0, 0) != 0) {
			fprintf(stderr, "round %d: the link did not go down\n", r);
			fail = 1;
		} else {
			disconnects++;
		}
		usleep(20000); /* the worker bursts on the disconnected port meanwhile */
	}
	stop_worker = 1;
	rte_eal_wait_lcore(lcore);
	printf("memif_quiesce: %" PRIu64 " disconnects under a bursting worker of %d rounds, "
	       "%" PRIu64 " rounds with frames received, rx %" PRIu64 " tx %" PRIu64
	       " bursts %" PRIu64 ", no fault\n",
	       disconnects, rounds, rounds_rx, rx_total, tx_total, bursts);
	if (disconnects != (uint64_t)rounds || rounds_rx != (uint64_t)rounds)
		fail = 1;
	rte_eth_dev_stop(0);
	rte_eth_dev_close(0);
	rte_eal_cleanup();
	unlink(sock);
	rmdir(dir);
	printf("%s\n", fail ? "FAIL" : "PASS");
	return fail;
}
