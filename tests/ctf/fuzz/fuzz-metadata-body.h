/* SPDX-License-Identifier: MIT */
/*
 * The body the metadata fuzz targets share: load TEXT (LEN bytes and a
 * NUL after them, owned by the caller) as a trace's metadata, then run
 * the clock math of every clock it accepts on edge values.
 */
#ifndef FUZZ_METADATA_BODY_H
#define FUZZ_METADATA_BODY_H

#include <stdint.h>
#include <stdlib.h>

#include "host/ctf/ctf-model.h"

static void fuzz_metadata(const char *text, size_t len)
{
	static const uint64_t cycles[] = {0, 1, 999999999, INT64_MAX,
					  UINT64_MAX};
	struct ht__trace *t = calloc(1, sizeof(*t));
	char err[512];
	size_t c, k;
	int64_t ns;

	if (!t) {
		return;
	}
	t->metadata_path = NULL;
	if (!ht__trace_load(t, "fuzz", text, len, NULL, err, sizeof(err))) {
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
}

#endif
