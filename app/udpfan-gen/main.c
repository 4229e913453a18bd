/* SPDX-License-Identifier: BSD-3-Clause
 * udpfan-gen: sequence-numbered UDP datagrams from one DPDK port, at a rate, in bursts,
 * over one or many flows; a JSON summary of what the port accepted at the end.
 *
 * The TX lcore owns both queues of the port: it builds frames from one template (only the
 * sequence number, source port, IPv4 id and checksums change), sends them in bursts, keeps
 * what tx_burst refused for the next pass (so the sequence stays gapless and `sent` is
 * exactly the frames 0 .. sent-1), and answers ARP requests for our address about once a
 * millisecond. The main lcore resolves the target by ARP before, and reports after.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "uf_config.h"
#include "uf_env.h"
#include "uf_genpkt.h"
#include "uf_sinkcount.h"
#include "uf_tool.h"
#include "uf_version.h"

#define PROG "udpfan-gen"
#define ARP_TRIES 5
#define ARP_INTERVAL_MS 200
#define RX_POLL_US 1000  /* answer ARP about this often while sending */
#define MAX_LAG_MS 10    /* a paced sender this far behind restarts its clock, not a long train */
#define WARM_PPS 100000  /* --warmup: its datagrams' pace (or --rate's, if higher) */
#define WARM_PAUSE_MS 20 /* --warmup: from its last datagram to the first measured one */
#define RXD 1024
#define TXD 2048

#define START_AFTER_MAX_MS 60000

struct gen_opts {
	struct uf_tool_opts t; /* --dev is t.eal.dev */
	rte_be32_t ip;
	uint8_t prefix_len;
	rte_be32_t dst_ip;
	uint16_t dst_port;
	bool has_dst_mac;
	const char *start_after; /* wait for this file before sending */
	uint16_t queues;
	uint32_t linger_ms; /* after the last frame, before the port closes */
	struct rte_ether_addr dst_mac;
	bool has_gateway;
	rte_be32_t gateway;
	double rate; /* pps, 0: as fast as the port takes them */
	uint16_t burst;
	uint32_t flows;
	uint16_t sport;
	uint16_t size;
	bool size_given;
	bool netflow_v5; /* --netflow-v5 */
	bool stamp;      /* --stamp */
	bool latency;    /* --latency (implies stamp) */
	uint64_t warmup; /* --warmup: datagrams before the measured ones */
	double stall_us; /* --stall-us */
	double duration; /* 0: none */
	uint64_t count;  /* 0: none */
};

enum stop_reason {
	STOP_NONE = 0,
	STOP_COUNT,
	STOP_DURATION,
	STOP_SIGNAL,
};

#define BACK_DRAIN_MS 200 /* --latency: receiving goes on that long after the last send */

static const char *const stop_names[] = { "none", "count", "duration", "signal" };

/* The TX lcore's context: read-only fields, then its single-writer counters. */
struct __rte_cache_aligned gen_lcore {
	uint16_t port_id;
	struct rte_mempool *pool;
	const struct uf_gen_tmpl *tmpl;
	uint64_t count;        /* UINT64_MAX: unbounded (the warm-up's datagrams included) */
	uint64_t duration_cyc; /* UINT64_MAX: unbounded (from the warm-up's end) */
	double burst_cyc;      /* cycles from one burst to the next; 0: flood */
	uint64_t warm;         /* --warmup, a whole number of bursts; 0: none */
	double warm_cyc;       /* the warm-up's cycles from one burst to the next */
	uint16_t burst;
	uint16_t flows;
	uint16_t nb_queues; /* > 1: each burst one flow, flow f on TX queue f % nb_queues */
	struct rte_ether_addr mac;
	rte_be32_t ip;
	/* --latency: the datagrams that come back to our address, with their latency; NULL
	 * otherwise. Written by this lcore only, read by main after `done`. */
	struct uf_sink_count *back;
	uint64_t stall_cyc; /* --stall-us in cycles */

	struct __rte_cache_aligned {
		uint64_t sent;       /* accepted by tx_burst: frames 0 .. sent-1 */
		uint64_t tx_full;    /* refused by tx_burst, sent again on the next pass */
		uint64_t alloc_fail; /* bursts delayed for want of mbufs */
		uint64_t pacing_resets;
		uint64_t rx; /* frames received (ARP, ICMP errors from the target, anything) */
		uint64_t arp_replies;
		uint64_t icmp_replies;
		uint64_t unsent_at_stop; /* built, refused, still held when we stopped: not sent */
		uint64_t warm_sent;      /* frames 0 .. warm_sent-1 were the warm-up */
		uint64_t cyc;            /* from the first measured pass to the stop */
		uint64_t max_gap;        /* cycles: the longest loop pass */
		uint64_t stalls;         /* --latency: receives after more than stall_cyc away */
		uint64_t stalled_cyc;    /* their time away, summed */
		uint64_t last_rx;        /* this lcore's: when its previous receive began */
		uint32_t stop;           /* enum stop_reason */
		uint32_t done;           /* the loop has returned */
	} c;
};

static int quit;

static void
on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&quit, 1, __ATOMIC_RELAXED);
}

