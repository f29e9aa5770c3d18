/* SPDX-License-Identifier: MIT */
/*
 * TSDL 1.8 parser: metadata text -> the trace model (types, clocks,
 * stream and event classes, env). Recursive descent over a token array;
 * every error names path:line:column.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf-model.h"
#include "common/error.h"

enum tok_kind {
	T_EOF,
	T_IDENT,
	T_NUM,
	T_STR,
	T_PUNCT, /* text in .punct: { } ( ) [ ] ; , = := : < > . ... - + * */
};

struct tok {
	enum tok_kind kind;
	unsigned line, col;
	const char *s; /* T_IDENT / T_STR: text (unescaped for T_STR) */
	size_t len;
	uint64_t num; /* T_NUM magnitude */
	char punct[4];
};

struct alias {
	const char *name;
	int kind; /* 0 alias/typedef, 1 struct, 2 variant, 3 enum */
	const struct ht_ctf_type *type;
	unsigned depth;
};

struct vec {
	void **v;
	size_t n, cap;
};

struct parser {
	const char *path;
	struct tok *toks;
	size_t nr_toks, cap_toks, i;
	struct ht__trace *t;
	struct ht__arena *a;
	char *err;
	size_t err_len;
	const struct ht_ctf_open_opts *opts;
	struct alias *aliases;
	size_t nr_aliases, cap_aliases;
	unsigned depth;
	struct vec types;   /* int/float types: native order resolved later */
	struct vec clocks;  /* struct ht_ctf_clock * */
	struct vec streams; /* struct ht__stream_class * */
	struct vec events;  /* struct ht__event_class * + stream id */
	struct vec env;	    /* struct ht_ctf_env_entry * */
	struct vec warned;  /* const char * names already warned about */
	bool has_trace_bo;
	bool seen_trace;
	struct ht_ctf_type *native_marker;
};

/* events keep their stream id until the end of parsing */
struct pending_event {
	struct ht__event_class *ec;
	uint64_t stream_id;
	bool has_stream_id;
	unsigned line, col;
};

#define BO_NATIVE 2 /* unresolved "native" byte order during parsing */

static int vec_push(struct vec *v, void *p)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		void **n = realloc(v->v, cap * sizeof(*n));

		if (!n) {
			return HT_ENOMEM;
		}
		v->v = n;
		v->cap = cap;
	}
	v->v[v->n++] = p;
	return 0;
}

static void vec_fini(struct vec *v)
{
	free(v->v);
	v->v = NULL;
	v->n = v->cap = 0;
}

static int fail_at(struct parser *ps, unsigned line, unsigned col, int code,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int fail_at(struct parser *ps, unsigned line, unsigned col, int code,
		   const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ps->err_len) {
		n = snprintf(ps->err, ps->err_len, "%s:%u:%u: ", ps->path, line,
			     col);
		if (n >= 0 && (size_t)n < ps->err_len) {
			va_start(ap, fmt);
			vsnprintf(ps->err + n, ps->err_len - n, fmt, ap);
			va_end(ap);
		}
	}
	return code;
}

#define FAIL(ps, code, ...)                                                    \
	fail_at((ps), (ps)->toks[(ps)->i].line, (ps)->toks[(ps)->i].col,       \
		(code), __VA_ARGS__)

static void warn_once(struct parser *ps, const char *what, unsigned line,
		      unsigned col)
{
	char msg[256];
	size_t i;

	for (i = 0; i < ps->warned.n; i++) {
		if (!strcmp(ps->warned.v[i], what)) {
			return;
		}
	}
	if (vec_push(&ps->warned, (void *)what)) {
		return;
	}
	if (ps->opts && ps->opts->warn) {
		snprintf(msg, sizeof(msg),
			 "%s:%u:%u: unsupported TSDL construct `%s` skipped "
			 "(further ones are skipped silently)",
			 ps->path, line, col, what);
		ps->opts->warn(ps->opts->warn_arg, msg);
	}
}

/* ---------------------------------------------------------------- */
/* Lexer                                                             */

