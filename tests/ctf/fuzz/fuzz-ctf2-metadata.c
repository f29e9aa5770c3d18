/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the CTF 2 metadata reader (JSON text sequence,
 * fragments, field classes, aliases, field locations) and the plan
 * compiler on any bytes, then the clock math of every clock it
 * accepts. Inputs that do not start with 0x1e get one in front, so the
 * fuzzer spends its time in the CTF 2 reader, not in format detection.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/ctf/ctf-model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ht__trace *t = calloc(1, sizeof(*t));
	char err[512];
	char *text = malloc(size + 2);
	size_t len = 0;

	if (!t || !text) {
		free(t);
		free(text);
		return 0;
	}
	if (!size || data[0] != 0x1e) {
		text[len++] = 0x1e;
	}
	memcpy(text + len, data, size);
	len += size;
	text[len] = '\0';
	if (!ht__trace_load(t, "fuzz", text, len, NULL, err, sizeof(err))) {
		static const uint64_t cycles[] = {0, 1, 999999999, INT64_MAX,
						  UINT64_MAX};
		size_t c, k;
		int64_t ns;

		for (c = 0; c < t->pub.nr_clocks; c++) {
			for (k = 0; k < sizeof(cycles) / sizeof(cycles[0]);
			     k++) {
				ht_ctf_clock_cycles_to_ns(t->pub.clocks[c],
							  cycles[k], &ns);
			}
		}
	}
	ht__arena_fini(&t->arena);
	free(t);
	free(text);
	return 0;
}
