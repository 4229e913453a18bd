/* SPDX-License-Identifier: BSD-3-Clause
 * lib/config's own parts, shared by its files and its tests only:
 *  - uf_cfg_err.c:      errors as "FILE:LINE:COL: key: what" (the first one wins)
 *  - uf_cfg_yaml.c:     node helpers and the schema-driven mapping walker
 *  - uf_cfg_schema.c:   the table of keys (uf_cfg_schema.h)
 *  - uf_cfg_values.c:   the value parsers and checks of its rows
 *  - uf_cfg_lists.c:    the lists of items (ports, destinations, rules, listeners)
 *  - uf_cfg_doc.c:      the docs cells of its rows
 *  - uf_cfg_diff.c:     reload: the diff, and the rows' comparators
 *  - uf_cfg_validate.c: the checks that need the whole document
 *  - uf_cfg_syntax.c:   IPv4, prefixes, MACs, PCI addresses, lcore lists (uf_config.h)
 *  - uf_config.c:       load, parse, free
 * docs/configuration.md describes every key and message.
 */
#ifndef UF_CFG_INTERNAL_H
#define UF_CFG_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <yaml.h>

#include <rte_common.h>

#include "uf_config.h"

/* What the walk learns beyond the struct: references resolved once every port is known. */
struct uf_cfg_state {
	struct uf_config *cfg;
	yaml_node_t *listen;      /* the listen mapping */
	yaml_node_t *listen_port; /* listen.port, a port name */
	yaml_node_t **dest_port;  /* per destination: its port key, or NULL */
	int item;                 /* index of the list item being walked */
	int next_member;          /* dests[] index of the next pool member */
	bool in_member;           /* walking a pool member's keys */
	bool have_ports, have_listen, have_dests;
	/* listeners: each one's mapping and port key; the destinations and rules keys met
	 * while walking one (their items are appended to cfg->dests and cfg->rules) */
	bool have_listeners, have_rules;
	yaml_node_t *listeners;
	yaml_node_t *lis_node[UF_MAX_LISTENERS];
	yaml_node_t *lis_port[UF_MAX_LISTENERS];
	int lis; /* the listener being walked, -1: none */
};

/* One parse: the document, where errors go, and the walk's state. */
struct uf_cfg_pctx {
	const char *name; /* file name in messages */
	yaml_document_t *doc;
	struct uf_err *err;
	bool failed; /* an error is set: later ones are dropped */
	struct uf_cfg_state *st;
};

/* ---- uf_cfg_err.c ---- */

/* Set "NAME:LINE:COL: key: what" (mark is 0-based) unless an error is already set. */
void __rte_format_printf(4, 5) uf_cfg_perr_at(struct uf_cfg_pctx *p, const yaml_mark_t *mark,
					      const char *key, const char *fmt, ...);
/* The same at a position kept from the parse (1-based). */
void __rte_format_printf(4, 5) uf_cfg_perr_pos(struct uf_cfg_pctx *p, const struct uf_cfg_pos *pos,
					       const char *key, const char *fmt, ...);
#define uf_cfg_perr(p, node, key, ...) uf_cfg_perr_at((p), &(node)->start_mark, (key), __VA_ARGS__)

struct uf_cfg_pos uf_cfg_pos_of(const yaml_node_t *n);

/* ---- uf_cfg_yaml.c ---- */

const char *uf_cfg_node_type_name(const yaml_node_t *n);
/* The scalar's text, or NULL with "expected a value, got ..." */
const char *uf_cfg_scalar(struct uf_cfg_pctx *p, yaml_node_t *n, const char *key);
/* "", "~" or "null", unquoted */
bool uf_cfg_is_null(const yaml_node_t *n);
int uf_cfg_get_u64(struct uf_cfg_pctx *p, yaml_node_t *n, const char *key, uint64_t lo, uint64_t hi,
		   uint64_t *out);
int uf_cfg_get_bool(struct uf_cfg_pctx *p, yaml_node_t *n, const char *key, bool *out);
int uf_cfg_get_str(struct uf_cfg_pctx *p, yaml_node_t *n, const char *key, char *dst, size_t len);
int uf_cfg_get_ipv4(struct uf_cfg_pctx *p, yaml_node_t *n, const char *key, rte_be32_t *ip);
yaml_node_t *uf_cfg_map_get(struct uf_cfg_pctx *p, yaml_node_t *map, const char *key);
/* A sequence of at most max entries; its length in *count. */
int uf_cfg_get_list(struct uf_cfg_pctx *p, yaml_node_t *v, const char *kp, int max, int *count);

