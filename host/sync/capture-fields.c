/* SPDX-License-Identifier: MIT */
/*
 * The fields of a handshake or message event read from its record's
 * bytes (capture-reader-internal.h), for the per-stream scan of a
 * capture, which reads classes and times only: the scopes before the
 * payload are stepped over by their types, the payload's unsigned
 * integer member is read as the reader decodes it. Types of fixed or
 * self-delimited layout only (integers, enumerations, floats, strings,
 * structures and arrays of them); the scan reads a capture with other
 * types through the trace set.
 */
#include <stdio.h>
#include <string.h>

#include "capture-reader-internal.h"

static uint64_t align_from(uint64_t base, uint64_t pos, uint64_t a)
{
	return a > 1 ? base + (pos - base + a - 1) / a * a : pos;
}

unsigned ht__type_max_align(const struct ht_ctf_type *t)
{
	unsigned a, b;
	size_t i;

	if (!t) {
		return 1;
	}
	a = t->align_bits;
	switch (t->kind) {
	case HT_CTF_ENUM:
		b = ht__type_max_align(t->container);
		break;
	case HT_CTF_STRUCT:
	case HT_CTF_VARIANT:
		b = 1;
		for (i = 0; i < t->nr_members; i++) {
			unsigned c = ht__type_max_align(t->members[i].type);

			b = c > b ? c : b;
		}
		break;
	case HT_CTF_ARRAY:
	case HT_CTF_SEQUENCE:
		b = ht__type_max_align(t->element);
		break;
	default:
		b = 1;
		break;
	}
	return a > b ? a : b;
}

bool ht__capture_walkable(const struct ht_ctf_type *t)
{
	size_t i;

	if (!t) {
		return true;
	}
	switch (t->kind) {
	case HT_CTF_INT:
	case HT_CTF_FLOAT:
	case HT_CTF_STRING:
		return true;
	case HT_CTF_ENUM:
		return t->container && t->container->kind == HT_CTF_INT;
	case HT_CTF_ARRAY:
		return ht__capture_walkable(t->element);
	case HT_CTF_STRUCT:
		for (i = 0; i < t->nr_members; i++) {
			if (!ht__capture_walkable(t->members[i].type)) {
				return false;
			}
		}
		return true;
	default:
		return false;
	}
}

/* Steps over a field of @t at *@pos; false when it ends past the
 * record. */
static bool skip(const struct ht__capture_raw *r, const struct ht_ctf_type *t,
		 uint64_t *pos)
{
	uint64_t i, n;

	if (!t) {
		return true;
	}
	*pos = align_from(r->base, *pos, ht__type_max_align(t));
	switch (t->kind) {
	case HT_CTF_INT:
	case HT_CTF_FLOAT:
		*pos += t->size_bits;
		return *pos <= r->end;
	case HT_CTF_ENUM:
		*pos += t->container->size_bits;
		return *pos <= r->end;
	case HT_CTF_STRING:
		for (n = *pos / 8; 8 * n + 8 <= r->end; n++) {
			if (!r->bytes[n]) {
				*pos = 8 * n + 8;
				return true;
			}
		}
		return false;
	case HT_CTF_ARRAY:
		for (i = 0; i < t->length; i++) {
			if (!skip(r, t->element, pos)) {
				return false;
			}
		}
		return true;
	case HT_CTF_STRUCT:
		for (i = 0; i < t->nr_members; i++) {
			if (!skip(r, t->members[i].type, pos)) {
				return false;
			}
		}
		return true;
	default:
		return false;
	}
}

/* The @bits-bit integer at bit @pos of @b in CTF's bit order. */
static uint64_t read_int(const uint8_t *b, uint64_t pos, unsigned bits, bool be,
			 bool is_signed)
{
	uint64_t v = 0, j;
	unsigned i;

	for (i = 0; i < bits; i++) {
		if (be) {
			j = pos + i;
			v = (v << 1) | ((b[j / 8] >> (7 - j % 8)) & 1u);
		} else {
			j = pos + bits - 1 - i;
			v = (v << 1) | ((b[j / 8] >> (j % 8)) & 1u);
		}
	}
	if (is_signed && bits < 64 && (v >> (bits - 1)) & 1u) {
		v |= ~UINT64_C(0) << bits;
	}
	return v;
}

/* The index of the member of @t named @name, or -1. */
static long member_index(const struct ht_ctf_type *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nr_members; i++) {
		if (!strcmp(t->members[i].name, name)) {
			return (long)i;
		}
	}
	return -1;
}

bool ht__capture_raw_uint(const struct ht__capture_raw *r, const char *name,
			  uint64_t *v)
{
	const struct ht_ctf_type *p = r->scope[2], *m, *c;
	uint64_t pos = r->body;
	char alt[32];
	long k;
	size_t i;

	if (!p || p->kind != HT_CTF_STRUCT) {
		return false;
	}
	k = member_index(p, name);
	if (k < 0) {
		/* TSDL may write a member with one leading underscore */
		snprintf(alt, sizeof(alt), "_%s", name);
		k = member_index(p, alt);
	}
	if (k < 0) {
		return false;
	}
	m = p->members[k].type;
	if (m->kind != HT_CTF_INT && m->kind != HT_CTF_ENUM) {
		return false;
	}
	if (!skip(r, r->scope[0], &pos) || !skip(r, r->scope[1], &pos)) {
		return false;
	}
	pos = align_from(r->base, pos, ht__type_max_align(p));
	for (i = 0; i < (size_t)k; i++) {
		if (!skip(r, p->members[i].type, &pos)) {
			return false;
		}
	}
	c = m->kind == HT_CTF_ENUM ? m->container : m;
	pos = align_from(r->base, pos, ht__type_max_align(m));
	if (pos + c->size_bits > r->end) {
		return false;
	}
	*v = read_int(r->bytes, pos, c->size_bits, c->byte_order == HT_CTF_BE,
		      c->is_signed);
	return true;
}
