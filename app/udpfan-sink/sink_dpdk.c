/* SPDX-License-Identifier: BSD-3-Clause
 * DPDK mode: one port, one RX and one TX queue, both owned by one worker lcore. It answers
 * ARP (and ping) for our address, accounts UDP datagrams to our address (and to the listed
 * ports, if any), and counts everything else as ignored, by reason. Checksums are verified
 * in software unless --no-csum-check (the kernel sink verifies them too; a frame with a bad
 * one is counted, not accounted).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "sink.h"
#include "uf_pkt.h"
#include "uf_tool.h"

#define RXD 2048
#define TXD 512

#define IGNORED_LIST(X)             \
	X(NOT_IPV4, "not_ipv4")     \
	X(NOT_FOR_US, "not_for_us") \
	X(NOT_UDP, "not_udp")       \
	X(OTHER_PORT, "other_port") \
	X(FRAGMENT, "fragment")     \
	X(MALFORMED, "malformed")   \
	X(ARP_OTHER, "arp_other")   \
	X(BAD_CHECKSUM, "bad_checksum")

#define X_ENUM(e, s) IGN_##e,
enum ign {
	IGNORED_LIST(X_ENUM) IGN_MAX
};
#undef X_ENUM
#define X_NAME(e, s) s,
static const char *const ign_names[] = { IGNORED_LIST(X_NAME) };
#undef X_NAME

struct __rte_cache_aligned dlcore {
	/* read-only */
	uint16_t port_id;
	struct rte_ether_addr mac;
	rte_be32_t ip;
	bool csum_check;
	bool any_port;
	uint64_t port_set[65536 / 64]; /* host-order UDP ports we account */
	/* single-writer */
	struct __rte_cache_aligned {
		uint64_t frames;
		uint64_t arp_replies;
		uint64_t icmp_replies;
		uint64_t ignored[IGN_MAX];
		uint64_t max_gap; /* cycles: the longest loop pass (after the first datagram) */
	} c;
	struct uf_sink_count cnt;
	uint16_t nb_queues;
};

static struct dlcore dl;
static struct uf_tool_port dport;
static uint32_t hold_ms; /* --hold */
static unsigned int worker;
static bool eal_up;
static bool launched;

static inline uint16_t
rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* a datagram's fate; IGN_MAX: accounted */
static inline enum ign
classify(struct dlcore *lc, struct rte_mbuf *m, uint64_t now)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint32_t len = rte_pktmbuf_data_len(m);
	const struct rte_ipv4_hdr *ip;
	const uint8_t *udp;
	uint32_t ihl, tot, ulen;
	uint16_t dport_h;

	if (unlikely(len < RTE_ETHER_HDR_LEN))
		return IGN_MALFORMED;
	if (unlikely(rd16(f + 12) != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)))
		return rd16(f + 12) == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP) ? IGN_ARP_OTHER
									    : IGN_NOT_IPV4;
	if (unlikely(!rte_is_same_ether_addr((const struct rte_ether_addr *)f, &lc->mac)))
		return IGN_NOT_FOR_US;
	ip = (const struct rte_ipv4_hdr *)(f + RTE_ETHER_HDR_LEN);
	if (unlikely(len < RTE_ETHER_HDR_LEN + 20 || (ip->version_ihl >> 4) != 4))
		return IGN_MALFORMED;
	ihl = (uint32_t)(ip->version_ihl & 0xf) * 4;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (unlikely(ihl < 20 || tot < ihl + 8 || RTE_ETHER_HDR_LEN + tot > len))
		return IGN_MALFORMED;
	if (unlikely(ip->dst_addr != lc->ip))
		return IGN_NOT_FOR_US;
	if (unlikely(ip->next_proto_id != IPPROTO_UDP))
		return IGN_NOT_UDP;
	if (unlikely((ip->fragment_offset & rte_cpu_to_be_16(0x3fff)) != 0))
		return IGN_FRAGMENT;
	udp = (const uint8_t *)ip + ihl;
	ulen = rte_be_to_cpu_16(rd16(udp + 4));
	if (unlikely(ulen < 8 || ihl + ulen > tot))
		return IGN_MALFORMED;
	dport_h = rte_be_to_cpu_16(rd16(udp + 2));
	if (!lc->any_port && !(lc->port_set[dport_h >> 6] & (UINT64_C(1) << (dport_h & 63))))
		return IGN_OTHER_PORT;
	if (lc->csum_check) {
		if (unlikely(rte_raw_cksum(ip, ihl) != 0xffff))
			return IGN_BAD_CHECKSUM;
		if (rd16(udp + 6) != 0) {
			uint32_t s = rte_raw_cksum(udp, ulen);

			s = uf_ck_add32(s, ip->src_addr);
			s = uf_ck_add32(s, ip->dst_addr);
			s += rte_cpu_to_be_16(IPPROTO_UDP) + rd16(udp + 4);
			if (unlikely(uf_ck_fold(s) != 0xffff))
				return IGN_BAD_CHECKSUM;
		}
	}
	uf_sink_account(&lc->cnt, ip->dst_addr, rd16(udp + 2), ip->src_addr, rd16(udp), udp + 8,
			ulen - 8, now);
	return IGN_MAX;
}

