/* SPDX-License-Identifier: MIT */
#ifndef HT_GEN_EMBEDDED_H
#define HT_GEN_EMBEDDED_H

#include <stddef.h>

/*
 * Files built into the hetrace binary (tools/embed.sh): the runtime
 * headers, named "hetrace/<file>.h", and the standard configuration
 * includes, named "include/3/<file>.yaml".
 */
struct ht_embedded_file {
	const char *name;
	const unsigned char *data; /* NUL-terminated */
	size_t size;
};

/* Terminated by an entry whose name is NULL. */
extern const struct ht_embedded_file ht_embedded_files[];

/* The embedded file of that name, or NULL. */
const struct ht_embedded_file *ht_embedded_find(const char *name);

#endif
