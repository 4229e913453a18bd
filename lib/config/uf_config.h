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

/* ports[].rx_checksum (docs/pmd-quirks.md, "RX checksum verdicts") */
enum uf_rx_cksum_mode {
	UF_RXCK_AUTO = 0, /* the NIC's verdicts where the quirk row trusts them */
	UF_RXCK_OFF,      /* no RX checksum offload: every check in software */
};

/*
 * A service address (docs/configuration.md#service-addresses): a host address (/32, /128)
 * that several hosts share, taken like the port's own. neighbor answer: udpfan answers ARP
 * and NSs for it; silent (default): never (the router's next hop is the port's own address).
 */
struct uf_cfg_svc {
	bool is_ip6;
	rte_be32_t ip;
	struct uf_ip6 ip6;
	bool answer; /* neighbor: answer */
	struct uf_cfg_pos pos;
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
	/* IPv6 (docs/configuration.md#ipv6): ports[].ip6, alongside or instead of ip */
	int n_ip6;
	struct uf_ip6 ip6[UF_MAX_PORT_IP6];
	uint8_t ip6_prefix_len[UF_MAX_PORT_IP6];
	bool has_gateway6;
	struct uf_ip6 gateway6;
	struct uf_cfg_pos ip6_pos[UF_MAX_PORT_IP6];
	struct uf_cfg_pos gateway6_pos;
	/* ports[].service: hot on reload (a new plan takes them) */
	int n_svc;
	struct uf_cfg_svc svc[UF_MAX_PORT_SVC];
	/* 802.1Q (docs/configuration.md#vlans): 0 untagged, else the port is a tagged logical
	 * port on its device */
	uint16_t vlan;
	uint8_t vlan_pcp; /* the priority bits of the tag it sends (received ones are not kept) */
	/* the port that owns the device (validation): itself, or the first port with the same
	 * device, whose DPDK port this one shares (a VLAN alias) */
	uint16_t dev;
	uint16_t mtu; /* 0: leave the PMD's default (1500) */
	uint16_t rx_desc;
	uint16_t tx_desc;
	uint32_t mbufs; /* 0: sized by formula */
	enum uf_rx_cksum_mode rx_checksum;
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
	bool is_ip6; /* ip6, not ip (`ip:` takes either literal) */
	rte_be32_t ip;
	struct uf_ip6 ip6;
	uint16_t udp_port; /* host order */
	bool has_mac;
	struct rte_ether_addr mac;
	uint16_t port; /* egress port index; default: the listen port */
	enum uf_src_mode source;
	rte_be32_t source_ip;     /* UF_SRC_FIXED, IPv4 */
	struct uf_ip6 source_ip6; /* UF_SRC_FIXED, IPv6 */
	bool source_is_ip6;       /* UF_SRC_FIXED: source_ip6, not source_ip */
	uint32_t sample;          /* 1: every datagram */
	uint8_t ttl;              /* TTL, or the hop limit of an IPv6 destination */
	uint8_t listener;         /* the listener whose datagrams it gets (listeners[] index) */
	bool liveness; /* its next hop probed every arp.liveness_ms (docs/configuration.md#pools) */
	struct uf_cfg_pos pos;
	/* a pool entry (docs/configuration.md#pools): no address of its own; its members
	 * are dests[pool->first ..], after the listed destinations */
	bool is_pool;
	bool is_member; /* a pool's member */
	uint16_t pool;  /* is_pool or is_member: index into pools[] */
};

/* How a pool picks the member of a datagram. */
enum uf_balance {
	UF_BAL_HASH_SENDER = 0, /* the sender's IP (and UDP port with sender_port) */
	UF_BAL_HASH_FLOW,       /* the 5-tuple */
	UF_BAL_ROUND_ROBIN,     /* per worker, in turn */
};

struct uf_cfg_pool {
	enum uf_balance balance;
	bool sender_port; /* hash-sender: the sender's UDP port too */
	uint16_t entry;   /* its entry in dests[] (what rules name) */
	uint16_t first;   /* its members: dests[first .. first + n) */
	uint16_t n;
	struct uf_cfg_pos pos;
};

struct uf_cfg_rule {
	bool is_ip6; /* prefix6/len, not prefix (`from:` takes either) */
	rte_be32_t prefix;
	struct uf_ip6 prefix6;
	uint8_t len;
	uint16_t n_to;
	uint16_t *to; /* destination indexes (into dests[], after validation) */
	struct uf_cfg_pos *to_pos;
	uint8_t listener; /* the listener it belongs to */
	struct uf_cfg_pos pos;
};

/*
 * One listener: the datagrams to (ip, udp_port) on a port, with its own destinations and
 * rules (docs/configuration.md#listeners). `listen:` is the one-listener form: listener 0,
 * every destination and rule. Its destinations are dests[first_dest .. +n_dests), its rules
 * rules[first_rule .. +n_rules), their `to` indexes global once validated.
 */
