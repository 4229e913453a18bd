/* SPDX-License-Identifier: BSD-3-Clause */
#include <fnmatch.h>

#include <rte_common.h>
#include <rte_ethdev.h>

#include "uf_compat.h"
#include "uf_xwatch.h"

/* rte_ethdev.c: eth_dev_stats_strings, eth_dev_rxq_stats_strings, eth_dev_txq_stats_strings */
#define BASIC_STATS 8
#define BASIC_RXQ_STATS 3
#define BASIC_TXQ_STATS 2

unsigned int
uf_xstats_basic_count(uint32_t dev_flags, uint16_t nb_rxq, uint16_t nb_txq)
{
	unsigned int n = BASIC_STATS;

	if (dev_flags & RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS) {
		n += RTE_MIN(nb_rxq, (uint16_t)UF_ETHDEV_QUEUE_STAT_CNTRS) * BASIC_RXQ_STATS;
		n += RTE_MIN(nb_txq, (uint16_t)UF_ETHDEV_QUEUE_STAT_CNTRS) * BASIC_TXQ_STATS;
	}
	return n;
}

bool
uf_xstat_match(const char *const *patterns, const char *name)
{
	int i;

	for (i = 0; patterns != NULL && patterns[i] != NULL; i++)
		if (fnmatch(patterns[i], name, 0) == 0)
			return true;
	return false;
}

int
uf_xstat_select(const char *const *patterns, const char *names, size_t stride, int n, int from,
		uint64_t *ids, int max)
{
	int id, k = 0;

	for (id = from; id < n && k < max; id++)
		if (uf_xstat_match(patterns, names + (size_t)id * stride))
			ids[k++] = (uint64_t)id;
	return k;
}

bool
uf_xfill_garbage(uint64_t a, uint64_t b, uint64_t max_rise)
{
	if (a == UF_XFILL_A || b == UF_XFILL_B)
		return true;
	return b < a || b - a > max_rise;
}

bool
uf_xguard_check(struct uf_xguard *g, uint64_t v, double dt_s, uint64_t resets)
{
	/* at least a second's worth: the final snapshot can follow a tick closely */
	double most = UF_XGUARD_MAX_RATE * RTE_MAX(dt_s, 1.0);
	bool ok;

	if (!g->have)
		ok = false;
	else if (resets != g->prev_resets)
		ok = (double)v <= most; /* restarted at 0 with the device */
	else
		ok = v >= g->prev && (double)(v - g->prev) <= most;
	g->have = true;
	g->prev = v;
	g->prev_resets = resets;
	return ok;
}

bool
uf_xwatch_rose(struct uf_xwatch *w, uint64_t v)
{
	bool rose = w->have && v > w->base;

	w->have = true;
	w->base = v;
	return rose;
}
