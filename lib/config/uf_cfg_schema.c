/* SPDX-License-Identifier: BSD-3-Clause
 * The config schema (uf_cfg_schema.h): every key udpfan reads, one row each. The rows' own
 * parsers are in uf_cfg_values.c and uf_cfg_lists.c, their reload comparators in
 * uf_cfg_diff.c, their docs cells in uf_cfg_doc.c. docs/configuration.md describes the same
 * keys; tests/unit/test_config_schema.c holds the two together.
 */
#include <string.h>

#include "uf_cfg_schema.h"

/* the field FLD of struct ST: offset and size */
#define AT(st, fld) .offset = offsetof(st, fld), .size = sizeof(((st *)0)->fld)
#define CFG(fld) AT(struct uf_config, fld)
#define PORT(fld) AT(struct uf_cfg_port, fld)
#define DEST(fld) AT(struct uf_cfg_dest, fld)
#define RULE(fld) AT(struct uf_cfg_rule, fld)
#define POOL(fld) AT(struct uf_cfg_pool, fld)
#define LIS(fld) AT(struct uf_cfg_listener, fld)
/* an integer in LO..HI with default DEF */
#define UINT(l, h, d) .type = UF_CFG_UINT, .lo = (l), .hi = (h), .has_def = true, .def = (d)
/* an integer in LO..HI that must be given */
#define UINT_REQ(l, h) .type = UF_CFG_UINT, .lo = (l), .hi = (h), .doc_default = "required"
#define BOOL(d) .type = UF_CFG_BOOL, .has_def = true, .def = (d)
#define ENUM(c, d) .type = UF_CFG_ENUM, .choices = (c), .has_def = true, .def = (d)
#define CUSTOM(fn) .type = UF_CFG_CUSTOM, .parse = (fn)

static const char *const balance_modes[] = { "hash-sender", "hash-flow", "round-robin", NULL };
static const char *const cksum_modes[] = {
	[UF_CKSUM_COMPUTE] = "compute", [UF_CKSUM_ZERO] = "zero", NULL
};
static const char *const rxck_modes[] = { [UF_RXCK_AUTO] = "auto", [UF_RXCK_OFF] = "off", NULL };
static const char *const fanout_modes[] = {
	[UF_FANOUT_AUTO] = "auto", [UF_FANOUT_COPY] = "copy", [UF_FANOUT_CHAIN] = "chain", NULL
};

