/* SPDX-License-Identifier: MIT */
/*
 * The merge (merge.h): one reader set per core, a binary heap on the
 * mapped time of each core's next event, one writer stream per input
 * stream.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/ctf/ctf-writer.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/message.h"
#include "merge.h"

#define NS_PER_S 1000000000ll

struct input {
	const struct ht_merge_core *core;
	struct ht_ctf_set *set;
	const struct ht_ctf_trace *trace;
	uint64_t *sc_out;	     /* output class of each input class */
	struct ht_ctf_wstream **out; /* by input stream index */
	size_t nr_out;
	struct ht_ctf_msg msg; /* the next event */
	int64_t key;	       /* its mapped time */
	int64_t last_key;
	bool done;
	/* per_cpu: the CPUs met, whose env entries are written */
	uint32_t *cpus;
	size_t nr_cpus, cap_cpus;
};

struct merge {
	const struct ht_merge_opts *o;
	struct ht_ctf_writer *w;
	struct input *in;
	size_t nr_in;
	size_t *heap;
	size_t heap_len;
	int64_t origin_ns;
	struct ht_merge_stats *st;
	char *err;
	size_t err_len;
};

static bool heap_less(const struct merge *m, size_t a, size_t b)
{
	const struct input *x = &m->in[a], *y = &m->in[b];

	/* ties: core order, so the output is deterministic */
	return x->key < y->key || (x->key == y->key && a < b);
}

static void heap_swap(struct merge *m, size_t i, size_t j)
{
	size_t t = m->heap[i];

	m->heap[i] = m->heap[j];
	m->heap[j] = t;
}

static void heap_down(struct merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, s = i;

		if (l < m->heap_len && heap_less(m, m->heap[l], m->heap[s])) {
			s = l;
		}
		if (r < m->heap_len && heap_less(m, m->heap[r], m->heap[s])) {
			s = r;
		}
		if (s == i) {
			return;
		}
		heap_swap(m, i, s);
		i = s;
	}
}

static void heap_up(struct merge *m, size_t i)
{
	while (i) {
		size_t p = (i - 1) / 2;

		if (!heap_less(m, m->heap[i], m->heap[p])) {
			return;
		}
		heap_swap(m, i, p);
		i = p;
	}
}

/* Reference ns -> output timestamp (ns from the output clock's origin). */
static uint64_t out_ts(struct merge *m, int64_t ns)
{
	if (ns < m->origin_ns) {
		m->st->clamped++;
		return 0;
	}
	/* (unsigned: the difference may not fit in int64) */
	return (uint64_t)ns - (uint64_t)m->origin_ns;
}

static void sanitize(char *s)
{
	for (; *s; s++) {
		if (*s == '/' || *s == ' ') {
			*s = '_';
		}
	}
}

/* An unsigned integer member @name of a structure type, or false. */
static bool has_uint_member(const struct ht_ctf_type *t, const char *name)
{
	size_t i;

	if (!t || t->kind != HT_CTF_STRUCT) {
		return false;
	}
	for (i = 0; i < t->nr_members; i++) {
		if (!strcmp(t->members[i].name, name)) {
			return t->members[i].type->kind == HT_CTF_INT &&
			       !t->members[i].type->is_signed;
		}
	}
	return false;
}

/* The cpu_id of @msg's packet (per-CPU inputs), or false. */
static bool packet_cpu(const struct ht_ctf_msg *msg, uint32_t *cpu)
{
	const struct ht_ctf_field *f =
	    msg->packet && msg->packet->context
		? ht_ctf_field_member(msg->packet->context, "cpu_id")
		: NULL;

	if (!f || f->type->kind != HT_CTF_INT || f->v.u > UINT32_MAX / 2) {
		return false;
	}
	*cpu = (uint32_t)f->v.u;
	return true;
}

static int env_core(struct merge *m, uint32_t id, const char *cname,
		    const struct ht_merge_core *c);

/*
 * A per-CPU input's CPU @cpu: its output core id, and its env entries
 * the first time it is met.
 */
static int cpu_core(struct merge *m, struct input *in, uint32_t cpu,
		    uint32_t *id)
{
	char cname[256];
	size_t i;
	int ret;

	*id = in->core->id + cpu;
	for (i = 0; i < in->nr_cpus; i++) {
		if (in->cpus[i] == cpu) {
			return 0;
		}
	}
	if (ht_array_reserve((void **)&in->cpus, &in->cap_cpus, in->nr_cpus + 1,
			     sizeof(*in->cpus))) {
		return HT_ENOMEM;
	}
	in->cpus[in->nr_cpus++] = cpu;
	snprintf(cname, sizeof(cname), "%s/cpu%" PRIu32, in->core->name, cpu);
	ret = env_core(m, *id, cname, in->core);
	if (ret) {
		snprintf(m->err, m->err_len, "%s",
			 ht_ctf_writer_last_error(m->w));
	}
	return ret;
}

