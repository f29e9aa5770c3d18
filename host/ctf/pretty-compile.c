/* SPDX-License-Identifier: MIT */
/*
 * Compiled lines of the text formatter (pretty-internal.h): for an event
 * class whose scopes all have a fixed shape (no sequence, no variant),
 * the flat field arrays the reader gives always have the same layout,
 * so its line is compiled once into a list of ops, each a literal
 * (names, braces, separators, all baked in) then one value; pretty.c
 * runs them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "pretty-internal.h"

struct compiler {
	struct ht_pretty *p;
	struct ec_cache *e;
	struct op *ops;
	size_t nr_ops, cap_ops;
	struct ht_buf lits;
	size_t pending;	 /* start of the literal not attached to an op */
	size_t lead_len; /* see push_op() */
	size_t fixed_max;
	bool oom;
};

static bool fixed_shape(const struct ht_ctf_type *t)
{
	size_t i;

	switch (t->kind) {
	case HT_CTF_STRUCT:
		for (i = 0; i < t->nr_members; i++) {
			if (!fixed_shape(t->members[i].type)) {
				return false;
			}
		}
		return true;
	case HT_CTF_ARRAY:
		return fixed_shape(t->element);
	case HT_CTF_SEQUENCE:
	case HT_CTF_VARIANT:
		return false;
	default:
		return true;
	}
}

/* Entries of a fixed-shape field in the flat array. */
static uint64_t flat_size(const struct ht_ctf_type *t)
{
	uint64_t n = 1;
	size_t i;

	switch (t->kind) {
	case HT_CTF_STRUCT:
		for (i = 0; i < t->nr_members; i++) {
			n += flat_size(t->members[i].type);
		}
		return n;
	case HT_CTF_ARRAY:
		return 1 + t->length * flat_size(t->element);
	default:
		return 1;
	}
}

static void lit(struct compiler *c, const char *text)
{
	ht_buf_puts(&c->lits, text);
}

/* A new op whose literal is the next @len pending bytes; NULL when out
 * of memory. */
static struct op *push_op(struct compiler *c, enum op_kind kind, int scope,
			  size_t len)
{
	struct op *op;

	if (ht_array_reserve((void **)&c->ops, &c->cap_ops, c->nr_ops + 1,
			     sizeof(*c->ops))) {
		c->oom = true;
		return NULL;
	}
	op = &c->ops[c->nr_ops++];
	memset(op, 0, sizeof(*op));
	op->kind = (uint8_t)kind;
	op->scope = (uint8_t)scope;
	if (len > LIT_COPY) {
		/* the first literal, with the class's prefix: all but its
		 * last LIT_COPY bytes are the lead, which run_line() copies
		 * before the ops (the literals stay in e->lits) */
		c->lead_len = len - LIT_COPY;
		c->pending += c->lead_len;
		c->fixed_max += c->lead_len;
		len = LIT_COPY;
	}
	if (!c->lits.nomem) {
		memcpy(op->lit, c->lits.data + c->pending, len);
	}
	op->lit_len = (uint32_t)len;
	c->fixed_max += len;
	c->pending += len;
	return op;
}

static void emit(struct compiler *c, enum op_kind kind, int scope, bool names,
		 uint32_t idx, const struct ht_ctf_type *t, size_t max)
{
	size_t len = c->lits.len - c->pending;
	struct op *op;

	/* an op holds a literal of up to LIT_COPY bytes: a longer one
	 * goes in OP_LIT ops first; but the first one, whose lead
	 * run_line() copies itself (push_op()) */
	while (c->nr_ops && len > LIT_COPY) {
		push_op(c, OP_LIT, HT_CTF_NR_SCOPES, LIT_COPY);
		len -= LIT_COPY;
	}
	op = push_op(c, kind, scope, len);
	if (!op) {
		return;
	}
	op->names = names;
	op->off = idx * (uint32_t)sizeof(struct ht_ctf_field);
	op->type = t;
	c->fixed_max += max;
	if (kind == OP_ENUM) {
		op->enum_cache = calloc(ENUM_CACHED, sizeof(*op->enum_cache));
		if (!op->enum_cache) {
			c->oom = true;
		}
	}
}

static void lit_name(struct compiler *c, const char *name)
{
	lit(c, name[0] == '_' ? name + 1 : name);
	lit(c, " = ");
}

