/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_PRETTY_INTERNAL_H
#define HT_HOST_PRETTY_INTERNAL_H

/*
 * What the parts of the text formatter share: the formatter and its
 * per event class cache (pretty.c: events, time, the per class prefix),
 * the output buffer, the field walker (pretty-field.c) and the compiled
 * lines (pretty-compile.c builds them, pretty.c runs them).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "pretty-number.h"
#include "pretty.h"

/*
 * A compiled line: for an event class whose scopes all have a fixed
 * shape (no sequence, no variant), the flat field arrays the reader
 * gives always have the same layout, so the line is a list of ops, each
 * a literal (names, braces, separators, all baked in) then one value.
 */
enum op_kind {
	OP_UDEC, /* unsigned decimal integer */
	OP_SDEC, /* signed decimal integer */
	OP_INT,	 /* integer in another base */
	OP_HEX,	 /* hexadecimal integer of at most 32 bits */
	OP_ENUM,
	OP_BOOL, /* true or false */
	OP_FLOAT,
	OP_STRING,
	OP_TEXT,    /* text array: children are the bytes */
	OP_GENERIC, /* a whole scope of variable shape: the field walker */
	OP_VAR,	    /* a sequence or variant inside a compiled scope */
	OP_INTS,    /* a sequence of integers inside a compiled scope */
	OP_PCTX,    /* the packet context, variable shape */
	OP_LIT,	    /* only the literal: a part of a long one */
	OP_END,	    /* the end of the line */
};

/* An op's literal is at most this long, copied with one fixed-size
 * memcpy; the line's lead (the start of a long prefix) with one of
 * LEAD_COPY bytes when it is not longer. */
#define LIT_COPY 32
#define LEAD_COPY 64

/* Formatted enum values 0..ENUM_CACHED - 1, filled on first use; those
 * up to ENUM_COPY bytes long copied with one fixed-size memcpy. */
#define ENUM_CACHED 64
#define ENUM_COPY 32

struct enum_text {
	char *text;
	size_t len;
};

struct op {
	char lit[LIT_COPY]; /* the literal, copied whole: no pointer */
	uint32_t lit_len;
	/* the field's byte offset in its scope's flat array: the pointer
	 * is one add from the scope's base, without a multiply */
	uint32_t off;
	uint8_t kind;
	uint8_t scope;
	bool names;
	const struct ht_ctf_type *type;
	union {
		struct enum_text *enum_cache; /* OP_ENUM: ENUM_CACHED entries */
		uint64_t mask; /* OP_HEX: the bits babeltrace2 shows */
	};
};

/* Per event class: the text between the delta and the first scope. */
struct ec_cache {
	const struct ht_ctf_event_class *cls;
	char *prefix;
	size_t prefix_len;
	/* the compiled line (NULL: not compiled, use the walker) */
	struct op *ops;
	size_t nr_ops;
	char *lits; /* the line's text but the values; holds the lead */
	/* the text before the first op's literal (0: none) */
	const char *lead;
	size_t lead_len;
	size_t fixed_max; /* bytes the ops need at most, but strings */
	uint32_t scope_size[HT_CTF_NR_SCOPES]; /* fixed-shape scope sizes */
	/* the scopes the ops read, checked per event: present, and of
	 * size .scope_size when that is not 0 */
	uint8_t checks[HT_CTF_NR_SCOPES];
	uint8_t nr_checks;
	/* packet context members to print (bit i: member i); members past
	 * 64 are always printed */
	uint64_t pc_mask;
	bool pc_print;
	bool noted; /* its integers get notes (ht_pretty_set_note()) */
};

/* The time of day of the last second printed is copied with one
 * fixed-size memcpy of this many bytes. */
#define SEC_COPY 32

struct trace_name {
	const struct ht_ctf_trace *trace;
	char *name;
};

struct ht_pretty {
	struct ht_pretty_opts o;
	struct ht_buf out; /* the text; see reserve() */

	/* the default header options: out_timestamp_plain() applies */
	bool plain_ts;
	bool have_last;
	bool neg_warned, neg_warning;
	int64_t last_ns;
	uint64_t last_cycles;

	/* the broken-down time of the last second printed */
	bool have_sec;
	int64_t sec;
	bool sec_fast;	/* sec_ns is valid, sec_len <= SEC_COPY */
	int64_t sec_ns; /* the first ns of that second */
	char sec_text[48];
	size_t sec_len;

	struct ec_cache *ecs; /* open addressing on the class pointer */
	size_t ec_cap, ec_count;

	struct trace_name *tnames;
	size_t nr_tnames, cap_tnames;

	struct ht_pretty_note note;
	const struct ht_ctf_msg *note_msg; /* the event being noted */
};

/* ------------------------------------------------------------------ */
/* The output buffer                                                   */

