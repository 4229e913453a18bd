/* SPDX-License-Identifier: BSD-3-Clause
 * Sequence accounting for udpfan-sink: received, distinct, lost, duplicated, reordered, from
 * the 64-bit sequence number at the start of each payload. Pure code, no EAL: unit-tested.
 *
 * A sliding bitmap of W = 2^win_log2 sequence numbers, [max_seq - W + 1, max_seq], records
 * which of them arrived. A new highest sequence slides the window forward and clears the
 * positions it reuses; so memory is W/8 bytes per destination whatever the run's length.
 *
 * Exact while every datagram arrives less than W behind the highest one seen:
 *   lost       = (hi - lo + 1) - distinct, lo = min seen (or the expected first, if lower),
 *                hi = max seen (or the expected last, if higher);
 *   duplicated = arrivals whose sequence was already seen;
 *   reordered  = first arrivals of a sequence lower than the highest seen before it.
 * Beyond the window: an arrival more than W - 1 behind the highest is counted in
 * beyond_window only: it cannot be told from a duplicate. It is left out of distinct, so
 * `lost` then counts it as lost: lost is an upper bound (by at most beyond_window) and
 * duplicated a lower bound; uf_seqtrack_exact() says which case applies.
 * Without expectations the sink cannot see what was lost before the first or after the
 * highest datagram it received (a late start, a lost tail): compare with the generator's
 * first_seq/last_seq, or pass them as expectations.
 *
 * Cost: one branch, one bit test-and-set per datagram in order; a jump of k sequence numbers
 * clears k bits (k/64 words), a jump >= W clears the bitmap once.
 */
#ifndef UF_SEQTRACK_H
#define UF_SEQTRACK_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>

#define UF_SEQ_WIN_LOG2_DEFAULT 20 /* 1 Mi sequence numbers, 128 KiB a destination */
#define UF_SEQ_WIN_LOG2_MIN 6
#define UF_SEQ_WIN_LOG2_MAX 30

struct uf_seqtrack {
	uint64_t *bits; /* W / 64 words, caller-provided (uf_seqtrack_bytes) */
	uint64_t mask;  /* W - 1 */
	bool any;       /* at least one sequence number seen */
	uint64_t first; /* of the first arrival */
	uint64_t min;
	uint64_t max;
	uint64_t updates; /* sequence numbers fed in */
	uint64_t distinct;
	uint64_t duplicated;
	uint64_t reordered;
	uint64_t beyond_window;
};

/* Bytes of bitmap a window of 2^win_log2 needs. */
static inline size_t
uf_seqtrack_bytes(unsigned int win_log2)
{
	return ((size_t)1 << win_log2) / 8;
}

/* bits: uf_seqtrack_bytes(win_log2) bytes, 8-byte aligned; zeroed here. */
void uf_seqtrack_init(struct uf_seqtrack *t, uint64_t *bits, unsigned int win_log2);

/* clear positions (from .. from + n - 1) mod W; n < W */
void uf_seqtrack_clear_(struct uf_seqtrack *t, uint64_t from, uint64_t n);

static inline bool
uf_seqtrack_tas_(uint64_t *bits, uint64_t pos)
{
	uint64_t *w = &bits[pos >> 6];
	const uint64_t b = UINT64_C(1) << (pos & 63);
	const bool was = (*w & b) != 0;

	*w |= b;
	return was;
}

static inline void
uf_seqtrack_add(struct uf_seqtrack *t, uint64_t seq)
{
	t->updates++;
	if (likely(seq > t->max && t->any)) {
		const uint64_t gap = seq - t->max;

		/* positions max+1 .. seq-1 now stand for sequences not seen (yet); seq's own
		 * position is overwritten below. gap == 1, the usual case, clears nothing. */
		if (unlikely(gap > t->mask))
			memset(t->bits, 0, (t->mask + 1) / 8);
		else if (unlikely(gap > 1))
			uf_seqtrack_clear_(t, t->max + 1, gap - 1);
		t->max = seq;
		t->bits[(seq & t->mask) >> 6] |= UINT64_C(1) << (seq & 63);
		t->distinct++;
		return;
	}
	if (unlikely(!t->any)) {
		t->any = true;
		t->first = t->min = t->max = seq;
		uf_seqtrack_tas_(t->bits, seq & t->mask);
		t->distinct = 1;
		return;
	}
	/* seq <= max */
	if (unlikely(t->max - seq > t->mask)) {
		t->beyond_window++;
		return;
	}
	if (uf_seqtrack_tas_(t->bits, seq & t->mask)) {
		t->duplicated++;
		return;
	}
	t->distinct++;
	t->reordered++;
	if (seq < t->min)
		t->min = seq;
}

/* Expectations: the first and last sequence numbers the sender sent, if known. */
struct uf_seq_expect {
	bool has_first;
	uint64_t first;
	bool has_last;
	uint64_t last;
};

/*
 * Lost datagrams, or -1 when it cannot be known. With expectations, the span runs from
 * min(min seen, first) to max(max seen, last); without, from the lowest to the highest
 * sequence number seen. Nothing arrived: unknown, unless both ends are expected (then all
 * of them were lost). A count beyond INT64_MAX (a span of 2^63 or more: sequence numbers
 * that are not a generator's) saturates at INT64_MAX, never negative.
 */
int64_t uf_seqtrack_lost(const struct uf_seqtrack *t, const struct uf_seq_expect *e);

/* true when lost and duplicated are exact (no arrival fell beyond the window) */
static inline bool
uf_seqtrack_exact(const struct uf_seqtrack *t)
{
	return t->beyond_window == 0;
}

#endif /* UF_SEQTRACK_H */
