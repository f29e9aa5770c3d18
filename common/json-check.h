/* SPDX-License-Identifier: MIT */
#ifndef HT_COMMON_JSON_CHECK_H
#define HT_COMMON_JSON_CHECK_H

/*
 * A JSON syntax check (RFC 8259), for JSON that comes from elsewhere
 * and is embedded as it is (the sync report in the HTML report). It
 * builds nothing: a text is one valid value or it is not. Strings must
 * be well-formed UTF-8 (RFC 8259, 8.1).
 */
#include <stddef.h>

/*
 * Checks that @text (@size bytes) is one JSON value, white space
 * around it allowed. On an error returns HT_ESYNTAX and writes
 * "LINE:COL: invalid JSON: what" into @err (@err_len bytes).
 */
int ht_json_check(const char *text, size_t size, char *err, size_t err_len);

#endif
