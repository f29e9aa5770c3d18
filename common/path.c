/* SPDX-License-Identifier: MIT */
/* Paths: joining, creating directories (path.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
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

int ht_path_mkdirs(const char *path)
{
	char *s = strdup(path), *p;
	int ret = 0, saved;

	if (!s) {
		return HT_ENOMEM;
	}
	/* Each prefix that ends before a '/', then the whole path; the
	 * search starts after the first byte so that "/x" does not try to
	 * create "" (and "" itself is tried once, failing with ENOENT). */
	for (p = *s ? s + 1 : s;; p++) {
		if (*p == '/' || !*p) {
			char c = *p;

			*p = '\0';
			if (mkdir(s, 0777) && errno != EEXIST) {
				ret = HT_EIO;
				break;
			}
			*p = c;
			if (!c) {
				break;
			}
		}
	}
	saved = errno;
	free(s);
	errno = saved; /* the caller says why mkdir failed */
	return ret;
}
