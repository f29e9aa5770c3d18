/* SPDX-License-Identifier: MIT */
/*
 * The field walker of the text formatter (pretty-internal.h): any field
 * tree as babeltrace2 prints it, for the scopes of variable shape and
 * the events whose classes have no compiled line.
 *
 * The format facts (escapes, integer bases, enum labels) were learnt by
 * running babeltrace2 2.0 on generated traces; tests/ctf/print compares the
 * two outputs.
 */
#include <string.h>

#include "pretty-internal.h"

/* ------------------------------------------------------------------ */
/* Strings                                                             */

/*
 * babeltrace2's escapes: C escapes for the usual control characters,
 * \e for ESC, \" \' \? \\, \xNN (lowercase) for the other bytes below
 * 0x20 and for 0x7f; bytes from 0x80 are written as they are.
 */
static const char *const escapes[128] = {
    [0x07] = "\\a", [0x08] = "\\b", [0x09] = "\\t", [0x0a] = "\\n",
    [0x0b] = "\\v", [0x0c] = "\\f", [0x0d] = "\\r", [0x1b] = "\\e",
    ['"'] = "\\\"", ['\''] = "\\'", ['?'] = "\\?",  ['\\'] = "\\\\",
};

static bool needs_escape[256];

void ht__pretty_init_escapes(void)
{
	static bool done;
	int c;

	if (done) {
		return;
	}
	for (c = 0; c < 256; c++) {
		needs_escape[c] =
		    c < 0x20 || c == 0x7f || (c < 128 && escapes[c]);
	}
	done = true;
}

static const char hex_lower[] = "0123456789abcdef";

/* @c, escaped when it must be; room for 4 bytes. */
static inline char *out_escaped_byte(char *o, unsigned char c)
{
	if (!needs_escape[c]) {
		*o = (char)c;
		return o + 1;
	}
	if (escapes[c]) {
		return out_mem(o, escapes[c], 2);
	}
	o[0] = '\\';
	o[1] = 'x';
	o[2] = hex_lower[c >> 4];
	o[3] = hex_lower[c & 0xf];
	return o + 4;
}

/* The bytes of @w that need an escape have their high bit set in the
 * result: those below 0x20, 0x7f and the four escaped punctuations.
 * Bytes from 0x80 are never flagged (haszero and hasless of "Bit
 * Twiddling Hacks", exact for the question "any?"). */
static inline uint64_t word_needs_escape(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ull;
	const uint64_t highs = 0x8080808080808080ull;
	uint64_t hit = w - ones * 0x20; /* below 0x20 */
	uint64_t x;

	x = w ^ (ones * '"');
	hit |= x - ones;
	x = w ^ (ones * '\'');
	hit |= x - ones;
	x = w ^ (ones * '?');
	hit |= x - ones;
	x = w ^ (ones * '\\');
	hit |= x - ones;
	x = w ^ (ones * 0x7f);
	hit |= x - ones;
	return hit & ~w & highs;
}

/* The bytes @s[@i..@n) escaped, then the closing quote. */
static inline char *out_escaped_tail(char *o, const char *s, size_t i, size_t n)
{
	for (; i < n; i++) {
		o = out_escaped_byte(o, (unsigned char)s[i]);
	}
	*o++ = '"';
	return o;
}

/* ht__pretty_out_escaped() of 8 bytes or more: whole words copied at
 * once while none of their bytes needs an escape. Out of line: its
 * constants would cost the short strings' path the saving and
 * restoring of registers. */
static __attribute__((noinline)) char *out_escaped_long(char *o, const char *s,
							size_t n)
{
	size_t i;

	*o++ = '"';
	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		if (word_needs_escape(w)) {
			break;
		}
		memcpy(o, &w, 8);
		o += 8;
	}
	return out_escaped_tail(o, s, i, n);
}

char *ht__pretty_out_escaped(char *o, const char *s, size_t n)
{
	if (n >= 8) {
		return out_escaped_long(o, s, n);
	}
	*o++ = '"';
	return out_escaped_tail(o, s, 0, n);
}

