/* SPDX-License-Identifier: BSD-3-Clause
 * What docs/configuration.md says of a schema row (uf_cfg_schema.h): its type, default and
 * range cells, derived from the row where the row does not spell them out.
 * tests/unit/test_config_schema.c and man/uf_mangen.c read them.
 */
#include <inttypes.h>
#include <stdio.h>

#include "uf_cfg_schema.h"

const char *
uf_cfg_key_doc_type(const struct uf_cfg_key *k, char *buf, size_t len)
{
	size_t o = 0;
	int i, n;

	if (k->doc_type != NULL) {
		snprintf(buf, len, "%s", k->doc_type);
		return buf;
	}
	switch (k->type) {
	case UF_CFG_UINT:
		if (k->word != NULL)
			snprintf(buf, len, "`%s` or integer", k->word);
		else
			snprintf(buf, len, "integer");
		break;
	case UF_CFG_BOOL:
		snprintf(buf, len, "bool");
		break;
	case UF_CFG_STR:
		snprintf(buf, len, "string");
		break;
	case UF_CFG_IPV4:
		snprintf(buf, len, "IPv4");
		break;
	case UF_CFG_NUMBER:
		snprintf(buf, len, "number");
		break;
	case UF_CFG_ENUM:
		/* "`auto`, `copy` or `chain`" */
		buf[0] = '\0';
		for (n = 0; k->choices[n] != NULL; n++)
			;
		for (i = 0; i < n && o < len; i++)
			o += snprintf(buf + o, len - o, "%s`%s`",
				      i == 0       ? ""
				      : i == n - 1 ? " or "
						   : ", ",
				      k->choices[i]);
		break;
	case UF_CFG_MAP:
		snprintf(buf, len, "mapping");
		break;
	default:
		buf[0] = '\0';
		break;
	}
	return buf;
}

const char *
uf_cfg_key_doc_default(const struct uf_cfg_key *k, char *buf, size_t len)
{
	const char *note = k->default_note != NULL ? k->default_note : "";

	if (k->doc_default != NULL)
		snprintf(buf, len, "%s", k->doc_default);
	else if (!k->has_def)
		buf[0] = '\0';
	else if (k->type == UF_CFG_UINT && k->word != NULL && k->def_word)
		snprintf(buf, len, "`%s`%s", k->word, note);
	else if (k->type == UF_CFG_UINT)
		snprintf(buf, len, "%" PRIu64 "%s", k->def, note);
	else if (k->type == UF_CFG_BOOL)
		snprintf(buf, len, "%s%s", k->def ? "true" : "false", note);
	else if (k->type == UF_CFG_ENUM)
		snprintf(buf, len, "`%s`%s", k->choices[k->def], note);
	else if (k->type == UF_CFG_STR)
		snprintf(buf, len, "`%s`%s", k->def_str, note);
	else if (k->type == UF_CFG_NUMBER)
		snprintf(buf, len, "%g%s", k->ddef, note);
	else
		buf[0] = '\0';
	return buf;
}

const char *
uf_cfg_key_doc_range(const struct uf_cfg_key *k, char *buf, size_t len)
{
	const char *note = k->range_note != NULL ? k->range_note : "";

	if (k->doc_range != NULL)
		snprintf(buf, len, "%s", k->doc_range);
	else if (k->type == UF_CFG_NUMBER)
		snprintf(buf, len, "%g..%g%s", k->dlo, k->dhi, note);
	else if (k->type == UF_CFG_UINT || k->hi != 0)
		snprintf(buf, len, "%" PRIu64 "..%" PRIu64 "%s", k->lo, k->hi, note);
	else
		buf[0] = '\0';
	return buf;
}
