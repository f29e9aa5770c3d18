/* SPDX-License-Identifier: MIT */
#ifndef HT_COMMON_UTF8_H
#define HT_COMMON_UTF8_H

/*
 * UTF-8 as the outputs need it: text from a trace (string fields,
 * names from the metadata or the env) is bytes, and every format that
 * shows it (JSON, protobuf string fields) requires well-formed UTF-8.
 * Well-formed sequences pass as they are (4-byte ones included); each
 * ill-formed one is replaced by U+FFFD, one per maximal subpart, as the
 * WHATWG decoder and Python's errors="replace" do (Unicode 15, 3.9,
 * "U+FFFD Substitution of Maximal Subparts"): an overlong form, a
 * surrogate (ED A0..BF), a lone continuation byte, 0xC0, 0xC1, 0xF5..0xFF
 * and a sequence cut short each become one U+FFFD per subpart.
 *
 * Hand-written rather than a library's: it sits in the exporters' inner
 * loop (ASCII costs one compare per byte) and must replace exactly as the
 * decoders above do.
 */
#include <stdbool.h>
#include <stddef.h>

/* U+FFFD REPLACEMENT CHARACTER in UTF-8. */
#define HT_UTF8_REPLACEMENT "\xEF\xBF\xBD"
#define HT_UTF8_REPLACEMENT_LEN 3

/*
 * The sequence that starts at @s (@n >= 1 bytes there, s[0] >= 0x80):
 * its length (2..4) when it is well-formed; else 0, and *@bad is the
 * length of its maximal subpart (1..3 bytes, to replace by one U+FFFD).
 */
static inline size_t ht_utf8_seq(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c < 0xc2 || c > 0xf4) {
		*bad = 1;
		return 0;
	}
	if (c < 0xe0) {
		len = 2;
	} else if (c < 0xf0) {
		len = 3;
		lo = c == 0xe0 ? 0xa0 : lo; /* overlong */
		hi = c == 0xed ? 0x9f : hi; /* surrogates */
	} else {
		len = 4;
		lo = c == 0xf0 ? 0x90 : lo; /* overlong */
		hi = c == 0xf4 ? 0x8f : hi; /* above U+10FFFF */
	}
	for (i = 1; i < len; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return len;
}

/* The length of the longest well-formed prefix of @s (@n bytes). */
size_t ht_utf8_valid_len(const char *s, size_t n);

/* Whether @s (@n bytes) is well-formed UTF-8. */
static inline bool ht_utf8_valid(const char *s, size_t n)
{
	return ht_utf8_valid_len(s, n) == n;
}

/* The bytes ht_utf8_repair() writes for @s (@n bytes): at most 3 * @n. */
size_t ht_utf8_repaired_len(const char *s, size_t n);

/* Writes @s (@n bytes) to @dst with each ill-formed subpart replaced by
 * U+FFFD; @dst has room for ht_utf8_repaired_len() bytes. Returns the
 * bytes written. */
size_t ht_utf8_repair(char *dst, const char *s, size_t n);

/*
 * Where to cut @s (@n bytes) so that no well-formed sequence is split:
 * @n, or less by up to 3 bytes when the last bytes start a sequence
 * that goes on past @n (for text written a piece at a time).
 */
size_t ht_utf8_cut(const char *s, size_t n);

#endif
