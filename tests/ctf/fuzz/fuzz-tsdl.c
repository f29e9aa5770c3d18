/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the TSDL parser and plan compiler on any text
 * (tools/fuzz.sh lets inputs grow to 256 KiB: deep nesting and long
 * enums fit), then the clock math of every clock it accepts.
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
	char *text = malloc(size + 1);

	if (!t || !text) {
		free(t);
		free(text);
		return 0;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	t->metadata_path = NULL;
	if (!ht__trace_load(t, "fuzz", text, size, NULL, err, sizeof(err))) {
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
