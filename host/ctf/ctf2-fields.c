/* SPDX-License-Identifier: MIT */
/*
 * The CTF 2 field classes that have no CTF 1.8 layout, decoded and
 * skipped for the general interpreter (ctf-fields.c) and the skipper
 * (ctf-skip.c): variable-length integers (LEB128), UTF-16 and UTF-32
 * strings (their text converted to UTF-8) and optionals. None of them
 * has a fixed layout: the plans send them through the general path,
 * so the fixed runs of CTF 1.8 classes never meet them.
 *
 * Bad data is named with the file and the offset: a LEB128 integer of
 * more than 10 bytes or 64 bits, a string that is not valid UTF-16 or
 * UTF-32 (a lone surrogate, a code point past U+10FFFF), a length that
 * is not a whole number of code units, anything past the packet
 * content.
 */
#include <stdlib.h>
#include <string.h>

#include "ctf-stream.h"
#include "common/error.h"

/* ---- the UTF-8 text of converted strings ---- */

/*
 * Chunks that never move (a field points into them), reused: the text
 * of the packet scopes ([0]) lives until the next packet, that of the
 * event scopes ([1]) until the next record. A record's text is at most
 * 3/2 of its packet content, so memory is bounded by the packets.
 */
struct chunk {
	struct chunk *next;
	size_t cap, used;
	char data[];
};

struct utext_buf {
	struct chunk *head, *cur;
	uint64_t stamp; /* the packet or record the text belongs to */
	bool used;
};

struct ht__utext {
	struct utext_buf b[2];
};

void ht__utext_free(struct ht__stream *s)
{
	size_t k;

	if (!s->utext) {
		return;
	}
	for (k = 0; k < 2; k++) {
		struct chunk *c = s->utext->b[k].head, *n;

		for (; c; c = n) {
			n = c->next;
			free(c);
		}
	}
	free(s->utext);
	s->utext = NULL;
}

/* @n bytes of text for scope buffer @fb of @s, or NULL. */
static char *utext_alloc(struct ht__stream *s, const struct ht__fieldbuf *fb,
			 size_t n)
{
	struct utext_buf *b;
	uint64_t stamp;
	struct chunk *c;

	if (!s->utext) {
		s->utext = calloc(1, sizeof(*s->utext));
		if (!s->utext) {
			return NULL;
		}
	}
	b = &s->utext->b[fb == &s->pf ? 0 : 1];
	stamp = fb == &s->pf ? s->pkt_off : s->ev_start;
	if (!b->used || b->stamp != stamp) {
		/* a new packet or record: the old text is not pointed to */
		b->cur = b->head;
		if (b->cur) {
			b->cur->used = 0;
		}
		b->stamp = stamp;
		b->used = true;
	}
	c = b->cur;
	while (c && c->cap - c->used < n) {
		c = c->next;
		if (c) {
			c->used = 0;
		}
	}
	if (!c) {
		size_t cap = n > 65536 ? n : 65536;

		c = malloc(sizeof(*c) + cap);
		if (!c) {
			return NULL;
		}
		c->cap = cap;
		c->used = 0;
		if (b->cur) {
			c->next = b->cur->next;
			b->cur->next = c;
		} else {
			c->next = b->head;
			b->head = c;
		}
	}
	b->cur = c;
	c->used += n;
	return c->data + c->used - n;
}

/* ---- variable-length integers ---- */

enum varint_err {
	VI_OK,
	VI_TRUNC, /* past the packet content */
	VI_LONG,  /* more than 10 bytes */
	VI_WIDE,  /* more than 64 bits of value */
};

/*
 * The LEB128 integer at byte-aligned bit @pos (before bit @end) into
 * *@v (sign-extended when @is_signed), its end into *@next.
 */
static enum varint_err varint_get(const uint8_t *map, uint64_t pos,
				  uint64_t end, bool is_signed, uint64_t *v,
				  uint64_t *next)
{
	const uint8_t *p = map + (pos >> 3);
	uint64_t avail = end > pos ? (end - pos) / 8 : 0;
	uint64_t x = 0;
	unsigned i, n;
	uint8_t b;

	for (i = 0;; i++) {
		if (i == 10) {
			return VI_LONG;
		}
		if (i == avail) {
			return VI_TRUNC;
		}
		b = p[i];
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			break;
		}
	}
	n = i + 1;
	if (n == 10) {
		/* the last byte holds bits 63 to 69: past bit 63 they are
		 * zeros, or copies of the sign */
		if (is_signed ? (b & 0x7f) != 0 && (b & 0x7f) != 0x7f
			      : (b & 0x7e) != 0) {
			return VI_WIDE;
		}
	} else if (is_signed && (b & 0x40)) {
		x |= ~UINT64_C(0) << (7 * n);
	}
	*v = x;
	*next = pos + 8 * (uint64_t)n;
	return VI_OK;
}

