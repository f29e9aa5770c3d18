/* SPDX-License-Identifier: MIT */
/*
 * The shape of an input event header, from its type (merge-internal.h):
 * where a record's contexts and payload begin, for the copying path of
 * the merge. Two shapes are taken, the ones CTF producers write:
 * - a structure of integers and enumerations (barectf's, hetrace's
 *   runtime's full header);
 * - the same followed by a variant on one of its enumerations whose
 *   options are structures of integers (LTTng's and hetrace's
 *   compact/extended header: a 5-bit id, then a 27-bit timestamp or a
 *   32-bit id and a 64-bit timestamp).
 * Offsets inside the header are counted from its start, which is
 * aligned on the header's alignment; a member aligned beyond it, or
 * any other member, and the shape is not taken (the record is then
 * decoded).
 */
#include <string.h>

#include "merge-internal.h"

static uint64_t align_up(uint64_t pos, uint64_t a)
{
	/* (CTF alignments are powers of two) */
	return !(a & (a - 1)) ? (pos + a - 1) & ~(a - 1)
			      : (pos + a - 1) / a * a;
}

/* The largest power of two dividing @off, at most @limit; @limit for 0. */
static uint32_t low_bit(uint64_t off, uint32_t limit)
{
	uint64_t b = off & (~off + 1);

	return !off || b > limit ? limit : (uint32_t)b;
}

static unsigned leaf_align(const struct ht_ctf_type *t)
{
	unsigned a = t->align_bits;

	if (t->kind == HT_CTF_ENUM && t->container->align_bits > a) {
		a = t->container->align_bits;
	}
	return a ? a : 1;
}

static bool is_leaf(const struct ht_ctf_type *t)
{
	return t->kind == HT_CTF_INT ||
	       (t->kind == HT_CTF_ENUM && t->container->kind == HT_CTF_INT);
}

static unsigned leaf_size(const struct ht_ctf_type *t)
{
	return t->kind == HT_CTF_ENUM ? t->container->size_bits : t->size_bits;
}

/* A structure of leaves (or one leaf): its alignment and size, laid
 * out from an aligned start; false for anything else. */
static bool fixed_struct(const struct ht_ctf_type *t, unsigned *align,
			 uint64_t *size)
{
	uint64_t pos = 0;
	unsigned a = t->align_bits ? t->align_bits : 1;
	size_t i;

	if (is_leaf(t)) {
		*align = leaf_align(t);
		*size = leaf_size(t);
		return true;
	}
	if (t->kind != HT_CTF_STRUCT) {
		return false;
	}
	for (i = 0; i < t->nr_members; i++) {
		const struct ht_ctf_type *m = t->members[i].type;

		if (!is_leaf(m)) {
			return false;
		}
		a = leaf_align(m) > a ? leaf_align(m) : a;
	}
	for (i = 0; i < t->nr_members; i++) {
		const struct ht_ctf_type *m = t->members[i].type;

		pos = align_up(pos, leaf_align(m)) + leaf_size(m);
	}
	*align = a;
	*size = pos;
	return true;
}

/* The options of variant @v by the values of its tag enumeration @e. */
static bool variant_options(struct ht__merge_header *h,
			    const struct ht_ctf_type *v,
			    const struct ht_ctf_type *e)
{
	size_t i, j, k;

	for (i = 0; i < e->nr_mappings; i++) {
		const struct ht_ctf_enum_mapping *mp = &e->mappings[i];

		for (k = 0; k < v->nr_members; k++) {
			if (!strcmp(v->members[k].name, mp->label)) {
				break;
			}
		}
		if (k == v->nr_members) {
			continue; /* (a value that selects nothing) */
		}
		for (j = 0; j < mp->nr_ranges; j++) {
			struct ht__merge_hdr_option *o;

			if (h->nr_opt == HT__MERGE_HDR_OPTIONS) {
				return false;
			}
			o = &h->opt[h->nr_opt++];
			o->lo = mp->ranges[j].lower.u;
			o->hi = mp->ranges[j].upper.u;
			if (!fixed_struct(v->members[k].type, &o->align,
					  &o->size)) {
				return false;
			}
		}
	}
	return h->nr_opt > 0;
}

