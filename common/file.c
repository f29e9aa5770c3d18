/* SPDX-License-Identifier: MIT */
/* Whole files read into memory (file.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "file.h"

int ht_file_read(const char *path, size_t max_bytes, char **text, size_t *size,
		 char *err, size_t err_len)
{
	FILE *f = fopen(path, "rb");
	size_t n;
	int ret;

	*text = NULL;
	if (!f) {
		ret = errno == ENOENT ? HT_ENOENT : HT_EIO;
		return ht_err_printf(err, err_len, ret, "%s: cannot open: %s",
				     path, strerror(errno));
	}
	/* one byte more than allowed tells a file that is too large */
	*text = malloc(max_bytes + 1);
	if (!*text) {
		fclose(f);
		return HT_ENOMEM;
	}
	n = fread(*text, 1, max_bytes + 1, f);
	if (ferror(f)) {
		ret =
		    ht_err_printf(err, err_len, HT_EIO, "%s: read error", path);
	} else if (n > max_bytes) {
		ret = ht_err_printf(err, err_len, HT_ERANGE,
				    "%s: larger than %zu MiB", path,
				    max_bytes >> 20);
	} else {
		(*text)[n] = '\0';
		*size = n;
		ret = 0;
	}
	fclose(f);
	if (ret) {
		free(*text);
		*text = NULL;
	}
	return ret;
}
