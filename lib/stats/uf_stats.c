/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "uf_stats.h"

#define UF_NAME_DROP(e, k, d) [UF_DROP_##e] = #k,
const char *const uf_drop_names[UF_DROP_MAX] = { UF_DROP_REASONS(UF_NAME_DROP) };
#undef UF_NAME_DROP
#define UF_DESCR_DROP(e, k, d) [UF_DROP_##e] = d,
const char *const uf_drop_descr[UF_DROP_MAX] = { UF_DROP_REASONS(UF_DESCR_DROP) };
#undef UF_DESCR_DROP
#define UF_NAME_TXDROP(e, k, d) [UF_TXDROP_##e] = #k,
const char *const uf_txdrop_names[UF_TXDROP_MAX] = { UF_TX_DROP_REASONS(UF_NAME_TXDROP) };
#undef UF_NAME_TXDROP
#define UF_DESCR_TXDROP(e, k, d) [UF_TXDROP_##e] = d,
const char *const uf_txdrop_descr[UF_TXDROP_MAX] = { UF_TX_DROP_REASONS(UF_DESCR_TXDROP) };
#undef UF_DESCR_TXDROP

void
uf_ctr_add(struct uf_lcore_ctr *dst, const struct uf_lcore_ctr *src)
{
	int i;

	dst->rx += UF_LOAD(&src->rx);
	dst->forwarded += UF_LOAD(&src->forwarded);
	dst->control += UF_LOAD(&src->control);
	for (i = 0; i < UF_DROP_MAX; i++)
		dst->drop[i] += UF_LOAD(&src->drop[i]);
	dst->fanout += UF_LOAD(&src->fanout);
	dst->sampled_out += UF_LOAD(&src->sampled_out);
	dst->copies_attempted += UF_LOAD(&src->copies_attempted);
	dst->tx_ok += UF_LOAD(&src->tx_ok);
	for (i = 0; i < UF_TXDROP_MAX; i++)
		dst->tx_drop[i] += UF_LOAD(&src->tx_drop[i]);
	dst->ctl_tx_ok += UF_LOAD(&src->ctl_tx_ok);
	dst->ctl_tx_drop += UF_LOAD(&src->ctl_tx_drop);
	dst->tx_retries += UF_LOAD(&src->tx_retries);
	dst->chained += UF_LOAD(&src->chained);
	dst->csum_completed += UF_LOAD(&src->csum_completed);
	dst->busy_cycles += UF_LOAD(&src->busy_cycles);
	dst->total_cycles += UF_LOAD(&src->total_cycles);
	dst->loops += UF_LOAD(&src->loops);
}

void
uf_dest_ctr_add(struct uf_dest_ctr *dst, const struct uf_dest_ctr *src)
{
	/* tx_drop first: a copy is counted before it can fail, so tx_ok never reads negative */
	uint64_t drop = UF_LOAD(&src->tx_drop), copies = UF_LOAD(&src->copies);

	dst->copies += copies;
	dst->tx_drop += drop;
	dst->tx_ok += copies >= drop ? copies - drop : 0;
	dst->sampled_out += UF_LOAD(&src->sampled_out);
	dst->no_neighbor += UF_LOAD(&src->no_neighbor);
}

static uint64_t
sum_drops(const struct uf_lcore_ctr *c)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < UF_DROP_MAX; i++)
		s += c->drop[i];
	return s;
}

static uint64_t
sum_txdrops(const struct uf_lcore_ctr *c)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < UF_TXDROP_MAX; i++)
		s += c->tx_drop[i];
	return s;
}

static double
busy_pct(uint64_t busy, uint64_t total)
{
	return total == 0 ? 0.0 : 100.0 * (double)busy / (double)total;
}

