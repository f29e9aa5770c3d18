/* SPDX-License-Identifier: MIT */
/*
 * The HTML report (report.h, docs/report.md).
 *
 * Pass 1 runs the states model to count each core's segments (the
 * innermost slice running: an interrupt over a task, a task, idle) and
 * to learn the cores and the span; the levels of the timeline pyramid
 * are chosen from those counts to fit the budget. Pass 2 runs the
 * model again and encodes every segment into every level, keeps the
 * message flows (evenly thinned to the limit) and the utilization per
 * bucket. The path analysis (paths.h) runs on its own passes. The data
 * goes into the page as one JSON object; the viewer is
 * host/export/report/report.js, built into the binary.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/embedded.h"
#include "common/error.h"
#include "host/analysis/func-names.h"
#include "common/json-out.h"
#include "host/analysis/path-desc.h"
#include "host/analysis/paths.h"
#include "report.h"
#include "host/analysis/states.h"

#define UTIL_BUCKETS 1024
#define LEVEL0_BUCKETS 1024
#define MAX_LEVELS 12
#define STACK_MAX 80
#define MAX_SYNC_BYTES (64u << 20)
#define MAX_PATH_INSTANCES 20000
/* function rows per core: depth 0, 1, 2, then the innermost call at
 * depth 3 or more (a flame lane cut at a fixed height) */
#define FUNC_ROWS 4

/* ------------------------------------------------------------------ */
/* Growable byte buffer                                                */

struct buf {
	unsigned char *p;
	size_t len, cap;
	bool nomem;
};

static void buf_put(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		unsigned char *np;

		while (cap < b->len + n) {
			cap *= 2;
		}
		np = realloc(b->p, cap);
		if (!np) {
			b->nomem = true;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void buf_varint(struct buf *b, uint64_t v)
{
	unsigned char t[10];
	size_t n = 0;

	do {
		t[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v) {
			t[n] |= 0x80;
		}
		n++;
	} while (v);
	buf_put(b, t, n);
}

static void write_base64(FILE *out, const unsigned char *p, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
				  "qrstuvwxyz0123456789+/";
	char q[4];
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		q[0] = tab[p[i] >> 2];
		q[1] = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
		q[2] = tab[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)];
		q[3] = tab[p[i + 2] & 63];
		fwrite(q, 1, 4, out);
	}
	if (i < n) {
		q[0] = tab[p[i] >> 2];
		if (i + 1 < n) {
			q[1] = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
			q[2] = tab[(p[i + 1] & 15) << 2];
		} else {
			q[1] = tab[(p[i] & 3) << 4];
			q[2] = '=';
		}
		q[3] = '=';
		fwrite(q, 1, 4, out);
	}
}

/* Raw JSON text inside <script>: "</" becomes "<\/" (valid JSON, as
 * "</" can only appear inside strings). */
static void write_script_safe(FILE *out, const char *p, size_t n)
{
	size_t i, from = 0;

	for (i = 0; i + 1 < n; i++) {
		if (p[i] == '<' && p[i + 1] == '/') {
			fwrite(p + from, 1, i + 1 - from, out);
			fputc('\\', out);
			from = i + 1;
		}
	}
	fwrite(p + from, 1, n - from, out);
}

/* ------------------------------------------------------------------ */
/* JSON syntax check                                                   */

struct jcheck {
	const char *p, *end, *start;
	const char *what;
	unsigned depth;
};

static void jc_ws(struct jcheck *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r')) {
		j->p++;
	}
}

static bool jc_value(struct jcheck *j);

static bool jc_lit(struct jcheck *j, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n)) {
		j->what = "unexpected character";
		return false;
	}
	j->p += n;
	return true;
}

static bool jc_string(struct jcheck *j)
{
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p;

		if (c < 0x20) {
			j->what = "control character in a string";
			return false;
		}
		if (c == '\\') {
			j->p++;
			if (j->p >= j->end || !strchr("\"\\/bfnrtu", *j->p)) {
				j->what = "bad escape in a string";
				return false;
			}
			if (*j->p == 'u') {
				int k;

				for (k = 1; k <= 4; k++) {
					if (j->p + k >= j->end ||
					    !strchr("0123456789abcdefABCDEF",
						    j->p[k]) ||
					    !j->p[k]) {
						j->what = "bad \\u escape";
						return false;
					}
				}
				j->p += 4;
			}
		}
		j->p++;
	}
	if (j->p >= j->end) {
		j->what = "unterminated string";
		return false;
	}
	j->p++;
	return true;
}

static bool jc_digits(struct jcheck *j)
{
	const char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		j->p++;
	}
	if (j->p == s) {
		j->what = "bad number";
		return false;
	}
	return true;
}

static bool jc_number(struct jcheck *j)
{
	if (*j->p == '-') {
		j->p++;
	}
	if (j->p < j->end && *j->p == '0') {
		j->p++;
	} else if (!jc_digits(j)) {
		return false;
	}
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!jc_digits(j)) {
			return false;
		}
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-')) {
			j->p++;
		}
		if (!jc_digits(j)) {
			return false;
		}
	}
	return true;
}

