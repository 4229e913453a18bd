/* SPDX-License-Identifier: BSD-3-Clause
 * What udpfan-gen and udpfan-sink share: EAL bring-up with udpfan's own argv builder and
 * environment checks (one explicit device, never a probe of everything), one port with one
 * RX and one TX queue, ARP answers, and the port's counters as JSON. Control plane only.
 */
#ifndef UF_TOOL_H
#define UF_TOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "uf_common.h"
#include "uf_xsk.h"

extern int uf_tool_logtype;
extern const char *uf_tool_name; /* "udpfan-gen" / "udpfan-sink": the prefix of every line */

#define UF_TOOL_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, uf_tool_logtype, "%s: " fmt "\n", uf_tool_name, ##__VA_ARGS__)

struct uf_tool_eal {
	const char *dev;    /* PCI address or vdev string */
	const char *lcores; /* "0,1": main first */
	const char *file_prefix;
	bool in_memory;
	bool no_huge;
	int n_extra; /* after "--" on the command line */
	char **extra;
};

/* The options both tools take besides their own: EAL (but --dev), --json and --ready. */
struct uf_tool_opts {
	struct uf_tool_eal eal;
	const char *json;  /* also write the summary there */
	const char *ready; /* create this file once running */
	uint32_t hold_ms;  /* --hold: see uf_tool_hold() */
};

/* their getopt_long entries (the includer has <getopt.h>) */
/* clang-format off */
#define UF_TOOL_LONGOPTS                                     \
	{ "lcores", required_argument, NULL, 'l' },          \
	{ "file-prefix", required_argument, NULL, 'F' },     \
	{ "in-memory", no_argument, NULL, 'm' },             \
	{ "no-huge", no_argument, NULL, 'H' },               \
	{ "json", required_argument, NULL, 'j' },            \
	{ "ready", required_argument, NULL, 'R' },          \
	{ "hold", required_argument, NULL, 'Z' }
/* clang-format on */

/*
 * --hold MS: after the summary, with nothing polling any more, keep the port open until its
 * link goes down (the peer closed first) or MS ms pass. A memif peer that closes while the
 * other side's datapath reads its rings can crash that side (DPDK unmaps the regions on its
 * interrupt thread: docs/pmd-quirks.md, net_memif); a tool that holds lets the forwarder stop
 * first, and its own disconnect then meets no reader.
 */
struct uf_tool_port;
void uf_tool_hold(const struct uf_tool_port *p, uint32_t ms);

/* If getopt's c is one of UF_TOOL_LONGOPTS, store arg in t and return 1; 0: not one of them;
 * -1: a bad value, said on stderr (the caller exits with UF_EXIT_CONFIG). */
int uf_tool_opt(int c, const char *arg, struct uf_tool_opts *t);

/* "<tool>: error: <fmt with arg> (<tool> --help)" on stderr; returns UF_EXIT_CONFIG. */
int uf_tool_usage_err(const char *fmt, const char *arg);

/*
 * Check the environment (root, hugepages, the interface) and initialise EAL with only `dev`
 * (--vdev, or -a for a PCI address; --no-pci for a vdev). 0, or -1 with err (exit code 2 or
 * 3 and the message). `line` receives the EAL argv, for the log.
 */
int uf_tool_eal_init(const struct uf_tool_eal *o, struct uf_err *err, char *line, size_t len);

struct uf_tool_port {
	uint16_t port_id;
	int socket;
	char dev_name[UF_DEVSTR_MAX];
	char driver[32];
	unsigned int if_index;
	struct rte_mempool *pool; /* RX buffers, and TX frames (af_xdp sends them without a copy) */
	struct rte_ether_addr mac;
	uint16_t rxd;
	uint16_t txd;
	uint16_t nb_queues; /* RX and TX queue pairs */
	bool opened;        /* the ethdev exists: close it */
	bool started;
	bool link_up;
	bool is_af_xdp;
	int n_xsk;
	int xsk_fd[4];
	char xdp_mode[64];
};

/*
 * Open the one port EAL probed (the device given to uf_tool_eal_init): one RX and one TX
 * queue of rxd/txd descriptors (adjusted by the PMD), a pool sized for them, start, and wait
 * up to 2 s for the link. err as above.
 */
int uf_tool_port_open(struct uf_tool_port *p, const char *dev, uint16_t rxd, uint16_t txd,
		      struct uf_err *err);

/* The same with nq RX and TX queues (1..UF_TOOL_MAX_QUEUES), one pool shared by them. */
#define UF_TOOL_MAX_QUEUES 8
int uf_tool_port_open_mq(struct uf_tool_port *p, const char *dev, uint16_t nq, uint16_t rxd,
			 uint16_t txd, struct uf_err *err);

void uf_tool_port_close(struct uf_tool_port *p);

/*
 * "port": {ipackets, opackets, ierrors, oerrors, imissed, rx_nombuf, driver, mac[, xdp_mode,
 * xsk: {...}]} without the key, as one JSON object.
 */
void uf_tool_port_json(FILE *f, const struct uf_tool_port *p);

/*
 * If m is an ARP request for ip, turn it into our reply in place and return true (the caller
 * sends it). Otherwise false and m untouched.
 */
bool uf_tool_arp_answer(struct rte_mbuf *m, const struct rte_ether_addr *mac, rte_be32_t ip);

/* If m is an ICMP echo request to ip, turn it into the reply in place and return true. */
bool uf_tool_icmp_answer(struct rte_mbuf *m, const struct rte_ether_addr *mac, rte_be32_t ip);

/*
 * Resolve target's MAC by ARP on the port's queue 0 (control lcore; no worker may use the
 * queues meanwhile): `tries` broadcast requests `interval_ms` apart, answering requests for
 * our own ip meanwhile. 0 and mac filled, or -ETIMEDOUT / -ENOMEM.
 */
int uf_tool_arp_resolve(struct uf_tool_port *p, rte_be32_t our_ip, rte_be32_t target,
			unsigned int tries, unsigned int interval_ms, struct rte_ether_addr *mac);

/* Parse a non-negative decimal number (strtod syntax when allow_frac). 0 or -1. */
int uf_tool_parse_u64(const char *s, uint64_t *v);
int uf_tool_parse_double(const char *s, double *v);

/* Write the whole of buf (NUL-terminated) to path. 0 or -errno. */
int uf_tool_write_file(const char *path, const char *buf);

/* Create (or truncate) path, empty. 0 or -errno. */
int uf_tool_touch(const char *path);

#endif /* UF_TOOL_H */
