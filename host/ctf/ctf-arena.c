/* SPDX-License-Identifier: MIT */
/* A bump allocator: a trace's metadata objects are freed all at once. */
#include <stdlib.h>
#include <string.h>

#include "ctf-arena.h"

struct ht__arena_chunk {
	struct ht__arena_chunk *next;
	size_t used, size;
	max_align_t data[];
};

#define CHUNK_SIZE (64 * 1024)

void *ht__arena_alloc(struct ht__arena *a, size_t size)
{
	struct ht__arena_chunk *c = a->head;
	size_t al = sizeof(max_align_t);
	void *p;

	size = (size + al - 1) / al * al;
	if (!size) {
		size = al;
	}
	if (!c || c->size - c->used < size) {
		size_t cs = size > CHUNK_SIZE ? size : CHUNK_SIZE;

		c = malloc(sizeof(*c) + cs);
		if (!c) {
			return NULL;
		}
		c->size = cs;
		c->used = 0;
		if (a->head && size > CHUNK_SIZE) {
			/* a big block: keep filling the current chunk */
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	p = (char *)c->data + c->used;
	c->used += size;
	memset(p, 0, size);
	return p;
}

char *ht__arena_strndup(struct ht__arena *a, const char *s, size_t n)
{
	char *d = ht__arena_alloc(a, n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

char *ht__arena_strdup(struct ht__arena *a, const char *s)
{
	return ht__arena_strndup(a, s, strlen(s));
}

void ht__arena_fini(struct ht__arena *a)
{
	struct ht__arena_chunk *c = a->head, *n;

	while (c) {
		n = c->next;
		free(c);
		c = n;
	}
	a->head = NULL;
}
