/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "embedded.h"

const struct ht_embedded_file *ht_embedded_find(const char *name)
{
	const struct ht_embedded_file *f;

	for (f = ht_embedded_files; f->name; f++) {
		if (!strcmp(f->name, name)) {
			return f;
		}
	}
	return NULL;
}
