/* SPDX-License-Identifier: BSD-3-Clause
 * lib/port/uf_xwatch: ethdev's basic-stat ids, the row's xstat patterns, the plausibility
 * guard for counters that may be garbage (ENA ENI) and the watch on reset-worthy counters,
 * fed fake readings; and the reset retry backoff.
 */
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "uf_port.h"
#include "uf_quirks.h"
#include "uf_compat.h"
#include "uf_test.h"
#include "uf_xwatch.h"

static void
test_basic_count(void)
{
	/* rte_ethdev.c 22.11: 8 device stats; with AUTOFILL, 3 per RX and 2 per TX queue */
	CHECK_EQ(uf_xstats_basic_count(0, 4, 4), 8);
	CHECK_EQ(uf_xstats_basic_count(RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS, 4, 4), 8 + 12 + 8);
	CHECK_EQ(uf_xstats_basic_count(RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS, 1, 2), 8 + 3 + 4);
	/* queues beyond RTE_ETHDEV_QUEUE_STAT_CNTRS have no basic per-queue stats */
	CHECK_EQ(uf_xstats_basic_count(RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS, 64, 64),
		 8 + 5 * UF_ETHDEV_QUEUE_STAT_CNTRS);
}

static void
test_match(void)
{
	const struct uf_quirk *ena = uf_quirk_lookup("net_ena");

	/* the names ena_xstats_get_names makes: "rx_q%d_%s", "tx_q%d_%s" */
	CHECK(uf_xstat_match(ena->reset_xstats, "rx_q0_bad_req_id"), "rx bad_req_id");
	CHECK(uf_xstat_match(ena->reset_xstats, "rx_q12_bad_desc_num"), "rx bad_desc_num");
	CHECK(uf_xstat_match(ena->reset_xstats, "tx_q3_bad_req_id"), "tx bad_req_id");
	CHECK(uf_xstat_match(ena->reset_xstats, "tx_q3_prepare_ctx_err"), "prepare_ctx_err");
	CHECK(!uf_xstat_match(ena->reset_xstats, "rx_q0_cnt"), "a traffic counter");
	CHECK(!uf_xstat_match(ena->reset_xstats, "tx_q0_missed_tx"), "missed_tx: the watchdog's");
	CHECK(!uf_xstat_match(ena->reset_xstats, "wd_expired"), "wd_expired");
	CHECK(uf_xstat_match(ena->guarded_xstats, "pps_allowance_exceeded"), "ENI guarded");
	CHECK(uf_xstat_match(ena->guarded_xstats, "bw_in_allowance_exceeded"), "ENI guarded");
	CHECK(!uf_xstat_match(ena->guarded_xstats, "tx_drops"), "tx_drops trusted");
	CHECK(!uf_xstat_match(NULL, "anything"), "no patterns");
	CHECK(uf_quirk_lookup("net_ice")->reset_xstats == NULL, "ice raises its own events");
}

static void
test_guard(void)
{
	struct uf_xguard g;

	memset(&g, 0, sizeof(g));
	CHECK_EQ(uf_xguard_check(&g, 100, 0, 0), false); /* nothing to follow from */
	CHECK_EQ(uf_xguard_check(&g, 150, 1.0, 0), true);
	CHECK_EQ(uf_xguard_check(&g, 150, 1.0, 0), true); /* unchanged */
	/* backwards without a reset: garbage (an admin command that failed) */
	CHECK_EQ(uf_xguard_check(&g, 7, 1.0, 0), false);
	/* each reading is checked against the one before it: 7 -> 160 is a plausible rise */
	CHECK_EQ(uf_xguard_check(&g, 160, 1.0, 0), true);
	CHECK_EQ(uf_xguard_check(&g, 170, 1.0, 0), true);
	/* an implausible jump: uninitialised stack in place of the counter */
	CHECK_EQ(uf_xguard_check(&g, 0x7ffc12345678ULL, 1.0, 0), false);
	CHECK_EQ(uf_xguard_check(&g, 180, 1.0, 0), false); /* backwards from the garbage */
	CHECK_EQ(uf_xguard_check(&g, 190, 1.0, 0), true);
	/* a fast but possible rise over a long interval */
	CHECK_EQ(uf_xguard_check(&g, 190 + 5000000000ULL, 10.0, 0), true);
	/* after a reset the counters restart at 0: lower is fine, once */
	CHECK_EQ(uf_xguard_check(&g, 3, 1.0, 1), true);
	CHECK_EQ(uf_xguard_check(&g, 2, 1.0, 1), false);
	/* a reset does not let garbage through */
	CHECK_EQ(uf_xguard_check(&g, 0x7ffc12345678ULL, 1.0, 2), false);
	/* the final snapshot right after a tick: a second's worth still allowed */
	CHECK_EQ(uf_xguard_check(&g, 0x7ffc12345678ULL + 10, 0.001, 2), true);
}

static void
test_watch(void)
{
	struct uf_xwatch w;

	memset(&w, 0, sizeof(w));
	CHECK_EQ(uf_xwatch_rose(&w, 5), false); /* baseline, whatever it is */
	CHECK_EQ(uf_xwatch_rose(&w, 5), false);
	CHECK_EQ(uf_xwatch_rose(&w, 6), true);  /* a bad req_id seen: reset */
	CHECK_EQ(uf_xwatch_rose(&w, 6), false); /* once per rise */
	CHECK_EQ(uf_xwatch_rose(&w, 0), false); /* rings re-initialised */
	CHECK_EQ(uf_xwatch_rose(&w, 1), true);
}

static void
test_backoff(void)
{
	uint32_t total = 0;
	unsigned int i;

	CHECK_EQ(uf_reset_backoff_ms(0), 100);
	for (i = 1; i < UF_RESET_RETRIES; i++)
		CHECK(uf_reset_backoff_ms(i) >= uf_reset_backoff_ms(i - 1), "not shorter (%u)", i);
	for (i = 0; i < UF_RESET_RETRIES; i++)
		total += uf_reset_backoff_ms(i);
	/* long enough for a PF to finish its reset, short enough that the port is not left
	 * down for long (the other ports forward meanwhile) */
	CHECK(total >= 2000 && total <= 10000, "%u ms over all retries", total);
	CHECK_EQ(uf_reset_backoff_ms(100), uf_reset_backoff_ms(UF_RESET_RETRIES));
}

int
main(void)
{
	RUN(test_basic_count);
	RUN(test_match);
	RUN(test_guard);
	RUN(test_watch);
	RUN(test_backoff);
	return uf_t_summary();
}
