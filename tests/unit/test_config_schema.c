/* SPDX-License-Identifier: BSD-3-Clause
 * lib/config's schema table (lib/config/uf_cfg_schema.h) against the parser and the docs:
 *  - docs/configuration.md has a row for every key in the table, with the type, default and
 *    range the table gives, and no row the table lacks (the path is argv[1]);
 *  - every integer key takes LO and HI, refuses LO-1 and HI+1 with "N is out of range LO..HI";
 *  - a config that leaves a key out gets the table's default;
 *  - the unknown-key message lists the section's keys in table order.
 * So the docs, the table and the parser cannot drift apart.
 */
#include <stdio.h>
#include <string.h>

#include "uf_cfg_schema.h"
#include "uf_test.h"

static const char *doc_path;

/* ---- docs/configuration.md ---- */

#define MAX_ROWS 128

struct doc_row {
	char section[32];
	char cell[5][512]; /* key (without backticks), type, default, range, meaning */
	int n_cells;
	bool seen;
};

static struct doc_row rows[MAX_ROWS];
static int n_rows;
static char headings[32][32];
static int n_headings;

static void
trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\n'))
		s[--n] = '\0';
	while (s[i] == ' ')
		i++;
	memmove(s, s + i, strlen(s + i) + 1);
}

/* the key tables: rows "| `key` | ..." under a heading "## `section`" (not under ###) */
static bool
read_docs(void)
{
	FILE *f = fopen(doc_path, "r");
	char line[4096], section[32] = "";

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "## ", 3) == 0) {
			section[0] = '\0';
			if (sscanf(line, "## `%31[^`]`", section) == 1 && n_headings < 32)
				snprintf(headings[n_headings++], 32, "%s", section);
			continue;
		}
		if (strncmp(line, "### ", 4) == 0) {
			section[0] = '\0';
			continue;
		}
		if (section[0] != '\0' && strncmp(line, "| `", 3) == 0 && n_rows < MAX_ROWS) {
			struct doc_row *r = &rows[n_rows++];
			char *c = line + 1, *bar;

			snprintf(r->section, sizeof(r->section), "%s", section);
			while ((bar = strchr(c, '|')) != NULL && r->n_cells < 5) {
				*bar = '\0';
				snprintf(r->cell[r->n_cells], sizeof(r->cell[0]), "%s", c);
				trim(r->cell[r->n_cells]);
				r->n_cells++;
				c = bar + 1;
			}
			/* "`key`" -> "key" */
			memmove(r->cell[0], r->cell[0] + 1, strlen(r->cell[0]));
			if (strchr(r->cell[0], '`') != NULL)
				*strchr(r->cell[0], '`') = '\0';
		}
	}
	fclose(f);
	return true;
}

static struct doc_row *
doc_row(const char *section, const char *key)
{
	int i;

	for (i = 0; i < n_rows; i++)
		if (strcmp(rows[i].section, section) == 0 && strcmp(rows[i].cell[0], key) == 0)
			return &rows[i];
	return NULL;
}

static void
test_docs_match_schema(void)
{
	char buf[512], head[40];
	unsigned int i;
	int j;

	CHECK(read_docs(), "cannot read %s", doc_path);
	CHECK(n_rows > 30, "only %d key rows found in %s", n_rows, doc_path);
	for (i = 0; i < uf_cfg_schema_n; i++) {
		const struct uf_cfg_key *k = &uf_cfg_schema[i];
		struct doc_row *r;
		bool found = false;

		if (k->section[0] == '\0') {
			/* a top-level key has its own section: "## `eal`", "## `ports[]`" */
			snprintf(head, sizeof(head), "%s%s", k->name,
				 k->type == UF_CFG_MAP || strcmp(k->name, "listen") == 0 ? ""
											 : "[]");
			for (j = 0; j < n_headings; j++)
				found |= strcmp(headings[j], head) == 0;
			CHECK(found, "docs: no section \"## `%s`\" for the top-level key %s", head,
			      k->name);
			continue;
		}
		r = doc_row(k->section, k->name);
		CHECK(r != NULL, "docs: no row for %s.%s under \"## `%s`\"", k->section, k->name,
		      k->section);
		if (r == NULL)
			continue;
		r->seen = true;
		CHECK(strcmp(r->cell[1], uf_cfg_key_doc_type(k, buf, sizeof(buf))) == 0,
		      "%s.%s type: docs \"%s\", schema \"%s\"", k->section, k->name, r->cell[1],
		      buf);
		if (r->n_cells < 5) {
			/* a table without default and range columns (rules[]) */
			CHECK(!k->has_def && k->doc_default == NULL && k->doc_range == NULL,
			      "%s.%s: the schema has a default or range the docs' table has no "
			      "column for",
			      k->section, k->name);
			continue;
		}
		CHECK(strcmp(r->cell[2], uf_cfg_key_doc_default(k, buf, sizeof(buf))) == 0,
		      "%s.%s default: docs \"%s\", schema \"%s\"", k->section, k->name, r->cell[2],
		      buf);
		CHECK(strcmp(r->cell[3], uf_cfg_key_doc_range(k, buf, sizeof(buf))) == 0,
		      "%s.%s range: docs \"%s\", schema \"%s\"", k->section, k->name, r->cell[3],
		      buf);
	}
	for (j = 0; j < n_rows; j++)
		CHECK(rows[j].seen, "docs: %s.%s is not in the schema", rows[j].section,
		      rows[j].cell[0]);
}

