/* SPDX-License-Identifier: MIT */
/*
 * The merge (merge.h): one reader set per core, read one core after the
 * other, one writer stream per input stream. This file sets the merge
 * up (classes, env, clock), places each event on the output clock and
 * holds the decoding path (every field decoded, then encoded by the
 * writer); merge-copy.c copies records as bytes where it can.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/message.h"
#include "merge-internal.h"

#define NS_PER_S 1000000000ll

/* Reference ns -> output timestamp (ns from the output clock's origin). */
uint64_t ht__merge_out_ts(struct merge *m, int64_t ns)
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

/* The cpu_id member of @msg's packet context (ht__merge_stream()). */
static void packet_cpu(const struct ht_ctf_msg *msg, struct ht__merge_cpu *cpu)
{
	const struct ht_ctf_field *f =
	    msg->packet && msg->packet->context
		? ht_ctf_field_member(msg->packet->context, "cpu_id")
		: NULL;

	cpu->has = f != NULL;
	cpu->is_int = f && f->type->kind == HT_CTF_INT;
	cpu->value = f ? f->v.u : 0;
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

int ht__merge_stream(struct merge *m, struct input *in,
		     const struct ht_ctf_stream *is,
		     const struct ht__merge_cpu *pcpu,
		     struct ht_ctf_wstream **ws)
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
		uint32_t cpu = (uint32_t)pcpu->value;

		if (!pcpu->is_int || pcpu->value > UINT32_MAX / 2) {
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
	    pcpu->has) {
		ht_ctf_wstream_set_cpu_id(*ws, (uint32_t)pcpu->value);
	}
	return 0;
}

int ht__merge_place(struct merge *m, struct input *in, int64_t key,
		    const char *ev_name, const char *path, uint64_t offset_bits,
		    uint64_t *ts)
{
	struct ht_merge_stats *st = m->st;

	if (m->o->keep_ref_clock && key < m->origin_ns) {
		/* the earliest of the cores' (ties: the first core's) */
		if (!m->early.found || key < m->early.key) {
			m->early.found = true;
			m->early.key = key;
			snprintf(m->early.msg, sizeof(m->early.msg),
				 "file=%s offset=%" PRIu64 ": core %s: event "
				 "%s maps to %" PRId64 " ns, before the origin "
				 "of the reference clock %s (%" PRId64
				 " ns): it cannot be placed on that clock",
				 path, offset_bits / 8, in->core->name, ev_name,
				 key, m->o->ref_clock->name, m->origin_ns);
		}
		return HT__MERGE_TOO_EARLY;
	}
	*ts = ht__merge_out_ts(m, key);
	if (!st->has_time || key < st->first_ns) {
		st->first_ns = key;
	}
	if (!st->has_time || key > st->last_ns) {
		st->last_ns = key;
	}
	st->has_time = true;
	st->events++;
	return 0;
}

int ht__merge_loss(struct merge *m, struct input *in, struct ht_ctf_wstream *ws,
		   bool events, uint64_t count, bool has_range,
		   uint64_t end_cycles)
{
	uint64_t ts = has_range
			  ? ht__merge_out_ts(
				m, in->core->map(in->core->map_arg, end_cycles))
			  : 0;
	int ret;

	if (events) {
		m->st->discarded_events += count;
		ret = ht_ctf_wstream_discarded(ws, count, ts);
	} else {
		m->st->lost_packets += count;
		ret = ht_ctf_wstream_lost_packets(ws, count, ts);
	}
	if (ret) {
		snprintf(m->err, m->err_len, "%s",
			 ht_ctf_writer_last_error(m->w));
	}
	return ret;
}

int64_t ht__merge_key(struct input *in, const struct ht_merge_event *ev)
{
	const struct ht_merge_core *c = in->core;

	return ht__merge_key_at(in, ev, c->map(c->map_arg, ev->cycles));
}

int64_t ht__merge_key_at(struct input *in, const struct ht_merge_event *ev,
			 int64_t key)
{
	const struct ht_merge_core *c = in->core;

	if (c->event_time) {
		key = c->event_time(c->map_arg, ev, key);
	}
	/* a core's events stay in their order */
	if (key < in->last_key) {
		key = in->last_key;
	}
	in->last_key = key;
	return key;
}

/*
 * Reads @in's next event (decoding path) into in->msg and in->key;
 * handles the discard messages on the way. Returns HT_EEOF at the end.
 */