static bool jc_container(struct jcheck *j, char close)
{
	bool first = true;

	if (++j->depth > 200) {
		j->what = "nested too deeply";
		return false;
	}
	j->p++;
	for (;;) {
		jc_ws(j);
		if (j->p < j->end && *j->p == close && first) {
			j->p++;
			break;
		}
		if (close == '}') {
			if (j->p >= j->end || *j->p != '"') {
				j->what = "expected a string key";
				return false;
			}
			if (!jc_string(j)) {
				return false;
			}
			jc_ws(j);
			if (j->p >= j->end || *j->p != ':') {
				j->what = "expected ':'";
				return false;
			}
			j->p++;
		}
		if (!jc_value(j)) {
			return false;
		}
		first = false;
		jc_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			break;
		}
		j->what = close == '}' ? "expected ',' or '}'"
				       : "expected ',' or ']'";
		return false;
	}
	j->depth--;
	return true;
}

static bool jc_value(struct jcheck *j)
{
	jc_ws(j);
	if (j->p >= j->end) {
		j->what = "unexpected end of the text";
		return false;
	}
	switch (*j->p) {
	case '{':
		return jc_container(j, '}');
	case '[':
		return jc_container(j, ']');
	case '"':
		return jc_string(j);
	case 't':
		return jc_lit(j, "true");
	case 'f':
		return jc_lit(j, "false");
	case 'n':
		return jc_lit(j, "null");
	default:
		if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
			return jc_number(j);
		}
		j->what = "unexpected character";
		return false;
	}
}

int ht_report_check_json(const char *text, size_t size, char *err,
			 size_t err_len)
{
	struct jcheck j = {.p = text, .end = text + size, .start = text};
	const char *q;
	unsigned line = 1, col = 1;

	if (jc_value(&j)) {
		jc_ws(&j);
		if (j.p == j.end) {
			return 0;
		}
		j.what = "text after the JSON value";
	}
	for (q = text; q < j.p && q < j.end; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	if (err_len) {
		snprintf(err, err_len, "%u:%u: invalid JSON: %s", line, col,
			 j.what);
	}
	return HT_ESYNTAX;
}

/* ------------------------------------------------------------------ */
/* Timeline encoding                                                   */

struct state {
	enum ht_states_kind kind;
	char *name;
};

/* One level of one core: runs (bucket delta, state id) as varints. */
struct enc {
	int64_t cur;	  /* bucket being accumulated, -1 none */
	int64_t next;	  /* first bucket not yet covered by a run */
	int64_t last_run; /* bucket of the last run emitted */
	uint32_t last_state;
	uint32_t *acc_state;
	uint64_t *acc_ns;
	size_t nr_acc, cap_acc;
	struct buf out;
	uint64_t runs;
};

/* One row of the timeline: its segments encoded in every level. */
struct trow {
	uint64_t segs;	  /* pass 1: segments counted */
	struct enc *lv;	  /* per level */
	struct enc exact; /* unit 1 ns */
};

struct core {
	struct trow row; /* what ran: tasks, interrupts, idle */
	uint32_t stack[STACK_MAX];
	unsigned depth;
	int64_t last_ns;
	uint64_t *busy;	 /* per util bucket, ns busy (task + isr) */
	uint64_t *known; /* per util bucket, ns known */
	/* function calls: the state of each open call by depth, and the
	 * function rows (index into report.frows + 1, 0: none yet) */
	uint32_t fstack[STACK_MAX];
	size_t frow[FUNC_ROWS];
};

/* A function row: the call at one depth of one core. */
struct frow {
	struct trow row;
	unsigned core, depth;
	uint32_t state; /* running now (0: none) */
	int64_t since;
};

struct report {
	int pass;
	struct state *states;
	size_t nr_states, cap_states;
	struct core *cores; /* by states core index */
	size_t nr_cores;
	int64_t t0, t1;
	unsigned nr_levels;
	int64_t level_n[MAX_LEVELS]; /* buckets per level */
	bool exact;
	unsigned nr_kept; /* levels written */
	bool exact_kept;
	uint64_t flows, flows_kept, flow_stride;
	struct buf flow_json;
	struct frow *frows; /* in order of creation (the same both passes) */
	size_t nr_frows, cap_frows;
	uint32_t *state_hash; /* state ids by (kind, name); 0 empty */
	size_t hash_cap;
	size_t nr_core_rows; /* rows before the function rows */
	struct buf notes;    /* JSON strings, comma-separated */
	uint64_t reader_errors;
	void (*on_damage)(void *arg, const char *text);
	void *on_damage_arg;
	bool nomem;
};

/* Row @i of the page: the cores' rows, then the function rows. */
static struct trow *row_at(struct report *r, size_t i)
{
	return i < r->nr_core_rows ? &r->cores[i].row
				   : &r->frows[i - r->nr_core_rows].row;
}

static size_t nr_rows(const struct report *r)
{
	return r->nr_core_rows + r->nr_frows;
}

static struct core *core_at(struct report *r, unsigned index)
{
	if (index >= r->nr_cores) {
		size_t n = index + 8;
		struct core *nc = realloc(r->cores, n * sizeof(*nc));

		if (!nc) {
			r->nomem = true;
			return NULL;
		}
		memset(nc + r->nr_cores, 0, (n - r->nr_cores) * sizeof(*nc));
		r->cores = nc;
		r->nr_cores = n;
	}
	return &r->cores[index];
}

static size_t state_hash(enum ht_states_kind kind, const char *name)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;

	for (; *name; name++) {
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	}
	return (size_t)(h ^ (h >> 29));
}

