/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UF_PREFIX6_H
#define UF_PREFIX6_H

/*
 * IPv6 source rules as a longest-prefix-match table (docs/configuration.md#rules): one hash
 * table keyed by (prefix, length), a quarter full, probed once per distinct prefix length,
 * longest first, so a lookup costs what the rules' lengths make it, whatever their number
 * (callgrind: about 22 instructions and 24 per length probed; rte_lpm6 walks a level per byte
 * past /24: a /64, 92). Rules of more than UF_PREFIX6_MAX_LENS lengths go into an rte_lpm6
 * instead.
 */
#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_lpm6.h>

#include "uf_compat.h"
#include "uf_csum.h"

#define UF_PREFIX6_MAX_LENS 4
#define UF_PREFIX6_EMPTY UINT32_MAX

struct uf_prefix6_slot {
	uint64_t a, b; /* the prefix, host bits clear, as uf_rd64 loads its two halves */
	uint32_t set;  /* its next hop; UF_PREFIX6_EMPTY: a free slot */
	uint8_t li;    /* its length's index in lens[] */
};

struct uf_prefix6 {
	struct rte_lpm6 *lpm6; /* more than UF_PREFIX6_MAX_LENS lengths: the table is this */
	uint32_t mask;         /* slots - 1 (a power of two, at most a quarter full) */
	uint32_t shift;        /* 64 - log2(slots): the hash is the product's top bits */
	uint8_t n_lens;
	uint8_t lens[UF_PREFIX6_MAX_LENS]; /* the distinct lengths, longest first */
	uint64_t ma[UF_PREFIX6_MAX_LENS], mb[UF_PREFIX6_MAX_LENS]; /* their masks */
	struct uf_prefix6_slot slots[];
};

/* A slot for (a, b, li): multiply-shift, the product's top bits (every bit of the factor
 * reaches them; the low bits never see the factor's high bits, where a /64's last bytes are) */
static __rte_always_inline uint32_t
uf_prefix6_hash(uint64_t a, uint64_t b, uint32_t li, uint32_t shift)
{
	return (uint32_t)(((a ^ (b * 0x9e3779b97f4a7c15ull) ^ li) * 0xff51afd7ed558ccdull) >>
			  shift);
}

/* The next hop of the longest prefix that holds IP (16 bytes); false: none does */
static __rte_always_inline bool
uf_prefix6_lookup(const struct uf_prefix6 *t, const uint8_t *ip, uint32_t *set)
{
	const uint64_t a = uf_rd64(ip), b = uf_rd64(ip + 8);
	uint32_t k;

	if (unlikely(t->lpm6 != NULL))
		return rte_lpm6_lookup(t->lpm6, UF_LPM6_ADDR(ip), set) == 0;
	for (k = 0; k < t->n_lens; k++) {
		const uint64_t ma = a & t->ma[k], mb = b & t->mb[k];
		uint32_t i = uf_prefix6_hash(ma, mb, k, t->shift);

		for (;; i = (i + 1) & t->mask) {
			const struct uf_prefix6_slot *s = &t->slots[i];

			if (s->set == UF_PREFIX6_EMPTY)
				break;
			if (s->a == ma && s->b == mb && s->li == k) {
				*set = s->set;
				return true;
			}
		}
	}
	return false;
}

/* N prefixes (16 bytes each) of lengths LENS (1..128) and their next hops (below
 * UF_PREFIX6_EMPTY); the first wins where two are the same. Allocated on SOCKET
 * (SOCKET_ID_ANY: any). NULL and rte_errno on failure. Needs EAL. */
struct uf_prefix6 *uf_prefix6_build(const uint8_t (*prefixes)[16], const uint8_t *lens,
				    const uint32_t *next_hop, int n, int socket);
void uf_prefix6_free(struct uf_prefix6 *t);

#endif /* UF_PREFIX6_H */