static int advance(struct merge *m, struct input *in)
{
	struct ht__merge_cpu cpu;
	struct ht_ctf_wstream *ws;
	int ret;

	for (;;) {
		ret = ht_ctf_set_next(in->set, &in->msg);
		if (ret == HT_EEOF || ret == HT_ENOMEM) {
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
			struct ht_merge_event ev;

			if (!in->msg.has_time) {
				snprintf(m->err, m->err_len,
					 "%s: event without a timestamp",
					 in->msg.stream->path);
				return HT_EFORMAT;
			}
			ev.stream = (uint32_t)(in->msg.stream->index -
					       in->trace->streams[0]->index);
			ev.offset_bits = in->msg.event->offset_bits;
			ev.cycles = in->msg.cycles;
			in->key = ht__merge_key(in, &ev);
			return 0;
		}
		if (in->msg.kind != HT_CTF_MSG_DISCARDED_EVENTS &&
		    in->msg.kind != HT_CTF_MSG_DISCARDED_PACKETS) {
			continue;
		}
		packet_cpu(&in->msg, &cpu);
		ret = ht__merge_stream(m, in, in->msg.stream, &cpu, &ws);
		if (ret) {
			return ret;
		}
		ret = ht__merge_loss(
		    m, in, ws, in->msg.kind == HT_CTF_MSG_DISCARDED_EVENTS,
		    in->msg.count, in->msg.has_range, in->msg.end_cycles);
		if (ret) {
			return ret;
		}
	}
}

static int emit(struct merge *m, struct input *in)
{
	const struct ht_ctf_event *ev = in->msg.event;
	struct ht__merge_cpu cpu;
	struct ht_ctf_wstream *ws;
	uint64_t ts;
	int ret;

	packet_cpu(&in->msg, &cpu);
	ret = ht__merge_stream(m, in, in->msg.stream, &cpu, &ws);
	if (!ret) {
		ret =
		    ht__merge_place(m, in, in->key, ev->cls->name,
				    in->msg.stream->path, ev->offset_bits, &ts);
	}
	if (ret) {
		return ret;
	}
	ret = ht_ctf_wstream_event(
	    ws, ev->cls->id, ts, ev->scope[HT_CTF_SCOPE_EVENT_COMMON_CONTEXT],
	    ev->scope[HT_CTF_SCOPE_EVENT_SPECIFIC_CONTEXT],
	    ev->scope[HT_CTF_SCOPE_EVENT_PAYLOAD]);
	if (ret) {
		snprintf(m->err, m->err_len, "%s",
			 ht_ctf_writer_last_error(m->w));
	}
	return ret;
}

/* The decoding path: every event of @in decoded, then encoded. */
static int decode_input(struct merge *m, struct input *in)
{
	int ret;

	for (;;) {
		ret = advance(m, in);
		if (ret == HT_EEOF) {
			return 0;
		}
		if (!ret) {
			ret = emit(m, in);
		}
		if (ret) {
			return ret;
		}
	}
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
	/* (a per-CPU input's streams are named by their packets) */
	in->copy = !in->core->per_cpu;
	for (i = 0; i < t->nr_stream_classes; i++) {
		if (!ht__merge_copy_align(t->stream_classes[i])) {
			in->copy = false;
		}
	}
	for (i = 0; i < t->nr_stream_classes; i++) {
		const struct ht_ctf_stream_class *sc = t->stream_classes[i];

		ret = ht_ctf_writer_add_stream_class(m->w, sc->event_context,
						     &in->sc_out[i]);
		/* the copied records' contexts and payloads in place (the
		 * decoding path writes the same layout) */
		if (!ret && in->copy) {
			ret = ht_ctf_writer_stream_class_header_align(
			    m->w, in->sc_out[i], ht__merge_copy_align(sc));
		}
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

/*
 * Every input, one after the other: an output stream's events come
 * from its input stream alone, so the order across cores changes
 * nothing in the files. HETRACE_MERGE_DECODE=1 in the environment
 * takes the decoding path for every core (to compare the two paths).
 */
static int merge_events(struct merge *m)
{
	const char *env = getenv("HETRACE_MERGE_DECODE");
	bool decode = env && *env && strcmp(env, "0") != 0;
	size_t i;
	int ret;

	for (i = 0; i < m->nr_in; i++) {
		struct input *in = &m->in[i];

		if (!decode && in->copy) {
			ret = ht__merge_copy_input(m, in);
		} else {
			ret = decode_input(m, in);
		}
		if (ret && ret != HT__MERGE_TOO_EARLY) {
			return ret;
		}
	}
	if (m->early.found) {
		snprintf(m->err, m->err_len, "%s", m->early.msg);
		return HT_ERANGE;
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
	if (!m.in) {
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
	return ret;
}
