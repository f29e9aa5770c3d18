/* SPDX-License-Identifier: MIT */
/* JSON strings on a stdio stream (json-out.h). */
#include <stdbool.h>

#include "json-out.h"

static void put_str(FILE *out, const char *s, bool html)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			fprintf(out, "\\%c", c);
		} else if (c < 0x20 ||
			   (html && (c == '<' || c == '>' || c == '&'))) {
			fprintf(out, "\\u%04x", c);
		} else {
			fputc(c, out);
		}
	}
	fputc('"', out);
}

void ht__json_str(FILE *out, const char *s)
{
	put_str(out, s, false);
}

void ht__json_str_html(FILE *out, const char *s)
{
	put_str(out, s, true);
}
