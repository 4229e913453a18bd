/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "uf_neigh.h"

#define MAX_BACKOFF_SHIFT 3 /* retry_ms, 2x, 4x, 8x, then 8x for good */

const char *
uf_neigh_state_name(enum uf_neigh_state s)
{
	switch (s) {
	case UF_NS_STATIC:
		return "static";
	case UF_NS_INCOMPLETE:
		return "incomplete";
	case UF_NS_REACHABLE:
		return "reachable";
	case UF_NS_PROBE:
		return "probe";
	case UF_NS_FAILED:
		return "failed";
	}
	return "?";
}

void
uf_neigh_init(struct uf_neigh_table *t, const struct uf_neigh_params *prm)
{
	memset(t, 0, sizeof(*t));
	t->prm = *prm;
	if (t->prm.max_probes == 0)
		t->prm.max_probes = 1;
	if (t->prm.live_misses == 0)
		t->prm.live_misses = 1;
}

/* entry i's first liveness probe: one interval from now plus its own phase, i x the golden
 * ratio of live_ms, so entries resolved together probe at spread-out times */
static uint64_t
live_first(const struct uf_neigh_table *t, int i, uint64_t now_ms)
{
	uint64_t ms = t->prm.live_ms;

	return now_ms + ms + ((((uint64_t)i * 2654435769u) & UINT32_MAX) * ms >> 32);
}

void
uf_neigh_set_live(struct uf_neigh_table *t, int i, bool live, uint64_t now_ms)
{
	struct uf_neigh *e = &t->e[i];

	if (live && !e->live && t->prm.live_ms > 0) {
		e->live_missed = 0;
		e->live_next_ms = live_first(t, i, now_ms);
	}
	e->live = live && e->state != UF_NS_STATIC;
}

static bool
live_on(const struct uf_neigh_table *t, const struct uf_neigh *e)
{
	return e->live && t->prm.live_ms > 0;
}

int
uf_neigh_find(const struct uf_neigh_table *t, uint16_t port, rte_be32_t ip)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (t->e[i].port == port && !t->e[i].is_ip6 && t->e[i].ip == ip)
			return i;
	return -1;
}

int
uf_neigh_find6(const struct uf_neigh_table *t, uint16_t port, const struct uf_ip6 *ip)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (t->e[i].port == port && t->e[i].is_ip6 &&
		    memcmp(t->e[i].ip6.b, ip->b, sizeof(ip->b)) == 0)
			return i;
	return -1;
}

/* entry i (found: >= 0), else a new one for (port, ip or ip6); -1 when full */
static int
add_entry(struct uf_neigh_table *t, int i, uint16_t port, rte_be32_t ip, const struct uf_ip6 *ip6,
	  const struct rte_ether_addr *static_mac, uint64_t now_ms)
{
	struct uf_neigh *e;

	if (i >= 0) {
		e = &t->e[i];
	} else {
		if (t->n >= UF_NEIGH_MAX)
			return -1;
		i = t->n++;
		e = &t->e[i];
		memset(e, 0, sizeof(*e));
		e->port = port;
		e->ip = ip;
		if (ip6 != NULL) {
			e->is_ip6 = true;
			e->ip6 = *ip6;
		}
		e->state = UF_NS_INCOMPLETE;
		e->next_ms = now_ms; /* ask at the first tick */
	}
	if (static_mac != NULL) {
		e->state = UF_NS_STATIC;
		e->mac = *static_mac;
	}
	return i;
}

int
uf_neigh_add(struct uf_neigh_table *t, uint16_t port, rte_be32_t ip,
	     const struct rte_ether_addr *static_mac, uint64_t now_ms)
{
	return add_entry(t, uf_neigh_find(t, port, ip), port, ip, NULL, static_mac, now_ms);
}

int
uf_neigh_add6(struct uf_neigh_table *t, uint16_t port, const struct uf_ip6 *ip,
	      const struct rte_ether_addr *static_mac, uint64_t now_ms)
{
	return add_entry(t, uf_neigh_find6(t, port, ip), port, 0, ip, static_mac, now_ms);
}