/* Text the table states by hand must agree with the values the parser uses. */
static void
test_schema_self_consistent(void)
{
	char want[64];
	unsigned int i, j;

	for (i = 0; i < uf_cfg_schema_n; i++) {
		const struct uf_cfg_key *k = &uf_cfg_schema[i];

		for (j = 0; j < i; j++)
			CHECK(strcmp(uf_cfg_schema[j].section, k->section) != 0 ||
					      strcmp(uf_cfg_schema[j].name, k->name) != 0,
			      "%s.%s is in the table twice", k->section, k->name);
		CHECK(k->doc != NULL && k->doc[0] != '\0', "%s.%s has no doc line", k->section,
		      k->name);
		CHECK(k->type != UF_CFG_CUSTOM || k->parse != NULL, "%s.%s: custom without parse",
		      k->section, k->name);
		if (k->type == UF_CFG_UINT && k->doc_range != NULL) {
			snprintf(want, sizeof(want), "%" PRIu64 "..%" PRIu64, k->lo, k->hi);
			CHECK(strncmp(k->doc_range, want, strlen(want)) == 0,
			      "%s.%s: doc_range \"%s\" does not start with %s", k->section, k->name,
			      k->doc_range, want);
		}
		if (k->type == UF_CFG_UINT && k->has_def && k->doc_default != NULL) {
			snprintf(want, sizeof(want), "%" PRIu64, k->def);
			CHECK(strncmp(k->doc_default, want, strlen(want)) == 0,
			      "%s.%s: doc_default \"%s\" does not start with %s", k->section,
			      k->name, k->doc_default, want);
		}
		if (k->type == UF_CFG_STR && k->doc_range != NULL) {
			char a[32], b[32];

			/* "1..63 characters" or "< 64 characters": the field's size */
			snprintf(a, sizeof(a), "..%zu characters", k->size - 1);
			snprintf(b, sizeof(b), "< %zu characters", k->size);
			CHECK(strstr(k->doc_range, a) != NULL || strstr(k->doc_range, b) != NULL,
			      "%s.%s: doc_range \"%s\" does not match a %zu-byte field", k->section,
			      k->name, k->doc_range, k->size);
		}
		if (k->type == UF_CFG_STR && k->has_def)
			CHECK(strlen(k->def_str) < k->size, "%s.%s: default too long", k->section,
			      k->name);
		if (k->type == UF_CFG_UINT)
			CHECK(k->size == 8 || k->hi < (1ull << (8 * k->size)),
			      "%s.%s: %" PRIu64 " does not fit %zu bytes", k->section, k->name,
			      k->hi, k->size);
	}
}

/* ---- the parser does what the table says ---- */

/*
 * A valid config with KEY: VAL added to SECTION ("" adds nothing). Keys the base already
 * has (listen.udp_port, destinations[].udp_port) are replaced.
 */