/* Puts state @id into the hash table (grown at half full). */
static bool hash_put(struct report *r, uint32_t id)
{
	size_t i, mask;

	if (2 * (r->nr_states + 1) > r->hash_cap) {
		size_t cap = r->hash_cap ? 2 * r->hash_cap : 256, k;
		uint32_t *h = calloc(cap, sizeof(*h));

		if (!h) {
			return false;
		}
		free(r->state_hash);
		r->state_hash = h;
		r->hash_cap = cap;
		for (k = 0; k < r->nr_states; k++) {
			if (k + 1 != id && !hash_put(r, (uint32_t)k + 1)) {
				return false;
			}
		}
	}
	mask = r->hash_cap - 1;
	for (i = state_hash(r->states[id - 1].kind, r->states[id - 1].name) &
		 mask;
	     r->state_hash[i]; i = (i + 1) & mask) {
	}
	r->state_hash[i] = id;
	return true;
}

static uint32_t state_of(struct report *r, const struct ht_states_slice *s)
{
	const char *name = s->name ? s->name : "?";
	size_t i, mask = r->hash_cap - 1;

	for (i = r->hash_cap ? state_hash(s->kind, name) & mask : 0;
	     r->hash_cap && r->state_hash[i]; i = (i + 1) & mask) {
		const struct state *st = &r->states[r->state_hash[i] - 1];

		if (st->kind == s->kind && !strcmp(st->name, name)) {
			return r->state_hash[i];
		}
	}
	if (r->nr_states == r->cap_states) {
		size_t n = r->cap_states ? 2 * r->cap_states : 32;
		struct state *ns = realloc(r->states, n * sizeof(*ns));

		if (!ns) {
			r->nomem = true;
			return 0;
		}
		r->states = ns;
		r->cap_states = n;
	}
	r->states[r->nr_states].kind = s->kind;
	r->states[r->nr_states].name = strdup(name);
	if (!r->states[r->nr_states].name) {
		r->nomem = true;
		return 0;
	}
	r->nr_states++;
	if (!hash_put(r, (uint32_t)r->nr_states)) {
		r->nomem = true;
		return 0;
	}
	return (uint32_t)r->nr_states;
}

static void enc_run(struct enc *e, int64_t bucket, uint32_t state)
{
	if (e->runs && state == e->last_state) {
		return;
	}
	buf_varint(&e->out, (uint64_t)(bucket - (e->runs ? e->last_run : 0)));
	buf_varint(&e->out, state);
	e->last_run = bucket;
	e->last_state = state;
	e->runs++;
}

static void enc_flush(struct enc *e)
{
	size_t i, best = 0;

	if (e->cur < 0 || !e->nr_acc) {
		return;
	}
	if (e->cur > e->next) {
		enc_run(e, e->next, 0); /* nothing known in between */
	}
	for (i = 1; i < e->nr_acc; i++) {
		if (e->acc_ns[i] > e->acc_ns[best]) {
			best = i;
		}
	}
	enc_run(e, e->cur, e->acc_state[best]);
	e->next = e->cur + 1;
	e->nr_acc = 0;
	e->cur = -1;
}

static void enc_add(struct enc *e, int64_t bucket, uint32_t state, uint64_t ns,
		    bool *nomem)
{
	size_t i;

	if (bucket != e->cur) {
		enc_flush(e);
		e->cur = bucket;
	}
	for (i = 0; i < e->nr_acc; i++) {
		if (e->acc_state[i] == state) {
			e->acc_ns[i] += ns;
			return;
		}
	}
	if (e->nr_acc == e->cap_acc) {
		size_t n = e->cap_acc ? 2 * e->cap_acc : 8;
		uint32_t *s = realloc(e->acc_state, n * sizeof(*s));
		uint64_t *t;

		if (!s) {
			*nomem = true;
			return;
		}
		e->acc_state = s;
		t = realloc(e->acc_ns, n * sizeof(*t));
		if (!t) {
			*nomem = true;
			return;
		}
		e->acc_ns = t;
		e->cap_acc = n;
	}
	e->acc_state[e->nr_acc] = state;
	e->acc_ns[e->nr_acc++] = ns;
}

/* Segment [a, b) of @state into a level of @n buckets over the span. */
static void enc_segment(struct report *r, struct enc *e, int64_t n, int64_t a,
			int64_t b, uint32_t state)
{
	double span = (double)(r->t1 - r->t0);
	double per = (double)n / span; /* buckets per ns */
	int64_t ba = (int64_t)((double)(a - r->t0) * per);
	int64_t bb = (int64_t)((double)(b - r->t0) * per);

	if (ba >= n) {
		ba = n - 1;
	}
	if (bb >= n) {
		bb = n - 1;
	}
	if (ba == bb) {
		enc_add(e, ba, state, (uint64_t)(b - a), &r->nomem);
		return;
	}
	{
		int64_t end_a = r->t0 + (int64_t)ceil((double)(ba + 1) / per);
		int64_t start_b = r->t0 + (int64_t)ceil((double)bb / per);

		enc_add(e, ba, state, (uint64_t)(end_a > a ? end_a - a : 1),
			&r->nomem);
		enc_flush(e);
		if (bb > ba + 1) {
			/* whole buckets of this state */
			enc_run(e, ba + 1, state);
			e->next = bb;
		}
		enc_add(e, bb, state, (uint64_t)(b > start_b ? b - start_b : 1),
			&r->nomem);
	}
}

static void exact_segment(struct report *r, struct enc *e, int64_t a, int64_t b,
			  uint32_t state)
{
	int64_t ra = a - r->t0, rb = b - r->t0;

	(void)rb;
	if (e->runs && ra > e->next) {
		enc_run(e, e->next, 0);
	}
	if (!e->runs && ra > 0) {
		enc_run(e, 0, 0);
	}
	if (e->runs && state == e->last_state) {
		e->next = b - r->t0;
		return;
	}
	enc_run(e, ra, state);
	e->next = b - r->t0;
}

