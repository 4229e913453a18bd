/* SPDX-License-Identifier: BSD-3-Clause
 * ENA's allowance metrics as the DPDK release actually running has them
 * (docs/pmd-quirks.md#ena-by-dpdk-release): which of the ENI / customer-metric names its PMD
 * lists, what reading them costs, which of them udpfan reads. One table keyed on the version
 * rte_version() reports; no EAL needed but for uf_ena_port_xstats (the unit test
 * tests/unit/test_ena_metrics.c feeds faked name lists).
 */
#ifndef UF_ENA_METRICS_H
#define UF_ENA_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uf_quirk;

/* A release string as rte_version() writes it ("DPDK 24.11.6", "DPDK 22.11.11-rc1") as
 * RTE_VERSION_NUM(year, month, minor, 0); 0 when it cannot be read. */
unsigned int uf_dpdk_version_num(const char *s);

/* What the ENA PMD of a range of DPDK releases does (drivers/net/ena/ena_ethdev.c) */
struct uf_ena_rel {
	unsigned int since; /* RTE_VERSION_NUM of the first release the row describes */
	const char *name;   /* "22.11" */
	/* the allowance metrics are listed only where the device has the capability
	 * (ena_get_metrics_entries); false: listed on every device, and every read sends the
	 * admin command whether or not the device has them */
	bool cap_gated;
	bool srd; /* ena_srd_* listed: ENA Express, one more admin command per full read */
};

/* The row for a release: the last one at or before version (the oldest for older ones). */
const struct uf_ena_rel *uf_ena_rel(unsigned int version);

/* What a port's PMD lists of the allowance metrics */
enum uf_ena_eni {
	UF_ENA_ENI_UNGATED,  /* 22.11: the five ENI names on every device */
	UF_ENA_ENI_LEGACY,   /* ENA_ADMIN_ENI_STATS: the five (23.11 on) */
	UF_ENA_ENI_CUSTOMER, /* ENA_ADMIN_CUSTOMER_METRICS: the five and ..._available */
	UF_ENA_ENI_NONE,     /* neither capability: no name, no admin command (23.11 on) */
};

struct uf_ena_metrics {
	const struct uf_ena_rel *rel;
	enum uf_ena_eni eni;
	int listed; /* how many of the six metric names the PMD lists */
	bool srd;   /* it lists ena_srd_* (read by the full xstats_get only; udpfan never does) */
	/* it lists rx_overruns: 23.11's device RX overruns, kept apart from imissed (22.11 does
	 * not read them, 24.11 on adds them to imissed) */
	bool rx_overruns;
};

/* The xstat that is a level, not a counter: connections the instance may still open */
#define UF_ENA_CONNTRACK_AVAILABLE "conntrack_allowance_available"

/* From the PMD's names (name i at names + i * stride: rte_eth_xstat_name's layout) and the
 * running version: which metrics this port has. */
void uf_ena_metrics_find(unsigned int version, const char *names, size_t stride, int n,
			 struct uf_ena_metrics *m);

/*
 * The xstats udpfan reads on an ENA port: the row's list; where the release lists the
 * metrics by capability, the allowance names this device does not list are left out
 * (one start-up line says why, not a NOTICE each), and UF_ENA_CONNTRACK_AVAILABLE and
 * rx_overruns are added where listed. At most max - 1 names and a NULL into out; returns how many.
 */
int uf_ena_xstats(const char *const *row, const struct uf_ena_metrics *m, const char **out,
		  int max);

/* The start-up line: what this port's allowance metrics are in this release, what they cost */
void uf_ena_metrics_line(const struct uf_ena_metrics *m, char *buf, size_t len);

/* Is the xstat a level (reported as read, exported as a gauge), not a counter? */
bool uf_xstat_gauge(const char *name);

/*
 * A level read by the same admin command as the guarded counters is as good as they are:
 * valid[i] of a gauge becomes false unless every guarded counter in the same reading is
 * valid (the first reading after start, and one the PMD did not fill in, are not).
 */
void uf_xstats_tie_gauges(const char *const *names, const bool *guarded, bool *valid, int n);

/*
 * For the port's quirk row, the xstats to read (the row's list but on net_ena, where it
 * follows the running release and the device's names, and the start-up line is logged).
 * The list lives until the next call for the same port id.
 */
const char *const *uf_ena_port_xstats(uint16_t port_id, const struct uf_quirk *q,
				      const char *port_name);

#endif /* UF_ENA_METRICS_H */
