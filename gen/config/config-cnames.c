/* SPDX-License-Identifier: MIT */
/*
 * The C names a configuration becomes: every identifier the C emitter
 * (gen/emit/emit-c.c, emit-c-walk.c) builds from the prefix and the
 * names of the configuration, checked so that a configuration the
 * loader accepts gives C that compiles:
 *   - file-scope names (functions, macros, structure tags) are unique
 *     once prefixed, and none falls in the runtime's `ht_`/`HT_` names;
 *   - the parameters of each generated function are unique once nested
 *     structures are flattened (`p_a_b` is member `a_b`, or member `b`
 *     of structure `a`);
 *   - the member names written as they are (the C structures that
 *     arrays of structures take) are no C keyword and no macro of the
 *     headers the code includes or of the compiler;
 *   - every identifier has at most MAX_C_IDENT characters.
 * Each problem is reported at the configuration name that makes it.
 *
 * The naming rules below mirror the emitter's: a change there is a
 * change here (tests/gen/test-gen-names.sh compiles what this accepts).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "config-internal.h"

/* Longer names than this do not fit the emitter's name buffers. */
#define MAX_C_IDENT 127

struct cname {
	char *name;
	struct ht_src_loc loc;
	const char *what; /* static text: "the tracing function of ..." */
	size_t seq;	  /* order of creation, for a stable report */
};

struct cnames {
	struct loader *ld;
	struct cname *v;
	size_t nr, cap;
};

/* The file-scope functions and types of every configuration. */
static const char *const fixed_names[] = {
    "packet_size",
    "packet_is_full",
    "packet_is_empty",
    "packet_events_discarded",
    "discarded_event_records_count",
    "packet_sequence_number",
    "packet_buf",
    "packet_buf_addr",
    "packet_set_buf",
    "packet_buf_size",
    "packet_is_open",
    "is_in_tracing_section",
    "is_in_tracing_section_ptr",
    "is_tracing_enabled",
    "enable_tracing",
    "set_core_id",
    "init",
    "platform_callbacks",
    "ctx",
    NULL,
};

/* C11 and C23 keywords, and the common extensions' ones. */
static const char *const c_keywords[] = {
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Alignas",
    "_Alignof",
    "_Atomic",
    "_Bool",
    "_Complex",
    "_Generic",
    "_Imaginary",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
    "alignas",
    "alignof",
    "bool",
    "constexpr",
    "false",
    "nullptr",
    "static_assert",
    "thread_local",
    "true",
    "typeof",
    "typeof_unqual",
    "asm",
    "NULL",
    "errno",
    "assert",
    "offsetof",
    /* predefined in GNU modes on some systems */
    "linux",
    "unix",
    "i386",
    "mips",
    "sparc",
    "sun",
    "vax",
    NULL,
};

static bool in_set(const char *s, const char *const *set)
{
	for (; *set; set++) {
		if (!strcmp(s, *set)) {
			return true;
		}
	}
	return false;
}

/* A macro of <stdint.h>: INT8_MAX, UINT_LEAST16_MIN, INTMAX_C, ... */
static bool is_stdint_macro(const char *s)
{
	static const char *const heads[] = {"INT",     "UINT",	     "SIZE",
					    "PTRDIFF", "SIG_ATOMIC", "WCHAR",
					    "WINT",    NULL};
	size_t i, n = strlen(s);
	const char *p;

	for (p = s; *p; p++) {
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_')) {
			return false;
		}
	}
	for (i = 0; heads[i]; i++) {
		if (!strncmp(s, heads[i], strlen(heads[i]))) {
			break;
		}
	}
	return heads[i] && n > 2 &&
	       (!strcmp(s + n - 2, "_C") ||
		(n > 4 &&
		 (!strcmp(s + n - 4, "_MAX") || !strcmp(s + n - 4, "_MIN"))));
}

/*
 * A name the C code uses as it is (a structure member): no keyword, no
 * macro of the included headers or of the compiler, nothing of the
 * implementation's (`__x`, `_X`) or the runtime's (`ht_`, `HT_`).
 */