static void util_segment(struct report *r, struct core *c, int64_t a, int64_t b,
			 uint32_t state)
{
	double per = (double)UTIL_BUCKETS / (double)(r->t1 - r->t0);
	bool busy = r->states[state - 1].kind != HT_STATES_IDLE;

	while (a < b) {
		int64_t k = (int64_t)((double)(a - r->t0) * per);
		int64_t end;

		if (k >= UTIL_BUCKETS) {
			k = UTIL_BUCKETS - 1;
		}
		end = r->t0 + (int64_t)ceil((double)(k + 1) / per);
		if (end > b || k == UTIL_BUCKETS - 1) {
			end = b;
		}
		if (end <= a) {
			end = a + 1;
		}
		c->known[k] += (uint64_t)(end - a);
		if (busy) {
			c->busy[k] += (uint64_t)(end - a);
		}
		a = end;
	}
}

/* @state ran on row @t over [a, b): pass 1 counts, pass 2 encodes. */
static bool encode(struct report *r, struct trow *t, int64_t a, int64_t b,
		   uint32_t state)
{
	unsigned l;

	if (b <= a || !state) {
		return false;
	}
	if (r->pass == 1) {
		t->segs++;
		return false;
	}
	for (l = 0; l < r->nr_levels; l++) {
		enc_segment(r, &t->lv[l], r->level_n[l], a, b, state);
	}
	if (r->exact) {
		exact_segment(r, &t->exact, a, b, state);
	}
	return true;
}

/* The innermost slice @state ran on @c over [a, b). */
static void segment(struct report *r, struct core *c, int64_t a, int64_t b,
		    uint32_t state)
{
	if (encode(r, &c->row, a, b, state)) {
		util_segment(r, c, a, b, state);
	}
}

/* The function row of @c for calls at @depth, made on first use. */
static struct frow *frow_of(struct report *r, struct core *c, unsigned core,
			    unsigned depth)
{
	unsigned d = depth < FUNC_ROWS - 1 ? depth : FUNC_ROWS - 1;
	struct frow *f;

	if (c->frow[d]) {
		return &r->frows[c->frow[d] - 1];
	}
	if (r->pass == 2) {
		/* pass 1 saw the same items: every row exists */
		r->nomem = true;
		return NULL;
	}
	if (r->nr_frows == r->cap_frows) {
		size_t n = r->cap_frows ? 2 * r->cap_frows : 16;
		struct frow *g = realloc(r->frows, n * sizeof(*g));

		if (!g) {
			r->nomem = true;
			return NULL;
		}
		r->frows = g;
		r->cap_frows = n;
	}
	f = &r->frows[r->nr_frows++];
	memset(f, 0, sizeof(*f));
	f->core = core;
	f->depth = d;
	c->frow[d] = r->nr_frows;
	return f;
}

/* Row @f shows @state from @t on. */
static void frow_set(struct report *r, struct frow *f, int64_t t,
		     uint32_t state)
{
	if (f->state == state) {
		return;
	}
	if (f->state) {
		encode(r, &f->row, f->since, t, f->state);
	}
	f->state = state;
	f->since = t;
}

/*
 * A call begins or ends: the row of its depth changes (the last row
 * shows the innermost call at that depth or deeper). Pass 1 only
 * counts, so any non-zero state will do there (no names yet).
 */
static int on_func_slice(struct report *r, struct core *c,
			 const struct ht_states_item *it)
{
	unsigned d = it->slice->depth;
	struct frow *f = frow_of(r, c, it->core->index, d);
	uint32_t s = 1;

	if (!f) {
		return HT_ENOMEM;
	}
	if (it->kind == HT_STATES_SLICE_BEGIN) {
		if (r->pass == 2) {
			s = state_of(r, it->slice);
		}
		if (d < STACK_MAX) {
			c->fstack[d] = s;
		}
		frow_set(r, f, it->ns, s);
	} else if (d <= FUNC_ROWS - 1) {
		frow_set(r, f, it->ns, 0);
	} else {
		/* back to the caller, at depth d - 1 >= FUNC_ROWS - 1 (the
		 * states model keeps fewer than STACK_MAX open calls) */
		frow_set(r, f, it->ns,
			 c->fstack[d - 1 < STACK_MAX ? d - 1 : STACK_MAX - 1]);
	}
	return r->nomem ? HT_ENOMEM : 0;
}

static int on_item(void *arg, const struct ht_states_item *it)
{
	struct report *r = arg;
	struct core *c;

	if (it->kind == HT_STATES_FLOW) {
		/* every matched message, also a receive stamped at or
		 * before its send (the sync's error) */
		if (r->pass == 2 && r->flows++ % r->flow_stride == 0) {
			char t[128];

			snprintf(t, sizeof(t),
				 "%s[%u,%" PRId64 ",%u,%" PRId64 "]",
				 r->flows_kept ? "," : "", it->core->index,
				 it->ns - r->t0, it->peer->index,
				 it->peer_ns - r->t0);
			buf_put(&r->flow_json, t, strlen(t));
			r->flows_kept++;
		}
		return 0;
	}
	if (it->kind != HT_STATES_SLICE_BEGIN &&
	    it->kind != HT_STATES_SLICE_END) {
		return 0;
	}
	c = core_at(r, it->core->index);
	if (!c) {
		return HT_ENOMEM;
	}
	if (it->slice->kind == HT_STATES_FUNC) {
		return on_func_slice(r, c, it);
	}
	if (c->depth && c->depth <= STACK_MAX) {
		segment(r, c, c->last_ns, it->ns, c->stack[c->depth - 1]);
	}
	c->last_ns = it->ns;
	if (it->kind == HT_STATES_SLICE_BEGIN) {
		uint32_t s = state_of(r, it->slice);

		if (c->depth < STACK_MAX) {
			c->stack[c->depth] = s;
		}
		c->depth++;
	} else if (c->depth) {
		c->depth--;
	}
	return r->nomem ? HT_ENOMEM : 0;
}

