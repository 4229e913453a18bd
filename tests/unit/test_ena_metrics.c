/* SPDX-License-Identifier: BSD-3-Clause
 * lib/port/uf_ena_metrics: ENA's allowance metrics by DPDK release, fed the xstats names each
 * release's ena_xstats_get_names makes (22.11, 23.11, 24.11, 25.11; with customer metrics,
 * legacy ENI stats, or neither), and rte_version() strings.
 */
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_version.h>

#include "uf_ena_metrics.h"
#include "uf_quirks.h"
#include "uf_test.h"
#include "uf_xwatch.h"

enum cap {
	CAP_CUSTOMER,
	CAP_ENI,
	CAP_NONE
};

static struct rte_eth_xstat_name names[160];
static int n_names;

static void
add(const char *fmt, int q, const char *stat)
{
	snprintf(names[n_names].name, sizeof(names[n_names].name), fmt, q, stat);
	n_names++;
}

/*
 * The names as ena_xstats_get_names makes them for release rel and nq queues: ethdev's 8
 * basic stats, the global stats, the metrics (22.11: always the five; from 23.11 as the
 * capability says), the SRD stats (23.11 on), then per stat per queue rx_q<N>_, tx_q<N>_.
 */
static void
fake(unsigned int rel, enum cap cap, int nq)
{
	static const char *const basic[] = { "rx_good_packets",  "tx_good_packets",
					     "rx_good_bytes",    "tx_good_bytes",
					     "rx_missed_errors", "rx_errors",
					     "tx_errors",        "rx_mbuf_allocation_errors" };
	static const char *const global[] = { "wd_expired", "dev_start", "dev_stop", "tx_drops" };
	static const char *const metrics[] = {
		"bw_in_allowance_exceeded",     "bw_out_allowance_exceeded",
		"pps_allowance_exceeded",       "conntrack_allowance_exceeded",
		"linklocal_allowance_exceeded", "conntrack_allowance_available"
	};
	static const char *const srd[] = { "ena_srd_mode", "ena_srd_tx_pkts",
					   "ena_srd_eligible_tx_pkts", "ena_srd_rx_pkts",
					   "ena_srd_resource_utilization" };
	static const char *const rx2211[] = {
		"cnt",          "bytes",           "refill_partial", "l3_csum_bad", "l4_csum_bad",
		"l4_csum_good", "mbuf_alloc_fail", "bad_desc_num",   "bad_req_id"
	};
	static const char *const rx2311[] = {
		"cnt", "bytes", "refill_partial", "mbuf_alloc_fail", "bad_desc_num", "bad_req_id"
	};
	static const char *const rx2411[] = {
		"cnt",          "bytes",      "refill_partial", "mbuf_alloc_fail",
		"bad_desc_num", "bad_req_id", "bad_desc",       "unknown_error"
	};
	static const char *const tx[] = {
		"cnt",       "bytes",      "prepare_ctx_err", "tx_poll",
		"doorbells", "bad_req_id", "available_desc",  "missed_tx"
	};
	const char *const *rx;
	unsigned int i, n_rx, n_metrics;
	int q;

	n_names = 0;
	memset(names, 0, sizeof(names));
	for (i = 0; i < RTE_DIM(basic); i++)
		add("%.0d%s", 0, basic[i]);
	for (i = 0; i < RTE_DIM(global); i++)
		add("%.0d%s", 0, global[i]);
	if (rel == RTE_VERSION_NUM(23, 11, 0, 0))
		add("%.0d%s", 0, "rx_overruns"); /* 23.11 only */
	if (rel < RTE_VERSION_NUM(23, 11, 0, 0))
		n_metrics = 5;
	else
		n_metrics = cap == CAP_CUSTOMER ? 6 : cap == CAP_ENI ? 5 : 0;
	for (i = 0; i < n_metrics; i++)
		add("%.0d%s", 0, metrics[i]);
	if (rel >= RTE_VERSION_NUM(23, 11, 0, 0))
		for (i = 0; i < RTE_DIM(srd); i++)
			add("%.0d%s", 0, srd[i]);
	if (rel < RTE_VERSION_NUM(23, 11, 0, 0)) {
		rx = rx2211;
		n_rx = RTE_DIM(rx2211);
	} else if (rel < RTE_VERSION_NUM(24, 11, 0, 0)) {
		rx = rx2311;
		n_rx = RTE_DIM(rx2311);
	} else {
		rx = rx2411;
		n_rx = RTE_DIM(rx2411);
	}
	for (i = 0; i < n_rx; i++)
		for (q = 0; q < nq; q++)
			add("rx_q%d_%s", q, rx[i]);
	for (i = 0; i < RTE_DIM(tx); i++)
		for (q = 0; q < nq; q++)
			add("tx_q%d_%s", q, tx[i]);
}

