/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_JSON_OUT_H
#define HT_HOST_JSON_OUT_H

/*
 * JSON text on a stdio stream, for the host library's JSON files (sync
 * report, paths --json, the HTML report's data). Internal to host/.
 */
#include <stdio.h>

/* Writes s (NUL-terminated) as a JSON string, quotes included: '"' and
 * '\\' escaped, control characters as \u00XX. */
void ht__json_str(FILE *out, const char *s);

/* Like ht__json_str(), also with '<', '>' and '&' as \u00XX so that the
 * string can stand inside an HTML <script> element. */
void ht__json_str_html(FILE *out, const char *s);

#endif
