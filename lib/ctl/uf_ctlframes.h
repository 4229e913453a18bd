/* SPDX-License-Identifier: BSD-3-Clause
 * Control frames on the control lcore: what the workers hand over (ARP for our addresses and
 * next hops, ICMP echo to us; for IPv6, told apart by EtherType: NS/NA and ICMPv6 echo) is
 * answered or learned from, ARP requests, NSs, gratuitous ARP and unsolicited NAs go out
 * through worker 0's TX ring, and echo replies are rate-limited per port (a token bucket
 * of control.icmp_rate), ARP replies and answers to NSs too (control.neigh_rate); TCP to
 * health.tcp_port is answered by the health-check responder (uf_hc, health.rate). Every frame handed over lands in one control counter
 * (docs/loss-accounting.md#control-plane-counters).
 */
#ifndef UF_CTLFRAMES_H
#define UF_CTLFRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "uf_config.h"
#include "uf_fwd.h"
#include "uf_hc.h"
#include "uf_health.h"
#include "uf_neigh.h"
#include "uf_port.h"
#include "uf_stats.h"

struct uf_ctlframes {
	const struct uf_config *cfg;
	const struct uf_port *ports;
	struct uf_worker *const *w;
	uint16_t n_workers;
	struct uf_neigh_table *neigh;
	struct uf_ctl_ctr *ctr;
	double icmp_tokens[UF_MAX_PORTS];
	uint64_t icmp_last_ms[UF_MAX_PORTS];
	double neigh_tokens[UF_MAX_PORTS]; /* ARP replies and NAs: control.neigh_rate */
	uint64_t neigh_last_ms[UF_MAX_PORTS];
	/* health checks (docs/deployment.md#health-checks-on-the-port): the responder's key
	 * and path, the instance's health as the control lcore last evaluated it, and a bucket
	 * of health.rate per port */
	struct uf_hc_conf hc;
	const struct uf_health *health;
	double hc_tokens[UF_MAX_PORTS];
	uint64_t hc_last_ms[UF_MAX_PORTS];
};

/* Workers created; the ICMP, neighbour and health-check buckets start full; HEALTH (the
 * control lcore's evaluation, read when a health check comes) stays valid. */
void uf_ctlframes_init(struct uf_ctlframes *cf, const struct uf_config *cfg,
		       const struct uf_port *ports, struct uf_worker *const *w, uint16_t n_workers,
		       struct uf_neigh_table *neigh, struct uf_ctl_ctr *ctr,
		       const struct uf_health *health);

/* Answer everything the workers handed over (ms: the control clock). True when a
 * neighbour's MAC changed (the plan needs publishing). */
bool uf_ctlframes_poll(struct uf_ctlframes *cf, uint64_t ms);

/* Is a frame waiting in a worker's ring for uf_ctlframes_poll? (before the control lcore
 * sleeps) */
bool uf_ctlframes_pending(const struct uf_ctlframes *cf);

/* When arp.gratuitous: a gratuitous ARP for port pi's IPv4 address (if it has one) and an
 * unsolicited Neighbor Advertisement (Override, to ff02::1) for each of its ip6. At start
 * and on link up. */
void uf_ctlframes_garp(struct uf_ctlframes *cf, uint16_t pi);

/* uf_neigh_tick's sender (arg: the uf_ctlframes): an ARP request, broadcast when mac is NULL. */
void uf_ctlframes_neigh_send(void *arg, uint16_t port, rte_be32_t ip,
			     const struct rte_ether_addr *mac);

/* uf_neigh_tick46's IPv6 sender: a Neighbor Solicitation from the port's best-matching
 * ip6, to the target's solicited-node group when mac is NULL, else unicast to mac. */
void uf_ctlframes_neigh_send6(void *arg, uint16_t port, const struct uf_ip6 *ip,
			      const struct rte_ether_addr *mac);

/* Workers stopped: free and count what is left in the rings (handed over but not answered:
 * ctl_unhandled; replies not sent: ctl_ring_full). */
void uf_ctlframes_drain(struct uf_ctlframes *cf);

#endif /* UF_CTLFRAMES_H */
