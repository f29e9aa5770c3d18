/* SPDX-License-Identifier: MIT */
/* Growable arrays and byte buffers (buf.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"

int ht_array_reserve(void **items, size_t *cap, size_t need, size_t elem_size)
{
	size_t ncap;
	void *p;

	if (need <= *cap) {
		return 0;
	}
	ncap = *cap > SIZE_MAX / 2 ? need : 2 * *cap;
	if (ncap < need) {
		ncap = need;
	}
	if (ncap < 16) {
		ncap = 16;
	}
	if (elem_size && ncap > SIZE_MAX / elem_size) {
		return HT_ENOMEM;
	}
	p = realloc(*items, ncap * elem_size);
	if (!p) {
		return HT_ENOMEM;
	}
	*items = p;
	*cap = ncap;
	return 0;
}

int ht_array_extend(void **items, size_t *nr, size_t *cap, size_t need,
		    size_t elem_size)
{
	if (need <= *nr) {
		return 0;
	}
	if (ht_array_reserve(items, cap, need, elem_size)) {
		return HT_ENOMEM;
	}
	memset((char *)*items + *nr * elem_size, 0, (need - *nr) * elem_size);
	*nr = need;
	return 0;
}

bool ht_buf_reserve(struct ht_buf *b, size_t n)
{
	if (b->nomem) {
		return false;
	}
	/* + 1: the NUL kept after the data */
	if (n > SIZE_MAX - b->len - 1 ||
	    ht_array_reserve((void **)&b->data, &b->cap, b->len + n + 1, 1)) {
		b->nomem = true;
		return false;
	}
	return true;
}

void ht_buf_add(struct ht_buf *b, const void *p, size_t n)
{
	if (!ht_buf_reserve(b, n)) {
		return;
	}
	if (n) {
		memcpy(b->data + b->len, p, n);
	}
	b->len += n;
	b->data[b->len] = '\0';
}

void ht_buf_puts(struct ht_buf *b, const char *s)
{
	ht_buf_add(b, s, strlen(s));
}

void ht_buf_putc(struct ht_buf *b, char c)
{
	ht_buf_add(b, &c, 1);
}

void ht_buf_vprintf(struct ht_buf *b, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	if (b->nomem) {
		return;
	}
	va_copy(again, ap);
	n = vsnprintf(b->data ? b->data + b->len : NULL,
		      b->data ? b->cap - b->len : 0, fmt, ap);
	if (n < 0) {
		b->nomem = true;
	} else if (b->data && (size_t)n < b->cap - b->len) {
		b->len += (size_t)n;
	} else if (ht_buf_reserve(b, (size_t)n)) {
		vsnprintf(b->data + b->len, b->cap - b->len, fmt, again);
		b->len += (size_t)n;
	}
	va_end(again);
}

void ht_buf_printf(struct ht_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ht_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void ht_buf_clear(struct ht_buf *b)
{
	b->len = 0;
	b->nomem = false;
	if (b->data) {
		b->data[0] = '\0';
	}
}

void ht_buf_fini(struct ht_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->nomem = false;
}

char *ht_buf_steal(struct ht_buf *b, size_t *len)
{
	char *p = b->nomem ? NULL : b->data;

	if (len) {
		*len = p ? b->len : 0;
	}
	if (!p) {
		free(b->data);
	}
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->nomem = false;
	return p;
}

int ht_strv_add(struct ht_strv *v, const char *s)
{
	char *copy;

	if (ht_array_reserve((void **)&v->items, &v->cap, v->nr + 1,
			     sizeof(*v->items))) {
		return HT_ENOMEM;
	}
	copy = strdup(s);
	if (!copy) {
		return HT_ENOMEM;
	}
	v->items[v->nr++] = copy;
	return 0;
}

bool ht_strv_find(const struct ht_strv *v, const char *s, size_t *index)
{
	size_t i;

	for (i = 0; i < v->nr; i++) {
		if (!strcmp(v->items[i], s)) {
			*index = i;
			return true;
		}
	}
	return false;
}

void ht_strv_fini(struct ht_strv *v)
{
	size_t i;

	for (i = 0; i < v->nr; i++) {
		free(v->items[i]);
	}
	free(v->items);
	v->items = NULL;
	v->nr = v->cap = 0;
}