static void
make_cfg(char *buf, size_t len, const char *section, const char *key, const char *val)
{
	char eal[128] = "", port[128] = "", listen[128] = "", dest[128] = "", map[128] = "";

	snprintf(eal, sizeof(eal), "eal:\n  lcores: \"0-1\"\n");
	if (strcmp(section, "eal") == 0 && strcmp(key, "lcores") != 0)
		snprintf(eal + strlen(eal), sizeof(eal) - strlen(eal), "  %s: %s\n", key, val);
	if (strcmp(section, "ports[]") == 0)
		snprintf(port, sizeof(port), "    %s: %s\n%s", key, val,
			 /* priority bits need a tagged port */
			 strcmp(key, "vlan_pcp") == 0 ? "    vlan: 10\n" : "");
	if (strcmp(section, "listen") == 0 && strcmp(key, "udp_port") == 0)
		snprintf(listen, sizeof(listen), "  udp_port: %s\n", val);
	else if (strcmp(section, "listen") == 0)
		snprintf(listen, sizeof(listen), "  udp_port: 5000\n  %s: %s\n", key, val);
	else
		snprintf(listen, sizeof(listen), "  udp_port: 5000\n");
	if (strcmp(section, "destinations[]") == 0 && strcmp(key, "udp_port") == 0)
		snprintf(dest, sizeof(dest), "    udp_port: %s\n", val);
	else if (strcmp(section, "destinations[]") == 0)
		snprintf(dest, sizeof(dest), "    udp_port: 6000\n    %s: %s\n", key, val);
	else
		snprintf(dest, sizeof(dest), "    udp_port: 6000\n");
	if (strcmp(section, "forward") == 0 || strcmp(section, "stats") == 0 ||
	    strcmp(section, "arp") == 0 || strcmp(section, "control") == 0 ||
	    strcmp(section, "health") == 0) {
		snprintf(map, sizeof(map), "%s:\n  %s: %s\n", section, key, val);
	}
	snprintf(buf, len,
		 "%s"
		 "ports:\n  - name: wan\n    device: net_ring0\n    ip: 10.0.0.10/24\n%s"
		 "listen:\n  port: wan\n%s"
		 "destinations:\n  - ip: 10.0.0.20\n%s"
		 "%s",
		 eal, port, listen, dest, map);
}

static bool
testable(const struct uf_cfg_key *k)
{
	/* rules and pools need a list around them: test_config covers them; listeners[] keys:
	 * tests/unit/test_listeners.c */
	return k->section[0] != '\0' && strcmp(k->section, "rules[]") != 0 &&
	       strcmp(k->section, "destinations[].pool") != 0 &&
	       strcmp(k->section, "listeners[]") != 0;
}

static void *
base_of(struct uf_config *cfg, const struct uf_cfg_key *k)
{
	if (strcmp(k->section, "ports[]") == 0)
		return &cfg->ports[0];
	if (strcmp(k->section, "destinations[]") == 0)
		return &cfg->dests[0];
	return cfg;
}

static uint64_t
get_uint(const void *p, size_t size)
{
	switch (size) {
	case 1:
		return *(const uint8_t *)p;
	case 2:
		return *(const uint16_t *)p;
	case 4:
		return *(const uint32_t *)p;
	default:
		return *(const uint64_t *)p;
	}
}

static void
key_path(char *buf, size_t len, const struct uf_cfg_key *k)
{
	if (strcmp(k->section, "ports[]") == 0)
		snprintf(buf, len, "ports[0].%s", k->name);
	else if (strcmp(k->section, "destinations[]") == 0)
		snprintf(buf, len, "destinations[0].%s", k->name);
	else
		snprintf(buf, len, "%s.%s", k->section, k->name);
}

static struct uf_config *
parse(const char *text, struct uf_err *err)
{
	memset(err, 0, sizeof(*err));
	return uf_config_parse(text, strlen(text), "s.yaml", err);
}