static const char *op_name(const struct ht__op *op)
{
	return op->name ? op->name : "(element)";
}

int ht__varint_decode(struct ht__stream *s, const struct ht__op *op,
		      struct ht_ctf_field *f, uint64_t pos)
{
	uint64_t v, next;

	switch (
	    varint_get(s->map, pos, s->content_end, op->is_signed, &v, &next)) {
	case VI_OK:
		break;
	case VI_TRUNC:
		return ht__stream_fail(
		    s, HT_ETRUNC, pos,
		    "variable-length integer '%s' goes past the end of the "
		    "packet content (byte %llu)",
		    op_name(op), (unsigned long long)(s->content_end / 8));
	case VI_LONG:
		return ht__stream_fail(s, HT_EFORMAT, pos,
				       "variable-length integer '%s' is longer "
				       "than 10 bytes",
				       op_name(op));
	case VI_WIDE:
		return ht__stream_fail(s, HT_ERANGE, pos,
				       "variable-length integer '%s' does not "
				       "fit in 64 bits",
				       op_name(op));
	}
	f->v.u = v;
	s->pos = next;
	ht__int_side(s, op->reg, op->meaning, op->clock, v, 64);
	return 0;
}

int ht__varint_skip(struct ht__stream *s, const struct ht__op *op, uint64_t pos)
{
	uint64_t v, next;

	if (varint_get(s->map, pos, s->content_end, op->is_signed, &v, &next)) {
		return 1;
	}
	if (op->side) {
		ht__int_side(s, op->reg, op->meaning, op->clock, v, 64);
	}
	s->pos = next;
	return 0;
}

/* ---- UTF-16 and UTF-32 strings ---- */

enum ustr_err {
	US_OK,
	US_TRUNC,   /* past the packet content */
	US_NOTERM,  /* no null code unit before the end of the content */
	US_PARTIAL, /* a length that is not whole code units */
	US_BAD,	    /* not a valid code point sequence */
};

struct ustr {
	const uint8_t *p; /* the first code unit */
	uint64_t units;	  /* code units of text (before a null one) */
	uint64_t bytes;	  /* bytes the field takes */
	uint64_t bad_at;  /* US_BAD: the byte of the bad unit from .p */
	uint32_t bad_cp;
};

static uint32_t unit_at(const uint8_t *p, unsigned ub, int bo)
{
	if (ub == 2) {
		return bo == HT_CTF_BE ? (uint32_t)p[0] << 8 | p[1]
				       : (uint32_t)p[1] << 8 | p[0];
	}
	return bo == HT_CTF_BE ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
				     (uint32_t)p[2] << 8 | p[3]
			       : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
				     (uint32_t)p[1] << 8 | p[0];
}

/*
 * The string of op @op at byte-aligned bit @pos: where its text ends
 * and how many bytes it takes, and whether its code units are valid.
 */
static enum ustr_err ustr_find(const struct ht__stream *s,
			       const struct ht__op *op, uint64_t pos,
			       struct ustr *u)
{
	const unsigned ub = op->size_bits / 8;
	const struct ht_ctf_type *t = op->type;
	uint64_t avail = s->content_end > pos ? (s->content_end - pos) / 8 : 0;
	uint64_t len, k, n;

	u->p = s->map + (pos >> 3);
	if (t->str_len == HT_CTF_STR_NUL) {
		len = avail - avail % ub;
	} else {
		len = t->str_len == HT_CTF_STR_STATIC ? op->nr
						      : s->regs[op->src_reg];
		if (len % ub) {
			u->bytes = len;
			return US_PARTIAL;
		}
		if (len > avail) {
			u->bytes = len;
			return US_TRUNC;
		}
	}
	n = len / ub;
	for (k = 0; k < n; k++) {
		uint32_t cu = unit_at(u->p + k * ub, ub, op->bo);

		if (!cu) {
			break;
		}
		if (ub == 4) {
			if (cu > 0x10ffff || (cu >= 0xd800 && cu <= 0xdfff)) {
				goto bad;
			}
		} else if (cu >= 0xd800 && cu <= 0xdbff) {
			uint32_t lo =
			    k + 1 < n ? unit_at(u->p + (k + 1) * ub, ub, op->bo)
				      : 0;

			if (lo < 0xdc00 || lo > 0xdfff) {
				goto bad;
			}
			k++;
		} else if (cu >= 0xdc00 && cu <= 0xdfff) {
			goto bad;
		}
		continue;
	bad:
		u->bad_at = k * ub;
		u->bad_cp = cu;
		return US_BAD;
	}
	u->units = k;
	if (t->str_len == HT_CTF_STR_NUL) {
		if (k == n) {
			return US_NOTERM;
		}
		u->bytes = (k + 1) * ub;
	} else {
		u->bytes = len;
	}
	return US_OK;
}

/* Writes the UTF-8 of the @u->units valid code units of @u to @o;
 * returns the end. */
