/* SPDX-License-Identifier: BSD-3-Clause
 * udpfan.yaml(5) from the config schema (lib/config/uf_cfg_schema.c): copies the template
 * man/udpfan.yaml.5.in and replaces its line "@KEYS@" with one entry per schema row, in
 * table order, with the type, default and range that docs/configuration.md shows (the same
 * uf_cfg_key_doc_* cells, which tests/unit/test_config_schema.c checks there). Run at build
 * time (man/meson.build), so the page cannot lack a key the parser reads.
 *
 *   uf-mangen TEMPLATE OUTPUT VERSION
 */
#include <stdio.h>
#include <string.h>

#include "uf_cfg_schema.h"

/* Markdown cell text to roff: `code` in bold, [text](link) as text, backslashes escaped. */
static void
put_md(FILE *o, const char *s)
{
	bool code = false;

	for (; *s != '\0'; s++) {
		if (*s == '`') {
			fputs(code ? "\\fR" : "\\fB", o);
			code = !code;
		} else if (*s == '\\') {
			fputs("\\e", o);
		} else if (*s == '-' && code) {
			fputs("\\-", o);
		} else if (*s == '[' && strstr(s, "](") != NULL) {
			const char *mid = strstr(s, "](");
			const char *end = strchr(mid, ')');

			if (end == NULL) {
				fputc(*s, o);
				continue;
			}
			fwrite(s + 1, 1, (size_t)(mid - s - 1), o);
			fputs(" (see docs/", o);
			fwrite(mid + 2, 1, (size_t)(end - mid - 2), o);
			fputc(')', o);
			s = end;
		} else {
			fputc(*s, o);
		}
	}
	if (code)
		fputs("\\fR", o);
}

static const char *
section_title(const char *sec)
{
	return sec[0] == '\0' ? "Top level" : sec;
}

static void
put_keys(FILE *o)
{
	const char *cur = NULL;
	char type[256], def[512], range[512];
	unsigned int i;

	for (i = 0; i < uf_cfg_schema_n; i++) {
		const struct uf_cfg_key *k = &uf_cfg_schema[i];

		if (cur == NULL || strcmp(cur, k->section) != 0) {
			cur = k->section;
			fprintf(o, ".SS %s\n", section_title(cur));
			if (cur[0] != '\0' && cur[strlen(cur) - 1] == ']')
				fprintf(o, "Each item of the list \\fB%.*s\\fR is a mapping of:\n",
					(int)strlen(cur) - 2, cur);
		}
		uf_cfg_key_doc_type(k, type, sizeof(type));
		uf_cfg_key_doc_default(k, def, sizeof(def));
		uf_cfg_key_doc_range(k, range, sizeof(range));
		fputs(".TP\n\\fB", o);
		if (k->section[0] != '\0')
			fprintf(o, "%s.", k->section);
		fprintf(o, "%s\\fR", k->name);
		if (type[0] != '\0') {
			fputs(" (", o);
			put_md(o, type);
			fputc(')', o);
		}
		fputs("\n\\&", o);
		put_md(o, k->doc);
		fputs(".\n", o);
		if (def[0] != '\0') {
			fputs(".br\n\\&Default: ", o);
			put_md(o, def);
			fputs(".\n", o);
		}
		if (range[0] != '\0') {
			fputs(".br\n\\&Range: ", o);
			put_md(o, range);
			fputs(".\n", o);
		}
	}
}

int
main(int argc, char **argv)
{
	char line[4096];
	FILE *in, *out;
	int keys = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: uf-mangen TEMPLATE OUTPUT VERSION\n");
		return 2;
	}
	in = fopen(argv[1], "r");
	if (in == NULL) {
		perror(argv[1]);
		return 1;
	}
	out = fopen(argv[2], "w");
	if (out == NULL) {
		perror(argv[2]);
		fclose(in);
		return 1;
	}
	while (fgets(line, sizeof(line), in) != NULL) {
		char *at = strstr(line, "@VERSION@");

		if (strcmp(line, "@KEYS@\n") == 0) {
			put_keys(out);
			keys++;
		} else if (at != NULL) {
			fwrite(line, 1, (size_t)(at - line), out);
			fprintf(out, "%s%s", argv[3], at + strlen("@VERSION@"));
		} else {
			fputs(line, out);
		}
	}
	fclose(in);
	if (fclose(out) != 0 || keys != 1) {
		fprintf(stderr, "uf-mangen: %s: expected one line \"@KEYS@\"\n", argv[1]);
		remove(argv[2]);
		return 1;
	}
	return 0;
}