static int stream_of(struct merge *m, struct input *in,
		     const struct ht_ctf_stream *is, struct ht_ctf_wstream **ws)
{
	const struct ht_ctf_trace *t = is->trace;
	char name[512];
	uint32_t id;
	size_t i;
	int ret;

	if (is->index < in->nr_out && in->out[is->index]) {
		*ws = in->out[is->index];
		return 0;
	}
	if (is->index >= in->nr_out) {
		size_t n = is->index + 1;
		struct ht_ctf_wstream **o = realloc(in->out, n * sizeof(*o));

		if (!o) {
			return HT_ENOMEM;
		}
		memset(o + in->nr_out, 0, (n - in->nr_out) * sizeof(*o));
		in->out = o;
		in->nr_out = n;
	}
	for (i = 0; i < t->nr_stream_classes; i++) {
		if (t->stream_classes[i] == is->stream_class) {
			break;
		}
	}
	if (i == t->nr_stream_classes || t != in->trace) {
		snprintf(m->err, m->err_len, "%s: stream of an unknown class",
			 is->path);
		return HT_EINVAL;
	}
	id = in->core->id;
	if (in->core->per_cpu) {
		uint32_t cpu;

		if (!packet_cpu(&in->msg, &cpu)) {
			snprintf(m->err, m->err_len,
				 "%s: core %s: a packet without an integer "
				 "cpu_id in its context: its CPU is unknown",
				 is->path, in->core->name);
			return HT_EFORMAT;
		}
		ret = cpu_core(m, in, cpu, &id);
		if (ret) {
			return ret;
		}
		snprintf(name, sizeof(name), "%s_cpu%" PRIu32 "_%s",
			 in->core->name, cpu, is->file_name);
	} else if (t->nr_streams > 1) {
		snprintf(name, sizeof(name), "%s_%s", in->core->name,
			 is->file_name);
	} else {
		snprintf(name, sizeof(name), "%s", in->core->name);
	}
	sanitize(name);
	ret = ht_ctf_writer_add_stream(m->w, in->sc_out[i], name, id, ws);
	if (ret) {
		snprintf(m->err, m->err_len, "%s",
			 ht_ctf_writer_last_error(m->w));
		return ret;
	}
	in->out[is->index] = *ws;
	m->st->streams++;
	/* cpu_id (Trace Compass's CPU column) is the core's id, except for
	 * LTTng's per-CPU streams: the CPU of their packets, kept */
	ht_ctf_wstream_set_cpu_id(*ws, in->core->id);
	if (has_uint_member(is->stream_class->packet_context, "cpu_id") &&
	    in->msg.packet && in->msg.packet->context) {
		const struct ht_ctf_field *f =
		    ht_ctf_field_member(in->msg.packet->context, "cpu_id");

		if (f) {
			ht_ctf_wstream_set_cpu_id(*ws, (uint32_t)f->v.u);
		}
	}
	return 0;
}

/* Reads @in's next event; handles the discard messages on the way. */
static int advance(struct merge *m, struct input *in)
{
	struct ht_ctf_wstream *ws;
	int ret;

	for (;;) {
		ret = ht_ctf_set_next(in->set, &in->msg);
		if (ret == HT_EEOF) {
			in->done = true;
			return 0;
		}
		if (ret == HT_ENOMEM) {
			return ret;
		}
		if (ret) {
			m->st->damaged++;
			ht_message_sendf(
			    m->o->note, m->o->note_arg,
			    "core %s: damaged stream, packet skipped: %s",
			    in->core->name, ht_ctf_set_last_error(in->set));
			continue;
		}
		if (in->msg.kind == HT_CTF_MSG_EVENT) {
			if (!in->msg.has_time) {
				snprintf(m->err, m->err_len,
					 "%s: event without a timestamp",
					 in->msg.stream->path);
				return HT_EFORMAT;
			}
			in->key =
			    in->core->map(in->core->map_arg, in->msg.cycles);
			if (in->core->event_time) {
				in->key = in->core->event_time(
				    in->core->map_arg, &in->msg, in->key);
			}
			/* a stream's events stay in their order */
			if (in->key < in->last_key) {
				in->key = in->last_key;
			}
			in->last_key = in->key;
			return 0;
		}
		if (in->msg.kind != HT_CTF_MSG_DISCARDED_EVENTS &&
		    in->msg.kind != HT_CTF_MSG_DISCARDED_PACKETS) {
			continue;
		}
		ret = stream_of(m, in, in->msg.stream, &ws);
		if (ret) {
			return ret;
		}
		{
			uint64_t ts =
			    in->msg.has_range
				? out_ts(m, in->core->map(in->core->map_arg,
							  in->msg.end_cycles))
				: 0;

			if (in->msg.kind == HT_CTF_MSG_DISCARDED_EVENTS) {
				m->st->discarded_events += in->msg.count;
				ret = ht_ctf_wstream_discarded(
				    ws, in->msg.count, ts);
			} else {
				m->st->lost_packets += in->msg.count;
				ret = ht_ctf_wstream_lost_packets(
				    ws, in->msg.count, ts);
			}
		}
		if (ret) {
			snprintf(m->err, m->err_len, "%s",
				 ht_ctf_writer_last_error(m->w));
			return ret;
		}
	}
}

