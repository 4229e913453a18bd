/* SPDX-License-Identifier: BSD-3-Clause
 * A port's statistics: the xstats its quirk row names, resolved to ids when it starts and
 * read by id (guarded ones twice), the xstats watched for faults, and the snapshot the
 * stats and telemetry read (docs/pmd-quirks.md, xstats and guarded_xstats).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "uf_ena_metrics.h"
#include "uf_port.h"
#include "uf_xsk.h"

/* All of the port's xstats names (malloc'd, *n of them), or NULL. */
static struct rte_eth_xstat_name *
xstat_names_all(uint16_t port_id, int *n)
{
	struct rte_eth_xstat_name *names;
	int cnt = rte_eth_xstats_get_names(port_id, NULL, 0);

	if (cnt <= 0)
		return NULL;
	names = calloc((size_t)cnt, sizeof(*names));
	if (names == NULL)
		return NULL;
	*n = rte_eth_xstats_get_names(port_id, names, (unsigned int)cnt);
	if (*n <= 0 || *n > cnt) {
		free(names);
		return NULL;
	}
	return names;
}

/* the row's reset-worthy xstats (patterns; per-queue names), after the loss xstats */
static void
resolve_xwatch(struct uf_port *p, unsigned int basic)
{
	struct rte_eth_xstat_name *names;
	int n = 0;

	p->n_xwatch = 0;
	if (p->quirk->reset_xstats == NULL)
		return;
	/* by name: whichever of the row's patterns this PMD version lists */
	names = xstat_names_all(p->port_id, &n);
	if (names != NULL)
		p->n_xwatch = uf_xstat_select(p->quirk->reset_xstats, names[0].name,
					      sizeof(names[0]), n, (int)basic,
					      p->xstat_ids + p->n_xstats, UF_XWATCH_MAX);
	memset(p->xwatch, 0, sizeof(p->xwatch));
	free(names);
	UF_LOG(INFO,
	       "port %s: %d xstats watched for faults the PMD does not report as a reset "
	       "event",
	       p->cfg->name, p->n_xwatch);
}

void
uf_port_resolve_xstats(struct uf_port *p)
{
	/* the row's list; on ENA as the running DPDK lists the allowance metrics */
	const char *const *want = uf_ena_port_xstats(p->port_id, p->quirk, p->cfg->name);
	unsigned int basic = uf_xstats_basic_count(p->info.dev_flags ? *p->info.dev_flags : 0,
						   p->nb_queues, p->nb_queues);
	int i;

	p->n_xstats = 0;
	for (i = 0; want != NULL && want[i] != NULL && p->n_xstats < UF_XSTATS_MAX; i++) {
		uint64_t id;

		if (rte_eth_xstats_get_id_by_name(p->port_id, want[i], &id) != 0) {
			UF_LOG(NOTICE,
			       "port %s: %s has no xstat \"%s\" (expected by its quirk row); "
			       "it is left out of the stats, not reported as 0",
			       p->cfg->name, p->info.driver_name, want[i]);
			continue;
		}
		if (id < basic) {
			/* one basic id sends rte_eth_xstats_get_by_id to the PMD's full
			 * xstats_get; the value is in rte_eth_stats anyway */
			UF_LOG(NOTICE,
			       "port %s: xstat \"%s\" is one of ethdev's basic stats "
			       "(in the port's rte_eth_stats); left out of xstats",
			       p->cfg->name, want[i]);
			continue;
		}
		/* a reset leaves the guards as they were: the reading after it is checked
		 * against the reset (uf_xguard_check) */
		p->xstat_ids[p->n_xstats] = id;
		p->xstat_names[p->n_xstats] = want[i];
		p->xstat_guarded[p->n_xstats] = uf_xstat_match(p->quirk->guarded_xstats, want[i]);
		p->n_xstats++;
	}
	resolve_xwatch(p, basic);
}

static void
fill(uint64_t *v, int n, uint64_t pattern)
{
	int i;

	for (i = 0; i < n; i++)
		v[i] = pattern;
}

