/* SPDX-License-Identifier: BSD-3-Clause
 * ENA's allowance metrics by DPDK release (docs/pmd-quirks.md#ena-by-dpdk-release). Line
 * numbers: drivers/net/ena/ena_ethdev.c of v22.11 (stable branch), 23.11.7 and 24.11.6.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_version.h>

#include "uf_common.h"
#include "uf_ena_metrics.h"
#include "uf_port.h"
#include "uf_quirks.h"
#include "uf_xwatch.h"

static const struct uf_ena_rel rels[] = {
	/* ena_stats_eni_strings (ena_ethdev.c:95-101), always in ena_xstats_calc_num (757-762);
	 * ena_copy_eni_stats (3139-3160) sends ENA_ADMIN_GET_STATS_TYPE_ENI on every read with no
	 * capability check, and on failure xstats_get(_by_id) copy an uninitialised stack
	 * struct (3304-3340, 3370-3403) */
	{ .since = RTE_VERSION_NUM(22, 11, 0, 0), .name = "22.11", .cap_gated = false },
	/* ena_stats_metrics_strings (104-111: the five and conntrack_allowance_available),
	 * ena_stats_srd_strings (113-119); ena_get_metrics_entries (1760-1775): six with
	 * ENA_ADMIN_CUSTOMER_METRICS, five with ENA_ADMIN_ENI_STATS, none without either;
	 * ena_copy_customer_metrics (3240-3281) asks only what the capability allows, its
	 * caller's buffer still unset when the command fails */
	{ .since = RTE_VERSION_NUM(23, 11, 0, 0), .name = "23.11", .cap_gated = true, .srd = true },
	/* the same in 24.11.6 (130-137, 1843-1857, 3353-3394) and 25.11.2 (141-148, 1933-1948,
	 * 3457-3498) */
	{ .since = RTE_VERSION_NUM(24, 11, 0, 0), .name = "24.11", .cap_gated = true, .srd = true },
	{ .since = RTE_VERSION_NUM(25, 11, 0, 0), .name = "25.11", .cap_gated = true, .srd = true },
};

/* the metric names in the PMD's order (the sixth only with customer metrics) */
static const char *const metric_names[] = {
	"bw_in_allowance_exceeded",     "bw_out_allowance_exceeded",    "pps_allowance_exceeded",
	"conntrack_allowance_exceeded", "linklocal_allowance_exceeded", UF_ENA_CONNTRACK_AVAILABLE
};

unsigned int
uf_dpdk_version_num(const char *s)
{
	unsigned int y, m, minor = 0;

	if (s == NULL)
		return 0;
	if (strncmp(s, "DPDK ", 5) == 0)
		s += 5;
	if (sscanf(s, "%u.%u.%u", &y, &m, &minor) < 2 || y > 255 || m > 255 || minor > 255)
		return 0;
	return RTE_VERSION_NUM(y, m, minor, 0);
}

const struct uf_ena_rel *
uf_ena_rel(unsigned int version)
{
	unsigned int i;

	for (i = RTE_DIM(rels) - 1; i > 0; i--)
		if (version >= rels[i].since)
			return &rels[i];
	return &rels[0];
}

static bool
listed(const char *names, size_t stride, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(names + (size_t)i * stride, name) == 0)
			return true;
	return false;
}

void
uf_ena_metrics_find(unsigned int version, const char *names, size_t stride, int n,
		    struct uf_ena_metrics *m)
{
	unsigned int i;
	bool avail;

	memset(m, 0, sizeof(*m));
	m->rel = uf_ena_rel(version);
	for (i = 0; i < RTE_DIM(metric_names); i++)
		m->listed += listed(names, stride, n, metric_names[i]);
	avail = listed(names, stride, n, UF_ENA_CONNTRACK_AVAILABLE);
	m->srd = listed(names, stride, n, "ena_srd_mode");
	m->rx_overruns = listed(names, stride, n, "rx_overruns");
	if (!m->rel->cap_gated)
		m->eni = UF_ENA_ENI_UNGATED;
	else if (avail)
		m->eni = UF_ENA_ENI_CUSTOMER;
	else if (m->listed > 0)
		m->eni = UF_ENA_ENI_LEGACY;
	else
		m->eni = UF_ENA_ENI_NONE;
}

static bool
is_metric(const char *name)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(metric_names); i++)
		if (strcmp(name, metric_names[i]) == 0)
			return true;
	return false;
}

