/* SPDX-License-Identifier: BSD-3-Clause
 * The YAML side of lib/config: typed reads of libyaml's nodes, and the walker that takes a
 * mapping key by key through the schema table (uf_cfg_schema.h). libyaml's document API
 * keeps the position of every node, so each error names FILE:LINE:COL and the key path
 * ("destinations[1].ip").
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uf_cfg_schema.h"

const char *
uf_cfg_node_type_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

const char *
uf_cfg_scalar(struct uf_cfg_pctx *p, yaml_node_t *n, const char *key)
{
	if (n->type != YAML_SCALAR_NODE) {
		uf_cfg_perr(p, n, key, "expected a value, got %s", uf_cfg_node_type_name(n));
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

bool
uf_cfg_is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	return v[0] == '\0' || strcmp(v, "~") == 0 || strcmp(v, "null") == 0;
}

int
uf_cfg_get_u64(struct uf_cfg_pctx *p, yaml_node_t *n, const char *key, uint64_t lo, uint64_t hi,
	       uint64_t *out)
{
	const char *v = uf_cfg_scalar(p, n, key);
	unsigned long long x;
	char *end;

	if (v == NULL)
		return -1;
	errno = 0;
	if (!isdigit((unsigned char)v[0])) {
		uf_cfg_perr(p, n, key, "\"%s\" is not a whole number", v);
		return -1;
	}
	x = strtoull(v, &end, 10);
	if (errno != 0 || *end != '\0') {
		uf_cfg_perr(p, n, key, "\"%s\" is not a whole number", v);
		return -1;
	}
	if (x < lo || x > hi) {
		uf_cfg_perr(p, n, key, "%llu is out of range %" PRIu64 "..%" PRIu64, x, lo, hi);
		return -1;
	}
	*out = x;
	return 0;
}

int
uf_cfg_get_bool(struct uf_cfg_pctx *p, yaml_node_t *n, const char *key, bool *out)
{
	const char *v = uf_cfg_scalar(p, n, key);

	if (v == NULL)
		return -1;
	if (strcmp(v, "true") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "on") == 0) {
		*out = true;
		return 0;
	}
	if (strcmp(v, "false") == 0 || strcmp(v, "no") == 0 || strcmp(v, "off") == 0) {
		*out = false;
		return 0;
	}
	uf_cfg_perr(p, n, key, "\"%s\" is not true or false", v);
	return -1;
}

int
uf_cfg_get_str(struct uf_cfg_pctx *p, yaml_node_t *n, const char *key, char *dst, size_t len)
{
	const char *v = uf_cfg_scalar(p, n, key);

	if (v == NULL)
		return -1;
	if (strlen(v) >= len) {
		uf_cfg_perr(p, n, key, "longer than %zu characters", len - 1);
		return -1;
	}
	strcpy(dst, v);
	return 0;
}

int
uf_cfg_get_ipv4(struct uf_cfg_pctx *p, yaml_node_t *n, const char *key, rte_be32_t *ip)
{
	const char *v = uf_cfg_scalar(p, n, key);

	if (v == NULL)
		return -1;
	if (uf_parse_ipv4(v, ip) < 0) {
		uf_cfg_perr(p, n, key, "\"%s\" is not an IPv4 address", v);
		return -1;
	}
	return 0;
}

yaml_node_t *
uf_cfg_map_get(struct uf_cfg_pctx *p, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *pair;

	if (map->type != YAML_MAPPING_NODE)
		return NULL;
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pair->key);

		if (k->type == YAML_SCALAR_NODE &&
		    strcmp((const char *)k->data.scalar.value, key) == 0)
			return yaml_document_get_node(p->doc, pair->value);
	}
	return NULL;
}

int
uf_cfg_get_list(struct uf_cfg_pctx *p, yaml_node_t *v, const char *kp, int max, int *count)
{
	int n;

	if (v->type != YAML_SEQUENCE_NODE) {
		uf_cfg_perr(p, v, kp, "expected a list, got %s", uf_cfg_node_type_name(v));
		return -1;
	}
	n = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
	if (n > max) {
		uf_cfg_perr(p, v, kp, "%d entries; at most %d", n, max);
		return -1;
	}
	*count = n;
	return 0;
}

/* ---- one key through its schema row ---- */

