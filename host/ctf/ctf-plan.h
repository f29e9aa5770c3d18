/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CTF_PLAN_H
#define HT_HOST_CTF_PLAN_H

/*
 * Decode plans: each dynamic scope of the metadata (packet header and
 * context, event header and context, payload) compiled into a flat
 * array of ops, with the runs of fixed layout precomputed as leaves at
 * constant offsets, and the steps the scan takes over an event record.
 * A plan knows field types, their sizes, alignments and byte orders,
 * and which integers matter to the reader (lengths, tags, ids, clocks);
 * it does not know data streams, packets or positions in a file: the
 * stream layer (ctf-stream.h) executes plans against bytes.
 */
#include <stdbool.h>
#include <stdint.h>

#include "ctf-reader.h"

struct ht__event_class;
struct ht__stream_class;
struct ht__trace;

enum ht__op_kind {
	HT__OP_INT,
	HT__OP_FLOAT,
	HT__OP_STRING,
	HT__OP_STRUCT,
	HT__OP_ARRAY,
	HT__OP_SEQ,
	HT__OP_VARIANT,
	/* CTF 2 (ctf2-fields.c): a variable-length integer (a side
	 * effect like HT__OP_INT's); a UTF-16 or UTF-32 string (.size_bits
	 * the code unit, .nr a static length in bytes, .src_reg a dynamic
	 * one); an optional (its field at the next op, there when register
	 * .src_reg is not 0 (.nr_sel == 0) or in one of .sel) */
	HT__OP_VARINT,
	HT__OP_USTRING,
	HT__OP_OPTIONAL,
};

/* What a field means to the decoder (babeltrace2's special fields). */
enum ht__meaning {
	HT__M_NONE = 0,
	HT__M_MAGIC,
	HT__M_UUID,
	HT__M_STREAM_ID,
	HT__M_STREAM_INSTANCE_ID,
	HT__M_PACKET_SIZE,
	HT__M_CONTENT_SIZE,
	HT__M_TS_BEGIN,
	HT__M_TS_END,
	HT__M_DISCARDED,
	HT__M_SEQ_NUM,
	HT__M_EVENT_ID,
	HT__M_COUNT,
};

/* Fast integer paths: byte-aligned, host byte order, whole bytes. */
enum ht__fast {
	HT__FAST_NONE = 0,
	HT__FAST_U8,
	HT__FAST_U16,
	HT__FAST_U32,
	HT__FAST_U64,
};

/*
 * How one leaf (integer or float) of a fixed run is loaded: whole bytes
 * in the host's order are one load; anything else goes through shifts.
 */
enum ht__load {
	HT__LOAD_LE,  /* integer: one 8-byte load, shift, mask */
	HT__LOAD_BE,  /* the same, byte-swapped */
	HT__LOAD_F32, /* byte-aligned floats in the host's order */
	HT__LOAD_F64,
	HT__LOAD_SLOW,	/* a wide integer that may span 9 bytes */
	HT__LOAD_FSLOW, /* other floats */
};

struct ht__op;

struct ht__leaf {
	uint32_t off_bits; /* from the run's aligned start */
	uint32_t field;	   /* its field's index in the run's template */
	uint8_t load;	   /* enum ht__load */
	uint8_t size_bits;
	uint8_t bo;	    /* enum ht_ctf_byte_order */
	uint8_t side;	    /* it saves a register, a meaning or a clock */
	uint8_t meaning;    /* enum ht__meaning */
	uint8_t clock;	    /* updates the stream's default clock */
	int32_t reg;	    /* saves its value in this register, or -1 */
	uint32_t off_bytes; /* .off_bits / 8 (see ht__run's .bytes) */
	uint64_t mask;	    /* HT__LOAD_LE: the value's bits */
	uint64_t sign;	    /* sign-extension mask (1 << (size - 1)), or 0 */
};

/*
 * A run: consecutive members of a structure (or one element of an array
 * or a sequence, or a whole scope) whose layout is fixed once the run's
 * start is aligned to .align_bits: every field is at a constant offset
 * from there. One bounds check and one capacity check cover the run;
 * its fields are a copy of .tmpl with the values filled in. A run with
 * no template is one member decoded by the general interpreter.
 */
struct ht__run {
	uint32_t member_op; /* first member: op index from the parent op */
	uint32_t nr_members;
	uint32_t align_bits;
	uint32_t size_bits;
	uint32_t nr_fields;
	uint32_t nr_leaves;
	const struct ht_ctf_field *tmpl; /* NULL: general member */
	const struct ht__leaf *leaves;
	/* the first .nr_plain leaves are integers (or host-order doubles)
	 * with no side effect, loaded as HT__LOAD_LE (the first .nr_le)
	 * or HT__LOAD_BE */
	uint32_t nr_plain;
	uint32_t nr_le;
	/* .leaves + .nr_le and .leaves + .nr_plain */
	const struct ht__leaf *le_end, *plain_end;
	/* the run starts on a byte and its plain leaves too: they load
	 * without a shift (ht__run_load_plain()) */
	bool bytes;
	/* in a flat scope (struct ht__plan): where this run's fields (or
	 * its string member's field) start in the scope's fields */
	uint32_t keep_off;
	/* some leaf saves a register, a meaning or a clock (the scan
	 * loads those, skips the others): the .nr_side leaves after the
	 * plain ones */
	bool side;
	uint32_t nr_side;
	/* in a flat scope with sequences: the alignment its decoder
	 * applies to this run (or to its sequence member), 1 when the
	 * members before always leave the position aligned for it */
	uint32_t flat_align_bits;
	/* an element run of one field, a plain little-endian integer on
	 * whole bytes whose elements follow each other without padding:
	 * a flat scope loads a sequence of them in one loop */
	bool one_le;
};