static const char *symbolize(void *arg, const struct ht_ctf_msg *msg,
			     uint64_t addr)
{
	return ht_fnames_name(arg, msg, addr);
}

/* One pass over the traces through the states model; pass 1 also
 * feeds @fnames (the load bias of each core), pass 2 names with it. */
static int run_pass(struct report *r, const char *const *traces,
		    size_t nr_traces, struct ht_fnames *fnames,
		    struct ht_states **stp, char *err, size_t err_len)
{
	struct ht_ctf_open_opts oo = {.flags = HT_CTF_KEEP_GOING};
	struct ht_states_opts so = {.no_events = true};
	struct ht_ctf_set *set = NULL;
	struct ht_ctf_msg msg;
	size_t i;
	int ret;

	for (i = 0; i < r->nr_cores; i++) {
		r->cores[i].depth = 0;
	}
	for (i = 0; i < r->nr_frows; i++) {
		r->frows[i].state = 0;
	}
	if (fnames && r->pass == 2) {
		so.symbolize = symbolize;
		so.symbolize_arg = fnames;
	}
	ret = ht_states_create(stp, &so, on_item, r);
	if (ret) {
		return ret;
	}
	ret = ht_ctf_set_open(&set, traces, nr_traces, &oo, err, err_len);
	if (ret) {
		return ret;
	}
	for (;;) {
		ret = ht_ctf_set_next(set, &msg);
		if (ret == HT_EEOF) {
			ret = ht_states_finish(*stp);
			break;
		}
		if (ret) {
			/* damaged: said once (pass 1), skipped, the rest is
			 * used */
			if (r->pass == 1) {
				r->reader_errors++;
				if (r->on_damage) {
					r->on_damage(r->on_damage_arg,
						     ht_ctf_set_error(set));
				}
			}
			continue;
		}
		if (fnames && r->pass == 1) {
			ret = ht_fnames_scan(fnames, &msg);
			if (ret) {
				break;
			}
		}
		ret = ht_states_feed(*stp, &msg);
		if (ret) {
			break;
		}
	}
	ht_ctf_set_close(set);
	if (!ret && r->nomem) {
		ret = HT_ENOMEM;
	}
	return ret;
}

/* The worst-case size of a level of @n buckets: one run per bucket or
 * per segment, whichever is fewer, ~4 bytes each in base64. */
static uint64_t level_bound(struct report *r, int64_t n)
{
	uint64_t bound = 0;
	size_t i;

	for (i = 0; i < nr_rows(r); i++) {
		uint64_t s = row_at(r, i)->segs + 2;

		bound += ((uint64_t)n < s ? (uint64_t)n : s) * 4;
	}
	return bound;
}

/*
 * Chooses the levels: 4 times finer each while the worst case fits the
 * budget; then one last level as fine as the rest of the budget allows
 * (at least twice the previous one); then the exact slices if they fit.
 */
static void choose_levels(struct report *r, size_t budget)
{
	uint64_t total_segs = 0, used = 0;
	int64_t n = LEVEL0_BUCKETS, span = r->t1 - r->t0;
	size_t i;

	for (i = 0; i < nr_rows(r); i++) {
		total_segs += row_at(r, i)->segs;
	}
	r->nr_levels = 0;
	while (r->nr_levels < MAX_LEVELS) {
		uint64_t bound = level_bound(r, n);

		if (r->nr_levels && used + bound > budget) {
			/* the finest level that still fits */
			int64_t lo = 2 * r->level_n[r->nr_levels - 1], hi = n;

			if (used + level_bound(r, lo) > budget) {
				break;
			}
			while (hi - lo > 1) {
				int64_t mid = lo + (hi - lo) / 2;

				if (used + level_bound(r, mid) <= budget) {
					lo = mid;
				} else {
					hi = mid;
				}
			}
			r->level_n[r->nr_levels++] = lo;
			used += level_bound(r, lo);
			break;
		}
		r->level_n[r->nr_levels++] = n;
		used += bound;
		/* a level with more buckets than segments, or buckets
		 * under 1 ns, adds nothing */
		if ((uint64_t)n >= 4 * (total_segs + 1) || n >= span) {
			break;
		}
		n *= 4;
	}
	r->exact = used + (total_segs + 2 * nr_rows(r)) * 8 <= budget;
}

static uint64_t level_size(struct report *r, unsigned l, bool exact)
{
	uint64_t size = 0;
	size_t i;

	for (i = 0; i < nr_rows(r); i++) {
		const struct enc *e =
		    exact ? &row_at(r, i)->exact : &row_at(r, i)->lv[l];

		size += (e->out.len + 2) / 3 * 4 + 3;
	}
	return size;
}

/* Keeps the coarse levels, then the exact slices, while they fit. */
static void keep_levels(struct report *r, size_t budget)
{
	uint64_t used = 0;
	unsigned l;

	for (l = 0; l < r->nr_levels; l++) {
		uint64_t size = level_size(r, l, false);

		if (l && used + size > budget) {
			break;
		}
		used += size;
	}
	r->nr_kept = l;
	r->exact_kept = r->exact && r->nr_kept == r->nr_levels &&
			used + level_size(r, 0, true) <= budget;
}

