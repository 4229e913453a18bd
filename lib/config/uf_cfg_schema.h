/* SPDX-License-Identifier: BSD-3-Clause
 * The config schema: one row per key.
 *
 * A row names the key and its section, says how its value is parsed (type, range, the
 * offset of the field it fills), what it defaults to, and how docs/configuration.md
 * describes it (type, default and range columns, derived from the row where the row can
 * say it: "integer", "32", "1..64"). The parser (uf_cfg_walk_map), the defaults
 * (uf_cfg_apply_defaults), the range errors and the unknown-key message all come from this
 * table; tests/unit/test_config_schema.c checks docs/configuration.md against it.
 *
 * Sections: "" is the top level; a mapping key's section is its name ("eal", "forward");
 * a list's items are the section "NAME[]" ("ports[]"). Offsets are relative to the struct
 * the walk fills there: struct uf_config at the top and in mappings, the item's struct
 * (uf_cfg_port, uf_cfg_dest, uf_cfg_rule) in list items.
 */
#ifndef UF_CFG_SCHEMA_H
#define UF_CFG_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uf_cfg_internal.h"

enum uf_cfg_type {
	UF_CFG_UINT,   /* decimal digits in lo..hi; optionally a word instead (source_port: keep) */
	UF_CFG_BOOL,   /* true/yes/on, false/no/off */
	UF_CFG_STR,    /* a string shorter than size */
	UF_CFG_IPV4,   /* a dotted quad */
	UF_CFG_NUMBER, /* a double in dlo..dhi */
	UF_CFG_ENUM,   /* one of choices[], stored as its index */
	UF_CFG_MAP,    /* a mapping: the section named after the key */
	UF_CFG_CUSTOM, /* parse() does it all (lists, prefixes, references) */
};

struct uf_cfg_key;

/* Parse V (at key path KP) into BASE; or, after a generic parse, check what it took. */
typedef int (*uf_cfg_parse_fn)(struct uf_cfg_pctx *p, const struct uf_cfg_key *k, yaml_node_t *v,
			       const char *kp, void *base);

struct uf_cfg_key {
	const char *section;
	const char *name;
	enum uf_cfg_type type;
	size_t offset;              /* of the field in BASE */
	size_t size;                /* of that field */
	uint64_t lo, hi;            /* UF_CFG_UINT */
	double dlo, dhi, ddef;      /* UF_CFG_NUMBER */
	const char *unit;           /* UF_CFG_NUMBER: "seconds" in "expected seconds between" */
	const char *const *choices; /* UF_CFG_ENUM, NULL-terminated */
	/* UF_CFG_UINT: a word taken instead of a number, which sets the bool at word_offset
	 * (and clears it when a number is given); word_what names the number in the error */
	const char *word;
	size_t word_offset;
	const char *word_what;
	bool has_def;        /* the walk writes def/ddef/def_str/def_word before parsing */
	uint64_t def;        /* UINT, BOOL, ENUM */
	const char *def_str; /* STR */
	bool def_word;       /* UINT with a word: the default is the word */
	bool has_flag;       /* set the bool at flag_offset when the key is given */
	size_t flag_offset;
	bool has_pos; /* keep the value's position at pos_offset (struct uf_cfg_pos) */
	size_t pos_offset;
	uf_cfg_parse_fn parse; /* UF_CFG_CUSTOM: the parser; otherwise a check after the parse */
	/* docs/configuration.md's columns; NULL: derived from the row (uf_cfg_key_doc_*) */
	const char *doc_type;
	const char *doc_default;
	const char *doc_range;
	const char *default_note; /* appended to a derived default */
	const char *range_note;   /* appended to a derived range */
	const char *lo_why;       /* UF_CFG_UINT: why lo is the least, said in its error */
	const char *doc;          /* one line: what the key is for */
	/* reload (uf_config_diff, docs/configuration.md#reload): a change to this key is
	 * applied by a new plan (hot), or needs ports/lcores restarted (false: refused). A
	 * container row (a mapping or a list) says what adding or removing an item is. */
	bool hot;
	/* reload: are the values of this row in A and B (its BASE structs) the same? Rows
	 * without offset/size need one (tests/unit/test_reload.c checks) */
	bool (*same)(const void *a, const void *b);
};

extern const struct uf_cfg_key uf_cfg_schema[];
extern const unsigned int uf_cfg_schema_n;

/* The row of KEY in SECTION, or NULL. */
const struct uf_cfg_key *uf_cfg_key_find(const char *section, const char *key);

/* Write row K's default into BASE (nothing for a row without one). */
void uf_cfg_apply_default(const struct uf_cfg_key *k, void *base);
/* The same for every row of SECTION. */
void uf_cfg_apply_defaults(const char *section, void *base);

/* docs/configuration.md's type, default and range cells of a row, into buf ("" where the
 * docs have no such cell). */
const char *uf_cfg_key_doc_type(const struct uf_cfg_key *k, char *buf, size_t len);
const char *uf_cfg_key_doc_default(const struct uf_cfg_key *k, char *buf, size_t len);
const char *uf_cfg_key_doc_range(const struct uf_cfg_key *k, char *buf, size_t len);

#endif /* UF_CFG_SCHEMA_H */
