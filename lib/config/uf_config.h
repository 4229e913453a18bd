/* SPDX-License-Identifier: BSD-3-Clause
 * udpfan configuration: YAML in, one validated struct out.
 *
 * The struct is built once at start-up and never written afterwards; workers never read it
 * (the fan-out plan carries what they need). Addresses are kept in network byte order, as the
 * header templates want them.
 */
#ifndef UF_CONFIG_H
#define UF_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <limits.h>

#include <rte_ether.h>

#include "uf_common.h"

/* fanout auto: chain a header mbuf to the shared payload at and above this payload size
 * (bytes); below it, copy. Measured crossing ~512 B: the table above uf_copy_one in
 * lib/fwd/uf_fwd_dp.h. */
#define UF_CHAIN_MIN_PAYLOAD_DEFAULT 512

/* Where a value came from in the YAML file (1-based), for errors found after parsing. */
struct uf_cfg_pos {
	uint32_t line;
	uint32_t col;
};

struct uf_cfg_port {
	char name[UF_NAME_MAX];
	char device[UF_DEVSTR_MAX];   /* "0000:00:06.0[,devargs]" or a vdev string */
	char dev_name[UF_DEVSTR_MAX]; /* the ethdev name: full PCI address, or vdev name */
	bool is_pci;
	rte_be32_t ip;
	uint8_t prefix_len;
	bool has_gateway;
	rte_be32_t gateway;
	uint16_t mtu; /* 0: leave the PMD's default (1500) */
	uint16_t rx_desc;
	uint16_t tx_desc;
	uint32_t mbufs; /* 0: sized by formula */
	struct uf_cfg_pos pos;
	struct uf_cfg_pos device_pos;
	struct uf_cfg_pos gateway_pos;
};

enum uf_src_mode {
	UF_SRC_OURS = 0, /* the egress port's IP and our UDP source port */
	UF_SRC_ORIGINAL, /* the sender's IP and UDP port, unchanged */
	UF_SRC_FIXED,    /* a fixed IPv4 address, our UDP source port */
};

struct uf_cfg_dest {
	rte_be32_t ip;
	uint16_t udp_port; /* host order */
	bool has_mac;
	struct rte_ether_addr mac;
	uint16_t port; /* egress port index; default: the listen port */
	enum uf_src_mode source;
	rte_be32_t source_ip; /* UF_SRC_FIXED */
	uint32_t sample;      /* 1: every datagram */
	uint8_t ttl;
	struct uf_cfg_pos pos;
};

struct uf_cfg_rule {
	rte_be32_t prefix;
	uint8_t len;
	uint16_t n_to;
	uint16_t *to; /* destination indexes */
	struct uf_cfg_pos *to_pos;
	struct uf_cfg_pos pos;
};

enum uf_cksum_mode {
	UF_CKSUM_COMPUTE = 0,
	UF_CKSUM_ZERO,
};

enum uf_fanout_mode {
	UF_FANOUT_AUTO =
			0, /* copy below the measured threshold, chain above, where the PMD allows */
	UF_FANOUT_COPY,
	UF_FANOUT_CHAIN,
};

struct uf_config {
	char path[PATH_MAX];
	struct {
		char lcores[128]; /* empty: the first two CPUs we may run on */
		char file_prefix[64];
		bool in_memory;
		bool no_huge;
		uint32_t memory_mb; /* 0: EAL's default */
		int n_extra;
		char **extra_args;
	} eal;
	int n_ports;
	struct uf_cfg_port ports[UF_MAX_PORTS];
	struct {
		uint16_t port;
		uint16_t udp_port;
	} listen;
	int n_dests;
	struct uf_cfg_dest *dests;
	int n_rules;
	struct uf_cfg_rule *rules;
	struct {
		enum uf_cksum_mode udp_checksum;
		bool keep_source_port;
		uint16_t source_port; /* when !keep_source_port */
		uint16_t burst;
		enum uf_fanout_mode fanout;
		uint32_t chain_min_payload; /* auto: chain at and above this payload size */
		uint32_t drain_us;
		bool flush_idle; /* flush the TX buffers on a pass that received nothing */
		uint32_t tx_retries;
		uint32_t tx_stall_ms; /* no TX progress this long: the port is skipped */
	} fwd;
	struct {
		double interval_s;
		char json[PATH_MAX];
	} stats;
	struct {
		uint32_t reachable_s; /* refresh a resolved neighbour after this long */
		uint32_t retry_ms;    /* first ARP retry; doubles up to 8 x */
		uint32_t max_probes;  /* unanswered probes before a neighbour is marked failed */
		bool gratuitous;
	} arp;
	struct {
		uint32_t icmp_rate; /* echo replies per second per port, 0: none */
	} control;
};

/* Parse and validate FILE. NULL on error with err filled (code UF_EXIT_CONFIG, message
 * "FILE:LINE:COL: key: what is wrong"). */
struct uf_config *uf_config_load(const char *path, struct uf_err *err);

/* The same from a string (tests); name is used in messages. */
struct uf_config *uf_config_parse(const char *text, size_t len, const char *name,
				  struct uf_err *err);

void uf_config_free(struct uf_config *cfg);

/* Workers requested by eal.lcores (lcores minus the main one); -1 on a bad list. */
int uf_config_worker_count(const struct uf_config *cfg);

/* Parse an lcore list "0-2,4" into ids (first = main). Returns count or -1. */
int uf_parse_lcore_list(const char *s, uint16_t *ids, int max);

/* Parsers shared with the generator and the sink. 0 or -1. */
int uf_parse_ipv4(const char *s, rte_be32_t *ip);
int uf_parse_ipv4_prefix(const char *s, rte_be32_t *ip, uint8_t *len);
int uf_parse_mac(const char *s, struct rte_ether_addr *mac);
bool uf_is_pci_addr(const char *dev, char *norm, size_t normlen);

/* Index of the port named NAME, or -1. */
int uf_config_port_by_name(const struct uf_config *cfg, const char *name);

#endif /* UF_CONFIG_H */