static bool check_raw_name(struct loader *ld, const char *name,
			   const struct ht_src_loc *loc, const char *what)
{
	const char *why = NULL;

	if (in_set(name, c_keywords)) {
		why = "a C keyword or a predefined C name";
	} else if (is_stdint_macro(name)) {
		why = "a macro of <stdint.h>";
	} else if (name[0] == '_' &&
		   (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'))) {
		why = "reserved to the C implementation (`__` or `_` and "
		      "an uppercase letter first)";
	} else if (!strncmp(name, "ht_", 3) || !strncmp(name, "HT_", 3)) {
		why = "in the runtime's names (`ht_`, `HT_`)";
	}
	if (why) {
		ht__cfg_diag(ld, loc,
			     "%s `%s` is written as it is in the generated C, "
			     "where it is %s",
			     what, name, why);
		return false;
	}
	return true;
}

__attribute__((format(printf, 4, 5))) static void
add(struct cnames *cn, const struct ht_src_loc *loc, const char *what,
    const char *fmt, ...)
{
	struct ht_buf buf = {0};
	struct cname *c;
	va_list ap;

	if (cn->ld->fatal) {
		return;
	}
	va_start(ap, fmt);
	ht_buf_vprintf(&buf, fmt, ap);
	va_end(ap);
	if (ht_array_reserve((void **)&cn->v, &cn->cap, cn->nr + 1,
			     sizeof(*cn->v))) {
		ht_buf_fini(&buf);
		cn->ld->fatal = HT_ENOMEM;
		return;
	}
	c = &cn->v[cn->nr];
	c->name = ht_buf_steal(&buf, NULL);
	if (!c->name) {
		cn->ld->fatal = HT_ENOMEM;
		return;
	}
	c->loc = *loc;
	c->what = what;
	c->seq = cn->nr++;
}

static void cnames_fini(struct cnames *cn)
{
	size_t i;

	for (i = 0; i < cn->nr; i++) {
		free(cn->v[i].name);
	}
	free(cn->v);
	cn->v = NULL;
	cn->nr = cn->cap = 0;
}

static int cmp_cname(const void *a, const void *b)
{
	const struct cname *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c) {
		return c;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Reports the names of one scope that are too long, in the runtime's
 * names (file_scope) or the same as an earlier one, then empties it.
 */
static void check_scope(struct cnames *cn, bool file_scope)
{
	struct loader *ld = cn->ld;
	size_t i, first;

	for (i = 0; i < cn->nr && !ld->fatal; i++) {
		const struct cname *c = &cn->v[i];

		if (strlen(c->name) > MAX_C_IDENT) {
			ht__cfg_diag(ld, &c->loc,
				     "%s, `%.40s...`, is longer than %d "
				     "characters",
				     c->what, c->name, MAX_C_IDENT);
		} else if (file_scope && (!strncmp(c->name, "ht_", 3) ||
					  !strncmp(c->name, "HT_", 3))) {
			ht__cfg_diag(ld, &c->loc,
				     "%s, `%s`, falls in the runtime's names "
				     "(`ht_`, `HT_`)",
				     c->what, c->name);
		}
	}
	if (cn->nr) {
		qsort(cn->v, cn->nr, sizeof(*cn->v), cmp_cname);
	}
	for (i = 1, first = 0; i < cn->nr && !ld->fatal; i++) {
		const struct cname *a = &cn->v[first], *b = &cn->v[i];

		if (strcmp(a->name, b->name)) {
			first = i;
			continue;
		}
		ht__cfg_diag(ld, &b->loc,
			     "%s is `%s`, the same C name as %s (%s:%u:%u)",
			     b->what, b->name, a->what, a->loc.file,
			     a->loc.line, a->loc.col);
	}
	cnames_fini(cn);
}

/* The flat element type of nested static arrays (emit-c-walk.c's). */
static const struct ht_ft *flat_elem(const struct ht_ft *ft)
{
	while (ft->kind == HT_FT_STATIC_ARRAY) {
		ft = ft->elem;
	}
	return ft;
}

/*
 * The structure tags the arrays of structures under ft take
 * ("<prefix><owner>_<path>"), and the member names those structures
 * write as they are.
 */
static void add_elem_types(struct cnames *cn, const char *owner,
			   const struct ht_ft *ft, const char *path,
			   const struct ht_src_loc *loc)
{
	const char *p = cn->ld->cfg->prefix_ident;
	size_t i;

	if (ft->kind == HT_FT_STATIC_ARRAY || ft->kind == HT_FT_DYNAMIC_ARRAY) {
		const struct ht_ft *e = flat_elem(ft->elem);

		if (e->kind != HT_FT_STRUCT) {
			return;
		}
		add_elem_types(cn, owner, e, path, loc);
		add(cn, loc, "the C structure of an array of structures",
		    "%s%s_%s", p, owner, path);
		for (i = 0; i < e->nr_members; i++) {
			check_raw_name(cn->ld, e->members[i].name,
				       &e->members[i].loc,
				       "member of a structure in an array");
		}
		return;
	}
	if (ft->kind != HT_FT_STRUCT) {
		return;
	}
	for (i = 0; i < ft->nr_members && !cn->ld->fatal; i++) {
		char *sub = NULL;
		struct ht_buf buf = {0};

		ht_buf_printf(&buf, "%s_%s", path, ft->members[i].name);
		sub = ht_buf_steal(&buf, NULL);
		if (!sub) {
			cn->ld->fatal = HT_ENOMEM;
			return;
		}
		add_elem_types(cn, owner, ft->members[i].ft, sub,
			       &ft->members[i].loc);
		free(sub);
	}
}

/* The parameters a scope structure becomes (emit-c-walk.c's names). */
static void add_params(struct cnames *cn, const struct ht_ft *ft,
		       const char *path)
{
	size_t i;

	for (i = 0; i < ft->nr_members && !cn->ld->fatal; i++) {
		const struct ht_struct_member *m = &ft->members[i];
		struct ht_buf buf = {0};
		char *name;

		ht_buf_printf(&buf, "%s_%s", path, m->name);
		name = ht_buf_steal(&buf, NULL);
		if (!name) {
			cn->ld->fatal = HT_ENOMEM;
			return;
		}
		if (m->ft->kind == HT_FT_STRUCT) {
			add_params(cn, m->ft, name);
		} else {
			add(cn, &m->loc, "a parameter", "%s", name);
			if (m->ft->kind == HT_FT_DYNAMIC_ARRAY) {
				add(cn, &m->loc,
				    "the length parameter of a dynamic array",
				    "%s___%s_len", path, m->name);
			}
		}
		free(name);
	}
}

/* The parameters of each function, one function at a time. */
static void check_params(struct cnames *cn)
{
	const struct ht_config *cfg = cn->ld->cfg;
	size_t i, j;

	for (i = 0; i < cfg->nr_streams && !cn->ld->fatal; i++) {
		const struct ht_stream_type *st = &cfg->streams[i];

		if (st->pkt_ctx_extra) {
			add_params(cn, st->pkt_ctx_extra, "pc");
			check_scope(cn, false);
		}
		for (j = 0; j < st->nr_events && !cn->ld->fatal; j++) {
			const struct ht_event_type *ev = &st->events[j];

			if (st->ev_common_ctx) {
				add_params(cn, st->ev_common_ctx, "cc");
			}
			if (ev->spec_ctx) {
				add_params(cn, ev->spec_ctx, "sc");
			}
			if (ev->payload) {
				add_params(cn, ev->payload, "p");
			}
			check_scope(cn, false);
		}
	}
}

static void add_stream_names(struct cnames *cn, const struct ht_stream_type *st,
			     bool is_default)
{
	const char *p = cn->ld->cfg->prefix_ident;
	size_t j;

	add(cn, &st->loc, "the context structure of a data stream type",
	    "%s%s_ctx", p, st->name);
	add(cn, &st->loc, "the open function of a data stream type",
	    "%s%s_open_packet", p, st->name);
	add(cn, &st->loc, "the close function of a data stream type",
	    "%s%s_close_packet", p, st->name);
	add(cn, &st->loc, "the reserve function of a data stream type",
	    "%s%s__reserve", p, st->name);
	if (st->ev_common_ctx) {
		add_elem_types(cn, st->name, st->ev_common_ctx, "cc", &st->loc);
	}
	if (st->pkt_ctx_extra) {
		add_elem_types(cn, st->name, st->pkt_ctx_extra, "pc", &st->loc);
	}
	for (j = 0; j < st->nr_events && !cn->ld->fatal; j++) {
		const struct ht_event_type *ev = &st->events[j];
		struct ht_buf buf = {0};
		char *owner;

		add(cn, &ev->loc,
		    "the tracing function of an event record type",
		    "%s%s_trace_%s", p, st->name, ev->name);
		if (is_default) {
			add(cn, &ev->loc,
			    "the default stream's tracing macro of an event "
			    "record type",
			    "%strace_%s", p, ev->name);
		}
		ht_buf_printf(&buf, "%s_%s", st->name, ev->name);
		owner = ht_buf_steal(&buf, NULL);
		if (!owner) {
			cn->ld->fatal = HT_ENOMEM;
			return;
		}
		if (ev->spec_ctx) {
			add_elem_types(cn, owner, ev->spec_ctx, "sc", &ev->loc);
		}
		if (ev->payload) {
			add_elem_types(cn, owner, ev->payload, "p", &ev->loc);
		}
		free(owner);
	}
}

void ht__cfg_check_c_names(struct loader *ld)
{
	const struct ht_config *cfg = ld->cfg;
	const struct ht_stream_type *def = ht_config_default_stream(cfg);
	struct cnames cn = {.ld = ld};
	size_t i;

	/* Said once, rather than for every name the prefix starts. */
	if (!strncmp(cfg->prefix_ident, "ht_", 3) ||
	    !strncmp(cfg->prefix_ident, "HT_", 3)) {
		ht__cfg_diag(ld, &ld->prefix_loc,
			     "identifier prefix `%s` is in the runtime's names "
			     "(`ht_`, `HT_`)",
			     cfg->prefix_ident);
		return;
	}

	for (i = 0; fixed_names[i]; i++) {
		add(&cn, &ld->prefix_loc, "a function or type of every tracer",
		    "%s%s", cfg->prefix_ident, fixed_names[i]);
	}
	for (i = 0; i < cfg->nr_clocks; i++) {
		add(&cn, &cfg->clocks[i].loc,
		    "the read function of a clock type", "%s_clock_%s",
		    cfg->prefix_ident, cfg->clocks[i].name);
	}
	for (i = 0; i < cfg->nr_streams && !ld->fatal; i++) {
		add_stream_names(&cn, &cfg->streams[i],
				 &cfg->streams[i] == def);
	}
	check_scope(&cn, true);
	check_params(&cn);
	cnames_fini(&cn);
}
