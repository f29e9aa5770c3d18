/* SPDX-License-Identifier: MIT */
/*
 * A capture's cores and the messages between them (capture.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "common/error.h"

#define MAX_NOTES 200

enum ev_kind {
	EV_OTHER = 0,
	EV_SYNC_REQ,
	EV_SYNC_ACK,
	EV_SYNC_NOTIFY,
	EV_SYNC_RECV,
	EV_MSG_SEND,
	EV_MSG_RECV,
};

/* What kind of message a half belongs to. */
enum chan {
	CHAN_DOWN = HT_CAPTURE_DOWN,
	CHAN_UP = HT_CAPTURE_UP,
	CHAN_MSG = HT_CAPTURE_MSG,
};

/* One half of a message: its number (seq or id) and time. */
struct half {
	uint64_t num;
	uint64_t cycles;
	uint32_t peer; /* messages: the other core (dst / receiver) */
	uint32_t pad;
};

struct halves {
	struct half *v;
	size_t n, cap;
};

/*
 * The halves of the messages from one core to another (handshake) or
 * from one core to any (application messages), kept until the scan
 * ends and joined then: handshake numbers grow on each side (the order
 * checks drop the others), so the join is a linear merge; application
 * ids are sorted first.
 */
struct side {
	uint8_t chan; /* CHAN_DOWN or CHAN_UP for a handshake link */
	struct halves send, recv;
};

/* Last sequence number seen per (core, kind, peer), for order checks. */
struct seq_state {
	bool seen;
	uint64_t last;
};

struct cls_kind {
	const struct ht_ctf_event_class *cls;
	enum ev_kind kind;
};

struct ht_capture {
	char *dir;
	struct ht_ctf_set *set;
	struct ht_capture_core *cores;
	size_t nr_cores;
	/* stream index in the set -> core index */
	long *core_of_stream;
	size_t nr_streams;
	/* links, dense by from * nr_cores + to (allocated on use) */
	struct ht_capture_link **links;
	struct ht_capture_link **used; /* the non-empty ones, sorted */
	size_t nr_used;
	/* handshake halves by from * nr_cores + to; message halves by
	 * sender */
	struct side *sync;
	struct side *msg;
	/* per (core, kind index 0..5, peer): sequence order */
	struct seq_state *seqs;
	/* event class -> kind cache, open addressing on the pointer */
	struct cls_kind *kinds;
	size_t kinds_cap, kinds_len;
	char **notes;
	size_t nr_notes;
	uint64_t notes_dropped;
	char *lttng_name; /* the LTTng core's name, when there is one */
};

static const char *const problem_names[HT_CAPTURE_NR_PROBLEMS] = {
    [HT_CAPTURE_UNMATCHED_REQ] = "sync_req without sync_ack",
    [HT_CAPTURE_UNMATCHED_ACK] = "sync_ack without sync_req",
    [HT_CAPTURE_UNMATCHED_NOTIFY] = "sync_notify without sync_recv",
    [HT_CAPTURE_UNMATCHED_RECV] = "sync_recv without sync_notify",
    [HT_CAPTURE_UNMATCHED_SEND] = "msg_send without msg_recv",
    [HT_CAPTURE_UNMATCHED_MRECV] = "msg_recv without msg_send",
    [HT_CAPTURE_DUP_SEQ] = "duplicated sequence number or id",
    [HT_CAPTURE_BAD_SEQ] = "inconsistent sequence number",
    [HT_CAPTURE_BAD_FIELD] = "bad field",
    [HT_CAPTURE_DAMAGED] = "damaged packet",
};

const char *ht_capture_problem_name(enum ht_capture_problem p)
{
	return p < HT_CAPTURE_NR_PROBLEMS ? problem_names[p] : "?";
}

static void note(struct ht_capture *cap, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];
	char **n;

	if (cap->nr_notes >= MAX_NOTES) {
		cap->notes_dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = realloc(cap->notes, (cap->nr_notes + 1) * sizeof(*n));
	if (!n) {
		cap->notes_dropped++;
		return;
	}
	cap->notes = n;
	n[cap->nr_notes] = strdup(buf);
	if (n[cap->nr_notes]) {
		cap->nr_notes++;
	} else {
		cap->notes_dropped++;
	}
}

size_t ht_capture_nr_notes(const struct ht_capture *cap)
{
	return cap->nr_notes;
}

const char *ht_capture_note(const struct ht_capture *cap, size_t i)
{
	return i < cap->nr_notes ? cap->notes[i] : NULL;
}

uint64_t ht_capture_nr_notes_dropped(const struct ht_capture *cap)
{
	return cap->notes_dropped;
}

size_t ht_capture_nr_cores(const struct ht_capture *cap)
{
	return cap->nr_cores;
}

const struct ht_capture_core *ht_capture_core(const struct ht_capture *cap,
					      size_t i)
{
	return i < cap->nr_cores ? &cap->cores[i] : NULL;
}

long ht_capture_find_core(const struct ht_capture *cap, const char *name)
{
	size_t i;

	for (i = 0; i < cap->nr_cores; i++) {
		if (!strcmp(cap->cores[i].name, name)) {
			return (long)i;
		}
	}
	return -1;
}

