/* SPDX-License-Identifier: MIT */
/* Paths as strings (path.h). */
#include <stdlib.h>
#include <string.h>

#include "path.h"

char *ht_path_join(const char *dir, const char *name)
{
	size_t la = strlen(dir), lb = strlen(name);
	char *p;

	if (la && dir[la - 1] == '/') {
		la--;
	}
	p = malloc(la + lb + 2);
	if (p) {
		memcpy(p, dir, la);
		p[la] = '/';
		memcpy(p + la + 1, name, lb + 1);
	}
	return p;
}
