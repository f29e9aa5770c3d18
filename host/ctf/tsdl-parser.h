/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CTF_TSDL_PARSER_H
#define HT_HOST_CTF_TSDL_PARSER_H

/*
 * The TSDL parser's state, shared by its files: the lexer turns the
 * text into a token array (tsdl-lexer.c), type declarations are parsed
 * by tsdl-types.c, the blocks (trace, env, clock, stream, event) and
 * the linking of the model by tsdl-parser.c. The parser builds the
 * model (ctf-model.h) and nothing else: it knows no decode plan and no
 * data stream.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

/*
 * How deep types nest: a structure, variant, array or sequence is one
 * level deeper than the deepest type it holds. The parser refuses a
 * type deeper than this, and also stops its own recursion there (an
 * enumeration's container is parsed by recursion too), so no walk over
 * a type (the plan compiler, the writer, the formatter) goes deeper.
 * The plan compiler takes 64 nested structures (ctf-plan.c): the same.
 */
#define TSDL_MAX_DEPTH 64

/*
 * A hash index from names (not copied: they must outlive it) to
 * values, for the lookups a list would make quadratic (env entries,
 * enum labels, struct members, aliases). Open addressing with FNV-1a,
 * never more than half full.
 */
struct name_slot {
	const char *name; /* NULL: an empty slot */
	size_t len;
	size_t value;
};

struct name_index {
	struct name_slot *slots;
	size_t cap, n;
};

#define NAME_NONE SIZE_MAX

/* The value of @name (@len bytes) in @ix, or NAME_NONE. */
size_t ht__tsdl_index_find(const struct name_index *ix, const char *name,
			   size_t len);

/* Sets the value of @name (@len bytes) in @ix. Returns 0 or HT_ENOMEM. */
int ht__tsdl_index_set(struct name_index *ix, const char *name, size_t len,
		       size_t value);

void ht__tsdl_index_fini(struct name_index *ix);

enum { ALIAS_TYPE, ALIAS_STRUCT, ALIAS_VARIANT, ALIAS_ENUM, NR_ALIAS_KINDS };

struct alias {
	const char *name;
	int kind; /* ALIAS_... */
	const struct ht_ctf_type *type;
	unsigned depth; /* of the scope that declared it */
	size_t prev; /* the alias it hides (same name and kind) or NAME_NONE */
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
	struct name_index alias_ix[NR_ALIAS_KINDS]; /* -> the visible alias */
	unsigned depth;	    /* of the scopes of aliases */
	unsigned nest;	    /* type specifiers being parsed, one in another */
	struct vec types;   /* int/float types: native order resolved later */
	struct vec clocks;  /* struct ht_ctf_clock * */
	struct vec streams; /* struct ht__stream_class * */
	struct vec events;  /* struct ht__event_class * + stream id */
	struct vec env;	    /* struct ht_ctf_env_entry * */
	struct name_index env_ix; /* env entry name -> index in .env */
	struct vec warned;	  /* const char * names already warned about */
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

struct value {
	enum { V_NUM, V_STR, V_IDENT } kind;
	bool neg;
	uint64_t num;
	char text[256]; /* V_STR / V_IDENT (dotted path) */
	unsigned line, col;
};

/* ---- tsdl-parser.c ---- */

/* Fills the error with "path:line:col: " and the message; returns @code. */
int ht__tsdl_fail_at(struct parser *ps, unsigned line, unsigned col, int code,
		     const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The value at the current token (a number, a string, a dotted name). */
int ht__tsdl_parse_value(struct parser *ps, struct value *v);

/* @v as a byte order, a boolean, a signed or an unsigned integer; an
 * error at @v when it is not one. */
int ht__tsdl_value_bo(struct parser *ps, const struct value *v, int *bo);
int ht__tsdl_value_bool(struct parser *ps, const struct value *v, bool *out);
int ht__tsdl_value_int(struct parser *ps, const struct value *v, int64_t *out);
int ht__tsdl_value_uint(struct parser *ps, const struct value *v,
			uint64_t *out);

/* Appends @p to @v. Returns 0 or HT_ENOMEM. */
int ht__tsdl_vec_push(struct vec *v, void *p);

/* Warns (once per @what) that an unsupported construct is skipped. */
void ht__tsdl_warn_once(struct parser *ps, const char *what, unsigned line,
			unsigned col);

#define FAIL(ps, code, ...)                                                    \
	ht__tsdl_fail_at((ps), (ps)->toks[(ps)->i].line,                       \
			 (ps)->toks[(ps)->i].col, (code), __VA_ARGS__)

/* ---- tsdl-lexer.c ---- */

/* The value of hex digit @c, or -1. */
int ht__tsdl_hexval(int c);

/* Tokenizes @src (@len bytes) into ps->toks, ending with a T_EOF. */
int ht__tsdl_lex(struct parser *ps, const char *src, size_t len);

/* @t described for a message ("'name'", "a number"...), in @buf. */
const char *ht__tsdl_tok_desc(const struct tok *t, char *buf, size_t n);

/* ---- the tokens (the lexer ends them with a T_EOF) ---- */

static inline struct tok *cur(struct parser *ps)
{
	return &ps->toks[ps->i];
}

static inline struct tok *peek(struct parser *ps, size_t k)
{
	size_t j = ps->i + k;

	return &ps->toks[j < ps->nr_toks ? j : ps->nr_toks - 1];
}

static inline void advance(struct parser *ps)
{
	if (ps->toks[ps->i].kind != T_EOF) {
		ps->i++;
	}
}

static inline bool tok_is(const struct tok *t, const char *punct)
{
	return t->kind == T_PUNCT && !strcmp(t->punct, punct);
}

static inline bool tok_ident(const struct tok *t, const char *id)
{
	return t->kind == T_IDENT && t->len == strlen(id) &&
	       !memcmp(t->s, id, t->len);
}

static inline int expect(struct parser *ps, const char *punct)
{
	char b[64];

	if (!tok_is(cur(ps), punct)) {
		return FAIL(ps, HT_ESYNTAX, "expected '%s', found %s", punct,
			    ht__tsdl_tok_desc(cur(ps), b, sizeof(b)));
	}
	advance(ps);
	return 0;
}

static inline char *tok_strdup(struct parser *ps, const struct tok *t)
{
	return ht__arena_strndup(ps->a, t->s, t->len);
}

/*
 * Reads a dotted name (IDENT(.IDENT)*) at the current token into @buf
 * of @size bytes, null-terminated. Returns false at the first token
 * that does not fit that (or when the name is too long).
 */
bool ht__tsdl_dotted_name(struct parser *ps, char *buf, size_t size);

/* ---- tsdl-types.c ---- */

/* Opens a scope of aliases (a block or a compound body); closing it
 * forgets the aliases declared in it. */
void ht__tsdl_enter_scope(struct parser *ps);

/* Whether the current token starts a type specifier. */
bool ht__tsdl_is_type_start(struct parser *ps);
void ht__tsdl_leave_scope(struct parser *ps);

/* typealias TYPE := NAME;   typedef TYPE NAME[...];  */
int ht__tsdl_parse_alias_decl(struct parser *ps, bool is_typedef);

/*
 * A type specifier. With @need_declarator, a run of identifiers naming an
 * alias leaves its last identifier for the declarator.
 */
int ht__tsdl_parse_type(struct parser *ps, const struct ht_ctf_type **out,
			bool need_declarator);

#endif