static int add_tok(struct parser *ps, struct tok *t)
{
	if (ps->nr_toks == ps->cap_toks) {
		size_t cap = ps->cap_toks ? ps->cap_toks * 2 : 1024;
		struct tok *n = realloc(ps->toks, cap * sizeof(*n));

		if (!n) {
			return HT_ENOMEM;
		}
		ps->toks = n;
		ps->cap_toks = cap;
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

static int hexval(int c)
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

static int lex(struct parser *ps, const char *src, size_t len)
{
	const char *p = src, *end = src + len;
	unsigned line = 1;
	const char *line_start = src;
	struct tok t;
	int ret;

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
					return fail_at(ps, l0, c0, HT_ESYNTAX,
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
				int d = hexval((unsigned char)*p);

				if (d < 0 || (unsigned)d >= base) {
					break;
				}
				if (v > (UINT64_MAX - d) / base) {
					return fail_at(
					    ps, t.line, t.col, HT_ERANGE,
					    "integer constant too large");
				}
				v = v * base + d;
				any = true;
				p++;
			}
			if (!any && base == 16) {
				return fail_at(ps, t.line, t.col, HT_ESYNTAX,
					       "bad hexadecimal constant");
			}
			while (p < end && (*p == 'u' || *p == 'U' ||
					   *p == 'l' || *p == 'L')) {
				p++;
			}
			if (p < end && is_ident_char((unsigned char)*p)) {
				return fail_at(ps, t.line, t.col, HT_ESYNTAX,
					       "bad integer constant");
			}
			t.kind = T_NUM;
			t.num = v;
		} else if (*p == '"') {
			/* unescape into a heap copy kept in the arena */
			char *buf;
			size_t n = 0;
			const char *s = ++p;

			while (p < end && *p != '"') {
				if (*p == '\\' && p + 1 < end) {
					p++;
				}
				if (*p == '\n') {
					return fail_at(ps, t.line, t.col,
						       HT_ESYNTAX,
						       "unterminated string");
				}
				p++;
			}
			if (p >= end) {
				return fail_at(ps, t.line, t.col, HT_ESYNTAX,
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
				return fail_at(ps, t.line, t.col, HT_ESYNTAX,
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
				return fail_at(ps, t.line, t.col, HT_ESYNTAX,
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

/* ---------------------------------------------------------------- */
/* Token helpers                                                     */

static struct tok *cur(struct parser *ps)
{
	return &ps->toks[ps->i];
}

static struct tok *peek(struct parser *ps, size_t k)
{
	size_t j = ps->i + k;

	return &ps->toks[j < ps->nr_toks ? j : ps->nr_toks - 1];
}

static void advance(struct parser *ps)
{
	if (ps->toks[ps->i].kind != T_EOF) {
		ps->i++;
	}
}

static bool tok_is(const struct tok *t, const char *punct)
{
	return t->kind == T_PUNCT && !strcmp(t->punct, punct);
}

static bool tok_ident(const struct tok *t, const char *id)
{
	return t->kind == T_IDENT && t->len == strlen(id) &&
	       !memcmp(t->s, id, t->len);
}

static const char *tok_desc(const struct tok *t, char *buf, size_t n)
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

static int expect(struct parser *ps, const char *punct)
{
	char b[64];

	if (!tok_is(cur(ps), punct)) {
		return FAIL(ps, HT_ESYNTAX, "expected '%s', found %s", punct,
			    tok_desc(cur(ps), b, sizeof(b)));
	}
	advance(ps);
	return 0;
}

static char *tok_strdup(struct parser *ps, const struct tok *t)
{
	return ht__arena_strndup(ps->a, t->s, t->len);
}

/* ---------------------------------------------------------------- */
/* Values                                                            */

struct value {
	enum { V_NUM, V_STR, V_IDENT } kind;
	bool neg;
	uint64_t num;
	char text[256]; /* V_STR / V_IDENT (dotted path) */
	unsigned line, col;
};

static int parse_value(struct parser *ps, struct value *v)
{
	struct tok *t = cur(ps);
	char b[64];

	memset(v, 0, sizeof(*v));
	v->line = t->line;
	v->col = t->col;
	if (tok_is(t, "-") || tok_is(t, "+")) {
		v->neg = tok_is(t, "-");
		advance(ps);
		t = cur(ps);
		if (t->kind != T_NUM) {
			return FAIL(ps, HT_ESYNTAX, "expected a number");
		}
	}
	if (t->kind == T_NUM) {
		v->kind = V_NUM;
		v->num = t->num;
		if (v->neg && v->num > (uint64_t)INT64_MAX + 1) {
			return FAIL(ps, HT_ERANGE,
				    "integer constant too small");
		}
		advance(ps);
		return 0;
	}
	if (t->kind == T_STR) {
		v->kind = V_STR;
		snprintf(v->text, sizeof(v->text), "%s", t->s);
		advance(ps);
		return 0;
	}
	if (t->kind == T_IDENT) {
		size_t n = 0;

		v->kind = V_IDENT;
		for (;;) {
			t = cur(ps);
			if (t->kind != T_IDENT) {
				return FAIL(ps, HT_ESYNTAX,
					    "expected an identifier");
			}
			if (n + t->len + 2 > sizeof(v->text)) {
				return FAIL(ps, HT_ERANGE, "name too long");
			}
			memcpy(v->text + n, t->s, t->len);
			n += t->len;
			v->text[n] = '\0';
			advance(ps);
			if (!tok_is(cur(ps), ".")) {
				break;
			}
			v->text[n++] = '.';
			advance(ps);
		}
		return 0;
	}
	return FAIL(ps, HT_ESYNTAX, "expected a value, found %s",
		    tok_desc(t, b, sizeof(b)));
}

static int value_int(struct parser *ps, const struct value *v, int64_t *out)
{
	if (v->kind != V_NUM) {
		return fail_at(ps, v->line, v->col, HT_ESYNTAX,
			       "expected an integer");
	}
	if (!v->neg && v->num > INT64_MAX) {
		return fail_at(ps, v->line, v->col, HT_ERANGE,
			       "integer constant too large");
	}
	*out = v->neg ? (int64_t)(0 - v->num) : (int64_t)v->num;
	return 0;
}

static int value_uint(struct parser *ps, const struct value *v, uint64_t *out)
{
	if (v->kind != V_NUM || v->neg) {
		return fail_at(ps, v->line, v->col, HT_ESYNTAX,
			       "expected an unsigned integer");
	}
	*out = v->num;
	return 0;
}

static int value_bool(struct parser *ps, const struct value *v, bool *out)
{
	if (v->kind == V_NUM) {
		*out = v->num != 0;
		return 0;
	}
	if (v->kind == V_IDENT) {
		if (!strcasecmp(v->text, "true")) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(v->text, "false")) {
			*out = false;
			return 0;
		}
	}
	return fail_at(ps, v->line, v->col, HT_ESYNTAX, "expected a boolean");
}

static int value_bo(struct parser *ps, const struct value *v, int *bo)
{
	if (v->kind == V_IDENT) {
		if (!strcmp(v->text, "le") ||
		    !strcmp(v->text, "little_endian")) {
			*bo = HT_CTF_LE;
			return 0;
		}
		if (!strcmp(v->text, "be") || !strcmp(v->text, "network") ||
		    !strcmp(v->text, "big_endian")) {
			*bo = HT_CTF_BE;
			return 0;
		}
		if (!strcmp(v->text, "native")) {
			*bo = BO_NATIVE;
			return 0;
		}
	}
	return fail_at(ps, v->line, v->col, HT_ESYNTAX,
		       "bad byte_order (le, be, network or native)");
}

static int parse_uuid(const char *s, uint8_t *uuid)
{
	size_t i, n = 0;

	for (i = 0; s[i] && n < 32; i++) {
		int h;

		if (s[i] == '-') {
			continue;
		}
		h = hexval((unsigned char)s[i]);
		if (h < 0) {
			return HT_ESYNTAX;
		}
		if (n & 1) {
			uuid[n / 2] |= h;
		} else {
			uuid[n / 2] = h << 4;
		}
		n++;
	}
	return n == 32 && !s[i] ? 0 : HT_ESYNTAX;
}

/* ---------------------------------------------------------------- */
/* Types                                                             */

static struct ht_ctf_type *new_type(struct parser *ps,
				    enum ht_ctf_type_kind kind)
{
	struct ht_ctf_type *t = ht__arena_alloc(ps->a, sizeof(*t));

	if (t) {
		t->kind = kind;
		t->align_bits = 8;
		t->base = 10;
	}
	return t;
}

static struct ht_ctf_type *copy_type(struct parser *ps,
				     const struct ht_ctf_type *src)
{
	struct ht_ctf_type *t = ht__arena_alloc(ps->a, sizeof(*t));

	if (t) {
		*t = *src;
		if ((t->kind == HT_CTF_INT || t->kind == HT_CTF_FLOAT) &&
		    vec_push(&ps->types, t)) {
			return NULL;
		}
	}
	return t;
}

static int add_alias(struct parser *ps, const char *name, int kind,
		     const struct ht_ctf_type *type)
{
	if (ps->nr_aliases == ps->cap_aliases) {
		size_t cap = ps->cap_aliases ? ps->cap_aliases * 2 : 64;
		struct alias *n = realloc(ps->aliases, cap * sizeof(*n));

		if (!n) {
			return HT_ENOMEM;
		}
		ps->aliases = n;
		ps->cap_aliases = cap;
	}
	ps->aliases[ps->nr_aliases].name = name;
	ps->aliases[ps->nr_aliases].kind = kind;
	ps->aliases[ps->nr_aliases].type = type;
	ps->aliases[ps->nr_aliases].depth = ps->depth;
	ps->nr_aliases++;
	return 0;
}

static const struct ht_ctf_type *find_alias(struct parser *ps, const char *name,
					    size_t len, int kind)
{
	size_t i = ps->nr_aliases;

	while (i--) {
		const struct alias *a = &ps->aliases[i];

		if (a->kind == kind && strlen(a->name) == len &&
		    !memcmp(a->name, name, len)) {
			return a->type;
		}
	}
	return NULL;
}

static void enter_scope(struct parser *ps)
{
	ps->depth++;
}

static void leave_scope(struct parser *ps)
{
	while (ps->nr_aliases &&
	       ps->aliases[ps->nr_aliases - 1].depth >= ps->depth) {
		ps->nr_aliases--;
	}
	ps->depth--;
}

static int parse_type(struct parser *ps, const struct ht_ctf_type **out,
		      bool need_declarator);
static int parse_declarator(struct parser *ps, const struct ht_ctf_type *base,
			    const struct ht_ctf_type **type, const char **name);
static int parse_alias_decl(struct parser *ps, bool is_typedef);

static bool is_type_start(struct parser *ps)
{
	struct tok *t = cur(ps);
	static const char *const kw[] = {"integer", "floating_point", "string",
					 "enum",    "struct",	      "variant",
					 "const",   "volatile"};
	size_t i;

	if (t->kind != T_IDENT) {
		return false;
	}
	for (i = 0; i < sizeof(kw) / sizeof(kw[0]); i++) {
		if (tok_ident(t, kw[i])) {
			return true;
		}
	}
	return find_alias(ps, t->s, t->len, 0) != NULL ||
	       tok_ident(t, "unsigned") || tok_ident(t, "signed");
}

/* attribute block of integer / floating_point / string */
static int parse_attrs(struct parser *ps, struct ht_ctf_type *t)
{
	int ret;
	bool has_align = false;

	ret = expect(ps, "{");
	if (ret) {
		return ret;
	}
	while (!tok_is(cur(ps), "}")) {
		struct tok *k = cur(ps);
		struct value v;
		char name[32];

		if (k->kind != T_IDENT) {
			return FAIL(ps, HT_ESYNTAX, "expected an attribute");
		}
		snprintf(name, sizeof(name), "%.*s", (int)k->len, k->s);
		advance(ps);
		ret = expect(ps, "=");
		if (ret) {
			return ret;
		}
		ret = parse_value(ps, &v);
		if (ret) {
			return ret;
		}
		if (!strcmp(name, "size") || !strcmp(name, "exp_dig") ||
		    !strcmp(name, "mant_dig") || !strcmp(name, "align")) {
			uint64_t u = 0;

			ret = value_uint(ps, &v, &u);
			if (ret) {
				return ret;
			}
			if (!strcmp(name, "size")) {
				if (u == 0 || u > 64) {
					return fail_at(
					    ps, v.line, v.col, HT_EUNSUPPORTED,
					    "integer size %llu: only 1 to "
					    "64 bits are supported",
					    (unsigned long long)u);
				}
				t->size_bits = u;
			} else if (!strcmp(name, "exp_dig")) {
				t->exp_dig = u > 64 ? 64 : u;
			} else if (!strcmp(name, "mant_dig")) {
				t->mant_dig = u > 64 ? 64 : u;
			} else {
				if (u == 0 || (u & (u - 1)) || u > (1u << 20)) {
					return fail_at(ps, v.line, v.col,
						       HT_ESYNTAX,
						       "align must be a power "
						       "of two");
				}
				t->align_bits = u;
				has_align = true;
			}
		} else if (!strcmp(name, "signed")) {
			ret = value_bool(ps, &v, &t->is_signed);
		} else if (!strcmp(name, "byte_order")) {
			int bo;

			ret = value_bo(ps, &v, &bo);
			t->byte_order = bo;
		} else if (!strcmp(name, "base")) {
			if (v.kind == V_NUM) {
				t->base = v.num;
			} else if (v.kind == V_IDENT &&
				   (!strcmp(v.text, "decimal") ||
				    !strcmp(v.text, "dec") ||
				    !strcmp(v.text, "d") ||
				    !strcmp(v.text, "i") ||
				    !strcmp(v.text, "u"))) {
				t->base = 10;
			} else if (v.kind == V_IDENT &&
				   (!strcmp(v.text, "hexadecimal") ||
				    !strcmp(v.text, "hex") ||
				    !strcmp(v.text, "x") ||
				    !strcmp(v.text, "X") ||
				    !strcmp(v.text, "p"))) {
				t->base = 16;
			} else if (v.kind == V_IDENT &&
				   (!strcmp(v.text, "octal") ||
				    !strcmp(v.text, "oct") ||
				    !strcmp(v.text, "o"))) {
				t->base = 8;
			} else if (v.kind == V_IDENT &&
				   (!strcmp(v.text, "binary") ||
				    !strcmp(v.text, "b"))) {
				t->base = 2;
			} else {
				return fail_at(ps, v.line, v.col, HT_ESYNTAX,
					       "bad base");
			}
			if (t->base != 2 && t->base != 8 && t->base != 10 &&
			    t->base != 16) {
				return fail_at(ps, v.line, v.col, HT_ESYNTAX,
					       "bad base");
			}
		} else if (!strcmp(name, "encoding")) {
			if (v.kind != V_IDENT && v.kind != V_STR) {
				return fail_at(ps, v.line, v.col, HT_ESYNTAX,
					       "bad encoding");
			}
			if (!strcasecmp(v.text, "UTF8")) {
				t->encoding = HT_CTF_ENC_UTF8;
			} else if (!strcasecmp(v.text, "ASCII")) {
				t->encoding = HT_CTF_ENC_ASCII;
			} else if (!strcasecmp(v.text, "none")) {
				t->encoding = HT_CTF_ENC_NONE;
			} else {
				return fail_at(ps, v.line, v.col, HT_ESYNTAX,
					       "bad encoding");
			}
		} else if (!strcmp(name, "map")) {
			/* clock.NAME.value; resolved after parsing */
			const char *s = v.text;
			size_t n = strlen(s);

			if (v.kind != V_IDENT || strncmp(s, "clock.", 6) ||
			    n < 13 || strcmp(s + n - 6, ".value")) {
				return fail_at(ps, v.line, v.col, HT_ESYNTAX,
					       "bad map (clock.NAME.value)");
			}
			/* stash the clock name in tag_ref until resolved */
			t->tag_ref = ht__arena_strndup(ps->a, s + 6, n - 12);
			if (!t->tag_ref) {
				return HT_ENOMEM;
			}
		} else {
			warn_once(ps, "unknown type attribute", v.line, v.col);
		}
		if (ret) {
			return ret;
		}
		ret = expect(ps, ";");
		if (ret) {
			return ret;
		}
	}
	advance(ps);
	if (t->kind == HT_CTF_INT && !t->size_bits) {
		return FAIL(ps, HT_ESYNTAX, "integer without a size");
	}
	if (t->kind == HT_CTF_INT && !has_align) {
		t->align_bits = t->size_bits % 8 ? 1 : 8;
	}
	if (t->kind == HT_CTF_FLOAT) {
		if (!((t->exp_dig == 8 && t->mant_dig == 24) ||
		      (t->exp_dig == 11 && t->mant_dig == 53))) {
			return FAIL(ps, HT_EUNSUPPORTED,
				    "floating_point with exp_dig=%u "
				    "mant_dig=%u: only 32 and 64-bit IEEE 754 "
				    "are supported",
				    t->exp_dig, t->mant_dig);
		}
		t->size_bits = t->exp_dig + t->mant_dig;
	}
	return 0;
}

static int parse_enum(struct parser *ps, const struct ht_ctf_type **out)
{
	struct ht_ctf_type *t;
	const struct ht_ctf_type *container = NULL;
	const char *name = NULL;
	struct ht_ctf_enum_mapping *maps = NULL;
	size_t nr = 0, cap = 0;
	int64_t next = 0;
	bool next_valid = true;
	int ret;

	advance(ps); /* enum */
	if (cur(ps)->kind == T_IDENT && !tok_is(peek(ps, 1), "{") &&
	    !tok_is(peek(ps, 1), ":")) {
		/* a reference to a named enum */
		const struct ht_ctf_type *e;

		e = find_alias(ps, cur(ps)->s, cur(ps)->len, 3);
		if (!e) {
			return FAIL(ps, HT_ESYNTAX, "unknown enum '%.*s'",
				    (int)cur(ps)->len, cur(ps)->s);
		}
		advance(ps);
		*out = e;
		return 0;
	}
	if (cur(ps)->kind == T_IDENT) {
		name = tok_strdup(ps, cur(ps));
		if (!name) {
			return HT_ENOMEM;
		}
		advance(ps);
		if (!tok_is(cur(ps), "{") && !tok_is(cur(ps), ":")) {
			return FAIL(ps, HT_ESYNTAX, "expected '{' or ':'");
		}
	}
	if (tok_is(cur(ps), ":")) {
		advance(ps);
		ret = parse_type(ps, &container, false);
		if (ret) {
			return ret;
		}
	} else {
		container = find_alias(ps, "int", 3, 0);
		if (!container) {
			return FAIL(ps, HT_ESYNTAX,
				    "enum without a container type and no "
				    "`int` type alias");
		}
	}
	if (container->kind != HT_CTF_INT) {
		return FAIL(ps, HT_ESYNTAX,
			    "the container of an enum must be an integer");
	}
	ret = expect(ps, "{");
	if (ret) {
		return ret;
	}
	while (!tok_is(cur(ps), "}")) {
		struct ht_ctf_enum_mapping *m;
		struct ht_ctf_enum_range *r;
		struct tok *lt = cur(ps);
		struct value lo, hi;
		bool has_range = false;
		size_t j;

		if (lt->kind != T_IDENT && lt->kind != T_STR) {
			ret = FAIL(ps, HT_ESYNTAX, "expected an enum label");
			goto fail;
		}
		advance(ps);
		if (tok_is(cur(ps), "=")) {
			advance(ps);
			ret = parse_value(ps, &lo);
			if (ret) {
				goto fail;
			}
			hi = lo;
			if (tok_is(cur(ps), "...")) {
				advance(ps);
				ret = parse_value(ps, &hi);
				if (ret) {
					goto fail;
				}
			}
			if (lo.kind != V_NUM || hi.kind != V_NUM) {
				ret = fail_at(ps, lo.line, lo.col, HT_ESYNTAX,
					      "enum values must be integers");
				goto fail;
			}
			has_range = true;
		}
		r = ht__arena_alloc(ps->a, sizeof(*r));
		if (!r) {
			ret = HT_ENOMEM;
			goto fail;
		}
		if (has_range) {
			if (container->is_signed) {
				ret = value_int(ps, &lo, &r->lower.s);
				if (!ret) {
					ret = value_int(ps, &hi, &r->upper.s);
				}
				if (ret) {
					goto fail;
				}
				if (r->lower.s > r->upper.s) {
					int64_t x = r->lower.s;

					r->lower.s = r->upper.s;
					r->upper.s = x;
				}
				next = r->upper.s;
			} else {
				r->lower.u = lo.neg ? 0 - lo.num : lo.num;
				r->upper.u = hi.neg ? 0 - hi.num : hi.num;
				if (r->lower.u > r->upper.u) {
					uint64_t x = r->lower.u;

					r->lower.u = r->upper.u;
					r->upper.u = x;
				}
				next = (int64_t)r->upper.u;
			}
			next_valid = !(container->is_signed
					   ? next == INT64_MAX
					   : (uint64_t)next == UINT64_MAX);
			next++;
		} else {
			if (!next_valid) {
				ret = FAIL(ps, HT_ERANGE,
					   "enum value out of range");
				goto fail;
			}
			r->lower.s = r->upper.s = next;
			next_valid = !(container->is_signed
					   ? next == INT64_MAX
					   : (uint64_t)next == UINT64_MAX);
			next++;
		}
		/* a label given twice adds a range to the first one */
		m = NULL;
		for (j = 0; j < nr; j++) {
			if (strlen(maps[j].label) == lt->len &&
			    !memcmp(maps[j].label, lt->s, lt->len)) {
				m = &maps[j];
				break;
			}
		}
		if (m) {
			struct ht_ctf_enum_range *nrs;

			nrs = ht__arena_alloc(ps->a, (m->nr_ranges + 1) *
							 sizeof(*nrs));
			if (!nrs) {
				ret = HT_ENOMEM;
				goto fail;
			}
			memcpy(nrs, m->ranges, m->nr_ranges * sizeof(*nrs));
			nrs[m->nr_ranges] = *r;
			m->ranges = nrs;
			m->nr_ranges++;
		} else {
			if (nr == cap) {
				struct ht_ctf_enum_mapping *n;

				cap = cap ? cap * 2 : 8;
				n = realloc(maps, cap * sizeof(*n));
				if (!n) {
					ret = HT_ENOMEM;
					goto fail;
				}
				maps = n;
			}
			m = &maps[nr++];
			m->label = tok_strdup(ps, lt);
			m->ranges = r;
			m->nr_ranges = 1;
			if (!m->label) {
				ret = HT_ENOMEM;
				goto fail;
			}
		}
		if (tok_is(cur(ps), ",")) {
			advance(ps);
		} else if (!tok_is(cur(ps), "}")) {
			ret = FAIL(ps, HT_ESYNTAX, "expected ',' or '}'");
			goto fail;
		}
	}
	advance(ps);
	t = new_type(ps, HT_CTF_ENUM);
	if (!t) {
		ret = HT_ENOMEM;
		goto fail;
	}
	t->container = container;
	t->align_bits = container->align_bits;
	t->size_bits = container->size_bits;
	t->is_signed = container->is_signed;
	t->base = container->base;
	if (nr) {
		struct ht_ctf_enum_mapping *m;

		m = ht__arena_alloc(ps->a, nr * sizeof(*m));
		if (!m) {
			ret = HT_ENOMEM;
			goto fail;
		}
		memcpy(m, maps, nr * sizeof(*m));
		t->mappings = m;
	}
	t->nr_mappings = nr;
	free(maps);
	if (name) {
		ret = add_alias(ps, name, 3, t);
		if (ret) {
			return ret;
		}
	}
	*out = t;
	return 0;
fail:
	free(maps);
	return ret;
}

/* struct or variant body: members / options */
static int parse_compound_body(struct parser *ps, struct ht_ctf_type *t)
{
	struct ht_ctf_member *mem = NULL;
	size_t nr = 0, cap = 0;
	int ret;

	ret = expect(ps, "{");
	if (ret) {
		return ret;
	}
	enter_scope(ps);
	while (!tok_is(cur(ps), "}")) {
		const struct ht_ctf_type *base;

		if (tok_ident(cur(ps), "typealias")) {
			ret = parse_alias_decl(ps, false);
		} else if (tok_ident(cur(ps), "typedef")) {
			ret = parse_alias_decl(ps, true);
		} else {
			ret = parse_type(ps, &base, true);
			if (ret) {
				goto fail;
			}
			if (tok_is(cur(ps), ";")) {
				/* a named struct/enum/variant declaration */
				advance(ps);
				continue;
			}
			for (;;) {
				const struct ht_ctf_type *ft;
				const char *name;
				size_t j;

				ret = parse_declarator(ps, base, &ft, &name);
				if (ret) {
					goto fail;
				}
				for (j = 0; j < nr; j++) {
					if (!strcmp(mem[j].name, name)) {
						ret = FAIL(ps, HT_ESYNTAX,
							   "duplicate member "
							   "'%s'",
							   name);
						goto fail;
					}
				}
				if (nr == cap) {
					struct ht_ctf_member *n;

					cap = cap ? cap * 2 : 8;
					n = realloc(mem, cap * sizeof(*n));
					if (!n) {
						ret = HT_ENOMEM;
						goto fail;
					}
					mem = n;
				}
				mem[nr].name = name;
				mem[nr].type = ft;
				nr++;
				if (!tok_is(cur(ps), ",")) {
					break;
				}
				advance(ps);
			}
			ret = expect(ps, ";");
		}
		if (ret) {
			goto fail;
		}
	}
	advance(ps);
	leave_scope(ps);
	if (nr) {
		struct ht_ctf_member *m =
		    ht__arena_alloc(ps->a, nr * sizeof(*m));

		if (!m) {
			free(mem);
			return HT_ENOMEM;
		}
		memcpy(m, mem, nr * sizeof(*m));
		t->members = m;
	}
	t->nr_members = nr;
	free(mem);
	return 0;
fail:
	leave_scope(ps);
	free(mem);
	return ret;
}

static int parse_tag_ref(struct parser *ps, const char **ref)
{
	char buf[512];
	size_t n = 0;
	int ret;

	ret = expect(ps, "<");
	if (ret) {
		return ret;
	}
	for (;;) {
		struct tok *t = cur(ps);

		if (t->kind != T_IDENT || n + t->len + 2 > sizeof(buf)) {
			return FAIL(ps, HT_ESYNTAX, "bad variant tag");
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
	ret = expect(ps, ">");
	if (ret) {
		return ret;
	}
	*ref = ht__arena_strndup(ps->a, buf, n);
	return *ref ? 0 : HT_ENOMEM;
}

static int parse_struct_or_variant(struct parser *ps,
				   const struct ht_ctf_type **out)
{
	bool is_variant = tok_ident(cur(ps), "variant");
	int kind = is_variant ? 2 : 1;
	const char *name = NULL, *tag = NULL;
	struct ht_ctf_type *t;
	int ret;

	advance(ps);
	if (cur(ps)->kind == T_IDENT) {
		name = tok_strdup(ps, cur(ps));
		if (!name) {
			return HT_ENOMEM;
		}
		advance(ps);
	}
	if (is_variant && tok_is(cur(ps), "<")) {
		ret = parse_tag_ref(ps, &tag);
		if (ret) {
			return ret;
		}
	}
	if (!tok_is(cur(ps), "{")) {
		const struct ht_ctf_type *ref;

		if (!name) {
			return FAIL(ps, HT_ESYNTAX, "expected '{'");
		}
		ref = find_alias(ps, name, strlen(name), kind);
		if (!ref) {
			return FAIL(ps, HT_ESYNTAX, "unknown %s '%s'",
				    is_variant ? "variant" : "struct", name);
		}
		if (tag) {
			t = copy_type(ps, ref);
			if (!t) {
				return HT_ENOMEM;
			}
			t->tag_ref = tag;
			ref = t;
		}
		*out = ref;
		return 0;
	}
	t = new_type(ps, is_variant ? HT_CTF_VARIANT : HT_CTF_STRUCT);
	if (!t) {
		return HT_ENOMEM;
	}
	t->align_bits = 1;
	t->tag_ref = tag;
	ret = parse_compound_body(ps, t);
	if (ret) {
		return ret;
	}
	if (!is_variant && tok_ident(cur(ps), "align")) {
		struct value v;
		uint64_t u = 0;

		advance(ps);
		ret = expect(ps, "(");
		if (!ret) {
			ret = parse_value(ps, &v);
		}
		if (!ret) {
			ret = value_uint(ps, &v, &u);
		}
		if (!ret && (u == 0 || (u & (u - 1)) || u > (1u << 20))) {
			ret = fail_at(ps, v.line, v.col, HT_ESYNTAX,
				      "align must be a power of two");
		}
		if (!ret) {
			ret = expect(ps, ")");
		}
		if (ret) {
			return ret;
		}
		t->align_bits = u;
	}
	if (!is_variant) {
		size_t i;

		for (i = 0; i < t->nr_members; i++) {
			if (t->members[i].type->align_bits > t->align_bits) {
				t->align_bits = t->members[i].type->align_bits;
			}
		}
	}
	if (name) {
		ret = add_alias(ps, name, kind, t);
		if (ret) {
			return ret;
		}
	}
	*out = t;
	return 0;
}

/*
 * A type specifier. With @need_declarator, a run of identifiers naming an
 * alias leaves its last identifier for the declarator.
 */
static int parse_type(struct parser *ps, const struct ht_ctf_type **out,
		      bool need_declarator)
{
	struct tok *t;
	struct ht_ctf_type *nt;
	int ret;

	while (tok_ident(cur(ps), "const") || tok_ident(cur(ps), "volatile")) {
		advance(ps);
	}
	t = cur(ps);
	if (tok_ident(t, "integer") || tok_ident(t, "floating_point")) {
		nt = new_type(ps, tok_ident(t, "integer") ? HT_CTF_INT
							  : HT_CTF_FLOAT);
		if (!nt) {
			return HT_ENOMEM;
		}
		nt->byte_order = BO_NATIVE;
		advance(ps);
		ret = parse_attrs(ps, nt);
		if (ret) {
			return ret;
		}
		if (vec_push(&ps->types, nt)) {
			return HT_ENOMEM;
		}
		*out = nt;
		return 0;
	}
	if (tok_ident(t, "string")) {
		nt = new_type(ps, HT_CTF_STRING);
		if (!nt) {
			return HT_ENOMEM;
		}
		nt->encoding = HT_CTF_ENC_UTF8;
		advance(ps);
		if (tok_is(cur(ps), "{")) {
			ret = parse_attrs(ps, nt);
			if (ret) {
				return ret;
			}
			nt->align_bits = 8;
		}
		*out = nt;
		return 0;
	}
	if (tok_ident(t, "enum")) {
		return parse_enum(ps, out);
	}
	if (tok_ident(t, "struct") || tok_ident(t, "variant")) {
		return parse_struct_or_variant(ps, out);
	}
	if (t->kind == T_IDENT) {
		/* an alias name: one or more identifiers */
		size_t n = 0, k, best = 0;
		char name[256];
		size_t len = 0;
		const struct ht_ctf_type *found = NULL;

		while (peek(ps, n)->kind == T_IDENT) {
			n++;
		}
		/* the longest run that names an alias (leaving one
		 * identifier for the declarator when needed) */
		for (k = 1; k <= n; k++) {
			const struct ht_ctf_type *a;
			struct tok *tk = peek(ps, k - 1);

			if (need_declarator && k == n) {
				break;
			}
			if (len + tk->len + 2 > sizeof(name)) {
				break;
			}
			if (k > 1) {
				name[len++] = ' ';
			}
			memcpy(name + len, tk->s, tk->len);
			len += tk->len;
			a = find_alias(ps, name, len, 0);
			if (a) {
				found = a;
				best = k;
			}
		}
		if (!found) {
			return FAIL(ps, HT_ESYNTAX, "unknown type '%.*s'",
				    (int)t->len, t->s);
		}
		ps->i += best;
		if (found->kind == HT_CTF_VARIANT && tok_is(cur(ps), "<")) {
			const char *tag;

			ret = parse_tag_ref(ps, &tag);
			if (ret) {
				return ret;
			}
			nt = copy_type(ps, found);
			if (!nt) {
				return HT_ENOMEM;
			}
			nt->tag_ref = tag;
			found = nt;
		}
		*out = found;
		return 0;
	}
	{
		char b[64];

		return FAIL(ps, HT_ESYNTAX, "expected a type, found %s",
			    tok_desc(t, b, sizeof(b)));
	}
}

/* a path inside [ ]: a number (static array) or a field reference */
static int parse_declarator(struct parser *ps, const struct ht_ctf_type *base,
			    const struct ht_ctf_type **type, const char **name)
{
	struct {
		bool is_seq;
		uint64_t len;
		const char *ref;
	} dims[8];
	size_t nd = 0;
	const struct ht_ctf_type *ft = base;
	int ret;

	if (cur(ps)->kind != T_IDENT) {
		char b[64];

		return FAIL(ps, HT_ESYNTAX, "expected a field name, found %s",
			    tok_desc(cur(ps), b, sizeof(b)));
	}
	*name = tok_strdup(ps, cur(ps));
	if (!*name) {
		return HT_ENOMEM;
	}
	advance(ps);
	while (tok_is(cur(ps), "[")) {
		advance(ps);
		if (nd == sizeof(dims) / sizeof(dims[0])) {
			return FAIL(ps, HT_EUNSUPPORTED,
				    "too many array dimensions");
		}
		if (cur(ps)->kind == T_NUM) {
			dims[nd].is_seq = false;
			dims[nd].len = cur(ps)->num;
			advance(ps);
		} else {
			struct value v;

			ret = parse_value(ps, &v);
			if (ret) {
				return ret;
			}
			if (v.kind != V_IDENT) {
				return fail_at(ps, v.line, v.col, HT_ESYNTAX,
					       "bad array length");
			}
			dims[nd].is_seq = true;
			dims[nd].ref = ht__arena_strdup(ps->a, v.text);
			if (!dims[nd].ref) {
				return HT_ENOMEM;
			}
		}
		nd++;
		ret = expect(ps, "]");
		if (ret) {
			return ret;
		}
	}
	/* name[a][b]: an array of a arrays of b elements */
	while (nd--) {
		struct ht_ctf_type *at;

		at = new_type(ps,
			      dims[nd].is_seq ? HT_CTF_SEQUENCE : HT_CTF_ARRAY);
		if (!at) {
			return HT_ENOMEM;
		}
		at->element = ft;
		at->align_bits = ft->align_bits;
		at->length = dims[nd].len;
		at->length_ref = dims[nd].ref;
		ft = at;
	}
	*type = ft;
	return 0;
}

/* typealias TYPE := NAME;   typedef TYPE NAME[...];  */
static int parse_alias_decl(struct parser *ps, bool is_typedef)
{
	const struct ht_ctf_type *base, *ft;
	const char *name;
	int ret;

	advance(ps);
	ret = parse_type(ps, &base, is_typedef);
	if (ret) {
		return ret;
	}
	if (is_typedef) {
		for (;;) {
			ret = parse_declarator(ps, base, &ft, &name);
			if (ret) {
				return ret;
			}
			ret = add_alias(ps, name, 0, ft);
			if (ret) {
				return ret;
			}
			if (!tok_is(cur(ps), ",")) {
				break;
			}
			advance(ps);
		}
		return expect(ps, ";");
	} else {
		char buf[256];
		size_t n = 0;
		char *nm;

		/* typealias integer {...} [declarator] := name words; */
		ret = expect(ps, ":=");
		if (ret) {
			return ret;
		}
		while (cur(ps)->kind == T_IDENT) {
			struct tok *t = cur(ps);

			if (n + t->len + 2 > sizeof(buf)) {
				return FAIL(ps, HT_ERANGE, "alias too long");
			}
			if (n) {
				buf[n++] = ' ';
			}
			memcpy(buf + n, t->s, t->len);
			n += t->len;
			advance(ps);
		}
		if (!n) {
			return FAIL(ps, HT_ESYNTAX, "expected an alias name");
		}
		ft = base;
		while (tok_is(cur(ps), "*")) {
			advance(ps);
		}
		nm = ht__arena_strndup(ps->a, buf, n);
		if (!nm) {
			return HT_ENOMEM;
		}
		ret = add_alias(ps, nm, 0, ft);
		if (ret) {
			return ret;
		}
		return expect(ps, ";");
	}
}

/* ---------------------------------------------------------------- */
/* Blocks                                                            */

static int skip_block(struct parser *ps)
{
	unsigned level = 0;

	for (;;) {
		struct tok *t = cur(ps);

		if (t->kind == T_EOF) {
			return FAIL(ps, HT_ESYNTAX, "unterminated block");
		}
		advance(ps);
		if (tok_is(t, "{")) {
			level++;
		} else if (tok_is(t, "}")) {
			if (!--level) {
				break;
			}
		}
	}
	return expect(ps, ";");
}

/* LHS of an entry in trace/stream/event/clock blocks: dotted path */
static int parse_lhs(struct parser *ps, char *buf, size_t size)
{
	size_t n = 0;

	for (;;) {
		struct tok *t = cur(ps);

		if (t->kind != T_IDENT || n + t->len + 2 > size) {
			char b[64];

			return FAIL(ps, HT_ESYNTAX,
				    "expected an attribute name, found %s",
				    tok_desc(t, b, sizeof(b)));
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
	return 0;
}

typedef int (*entry_fn)(struct parser *ps, void *obj, const char *key,
			const struct ht_ctf_type *type, const struct value *v,
			unsigned line, unsigned col);

static int parse_block(struct parser *ps, void *obj, entry_fn fn)
{
	int ret;

	ret = expect(ps, "{");
	if (ret) {
		return ret;
	}
	enter_scope(ps);
	while (!tok_is(cur(ps), "}")) {
		char key[128];
		unsigned line = cur(ps)->line, col = cur(ps)->col;
		bool is_type;

		if (tok_ident(cur(ps), "typealias")) {
			ret = parse_alias_decl(ps, false);
		} else if (tok_ident(cur(ps), "typedef")) {
			ret = parse_alias_decl(ps, true);
		} else if (cur(ps)->kind == T_EOF) {
			ret = FAIL(ps, HT_ESYNTAX, "unterminated block");
		} else {
			ret = parse_lhs(ps, key, sizeof(key));
			if (ret) {
				goto out;
			}
			is_type = tok_is(cur(ps), ":=");
			if (!is_type && tok_is(cur(ps), "=")) {
				/* some writers use '=' for types too */
				advance(ps);
				is_type = is_type_start(ps) &&
					  !tok_is(peek(ps, 1), ";");
				ps->i--;
			}
			if (is_type) {
				const struct ht_ctf_type *type;

				advance(ps);
				ret = parse_type(ps, &type, false);
				if (!ret) {
					ret = fn(ps, obj, key, type, NULL, line,
						 col);
				}
			} else {
				struct value v;

				ret = expect(ps, "=");
				if (!ret) {
					ret = parse_value(ps, &v);
				}
				if (!ret) {
					ret = fn(ps, obj, key, NULL, &v, line,
						 col);
				}
			}
			if (!ret) {
				ret = expect(ps, ";");
			}
		}
		if (ret) {
			goto out;
		}
	}
	advance(ps);
	ret = expect(ps, ";");
out:
	leave_scope(ps);
	return ret;
}

static int need_value(struct parser *ps, const struct value *v, const char *key,
		      unsigned line, unsigned col)
{
	if (!v) {
		return fail_at(ps, line, col, HT_ESYNTAX,
			       "'%s' must be a value, not a type", key);
	}
	return 0;
}

static int need_type(struct parser *ps, const struct ht_ctf_type *t,
		     const char *key, unsigned line, unsigned col)
{
	if (!t) {
		return fail_at(ps, line, col, HT_ESYNTAX,
			       "'%s' must be a type (use ':=')", key);
	}
	if (t->kind != HT_CTF_STRUCT) {
		return fail_at(ps, line, col, HT_ESYNTAX,
			       "'%s' must be a structure", key);
	}
	return 0;
}

static int trace_entry(struct parser *ps, void *obj, const char *key,
		       const struct ht_ctf_type *type, const struct value *v,
		       unsigned line, unsigned col)
{
	struct ht__trace *t = obj;
	int ret;

	if (!strcmp(key, "packet.header")) {
		ret = need_type(ps, type, key, line, col);
		t->pub.packet_header = type;
		return ret;
	}
	ret = need_value(ps, v, key, line, col);
	if (ret) {
		return ret;
	}
	if (!strcmp(key, "major") || !strcmp(key, "minor")) {
		uint64_t u = 0;

		ret = value_uint(ps, v, &u);
		if (!ret && key[1] == 'a') {
			t->pub.major = u;
		} else if (!ret) {
			t->pub.minor = u;
		}
		return ret;
	}
	if (!strcmp(key, "uuid")) {
		if (v->kind != V_STR || parse_uuid(v->text, t->pub.uuid)) {
			return fail_at(ps, v->line, v->col, HT_ESYNTAX,
				       "bad uuid");
		}
		t->pub.has_uuid = true;
		return 0;
	}
	if (!strcmp(key, "byte_order")) {
		int bo;

		ret = value_bo(ps, v, &bo);
		if (ret) {
			return ret;
		}
		if (bo == BO_NATIVE) {
			return fail_at(ps, v->line, v->col, HT_ESYNTAX,
				       "the trace byte_order cannot be "
				       "native");
		}
		t->pub.byte_order = bo;
		ps->has_trace_bo = true;
		return 0;
	}
	warn_once(ps, "unknown trace attribute", line, col);
	return 0;
}

static int env_entry(struct parser *ps, void *obj, const char *key,
		     const struct ht_ctf_type *type, const struct value *v,
		     unsigned line, unsigned col)
{
	struct ht_ctf_env_entry *e;
	size_t i;
	int ret;

	(void)obj;
	ret = need_value(ps, v, key, line, col);
	if (ret) {
		return ret;
	}
	(void)type;
	e = NULL;
	for (i = 0; i < ps->env.n; i++) {
		struct ht_ctf_env_entry *o = ps->env.v[i];

		if (!strcmp(o->name, key)) {
			e = o; /* babeltrace2: the last value wins */
		}
	}
	if (!e) {
		e = ht__arena_alloc(ps->a, sizeof(*e));
		if (!e) {
			return HT_ENOMEM;
		}
		e->name = ht__arena_strdup(ps->a, key);
		if (!e->name || vec_push(&ps->env, e)) {
			return HT_ENOMEM;
		}
	}
	if (v->kind == V_NUM) {
		ret = value_int(ps, v, &e->i);
		e->is_string = false;
		return ret;
	}
	e->is_string = true;
	e->str = ht__arena_strdup(ps->a, v->text);
	return e->str ? 0 : HT_ENOMEM;
}

static int clock_entry(struct parser *ps, void *obj, const char *key,
		       const struct ht_ctf_type *type, const struct value *v,
		       unsigned line, unsigned col)
{
	struct ht_ctf_clock *c = obj;
	uint64_t u = 0;
	int ret;

	(void)type;
	ret = need_value(ps, v, key, line, col);
	if (ret) {
		return ret;
	}
	if (!strcmp(key, "name")) {
		c->name = ht__arena_strdup(ps->a, v->text);
		return c->name ? 0 : HT_ENOMEM;
	}
	if (!strcmp(key, "description")) {
		c->description = ht__arena_strdup(ps->a, v->text);
		return c->description ? 0 : HT_ENOMEM;
	}
	if (!strcmp(key, "uuid")) {
		if (v->kind != V_STR || parse_uuid(v->text, c->uuid)) {
			return fail_at(ps, v->line, v->col, HT_ESYNTAX,
				       "bad uuid");
		}
		c->has_uuid = true;
		return 0;
	}
	if (!strcmp(key, "freq")) {
		ret = value_uint(ps, v, &u);
		if (!ret && !u) {
			ret = fail_at(ps, v->line, v->col, HT_ERANGE,
				      "clock frequency must not be 0");
		}
		c->freq_hz = u;
		return ret;
	}
	if (!strcmp(key, "precision")) {
		return value_uint(ps, v, &c->precision);
	}
	if (!strcmp(key, "offset_s")) {
		return value_int(ps, v, &c->offset_s);
	}
	if (!strcmp(key, "offset")) {
		return value_int(ps, v, &c->offset_cycles);
	}
	if (!strcmp(key, "absolute")) {
		return value_bool(ps, v, &c->absolute);
	}
	warn_once(ps, "unknown clock attribute", line, col);
	return 0;
}

static int stream_entry(struct parser *ps, void *obj, const char *key,
			const struct ht_ctf_type *type, const struct value *v,
			unsigned line, unsigned col)
{
	struct ht__stream_class *sc = obj;
	int ret;

	if (!strcmp(key, "packet.context")) {
		ret = need_type(ps, type, key, line, col);
		sc->pub.packet_context = type;
		return ret;
	}
	if (!strcmp(key, "event.header")) {
		ret = need_type(ps, type, key, line, col);
		sc->pub.event_header = type;
		return ret;
	}
	if (!strcmp(key, "event.context")) {
		ret = need_type(ps, type, key, line, col);
		sc->pub.event_context = type;
		return ret;
	}
	ret = need_value(ps, v, key, line, col);
	if (ret) {
		return ret;
	}
	if (!strcmp(key, "id")) {
		return value_uint(ps, v, &sc->pub.id);
	}
	warn_once(ps, "unknown stream attribute", line, col);
	return 0;
}

static int event_entry(struct parser *ps, void *obj, const char *key,
		       const struct ht_ctf_type *type, const struct value *v,
		       unsigned line, unsigned col)
{
	struct pending_event *pe = obj;
	struct ht__event_class *ec = pe->ec;
	int ret;

	if (!strcmp(key, "context")) {
		ret = need_type(ps, type, key, line, col);
		ec->pub.context = type;
		return ret;
	}
	if (!strcmp(key, "fields")) {
		ret = need_type(ps, type, key, line, col);
		ec->pub.payload = type;
		return ret;
	}
	ret = need_value(ps, v, key, line, col);
	if (ret) {
		return ret;
	}
	if (!strcmp(key, "name")) {
		ec->pub.name = ht__arena_strdup(ps->a, v->text);
		return ec->pub.name ? 0 : HT_ENOMEM;
	}
	if (!strcmp(key, "id")) {
		return value_uint(ps, v, &ec->pub.id);
	}
	if (!strcmp(key, "stream_id")) {
		pe->has_stream_id = true;
		return value_uint(ps, v, &pe->stream_id);
	}
	if (!strcmp(key, "loglevel")) {
		ec->pub.has_loglevel = true;
		return value_int(ps, v, &ec->pub.loglevel);
	}
	if (!strcmp(key, "model.emf.uri")) {
		ec->pub.emf_uri = ht__arena_strdup(ps->a, v->text);
		return ec->pub.emf_uri ? 0 : HT_ENOMEM;
	}
	warn_once(ps, "unknown event attribute", line, col);
	return 0;
}

static int parse_top(struct parser *ps)
{
	int ret = 0;

	while (cur(ps)->kind != T_EOF) {
		struct tok *t = cur(ps);
		unsigned line = t->line, col = t->col;

		if (tok_ident(t, "typealias")) {
			ret = parse_alias_decl(ps, false);
		} else if (tok_ident(t, "typedef")) {
			ret = parse_alias_decl(ps, true);
		} else if (tok_ident(t, "trace")) {
			if (ps->seen_trace) {
				return FAIL(ps, HT_ESYNTAX,
					    "more than one trace block");
			}
			ps->seen_trace = true;
			advance(ps);
			ret = parse_block(ps, ps->t, trace_entry);
		} else if (tok_ident(t, "env")) {
			advance(ps);
			ret = parse_block(ps, NULL, env_entry);
		} else if (tok_ident(t, "clock")) {
			struct ht_ctf_clock *c;

			c = ht__arena_alloc(ps->a, sizeof(*c));
			if (!c) {
				return HT_ENOMEM;
			}
			c->freq_hz = 1000000000;
			advance(ps);
			ret = parse_block(ps, c, clock_entry);
			if (!ret && !c->name) {
				return fail_at(ps, line, col, HT_ESYNTAX,
					       "clock without a name");
			}
			if (!ret && vec_push(&ps->clocks, c)) {
				return HT_ENOMEM;
			}
		} else if (tok_ident(t, "stream")) {
			struct ht__stream_class *sc;
			size_t i;

			sc = ht__arena_alloc(ps->a, sizeof(*sc));
			if (!sc) {
				return HT_ENOMEM;
			}
			advance(ps);
			ret = parse_block(ps, sc, stream_entry);
			for (i = 0; !ret && i < ps->streams.n; i++) {
				struct ht__stream_class *o = ps->streams.v[i];

				if (o->pub.id == sc->pub.id) {
					return fail_at(
					    ps, line, col, HT_ESYNTAX,
					    "duplicate stream id "
					    "%llu",
					    (unsigned long long)sc->pub.id);
				}
			}
			if (!ret && vec_push(&ps->streams, sc)) {
				return HT_ENOMEM;
			}
		} else if (tok_ident(t, "event")) {
			struct pending_event *pe;

			pe = ht__arena_alloc(ps->a, sizeof(*pe));
			if (!pe) {
				return HT_ENOMEM;
			}
			pe->ec = ht__arena_alloc(ps->a, sizeof(*pe->ec));
			if (!pe->ec) {
				return HT_ENOMEM;
			}
			pe->line = line;
			pe->col = col;
			advance(ps);
			ret = parse_block(ps, pe, event_entry);
			if (!ret && !pe->ec->pub.name) {
				return fail_at(ps, line, col, HT_ESYNTAX,
					       "event without a name");
			}
			if (!ret && vec_push(&ps->events, pe)) {
				return HT_ENOMEM;
			}
		} else if (tok_ident(t, "callsite")) {
			warn_once(ps, "callsite", line, col);
			advance(ps);
			ret = skip_block(ps);
		} else if (tok_is(t, ";")) {
			advance(ps);
		} else {
			const struct ht_ctf_type *type;

			/* struct/enum/variant declared by name */
			ret = parse_type(ps, &type, false);
			if (!ret) {
				ret = expect(ps, ";");
			}
		}
		if (ret) {
			return ret;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* After parsing: link everything                                   */

static int link_model(struct parser *ps)
{
	struct ht__trace *t = ps->t;
	struct ht__arena *a = ps->a;
	size_t i, j;
	const struct ht_ctf_clock **clocks;
	const struct ht_ctf_stream_class **scs;
	struct ht_ctf_env_entry *env;

	if (!ps->seen_trace) {
		return fail_at(ps, 1, 1, HT_ESYNTAX, "no trace block");
	}
	/* native byte order -> the trace's */
	for (i = 0; i < ps->types.n; i++) {
		struct ht_ctf_type *ft = ps->types.v[i];

		if (ft->byte_order == BO_NATIVE) {
			ft->byte_order = t->pub.byte_order;
		}
		if (ft->kind == HT_CTF_INT && ft->tag_ref) {
			const char *cn = ft->tag_ref;

			ft->tag_ref = NULL;
			for (j = 0; j < ps->clocks.n; j++) {
				const struct ht_ctf_clock *c = ps->clocks.v[j];

				if (!strcmp(c->name, cn)) {
					ft->mapped_clock = c;
				}
			}
			if (!ft->mapped_clock) {
				return fail_at(ps, 1, 1, HT_ESYNTAX,
					       "an integer is mapped to "
					       "clock '%s' which is not "
					       "declared",
					       cn);
			}
		}
	}
	/* enums copied their container's order at parse time */
	clocks = ht__arena_alloc(a, (ps->clocks.n + 1) * sizeof(*clocks));
	env = ht__arena_alloc(a, (ps->env.n + 1) * sizeof(*env));
	if (!clocks || !env) {
		return HT_ENOMEM;
	}
	for (i = 0; i < ps->clocks.n; i++) {
		clocks[i] = ps->clocks.v[i];
	}
	for (i = 0; i < ps->env.n; i++) {
		env[i] = *(struct ht_ctf_env_entry *)ps->env.v[i];
	}
	t->pub.clocks = clocks;
	t->pub.nr_clocks = ps->clocks.n;
	t->pub.env = env;
	t->pub.nr_env = ps->env.n;

	/* a trace with events but no stream block has one implicit */
	if (!ps->streams.n && ps->events.n) {
		struct ht__stream_class *sc = ht__arena_alloc(a, sizeof(*sc));

		if (!sc || vec_push(&ps->streams, sc)) {
			return HT_ENOMEM;
		}
	}
	scs = ht__arena_alloc(a, (ps->streams.n + 1) * sizeof(*scs));
	if (!scs) {
		return HT_ENOMEM;
	}
	for (i = 0; i < ps->streams.n; i++) {
		struct ht__stream_class *sc = ps->streams.v[i];
		const struct ht_ctf_event_class **ecs;
		size_t n = 0;

		sc->pub.trace = &t->pub;
		scs[i] = &sc->pub;
		for (j = 0; j < ps->events.n; j++) {
			struct pending_event *pe = ps->events.v[j];

			if ((!pe->has_stream_id && ps->streams.n == 1) ||
			    (pe->has_stream_id &&
			     pe->stream_id == sc->pub.id)) {
				n++;
			}
		}
		ecs = ht__arena_alloc(a, (n + 1) * sizeof(*ecs));
		if (!ecs) {
			return HT_ENOMEM;
		}
		n = 0;
		for (j = 0; j < ps->events.n; j++) {
			struct pending_event *pe = ps->events.v[j];
			size_t k;

			if (!((!pe->has_stream_id && ps->streams.n == 1) ||
			      (pe->has_stream_id &&
			       pe->stream_id == sc->pub.id))) {
				continue;
			}
			for (k = 0; k < n; k++) {
				if (ecs[k]->id == pe->ec->pub.id) {
					return fail_at(
					    ps, pe->line, pe->col, HT_ESYNTAX,
					    "duplicate event id %llu in "
					    "stream %llu",
					    (unsigned long long)pe->ec->pub.id,
					    (unsigned long long)sc->pub.id);
				}
			}
			pe->ec->pub.stream_class = &sc->pub;
			ecs[n++] = &pe->ec->pub;
		}
		sc->pub.event_classes = ecs;
		sc->pub.nr_event_classes = n;
	}
	for (j = 0; j < ps->events.n; j++) {
		struct pending_event *pe = ps->events.v[j];

		if (!pe->ec->pub.stream_class) {
			return fail_at(ps, pe->line, pe->col, HT_ESYNTAX,
				       "event '%s' belongs to no declared "
				       "stream",
				       pe->ec->pub.name);
		}
	}
	t->pub.stream_classes = scs;
	t->pub.nr_stream_classes = ps->streams.n;
	return 0;
}

int ht__tsdl_parse(struct ht__trace *trace, const char *path, const char *text,
		   size_t len, const struct ht_ctf_open_opts *opts, char *err,
		   size_t err_len)
{
	struct parser ps;
	int ret;

	memset(&ps, 0, sizeof(ps));
	ps.path = path;
	ps.t = trace;
	ps.a = &trace->arena;
	ps.err = err;
	ps.err_len = err_len;
	ps.opts = opts;
	ret = lex(&ps, text, len);
	if (!ret) {
		ret = parse_top(&ps);
	}
	if (!ret) {
		ret = link_model(&ps);
	}
	if (ret == HT_ENOMEM && err_len) {
		snprintf(err, err_len, "%s: out of memory", path);
	}
	free(ps.toks);
	free(ps.aliases);
	vec_fini(&ps.types);
	vec_fini(&ps.clocks);
	vec_fini(&ps.streams);
	vec_fini(&ps.events);
	vec_fini(&ps.env);
	vec_fini(&ps.warned);
	return ret;
}
