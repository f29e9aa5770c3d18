/* SPDX-License-Identifier: MIT */
/*
 * The string writers of the text formatter (pretty-field.c) against a
 * byte-by-byte model of babeltrace2's escapes: strings of every length
 * up to 70 (the 8-byte blocks of ht__pretty_out_escaped(), whole and
 * cut), with each byte value at each position among plain bytes, and
 * random mixes; text arrays (ht__pretty_out_text()) up to their NUL.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "host/ctf/pretty-internal.h"
#include "tests/check.h"

#define MAX_LEN 70

/* babeltrace2's escape of byte @c at @o (see pretty-field.c); returns
 * the new end. */
static char *model_byte(char *o, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	const char *e = NULL;

	switch (c) {
	case 0x07:
		e = "\\a";
		break;
	case 0x08:
		e = "\\b";
		break;
	case 0x09:
		e = "\\t";
		break;
	case 0x0a:
		e = "\\n";
		break;
	case 0x0b:
		e = "\\v";
		break;
	case 0x0c:
		e = "\\f";
		break;
	case 0x0d:
		e = "\\r";
		break;
	case 0x1b:
		e = "\\e";
		break;
	case '"':
		e = "\\\"";
		break;
	case '\'':
		e = "\\'";
		break;
	case '?':
		e = "\\?";
		break;
	case '\\':
		e = "\\\\";
		break;
	default:
		break;
	}
	if (e) {
		memcpy(o, e, 2);
		return o + 2;
	}
	if (c < 0x20 || c == 0x7f) {
		*o++ = '\\';
		*o++ = 'x';
		*o++ = hex[c >> 4];
		*o++ = hex[c & 0xf];
		return o;
	}
	*o++ = (char)c;
	return o;
}

static size_t model(char *out, const unsigned char *s, size_t n)
{
	char *o = out;
	size_t i;

	*o++ = '"';
	for (i = 0; i < n; i++) {
		o = model_byte(o, s[i]);
	}
	*o++ = '"';
	return (size_t)(o - out);
}

/* @s (@n bytes) through ht__pretty_out_escaped() and, up to its first
 * NUL, through ht__pretty_out_text(). */
static void check_string(const unsigned char *s, size_t n)
{
	static struct ht_ctf_type u8 = {
	    .kind = HT_CTF_INT, .size_bits = 8, .encoding = HT_CTF_ENC_UTF8};
	struct ht_ctf_field f[1 + MAX_LEN];
	char want[4 * MAX_LEN + 16], got[4 * MAX_LEN + 16];
	size_t wn, gn, i, text_n;

	wn = model(want, s, n);
	gn = (size_t)(ht__pretty_out_escaped(got, (const char *)s, n) - got);
	CHECK_MSG(wn == gn && !memcmp(want, got, wn),
		  "length %zu: want %.*s, got %.*s", n, (int)wn, want, (int)gn,
		  got);

	memset(f, 0, sizeof(f));
	f[0].nr_children = (uint32_t)n;
	for (i = 0; i < n; i++) {
		f[1 + i].type = &u8;
		f[1 + i].next = 1;
		f[1 + i].v.u = s[i];
	}
	for (text_n = 0; text_n < n && s[text_n]; text_n++) {
	}
	wn = model(want, s, text_n);
	gn = (size_t)(ht__pretty_out_text(got, f) - got);
	CHECK_MSG(wn == gn && !memcmp(want, got, wn),
		  "text of length %zu: want %.*s, got %.*s", n, (int)wn, want,
		  (int)gn, got);
}

int main(void)
{
	/* a buffer ending at a string's end: reads past it would show
	 * under ASan */
	static unsigned char buf[MAX_LEN];
	uint64_t seed = 88172645463325252ull;
	size_t n, at, i;
	int c, k;

	ht__pretty_init_escapes();
	for (n = 0; n <= MAX_LEN; n++) {
		unsigned char *s = buf + MAX_LEN - n;

		for (at = 0; at < n; at++) {
			for (c = 0; c < 256; c++) {
				memset(s, 'a', n);
				s[at] = (unsigned char)c;
				check_string(s, n);
			}
		}
	}
	for (k = 0; k < 200000; k++) {
		unsigned char *s;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		n = seed % (MAX_LEN + 1);
		s = buf + MAX_LEN - n;
		for (i = 0; i < n; i++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			/* mostly plain bytes, some of every other kind */
			s[i] = seed % 4 ? (unsigned char)(' ' + seed / 4 % 95)
					: (unsigned char)(seed / 4);
		}
		check_string(s, n);
	}
	return check_summary("t-pretty-escape");
}
