/* SPDX-License-Identifier: BSD-3-Clause
 * A port's faults as udpfan decides on them, fed faked rows, return codes, dev_info, xstats
 * names and readings: which resets are tried again (docs/pmd-quirks.md, reset_event); ENA's
 * link without link-change notifications; which reset-worthy xstats are watched in each
 * DPDK version's name list; ENI readings the PMD did not fill in (guarded_xstats).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "uf_port.h"
#include "uf_quirks.h"
#include "uf_test.h"
#include "uf_xwatch.h"

/* rte_eth_dev_reset's answers (ethdev passes the PMD's return through eth_err): which are
 * tried again, on which row, and whether a reset event came first */
static void
test_reset_again(void)
{
	const struct uf_quirk *vf = uf_quirk_lookup("net_ixgbe_vf");
	const struct uf_quirk *iavf = uf_quirk_lookup("net_iavf");
	const struct uf_quirk *ena = uf_quirk_lookup("net_ena");
	const struct uf_quirk *def = uf_quirk_lookup("net_bnxt");

	/* ixgbevf has its own row: its reset event is registered; its "retry later" retried */
	CHECK(vf != def && strcmp(vf->driver, "net_ixgbe_vf") == 0, "ixgbevf row: got %s",
	      vf->driver);
	CHECK(vf->reset_event, "ixgbevf raises RTE_ETH_EVENT_INTR_RESET (PF reset)");
	CHECK(uf_quirk_lookup("net_ixgbe") != vf, "the PF keeps its own row");
	CHECK(uf_quirk_reset_again(vf, -EAGAIN, true, 0), "ixgbevf -EAGAIN after the event");
	CHECK(uf_quirk_reset_again(vf, -EAGAIN, false, 5), "ixgbevf -EAGAIN on request");
	CHECK(!uf_quirk_reset_again(vf, -EPERM, true, 0), "ixgbevf -EPERM: fatal");
	/* iavf: -1 from iavf_check_vf_reset_done is -EPERM; after a reset event the VF is
	 * still resetting, so it is tried again; on a request it is a real failure */
	CHECK(iavf->reset_event && iavf->reset_busy_eperm, "iavf row");
	CHECK_EQ(-1, -EPERM);
	CHECK(uf_quirk_reset_again(iavf, -1, true, 0), "iavf -1 after the event");
	CHECK(uf_quirk_reset_again(iavf, -1, true, UF_RESET_BUSY_RETRIES - 1), "the last retry");
	CHECK(!uf_quirk_reset_again(iavf, -1, true, UF_RESET_BUSY_RETRIES),
	      "no more: each try waited in the PMD already");
	CHECK(!uf_quirk_reset_again(iavf, -1, false, 0), "iavf -1 on request: fatal");
	CHECK(uf_quirk_reset_again(iavf, -EAGAIN, false, UF_RESET_BUSY_RETRIES),
	      "-EAGAIN anywhere");
	CHECK(!uf_quirk_reset_again(iavf, -EIO, true, 0), "iavf -EIO: fatal");
	CHECK(!uf_quirk_reset_again(iavf, -ENOTSUP, true, 0), "-ENOTSUP is not a retry");
	/* no other row retries -EPERM */
	CHECK(!ena->reset_busy_eperm && !def->reset_busy_eperm, "ENA and default rows");
	CHECK(!uf_quirk_reset_again(ena, -EPERM, true, 0), "ENA -EPERM: fatal");
	CHECK(!uf_quirk_reset_again(def, -EPERM, true, 0), "default row -EPERM: fatal");
}

/* the loop uf_port_reset runs, against a faked rte_eth_dev_reset answering from a list (its
 * last answer repeated); the tries after the first, and the backoff waited */
static int
retry_loop(const struct uf_quirk *q, const int *answers, unsigned int n, bool event,
	   unsigned int *waited)
{
	unsigned int attempt = 0;
	int ret = answers[0];

	*waited = 0;
	while (ret != 0 && attempt < UF_RESET_RETRIES &&
	       uf_quirk_reset_again(q, ret, event, attempt)) {
		*waited += uf_reset_backoff_ms(attempt);
		attempt++;
		ret = answers[RTE_MIN(attempt, n - 1)];
	}
	return ret != 0 ? ret : (int)attempt;
}

