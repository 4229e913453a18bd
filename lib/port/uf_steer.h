/* SPDX-License-Identifier: BSD-3-Clause
 * Spreading the listen port's datagrams over the workers: RSS with a RETA over the worker
 * queues, and rte_flow where the PMD supports it (validated first; on failure plain RSS,
 * with one log line saying which and why).
 */
#ifndef UF_STEER_H
#define UF_STEER_H

#include <stdint.h>

#include <rte_flow.h>

#include "uf_common.h"

struct uf_port;

/* rte_flow calls, behind a table so that tests can fake a PMD's answers. */
struct uf_flow_ops {
	int (*validate)(uint16_t port_id, const struct rte_flow_attr *attr,
			const struct rte_flow_item pattern[],
			const struct rte_flow_action actions[], struct rte_flow_error *error);
	struct rte_flow *(*create)(uint16_t port_id, const struct rte_flow_attr *attr,
				   const struct rte_flow_item pattern[],
				   const struct rte_flow_action actions[],
				   struct rte_flow_error *error);
	int (*destroy)(uint16_t port_id, struct rte_flow *flow, struct rte_flow_error *error);
};

extern const struct uf_flow_ops uf_flow_ops_rte;

enum uf_steer_kind {
	UF_STEER_SINGLE = 0, /* one queue: nothing to steer */
	UF_STEER_RSS,        /* the port's RSS (and RETA) spreads everything */
	UF_STEER_FLOW, /* an rte_flow RSS rule spreads the listen port; the rest as RSS/isolate */
};

/* one rule per listener on the port, then ARP, ICMP, ICMPv6 or the catch-all */
#define UF_STEER_MAX_LISTEN UF_MAX_LISTENERS
#define UF_STEER_MAX_FLOWS (UF_STEER_MAX_LISTEN + 4)

/* What a port receives datagrams on: a listener's UDP port and address, IPv4 or IPv6
 * (docs/configuration.md#ipv6). An IPv6 listener's rule is ETH / IPV6 dst / UDP dst and
 * hashes on NONFRAG_IPV6_UDP: a PMD that derives the hash fields from the pattern's L3
 * (mlx5) would hash an IPv6 rule with IPv4 types on nothing (docs/pmd-quirks.md#ipv6). */
struct uf_steer_listen {
	uint16_t udp_port; /* host order */
	uint32_t dst_ip;   /* network order; IPv4 listener */
	bool is_ip6;
	struct uf_ip6 dst_ip6; /* IPv6 listener */
};

struct uf_steer_result {
	enum uf_steer_kind kind;
	int n_flows;
	struct rte_flow *flows[UF_STEER_MAX_FLOWS];
	bool blind;   /* isolated and the listen port's rule refused: no datagram would arrive */
	bool refused; /* a listener's rule was refused (not isolated: plain RSS) */
	char why[160];
};

/*
 * Try rte_flow for `udp_port` on `port_id` over nb_queues queues: an RSS rule for the listen
 * port (udp_port 0: a port that only sends), and (not isolated) a lower-priority catch-all to
 * queue 0 where the PMD takes one, or (isolated, on every port) ARP and ICMP to queue 0.
 * Falls back to RSS when validation fails; `blind` says an isolated port lost its rule.
 */
void uf_steer_flows(uint16_t port_id, uint16_t nb_queues, uint16_t udp_port, uint32_t dst_ip,
		    bool isolated, const struct uf_flow_ops *ops, struct uf_steer_result *res);

/*
 * The same for every listener on the port (docs/architecture.md#listeners): one RSS rule per
 * (address, UDP port), of the listener's family. Not isolated, a refused rule takes the
 * others back out (plain RSS spreads them all alike); isolated, it leaves `blind` set, as
 * that listener would be deaf. Isolated, the control traffic goes to queue 0: ARP and ICMP
 * where the port has an IPv4 address (port_ip != 0), ICMPv6 (NDP, echo: any destination,
 * as a Neighbor Solicitation goes to the solicited-node group) where it has ip6.
 */
void uf_steer_flows_multi(uint16_t port_id, uint16_t nb_queues, const struct uf_steer_listen *ls,
			  int n_ls, uint32_t port_ip, bool port_ip6, bool isolated,
			  const struct uf_flow_ops *ops, struct uf_steer_result *res);

/* Port-level entry points (uf_port.c): RETA + flows, and removal at shutdown. setup returns
 * -ENOTSUP when the port is isolated and the listen rule was refused (it would be deaf). */
int uf_steer_setup(struct uf_port *p, uint16_t udp_port);
/* The same with every listener on the port (n 0: it only sends). */
int uf_steer_setup_multi(struct uf_port *p, const struct uf_steer_listen *ls, int n);
void uf_steer_teardown(struct uf_port *p);

#endif /* UF_STEER_H */
