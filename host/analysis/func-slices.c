/* SPDX-License-Identifier: MIT */
/*
 * Function slices from func_entry / func_exit (host/analysis/func-slices.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "func-slices.h"

enum kind {
	K_OTHER = 0,
	K_ENTRY,
	K_EXIT,
	K_BASE,
	K_PROFILE,
	K_STATS,
};

struct frame {
	uint64_t addr, site;
	int64_t begin_ns;
	uint64_t child_ns;
	void *user;
};

struct fstack {
	uint32_t tid;
	struct frame *fr;
	unsigned n;
	size_t cap;
	uint64_t overflow; /* open calls deeper than max_depth */
};

/* A set of addresses (open addressing, 0 stored apart). */
struct addr_set {
	uint64_t *v;
	size_t cap, n;
	bool has_zero;
};

struct core {
	struct ht_func_core pub;
	char *name;
	struct fstack *stacks;
	size_t nr_stacks, cap_stacks;
	struct addr_set addrs; /* distinct function addresses seen */
	bool bias_decided;
	struct ht_func_dumped *dumped;
	size_t nr_dumped, cap_dumped;
};

/* What a stream lost, by stream index (streams without a core too). */
struct stream_loss {
	uint64_t events, packets;
	bool seen_packet;   /* a PACKET_BEGIN came */
	bool lost_at_start; /* the reader counted packets before the first */
};

struct class_kind {
	const struct ht_ctf_event_class *cls;
	enum kind kind;
};

/* kind_of()'s cache in front of the table: most records are of a few
 * classes, looked up once per record */
#define KIND_CACHE 64

struct elf_for {
	char *core; /* NULL: default */
	struct ht_func_symbols *sy;
};

struct ht_func_slices {
	struct ht_func_slices_opts opts;
	struct core **cores; /* by stream index (NULL: not seen) */
	size_t nr_slots, cap_slots;
	struct core **order; /* by core index */
	size_t nr_cores, cap_order;
	struct class_kind *kinds;
	size_t nr_kinds, cap_kinds;
	struct class_kind kind_cache[KIND_CACHE]; /* by pointer hash */
	struct elf_for *elfs;
	size_t nr_elfs, cap_elfs;
	struct stream_loss *loss; /* by stream index */
	size_t nr_loss, cap_loss;
};

static int set_add(struct addr_set *s, uint64_t a)
{
	size_t i;

	if (a == 0) {
		s->has_zero = true;
		return 0;
	}
	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64, k;
		uint64_t *v = calloc(cap, sizeof(*v));

		if (!v) {
			return HT_ENOMEM;
		}
		for (k = 0; k < s->cap; k++) {
			if (s->v[k]) {
				i = (size_t)((s->v[k] *
					      0x9e3779b97f4a7c15ull) >>
					     17) &
				    (cap - 1);
				while (v[i]) {
					i = (i + 1) & (cap - 1);
				}
				v[i] = s->v[k];
			}
		}
		free(s->v);
		s->v = v;
		s->cap = cap;
	}
	i = (size_t)((a * 0x9e3779b97f4a7c15ull) >> 17) & (s->cap - 1);
	while (s->v[i]) {
		if (s->v[i] == a) {
			return 0;
		}
		i = (i + 1) & (s->cap - 1);
	}
	s->v[i] = a;
	s->n++;
	return 0;
}

int ht_func_slices_create(struct ht_func_slices **out,
			  const struct ht_func_slices_opts *opts)
{
	struct ht_func_slices *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f) {
		return HT_ENOMEM;
	}
	if (opts) {
		f->opts = *opts;
	}
	if (!f->opts.max_depth) {
		f->opts.max_depth = 1u << 20;
	}
	*out = f;
	return 0;
}

