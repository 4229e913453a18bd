/* SPDX-License-Identifier: BSD-3-Clause
 * Destinations and the plan: each destination's next hop (a neighbour entry, a static MAC
 * or a multicast MAC), and the fan-out plan built from them and the ports, published to the
 * workers through RCU (docs/architecture.md). Control lcore only.
 */
#ifndef UF_RESOLVE_H
#define UF_RESOLVE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#include "uf_config.h"
#include "uf_fwd.h"
#include "uf_neigh.h"
#include "uf_port.h"
#include "uf_stats.h"

struct rte_lpm;
struct uf_prefix6;

struct uf_resolve {
	const struct uf_config *cfg;
	struct rte_lpm *lpm; /* rules (NULL: none) */
	/* several listeners: each one's rules (NULL: none); lpm is not used then */
	struct rte_lpm *lis_lpm[UF_MAX_LISTENERS];
	/* the same for IPv6 rules (an IPv6 listener's) */
	struct uf_prefix6 *lpm6;
	struct uf_prefix6 *lis_lpm6[UF_MAX_LISTENERS];
	/* destination → neighbour entry (-1: static MAC or multicast) */
	struct uf_neigh_table neigh;
	int dest_neigh[UF_MAX_DESTS];
	struct rte_ether_addr dest_mac[UF_MAX_DESTS];
	bool dest_resolved[UF_MAX_DESTS];
	uint64_t plan_version; /* of the published plan; 0: none yet */
	/* counter slots (docs/architecture.md#reload): destination i's copies are counted in
	 * the workers' dctr[dest_slot[i]] and planned at plan->dests[dest_slot[i]]. A
	 * destination that stays across a reload keeps its slot (its counters and sampling
	 * phase); a removed one's slot is retired, and reused last, from slot_base on. */
	uint16_t dest_slot[UF_MAX_DESTS];
	uint16_t n_slots;
	uint8_t slot_state[UF_MAX_DESTS]; /* UF_SLOT_* */
	struct uf_dest_ctr slot_base[UF_MAX_DESTS];
	/* pools: the links as the control lcore last saw them (NULL: all up), and as the
	 * published plan took them; a difference publishes a new plan (uf_app_check_links) */
	const bool *port_up;
	bool port_up_used[UF_MAX_PORTS];
	/* liveness (docs/loss-accounting.md#liveness), per counter slot */
	struct uf_neigh_live_acct live[UF_MAX_DESTS];
};

#define UF_SLOT_FREE 0    /* never used */
#define UF_SLOT_USED 1    /* a destination's */
#define UF_SLOT_RETIRED 2 /* a removed destination's */

/*
 * The rule tables of cfg (on socket) into r: r->lpm, or with several listeners each one's
 * r->lis_lpm[l], built from nothing, what r held there before left alone (a reload's r is
 * a copy of the running one, whose tables stay until the swap). Start and reload both
 * build them here, so a reloaded plan routes as a fresh start with the same file does
 * (docs/configuration.md#reload). 0, or -ENOMEM with err (nothing left built).
 */
int uf_resolve_rules(struct uf_resolve *r, const struct uf_config *cfg, int socket,
		     struct uf_err *err);
/* Free r's rule tables. */
void uf_resolve_rules_free(struct uf_resolve *r);

/* The neighbour table's parameters from the config's arp section (start and reload). */
void uf_neigh_params_of(const struct uf_config *cfg, struct uf_neigh_params *np);

/* The rule tables (on socket) and every destination's next hop. 0, or -errno with err. */
int uf_resolve_init(struct uf_resolve *r, const struct uf_config *cfg, int socket,
		    struct uf_err *err);

/*
 * An IPv6 destination's next hop (docs/architecture.md#neighbour-discovery): itself when it
 * is link-local or on one of its port's ip6 prefixes (or the port has no gateway6), else the
 * port's gateway6 (link-local, the common form, or global).
 */
void uf_next_hop6(const struct uf_config *cfg, const struct uf_cfg_dest *d, struct uf_ip6 *nh);

/*
 * Destination i of cfg into r: its MAC when static or multicast (IPv4 01:00:5e, IPv6
 * 33:33), else the neighbour entry of its next hop (IPv4 or IPv6), added to r->neigh (at
 * now_ms); an entry for the same next hop in OLD (a reload's running table; NULL: none)
 * is taken over with its state, MAC and timers. 0, or -ENOSPC (the table is full).
 */
int uf_resolve_dest(struct uf_resolve *r, const struct uf_config *cfg, int i,
		    const struct uf_neigh_table *old, uint64_t now_ms);

/* Build a plan from the neighbours as they are now and publish it to sh; the old one is
 * freed once every worker has been quiescent (ctr->plan_updates counts replacements).
 * 0, or -1 (the old plan stays). */
int uf_resolve_publish(struct uf_resolve *r, const struct uf_port *ports, struct uf_shared *sh,
		       struct uf_ctl_ctr *ctr);

/* The destinations' part of a snapshot (addresses, next hop, MAC, state; not the counters). */
void uf_resolve_snapshot(const struct uf_resolve *r, struct uf_snap *s);

void uf_resolve_fini(struct uf_resolve *r);

#endif /* UF_RESOLVE_H */