static void compile_field(struct compiler *c, const struct ht_ctf_type *t,
			  int scope, bool names, uint32_t *idx)
{
	uint32_t at = (*idx)++;
	uint64_t i;

	switch (t->kind) {
	case HT_CTF_INT:
		if (t->is_bool) {
			emit(c, OP_BOOL, scope, names, at, t, 5);
		} else if (t->base == 16 && t->size_bits <= 32) {
			emit(c, OP_HEX, scope, names, at, t, 16);
			/* hex shows whole digits of the value (pretty-number.h)
			 */
			if (!c->oom) {
				c->ops[c->nr_ops - 1].mask =
				    (UINT64_C(1)
				     << (t->size_bits + 3) / 4 * 4) -
				    1;
			}
		} else if (t->base == 16 || t->base == 8 || t->base == 2) {
			emit(c, OP_INT, scope, names, at, t, 72);
		} else {
			emit(c, t->is_signed ? OP_SDEC : OP_UDEC, scope, names,
			     at, t, 24);
		}
		return;
	case HT_CTF_ENUM:
		emit(c, OP_ENUM, scope, names, at, t, 0);
		return;
	case HT_CTF_FLOAT:
		emit(c, OP_FLOAT, scope, names, at, t, 64);
		return;
	case HT_CTF_STRING:
		emit(c, OP_STRING, scope, names, at, t, 0);
		return;
	case HT_CTF_STRUCT:
		if (!t->nr_members) {
			lit(c, "{ }");
			return;
		}
		lit(c, "{ ");
		for (i = 0; i < t->nr_members; i++) {
			if (i) {
				lit(c, ", ");
			}
			if (names) {
				lit_name(c, t->members[i].name);
			}
			compile_field(c, t->members[i].type, scope, names, idx);
		}
		lit(c, " }");
		return;
	case HT_CTF_SEQUENCE:
	case HT_CTF_VARIANT:
		/* one entry here; run_line shifts what follows by the
		 * field's actual size */
		emit(c,
		     is_text(t) ? OP_TEXT
		     : t->kind == HT_CTF_SEQUENCE &&
			     t->element->kind == HT_CTF_INT
			 ? OP_INTS
			 : OP_VAR,
		     scope, names, at, t, 0);
		return;
	case HT_CTF_ARRAY:
		if (is_text(t)) {
			emit(c, OP_TEXT, scope, names, at, t, 0);
			return;
		}
		if (!t->length) {
			lit(c, "[ ]");
			return;
		}
		lit(c, "[ ");
		for (i = 0; i < t->length; i++) {
			char num[32];

			if (i) {
				lit(c, ", ");
			}
			if (names) {
				snprintf(num, sizeof(num),
					 "[%llu] = ", (unsigned long long)i);
				lit(c, num);
			}
			compile_field(c, t->element, scope, names, idx);
		}
		lit(c, " ]");
		return;
	default:
		return;
	}
}

/* The packet context without the members babeltrace2 keeps for itself. */
static void compile_packet_context(struct compiler *c,
				   const struct ht_ctf_type *t, bool names)
{
	uint32_t idx = 1;
	bool first = true;
	size_t i;

	lit(c, "{ ");
	for (i = 0; i < t->nr_members; i++) {
		const struct ht_ctf_member *m = &t->members[i];

		if (ht__pretty_pc_special(m)) {
			idx += (uint32_t)flat_size(m->type);
			continue;
		}
		if (!first) {
			lit(c, ", ");
		}
		first = false;
		if (names) {
			lit_name(c, m->name);
		}
		compile_field(c, m->type, HT_CTF_SCOPE_PACKET_CONTEXT, names,
			      &idx);
	}
	lit(c, " }");
}

static const struct ht_ctf_type *
scope_type(const struct ht_ctf_event_class *cls, int s)
{
	const struct ht_ctf_stream_class *sc = cls->stream_class;

	switch (s) {
	case HT_CTF_SCOPE_PACKET_CONTEXT:
		return sc ? sc->packet_context : NULL;
	case HT_CTF_SCOPE_EVENT_COMMON_CONTEXT:
		return sc ? sc->event_context : NULL;
	case HT_CTF_SCOPE_EVENT_SPECIFIC_CONTEXT:
		return cls->context;
	case HT_CTF_SCOPE_EVENT_PAYLOAD:
		return cls->payload;
	default:
		return NULL;
	}
}

