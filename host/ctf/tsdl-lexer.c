/* SPDX-License-Identifier: MIT */
/*
 * The TSDL lexer: metadata text -> an array of tokens (identifiers,
 * numbers, strings with their escapes resolved, punctuation), each with
 * its line and column for the parser's messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsdl-parser.h"
#include "common/buf.h"
#include "common/error.h"

static int add_tok(struct parser *ps, struct tok *t)
{
	if (ht_array_reserve((void **)&ps->toks, &ps->cap_toks, ps->nr_toks + 1,
			     sizeof(*ps->toks))) {
		return HT_ENOMEM;
	}
	ps->toks[ps->nr_toks++] = *t;
	return 0;
}

static bool is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(int c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

int ht__tsdl_hexval(int c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	if (c >= 'A' && c <= 'F') {
		return c - 'A' + 10;
	}
	return -1;
}

int ht__tsdl_lex(struct parser *ps, const char *src, size_t len)
{
	const char *p = src, *end = src + len;
	unsigned line = 1;
	const char *line_start = src;
	struct tok t;
	int ret;

	/* about one token per 4 bytes of usual metadata: few regrowths
	 * (up to 64 Ki tokens; text of comments only does not pay more) */
	if (ht_array_reserve((void **)&ps->toks, &ps->cap_toks,
			     len / 4 < 65536 ? len / 4 + 16 : 65536,
			     sizeof(*ps->toks))) {
		return HT_ENOMEM;
	}
	for (;;) {
		/* skip blanks and comments */
		while (p < end) {
			if (*p == '\n') {
				line++;
				p++;
				line_start = p;
			} else if (*p == ' ' || *p == '\t' || *p == '\r' ||
				   *p == '\f' || *p == '\v' || *p == '\0') {
				p++;
			} else if (*p == '/' && p + 1 < end && p[1] == '*') {
				unsigned l0 = line, c0 = p - line_start + 1;

				p += 2;
				while (p < end && !(*p == '*' && p + 1 < end &&
						    p[1] == '/')) {
					if (*p == '\n') {
						line++;
						line_start = p + 1;
					}
					p++;
				}
				if (p >= end) {
					return ht__tsdl_fail_at(
					    ps, l0, c0, HT_ESYNTAX,
					    "unterminated comment");
				}
				p += 2;
			} else if (*p == '/' && p + 1 < end && p[1] == '/') {
				while (p < end && *p != '\n') {
					p++;
				}
			} else {
				break;
			}
		}
		memset(&t, 0, sizeof(t));
		t.line = line;
		t.col = p - line_start + 1;
		if (p >= end) {
			t.kind = T_EOF;
			return add_tok(ps, &t);
		}
		if (is_ident_start((unsigned char)*p)) {
			const char *s = p;

			while (p < end && is_ident_char((unsigned char)*p)) {
				p++;
			}
			t.kind = T_IDENT;
			t.s = s;
			t.len = p - s;
		} else if (*p >= '0' && *p <= '9') {
			uint64_t v = 0;
			unsigned base = 10;
			bool any = false;

			if (*p == '0' && p + 1 < end &&
			    (p[1] == 'x' || p[1] == 'X')) {
				base = 16;
				p += 2;
			} else if (*p == '0') {
				base = 8;
			}
			while (p < end) {
				int d = ht__tsdl_hexval((unsigned char)*p);

				if (d < 0 || (unsigned)d >= base) {
					break;
				}
				if (v > (UINT64_MAX - d) / base) {
					return ht__tsdl_fail_at(
					    ps, t.line, t.col, HT_ERANGE,
					    "integer constant too large");
				}
				v = v * base + d;
				any = true;
				p++;
			}
			if (!any && base == 16) {
				return ht__tsdl_fail_at(
				    ps, t.line, t.col, HT_ESYNTAX,
				    "bad hexadecimal constant");
			}
			while (p < end && (*p == 'u' || *p == 'U' ||
					   *p == 'l' || *p == 'L')) {
				p++;
			}
			if (p < end && is_ident_char((unsigned char)*p)) {
				return ht__tsdl_fail_at(ps, t.line, t.col,
							HT_ESYNTAX,
							"bad integer constant");
			}
			t.kind = T_NUM;
			t.num = v;
		} else if (*p == '"') {
			/* unescape into a heap copy kept in the arena */
			char *buf;
			size_t n = 0;
			const char *s = ++p;

			/* a newline is part of the string, as babeltrace2
			 * reads it (barectf writes multi-line descriptions) */
			while (p < end && *p != '"') {
				if (*p == '\\' && p + 1 < end) {
					p++;
				}
				if (*p == '\n') {
					line++;
					line_start = p + 1;
				}
				p++;
			}
			if (p >= end) {
				return ht__tsdl_fail_at(ps, t.line, t.col,
							HT_ESYNTAX,
							"unterminated string");
			}
			buf = ht__arena_alloc(ps->a, p - s + 1);
			if (!buf) {
				return HT_ENOMEM;
			}
			for (; s < p; s++) {
				char c = *s;

				if (c == '\\') {
					c = *++s;
					switch (c) {
					case 'n':
						c = '\n';
						break;
					case 't':
						c = '\t';
						break;
					case 'r':
						c = '\r';
						break;
					case '0':
						c = '\0';
						break;
					default:
						break;
					}
				}
				buf[n++] = c;
			}
			buf[n] = '\0';
			p++; /* closing quote */
			t.kind = T_STR;
			t.s = buf;
			t.len = n;
		} else if (*p == '\'') {
			/* character constant: value as a number */
			p++;
			if (p + 1 >= end || p[1] != '\'') {
				return ht__tsdl_fail_at(
				    ps, t.line, t.col, HT_ESYNTAX,
				    "bad character constant");
			}
			t.kind = T_NUM;
			t.num = (unsigned char)*p;
			p += 2;
		} else {
			t.kind = T_PUNCT;
			if (p + 2 < end && !strncmp(p, "...", 3)) {
				memcpy(t.punct, "...", 3);
				p += 3;
			} else if (p + 1 < end && !strncmp(p, ":=", 2)) {
				memcpy(t.punct, ":=", 2);
				p += 2;
			} else if (p + 1 < end && !strncmp(p, "->", 2)) {
				memcpy(t.punct, "->", 2);
				p += 2;
			} else if (strchr("{}()[];,=:<>.-+*", *p)) {
				t.punct[0] = *p++;
			} else {
				return ht__tsdl_fail_at(
				    ps, t.line, t.col, HT_ESYNTAX,
				    "unexpected character '%c'",
				    *p >= 32 && *p < 127 ? *p : '?');
			}
		}
		ret = add_tok(ps, &t);
		if (ret) {
			return ret;
		}
	}
}

const char *ht__tsdl_tok_desc(const struct tok *t, char *buf, size_t n)
{
	switch (t->kind) {
	case T_EOF:
		return "end of metadata";
	case T_IDENT:
		snprintf(buf, n, "'%.*s'", (int)(t->len > 40 ? 40 : t->len),
			 t->s);
		return buf;
	case T_NUM:
		return "a number";
	case T_STR:
		return "a string";
	default:
		snprintf(buf, n, "'%s'", t->punct);
		return buf;
	}
}

bool ht__tsdl_dotted_name(struct parser *ps, char *buf, size_t size)
{
	size_t n = 0;

	for (;;) {
		struct tok *t = cur(ps);

		if (t->kind != T_IDENT || n + t->len + 2 > size) {
			return false;
		}
		memcpy(buf + n, t->s, t->len);
		n += t->len;
		advance(ps);
		if (!tok_is(cur(ps), ".")) {
			break;
		}
		buf[n++] = '.';
		advance(ps);
	}
	buf[n] = '\0';
	return true;
}