static long core_by_id(const struct ht_capture *cap, uint64_t id)
{
	size_t i;

	for (i = 0; i < cap->nr_cores; i++) {
		if (cap->cores[i].id == id) {
			return (long)i;
		}
	}
	return -1;
}

static void warn_cb(void *arg, const char *msg)
{
	note(arg, "warning: %s", msg);
}

static const char *env_str(const struct ht_ctf_trace *t, const char *name)
{
	const struct ht_ctf_env_entry *e = ht_ctf_trace_env(t, name);

	return e && e->is_string ? e->str : NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* Whether @path is @dir or inside it (both as given, then resolved). */
static bool path_under(const char *path, const char *dir)
{
	char *rp = realpath(path, NULL), *rd = realpath(dir, NULL);
	bool under = false;

	if (rp && rd) {
		size_t n = strlen(rd);

		under = !strncmp(rp, rd, n) && (rp[n] == '/' || rp[n] == 0 ||
						(n == 1 && rd[0] == '/'));
	}
	free(rp);
	free(rd);
	return under;
}

/* LTTng traces name their tracer in env tracer_name. */
static bool is_lttng_ust(const struct ht_ctf_trace *t)
{
	const char *tn = env_str(t, "tracer_name");

	return tn && !strcmp(tn, "lttng-ust");
}

static bool is_lttng_kernel(const struct ht_ctf_trace *t)
{
	const char *tn = env_str(t, "tracer_name");

	return tn && !strcmp(tn, "lttng-modules");
}

/* A trace's core name as the capture sees it (env core_name or dir). */
static const char *trace_core_name(const struct ht_ctf_trace *t)
{
	const char *n = env_str(t, "core_name");

	return n ? n : base_name(t->path);
}

/*
 * The name of the core an LTTng-UST trace stands for when none is
 * given: the capture's only master, else the one master its slaves
 * name and that is not in the capture, else "lttng".
 */
static const char *lttng_default_name(struct ht_ctf_set *set, size_t lt)
{
	size_t n = ht_ctf_set_nr_traces(set), i, j, masters = 0;
	const char *master = NULL, *named = NULL;

	for (i = 0; i < n; i++) {
		const struct ht_ctf_trace *t = ht_ctf_set_trace(set, i);
		const char *role = env_str(t, "core_role");

		if (i != lt && !is_lttng_ust(t) && !is_lttng_kernel(t) &&
		    role && !strcmp(role, "master")) {
			masters++;
			master = trace_core_name(t);
		}
	}
	if (masters == 1) {
		return master;
	}
	for (i = 0; i < n; i++) {
		const char *m =
		    env_str(ht_ctf_set_trace(set, i), "core_master");
		bool present = false;

		if (!m || i == lt) {
			continue;
		}
		for (j = 0; j < n && !present; j++) {
			present =
			    j != lt &&
			    !strcmp(trace_core_name(ht_ctf_set_trace(set, j)),
				    m);
		}
		if (present) {
			continue;
		}
		if (named && strcmp(named, m)) {
			return "lttng";
		}
		named = m;
	}
	return named ? named : "lttng";
}

int ht_capture_open(struct ht_capture **out, const char *dir, char *err,
		    size_t err_len)
{
	struct ht_capture_opts o = {0};

	o.dir = dir;
	return ht_capture_open_opts(out, &o, err, err_len);
}

int ht_capture_open_opts(struct ht_capture **out,
			 const struct ht_capture_opts *co, char *err,
			 size_t err_len)
{
	struct ht_ctf_open_opts opts = {0};
	const char *dir = co->dir;
	const char *paths[2];
	size_t nr_paths = 1, nr_traces, *use = NULL;
	const char *lt_name = NULL;
	long lt = -1, replaced = -1;
	uint32_t lt_id = 0;
	struct ht_capture *cap;
	size_t i, j, nr_streams = 0;
	int ret;

	*out = NULL;
	cap = calloc(1, sizeof(*cap));
	if (!cap) {
		return HT_ENOMEM;
	}
	opts.flags = HT_CTF_EVENTS_ONLY | HT_CTF_KEEP_GOING;
	opts.warn = warn_cb;
	opts.warn_arg = cap;
	paths[0] = dir;
	/* (an LTTng directory inside the capture is found with it) */
	if (co->lttng_dir && !path_under(co->lttng_dir, dir)) {
		paths[nr_paths++] = co->lttng_dir;
	}
	ret = ht_ctf_set_open(&cap->set, paths, nr_paths, &opts, err, err_len);
	if (ret) {
		goto close_cap;
	}
	nr_traces = ht_ctf_set_nr_traces(cap->set);
	if (!nr_traces) {
		snprintf(err, err_len, "%s: no CTF trace (no metadata file)",
			 dir);
		ret = HT_ENOENT;
		goto close_cap;
	}

	/* The LTTng-UST trace, if any: one at most. */
	for (i = 0; i < nr_traces; i++) {
		const struct ht_ctf_trace *t = ht_ctf_set_trace(cap->set, i);
		bool given =
		    co->lttng_dir && path_under(t->path, co->lttng_dir);

		if (is_lttng_kernel(t)) {
			continue;
		}
		if (!is_lttng_ust(t)) {
			if (given) {
				snprintf(err, err_len,
					 "%s/metadata: not an LTTng-UST trace "
					 "(env tracer_name is not "
					 "\"lttng-ust\"), under the LTTng "
					 "directory %s",
					 t->path, co->lttng_dir);
				ret = HT_EFORMAT;
				goto close_cap;
			}
			continue;
		}
		if (env_str(t, "core_name")) {
			/* a core of the capture traced with LTTng-UST and
			 * named by its env: an ordinary core */
			continue;
		}
		if (lt >= 0) {
			snprintf(err, err_len,
				 "%s/metadata: a second LTTng-UST trace (the "
				 "first is %s); hetrace sync takes one as the "
				 "master: give its directory with "
				 "--master-lttng",
				 t->path, ht_ctf_set_trace(cap->set, lt)->path);
			ret = HT_EUNSUPPORTED;
			goto close_cap;
		}
		lt = (long)i;
	}
	if (co->lttng_dir && lt < 0) {
		snprintf(err, err_len,
			 "%s: no LTTng-UST trace (a metadata file with env "
			 "tracer_name = \"lttng-ust\") under it",
			 co->lttng_dir);
		ret = HT_ENOENT;
		goto close_cap;
	}
	if (lt >= 0) {
		lt_name = co->lttng_core
			      ? co->lttng_core
			      : lttng_default_name(cap->set, (size_t)lt);
		cap->lttng_name = strdup(lt_name);
		if (!cap->lttng_name) {
			ret = HT_ENOMEM;
			goto close_cap;
		}
	}

	/* The traces that are cores: not the kernel's, not the replaced. */
	use = calloc(nr_traces, sizeof(*use));
	if (!use) {
		ret = HT_ENOMEM;
		goto close_cap;
	}
	for (i = 0; i < nr_traces; i++) {
		const struct ht_ctf_trace *t = ht_ctf_set_trace(cap->set, i);

		if (is_lttng_kernel(t)) {
			note(cap,
			     "%s: LTTng kernel trace not merged (babeltrace2 "
			     "reads it next to the result when the LTTng-UST "
			     "clock is kept)",
			     t->path);
			continue;
		}
		if (lt >= 0 && (long)i != lt &&
		    !strcmp(trace_core_name(t), lt_name)) {
			const struct ht_ctf_env_entry *e =
			    ht_ctf_trace_env(t, "core_id");

			replaced = (long)i;
			if (e && !e->is_string && e->i >= 0 &&
			    e->i <= UINT32_MAX) {
				lt_id = (uint32_t)e->i;
			}
			note(cap,
			     "core %s: the LTTng-UST trace %s stands for it; "
			     "the capture's trace %s is left out",
			     lt_name, ht_ctf_set_trace(cap->set, lt)->path,
			     t->path);
			continue;
		}
		use[cap->nr_cores++] = i;
	}
	if (lt >= 0 && replaced < 0) {
		/* core id 0, unless another core has it */
		for (i = 0; i < nr_traces; i++) {
			const struct ht_ctf_env_entry *e = ht_ctf_trace_env(
			    ht_ctf_set_trace(cap->set, i), "core_id");

			if ((long)i != lt && e && !e->is_string &&
			    e->i >= (int64_t)lt_id && e->i < UINT32_MAX) {
				lt_id = (uint32_t)e->i + 1;
			}
		}
	}
	cap->cores = calloc(cap->nr_cores + 1, sizeof(*cap->cores));
	if (!cap->cores) {
		ret = HT_ENOMEM;
		goto close_cap;
	}
	for (i = 0; i < cap->nr_cores; i++) {
		struct ht_capture_core *c = &cap->cores[i];
		const struct ht_ctf_trace *t =
		    ht_ctf_set_trace(cap->set, use[i]);
		const struct ht_ctf_env_entry *e;
		const char *role;

		c->trace = t;
		c->name = trace_core_name(t);
		e = ht_ctf_trace_env(t, "core_id");
		c->id = (uint32_t)i;
		if ((long)use[i] == lt) {
			c->name = cap->lttng_name;
			c->id = lt_id;
			c->has_id = true;
			c->is_master = true;
			c->is_lttng = true;
			c->master = -1;
			e = NULL;
		} else if (e && !e->is_string) {
			if (e->i < 0 || e->i > UINT32_MAX) {
				snprintf(err, err_len,
					 "%s/metadata: env core_id = %" PRId64
					 " is not a core id (0 to 2^32-1)",
					 t->path, e->i);
				ret = HT_EFORMAT;
				goto close_cap;
			}
			c->id = (uint32_t)e->i;
			c->has_id = true;
		}
		if (!c->is_lttng) {
			role = env_str(t, "core_role");
			c->is_master = role && !strcmp(role, "master");
			c->master_name = env_str(t, "core_master");
			c->master = -1;
		}
		for (j = 0; j < t->nr_stream_classes; j++) {
			const struct ht_ctf_clock *k =
			    t->stream_classes[j]->default_clock;

			if (!k) {
				continue;
			}
			if (c->clock && c->clock != k) {
				snprintf(err, err_len,
					 "%s/metadata: core %s has two "
					 "clocks (%s and %s); a core has one",
					 t->path, c->name, c->clock->name,
					 k->name);
				ret = HT_EUNSUPPORTED;
				goto close_cap;
			}
			c->clock = k;
		}
		if (!c->clock) {
			snprintf(err, err_len,
				 "%s/metadata: core %s has no clock: its "
				 "events cannot be placed in time",
				 t->path, c->name);
			ret = HT_EFORMAT;
			goto close_cap;
		}
		nr_streams += t->nr_streams;
	}
	free(use);
	use = NULL;
	/* every stream of the set, the left-out traces' too (no core) */
	nr_streams = 0;
	for (i = 0; i < nr_traces; i++) {
		nr_streams += ht_ctf_set_trace(cap->set, i)->nr_streams;
	}
	for (i = 0; i < cap->nr_cores; i++) {
		struct ht_capture_core *c = &cap->cores[i];

		for (j = 0; j < i; j++) {
			if (!strcmp(cap->cores[j].name, c->name)) {
				snprintf(err, err_len,
					 "%s/metadata: core name '%s' is also "
					 "the name of %s",
					 c->trace->path, c->name,
					 cap->cores[j].trace->path);
				ret = HT_EFORMAT;
				goto close_cap;
			}
			if (cap->cores[j].id == c->id) {
				snprintf(err, err_len,
					 "%s/metadata: core id %" PRIu32
					 " is also the id of %s (%s)",
					 c->trace->path, c->id,
					 cap->cores[j].name,
					 cap->cores[j].trace->path);
				ret = HT_EFORMAT;
				goto close_cap;
			}
		}
	}
	for (i = 0; i < cap->nr_cores; i++) {
		struct ht_capture_core *c = &cap->cores[i];

		if (!c->master_name) {
			continue;
		}
		c->master = ht_capture_find_core(cap, c->master_name);
		if (c->master < 0) {
			snprintf(err, err_len,
				 "%s/metadata: core %s: its master '%s' "
				 "is not in the capture %s (a core is "
				 "missing)",
				 c->trace->path, c->name, c->master_name, dir);
			ret = HT_ENOENT;
			goto close_cap;
		}
		if ((size_t)c->master == i) {
			snprintf(err, err_len,
				 "%s/metadata: core %s is its own master",
				 c->trace->path, c->name);
			ret = HT_EFORMAT;
			goto close_cap;
		}
	}
	cap->nr_streams = nr_streams;
	cap->core_of_stream = malloc((nr_streams + 1) * sizeof(long));
	cap->links = calloc(cap->nr_cores * cap->nr_cores, sizeof(*cap->links));
	cap->seqs =
	    calloc(cap->nr_cores * 6 * cap->nr_cores, sizeof(*cap->seqs));
	cap->sync = calloc(cap->nr_cores * cap->nr_cores, sizeof(*cap->sync));
	cap->msg = calloc(cap->nr_cores, sizeof(*cap->msg));
	cap->dir = strdup(dir);
	if (!cap->core_of_stream || !cap->links || !cap->seqs || !cap->dir ||
	    !cap->sync || !cap->msg) {
		ret = HT_ENOMEM;
		goto close_cap;
	}
	for (i = 0; i < nr_streams; i++) {
		cap->core_of_stream[i] = -1;
	}
	for (i = 0; i < cap->nr_cores; i++) {
		const struct ht_ctf_trace *t = cap->cores[i].trace;

		for (j = 0; j < t->nr_streams; j++) {
			if (t->streams[j]->index < nr_streams) {
				cap->core_of_stream[t->streams[j]->index] =
				    (long)i;
			}
		}
	}
	*out = cap;
	return 0;
close_cap:
	free(use);
	ht_capture_close(cap);
	return ret;
}

void ht_capture_close(struct ht_capture *cap)
{
	size_t i;

	if (!cap) {
		return;
	}
	if (cap->links) {
		for (i = 0; i < cap->nr_cores * cap->nr_cores; i++) {
			if (cap->links[i]) {
				free(cap->links[i]->pairs);
				free(cap->links[i]);
			}
		}
	}
	for (i = 0; i < cap->nr_notes; i++) {
		free(cap->notes[i]);
	}
	free(cap->notes);
	free(cap->links);
	free(cap->used);
	if (cap->sync) {
		for (i = 0; i < cap->nr_cores * cap->nr_cores; i++) {
			free(cap->sync[i].send.v);
			free(cap->sync[i].recv.v);
		}
	}
	if (cap->msg) {
		for (i = 0; i < cap->nr_cores; i++) {
			free(cap->msg[i].send.v);
			free(cap->msg[i].recv.v);
		}
	}
	free(cap->sync);
	free(cap->msg);
	free(cap->seqs);
	free(cap->kinds);
	free(cap->core_of_stream);
	free(cap->cores);
	free(cap->dir);
	free(cap->lttng_name);
	ht_ctf_set_close(cap->set);
	free(cap);
}

/* ------------------------------------------------------------------ */
/* Event classes -> kinds                                              */

static enum ev_kind kind_of_name(const char *name)
{
	const char *s = strrchr(name, ':');

	/* an LTTng-UST "provider:name" matches "name" */
	if (s) {
		name = s + 1;
	}
	if (!strcmp(name, "sync_req")) {
		return EV_SYNC_REQ;
	}
	if (!strcmp(name, "sync_ack")) {
		return EV_SYNC_ACK;
	}
	if (!strcmp(name, "sync_notify")) {
		return EV_SYNC_NOTIFY;
	}
	if (!strcmp(name, "sync_recv")) {
		return EV_SYNC_RECV;
	}
	if (!strcmp(name, "msg_send")) {
		return EV_MSG_SEND;
	}
	if (!strcmp(name, "msg_recv")) {
		return EV_MSG_RECV;
	}
	return EV_OTHER;
}

static size_t hash_ptr(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x;
}

static int class_kind(struct ht_capture *cap,
		      const struct ht_ctf_event_class *cls, enum ev_kind *kind)
{
	size_t i;

	if (2 * (cap->kinds_len + 1) > cap->kinds_cap) {
		size_t n = cap->kinds_cap ? 2 * cap->kinds_cap : 64;
		struct cls_kind *k = calloc(n, sizeof(*k));

		if (!k) {
			return HT_ENOMEM;
		}
		for (i = 0; i < cap->kinds_cap; i++) {
			if (cap->kinds[i].cls) {
				size_t h =
				    hash_ptr(cap->kinds[i].cls) & (n - 1);

				while (k[h].cls) {
					h = (h + 1) & (n - 1);
				}
				k[h] = cap->kinds[i];
			}
		}
		free(cap->kinds);
		cap->kinds = k;
		cap->kinds_cap = n;
	}
	i = hash_ptr(cls) & (cap->kinds_cap - 1);
	while (cap->kinds[i].cls) {
		if (cap->kinds[i].cls == cls) {
			*kind = cap->kinds[i].kind;
			return 0;
		}
		i = (i + 1) & (cap->kinds_cap - 1);
	}
	cap->kinds[i].cls = cls;
	cap->kinds[i].kind = kind_of_name(cls->name);
	cap->kinds_len++;
	*kind = cap->kinds[i].kind;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Halves and their join                                               */

static int push_half(struct halves *h, uint64_t num, uint64_t cycles,
		     size_t peer)
{
	if (h->n == h->cap) {
		size_t n = h->cap ? 2 * h->cap : 256;
		struct half *v = realloc(h->v, n * sizeof(*v));

		if (!v) {
			return HT_ENOMEM;
		}
		h->v = v;
		h->cap = n;
	}
	h->v[h->n].num = num;
	h->v[h->n].cycles = cycles;
	h->v[h->n].peer = (uint32_t)peer;
	h->v[h->n].pad = 0;
	h->n++;
	return 0;
}

/* One half of a handshake message from @from to @to. */
static int sync_half(struct ht_capture *cap, uint8_t chan, size_t from,
		     size_t to, uint64_t seq, bool is_send, uint64_t cycles)
{
	struct side *sd = &cap->sync[from * cap->nr_cores + to];

	sd->chan = chan;
	return push_half(is_send ? &sd->send : &sd->recv, seq, cycles, 0);
}

/* One half of application message @id sent by @from to @to. */
static int msg_half(struct ht_capture *cap, size_t from, size_t to, uint64_t id,
		    bool is_send, uint64_t cycles)
{
	struct side *sd = &cap->msg[from];

	return push_half(is_send ? &sd->send : &sd->recv, id, cycles, to);
}

static int add_pair(struct ht_capture *cap, size_t from, size_t to,
		    uint64_t send, uint64_t recv, uint64_t num, uint8_t chan)
{
	struct ht_capture_link **lp = &cap->links[from * cap->nr_cores + to];
	struct ht_capture_link *l = *lp;

	if (!l) {
		l = calloc(1, sizeof(*l));
		if (!l) {
			return HT_ENOMEM;
		}
		l->from = from;
		l->to = to;
		*lp = l;
	}
	/* the capacity is 64, then doubles at each power of two */
	if (!l->nr_pairs ||
	    (l->nr_pairs >= 64 && !(l->nr_pairs & (l->nr_pairs - 1)))) {
		size_t n = l->nr_pairs ? 2 * l->nr_pairs : 64;
		struct ht_capture_pair *p = realloc(l->pairs, n * sizeof(*p));

		if (!p) {
			return HT_ENOMEM;
		}
		l->pairs = p;
	}
	l->pairs[l->nr_pairs].send = send;
	l->pairs[l->nr_pairs].recv = recv;
	l->pairs[l->nr_pairs].num = num;
	l->pairs[l->nr_pairs].chan = chan;
	l->nr_pairs++;
	if (chan == CHAN_MSG) {
		l->nr_msg++;
	} else {
		l->nr_sync++;
	}
	return 0;
}

/*
 * Sequence numbers of one kind of event from one core towards one peer
 * must grow: a repeated one is a duplicate, a smaller one inconsistent.
 * Returns true when the event may be used.
 */
static bool seq_ok(struct ht_capture *cap, size_t core, enum ev_kind kind,
		   size_t peer, uint64_t seq, const struct ht_ctf_msg *msg)
{
	struct seq_state *s =
	    &cap->seqs[(core * 6 + (kind - 1)) * cap->nr_cores + peer];
	struct ht_capture_core *c = &cap->cores[core];
	enum ht_capture_problem p;

	if (!s->seen || seq > s->last) {
		s->seen = true;
		s->last = seq;
		return true;
	}
	p = seq == s->last ? HT_CAPTURE_DUP_SEQ : HT_CAPTURE_BAD_SEQ;
	c->problems[p]++;
	note(cap,
	     "file=%s offset=%" PRIu64 ": core %s: %s %s %" PRIu64
	     " after %" PRIu64 " (event ignored)",
	     msg->stream->path, msg->event->offset_bits / 8, c->name,
	     msg->event->cls->name,
	     seq == s->last ? "repeats sequence number"
			    : "has a sequence number going backwards:",
	     seq, s->last);
	return false;
}

static const struct ht_ctf_field *payload_member(const struct ht_ctf_msg *msg,
						 const char *name)
{
	const struct ht_ctf_field *p =
	    msg->event->scope[HT_CTF_SCOPE_EVENT_PAYLOAD];
	const struct ht_ctf_field *f;
	char alt[32];

	if (!p) {
		return NULL;
	}
	f = ht_ctf_field_member(p, name);
	if (!f) {
		/* TSDL may write a member with one leading underscore */
		snprintf(alt, sizeof(alt), "_%s", name);
		f = ht_ctf_field_member(p, alt);
	}
	if (f && f->type->kind != HT_CTF_INT && f->type->kind != HT_CTF_ENUM) {
		return NULL;
	}
	return f;
}

static bool get_uint(struct ht_capture *cap, size_t core,
		     const struct ht_ctf_msg *msg, const char *name,
		     uint64_t *v)
{
	const struct ht_ctf_field *f = payload_member(msg, name);

	if (!f) {
		cap->cores[core].problems[HT_CAPTURE_BAD_FIELD]++;
		note(cap,
		     "file=%s offset=%" PRIu64 ": core %s: %s has no "
		     "integer field '%s' (event ignored)",
		     msg->stream->path, msg->event->offset_bits / 8,
		     cap->cores[core].name, msg->event->cls->name, name);
		return false;
	}
	*v = f->v.u;
	return true;
}

/* The core named by the id in field @name, or -1 (noted). */
static long peer_of(struct ht_capture *cap, size_t core,
		    const struct ht_ctf_msg *msg, const char *name)
{
	uint64_t id;
	long peer;

	if (!get_uint(cap, core, msg, name, &id)) {
		return -1;
	}
	peer = core_by_id(cap, id);
	if (peer < 0 || (size_t)peer == core) {
		cap->cores[core].problems[HT_CAPTURE_BAD_FIELD]++;
		note(cap,
		     "file=%s offset=%" PRIu64 ": core %s: %s: %s = %" PRIu64
		     " %s (event ignored)",
		     msg->stream->path, msg->event->offset_bits / 8,
		     cap->cores[core].name, msg->event->cls->name, name, id,
		     peer < 0 ? "names no core of the capture (a core is "
				"missing?)"
			      : "is the core itself");
		return -1;
	}
	return peer;
}

/* The master of slave @core for its handshake events, or -1. */
static long master_of(struct ht_capture *cap, size_t core,
		      const struct ht_ctf_msg *msg)
{
	long m = cap->cores[core].master;
	size_t i;

	if (m >= 0) {
		return m;
	}
	/* no core_master: the only master of the capture */
	for (i = 0; i < cap->nr_cores; i++) {
		if (cap->cores[i].is_master && i != core) {
			if (m >= 0) {
				m = -2;
				break;
			}
			m = (long)i;
		}
	}
	if (m < 0) {
		cap->cores[core].problems[HT_CAPTURE_BAD_FIELD]++;
		note(cap,
		     "file=%s offset=%" PRIu64 ": core %s: %s but the core "
		     "has no core_master and the capture %s (event ignored)",
		     msg->stream->path, msg->event->offset_bits / 8,
		     cap->cores[core].name, msg->event->cls->name,
		     m == -1 ? "has no master core" : "has several masters");
		return -1;
	}
	cap->cores[core].master = m;
	return m;
}

static int on_event(struct ht_capture *cap, size_t core,
		    const struct ht_ctf_msg *msg)
{
	struct ht_capture_core *c = &cap->cores[core];
	uint64_t seq, id;
	enum ev_kind kind;
	long peer;
	int ret;

	c->nr_events++;
	if (msg->has_time) {
		if (!c->has_time) {
			c->has_time = true;
			c->first_cycles = msg->cycles;
		}
		c->last_cycles = msg->cycles;
	}
	ret = class_kind(cap, msg->event->cls, &kind);
	if (ret || kind == EV_OTHER) {
		return ret;
	}
	if (!msg->has_time) {
		return 0;
	}
	switch (kind) {
	case EV_SYNC_REQ:
	case EV_SYNC_RECV:
		c->nr_sync_events++;
		peer = peer_of(cap, core, msg, "slave");
		if (peer < 0 || !get_uint(cap, core, msg, "seq", &seq) ||
		    !seq_ok(cap, core, kind, (size_t)peer, seq, msg)) {
			return 0;
		}
		if (kind == EV_SYNC_REQ) {
			return sync_half(cap, CHAN_DOWN, core, (size_t)peer,
					 seq, true, msg->cycles);
		}
		return sync_half(cap, CHAN_UP, (size_t)peer, core, seq, false,
				 msg->cycles);
	case EV_SYNC_ACK:
	case EV_SYNC_NOTIFY:
		c->nr_sync_events++;
		peer = master_of(cap, core, msg);
		if (peer < 0 || !get_uint(cap, core, msg, "seq", &seq) ||
		    !seq_ok(cap, core, kind, (size_t)peer, seq, msg)) {
			return 0;
		}
		if (kind == EV_SYNC_ACK) {
			return sync_half(cap, CHAN_DOWN, (size_t)peer, core,
					 seq, false, msg->cycles);
		}
		return sync_half(cap, CHAN_UP, core, (size_t)peer, seq, true,
				 msg->cycles);
	case EV_MSG_SEND:
		peer = peer_of(cap, core, msg, "dst");
		/* ids are unique per sender, not ordered: duplicates
		 * are found at the join */
		if (peer < 0 || !get_uint(cap, core, msg, "id", &id)) {
			return 0;
		}
		return msg_half(cap, core, (size_t)peer, id, true, msg->cycles);
	case EV_MSG_RECV:
		peer = peer_of(cap, core, msg, "src");
		if (peer < 0 || !get_uint(cap, core, msg, "id", &id)) {
			return 0;
		}
		/* receives from one sender may come in any order */
		return msg_half(cap, (size_t)peer, core, id, false,
				msg->cycles);
	default:
		return 0;
	}
}

static int cmp_link(const void *a, const void *b)
{
	const struct ht_capture_link *x =
	    *(const struct ht_capture_link *const *)a;
	const struct ht_capture_link *y =
	    *(const struct ht_capture_link *const *)b;

	if (x->from != y->from) {
		return x->from < y->from ? -1 : 1;
	}
	return x->to < y->to ? -1 : x->to > y->to;
}

/* Joins the handshake halves of link @from -> @to (both sorted). */
static int join_sync(struct ht_capture *cap, size_t from, size_t to)
{
	struct side *sd = &cap->sync[from * cap->nr_cores + to];
	const struct half *s = sd->send.v, *r = sd->recv.v;
	size_t i = 0, j = 0;
	bool down = sd->chan == CHAN_DOWN;
	int ret;

	while (i < sd->send.n || j < sd->recv.n) {
		if (j == sd->recv.n ||
		    (i < sd->send.n && s[i].num < r[j].num)) {
			cap->cores[from]
			    .problems[down ? HT_CAPTURE_UNMATCHED_REQ
					   : HT_CAPTURE_UNMATCHED_NOTIFY]++;
			i++;
		} else if (i == sd->send.n || r[j].num < s[i].num) {
			cap->cores[to]
			    .problems[down ? HT_CAPTURE_UNMATCHED_ACK
					   : HT_CAPTURE_UNMATCHED_RECV]++;
			j++;
		} else {
			ret = add_pair(cap, from, to, s[i].cycles, r[j].cycles,
				       r[j].num, sd->chan);
			if (ret) {
				return ret;
			}
			i++;
			j++;
		}
	}
	return 0;
}

static int cmp_half(const void *a, const void *b)
{
	const struct half *x = a, *y = b;

	if (x->num != y->num) {
		return x->num < y->num ? -1 : 1;
	}
	return x->cycles < y->cycles ? -1 : x->cycles > y->cycles;
}

/* Drops every half whose number appears more than once; counts them. */
static size_t drop_dups(struct ht_capture *cap, struct halves *h, size_t sender,
			bool is_send)
{
	size_t i, n = 0, k;

	for (i = 0; i < h->n; i = k) {
		for (k = i + 1; k < h->n && h->v[k].num == h->v[i].num; k++) {
		}
		if (k - i == 1) {
			h->v[n++] = h->v[i];
			continue;
		}
		/* which copy belongs to the other half is unknown */
		cap->cores[is_send ? sender : h->v[i].peer]
		    .problems[HT_CAPTURE_DUP_SEQ] += k - i;
		note(cap,
		     "core %s: message id %" PRIu64 " from %s %s %zu times "
		     "(not used)",
		     cap->cores[is_send ? sender : h->v[i].peer].name,
		     h->v[i].num, cap->cores[sender].name,
		     is_send ? "sent" : "received", k - i);
	}
	return n;
}

/* Joins the application messages sent by @from. */
static int join_msg(struct ht_capture *cap, size_t from)
{
	struct side *sd = &cap->msg[from];
	const struct half *s, *r;
	size_t i = 0, j = 0;
	int ret;

	/* (qsort must not get the NULL of an empty vector) */
	if (sd->send.n > 1) {
		qsort(sd->send.v, sd->send.n, sizeof(struct half), cmp_half);
	}
	if (sd->recv.n > 1) {
		qsort(sd->recv.v, sd->recv.n, sizeof(struct half), cmp_half);
	}
	sd->send.n = drop_dups(cap, &sd->send, from, true);
	sd->recv.n = drop_dups(cap, &sd->recv, from, false);
	s = sd->send.v;
	r = sd->recv.v;
	while (i < sd->send.n || j < sd->recv.n) {
		if (j == sd->recv.n ||
		    (i < sd->send.n && s[i].num < r[j].num)) {
			cap->cores[from].problems[HT_CAPTURE_UNMATCHED_SEND]++;
			i++;
		} else if (i == sd->send.n || r[j].num < s[i].num) {
			cap->cores[r[j].peer]
			    .problems[HT_CAPTURE_UNMATCHED_MRECV]++;
			j++;
		} else if (s[i].peer != r[j].peer) {
			cap->cores[r[j].peer].problems[HT_CAPTURE_BAD_FIELD]++;
			note(cap,
			     "core %s: message %" PRIu64 " from %s: sent to "
			     "core %s, received by core %s (not used)",
			     cap->cores[r[j].peer].name, s[i].num,
			     cap->cores[from].name, cap->cores[s[i].peer].name,
			     cap->cores[r[j].peer].name);
			i++;
			j++;
		} else {
			ret = add_pair(cap, from, s[i].peer, s[i].cycles,
				       r[j].cycles, r[j].num, CHAN_MSG);
			if (ret) {
				return ret;
			}
			i++;
			j++;
		}
	}
	return 0;
}

static int join_all(struct ht_capture *cap)
{
	size_t a, b;
	int ret;

	for (a = 0; a < cap->nr_cores; a++) {
		for (b = 0; b < cap->nr_cores; b++) {
			ret = join_sync(cap, a, b);
			if (ret) {
				return ret;
			}
		}
	}
	for (a = 0; a < cap->nr_cores; a++) {
		ret = join_msg(cap, a);
		if (ret) {
			return ret;
		}
	}
	return 0;
}

int ht_capture_scan(struct ht_capture *cap)
{
	struct ht_ctf_msg msg;
	size_t i;
	int ret;

	for (;;) {
		long core;

		ret = ht_ctf_set_next(cap->set, &msg);
		if (ret == HT_EEOF) {
			break;
		}
		if (ret == HT_ENOMEM) {
			return ret;
		}
		if (ret) {
			/* damaged: noted; the reader goes on */
			const char *e = ht_ctf_set_error(cap->set);

			note(cap, "damaged stream: %s", e);
			for (i = 0; i < cap->nr_cores; i++) {
				const char *p = cap->cores[i].trace->path;
				size_t n = strlen(p);

				if (strstr(e, p) &&
				    e[strstr(e, p) - e + n] == '/') {
					cap->cores[i]
					    .problems[HT_CAPTURE_DAMAGED]++;
					break;
				}
			}
			continue;
		}
		core = msg.stream->index < cap->nr_streams
			   ? cap->core_of_stream[msg.stream->index]
			   : -1;
		if (core < 0) {
			continue;
		}
		switch (msg.kind) {
		case HT_CTF_MSG_EVENT:
			ret = on_event(cap, (size_t)core, &msg);
			if (ret) {
				return ret;
			}
			break;
		case HT_CTF_MSG_DISCARDED_EVENTS:
			cap->cores[core].discarded_events += msg.count;
			break;
		case HT_CTF_MSG_DISCARDED_PACKETS:
			cap->cores[core].lost_packets += msg.count;
			break;
		default:
			break;
		}
	}
	ret = join_all(cap);
	if (ret) {
		return ret;
	}
	for (i = 0; i < cap->nr_cores * cap->nr_cores; i++) {
		if (cap->links[i]) {
			cap->nr_used++;
		}
	}
	cap->used = calloc(cap->nr_used + 1, sizeof(*cap->used));
	if (!cap->used) {
		return HT_ENOMEM;
	}
	cap->nr_used = 0;
	for (i = 0; i < cap->nr_cores * cap->nr_cores; i++) {
		if (cap->links[i]) {
			cap->used[cap->nr_used++] = cap->links[i];
		}
	}
	qsort(cap->used, cap->nr_used, sizeof(*cap->used), cmp_link);
	return 0;
}

const struct ht_capture_link *ht_capture_link(const struct ht_capture *cap,
					      size_t from, size_t to)
{
	if (from >= cap->nr_cores || to >= cap->nr_cores) {
		return NULL;
	}
	return cap->links[from * cap->nr_cores + to];
}

size_t ht_capture_nr_links(const struct ht_capture *cap)
{
	return cap->nr_used;
}

const struct ht_capture_link *ht_capture_link_at(const struct ht_capture *cap,
						 size_t i)
{
	return i < cap->nr_used ? cap->used[i] : NULL;
}
