/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the TSDL parser and plan compiler on any text. */
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
	ht__trace_load(t, "fuzz", text, size, NULL, err, sizeof(err));
	ht__arena_fini(&t->arena);
	free(t);
	free(text);
	return 0;
}
