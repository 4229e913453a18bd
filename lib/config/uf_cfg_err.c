/* SPDX-License-Identifier: BSD-3-Clause
 * lib/config's errors: "FILE:LINE:COL: key.path: what is wrong", lines and columns from 1,
 * the first error only (docs/configuration.md#exit-codes).
 */
#include <stdarg.h>
#include <stdio.h>

#include "uf_cfg_internal.h"

void
uf_cfg_perr_at(struct uf_cfg_pctx *p, const yaml_mark_t *mark, const char *key, const char *fmt,
	       ...)
{
	char what[384];
	va_list ap;

	if (p->failed)
		return; /* the first error is the one worth reading */
	p->failed = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	uf_err_set(p->err, UF_EXIT_CONFIG, "%s:%zu:%zu: %s: %s", p->name, mark->line + 1,
		   mark->column + 1, key, what);
}

void
uf_cfg_perr_pos(struct uf_cfg_pctx *p, const struct uf_cfg_pos *pos, const char *key,
		const char *fmt, ...)
{
	char what[384];
	va_list ap;

	if (p->failed)
		return;
	p->failed = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	uf_err_set(p->err, UF_EXIT_CONFIG, "%s:%u:%u: %s: %s", p->name, pos->line, pos->col, key,
		   what);
}

struct uf_cfg_pos
uf_cfg_pos_of(const yaml_node_t *n)
{
	return (struct uf_cfg_pos){ .line = n->start_mark.line + 1,
				    .col = n->start_mark.column + 1 };
}