bool ht__merge_header_shape(const struct ht_ctf_type *t,
			    struct ht__merge_header *h)
{
	uint64_t pos = 0;
	size_t i, n;

	memset(h, 0, sizeof(*h));
	if (!t || t->kind != HT_CTF_STRUCT || !t->nr_members) {
		return false;
	}
	h->align = t->align_bits ? t->align_bits : 1;
	n = t->nr_members;
	if (t->members[n - 1].type->kind == HT_CTF_VARIANT) {
		n--;
	}
	for (i = 0; i < n; i++) {
		const struct ht_ctf_type *m = t->members[i].type;

		if (!is_leaf(m) || leaf_align(m) > h->align) {
			return false;
		}
		pos = align_up(pos, leaf_align(m));
		if (n < t->nr_members && m->kind == HT_CTF_ENUM &&
		    !m->container->is_signed && leaf_size(m) <= 32 &&
		    !strcmp(t->members[i].name, t->members[n].type->tag_ref)) {
			h->has_var = true;
			h->tag_off = pos;
			h->tag_bits = leaf_size(m);
			h->tag_be = m->container->byte_order == HT_CTF_BE;
			if (!variant_options(h, t->members[n].type, m)) {
				return false;
			}
		}
		pos += leaf_size(m);
	}
	if (n < t->nr_members && !h->has_var) {
		return false;
	}
	h->fixed_bits = pos;
	h->body_align = low_bit(pos, h->align);
	for (i = 0; i < h->nr_opt; i++) {
		const struct ht__merge_hdr_option *o = &h->opt[i];
		uint32_t b =
		    o->align > h->align
			? low_bit(o->size, o->align)
			: low_bit(align_up(pos, o->align) + o->size, h->align);

		if (i == 0 || b < h->body_align) {
			h->body_align = b;
		}
	}
	return true;
}

/* The unsigned @bits-bit integer at bit @pos of @p (bits <= 32). */
static uint64_t read_bits(const uint8_t *p, uint64_t pos, unsigned bits,
			  bool be)
{
	const uint8_t *q = p + pos / 8;
	uint64_t w = 0;
	unsigned i, sh = (unsigned)(pos % 8);

	if (be) {
		for (i = 0; i < 8; i++) {
			w = (w << 8) | q[i];
		}
		return (w >> (64 - sh - bits)) & ((UINT64_C(1) << bits) - 1);
	}
	for (i = 0; i < 8; i++) {
		w |= (uint64_t)q[i] << (8 * i);
	}
	return (w >> sh) & ((UINT64_C(1) << bits) - 1);
}

/* @pos aligned on @a bits from @base. */
static uint64_t align_from(uint64_t base, uint64_t pos, uint64_t a)
{
	return a > 1 ? base + align_up(pos - base, a) : pos;
}

uint64_t ht__merge_header_body(const struct ht__merge_header *h,
			       const uint8_t *bytes, uint64_t packet_bits,
			       uint64_t start_bits)
{
	uint64_t pos = align_from(packet_bits, start_bits, h->align), tag;
	size_t i;

	if (!h->has_var) {
		return pos + h->fixed_bits;
	}
	tag = read_bits(bytes, pos + h->tag_off, h->tag_bits, h->tag_be);
	for (i = 0; i < h->nr_opt; i++) {
		const struct ht__merge_hdr_option *o = &h->opt[i];

		if (tag >= o->lo && tag <= o->hi) {
			pos = align_from(packet_bits, pos + h->fixed_bits,
					 o->align);
			return pos + o->size;
		}
	}
	return UINT64_MAX;
}