const struct uf_cfg_key uf_cfg_schema[] = {
	/* the top level, in the order the unknown-key message lists them */
	{ "", "eal", .type = UF_CFG_MAP, .doc = "EAL arguments udpfan builds" },
	{ "", "ports", CUSTOM(uf_cfg_parse_ports), .doc = "the ports, 1 to 16" },
	{ "", "listen", CUSTOM(uf_cfg_parse_listen), .doc = "where the datagrams arrive" },
	{ "", "destinations", CUSTOM(uf_cfg_parse_dests), .hot = true,
	  .doc = "where the copies go, 1 to 256" },
	{ "", "rules", CUSTOM(uf_cfg_parse_rules), .hot = true,
	  .doc = "sender prefix to destinations, first match" },
	{ "", "listeners", CUSTOM(uf_cfg_parse_listeners),
	  .doc = "several listeners, each with its destinations and rules (instead of listen)" },
	{ "", "forward", .type = UF_CFG_MAP, .hot = true, .doc = "how copies are built and sent" },
	{ "", "stats", .type = UF_CFG_MAP, .hot = true, .doc = "stats interval and JSON output" },
	{ "", "arp", .type = UF_CFG_MAP, .hot = true, .doc = "neighbour resolution timers" },
	{ "", "control", .type = UF_CFG_MAP, .hot = true,
	  .doc = "control-plane rates, the drain on SIGTERM" },
	{ "", "health", .type = UF_CFG_MAP, .hot = true,
	  .doc = "TCP and HTTP health checks answered on the ports' addresses" },

	{ "eal", "lcores", CFG(eal.lcores), .type = UF_CFG_STR, .parse = uf_cfg_check_lcores,
	  .lo = 2, .hi = UF_MAX_WORKERS + 1, .range_note = " lcores",
	  .doc_default = "the first two CPUs in udpfan's affinity mask (`\"0-1\"` if that "
			 "cannot be read)",
	  .doc = "main lcore first, then the workers" },
	{ "eal", "file_prefix", CFG(eal.file_prefix), .type = UF_CFG_STR,
	  .parse = uf_cfg_check_file_prefix, .has_def = true, .def_str = "udpfan",
	  .doc_range = "1..63 characters: letters, digits, `_`, `-`",
	  .doc = "EAL's --file-prefix" },
	{ "eal", "in_memory", CFG(eal.in_memory), BOOL(false), .doc = "EAL's --in-memory" },
	{ "eal", "no_huge", CFG(eal.no_huge), BOOL(false), .doc = "EAL's --no-huge" },
	{ "eal", "memory_mb", CFG(eal.memory_mb), UINT(16, 1u << 20, 0),
	  .default_note = " (EAL's default)", .doc = "EAL's -m, MiB" },
	{ "eal", "mlockall", CFG(eal.mlockall), BOOL(true),
	  .doc = "lock udpfan's memory, mapped now and later" },
	{ "eal", "capture", CFG(eal.capture), BOOL(true),
	  .doc = "dpdk-dumpcap and dpdk-pdump may capture" },
	{ "eal", "extra_args", CUSTOM(uf_cfg_parse_extra_args), .same = uf_cfg_same_extra_args,
	  .doc_type = "list of strings", .doc_default = "`[]`", .doc = "appended to EAL's argv" },

	{ "ports[]", "name", PORT(name), .type = UF_CFG_STR, .parse = uf_cfg_check_port_name,
	  .doc_default = "required", .doc_range = "1..31 characters, `[A-Za-z0-9_]`",
	  .doc = "the port's label" },
	{ "ports[]", "device", PORT(device), .type = UF_CFG_STR, .parse = uf_cfg_check_device,
	  .has_pos = true, .pos_offset = offsetof(struct uf_cfg_port, device_pos),
	  .doc_default = "required", .doc = "PCI address with devargs, or a vdev" },
	{ "ports[]", "ip", CUSTOM(uf_cfg_parse_port_ip), .same = uf_cfg_same_port_ip,
	  .doc_type = "string", .doc_default = "required unless `ip6`",
	  .doc_range = "prefix /1../31", .doc = "udpfan's address and subnet on the port" },
	{ "ports[]", "gateway", PORT(gateway), .type = UF_CFG_IPV4, .has_flag = true,
	  .flag_offset = offsetof(struct uf_cfg_port, has_gateway), .has_pos = true,
	  .pos_offset = offsetof(struct uf_cfg_port, gateway_pos), .doc_default = "none",
	  .doc_range = "on the port's subnet", .doc = "next hop off the subnet" },
	{ "ports[]", "ip6", CUSTOM(uf_cfg_parse_port_ip6), .same = uf_cfg_same_port_ip6,
	  .doc_type = "list of strings", .doc_default = "none",
	  .doc_range = "1..4 addresses, prefix /1../127",
	  .doc = "udpfan's IPv6 addresses and prefixes on the port" },
	{ "ports[]", "gateway6", CUSTOM(uf_cfg_parse_port_gw6), .same = uf_cfg_same_port_gw6,
	  .doc_type = "IPv6", .doc_default = "none",
	  .doc_range = "link-local, or on one of the port's `ip6` prefixes",
	  .doc = "IPv6 next hop off the prefixes" },
	{ "ports[]", "service", CUSTOM(uf_cfg_parse_port_service), .same = uf_cfg_same_port_service,
	  .hot = true, .doc_type = "list", .doc_default = "none",
	  .doc_range = "0..8 host addresses, IPv4 or IPv6",
	  .doc = "service addresses the port takes like its own, shared with other hosts" },
	{ "ports[]", "vlan", PORT(vlan), UINT(1, 4094, 0), .default_note = ": untagged",
	  .doc = "802.1Q VLAN id: a tagged logical port on its device" },
	{ "ports[]", "vlan_pcp", PORT(vlan_pcp), UINT(0, 7, 0),
	  .doc = "802.1Q priority bits of the frames it sends" },
	{ "ports[]", "mtu", PORT(mtu), UINT(68, 16000, 0),
	  .default_note = ": the kernel netdev's where the port has one (mlx5, af_xdp, "
			  "af_packet, tap), left unchanged; 1500 on a device udpfan owns alone",
	  .range_note = ", and within the PMD's `min_mtu..max_mtu`", .doc = "the port's MTU" },
	{ "ports[]", "rx_desc", PORT(rx_desc), UINT(32, 32768, 1024),
	  .doc = "RX ring size per queue" },
	{ "ports[]", "tx_desc", PORT(tx_desc), UINT(32, 32768, 1024),
	  .doc = "TX ring size per queue" },
	{ "ports[]", "mbufs", PORT(mbufs), .type = UF_CFG_UINT, .lo = 63, .hi = 16u << 20,
	  .doc_default = "formula ([architecture](architecture.md#queue-ownership-and-memory))",
	  .doc = "mbufs per (port, queue) pool" },
	{ "ports[]", "rx_checksum", PORT(rx_checksum), ENUM(rxck_modes, UF_RXCK_AUTO),
	  .doc = "trust the NIC's RX checksum verdicts where the quirk row does, or never" },

	{ "listen", "port", CUSTOM(uf_cfg_parse_port_ref), CFG(listen.port),
	  .doc_type = "port name", .doc_default = "required",
	  .doc_range = "an existing `ports[].name`", .doc = "the port that receives" },
	{ "listen", "udp_port", CFG(listen.udp_port), UINT_REQ(1, 65535),
	  .doc = "the UDP port fanned out" },

	{ "destinations[]", "ip", CUSTOM(uf_cfg_parse_dest_ip), .hot = true,
	  .same = uf_cfg_same_dest_ip, .doc_type = "IPv4 or IPv6", .doc_default = "required",
	  .doc_range = "not 0.0.0.0, 255.255.255.255, 127/8, 240/4, nor the egress port's own "
		       "IP",
	  .doc = "destination address" },
	{ "destinations[]", "udp_port", DEST(udp_port), .hot = true, UINT_REQ(1, 65535),
	  .doc = "destination UDP port" },
	{ "destinations[]", "mac", CUSTOM(uf_cfg_parse_mac), .hot = true,
	  .same = uf_cfg_same_dest_mac, .has_flag = true,
	  .flag_offset = offsetof(struct uf_cfg_dest, has_mac), .doc_type = "MAC",
	  .doc_default = "none (ARP)", .doc_range = "unicast, non-zero",
	  .doc = "static next-hop MAC, no ARP" },
	{ "destinations[]", "port", CUSTOM(uf_cfg_parse_port_ref), DEST(port), .hot = true,
	  .doc_type = "port name", .doc_default = "the listen port",
	  .doc_range = "an existing port", .doc = "egress port" },
	{ "destinations[]", "source", CUSTOM(uf_cfg_parse_source), .hot = true,
	  .same = uf_cfg_same_dest_source,
	  .doc_type = "`ours`, `original` or an IPv4 or IPv6 address", .doc_default = "`ours`",
	  .doc = "source address and port of the copies" },
	{ "destinations[]", "sample", DEST(sample), .hot = true, UINT(1, 1000000, 1),
	  .doc = "send one datagram in N" },
	{ "destinations[]", "ttl", DEST(ttl), .hot = true, UINT(1, 255, 64),
	  .doc = "IPv4 TTL (IPv6 hop limit) of the copies" },
	{ "destinations[]", "liveness", DEST(liveness), .hot = true, BOOL(false),
	  .doc_default = "true for a pool member, else false",
	  .doc = "probe its next hop every arp.liveness_ms" },

	{ "destinations[]", "pool", CUSTOM(uf_cfg_parse_pool), .hot = true,
	  .same = uf_cfg_same_dest_pool, .doc_type = "mapping", .doc_default = "none",
	  .doc = "this destination is a pool of members, one copy each" },

	{ "destinations[].pool", "balance", POOL(balance), .hot = true,
	  ENUM(balance_modes, UF_BAL_HASH_SENDER), .doc = "how a datagram's member is picked" },
	{ "destinations[].pool", "sender_port", POOL(sender_port), .hot = true, BOOL(false),
	  .doc = "hash-sender: hash the sender's UDP port too" },
	{ "destinations[].pool", "members", CUSTOM(uf_cfg_parse_members), .hot = true,
	  .same = uf_cfg_same_elsewhere, .doc_type = "list of destinations",
	  .doc_default = "required", .doc_range = "1..256 (with the other destinations)",
	  .doc = "the receivers: each with ip, udp_port, port, mac, source, ttl" },

	{ "rules[]", "from", CUSTOM(uf_cfg_parse_from), .hot = true, .same = uf_cfg_same_rule_from,
	  .doc_type = "IPv4 or IPv6 prefix", .doc = "sender prefix" },
	{ "rules[]", "to", CUSTOM(uf_cfg_parse_to), .hot = true, .same = uf_cfg_same_rule_to,
	  .doc_type = "list of integers", .doc = "destination indexes" },

	{ "listeners[]", "name", LIS(name), .type = UF_CFG_STR, .doc_default = "required",
	  .doc_range = "1..31 characters", .doc = "the listener's name in stats and messages" },
	{ "listeners[]", "port", CUSTOM(uf_cfg_parse_port_ref), LIS(port), .doc_type = "port name",
	  .doc_default = "required", .doc_range = "an existing `ports[].name`",
	  .doc = "the port that receives" },
	{ "listeners[]", "udp_port", LIS(udp_port), UINT_REQ(1, 65535),
	  .doc = "the UDP port fanned out" },
	{ "listeners[]", "ip", CUSTOM(uf_cfg_parse_lis_ip), .same = uf_cfg_same_lis_ip,
	  .doc_type = "IPv4 or IPv6 address",
	  .doc_default = "the port's `ip` (its first `ip6` on an IPv6-only port)",
	  .doc_range = "on the port's subnet, no other port's IP; an IPv6 one is one of the port's `ip6`; or one of the port's `service` addresses",
	  .doc = "the address it listens on" },
	{ "listeners[]", "destinations", CUSTOM(uf_cfg_parse_lis_dests),
	  .same = uf_cfg_same_elsewhere, .doc_type = "list of destinations",
	  .doc_default = "required", .doc_range = "1..256 in all listeners",
	  .doc = "its destinations: the keys of `destinations[]`" },
	{ "listeners[]", "rules", CUSTOM(uf_cfg_parse_lis_rules), .same = uf_cfg_same_elsewhere,
	  .doc_type = "list of rules", .doc_default = "none",
	  .doc_range = "0..4096 in all listeners",
	  .doc = "its rules: the keys of `rules[]`, `to` indexing its "
		 "destinations" },

	{ "forward", "udp_checksum", CFG(fwd.udp_checksum), .hot = true,
	  ENUM(cksum_modes, UF_CKSUM_COMPUTE), .doc = "derive the UDP checksum, or send none" },
	{ "forward", "source_port", CFG(fwd.source_port), .hot = true, .type = UF_CFG_UINT, .lo = 1,
	  .hi = 65535, .word = "keep",
	  .word_offset = offsetof(struct uf_config, fwd.keep_source_port),
	  .word_what = "a UDP port number", .has_def = true, .def_word = true,
	  .doc = "UDP source port of the copies" },
	{ "forward", "burst", CFG(fwd.burst), UINT(UF_MIN_BURST, UF_MAX_BURST, 32),
	  .lo_why = "the vector RX paths of i40e, ixgbe, ice, iavf and mlx5 round a burst "
		    "down to a multiple of 4: 1-3 would receive nothing",
	  .doc = "RX burst and TX flush size" },
	{ "forward", "fanout", CFG(fwd.fanout), .hot = true, ENUM(fanout_modes, UF_FANOUT_AUTO),
	  .doc = "how the copies are built" },
	{ "forward", "chain_min_payload", CFG(fwd.chain_min_payload), .hot = true,
	  UINT(0, 65535, UF_CHAIN_MIN_PAYLOAD_DEFAULT), .doc = "auto chains from this payload" },
	{ "forward", "drain_us", CFG(fwd.drain_us), UINT(1, 100000, 100),
	  .doc = "TX buffers flushed at least this often" },
	{ "forward", "flush_idle", CFG(fwd.flush_idle), BOOL(true),
	  .doc = "TX buffers flushed when a pass finds the RX queues empty" },
	{ "forward", "flush_idle_us", CFG(fwd.flush_idle_us), .type = UF_CFG_UINT, .lo = 0,
	  .hi = 100000, .word = "auto",
	  .word_offset = offsetof(struct uf_config, fwd.flush_idle_auto),
	  .word_what = "microseconds", .has_def = true, .def_word = true,
	  .doc = "how long the RX queues must have been empty before that flush (auto: 10 with "
		 "an af_xdp or af_packet port, else 0)" },
	{ "forward", "idle_sleep_us", CFG(fwd.idle_sleep_us), UINT(0, 1000, 0),
	  .doc = "a worker sleeps this long after a pass that found its RX queues empty (0: "
		 "busy polling)" },
	{ "forward", "tx_retries", CFG(fwd.tx_retries), UINT(0, 1000, 8),
	  .doc = "extra tx_burst attempts on a full ring" },
	{ "forward", "tx_stall_ms", CFG(fwd.tx_stall_ms), UINT(0, 10000, 10),
	  .doc = "a port without TX progress this long is skipped" },

	{ "stats", "interval_s", CFG(stats.interval_s), .hot = true, .type = UF_CFG_NUMBER,
	  .dlo = 0.1, .dhi = 3600, .unit = "seconds", .has_def = true, .ddef = 1.0,
	  .doc = "stats, telemetry and link-check interval" },
	{ "stats", "json", CUSTOM(uf_cfg_parse_json), .same = uf_cfg_same_stats_json,
	  .doc_type = "path or null", .doc_default = "none", .doc_range = "< 4096 characters",
	  .doc = "append stats objects to this file (created 0640; a symlink is refused)" },

	{ "arp", "reachable_s", CFG(arp.reachable_s), .hot = true, UINT(1, 86400, 30),
	  .doc = "confirm a neighbour after this long" },
	{ "arp", "retry_ms", CFG(arp.retry_ms), .hot = true, UINT(10, 60000, 200),
	  .doc = "first retry, doubling to 8x" },
	{ "arp", "max_probes", CFG(arp.max_probes), .hot = true, UINT(1, 100, 5),
	  .doc = "unanswered probes before FAILED" },
	{ "arp", "gratuitous", CFG(arp.gratuitous), .hot = true, BOOL(true),
	  .doc = "gratuitous ARP at start, link up, reset" },
	{ "arp", "liveness_ms", CFG(arp.liveness_ms), .hot = true, UINT(0, 60000, 200),
	  .doc = "liveness probe interval, 0: none" },
	{ "arp", "liveness_misses", CFG(arp.liveness_misses), .hot = true, UINT(1, 100, 3),
	  .doc = "unanswered liveness probes before FAILED" },

	{ "control", "icmp_rate", CFG(control.icmp_rate), .hot = true, UINT(0, 1000000, 100),
	  .doc = "echo replies per second per port" },
	{ "control", "neigh_rate", CFG(control.neigh_rate), .hot = true, UINT(1, 1000000, 2000),
	  .doc = "ARP and NS answers per second per port" },
	{ "control", "drain_s", CFG(control.drain_s), .hot = true, UINT(0, 3600, 0),
	  .default_note = ": SIGTERM stops at once",
	  .doc = "on SIGTERM, forward this long (draining) before the clean stop" },

	{ "health", "tcp_port", CFG(health.tcp_port), UINT(0, 65535, 0), .default_note = ": off",
	  .doc = "answer TCP health checks on this port of every port's addresses" },
	{ "health", "http_path", CFG(health.http_path), .type = UF_CFG_STR,
	  .parse = uf_cfg_check_http_path, .hot = true, .doc_default = "none: a plain TCP check",
	  .doc_range = "1..127 characters: `/`, then printable ones, no spaces",
	  .doc = "answer `GET` of this path: 200 when ready, else 503" },
	{ "health", "rate", CFG(health.rate), .hot = true, UINT(1, 1000000, 1000),
	  .doc = "health-check segments answered per second per port" },
};

const unsigned int uf_cfg_schema_n = RTE_DIM(uf_cfg_schema);

const struct uf_cfg_key *
uf_cfg_key_find(const char *section, const char *key)
{
	unsigned int i;

	for (i = 0; i < uf_cfg_schema_n; i++)
		if (strcmp(uf_cfg_schema[i].section, section) == 0 &&
		    strcmp(uf_cfg_schema[i].name, key) == 0)
			return &uf_cfg_schema[i];
	return NULL;
}