/*
 * p->out is a struct ht_buf, but the hot path writes it directly, after
 * one inlined room check per line or value, instead of calling the
 * ht_buf_* writers per piece; only growing goes through
 * ht_buf_reserve(). So the data has no NUL after it.
 */

/* Room for @more bytes. Returns 0 or HT_ENOMEM. */
static inline int reserve(struct ht_pretty *p, size_t more)
{
	if (p->out.cap - p->out.len >= more) {
		return 0;
	}
	return ht_buf_reserve(&p->out, more) ? 0 : HT_ENOMEM;
}

/* Callers reserve first. */
static inline void put(struct ht_pretty *p, const char *s, size_t n)
{
	memcpy(p->out.data + p->out.len, s, n);
	p->out.len += n;
}

#define PUT_LIT(p, lit) put((p), (lit), sizeof(lit) - 1)

/* Room for @more bytes after the cursor @o, which the hot path keeps
 * instead of p->out.len: @o, moved when the buffer grew, or NULL when
 * it cannot grow. */
static inline char *room(struct ht_pretty *p, char *o, size_t more)
{
	size_t len = (size_t)(o - p->out.data);

	if (p->out.cap - len >= more) {
		return o;
	}
	p->out.len = len;
	return ht_buf_reserve(&p->out, more) ? p->out.data + len : NULL;
}

static inline void putc_(struct ht_pretty *p, char c)
{
	p->out.data[p->out.len++] = c;
}

static inline void put_u64(struct ht_pretty *p, uint64_t v)
{
	p->out.len =
	    (size_t)(out_u64(p->out.data + p->out.len, v) - p->out.data);
}

/* ------------------------------------------------------------------ */
/* Fields (pretty-field.c)                                             */

/* Fills the escape table; before the first field. */
void ht__pretty_init_escapes(void);

/* @n bytes of @s quoted and escaped at @o, which has room for
 * 4 * @n + 2 bytes. Returns the new end. */
char *ht__pretty_out_escaped(char *o, const char *s, size_t n);

/* Text array or sequence @f at @o, which has room for
 * 4 * f->nr_children + 2 bytes: as ht__pretty_put_text(). Returns the
 * new end. */
char *ht__pretty_out_text(char *o, const struct ht_ctf_field *f);

/* @n bytes of @s quoted and escaped. Returns 0 or HT_ENOMEM. */
int ht__pretty_put_escaped(struct ht_pretty *p, const char *s, size_t n);

/* An enum value: its labels and container value. Returns 0 or
 * HT_ENOMEM. */
int ht__pretty_put_enum(struct ht_pretty *p, const struct ht_ctf_type *t,
			uint64_t raw);

/* A text array or sequence @f: its bytes up to the first NUL, as a
 * string. Returns 0 or HT_ENOMEM. */
int ht__pretty_put_text(struct ht_pretty *p, const struct ht_ctf_field *f);

/* Field @f and its children, with member names when @names. The caller
 * reserved 256 bytes. Returns 0 or a negative HT_E... code. */
int ht__pretty_put_field(struct ht_pretty *p, const struct ht_ctf_field *f,
			 bool names);

/* The packet context @f without the members babeltrace2 keeps for
 * itself (e->pc_mask). The caller reserved 256 bytes. */
int ht__pretty_put_packet_context(struct ht_pretty *p, const struct ec_cache *e,
				  const struct ht_ctf_field *f, bool names);

/* A packet context member that babeltrace2 keeps for itself. */
bool ht__pretty_pc_special(const struct ht_ctf_member *m);

/* An array or sequence of 8-bit encoded integers: printed as text. */
static inline bool is_text(const struct ht_ctf_type *t)
{
	const struct ht_ctf_type *e = t->element;

	return e && e->kind == HT_CTF_INT && e->size_bits == 8 &&
	       e->encoding != HT_CTF_ENC_NONE;
}

/* ------------------------------------------------------------------ */
/* Scopes and compiled lines (pretty-compile.c)                        */

/* "event.fields = " and the others, for --names scope. */
extern const char *const ht__pretty_scope_names[HT_CTF_NR_SCOPES];

/* Whether the fields of scope @s are printed with their names. */
static inline bool scope_has_names(const struct ht_pretty *p, int s)
{
	return s == HT_CTF_SCOPE_EVENT_PAYLOAD
		   ? p->o.names & HT_PRETTY_NAME_PAYLOAD
		   : p->o.names & HT_PRETTY_NAME_CONTEXT;
}

/* Compiles the line of @e's class; leaves e->ops NULL when it cannot. */
void ht__pretty_compile_line(struct ht_pretty *p, struct ec_cache *e);

/* Frees @e's compiled line. */
void ht__pretty_free_line(struct ec_cache *e);

#endif
