/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <limits.h>
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

#define ADD(f, h) dst->f += UF_LOAD(&src->f);
#define ADD_ARRAY(f, n, names, descrs, h) \
	for (i = 0; i < (n); i++)         \
		dst->f[i] += UF_LOAD(&src->f[i]);
	UF_FWD_COUNTERS(ADD, ADD_ARRAY)
	UF_LCORE_CYCLES(ADD)
#undef ADD
#undef ADD_ARRAY
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
	/* the control lcore's (docs/loss-accounting.md): a worker's block holds 0 */
	dst->liveness_suspect += UF_LOAD(&src->liveness_suspect);
	/* a counter added to UF_DEST_COUNTERS needs its line above */
	RTE_BUILD_BUG_ON(sizeof(*dst) != 6 * sizeof(uint64_t));
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

/* the groups' help, for the families that hold a group's counters as labels */
static const struct {
	const char *group, *help;
} group_help[] = {
	{ "fwd", "udpfan's ledger (docs/loss-accounting.md)" },
	{ "fwd.drop", "received frames not forwarded" },
	{ "fwd.tx_drop", "attempted copies that did not reach the PMD" },
	{ "arp", "ARP handled by the control plane" },
	{ "ndp", "IPv6 Neighbour Discovery handled by the control plane" },
	{ "icmp", "ICMP handled by the control plane" },
	{ "icmp6", "ICMPv6 echo handled by the control plane" },
	{ "healthcheck", "health checks answered on the ports' addresses" },
	{ "control", "the control plane's own losses and plan changes" },
	{ "reload", "config reloads (SIGHUP, /udpfan/reload) by result" },
	{ "port.stats", "the PMD's own counters (rte_eth_stats)" },
	{ "port", "udpfan's per-port counters and states" },
	{ "port.xsk", "AF_XDP socket counters read from the PMD's own sockets" },
	{ "port.pkt_socket", "af_packet socket counters (PACKET_STATISTICS)" },
	{ "lcore", "per worker" },
	{ "destination", "per destination" },
	{ "listener", "per listener" },
};

#define V_CALL(v, cb, ...)                    \
	do {                                  \
		if ((v)->cb != NULL)          \
			(v)->cb(__VA_ARGS__); \
	} while (0)

static void
visit_ctr(const struct uf_stats_visitor *v, void *arg, const char *group, const char *key,
	  const char *help, bool gauge, uint64_t val)
{
	const struct uf_stat_desc d = { .group = group, .key = key, .help = help, .gauge = gauge };

	V_CALL(v, ctr, arg, &d, val);
}

static double
busy_pct(uint64_t busy, uint64_t total)
{
	return total == 0 ? 0.0 : 100.0 * (double)busy / (double)total;
}

void
uf_stats_visit_port(const struct uf_snap_port *p, const struct uf_stats_visitor *v, void *arg)
{
	int j;

	V_CALL(v, str, arg, "driver", p->driver);
	visit_ctr(v, arg, "port", "link_up", "link state as udpfan trusts it", true, p->link_up);
#define PORT_STAT(f, h) visit_ctr(v, arg, "port.stats", #f, h, false, p->st.f);
	UF_PORT_ETH_STATS(PORT_STAT)
#undef PORT_STAT
	V_CALL(v, obj, arg, "xstats");
	for (j = 0; j < p->n_xstats; j++) {
		/* an implausible reading (docs/loss-accounting.md): unavailable */
		if (!p->xvalid[j])
			V_CALL(v, null, arg, p->xnames[j]);
		else
			V_CALL(v, u64, arg, p->xnames[j], p->xvals[j]);
	}
	V_CALL(v, end, arg);
	if (p->has_pktsock) {
		V_CALL(v, obj, arg, "pkt_socket");
		V_CALL(v, u64, arg, "sockets", (uint64_t)p->pktsock_n);
#define PKTSOCK(k, f, h) visit_ctr(v, arg, "port.pkt_socket", #k, h, false, p->f);
		UF_PKTSOCK_COUNTERS(PKTSOCK)
#undef PKTSOCK
		V_CALL(v, end, arg);
	}
	if (p->has_xsk) {
		V_CALL(v, str, arg, "xdp_mode", p->xdp_mode);
		V_CALL(v, obj, arg, "xsk");
		V_CALL(v, u64, arg, "sockets", (uint64_t)p->xsk.n_sockets);
#define XSK(f, h) visit_ctr(v, arg, "port.xsk", #f, h, false, p->xsk.f);
		UF_XSK_COUNTERS(XSK)
#undef XSK
		V_CALL(v, end, arg);
	}
	V_CALL(v, str, arg, "steering", p->steering);
	V_CALL(v, str, arg, "rx_checksum", p->rx_checksum);
#define PORT_CTR(f, h) visit_ctr(v, arg, "port", #f, h, false, p->f);
#define PORT_BOOL(f, h) visit_ctr(v, arg, "port", #f, h, true, p->f);
	UF_PORT_COUNTERS(PORT_CTR, PORT_BOOL)
#undef PORT_CTR
#undef PORT_BOOL
}