/* --latency: an IPv4/UDP datagram to our address, or from it (our own frame sent back
 * unchanged, as testpmd's io mode does on one port), is accounted (sequence, latency) in
 * lc->back under its destination; true if it was one. No VLAN, options allowed. */
static bool
take_back(struct gen_lcore *lc, const struct rte_mbuf *m, uint64_t now)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip, *udp;
	uint16_t ihl, ulen;
	rte_be32_t dip, sip;

	if (lc->back == NULL || m->data_len < UF_HDR_LEN || f[12] != 0x08 || f[13] != 0x00)
		return false;
	ip = f + RTE_ETHER_HDR_LEN;
	ihl = (uint16_t)((ip[0] & 0x0f) * 4);
	if ((ip[0] >> 4) != 4 || ihl < 20 || ip[9] != IPPROTO_UDP ||
	    m->data_len < RTE_ETHER_HDR_LEN + ihl + 8)
		return false;
	memcpy(&dip, ip + 16, 4);
	memcpy(&sip, ip + 12, 4);
	if (dip != lc->ip && sip != lc->ip)
		return false;
	udp = ip + ihl;
	ulen = (uint16_t)(udp[4] << 8 | udp[5]);
	if (ulen < 8 || RTE_ETHER_HDR_LEN + ihl + ulen > m->data_len)
		return false;
	{
		rte_be16_t sport, dport;

		memcpy(&sport, udp, 2);
		memcpy(&dport, udp + 2, 2);
		uf_sink_account(lc->back, dip, dport, sip, sport, udp + 8, ulen - 8u, now);
	}
	return true;
}

/* ARP requests for us get answered, datagrams back to us accounted (--latency); everything
 * else is counted and freed. now: this pass's TSC. */
static void
poll_rx(struct gen_lcore *lc, uint64_t now)
{
	struct rte_mbuf *pkts[UF_MAX_BURST], *ans[UF_MAX_BURST], *drop[UF_MAX_BURST];
	uint16_t n, i, n_ans = 0, n_drop = 0, k;

	if (lc->back != NULL) {
		/* away from the ring longer than --stall-us (off the CPU, mostly): what this
		 * receive takes in may have waited for us, so its delays are not only the
		 * forwarder's (kept out of latency_gen_unstalled) */
		const uint64_t away = now - lc->c.last_rx;

		lc->back->gen_stalled = away > lc->stall_cyc;
		if (unlikely(lc->back->gen_stalled)) {
			lc->c.stalls++;
			lc->c.stalled_cyc += away;
		}
		lc->c.last_rx = now;
	}
	n = rte_eth_rx_burst(lc->port_id, 0, pkts, UF_MAX_BURST);
	if (n == 0)
		return;
	for (i = 0; i < n; i++) {
		if (take_back(lc, pkts[i], rte_rdtsc())) {
			drop[n_drop++] = pkts[i];
		} else if (uf_tool_arp_answer(pkts[i], &lc->mac, lc->ip)) {
			ans[n_ans++] = pkts[i];
			lc->c.arp_replies++;
		} else if (uf_tool_icmp_answer(pkts[i], &lc->mac, lc->ip)) {
			ans[n_ans++] = pkts[i];
			lc->c.icmp_replies++;
		} else {
			drop[n_drop++] = pkts[i];
		}
	}
	UF_STORE(&lc->c.rx, lc->c.rx + n);
	if (n_drop != 0)
		rte_pktmbuf_free_bulk(drop, n_drop);
	if (n_ans != 0) {
		k = rte_eth_tx_burst(lc->port_id, 0, ans, n_ans);
		if (k < n_ans)
			rte_pktmbuf_free_bulk(&ans[k], n_ans - k);
	}
}