int
uf_port_xstats(struct uf_port *p, uint64_t *vals, bool *valid)
{
	const uint64_t hz = rte_get_timer_hz(), now = rte_get_timer_cycles();
	uint64_t a[UF_XSTATS_MAX], b[UF_XSTATS_MAX], max_rise = 0;
	const uint64_t *v = a;
	int n = p->n_xstats, i, ret;
	bool twice = false;
	double dt;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		twice |= p->xstat_guarded[i] && !p->xstat_garbage[i];
	/* driver-specific ids only: the PMD's xstats_get_by_id (one ENI admin command on
	 * ENA), never the full xstats_get. Guarded ids twice, the buffer filled differently:
	 * a value the PMD did not write follows the fill (docs/pmd-quirks.md, guarded_xstats) */
	fill(a, n, UF_XFILL_A);
	ret = rte_eth_xstats_get_by_id(p->port_id, p->xstat_ids, a, (unsigned int)n);
	if (ret < 0)
		return ret;
	if (twice) {
		fill(b, n, UF_XFILL_B);
		ret = rte_eth_xstats_get_by_id(p->port_id, p->xstat_ids, b, (unsigned int)n);
		if (ret < 0)
			return ret;
		max_rise = (uint64_t)(UF_XGUARD_MAX_RATE * (double)(rte_get_timer_cycles() - now) /
				      (double)hz) +
			   1;
		v = b;
	}
	dt = p->xstats_tsc != 0 ? (double)(now - p->xstats_tsc) / (double)hz : 0;
	p->xstats_tsc = now;
	for (i = 0; i < n; i++) {
		if (twice && p->xstat_guarded[i] && !p->xstat_garbage[i] &&
		    uf_xfill_garbage(a[i], b[i], max_rise)) {
			p->xstat_garbage[i] = true;
			UF_LOG(WARNING,
			       "port %s: xstat \"%s\" read twice gave 0x%" PRIx64 " then 0x%" PRIx64
			       " with the value buffer filled differently: the PMD does not "
			       "fill it in here; dropped from the stats",
			       p->cfg->name, p->xstat_names[i], a[i], b[i]);
		}
		vals[i] = v[i];
		valid[i] = !p->xstat_garbage[i] &&
			   (!p->xstat_guarded[i] ||
			    uf_xguard_check(&p->xguard[i], v[i], dt, p->resets));
	}
	uf_xstats_tie_gauges(p->xstat_names, p->xstat_guarded, valid, n);
	return 0;
}

int
uf_port_faults(struct uf_port *p, char *fault, size_t len)
{
	uint64_t v[UF_XWATCH_MAX], id;
	struct rte_eth_xstat_name *names;
	int i, ret, rose = -1, cnt = 0;

	if (p->n_xwatch == 0 || !p->started || p->owner != NULL)
		return 0;
	/* the watched ids alone: per-queue counters the PMD keeps in memory, never the ENI
	 * ones (an admin command), so cheap enough for every link poll */
	ret = rte_eth_xstats_get_by_id(p->port_id, p->xstat_ids + p->n_xstats, v,
				       (unsigned int)p->n_xwatch);
	if (ret < 0)
		return ret;
	for (i = 0; i < p->n_xwatch; i++)
		if (uf_xwatch_rose(&p->xwatch[i], v[i]) && rose < 0)
			rose = i;
	if (rose < 0)
		return 0;
	id = p->xstat_ids[p->n_xstats + rose];
	names = xstat_names_all(p->port_id, &cnt);
	snprintf(fault, len, "%s%s = %" PRIu64,
		 names != NULL && id < (uint64_t)cnt ? names[id].name : "xstat ",
		 names != NULL && id < (uint64_t)cnt ? "" : "?", v[rose]);
	free(names);
	return 1;
}

void
uf_port_snapshot(struct uf_port *p, struct uf_snap_port *sp)
{
	int k;

	snprintf(sp->name, sizeof(sp->name), "%s", p->cfg->name);
	snprintf(sp->driver, sizeof(sp->driver), "%s", p->info.driver_name);
	snprintf(sp->steering, sizeof(sp->steering), "%s", p->steering);
	uf_rx_cksum_name(p->plan.rx_offloads, sp->rx_checksum, sizeof(sp->rx_checksum));
	sp->resets = p->resets;
	sp->reset_retries = p->reset_retries;
	sp->fault_resets = p->fault_resets;
	sp->rx_before_ready = p->rx_before_ready;
	memset(&sp->st, 0, sizeof(sp->st));
	sp->alias_of[0] = '\0';
	if (p->owner != NULL) { /* a VLAN alias: the device's counters are its owner's */
		snprintf(sp->alias_of, sizeof(sp->alias_of), "%s", p->owner->cfg->name);
		sp->stats_ok = false;
		sp->link_up = p->link_up;
		sp->link_downs = p->link_downs;
		sp->tx_stalled = false;
		sp->n_xstats = 0;
		sp->has_xsk = false;
		sp->has_pktsock = false;
		snprintf(sp->xdp_mode, sizeof(sp->xdp_mode), "%s", p->xdp_mode);
		return;
	}
	sp->stats_ok = rte_eth_stats_get(p->port_id, &sp->st) == 0;
	sp->link_up = p->link_up;
	sp->link_downs = p->link_downs;
	sp->tx_stalled = false;
	sp->n_xstats = RTE_MIN(p->n_xstats, UF_SNAP_XSTATS);
	if (uf_port_xstats(p, sp->xvals, sp->xvalid) < 0)
		sp->n_xstats = 0;
	for (k = 0; k < sp->n_xstats; k++)
		sp->xnames[k] = p->xstat_names[k];
	sp->has_xsk = p->n_xsk > 0 && uf_xsk_query(p->xsk_fd, p->n_xsk, &sp->xsk) == 0;
	sp->has_pktsock = p->n_pktsock > 0;
	if (sp->has_pktsock) {
		struct uf_pktsock_info pi;

		if (uf_pktsock_query(p->pktsock_fd, p->n_pktsock, &pi) == 0) {
			p->pkt_packets += pi.packets;
			p->pkt_drops += pi.drops;
		}
		sp->pktsock_n = p->n_pktsock;
		sp->pktsock_packets = p->pkt_packets;
		sp->pktsock_drops = p->pkt_drops;
	}
	snprintf(sp->xdp_mode, sizeof(sp->xdp_mode), "%s", p->xdp_mode);
}
