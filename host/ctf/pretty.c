/* SPDX-License-Identifier: MIT */
/*
 * babeltrace2's pretty text output, byte for byte, fast.
 *
 * Everything is formatted by hand into one growing buffer: integers with
 * a two-digit table (pretty-number.h), timestamps with the broken-down
 * time cached per second, the part of a line that only depends on the
 * event class (the hostname, the event name, ...) cached per event
 * class, and the rest of the line compiled per class when its shape is
 * fixed (pretty-compile.c), else walked field by field
 * (pretty-field.c). Floats go through snprintf("%g"), which is exactly
 * what babeltrace2 prints, only when the exact fast path cannot decide.
 *
 * The format facts (the header fields and their separators, the
 * timestamps, the discarded warnings) were learnt by running
 * babeltrace2 2.0 on generated traces; tests/ctf/print compares the two
 * outputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "pretty-internal.h"

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
static char *out_time_slow(struct ht_pretty *p, char *o, int64_t ns,
			   bool seconds)
{
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
		/* the fast paths only for positive times, and a text
		 * their fixed-size copy holds (a year past 9999 may not) */
		p->sec_fast = !neg && p->sec_len <= SEC_COPY;
		p->sec_ns = (int64_t)sec * 1000000000;
	}
	*o++ = '.';
	return out_pad(o, abs_ns % 1000000000, 9);
}

/*
 * Most events fall in the second formatted last: its text copied as
 * one fixed-size block of SEC_COPY bytes (callers reserve more), then
 * the nanoseconds.
 */
static inline char *out_time(struct ht_pretty *p, char *o, int64_t ns,
			     bool seconds)
{
	if (!seconds && p->sec_fast && ns >= p->sec_ns &&
	    ns - p->sec_ns < 1000000000) {
		memcpy(o, p->sec_text, SEC_COPY);
		o += p->sec_len;
		*o++ = '.';
		return out_pad(o, (uint64_t)(ns - p->sec_ns), 9);
	}
	return out_time_slow(p, o, ns, seconds);
}

