/* SPDX-License-Identifier: BSD-3-Clause
 * Fuzz the configuration loader: YAML bytes into uf_config_parse, the in-memory path that
 * uf_config_load reads a file into (docs/testing.md#fuzzing). Every input either parses
 * into a config (then the lcore list is evaluated and it is freed) or fails with one
 * non-empty message; ASan's leak check at exit catches what a failure path forgets to free.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uf_common.h"
#include "uf_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uf_err err;
	struct uf_config *cfg;
	char *text = malloc(size > 0 ? size : 1);

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	memset(&err, 0, sizeof(err));
	cfg = uf_config_parse(text, size, "fuzz.yaml", &err);
	if (cfg == NULL) {
		if (err.msg[0] == '\0' || err.code == 0)
			abort(); /* refused without saying why */
	} else {
		(void)uf_config_worker_count(cfg);
		uf_config_free(cfg);
	}
	free(text);
	return 0;
}
