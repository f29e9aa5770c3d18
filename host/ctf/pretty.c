/* SPDX-License-Identifier: MIT */
/*
 * babeltrace2's pretty text output, byte for byte, fast.
 *
 * Everything is formatted by hand into one growing buffer: integers with
 * a two-digit table, timestamps with the broken-down time cached per
 * second, the part of a line that only depends on the event class (the
 * hostname, the event name, ...) cached per event class. Only floats go
 * through snprintf("%g"), which is exactly what babeltrace2 prints.
 *
 * The format facts (escapes, integer bases, enum labels, the header
 * fields and their separators) were learnt by running babeltrace2 2.0
 * on generated traces; tests/print compares the two outputs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"
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
	OP_ENUM,
	OP_FLOAT,
	OP_STRING,
	OP_TEXT,    /* text array: children are the bytes */
	OP_GENERIC, /* a whole scope of variable shape: the field walker */
	OP_VAR,	    /* a sequence or variant inside a compiled scope */
	OP_PCTX,    /* the packet context, variable shape */
	OP_END,	    /* only the literal */
};

/* Literals up to this long are copied with one fixed-size memcpy. */
#define LIT_COPY 32

/* Formatted enum values 0..ENUM_CACHED - 1, filled on first use. */
#define ENUM_CACHED 64

struct enum_text {
	char *text;
	size_t len;
};

struct op {
	uint8_t kind;
	uint8_t scope;
	bool names;
	uint32_t lit_off, lit_len;
	uint32_t idx; /* the field's index in its scope's flat array */
	const struct ht_ctf_type *type;
	struct enum_text *enum_cache; /* OP_ENUM: ENUM_CACHED entries */
};

/* Per event class: the text between the delta and the first scope. */
struct ec_cache {
	const struct ht_ctf_event_class *cls;
	char *prefix;
	size_t prefix_len;
	/* the compiled line (NULL: not compiled, use the walker) */
	struct op *ops;
	size_t nr_ops;
	char *lits;
	size_t fixed_max; /* bytes the ops need at most, but strings */
	uint32_t scope_size[HT_CTF_NR_SCOPES]; /* fixed-shape scope sizes */
	/* packet context members to print (bit i: member i); members past
	 * 64 are always printed */
	uint64_t pc_mask;
	bool pc_print;
	bool noted; /* its integers get notes (ht_pretty_set_note()) */
};

struct trace_name {
	const struct ht_ctf_trace *trace;
	char *name;
};

struct ht_pretty {
	struct ht_pretty_opts o;
	char *buf;
	size_t len, cap;

	bool have_last;
	bool neg_warned, neg_warning;
	int64_t last_ns;
	uint64_t last_cycles;

	/* the broken-down time of the last second printed */
	bool have_sec;
	int64_t sec;
	bool sec_fast;	/* sec_ns is valid */
	int64_t sec_ns; /* the first ns of that second */
	char sec_text[48];
	size_t sec_len;

	struct ec_cache *ecs; /* open addressing on the class pointer */
	size_t ec_cap, ec_count;

	struct trace_name *tnames;
	size_t nr_tnames;

	struct ht_pretty_note note;
	const struct ht_ctf_msg *note_msg; /* the event being noted */
};

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324"
    "25262728293031323334353637383940414243444546474849"
    "50515253545556575859606162636465666768697071727374"
    "75767778798081828384858687888990919293949596979899";

/* ------------------------------------------------------------------ */
/* The buffer                                                          */

static int grow(struct ht_pretty *p, size_t more)
{
	size_t cap = p->cap ? p->cap : 1 << 16;
	char *buf;

	while (cap - p->len < more) {
		cap *= 2;
	}
	buf = realloc(p->buf, cap);
	if (!buf) {
		return HT_ENOMEM;
	}
	p->buf = buf;
	p->cap = cap;
	return 0;
}

static inline int reserve(struct ht_pretty *p, size_t more)
{
	if (p->cap - p->len >= more) {
		return 0;
	}
	return grow(p, more);
}

/* Callers reserve first. */
static inline void put(struct ht_pretty *p, const char *s, size_t n)
{
	memcpy(p->buf + p->len, s, n);
	p->len += n;
}

#define PUT_LIT(p, lit) put((p), (lit), sizeof(lit) - 1)

static inline void putc_(struct ht_pretty *p, char c)
{
	p->buf[p->len++] = c;
}

/*
 * The hot writers take a cursor and return its new end instead of
 * updating p->len: a store through a char pointer may alias p->len, so
 * with p->len the compiler reloads and stores it around every write,
 * and each write waits for the previous one's store to reach the load.
 * A cursor stays in a register. Callers reserve first.
 */
static inline char *out_mem(char *o, const void *s, size_t n)
{
	memcpy(o, s, n);
	return o + n;
}

#define OUT_LIT(o, lit) out_mem((o), (lit), sizeof(lit) - 1)

static inline unsigned digits10(uint64_t v)
{
	unsigned n = 1;

	for (;;) {
		if (v < 10) {
			return n;
		}
		if (v < 100) {
			return n + 1;
		}
		if (v < 1000) {
			return n + 2;
		}
		if (v < 10000) {
			return n + 3;
		}
		v /= 10000;
		n += 4;
	}
}

/*
 * Digits are built in a 64-bit word, the first one in the lowest byte,
 * and stored 8 bytes at once: no variable-length copy, no loop. The
 * caller has room for the 8 bytes.
 */
static inline void store_word(char *out, uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	memcpy(out, &w, 8);
}

/* Two digits of @v < 100, the first in the low byte. */
static inline uint64_t pair_word(uint32_t v)
{
	uint16_t x;

	memcpy(&x, digit_pairs + 2 * v, 2);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap16(x);
#endif
	return x;
}

/* The 8 digits of @v < 10^8 with leading zeros: two independent
 * 4-digit halves. */
static inline uint64_t digits8_word(uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	return pair_word(hi / 100) | pair_word(hi % 100) << 16 |
	       pair_word(lo / 100) << 32 | pair_word(lo % 100) << 48;
}

