/* SPDX-License-Identifier: BSD-3-Clause
 * A main() for the fuzz harnesses without libFuzzer (any compiler): run
 * LLVMFuzzerTestOneInput once on every file named, or on every file in a directory named.
 * The seed corpora and the inputs of crashes found so far (tests/fuzz/corpus/) run this way
 * in the unit suite of every build, so a fixed crash stays fixed (docs/testing.md#fuzzing).
 * Prints "N passed, N failed" like the other unit tests; a crash aborts.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "replay: %s: cannot read\n", path);
		if (f != NULL)
			fclose(f);
		return -1;
	}
	/* exactly the file's length, so a read past the input is caught by ASan */
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "replay: %s: cannot read\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int
main(int argc, char **argv)
{
	int i, ok = 0, bad = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *e;
		DIR *d;

		if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			run_file(argv[i]) == 0 ? ok++ : bad++;
			continue;
		}
		d = opendir(argv[i]);
		if (d == NULL) {
			bad++;
			continue;
		}
		while ((e = readdir(d)) != NULL) {
			char p[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", argv[i], e->d_name);
			run_file(p) == 0 ? ok++ : bad++;
		}
		closedir(d);
	}
	if (ok == 0)
		bad++; /* an empty corpus tests nothing */
	printf("%d passed, %d failed\n", ok, bad);
	return bad == 0 ? 0 : 1;
}
