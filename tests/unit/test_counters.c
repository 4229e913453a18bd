/* SPDX-License-Identifier: BSD-3-Clause
 * The counter lists (lib/stats/uf_counters.h, uf_stats.h) against everything generated from
 * them: every counter of every list is summed by uf_ctr_add, visited once by the stats walk
 * (the walk the JSON, telemetry and --list-counters all use) with its own field's value,
 * written to the stats JSON, listed by --list-counters, and named in docs/loss-accounting.md.
 * A counter added to a list and forgotten anywhere fails here.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uf_stats.h"
#include "uf_test.h"

#define MAX_CTRS 256

/* the snapshot: each counter of the lists holds its own value, 1000 + its index */
static struct uf_snap snap;
static int n_set;
static const char *set_key[MAX_CTRS];

static uint64_t
next(const char *key)
{
	set_key[n_set] = key;
	return 1000 + (uint64_t)n_set++;
}

static void
fill(void)
{
	struct uf_snap_port *p = &snap.ports[0];
	struct uf_snap_dest *d = &snap.dests[0];
	int i;

	memset(&snap, 0, sizeof(snap));
	n_set = 0;
#define FWD(f, h) snap.tot.f = next(#f);
#define FWD_A(f, n, names, descrs, h) \
	for (i = 0; i < (n); i++)     \
		snap.tot.f[i] = next(names[i]);
	UF_FWD_COUNTERS(FWD, FWD_A)
#undef FWD
#undef FWD_A
#define CTL(o, f, k, h) snap.ctl.f = next(#k);
	UF_CTL_COUNTERS(CTL)
#undef CTL
	snap.n_ports = 1;
	snprintf(p->name, sizeof(p->name), "lan");
	snprintf(p->driver, sizeof(p->driver), "net_af_xdp");
	snprintf(p->steering, sizeof(p->steering), "one queue");
	snprintf(p->rx_checksum, sizeof(p->rx_checksum), "none");
	snprintf(p->xdp_mode, sizeof(p->xdp_mode), "native, copy");
	p->has_xsk = true;
	p->has_pktsock = true;
#define ST(f, h) p->st.f = next(#f);
	UF_PORT_ETH_STATS(ST)
#undef ST
#define XSK(f, h) p->xsk.f = next(#f);
	UF_XSK_COUNTERS(XSK)
#undef XSK
#define PKT(k, f, h) p->f = next(#k);
	UF_PKTSOCK_COUNTERS(PKT)
#undef PKT
#define PC(f, h) p->f = next(#f);
#define PB(f, h) p->f = true;
	UF_PORT_COUNTERS(PC, PB)
#undef PC
#undef PB
	p->link_up = true;
	snap.n_lcores = 1;
	snap.lc[0].lcore = 1;
#define LC(f, h) snap.lc[0].f = next(#f);
	UF_SNAP_LCORE_COUNTERS(LC)
#undef LC
	snap.n_dests = 1;
	d->state = "reachable";
	snprintf(d->port, sizeof(d->port), "lan");
#define DC(f, h) d->c.f = next(#f);
	UF_DEST_COUNTERS(DC)
#undef DC
	snap.n_listeners = 1;
	snprintf(snap.listeners[0].name, sizeof(snap.listeners[0].name), "netflow");
#define LC2(f, h) snap.listeners[0].c.f = next(#f);
	UF_LIS_COUNTERS(LC2)
#undef LC2
}

/* what the walk reported */
static struct {
	int n, n_gauges;
	const char *key[MAX_CTRS];
	uint64_t v[MAX_CTRS];
	int seen[MAX_CTRS]; /* by value - 1000 */
} rec;

static void
rec_ctr(void *arg, const struct uf_stat_desc *d, uint64_t v)
{
	(void)arg;
	CHECK(d->group != NULL && d->key != NULL && d->help != NULL && d->help[0] != '\0',
	      "a counter with its group, key and help");
	if (d->gauge) {
		rec.n_gauges++;
		CHECK_EQ(v, 1);
		return;
	}
	if (rec.n < MAX_CTRS) {
		rec.key[rec.n] = d->key;
		rec.v[rec.n] = v;
		rec.n++;
	}
	if (v >= 1000 && v < 1000 + MAX_CTRS)
		rec.seen[v - 1000]++;
}

static const struct uf_stats_visitor rec_visitor = { .ctr = rec_ctr };

static void
walk(void)
{
	memset(&rec, 0, sizeof(rec));
	fill();
	uf_stats_visit(&snap, INT_MAX, &rec_visitor, NULL);
}

static void
test_walk_visits_every_counter_once(void)
{
	int i;

	walk();
	CHECK_EQ(rec.n, n_set);
	CHECK_EQ(rec.n_gauges, 2); /* link_up, tx_stalled */
	for (i = 0; i < n_set; i++) {
		CHECK(rec.seen[i] == 1, "%s visited %d times", set_key[i], rec.seen[i]);
	}
	for (i = 0; i < rec.n; i++)
		if (rec.v[i] >= 1000 && rec.v[i] < 1000 + (uint64_t)n_set)
			CHECK_STR(rec.key[i], set_key[rec.v[i] - 1000]);
}

static char *
render(void (*fn)(FILE *, const void *), const void *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		exit(2);
	fn(f, a);
	fclose(f);
	return buf;
}

static void
json_of(FILE *f, const void *s)
{
	uf_stats_json(f, s);
}

static void
schema_of(FILE *f, const void *json)
{
	/* + link_up, tx_stalled, and a pool member's senders (the schema's destination is one) */
	CHECK_EQ(uf_stats_schema(f, *(const bool *)json), n_set + 3);
}