static int
gen_loop(void *arg)
{
	struct gen_lcore *lc = arg;
	const uint16_t port = lc->port_id;
	const uint16_t burst = lc->burst;
	const uint16_t flows = lc->flows;
	const uint64_t count = lc->count;
	const uint64_t hz = rte_get_tsc_hz();
	/* --latency polls RX on every pass: a returned datagram waits for nothing of ours */
	const uint64_t rx_every = lc->back != NULL ? 0 : hz / (1000000 / RX_POLL_US);
	const double max_lag = (double)hz * MAX_LAG_MS / 1000;
	const struct uf_gen_tmpl *const t = lc->tmpl;
	const uint16_t frame_len = t->frame_len;
	struct rte_mbuf *pend[UF_MAX_BURST];
	uint64_t now, prev, start, end, next_rx, seq = 0, sent = 0, tx_full = 0, max_gap = 0;
	const uint16_t nq = lc->nb_queues;
	uint16_t n_pend = 0, off = 0, flow = 0, bflow = 0, txq = 0, i, k;
	enum stop_reason stop = STOP_SIGNAL;
	/* --warmup: its datagrams first, at their own pace; the duration runs from its end */
	bool warming = lc->warm != 0;
	double burst_cyc = warming ? lc->warm_cyc : lc->burst_cyc, due;

	start = rte_rdtsc();
	end = lc->duration_cyc == UINT64_MAX || warming ? UINT64_MAX : start + lc->duration_cyc;
	next_rx = start;
	due = (double)start;
	prev = start;
	lc->c.last_rx = start;
	while (likely(!__atomic_load_n(&quit, __ATOMIC_RELAXED))) {
		now = rte_rdtsc();
		/* the longest pass: how long this lcore was kept off its CPU (or in a syscall
		 * of the PMD's) at worst */
		if (unlikely(now - prev > max_gap))
			max_gap = now - prev;
		prev = now;
		if (unlikely(now >= end)) {
			stop = STOP_DURATION;
			break;
		}
		if (unlikely(now >= next_rx)) {
			poll_rx(lc, now);
			next_rx = now + rx_every;
		}
		if (unlikely(warming) && n_pend == 0 && seq >= lc->warm) {
			/* the warm-up's copies back (or lost: they count as any other), then the
			 * measured datagrams at their pace, the clock of the duration started */
			const uint64_t until = now + hz * WARM_PAUSE_MS / 1000;

			while (rte_rdtsc() < until && !__atomic_load_n(&quit, __ATOMIC_RELAXED))
				poll_rx(lc, rte_rdtsc());
			UF_STORE(&lc->c.warm_sent, seq);
			lc->c.stalls = 0; /* the measured copies' stalls only */
			lc->c.stalled_cyc = 0;
			warming = false;
			burst_cyc = lc->burst_cyc;
			start = prev = rte_rdtsc();
			end = lc->duration_cyc == UINT64_MAX ? UINT64_MAX
							     : start + lc->duration_cyc;
			due = (double)start;
			continue;
		}
		if (n_pend == 0) {
			uint16_t n = burst;

			if (unlikely(seq >= count)) {
				stop = STOP_COUNT;
				break;
			}
			if (burst_cyc > 0) {
				if ((double)now < due)
					continue;
				due += burst_cyc;
				if (unlikely((double)now - due > max_lag)) {
					/* descheduled or slower than asked: no catch-up train */
					due = (double)now;
					UF_STORE(&lc->c.pacing_resets, lc->c.pacing_resets + 1);
				}
			}
			if (count - seq < n)
				n = (uint16_t)(count - seq);
			if (unlikely(rte_pktmbuf_alloc_bulk(lc->pool, pend, n) != 0)) {
				UF_STORE(&lc->c.alloc_fail, lc->c.alloc_fail + 1);
				continue;
			}
			if (nq > 1) {
				/* as RSS would: one flow per burst, a flow always on one queue */
				flow = bflow;
				txq = (uint16_t)(bflow % nq);
				if (++bflow == flows)
					bflow = 0;
			}
			for (i = 0; i < n; i++) {
				struct rte_mbuf *m = pend[i];

				uf_gen_write(rte_pktmbuf_mtod(m, uint8_t *), t, seq++, flow);
				m->data_len = frame_len;
				m->pkt_len = frame_len;
				if (nq == 1 && ++flow == flows)
					flow = 0;
			}
			if (t->stamp_off != 0) {
				const uint64_t ts = rte_rdtsc(); /* as close to TX as it gets */

				for (i = 0; i < n; i++)
					uf_gen_stamp(rte_pktmbuf_mtod(pend[i], uint8_t *), t, ts);
			}
			n_pend = n;
			off = 0;
		}
		k = rte_eth_tx_burst(port, txq, &pend[off], n_pend);
		off += k;
		n_pend -= k;
		sent += k;
		tx_full += n_pend;
		UF_STORE(&lc->c.sent, sent);
		UF_STORE(&lc->c.tx_full, tx_full);
	}
	now = rte_rdtsc();
	if (n_pend != 0) {
		/* the highest sequence numbers: `sent` stays the gapless count */
		rte_pktmbuf_free_bulk(&pend[off], n_pend);
		UF_STORE(&lc->c.unsent_at_stop, n_pend);
	}
	if (lc->back != NULL) {
		/* what is still on its way back: BACK_DRAIN_MS more of receiving */
		const uint64_t until = rte_rdtsc() + hz * BACK_DRAIN_MS / 1000;

		while (rte_rdtsc() < until)
			poll_rx(lc, rte_rdtsc());
	}
	UF_STORE(&lc->c.cyc, now - start);
	UF_STORE(&lc->c.max_gap, max_gap);
	UF_STORE(&lc->c.stop, (uint32_t)stop);
	__atomic_store_n(&lc->c.done, 1, __ATOMIC_RELEASE);
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --dev DEVICE --ip A.B.C.D/LEN --dst IP:PORT\n"
		"                  (--duration S | --count N) [options] [-- EAL args]\n"
		"\n"
		"  --dev DEVICE       PCI address or vdev (net_af_xdp0,iface=src0,busy_budget=0)\n"
		"  --ip A.B.C.D/LEN   our address (answers ARP for it) and subnet\n"
		"  --dst IP:PORT      where the datagrams go\n"
		"  --dst-mac MAC      the next hop's MAC (default: ARP for the target, or for\n"
		"                     --gateway when the target is off-subnet)\n"
		"  --gateway IP       next hop for an off-subnet target\n"
		"  --rate PPS         datagrams per second, 0 (default): as fast as possible\n"
		"  --burst N          1..64 (default 64): frames per tick, back to back; 1 paces\n"
		"                     every frame\n"
		"  --flows N          source ports sport..sport+N-1, round-robin (default 1)\n"
		"  --sport P          first source port (default 40000)\n"
		"  --size BYTES       UDP payload, 8..1472 (default 32): u64 LE sequence number,\n"
		"                     then filler; frames shorter than 60 bytes are padded\n"
		"  --netflow-v5       a 24-byte NetFlow v5 header (count 0, flow_sequence =\n"
		"                     the sequence number) before the sequence number, as\n"
		"                     nfacctd's tee accepts it (--size default 32 still)\n"
		"  --stamp            the TX time (TSC, u64 LE) after the sequence number, for\n"
		"                     udpfan-sink --latency (same host)\n"
		"  --latency          --stamp, and account the datagrams that come back to --ip\n"
		"                     (the forwarder sends its copies to us): per destination\n"
		"                     port, losses and latency p50/p99/p99.9, one clock, one\n"
		"                     process (docs/benchmarks.md#latency)\n"
		"  --warmup N         with --latency: N datagrams first (rounded up to whole\n"
		"                     bursts), paced at 100,000 pps or --rate if higher, then\n"
		"                     20 ms, then the measured ones (--duration and --count\n"
		"                     count from there). Their copies are accounted as any\n"
		"                     other; their latency is reported apart (warmup_latency):\n"
		"                     a memif ring's first pass touches fresh pages\n"
		"  --stall-us US      with --latency (default 5): a receive more than US us\n"
		"                     after the previous one (this lcore off its CPU) is a\n"
		"                     stall; the copies it takes in are left out of\n"
		"                     latency_gen_unstalled (the delay is partly ours)\n"
		"  --duration S       stop after S seconds\n"
		"  --count N          stop after N datagrams (whichever comes first)\n"
		"  --lcores L         main lcore, then the TX lcore (default 0,1)\n"
		"  --file-prefix P    EAL file prefix (default udpfan-gen)\n"
		"  --in-memory        EAL --in-memory\n"
		"  --no-huge          EAL --no-huge (ring/pcap vdevs)\n"
		"  --json PATH        also write the summary there\n"
		"  --ready FILE       create FILE once sending has begun\n"
		"  --hold MS          after the summary, keep the port open (not polled) until its\n"
		"                     link goes down or MS ms pass (memif: let the peer close first)\n"
		"  --queues N         TX queues (1..8, default 1); N > 1: each burst is one flow,\n"
		"                     flow f always on queue f %% N (as RSS would spread them)\n"
		"  --linger MS        keep the port open MS ms after the last frame (default 100):\n"
		"                     a memif peer must read the rings before they go\n"
		"  --start-after FILE wait (up to 60 s) for FILE to exist before ARP and sending:\n"
		"                     the port is up meanwhile (a vhost-user/memif peer that\n"
		"                     must connect before the forwarder can start)\n"
		"\n"
		"Prints one JSON summary on stdout. Exit codes: 0 done, 2 usage, 3 environment\n"
		"(EAL, device, no ARP answer), 1 other.\n");
}

