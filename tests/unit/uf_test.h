/* SPDX-License-Identifier: BSD-3-Clause
 * The unit tests' harness: checks that record file:line and a message, a summary that prints
 * "N passed, N failed" as its last line, and temp-dir helpers for fake sysfs/firmware trees.
 *
 * A failed check does not stop the test: every check runs and every failure is listed.
 */
#ifndef UF_TEST_H
#define UF_TEST_H

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <arpa/inet.h>

static int uf_t_passed;
static int uf_t_failed;
static const char *uf_t_case = "";

static inline void __attribute__((format(printf, 4, 5)))
uf_t_check(bool ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		uf_t_passed++;
		return;
	}
	uf_t_failed++;
	fprintf(stderr, "FAIL %s:%d: [%s] ", file, line, uf_t_case);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* CHECK(cond, "what was expected %d", x) */
/* an IPv4 address in network order, from its text (a test's own literal: abort if bad) */
static inline uint32_t
ip_of(const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		abort();
	return a.s_addr;
}

#ifdef UF_COMMON_H
/* an IPv6 address from its text (a test's own literal: abort if bad) */
static inline struct uf_ip6
ip6_of(const char *s)
{
	struct uf_ip6 a;

	if (inet_pton(AF_INET6, s, a.b) != 1)
		abort();
	return a;
}
#endif

#define CHECK(cond, ...) uf_t_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* CHECK_EQ(got, want): integers (signed or unsigned, up to 64 bits) */
#define CHECK_EQ(got, want)                                                           \
	do {                                                                          \
		const int64_t g_ = (int64_t)(got);                                    \
		const int64_t w_ = (int64_t)(want);                                   \
		uf_t_check(g_ == w_, __FILE__, __LINE__,                              \
			   "%s == %s: got %" PRId64 " (0x%" PRIx64 "), want %" PRId64 \
			   " (0x%" PRIx64 ")",                                        \
			   #got, #want, g_, (uint64_t)g_, w_, (uint64_t)w_);          \
	} while (0)

/* CHECK_STR(got, want): C strings, NULL-safe */
#define CHECK_STR(got, want)                                                                    \
	do {                                                                                    \
		const char *g_ = (got), *w_ = (want);                                           \
		uf_t_check(g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0, __FILE__, __LINE__, \
			   "%s == \"%s\": got \"%s\"", #got, w_ ? w_ : "(null)",                \
			   g_ ? g_ : "(null)");                                                 \
	} while (0)

/* CHECK_HAS(haystack, needle): substring */
#define CHECK_HAS(hay, needle)                                                                    \
	do {                                                                                      \
		const char *h_ = (hay), *n_ = (needle);                                           \
		uf_t_check(h_ != NULL && strstr(h_, n_) != NULL, __FILE__, __LINE__,              \
			   "%s should contain \"%s\": got \"%s\"", #hay, n_, h_ ? h_ : "(null)"); \
	} while (0)

/* CHECK_MEM(got, want, len): bytes; the first difference is reported */
#define CHECK_MEM(got, want, len)                                                             \
	do {                                                                                  \
		const uint8_t *g_ = (const uint8_t *)(got), *w_ = (const uint8_t *)(want);    \
		size_t i_, n_ = (len);                                                        \
		for (i_ = 0; i_ < n_ && g_[i_] == w_[i_]; i_++)                               \
			;                                                                     \
		uf_t_check(i_ == n_, __FILE__, __LINE__,                                      \
			   "%s == %s (%zu bytes): first difference at byte %zu: got 0x%02x, " \
			   "want 0x%02x",                                                     \
			   #got, #want, n_, i_, i_ < n_ ? g_[i_] : 0, i_ < n_ ? w_[i_] : 0);  \
	} while (0)

/* RUN(fn): run one test case; failures name it */
#define RUN(fn)                                                                       \
	do {                                                                          \
		int f_ = uf_t_failed;                                                 \
		uf_t_case = #fn;                                                      \
		fn();                                                                 \
		fprintf(stderr, "%s %s\n", uf_t_failed == f_ ? "ok  " : "FAIL", #fn); \
	} while (0)

/* The last line of every test program; its return value is the exit status. */
static inline int
uf_t_summary(void)
{
	fflush(stderr);
	printf("%d passed, %d failed\n", uf_t_passed, uf_t_failed);
	fflush(stdout);
	return uf_t_failed == 0 ? 0 : 1;
}

/* ---- temp trees ---- */

/* A fresh directory under $TMPDIR (or /tmp); exits the test on failure (nothing to test). */
static inline char *
uf_t_mkdtemp(char *buf, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, len, "%s/uf_unit_XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	if (mkdtemp(buf) == NULL) {
		fprintf(stderr, "mkdtemp %s: %s\n", buf, strerror(errno));
		exit(2);
	}
	return buf;
}

static inline int
uf_t_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void
uf_t_rmtree(const char *dir)
{
	nftw(dir, uf_t_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* mkdir -p for the directory part of root/rel (rel's last component excluded) */
static inline void
uf_t_mkdirs(const char *root, const char *rel, bool last_too)
{
	char path[1024];
	size_t base = strlen(root) + 1;
	char *c;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (c = path + base; *c != '\0'; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		mkdir(path, 0755);
		*c = '/';
	}
	if (last_too)
		mkdir(path, 0755);
}

/* Write root/rel (directories created) with the given text; exits the test on failure. */
static inline void
uf_t_write(const char *root, const char *rel, const char *text)
{
	char path[1024];
	FILE *f;

	uf_t_mkdirs(root, rel, false);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "write %s: %s\n", path, strerror(errno));
		exit(2);
	}
}

/* Make root/rel a symlink to target (directories created). */
static inline void
uf_t_symlink(const char *root, const char *rel, const char *target)
{
	char path[1024];

	uf_t_mkdirs(root, rel, false);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (symlink(target, path) != 0) {
		fprintf(stderr, "symlink %s: %s\n", path, strerror(errno));
		exit(2);
	}
}

/* ---- packet checks from scratch (RFC 1071), independent of the code under test ---- */

/* big-endian 16-bit read */
static inline uint16_t
uf_t_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* acc + the big-endian 16-bit words of b; an odd last byte is the high half of a word */
static inline uint32_t
uf_t_sum16(uint32_t acc, const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		acc += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (n & 1)
		acc += (uint32_t)b[n - 1] << 8;
	return acc;
}

/* ones-complement fold to 16 bits */
static inline uint16_t
uf_t_fold(uint64_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

#endif /* UF_TEST_H */