static void
put_uint(void *dst, size_t size, uint64_t v)
{
	switch (size) {
	case 1:
		*(uint8_t *)dst = (uint8_t)v;
		break;
	case 2:
		*(uint16_t *)dst = (uint16_t)v;
		break;
	case 4:
		*(uint32_t *)dst = (uint32_t)v;
		break;
	default:
		*(uint64_t *)dst = v;
		break;
	}
}

void
uf_cfg_apply_default(const struct uf_cfg_key *k, void *basev)
{
	char *base = basev;

	if (!k->has_def)
		return;
	switch (k->type) {
	case UF_CFG_UINT:
		if (k->word != NULL)
			*(bool *)(base + k->word_offset) = k->def_word;
		put_uint(base + k->offset, k->size, k->def);
		break;
	case UF_CFG_ENUM:
		put_uint(base + k->offset, k->size, k->def);
		break;
	case UF_CFG_BOOL:
		*(bool *)(base + k->offset) = k->def != 0;
		break;
	case UF_CFG_STR:
		snprintf(base + k->offset, k->size, "%s", k->def_str);
		break;
	case UF_CFG_NUMBER:
		*(double *)(base + k->offset) = k->ddef;
		break;
	default:
		break;
	}
}

void
uf_cfg_apply_defaults(const char *section, void *base)
{
	unsigned int i;

	for (i = 0; i < uf_cfg_schema_n; i++)
		if (strcmp(uf_cfg_schema[i].section, section) == 0)
			uf_cfg_apply_default(&uf_cfg_schema[i], base);
}

static int
parse_uint(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v, const char *kp,
	   char *base)
{
	uint64_t x;

	if (k->word != NULL) {
		const char *s = uf_cfg_scalar(p, v, kp);

		if (s == NULL)
			return -1;
		if (strcmp(s, k->word) == 0) {
			*(bool *)(base + k->word_offset) = true;
			return 0;
		}
		*(bool *)(base + k->word_offset) = false;
		if (!isdigit((unsigned char)s[0])) {
			uf_cfg_perr(p, v, kp, "\"%s\": expected %s or %s", s, k->word,
				    k->word_what);
			return -1;
		}
	}
	if (uf_cfg_get_u64(p, v, kp, k->lo_why != NULL ? 0 : k->lo,
			   k->lo_why != NULL ? UINT64_MAX : k->hi, &x) < 0)
		return -1;
	if (x < k->lo || x > k->hi) { /* only with lo_why: below the least, its reason too */
		uf_cfg_perr(p, v, kp, "%" PRIu64 " is out of range %" PRIu64 "..%" PRIu64 "%s%s%s",
			    x, k->lo, k->hi, x < k->lo ? " (" : "", x < k->lo ? k->lo_why : "",
			    x < k->lo ? ")" : "");
		return -1;
	}
	put_uint(base + k->offset, k->size, x);
	return 0;
}

static int
parse_number(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v, const char *kp,
	     char *base)
{
	const char *s = uf_cfg_scalar(p, v, kp);
	char *end;
	double d;

	if (s == NULL)
		return -1;
	errno = 0;
	d = strtod(s, &end);
	if (errno != 0 || *end != '\0' || end == s || !(d >= k->dlo && d <= k->dhi)) {
		uf_cfg_perr(p, v, kp, "\"%s\": expected %s between %g and %g", s, k->unit, k->dlo,
			    k->dhi);
		return -1;
	}
	*(double *)(base + k->offset) = d;
	return 0;
}