#define UF_CFG_GET_UINT(p, n, key, lo, hi, dst)                            \
	({                                                                 \
		uint64_t v_;                                               \
		int r_ = uf_cfg_get_u64((p), (n), (key), (lo), (hi), &v_); \
		if (r_ == 0)                                               \
			(dst) = (__typeof__(dst))v_;                       \
		r_;                                                        \
	})

/*
 * Walk the mapping MAP at key path PATH with the schema rows of SECTION: each key is parsed
 * by its row into BASE + the row's offset. Unknown keys (the message lists the section's
 * keys, in table order) and keys given twice are errors.
 */
int uf_cfg_walk_map(struct uf_cfg_pctx *p, yaml_node_t *map, const char *path, const char *section,
		    void *base);

/* ---- uf_cfg_validate.c ---- */

/* What needs the whole document: presence, cross-references, duplicates, reachability,
 * rule shadowing. 0 or -1 with the error set. */
int uf_cfg_validate(struct uf_cfg_pctx *p, yaml_node_t *root);

/* ---- the schema rows' parsers and checks (uf_cfg_schema.h: struct uf_cfg_key, uf_cfg_parse_fn) ---- */

struct uf_cfg_key;

/* uf_cfg_values.c: values */
int uf_cfg_check_lcores(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			const char *kp, void *base);
int uf_cfg_check_file_prefix(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			     const char *kp, void *base);
int uf_cfg_check_http_path(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			   const char *kp, void *base);
int uf_cfg_parse_extra_args(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			    const char *kp, void *base);
int uf_cfg_check_port_name(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			   const char *kp, void *base);
int uf_cfg_check_device(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			const char *kp, void *base);
int uf_cfg_parse_port_ip(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			 const char *kp, void *base);
int uf_cfg_parse_port_ip6(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			  const char *kp, void *base);
int uf_cfg_parse_port_service(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			      const char *kp, void *base);
int uf_cfg_parse_port_gw6(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			  const char *kp, void *base);
int uf_cfg_parse_dest_ip(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			 const char *kp, void *base);
int uf_cfg_parse_port_ref(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			  const char *kp, void *base);
int uf_cfg_parse_mac(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
		     const char *kp, void *base);
int uf_cfg_parse_source(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			const char *kp, void *base);
int uf_cfg_parse_from(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
		      const char *kp, void *base);
int uf_cfg_parse_to(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
		    const char *kp, void *base);
int uf_cfg_parse_json(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
		      const char *kp, void *base);
int uf_cfg_parse_lis_ip(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			const char *kp, void *base);
/* uf_cfg_lists.c: lists of items, the listen mapping */
int uf_cfg_parse_members(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			 const char *kp, void *base);
int uf_cfg_parse_pool(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
		      const char *kp, void *base);
int uf_cfg_parse_ports(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
		       const char *kp, void *base);
int uf_cfg_parse_listen(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			const char *kp, void *base);
int uf_cfg_parse_dests(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
		       const char *kp, void *base);
int uf_cfg_parse_rules(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
		       const char *kp, void *base);
int uf_cfg_parse_lis_dests(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			   const char *kp, void *base);
int uf_cfg_parse_lis_rules(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			   const char *kp, void *base);
int uf_cfg_parse_listeners(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			   const char *kp, void *base);

/* ---- uf_cfg_diff.c: the rows' reload comparators (struct uf_cfg_key, `same`) ---- */

bool uf_cfg_same_extra_args(const void *a, const void *b);
bool uf_cfg_same_port_ip(const void *a, const void *b);
bool uf_cfg_same_port_ip6(const void *a, const void *b);
bool uf_cfg_same_port_service(const void *a, const void *b);
bool uf_cfg_same_port_gw6(const void *a, const void *b);
bool uf_cfg_same_dest_ip(const void *a, const void *b);
bool uf_cfg_same_dest_mac(const void *a, const void *b);
bool uf_cfg_same_dest_pool(const void *a, const void *b);
bool uf_cfg_same_dest_source(const void *a, const void *b);
bool uf_cfg_same_rule_from(const void *a, const void *b);
bool uf_cfg_same_rule_to(const void *a, const void *b);
bool uf_cfg_same_lis_ip(const void *a, const void *b);
bool uf_cfg_same_elsewhere(const void *a, const void *b);
bool uf_cfg_same_stats_json(const void *a, const void *b);

#endif /* UF_CFG_INTERNAL_H */
