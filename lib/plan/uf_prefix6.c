/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "uf_prefix6.h"

/* rte_lpm6 for rules of many lengths: a tbl8 group per 8 bits past /24 at most */
static struct rte_lpm6 *
prefix6_lpm6(const uint8_t (*prefixes)[16], const uint8_t *lens, const uint32_t *next_hop, int n,
	     int socket)
{
	struct rte_lpm6_config lc = { .max_rules = (uint32_t)RTE_MAX(n, 1) };
	char name[RTE_LPM6_NAMESIZE];
	static unsigned int seq;
	struct rte_lpm6 *lpm;
	uint32_t groups = 0;
	int i, ret;

	for (i = 0; i < n; i++)
		if (lens[i] > 24)
			groups += (uint32_t)(lens[i] - 24 + 7) / 8;
	lc.number_tbl8s = RTE_MAX(groups, 16u);
	snprintf(name, sizeof(name), "uf_rules6_%u", seq++);
	lpm = rte_lpm6_create(name, socket, &lc);
	if (lpm == NULL)
		return NULL;
	/* in reverse: where two rules are the same, the first's next hop stays */
	for (i = n - 1; i >= 0; i--) {
		ret = rte_lpm6_add(lpm, UF_LPM6_ADDR(prefixes[i]), lens[i], next_hop[i]);
		if (ret < 0) {
			rte_lpm6_free(lpm);
			rte_errno = -ret;
			return NULL;
		}
	}
	return lpm;
}

static int
len_desc(const void *x, const void *y)
{
	return *(const uint8_t *)y - *(const uint8_t *)x;
}

struct uf_prefix6 *
uf_prefix6_build(const uint8_t (*prefixes)[16], const uint8_t *lens, const uint32_t *next_hop,
		 int n, int socket)
{
	uint8_t seen[UF_PREFIX6_MAX_LENS + 1];
	uint32_t slots = 16, k;
	struct uf_prefix6 *t;
	int i, n_lens = 0;

	for (i = 0; i < n; i++) {
		int j;

		if (lens[i] == 0 || lens[i] > 128) {
			rte_errno = EINVAL;
			return NULL;
		}
		for (j = 0; j < n_lens && seen[j] != lens[i]; j++)
			;
		if (j == n_lens) {
			if (n_lens == UF_PREFIX6_MAX_LENS) {
				n_lens++;
				break;
			}
			seen[n_lens++] = lens[i];
		}
	}
	while (slots < 4 * (uint32_t)n)
		slots *= 2;
	if (n_lens > UF_PREFIX6_MAX_LENS)
		slots = 0;
	t = rte_zmalloc_socket("uf_prefix6", sizeof(*t) + slots * sizeof(t->slots[0]),
			       RTE_CACHE_LINE_SIZE, socket);
	if (t == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	if (n_lens > UF_PREFIX6_MAX_LENS) {
		t->lpm6 = prefix6_lpm6(prefixes, lens, next_hop, n, socket);
		if (t->lpm6 == NULL) {
			rte_free(t);
			return NULL;
		}
		return t;
	}
	qsort(seen, (size_t)n_lens, 1, len_desc);
	t->n_lens = (uint8_t)n_lens;
	t->mask = slots - 1;
	t->shift = 64 - (uint32_t)rte_log2_u32(slots);
	for (k = 0; k < (uint32_t)n_lens; k++) {
		uint8_t m[16];
		int b;

		for (b = 0; b < 16; b++) {
			const int keep = seen[k] - 8 * b;

			m[b] = keep >= 8 ? 0xff : keep <= 0 ? 0 : (uint8_t)(0xff << (8 - keep));
		}
		t->lens[k] = seen[k];
		t->ma[k] = uf_rd64(m);
		t->mb[k] = uf_rd64(m + 8);
	}
	for (k = 0; k < slots; k++)
		t->slots[k].set = UF_PREFIX6_EMPTY;
	for (i = 0; i < n; i++) {
		uint64_t a, b;
		uint32_t li, s;

		for (li = 0; t->lens[li] != lens[i]; li++)
			;
		a = uf_rd64(prefixes[i]) & t->ma[li];
		b = uf_rd64(prefixes[i] + 8) & t->mb[li];
		for (s = uf_prefix6_hash(a, b, li, t->shift); t->slots[s].set != UF_PREFIX6_EMPTY;
		     s = (s + 1) & t->mask)
			if (t->slots[s].a == a && t->slots[s].b == b && t->slots[s].li == li)
				break; /* the same rule again: the first stays */
		if (t->slots[s].set != UF_PREFIX6_EMPTY)
			continue;
		t->slots[s].a = a;
		t->slots[s].b = b;
		t->slots[s].li = (uint8_t)li;
		t->slots[s].set = next_hop[i];
	}
	return t;
}

void
uf_prefix6_free(struct uf_prefix6 *t)
{
	if (t == NULL)
		return;
	rte_lpm6_free(t->lpm6);
	rte_free(t);
}