int ht__pretty_put_escaped(struct ht_pretty *p, const char *s, size_t n)
{
	int ret = reserve(p, 4 * n + 4);

	if (ret) {
		return ret;
	}
	p->out.len =
	    (size_t)(ht__pretty_out_escaped(p->out.data + p->out.len, s, n) -
		     p->out.data);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Fields                                                              */

static inline void put_name(struct ht_pretty *p, const char *name)
{
	size_t n;

	/* CTF 1.8: a leading underscore only protects a keyword */
	if (name[0] == '_') {
		name++;
	}
	n = strlen(name);
	put(p, name, n);
	PUT_LIT(p, " = ");
}

static void put_int(struct ht_pretty *p, const struct ht_ctf_type *t,
		    uint64_t raw)
{
	p->out.len =
	    (size_t)(out_int(p->out.data + p->out.len, t, raw) - p->out.data);
}

static bool range_has(const struct ht_ctf_enum_range *r, bool is_signed,
		      uint64_t v)
{
	if (is_signed) {
		return (int64_t)v >= r->lower.s && (int64_t)v <= r->upper.s;
	}
	return v >= r->lower.u && v <= r->upper.u;
}

int ht__pretty_put_enum(struct ht_pretty *p, const struct ht_ctf_type *t,
			uint64_t raw)
{
	const struct ht_ctf_type *c = t->container ? t->container : t;
	bool any = false;
	size_t i, j, n;
	int ret;

	/* the value without a label: "( <unknown> : container = ", up to
	 * 66 digits, " )" (a compiled line reserves nothing for an enum) */
	ret = reserve(p, 128);
	if (ret) {
		return ret;
	}
	PUT_LIT(p, "( ");
	for (i = 0; i < t->nr_mappings; i++) {
		const struct ht_ctf_enum_mapping *m = &t->mappings[i];

		for (j = 0; j < m->nr_ranges; j++) {
			if (range_has(&m->ranges[j], c->is_signed, raw)) {
				break;
			}
		}
		if (j == m->nr_ranges) {
			continue;
		}
		/* the label quoted and escaped as a string (babeltrace2),
		 * then room for the rest as above */
		n = strlen(m->label);
		ret = reserve(p, 4 * n + 128);
		if (ret) {
			return ret;
		}
		if (any) {
			PUT_LIT(p, ", ");
		}
		p->out.len =
		    (size_t)(ht__pretty_out_escaped(p->out.data + p->out.len,
						    m->label, n) -
			     p->out.data);
		any = true;
	}
	if (!any) {
		PUT_LIT(p, "<unknown>");
	}
	PUT_LIT(p, " : container = ");
	put_int(p, c, raw);
	PUT_LIT(p, " )");
	return 0;
}

char *ht__pretty_out_text(char *o, const struct ht_ctf_field *f)
{
	const struct ht_ctf_field *c = ht_ctf_field_first_child(f);
	const struct ht_ctf_field *end = c + f->nr_children;

	*o++ = '"';
	/* the children are 8-bit integers: one entry each */
	for (; c < end; c++) {
		unsigned char b = (unsigned char)c->v.u;

		if (!needs_escape[b]) {
			*o++ = (char)b;
			continue;
		}
		/* the text ends at its first NUL, which needs an escape:
		 * tested only there */
		if (!b) {
			break;
		}
		o = out_escaped_byte(o, b);
	}
	*o++ = '"';
	return o;
}

/* A text array or sequence: its bytes up to the first NUL, as a string. */
int ht__pretty_put_text(struct ht_pretty *p, const struct ht_ctf_field *f)
{
	int ret = reserve(p, 4 * (size_t)f->nr_children + 4);

	if (ret) {
		return ret;
	}
	p->out.len = (size_t)(ht__pretty_out_text(p->out.data + p->out.len, f) -
			      p->out.data);
	return 0;
}

enum label { LABEL_NONE, LABEL_NAME, LABEL_INDEX };

/* Child @i of a compound: the separator unless @first, its label, its
 * value. */
static int put_child(struct ht_pretty *p, const struct ht_ctf_field *c,
		     uint32_t i, bool first, bool names, enum label label)
{
	int ret = reserve(p, 256);

	if (ret) {
		return ret;
	}
	if (!first) {
		PUT_LIT(p, ", ");
	}
	if (names && label == LABEL_INDEX) {
		putc_(p, '[');
		put_u64(p, i);
		PUT_LIT(p, "] = ");
	} else if (names && label == LABEL_NAME && c->name) {
		put_name(p, c->name);
	}
	return ht__pretty_put_field(p, c, names);
}

/* The end of a compound after its last child: " }" or " ]". */
static int put_close(struct ht_pretty *p, char close)
{
	int ret = reserve(p, 4);

	if (ret) {
		return ret;
	}
	putc_(p, ' ');
	putc_(p, close);
	return 0;
}

/* A struct, array or variant; @label: what precedes each child. */
static int put_compound(struct ht_pretty *p, const struct ht_ctf_field *f,
			bool names, char open, char close, enum label label)
{
	const struct ht_ctf_field *c = ht_ctf_field_first_child(f);
	uint32_t i;
	int ret;

	if (!f->nr_children) {
		putc_(p, open);
		putc_(p, ' ');
		putc_(p, close);
		return 0;
	}
	putc_(p, open);
	putc_(p, ' ');
	for (i = 0; i < f->nr_children; i++, c = ht_ctf_field_next(c)) {
		ret = put_child(p, c, i, !i, names, label);
		if (ret) {
			return ret;
		}
	}
	return put_close(p, close);
}

/* " <note>" after integer field @f when the note callback gives one. */
static int put_note(struct ht_pretty *p, const struct ht_ctf_field *f)
{
	const char *n = p->note.note(p->note.arg, p->note_msg, f);
	size_t len;
	int ret;

	if (!n) {
		return 0;
	}
	len = strlen(n);
	/* room for the note and, after it, the 256 bytes the callers
	 * of ht__pretty_put_field() reserved */
	ret = reserve(p, len + 3 + 256);
	if (ret) {
		return ret;
	}
	PUT_LIT(p, " <");
	put(p, n, len);
	putc_(p, '>');
	return 0;
}

/* The caller reserved 256 bytes. */
int ht__pretty_put_field(struct ht_pretty *p, const struct ht_ctf_field *f,
			 bool names)
{
	const struct ht_ctf_type *t = f->type;

	switch (t->kind) {
	case HT_CTF_INT:
		if (t->is_bool) {
			/* as babeltrace2 2.1 prints CTF 2 booleans */
			if (f->v.u) {
				PUT_LIT(p, "true");
			} else {
				PUT_LIT(p, "false");
			}
			return 0;
		}
		put_int(p, t, f->v.u);
		return p->note_msg ? put_note(p, f) : 0;
	case HT_CTF_ENUM:
		return ht__pretty_put_enum(p, t, f->v.u);
	case HT_CTF_FLOAT: {
		p->out.len += ht__fmt_g(p->out.data + p->out.len, f->v.d);
		return 0;
	}
	case HT_CTF_STRING:
		return ht__pretty_put_escaped(p, f->v.str, f->nr_children);
	case HT_CTF_STRUCT:
		return put_compound(p, f, names, '{', '}', LABEL_NAME);
	case HT_CTF_ARRAY:
	case HT_CTF_SEQUENCE:
		if (is_text(t)) {
			return ht__pretty_put_text(p, f);
		}
		return put_compound(p, f, names, '[', ']', LABEL_INDEX);
	case HT_CTF_VARIANT:
		if (t->optional && !f->nr_children) {
			/* babeltrace2's text for an absent optional */
			PUT_LIT(p, "<none>");
			return 0;
		}
		/* babeltrace2 shows the selected option without its name,
		 * a present optional's field the same way */
		return put_compound(p, f, names, '{', '}', LABEL_NONE);
	}
	return HT_EUNSUPPORTED;
}

/* ------------------------------------------------------------------ */
/* The packet context                                                  */

int ht__pretty_put_packet_context(struct ht_pretty *p, const struct ec_cache *e,
				  const struct ht_ctf_field *f, bool names)
{
	const struct ht_ctf_field *c = ht_ctf_field_first_child(f);
	bool first = true;
	uint32_t i;
	int ret;

	PUT_LIT(p, "{ ");
	for (i = 0; i < f->nr_children; i++, c = ht_ctf_field_next(c)) {
		if (i < 64 && !(e->pc_mask & ((uint64_t)1 << i))) {
			continue;
		}
		ret = put_child(p, c, i, first, names, LABEL_NAME);
		if (ret) {
			return ret;
		}
		first = false;
	}
	return put_close(p, '}');
}

bool ht__pretty_pc_special(const struct ht_ctf_member *m)
{
	static const char *const special[] = {
	    "packet_size",   "content_size",	 "timestamp_begin",
	    "timestamp_end", "events_discarded", "packet_seq_num",
	};
	size_t i;

	if (m->type->kind != HT_CTF_INT) {
		return false;
	}
	for (i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		if (!strcmp(m->name, special[i])) {
			return true;
		}
	}
	return false;
}