static void write_core_json(FILE *out, const struct report *r,
			    const struct ht_states_core *sc)
{
	size_t i;

	fprintf(out, "{\"name\":");
	ht__json_str_html(out, sc->name);
	fprintf(out, ",\"group\":");
	ht__json_str_html(out, sc->group ? sc->group : "");
	fprintf(out, ",\"role\":");
	ht__json_str_html(out, sc->role ? sc->role : "");
	fprintf(out,
		",\"has_tasks\":%s,\"first\":%" PRId64 ",\"last\":%" PRId64
		",\"unknown\":%" PRIu64 ",\"idle\":%" PRIu64
		",\"task\":%" PRIu64 ",\"isr\":%" PRIu64 ",\"events\":%" PRIu64
		",\"switches\":%" PRIu64 ",\"interrupts\":%" PRIu64
		",\"anomalies\":%" PRIu64 ",\"tasks\":[",
		sc->has_tasks ? "true" : "false",
		sc->has_time ? sc->first_ns - r->t0 : 0,
		sc->has_time ? sc->last_ns - r->t0 : 0, sc->unknown_ns,
		sc->idle_ns, sc->task_ns, sc->isr_ns, sc->events,
		sc->context_switches, sc->interrupts,
		sc->isr_exit_unmatched + sc->isr_enter_unclosed +
		    sc->switch_prev_mismatch + sc->time_backwards +
		    sc->depth_overflow);
	for (i = 0; i < sc->nr_tasks; i++) {
		const struct ht_states_task *t = &sc->tasks[i];

		fprintf(out, "%s{\"name\":", i ? "," : "");
		ht__json_str_html(out, t->name ? t->name : "?");
		fprintf(out, ",\"kind\":\"%s\",\"run\":%" PRIu64 "}",
			t->kind == HT_STATES_ISR    ? "isr"
			: t->kind == HT_STATES_IDLE ? "idle"
						    : "task",
			t->run_ns);
	}
	fprintf(out, "]}");
}

struct note_sink {
	struct report *r;
	const struct ht_report_opts *opts;
};

/* A note on the function names: into the page's notes and to the
 * caller's warn callback. */
static void note_cb(void *arg, const char *text)
{
	struct note_sink *ns = arg;
	struct buf *b = &ns->r->notes;
	char *j = NULL;
	size_t n = 0;
	FILE *ms = open_memstream(&j, &n);

	if (ms) {
		if (b->len) {
			fputc(',', ms);
		}
		ht__json_str_html(ms, text);
		if (!fclose(ms)) {
			buf_put(b, j, n);
		}
		free(j);
	}
	if (ns->opts && ns->opts->warn) {
		ns->opts->warn(ns->opts->warn_arg, text);
	}
}

#define MAX_DAMAGE_NOTES 20

/* A damaged part of a trace (skipped): told, and noted in the page
 * (the first ones). */
static void damage_cb(void *arg, const char *text)
{
	struct note_sink *ns = arg;

	if (ns->r->reader_errors <= MAX_DAMAGE_NOTES) {
		note_cb(arg, text);
	} else if (ns->opts && ns->opts->warn) {
		ns->opts->warn(ns->opts->warn_arg, text);
	}
}

static const char *kind_name(enum ht_states_kind k)
{
	switch (k) {
	case HT_STATES_FUNC:
		return "func";
	case HT_STATES_IDLE:
		return "idle";
	case HT_STATES_ISR:
		return "isr";
	default:
		return "task";
	}
}

static int write_embedded(FILE *out, const char *name, char *err,
			  size_t err_len)
{
	const struct ht_embedded_file *f = ht_embedded_find(name);

	if (!f) {
		snprintf(err, err_len, "%s is not built into hetrace", name);
		return HT_ENOENT;
	}
	fwrite(f->data, 1, f->size, out);
	return 0;
}

static int read_file(const char *path, char **text, size_t *size, char *err,
		     size_t err_len)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	*text = NULL;
	if (!f) {
		snprintf(err, err_len, "%s: cannot open: %s", path,
			 strerror(errno));
		return errno == ENOENT ? HT_ENOENT : HT_EIO;
	}
	*text = malloc(MAX_SYNC_BYTES + 1);
	if (!*text) {
		fclose(f);
		return HT_ENOMEM;
	}
	n = fread(*text, 1, MAX_SYNC_BYTES + 1, f);
	if (ferror(f) || n > MAX_SYNC_BYTES) {
		snprintf(err, err_len, "%s: %s", path,
			 ferror(f) ? "read error" : "larger than 64 MiB");
		fclose(f);
		free(*text);
		*text = NULL;
		return HT_EIO;
	}
	fclose(f);
	*size = n;
	return 0;
}

static void free_report(struct report *r)
{
	size_t i;
	unsigned l;

	for (i = 0; i < nr_rows(r); i++) {
		struct trow *t = row_at(r, i);

		for (l = 0; t->lv && l < r->nr_levels; l++) {
			free(t->lv[l].out.p);
			free(t->lv[l].acc_state);
			free(t->lv[l].acc_ns);
		}
		free(t->lv);
		free(t->exact.out.p);
	}
	for (i = 0; i < r->nr_cores; i++) {
		free(r->cores[i].busy);
		free(r->cores[i].known);
	}
	free(r->cores);
	free(r->frows);
	free(r->state_hash);
	for (i = 0; i < r->nr_states; i++) {
		free(r->states[i].name);
	}
	free(r->states);
	free(r->flow_json.p);
	free(r->notes.p);
}

