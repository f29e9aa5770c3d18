/* SPDX-License-Identifier: MIT */
#ifndef HT_COMMON_FILE_H
#define HT_COMMON_FILE_H

/* Whole files read into memory, for inputs of bounded size. */
#include <stddef.h>

/*
 * Reads all of @path (at most @max_bytes, a whole number of MiB) into a
 * malloc'ed *@text of *@size bytes, followed by a NUL. Returns 0, or
 * HT_ENOENT / HT_EIO (cannot open, read error), HT_ERANGE (larger than
 * @max_bytes), HT_ENOMEM, with "PATH: what" in @err (but for HT_ENOMEM);
 * *@text is NULL then.
 */
int ht_file_read(const char *path, size_t max_bytes, char **text, size_t *size,
		 char *err, size_t err_len);

#endif