/* the retries a still-resetting VF gets: bounded, backing off */
static void
test_reset_retry_sequence(void)
{
	const struct uf_quirk *iavf = uf_quirk_lookup("net_iavf");
	const struct uf_quirk *vf = uf_quirk_lookup("net_ixgbe_vf");
	const int busy_then_ok[] = { -1, -1, 0 }, busy[] = { -1 };
	const int again_then_ok[] = { -EAGAIN, -EAGAIN, -EAGAIN, -EAGAIN, 0 },
		  again[] = { -EAGAIN };
	unsigned int waited;

	/* iavf after a reset event: -1 twice, then done: 2 retries, 300 ms of backoff */
	CHECK_EQ(retry_loop(iavf, busy_then_ok, RTE_DIM(busy_then_ok), true, &waited), 2);
	CHECK_EQ(waited, 100 + 200);
	/* one that stays busy: UF_RESET_BUSY_RETRIES, then its -1 is fatal */
	CHECK_EQ(retry_loop(iavf, busy, RTE_DIM(busy), true, &waited), -1);
	CHECK_EQ(waited, 100 + 200);
	/* the same on request: no retry */
	CHECK_EQ(retry_loop(iavf, busy_then_ok, RTE_DIM(busy_then_ok), false, &waited), -1);
	CHECK_EQ(waited, 0);
	/* ixgbevf's -EAGAIN: up to UF_RESET_RETRIES, about 4.7 s */
	CHECK_EQ(retry_loop(vf, again_then_ok, RTE_DIM(again_then_ok), true, &waited), 4);
	CHECK_EQ(waited, 100 + 200 + 400 + 800);
	CHECK_EQ(retry_loop(vf, again, RTE_DIM(again), false, &waited), -EAGAIN);
	CHECK(waited >= 2000 && waited <= 10000, "%u ms", waited);
}

/* a faked ENA dev_info (ena_infos_get, 22.11), dev_flags as given */
static struct rte_eth_dev_info
ena_info(uint32_t *dev_flags)
{
	struct rte_eth_dev_info di;

	memset(&di, 0, sizeof(di));
	di.driver_name = "net_ena";
	di.dev_flags = dev_flags;
	di.max_rx_queues = di.max_tx_queues = 8;
	di.min_mtu = 128;
	di.max_mtu = 9216;
	di.rx_desc_lim.nb_max = 8192;
	di.rx_desc_lim.nb_min = 128;
	di.rx_desc_lim.nb_align = 1;
	di.tx_desc_lim = di.rx_desc_lim;
	di.tx_desc_lim.nb_max = 1024;
	di.flow_type_rss_offloads = 0xc30;
	di.hash_key_size = 40;
	di.rx_offload_capa = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM;
	di.tx_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS | RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE |
			     RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
	return di;
}

/* ENA's link is written only by its link-change AENQ handler: a device without it (no
 * RTE_ETH_DEV_INTR_LSC) is treated as up, one with it is not, nor is another PMD's */
static void
test_ena_link(void)
{
	struct uf_port_req req = { .nb_queues = 2, .rx_desc = 1024, .tx_desc = 1024, .mtu = 1500 };
	uint32_t lsc = RTE_ETH_DEV_INTR_LSC, none = 0;
	struct rte_eth_dev_info di = ena_info(&none);
	struct uf_port_plan plan;
	char why[256] = "";

	CHECK(uf_quirk_lookup("net_ena")->link_lsc_only, "ENA row");
	CHECK_EQ(uf_quirk_decide(uf_quirk_lookup("net_ena"), &di, &req, &plan, why, sizeof(why)),
		 0);
	CHECK(!plan.lsc && !plan.link_from_kernel, "no LSC, no kernel interface");
	CHECK(plan.link_assumed_up, "ENA without LSC: the link is taken as up (%s)", why);
	di = ena_info(&lsc);
	CHECK_EQ(uf_quirk_decide(uf_quirk_lookup("net_ena"), &di, &req, &plan, why, sizeof(why)),
		 0);
	CHECK(plan.lsc && !plan.link_assumed_up, "ENA with LSC: the notification says");
	/* dev_flags NULL (no flags at all): as without LSC */
	di = ena_info(NULL);
	CHECK_EQ(uf_quirk_decide(uf_quirk_lookup("net_ena"), &di, &req, &plan, why, sizeof(why)),
		 0);
	CHECK(plan.link_assumed_up, "ENA, no dev_flags");
	/* another PMD without LSC polls its link as before */
	di = ena_info(&none);
	di.driver_name = "net_ixgbe";
	di.rx_desc_lim.nb_align = 8;
	di.tx_desc_lim.nb_align = 8;
	di.flow_type_rss_offloads = UF_RSS_HF_WANTED;
	CHECK_EQ(uf_quirk_decide(uf_quirk_lookup("net_ixgbe"), &di, &req, &plan, why, sizeof(why)),
		 0);
	CHECK(!plan.lsc && !plan.link_assumed_up, "ixgbe without LSC: polled (%s)", why);
}

/* ENA's xstats names as ena_xstats_get_names makes them for 2 queues: 22.11 and 24.11 */
#define ENA_COMMON                                                                                 \
	"rx_good_packets", "tx_good_packets", "rx_good_bytes", "tx_good_bytes",                    \
			"rx_missed_errors", "rx_errors", "tx_errors", "rx_mbuf_allocation_errors", \
			"wd_expired", "dev_start", "dev_stop", "tx_drops",                         \
			"bw_in_allowance_exceeded", "bw_out_allowance_exceeded",                   \
			"pps_allowance_exceeded", "conntrack_allowance_exceeded",                  \
			"linklocal_allowance_exceeded"