void
uf_stats_json(FILE *f, const struct uf_snap *s)
{
	const struct uf_lcore_ctr *t = &s->tot;
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];
	int i, j;

	fprintf(f,
		"{\"time\": %.3f, \"interval_s\": %.3f, \"uptime_s\": %.3f, \"final\": %s, "
		"\"plan_version\": %" PRIu64 ", \"tsc_hz\": %" PRIu64 ", ",
		s->time, s->interval_s, s->uptime_s, s->final ? "true" : "false", s->plan_version,
		s->tsc_hz);
	fprintf(f,
		"\"fwd\": {\"rx\": %" PRIu64 ", \"forwarded\": %" PRIu64 ", \"control\": %" PRIu64
		", \"fanout\": %" PRIu64 ", \"sampled_out\": %" PRIu64
		", \"copies_attempted\": %" PRIu64 ", \"tx_ok\": %" PRIu64 ", \"drop\": {",
		t->rx, t->forwarded, t->control, t->fanout, t->sampled_out, t->copies_attempted,
		t->tx_ok);
	for (i = 0; i < UF_DROP_MAX; i++)
		fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "", uf_drop_names[i], t->drop[i]);
	fprintf(f, "}, \"tx_drop\": {");
	for (i = 0; i < UF_TXDROP_MAX; i++)
		fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "", uf_txdrop_names[i], t->tx_drop[i]);
	fprintf(f,
		"}, \"tx_retries\": %" PRIu64 ", \"chained\": %" PRIu64
		", \"csum_completed\": %" PRIu64 ", \"ctl_tx_ok\": %" PRIu64
		", \"ctl_tx_drop\": %" PRIu64 "}, ",
		t->tx_retries, t->chained, t->csum_completed, t->ctl_tx_ok, t->ctl_tx_drop);
	fprintf(f,
		"\"arp\": {\"requests_answered\": %" PRIu64 ", \"replies_learned\": %" PRIu64
		", \"requests_sent\": %" PRIu64 ", \"gratuitous_sent\": %" PRIu64
		", \"ignored\": %" PRIu64 "}, ",
		s->ctl.arp_requests_answered, s->ctl.arp_replies_learned, s->ctl.arp_requests_sent,
		s->ctl.arp_gratuitous_sent, s->ctl.arp_ignored);
	fprintf(f,
		"\"icmp\": {\"echo_answered\": %" PRIu64 ", \"rate_limited\": %" PRIu64
		", \"ignored\": %" PRIu64 "}, \"control\": {\"nombuf\": %" PRIu64
		", \"ring_full\": %" PRIu64 ", \"unhandled\": %" PRIu64
		", \"plan_updates\": %" PRIu64 "}, ",
		s->ctl.icmp_echo_answered, s->ctl.icmp_rate_limited, s->ctl.icmp_ignored,
		s->ctl.ctl_nombuf, s->ctl.ctl_ring_full, s->ctl.ctl_unhandled, s->ctl.plan_updates);

	fprintf(f, "\"ports\": {");
	for (i = 0; i < s->n_ports; i++) {
		const struct uf_snap_port *p = &s->ports[i];

		fprintf(f,
			"%s\"%s\": {\"driver\": \"%s\", \"link_up\": %s, \"ipackets\": %" PRIu64
			", \"opackets\": %" PRIu64 ", \"ibytes\": %" PRIu64 ", \"obytes\": %" PRIu64
			", \"imissed\": %" PRIu64 ", \"ierrors\": %" PRIu64
			", \"oerrors\": %" PRIu64 ", \"rx_nombuf\": %" PRIu64 ", \"xstats\": {",
			i ? ", " : "", p->name, p->driver, p->link_up ? "true" : "false",
			p->st.ipackets, p->st.opackets, p->st.ibytes, p->st.obytes, p->st.imissed,
			p->st.ierrors, p->st.oerrors, p->st.rx_nombuf);
		for (j = 0; j < p->n_xstats; j++) {
			/* an implausible reading (docs/loss-accounting.md): unavailable */
			if (!p->xvalid[j])
				fprintf(f, "%s\"%s\": null", j ? ", " : "", p->xnames[j]);
			else
				fprintf(f, "%s\"%s\": %" PRIu64, j ? ", " : "", p->xnames[j],
					p->xvals[j]);
		}
		fprintf(f, "}");
		if (p->has_pktsock)
			fprintf(f,
				", \"pkt_socket\": {\"sockets\": %d, \"packets\": %" PRIu64
				", \"drops\": %" PRIu64 "}",
				p->pktsock_n, p->pktsock_packets, p->pktsock_drops);
		if (p->has_xsk)
			fprintf(f,
				", \"xdp_mode\": \"%s\", \"xsk\": {\"sockets\": %d, "
				"\"rx_dropped\": %" PRIu64 ", \"rx_invalid\": %" PRIu64
				", \"rx_ring_full\": %" PRIu64 ", \"fill_ring_empty\": %" PRIu64
				", \"tx_invalid\": %" PRIu64 ", \"tx_ring_empty\": %" PRIu64 "}",
				p->xdp_mode, p->xsk.n_sockets, p->xsk.rx_dropped, p->xsk.rx_invalid,
				p->xsk.rx_ring_full, p->xsk.fill_ring_empty, p->xsk.tx_invalid,
				p->xsk.tx_ring_empty);
		fprintf(f,
			", \"steering\": \"%s\", \"resets\": %" PRIu64
			", \"reset_retries\": %" PRIu64 ", \"fault_resets\": %" PRIu64
			", \"rx_before_ready\": %" PRIu64 ", \"link_downs\": %" PRIu64
			", \"tx_stalled\": %s}",
			p->steering, p->resets, p->reset_retries, p->fault_resets,
			p->rx_before_ready, p->link_downs, p->tx_stalled ? "true" : "false");
	}
	fprintf(f, "}, \"lcores\": {");
	for (i = 0; i < s->n_lcores; i++) {
		const struct uf_snap_lcore *l = &s->lc[i];

		fprintf(f,
			"%s\"%u\": {\"rx\": %" PRIu64 ", \"tx\": %" PRIu64 ", \"busy_pct\": %.1f}",
			i ? ", " : "", l->lcore, l->rx, l->tx,
			busy_pct(l->busy_cycles, l->total_cycles));
	}
	fprintf(f, "}, \"destinations\": [");
	for (i = 0; i < s->n_dests; i++) {
		const struct uf_snap_dest *d = &s->dests[i];
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		rte_ether_format_addr(mac, sizeof(mac), &d->mac);
		fprintf(f,
			"%s{\"ip\": \"%s\", \"udp_port\": %u, \"port\": \"%s\", \"next_hop\": "
			"\"%s\", \"mac\": \"%s\", \"state\": \"%s\", \"tx_ok\": %" PRIu64
			", \"tx_drop\": %" PRIu64 ", \"sampled_out\": %" PRIu64
			", \"no_neighbor\": %" PRIu64 "}",
			i ? ", " : "", uf_ip_str(d->ip, a), d->udp_port, d->port,
			uf_ip_str(d->next_hop, b), mac, d->state, d->c.tx_ok, d->c.tx_drop,
			d->c.sampled_out, d->c.no_neighbor);
	}
	fprintf(f, "]}\n");
}

