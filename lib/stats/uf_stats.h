/* SPDX-License-Identifier: BSD-3-Clause
 * Stats snapshots: the sum of the workers' counters, the control plane's, and the ports' own
 * counters beside them (never folded in), taken by the control lcore once per interval and
 * rendered as the JSON line, the human line, the final ledger and the telemetry dict.
 */
#ifndef UF_STATS_H
#define UF_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ethdev.h>

#include "uf_counters.h"

#define UF_SNAP_XSTATS 32

/* An af_xdp port's sockets as the kernel counts them (uf_xsk_query, lib/port). */
struct uf_xsk_info {
	int n_sockets;
	int n_zerocopy;
	uint64_t rx_dropped;
	uint64_t rx_invalid;
	uint64_t rx_ring_full;
	uint64_t fill_ring_empty;
	uint64_t tx_invalid;
	uint64_t tx_ring_empty;
};

/* Written by the control lcore only. */
struct uf_ctl_ctr {
	uint64_t arp_requests_answered;
	uint64_t arp_replies_learned;
	uint64_t arp_requests_sent;
	uint64_t arp_gratuitous_sent;
	uint64_t arp_ignored; /* handed to control, then not for anything we track */
	uint64_t icmp_echo_answered;
	uint64_t icmp_rate_limited;
	uint64_t icmp_ignored;  /* other ICMP, or malformed echo */
	uint64_t ctl_nombuf;    /* no mbuf for a request we wanted to send */
	uint64_t ctl_ring_full; /* a reply or request the worker's ring could not take */
	uint64_t ctl_unhandled; /* handed to control, still in the ring when the workers stopped */
	uint64_t plan_updates;
};

struct uf_snap_port {
	char name[UF_NAME_MAX];
	char driver[32];
	bool link_up;
	bool stats_ok;
	struct rte_eth_stats st;
	int n_xstats;
	const char *xnames[UF_SNAP_XSTATS];
	uint64_t xvals[UF_SNAP_XSTATS];
	bool xvalid[UF_SNAP_XSTATS]; /* false: an implausible reading, reported as null */
	bool has_xsk;
	struct uf_xsk_info xsk;
	bool has_pktsock;
	int pktsock_n;
	uint64_t pktsock_packets;
	uint64_t pktsock_drops;
	char xdp_mode[64];
	char steering[160];
	uint64_t resets;
	uint64_t link_downs;      /* link down transitions since start */
	bool tx_stalled;          /* skipped: its TX made no progress (tx_drop.link_down) */
	uint64_t reset_retries;   /* rte_eth_dev_reset -EAGAIN, tried again */
	uint64_t fault_resets;    /* resets requested because a watched xstat rose */
	uint64_t rx_before_ready; /* discarded at start-up, not in fwd.rx */
};

struct uf_snap_dest {
	rte_be32_t ip;
	uint16_t udp_port;
	char port[UF_NAME_MAX];
	struct rte_ether_addr mac;
	const char *state; /* neighbour state, "static" or "multicast" */
	rte_be32_t next_hop;
	struct uf_dest_ctr c;
};

struct uf_snap_lcore {
	unsigned int lcore;
	uint64_t rx;
	uint64_t tx;
	uint64_t busy_cycles;
	uint64_t total_cycles;
};

struct uf_snap {
	double time;       /* wall clock, seconds since the epoch */
	double interval_s; /* since the previous snapshot */
	double uptime_s;
	bool final;
	uint64_t plan_version;
	uint64_t tsc_hz;
	struct uf_lcore_ctr tot;
	int n_lcores;
	struct uf_snap_lcore lc[UF_MAX_WORKERS];
	struct uf_ctl_ctr ctl;
	int n_ports;
	struct uf_snap_port ports[UF_MAX_PORTS];
	int n_dests;
	struct uf_snap_dest dests[UF_MAX_DESTS];
};

/* Sum src into dst (relaxed loads: the source is another lcore's live counter block). */
void uf_ctr_add(struct uf_lcore_ctr *dst, const struct uf_lcore_ctr *src);
void uf_dest_ctr_add(struct uf_dest_ctr *dst, const struct uf_dest_ctr *src);

/* One JSON object on one line (INTERFACE.md), newline included. */
void uf_stats_json(FILE *f, const struct uf_snap *s);

/* The human line: rates since prev (NULL: none yet). */
void uf_stats_line(char *buf, size_t len, const struct uf_snap *s, const struct uf_snap *prev);

/* The ledger identities. Returns true when they hold; `why` says which does not. */
bool uf_stats_ledger_ok(const struct uf_snap *s, char *why, size_t len);

/*
 * Everything lost that udpfan can see (docs/loss-accounting.md, "The summary"): its own
 * copy and frame losses (tx_drop by reason; the RX drops that are not filtering by design:
 * nombuf, ctl_overflow, too_big, no_neighbor and any reason not listed as filtering),
 * control frames it could not send, and per port what the NIC, the PMD and the kernel
 * socket report (imissed, ierrors, rx_nombuf, oerrors, AF_XDP ring drops, PACKET_STATISTICS
 * drops, drop/discard xstats). Fills up to max items, returns how many there are.
 */
struct uf_loss {
	char where[UF_NAME_MAX]; /* a port's name, or "udpfan" */
	char what[48];           /* "xsk.rx_ring_full", "tx_drop.link_down", ... */
	uint64_t n;
};
int uf_stats_losses(const struct uf_snap *s, struct uf_loss *out, int max);

/* The one-line verdict: "OK: ..." (returns true) only when the identities hold and nothing
 * was lost; else "MISMATCH: ..." or "LOSS: <where> <what> <n>, ...". */
bool uf_stats_summary(const struct uf_snap *s, char *buf, size_t len);

/* The final ledger as a small table, stage by stage. */
void uf_stats_ledger(FILE *f, const struct uf_snap *s);

/* 12,345,678 */
const char *uf_fmt_num(uint64_t v, char *buf, size_t len);

#endif /* UF_STATS_H */