/* a request for e: ARP by send, NS by send6 (none for IPv6 without send6) */
static void
ask(const struct uf_neigh *e, uf_neigh_send_fn send, uf_neigh_send6_fn send6, void *arg,
    const struct rte_ether_addr *mac)
{
	if (!e->is_ip6)
		send(arg, e->port, e->ip, mac);
	else if (send6 != NULL)
		send6(arg, e->port, &e->ip6, mac);
}

static uint64_t
backoff(const struct uf_neigh_table *t, uint32_t probes)
{
	uint32_t shift = probes > 0 ? probes - 1 : 0;

	if (shift > MAX_BACKOFF_SHIFT)
		shift = MAX_BACKOFF_SHIFT;
	return (uint64_t)t->prm.retry_ms << shift;
}

bool
uf_neigh_tick(struct uf_neigh_table *t, uint64_t now_ms, uf_neigh_send_fn send, void *arg)
{
	return uf_neigh_tick46(t, now_ms, send, NULL, arg);
}

bool
uf_neigh_tick46(struct uf_neigh_table *t, uint64_t now_ms, uf_neigh_send_fn send,
		uf_neigh_send6_fn send6, void *arg)
{
	bool changed = false;
	int i;

	for (i = 0; i < t->n; i++) {
		struct uf_neigh *e = &t->e[i];

		if (live_on(t, e) && (e->state == UF_NS_REACHABLE || e->state == UF_NS_PROBE) &&
		    now_ms >= e->live_next_ms) {
			if (e->live_missed >= t->prm.live_misses) {
				/* live_misses intervals without an answer: down now */
				e->state = UF_NS_FAILED;
				e->changes++;
				e->live_downs++;
				t->live_downs++;
				changed = true;
				e->next_ms = now_ms; /* start asking by broadcast */
				e->next_uc_ms = now_ms + t->prm.retry_ms;
				e->probes = 0;
				e->live_missed = 0;
				continue;
			}
			e->live_missed++;
			t->live_probes++;
			/* keep the phase; a late tick does not send a burst to catch up */
			e->live_next_ms += t->prm.live_ms;
			if (e->live_next_ms <= now_ms)
				e->live_next_ms = now_ms + t->prm.live_ms;
			ask(e, send, send6, arg, &e->mac);
		}
		switch (e->state) {
		case UF_NS_STATIC:
			break;
		case UF_NS_REACHABLE:
			if (now_ms - e->confirmed_ms < t->prm.reachable_ms)
				break;
			/* stale: keep using the MAC, confirm it with unicast requests */
			e->state = UF_NS_PROBE;
			e->probes = 0;
			e->next_ms = now_ms;
			/* fall through */
		case UF_NS_PROBE:
			if (now_ms < e->next_ms)
				break;
			if (e->probes >= t->prm.max_probes) {
				e->state = UF_NS_FAILED;
				e->changes++;
				changed = true;
				e->next_ms = now_ms; /* start asking by broadcast */
				e->next_uc_ms = now_ms + t->prm.retry_ms;
				e->probes = 0;
				break;
			}
			e->probes++;
			e->next_ms = now_ms + backoff(t, e->probes);
			ask(e, send, send6, arg, &e->mac);
			break;
		case UF_NS_INCOMPLETE:
		case UF_NS_FAILED:
			if (now_ms < e->next_ms) {
				/* between broadcasts, ask the MAC it last had: the short way back */
				if (e->state == UF_NS_FAILED && now_ms >= e->next_uc_ms &&
				    !rte_is_zero_ether_addr(&e->mac)) {
					e->next_uc_ms = now_ms + t->prm.retry_ms;
					ask(e, send, send6, arg, &e->mac);
				}
				break;
			}
			e->next_uc_ms = now_ms + t->prm.retry_ms;
			e->probes++;
			if (e->state == UF_NS_INCOMPLETE && e->probes > t->prm.max_probes) {
				e->state = UF_NS_FAILED;
				e->changes++;
				changed = true; /* reported, though nothing usable changed */
			}
			e->next_ms = now_ms + backoff(t, e->probes);
			ask(e, send, send6, arg, NULL);
			break;
		}
	}
	return changed;
}