/* an address of a destination's, IPv4 or IPv6, as text into buf (INET6_ADDRSTRLEN) */
static const char *
dest_addr_str(const struct uf_snap_dest *d, rte_be32_t ip, const struct uf_ip6 *ip6, char *buf)
{
	if (!d->is_ip6)
		return uf_ip_str(ip, buf);
	if (inet_ntop(AF_INET6, ip6->b, buf, INET6_ADDRSTRLEN) == NULL)
		buf[0] = '\0';
	return buf;
}

void
uf_stats_visit_dest(const struct uf_snap_dest *d, const struct uf_stats_visitor *v, void *arg)
{
	char a[INET6_ADDRSTRLEN], mac[RTE_ETHER_ADDR_FMT_SIZE];

	V_CALL(v, str, arg, "ip", dest_addr_str(d, d->ip, &d->ip6, a));
	V_CALL(v, u64, arg, "udp_port", d->udp_port);
	V_CALL(v, str, arg, "port", d->port);
	V_CALL(v, str, arg, "next_hop", dest_addr_str(d, d->next_hop, &d->next_hop6, a));
	rte_ether_format_addr(mac, sizeof(mac), &d->mac);
	V_CALL(v, str, arg, "mac", mac);
	V_CALL(v, str, arg, "state", d->state);
#define DEST(f, h) visit_ctr(v, arg, "destination", #f, h, false, d->c.f);
	UF_DEST_COUNTERS(DEST)
#undef DEST
	if (d->pool > 0) {
		V_CALL(v, u64, arg, "pool", (uint64_t)(d->pool - 1));
		const struct uf_stat_desc sd = {
			.group = "destination",
			.key = "senders",
			.help = "a pool member: distinct senders in the last interval (estimated)",
			.gauge = true,
			.level = true,
		};

		V_CALL(v, ctr, arg, &sd, d->senders);
	}
}

void
uf_stats_visit_lis(const struct uf_snap_lis *l, const struct uf_stats_visitor *v, void *arg)
{
	char a[INET_ADDRSTRLEN];

	V_CALL(v, str, arg, "name", l->name);
	V_CALL(v, str, arg, "port", l->port);
	V_CALL(v, str, arg, "ip", uf_ip_str(l->ip, a));
	V_CALL(v, u64, arg, "udp_port", l->udp_port);
#define LIS(f, h) visit_ctr(v, arg, "listener", #f, h, false, l->c.f);
	UF_LIS_COUNTERS(LIS)
#undef LIS
}

