/* SPDX-License-Identifier: MIT */
#ifndef HT_COMMON_BASE64_H
#define HT_COMMON_BASE64_H

/* Base64 (RFC 4648, with '=' padding) on a stdio stream, for binary
 * data embedded in text (the HTML report's timelines). */
#include <stddef.h>
#include <stdio.h>

/* Writes the @n bytes at @p in base64 to @out. */
void ht_base64_write(FILE *out, const void *p, size_t n);

#endif
