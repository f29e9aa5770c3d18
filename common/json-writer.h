/* SPDX-License-Identifier: MIT */
#ifndef HT_COMMON_JSON_WRITER_H
#define HT_COMMON_JSON_WRITER_H

/*
 * JSON text for the host side (sync report, paths --json, the Chrome
 * trace export, the HTML report's data): one string escaper (valid
 * UTF-8 out whatever the bytes in), numbers,
 * and the commas between the items of objects and arrays. It writes
 * to a stdio stream or appends to a byte buffer (buf.h); it knows
 * nothing of what the text means and does not check that the caller
 * opens and closes in order (json-check.h reads the result).
 *
 * Layout is the caller's: the structure helpers write no white space,
 * and raw text (ht_json_raw) goes in between as it is.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"

/* Escaping options (ht_json.flags): '"', '\\' and control characters
 * are always escaped; these add to them. */
enum {
	/* '<', '>' and '&' as \u00XX: the text can stand inside an HTML
	 * <script> element */
	HT_JSON_HTML = 1u << 0,
	/* DEL (0x7f) as \u007f */
	HT_JSON_DEL = 1u << 1,
};

/* Bytes ht_json_escape() may write for @n bytes of input. */
#define HT_JSON_ESCAPED_MAX(n) ((n)*6)

/*
 * Writes @n bytes of @s, escaped for a JSON string (no quotes), to
 * @dst, which has room for HT_JSON_ESCAPED_MAX(@n) bytes. Well-formed
 * UTF-8 passes through as it is; each ill-formed sequence becomes
 * U+FFFD (common/utf8.h), so the text is valid JSON whatever the bytes.
 * Returns the bytes written.
 */
size_t ht_json_escape(char *dst, const char *s, size_t n, unsigned flags);

/* Commas are tracked to this depth; deeper, ht_json_item() and
 * ht_json_key() write none. */
#define HT_JSON_MAX_DEPTH 64

/*
 * A writer: set @f (a stream) or @b (a buffer, appended to) and
 * @flags; the rest zero. Errors are the sink's: ferror(@f), @b->nomem.
 */
struct ht_json {
	FILE *f;
	struct ht_buf *b;
	unsigned flags;
	unsigned depth;
	uint64_t more; /* bit d: the container at depth d has an item */
};

void ht__json_rawn_slow(struct ht_json *j, const char *s, size_t n);

/* Text as it is (layout, or JSON made elsewhere). Inline: exporters
 * write short literals per record, and their lengths fold. */
static inline void ht_json_rawn(struct ht_json *j, const char *s, size_t n)
{
	struct ht_buf *b = j->b;

	if (!j->f && b->data && n < b->cap - b->len) {
		memcpy(b->data + b->len, s, n);
		b->len += n;
		b->data[b->len] = '\0';
		return;
	}
	ht__json_rawn_slow(j, s, n);
}

static inline void ht_json_raw(struct ht_json *j, const char *s)
{
	ht_json_rawn(j, s, strlen(s));
}
void ht_json_printf(struct ht_json *j, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A string, quotes included: the C string @s, or @n bytes of @s. */
void ht_json_str(struct ht_json *j, const char *s);
void ht_json_strn(struct ht_json *j, const char *s, size_t n);

/* Numbers in decimal; a double as "%.17g" (it reads back exactly),
 * null when it is not finite (JSON has no NaN or infinity). */
void ht_json_u64(struct ht_json *j, uint64_t v);
void ht_json_i64(struct ht_json *j, int64_t v);
void ht_json_double(struct ht_json *j, double d);
void ht_json_bool(struct ht_json *j, bool v);

/* '{' or '[' (after its key or ht_json_item() in the outer one), and
 * the matching close. */
void ht_json_begin_object(struct ht_json *j);
void ht_json_end_object(struct ht_json *j);
void ht_json_begin_array(struct ht_json *j);
void ht_json_end_array(struct ht_json *j);

/* Before each value of an array: ',' unless it is the first. */
void ht_json_item(struct ht_json *j);

/* Before each member of an object: ',' unless it is the first, then
 * the key (escaped) and ':'. */
void ht_json_key(struct ht_json *j, const char *key);

/* A member: ht_json_key() and its value. */
void ht_json_member_str(struct ht_json *j, const char *key, const char *s);
void ht_json_member_u64(struct ht_json *j, const char *key, uint64_t v);
void ht_json_member_i64(struct ht_json *j, const char *key, int64_t v);
void ht_json_member_bool(struct ht_json *j, const char *key, bool v);

#endif