void
uf_stats_visit(const struct uf_snap *s, int max_dests, const struct uf_stats_visitor *v, void *arg)
{
	const struct uf_lcore_ctr *t = &s->tot;
	const char *open = NULL;
	char key[16];
	int i;

	V_CALL(v, real, arg, "time", s->time, 3);
	V_CALL(v, real, arg, "interval_s", s->interval_s, 3);
	V_CALL(v, real, arg, "uptime_s", s->uptime_s, 3);
	V_CALL(v, flag, arg, "final", s->final);
	V_CALL(v, u64, arg, "plan_version", s->plan_version);
	V_CALL(v, u64, arg, "tsc_hz", s->tsc_hz);

	V_CALL(v, obj, arg, "health");
	V_CALL(v, str, arg, "state", uf_health_state_name(s->health.state));
	V_CALL(v, flag, arg, "degraded", s->health.degraded);
	V_CALL(v, list, arg, "reasons");
	for (i = 0; i < s->health.n_reasons && i < UF_HEALTH_MAX_REASONS; i++)
		V_CALL(v, str, arg, NULL, s->health.reasons[i]);
	V_CALL(v, end, arg);
	V_CALL(v, u64, arg, "drain_s", s->health.drain_s);
	V_CALL(v, real, arg, "drain_left_s", s->health.drain_left_s, 3);
	V_CALL(v, end, arg);

	V_CALL(v, obj, arg, "fwd");
#define FWD(f, h) visit_ctr(v, arg, "fwd", #f, h, false, t->f);
#define FWD_ARRAY(f, n, names, descrs, h)                                          \
	V_CALL(v, obj, arg, #f);                                                   \
	for (i = 0; i < (n); i++)                                                  \
		visit_ctr(v, arg, "fwd." #f, names[i], descrs[i], false, t->f[i]); \
	V_CALL(v, end, arg);
	UF_FWD_COUNTERS(FWD, FWD_ARRAY)
#undef FWD
#undef FWD_ARRAY
	V_CALL(v, end, arg);

	/* one object per group, opened when its first counter comes */
#define CTL(o, f, k, h)                              \
	if (open == NULL || strcmp(open, #o) != 0) { \
		if (open != NULL)                    \
			V_CALL(v, end, arg);         \
		open = #o;                           \
		V_CALL(v, obj, arg, open);           \
	}                                            \
	visit_ctr(v, arg, #o, #k, h, false, s->ctl.f);
	UF_CTL_COUNTERS(CTL)
#undef CTL
	/* the last reload's result joins its counters (docs/configuration.md#reload) */
	if (strcmp(open, "reload") != 0) {
		V_CALL(v, end, arg);
		V_CALL(v, obj, arg, "reload");
	}
	V_CALL(v, str, arg, "last", s->reload.result[0] != '\0' ? s->reload.result : "none");
	V_CALL(v, str, arg, "reason", s->reload.reason);
	V_CALL(v, u64, arg, "generation", s->reload.generation);
	V_CALL(v, obj, arg, "removed");
#define REMOVED(f, h) V_CALL(v, u64, arg, #f, s->reload.removed.f);
	UF_DEST_COUNTERS(REMOVED)
#undef REMOVED
	V_CALL(v, end, arg);
	V_CALL(v, end, arg);

	V_CALL(v, obj, arg, "ports");
	for (i = 0; i < s->n_ports; i++) {
		V_CALL(v, obj, arg, s->ports[i].name);
		uf_stats_visit_port(&s->ports[i], v, arg);
		V_CALL(v, end, arg);
	}
	V_CALL(v, end, arg);

	V_CALL(v, obj, arg, "lcores");
	for (i = 0; i < s->n_lcores; i++) {
		const struct uf_snap_lcore *l = &s->lc[i];

		snprintf(key, sizeof(key), "%u", l->lcore);
		V_CALL(v, obj, arg, key);
#define LC(f, h) visit_ctr(v, arg, "lcore", #f, h, false, l->f);
		UF_SNAP_LCORE_COUNTERS(LC)
#undef LC
		V_CALL(v, real, arg, "busy_pct", busy_pct(l->busy_cycles, l->total_cycles), 1);
		V_CALL(v, end, arg);
	}
	V_CALL(v, end, arg);

	V_CALL(v, list, arg, "destinations");
	for (i = 0; i < s->n_dests && i < max_dests; i++) {
		V_CALL(v, obj, arg, NULL);
		uf_stats_visit_dest(&s->dests[i], v, arg);
		V_CALL(v, end, arg);
	}
	V_CALL(v, end, arg);

	V_CALL(v, list, arg, "listeners");
	for (i = 0; i < s->n_listeners; i++) {
		V_CALL(v, obj, arg, NULL);
		uf_stats_visit_lis(&s->listeners[i], v, arg);
		V_CALL(v, end, arg);
	}
	V_CALL(v, end, arg);
}

/* the JSON writer: ", " between the members of an object or list */
struct json_out {
	FILE *f;
	int depth;
	bool first[8];
	char close[8];
};

static void
json_str(FILE *f, const char *v)
{
	fputc('"', f);
	for (; *v != '\0'; v++) {
		if (*v == '"' || *v == '\\')
			fputc('\\', f);
		if ((unsigned char)*v >= 0x20)
			fputc(*v, f);
	}
	fputc('"', f);
}

static void
json_key(struct json_out *o, const char *key)
{
	if (!o->first[o->depth])
		fputs(", ", o->f);
	o->first[o->depth] = false;
	if (key != NULL) {
		json_str(o->f, key);
		fputs(": ", o->f);
	}
}

static void
json_open(struct json_out *o, const char *key, char open, char close)
{
	json_key(o, key);
	fputc(open, o->f);
	if (o->depth + 1 < (int)RTE_DIM(o->first)) {
		o->depth++;
		o->first[o->depth] = true;
		o->close[o->depth] = close;
	}
}

static void
json_obj(void *arg, const char *key)
{
	json_open(arg, key, '{', '}');
}

static void
json_list(void *arg, const char *key)
{
	json_open(arg, key, '[', ']');
}

static void
json_end(void *arg)
{
	struct json_out *o = arg;

	if (o->depth > 0) {
		fputc(o->close[o->depth], o->f);
		o->depth--;
	}
}

static void
json_u64(void *arg, const char *key, uint64_t v)
{
	struct json_out *o = arg;

	json_key(o, key);
	fprintf(o->f, "%" PRIu64, v);
}

static void
json_flag(void *arg, const char *key, bool v)
{
	struct json_out *o = arg;

	json_key(o, key);
	fputs(v ? "true" : "false", o->f);
}

static void
json_ctr(void *arg, const struct uf_stat_desc *d, uint64_t v)
{
	if (d->gauge && !d->level)
		json_flag(arg, d->key, v != 0);
	else
		json_u64(arg, d->key, v);
}

static void
json_real(void *arg, const char *key, double v, int decimals)
{
	struct json_out *o = arg;

	json_key(o, key);
	fprintf(o->f, "%.*f", decimals, v);
}

static void
json_string(void *arg, const char *key, const char *v)
{
	struct json_out *o = arg;

	json_key(o, key);
	json_str(o->f, v);
}

static void
json_null(void *arg, const char *key)
{
	struct json_out *o = arg;

	json_key(o, key);
	fputs("null", o->f);
}

static const struct uf_stats_visitor json_visitor = {
	.obj = json_obj,
	.list = json_list,
	.end = json_end,
	.ctr = json_ctr,
	.u64 = json_u64,
	.flag = json_flag,
	.real = json_real,
	.str = json_string,
	.null = json_null,
};

void
uf_stats_json(FILE *f, const struct uf_snap *s)
{
	struct json_out o = { .f = f, .first = { true } };

	fputc('{', f);
	uf_stats_visit(s, INT_MAX, &json_visitor, &o);
	fputs("}\n", f);
}

/* --list-counters: the path of each counter, with placeholders for ports, workers and
 * destinations */
struct schema_out {
	FILE *f;
	bool json;
	int n;
	int depth;
	char path[8][UF_NAME_MAX + 16];
};

static void
schema_obj(void *arg, const char *key)
{
	struct schema_out *o = arg;
	const char *parent = o->depth > 0 ? o->path[o->depth - 1] : "";

	if (o->depth + 1 >= (int)RTE_DIM(o->path))
		return;
	if (key == NULL)
		key = "<index>";
	else if (strcmp(parent, "ports") == 0)
		key = "<port>";
	else if (strcmp(parent, "lcores") == 0)
		key = "<lcore>";
	snprintf(o->path[o->depth], sizeof(o->path[0]), "%s", key);
	o->depth++;
}

static void
schema_end(void *arg)
{
	struct schema_out *o = arg;

	if (o->depth > 0)
		o->depth--;
}

static void
schema_ctr(void *arg, const struct uf_stat_desc *d, uint64_t v)
{
	struct schema_out *o = arg;
	char path[256];
	int i, n = 0;

	(void)v;
	for (i = 0; i < o->depth; i++)
		n += snprintf(path + n, sizeof(path) - (size_t)n, "%s.", o->path[i]);
	snprintf(path + n, sizeof(path) - (size_t)n, "%s", d->key);
	if (o->json) {
		fprintf(o->f, "%s\n  {\"path\": ", o->n ? "," : "");
		json_str(o->f, path);
		fprintf(o->f, ", \"group\": \"%s\", \"key\": \"%s\", \"type\": \"%s\", \"help\": ",
			d->group, d->key, d->gauge ? "gauge" : "counter");
		json_str(o->f, d->help);
		fputc('}', o->f);
	} else {
		fprintf(o->f, "%-44s %-7s %s\n", path, d->gauge ? "gauge" : "counter", d->help);
	}
	o->n++;
}

static const struct uf_stats_visitor schema_visitor = {
	.obj = schema_obj,
	.list = schema_obj,
	.end = schema_end,
	.ctr = schema_ctr,
};

int
uf_stats_schema(FILE *f, bool json)
{
	static struct uf_snap
			s; /* one of each: a port with both socket kinds, a worker, a destination */
	struct schema_out o = { .f = f, .json = json };
	size_t i;

	s.n_ports = 1;
	s.ports[0].has_xsk = true;
	s.ports[0].has_pktsock = true;
	s.n_lcores = 1;
	s.n_dests = 1;
	s.dests[0].state = "";
	s.dests[0].pool = 1; /* with a pool member's keys */
	s.n_listeners = 1;
	if (json)
		fprintf(f, "{\"counters\": [");
	uf_stats_visit(&s, INT_MAX, &schema_visitor, &o);
	if (json) {
		fprintf(f, "\n ],\n \"groups\": {");
		for (i = 0; i < RTE_DIM(group_help); i++)
			fprintf(f, "%s\n  \"%s\": \"%s\"", i ? "," : "", group_help[i].group,
				group_help[i].help);
		fprintf(f, "\n }\n}\n");
	}
	return o.n;
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
	/* a drain under way, and a degraded verdict (docs/deployment.md#health-and-drain) */
	if (s->health.state == UF_HEALTH_DRAINING && (size_t)o < sizeof(down))
		o += snprintf(down + o, sizeof(down) - (size_t)o, " | draining, %.1f s left",
			      s->health.drain_left_s);
	if (s->health.degraded && (size_t)o < sizeof(down))
		o += snprintf(down + o, sizeof(down) - (size_t)o, " | DEGRADED");
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
	case UF_DROP_IPV6_EXT_HDR: /* a policy: the chain is not walked (docs/loss-accounting.md) */
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
	static const char *const words[] = { "drop",          "discard",       "missed",
					     "exceeded",      "out_of_buffer", "ring_full",
					     "alloc_failure", "overrun",       NULL };
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
	for (int i = 0; i < s->n_listeners; i++) {
		const struct uf_snap_lis *l = &s->listeners[i];
		const struct uf_lis_ctr *c = &l->c;

		if (c->rx != c->forwarded + c->drop_no_rule + c->drop_too_big +
					     c->drop_no_neighbor + c->drop_nombuf) {
			snprintf(why, len,
				 "listener %s: rx %" PRIu64 " != forwarded %" PRIu64 " + its drops",
				 l->name, c->rx, c->forwarded);
			return false;
		}
		if (c->fanout != c->copies_attempted + c->sampled_out ||
		    c->copies_attempted != c->tx_ok + c->tx_drop) {
			snprintf(why, len,
				 "listener %s: fanout %" PRIu64 ", copies_attempted %" PRIu64
				 ", sampled_out %" PRIu64 ", tx_ok %" PRIu64 ", tx_drop %" PRIu64,
				 l->name, c->fanout, c->copies_attempted, c->sampled_out, c->tx_ok,
				 c->tx_drop);
			return false;
		}
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

		if (p->alias_of[0] != '\0') {
			fprintf(f,
				"  port %-8s %-14s VLAN port on %s's device (its NIC counters)\n",
				p->name, p->driver, p->alias_of);
			continue;
		}
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
		char a[INET6_ADDRSTRLEN];

		fprintf(f,
			"  dest %-15s:%-5u %-10s tx_ok %" PRIu64 " tx_drop %" PRIu64
			" sampled_out %" PRIu64 "\n",
			dest_addr_str(d, d->ip, &d->ip6, a), d->udp_port, d->state, d->c.tx_ok,
			d->c.tx_drop, d->c.sampled_out);
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