static int
dpdk_loop(void *arg)
{
	struct dlcore *lc = arg;
	const uint16_t port = lc->port_id;
	struct rte_mbuf *pkts[SINK_BATCH], *ans[SINK_BATCH];
	uint16_t n, i, n_ans, k;
	uint64_t accounted = 0, prev = 0, max_gap = 0;
	uint16_t q = 0;

	while (likely(!sink_stopping())) {
		/* the longest pass tells how long the lcore was kept off its CPU at worst: the
		 * af_xdp PMD has only 2048 fill-ring buffers of slack */
		const uint64_t now = rte_rdtsc();

		if (unlikely(now - prev > max_gap) && prev != 0) {
			max_gap = now - prev;
			UF_STORE(&lc->c.max_gap, max_gap);
		}
		if (accounted != 0)
			prev = now;
		if (++q >= lc->nb_queues)
			q = 0;
		n = rte_eth_rx_burst(port, q, pkts, SINK_BATCH);
		if (n == 0)
			continue;
		n_ans = 0;
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			enum ign why;

			if (i + 1 < n)
				rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
			why = classify(lc, m, now);
			if (likely(why == IGN_MAX)) {
				accounted++;
			} else if (why == IGN_ARP_OTHER &&
				   uf_tool_arp_answer(m, &lc->mac, lc->ip)) {
				lc->c.arp_replies++;
				ans[n_ans++] = m;
				pkts[i] = NULL;
			} else if (why == IGN_NOT_UDP && uf_tool_icmp_answer(m, &lc->mac, lc->ip)) {
				lc->c.icmp_replies++;
				ans[n_ans++] = m;
				pkts[i] = NULL;
			} else {
				lc->c.ignored[why]++;
			}
		}
		if (unlikely(n_ans != 0)) {
			uint16_t j = 0;

			/* the answers leave; free the rest in one go */
			for (i = 0; i < n; i++)
				if (pkts[i] != NULL)
					pkts[j++] = pkts[i];
			n = j;
			k = rte_eth_tx_burst(port, q, ans, n_ans);
			if (k < n_ans)
				rte_pktmbuf_free_bulk(&ans[k], n_ans - k);
		}
		rte_pktmbuf_free_bulk(pkts, n);
		UF_STORE(&lc->c.frames, lc->c.frames + n + n_ans);
		UF_STORE(&lc->cnt.total, accounted);
	}
	return 0;
}

