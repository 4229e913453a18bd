/* SPDX-License-Identifier: BSD-3-Clause */
#include "uf_seqtrack.h"

void
uf_seqtrack_init(struct uf_seqtrack *t, uint64_t *bits, unsigned int win_log2)
{
	memset(t, 0, sizeof(*t));
	t->bits = bits;
	t->mask = (UINT64_C(1) << win_log2) - 1;
	memset(bits, 0, uf_seqtrack_bytes(win_log2));
}

void
uf_seqtrack_clear_(struct uf_seqtrack *t, uint64_t from, uint64_t n)
{
	while (n > 0) {
		const uint64_t pos = from & t->mask;
		const uint64_t bit = pos & 63;
		const uint64_t k = 64 - bit < n ? 64 - bit : n;
		const uint64_t m = k == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << k) - 1) << bit;

		/* W is a multiple of 64: a word never straddles the wrap */
		t->bits[pos >> 6] &= ~m;
		from += k;
		n -= k;
	}
}

/*
 * hi - lo + 1 - have, which need not fit in an int64_t: the span hi - lo + 1 is 2^64 (0)
 * for the whole range, and a count above INT64_MAX would read as negative, "unknown".
 * Saturate at INT64_MAX instead (have <= the span: each distinct number lies in it).
 */
static int64_t
lost_in(uint64_t lo, uint64_t hi, uint64_t have)
{
	uint64_t missing;

	if (have == 0) {
		missing = hi - lo; /* less one */
		return missing >= (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)missing + 1;
	}
	missing = (hi - lo) - (have - 1);
	return missing > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)missing;
}

int64_t
uf_seqtrack_lost(const struct uf_seqtrack *t, const struct uf_seq_expect *e)
{
	uint64_t lo, hi;

	if (!t->any) {
		if (e != NULL && e->has_first && e->has_last && e->last >= e->first)
			return lost_in(e->first, e->last, 0);
		return -1;
	}
	lo = t->min;
	hi = t->max;
	if (e != NULL && e->has_first && e->first < lo)
		lo = e->first;
	if (e != NULL && e->has_last && e->last > hi)
		hi = e->last;
	return lost_in(lo, hi, t->distinct);
}