uint64_t
uf_neigh_next_ms(const struct uf_neigh_table *t, uint64_t now_ms)
{
	uint64_t next = UINT64_MAX, at;
	int i;

	for (i = 0; i < t->n; i++) {
		const struct uf_neigh *e = &t->e[i];

		switch (e->state) {
		case UF_NS_STATIC:
			continue;
		case UF_NS_REACHABLE:
			at = e->confirmed_ms + t->prm.reachable_ms; /* goes stale: PROBE */
			if (live_on(t, e) && e->live_next_ms < at)
				at = e->live_next_ms;
			break;
		case UF_NS_FAILED:
			at = e->next_ms;
			/* the unicast probe to the MAC it last had, between broadcasts */
			if (!rte_is_zero_ether_addr(&e->mac) && e->next_uc_ms < at)
				at = e->next_uc_ms;
			break;
		default: /* INCOMPLETE, PROBE: the next request */
			at = e->next_ms;
			if (e->state == UF_NS_PROBE && live_on(t, e) && e->live_next_ms < at)
				at = e->live_next_ms;
			break;
		}
		if (at < next)
			next = at;
	}
	return next < now_ms ? now_ms : next;
}

/* entry i heard from with mac: REACHABLE at mac */
static bool
learn_entry(struct uf_neigh_table *t, int i, const struct rte_ether_addr *mac, uint64_t now_ms)
{
	struct uf_neigh *e;
	bool changed;

	if (i < 0)
		return false;
	e = &t->e[i];
	if (e->state == UF_NS_STATIC)
		return false;
	if (!rte_is_unicast_ether_addr(mac) || rte_is_zero_ether_addr(mac))
		return false; /* never a neighbour's: the parsers refuse them first */
	changed = !uf_neigh_usable(e) || !rte_is_same_ether_addr(&e->mac, mac);
	if (!uf_neigh_usable(e) && live_on(t, e))
		e->live_next_ms = live_first(t, i, now_ms); /* usable again: probe from now */
	e->live_missed = 0;
	e->heard++;
	e->mac = *mac;
	e->state = UF_NS_REACHABLE;
	e->confirmed_ms = now_ms;
	e->probes = 0;
	if (changed)
		e->changes++;
	return changed;
}

bool
uf_neigh_learn(struct uf_neigh_table *t, uint16_t port, rte_be32_t ip,
	       const struct rte_ether_addr *mac, uint64_t now_ms)
{
	return learn_entry(t, uf_neigh_find(t, port, ip), mac, now_ms);
}

bool
uf_neigh_learn6(struct uf_neigh_table *t, uint16_t port, const struct uf_ip6 *ip,
		const struct rte_ether_addr *mac, bool override, uint64_t now_ms)
{
	int i = uf_neigh_find6(t, port, ip);
	struct uf_neigh *e;

	if (i < 0)
		return false;
	e = &t->e[i];
	if (e->state == UF_NS_STATIC)
		return false;
	if (mac == NULL) {
		if (uf_neigh_usable(e)) { /* a confirmation of the MAC it has */
			e->state = UF_NS_REACHABLE;
			e->confirmed_ms = now_ms;
			e->probes = 0;
			e->live_missed = 0;
			e->heard++;
		}
		return false;
	}
	if (uf_neigh_usable(e) && !override && !rte_is_same_ether_addr(&e->mac, mac))
		return false; /* RFC 4861 7.2.5: the address it has stays */
	return learn_entry(t, i, mac, now_ms);
}

void
uf_neigh_port_up(struct uf_neigh_table *t, uint16_t port, uint64_t now_ms)
{
	int i;

	for (i = 0; i < t->n; i++) {
		struct uf_neigh *e = &t->e[i];

		if (e->port != port || e->state == UF_NS_STATIC)
			continue;
		e->next_ms = now_ms;
		if (e->state == UF_NS_REACHABLE) {
			e->state = UF_NS_PROBE;
			e->probes = 0;
		}
	}
}

uint64_t
uf_neigh_live_account(struct uf_neigh_live_acct *a, const struct uf_neigh *e, uint64_t tx_ok)
{
	uint64_t added = 0;

	/* down (a reload's new entry may count from 0: only a rise is a failure) */
	if (e->live_downs > a->downs && tx_ok > a->mark)
		added = tx_ok - a->mark;
	a->suspect += added;
	a->downs = e->live_downs;
	if (e->heard != a->heard || e->state == UF_NS_FAILED)
		a->mark = tx_ok; /* answered now; or down: counted up to here */
	a->heard = e->heard;
	return added;
}
