/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <time.h>

#include <rte_cycles.h>

#include "uf_lathist.h"

void
uf_lat_merge(struct uf_lat_hist *into, const struct uf_lat_hist *h)
{
	unsigned int i;

	if (into->hz == 0)
		into->hz = h->hz;
	if (h->n == 0)
		return;
	if (into->n == 0 || h->min < into->min)
		into->min = h->min;
	if (h->max > into->max)
		into->max = h->max;
	into->n += h->n;
	into->negative += h->negative;
	into->sum += h->sum;
	for (i = 0; i < UF_LAT_BUCKETS; i++)
		into->b[i] += h->b[i];
}

uint64_t
uf_lat_quantile(const struct uf_lat_hist *h, double q)
{
	uint64_t rank, acc = 0, lo, hi, mid;
	unsigned int i;

	if (h->n == 0)
		return 0;
	rank = (uint64_t)ceil(q * (double)h->n);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < UF_LAT_BUCKETS; i++) {
		acc += h->b[i];
		if (acc >= rank)
			break;
	}
	if (i == UF_LAT_BUCKETS)
		return h->max;
	lo = uf_lat_bucket_low(i);
	hi = i + 1 < UF_LAT_BUCKETS ? uf_lat_bucket_low(i + 1) : lo;
	mid = lo + (hi - lo) / 2;
	if (mid < h->min)
		mid = h->min;
	if (mid > h->max)
		mid = h->max;
	return mid;
}

void
uf_lat_json(FILE *f, const struct uf_lat_hist *h, double hz)
{
	const double ns = hz > 0 ? 1e9 / hz : 0;

	if (h->n == 0) {
		fprintf(f, "{\"n\": 0}");
		return;
	}
	fprintf(f,
		"{\"n\": %llu, \"min_ns\": %.0f, \"p50_ns\": %.0f, \"p90_ns\": %.0f, "
		"\"p99_ns\": %.0f, \"p999_ns\": %.0f, \"max_ns\": %.0f, \"mean_ns\": %.0f, "
		"\"negative\": %llu}",
		(unsigned long long)h->n, (double)h->min * ns, (double)uf_lat_quantile(h, 0.5) * ns,
		(double)uf_lat_quantile(h, 0.9) * ns, (double)uf_lat_quantile(h, 0.99) * ns,
		(double)uf_lat_quantile(h, 0.999) * ns, (double)h->max * ns,
		h->sum / (double)h->n * ns, (unsigned long long)h->negative);
}

static double
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double
uf_tsc_hz_measure(unsigned int ms)
{
	const struct timespec d = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };
	const double t0 = mono_ns();
	const uint64_t c0 = rte_rdtsc();
	double t1;
	uint64_t c1;

	nanosleep(&d, NULL);
	t1 = mono_ns();
	c1 = rte_rdtsc();
	return t1 > t0 ? (double)(c1 - c0) * 1e9 / (t1 - t0) : 0;
}
