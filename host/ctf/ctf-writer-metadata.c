/* SPDX-License-Identifier: MIT */
/*
 * The `metadata` text of the CTF writer (ctf-writer-internal.h): the
 * trace, env, clock and stream blocks of the layout the stream writer
 * encodes, and the event classes written back from the reader's type
 * trees as TSDL.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ctf-writer-internal.h"

/* A TSDL string literal: quotes, backslashes and control bytes escaped. */
static void put_quoted(struct ht_buf *b, const char *s)
{
	ht_buf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			ht_buf_putc(b, '\\');
			ht_buf_putc(b, (char)c);
		} else if (c == '\n') {
			ht_buf_puts(b, "\\n");
		} else if (c < 0x20) {
			ht_buf_printf(b, "\\x%02x", c);
		} else {
			ht_buf_putc(b, (char)c);
		}
	}
	ht_buf_putc(b, '"');
}

static void put_indent(struct ht_buf *b, unsigned depth)
{
	unsigned i;

	for (i = 0; i < depth; i++) {
		ht_buf_putc(b, '\t');
	}
}

static void uuid_str(const uint8_t *u, char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* ------------------------------------------------------------------ */
/* TSDL from type trees                                                */

static void emit_type(struct ht_buf *b, const struct ht_ctf_type *t,
		      unsigned depth);

static void emit_int(struct ht_buf *b, const struct ht_ctf_type *t)
{
	ht_buf_printf(b,
		      "integer { size = %u; align = %u; signed = %s; "
		      "byte_order = %s;",
		      t->size_bits, t->align_bits,
		      t->is_signed ? "true" : "false",
		      t->byte_order == HT_CTF_BE ? "be" : "le");
	if (t->base && t->base != 10) {
		ht_buf_printf(b, " base = %u;", t->base);
	}
	if (t->encoding == HT_CTF_ENC_UTF8) {
		ht_buf_puts(b, " encoding = UTF8;");
	} else if (t->encoding == HT_CTF_ENC_ASCII) {
		ht_buf_puts(b, " encoding = ASCII;");
	}
	ht_buf_puts(b, " }");
}

static void emit_enum(struct ht_buf *b, const struct ht_ctf_type *t,
		      unsigned depth)
{
	size_t i, j;
	bool s = t->container->is_signed;

	ht_buf_puts(b, "enum : ");
	emit_int(b, t->container);
	ht_buf_puts(b, " {\n");
	for (i = 0; i < t->nr_mappings; i++) {
		const struct ht_ctf_enum_mapping *m = &t->mappings[i];

		for (j = 0; j < m->nr_ranges; j++) {
			const struct ht_ctf_enum_range *r = &m->ranges[j];

			put_indent(b, depth + 1);
			put_quoted(b, m->label);
			if (s) {
				ht_buf_printf(b, " = %" PRId64, r->lower.s);
				if (r->upper.s != r->lower.s) {
					ht_buf_printf(b, " ... %" PRId64,
						      r->upper.s);
				}
			} else {
				ht_buf_printf(b, " = %" PRIu64, r->lower.u);
				if (r->upper.u != r->lower.u) {
					ht_buf_printf(b, " ... %" PRIu64,
						      r->upper.u);
				}
			}
			ht_buf_puts(b, ",\n");
		}
	}
	put_indent(b, depth);
	ht_buf_puts(b, "}");
}

/* A member declaration: `type name[dims];`, arrays unfolded. */
static void emit_member(struct ht_buf *b, const char *name,
			const struct ht_ctf_type *t, unsigned depth)
{
	const struct ht_ctf_type *base = t;

	while (base->kind == HT_CTF_ARRAY || base->kind == HT_CTF_SEQUENCE) {
		base = base->element;
	}
	put_indent(b, depth);
	emit_type(b, base, depth);
	ht_buf_printf(b, " %s", name);
	for (; t != base; t = t->element) {
		if (t->kind == HT_CTF_ARRAY) {
			ht_buf_printf(b, "[%" PRIu64 "]", t->length);
		} else {
			ht_buf_printf(b, "[%s]", t->length_ref);
		}
	}
	ht_buf_puts(b, ";\n");
}

static void emit_type(struct ht_buf *b, const struct ht_ctf_type *t,
		      unsigned depth)
{
	size_t i;

	switch (t->kind) {
	case HT_CTF_INT:
		emit_int(b, t);
		break;
	case HT_CTF_ENUM:
		emit_enum(b, t, depth);
		break;
	case HT_CTF_FLOAT:
		ht_buf_printf(b,
			      "floating_point { exp_dig = %u; mant_dig = %u; "
			      "byte_order = %s; align = %u; }",
			      t->exp_dig, t->mant_dig,
			      t->byte_order == HT_CTF_BE ? "be" : "le",
			      t->align_bits);
		break;
	case HT_CTF_STRING:
		ht_buf_printf(b, "string { encoding = %s; }",
			      t->encoding == HT_CTF_ENC_ASCII ? "ASCII"
							      : "UTF8");
		break;
	case HT_CTF_STRUCT:
	case HT_CTF_VARIANT:
		if (t->kind == HT_CTF_STRUCT) {
			ht_buf_puts(b, "struct {\n");
		} else {
			ht_buf_printf(b, "variant <%s> {\n", t->tag_ref);
		}
		for (i = 0; i < t->nr_members; i++) {
			emit_member(b, t->members[i].name, t->members[i].type,
				    depth + 1);
		}
		put_indent(b, depth);
		if (t->kind == HT_CTF_STRUCT && t->align_bits > 1) {
			ht_buf_printf(b, "} align(%u)", t->align_bits);
		} else {
			ht_buf_puts(b, "}");
		}
		break;
	case HT_CTF_ARRAY:
	case HT_CTF_SEQUENCE:
		/* only reached through emit_member */
		break;
	}
}

/*
 * A length or tag reference into a scope the writer replaces cannot be
 * carried over; every other reference is written as it was.
 */
static bool ref_is_replaced(const char *ref)
{
	return !strncmp(ref, "trace.packet.header", 19) ||
	       !strncmp(ref, "stream.packet.context", 21) ||
	       !strncmp(ref, "stream.event.header", 19);
}

const char *ht__ctf_writer_check_refs(const struct ht_ctf_type *t)
{
	const char *bad;
	size_t i;

	if (!t) {
		return NULL;
	}
	switch (t->kind) {
	case HT_CTF_SEQUENCE:
		if (t->length_ref && ref_is_replaced(t->length_ref)) {
			return t->length_ref;
		}
		return ht__ctf_writer_check_refs(t->element);
	case HT_CTF_ARRAY:
		return ht__ctf_writer_check_refs(t->element);
	case HT_CTF_VARIANT:
		if (t->tag_ref && ref_is_replaced(t->tag_ref)) {
			return t->tag_ref;
		}
		/* fall through */
	case HT_CTF_STRUCT:
		for (i = 0; i < t->nr_members; i++) {
			bad = ht__ctf_writer_check_refs(t->members[i].type);
			if (bad) {
				return bad;
			}
		}
		return NULL;
	default:
		return NULL;
	}
}

/* ------------------------------------------------------------------ */
/* The trace's blocks                                                  */

/* `\tNAME = "value";`, the value quoted. */
static void emit_string_attr(struct ht_buf *b, const char *name,
			     const char *value)
{
	ht_buf_printf(b, "\t%s = ", name);
	put_quoted(b, value);
	ht_buf_puts(b, ";\n");
}

/* `\tNAME := type;`, a scope's type. */
static void emit_scope(struct ht_buf *b, const char *name,
		       const struct ht_ctf_type *t)
{
	ht_buf_printf(b, "\t%s := ", name);
	emit_type(b, t, 1);
	ht_buf_puts(b, ";\n");
}

static void emit_trace(const struct ht_ctf_writer *w, struct ht_buf *b)
{
	char u[37];

	uuid_str(w->trace_uuid, u);
	ht_buf_printf(b,
		      "/* CTF 1.8 */\n\n"
		      "/* Written by hetrace (docs/merge.md). */\n\n"
		      "trace {\n"
		      "\tmajor = 1;\n"
		      "\tminor = 8;\n"
		      "\tuuid = \"%s\";\n"
		      "\tbyte_order = le;\n"
		      "\tpacket.header := struct {\n"
		      "\t\tinteger { size = 32; align = 8; signed = false; "
		      "byte_order = le; base = 16; } magic;\n"
		      "\t\tinteger { size = 8; align = 8; signed = false; "
		      "byte_order = le; } uuid[16];\n"
		      "\t\tinteger { size = 32; align = 8; signed = false; "
		      "byte_order = le; } stream_id;\n"
		      "\t} align(8);\n"
		      "};\n\n",
		      u);
}

static void emit_env(const struct ht_ctf_writer *w, struct ht_buf *b)
{
	size_t i;

	ht_buf_puts(b, "env {\n");
	for (i = 0; i < w->nr_env; i++) {
		if (w->env[i].str) {
			emit_string_attr(b, w->env[i].name, w->env[i].str);
		} else {
			ht_buf_printf(b, "\t%s = %" PRId64 ";\n",
				      w->env[i].name, w->env[i].i);
		}
	}
	ht_buf_puts(b, "};\n\n");
}

static void emit_clock(const struct ht_ctf_writer *w, struct ht_buf *b)
{
	char u[37];

	ht_buf_printf(b, "clock {\n\tname = %s;\n", w->clock_name);
	if (w->has_clock_uuid) {
		uuid_str(w->clock_uuid, u);
		ht_buf_printf(b, "\tuuid = \"%s\";\n", u);
	}
	if (w->clock_description) {
		emit_string_attr(b, "description", w->clock_description);
	}
	ht_buf_printf(b,
		      "\tfreq = 1000000000;\n"
		      "\tprecision = %" PRIu64 ";\n"
		      "\toffset_s = %" PRId64 ";\n"
		      "\toffset = %" PRId64 ";\n"
		      "\tabsolute = %s;\n"
		      "};\n\n",
		      w->clock_precision, w->clock_offset_s,
		      w->clock_offset_cycles,
		      w->clock_absolute ? "true" : "false");
}

/* The packet context and event header ctf-writer-stream.c writes. */
static void emit_stream_class(const struct ht_ctf_writer *w,
			      const struct wstream_class *sc, struct ht_buf *b)
{
	const char *u64 = "integer { size = 64; align = 8; signed = false; "
			  "byte_order = le; }";

	ht_buf_printf(b,
		      "stream {\n"
		      "\tid = %" PRIu64 ";\n"
		      "\tpacket.context := struct {\n"
		      "\t\t%s packet_size;\n"
		      "\t\t%s content_size;\n"
		      "\t\tinteger { size = 64; align = 8; signed = false; "
		      "byte_order = le; map = clock.%s.value; } "
		      "timestamp_begin;\n"
		      "\t\tinteger { size = 64; align = 8; signed = false; "
		      "byte_order = le; map = clock.%s.value; } "
		      "timestamp_end;\n"
		      "\t\t%s events_discarded;\n"
		      "\t\t%s packet_seq_num;\n"
		      "\t\tinteger { size = 32; align = 8; signed = false; "
		      "byte_order = le; } core_id;\n"
		      "%s"
		      "\t} align(8);\n"
		      "\tevent.header := struct {\n"
		      "\t\tinteger { size = 32; align = 8; signed = false; "
		      "byte_order = le; } id;\n"
		      "\t\tinteger { size = 64; align = %u; signed = false; "
		      "byte_order = le; map = clock.%s.value; } timestamp;\n"
		      "\t} align(%u);\n",
		      sc->id, u64, u64, w->clock_name, w->clock_name, u64, u64,
		      sc->has_cpu_id ? "\t\tinteger { size = 32; align = 8; "
				       "signed = false; byte_order = le; } "
				       "cpu_id;\n"
				     : "",
		      sc->hdr_align_bits == 64 ? 64u : 8u, w->clock_name,
		      sc->hdr_align_bits);
	if (sc->event_context) {
		emit_scope(b, "event.context", sc->event_context);
	}
	ht_buf_puts(b, "};\n\n");
}

static void emit_event_class(struct ht_buf *b, const struct wstream_class *sc,
			     const struct ht_ctf_event_class *c)
{
	ht_buf_puts(b, "event {\n");
	emit_string_attr(b, "name", c->name);
	ht_buf_printf(b, "\tid = %" PRIu64 ";\n\tstream_id = %" PRIu64 ";\n",
		      c->id, sc->id);
	if (c->has_loglevel) {
		ht_buf_printf(b, "\tloglevel = %" PRId64 ";\n", c->loglevel);
	}
	if (c->emf_uri) {
		emit_string_attr(b, "model.emf.uri", c->emf_uri);
	}
	if (c->context) {
		emit_scope(b, "context", c->context);
	}
	if (c->payload) {
		emit_scope(b, "fields", c->payload);
	}
	ht_buf_puts(b, "};\n\n");
}

void ht__ctf_writer_metadata(const struct ht_ctf_writer *w, struct ht_buf *b)
{
	size_t i, j;

	emit_trace(w, b);
	emit_env(w, b);
	emit_clock(w, b);
	for (i = 0; i < w->nr_scs; i++) {
		const struct wstream_class *sc = w->scs[i];

		emit_stream_class(w, sc, b);
		for (j = 0; j < sc->nr_classes; j++) {
			emit_event_class(b, sc, sc->classes[j]);
		}
	}
}