static int
dpdk_start(const struct sink_opts *o, struct uf_err *err)
{
	char line[2048];
	int i, ret;

	hold_ms = o->t.hold_ms;
	if (uf_tool_eal_init(&o->t.eal, err, line, sizeof(line)) != 0)
		return -1;
	eal_up = true;
	UF_TOOL_LOG(INFO, "EAL: %s", line);
	if (uf_tool_port_open_mq(&dport, o->t.eal.dev, o->queues != 0 ? o->queues : 1, RXD, TXD,
				 err) != 0)
		return -1;
	dl.nb_queues = dport.nb_queues;

	dl.port_id = dport.port_id;
	dl.mac = dport.mac;
	dl.ip = o->ip;
	dl.csum_check = o->csum_check;
	dl.any_port = o->n_ports == 0;
	if (uf_sink_count_init(&dl.cnt, o->n_ports != 0 ? (uint32_t)o->n_ports : 16, o->win_log2) !=
	    0) {
		uf_err_set(err, UF_EXIT_OTHER, "out of memory for the sequence windows");
		return -1;
	}
	dl.cnt.seq_off = o->seq_off;
	if (o->latency && uf_sink_count_lat(&dl.cnt, (double)rte_get_tsc_hz()) != 0) {
		uf_err_set(err, UF_EXIT_OTHER, "out of memory for the latency histograms");
		return -1;
	}
	for (i = 0; i < o->n_ports; i++) {
		dl.port_set[o->ports[i] >> 6] |= UINT64_C(1) << (o->ports[i] & 63);
		uf_sink_dest_add(&dl.cnt, o->ip, rte_cpu_to_be_16(o->ports[i]));
	}
	worker = rte_get_next_lcore(-1, 1, 0);
	ret = rte_eal_remote_launch(dpdk_loop, &dl, worker);
	if (ret != 0) {
		uf_err_set(err, UF_EXIT_OTHER, "cannot launch lcore %u: %s", worker,
			   rte_strerror(-ret));
		return -1;
	}
	launched = true;
	return 0;
}

static uint64_t
dpdk_total(void)
{
	return UF_LOAD(&dl.cnt.total);
}

static void
dpdk_stop(void)
{
	__atomic_store_n(&sink_quit, 1, __ATOMIC_RELAXED);
	if (launched) {
		rte_eal_wait_lcore(worker);
		launched = false;
	}
}

static int
dpdk_counts(struct uf_sink_count **out, int max)
{
	if (max < 1 || dl.cnt.dests == NULL)
		return 0;
	out[0] = &dl.cnt;
	return 1;
}

static double
dpdk_hz(void)
{
	return (double)rte_get_tsc_hz();
}

static void
dpdk_json(FILE *f)
{
	uint64_t ign = 0;
	int i;

	for (i = 0; i < IGN_MAX; i++)
		ign += dl.c.ignored[i];
	fprintf(f, ", \"frames\": %" PRIu64 ", \"ignored\": %" PRIu64 ", \"ignored_by_reason\": {",
		dl.c.frames, ign);
	for (i = 0; i < IGN_MAX; i++)
		fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "", ign_names[i], dl.c.ignored[i]);
	fprintf(f, "}, \"loop_max_gap_us\": %.1f",
		1e6 * (double)dl.c.max_gap / (double)rte_get_tsc_hz());
	fprintf(f,
		", \"bad_checksum\": %" PRIu64 ", \"checksums_verified\": %s, "
		"\"arp_replies\": %" PRIu64 ", \"icmp_replies\": %" PRIu64 ", \"port\": ",
		dl.c.ignored[IGN_BAD_CHECKSUM], dl.csum_check ? "true" : "false", dl.c.arp_replies,
		dl.c.icmp_replies);
	uf_tool_port_json(f, &dport);
}

static void
dpdk_fini(void)
{
	if (eal_up)
		uf_tool_hold(&dport, hold_ms);
	uf_tool_port_close(&dport);
	uf_sink_count_free(&dl.cnt);
	if (eal_up)
		rte_eal_cleanup();
	eal_up = false;
}

const struct sink_mode sink_dpdk_mode = {
	.name = "dpdk",
	.start = dpdk_start,
	.total = dpdk_total,
	.stop = dpdk_stop,
	.counts = dpdk_counts,
	.hz = dpdk_hz,
	.json = dpdk_json,
	.fini = dpdk_fini,
};