static void
test_uint_ranges(void)
{
	char text[1024], val[32], want[160], kp[64];
	struct uf_config *cfg;
	struct uf_err err;
	unsigned int i;
	int tested = 0;

	for (i = 0; i < uf_cfg_schema_n; i++) {
		const struct uf_cfg_key *k = &uf_cfg_schema[i];
		const uint64_t ends[2] = { k->lo, k->hi };
		int e;

		if (k->type != UF_CFG_UINT || !testable(k))
			continue;
		tested++;
		key_path(kp, sizeof(kp), k);
		for (e = 0; e < 2; e++) {
			snprintf(val, sizeof(val), "%" PRIu64, ends[e]);
			make_cfg(text, sizeof(text), k->section, k->name, val);
			cfg = parse(text, &err);
			CHECK(cfg != NULL, "%s: %s refused: %s", kp, val, err.msg);
			if (cfg != NULL)
				CHECK(get_uint((char *)base_of(cfg, k) + k->offset, k->size) ==
						      ends[e],
				      "%s: %s not stored at the row's offset", kp, val);
			uf_config_free(cfg);
		}
		for (e = 0; e < 2; e++) {
			uint64_t bad = e == 0 ? k->lo - 1 : k->hi + 1;

			if (e == 0 && k->lo == 0)
				continue;
			snprintf(val, sizeof(val), "%" PRIu64, bad);
			make_cfg(text, sizeof(text), k->section, k->name, val);
			cfg = parse(text, &err);
			CHECK(cfg == NULL, "%s: %s accepted", kp, val);
			uf_config_free(cfg);
			snprintf(want, sizeof(want),
				 ": %s: %s is out of range %" PRIu64 "..%" PRIu64, kp, val, k->lo,
				 k->hi);
			CHECK(strstr(err.msg, want) != NULL && err.code == UF_EXIT_CONFIG,
			      "%s: want \"%s\", got \"%s\"", kp, want, err.msg);
			/* a least value with a reason says it (forward.burst) */
			if (e == 0 && k->lo_why != NULL)
				CHECK(strstr(err.msg, k->lo_why) != NULL, "%s: %s lacks \"%s\"", kp,
				      err.msg, k->lo_why);
		}
	}
	CHECK(tested >= 19, "only %d integer keys tested", tested);
	/* forward.burst 1-3: vector RX (i40e, ixgbe, ice, iavf, mlx5) rounds the burst down
	 * to a multiple of 4 and receives nothing, so the schema's least is 4, with why */
	{
		const struct uf_cfg_key *b = uf_cfg_key_find("forward", "burst");

		CHECK(b != NULL && b->lo == 4 && b->lo_why != NULL &&
				      strstr(b->lo_why, "multiple of 4") != NULL,
		      "forward.burst: least 4, with the reason");
	}
}

static void
test_other_types(void)
{
	char text[1024], val[64], want[160], kp[64];
	struct uf_config *cfg;
	struct uf_err err;
	unsigned int i;
	int c;

	for (i = 0; i < uf_cfg_schema_n; i++) {
		const struct uf_cfg_key *k = &uf_cfg_schema[i];

		if (!testable(k))
			continue;
		key_path(kp, sizeof(kp), k);
		if (k->type == UF_CFG_ENUM) {
			for (c = 0; k->choices[c] != NULL; c++) {
				make_cfg(text, sizeof(text), k->section, k->name, k->choices[c]);
				cfg = parse(text, &err);
				CHECK(cfg != NULL, "%s: %s refused: %s", kp, k->choices[c],
				      err.msg);
				if (cfg != NULL)
					CHECK_EQ(get_uint((char *)base_of(cfg, k) + k->offset,
							  k->size),
						 c);
				uf_config_free(cfg);
			}
			make_cfg(text, sizeof(text), k->section, k->name, "bogus");
			cfg = parse(text, &err);
			CHECK(cfg == NULL, "%s: bogus accepted", kp);
			uf_config_free(cfg);
			snprintf(want, sizeof(want), ": %s: \"bogus\": expected %s", kp,
				 k->choices[0]);
			CHECK_HAS(err.msg, want);
		}
		if (k->type == UF_CFG_NUMBER) {
			snprintf(val, sizeof(val), "%g", k->dhi * 2);
			make_cfg(text, sizeof(text), k->section, k->name, val);
			cfg = parse(text, &err);
			CHECK(cfg == NULL, "%s: %s accepted", kp, val);
			uf_config_free(cfg);
			snprintf(want, sizeof(want), ": %s: \"%s\": expected %s between %g and %g",
				 kp, val, k->unit, k->dlo, k->dhi);
			CHECK_HAS(err.msg, want);
			snprintf(val, sizeof(val), "%g", k->dlo);
			make_cfg(text, sizeof(text), k->section, k->name, val);
			cfg = parse(text, &err);
			CHECK(cfg != NULL && *(double *)((char *)base_of(cfg, k) + k->offset) ==
							      k->dlo,
			      "%s: %s refused or not stored: %s", kp, val, err.msg);
			uf_config_free(cfg);
		}
		if (k->type == UF_CFG_BOOL) {
			make_cfg(text, sizeof(text), k->section, k->name, k->def ? "no" : "yes");
			cfg = parse(text, &err);
			CHECK(cfg != NULL && *(bool *)((char *)base_of(cfg, k) + k->offset) ==
							      !k->def,
			      "%s: not set: %s", kp, err.msg);
			uf_config_free(cfg);
		}
	}
}