void ht_func_slices_destroy(struct ht_func_slices *f)
{
	size_t i, k;

	if (!f) {
		return;
	}
	for (i = 0; i < f->nr_cores; i++) {
		struct core *c = f->order[i];

		for (k = 0; k < c->nr_stacks; k++) {
			free(c->stacks[k].fr);
		}
		free(c->stacks);
		free(c->addrs.v);
		free(c->dumped);
		free(c->name);
		free(c);
	}
	for (i = 0; i < f->nr_elfs; i++) {
		free(f->elfs[i].core);
	}
	free(f->elfs);
	free(f->loss);
	free(f->cores);
	free(f->order);
	free(f->kinds);
	free(f);
}

int ht_func_slices_add_symbols(struct ht_func_slices *f, const char *core,
			       struct ht_func_symbols *sy)
{
	struct elf_for *e;

	if (ht_array_reserve((void **)&f->elfs, &f->cap_elfs, f->nr_elfs + 1,
			     sizeof(*f->elfs))) {
		return HT_ENOMEM;
	}
	e = f->elfs;
	e[f->nr_elfs].core = core ? strdup(core) : NULL;
	if (core && !e[f->nr_elfs].core) {
		return HT_ENOMEM;
	}
	e[f->nr_elfs].sy = sy;
	f->nr_elfs++;
	return 0;
}

static enum kind kind_of(struct ht_func_slices *f,
			 const struct ht_ctf_event_class *cls)
{
	static const struct {
		const char *name;
		enum kind kind;
	} names[] = {
	    {"func_entry", K_ENTRY},	     {"func_exit", K_EXIT},
	    {"func_base", K_BASE},	     {"func_profile", K_PROFILE},
	    {"func_profile_stats", K_STATS},
	};
	struct class_kind *c =
	    &f->kind_cache[(size_t)((uintptr_t)cls * 0x9e3779b97f4a7c15ull >>
				    58) &
			   (KIND_CACHE - 1)];
	const char *n;
	enum kind k = K_OTHER;
	size_t i;

	if (c->cls == cls) {
		return c->kind;
	}
	for (i = 0; i < f->nr_kinds; i++) {
		if (f->kinds[i].cls == cls) {
			*c = f->kinds[i];
			return c->kind;
		}
	}
	n = ht_ctf_event_short_name(cls->name ? cls->name : "");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(n, names[i].name)) {
			k = names[i].kind;
		}
	}
	if (!ht_array_reserve((void **)&f->kinds, &f->cap_kinds,
			      f->nr_kinds + 1, sizeof(*f->kinds))) {
		f->kinds[f->nr_kinds].cls = cls;
		f->kinds[f->nr_kinds].kind = k;
		f->nr_kinds++;
	}
	c->cls = cls;
	c->kind = k;
	return k;
}

/* docs/events.md: core_id -> core_<id>_name, else core_name, else file. */
static char *core_name_of(const struct ht_ctf_msg *msg)
{
	const struct ht_ctf_trace *t = msg->stream->trace;
	const struct ht_ctf_env_entry *e = NULL;
	const struct ht_ctf_field *id = NULL;
	char key[64];

	if (msg->packet && msg->packet->context) {
		id = ht_ctf_field_member(msg->packet->context, "core_id");
	}
	if (id) {
		snprintf(key, sizeof(key), "core_%" PRIu64 "_name", id->v.u);
		e = ht_ctf_trace_env(t, key);
	}
	if (!e || !e->is_string) {
		e = ht_ctf_trace_env(t, "core_name");
	}
	if (e && e->is_string && e->str && *e->str) {
		return strdup(e->str);
	}
	return strdup(msg->stream->file_name ? msg->stream->file_name : "?");
}

/* The env core_<id>_clock_hz of the stream's core, else @dflt. */
static uint64_t own_clock_hz(const struct ht_ctf_msg *msg, uint64_t dflt)
{
	const struct ht_ctf_field *id = NULL;
	const struct ht_ctf_env_entry *e;
	char key[64];

	if (msg->packet && msg->packet->context) {
		id = ht_ctf_field_member(msg->packet->context, "core_id");
	}
	if (!id) {
		return dflt;
	}
	snprintf(key, sizeof(key), "core_%" PRIu64 "_clock_hz", id->v.u);
	e = ht_ctf_trace_env(msg->stream->trace, key);
	return e && !e->is_string && e->i > 0 ? (uint64_t)e->i : dflt;
}