static char *ustr_utf8(const struct ustr *u, unsigned ub, int bo, char *o)
{
	uint64_t k;

	for (k = 0; k < u->units; k++) {
		uint32_t cp = unit_at(u->p + k * ub, ub, bo);

		if (ub == 2 && cp >= 0xd800 && cp <= 0xdbff) {
			uint32_t lo = unit_at(u->p + (k + 1) * ub, ub, bo);

			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			k++;
		}
		if (cp < 0x80) {
			*o++ = (char)cp;
		} else if (cp < 0x800) {
			*o++ = (char)(0xc0 | cp >> 6);
			*o++ = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			*o++ = (char)(0xe0 | cp >> 12);
			*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
			*o++ = (char)(0x80 | (cp & 0x3f));
		} else {
			*o++ = (char)(0xf0 | cp >> 18);
			*o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
			*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
			*o++ = (char)(0x80 | (cp & 0x3f));
		}
	}
	return o;
}

static const char *enc_name(const struct ht__op *op)
{
	return op->size_bits == 16 ? "UTF-16" : "UTF-32";
}

int ht__ustring_decode(struct ht__stream *s, const struct ht__op *op,
		       struct ht__fieldbuf *fb, uint32_t fi, uint64_t pos)
{
	const unsigned ub = op->size_bits / 8;
	struct ustr u;
	char *text, *end;

	switch (ustr_find(s, op, pos, &u)) {
	case US_OK:
		break;
	case US_TRUNC:
		return ht__stream_fail(
		    s, HT_ETRUNC, pos,
		    "string '%s' of %llu bytes goes past the end of the "
		    "packet content (byte %llu)",
		    op_name(op), (unsigned long long)u.bytes,
		    (unsigned long long)(s->content_end / 8));
	case US_NOTERM:
		return ht__stream_fail(s, HT_ETRUNC, pos,
				       "%s string '%s' is not terminated "
				       "before the end of the packet content",
				       enc_name(op), op_name(op));
	case US_PARTIAL:
		return ht__stream_fail(
		    s, HT_EFORMAT, pos,
		    "%s string '%s' of %llu bytes: not a whole number of "
		    "%u-byte code units",
		    enc_name(op), op_name(op), (unsigned long long)u.bytes, ub);
	case US_BAD:
		return ht__stream_fail(
		    s, HT_EFORMAT, pos + 8 * u.bad_at,
		    "%s string '%s': invalid code unit 0x%04X (%s)",
		    enc_name(op), op_name(op), (unsigned)u.bad_cp,
		    ub == 2 ? "a lone surrogate"
			    : "a surrogate or past U+10FFFF");
	}
	/* at most 3 bytes of UTF-8 per 2 of UTF-16, 4 per 4 of UTF-32 */
	text = utext_alloc(s, fb, (size_t)(u.units * ub * 3 / 2) + 1);
	if (!text) {
		return ht__stream_fail(s, HT_ENOMEM, pos, "out of memory");
	}
	end = ustr_utf8(&u, ub, op->bo, text);
	*end = 0;
	fb->f[fi].v.str = text;
	fb->f[fi].nr_children = (uint32_t)(end - text);
	s->pos = pos + 8 * u.bytes;
	return 0;
}

int ht__ustring_skip(struct ht__stream *s, const struct ht__op *op,
		     uint64_t pos)
{
	struct ustr u;

	if (ustr_find(s, op, pos, &u)) {
		return 1;
	}
	s->pos = pos + 8 * u.bytes;
	return 0;
}

/* ---- optionals ---- */

/* Whether optional op @op's field is there, its selector being @sel. */
static bool optional_there(const struct ht__op *op, uint64_t sel)
{
	if (!op->nr_sel) {
		return sel != 0; /* a boolean */
	}
	return ht__variant_select(op, sel) < op->nr_sel;
}

int ht__optional_decode(struct ht__stream *s, const struct ht__op *ops,
			uint32_t i, struct ht__fieldbuf *fb, uint32_t fi,
			uint64_t pos, unsigned depth)
{
	const struct ht__op *op = &ops[i];
	int ret;

	s->pos = pos;
	if (!optional_there(op, s->regs[op->src_reg])) {
		return 0;
	}
	ret = ht__scope_decode(s, ops, i + 1, ops[i + 1].name, fb, depth + 1);
	if (ret) {
		return ret;
	}
	fb->f[fi].nr_children = 1;
	fb->f[fi].next = fb->n - fi;
	return 0;
}

int ht__optional_skip(struct ht__stream *s, const struct ht__op *ops,
		      uint32_t i, uint64_t pos)
{
	const struct ht__op *op = &ops[i];

	s->pos = pos;
	if (!optional_there(op, s->regs[op->src_reg])) {
		return 0;
	}
	return ht__skip_op(s, ops, i + 1);
}
