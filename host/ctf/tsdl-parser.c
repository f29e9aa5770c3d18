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

#include "tsdl-parser.h"
#include "common/buf.h"
#include "common/error.h"

int ht__tsdl_vec_push(struct vec *v, void *p)
{
	if (ht_array_reserve((void **)&v->v, &v->cap, v->n + 1,
			     sizeof(*v->v))) {
		return HT_ENOMEM;
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

static size_t name_hash(const char *name, size_t len)
{
	uint64_t h = UINT64_C(14695981039346656037);
	size_t i;

	for (i = 0; i < len; i++) {
		h = (h ^ (unsigned char)name[i]) * UINT64_C(1099511628211);
	}
	return (size_t)(h ^ (h >> 32));
}

/* The slot of @name in @ix: its own, or the empty one ending its probe. */
static struct name_slot *index_slot(const struct name_index *ix,
				    const char *name, size_t len)
{
	size_t mask = ix->cap - 1, i = name_hash(name, len) & mask;

	for (;;) {
		struct name_slot *s = &ix->slots[i];

		if (!s->name ||
		    (s->len == len && !memcmp(s->name, name, len))) {
			return s;
		}
		i = (i + 1) & mask;
	}
}

size_t ht__tsdl_index_find(const struct name_index *ix, const char *name,
			   size_t len)
{
	const struct name_slot *s;

	if (!ix->n) {
		return NAME_NONE;
	}
	s = index_slot(ix, name, len);
	return s->name ? s->value : NAME_NONE;
}

int ht__tsdl_index_set(struct name_index *ix, const char *name, size_t len,
		       size_t value)
{
	struct name_slot *s;

	if (ix->n) {
		s = index_slot(ix, name, len);
		if (s->name) {
			s->value = value;
			return 0;
		}
	}
	if (2 * (ix->n + 1) > ix->cap) {
		struct name_index big = {NULL, ix->cap ? 2 * ix->cap : 16, 0};
		size_t i;

		big.slots = calloc(big.cap, sizeof(*big.slots));
		if (!big.slots) {
			return HT_ENOMEM;
		}
		for (i = 0; i < ix->cap; i++) {
			if (ix->slots[i].name) {
				*index_slot(&big, ix->slots[i].name,
					    ix->slots[i].len) = ix->slots[i];
			}
		}
		big.n = ix->n;
		free(ix->slots);
		*ix = big;
	}
	s = index_slot(ix, name, len);
	s->name = name;
	s->len = len;
	s->value = value;
	ix->n++;
	return 0;
}

void ht__tsdl_index_fini(struct name_index *ix)
{
	free(ix->slots);
	ix->slots = NULL;
	ix->cap = ix->n = 0;
}

int ht__tsdl_fail_at(struct parser *ps, unsigned line, unsigned col, int code,
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

void ht__tsdl_warn_once(struct parser *ps, const char *what, unsigned line,
			unsigned col)
{
	char msg[256];
	size_t i;

	for (i = 0; i < ps->warned.n; i++) {
		if (!strcmp(ps->warned.v[i], what)) {
			return;
		}
	}
	if (ht__tsdl_vec_push(&ps->warned, (void *)what)) {
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
/* Values                                                            */

int ht__tsdl_parse_value(struct parser *ps, struct value *v)
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
		    ht__tsdl_tok_desc(t, b, sizeof(b)));
}

int ht__tsdl_value_int(struct parser *ps, const struct value *v, int64_t *out)
{
	if (v->kind != V_NUM) {
		return ht__tsdl_fail_at(ps, v->line, v->col, HT_ESYNTAX,
					"expected an integer");
	}
	if (!v->neg && v->num > INT64_MAX) {
		return ht__tsdl_fail_at(ps, v->line, v->col, HT_ERANGE,
					"integer constant too large");
	}
	*out = v->neg ? (int64_t)(0 - v->num) : (int64_t)v->num;
	return 0;
}

int ht__tsdl_value_uint(struct parser *ps, const struct value *v, uint64_t *out)
{
	if (v->kind != V_NUM || v->neg) {
		return ht__tsdl_fail_at(ps, v->line, v->col, HT_ESYNTAX,
					"expected an unsigned integer");
	}
	*out = v->num;
	return 0;
}

int ht__tsdl_value_bool(struct parser *ps, const struct value *v, bool *out)
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
	return ht__tsdl_fail_at(ps, v->line, v->col, HT_ESYNTAX,
				"expected a boolean");
}

int ht__tsdl_value_bo(struct parser *ps, const struct value *v, int *bo)
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
	return ht__tsdl_fail_at(ps, v->line, v->col, HT_ESYNTAX,
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
		h = ht__tsdl_hexval((unsigned char)s[i]);
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
	char b[64];

	if (!ht__tsdl_dotted_name(ps, buf, size)) {
		return FAIL(ps, HT_ESYNTAX,
			    "expected an attribute name, found %s",
			    ht__tsdl_tok_desc(cur(ps), b, sizeof(b)));
	}
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
	ht__tsdl_enter_scope(ps);
	while (!tok_is(cur(ps), "}")) {
		char key[128];
		unsigned line = cur(ps)->line, col = cur(ps)->col;
		bool is_type;

		if (tok_ident(cur(ps), "typealias")) {
			ret = ht__tsdl_parse_alias_decl(ps, false);
		} else if (tok_ident(cur(ps), "typedef")) {
			ret = ht__tsdl_parse_alias_decl(ps, true);
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
				is_type = ht__tsdl_is_type_start(ps) &&
					  !tok_is(peek(ps, 1), ";");
				ps->i--;
			}
			if (is_type) {
				const struct ht_ctf_type *type;

				advance(ps);
				ret = ht__tsdl_parse_type(ps, &type, false);
				if (!ret) {
					ret = fn(ps, obj, key, type, NULL, line,
						 col);
				}
			} else {
				struct value v;

				ret = expect(ps, "=");
				if (!ret) {
					ret = ht__tsdl_parse_value(ps, &v);
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
	ht__tsdl_leave_scope(ps);
	return ret;
}

static int need_value(struct parser *ps, const struct value *v, const char *key,
		      unsigned line, unsigned col)
{
	if (!v) {
		return ht__tsdl_fail_at(ps, line, col, HT_ESYNTAX,
					"'%s' must be a value, not a type",
					key);
	}
	return 0;
}

static int need_type(struct parser *ps, const struct ht_ctf_type *t,
		     const char *key, unsigned line, unsigned col)
{
	if (!t) {
		return ht__tsdl_fail_at(ps, line, col, HT_ESYNTAX,
					"'%s' must be a type (use ':=')", key);
	}
	if (t->kind != HT_CTF_STRUCT) {
		return ht__tsdl_fail_at(ps, line, col, HT_ESYNTAX,
					"'%s' must be a structure", key);
	}
	return 0;
}

/*
 * The start of a block entry: when @key is one of the @n scope type
 * attributes @names, the slot of the same index in @slots gets @type
 * (which must be a structure); any other attribute must have a value
 * @v. Returns 1 when the entry is a value for the caller, else 0 (the
 * scope type is set) or an error.
 */
static int entry_start(struct parser *ps, const char *key,
		       const struct ht_ctf_type *type, const struct value *v,
		       const char *const *names,
		       const struct ht_ctf_type **const *slots, size_t n,
		       unsigned line, unsigned col)
{
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		if (!strcmp(key, names[i])) {
			ret = need_type(ps, type, key, line, col);
			*slots[i] = type;
			return ret;
		}
	}
	ret = need_value(ps, v, key, line, col);
	return ret ? ret : 1;
}

static int trace_entry(struct parser *ps, void *obj, const char *key,
		       const struct ht_ctf_type *type, const struct value *v,
		       unsigned line, unsigned col)
{
	struct ht__trace *t = obj;
	const char *const names[] = {"packet.header"};
	const struct ht_ctf_type **const slots[] = {&t->pub.packet_header};
	int ret;

	ret = entry_start(ps, key, type, v, names, slots, 1, line, col);
	if (ret <= 0) {
		return ret;
	}
	if (!strcmp(key, "major") || !strcmp(key, "minor")) {
		uint64_t u = 0;

		ret = ht__tsdl_value_uint(ps, v, &u);
		if (!ret && key[1] == 'a') {
			t->pub.major = u;
		} else if (!ret) {
			t->pub.minor = u;
		}
		return ret;
	}
	if (!strcmp(key, "uuid")) {
		if (v->kind != V_STR || parse_uuid(v->text, t->pub.uuid)) {
			return ht__tsdl_fail_at(ps, v->line, v->col, HT_ESYNTAX,
						"bad uuid");
		}
		t->pub.has_uuid = true;
		return 0;
	}
	if (!strcmp(key, "byte_order")) {
		int bo;

		ret = ht__tsdl_value_bo(ps, v, &bo);
		if (ret) {
			return ret;
		}
		if (bo == BO_NATIVE) {
			return ht__tsdl_fail_at(
			    ps, v->line, v->col, HT_ESYNTAX,
			    "the trace byte_order cannot be "
			    "native");
		}
		t->pub.byte_order = bo;
		ps->has_trace_bo = true;
		return 0;
	}
	ht__tsdl_warn_once(ps, "unknown trace attribute", line, col);
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
	/* a name given again: babeltrace2 keeps the last value */
	i = ht__tsdl_index_find(&ps->env_ix, key, strlen(key));
	if (i != NAME_NONE) {
		e = ps->env.v[i];
	} else {
		e = ht__arena_alloc(ps->a, sizeof(*e));
		if (!e) {
			return HT_ENOMEM;
		}
		e->name = ht__arena_strdup(ps->a, key);
		if (!e->name ||
		    ht__tsdl_index_set(&ps->env_ix, e->name, strlen(e->name),
				       ps->env.n) ||
		    ht__tsdl_vec_push(&ps->env, e)) {
			return HT_ENOMEM;
		}
	}
	if (v->kind == V_NUM) {
		ret = ht__tsdl_value_int(ps, v, &e->i);
		e->is_string = false;
		return ret;
	}
	e->is_string = true;
	e->str = ht__arena_strdup(ps->a, v->text);
	return e->str ? 0 : HT_ENOMEM;
}

/* A clock block being parsed: where its offset was given, for messages. */
struct pending_clock {
	struct ht_ctf_clock *c;
	unsigned line, col;
};

static int clock_entry(struct parser *ps, void *obj, const char *key,
		       const struct ht_ctf_type *type, const struct value *v,
		       unsigned line, unsigned col)
{
	struct pending_clock *pc = obj;
	struct ht_ctf_clock *c = pc->c;
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
			return ht__tsdl_fail_at(ps, v->line, v->col, HT_ESYNTAX,
						"bad uuid");
		}
		c->has_uuid = true;
		return 0;
	}
	if (!strcmp(key, "freq")) {
		ret = ht__tsdl_value_uint(ps, v, &u);
		if (!ret && !u) {
			ret = ht__tsdl_fail_at(ps, v->line, v->col, HT_ERANGE,
					       "clock frequency must not be 0");
		}
		c->freq_hz = u;
		return ret;
	}
	if (!strcmp(key, "precision")) {
		return ht__tsdl_value_uint(ps, v, &c->precision);
	}
	if (!strcmp(key, "offset_s") || !strcmp(key, "offset")) {
		pc->line = line;
		pc->col = col;
		return ht__tsdl_value_int(
		    ps, v, key[6] ? &c->offset_s : &c->offset_cycles);
	}
	if (!strcmp(key, "absolute")) {
		return ht__tsdl_value_bool(ps, v, &c->absolute);
	}
	ht__tsdl_warn_once(ps, "unknown clock attribute", line, col);
	return 0;
}

static int stream_entry(struct parser *ps, void *obj, const char *key,
			const struct ht_ctf_type *type, const struct value *v,
			unsigned line, unsigned col)
{
	struct ht__stream_class *sc = obj;
	const char *const names[] = {"packet.context", "event.header",
				     "event.context"};
	const struct ht_ctf_type **const slots[] = {&sc->pub.packet_context,
						    &sc->pub.event_header,
						    &sc->pub.event_context};
	int ret;

	ret = entry_start(ps, key, type, v, names, slots, 3, line, col);
	if (ret <= 0) {
		return ret;
	}
	if (!strcmp(key, "id")) {
		return ht__tsdl_value_uint(ps, v, &sc->pub.id);
	}
	ht__tsdl_warn_once(ps, "unknown stream attribute", line, col);
	return 0;
}

static int event_entry(struct parser *ps, void *obj, const char *key,
		       const struct ht_ctf_type *type, const struct value *v,
		       unsigned line, unsigned col)
{
	struct pending_event *pe = obj;
	struct ht__event_class *ec = pe->ec;
	const char *const names[] = {"context", "fields"};
	const struct ht_ctf_type **const slots[] = {&ec->pub.context,
						    &ec->pub.payload};
	int ret;

	ret = entry_start(ps, key, type, v, names, slots, 2, line, col);
	if (ret <= 0) {
		return ret;
	}
	if (!strcmp(key, "name")) {
		ec->pub.name = ht__arena_strdup(ps->a, v->text);
		return ec->pub.name ? 0 : HT_ENOMEM;
	}
	if (!strcmp(key, "id")) {
		return ht__tsdl_value_uint(ps, v, &ec->pub.id);
	}
	if (!strcmp(key, "stream_id")) {
		pe->has_stream_id = true;
		return ht__tsdl_value_uint(ps, v, &pe->stream_id);
	}
	if (!strcmp(key, "loglevel")) {
		ec->pub.has_loglevel = true;
		return ht__tsdl_value_int(ps, v, &ec->pub.loglevel);
	}
	if (!strcmp(key, "model.emf.uri")) {
		ec->pub.emf_uri = ht__arena_strdup(ps->a, v->text);
		return ec->pub.emf_uri ? 0 : HT_ENOMEM;
	}
	ht__tsdl_warn_once(ps, "unknown event attribute", line, col);
	return 0;
}

static int parse_top(struct parser *ps)
{
	int ret = 0;

	while (cur(ps)->kind != T_EOF) {
		struct tok *t = cur(ps);
		unsigned line = t->line, col = t->col;

		if (tok_ident(t, "typealias")) {
			ret = ht__tsdl_parse_alias_decl(ps, false);
		} else if (tok_ident(t, "typedef")) {
			ret = ht__tsdl_parse_alias_decl(ps, true);
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
			struct pending_clock pc = {NULL, line, col};
			struct ht_ctf_clock *c;
			int64_t ns;

			c = ht__arena_alloc(ps->a, sizeof(*c));
			if (!c) {
				return HT_ENOMEM;
			}
			c->freq_hz = 1000000000;
			pc.c = c;
			advance(ps);
			ret = parse_block(ps, &pc, clock_entry);
			if (!ret && !c->name) {
				return ht__tsdl_fail_at(ps, line, col,
							HT_ESYNTAX,
							"clock without a name");
			}
			/* babeltrace2 refuses such a clock too: no time of
			 * it can be given in ns from its origin */
			if (!ret && ht__clock_offset_ns(c, &ns)) {
				return ht__tsdl_fail_at(
				    ps, pc.line, pc.col, HT_ERANGE,
				    "clock '%s': offset_s = %lld plus offset = "
				    "%lld cycles at %llu Hz is out of the "
				    "64-bit nanosecond range",
				    c->name, (long long)c->offset_s,
				    (long long)c->offset_cycles,
				    (unsigned long long)c->freq_hz);
			}
			if (!ret && ht__tsdl_vec_push(&ps->clocks, c)) {
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
					return ht__tsdl_fail_at(
					    ps, line, col, HT_ESYNTAX,
					    "duplicate stream id "
					    "%llu",
					    (unsigned long long)sc->pub.id);
				}
			}
			if (!ret && ht__tsdl_vec_push(&ps->streams, sc)) {
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
				return ht__tsdl_fail_at(ps, line, col,
							HT_ESYNTAX,
							"event without a name");
			}
			if (!ret && ht__tsdl_vec_push(&ps->events, pe)) {
				return HT_ENOMEM;
			}
		} else if (tok_ident(t, "callsite")) {
			ht__tsdl_warn_once(ps, "callsite", line, col);
			advance(ps);
			ret = skip_block(ps);
		} else if (tok_is(t, ";")) {
			advance(ps);
		} else {
			const struct ht_ctf_type *type;

			/* struct/enum/variant declared by name */
			ret = ht__tsdl_parse_type(ps, &type, false);
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

/* Native byte orders become the trace's; mapped clocks are found. */
static int link_types(struct parser *ps)
{
	struct ht__trace *t = ps->t;
	size_t i, j;

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
				return ht__tsdl_fail_at(
				    ps, 1, 1, HT_ESYNTAX,
				    "an integer is mapped to clock '%s' which "
				    "is not declared",
				    cn);
			}
		}
	}
	/* enums copied their container's order at parse time */
	return 0;
}

/* The trace's clocks and env entries as arrays in the arena. */
static int link_clocks_env(struct parser *ps)
{
	struct ht__trace *t = ps->t;
	const struct ht_ctf_clock **clocks;
	struct ht_ctf_env_entry *env;
	size_t i;

	clocks = ht__arena_alloc(ps->a, (ps->clocks.n + 1) * sizeof(*clocks));
	env = ht__arena_alloc(ps->a, (ps->env.n + 1) * sizeof(*env));
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
	return 0;
}

/* Whether pending event @pe belongs to stream class @sc. */
static bool event_in(const struct parser *ps, const struct pending_event *pe,
		     const struct ht__stream_class *sc)
{
	return (!pe->has_stream_id && ps->streams.n == 1) ||
	       (pe->has_stream_id && pe->stream_id == sc->pub.id);
}

/* The event classes of stream class @sc, each id once. */
static int link_events(struct parser *ps, struct ht__stream_class *sc)
{
	const struct ht_ctf_event_class **ecs;
	size_t j, k, n = 0;

	for (j = 0; j < ps->events.n; j++) {
		if (event_in(ps, ps->events.v[j], sc)) {
			n++;
		}
	}
	ecs = ht__arena_alloc(ps->a, (n + 1) * sizeof(*ecs));
	if (!ecs) {
		return HT_ENOMEM;
	}
	n = 0;
	for (j = 0; j < ps->events.n; j++) {
		struct pending_event *pe = ps->events.v[j];

		if (!event_in(ps, pe, sc)) {
			continue;
		}
		for (k = 0; k < n; k++) {
			if (ecs[k]->id == pe->ec->pub.id) {
				return ht__tsdl_fail_at(
				    ps, pe->line, pe->col, HT_ESYNTAX,
				    "duplicate event id %llu in stream %llu",
				    (unsigned long long)pe->ec->pub.id,
				    (unsigned long long)sc->pub.id);
			}
		}
		pe->ec->pub.stream_class = &sc->pub;
		ecs[n++] = &pe->ec->pub;
	}
	sc->pub.event_classes = ecs;
	sc->pub.nr_event_classes = n;
	return 0;
}

/* The stream classes, each with its events; every event has one. */
static int link_streams(struct parser *ps)
{
	struct ht__trace *t = ps->t;
	const struct ht_ctf_stream_class **scs;
	size_t i, j;
	int ret;

	/* a trace with events but no stream block has one implicit */
	if (!ps->streams.n && ps->events.n) {
		struct ht__stream_class *sc =
		    ht__arena_alloc(ps->a, sizeof(*sc));

		if (!sc || ht__tsdl_vec_push(&ps->streams, sc)) {
			return HT_ENOMEM;
		}
	}
	scs = ht__arena_alloc(ps->a, (ps->streams.n + 1) * sizeof(*scs));
	if (!scs) {
		return HT_ENOMEM;
	}
	for (i = 0; i < ps->streams.n; i++) {
		struct ht__stream_class *sc = ps->streams.v[i];

		sc->pub.trace = &t->pub;
		scs[i] = &sc->pub;
		ret = link_events(ps, sc);
		if (ret) {
			return ret;
		}
	}
	for (j = 0; j < ps->events.n; j++) {
		struct pending_event *pe = ps->events.v[j];

		if (!pe->ec->pub.stream_class) {
			return ht__tsdl_fail_at(ps, pe->line, pe->col,
						HT_ESYNTAX,
						"event '%s' belongs to no "
						"declared stream",
						pe->ec->pub.name);
		}
	}
	t->pub.stream_classes = scs;
	t->pub.nr_stream_classes = ps->streams.n;
	return 0;
}

static int link_model(struct parser *ps)
{
	int ret;

	if (!ps->seen_trace) {
		return ht__tsdl_fail_at(ps, 1, 1, HT_ESYNTAX, "no trace block");
	}
	ret = link_types(ps);
	if (!ret) {
		ret = link_clocks_env(ps);
	}
	if (!ret) {
		ret = link_streams(ps);
	}
	return ret;
}

int ht__tsdl_parse(struct ht__trace *trace, const char *path, const char *text,
		   size_t len, const struct ht_ctf_open_opts *opts, char *err,
		   size_t err_len)
{
	struct parser ps;
	size_t i;
	int ret;

	memset(&ps, 0, sizeof(ps));
	ps.path = path;
	ps.t = trace;
	ps.a = &trace->arena;
	ps.err = err;
	ps.err_len = err_len;
	ps.opts = opts;
	ret = ht__tsdl_lex(&ps, text, len);
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
	for (i = 0; i < NR_ALIAS_KINDS; i++) {
		ht__tsdl_index_fini(&ps.alias_ix[i]);
	}
	ht__tsdl_index_fini(&ps.env_ix);
	vec_fini(&ps.types);
	vec_fini(&ps.clocks);
	vec_fini(&ps.streams);
	vec_fini(&ps.events);
	vec_fini(&ps.env);
	vec_fini(&ps.warned);
	return ret;
}
