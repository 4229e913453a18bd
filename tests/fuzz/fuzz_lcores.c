/* SPDX-License-Identifier: BSD-3-Clause
 * Fuzz the lcore-list parser (eal.lcores: "0-2,4", "0@0,1@2"; docs/configuration.md).
 * Byte 0 is the capacity given to the parser (0..63); the rest is the string, cut at its
 * first NUL. Checked: never more ids than the capacity, every id below RTE_MAX_LCORE, no id
 * twice, and a non-empty string never gives an empty list.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uf_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint16_t *ids;
	char *s;
	int max, n, i, j;

	if (size < 1)
		return 0;
	max = data[0] & 63;
	s = malloc(size);
	ids = malloc(sizeof(*ids) * (max > 0 ? (size_t)max : 1));
	if (s == NULL || ids == NULL)
		goto out;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	n = uf_parse_lcore_list(s, ids, max);
	if (n < -1 || n > max)
		abort();
	for (i = 0; i < n; i++) {
		if (ids[i] >= RTE_MAX_LCORE)
			abort();
		for (j = 0; j < i; j++)
			if (ids[j] == ids[i])
				abort();
	}
	if (n == 0 && s[0] != '\0')
		abort(); /* a non-empty list that names no lcore */
out:
	free(s);
	free(ids);
	return 0;
}