struct ht__variant_sel {
	int64_t lo, hi;	 /* tag value range (compared as the tag's sign) */
	uint32_t option; /* index of the option */
};

struct ht__op {
	uint8_t kind; /* enum ht__op_kind */
	uint8_t fast; /* enum ht__fast */
	uint8_t is_signed;
	uint8_t bo;	 /* enum ht_ctf_byte_order */
	uint8_t meaning; /* enum ht__meaning */
	uint8_t clock;	 /* updates the stream's default clock */
	uint8_t side;	 /* INT: has a register, a meaning or a clock */
	uint8_t fixed;	 /* the subtree's layout and shape are constant */
	uint16_t size_bits;
	uint32_t align_bits;
	int32_t reg;	 /* saves its value in this register, or -1 */
	int32_t src_reg; /* SEQ: length register; VARIANT: tag register */
	uint32_t span;	 /* ops in this subtree, itself included */
	uint32_t nr;	 /* STRUCT: members; ARRAY: length; VARIANT: options */
	uint64_t min_bits;	       /* lower bound of the encoded size */
	uint64_t fx_bits;	       /* fixed: size from its aligned start */
	uint32_t fx_fields, fx_leaves; /* fixed: fields and leaves */
	const struct ht__run *runs;    /* STRUCT: its members as runs */
	uint32_t nr_runs;
	const struct ht__run *elem_run; /* ARRAY/SEQ: a fixed element */
	const struct ht_ctf_type *type;
	const char *name;
	const struct ht__variant_sel *sel; /* VARIANT */
	uint32_t nr_sel;
	bool tag_signed;
	const uint32_t *option_op; /* VARIANT: op index of each option */
};

/*
 * The index in .sel of variant op @op of the range that holds tag
 * value @tag (compared as the tag's sign), or .nr_sel when none does.
 */
static inline uint32_t ht__variant_select(const struct ht__op *op, uint64_t tag)
{
	uint32_t k;

	for (k = 0; k < op->nr_sel; k++) {
		const struct ht__variant_sel *sel = &op->sel[k];

		if (op->tag_signed
			? (int64_t)tag >= sel->lo && (int64_t)tag <= sel->hi
			: tag >= (uint64_t)sel->lo &&
			      tag <= (uint64_t)sel->hi) {
			break;
		}
	}
	return k;
}

struct ht__plan {
	struct ht__op *ops;
	uint32_t nr_ops;
	const struct ht__run *root_run; /* the whole scope is fixed */
	/*
	 * A flat scope: a structure whose members are fixed runs and
	 * strings. Its fields have a constant shape (.flat_tmpl, with
	 * .flat_fields fields): they are kept per stream like a fixed
	 * scope's, only the positions vary with the strings' lengths.
	 */
	const struct ht_ctf_field *flat_tmpl;
	uint32_t flat_fields;
	/*
	 * A flat scope with sequences: a structure whose members are
	 * fixed runs, strings, and arrays or sequences (.nr_var of them)
	 * of fixed elements that are never of zero bits. Its fields are
	 * kept per stream too (struct ht__keep_var), laid out again from
	 * the first sequence whose length changed. .flat_fields is then
	 * the number of fields without the elements.
	 */
	bool flat_var;
	uint32_t nr_var;
};

/*
 * One step of the scan of an event record after its header (the event
 * contexts and the payload, ctf-scan.c): the scopes' runs in order,
 * fixed runs with nothing to save merged when their relative alignment
 * makes the padding between them constant.
 */
enum ht__skip_kind {
	HT__SKIP_FIXED,	 /* align to .align_bits, then .size_bits */
	HT__SKIP_STRING, /* a null-terminated string */
	HT__SKIP_RUN,	 /* fixed run .run: some leaves save something */
	HT__SKIP_LEN,	 /* fixed run .run of .size_bits whose one saving
			  * leaf .leaf only saves a register (a length) */
	HT__SKIP_OP,	 /* op .op of .ops, walked */
	HT__SKIP_SEQ,	 /* sequence op .op of .ops: elements of .size_bits
			  * one after the other, nothing to save */
};

struct ht__skip {
	uint32_t kind; /* enum ht__skip_kind */
	uint32_t align_bits;
	uint64_t size_bits;
	const struct ht__run *run;
	const struct ht__leaf *leaf;
	const struct ht__op *ops;
	uint32_t op;
};