static int
parse_dst(const char *s, rte_be32_t *ip, uint16_t *port)
{
	char buf[32];
	const char *colon = strrchr(s, ':');
	uint64_t p;

	if (colon == NULL || (size_t)(colon - s) >= sizeof(buf))
		return -1;
	memcpy(buf, s, colon - s);
	buf[colon - s] = '\0';
	if (uf_parse_ipv4(buf, ip) != 0 || uf_tool_parse_u64(colon + 1, &p) != 0 || p == 0 ||
	    p > 65535)
		return -1;
	*port = (uint16_t)p;
	return 0;
}

static int
parse_args(int argc, char **argv, struct gen_opts *o)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "ip", required_argument, NULL, 'i' },
		{ "dst", required_argument, NULL, 'D' },
		{ "dst-mac", required_argument, NULL, 'M' },
		{ "gateway", required_argument, NULL, 'g' },
		{ "rate", required_argument, NULL, 'r' },
		{ "burst", required_argument, NULL, 'b' },
		{ "flows", required_argument, NULL, 'f' },
		{ "sport", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 't' },
		{ "count", required_argument, NULL, 'n' },
		{ "netflow-v5", no_argument, NULL, 'N' },
		{ "stamp", no_argument, NULL, 'S' },
		{ "latency", no_argument, NULL, 'Y' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "stall-us", required_argument, NULL, 'U' },
		{ "start-after", required_argument, NULL, 'A' },
		{ "queues", required_argument, NULL, 'Q' },
		{ "linger", required_argument, NULL, 'L' },
		UF_TOOL_LONGOPTS,
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool has_ip = false, has_dst = false;
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		int taken = uf_tool_opt(c, optarg, &o->t);

		if (taken < 0)
			return UF_EXIT_CONFIG;
		if (taken > 0)
			continue;
		switch (c) {
		case 'd':
			o->t.eal.dev = optarg;
			break;
		case 'i':
			if (uf_parse_ipv4_prefix(optarg, &o->ip, &o->prefix_len) != 0 ||
			    o->prefix_len == 0 || o->prefix_len > 31)
				return uf_tool_usage_err(
						"--ip: \"%s\" is not A.B.C.D/LEN with LEN 1..31",
						optarg);
			has_ip = true;
			break;
		case 'D':
			if (parse_dst(optarg, &o->dst_ip, &o->dst_port) != 0)
				return uf_tool_usage_err(
						"--dst: \"%s\" is not IP:PORT (198.18.0.21:6000)",
						optarg);
			has_dst = true;
			break;
		case 'M':
			if (uf_parse_mac(optarg, &o->dst_mac) != 0 ||
			    !rte_is_unicast_ether_addr(&o->dst_mac))
				return uf_tool_usage_err("--dst-mac: \"%s\" is not a unicast MAC",
							 optarg);
			o->has_dst_mac = true;
			break;
		case 'g':
			if (uf_parse_ipv4(optarg, &o->gateway) != 0)
				return uf_tool_usage_err("--gateway: \"%s\" is not an IPv4 address",
							 optarg);
			o->has_gateway = true;
			break;
		case 'r':
			if (uf_tool_parse_double(optarg, &o->rate) != 0 || o->rate > 1e9)
				return uf_tool_usage_err(
						"--rate: \"%s\" is not a rate in datagrams per second "
						"(0: as fast as possible)",
						optarg);
			break;
		case 'b':
			if (uf_tool_parse_u64(optarg, &v) != 0 || v < 1 || v > UF_MAX_BURST)
				return uf_tool_usage_err("--burst: \"%s\" is not 1..64", optarg);
			o->burst = (uint16_t)v;
			break;
		case 'f':
			if (uf_tool_parse_u64(optarg, &v) != 0 || v < 1 || v > 65535)
				return uf_tool_usage_err("--flows: \"%s\" is not 1..65535", optarg);
			o->flows = (uint32_t)v;
			break;
		case 'p':
			if (uf_tool_parse_u64(optarg, &v) != 0 || v < 1 || v > 65535)
				return uf_tool_usage_err("--sport: \"%s\" is not a port 1..65535",
							 optarg);
			o->sport = (uint16_t)v;
			break;
		case 's':
			if (uf_tool_parse_u64(optarg, &v) != 0 || v < UF_GEN_MIN_PAYLOAD ||
			    v > UF_GEN_MAX_PAYLOAD)
				return uf_tool_usage_err(
						"--size: \"%s\" is not a payload size 8..1472",
						optarg);
			o->size = (uint16_t)v;
			o->size_given = true;
			break;
		case 'N':
			o->netflow_v5 = true;
			break;
		case 'S':
			o->stamp = true;
			break;
		case 'Y':
			o->latency = true;
			o->stamp = true;
			break;
		case 'W':
			if (uf_tool_parse_u64(optarg, &o->warmup) != 0 || o->warmup > 100000000)
				return uf_tool_usage_err("--warmup: \"%s\" is not 0..100000000 "
							 "datagrams",
							 optarg);
			break;
		case 'U':
			if (uf_tool_parse_double(optarg, &o->stall_us) != 0 ||
			    !(o->stall_us >= 0.1) || o->stall_us > 1e6)
				return uf_tool_usage_err(
						"--stall-us: \"%s\" is not 0.1..1000000 us",
						optarg);
			break;
		case 't':
			if (uf_tool_parse_double(optarg, &o->duration) != 0 || !(o->duration > 0) ||
			    o->duration > 1e6)
				return uf_tool_usage_err(
						"--duration: \"%s\" is not a number of seconds > 0",
						optarg);
			break;
		case 'n':
			if (uf_tool_parse_u64(optarg, &o->count) != 0 || o->count == 0)
				return uf_tool_usage_err("--count: \"%s\" is not a count >= 1",
							 optarg);
			break;
		case 'A':
			o->start_after = optarg;
			break;
		case 'L':
			if (uf_tool_parse_u64(optarg, &v) != 0 || v > 60000)
				return uf_tool_usage_err("--linger: \"%s\" is not 0..60000 ms",
							 optarg);
			o->linger_ms = (uint32_t)v;
			break;
		case 'Q':
			if (uf_tool_parse_u64(optarg, &v) != 0 || v == 0 || v > UF_TOOL_MAX_QUEUES)
				return uf_tool_usage_err("--queues: \"%s\" is not 1..8", optarg);
			o->queues = (uint16_t)v;
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
	if (o->t.eal.dev == NULL)
		return uf_tool_usage_err("%s", "--dev is required");
	if (!has_ip)
		return uf_tool_usage_err("%s", "--ip A.B.C.D/LEN is required");
	if (!has_dst)
		return uf_tool_usage_err("%s", "--dst IP:PORT is required");
	{
		const struct uf_gen_spec l = { .netflow_v5 = o->netflow_v5, .stamp = o->stamp };

		if (!o->size_given && o->size < uf_gen_min_payload(&l))
			o->size = uf_gen_min_payload(&l);
		if (o->size < uf_gen_min_payload(&l)) {
			char m[96];

			snprintf(m, sizeof(m), "--size %u is below %u, the smallest payload",
				 o->size, uf_gen_min_payload(&l));
			return uf_tool_usage_err("%s with --netflow-v5/--stamp", m);
		}
	}
	if (o->duration == 0 && o->count == 0)
		return uf_tool_usage_err("%s",
					 "give --duration or --count (or both): runs are bounded");
	if (o->warmup != 0 && !o->latency)
		return uf_tool_usage_err("%s", "--warmup goes with --latency");
	if ((uint32_t)o->sport + o->flows - 1 > 65535)
		return uf_tool_usage_err("%s", "--sport + --flows - 1 is beyond port 65535");
	if (o->rate > 0 && o->rate < 1.0 * o->burst / 100)
		fprintf(stderr,
			PROG ": note: at --rate below burst/100 bursts are > 100 s apart\n");
	return 0;
}

