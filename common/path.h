/* SPDX-License-Identifier: MIT */
#ifndef HT_COMMON_PATH_H
#define HT_COMMON_PATH_H

/* File system paths as strings: nothing here touches the disk. */

/*
 * "@dir/@name", malloc'ed, with one '/' between them when @dir already
 * ends with one. NULL when out of memory.
 */
char *ht_path_join(const char *dir, const char *name);

#endif