/*
 * A step of the scan that takes no walking, by value: HT__SKIP_FIXED,
 * HT__SKIP_STRING, HT__SKIP_LEN (.leaf a copy) or HT__SKIP_SEQ (length
 * in register .leaf.reg, elements of .size_bits > 0).
 */
struct ht__quick_step {
	uint32_t kind;
	uint32_t align_bits;
	uint64_t size_bits;
	struct ht__leaf leaf;
};

#define HT__QUICK_STEPS 4

/* What follows a record's fixed header, for the scan's dispatch. */
enum ht__shape {
	HT__SHAPE_NONE,	  /* nothing: .head_bits is the whole record */
	HT__SHAPE_FIXED,  /* .q[0], a fixed run */
	HT__SHAPE_STRING, /* .q[0], a string */
	HT__SHAPE_QUICK,  /* .q[0 ... .nr_skip - 1] */
	HT__SHAPE_STEPS,  /* .skip[], walked */
};

/*
 * What the scan needs of an event class with a fixed event header, in
 * a table by id: the next record's position depends on it, so it is one
 * load away from the id. When the record's steps are at most
 * HT__QUICK_STEPS quick ones, they are copied in: no second load.
 */
struct ht__scan_entry {
	uint64_t head_bits;	    /* see struct ht__event_class */
	struct ht__event_class *ec; /* NULL: no class has this id */
	const struct ht__skip *skip;
	uint32_t nr_skip;
	uint32_t index; /* ec's index in its stream class */
	uint32_t shape; /* enum ht__shape */
	struct ht__quick_step q[HT__QUICK_STEPS];
};

/*
 * An event header made of a fixed run holding the event id, which is
 * also the tag of a variant whose options are each one fixed run, with
 * maybe another id and a timestamp: LTTng's compact and extended
 * headers. The option whose [lo, hi] holds the tag follows the first
 * run (aligned to .align); its id, if any, replaces the tag's.
 */
#define HT__HDR_OPTIONS 4

struct ht__hdr_option {
	int64_t lo, hi;
	uint32_t align_bits;
	uint64_t size_bits;
	bool has_id, has_ts;
	struct ht__leaf id, ts; /* copies */
	const struct ht__run *run;
	/* where .run's fields start in the header's fields: after the
	 * root, the first run's, the variant's and the option's own */
	uint32_t field_base;
	uint32_t index; /* in .opt[] of its struct ht__hdr_var */
	/* the run is the timestamp alone, right after the tag, and both
	 * fit in one little-endian 64-bit load (LTTng's compact header:
	 * a 5-bit id and a 27-bit timestamp): see .tag_word */
	bool in_word;
};

/* Tag values looked up in a table (struct ht__hdr_var's .by_tag). */
#define HT__HDR_TAGS 32

struct ht__hdr_var {
	uint32_t nr; /* options; 0: the header is not one of these */
	uint32_t align_bits;
	uint64_t tag_bits; /* the first run's size */
	struct ht__leaf tag;
	const struct ht__run *tag_run; /* the first run (fields from 1) */
	/* the first run is the tag alone, little-endian from the first
	 * bit of a byte: the options .in_word load with it */
	bool tag_word;
	/* the option of each tag value below HT__HDR_TAGS, as its index
	 * in .opt plus one (0: none) */
	uint8_t by_tag[HT__HDR_TAGS];
	struct ht__hdr_option opt[HT__HDR_OPTIONS];
};

/* The option of @hv whose range holds @tag, or NULL. */
static inline const struct ht__hdr_option *
ht__hdr_option(const struct ht__hdr_var *hv, uint64_t tag)
{
	const struct ht__hdr_option *o = hv->opt, *end = o + hv->nr;

	if (tag < HT__HDR_TAGS) {
		return hv->by_tag[tag] ? &hv->opt[hv->by_tag[tag] - 1] : NULL;
	}
	for (; o < end; o++) {
		if (tag >= (uint64_t)o->lo && tag <= (uint64_t)o->hi) {
			return o;
		}
	}
	return NULL;
}

/*
 * Compiles the decode plans of parsed trace @trace (its model is
 * complete: ctf-model.h). Returns 0 or a negative HT_E... code with
 * "path: message" in @err.
 */
int ht__plan_compile_trace(struct ht__trace *trace, char *err, size_t err_len);

/* ---- between the plan compiler's files ---- */

/* @v rounded up to a multiple of @a, a power of two. */
static inline uint64_t ht__align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/*
 * Builds the fixed runs and the flat-scope template of plan @p of
 * trace @t (ctf-plan-runs.c). Returns 0 or HT_ENOMEM.
 */
int ht__plan_build_runs(struct ht__trace *t, struct ht__plan *p);

/* Fills the event header's fast-path descriptions of @sc (ctf-plan-fast.c). */
void ht__plan_fast_paths(struct ht__stream_class *sc);

/*
 * Compiles the scan steps of the event classes of @sc and, with a
 * fixed event header, its scan entries by id (ctf-plan-fast.c).
 * Returns 0 or HT_ENOMEM.
 */
int ht__plan_skips(struct ht__trace *t, struct ht__stream_class *sc);

#endif
