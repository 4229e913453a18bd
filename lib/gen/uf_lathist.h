/* SPDX-License-Identifier: BSD-3-Clause
 * A latency histogram for udpfan-sink --latency (docs/benchmarks.md#latency): values in TSC
 * cycles, log-linear buckets (32 sub-buckets per power of two, so a bucket is at most 1/32
 * of its value wide: percentiles are within ~3 %), exact below 32 cycles. Fixed size, no
 * allocation per value, single writer. Pure code, no EAL.
 */
#ifndef UF_LATHIST_H
#define UF_LATHIST_H

#include <stdint.h>
#include <stdio.h>

#define UF_LAT_SUB_BITS 5
#define UF_LAT_SUB (1u << UF_LAT_SUB_BITS)
#define UF_LAT_BUCKETS ((64 - UF_LAT_SUB_BITS + 1) * UF_LAT_SUB)

struct uf_lat_hist {
	uint64_t n;
	uint64_t negative; /* stamped later than received: the TSCs disagree (counted, as 0) */
	uint64_t min;
	uint64_t max;
	double sum;
	double hz; /* TSC ticks per second, for uf_lat_json's conversion to ns */
	uint64_t b[UF_LAT_BUCKETS];
};

static inline unsigned int
uf_lat_bucket(uint64_t v)
{
	unsigned int e;

	if (v < UF_LAT_SUB)
		return (unsigned int)v;
	e = 63u - (unsigned int)__builtin_clzll(v); /* >= UF_LAT_SUB_BITS */
	return (e - UF_LAT_SUB_BITS + 1) << UF_LAT_SUB_BITS |
	       (unsigned int)((v >> (e - UF_LAT_SUB_BITS)) & (UF_LAT_SUB - 1));
}

/* The smallest value that falls in bucket i. */
static inline uint64_t
uf_lat_bucket_low(unsigned int i)
{
	unsigned int e;

	if (i < UF_LAT_SUB)
		return i;
	e = (i >> UF_LAT_SUB_BITS) + UF_LAT_SUB_BITS - 1;
	return (uint64_t)(UF_LAT_SUB | (i & (UF_LAT_SUB - 1))) << (e - UF_LAT_SUB_BITS);
}

static inline void
uf_lat_add(struct uf_lat_hist *h, uint64_t stamp, uint64_t now)
{
	uint64_t v = 0;

	if (now >= stamp)
		v = now - stamp;
	else
		h->negative++;
	if (h->n == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += (double)v;
	h->b[uf_lat_bucket(v)]++;
}

void uf_lat_merge(struct uf_lat_hist *into, const struct uf_lat_hist *h);

/* The q-quantile (0 < q <= 1) in cycles: the middle of the bucket holding the value of rank
 * ceil(q * n), clamped to [min, max]; 0 when empty. */
uint64_t uf_lat_quantile(const struct uf_lat_hist *h, double q);

/* `{"n": …, "min_ns": …, "p50_ns": …, "p90_ns": …, "p99_ns": …, "p999_ns": …, "max_ns": …,
 * "mean_ns": …, "negative": …}` with cycles converted at hz. */
void uf_lat_json(FILE *f, const struct uf_lat_hist *h, double hz);

/* TSC ticks per second, measured against CLOCK_MONOTONIC over ~ms milliseconds (for the
 * kernel-socket sink, which has no EAL to ask). */
double uf_tsc_hz_measure(unsigned int ms);

#endif /* UF_LATHIST_H */
