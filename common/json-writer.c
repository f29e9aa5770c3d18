/* SPDX-License-Identifier: MIT */
/* JSON text on a stream or into a buffer (json-writer.h). */
#include <math.h>
#include <string.h>

#include "json-writer.h"
#include "utf8.h"

/* What the escaper does with each byte: 0 copy, 1 a backslash before
 * it, 2 \u00XX, 3 \u00XX with HT_JSON_HTML, 4 \u00XX with HT_JSON_DEL,
 * 5 the start of a multi-byte sequence (checked). */
static const unsigned char byte_class[256] = {
    /* 0x00 */ 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    /* 0x10 */ 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    /* 0x20 */ 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0x30 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 3, 0,
    /* 0x40 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0x50 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    /* 0x60 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0x70 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4,
    /* 0x80 */ 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
    /* 0x90 */ 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
    /* 0xa0 */ 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
    /* 0xb0 */ 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
    /* 0xc0 */ 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
    /* 0xd0 */ 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
    /* 0xe0 */ 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
    /* 0xf0 */ 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
};

size_t ht_json_escape(char *dst, const char *s, size_t n, unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	char *q = dst;
	size_t i = 0, len, bad;

	while (i < n) {
		unsigned char c = p[i];
		unsigned k = byte_class[c];

		if (!k) {
			/* the common case first: a load and a branch */
			*q++ = (char)c;
			i++;
			continue;
		}
		switch (k) {
		case 1:
			*q++ = '\\';
			*q++ = (char)c;
			i++;
			continue;
		case 3:
			if (!(flags & HT_JSON_HTML)) {
				*q++ = (char)c;
				i++;
				continue;
			}
			break;
		case 4:
			if (!(flags & HT_JSON_DEL)) {
				*q++ = (char)c;
				i++;
				continue;
			}
			break;
		case 5:
			/* UTF-8 stays; what is not UTF-8 becomes U+FFFD */
			len = ht_utf8_seq(p + i, n - i, &bad);
			if (len) {
				memcpy(q, p + i, len);
				q += len;
				i += len;
			} else {
				memcpy(q, HT_UTF8_REPLACEMENT,
				       HT_UTF8_REPLACEMENT_LEN);
				q += HT_UTF8_REPLACEMENT_LEN;
				i += bad;
			}
			continue;
		default:
			break;
		}
		*q++ = '\\';
		*q++ = 'u';
		*q++ = '0';
		*q++ = '0';
		*q++ = hex[c >> 4];
		*q++ = hex[c & 15];
		i++;
	}
	return (size_t)(q - dst);
}

/* Room for @n more bytes at the end of the buffer sink (the NUL that
 * ht_buf keeps after its data included); false when there is none. */
static bool room(struct ht_buf *b, size_t n)
{
	return (b->data && n < b->cap - b->len) || ht_buf_reserve(b, n);
}

/* ht_json_rawn() on a stream, or when the buffer must grow. */
void ht__json_rawn_slow(struct ht_json *j, const char *s, size_t n)
{
	if (j->f) {
		fwrite(s, 1, n, j->f);
	} else {
		ht_buf_add(j->b, s, n);
	}
}

void ht_json_printf(struct ht_json *j, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (j->f) {
		vfprintf(j->f, fmt, ap);
	} else {
		ht_buf_vprintf(j->b, fmt, ap);
	}
	va_end(ap);
}

void ht_json_strn(struct ht_json *j, const char *s, size_t n)
{
	struct ht_buf *b = j->b;
	char tmp[HT_JSON_ESCAPED_MAX(256)];
	size_t k;

	if (j->f) {
		/* a piece at a time through a buffer on the stack */
		fputc('"', j->f);
		for (; n; s += k, n -= k) {
			/* pieces end between UTF-8 sequences */
			k = n <= 256 ? n : ht_utf8_cut(s, 256);
			fwrite(tmp, 1, ht_json_escape(tmp, s, k, j->flags),
			       j->f);
		}
		fputc('"', j->f);
		return;
	}
	if (n > (SIZE_MAX - 2) / 6 || !room(b, HT_JSON_ESCAPED_MAX(n) + 2)) {
		b->nomem = true;
		return;
	}
	b->data[b->len++] = '"';
	b->len += ht_json_escape(b->data + b->len, s, n, j->flags);
	b->data[b->len++] = '"';
	b->data[b->len] = '\0';
}

void ht_json_str(struct ht_json *j, const char *s)
{
	ht_json_strn(j, s, strlen(s));
}

void ht_json_u64(struct ht_json *j, uint64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ht_json_rawn(j, p, (size_t)(tmp + sizeof(tmp) - p));
}

void ht_json_i64(struct ht_json *j, int64_t v)
{
	if (v < 0) {
		ht_json_rawn(j, "-", 1);
		ht_json_u64(j, 0 - (uint64_t)v);
	} else {
		ht_json_u64(j, (uint64_t)v);
	}
}

void ht_json_double(struct ht_json *j, double d)
{
	char tmp[40];

	if (!isfinite(d)) {
		ht_json_rawn(j, "null", 4);
		return;
	}
	ht_json_rawn(j, tmp, (size_t)snprintf(tmp, sizeof(tmp), "%.17g", d));
}

void ht_json_bool(struct ht_json *j, bool v)
{
	ht_json_raw(j, v ? "true" : "false");
}

static void open_container(struct ht_json *j, const char *c)
{
	ht_json_rawn(j, c, 1);
	j->depth++;
	if (j->depth < HT_JSON_MAX_DEPTH) {
		j->more &= ~((uint64_t)1 << j->depth);
	}
}

static void close_container(struct ht_json *j, const char *c)
{
	ht_json_rawn(j, c, 1);
	if (j->depth) {
		j->depth--;
	}
}

void ht_json_begin_object(struct ht_json *j)
{
	open_container(j, "{");
}

void ht_json_end_object(struct ht_json *j)
{
	close_container(j, "}");
}

void ht_json_begin_array(struct ht_json *j)
{
	open_container(j, "[");
}

void ht_json_end_array(struct ht_json *j)
{
	close_container(j, "]");
}

void ht_json_item(struct ht_json *j)
{
	uint64_t bit;

	if (j->depth >= HT_JSON_MAX_DEPTH) {
		return;
	}
	bit = (uint64_t)1 << j->depth;
	if (j->more & bit) {
		ht_json_rawn(j, ",", 1);
	}
	j->more |= bit;
}

void ht_json_key(struct ht_json *j, const char *key)
{
	ht_json_item(j);
	ht_json_str(j, key);
	ht_json_rawn(j, ":", 1);
}

void ht_json_member_str(struct ht_json *j, const char *key, const char *s)
{
	ht_json_key(j, key);
	ht_json_str(j, s);
}

void ht_json_member_u64(struct ht_json *j, const char *key, uint64_t v)
{
	ht_json_key(j, key);
	ht_json_u64(j, v);
}

void ht_json_member_i64(struct ht_json *j, const char *key, int64_t v)
{
	ht_json_key(j, key);
	ht_json_i64(j, v);
}

void ht_json_member_bool(struct ht_json *j, const char *key, bool v)
{
	ht_json_key(j, key);
	ht_json_bool(j, v);
}
