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

#include "fuzz-metadata-body.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 2);
	size_t len = 0;

	if (!text) {
		return 0;
	}
	if (!size || data[0] != 0x1e) {
		text[len++] = 0x1e;
	}
	memcpy(text + len, data, size);
	len += size;
	text[len] = '\0';
	fuzz_metadata(text, len);
	free(text);
	return 0;
}