struct uf_cfg_listener {
	char name[UF_NAME_MAX];
	uint16_t port;     /* port index */
	uint16_t udp_port; /* host order */
	bool has_ip;
	bool is_ip6;   /* listens on ip6 (or the port's first ip6), not ip */
	rte_be32_t ip; /* the address it listens on: its own, else the port's */
	struct uf_ip6 ip6;
	uint16_t first_dest;
	uint16_t n_dests;   /* as listed (what its rules' `to` index) */
	uint16_t n_members; /* its pools' members: dests[first_dest + n_dests ..] */
	uint16_t first_rule;
	uint16_t n_rules;
	struct uf_cfg_pos pos;
	struct uf_cfg_pos ip_pos;
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
		bool mlockall;      /* lock memory after EAL's start (uf_env_lock_memory) */
		bool capture;       /* rte_pdump_init: dpdk-dumpcap may attach */
		int n_extra;
		char **extra_args;
	} eal;
	int n_ports;
	struct uf_cfg_port ports[UF_MAX_PORTS];
	struct {
		uint16_t port;
		uint16_t udp_port;
	} listen; /* listener 0's port and UDP port (the `listen:` form, or listeners[0]) */
	int n_listeners;
	bool listeners_form; /* `listeners:` (not `listen:`, whose one listener is synthesized) */
	struct uf_cfg_listener listeners[UF_MAX_LISTENERS];
	int n_dests; /* every entry of dests[]: the listed ones, then the pools' members */
	struct uf_cfg_dest *dests;
	int n_listed; /* destinations as listed, every listener's (not the pools' members) */
	int n_pools;
	struct uf_cfg_pool *pools;
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
		/* ...once the RX queues have been empty this long (flush_idle_auto: chosen from
		 * the ports' plans, lib/ctl/uf_app_workers.c) */
		bool flush_idle_auto;
		uint32_t flush_idle_us;
		uint32_t idle_sleep_us; /* sleep this long after a pass that received nothing */
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
		uint32_t liveness_ms;     /* liveness probe interval; 0: none */
		uint32_t liveness_misses; /* unanswered liveness probes before FAILED */
	} arp;
	struct {
		uint32_t icmp_rate;  /* echo replies per second per port, 0: none */
		uint32_t neigh_rate; /* ARP replies and NAs to NSs per second per port */
		/* SIGTERM: forward this long, draining, before the clean stop; 0 stops at
		 * once (docs/deployment.md#health-and-drain) */
		uint32_t drain_s;
	} control;
	/* health checks answered on every port's own addresses
	 * (docs/deployment.md#health-checks-on-the-port); tcp_port 0: off */
	struct {
		uint32_t tcp_port;
		char http_path[128]; /* "": a plain TCP check */
		uint32_t rate;       /* segments answered per second per port */
	} health;
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
/* IPv6: an address in any RFC 4291 text form ("2001:db8::1", "::ffff:192.0.2.1"); a prefix
 * "2001:db8::/32" (length 0..128). 0 or -1. */
int uf_parse_ipv6(const char *s, struct uf_ip6 *ip);
int uf_parse_ipv6_prefix(const char *s, struct uf_ip6 *ip, uint8_t *len);
/* IPv6 text into buf (INET6_ADDRSTRLEN bytes); returns buf. */
const char *uf_ip6_str(const struct uf_ip6 *ip, char *buf);

bool uf_is_pci_addr(const char *dev, char *norm, size_t normlen);

/*
 * Reload (docs/configuration.md#reload): what changed from OLD to NEW, both valid. Each
 * changed key path lands in `hot` (a new plan applies it) or `restart` (ports or lcores
 * would have to be restarted: the reload is refused). Destinations are matched by ip and
 * udp_port. Returns how many changes there are.
 */
struct uf_cfg_diff {
	int n_hot, n_restart;
	char hot[1024];     /* "destinations[2] (10.0.0.5:9000) added, forward.udp_checksum" */
	char restart[1024]; /* "ports[0].mtu, eal.lcores" */
	int dest_old[UF_MAX_DESTS];        /* per new destination: its index in OLD, -1: added */
	int n_added, n_removed, n_changed; /* destinations */
};
int uf_config_diff(const struct uf_config *old, const struct uf_config *nw, struct uf_cfg_diff *d);

/* Does uf_config_diff know how to compare the list NAME item by item (tests)? */
bool uf_cfg_diff_knows_list(const char *name);

/* The index of A among port P's service addresses of A's family (is_ip6: a6, else a4), or
 * -1. */
int uf_config_port_svc(const struct uf_cfg_port *p, bool is_ip6, rte_be32_t a4,
		       const struct uf_ip6 *a6);

/* Index of the port named NAME, or -1. */
int uf_config_port_by_name(const struct uf_config *cfg, const char *name);

#endif /* UF_CONFIG_H */