static bool
in_fake(const char *name)
{
	int i;

	for (i = 0; i < n_names; i++)
		if (strcmp(names[i].name, name) == 0)
			return true;
	return false;
}

static bool
in_list(const char *const *list, const char *name)
{
	int i;

	for (i = 0; list[i] != NULL; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

/* what udpfan reads on a faked port: the list, and that every name in it is one the PMD
 * lists (resolve_xstats finds each: no NOTICE for a name the release does not have) */
static int
wanted(unsigned int version, enum cap cap, struct uf_ena_metrics *m, const char **out, int max)
{
	const struct uf_quirk *ena = uf_quirk_lookup("net_ena");
	int k, i;

	fake(uf_ena_rel(version)->since, cap, 4);
	uf_ena_metrics_find(version, names[0].name, sizeof(names[0]), n_names, m);
	k = uf_ena_xstats(ena->xstats, m, out, max);
	for (i = 0; i < k; i++)
		CHECK(in_fake(out[i]), "%u.%02u: %s is listed by the PMD", version >> 24,
		      (version >> 16) & 0xff, out[i]);
	return k;
}

static void
test_version_num(void)
{
	char here[64];

	CHECK_EQ(uf_dpdk_version_num("DPDK 22.11.11"), RTE_VERSION_NUM(22, 11, 11, 0));
	CHECK_EQ(uf_dpdk_version_num("DPDK 24.11.6"), RTE_VERSION_NUM(24, 11, 6, 0));
	CHECK_EQ(uf_dpdk_version_num("DPDK 25.11.0-rc1"), RTE_VERSION_NUM(25, 11, 0, 0));
	CHECK_EQ(uf_dpdk_version_num("DPDK 23.11"), RTE_VERSION_NUM(23, 11, 0, 0));
	CHECK_EQ(uf_dpdk_version_num("23.11.7"), RTE_VERSION_NUM(23, 11, 7, 0));
	CHECK_EQ(uf_dpdk_version_num("DPDK"), 0);
	CHECK_EQ(uf_dpdk_version_num(""), 0);
	CHECK_EQ(uf_dpdk_version_num(NULL), 0);
	/* the library this test runs on: the release it was built against (one ABI each) */
	CHECK_EQ(uf_dpdk_version_num(rte_version()) >> 16,
		 (unsigned int)RTE_VERSION_NUM(RTE_VER_YEAR, RTE_VER_MONTH, 0, 0) >> 16);
	snprintf(here, sizeof(here), "%s", uf_ena_rel(uf_dpdk_version_num(rte_version()))->name);
	CHECK(here[0] != '\0', "a row for the running DPDK (%s)", rte_version());
}

static void
test_rel(void)
{
	CHECK_STR(uf_ena_rel(RTE_VERSION_NUM(22, 11, 11, 0))->name, "22.11");
	CHECK(!uf_ena_rel(RTE_VERSION_NUM(22, 11, 11, 0))->cap_gated, "22.11: always listed");
	CHECK(!uf_ena_rel(RTE_VERSION_NUM(22, 11, 11, 0))->srd, "22.11: no SRD stats");
	CHECK_STR(uf_ena_rel(RTE_VERSION_NUM(23, 11, 7, 0))->name, "23.11");
	CHECK(uf_ena_rel(RTE_VERSION_NUM(23, 11, 7, 0))->cap_gated, "23.11: by capability");
	CHECK_STR(uf_ena_rel(RTE_VERSION_NUM(24, 11, 6, 0))->name, "24.11");
	CHECK(uf_ena_rel(RTE_VERSION_NUM(24, 11, 6, 0))->cap_gated, "24.11: by capability");
	CHECK_STR(uf_ena_rel(RTE_VERSION_NUM(25, 11, 2, 0))->name, "25.11");
	CHECK_STR(uf_ena_rel(RTE_VERSION_NUM(26, 11, 0, 0))->name, "25.11"); /* the newest row */
	CHECK_STR(uf_ena_rel(RTE_VERSION_NUM(21, 11, 0, 0))->name, "22.11"); /* the oldest */
	CHECK_STR(uf_ena_rel(0)->name, "22.11"); /* rte_version() unreadable */
}

static void
test_2211(void)
{
	const unsigned int v = RTE_VERSION_NUM(22, 11, 11, 0);
	const struct uf_quirk *ena = uf_quirk_lookup("net_ena");
	struct uf_ena_metrics m;
	const char *out[33];
	char line[512];
	int k, i;

	/* the five on every device, whatever it has: the row's list as it is */
	k = wanted(v, CAP_NONE, &m, out, (int)RTE_DIM(out));
	CHECK_EQ(m.eni, UF_ENA_ENI_UNGATED);
	CHECK_EQ(m.listed, 5);
	CHECK(!m.srd && !m.rx_overruns, "22.11: no SRD, no rx_overruns");
	for (i = 0; ena->xstats[i] != NULL; i++)
		CHECK_STR(out[i], ena->xstats[i]);
	CHECK_EQ(k, i);
	CHECK(!in_list(out, UF_ENA_CONNTRACK_AVAILABLE), "no level in 22.11");
	/* each of the five guarded: the PMD hands back its stack when the command fails */
	for (i = 0; i < k; i++)
		if (strstr(out[i], "_allowance_") != NULL)
			CHECK(uf_xstat_match(ena->guarded_xstats, out[i]), "%s guarded", out[i]);
	uf_ena_metrics_line(&m, line, sizeof(line));
	CHECK_HAS(line, "DPDK 22.11");
	CHECK_HAS(line, "every device");
	CHECK_HAS(line, "null");
}

static void
test_2311(void)
{
	const unsigned int v = RTE_VERSION_NUM(23, 11, 7, 0);
	struct uf_ena_metrics m;
	const char *out[33];
	char line[512];
	int k;

	/* customer metrics: the five, the level, and 23.11's rx_overruns */
	k = wanted(v, CAP_CUSTOMER, &m, out, (int)RTE_DIM(out));
	CHECK_EQ(m.eni, UF_ENA_ENI_CUSTOMER);
	CHECK_EQ(m.listed, 6);
	CHECK(m.srd && m.rx_overruns, "23.11: SRD stats, rx_overruns");
	CHECK_EQ(k, 7 + 2);
	CHECK(in_list(out, UF_ENA_CONNTRACK_AVAILABLE), "the level read");
	CHECK(in_list(out, "rx_overruns"), "rx_overruns read (not in imissed in 23.11)");
	CHECK(!in_list(out, "ena_srd_mode"), "SRD stats never read");
	/* legacy ENI stats: the five */
	k = wanted(v, CAP_ENI, &m, out, (int)RTE_DIM(out));
	CHECK_EQ(m.eni, UF_ENA_ENI_LEGACY);
	CHECK_EQ(m.listed, 5);
	CHECK_EQ(k, 7 + 1);
	CHECK(in_list(out, "pps_allowance_exceeded"), "pps read");
	CHECK(!in_list(out, UF_ENA_CONNTRACK_AVAILABLE), "no level without customer metrics");
	/* neither: the PMD lists none of the six, and udpfan does not look for them */
	k = wanted(v, CAP_NONE, &m, out, (int)RTE_DIM(out));
	CHECK_EQ(m.eni, UF_ENA_ENI_NONE);
	CHECK_EQ(m.listed, 0);
	CHECK_EQ(k, 2 + 1); /* tx_drops, wd_expired, rx_overruns */
	CHECK(!in_list(out, "bw_in_allowance_exceeded"), "no ENI name looked for");
	uf_ena_metrics_line(&m, line, sizeof(line));
	CHECK_HAS(line, "none");
	CHECK_HAS(line, "DPDK 23.11");
}

static void
test_2411_2511(void)
{
	static const unsigned int vs[] = { RTE_VERSION_NUM(24, 11, 6, 0),
					   RTE_VERSION_NUM(25, 11, 2, 0) };
	struct uf_ena_metrics m;
	const char *out[33];
	char line[512];
	unsigned int j;
	int k;

	for (j = 0; j < RTE_DIM(vs); j++) {
		k = wanted(vs[j], CAP_CUSTOMER, &m, out, (int)RTE_DIM(out));
		CHECK_EQ(m.eni, UF_ENA_ENI_CUSTOMER);
		CHECK(m.srd && !m.rx_overruns, "24.11 on: SRD, overruns in imissed");
		CHECK_EQ(k, 7 + 1);
		CHECK(in_list(out, UF_ENA_CONNTRACK_AVAILABLE), "the level read");
		uf_ena_metrics_line(&m, line, sizeof(line));
		CHECK_HAS(line, "customer metrics");
		CHECK_HAS(line, uf_ena_rel(vs[j])->name);
		k = wanted(vs[j], CAP_ENI, &m, out, (int)RTE_DIM(out));
		CHECK_EQ(m.eni, UF_ENA_ENI_LEGACY);
		CHECK_EQ(k, 7);
		uf_ena_metrics_line(&m, line, sizeof(line));
		CHECK_HAS(line, "ENA_ADMIN_ENI_STATS");
		k = wanted(vs[j], CAP_NONE, &m, out, (int)RTE_DIM(out));
		CHECK_EQ(m.eni, UF_ENA_ENI_NONE);
		CHECK_EQ(k, 2);
		CHECK(in_list(out, "tx_drops") && in_list(out, "wd_expired"), "the rest read");
	}
	/* the list is cut at max, NULL-terminated */
	k = wanted(vs[0], CAP_CUSTOMER, &m, out, 4);
	CHECK_EQ(k, 3);
	CHECK(out[3] == NULL, "terminated");
}

/* the level counts as valid only when the counters of the same admin command are */
static void
test_gauges(void)
{
	const char *nm[] = { "bw_in_allowance_exceeded", UF_ENA_CONNTRACK_AVAILABLE, "tx_drops" };
	const bool guarded[] = { true, false, false };
	const bool none[] = { false, false, false };
	bool valid[3];

	CHECK(uf_xstat_gauge(UF_ENA_CONNTRACK_AVAILABLE), "a level");
	CHECK(!uf_xstat_gauge("conntrack_allowance_exceeded"), "a counter");
	CHECK(!uf_xstat_match(uf_quirk_lookup("net_ena")->guarded_xstats,
			      UF_ENA_CONNTRACK_AVAILABLE),
	      "the level is not checked as a counter");
	/* the first reading after start: the counters null, so the level too */
	valid[0] = false, valid[1] = true, valid[2] = true;
	uf_xstats_tie_gauges(nm, guarded, valid, 3);
	CHECK(!valid[1] && valid[2], "level null with its counters; tx_drops untouched");
	valid[0] = true, valid[1] = true, valid[2] = true;
	uf_xstats_tie_gauges(nm, guarded, valid, 3);
	CHECK(valid[0] && valid[1] && valid[2], "all valid");
	/* no counter read with it: nothing vouches for it */
	valid[0] = true, valid[1] = true, valid[2] = true;
	uf_xstats_tie_gauges(nm, none, valid, 3);
	CHECK(!valid[1], "level alone: null");
}

int
main(void)
{
	RUN(test_version_num);
	RUN(test_rel);
	RUN(test_2211);
	RUN(test_2311);
	RUN(test_2411_2511);
	RUN(test_gauges);
	return uf_t_summary();
}
