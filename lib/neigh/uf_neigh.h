/* SPDX-License-Identifier: BSD-3-Clause
 * The neighbour table: the next hops udpfan needs (each destination's, or its port's
 * gateway), resolved by ARP (IPv4) or Neighbour Discovery (IPv6: NS/NA, RFC 4861; entries
 * keyed by port and address family as well as address, the same states and timers). A small state machine driven by a clock the caller passes in
 * (milliseconds), so tests run it on a fake clock.
 *
 *   INCOMPLETE --reply--> REACHABLE --reachable_ms--> PROBE --reply--> REACHABLE
 *        |  (broadcast requests, backoff)                |  (unicast requests)
 *        +--max_probes--> FAILED <------max_probes--------+
 *   FAILED keeps asking by broadcast (with backoff up to 8 x retry_ms) and, when it had a
 *   MAC before, also by unicast to that MAC every retry_ms, so a neighbour that comes back
 *   is found within about one retry_ms; it becomes REACHABLE on the first reply or
 *   gratuitous ARP (docs/architecture.md, "Neighbours").
 *
 * A neighbour's MAC is usable in REACHABLE and PROBE (and STATIC); copies to a neighbour in
 * INCOMPLETE or FAILED are dropped and counted as no_neighbor.
 *
 * Liveness (an entry with live set: the next hop of a pool member, or of a destination with
 * `liveness: true`; docs/configuration.md#pools): while its MAC is usable, a unicast request
 * to that MAC every live_ms, whatever reachable_ms says; after live_misses of them in a row
 * unanswered it is FAILED at once (then as above: unicast every retry_ms, so it comes back
 * within about one retry_ms of answering). Each entry's probes keep a phase of their own
 * within live_ms, so a large pool's are spread over the interval, not sent in one burst.
 */
#ifndef UF_NEIGH_H
#define UF_NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#include "uf_common.h"

#define UF_NEIGH_MAX 512

enum uf_neigh_state {
	UF_NS_STATIC = 0,
	UF_NS_INCOMPLETE,
	UF_NS_REACHABLE,
	UF_NS_PROBE,
	UF_NS_FAILED,
};

struct uf_neigh {
	uint16_t port; /* port index */
	bool is_ip6;   /* an IPv6 neighbour (ip6), else IPv4 (ip) */
	rte_be32_t ip;
	struct uf_ip6 ip6;
	enum uf_neigh_state state;
	struct rte_ether_addr mac;
	uint32_t probes;       /* requests sent since the last answer */
	uint64_t next_ms;      /* when to send the next request */
	uint64_t next_uc_ms;   /* FAILED: when to send the next unicast probe to mac */
	uint64_t confirmed_ms; /* last answer */
	uint64_t changes;      /* times the usable MAC appeared, changed or went away */
	bool live;             /* liveness probes (prm.live_ms) while usable */
	uint32_t live_missed;  /* liveness probes sent since the last answer */
	uint64_t live_next_ms; /* when the next liveness probe is due */
	uint64_t heard;        /* answers (replies, gratuitous, NAs) taken, ever */
	uint64_t live_downs;   /* times liveness marked it FAILED */
};

struct uf_neigh_params {
	uint32_t reachable_ms;
	uint32_t retry_ms;
	uint32_t max_probes;
	uint32_t live_ms;     /* liveness probe interval; 0: no liveness probes */
	uint32_t live_misses; /* unanswered liveness probes before FAILED */
};

struct uf_neigh_table {
	struct uf_neigh_params prm;
	int n;
	uint64_t live_probes; /* liveness probes sent (also in the ARP/NS request counts) */
	uint64_t live_downs;  /* entries liveness marked FAILED */
	struct uf_neigh e[UF_NEIGH_MAX];
};

/* What the table asks the caller to send: an ARP request for ip on port, to mac (unicast
 * probe) or broadcast (mac NULL). */
typedef void (*uf_neigh_send_fn)(void *arg, uint16_t port, rte_be32_t ip,
				 const struct rte_ether_addr *mac);

/* The same for an IPv6 neighbour: a Neighbor Solicitation for ip on port, to mac (unicast
 * probe) or to ip's solicited-node group (mac NULL). */
typedef void (*uf_neigh_send6_fn)(void *arg, uint16_t port, const struct uf_ip6 *ip,
				  const struct rte_ether_addr *mac);

void uf_neigh_init(struct uf_neigh_table *t, const struct uf_neigh_params *prm);

/* Find or add the entry for (port, ip); -1 when full. A static MAC makes it STATIC. */
int uf_neigh_add(struct uf_neigh_table *t, uint16_t port, rte_be32_t ip,
		 const struct rte_ether_addr *static_mac, uint64_t now_ms);