static void
test_defaults_from_table(void)
{
	char text[1024], kp[64];
	struct uf_config *cfg;
	struct uf_err err;
	unsigned int i;

	make_cfg(text, sizeof(text), "", "", "");
	cfg = parse(text, &err);
	CHECK(cfg != NULL, "the base config is refused: %s", err.msg);
	if (cfg == NULL)
		return;
	for (i = 0; i < uf_cfg_schema_n; i++) {
		const struct uf_cfg_key *k = &uf_cfg_schema[i];
		const char *at = (const char *)base_of(cfg, k) + k->offset;

		if (!testable(k) || !k->has_def)
			continue;
		key_path(kp, sizeof(kp), k);
		switch (k->type) {
		case UF_CFG_UINT:
			if (k->word != NULL)
				CHECK(*(const bool *)((const char *)base_of(cfg, k) +
						      k->word_offset) == k->def_word,
				      "%s: the word default is not set", kp);
			/* fall through */
		case UF_CFG_ENUM:
			CHECK(get_uint(at, k->size) == k->def,
			      "%s: default %" PRIu64 ", got %" PRIu64, kp, k->def,
			      get_uint(at, k->size));
			break;
		case UF_CFG_BOOL:
			CHECK(*(const bool *)at == (k->def != 0), "%s: default not set", kp);
			break;
		case UF_CFG_STR:
			CHECK(strcmp(at, k->def_str) == 0, "%s: default \"%s\", got \"%s\"", kp,
			      k->def_str, at);
			break;
		case UF_CFG_NUMBER:
			CHECK(*(const double *)at == k->ddef, "%s: default %g", kp, k->ddef);
			break;
		default:
			break;
		}
	}
	/* and the same for a second port, which the walk never visits */
	CHECK_EQ(cfg->ports[1].rx_desc, uf_cfg_key_find("ports[]", "rx_desc")->def);
	uf_config_free(cfg);
}

static void
test_unknown_key_lists_the_table(void)
{
	static const char *const sections[] = { "eal",     "ports[]", "listen", "destinations[]",
						"forward", "stats",   "arp",    "control" };
	char text[1024], want[512], kp[64];
	struct uf_config *cfg;
	struct uf_err err;
	unsigned int s, i, n;

	for (s = 0; s < RTE_DIM(sections); s++) {
		struct uf_cfg_key k = { .section = sections[s], .name = "no_such_key" };

		make_cfg(text, sizeof(text), sections[s], "no_such_key", "1");
		cfg = parse(text, &err);
		CHECK(cfg == NULL, "%s: an unknown key is accepted", sections[s]);
		uf_config_free(cfg);
		key_path(kp, sizeof(kp), &k);
		snprintf(want, sizeof(want), ": %s: unknown key (expected one of: ", kp);
		for (i = 0, n = 0; i < uf_cfg_schema_n; i++) {
			if (strcmp(uf_cfg_schema[i].section, sections[s]) != 0)
				continue;
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s",
				 n++ ? ", " : "", uf_cfg_schema[i].name);
		}
		snprintf(want + strlen(want), sizeof(want) - strlen(want), ")");
		CHECK_HAS(err.msg, want);
	}
}

int
main(int argc, char **argv)
{
	doc_path = argc > 1 ? argv[1] : "docs/configuration.md";
	RUN(test_docs_match_schema);
	RUN(test_schema_self_consistent);
	RUN(test_uint_ranges);
	RUN(test_other_types);
	RUN(test_defaults_from_table);
	RUN(test_unknown_key_lists_the_table);
	return uf_t_summary();
}
