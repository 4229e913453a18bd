/* SPDX-License-Identifier: BSD-3-Clause
 * YAML → struct uf_config: load, parse, free.
 *
 * The work is in the parts (uf_cfg_internal.h): the schema table (uf_cfg_schema.c) says
 * which keys exist, how each is parsed and what it defaults to; the walker (uf_cfg_yaml.c)
 * takes the document through it key by key, checking types and ranges; validate
 * (uf_cfg_validate.c) then checks what needs the whole document (cross-references,
 * duplicates, reachability, rule shadowing). docs/configuration.md describes every key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uf_cfg_schema.h"

int
uf_config_port_by_name(const struct uf_config *cfg, const char *name)
{
	int i;

	for (i = 0; i < cfg->n_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return i;
	return -1;
}

int
uf_config_port_svc(const struct uf_cfg_port *p, bool is_ip6, rte_be32_t a4, const struct uf_ip6 *a6)
{
	int i;

	for (i = 0; i < p->n_svc; i++) {
		const struct uf_cfg_svc *s = &p->svc[i];

		if (s->is_ip6 == is_ip6 &&
		    (is_ip6 ? memcmp(s->ip6.b, a6->b, 16) == 0 : s->ip == a4))
			return i;
	}
	return -1;
}

/* The schema's defaults: the rows of the mappings into cfg, those of ports[] into every
 * port; destinations get theirs as each is parsed. */
static void
set_defaults(struct uf_config *cfg)
{
	unsigned int i;
	int j;

	for (i = 0; i < uf_cfg_schema_n; i++) {
		const struct uf_cfg_key *k = &uf_cfg_schema[i];

		if (strcmp(k->section, "ports[]") == 0)
			for (j = 0; j < UF_MAX_PORTS; j++)
				uf_cfg_apply_default(k, &cfg->ports[j]);
		else if (strchr(k->section, '[') == NULL)
			uf_cfg_apply_default(k, cfg);
	}
}

struct uf_config *
uf_config_parse(const char *text, size_t len, const char *name, struct uf_err *err)
{
	struct uf_config *cfg = calloc(1, sizeof(*cfg));
	yaml_parser_t parser;
	yaml_document_t doc;
	struct uf_cfg_state st = { .cfg = cfg, .lis = -1 };
	struct uf_cfg_pctx p = { .name = name, .doc = &doc, .err = err, .st = &st };
	yaml_node_t *root;
	int rc = -1;

	if (cfg == NULL) {
		uf_err_set(err, UF_EXIT_OTHER, "out of memory");
		return NULL;
	}
	snprintf(cfg->path, sizeof(cfg->path), "%s", name);
	set_defaults(cfg);
	if (!yaml_parser_initialize(&parser)) {
		uf_err_set(err, UF_EXIT_OTHER, "libyaml: cannot initialise a parser");
		free(cfg);
		return NULL;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		uf_err_set(err, UF_EXIT_CONFIG, "%s:%zu:%zu: YAML: %s%s%s", name,
			   parser.problem_mark.line + 1, parser.problem_mark.column + 1,
			   parser.problem != NULL ? parser.problem : "syntax error",
			   parser.context != NULL ? " " : "",
			   parser.context != NULL ? parser.context : "");
		yaml_parser_delete(&parser);
		uf_config_free(cfg);
		return NULL;
	}
	root = yaml_document_get_root_node(&doc);
	if (root == NULL) {
		uf_err_set(err, UF_EXIT_CONFIG, "%s:1:1: config: the file is empty", name);
	} else if (uf_cfg_walk_map(&p, root, "", "", cfg) == 0 && uf_cfg_validate(&p, root) == 0) {
		rc = 0;
	} else if (!p.failed) {
		uf_err_set(err, UF_EXIT_OTHER, "out of memory while parsing %s", name);
	}
	free(st.dest_port);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (rc < 0) {
		uf_config_free(cfg);
		return NULL;
	}
	return cfg;
}

struct uf_config *
uf_config_load(const char *path, struct uf_err *err)
{
	struct uf_config *cfg;
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL) {
		uf_err_set(err, UF_EXIT_CONFIG, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0 ||
	    n > (16 << 20)) {
		uf_err_set(err, UF_EXIT_CONFIG, "%s: cannot read (or larger than 16 MiB)", path);
		fclose(f);
		return NULL;
	}
	buf = malloc(n + 1);
	if (buf == NULL || fread(buf, 1, n, f) != (size_t)n) {
		uf_err_set(err, UF_EXIT_CONFIG, "%s: cannot read: %s", path, strerror(errno));
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	cfg = uf_config_parse(buf, n, path, err);
	free(buf);
	return cfg;
}

void
uf_config_free(struct uf_config *cfg)
{
	int i;

	if (cfg == NULL)
		return;
	for (i = 0; i < cfg->eal.n_extra; i++)
		free(cfg->eal.extra_args[i]);
	free(cfg->eal.extra_args);
	for (i = 0; i < cfg->n_rules; i++) {
		free(cfg->rules[i].to);
		free(cfg->rules[i].to_pos);
	}
	free(cfg->rules);
	free(cfg->dests);
	free(cfg->pools);
	free(cfg);
}

int
uf_config_worker_count(const struct uf_config *cfg)
{
	uint16_t ids[RTE_MAX_LCORE];
	int n;

	if (cfg->eal.lcores[0] == '\0')
		return 1;
	n = uf_parse_lcore_list(cfg->eal.lcores, ids, RTE_MAX_LCORE);
	return n < 2 ? -1 : n - 1;
}
