/* SPDX-License-Identifier: BSD-3-Clause
 * Reading a PMD's extended stats without trusting them blindly: which ids are ethdev's basic
 * stats (asking for one costs the PMD's full xstats_get), which names the quirk row marks as
 * reset-worthy or as possibly garbage, and the checks applied to each reading. No EAL needed:
 * the control lcore feeds it values, unit tests feed it fakes (tests/unit/test_xwatch.c).
 */
#ifndef UF_XWATCH_H
#define UF_XWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A counter rising faster than this (per second) is not a counter: no NIC udpfan drives
 * passes 10^9 packets per second. */
#define UF_XGUARD_MAX_RATE 1e9

/*
 * How many of a port's xstats ids are ethdev's basic stats: the rte_eth_stats fields (8), then
 * per queue rx packets/bytes/errors and tx packets/bytes up to RTE_ETHDEV_QUEUE_STAT_CNTRS
 * queues where the PMD sets RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS (rte_ethdev.c,
 * eth_dev_get_xstats_basic_count, the same in 22.11, 23.11 and 24.11). Ids from here on are
 * the PMD's own, which rte_eth_xstats_get_by_id hands to the PMD's xstats_get_by_id.
 */
unsigned int uf_xstats_basic_count(uint32_t dev_flags, uint16_t nb_rxq, uint16_t nb_txq);

/* Does name match one of the fnmatch(3) patterns (NULL-terminated list, NULL: none)? */
bool uf_xstat_match(const char *const *patterns, const char *name);

/*
 * Of n xstats names (name i at names + i * stride: an array of rte_eth_xstat_name), the ids
 * from `from` on whose name matches patterns, at most max of them into ids; how many. A
 * pattern the PMD lists no name for selects nothing (ENA before 24.11 has no
 * rx_qN_bad_desc or rx_qN_unknown_error).
 */
int uf_xstat_select(const char *const *patterns, const char *names, size_t stride, int n, int from,
		    uint64_t *ids, int max);

/*
 * Two reads of a guarded xstat back to back, the value buffer filled with UF_XFILL_A before
 * the first and with UF_XFILL_B before the second. A PMD that did not write the value (ENA's
 * ENI counters when the admin command fails: its stack struct is left uninitialised) hands
 * back the fill, or whatever its stack held. True when the value is not a counter's: it
 * equals the fill, went backwards, or rose more than max_rise between the two reads.
 */
#define UF_XFILL_A UINT64_C(0x5a5a5a5a5a5a5a5a)
#define UF_XFILL_B UINT64_C(0xa5a5a5a5a5a5a5a5)
bool uf_xfill_garbage(uint64_t a, uint64_t b, uint64_t max_rise);

/*
 * A counter whose readings may be garbage (ENA's ENI allowance counters: an uninitialised
 * struct when the admin command fails, and a restart at 0 after a device reset). A reading is
 * accepted when it follows from the previous one: not lower (unless the port was reset since,
 * and then no more than the counter could have counted since), and no faster than
 * UF_XGUARD_MAX_RATE. The first reading has nothing to follow from and is not accepted.
 */
struct uf_xguard {
	uint64_t prev;
	uint64_t prev_resets;
	bool have;
};

/* v read dt_s seconds after the previous reading; resets: the port's reset count now. */
bool uf_xguard_check(struct uf_xguard *g, uint64_t v, double dt_s, uint64_t resets);

/*
 * A counter whose rise means the PMD found a broken queue and wants a reset (ENA's bad_req_id
 * and friends). The first reading is the baseline; a lower one re-baselines (the PMD
 * re-initialised its rings).
 */
struct uf_xwatch {
	uint64_t base;
	bool have;
};

/* True when v is above the baseline; the baseline becomes v. */
bool uf_xwatch_rose(struct uf_xwatch *w, uint64_t v);

#endif /* UF_XWATCH_H */
