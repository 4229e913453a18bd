/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "uf_health.h"

static const char *const state_names[UF_HEALTH_N_STATES] = {
	[UF_HEALTH_STARTING] = "starting",
	[UF_HEALTH_READY] = "ready",
	[UF_HEALTH_DRAINING] = "draining",
	[UF_HEALTH_STOPPING] = "stopping",
};

const char *
uf_health_state_name(enum uf_health_state s)
{
	return (unsigned int)s < UF_HEALTH_N_STATES ? state_names[s] : "unknown";
}

static void __attribute__((format(printf, 2, 3)))
reason(struct uf_health *out, const char *fmt, ...)
{
	va_list ap;

	if (out->n_reasons >= UF_HEALTH_MAX_REASONS)
		return;
	va_start(ap, fmt);
	vsnprintf(out->reasons[out->n_reasons++], UF_HEALTH_REASON_LEN, fmt, ap);
	va_end(ap);
}

void
uf_health_eval(const struct uf_health_in *in, struct uf_health *out)
{
	int i, j;

	out->state = in->state;
	out->degraded = false;
	out->n_reasons = 0;
	memset(out->reasons, 0, sizeof(out->reasons));
	if (in->state != UF_HEALTH_READY && in->state != UF_HEALTH_DRAINING)
		return;
	/* a port that receives for a listener: named once, however many listen there */
	for (i = 0; i < in->n_ports; i++) {
		bool listens = false;

		for (j = 0; j < in->n_listeners; j++)
			listens |= in->lis[j].port == i;
		if (listens && !in->ports[i].up)
			reason(out, "port %s: link down", in->ports[i].name);
	}
	for (j = 0; j < in->n_listeners; j++) {
		const struct uf_health_lis *l = &in->lis[j];

		if (l->n_dests > 0 && l->n_reachable == 0)
			reason(out, "listener %s: none of its %d destination%s reachable", l->name,
			       l->n_dests, l->n_dests == 1 ? "" : "s");
	}
	out->degraded = out->n_reasons > 0;
}