/* The @n (1 to 8) last digits of @v < 10^8 at @out; stores 8 bytes. */
static inline void store_digits8(char *out, uint32_t v, unsigned n)
{
	store_word(out, digits8_word(v) >> 8 * (8 - n));
}

/*
 * The @n (at most 20) last digits of @v at @out, leading zeros
 * included; may store up to 7 bytes past them. 32-bit arithmetic on
 * 8-digit chunks, much cheaper than 64-bit divisions.
 */
static inline void store_digits(char *out, uint64_t v, unsigned n)
{
	if (n > 16) {
		store_digits8(out,
			      (uint32_t)(v / 10000000000000000ull % 100000000),
			      n - 16);
		out += n - 16;
		v %= 10000000000000000ull;
		n = 16;
	}
	if (n > 8) {
		store_digits8(out, (uint32_t)(v / 100000000), n - 8);
		out += n - 8;
		v %= 100000000;
		n = 8;
	}
	store_digits8(out, (uint32_t)v, n);
}

/* Most integers in traces are small: one or two digits without the
 * 8-digit word. */
static inline char *out_u64(char *o, uint64_t v)
{
	unsigned n;

	if (v < 10) {
		*o = (char)('0' + v);
		return o + 1;
	}
	if (v < 100) {
		memcpy(o, digit_pairs + 2 * v, 2);
		return o + 2;
	}
	n = digits10(v);
	store_digits(o, v, n);
	return o + n;
}

static inline char *out_s64(char *o, int64_t v)
{
	if (v < 0) {
		*o++ = '-';
		return out_u64(o, -(uint64_t)v);
	}
	return out_u64(o, (uint64_t)v);
}

/* @v zero-padded to @width digits (@v must fit). */
static inline char *out_pad(char *o, uint64_t v, unsigned width)
{
	store_digits(o, v, width);
	return o + width;
}

static inline void put_u64(struct ht_pretty *p, uint64_t v)
{
	p->len = (size_t)(out_u64(p->buf + p->len, v) - p->buf);
}

/* ------------------------------------------------------------------ */
/* Floats                                                              */

static const uint64_t pow10_u64[20] = {
    1ull,
    10ull,
    100ull,
    1000ull,
    10000ull,
    100000ull,
    1000000ull,
    10000000ull,
    100000000ull,
    1000000000ull,
    10000000000ull,
    100000000000ull,
    1000000000000ull,
    10000000000000ull,
    100000000000000ull,
    1000000000000000ull,
    10000000000000000ull,
    100000000000000000ull,
    1000000000000000000ull,
    10000000000000000000ull,
};

/* 10^k as doubles, all exact (k <= 22) */
static const double pow10_d[20] = {
    1e0,  1e1,	1e2,  1e3,  1e4,  1e5,	1e6,  1e7,  1e8,  1e9,
    1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
};

/* @d * 10^@s for -19 <= s <= 19, correctly rounded: one operation with
 * an exact power */
static inline double scale10(double d, int s)
{
	return s >= 0 ? d * pow10_d[s] : d / pow10_d[-s];
}

/*
 * The 6 significant digits of @d > 0 rounded to nearest, and its
 * decimal exponent. The scaled value v = d * 10^s is one correctly
 * rounded operation away from the exact one (every 10^k with k <= 22
 * is exact) and below 10^6 < 2^20, so it is off by at most 2^-33
 * (1.2e-10) and its fraction is exact. False when v is within 1e-9 of
 * a rounding tie (then the exact path decides).
 *
 * x0 = floor(e2 * log10(2)) from the binary exponent e2 is the decimal
 * exponent or one less: both scalings are computed and one is chosen,
 * with no branch on the value.
 */
static bool approx_6(double d, uint64_t *digits, int *exp10)
{
	double v, v1, v2, frac;
	uint64_t bits, q;
	int x0, s;
	bool up;

	if (!(d >= 1e-12 && d < 1e12)) {
		return false;
	}
	memcpy(&bits, &d, sizeof(bits));
	x0 = (((int)(bits >> 52) - 1023) * 78913) >> 18;
	s = 5 - x0;
	v1 = scale10(d, s);
	v2 = scale10(d, s - 1);
	/* which one is itself decided up to a tie, checked with v's */
	up = v1 >= 999999.5;
	v = up ? v2 : v1;
	if (v1 > 999999.5 - 1e-9 && v1 < 999999.5 + 1e-9) {
		return false;
	}
	if (!(v >= 99999.5 && v < 999999.5)) {
		return false; /* x0 was not what it should be */
	}
	q = (uint64_t)v;
	frac = v - (double)q;
	if (frac > 0.5 - 1e-9 && frac < 0.5 + 1e-9) {
		return false;
	}
	q += frac > 0.5;
	*digits = q;
	*exp10 = x0 + up;
	return true;
}

/*
 * printf("%g", d) (6 significant digits, trailing zeros removed), which
 * is what babeltrace2 prints, without printf for the common values:
 * those that are exactly M / 10^k with an integer M below 2^53 and k at
 * most 6. Their decimal expansion is exact, so rounding M to 6 digits
 * half-to-even is exactly what glibc does. Other values go to snprintf.
 */