const char *const ht__pretty_scope_names[HT_CTF_NR_SCOPES] = {
    [HT_CTF_SCOPE_PACKET_CONTEXT] = "stream.packet.context = ",
    [HT_CTF_SCOPE_EVENT_COMMON_CONTEXT] = "stream.event.context = ",
    [HT_CTF_SCOPE_EVENT_SPECIFIC_CONTEXT] = "event.context = ",
    [HT_CTF_SCOPE_EVENT_PAYLOAD] = "event.fields = ",
};

void ht__pretty_compile_line(struct ht_pretty *p, struct ec_cache *e)
{
	bool hn = p->o.names & HT_PRETTY_NAME_HEADER;
	struct compiler c = {.p = p, .e = e};
	bool first = true;
	int s;

	/* the class's prefix opens the line: one copy with the first
	 * literal */
	lit(&c, "");
	ht_buf_add(&c.lits, e->prefix, e->prefix_len);
	for (s = HT_CTF_SCOPE_PACKET_CONTEXT; s < HT_CTF_NR_SCOPES; s++) {
		const struct ht_ctf_type *t = scope_type(e->cls, s);
		bool names;

		if (!t || s == HT_CTF_SCOPE_EVENT_HEADER ||
		    (s == HT_CTF_SCOPE_PACKET_CONTEXT && !e->pc_print)) {
			continue;
		}
		lit(&c, first && !hn ? " " : ", ");
		first = false;
		if (p->o.names & HT_PRETTY_NAME_SCOPE) {
			lit(&c, ht__pretty_scope_names[s]);
		}
		names = scope_has_names(p, s);
		if (t->kind != HT_CTF_STRUCT ||
		    (s == HT_CTF_SCOPE_PACKET_CONTEXT && !fixed_shape(t))) {
			emit(&c,
			     s == HT_CTF_SCOPE_PACKET_CONTEXT ? OP_PCTX
							      : OP_GENERIC,
			     s, names, 0, t, 0);
			e->scope_size[s] = 0;
			continue;
		}
		e->scope_size[s] = fixed_shape(t) ? (uint32_t)flat_size(t) : 0;
		if (s == HT_CTF_SCOPE_PACKET_CONTEXT) {
			compile_packet_context(&c, t, names);
		} else {
			uint32_t idx = 0;

			compile_field(&c, t, s, names, &idx);
		}
	}
	if (first) {
		lit(&c, hn ? ", " : " ");
	}
	lit(&c, "\n");
	emit(&c, OP_END, HT_CTF_NR_SCOPES, false, 0, NULL, 0);
	/* room for the fixed-size copy of the lead */
	lit(&c, "                                "
		"                                ");
	if (c.oom || c.lits.nomem) {
		size_t i;

		for (i = 0; i < c.nr_ops; i++) {
			if (c.ops[i].kind == OP_ENUM) {
				free(c.ops[i].enum_cache);
			}
		}
		free(c.ops);
		ht_buf_fini(&c.lits);
		return;
	}
	e->nr_checks = 0;
	for (s = HT_CTF_SCOPE_PACKET_CONTEXT; s < HT_CTF_NR_SCOPES; s++) {
		size_t i;

		for (i = 0; i < c.nr_ops && c.ops[i].scope != s; i++) {
		}
		if (i < c.nr_ops) {
			e->checks[e->nr_checks++] = (uint8_t)s;
		}
	}
	e->lead = c.lits.data;
	e->lead_len = c.lead_len;
	e->ops = c.ops;
	e->nr_ops = c.nr_ops;
	e->lits = c.lits.data;
	e->fixed_max = c.fixed_max;
}

void ht__pretty_free_line(struct ec_cache *e)
{
	size_t i, j;

	for (i = 0; i < e->nr_ops; i++) {
		if (e->ops[i].kind != OP_ENUM || !e->ops[i].enum_cache) {
			continue;
		}
		for (j = 0; j < ENUM_CACHED; j++) {
			free(e->ops[i].enum_cache[j].text);
		}
		free(e->ops[i].enum_cache);
	}
	free(e->ops);
	free(e->lits);
}