static int
parse_enum(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v, const char *kp,
	   char *base)
{
	const char *s = uf_cfg_scalar(p, v, kp);
	char list[128] = "";
	int i, n;

	if (s == NULL)
		return -1;
	for (n = 0; k->choices[n] != NULL; n++) {
		if (strcmp(s, k->choices[n]) == 0) {
			put_uint(base + k->offset, k->size, (uint64_t)n);
			return 0;
		}
	}
	/* "expected auto, copy or chain" */
	for (i = 0; i < n; i++) {
		strncat(list,
			i == 0       ? ""
			: i == n - 1 ? " or "
				     : ", ",
			sizeof(list) - strlen(list) - 1);
		strncat(list, k->choices[i], sizeof(list) - strlen(list) - 1);
	}
	uf_cfg_perr(p, v, kp, "\"%s\": expected %s", s, list);
	return -1;
}

static int
parse_key(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v, const char *kp,
	  void *basev)
{
	char *base = basev;
	int rc;

	switch (k->type) {
	case UF_CFG_UINT:
		rc = parse_uint(p, k, v, kp, base);
		break;
	case UF_CFG_BOOL:
		rc = uf_cfg_get_bool(p, v, kp, (bool *)(base + k->offset));
		break;
	case UF_CFG_STR:
		rc = uf_cfg_get_str(p, v, kp, base + k->offset, k->size);
		break;
	case UF_CFG_IPV4:
		rc = uf_cfg_get_ipv4(p, v, kp, (rte_be32_t *)(base + k->offset));
		break;
	case UF_CFG_NUMBER:
		rc = parse_number(p, k, v, kp, base);
		break;
	case UF_CFG_ENUM:
		rc = parse_enum(p, k, v, kp, base);
		break;
	case UF_CFG_MAP:
		return uf_cfg_walk_map(p, v, kp, k->name, base);
	case UF_CFG_CUSTOM:
	default:
		rc = k->parse(p, k, v, kp, base);
		if (rc == 0 && k->has_flag)
			*(bool *)(base + k->flag_offset) = true;
		return rc;
	}
	if (rc < 0)
		return -1;
	if (k->has_flag)
		*(bool *)(base + k->flag_offset) = true;
	if (k->has_pos)
		*(struct uf_cfg_pos *)(base + k->pos_offset) = uf_cfg_pos_of(v);
	return k->parse != NULL ? k->parse(p, k, v, kp, base) : 0;
}

int
uf_cfg_walk_map(struct uf_cfg_pctx *p, yaml_node_t *map, const char *path, const char *section,
		void *base)
{
	yaml_node_pair_t *pair;
	char kp[160];

	if (map->type != YAML_MAPPING_NODE) {
		uf_cfg_perr(p, map, path, "expected a mapping, got %s", uf_cfg_node_type_name(map));
		return -1;
	}
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pair->value);
		const struct uf_cfg_key *row;
		yaml_node_pair_t *q;
		const char *ks;

		if (k->type != YAML_SCALAR_NODE) {
			uf_cfg_perr(p, k, path, "keys must be plain names");
			return -1;
		}
		ks = (const char *)k->data.scalar.value;
		snprintf(kp, sizeof(kp), "%s%s%s", path, path[0] ? "." : "", ks);
		for (q = map->data.mapping.pairs.start; q < pair; q++) {
			yaml_node_t *k2 = yaml_document_get_node(p->doc, q->key);

			if (k2->type == YAML_SCALAR_NODE &&
			    strcmp((const char *)k2->data.scalar.value, ks) == 0) {
				uf_cfg_perr(p, k, kp, "given twice (first at line %zu)",
					    k2->start_mark.line + 1);
				return -1;
			}
		}
		row = uf_cfg_key_find(section, ks);
		if (row == NULL) {
			char list[256] = "";
			unsigned int i, n = 0;

			for (i = 0; i < uf_cfg_schema_n; i++) {
				if (strcmp(uf_cfg_schema[i].section, section) != 0)
					continue;
				strncat(list, n++ ? ", " : "", sizeof(list) - strlen(list) - 1);
				strncat(list, uf_cfg_schema[i].name,
					sizeof(list) - strlen(list) - 1);
			}
			uf_cfg_perr(p, k, kp, "unknown key (expected one of: %s)", list);
			return -1;
		}
		if (parse_key(p, row, v, kp, base) < 0)
			return -1;
	}
	return 0;
}
