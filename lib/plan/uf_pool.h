/* SPDX-License-Identifier: BSD-3-Clause
 * Receiver pools: which member of a pool gets a datagram (docs/configuration.md#pools,
 * docs/architecture.md#pools).
 *
 * Consistent hashing by rendezvous (highest random weight), precomputed into a table: the
 * datagram's key hashes to one of UF_POOL_BUCKETS buckets (the low 16 bits of the hash; the
 * same count whatever the member count, so a member added or removed never redraws the
 * buckets themselves), and each bucket holds the member that wins it by rendezvous among the
 * members that are up. The lookup is one hash and one load whatever the member count; the
 * rendezvous work (buckets x members weights) is done on the control lcore when the plan is
 * built. A member's weight for a bucket depends only on the member's own identity (address,
 * UDP port, egress port) and the bucket, so at every member count:
 *   - removing a member (down, or gone from the config) moves exactly its buckets, each to
 *     the member that came second there, and no other bucket;
 *   - adding one moves exactly the buckets it now wins (about 1/N of them).
 * Round robin needs no table: a per-worker turn over the members, a member that is down
 * replaced by the one that wins its slot among those up.
 *
 * A table entry is a destination index, with UF_POOL_ALT set when it is not the member
 * that would have it with every member up: a datagram sent there is counted as
 * pool_failover.
 */
#ifndef UF_POOL_H
#define UF_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_byteorder.h>

#include "uf_config.h"

#define UF_POOL_ALT 0x8000u  /* table entry: a failover member */
#define UF_POOL_DEST 0x7fffu /* table entry: the destination index */

/* Buckets per pool, fixed at every member count (a 128 KiB table per pool): 256 per member
 * at the most a pool can have (UF_MAX_DESTS), one standard deviation of a member's bucket
 * count about 6 % of its share there, 0.4 % at 2 members. */
#define UF_POOL_BUCKETS 65536u

/* One pool, as the worker sees it. */
struct uf_pool_rt {
	uint16_t entry;  /* its destination index (what rules name) */
	uint16_t n;      /* members */
	uint16_t n_up;   /* members up (resolved, link up) */
	uint8_t balance; /* enum uf_balance */
	bool sender_port;
	uint16_t *table; /* [UF_POOL_BUCKETS] bucket -> destination index | UF_POOL_ALT */
	uint16_t *rr;    /* [n] round-robin turn -> destination index | UF_POOL_ALT */
};

/* A 64-bit mixer (the finaliser of a well-known 64-bit hash: xor-shift, multiply). */
static __rte_always_inline uint64_t
uf_pool_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* The key of a datagram: the sender's IP (and UDP port), or the 5-tuple (UDP). */
static __rte_always_inline uint64_t
uf_pool_key(const struct uf_pool_rt *p, rte_be32_t src_ip, rte_be16_t src_port, rte_be32_t dst_ip,
	    rte_be16_t dst_port)
{
	uint64_t k = (uint64_t)rte_be_to_cpu_32(src_ip) << 16;

	if (p->balance == UF_BAL_HASH_FLOW)
		return (k | rte_be_to_cpu_16(src_port)) ^
		       ((uint64_t)rte_be_to_cpu_32(dst_ip) << 24) ^
		       ((uint64_t)rte_be_to_cpu_16(dst_port) << 48) ^ (17ULL << 56);
	if (p->sender_port)
		k |= rte_be_to_cpu_16(src_port);
	return k;
}

/* The table entry of a key (hash modes): its bucket is the hash's low 16 bits. */
static __rte_always_inline uint16_t
uf_pool_pick(const struct uf_pool_rt *p, uint64_t key)
{
	RTE_BUILD_BUG_ON(UF_POOL_BUCKETS != UINT16_MAX + 1u);
	return p->table[(uint16_t)uf_pool_mix64(key)];
}

/* A member's identity for rendezvous: its address, UDP port and egress port. */
uint64_t uf_pool_member_id(const struct uf_cfg_dest *d);

/*
 * Fill a pool's table (UF_POOL_BUCKETS entries) and round-robin turns. ids[i], up[i]: member
 * i's identity and state; dests[i]: its destination index. Every bucket goes to the rendezvous winner among the
 * members up (UF_POOL_ALT where that is not the winner among all); with none up, to the
 * winner among all. Returns the members up.
 */
uint16_t uf_pool_fill(uint16_t *table, uint16_t *rr, uint16_t n, const uint64_t *ids,
		      const bool *up, const uint16_t *dests);

#endif /* UF_POOL_H */
