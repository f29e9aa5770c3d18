/* SPDX-License-Identifier: MIT */
/* The JSON syntax check (json-check.h): a recursive descent over the
 * text, nesting bounded so that a hostile file cannot exhaust the
 * stack. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "json-check.h"
#include "utf8.h"

struct jcheck {
	const char *p, *end, *start;
	const char *what;
	unsigned depth;
};

static void jc_ws(struct jcheck *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r')) {
		j->p++;
	}
}

static bool jc_value(struct jcheck *j);

static bool jc_lit(struct jcheck *j, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n)) {
		j->what = "unexpected character";
		return false;
	}
	j->p += n;
	return true;
}

static bool jc_string(struct jcheck *j)
{
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p;

		if (c < 0x20) {
			j->what = "control character in a string";
			return false;
		}
		if (c >= 0x80) {
			size_t k, bad;

			k = ht_utf8_seq((const unsigned char *)j->p,
					(size_t)(j->end - j->p), &bad);
			if (!k) {
				j->what = "invalid UTF-8 in a string";
				return false;
			}
			j->p += k;
			continue;
		}
		if (c == '\\') {
			j->p++;
			if (j->p >= j->end || !strchr("\"\\/bfnrtu", *j->p)) {
				j->what = "bad escape in a string";
				return false;
			}
			if (*j->p == 'u') {
				int k;

				for (k = 1; k <= 4; k++) {
					if (j->p + k >= j->end ||
					    !strchr("0123456789abcdefABCDEF",
						    j->p[k]) ||
					    !j->p[k]) {
						j->what = "bad \\u escape";
						return false;
					}
				}
				j->p += 4;
			}
		}
		j->p++;
	}
	if (j->p >= j->end) {
		j->what = "unterminated string";
		return false;
	}
	j->p++;
	return true;
}

static bool jc_digits(struct jcheck *j)
{
	const char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		j->p++;
	}
	if (j->p == s) {
		j->what = "bad number";
		return false;
	}
	return true;
}

static bool jc_number(struct jcheck *j)
{
	if (*j->p == '-') {
		j->p++;
	}
	if (j->p < j->end && *j->p == '0') {
		j->p++;
	} else if (!jc_digits(j)) {
		return false;
	}
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!jc_digits(j)) {
			return false;
		}
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-')) {
			j->p++;
		}
		if (!jc_digits(j)) {
			return false;
		}
	}
	return true;
}

static bool jc_container(struct jcheck *j, char close)
{
	bool first = true;

	if (++j->depth > 200) {
		j->what = "nested too deeply";
		return false;
	}
	j->p++;
	for (;;) {
		jc_ws(j);
		if (j->p < j->end && *j->p == close && first) {
			j->p++;
			break;
		}
		if (close == '}') {
			if (j->p >= j->end || *j->p != '"') {
				j->what = "expected a string key";
				return false;
			}
			if (!jc_string(j)) {
				return false;
			}
			jc_ws(j);
			if (j->p >= j->end || *j->p != ':') {
				j->what = "expected ':'";
				return false;
			}
			j->p++;
		}
		if (!jc_value(j)) {
			return false;
		}
		first = false;
		jc_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			break;
		}
		j->what = close == '}' ? "expected ',' or '}'"
				       : "expected ',' or ']'";
		return false;
	}
	j->depth--;
	return true;
}

static bool jc_value(struct jcheck *j)
{
	jc_ws(j);
	if (j->p >= j->end) {
		j->what = "unexpected end of the text";
		return false;
	}
	switch (*j->p) {
	case '{':
		return jc_container(j, '}');
	case '[':
		return jc_container(j, ']');
	case '"':
		return jc_string(j);
	case 't':
		return jc_lit(j, "true");
	case 'f':
		return jc_lit(j, "false");
	case 'n':
		return jc_lit(j, "null");
	default:
		if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
			return jc_number(j);
		}
		j->what = "unexpected character";
		return false;
	}
}

int ht_json_check(const char *text, size_t size, char *err, size_t err_len)
{
	struct jcheck j = {.p = text, .end = text + size, .start = text};
	const char *q;
	unsigned line = 1, col = 1;

	if (jc_value(&j)) {
		jc_ws(&j);
		if (j.p == j.end) {
			return 0;
		}
		j.what = "text after the JSON value";
	}
	for (q = text; q < j.p && q < j.end; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	if (err_len) {
		snprintf(err, err_len, "%u:%u: invalid JSON: %s", line, col,
			 j.what);
	}
	return HT_ESYNTAX;
}
