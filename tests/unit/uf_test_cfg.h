/* SPDX-License-Identifier: BSD-3-Clause
 * The configuration tests' helpers (test_config.c, test_config6.c): parse a YAML text as
 * file NAME, and expect an error at the FILE:LINE:COL of a needle in the text.
 * Include after uf_config.h and uf_test.h.
 */
#ifndef UF_TEST_CFG_H
#define UF_TEST_CFG_H

#define NAME "t.yaml"

/* 1-based line and column of the nth (1-based) occurrence of needle in text, plus off chars */
static inline bool
where(const char *text, const char *needle, int nth, int off, int *line, int *col)
{
	const char *p = text, *c;

	for (; nth > 0; nth--) {
		p = strstr(p, needle);
		if (p == NULL)
			return false;
		if (nth > 1)
			p++;
	}
	p += off;
	*line = 1;
	*col = 1;
	for (c = text; c < p; c++) {
		if (*c == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
	return true;
}

static inline struct uf_config *
parse(const char *text, struct uf_err *err)
{
	memset(err, 0, sizeof(*err));
	return uf_config_parse(text, strlen(text), NAME, err);
}

/*
 * The text must be rejected with "t.yaml:LINE:COL: KEY: ..." where LINE:COL is where the nth
 * `needle` starts (+ off; needle NULL: 1:1), and the message must contain `what`.
 */
static inline void
expect_err_at(const char *file, int fline, const char *text, const char *needle, int nth, int off,
	      const char *key, const char *what)
{
	struct uf_config *cfg;
	struct uf_err err;
	char prefix[256];
	int line = 1, col = 1;

	if (needle != NULL && !where(text, needle, nth, off, &line, &col)) {
		uf_t_check(false, file, fline, "test bug: \"%s\" is not in the text", needle);
		return;
	}
	snprintf(prefix, sizeof(prefix), "%s:%d:%d: %s: ", NAME, line, col, key);
	cfg = parse(text, &err);
	uf_t_check(cfg == NULL, file, fline, "expected an error \"%s...\", the config parsed",
		   prefix);
	if (cfg != NULL) {
		uf_config_free(cfg);
		return;
	}
	uf_t_check(err.code == UF_EXIT_CONFIG, file, fline, "code %d, want %d (UF_EXIT_CONFIG)",
		   err.code, UF_EXIT_CONFIG);
	uf_t_check(strncmp(err.msg, prefix, strlen(prefix)) == 0, file, fline,
		   "message should start \"%s\": got \"%s\"", prefix, err.msg);
	uf_t_check(what == NULL || strstr(err.msg, what) != NULL, file, fline,
		   "message should contain \"%s\": got \"%s\"", what, err.msg);
}

#define EXPECT_ERR(text, needle, key, what) \
	expect_err_at(__FILE__, __LINE__, (text), (needle), 1, 0, (key), (what))
#define EXPECT_ERR_NTH(text, needle, nth, off, key, what) \
	expect_err_at(__FILE__, __LINE__, (text), (needle), (nth), (off), (key), (what))

/* the text parses (a failure names the caller's line and the error) */
static inline struct uf_config *
parse_ok(const char *file, int fline, const char *text)
{
	struct uf_err err;
	struct uf_config *c = parse(text, &err);

	uf_t_check(c != NULL, file, fline, "parses: %s", err.msg);
	return c;
}
#define PARSE_OK(text) parse_ok(__FILE__, __LINE__, (text))

#endif /* UF_TEST_CFG_H */