#define ENA_TXQ(q)                                                                                \
	"tx_q" #q "_cnt", "tx_q" #q "_bytes", "tx_q" #q "_prepare_ctx_err", "tx_q" #q "_tx_poll", \
			"tx_q" #q "_doorbells", "tx_q" #q "_bad_req_id",                          \
			"tx_q" #q "_available_desc", "tx_q" #q "_missed_tx"
#define ENA_RXQ(q)                                                               \
	"rx_q" #q "_cnt", "rx_q" #q "_bytes", "rx_q" #q "_refill_partial",       \
			"rx_q" #q "_l3_csum_bad", "rx_q" #q "_l4_csum_bad",      \
			"rx_q" #q "_l4_csum_good", "rx_q" #q "_mbuf_alloc_fail", \
			"rx_q" #q "_bad_desc_num", "rx_q" #q "_bad_req_id"
#define ENA_RXQ_2411(q) ENA_RXQ(q), "rx_q" #q "_bad_desc", "rx_q" #q "_unknown_error"

/* the ids the watch selects from a faked names array (rte_eth_xstat_name's layout) */
static int
select_ids(const char *const *list, int n, uint64_t *ids, int max)
{
	static struct rte_eth_xstat_name names[128];
	int i;

	memset(names, 0, sizeof(names));
	for (i = 0; i < n; i++)
		snprintf(names[i].name, sizeof(names[i].name), "%s", list[i]);
	/* from 8: ethdev's basic stats come first and are never the PMD's own */
	return uf_xstat_select(uf_quirk_lookup("net_ena")->reset_xstats, names[0].name,
			       sizeof(names[0]), n, 8, ids, max);
}

static void
test_reset_xstats_by_name(void)
{
	static const char *const v2211[] = { ENA_COMMON, ENA_TXQ(0), ENA_TXQ(1), ENA_RXQ(0),
					     ENA_RXQ(1) };
	static const char *const v2411[] = { ENA_COMMON, ENA_TXQ(0), ENA_TXQ(1), ENA_RXQ_2411(0),
					     ENA_RXQ_2411(1) };
	uint64_t ids[32];
	int n, i;

	/* 22.11: per queue rx bad_desc_num, bad_req_id; tx bad_req_id, prepare_ctx_err */
	n = select_ids(v2211, (int)RTE_DIM(v2211), ids, (int)RTE_DIM(ids));
	CHECK_EQ(n, 2 * 2 + 2 * 2);
	for (i = 0; i < n; i++)
		CHECK(strstr(v2211[ids[i]], "bad_req_id") != NULL ||
				      strstr(v2211[ids[i]], "bad_desc_num") != NULL ||
				      strstr(v2211[ids[i]], "prepare_ctx_err") != NULL,
		      "22.11 watches %s", v2211[ids[i]]);
	/* 24.11: and rx bad_desc, unknown_error on each queue, by name */
	n = select_ids(v2411, (int)RTE_DIM(v2411), ids, (int)RTE_DIM(ids));
	CHECK_EQ(n, 2 * 2 + 2 * 4);
	for (i = 0; i < n; i++)
		if (strcmp(v2411[ids[i]], "rx_q1_bad_desc") == 0)
			break;
	CHECK(i < n, "24.11: rx_q1_bad_desc watched");
	for (i = 0; i < n; i++)
		if (strcmp(v2411[ids[i]], "rx_q0_unknown_error") == 0)
			break;
	CHECK(i < n, "24.11: rx_q0_unknown_error watched");
	/* nothing that only counts traffic */
	for (i = 0; i < n; i++)
		CHECK(strstr(v2411[ids[i]], "_cnt") == NULL &&
				      strstr(v2411[ids[i]], "csum") == NULL,
		      "not %s", v2411[ids[i]]);
	/* at most max */
	CHECK_EQ(select_ids(v2411, (int)RTE_DIM(v2411), ids, 3), 3);
}

/* ENI counters read twice with the value buffer filled differently */
static void
test_fill(void)
{
	/* a counter: the same, or a little higher on the second read */
	CHECK(!uf_xfill_garbage(1234, 1234, 1000), "unchanged counter");
	CHECK(!uf_xfill_garbage(1234, 1300, 1000), "counting");
	CHECK(!uf_xfill_garbage(0, 0, 1), "zero");
	/* not written: the value is the fill */
	CHECK(uf_xfill_garbage(UF_XFILL_A, UF_XFILL_B, 1000), "left as filled");
	CHECK(uf_xfill_garbage(UF_XFILL_A, 17, 1000), "first read not written");
	CHECK(uf_xfill_garbage(17, UF_XFILL_B, 1000), "second read not written");
	/* an uninitialised stack struct: values that no counter takes */
	CHECK(uf_xfill_garbage(0x7ffc12345678ULL, 0x55d0aa001122ULL, 1000), "backwards");
	CHECK(uf_xfill_garbage(0x1000, 0x7ffc12345678ULL, 1000), "a jump no counter makes");
}

int
main(void)
{
	RUN(test_reset_again);
	RUN(test_reset_retry_sequence);
	RUN(test_ena_link);
	RUN(test_reset_xstats_by_name);
	RUN(test_fill);
	return uf_t_summary();
}
