/* SPDX-License-Identifier: BSD-3-Clause
 * Pool tables by rendezvous hashing (uf_pool.h, docs/architecture.md#pools). Control lcore.
 */
#include <string.h>

#include "uf_pool.h"

uint64_t
uf_pool_member_id(const struct uf_cfg_dest *d)
{
	uint32_t ip = rte_be_to_cpu_32(d->ip);

	/* an IPv6 member: its address's four 32-bit words, mixed, stand for the IPv4 one */
	if (d->is_ip6) {
		uint32_t w[4];

		memcpy(w, d->ip6.b, sizeof(w));
		ip = (uint32_t)uf_pool_mix64((uint64_t)w[0] << 32 | w[1]) ^
		     (uint32_t)(uf_pool_mix64((uint64_t)w[2] << 32 | w[3]) >> 32);
	}
	return uf_pool_mix64(((uint64_t)ip << 32) | ((uint64_t)d->udp_port << 16) | d->port);
}

/* the rendezvous winners of one bucket hash: among all members, and among those up */
static void
winners(uint64_t hb, uint16_t n, const uint64_t *ids, const bool *up, int *all, int *alive)
{
	uint64_t best_all = 0, best_up = 0;
	uint16_t i;

	*all = -1;
	*alive = -1;
	for (i = 0; i < n; i++) {
		uint64_t w = uf_pool_mix64(ids[i] ^ hb);

		if (*all < 0 || w > best_all) {
			best_all = w;
			*all = i;
		}
		if (up[i] && (*alive < 0 || w > best_up)) {
			best_up = w;
			*alive = i;
		}
	}
}

uint16_t
uf_pool_fill(uint16_t *table, uint16_t *rr, uint16_t n, const uint64_t *ids, const bool *up,
	     const uint16_t *dests)
{
	uint16_t n_up = 0, i;
	uint32_t b;
	int all, alive;

	for (i = 0; i < n; i++)
		n_up += up[i];
	for (b = 0; b < UF_POOL_BUCKETS; b++) {
		winners(uf_pool_mix64(b + 0x9e3779b97f4a7c15ULL), n, ids, up, &all, &alive);
		if (alive < 0)
			table[b] = dests[all];
		else
			table[b] = (uint16_t)(dests[alive] | (alive != all ? UF_POOL_ALT : 0));
	}
	for (i = 0; i < n; i++) {
		if (up[i] || n_up == 0) {
			rr[i] = dests[i];
			continue;
		}
		winners(uf_pool_mix64(i + 0x632be59bd9b4e019ULL), n, ids, up, &all, &alive);
		rr[i] = (uint16_t)(dests[alive] | UF_POOL_ALT);
	}
	return n_up;
}