static int emit(struct merge *m, struct input *in)
{
	const struct ht_ctf_event *ev = in->msg.event;
	struct ht_ctf_wstream *ws;
	int ret;

	ret = stream_of(m, in, in->msg.stream, &ws);
	if (ret) {
		return ret;
	}
	if (m->o->keep_ref_clock && in->key < m->origin_ns) {
		snprintf(m->err, m->err_len,
			 "file=%s offset=%" PRIu64 ": core %s: event %s maps "
			 "to %" PRId64 " ns, before the origin of the "
			 "reference clock %s (%" PRId64 " ns): it cannot be "
			 "placed on that clock",
			 in->msg.stream->path, ev->offset_bits / 8,
			 in->core->name, ev->cls->name, in->key,
			 m->o->ref_clock->name, m->origin_ns);
		return HT_ERANGE;
	}
	ret =
	    ht_ctf_wstream_event(ws, ev->cls->id, out_ts(m, in->key),
				 ev->scope[HT_CTF_SCOPE_EVENT_COMMON_CONTEXT],
				 ev->scope[HT_CTF_SCOPE_EVENT_SPECIFIC_CONTEXT],
				 ev->scope[HT_CTF_SCOPE_EVENT_PAYLOAD]);
	if (ret) {
		snprintf(m->err, m->err_len, "%s",
			 ht_ctf_writer_last_error(m->w));
		return ret;
	}
	if (!m->st->has_time) {
		m->st->has_time = true;
		m->st->first_ns = in->key;
	}
	m->st->last_ns = in->key;
	m->st->events++;
	return 0;
}

static int open_input(struct merge *m, struct input *in)
{
	struct ht_ctf_open_opts oo = {0};
	const struct ht_ctf_trace *t;
	size_t i, j;
	int ret;

	oo.flags = HT_CTF_EVENTS_ONLY | HT_CTF_KEEP_GOING;
	ret = ht_ctf_set_open(&in->set, &in->core->path, 1, &oo, m->err,
			      m->err_len);
	if (ret) {
		return ret;
	}
	if (ht_ctf_set_nr_traces(in->set) != 1) {
		snprintf(m->err, m->err_len,
			 "%s: core %s: expected one trace, found %zu",
			 in->core->path, in->core->name,
			 ht_ctf_set_nr_traces(in->set));
		return HT_EFORMAT;
	}
	t = ht_ctf_set_trace(in->set, 0);
	in->trace = t;
	in->sc_out = calloc(t->nr_stream_classes + 1, sizeof(*in->sc_out));
	if (!in->sc_out) {
		return HT_ENOMEM;
	}
	for (i = 0; i < t->nr_stream_classes; i++) {
		const struct ht_ctf_stream_class *sc = t->stream_classes[i];

		ret = ht_ctf_writer_add_stream_class(m->w, sc->event_context,
						     &in->sc_out[i]);
		/* every class: cpu_id next to core_id (docs/ctf-layout.md) */
		if (!ret) {
			ret = ht_ctf_writer_stream_class_add_cpu_id(
			    m->w, in->sc_out[i]);
		}
		for (j = 0; !ret && j < sc->nr_event_classes; j++) {
			ret = ht_ctf_writer_add_event_class(
			    m->w, in->sc_out[i], sc->event_classes[j]);
		}
		if (ret) {
			snprintf(m->err, m->err_len, "%s/metadata: %s", t->path,
				 ht_ctf_writer_last_error(m->w));
			return ret;
		}
	}
	return 0;
}