static void
test_json_has_every_counter(void)
{
	char *j, want[128];
	int i;

	walk();
	j = render(json_of, &snap);
	for (i = 0; i < rec.n; i++) {
		snprintf(want, sizeof(want), "\"%s\": %" PRIu64, rec.key[i], rec.v[i]);
		CHECK_HAS(j, want);
	}
	/* the shape readers rely on (docs/loss-accounting.md, "The stats JSON object") */
	CHECK(strncmp(j, "{\"time\": ", 9) == 0, "starts with time: %.40s", j);
	CHECK_HAS(j, "\"fwd\": {\"rx\": 1000, ");
	CHECK_HAS(j, "\"drop\": {\"not_ipv4\": ");
	CHECK_HAS(j, "\"arp\": {\"requests_answered\": ");
	CHECK_HAS(j, "\"icmp\": {\"echo_answered\": ");
	CHECK_HAS(j, "\"steering\": \"one queue\", \"rx_checksum\": \"none\", ");
	CHECK_HAS(j, "\"control\": {\"nombuf\": ");
	CHECK_HAS(j, "\"ports\": {\"lan\": {\"driver\": \"net_af_xdp\", \"link_up\": true, ");
	CHECK_HAS(j, "\"xstats\": {}, \"pkt_socket\": {\"sockets\": 0, ");
	CHECK_HAS(j, "\"xdp_mode\": \"native, copy\", \"xsk\": {\"sockets\": 0, ");
	CHECK_HAS(j, "\"tx_stalled\": true}}, \"lcores\": {\"1\": {\"rx\": ");
	CHECK_HAS(j, "\"busy_pct\": 0.0}}, \"destinations\": [{\"ip\": \"0.0.0.0\", ");
	CHECK_HAS(j, "\"state\": \"reachable\", \"tx_ok\": ");
	CHECK(strcmp(j + strlen(j) - 3, "]}\n") == 0, "ends with the destinations: %s",
	      j + strlen(j) - 3);
	free(j);
}

static void
test_list_counters_names_every_counter(void)
{
	bool json = true, text = false;
	char *s, *t, want[128];
	int i;

	walk();
	s = render(schema_of, &json);
	t = render(schema_of, &text);
	for (i = 0; i < rec.n; i++) {
		snprintf(want, sizeof(want), "\"key\": \"%s\"", rec.key[i]);
		CHECK_HAS(s, want);
	}
	CHECK_HAS(s, "\"path\": \"fwd.drop.not_ipv4\", \"group\": \"fwd.drop\"");
	CHECK_HAS(s, "\"path\": \"ports.<port>.xsk.rx_ring_full\", \"group\": \"port.xsk\"");
	CHECK_HAS(s, "\"path\": \"destinations.<index>.no_neighbor\"");
	CHECK_HAS(s, "\"path\": \"lcores.<lcore>.rx\"");
	CHECK_HAS(s, "\"path\": \"ports.<port>.tx_stalled\", \"group\": \"port\", \"key\": "
		     "\"tx_stalled\", \"type\": \"gauge\"");
	CHECK_HAS(s, "\"groups\": {");
	CHECK_HAS(t, "control.unhandled ");
	free(s);
	free(t);
}

static void
test_ctr_add_sums_every_field(void)
{
	struct uf_lcore_ctr src, dst;
	uint64_t v = 1;
	int i;

	memset(&src, 0, sizeof(src));
	memset(&dst, 0, sizeof(dst));
#define SET(f, h) src.f = v++;
#define SET_A(f, n, names, descrs, h) \
	for (i = 0; i < (n); i++)     \
		src.f[i] = v++;
	UF_FWD_COUNTERS(SET, SET_A)
	UF_LCORE_CYCLES(SET)
#undef SET
#undef SET_A
	src.plan_version = 99;
	uf_ctr_add(&dst, &src);
	uf_ctr_add(&dst, &src);
#define CK(f, h) CHECK_EQ(dst.f, 2 * src.f);
#define CK_A(f, n, names, descrs, h) \
	for (i = 0; i < (n); i++)    \
		CHECK_EQ(dst.f[i], 2 * src.f[i]);
	UF_FWD_COUNTERS(CK, CK_A)
	UF_LCORE_CYCLES(CK)
#undef CK
#undef CK_A
	CHECK_EQ(dst.plan_version, 0); /* a worker's plan, not a sum */
}

static char *
read_doc(const char *rel)
{
	const char *src = getenv("UF_SRC");
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", src != NULL && src[0] != '\0' ? src : ".", rel);
	f = fopen(path, "r");
	CHECK(f != NULL, "open %s", path);
	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n)
		exit(2);
	fclose(f);
	return buf;
}

/* docs/loss-accounting.md names every counter, as `key` or `<object>.key` */
static void
test_docs_name_every_counter(void)
{
	char *doc = read_doc("docs/loss-accounting.md"), a[96], b[96];
	int i;

	if (doc == NULL)
		return;
	walk();
	for (i = 0; i < rec.n; i++) {
		snprintf(a, sizeof(a), "`%s`", rec.key[i]);
		snprintf(b, sizeof(b), ".%s`", rec.key[i]);
		CHECK(strstr(doc, a) != NULL || strstr(doc, b) != NULL,
		      "docs/loss-accounting.md does not name the counter %s", rec.key[i]);
	}
	CHECK_HAS(doc, "`link_up`");
	CHECK_HAS(doc, "`tx_stalled`");
	free(doc);
}

int
main(void)
{
	RUN(test_walk_visits_every_counter_once);
	RUN(test_json_has_every_counter);
	RUN(test_list_counters_names_every_counter);
	RUN(test_ctr_add_sums_every_field);
	RUN(test_docs_name_every_counter);
	return uf_t_summary();
}
