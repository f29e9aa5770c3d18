/* SPDX-License-Identifier: MIT */
/*
 * The C emitter's record serializer (emit-c-walk.c): walks a field type
 * and writes the C code that computes its size (WALK_SIZE) or stores it
 * (WALK_WRITE), plus the parameter lists and C structure types that
 * the tracing functions take for a scope structure.
 *
 * Record layout (docs/ctf-layout.md) is walked once per record to
 * compute its size and once to write it. While every offset is known at
 * generation time the walk is "static" (offsets from the record's body
 * pointer q); after the first field whose size or alignment is only
 * known at run time it is "dynamic" and the code keeps the bit position
 * in a variable (b: bits from the packet start; nb: size bound in bits).
 *
 * It knows field types, not streams: headers, packets and the file
 * skeleton are emit-c.c's.
 */
#ifndef HT_GEN_EMIT_C_WALK_H
#define HT_GEN_EMIT_C_WALK_H

#include <stdint.h>
#include <stdio.h>

#include "gen/config/model.h"

enum walk_mode { WALK_SIZE, WALK_WRITE };

struct walk {
	FILE *out;
	const struct ht_config *cfg;
	enum walk_mode mode;
	int indent;
	int dynamic;	     /* position known at run time only */
	uint64_t off;	     /* static bit offset from q */
	unsigned base_align; /* alignment of q in bits */
	unsigned dyn_align;  /* known alignment of b while dynamic */
	unsigned strings;    /* string length variables used so far */
	unsigned depth;	     /* loop nesting, names the indices */
	int err;
};

/*
 * Parameters. A top-level structure's members are parameters named
 * <scope>_<name>; a nested structure's members are flattened as
 * <scope>_<outer>_<inner>. An array of structures takes a pointer to a
 * generated C structure type.
 */
struct params {
	const char *prefix; /* identifier prefix */
	const char *owner;  /* "<dst>_<ert>" or "<dst>" for type names */
};

/* Default feature field types, barectf's. */
extern const struct ht_ft ht__ft_u64_a8;
extern const struct ht_ft ht__ft_u32_a8;
extern const struct ht_ft ht__ft_u8_a8;

/* One line of code at the walk's indentation. */
__attribute__((format(printf, 2, 3))) void ht__walk_line(struct walk *w,
							 const char *fmt, ...);

/* v rounded up to a (a power of two). */
uint64_t ht__align_up(uint64_t v, uint64_t a);

/* Has every instance of ft the same size (no strings, no sequences)? */
int ht__ft_fixed(const struct ht_ft *ft);

void ht__walk_init(struct walk *w, const struct ht_config *cfg,
		   enum walk_mode mode, unsigned base_align, FILE *out);

/* Moves the position to the next multiple of a bits. */
void ht__walk_align(struct walk *w, unsigned a);

/* Moves the position by bits, or by bits_expr when it is not NULL. */
void ht__walk_advance(struct walk *w, const char *bits_expr, uint64_t bits);

/* Writes an integer, enumeration or real of ft from expression v. */
void ht__walk_scalar(struct walk *w, const struct ht_ft *ft, const char *v);

/* Walks a scope structure whose members are parameters. */
void ht__walk_scope(struct walk *w, const struct ht_ft *ft, const char *path);

/* Emits the C structure types that arrays of structures take. */
void ht__emit_elem_types(FILE *out, const struct params *pp,
			 const struct ht_ft *ft, const char *path);

/* Emits the parameter list entries of a scope structure's members. */
void ht__emit_params(FILE *out, const struct params *pp, const struct ht_ft *ft,
		     const char *path);

#endif
