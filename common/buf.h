/* SPDX-License-Identifier: MIT */
#ifndef HT_COMMON_BUF_H
#define HT_COMMON_BUF_H

/*
 * Growable memory for the host side: one way to grow an array and one
 * byte buffer that doubles as a string builder. Neither knows what it
 * holds. Sizes are checked for overflow before they are multiplied; a
 * failed allocation leaves what was there untouched.
 *
 * Arrays stay plain C arrays (a pointer, a count and a capacity in the
 * caller's struct), so that hot loops index them directly:
 *
 *	if (ht_array_reserve((void **)&v->items, &v->cap, v->nr + 1,
 *			     sizeof(*v->items)))
 *		return HT_ENOMEM;
 *	v->items[v->nr++] = item;
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Makes room for @need elements of @elem_size bytes in the array *@items
 * of capacity *@cap: when *@cap < @need, the capacity grows to the larger
 * of @need and twice the old one (at least 16) and *@items and *@cap are
 * updated. Returns 0 or HT_ENOMEM (nothing changed: the size overflows or
 * realloc failed).
 */
int ht_array_reserve(void **items, size_t *cap, size_t need, size_t elem_size);

/*
 * Makes the array *@items of *@nr elements (capacity *@cap) at least
 * @need elements long, the new ones zeroed: for tables indexed by an
 * id that grow as ids are seen. Returns 0 or HT_ENOMEM (nothing
 * changed).
 */
int ht_array_extend(void **items, size_t *nr, size_t *cap, size_t need,
		    size_t elem_size);

/*
 * A byte buffer: @data holds @len bytes and room for @cap. Writes through
 * the ht_buf_* functions keep a NUL after the last byte (not counted in
 * @len), so @data is a C string when only text went in. A failed growth
 * sets @nomem and later writes do nothing: a writer appends everything,
 * then checks @nomem once. Zero-initialized is empty.
 */
struct ht_buf {
	char *data;
	size_t len;
	size_t cap;
	bool nomem;
};

/* Room for @n more bytes (and the NUL). Returns false (and sets nomem)
 * when it cannot be made. */
bool ht_buf_reserve(struct ht_buf *b, size_t n);

/* Appends @n bytes of @p. */
void ht_buf_add(struct ht_buf *b, const void *p, size_t n);

/* Appends the C string @s. */
void ht_buf_puts(struct ht_buf *b, const char *s);

/* Appends one byte. */
void ht_buf_putc(struct ht_buf *b, char c);

/* Appends printf-formatted text. */
void ht_buf_printf(struct ht_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ht_buf_vprintf(struct ht_buf *b, const char *fmt, va_list ap);

/* Empties the buffer, keeping its memory. */
void ht_buf_clear(struct ht_buf *b);

/* Frees the memory; the buffer is empty again. */
void ht_buf_fini(struct ht_buf *b);

/* Hands the data over to the caller (to free()); the buffer is empty
 * again. NULL when nomem is set or nothing was added. */
char *ht_buf_steal(struct ht_buf *b, size_t *len);

/*
 * A list of strings, each a malloc'ed copy owned by the list: @items
 * holds @nr of them (room for @cap). Zero-initialized is empty.
 */
struct ht_strv {
	char **items;
	size_t nr, cap;
};

/* Appends a copy of @s. Returns 0 or HT_ENOMEM (the list unchanged). */
int ht_strv_add(struct ht_strv *v, const char *s);

/* Sets *@index to the first item equal to @s; false when there is none. */
bool ht_strv_find(const struct ht_strv *v, const char *s, size_t *index);

/* Frees the copies and the list; the list is empty again. */
void ht_strv_fini(struct ht_strv *v);

#endif