size_t ht__fmt_g(char *out, double d)
{
	uint64_t m = 0, q, w;
	unsigned nd, k, i, len;
	int x, n = 0;
	bool neg, found = false;

	if (!(d > -9e15 && d < 9e15) || d == 0) {
		return (size_t)snprintf(out, 64, "%g", d);
	}
	neg = d < 0;
	if (neg) {
		d = -d;
	}
	/* nearly always decided here; exact ties go the exact way */
	if (approx_6(d, &q, &x)) {
		goto format;
	}
	for (k = 0; k <= 6; k++) {
		double t = d * pow10_d[k];

		/* the product is exact and an integer */
		if (t < 9007199254740992.0 && fma(d, pow10_d[k], -t) == 0 &&
		    t == (double)(uint64_t)t) {
			m = (uint64_t)t;
			found = true;
			break;
		}
	}
	if (!found) {
		return (size_t)snprintf(out, 64, "%g", neg ? -d : d);
	}
	nd = digits10(m);
	x = (int)nd - 1 - (int)k; /* decimal exponent */
	if (nd > 6) {
		uint64_t div = pow10_u64[nd - 6], r;

		q = m / div;
		r = m % div;
		if (r > div / 2 || (r == div / 2 && (q & 1))) {
			q++;
		}
		if (q == 1000000) {
			q = 100000;
			x++;
		}
	} else {
		q = m * pow10_u64[6 - nd];
	}
format:
	/*
	 * q has 6 digits: in a word, the first in the low byte. The
	 * significant ones end at the highest byte of w ^ "000000" that is
	 * not zero (the first digit is not '0').
	 */
	w = digits8_word((uint32_t)q) >> 16;
	len = (71 - (unsigned)__builtin_clzll(w ^ 0x303030303030ull)) / 8;
	if (neg) {
		out[n++] = '-';
	}
	if (x >= 0 && x < 6) {
		/* x + 1 integer digits, then the rest if any */
		store_word(out + n, w);
		n += x + 1;
		if ((int)len > x + 1) {
			out[n++] = '.';
			store_word(out + n, w >> 8 * (x + 1));
			n += (int)len - x - 1;
		}
	} else if (x < 0 && x >= -4) {
		/* "0." and -x - 1 zeros */
		memcpy(out + n, "0.000000", 8);
		n += 1 - x;
		store_word(out + n, w);
		n += (int)len;
	} else {
		out[n++] = (char)(w & 0xff);
		if (len > 1) {
			out[n++] = '.';
			store_word(out + n, w >> 8);
			n += (int)len - 1;
		}
		out[n++] = 'e';
		out[n++] = x < 0 ? '-' : '+';
		if (x < 0) {
			x = -x;
		}
		if (x < 10) {
			out[n++] = '0';
		}
		i = digits10((uint64_t)x);
		store_digits(out + n, (uint64_t)x, i);
		n += (int)i;
	}
	return (size_t)n;
}

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

static void init_tables(void)
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

/* @n bytes of @s quoted and escaped; room for 4 * @n + 2 bytes. */
static char *out_escaped(char *o, const char *s, size_t n)
{
	size_t i = 0;

	*o++ = '"';
	while (i < n) {
		size_t j = i;

		while (j < n && !needs_escape[(unsigned char)s[j]]) {
			j++;
		}
		o = out_mem(o, s + i, j - i);
		if (j == n) {
			break;
		}
		o = out_escaped_byte(o, (unsigned char)s[j]);
		i = j + 1;
	}
	*o++ = '"';
	return o;
}