int uf_neigh_find(const struct uf_neigh_table *t, uint16_t port, rte_be32_t ip);

/* The same for an IPv6 neighbour (port, ip). */
int uf_neigh_add6(struct uf_neigh_table *t, uint16_t port, const struct uf_ip6 *ip,
		  const struct rte_ether_addr *static_mac, uint64_t now_ms);
int uf_neigh_find6(const struct uf_neigh_table *t, uint16_t port, const struct uf_ip6 *ip);

/* Run timers: send due requests, move states. Returns true if any usable MAC changed. */
bool uf_neigh_tick(struct uf_neigh_table *t, uint64_t now_ms, uf_neigh_send_fn send, void *arg);

/* The same, with IPv6 entries' solicitations sent by send6 (both get arg); uf_neigh_tick is
 * this with send6 NULL (IPv6 entries then move through their states sending nothing). */
bool uf_neigh_tick46(struct uf_neigh_table *t, uint64_t now_ms, uf_neigh_send_fn send,
		     uf_neigh_send6_fn send6, void *arg);

/* When uf_neigh_tick next has something to do (send a request or move a state): the
 * earliest such time in ms on the table's clock, at most now_ms when something is due
 * already; UINT64_MAX when nothing ever is (an empty table, or only STATIC entries). Only
 * uf_neigh_tick, uf_neigh_learn, uf_neigh_add and uf_neigh_port_up move it: the control
 * lcore sleeps until then (docs/architecture.md#the-control-lcore). */
uint64_t uf_neigh_next_ms(const struct uf_neigh_table *t, uint64_t now_ms);

/* An ARP packet from (port, ip, mac) was seen. Returns true if a usable MAC changed. Only
 * entries already in the table are updated: udpfan learns the neighbours it needs. */
bool uf_neigh_learn(struct uf_neigh_table *t, uint16_t port, rte_be32_t ip,
		    const struct rte_ether_addr *mac, uint64_t now_ms);

/*
 * A Neighbor Advertisement (or an NS with a source link-layer address) from (port, ip) was
 * seen: mac is the link-layer address it carried (NULL: none), override its Override flag
 * (true for an NS's SLLA). RFC 4861 7.2.5, simplified to the states here (no STALE, no
 * DELAY; udpfan never sends to a neighbour it is not resolving):
 *   - an entry not in the table, or STATIC: nothing;
 *   - no MAC carried: an entry with a usable MAC is confirmed (REACHABLE), else nothing;
 *   - a usable MAC, a different one carried without Override: nothing (not even confirmed:
 *     RFC 4861 keeps the old address; the next probe asks again);
 *   - else the MAC is taken and the entry is REACHABLE, whether Solicited was set or not
 *     (as an ARP reply or a gratuitous ARP does on the IPv4 side).
 * Returns true if a usable MAC changed.
 */
bool uf_neigh_learn6(struct uf_neigh_table *t, uint16_t port, const struct uf_ip6 *ip,
		     const struct rte_ether_addr *mac, bool override, uint64_t now_ms);

/* Liveness probes for entry i (prm.live_ms apart while its MAC is usable), from now_ms. */
void uf_neigh_set_live(struct uf_neigh_table *t, int i, bool live, uint64_t now_ms);

/*
 * Liveness accounting for one destination of a probed entry (docs/loss-accounting.md#liveness):
 * the destination's tx_ok when the entry last answered (mark), the copies sent from then
 * until a liveness failure (suspect, summed over failures), and the entry's heard and
 * live_downs as last seen. uf_neigh_live_due says whether the entry moved since;
 * uf_neigh_live_account then takes the destination's tx_ok now and returns what it added
 * to suspect. Called after the plan without a failed entry is in use, so every copy the
 * old plan sent it is in tx_ok.
 */
struct uf_neigh_live_acct {
	uint64_t mark;
	uint64_t suspect;
	uint64_t heard;
	uint64_t downs;
};

static inline bool
uf_neigh_live_due(const struct uf_neigh_live_acct *a, const struct uf_neigh *e)
{
	return e->live_downs != a->downs || e->heard != a->heard;
}

uint64_t uf_neigh_live_account(struct uf_neigh_live_acct *a, const struct uf_neigh *e,
			       uint64_t tx_ok);

/* The port's link came back: re-probe everything on it now. */
void uf_neigh_port_up(struct uf_neigh_table *t, uint16_t port, uint64_t now_ms);

static inline bool
uf_neigh_usable(const struct uf_neigh *e)
{
	return e->state == UF_NS_STATIC || e->state == UF_NS_REACHABLE || e->state == UF_NS_PROBE;
}

const char *uf_neigh_state_name(enum uf_neigh_state s);

#endif /* UF_NEIGH_H */