/* The env entries of core @id named @cname, described by @c. */
static int env_core(struct merge *m, uint32_t id, const char *cname,
		    const struct ht_merge_core *c)
{
	char name[128];
	int ret;

	snprintf(name, sizeof(name), "core_%" PRIu32 "_name", id);
	ret = ht_ctf_writer_env_str(m->w, name, cname);
	if (!ret && c->role) {
		snprintf(name, sizeof(name), "core_%" PRIu32 "_role", id);
		ret = ht_ctf_writer_env_str(m->w, name, c->role);
	}
	if (!ret && c->master) {
		snprintf(name, sizeof(name), "core_%" PRIu32 "_master", id);
		ret = ht_ctf_writer_env_str(m->w, name, c->master);
	}
	if (!ret && c->sync) {
		snprintf(name, sizeof(name), "core_%" PRIu32 "_sync", id);
		ret = ht_ctf_writer_env_str(m->w, name, c->sync);
	}
	if (!ret && c->clock_hz && c->clock_hz <= INT64_MAX) {
		snprintf(name, sizeof(name), "core_%" PRIu32 "_clock_hz", id);
		ret = ht_ctf_writer_env_int(m->w, name, (int64_t)c->clock_hz);
	}
	return ret;
}

static bool env_given(const struct ht_merge_opts *o, const char *name)
{
	size_t i;

	for (i = 0; i < o->nr_env; i++) {
		if (!strcmp(o->env[i].name, name)) {
			return true;
		}
	}
	return false;
}

/*
 * `hostname` and `domain`, unless the extra entries have them (an LTTng
 * reference's own): Trace Compass names the host of a trace from
 * `hostname`, and opens a `domain` it does not know ("hetrace", not
 * LTTng's "ust" or "kernel") as a generic CTF trace (docs/ctf-layout.md).
 * The host is this machine's: the one sync runs on, next to the capture.
 */
static int add_env_host(struct merge *m)
{
	char host[256];
	int ret = 0;

	if (!env_given(m->o, "hostname")) {
		if (gethostname(host, sizeof(host)) != 0) {
			snprintf(host, sizeof(host), "unknown");
		}
		host[sizeof(host) - 1] = '\0';
		ret = ht_ctf_writer_env_str(m->w, "hostname", host);
	}
	if (!ret && !env_given(m->o, "domain")) {
		ret = ht_ctf_writer_env_str(m->w, "domain", "hetrace");
	}
	return ret;
}

static int add_env(struct merge *m)
{
	const struct ht_merge_opts *o = m->o;
	size_t i;
	int ret = 0;

	if (o->reference) {
		ret =
		    ht_ctf_writer_env_str(m->w, "sync_reference", o->reference);
	}
	for (i = 0; !ret && i < m->nr_in; i++) {
		const struct ht_merge_core *c = m->in[i].core;

		if (!c->per_cpu) {
			/* (per-CPU inputs: as their CPUs are met) */
			ret = env_core(m, c->id, c->name, c);
		}
	}
	for (i = 0; !ret && i < o->nr_env; i++) {
		if (o->env[i].str) {
			ret = ht_ctf_writer_env_str(m->w, o->env[i].name,
						    o->env[i].str);
		} else {
			ret = ht_ctf_writer_env_int(m->w, o->env[i].name,
						    o->env[i].i);
		}
	}
	return ret ? ret : add_env_host(m);
}

/* The output clock: the reference clock kept as it is, or one in ns
 * on the same time base. @uuid and @desc are room for what is made. */
static void writer_clock(const struct ht_merge_opts *o,
			 struct ht_ctf_writer_opts *wo, uint8_t *uuid,
			 char *desc, size_t desc_len)
{
	size_t i;

	wo->clock_offset_s = o->origin_s;
	if (o->keep_ref_clock) {
		const struct ht_ctf_clock *k = o->ref_clock;

		wo->clock_name = k->name;
		wo->clock_absolute = k->absolute;
		wo->clock_uuid = k->has_uuid ? k->uuid : NULL;
		wo->clock_offset_s = k->offset_s;
		wo->clock_offset_cycles = k->offset_cycles;
		wo->clock_precision = k->precision;
	} else if (o->ref_clock) {
		wo->clock_name = o->ref_clock->name;
		wo->clock_absolute = o->ref_clock->absolute;
		if (o->ref_clock->has_uuid) {
			/* the same time base in another unit: a UUID of its
			 * own, derived so that runs are reproducible */
			memcpy(uuid, o->ref_clock->uuid, 16);
			for (i = 0; i < 16; i++) {
				uuid[i] ^= (uint8_t)(0x5b + 13 * i);
			}
			uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x40);
			uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);
			wo->clock_uuid = uuid;
		}
	}
	snprintf(desc, desc_len, "hetrace sync: clock of core %s, in ns",
		 o->reference ? o->reference : "?");
	wo->clock_description = desc;
	if (o->keep_ref_clock) {
		wo->clock_description = o->ref_clock->description;
	}
}

