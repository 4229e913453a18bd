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
#include "uf_health.h"

#define UF_SNAP_XSTATS 32

/* An af_xdp port's sockets as the kernel counts them (uf_xsk_query, lib/port): the counters,
 * ports.<name>.xsk, X(field, help); struct uf_xsk_info below is generated from them */
#define UF_XSK_COUNTERS(X)                                                            \
	X(rx_dropped, "frames the AF_XDP sockets dropped (no buffer, other reasons)") \
	X(rx_invalid, "frames dropped for an invalid descriptor")                     \
	X(rx_ring_full, "frames dropped because a socket's RX ring was full")         \
	X(fill_ring_empty, "times the kernel found a fill ring empty")                \
	X(tx_invalid, "TX descriptors the kernel rejected")                           \
	X(tx_ring_empty, "times the kernel found a TX ring empty (normal when idle)")

#define UF_XSK_FIELD(f, h) uint64_t f;
struct uf_xsk_info {
	int n_sockets;
	int n_zerocopy;
	UF_XSK_COUNTERS(UF_XSK_FIELD)
};
#undef UF_XSK_FIELD

/* Written by the control lcore only (fields: UF_CTL_COUNTERS). */
#define UF_CTL_FIELD(obj, f, k, h) uint64_t f;
struct uf_ctl_ctr {
	UF_CTL_COUNTERS(UF_CTL_FIELD)
};
#undef UF_CTL_FIELD

/* A port's rte_eth_stats fields udpfan reports (p->st.<field>): X(field, help). */
#define UF_PORT_ETH_STATS(X)                                                 \
	X(ipackets, "frames the port received (rte_eth_stats)")              \
	X(opackets, "frames the port sent (rte_eth_stats)")                  \
	X(ibytes, "bytes the port received (rte_eth_stats)")                 \
	X(obytes, "bytes the port sent (rte_eth_stats)")                     \
	X(imissed, "frames the NIC or kernel dropped on RX (rte_eth_stats)") \
	X(ierrors, "erroneous frames received (rte_eth_stats)")              \
	X(oerrors, "failed transmissions (rte_eth_stats)")                   \
	X(rx_nombuf, "RX mbuf allocation failures (rte_eth_stats)")

/* udpfan's own per-port counters, the last keys of a port's object: X(field, help) a
 * counter, B(field, help) a 0/1 state (a bool field). */
#define UF_PORT_COUNTERS(X, B)                                                        \
	X(resets, "device resets handled")                                            \
	X(reset_retries, "resets the PMD called -EAGAIN and udpfan tried again")      \
	X(fault_resets, "resets requested because a reset-worthy xstat rose")         \
	X(rx_before_ready, "frames discarded at start-up, before the port was ready") \
	X(link_downs, "link down transitions")                                        \
	B(tx_stalled, "1 while the port is skipped for making no TX progress")

/* An af_packet port's socket counters, ports.<name>.pkt_socket: X(key, field, help) */
#define UF_PKTSOCK_COUNTERS(X)                                                                \
	X(packets, pktsock_packets, "frames the packet sockets received (PACKET_STATISTICS)") \
	X(drops, pktsock_drops, "frames the packet sockets' rings had no room for")

#define UF_PORT_CTR_FIELD(f, h) uint64_t f;
#define UF_PORT_BOOL_FIELD(f, h) bool f;

struct uf_snap_port {
	char name[UF_NAME_MAX];
	char driver[32];
	bool link_up;
	bool stats_ok;
	/* a VLAN alias (docs/configuration.md#vlans): the port whose device it shares, whose
	 * NIC counters are the device's; empty: none */
	char alias_of[UF_NAME_MAX];
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
	char rx_checksum[16]; /* the RX checksum offloads on: "ipv4,udp", ..., "none" */
	/* resets, reset_retries, fault_resets (requested because a watched xstat rose),
	 * rx_before_ready (discarded at start-up, not in fwd.rx), link_downs (since start),
	 * tx_stalled (skipped: its TX made no progress, tx_drop.link_down) */
	UF_PORT_COUNTERS(UF_PORT_CTR_FIELD, UF_PORT_BOOL_FIELD)
};

struct uf_snap_dest {
	rte_be32_t ip;
	uint16_t udp_port;
	char port[UF_NAME_MAX];
	struct rte_ether_addr mac;
	const char *state; /* neighbour state, "static" or "multicast" */
	rte_be32_t next_hop;
	/* an IPv6 destination: ip6 and next_hop6 (as text in the JSON), not ip and next_hop */
	bool is_ip6;
	struct uf_ip6 ip6, next_hop6;
	struct uf_dest_ctr c;
	/* a pool member: its pool's entry + 1 (docs/configuration.md#pools; 0: not a
	 * member), and the distinct senders it got in the last interval (estimated) */
	int pool;
	uint64_t senders;
};