/* A delta of @d ns: "S.NNNNNNNNN". */
static char *out_delta_ns(char *o, uint64_t d)
{
	if (d < 1000000000) {
		*o++ = '0';
	} else {
		o = out_u64(o, d / 1000000000);
		d %= 1000000000;
	}
	*o++ = '.';
	return out_pad(o, d, 9);
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
	if (m->kind == HT_CTF_MSG_EVENT && m->back_cycles) {
		/* time went back in the event's stream (read with
		 * HT_CTF_KEEP_GOING): the step back, negative */
		uint64_t d = m->back_cycles;

		o = hn ? OUT_LIT(o, "delta = -") : OUT_LIT(o, "(-");
		if (p->o.clock == HT_PRETTY_CLOCK_CYCLES) {
			o = d < 1000000000000ull ? out_pad(o, d, 12)
						 : out_u64(o, d);
		} else {
			int64_t to = ht_ctf_stream_cycles_to_ns(
			    m->stream, m->cycles + m->back_cycles);

			o = out_delta_ns(o,
					 to > m->ns ? (uint64_t)to - m->ns : 0);
		}
		o = hn ? OUT_LIT(o, ", ") : OUT_LIT(o, ") ");
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
		o = out_delta_ns(o, m->ns >= p->last_ns
					? (uint64_t)(m->ns - p->last_ns)
					: 0);
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
static void add_part(struct ht_buf *b, bool names, bool *dom, const char *label,
		     const char *value)
{
	if (*dom) {
		ht_buf_puts(b, names ? ", " : ":");
	}
	if (names) {
		ht_buf_puts(b, label);
		ht_buf_puts(b, " = ");
	}
	ht_buf_puts(b, value);
	*dom = true;
}

static char *build_prefix(struct ht_pretty *p,
			  const struct ht_ctf_event_class *cls, size_t *len)
{
	const struct ht_ctf_trace *tr = cls->stream_class->trace;
	bool names = p->o.names & HT_PRETTY_NAME_HEADER;
	unsigned f = p->o.fields;
	const struct ht_ctf_env_entry *e;
	struct ht_buf b = {0};
	bool dom = false;
	char num[64];

	ht_buf_puts(&b, "");
	if (p->o.mark_trace) {
		ht_buf_puts(&b, "<");
		ht_buf_puts(&b, trace_name(p, tr));
		ht_buf_puts(&b, "> ");
	}
	if (f & HT_PRETTY_FIELD_TRACE) {
		if (names) {
			ht_buf_puts(&b, "trace = ");
		}
		ht_buf_puts(&b, trace_name(p, tr));
		if (names) {
			ht_buf_puts(&b, ", ");
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
		ht_buf_puts(&b, names ? ", " : " ");
	}
	if (names) {
		ht_buf_puts(&b, "name = ");
		ht_buf_puts(&b, cls->name);
	} else {
		ht_buf_puts(&b, cls->name);
		ht_buf_puts(&b, ":");
	}
	if (b.nomem) {
		ht_buf_fini(&b);
		return NULL;
	}
	*len = b.len;
	return b.data;
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
			if (i < 64 && ht__pretty_pc_special(&pc->members[i])) {
				e->pc_mask &= ~((uint64_t)1 << i);
			} else {
				e->pc_print = true;
			}
		}
	}
	ht__pretty_compile_line(p, e);
	return e;
}

/* ------------------------------------------------------------------ */
/* Compiled lines (pretty-compile.c)                                   */

/* An enum value, from the per-op cache when it is small. */
static int run_enum(struct ht_pretty *p, struct op *op, uint64_t v)
{
	size_t at = p->out.len;
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
	ret = ht__pretty_put_enum(p, op->type, v);
	if (ret || v >= ENUM_CACHED) {
		return ret;
	}
	et = &op->enum_cache[v];
	/* with ENUM_COPY bytes of slack for run_line()'s fixed-size copy */
	et->text = calloc(1, p->out.len - at + ENUM_COPY);
	if (et->text) {
		et->len = p->out.len - at;
		memcpy(et->text, p->out.data + at, et->len);
	}
	return 0;
}

/*
 * A sequence of integers @f (OP_INTS) at @o as the field walker prints
 * it: "[ ]", or "[ [0] = v, [1] = v ]" (without the indices when
 * @names is false); room for INTS_ROOM(f->nr_children) bytes. Returns
 * the new end. Not inlined: in run_line() it costs the lines without
 * sequences 2% (callgrind).
 */
/* per element: ", [4294967295] = " and a value of up to 72 bytes */
#define INTS_ROOM(n) ((size_t)(n)*96 + 4)

static __attribute__((noinline)) char *
out_ints(char *o, const struct ht_ctf_field *f, bool names)
{
	const struct ht_ctf_type *t = f->type->element;
	uint32_t i, n = f->nr_children;

	if (!n) {
		return OUT_LIT(o, "[ ]");
	}
	o = OUT_LIT(o, "[ ");
	for (i = 0; i < n; i++) {
		if (i) {
			o = OUT_LIT(o, ", ");
		}
		if (names) {
			*o++ = '[';
			o = out_u64(o, i);
			o = OUT_LIT(o, "] = ");
		}
		o = t->base == 10 ? t->is_signed ? out_s64(o, f[1 + i].v.s)
						 : out_u64(o, f[1 + i].v.u)
				  : out_int(o, t, f[1 + i].v.u);
	}
	return OUT_LIT(o, " ]");
}

/*
 * The timestamp and the delta with the default options, in the usual
 * case: the event in the second formatted last, less than a second
 * after the previous line, no step back. Returns the new end, or NULL
 * when out_timestamp() must write them.
 */
static inline char *out_timestamp_plain(struct ht_pretty *p, char *o,
					const struct ht_ctf_msg *m)
{
	uint64_t in_sec = (uint64_t)m->ns - (uint64_t)p->sec_ns;
	uint64_t d = (uint64_t)m->ns - (uint64_t)p->last_ns;

	if (!p->sec_fast || m->ns < p->sec_ns || in_sec >= 1000000000 ||
	    !p->have_last || m->ns < p->last_ns || d >= 1000000000 ||
	    (m->kind == HT_CTF_MSG_EVENT && m->back_cycles)) {
		return NULL;
	}
	*o++ = '[';
	/* sec_fast: sec_len <= SEC_COPY; the caller reserved more */
	memcpy(o, p->sec_text, SEC_COPY);
	o += p->sec_len;
	*o++ = '.';
	o = out_pad9(o, in_sec);
	o = OUT_LIT(o, "] (+0.");
	o = out_pad9(o, d);
	o = OUT_LIT(o, ") ");
	p->last_ns = m->ns;
	p->last_cycles = m->cycles;
	return o;
}

/* Room for the timestamp and the delta of a line, and more. */
#define HEADER_ROOM 512

/* The timestamp and the delta of @msg's line at @o (HEADER_ROOM
 * bytes); returns the new end. */
static inline char *out_header(struct ht_pretty *p, char *o,
			       const struct ht_ctf_msg *msg)
{
	char *end;

	if (!msg->has_time) {
		return o;
	}
	end = p->plain_ts ? out_timestamp_plain(p, o, msg) : NULL;
	return end ? end : out_timestamp(p, o, msg);
}

/*
 * Formats one event: its header, then its compiled line; 1: shape
 * mismatch, found before anything is written or changed. The
 * hottest loop of `hetrace print`, kept in one piece: with its shape
 * check in a helper, or two of its cases merged, GCC allocates it worse
 * (+0.5% instructions each, callgrind). One switch for every kind,
 * OP_END included, so that each op costs one indirect jump and no test
 * besides. Each op's field is at its offset from its scope's base,
 * which the variable fields before it in the scope moved by their size.
 */
static int run_line(struct ht_pretty *p, struct ec_cache *e,
		    const struct ht_ctf_msg *msg)
{
	const struct ht_ctf_event *ev = msg->event;
	/* OP_END's scope is the last one: any valid field, never read */
	static const struct ht_ctf_field none;
	const struct ht_ctf_field *base[HT_CTF_NR_SCOPES + 1];
	struct op *op = e->ops;
	int s, ret;
	char *o;

	for (s = 0; s < e->nr_checks; s++) {
		/* an absent scope, or a reader that lays fields out
		 * otherwise: use the walker */
		const int k = e->checks[s];
		const struct ht_ctf_field *f = ev->scope[k];

		if (!f || (e->scope_size[k] && f->next != e->scope_size[k])) {
			return 1;
		}
		base[k] = f;
	}
	base[HT_CTF_NR_SCOPES] = &none;
	ret = reserve(p, HEADER_ROOM + e->fixed_max + LEAD_COPY);
	if (ret) {
		return ret;
	}
	o = out_header(p, p->out.data + p->out.len, msg);
	if (e->lead_len) {
		if (e->lead_len <= LEAD_COPY) {
			/* the literals have LEAD_COPY bytes of slack too */
			memcpy(o, e->lead, LEAD_COPY);
			o += e->lead_len;
		} else {
			o = out_mem(o, e->lead, e->lead_len);
		}
	}
	for (;; op++) {
		/* read before the copy, which may alias it */
		const uint32_t lit_len = op->lit_len;
		const struct ht_ctf_field *f;

		/* one fixed-size copy: the buffer and the literals both
		 * have LIT_COPY bytes of slack */
		memcpy(o, op->lit, LIT_COPY);
		o += lit_len;
		f = (const void *)((const char *)base[op->scope] + op->off);
		/* fixed-size values: into the reserve, through the cursor;
		 * the others through the buffer, which may grow */
		switch ((enum op_kind)op->kind) {
		case OP_UDEC:
			o = out_u64(o, f->v.u);
			continue;
		case OP_SDEC:
			o = out_s64(o, f->v.s);
			continue;
		case OP_HEX: {
			uint64_t v = f->v.u & op->mask;
			unsigned nd =
			    v ? (67 - (unsigned)__builtin_clzll(v)) / 4 : 1;

			o = OUT_LIT(o, "0x");
			store_word(o, hex8_word((uint32_t)v) >> 8 * (8 - nd));
			o += nd;
			continue;
		}
		case OP_INT:
			o = out_int(o, op->type, f->v.u);
			continue;
		case OP_FLOAT:
			o += ht__fmt_g(o, f->v.d);
			continue;
		case OP_BOOL:
			o = f->v.u ? OUT_LIT(o, "true") : OUT_LIT(o, "false");
			continue;
		case OP_LIT:
			continue;
		case OP_END:
			p->out.len = (size_t)(o - p->out.data);
			return 0;
		case OP_ENUM:
			if (f->v.u < ENUM_CACHED &&
			    op->enum_cache[f->v.u].len <= ENUM_COPY &&
			    op->enum_cache[f->v.u].text) {
				/* a short text formatted before: one
				 * fixed-size copy */
				const struct enum_text *et =
				    &op->enum_cache[f->v.u];

				o = room(p, o,
					 ENUM_COPY + e->fixed_max + LIT_COPY);
				if (!o) {
					return HT_ENOMEM;
				}
				memcpy(o, et->text, ENUM_COPY);
				o += et->len;
				continue;
			}
			p->out.len = (size_t)(o - p->out.data);
			ret = run_enum(p, op, f->v.u);
			break;
		/* variable-size values: room for the value and the rest of
		 * the line, then through the cursor */
		case OP_STRING:
			o = room(p, o,
				 4 * (size_t)f->nr_children + 2 + e->fixed_max +
				     LIT_COPY);
			if (!o) {
				return HT_ENOMEM;
			}
			o = ht__pretty_out_escaped(o, f->v.str, f->nr_children);
			continue;
		case OP_TEXT:
			o = room(p, o,
				 4 * (size_t)f->nr_children + 2 + e->fixed_max +
				     LIT_COPY);
			if (!o) {
				return HT_ENOMEM;
			}
			o = ht__pretty_out_text(o, f);
			base[op->scope] += f->next - 1;
			continue;
		case OP_INTS:
			o = room(p, o,
				 INTS_ROOM(f->nr_children) + e->fixed_max +
				     LIT_COPY);
			if (!o) {
				return HT_ENOMEM;
			}
			o = out_ints(o, f, op->names);
			base[op->scope] += f->next - 1;
			continue;
		case OP_VAR:
			p->out.len = (size_t)(o - p->out.data);
			ret = reserve(p, 256);
			if (!ret) {
				ret = ht__pretty_put_field(p, f, op->names);
			}
			base[op->scope] += f->next - 1;
			break;
		case OP_GENERIC:
			p->out.len = (size_t)(o - p->out.data);
			ret = reserve(p, 256);
			if (!ret) {
				ret = ht__pretty_put_field(p, f, op->names);
			}
			break;
		case OP_PCTX:
			p->out.len = (size_t)(o - p->out.data);
			ret = reserve(p, 256);
			if (!ret) {
				ret = ht__pretty_put_packet_context(p, e, f,
								    op->names);
			}
			break;
		default:
			/* the compiler emits only the kinds above: no range
			 * check before the jump table */
			__builtin_unreachable();
		}
		if (!ret) {
			ret = reserve(p, e->fixed_max + LIT_COPY);
		}
		if (ret) {
			return ret;
		}
		o = p->out.data + p->out.len;
	}
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

/* The line of event @ev through the field walker: every scope shown. */
static int walk_line(struct ht_pretty *p, const struct ec_cache *e,
		     const struct ht_ctf_event *ev)
{
	bool scope_names_on = p->o.names & HT_PRETTY_NAME_SCOPE;
	bool hn = p->o.names & HT_PRETTY_NAME_HEADER;
	bool first = true;
	int s, ret;

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
		if (first && !hn) {
			putc_(p, ' ');
		} else {
			PUT_LIT(p, ", ");
		}
		first = false;
		if (scope_names_on) {
			put(p, ht__pretty_scope_names[s],
			    strlen(ht__pretty_scope_names[s]));
		}
		names = scope_has_names(p, s);
		if (s == HT_CTF_SCOPE_PACKET_CONTEXT) {
			ret = ht__pretty_put_packet_context(p, e, f, names);
		} else {
			ret = ht__pretty_put_field(p, f, names);
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

/* The timestamp and the delta of @msg's line. */
static int put_header(struct ht_pretty *p, const struct ec_cache *e,
		      const struct ht_ctf_msg *msg)
{
	int ret = reserve(p, e->prefix_len + HEADER_ROOM);

	if (ret) {
		return ret;
	}
	p->out.len = (size_t)(out_header(p, p->out.data + p->out.len, msg) -
			      p->out.data);
	return 0;
}

int ht_pretty_event(struct ht_pretty *p, const struct ht_ctf_msg *msg)
{
	const struct ht_ctf_event *ev = msg->event;
	struct ec_cache *e;
	int ret;

	e = ec_get(p, ev->cls);
	if (!e) {
		return HT_ENOMEM;
	}
	/* noted events go through the field walker, which adds the notes */
	p->note_msg = e->noted ? msg : NULL;
	if (e->ops && !e->noted) {
		/* the header and the compiled line, which begins with the
		 * class's prefix */
		ret = run_line(p, e, msg);
		if (ret <= 0) {
			return ret;
		}
		/* a shape the compiled line does not match (found before
		 * writing anything): walk instead */
	}
	ret = put_header(p, e, msg);
	if (ret) {
		return ret;
	}
	/* put_header() reserved room for the prefix */
	put(p, e->prefix, e->prefix_len);
	return walk_line(p, e, ev);
}

/* ------------------------------------------------------------------ */
/* Discarded events and packets                                        */

/* "UUID: ..." or "no UUID", as babeltrace2 names the trace. */
static void format_uuid(const struct ht_ctf_trace *tr, char out[64])
{
	const uint8_t *u = tr->uuid;

	if (!tr->has_uuid) {
		snprintf(out, 64, "no UUID");
		return;
	}
	snprintf(out, 64,
		 "UUID: %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

/*
 * The time @ns as the event lines show it, into @out (64 bytes):
 * formatted at the spare end of the line buffer. Returns 0 or
 * HT_ENOMEM.
 */
static int format_time(struct ht_pretty *p, int64_t ns, char out[64])
{
	size_t at = p->out.len;
	char *end;

	if (reserve(p, 128)) {
		return HT_ENOMEM;
	}
	end = out_time(p, p->out.data + at, ns,
		       p->o.clock == HT_PRETTY_CLOCK_SECONDS);
	snprintf(out, 64, "%.*s", (int)(end - (p->out.data + at)),
		 p->out.data + at);
	return 0;
}

/* "discarded 3 events", or "may have discarded events" when the count
 * is unknown. */
static void format_loss(const struct ht_ctf_msg *msg, char out[96])
{
	bool events = msg->kind == HT_CTF_MSG_DISCARDED_EVENTS;

	/*
	 * In a stream's first packet the count before it is unknown:
	 * babeltrace2 then says the tracer "may have discarded events".
	 */
	if (!msg->count ||
	    (events && msg->packet && msg->packet->offset_bytes == 0)) {
		snprintf(out, 96, "may have discarded %s",
			 events ? "events" : "packets");
	} else {
		snprintf(out, 96, "discarded %llu %s%s",
			 (unsigned long long)msg->count,
			 events ? "event" : "packet",
			 msg->count == 1 ? "" : "s");
	}
}

size_t ht_pretty_discarded(struct ht_pretty *p, const struct ht_ctf_msg *msg,
			   const char *stream_path, uint64_t stream_id,
			   char *buf, size_t len)
{
	const struct ht_ctf_trace *tr = msg->stream->trace;
	const struct ht_ctf_stream_class *sc = msg->stream->stream_class;
	char uuid[64], t0[64] = "", t1[64] = "", what[96];
	int n;

	format_uuid(tr, uuid);
	if (msg->has_range && (format_time(p, msg->begin_ns, t0) ||
			       format_time(p, msg->end_ns, t1))) {
		return 0;
	}
	format_loss(msg, what);
	if (msg->kind == HT_CTF_MSG_DISCARDED_PACKETS && msg->before_first) {
		/* not babeltrace2's (it says nothing): its words, with
		 * "before" the first packet's beginning */
		if (msg->has_time && format_time(p, msg->ns, t1)) {
			return 0;
		}
		n = snprintf(buf, len,
			     "WARNING: Tracer %s before [%s] (the stream's "
			     "first packet is number %llu) in trace \"%s\" "
			     "(%s) within stream \"%s\" (stream class ID: "
			     "%llu, stream ID: %llu).\n",
			     what, msg->has_time ? t1 : "?",
			     (unsigned long long)msg->count, trace_name(p, tr),
			     uuid, stream_path,
			     (unsigned long long)(sc ? sc->id : 0),
			     (unsigned long long)stream_id);
		return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
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
	if (ht_array_reserve((void **)&p->tnames, &p->cap_tnames,
			     p->nr_tnames + 1, sizeof(*p->tnames))) {
		free(copy);
		return HT_ENOMEM;
	}
	t = &p->tnames[p->nr_tnames++];
	t->trace = trace;
	t->name = copy;
	return 0;
}

int ht_pretty_create(struct ht_pretty **pretty,
		     const struct ht_pretty_opts *opts)
{
	struct ht_pretty *p = calloc(1, sizeof(*p));

	if (!p) {
		return HT_ENOMEM;
	}
	ht__pretty_init_escapes();
	if (opts) {
		p->o = *opts;
	} else {
		p->o.names = HT_PRETTY_NAME_DEFAULT;
		p->o.fields = HT_PRETTY_FIELD_DEFAULT;
	}
	p->plain_ts = !(p->o.names & HT_PRETTY_NAME_HEADER) &&
		      p->o.clock == HT_PRETTY_CLOCK_TIME && !p->o.no_delta;
	if (!ht_buf_reserve(&p->out, 1 << 16)) {
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
		ht__pretty_free_line(&p->ecs[i]);
	}
	for (i = 0; i < p->nr_tnames; i++) {
		free(p->tnames[i].name);
	}
	free(p->tnames);
	free(p->ecs);
	ht_buf_fini(&p->out);
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
	*len = p->out.len;
	return p->out.data;
}

void ht_pretty_consume(struct ht_pretty *p)
{
	ht_buf_clear(&p->out);
}