static struct ht_func_symbols *elf_for(struct ht_func_slices *f,
				       const char *name)
{
	size_t i;

	for (i = 0; i < f->nr_elfs; i++) {
		if (f->elfs[i].core && !strcmp(f->elfs[i].core, name)) {
			return f->elfs[i].sy;
		}
	}
	for (i = 0; i < f->nr_elfs; i++) {
		if (!f->elfs[i].core) {
			return f->elfs[i].sy;
		}
	}
	return NULL;
}

static struct core *core_of(struct ht_func_slices *f,
			    const struct ht_ctf_msg *msg)
{
	unsigned si = msg->stream->index;
	struct core *c;
	char *base;
	size_t i;

	if (si < f->nr_slots && f->cores[si]) {
		return f->cores[si];
	}
	if (ht_array_extend((void **)&f->cores, &f->nr_slots, &f->cap_slots,
			    (size_t)si + 1, sizeof(*f->cores)) ||
	    ht_array_reserve((void **)&f->order, &f->cap_order, f->nr_cores + 1,
			     sizeof(*f->order))) {
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	base = core_name_of(msg);
	if (!c || !base) {
		free(c);
		free(base);
		return NULL;
	}
	c->pub.syms = elf_for(f, base);
	c->name = base;
	for (i = 0; i < f->nr_cores; i++) {
		if (!strcmp(f->order[i]->name, base)) {
			size_t len =
			    strlen(base) + strlen(msg->stream->file_name) + 2;

			c->name = malloc(len);
			if (!c->name) {
				free(base);
				free(c);
				return NULL;
			}
			snprintf(c->name, len, "%s/%s", base,
				 msg->stream->file_name);
			free(base);
			break;
		}
	}
	c->pub.index = (unsigned)f->nr_cores;
	c->pub.name = c->name;
	c->pub.stream = msg->stream;
	if (msg->stream->stream_class &&
	    msg->stream->stream_class->default_clock) {
		c->pub.clock_freq_hz =
		    msg->stream->stream_class->default_clock->freq_hz;
	}
	/* In a synchronized trace the stream's clock is the reference's:
	 * values in core cycles (on-target profiles) need the core's own. */
	c->pub.clock_freq_hz = own_clock_hz(msg, c->pub.clock_freq_hz);
	f->cores[si] = c;
	f->order[f->nr_cores++] = c;
	return c;
}

static struct fstack *stack_of(struct core *c, uint32_t tid)
{
	size_t i;

	for (i = 0; i < c->nr_stacks; i++) {
		if (c->stacks[i].tid == tid) {
			return &c->stacks[i];
		}
	}
	if (ht_array_reserve((void **)&c->stacks, &c->cap_stacks,
			     c->nr_stacks + 1, sizeof(*c->stacks))) {
		return NULL;
	}
	memset(&c->stacks[c->nr_stacks], 0, sizeof(*c->stacks));
	c->stacks[c->nr_stacks].tid = tid;
	return &c->stacks[c->nr_stacks++];
}

static bool field_u64(const struct ht_ctf_field *root, const char *name,
		      uint64_t *v)
{
	const struct ht_ctf_field *m;

	if (!root) {
		return false;
	}
	m = ht_ctf_field_member(root, name);
	if (!m ||
	    (m->type->kind != HT_CTF_INT && m->type->kind != HT_CTF_ENUM)) {
		return false;
	}
	*v = m->v.u;
	return true;
}

/* Closes the top call of @s at @end_ns. */
static void close_top(struct ht_func_slices *f, struct core *c,
		      struct fstack *s, int64_t end_ns, bool forced)
{
	struct frame *fr = &s->fr[s->n - 1];
	struct ht_func_slice sl;
	uint64_t dur;

	/* Times never go back within a core (clamped), so end >= begin. */
	dur = end_ns > fr->begin_ns ? (uint64_t)(end_ns - fr->begin_ns) : 0;
	memset(&sl, 0, sizeof(sl));
	sl.core = &c->pub;
	sl.tid = s->tid;
	sl.addr = fr->addr;
	sl.call_site = fr->site;
	sl.depth = s->n - 1;
	sl.begin_ns = fr->begin_ns;
	sl.end_ns = end_ns > fr->begin_ns ? end_ns : fr->begin_ns;
	sl.excl_ns = dur > fr->child_ns ? dur - fr->child_ns : 0;
	sl.forced_end = forced;
	sl.parent_user = s->n > 1 ? s->fr[s->n - 2].user : NULL;
	if (s->n > 1) {
		s->fr[s->n - 2].child_ns += dur;
	}
	s->n--;
	if (f->opts.slice) {
		f->opts.slice(f->opts.arg, &sl, fr->user);
	}
}

static int on_entry(struct ht_func_slices *f, struct core *c, struct fstack *s,
		    uint64_t addr, uint64_t site, int64_t ns)
{
	struct ht_func_slice sl;
	struct frame *fr;

	c->pub.entries++;
	if (set_add(&c->addrs, addr)) {
		return HT_ENOMEM;
	}
	if (s->overflow || s->n >= f->opts.max_depth) {
		s->overflow++;
		return 0;
	}
	if (s->n == s->cap &&
	    ht_array_reserve((void **)&s->fr, &s->cap, (size_t)s->n + 1,
			     sizeof(*s->fr))) {
		return HT_ENOMEM;
	}
	fr = &s->fr[s->n++];
	fr->addr = addr;
	fr->site = site;
	fr->begin_ns = ns;
	fr->child_ns = 0;
	fr->user = NULL;
	if (s->n > c->pub.max_depth) {
		c->pub.max_depth = s->n;
	}
	if (f->opts.enter) {
		memset(&sl, 0, sizeof(sl));
		sl.core = &c->pub;
		sl.tid = s->tid;
		sl.addr = addr;
		sl.call_site = site;
		sl.depth = s->n - 1;
		sl.begin_ns = ns;
		sl.parent_user = s->n > 1 ? s->fr[s->n - 2].user : NULL;
		f->opts.enter(f->opts.arg, &sl, &fr->user);
	}
	return 0;
}

static void on_exit_(struct ht_func_slices *f, struct core *c, struct fstack *s,
		     uint64_t addr, int64_t ns)
{
	unsigned k;

	c->pub.exits++;
	if (s->overflow) {
		s->overflow--;
		return;
	}
	for (k = s->n; k > 0; k--) {
		if (s->fr[k - 1].addr == addr) {
			break;
		}
	}
	if (k == 0) {
		c->pub.unmatched_exits++;
		return;
	}
	while (s->n > k) {
		c->pub.missing_exits++;
		close_top(f, c, s, ns, true);
	}
	close_top(f, c, s, ns, false);
}

static int on_profile(struct core *c, const struct ht_ctf_field *p)
{
	struct ht_func_dumped d;

	memset(&d, 0, sizeof(d));
	if (!field_u64(p, "addr", &d.addr)) {
		return HT_EFORMAT;
	}
	field_u64(p, "calls", &d.calls);
	field_u64(p, "incl", &d.incl_cycles);
	field_u64(p, "excl", &d.excl_cycles);
	field_u64(p, "max", &d.max_cycles);
	if (ht_array_reserve((void **)&c->dumped, &c->cap_dumped,
			     c->nr_dumped + 1, sizeof(*c->dumped))) {
		return HT_ENOMEM;
	}
	c->dumped[c->nr_dumped++] = d;
	c->pub.dumped = c->dumped;
	c->pub.nr_dumped = c->nr_dumped;
	return set_add(&c->addrs, d.addr);
}

/*
 * Counts the losses of @msg's stream. A first packet whose
 * packet_seq_num is past 0 lost the packets before it (an overwrite
 * ring), unless the reader already reported them.
 */
static int count_loss(struct ht_func_slices *f, const struct ht_ctf_msg *msg)
{
	struct stream_loss *l;

	if (ht_array_extend((void **)&f->loss, &f->nr_loss, &f->cap_loss,
			    (size_t)msg->stream->index + 1, sizeof(*f->loss))) {
		return HT_ENOMEM;
	}
	l = &f->loss[msg->stream->index];
	switch (msg->kind) {
	case HT_CTF_MSG_DISCARDED_EVENTS:
		l->events += msg->count;
		break;
	case HT_CTF_MSG_DISCARDED_PACKETS:
		l->packets += msg->count;
		l->lost_at_start |= !l->seen_packet;
		break;
	case HT_CTF_MSG_PACKET_BEGIN:
		if (!l->seen_packet && !l->lost_at_start && msg->packet &&
		    msg->packet->has_seq_num) {
			l->packets += msg->packet->seq_num;
		}
		l->seen_packet = true;
		break;
	default:
		break;
	}
	return 0;
}

int ht_func_slices_feed(struct ht_func_slices *f, const struct ht_ctf_msg *msg,
			char *err, size_t err_len)
{
	const struct ht_ctf_field *p, *cc;
	enum kind k;
	struct core *c;
	struct fstack *s;
	uint64_t addr = 0, site = 0, tid = 0;
	int64_t ns;

	if (msg->kind != HT_CTF_MSG_EVENT) {
		return msg->stream ? count_loss(f, msg) : 0;
	}
	k = kind_of(f, msg->event->cls);
	if (k == K_OTHER) {
		return 0;
	}
	c = core_of(f, msg);
	if (!c) {
		return HT_ENOMEM;
	}
	ns = msg->has_time ? msg->ns : c->pub.last_ns;
	if (!c->pub.has_time) {
		c->pub.has_time = true;
		c->pub.first_ns = ns;
		c->pub.last_ns = ns;
	} else if (ns < c->pub.last_ns) {
		c->pub.time_backwards++;
		ns = c->pub.last_ns;
	}
	c->pub.last_ns = ns;
	p = msg->event->scope[HT_CTF_SCOPE_EVENT_PAYLOAD];
	switch (k) {
	case K_ENTRY:
	case K_EXIT:
		if (!field_u64(p, "addr", &addr)) {
			goto no_addr;
		}
		cc = msg->event->scope[HT_CTF_SCOPE_EVENT_COMMON_CONTEXT];
		if (!field_u64(cc, "tid", &tid)) {
			field_u64(cc, "vtid", &tid);
		}
		s = stack_of(c, (uint32_t)tid);
		if (!s) {
			return HT_ENOMEM;
		}
		if (k == K_ENTRY) {
			field_u64(p, "call_site", &site);
			return on_entry(f, c, s, addr, site, ns);
		}
		on_exit_(f, c, s, addr, ns);
		return 0;
	case K_BASE:
		if (field_u64(p, "base", &c->pub.base)) {
			c->pub.has_base = true;
			c->bias_decided = false;
		}
		return 0;
	case K_PROFILE:
		if (on_profile(c, p) == HT_EFORMAT) {
			goto no_addr;
		}
		return 0;
	case K_STATS:
		c->pub.has_dump_stats = true;
		field_u64(p, "lost_calls", &c->pub.dump_lost_calls);
		field_u64(p, "deep_calls", &c->pub.dump_deep_calls);
		field_u64(p, "unbalanced", &c->pub.dump_unbalanced);
		field_u64(p, "nested", &c->pub.dump_nested);
		return 0;
	default:
		return 0;
	}

no_addr:
	if (!err_len) {
		return HT_EFORMAT;
	}
	snprintf(err, err_len,
		 "file=%s offset=%" PRIu64 ": %s record without an integer "
		 "`addr` field",
		 msg->stream->path, msg->event->offset_bits / 8,
		 msg->event->cls->name);
	return HT_EFORMAT;
}

void ht_func_slices_finish(struct ht_func_slices *f)
{
	size_t i, k;

	for (i = 0; i < f->nr_cores; i++) {
		struct core *c = f->order[i];
		unsigned si = c->pub.stream->index;

		if (si < f->nr_loss) {
			c->pub.discarded_events = f->loss[si].events;
			c->pub.lost_packets = f->loss[si].packets;
		}
		for (k = 0; k < c->nr_stacks; k++) {
			struct fstack *s = &c->stacks[k];

			c->pub.unclosed += s->overflow;
			s->overflow = 0;
			while (s->n) {
				c->pub.unclosed++;
				close_top(f, c, s, c->pub.last_ns, true);
			}
		}
	}
}

size_t ht_func_slices_nr_cores(const struct ht_func_slices *f)
{
	return f->nr_cores;
}

const struct ht_func_core *ht_func_slices_core(const struct ht_func_slices *f,
					       size_t i)
{
	return i < f->nr_cores ? &f->order[i]->pub : NULL;
}

static struct core *priv(struct ht_func_slices *f,
			 const struct ht_func_core *pub)
{
	return pub->index < f->nr_cores ? f->order[pub->index] : NULL;
}

/* Decides the load bias of a core from func_base, or by guessing. */
static void decide_bias(struct core *c)
{
	struct ht_func_symbols *sy = c->pub.syms;
	uint64_t *sample, bias = 0;
	size_t i, n = 0;

	c->bias_decided = true;
	c->pub.bias_guessed = false;
	if (c->pub.has_base) {
		c->pub.bias = c->pub.base - ht_func_symbols_link_base(sy);
		return;
	}
	c->pub.bias = 0;
	if (!c->addrs.n) {
		return;
	}
	/* Up to 64 distinct addresses pin the bias down. */
	sample = malloc(64 * sizeof(*sample));
	if (!sample) {
		return;
	}
	for (i = 0; i < c->addrs.cap && n < 64; i++) {
		if (c->addrs.v[i]) {
			sample[n++] = c->addrs.v[i];
		}
	}
	if (ht_func_symbols_guess_bias(sy, sample, n, &bias) && bias) {
		c->pub.bias = bias;
		c->pub.bias_guessed = true;
	}
	free(sample);
}

const char *ht_func_slices_name(struct ht_func_slices *f,
				const struct ht_func_core *pub, uint64_t addr)
{
	struct core *c = priv(f, pub);
	uint64_t saved;
	const char *name;

	if (!c || !c->pub.syms) {
		return NULL;
	}
	if (!c->bias_decided) {
		decide_bias(c);
	}
	/* The symbols may be shared by cores: their bias is the core's. */
	saved = ht_func_symbols_bias(c->pub.syms);
	ht_func_symbols_set_bias(c->pub.syms, c->pub.bias);
	name = ht_func_symbols_func(c->pub.syms, addr);
	ht_func_symbols_set_bias(c->pub.syms, saved);
	return name;
}

void ht_func_slices_name_stats(struct ht_func_slices *f,
			       const struct ht_func_core *pub, size_t *named,
			       size_t *total)
{
	struct core *c = priv(f, pub);
	size_t i;

	*named = 0;
	*total = 0;
	if (!c) {
		return;
	}
	for (i = 0; i < c->addrs.cap; i++) {
		if (c->addrs.v[i]) {
			(*total)++;
			*named +=
			    ht_func_slices_name(f, pub, c->addrs.v[i]) != NULL;
		}
	}
}