static int put_escaped(struct ht_pretty *p, const char *s, size_t n)
{
	int ret = reserve(p, 4 * n + 4);

	if (ret) {
		return ret;
	}
	p->len = (size_t)(out_escaped(p->buf + p->len, s, n) - p->buf);
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

/*
 * An integer in its display base. babeltrace2 masks a negative value
 * to whole digits: hex to 4 * ceil(size / 4) bits, octal to
 * 3 * ceil(size / 3) bits; binary shows exactly size bits.
 */
static char *out_int(char *o, const struct ht_ctf_type *t, uint64_t raw)
{
	static const char hex_upper[] = "0123456789ABCDEF";
	unsigned size = t->size_bits;
	unsigned bits, nd, i;
	uint64_t v = raw;

	switch (t->base) {
	case 16:
		bits = (size + 3) / 4 * 4;
		if (bits < 64) {
			v &= ((uint64_t)1 << bits) - 1;
		}
		nd = v ? (67 - (unsigned)__builtin_clzll(v)) / 4 : 1;
		o = OUT_LIT(o, "0x");
		for (i = nd; i--; v >>= 4) {
			o[i] = hex_upper[v & 0xf];
		}
		return o + nd;
	case 8:
		bits = (size + 2) / 3 * 3;
		if (bits < 64) {
			v &= ((uint64_t)1 << bits) - 1;
		}
		nd = v ? (66 - (unsigned)__builtin_clzll(v)) / 3 : 1;
		*o++ = '0';
		for (i = nd; i--; v >>= 3) {
			o[i] = (char)('0' + (v & 7));
		}
		return o + nd;
	case 2:
		o = OUT_LIT(o, "0b");
		for (i = size; i--;) {
			*o++ = (char)('0' + ((v >> i) & 1));
		}
		return o;
	default:
		return t->is_signed ? out_s64(o, (int64_t)raw)
				    : out_u64(o, raw);
	}
}

static void put_int(struct ht_pretty *p, const struct ht_ctf_type *t,
		    uint64_t raw)
{
	p->len = (size_t)(out_int(p->buf + p->len, t, raw) - p->buf);
}

static bool range_has(const struct ht_ctf_enum_range *r, bool is_signed,
		      uint64_t v)
{
	if (is_signed) {
		return (int64_t)v >= r->lower.s && (int64_t)v <= r->upper.s;
	}
	return v >= r->lower.u && v <= r->upper.u;
}

static int put_enum(struct ht_pretty *p, const struct ht_ctf_type *t,
		    uint64_t raw)
{
	const struct ht_ctf_type *c = t->container ? t->container : t;
	bool any = false;
	size_t i, j;
	int ret;

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
		ret = reserve(p, strlen(m->label) + 128);
		if (ret) {
			return ret;
		}
		if (any) {
			PUT_LIT(p, ", ");
		}
		putc_(p, '"');
		put(p, m->label, strlen(m->label));
		putc_(p, '"');
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

static bool is_text(const struct ht_ctf_type *t)
{
	const struct ht_ctf_type *e = t->element;

	return e && e->kind == HT_CTF_INT && e->size_bits == 8 &&
	       e->encoding != HT_CTF_ENC_NONE;
}

static int put_field(struct ht_pretty *p, const struct ht_ctf_field *f,
		     bool names);

/* A text array or sequence: its bytes up to the first NUL, as a string. */
static int put_text(struct ht_pretty *p, const struct ht_ctf_field *f)
{
	const struct ht_ctf_field *c = ht_ctf_field_first_child(f);
	uint32_t i;
	char *o;
	int ret;

	ret = reserve(p, 4 * (size_t)f->nr_children + 4);
	if (ret) {
		return ret;
	}
	o = p->buf + p->len;
	*o++ = '"';
	for (i = 0; i < f->nr_children; i++, c = ht_ctf_field_next(c)) {
		unsigned char b = (unsigned char)c->v.u;

		if (!b) {
			break;
		}
		o = out_escaped_byte(o, b);
	}
	*o++ = '"';
	p->len = (size_t)(o - p->buf);
	return 0;
}

enum label { LABEL_NONE, LABEL_NAME, LABEL_INDEX };

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
		ret = reserve(p, 256);
		if (ret) {
			return ret;
		}
		if (i) {
			PUT_LIT(p, ", ");
		}
		if (names && label == LABEL_INDEX) {
			putc_(p, '[');
			put_u64(p, i);
			PUT_LIT(p, "] = ");
		} else if (names && label == LABEL_NAME && c->name) {
			put_name(p, c->name);
		}
		ret = put_field(p, c, names);
		if (ret) {
			return ret;
		}
	}
	ret = reserve(p, 4);
	if (ret) {
		return ret;
	}
	putc_(p, ' ');
	putc_(p, close);
	return 0;
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
	 * of put_field() reserved */
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
static int put_field(struct ht_pretty *p, const struct ht_ctf_field *f,
		     bool names)
{
	const struct ht_ctf_type *t = f->type;

	switch (t->kind) {
	case HT_CTF_INT:
		put_int(p, t, f->v.u);
		return p->note_msg ? put_note(p, f) : 0;
	case HT_CTF_ENUM:
		return put_enum(p, t, f->v.u);
	case HT_CTF_FLOAT: {
		p->len += ht__fmt_g(p->buf + p->len, f->v.d);
		return 0;
	}
	case HT_CTF_STRING:
		return put_escaped(p, f->v.str, f->nr_children);
	case HT_CTF_STRUCT:
		return put_compound(p, f, names, '{', '}', LABEL_NAME);
	case HT_CTF_ARRAY:
	case HT_CTF_SEQUENCE:
		if (is_text(t)) {
			return put_text(p, f);
		}
		return put_compound(p, f, names, '[', ']', LABEL_INDEX);
	case HT_CTF_VARIANT:
		/* babeltrace2 shows the selected option without its name */
		return put_compound(p, f, names, '{', '}', LABEL_NONE);
	}
	return HT_EUNSUPPORTED;
}

/* ------------------------------------------------------------------ */
/* Time                                                                */

static void cache_second(struct ht_pretty *p, int64_t sec)
{
	time_t t = (time_t)sec;
	struct tm tm;
	bool ok;

	if (p->have_sec && p->sec == sec) {
		return;
	}
	ok = p->o.clock_gmt ? gmtime_r(&t, &tm) != NULL
			    : localtime_r(&t, &tm) != NULL;
	if (!ok) {
		memset(&tm, 0, sizeof(tm));
	}
	if (p->o.clock_date) {
		p->sec_len = (size_t)snprintf(p->sec_text, sizeof(p->sec_text),
					      "%04d-%02d-%02d %02d:%02d:%02d",
					      tm.tm_year + 1900, tm.tm_mon + 1,
					      tm.tm_mday, tm.tm_hour, tm.tm_min,
					      tm.tm_sec);
	} else {
		p->sec_len = (size_t)snprintf(p->sec_text, sizeof(p->sec_text),
					      "%02d:%02d:%02d", tm.tm_hour,
					      tm.tm_min, tm.tm_sec);
	}
	p->sec = sec;
	p->have_sec = true;
}

/*
 * The timestamp without brackets, from ns (time modes). A negative time
 * is written as -seconds.ns; babeltrace2 does so (with a warning) only
 * the first time in the time-of-day modes, and afterwards formats the
 * absolute value as a time of day: so do we.
 */
static char *out_time(struct ht_pretty *p, char *o, int64_t ns, bool seconds)
{
	/* most events fall in the second formatted last */
	if (!seconds && p->sec_fast && ns >= p->sec_ns &&
	    ns - p->sec_ns < 1000000000) {
		o = out_mem(o, p->sec_text, p->sec_len);
		*o++ = '.';
		return out_pad(o, (uint64_t)(ns - p->sec_ns), 9);
	}
	bool neg = ns < 0;
	uint64_t abs_ns = neg ? -(uint64_t)ns : (uint64_t)ns;
	uint64_t sec = abs_ns / 1000000000;

	if (neg && !seconds && !p->neg_warned) {
		p->neg_warned = true;
		p->neg_warning = true;
		seconds = true;
	}
	if (seconds) {
		if (neg) {
			*o++ = '-';
		}
		o = out_u64(o, sec);
	} else {
		cache_second(p, (int64_t)sec);
		o = out_mem(o, p->sec_text, p->sec_len);
		/* the fast path above only for positive times */
		p->sec_fast = !neg;
		p->sec_ns = (int64_t)sec * 1000000000;
	}
	*o++ = '.';
	return out_pad(o, abs_ns % 1000000000, 9);
}

static char *out_timestamp(struct ht_pretty *p, char *o,
			   const struct ht_ctf_msg *m)
{
	bool hn = p->o.names & HT_PRETTY_NAME_HEADER;

	o = hn ? OUT_LIT(o, "timestamp = ") : OUT_LIT(o, "[");
	if (p->o.clock == HT_PRETTY_CLOCK_CYCLES) {
		o = out_pad(o, m->cycles, 20);
	} else {
		o = out_time(p, o, m->ns,
			     p->o.clock == HT_PRETTY_CLOCK_SECONDS);
	}
	o = hn ? OUT_LIT(o, ", ") : OUT_LIT(o, "] ");
	if (p->o.no_delta) {
		goto out;
	}
	o = hn ? OUT_LIT(o, "delta = +") : OUT_LIT(o, "(+");
	if (p->o.clock == HT_PRETTY_CLOCK_CYCLES) {
		/* "%012" PRIu64 of the wrapped difference; babeltrace2 keeps
		 * the difference with -1 meaning "none yet", so a clock one
		 * cycle behind the last event's (traces with different
		 * offsets) prints as unknown too */
		uint64_t d = m->cycles - p->last_cycles;

		if (p->have_last && d != UINT64_MAX) {
			o = d < 1000000000000ull ? out_pad(o, d, 12)
						 : out_u64(o, d);
		} else {
			o = OUT_LIT(o, "????????????");
		}
	} else if (p->have_last) {
		/* time never goes back in the merged sequence */
		uint64_t d =
		    m->ns >= p->last_ns ? (uint64_t)(m->ns - p->last_ns) : 0;

		if (d < 1000000000) {
			*o++ = '0';
		} else {
			o = out_u64(o, d / 1000000000);
			d %= 1000000000;
		}
		*o++ = '.';
		o = out_pad(o, d, 9);
	} else {
		o = OUT_LIT(o, "?.?????????");
	}
	o = hn ? OUT_LIT(o, ", ") : OUT_LIT(o, ") ");
out:
	p->have_last = true;
	p->last_ns = m->ns;
	p->last_cycles = m->cycles;
	return o;
}

/* ------------------------------------------------------------------ */
/* The per event class prefix                                          */

static const char *const loglevel_names[] = {
    "TRACE_EMERG",	    "TRACE_ALERT",
    "TRACE_CRIT",	    "TRACE_ERR",
    "TRACE_WARNING",	    "TRACE_NOTICE",
    "TRACE_INFO",	    "TRACE_DEBUG_SYSTEM",
    "TRACE_DEBUG_PROGRAM",  "TRACE_DEBUG_PROCESS",
    "TRACE_DEBUG_MODULE",   "TRACE_DEBUG_UNIT",
    "TRACE_DEBUG_FUNCTION", "TRACE_DEBUG_LINE",
    "TRACE_DEBUG",
};

struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_add(struct sbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *ns = realloc(b->s, cap);

		if (!ns) {
			b->oom = true;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

static const char *trace_name(const struct ht_pretty *p,
			      const struct ht_ctf_trace *tr)
{
	size_t i;

	for (i = 0; i < p->nr_tnames; i++) {
		if (p->tnames[i].trace == tr) {
			return p->tnames[i].name;
		}
	}
	return tr->name ? tr->name : "";
}

/*
 * The babeltrace2 header fields. Without names they are joined by ':'
 * (the trace name is glued to whatever follows it) and a space ends
 * them; with names each is "label = value", joined by ", ".
 */
static void add_part(struct sbuf *b, bool names, bool *dom, const char *label,
		     const char *value)
{
	if (*dom) {
		sb_add(b, names ? ", " : ":");
	}
	if (names) {
		sb_add(b, label);
		sb_add(b, " = ");
	}
	sb_add(b, value);
	*dom = true;
}

static char *build_prefix(struct ht_pretty *p,
			  const struct ht_ctf_event_class *cls, size_t *len)
{
	const struct ht_ctf_trace *tr = cls->stream_class->trace;
	bool names = p->o.names & HT_PRETTY_NAME_HEADER;
	unsigned f = p->o.fields;
	const struct ht_ctf_env_entry *e;
	struct sbuf b = {0};
	bool dom = false;
	char num[64];

	sb_add(&b, "");
	if (f & HT_PRETTY_FIELD_TRACE) {
		if (names) {
			sb_add(&b, "trace = ");
		}
		sb_add(&b, trace_name(p, tr));
		if (names) {
			sb_add(&b, ", ");
			dom = true;
		}
	}
	e = ht_ctf_trace_env(tr, "hostname");
	if ((f & HT_PRETTY_FIELD_HOSTNAME) && e && e->is_string) {
		add_part(&b, names, &dom, "trace:hostname", e->str);
	}
	e = ht_ctf_trace_env(tr, "domain");
	if ((f & HT_PRETTY_FIELD_DOMAIN) && e && e->is_string) {
		add_part(&b, names, &dom, "trace:domain", e->str);
	}
	e = ht_ctf_trace_env(tr, "procname");
	if ((f & HT_PRETTY_FIELD_PROCNAME) && e && e->is_string) {
		add_part(&b, names, &dom, "trace:procname", e->str);
	}
	e = ht_ctf_trace_env(tr, "vpid");
	if ((f & HT_PRETTY_FIELD_VPID) && e && !e->is_string) {
		snprintf(num, sizeof(num), "(%lld)", (long long)e->i);
		add_part(&b, names, &dom, "trace:vpid", num);
	}
	if ((f & HT_PRETTY_FIELD_LOGLEVEL) && cls->has_loglevel) {
		const char *ln = "<<UNKNOWN>>";

		if (cls->loglevel >= 0 && cls->loglevel <= 14) {
			ln = loglevel_names[cls->loglevel];
		}
		snprintf(num, sizeof(num), "%s (%lld)", ln,
			 (long long)cls->loglevel);
		add_part(&b, names, &dom, "loglevel", num);
	}
	if ((f & HT_PRETTY_FIELD_EMF) && cls->emf_uri) {
		add_part(&b, names, &dom, "model.emf.uri", cls->emf_uri);
	}
	if (dom) {
		sb_add(&b, names ? ", " : " ");
	}
	if (names) {
		sb_add(&b, "name = ");
		sb_add(&b, cls->name);
	} else {
		sb_add(&b, cls->name);
		sb_add(&b, ":");
	}
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	*len = b.len;
	return b.s;
}

/* The packet context members babeltrace2 keeps for itself. */
static bool pc_special(const struct ht_ctf_member *m)
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

static size_t ptr_hash(const void *ptr, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)ptr;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (size_t)h & (cap - 1);
}

static int ec_grow(struct ht_pretty *p)
{
	size_t cap = p->ec_cap ? p->ec_cap * 2 : 64;
	struct ec_cache *t = calloc(cap, sizeof(*t));
	size_t i;

	if (!t) {
		return HT_ENOMEM;
	}
	for (i = 0; i < p->ec_cap; i++) {
		size_t h;

		if (!p->ecs[i].cls) {
			continue;
		}
		h = ptr_hash(p->ecs[i].cls, cap);
		while (t[h].cls) {
			h = (h + 1) & (cap - 1);
		}
		t[h] = p->ecs[i];
	}
	free(p->ecs);
	p->ecs = t;
	p->ec_cap = cap;
	return 0;
}

static void compile_line(struct ht_pretty *p, struct ec_cache *e);

static struct ec_cache *ec_get(struct ht_pretty *p,
			       const struct ht_ctf_event_class *cls)
{
	const struct ht_ctf_type *pc;
	struct ec_cache *e;
	size_t h, i;

	if (p->ec_cap) {
		h = ptr_hash(cls, p->ec_cap);
		while (p->ecs[h].cls) {
			if (p->ecs[h].cls == cls) {
				return &p->ecs[h];
			}
			h = (h + 1) & (p->ec_cap - 1);
		}
	}
	if ((p->ec_count + 1) * 2 > p->ec_cap && ec_grow(p)) {
		return NULL;
	}
	h = ptr_hash(cls, p->ec_cap);
	while (p->ecs[h].cls) {
		h = (h + 1) & (p->ec_cap - 1);
	}
	e = &p->ecs[h];
	e->prefix = build_prefix(p, cls, &e->prefix_len);
	if (!e->prefix) {
		return NULL;
	}
	e->cls = cls;
	e->noted =
	    p->note.wants && p->note.note && p->note.wants(p->note.arg, cls);
	p->ec_count++;
	pc = cls->stream_class ? cls->stream_class->packet_context : NULL;
	e->pc_mask = ~(uint64_t)0;
	e->pc_print = false;
	if (pc) {
		for (i = 0; i < pc->nr_members; i++) {
			if (i < 64 && pc_special(&pc->members[i])) {
				e->pc_mask &= ~((uint64_t)1 << i);
			} else {
				e->pc_print = true;
			}
		}
	}
	compile_line(p, e);
	return e;
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

/* The packet context without the members babeltrace2 consumes. */
static int put_packet_context(struct ht_pretty *p, const struct ec_cache *e,
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
		ret = reserve(p, 256);
		if (ret) {
			return ret;
		}
		if (!first) {
			PUT_LIT(p, ", ");
		}
		first = false;
		if (names && c->name) {
			put_name(p, c->name);
		}
		ret = put_field(p, c, names);
		if (ret) {
			return ret;
		}
	}
	ret = reserve(p, 4);
	if (ret) {
		return ret;
	}
	PUT_LIT(p, " }");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Compiled lines                                                      */

struct compiler {
	struct ht_pretty *p;
	struct ec_cache *e;
	struct op *ops;
	size_t nr_ops, cap_ops;
	struct sbuf lits;
	size_t pending; /* start of the literal not attached to an op */
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
	sb_add(&c->lits, text);
}

static void emit(struct compiler *c, enum op_kind kind, int scope, bool names,
		 uint32_t idx, const struct ht_ctf_type *t, size_t max)
{
	struct op *op;

	if (c->nr_ops == c->cap_ops) {
		size_t cap = c->cap_ops ? c->cap_ops * 2 : 16;
		struct op *ops = realloc(c->ops, cap * sizeof(*ops));

		if (!ops) {
			c->oom = true;
			return;
		}
		c->ops = ops;
		c->cap_ops = cap;
	}
	op = &c->ops[c->nr_ops++];
	memset(op, 0, sizeof(*op));
	op->kind = (uint8_t)kind;
	op->scope = (uint8_t)scope;
	op->names = names;
	op->idx = idx;
	op->type = t;
	op->lit_off = (uint32_t)c->pending;
	op->lit_len = (uint32_t)(c->lits.len - c->pending);
	c->fixed_max += op->lit_len + max;
	c->pending = c->lits.len;
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
		if (t->base == 16 || t->base == 8 || t->base == 2) {
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
		emit(c, is_text(t) ? OP_TEXT : OP_VAR, scope, names, at, t, 0);
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

		if (pc_special(m)) {
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

static const char *const scope_names[HT_CTF_NR_SCOPES] = {
    [HT_CTF_SCOPE_PACKET_CONTEXT] = "stream.packet.context = ",
    [HT_CTF_SCOPE_EVENT_COMMON_CONTEXT] = "stream.event.context = ",
    [HT_CTF_SCOPE_EVENT_SPECIFIC_CONTEXT] = "event.context = ",
    [HT_CTF_SCOPE_EVENT_PAYLOAD] = "event.fields = ",
};

/* Compiles the line of @e's class; leaves e->ops NULL when it cannot. */
static void compile_line(struct ht_pretty *p, struct ec_cache *e)
{
	bool hn = p->o.names & HT_PRETTY_NAME_HEADER;
	struct compiler c = {.p = p, .e = e};
	bool first = true;
	int s;

	lit(&c, "");
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
			lit(&c, scope_names[s]);
		}
		names = s == HT_CTF_SCOPE_EVENT_PAYLOAD
			    ? p->o.names & HT_PRETTY_NAME_PAYLOAD
			    : p->o.names & HT_PRETTY_NAME_CONTEXT;
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
	emit(&c, OP_END, 0, false, 0, NULL, 0);
	/* room for the fixed-size copies of short literals */
	lit(&c, "                                ");
	if (c.oom || c.lits.oom) {
		size_t i;

		for (i = 0; i < c.nr_ops; i++) {
			free(c.ops[i].enum_cache);
		}
		free(c.ops);
		free(c.lits.s);
		return;
	}
	e->ops = c.ops;
	e->nr_ops = c.nr_ops;
	e->lits = c.lits.s;
	e->fixed_max = c.fixed_max;
}

static void free_line(struct ec_cache *e)
{
	size_t i, j;

	for (i = 0; i < e->nr_ops; i++) {
		if (!e->ops[i].enum_cache) {
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

/* An enum value, from the per-op cache when it is small. */
static int run_enum(struct ht_pretty *p, struct op *op, uint64_t v)
{
	size_t at = p->len;
	struct enum_text *et;
	int ret;

	if (v < ENUM_CACHED && op->enum_cache[v].text) {
		et = &op->enum_cache[v];
		ret = reserve(p, et->len);
		if (!ret) {
			put(p, et->text, et->len);
		}
		return ret;
	}
	ret = put_enum(p, op->type, v);
	if (ret || v >= ENUM_CACHED) {
		return ret;
	}
	et = &op->enum_cache[v];
	et->text = malloc(p->len - at + 1);
	if (et->text) {
		et->len = p->len - at;
		memcpy(et->text, p->buf + at, et->len);
		et->text[et->len] = '\0';
	}
	return 0;
}

/* Formats one event with its compiled line; 1: shape mismatch. */
static int run_line(struct ht_pretty *p, struct ec_cache *e,
		    const struct ht_ctf_event *ev)
{
	const char *lits = e->lits;
	struct op *op = e->ops;
	uint32_t delta = 0; /* entries the variable fields added so far */
	int scope = -1;
	int s, ret;
	char *o;

	for (s = HT_CTF_SCOPE_PACKET_CONTEXT; s < HT_CTF_NR_SCOPES; s++) {
		/* a reader that lays fields out otherwise: use the walker */
		if (e->scope_size[s] && ev->scope[s] &&
		    ev->scope[s]->next != e->scope_size[s]) {
			return 1;
		}
	}
	ret = reserve(p, e->fixed_max + LIT_COPY);
	if (ret) {
		return ret;
	}
	o = p->buf + p->len;
	for (;; op++) {
		const struct ht_ctf_field *f;

		if (op->scope != scope) {
			scope = op->scope;
			delta = 0;
		}

		if (op->lit_len <= LIT_COPY) {
			/* one fixed-size copy: the buffer and the literals
			 * both have LIT_COPY bytes of slack */
			memcpy(o, lits + op->lit_off, LIT_COPY);
			o += op->lit_len;
		} else {
			o = out_mem(o, lits + op->lit_off, op->lit_len);
		}
		if (op->kind == OP_END) {
			p->len = (size_t)(o - p->buf);
			return 0;
		}
		f = ev->scope[op->scope];
		if (!f) {
			return 1;
		}
		f += op->idx + delta;
		/* fixed-size values: into the reserve, through the cursor */
		switch (op->kind) {
		case OP_UDEC:
			o = out_u64(o, f->v.u);
			continue;
		case OP_SDEC:
			o = out_s64(o, f->v.s);
			continue;
		case OP_INT:
			o = out_int(o, op->type, f->v.u);
			continue;
		case OP_FLOAT:
			o += ht__fmt_g(o, f->v.d);
			continue;
		default:
			break;
		}
		/* the others through the buffer, which may grow */
		p->len = (size_t)(o - p->buf);
		switch (op->kind) {
		case OP_ENUM:
			ret = run_enum(p, op, f->v.u);
			break;
		case OP_STRING:
			ret = put_escaped(p, f->v.str, f->nr_children);
			break;
		case OP_TEXT:
			ret = put_text(p, f);
			delta += f->next - 1;
			break;
		case OP_VAR:
			ret = reserve(p, 256);
			if (!ret) {
				ret = put_field(p, f, op->names);
			}
			delta += f->next - 1;
			break;
		case OP_GENERIC:
			ret = reserve(p, 256);
			if (!ret) {
				ret = put_field(p, f, op->names);
			}
			break;
		case OP_PCTX:
			ret = reserve(p, 256);
			if (!ret) {
				ret = put_packet_context(p, e, f, op->names);
			}
			break;
		}
		if (!ret) {
			ret = reserve(p, e->fixed_max + LIT_COPY);
		}
		if (ret) {
			return ret;
		}
		o = p->buf + p->len;
	}
}

int ht_pretty_event(struct ht_pretty *p, const struct ht_ctf_msg *msg)
{
	const struct ht_ctf_event *ev = msg->event;
	bool scope_names_on = p->o.names & HT_PRETTY_NAME_SCOPE;
	bool hn = p->o.names & HT_PRETTY_NAME_HEADER;
	struct ec_cache *e;
	bool first = true;
	int s, ret;
	char *o;

	e = ec_get(p, ev->cls);
	if (!e) {
		return HT_ENOMEM;
	}
	ret = reserve(p, e->prefix_len + 512);
	if (ret) {
		return ret;
	}
	o = p->buf + p->len;
	if (msg->has_time) {
		o = out_timestamp(p, o, msg);
	}
	o = out_mem(o, e->prefix, e->prefix_len);
	p->len = (size_t)(o - p->buf);
	/* noted events go through the field walker, which adds the notes */
	p->note_msg = e->noted ? msg : NULL;
	if (e->ops && !e->noted) {
		size_t at = p->len;

		ret = run_line(p, e, ev);
		if (ret <= 0) {
			return ret;
		}
		p->len = at;
	}
	for (s = HT_CTF_SCOPE_PACKET_CONTEXT; s < HT_CTF_NR_SCOPES; s++) {
		const struct ht_ctf_field *f = ev->scope[s];
		bool names;

		if (!f || s == HT_CTF_SCOPE_EVENT_HEADER) {
			continue;
		}
		if (s == HT_CTF_SCOPE_PACKET_CONTEXT && !e->pc_print) {
			continue;
		}
		ret = reserve(p, 256);
		if (ret) {
			return ret;
		}
		if (first) {
			if (!hn) {
				putc_(p, ' ');
			} else {
				PUT_LIT(p, ", ");
			}
		} else {
			PUT_LIT(p, ", ");
		}
		first = false;
		if (scope_names_on) {
			put(p, scope_names[s], strlen(scope_names[s]));
		}
		names = s == HT_CTF_SCOPE_EVENT_PAYLOAD
			    ? p->o.names & HT_PRETTY_NAME_PAYLOAD
			    : p->o.names & HT_PRETTY_NAME_CONTEXT;
		if (s == HT_CTF_SCOPE_PACKET_CONTEXT) {
			ret = put_packet_context(p, e, f, names);
		} else {
			ret = put_field(p, f, names);
		}
		if (ret) {
			return ret;
		}
	}
	ret = reserve(p, 4);
	if (ret) {
		return ret;
	}
	if (first) {
		/* no scope at all: babeltrace2 still ends the header */
		if (hn) {
			PUT_LIT(p, ", ");
		} else {
			putc_(p, ' ');
		}
	}
	putc_(p, '\n');
	return 0;
}

/* ------------------------------------------------------------------ */
/* Discarded events and packets                                        */

size_t ht_pretty_discarded(struct ht_pretty *p, const struct ht_ctf_msg *msg,
			   const char *stream_path, uint64_t stream_id,
			   char *buf, size_t len)
{
	const struct ht_ctf_trace *tr = msg->stream->trace;
	const struct ht_ctf_stream_class *sc = msg->stream->stream_class;
	bool events = msg->kind == HT_CTF_MSG_DISCARDED_EVENTS;
	char uuid[64] = "no UUID";
	char t0[64] = "", t1[64] = "";
	char what[96];
	int n;

	if (tr->has_uuid) {
		const uint8_t *u = tr->uuid;

		snprintf(uuid, sizeof(uuid),
			 "UUID: %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
			 "%02x%02x%02x%02x%02x%02x",
			 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8],
			 u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	}
	if (msg->has_range) {
		/* format with the line machinery into the spare buffer end */
		char *out[2] = {t0, t1};
		int64_t ns[2] = {msg->begin_ns, msg->end_ns};
		int i;

		for (i = 0; i < 2; i++) {
			size_t at;

			if (reserve(p, 64)) {
				return 0;
			}
			at = p->len;
			p->len =
			    (size_t)(out_time(p, p->buf + p->len, ns[i],
					      p->o.clock ==
						  HT_PRETTY_CLOCK_SECONDS) -
				     p->buf);
			snprintf(out[i], 64, "%.*s", (int)(p->len - at),
				 p->buf + at);
			p->len = at;
		}
	}
	/*
	 * In a stream's first packet the count before it is unknown:
	 * babeltrace2 then says the tracer "may have discarded events".
	 */
	if (!msg->count ||
	    (events && msg->packet && msg->packet->offset_bytes == 0)) {
		snprintf(what, sizeof(what), "may have discarded %s",
			 events ? "events" : "packets");
	} else {
		snprintf(what, sizeof(what), "discarded %llu %s%s",
			 (unsigned long long)msg->count,
			 events ? "event" : "packet",
			 msg->count == 1 ? "" : "s");
	}
	n = snprintf(buf, len,
		     "WARNING: Tracer %s between [%s] and [%s] in trace \"%s\" "
		     "(%s) within stream \"%s\" (stream class ID: %llu, "
		     "stream ID: %llu).\n",
		     what, t0, t1, trace_name(p, tr), uuid, stream_path,
		     (unsigned long long)(sc ? sc->id : 0),
		     (unsigned long long)stream_id);
	if (n < 0) {
		return 0;
	}
	return (size_t)n < len ? (size_t)n : len - 1;
}

/* ------------------------------------------------------------------ */

int ht_pretty_set_trace_name(struct ht_pretty *p,
			     const struct ht_ctf_trace *trace, const char *name)
{
	struct trace_name *t;
	char *copy = strdup(name);

	if (!copy) {
		return HT_ENOMEM;
	}
	t = realloc(p->tnames, (p->nr_tnames + 1) * sizeof(*t));
	if (!t) {
		free(copy);
		return HT_ENOMEM;
	}
	p->tnames = t;
	t[p->nr_tnames].trace = trace;
	t[p->nr_tnames].name = copy;
	p->nr_tnames++;
	return 0;
}

int ht_pretty_create(struct ht_pretty **pretty,
		     const struct ht_pretty_opts *opts)
{
	struct ht_pretty *p = calloc(1, sizeof(*p));

	if (!p) {
		return HT_ENOMEM;
	}
	init_tables();
	if (opts) {
		p->o = *opts;
	} else {
		p->o.names = HT_PRETTY_NAME_DEFAULT;
		p->o.fields = HT_PRETTY_FIELD_DEFAULT;
	}
	if (grow(p, 1 << 16)) {
		free(p);
		return HT_ENOMEM;
	}
	*pretty = p;
	return 0;
}

void ht_pretty_destroy(struct ht_pretty *p)
{
	size_t i;

	if (!p) {
		return;
	}
	for (i = 0; i < p->ec_cap; i++) {
		free(p->ecs[i].prefix);
		free_line(&p->ecs[i]);
	}
	for (i = 0; i < p->nr_tnames; i++) {
		free(p->tnames[i].name);
	}
	free(p->tnames);
	free(p->ecs);
	free(p->buf);
	free(p);
}

void ht_pretty_set_note(struct ht_pretty *p, const struct ht_pretty_note *note)
{
	if (note) {
		p->note = *note;
	} else {
		memset(&p->note, 0, sizeof(p->note));
	}
}

bool ht_pretty_take_warning(struct ht_pretty *p)
{
	bool w = p->neg_warning;

	p->neg_warning = false;
	return w;
}

const char *ht_pretty_data(const struct ht_pretty *p, size_t *len)
{
	*len = p->len;
	return p->buf;
}

void ht_pretty_consume(struct ht_pretty *p)
{
	p->len = 0;
}
