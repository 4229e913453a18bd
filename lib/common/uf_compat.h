/* SPDX-License-Identifier: BSD-3-Clause
 * udpfan: what moved between the DPDK releases udpfan builds on (22.11, 23.11, 24.11, 25.11;
 * docs/testing.md#dpdk-lts), in one place, so that no other file needs a version test.
 */
#ifndef UF_COMPAT_H
#define UF_COMPAT_H

#include <stdint.h>

#include <rte_version.h>

/*
 * The 16 bytes of an IPv6 address field of struct rte_ipv6_hdr (and of the rte_flow IPv6
 * item's hdr): a uint8_t[16] up to 23.11, struct rte_ipv6_addr { uint8_t a[16]; } from
 * 24.11. Taking the field's address serves both.
 */
#define UF_IP6_BYTES(field) ((uint8_t *)&(field))
#define UF_IP6_CBYTES(field) ((const uint8_t *)&(field))

/*
 * An IPv6 address as rte_lpm6_add and rte_lpm6_lookup take it: const uint8_t * up to 23.11,
 * const struct rte_ipv6_addr * from 24.11 (the same 16 bytes).
 */
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
#define UF_LPM6_ADDR(bytes) ((const struct rte_ipv6_addr *)(const void *)(bytes))
#else
#define UF_LPM6_ADDR(bytes) ((const uint8_t *)(bytes))
#endif

/*
 * ENA's LLQ devargs: large_llq_hdr= and enable_llq= up to 23.11; from 24.11 one llq_policy=
 * (0: LLQ off, 1: the device's recommendation, 2: normal headers, 3: large headers) and the
 * old names make the probe fail (ena_ethdev.c, ena.rst).
 */
#define UF_ENA_LLQ_POLICY (RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0))
/* the device-string key whose value 0 turns LLQ off: enable_llq=0, from 24.11 llq_policy=0 */
#define UF_ENA_LLQ_OFF_KEY (UF_ENA_LLQ_POLICY ? "llq_policy" : "enable_llq")

/*
 * How many queues ethdev keeps basic per-queue xstats for (rx_q<n>_packets, ...):
 * RTE_ETHDEV_QUEUE_STAT_CNTRS, public in rte_config.h up to 24.11, internal from 25.11
 * (ethdev_driver.h, release notes 25.11); 16 in each release's default build.
 */
#ifdef RTE_ETHDEV_QUEUE_STAT_CNTRS
#define UF_ETHDEV_QUEUE_STAT_CNTRS RTE_ETHDEV_QUEUE_STAT_CNTRS
#else
#define UF_ETHDEV_QUEUE_STAT_CNTRS 16
#endif

/*
 * rte_openlog_stream(): up to 23.11 it sets the log stream and nothing else. From 24.11 it
 * also resets how a line is printed to plain vfprintf, dropping the --log-timestamp and
 * --log-color formats rte_eal_init chose, and closes a stream DPDK opened itself (--syslog,
 * the journal when stderr is systemd's), with no API to restore either (lib/log/log.c in
 * 24.11 and 25.11). The log tap (lib/port/uf_logtap.c) replaces the stream only where that
 * keeps the rest.
 */
#define UF_OPENLOG_RESETS_FORMAT (RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0))

/*
 * net_memif's disconnect waits for the bursts before it unmaps the rings only where the DPDK
 * build carries udpfan's patch (patches/dpdk/<version>/, docs/pmd-quirks.md, "Unmapped under
 * a running worker"); no upstream release does. The patched PMD exports this function
 * (returning 1) and installs rte_pmd_memif.h. udpfan asks the PMD that runs, not the headers
 * it was built with (a build against patched 24.11 may run with Debian 13's unpatched
 * librte_net_memif.so.25): uf_unmap_guard_pmd_quiesces() looks the symbol up in the loaded
 * library.
 */
#define UF_MEMIF_QUIESCE_SYMBOL "rte_pmd_memif_quiesces_on_disconnect"

#endif
