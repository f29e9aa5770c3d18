/* SPDX-License-Identifier: MIT */
#ifndef HT_COMMON_PATH_H
#define HT_COMMON_PATH_H

/* File system paths: joining them, and creating directories. */

/*
 * "@dir/@name", malloc'ed, with one '/' between them when @dir already
 * ends with one. NULL when out of memory.
 */
char *ht_path_join(const char *dir, const char *name);

/*
 * Creates the directory @path and the missing directories above it
 * (mode 0777 before the umask); existing ones are fine. Returns 0,
 * HT_ENOMEM, or HT_EIO with errno saying why (an empty @path: ENOENT).
 */
int ht_path_mkdirs(const char *path);

#endif