static bool
same_subnet(rte_be32_t a, rte_be32_t b, uint8_t len)
{
	const uint32_t mask = len == 0 ? 0 : ~UINT32_C(0) << (32 - len);

	return (rte_be_to_cpu_32(a) & mask) == (rte_be_to_cpu_32(b) & mask);
}

static int
fail(const struct uf_err *err)
{
	fprintf(stderr, PROG ": error: %s\n", err->msg);
	return err->code != 0 ? err->code : UF_EXIT_OTHER;
}

static void
summary(FILE *f, const struct gen_opts *o, const struct gen_lcore *lc,
	const struct uf_tool_port *port, const struct uf_gen_tmpl *t,
	const struct rte_ether_addr *next_mac)
{
	const double secs = (double)lc->c.cyc / (double)rte_get_tsc_hz();
	const uint64_t measured = lc->c.sent - lc->c.warm_sent;
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];

	/* sent: every datagram, the warm-up's included; seconds and pps: the measured ones */
	fprintf(f,
		"{\"sent\": %" PRIu64 ", \"warmup\": %" PRIu64 ", \"tx_full_retries\": %" PRIu64
		", \"seconds\": %.6f, \"pps\": %.1f, ",
		lc->c.sent, lc->c.warm_sent, lc->c.tx_full, secs,
		secs > 0 ? (double)measured / secs : 0.0);
	if (lc->c.sent > 0)
		fprintf(f, "\"first_seq\": 0, \"last_seq\": %" PRIu64 ", ", lc->c.sent - 1);
	else
		fprintf(f, "\"first_seq\": null, \"last_seq\": null, ");
	fprintf(f,
		"\"burst\": %u, \"flows\": %u, \"size\": %u, \"frame_len\": %u, \"rate\": %.1f, "
		"\"netflow_v5\": %s, \"stamp\": %s, \"tsc_hz\": %" PRIu64 ", "
		"\"src\": \"%s:%u\", \"dst\": \"%s:%u\", \"next_hop_mac\": \"" RTE_ETHER_ADDR_PRT_FMT
		"\", \"stopped_by\": \"%s\", \"unsent_at_stop\": %" PRIu64
		", \"alloc_failures\": %" PRIu64 ", \"pacing_resets\": %" PRIu64
		", \"loop_max_gap_us\": %.1f, \"rx\": %" PRIu64 ", \"arp_replies\": %" PRIu64
		", \"icmp_replies\": %" PRIu64 ", \"port\": ",
		o->burst, o->flows, o->size, t->frame_len, o->rate,
		o->netflow_v5 ? "true" : "false", o->stamp ? "true" : "false", rte_get_tsc_hz(),
		uf_ip_str(o->ip, a), o->sport, uf_ip_str(o->dst_ip, b), o->dst_port,
		RTE_ETHER_ADDR_BYTES(next_mac), stop_names[lc->c.stop], lc->c.unsent_at_stop,
		lc->c.alloc_fail, lc->c.pacing_resets,
		1e6 * (double)lc->c.max_gap / (double)rte_get_tsc_hz(), lc->c.rx, lc->c.arp_replies,
		lc->c.icmp_replies);
	uf_tool_port_json(f, port);
	if (lc->back != NULL) {
		const struct uf_sink_count *b = lc->back;
		struct uf_lat_hist *all = calloc(1, sizeof(*all));
		struct uf_seq_expect e = { 0 };
		char addr[32];
		uint32_t i;

		/* every copy of frames 0 .. sent-1 should come back: a lost tail counts */
		if (lc->c.sent > 0) {
			e.has_first = e.has_last = true;
			e.last = lc->c.sent - 1;
		}
		fprintf(f, ", \"returned\": {\"destinations\": {");
		for (i = 0; i < b->n_dests; i++) {
			uf_sink_addr_str(b->dests[i].ip, b->dests[i].port, addr, sizeof(addr));
			fprintf(f, "%s\"%s\": ", i == 0 ? "" : ", ", addr);
			uf_sink_dest_json(f, &b->dests[i], &e, (double)rte_get_tsc_hz());
			if (all != NULL)
				uf_lat_merge(all, b->dests[i].lat);
		}
		fprintf(f, "}, \"untracked\": %" PRIu64 ", \"latency\": ", b->dest_overflow);
		if (all != NULL)
			uf_lat_json(f, all, (double)rte_get_tsc_hz());
		else
			fprintf(f, "null");
		/* the warm-up's copies (--warmup), kept out of "latency" and of each
		 * destination's */
		fprintf(f, ", \"warmup_latency\": ");
		uf_lat_json(f, b->warm, (double)rte_get_tsc_hz());
		/* the measured copies again, less those a stalled receive took in */
		fprintf(f,
			", \"gen_stalls\": {\"stall_us\": %.1f, \"count\": %" PRIu64
			", \"away_ms\": %.3f}, \"latency_gen_unstalled\": ",
			o->stall_us, lc->c.stalls,
			1e3 * (double)lc->c.stalled_cyc / (double)rte_get_tsc_hz());
		uf_lat_json(f, b->unstalled, (double)rte_get_tsc_hz());
		fprintf(f, "}");
		free(all);
	}
	fprintf(f, "}\n");
}

