/* SPDX-License-Identifier: MIT */
/* UTF-8 checks and U+FFFD replacement (utf8.h). */
#include <string.h>

#include "utf8.h"

size_t ht_utf8_valid_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k, bad;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		k = ht_utf8_seq(p + i, n - i, &bad);
		if (!k) {
			break;
		}
		i += k;
	}
	return i;
}

size_t ht_utf8_repaired_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len = 0, k, bad;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			len++;
			continue;
		}
		k = ht_utf8_seq(p + i, n - i, &bad);
		if (k) {
			i += k;
			len += k;
		} else {
			i += bad;
			len += HT_UTF8_REPLACEMENT_LEN;
		}
	}
	return len;
}

size_t ht_utf8_repair(char *dst, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	char *q = dst;
	size_t i = 0, k, bad;

	while (i < n) {
		if (p[i] < 0x80) {
			*q++ = (char)p[i++];
			continue;
		}
		k = ht_utf8_seq(p + i, n - i, &bad);
		if (k) {
			memcpy(q, p + i, k);
			q += k;
			i += k;
		} else {
			memcpy(q, HT_UTF8_REPLACEMENT, HT_UTF8_REPLACEMENT_LEN);
			q += HT_UTF8_REPLACEMENT_LEN;
			i += bad;
		}
	}
	return (size_t)(q - dst);
}

size_t ht_utf8_cut(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, k, bad;

	/* a lead byte among the last 3, whose sequence is cut short by the
	 * end (rather than ill-formed inside it) */
	for (i = n; i-- > 0 && n - i <= 3;) {
		if (p[i] < 0x80) {
			break;
		}
		if (p[i] >= 0xc0) {
			k = ht_utf8_seq(p + i, n - i, &bad);
			return !k && i + bad == n ? i : n;
		}
	}
	return n;
}