int ht_report_write(const char *const *traces, size_t nr_traces,
		    const struct ht_report_opts *opts, FILE *out,
		    struct ht_report_stats *stats, char *err, size_t err_len)
{
	struct report r = {.pass = 1};
	struct ht_states *st = NULL;
	struct ht_states_msgs msgs;
	struct ht_path_desc *desc = NULL;
	struct ht_paths_result *pres = NULL;
	struct ht_fnames *fnames = NULL;
	struct note_sink damage;
	char *sync_text = NULL, *paths_json = NULL;
	size_t sync_size = 0, paths_size = 0, nr_cores, i;
	size_t budget =
	    opts && opts->budget_bytes ? opts->budget_bytes : (size_t)14 << 20;
	size_t max_flows = opts && opts->max_flows ? opts->max_flows : 20000;
	uint64_t events = 0;
	unsigned l;
	int ret;

	if (err_len) {
		err[0] = '\0';
	}
	/* the inputs that can be wrong come first: fail before the work */
	if (opts && opts->sync_file) {
		char msg[256];

		ret = read_file(opts->sync_file, &sync_text, &sync_size, err,
				err_len);
		if (ret) {
			goto out;
		}
		ret = ht_report_check_json(sync_text, sync_size, msg,
					   sizeof(msg));
		if (ret) {
			snprintf(err, err_len, "%s:%s", opts->sync_file, msg);
			goto out;
		}
	}
	if (opts && opts->paths_file) {
		ret = ht_path_desc_load(&desc, opts->paths_file, err, err_len);
		if (ret) {
			goto out;
		}
	}

	damage.r = &r;
	damage.opts = opts;
	r.on_damage = damage_cb;
	r.on_damage_arg = &damage;
	if (opts && opts->nr_elfs) {
		ret = ht_fnames_create(&fnames);
		for (i = 0; !ret && i < opts->nr_elfs; i++) {
			ret =
			    ht_fnames_add(fnames, opts->elfs[i], err, err_len);
		}
		if (ret) {
			goto out;
		}
	}

	ret = run_pass(&r, traces, nr_traces, fnames, &st, err, err_len);
	if (ret) {
		goto out;
	}
	if (fnames) {
		struct note_sink ns = {&r, opts};

		ht_fnames_ready(fnames, note_cb, &ns);
	}
	nr_cores = ht_states_nr_cores(st);
	r.t0 = INT64_MAX;
	r.t1 = INT64_MIN;
	for (i = 0; i < nr_cores; i++) {
		const struct ht_states_core *sc = ht_states_core(st, i);

		events += sc->events;
		if (sc->has_time) {
			r.t0 = sc->first_ns < r.t0 ? sc->first_ns : r.t0;
			r.t1 = sc->last_ns > r.t1 ? sc->last_ns : r.t1;
		}
	}
	if (!nr_cores || r.t0 == INT64_MAX) {
		snprintf(err, err_len, "%s: no events with a time in the trace",
			 nr_traces ? traces[0] : "?");
		ret = HT_EFORMAT;
		goto out;
	}
	if (r.t1 <= r.t0) {
		r.t1 = r.t0 + 1;
	}
	if (!core_at(&r, (unsigned)nr_cores)) {
		ret = HT_ENOMEM;
		goto out;
	}
	r.nr_core_rows = nr_cores;
	ht_states_msgs(st, &msgs);
	r.flow_stride = msgs.matched > max_flows
			    ? (msgs.matched + max_flows - 1) / max_flows
			    : 1;
	ht_states_destroy(st);
	st = NULL;