const char *
uf_fmt_num(uint64_t v, char *buf, size_t len)
{
	char tmp[32];
	int n, i, o = 0;

	n = snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
	for (i = 0; i < n && (size_t)o + 2 < len; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

static uint64_t
rate(uint64_t now, uint64_t then, double dt)
{
	return dt <= 0 || now < then ? 0 : (uint64_t)((double)(now - then) / dt + 0.5);
}

/* what the line says about losses: the total and the largest items */
static void
loss_text(char *buf, size_t len, const struct uf_snap *s, int max_items)
{
	struct uf_loss l[64];
	int n = uf_stats_losses(s, l, RTE_DIM(l)), i, j, o;
	uint64_t total = 0;
	char v[32];

	if (n > (int)RTE_DIM(l))
		n = RTE_DIM(l);
	for (i = 0; i < n; i++)
		total += l[i].n;
	o = snprintf(buf, len, "lost %s", uf_fmt_num(total, v, sizeof(v)));
	/* largest first (a few items: selection is enough) */
	for (j = 0; j < max_items && j < n && o > 0 && (size_t)o < len; j++) {
		int best = j;
		struct uf_loss t;

		for (i = j + 1; i < n; i++)
			if (l[i].n > l[best].n)
				best = i;
		t = l[j];
		l[j] = l[best];
		l[best] = t;
		o += snprintf(buf + o, len - (size_t)o, "%s%s %s %s", j ? ", " : " (", l[j].where,
			      l[j].what, uf_fmt_num(l[j].n, v, sizeof(v)));
	}
	if (n > max_items && o > 0 && (size_t)o < len)
		o += snprintf(buf + o, len - (size_t)o, ", +%d more", n - max_items);
	if (n > 0 && o > 0 && (size_t)o < len)
		snprintf(buf + o, len - (size_t)o, ")");
}

void
uf_stats_line(char *buf, size_t len, const struct uf_snap *s, const struct uf_snap *prev)
{
	const struct uf_lcore_ctr *t = &s->tot, *p = prev != NULL ? &prev->tot : NULL;
	uint64_t busy = 0, total = 0, pbusy = 0, ptotal = 0;
	char r[32], x[32], d[32], m[32], lost[320], down[160] = "";
	double dt = s->interval_s;
	int i, o = 0;

	for (i = 0; i < s->n_lcores; i++) {
		busy += s->lc[i].busy_cycles;
		total += s->lc[i].total_cycles;
		if (prev != NULL && i < prev->n_lcores) {
			pbusy += prev->lc[i].busy_cycles;
			ptotal += prev->lc[i].total_cycles;
		}
	}
	for (i = 0; i < s->n_ports && (size_t)o < sizeof(down); i++)
		if (!s->ports[i].link_up || s->ports[i].tx_stalled)
			o += snprintf(down + o, sizeof(down) - (size_t)o, " | %s %s",
				      s->ports[i].name,
				      !s->ports[i].link_up ? "LINK DOWN" : "TX STALLED");
	loss_text(lost, sizeof(lost), s, 3);
	snprintf(buf, len, "rx %s pps | tx %s pps | drop %s | tx_drop %s | %s | busy %.0f%%%s",
		 uf_fmt_num(p ? rate(t->rx, p->rx, dt) : 0, r, sizeof(r)),
		 uf_fmt_num(p ? rate(t->tx_ok, p->tx_ok, dt) : 0, x, sizeof(x)),
		 uf_fmt_num(sum_drops(t), d, sizeof(d)), uf_fmt_num(sum_txdrops(t), m, sizeof(m)),
		 lost, busy_pct(busy - pbusy, total - ptotal), down);
}

/* RX drop reasons that are filtering by design (frames not meant for forwarding), not loss */
static bool
drop_is_filtering(int reason)
{
	switch (reason) {
	case UF_DROP_NOT_IPV4:
	case UF_DROP_NOT_UDP:
	case UF_DROP_NOT_FOR_US:
	case UF_DROP_MALFORMED:
	case UF_DROP_FRAGMENT:
	case UF_DROP_NO_RULE:
		return true;
	default:
		return false;
	}
}

/* an xstat that counts lost frames, and is not one of the basic stats under another name */
static bool
xstat_is_loss(const char *name)
{
	static const char *const basic[] = { "rx_missed_errors", "rx_mbuf_allocation_errors",
					     "rx_errors", "tx_errors", NULL };
	static const char *const words[] = { "drop",          "discard",
					     "missed",        "exceeded",
					     "out_of_buffer", "ring_full",
					     "alloc_failure", NULL };
	int i;

	for (i = 0; basic[i] != NULL; i++)
		if (strcmp(name, basic[i]) == 0)
			return false;
	for (i = 0; words[i] != NULL; i++)
		if (strstr(name, words[i]) != NULL)
			return true;
	return false;
}

static void
add_loss(struct uf_loss *out, int max, int *n, const char *where, const char *what1,
	 const char *what2, uint64_t v)
{
	if (v == 0)
		return;
	if (*n < max) {
		snprintf(out[*n].where, sizeof(out[*n].where), "%s", where);
		snprintf(out[*n].what, sizeof(out[*n].what), "%s%s", what1, what2);
		out[*n].n = v;
	}
	(*n)++;
}

int
uf_stats_losses(const struct uf_snap *s, struct uf_loss *out, int max)
{
	const struct uf_lcore_ctr *t = &s->tot;
	int n = 0, i, j;

	for (i = 0; i < UF_DROP_MAX; i++)
		if (!drop_is_filtering(i))
			add_loss(out, max, &n, "udpfan", "drop.", uf_drop_names[i], t->drop[i]);
	for (i = 0; i < UF_TXDROP_MAX; i++)
		add_loss(out, max, &n, "udpfan", "tx_drop.", uf_txdrop_names[i], t->tx_drop[i]);
	add_loss(out, max, &n, "udpfan", "ctl_tx_drop", "", t->ctl_tx_drop);
	add_loss(out, max, &n, "udpfan", "control.ring_full", "", s->ctl.ctl_ring_full);
	add_loss(out, max, &n, "udpfan", "control.nombuf", "", s->ctl.ctl_nombuf);
	for (i = 0; i < s->n_ports; i++) {
		const struct uf_snap_port *p = &s->ports[i];

		add_loss(out, max, &n, p->name, "imissed", "", p->st.imissed);
		add_loss(out, max, &n, p->name, "ierrors", "", p->st.ierrors);
		add_loss(out, max, &n, p->name, "rx_nombuf", "", p->st.rx_nombuf);
		add_loss(out, max, &n, p->name, "oerrors", "", p->st.oerrors);
		for (j = 0; j < p->n_xstats; j++)
			if (p->xvalid[j] && xstat_is_loss(p->xnames[j]))
				add_loss(out, max, &n, p->name, "xstats.", p->xnames[j],
					 p->xvals[j]);
		if (p->has_pktsock)
			add_loss(out, max, &n, p->name, "pkt_socket.drops", "", p->pktsock_drops);
		if (p->has_xsk) {
			add_loss(out, max, &n, p->name, "xsk.rx_dropped", "", p->xsk.rx_dropped);
			add_loss(out, max, &n, p->name, "xsk.rx_invalid", "", p->xsk.rx_invalid);
			add_loss(out, max, &n, p->name, "xsk.rx_ring_full", "",
				 p->xsk.rx_ring_full);
			add_loss(out, max, &n, p->name, "xsk.fill_ring_empty", "",
				 p->xsk.fill_ring_empty);
			add_loss(out, max, &n, p->name, "xsk.tx_invalid", "", p->xsk.tx_invalid);
		}
	}
	return n;
}

bool
uf_stats_summary(const struct uf_snap *s, char *buf, size_t len)
{
	struct uf_loss l[64];
	char why[256], v[32];
	int n, i, o;

	if (!uf_stats_ledger_ok(s, why, sizeof(why))) {
		snprintf(buf, len, "MISMATCH: %s", why);
		return false;
	}
	n = uf_stats_losses(s, l, RTE_DIM(l));
	if (n == 0) {
		snprintf(buf, len, "OK: every frame and copy accounted for, nothing lost");
		return true;
	}
	o = snprintf(buf, len, "LOSS (every frame and copy accounted for):");
	for (i = 0; i < n && i < (int)RTE_DIM(l) && o > 0 && (size_t)o < len; i++)
		o += snprintf(buf + o, len - (size_t)o, "%s %s %s %s", i ? "," : "", l[i].where,
			      l[i].what, uf_fmt_num(l[i].n, v, sizeof(v)));
	return false;
}

bool
uf_stats_ledger_ok(const struct uf_snap *s, char *why, size_t len)
{
	const struct uf_lcore_ctr *t = &s->tot;
	uint64_t drops = sum_drops(t), txd = sum_txdrops(t);

	if (t->rx != t->forwarded + t->control + drops) {
		snprintf(why, len,
			 "rx %" PRIu64 " != forwarded %" PRIu64 " + control %" PRIu64
			 " + drops %" PRIu64,
			 t->rx, t->forwarded, t->control, drops);
		return false;
	}
	if (t->fanout != t->copies_attempted + t->sampled_out) {
		snprintf(why, len,
			 "fanout %" PRIu64 " != copies_attempted %" PRIu64
			 " + sampled_out %" PRIu64,
			 t->fanout, t->copies_attempted, t->sampled_out);
		return false;
	}
	if (t->copies_attempted != t->tx_ok + txd) {
		snprintf(why, len,
			 "copies_attempted %" PRIu64 " != tx_ok %" PRIu64 " + tx_drops %" PRIu64,
			 t->copies_attempted, t->tx_ok, txd);
		return false;
	}
	snprintf(why, len, "every frame and copy accounted for");
	return true;
}

void
uf_stats_ledger(FILE *f, const struct uf_snap *s)
{
	const struct uf_lcore_ctr *t = &s->tot;
	char n1[32], sum[1024];
	int i;

	fprintf(f, "ledger (udpfan's own counters; NIC counters beside them, not folded in):\n");
	for (i = 0; i < s->n_ports; i++) {
		const struct uf_snap_port *p = &s->ports[i];

		fprintf(f,
			"  port %-8s %-14s ipackets %" PRIu64 " opackets %" PRIu64
			" imissed %" PRIu64 " ierrors %" PRIu64 " oerrors %" PRIu64
			" rx_nombuf %" PRIu64 "%s%s\n",
			p->name, p->driver, p->st.ipackets, p->st.opackets, p->st.imissed,
			p->st.ierrors, p->st.oerrors, p->st.rx_nombuf,
			p->xdp_mode[0] ? "  XDP " : "", p->xdp_mode);
	}
	fprintf(f, "  %-28s %16s\n", "rx", uf_fmt_num(t->rx, n1, sizeof(n1)));
	fprintf(f, "  %-28s %16s\n", "  forwarded", uf_fmt_num(t->forwarded, n1, sizeof(n1)));
	fprintf(f, "  %-28s %16s\n", "  control (ARP/ICMP)",
		uf_fmt_num(t->control, n1, sizeof(n1)));
	if (t->csum_completed != 0)
		fprintf(f, "  %-28s %16s  %s\n", "  csum_completed",
			uf_fmt_num(t->csum_completed, n1, sizeof(n1)),
			"of them with a partial UDP checksum, completed");
	for (i = 0; i < UF_DROP_MAX; i++)
		if (t->drop[i] != 0)
			fprintf(f, "  %-28s %16s  %s\n", uf_drop_names[i],
				uf_fmt_num(t->drop[i], n1, sizeof(n1)), uf_drop_descr[i]);
	fprintf(f, "  %-28s %16s\n", "fanout (datagram x dest)",
		uf_fmt_num(t->fanout, n1, sizeof(n1)));
	fprintf(f, "  %-28s %16s\n", "  sampled_out", uf_fmt_num(t->sampled_out, n1, sizeof(n1)));
	fprintf(f, "  %-28s %16s\n", "  copies_attempted",
		uf_fmt_num(t->copies_attempted, n1, sizeof(n1)));
	fprintf(f, "  %-28s %16s\n", "    tx_ok", uf_fmt_num(t->tx_ok, n1, sizeof(n1)));
	for (i = 0; i < UF_TXDROP_MAX; i++)
		if (t->tx_drop[i] != 0)
			fprintf(f, "  %-28s %16s  %s\n", uf_txdrop_names[i],
				uf_fmt_num(t->tx_drop[i], n1, sizeof(n1)), uf_txdrop_descr[i]);
	for (i = 0; i < s->n_dests; i++) {
		const struct uf_snap_dest *d = &s->dests[i];
		char a[INET_ADDRSTRLEN];

		fprintf(f,
			"  dest %-15s:%-5u %-10s tx_ok %" PRIu64 " tx_drop %" PRIu64
			" sampled_out %" PRIu64 "\n",
			uf_ip_str(d->ip, a), d->udp_port, d->state, d->c.tx_ok, d->c.tx_drop,
			d->c.sampled_out);
	}
	for (i = 0; i < s->n_ports; i++) {
		const struct uf_snap_port *p = &s->ports[i];

		if (p->has_pktsock)
			fprintf(f, "  port %-8s pkt_socket drops %" PRIu64 " (of %" PRIu64 ")\n",
				p->name, p->pktsock_drops, p->pktsock_packets);
		if (p->has_xsk)
			fprintf(f,
				"  port %-8s xsk rx_dropped %" PRIu64 " rx_invalid %" PRIu64
				" rx_ring_full %" PRIu64 " fill_ring_empty %" PRIu64
				" tx_invalid %" PRIu64 "\n",
				p->name, p->xsk.rx_dropped, p->xsk.rx_invalid, p->xsk.rx_ring_full,
				p->xsk.fill_ring_empty, p->xsk.tx_invalid);
		if (!p->link_up || p->link_downs != 0 || p->tx_stalled)
			fprintf(f, "  port %-8s link %s, down %" PRIu64 " time(s)%s\n", p->name,
				p->link_up ? "up" : "DOWN", p->link_downs,
				p->tx_stalled ? ", TX stalled" : "");
	}
	uf_stats_summary(s, sum, sizeof(sum));
	fprintf(f, "  %s\n", sum);
}
