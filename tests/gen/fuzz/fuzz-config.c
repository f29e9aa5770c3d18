/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: gen's configuration loader on any text, from the
 * YAML up to the checked model (includes, aliases, inheritance, every
 * check, the C names), then the TSDL and C emitters on what it accepts.
 * No file is read or written: `$include` finds hetrace's standard
 * includes only, and the emitters write to /dev/null.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen/config/config-load.h"
#include "gen/emit/emit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null_out;
	struct ht_config *cfg = NULL;
	struct ht_diags diags;

	if (!null_out) {
		null_out = fopen("/dev/null", "w");
	}
	if (ht_config_load_text("fuzz.yaml", data, size, &cfg, &diags) == 0 &&
	    null_out) {
		ht_emit_tsdl(cfg, null_out);
		ht_emit_c_header(cfg, null_out, false);
		ht_emit_c_header(cfg, null_out, true);
		ht_emit_c_source(cfg, null_out);
		fflush(null_out);
	}
	ht_diags_fini(&diags);
	ht_config_destroy(cfg);
	return 0;
}