int
uf_ena_xstats(const char *const *row, const struct uf_ena_metrics *m, const char **out, int max)
{
	int i, k = 0;

	for (i = 0; row != NULL && row[i] != NULL && k < max - 1; i++) {
		/* a capability-gated release lists none of the five on a device without
		 * them: the start-up line says so */
		if (m->eni == UF_ENA_ENI_NONE && is_metric(row[i]))
			continue;
		out[k++] = row[i];
	}
	if (m->eni == UF_ENA_ENI_CUSTOMER && k < max - 1)
		out[k++] = UF_ENA_CONNTRACK_AVAILABLE;
	/* 23.11: ena_keep_alive (4000-4017) stores the device's RX overruns in this xstat and
	 * only rx_drops in imissed (1177); 24.11 adds them to imissed (4135) */
	if (m->rx_overruns && k < max - 1)
		out[k++] = "rx_overruns";
	out[k] = NULL;
	return k;
}

void
uf_ena_metrics_line(const struct uf_ena_metrics *m, char *buf, size_t len)
{
	const char *r = m->rel->name;

	switch (m->eni) {
	case UF_ENA_ENI_UNGATED:
		snprintf(buf, len,
			 "allowance counters: the DPDK %s ENA PMD lists the five ENI counters on "
			 "every device and asks the device for them on each read, capability or "
			 "not; udpfan reads them once per stats interval and reports a reading "
			 "only when it follows from the one before (a device without ENI stats: "
			 "null)",
			 r);
		break;
	case UF_ENA_ENI_LEGACY:
		snprintf(buf, len,
			 "allowance counters: ENI stats (ENA_ADMIN_ENI_STATS, DPDK %s): the five "
			 "*_allowance_exceeded counters, one admin command per read, read once per "
			 "stats interval",
			 r);
		break;
	case UF_ENA_ENI_CUSTOMER:
		snprintf(buf, len,
			 "allowance counters: customer metrics (ENA_ADMIN_CUSTOMER_METRICS, DPDK "
			 "%s): the five *_allowance_exceeded counters and the level "
			 "conntrack_allowance_available, one admin command per read, read once per "
			 "stats interval",
			 r);
		break;
	case UF_ENA_ENI_NONE:
	default:
		snprintf(buf, len,
			 "allowance counters: none: the device has neither ENI stats nor customer "
			 "metrics, and the DPDK %s ENA PMD lists no *_allowance_exceeded xstat: "
			 "drops beyond the instance's allowances are not visible to udpfan here",
			 r);
		break;
	}
}

bool
uf_xstat_gauge(const char *name)
{
	return strcmp(name, UF_ENA_CONNTRACK_AVAILABLE) == 0;
}

void
uf_xstats_tie_gauges(const char *const *names, const bool *guarded, bool *valid, int n)
{
	bool all = true, any = false;
	int i;

	for (i = 0; i < n; i++)
		if (guarded[i]) {
			any = true;
			all &= valid[i];
		}
	for (i = 0; i < n; i++)
		if (uf_xstat_gauge(names[i]))
			valid[i] = valid[i] && any && all;
}

const char *const *
uf_ena_port_xstats(uint16_t port_id, const struct uf_quirk *q, const char *port_name)
{
	static const char *lists[RTE_MAX_ETHPORTS][UF_XSTATS_MAX + 1];
	struct rte_eth_xstat_name *names;
	struct uf_ena_metrics m;
	char line[512];
	int cnt, n;

	if (strcmp(q->driver, "net_ena") != 0 || port_id >= RTE_MAX_ETHPORTS)
		return q->xstats;
	cnt = rte_eth_xstats_get_names(port_id, NULL, 0);
	names = cnt > 0 ? calloc((size_t)cnt, sizeof(*names)) : NULL;
	if (names == NULL)
		return q->xstats;
	n = rte_eth_xstats_get_names(port_id, names, (unsigned int)cnt);
	if (n <= 0 || n > cnt) {
		free(names);
		return q->xstats;
	}
	uf_ena_metrics_find(uf_dpdk_version_num(rte_version()), names[0].name, sizeof(names[0]), n,
			    &m);
	free(names);
	uf_ena_xstats(q->xstats, &m, lists[port_id], (int)RTE_DIM(lists[port_id]));
	uf_ena_metrics_line(&m, line, sizeof(line));
	UF_LOG(INFO, "port %s: %s", port_name, line);
	return lists[port_id];
}