/* The k-way merge: each input's next event, smallest mapped time
 * first, until every input is done. */
static int merge_events(struct merge *m)
{
	size_t i;
	int ret;

	for (i = 0; i < m->nr_in; i++) {
		ret = advance(m, &m->in[i]);
		if (ret) {
			return ret;
		}
		if (!m->in[i].done) {
			m->heap[m->heap_len++] = i;
			heap_up(m, m->heap_len - 1);
		}
	}
	while (m->heap_len) {
		struct input *in = &m->in[m->heap[0]];

		ret = emit(m, in);
		if (!ret) {
			ret = advance(m, in);
		}
		if (ret) {
			return ret;
		}
		if (in->done) {
			m->heap[0] = m->heap[--m->heap_len];
		}
		heap_down(m, 0);
	}
	return 0;
}

int ht_merge_run(const struct ht_merge_core *cores, size_t nr_cores,
		 const struct ht_merge_opts *o, struct ht_merge_stats *st,
		 char *err, size_t err_len)
{
	struct ht_ctf_writer_opts wo = {0};
	struct merge m = {0};
	uint8_t uuid[16];
	char desc[256];
	size_t i;
	int ret;

	memset(st, 0, sizeof(*st));
	m.o = o;
	m.st = st;
	m.err = err;
	m.err_len = err_len;
	m.nr_in = nr_cores;
	m.origin_ns = o->origin_s * NS_PER_S;
	if (o->keep_ref_clock) {
		const struct ht_ctf_clock *k = o->ref_clock;

		if (!k || k->freq_hz != (uint64_t)NS_PER_S) {
			snprintf(err, err_len,
				 "the reference clock %s cannot be kept: its "
				 "frequency is %" PRIu64 " Hz, hetrace writes "
				 "ns (a 1 GHz clock)",
				 k ? k->name : "(none)", k ? k->freq_hz : 0);
			return HT_EUNSUPPORTED;
		}
		/* output timestamps are then the reference's own cycles */
		__int128 origin =
		    (__int128)k->offset_s * NS_PER_S + k->offset_cycles;

		if (origin > INT64_MAX || origin < INT64_MIN) {
			snprintf(err, err_len,
				 "the reference clock %s cannot be kept: its "
				 "offset (offset_s = %" PRId64
				 ", offset = %" PRId64 ") is beyond 2^63 ns",
				 k->name, k->offset_s, k->offset_cycles);
			return HT_ERANGE;
		}
		m.origin_ns = (int64_t)origin;
	}
	m.in = calloc(nr_cores + 1, sizeof(*m.in));
	m.heap = calloc(nr_cores + 1, sizeof(*m.heap));
	if (!m.in || !m.heap) {
		ret = HT_ENOMEM;
		goto free_all;
	}
	wo.dir = o->out_dir;
	wo.overwrite = o->overwrite;
	wo.packet_bytes = o->packet_bytes;
	writer_clock(o, &wo, uuid, desc, sizeof(desc));
	ret = ht_ctf_writer_create(&m.w, &wo, err, err_len);
	if (ret) {
		goto free_all;
	}
	for (i = 0; i < nr_cores; i++) {
		m.in[i].core = &cores[i];
		m.in[i].last_key = INT64_MIN;
		ret = open_input(&m, &m.in[i]);
		if (ret) {
			goto free_all;
		}
	}
	ret = add_env(&m);
	if (ret) {
		snprintf(err, err_len, "%s", ht_ctf_writer_last_error(m.w));
		goto free_all;
	}
	ret = merge_events(&m);
	if (ret) {
		goto free_all;
	}
	ret = ht_ctf_writer_close(m.w, err, err_len);
	m.w = NULL;
free_all:
	ht_ctf_writer_abort(m.w);
	if (m.in) {
		for (i = 0; i < nr_cores; i++) {
			ht_ctf_set_close(m.in[i].set);
			free(m.in[i].sc_out);
			free(m.in[i].out);
			free(m.in[i].cpus);
		}
	}
	free(m.in);
	free(m.heap);
	return ret;
}