	/* the bounds are pessimistic: encode for 3 times the budget, then
	 * keep what fits once the sizes are known */
	choose_levels(&r, 3 * budget);
	for (i = 0; i < r.nr_cores; i++) {
		struct core *c = &r.cores[i];

		c->busy = calloc(UTIL_BUCKETS, sizeof(*c->busy));
		c->known = calloc(UTIL_BUCKETS, sizeof(*c->known));
		if (!c->busy || !c->known) {
			ret = HT_ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < nr_rows(&r); i++) {
		struct trow *t = row_at(&r, i);

		t->lv = calloc(r.nr_levels, sizeof(*t->lv));
		if (!t->lv) {
			ret = HT_ENOMEM;
			goto out;
		}
		for (l = 0; l < r.nr_levels; l++) {
			t->lv[l].cur = -1;
		}
		t->exact.cur = -1;
	}
	r.pass = 2;
	ret = run_pass(&r, traces, nr_traces, fnames, &st, err, err_len);
	if (ret) {
		goto out;
	}
	for (i = 0; i < nr_rows(&r); i++) {
		struct trow *t = row_at(&r, i);

		for (l = 0; l < r.nr_levels; l++) {
			enc_flush(&t->lv[l]);
			/* the end of the last run */
			if (t->lv[l].runs) {
				enc_run(&t->lv[l], t->lv[l].next, 0);
			}
			r.nomem |= t->lv[l].out.nomem;
		}
		if (t->exact.runs) {
			enc_run(&t->exact, t->exact.next, 0);
		}
		r.nomem |= t->exact.out.nomem;
	}
	if (r.nomem || r.flow_json.nomem) {
		ret = HT_ENOMEM;
		goto out;
	}
	keep_levels(&r, budget);

	if (desc) {
		FILE *ms;

		ret = ht_paths_analyze(desc, traces, nr_traces, NULL, &pres,
				       err, err_len);
		if (ret) {
			goto out;
		}
		ms = open_memstream(&paths_json, &paths_size);
		if (!ms) {
			ret = HT_ENOMEM;
			goto out;
		}
		ret = ht_paths_write_json_max(pres, ms, MAX_PATH_INSTANCES);
		if (fclose(ms) && !ret) {
			ret = HT_ENOMEM;
		}
		if (ret) {
			goto out;
		}
	}

	/* the page */
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		     "<meta charset=\"utf-8\">\n<title>hetrace report</title>\n"
		     "<style>\n");
	ret =
	    write_embedded(out, "host/export/report/report.css", err, err_len);
	if (ret) {
		goto out;
	}
	fprintf(out, "</style>\n</head>\n<body>\n");
	ret =
	    write_embedded(out, "host/export/report/report.html", err, err_len);
	if (ret) {
		goto out;
	}
	fprintf(out, "<script id=\"ht-data\" type=\"application/json\">\n"
		     "{\"title\":");
	ht__json_str_html(out, opts && opts->title
				   ? opts->title
				   : (nr_traces ? traces[0] : ""));
	fprintf(out,
		",\"t0\":\"%" PRId64 "\",\"span\":%" PRId64
		",\"events\":%" PRIu64 ",\n\"cores\":[",
		r.t0, r.t1 - r.t0, events);
	for (i = 0; i < nr_cores; i++) {
		fprintf(out, "%s\n", i ? "," : "");
		write_core_json(out, &r, ht_states_core(st, i));
	}
	fprintf(out, "],\n\"states\":[");
	for (i = 0; i < r.nr_states; i++) {
		fprintf(out, "%s{\"n\":", i ? "," : "");
		ht__json_str_html(out, r.states[i].name);
		fprintf(out, ",\"k\":\"%s\"}", kind_name(r.states[i].kind));
	}
	fprintf(out, "],\n\"levels\":[");
	for (l = 0; l < r.nr_kept + (r.exact_kept ? 1 : 0); l++) {
		bool ex = l == r.nr_kept;

		fprintf(out, "%s\n{\"n\":%" PRId64 ",\"rows\":[", l ? "," : "",
			ex ? 0 : r.level_n[l]);
		for (i = 0; i < nr_rows(&r); i++) {
			const struct trow *t = row_at(&r, i);
			const struct enc *e = ex ? &t->exact : &t->lv[l];

			fprintf(out, "%s\"", i ? "," : "");
			write_base64(out, e->out.p, e->out.len);
			fputc('"', out);
		}
		fprintf(out, "]}");
	}
	/* the function rows: [core index, depth], rows nr_cores.. */
	fprintf(out, "],\n\"frows\":[");
	for (i = 0; i < r.nr_frows; i++) {
		fprintf(out, "%s[%u,%u]", i ? "," : "", r.frows[i].core,
			r.frows[i].depth);
	}
	fprintf(out, "],\n\"func_rows\":%d,\n\"notes\":[", FUNC_ROWS);
	fwrite(r.notes.p ? (const char *)r.notes.p : "", 1, r.notes.len, out);
	fprintf(out, "],\n\"util\":{\"n\":%d,\"rows\":[", UTIL_BUCKETS);
	for (i = 0; i < nr_cores; i++) {
		unsigned char u[UTIL_BUCKETS];
		int k;

		for (k = 0; k < UTIL_BUCKETS; k++) {
			const struct core *c = &r.cores[i];

			/* 0: nothing known; 1..201: busy 0..100 % */
			u[k] =
			    c->known[k]
				? (unsigned char)(1 +
						  lround(200.0 *
							 (double)c->busy[k] /
							 (double)c->known[k]))
				: 0;
		}
		fprintf(out, "%s\"", i ? "," : "");
		write_base64(out, u, UTIL_BUCKETS);
		fputc('"', out);
	}
	fprintf(out,
		"]},\n\"msgs\":{\"sent\":%" PRIu64 ",\"received\":%" PRIu64
		",\"matched\":%" PRIu64 ",\"kept\":%" PRIu64 "},\n\"flows\":[",
		msgs.sent, msgs.received, msgs.matched, r.flows_kept);
	fwrite(r.flow_json.p ? (const char *)r.flow_json.p : "", 1,
	       r.flow_json.len, out);
	fprintf(out, "],\n\"paths\":");
	if (paths_json) {
		write_script_safe(out, paths_json, paths_size);
	} else {
		fprintf(out, "null");
	}
	fprintf(out, ",\n\"sync\":");
	if (sync_text) {
		write_script_safe(out, sync_text, sync_size);
	} else {
		fprintf(out, "null");
	}
	fprintf(out, "}\n</script>\n<script>\n");
	ret = write_embedded(out, "host/export/report/report.js", err, err_len);
	if (ret) {
		goto out;
	}
	fprintf(out, "</script>\n</body>\n</html>\n");
	if (ferror(out)) {
		snprintf(err, err_len, "cannot write the report");
		ret = HT_EIO;
		goto out;
	}
	if (stats) {
		stats->events = events;
		stats->nr_cores = nr_cores;
		stats->nr_levels = r.nr_kept;
		stats->exact = r.exact_kept;
		stats->finest_ns =
		    r.exact_kept ? 1 : (r.t1 - r.t0) / r.level_n[r.nr_kept - 1];
		stats->flows = msgs.matched;
		stats->flows_kept = r.flows_kept;
		stats->reader_errors = r.reader_errors;
	}
	ret = 0;
out:
	ht_states_destroy(st);
	ht_fnames_destroy(fnames);
	ht_paths_result_destroy(pres);
	ht_path_desc_destroy(desc);
	free(paths_json);
	free(sync_text);
	free_report(&r);
	return ret;
}