int
main(int argc, char **argv)
{
	struct gen_opts o = {
		.rate = 0,
		.burst = UF_MAX_BURST,
		.flows = 1,
		.sport = 40000,
		.size = 32,
		.linger_ms = 100,
		.stall_us = 5,
		.t.eal = { .lcores = "0,1", .file_prefix = PROG },
	};
	static struct uf_gen_tmpl tmpl;
	static struct gen_lcore lc;
	struct uf_sink_count *back = NULL;
	struct uf_tool_port port = { 0 };
	struct uf_gen_spec spec;
	struct uf_err err = { 0 };
	struct rte_ether_addr next_mac;
	char line[2048], ipa[INET_ADDRSTRLEN], ipb[INET_ADDRSTRLEN], *buf = NULL;
	struct rte_mbuf *none[1];
	unsigned int tx_lcore;
	size_t blen = 0;
	FILE *mem;
	int rc, ret;

	uf_tool_name = PROG;
	rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc;
	if (!o.has_dst_mac && !same_subnet(o.ip, o.dst_ip, o.prefix_len) && !o.has_gateway) {
		fprintf(stderr,
			PROG ": error: --dst %s is not on --ip's subnet: give --gateway or "
			     "--dst-mac\n",
			uf_ip_str(o.dst_ip, ipa));
		return UF_EXIT_CONFIG;
	}
	if (o.has_gateway && !same_subnet(o.ip, o.gateway, o.prefix_len)) {
		fprintf(stderr, PROG ": error: --gateway %s is not on --ip's subnet\n",
			uf_ip_str(o.gateway, ipa));
		return UF_EXIT_CONFIG;
	}

	o.t.eal.n_extra = argc - optind;
	o.t.eal.extra = argv + optind;
	if (uf_tool_eal_init(&o.t.eal, &err, line, sizeof(line)) != 0)
		return fail(&err);
	UF_TOOL_LOG(INFO, "EAL: %s", line);
	if (o.latency) {
		/* as udpfan and testpmd: a memif client's regions, mapped at its connect, are then
		 * populated there, not a page fault at a time on the first pass of the receives
		 * being timed (docs/benchmarks.md#latency) */
		int lr = uf_env_lock_memory();

		if (lr != 0 && lr != -ENOTSUP)
			fprintf(stderr,
				PROG
				": note: mlockall() failed (%s): the first pass over a memif "
				"ring's pages faults in the timed loop (CAP_IPC_LOCK, ulimit -l)\n",
				strerror(-lr));
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	rc = UF_EXIT_OK;
	if (uf_tool_port_open_mq(&port, o.t.eal.dev, o.queues != 0 ? o.queues : 1, RXD, TXD,
				 &err) != 0) {
		rc = fail(&err);
		goto out;
	}
	if (o.start_after != NULL) {
		unsigned int waited = 0;

		while (access(o.start_after, F_OK) != 0 &&
		       !__atomic_load_n(&quit, __ATOMIC_RELAXED)) {
			if (waited++ >= START_AFTER_MAX_MS / 10) {
				uf_err_set(&err, UF_EXIT_ENV,
					   "--start-after %s: not there after %u s", o.start_after,
					   START_AFTER_MAX_MS / 1000);
				rc = fail(&err);
				goto out;
			}
			rte_delay_us_sleep(10 * 1000);
		}
	}
	if (o.has_dst_mac) {
		next_mac = o.dst_mac;
	} else {
		rte_be32_t hop = same_subnet(o.ip, o.dst_ip, o.prefix_len) ? o.dst_ip : o.gateway;

		ret = uf_tool_arp_resolve(&port, o.ip, hop, ARP_TRIES, ARP_INTERVAL_MS, &next_mac);
		if (ret != 0) {
			if (ret == -ETIMEDOUT)
				uf_err_set(&err, UF_EXIT_ENV,
					   "%s%s did not answer ARP (%u requests, "
					   "%u ms apart, from %s on %s); is it up on this segment? "
					   "(or give --dst-mac)",
					   uf_ip_str(hop, ipa),
					   hop == o.dst_ip ? "" : " (the gateway)", ARP_TRIES,
					   ARP_INTERVAL_MS, uf_ip_str(o.ip, ipb), o.t.eal.dev);
			else
				uf_err_set(&err, UF_EXIT_ENV, "ARP: %s", rte_strerror(-ret));
			rc = fail(&err);
			goto out;
		}
	}
	if (__atomic_load_n(&quit, __ATOMIC_RELAXED))
		goto out;

	spec = (struct uf_gen_spec){
		.src_mac = port.mac,
		.dst_mac = next_mac,
		.src_ip = o.ip,
		.dst_ip = o.dst_ip,
		.sport = o.sport,
		.dport = o.dst_port,
		.payload = o.size,
		.netflow_v5 = o.netflow_v5,
		.stamp = o.stamp,
	};
	if (uf_gen_tmpl_build(&tmpl, &spec) != 0) {
		uf_err_set(&err, UF_EXIT_CONFIG, "--size %u is out of range", o.size);
		rc = fail(&err);
		goto out;
	}
	lc.port_id = port.port_id;
	lc.pool = port.pool;
	lc.tmpl = &tmpl;
	lc.burst_cyc = o.rate > 0 ? (double)o.burst * (double)rte_get_tsc_hz() / o.rate : 0;
	lc.warm = (o.warmup + o.burst - 1) / o.burst * o.burst;
	lc.warm_cyc = (double)o.burst * (double)rte_get_tsc_hz() /
		      RTE_MAX(o.rate, (double)WARM_PPS);
	lc.count = o.count != 0 ? o.count + lc.warm : UINT64_MAX;
	lc.duration_cyc = o.duration > 0 ? (uint64_t)(o.duration * (double)rte_get_tsc_hz())
					 : UINT64_MAX;
	lc.burst = o.burst;
	lc.flows = (uint16_t)o.flows;
	lc.nb_queues = port.nb_queues;
	lc.mac = port.mac;
	lc.ip = o.ip;
	if (o.latency) {
		back = calloc(1, sizeof(*back));
		if (back == NULL || uf_sink_count_init(back, UF_SINK_MAX_DESTS, 20) != 0 ||
		    uf_sink_count_lat(back, (double)rte_get_tsc_hz()) != 0) {
			uf_err_set(&err, UF_EXIT_OTHER, "out of memory for --latency's tables");
			rc = fail(&err);
			goto out;
		}
		back->seq_off = tmpl.seq_off;
		back->warm_seq = lc.warm;
		lc.stall_cyc = (uint64_t)(o.stall_us * 1e-6 * (double)rte_get_tsc_hz());
		lc.back = back;
	}

	tx_lcore = rte_get_next_lcore(-1, 1, 0);
	UF_TOOL_LOG(INFO,
		    "sending to %s:%u via " RTE_ETHER_ADDR_PRT_FMT " from lcore %u: %s "
		    "pps, bursts of %u, %u flow(s), %u-byte payload",
		    uf_ip_str(o.dst_ip, ipa), o.dst_port, RTE_ETHER_ADDR_BYTES(&next_mac), tx_lcore,
		    o.rate > 0 ? "paced" : "unpaced", o.burst, o.flows, o.size);
	ret = rte_eal_remote_launch(gen_loop, &lc, tx_lcore);
	if (ret != 0) {
		uf_err_set(&err, UF_EXIT_OTHER, "cannot launch the TX lcore %u: %s", tx_lcore,
			   rte_strerror(-ret));
		rc = fail(&err);
		goto out;
	}
	if (o.t.ready != NULL) {
		while (UF_LOAD(&lc.c.sent) == 0 && !__atomic_load_n(&lc.c.done, __ATOMIC_ACQUIRE))
			rte_delay_us_sleep(1000);
		ret = uf_tool_touch(o.t.ready);
		if (ret != 0)
			UF_TOOL_LOG(WARNING, "--ready %s: %s", o.t.ready, strerror(-ret));
	}
	/* rte_eal_wait_lcore spins: sleep instead, the main lcore may share a CPU with a sink */
	while (!__atomic_load_n(&lc.c.done, __ATOMIC_ACQUIRE))
		rte_delay_us_sleep(5000);
	rte_eal_wait_lcore(tx_lcore);

	/* the queues are ours again: kick out what the PMD still holds, then let it land (a
	 * memif client owns the rings' memory: what the peer has not read when it goes is
	 * lost, docs/pmd-quirks.md) */
	rte_eth_tx_burst(port.port_id, 0, none, 0);
	rte_delay_us_sleep((uint64_t)o.linger_ms * 1000);

	mem = open_memstream(&buf, &blen);
	if (mem == NULL) {
		uf_err_set(&err, UF_EXIT_OTHER, "open_memstream: %s", strerror(errno));
		rc = fail(&err);
		goto out;
	}
	summary(mem, &o, &lc, &port, &tmpl, &next_mac);
	fclose(mem);
	fputs(buf, stdout);
	fflush(stdout);
	if (o.t.json != NULL && (ret = uf_tool_write_file(o.t.json, buf)) != 0) {
		uf_err_set(&err, UF_EXIT_OTHER, "--json %s: %s", o.t.json, strerror(-ret));
		rc = fail(&err);
	}
	if (rc == UF_EXIT_OK && lc.c.sent == 0 && lc.c.stop != STOP_SIGNAL) {
		uf_err_set(&err, UF_EXIT_OTHER,
			   "nothing was sent: the port refused every frame "
			   "(tx_full_retries %" PRIu64 ", alloc_failures %" PRIu64 ")",
			   lc.c.tx_full, lc.c.alloc_fail);
		rc = fail(&err);
	}
	free(buf);
	uf_tool_hold(&port, o.t.hold_ms);
out:
	if (back != NULL) {
		uf_sink_count_free(back);
		free(back);
	}
	uf_tool_port_close(&port);
	rte_eal_cleanup();
	return rc;
}
