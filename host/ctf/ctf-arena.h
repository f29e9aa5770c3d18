/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CTF_ARENA_H
#define HT_HOST_CTF_ARENA_H

/*
 * The arena that owns every metadata object of one trace (types, names,
 * classes, decode plans): objects are allocated one after the other in
 * chunks and freed all at once with the trace. It knows nothing of what
 * it holds.
 */
#include <stddef.h>

struct ht__arena_chunk;
struct ht__arena {
	struct ht__arena_chunk *head;
};

void *ht__arena_alloc(struct ht__arena *a, size_t size);
char *ht__arena_strdup(struct ht__arena *a, const char *s);
char *ht__arena_strndup(struct ht__arena *a, const char *s, size_t n);
void ht__arena_fini(struct ht__arena *a);

#endif
