/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the TSDL parser and plan compiler on any text
 * (tools/fuzz.sh lets inputs grow to 256 KiB: deep nesting and long
 * enums fit), then the clock math of every clock it accepts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-metadata-body.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text) {
		return 0;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	fuzz_metadata(text, size);
	free(text);
	return 0;
}
