/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "uf_sinkcount.h"

int
uf_sink_count_init(struct uf_sink_count *c, uint32_t max_dests, unsigned int win_log2)
{
	const size_t wb = uf_seqtrack_bytes(win_log2);
	uint32_t i;

	memset(c, 0, sizeof(*c));
	if (max_dests == 0 || max_dests > UF_SINK_MAX_DESTS)
		return -EINVAL;
	c->max_dests = max_dests;
	c->dests = calloc(max_dests, sizeof(*c->dests));
	c->senders = calloc(UF_SINK_SENDER_SLOTS, sizeof(*c->senders));
	c->bits = aligned_alloc(64, wb * max_dests);
	if (c->dests == NULL || c->senders == NULL || c->bits == NULL) {
		uf_sink_count_free(c);
		return -ENOMEM;
	}
	/* zeroed now, so the first datagram to a destination costs nothing extra */
	for (i = 0; i < max_dests; i++)
		uf_seqtrack_init(&c->dests[i].st, (uint64_t *)((uint8_t *)c->bits + wb * i),
				 win_log2);
	return 0;
}

int
uf_sink_count_lat(struct uf_sink_count *c, double tsc_hz)
{
	uint32_t i;

	/* two more at the end, shared by all destinations: the warm-up's (warm_seq) and the
	 * measured copies taken in while the receiver was not stalled (gen_stalled) */
	c->lats = calloc(c->max_dests + 2u, sizeof(*c->lats));
	if (c->lats == NULL)
		return -ENOMEM;
	c->warm = &c->lats[c->max_dests];
	c->warm->hz = tsc_hz;
	c->unstalled = &c->lats[c->max_dests + 1u];
	c->unstalled->hz = tsc_hz;
	for (i = 0; i < c->max_dests; i++) {
		c->lats[i].hz = tsc_hz;
		c->dests[i].lat = &c->lats[i];
	}
	return 0;
}

void
uf_sink_count_free(struct uf_sink_count *c)
{
	free(c->lats);
	c->lats = NULL;
	c->warm = NULL;
	c->unstalled = NULL;
	free(c->dests);
	free(c->senders);
	free(c->bits);
	c->dests = NULL;
	c->senders = NULL;
	c->bits = NULL;
}

struct uf_sink_dest *
uf_sink_dest_add(struct uf_sink_count *c, rte_be32_t ip, rte_be16_t port)
{
	struct uf_sink_dest *d;

	if (c->n_dests >= c->max_dests)
		return NULL;
	d = &c->dests[c->n_dests++];
	d->ip = ip;
	d->port = port;
	return d;
}

void
uf_sink_addr_str(rte_be32_t ip, rte_be16_t port, char *buf, size_t len)
{
	struct in_addr a = { .s_addr = ip };
	char s[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &a, s, sizeof(s));
	snprintf(buf, len, "%s:%u", s, rte_be_to_cpu_16(port));
}

void
uf_sink_dest_json(FILE *f, const struct uf_sink_dest *d, const struct uf_seq_expect *e, double hz)
{
	const struct uf_seqtrack *t = &d->st;
	const int64_t lost = uf_seqtrack_lost(t, e);
	const double active = d->received > 1 ? (double)(d->t_last - d->t_first) / hz : 0;

	fprintf(f, "{\"received\": %" PRIu64 ", \"distinct\": %" PRIu64 ", ", d->received,
		t->distinct);
	if (lost >= 0)
		fprintf(f, "\"lost\": %" PRId64 ", ", lost);
	else
		fprintf(f, "\"lost\": null, ");
	fprintf(f, "\"duplicated\": %" PRIu64 ", \"reordered\": %" PRIu64 ", ", t->duplicated,
		t->reordered);
	if (t->any)
		fprintf(f,
			"\"first_seq\": %" PRIu64 ", \"max_seq\": %" PRIu64
			", \"min_seq\": %" PRIu64 ", ",
			t->first, t->max, t->min);
	else
		fprintf(f, "\"first_seq\": null, \"max_seq\": null, \"min_seq\": null, ");
	fprintf(f,
		"\"short_payload\": %" PRIu64 ", \"beyond_window\": %" PRIu64 ", \"exact\": %s, "
		"\"active_seconds\": %.6f, \"pps\": %.1f",
		d->short_payload, t->beyond_window,
		lost >= 0 && uf_seqtrack_exact(t) ? "true" : "false", active,
		active > 0 ? (double)(d->received - 1) / active : 0.0);
	if (d->lat != NULL) {
		fprintf(f, ", \"latency\": ");
		uf_lat_json(f, d->lat, d->lat->hz);
	}
	fprintf(f, "}");
}