/* A listener (docs/loss-accounting.md#per-listener-counters) */
struct uf_snap_lis {
	char name[UF_NAME_MAX];
	char port[UF_NAME_MAX];
	rte_be32_t ip;
	uint16_t udp_port;
	struct uf_lis_ctr c;
};

/* A worker's frames, lcores.<lcore id>: X(field, help) */
#define UF_SNAP_LCORE_COUNTERS(X)         \
	X(rx, "frames a worker received") \
	X(tx, "frames a worker sent (copies and control)")

struct uf_snap_lcore {
	unsigned int lcore;
	UF_SNAP_LCORE_COUNTERS(UF_PORT_CTR_FIELD)
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
	/* the last reload (docs/configuration.md#reload): "none", "applied", "refused" or
	 * "invalid"; why; and the config generation running (0: the one udpfan started with) */
	struct {
		char result[16];
		char reason[512];
		uint64_t generation;
		/* what destinations removed by reloads counted: with the listed ones', the
		 * fwd totals (docs/loss-accounting.md#per-destination-counters) */
		struct uf_dest_ctr removed;
	} reload;
	int n_listeners;
	struct uf_snap_lis listeners[UF_MAX_LISTENERS];
	/* the instance's state when the snapshot was taken (docs/deployment.md#health-and-
	 * drain) */
	struct uf_health health;
};

/* Sum src into dst (relaxed loads: the source is another lcore's live counter block). */
void uf_ctr_add(struct uf_lcore_ctr *dst, const struct uf_lcore_ctr *src);
void uf_dest_ctr_add(struct uf_dest_ctr *dst, const struct uf_dest_ctr *src);

/*
 * One counter or state of the schema, as the lists above define it. group names the list
 * (and the place in the stats object): "fwd", "fwd.drop", "fwd.tx_drop", "arp", "icmp",
 * "control", "port.stats", "port", "port.xsk", "port.pkt_socket", "lcore", "destination",
 * "listener".
 */
struct uf_stat_desc {
	const char *group;
	const char *key;
	const char *help;
	bool gauge; /* a 0/1 state rather than a counter */
	bool level; /* with gauge: a level that goes up and down, written as a number */
};

/*
 * The one walk over a snapshot (docs/loss-accounting.md, "The stats JSON object"), in the
 * JSON's order: the stats JSON, the telemetry dicts and --list-counters are visitors.
 * obj/list open a nested object or list under key (key NULL: an element of a list), end
 * closes the latest one. ctr is a counter or a 0/1 state of the lists (with its
 * description); the others are plain values. A visitor may leave any callback NULL.
 */
struct uf_stats_visitor {
	void (*obj)(void *arg, const char *key);
	void (*list)(void *arg, const char *key);
	void (*end)(void *arg);
	void (*ctr)(void *arg, const struct uf_stat_desc *d, uint64_t v);
	void (*u64)(void *arg, const char *key, uint64_t v);
	void (*flag)(void *arg, const char *key, bool v);
	void (*real)(void *arg, const char *key, double v, int decimals);
	void (*str)(void *arg, const char *key, const char *v);
	void (*null)(void *arg, const char *key); /* an unavailable reading */
};

/* The whole object (its members, not the enclosing braces), at most max_dests destinations. */
void uf_stats_visit(const struct uf_snap *s, int max_dests, const struct uf_stats_visitor *v,
		    void *arg);
/* The members of one port's object, of one destination's. */
void uf_stats_visit_port(const struct uf_snap_port *p, const struct uf_stats_visitor *v, void *arg);
void uf_stats_visit_dest(const struct uf_snap_dest *d, const struct uf_stats_visitor *v, void *arg);
void uf_stats_visit_lis(const struct uf_snap_lis *l, const struct uf_stats_visitor *v, void *arg);

/* One JSON object on one line (docs/loss-accounting.md#the-stats-json-object), newline
 * included. */
void uf_stats_json(FILE *f, const struct uf_snap *s);

/*
 * Every counter the stats carry, with its help text, from the lists above: the --list-counters
 * output. JSON: {"counters": [{"path", "group", "key", "type", "help"}, ...], "groups":
 * {group: help}}; paths name a port "<port>", a worker "<lcore>", a destination "<index>".
 * Text: one line per counter. Returns how many counters there are.
 */
int uf_stats_schema(FILE *f, bool json);

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
