/* SPDX-License-Identifier: BSD-3-Clause
 * The log tap (lib/port/uf_logtap.c): while it runs, every DPDK log line passes through
 * unchanged and its first ERR line is kept; after it, DPDK's log goes where it went and
 * prints a line as it did before. From 24.11, rte_openlog_stream() resets the print
 * function, so a tap that went through it left every later line without the timestamp and
 * colour of --log-timestamp and --log-color (uf_compat.h, UF_OPENLOG_RESETS_FORMAT).
 *
 * test_logtap [stderr]: EAL with --log-timestamp --log-color=always where the DPDK has them
 * (24.11 on), stderr into a file; a line before the tap, two in it (ERR, NOTICE), one after:
 * each line once, the three prefixes (timestamp and colour, digits aside) alike, and on
 * 24.11 on not empty; the ERR line kept; the stream the same before and after.
 * test_logtap syslog: EAL with --syslog=daemon, DPDK's own stream: from 24.11 the tap leaves it in
 * place (replacing it closes it), logging goes on after the tap.
 *
 * Needs EAL without hugepages: --no-huge --no-pci -l 0 (eal suite).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_log.h>

#include "uf_compat.h"
#include "uf_logtap.h"

#include "../unit/uf_test.h"

static int lt;
static char out[65536];

/* the part of the line holding MARK before it, digits as '9' and spaces left out; NULL: no
 * such line, or more than one */
static const char *
prefix_of(const char *mark, char *buf, size_t len)
{
	const char *m = strstr(out, mark), *s;
	size_t o = 0;

	if (m == NULL || strstr(m + 1, mark) != NULL)
		return NULL;
	for (s = m; s > out && s[-1] != '\n'; s--)
		;
	for (; s < m && o + 1 < len; s++)
		if (*s != ' ')
			buf[o++] = *s >= '0' && *s <= '9' ? '9' : *s;
	buf[o] = '\0';
	return buf;
}

static void
read_out(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f != NULL) {
		n = fread(out, 1, sizeof(out) - 1, f);
		fclose(f);
	}
	out[n] = '\0';
}

static bool stream_kept;
static char first_err[200];

/* the lines, stderr still in the file */
static void
log_through_tap(void)
{
	FILE *stream = rte_log_get_stream();

	/* with colour, a line's reset code follows its newline, so each line but the first
	 * starts with the one before it's: the line compared is the second */
	rte_log(RTE_LOG_NOTICE, lt, "logtap-first\n");
	rte_log(RTE_LOG_NOTICE, lt, "logtap-before\n");
	uf_logtap_begin();
	rte_log(RTE_LOG_ERR, lt, "logtap-in-err\n");
	rte_log(RTE_LOG_NOTICE, lt, "logtap-in\n");
	uf_logtap_end(first_err, sizeof(first_err));
	rte_log(RTE_LOG_NOTICE, lt, "logtap-after\n");
	stream_kept = rte_log_get_stream() == stream;
	/* a second tap, begun and ended, keeps what the first kept */
	uf_logtap_begin();
	uf_logtap_end(first_err, sizeof(first_err));
	fflush(stderr);
}

static void
test_stderr(void)
{
	char before[128], in[128], after[128];
	const char *b, *i, *a;

	CHECK(stream_kept, "the tap left DPDK's log stream changed");
	CHECK(strstr(first_err, "logtap-in-err") != NULL, "first ERR line kept: \"%s\"", first_err);
	read_out("logtap.out");
	b = prefix_of("logtap-before", before, sizeof(before));
	i = prefix_of("logtap-in\n", in, sizeof(in));
	a = prefix_of("logtap-after", after, sizeof(after));
	CHECK(b != NULL && i != NULL && a != NULL && strstr(out, "logtap-in-err") != NULL,
	      "each line once, through the tap too:\n%s", out);
	if (b == NULL || i == NULL || a == NULL)
		return;
	CHECK(strcmp(b, i) == 0, "a line in the tap printed as \"%s\", before it \"%s\"", i, b);
	CHECK(strcmp(b, a) == 0, "a line after the tap printed as \"%s\", before it \"%s\"", a, b);
	if (UF_OPENLOG_RESETS_FORMAT)
		CHECK(strchr(b, '[') != NULL, "--log-timestamp gave no timestamp: \"%s\"", b);
}

static void
test_syslog(void)
{
	FILE *stream = rte_log_get_stream();

	uf_logtap_begin();
	if (UF_OPENLOG_RESETS_FORMAT)
		CHECK(rte_log_get_stream() == stream,
		      "the tap replaced DPDK's own stream (which closes it)");
	rte_log(RTE_LOG_NOTICE, lt, "logtap-in\n");
	uf_logtap_end(first_err, sizeof(first_err));
	CHECK(rte_log_get_stream() == stream, "the tap left DPDK's log stream changed");
	rte_log(RTE_LOG_NOTICE, lt, "logtap-after\n"); /* on a closed stream: a crash */
	CHECK(true, "logged after the tap");
}

int
main(int argc, char **argv)
{
	bool sys = argc > 1 && strcmp(argv[1], "syslog") == 0;
	char *eal[16] = { argv[0],
			  "-l",
			  "0",
			  "--no-pci",
			  "--no-huge",
			  "-m",
			  "64",
			  "--file-prefix",
			  "uf_logtap",
			  "--log-level",
			  "lib.eal:warning" };
	int n = 11, saved = -1;
	char dir[256];

	if (sys) {
		eal[n++] = "--syslog=daemon";
	} else if (UF_OPENLOG_RESETS_FORMAT) {
		eal[n++] = "--log-timestamp";
		eal[n++] = "--log-color=always";
	}
	uf_t_mkdtemp(dir, sizeof(dir));
	if (chdir(dir) != 0)
		return 1;
	if (!sys) {
		/* DPDK's stderr into a file, from before EAL chooses its format */
		FILE *f = fopen("logtap.out", "w");

		fflush(stderr);
		saved = dup(STDERR_FILENO);
		if (f == NULL || saved < 0 || dup2(fileno(f), STDERR_FILENO) < 0)
			return 1;
		fclose(f);
	}
	if (rte_eal_init(n, eal) < 0) {
		if (saved >= 0)
			dup2(saved, STDERR_FILENO);
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	lt = rte_log_register_type_and_pick_level("test.logtap", RTE_LOG_INFO);
	if (sys) {
		RUN(test_syslog);
	} else {
		log_through_tap();
		dup2(saved, STDERR_FILENO);
		RUN(test_stderr);
	}
	rte_eal_cleanup();
	uf_t_rmtree(dir);
	return uf_t_summary();
}
