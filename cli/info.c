/* SPDX-License-Identifier: MIT */
/* hetrace-command: 55 info: summarize CTF traces: clocks, streams, events, span, losses */
/*
 * hetrace info TRACE...: per trace and stream (core): clock, event
 * count, time span, packets, discarded events, lost packets, event
 * counts by type, bytes, the buffer-size estimate. Scans each stream
 * on its own (no time-ordered merge, no field values):
 * ht_ctf_stream_scan().
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "host/ctf/ctf-reader.h"
#include "common/error.h"
#include "common/json-writer.h"
#include "common/time-format.h"

struct class_count {
	const struct ht_ctf_event_class *cls;
	uint64_t count;
};

struct stream_stats {
	const struct ht_ctf_stream *stream;
	uint64_t events, packets, discarded, lost;
	uint64_t lost_before;	  /* of .lost: before the first packet */
	uint64_t content_bits;	  /* sum of the packets' content_size */
	uint64_t max_packet_bits; /* the largest packet_size */
	bool has_time;
	int64_t first_ns, last_ns;
	uint64_t first_cycles, last_cycles;
	/* records by class: [i] of stream_class->event_classes[i] */
	uint64_t *counts;
	size_t nr_counts;
	bool damaged;
	bool nomem;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s [OPTIONS] TRACE...\n\n"
		"Decodes every event of the CTF traces found under TRACE...\n"
		"and prints, per trace and stream: clock, event count, time\n"
		"span, packets, discarded events, lost packets, bytes, the\n"
		"most frequent event types, and the buffer a flight recorder\n"
		"needs: events/s, bytes/event and the seconds of history per\n"
		"KiB of buffer and per packet.\n\n"
		"options:\n"
		"  -n, --top N        show the N most frequent event types "
		"(default 10)\n"
		"  -k, --keep-going   skip damaged packets and go on\n"
		"  -j, --json         the same as one JSON object "
		"(docs/cli.md)\n" HT_CLI_RANGE_HELP
		"  -h, --help         this help\n",
		ht_cli_prog);
}

static int on_packet(void *arg, const struct ht_ctf_stream *s,
		     const struct ht_ctf_packet *pkt, uint64_t discarded,
		     uint64_t lost)
{
	struct stream_stats *st = arg;

	(void)s;
	if (!st->packets) {
		/* a first packet numbered N: packets 0 to N - 1 lost */
		st->lost_before = lost;
	}
	st->packets++;
	st->content_bits += pkt->content_bits;
	if (pkt->size_bits > st->max_packet_bits) {
		st->max_packet_bits = pkt->size_bits;
	}
	st->discarded += discarded;
	st->lost += lost;
	return 0;
}

static int on_tally(void *arg, const struct ht_ctf_stream *s,
		    const uint64_t *counts, size_t nr, uint64_t n,
		    uint64_t first_cycles, uint64_t last_cycles)
{
	struct stream_stats *st = arg;

	(void)s;
	if (nr != st->nr_counts) {
		uint64_t *c = realloc(st->counts, (nr ? nr : 1) * sizeof(*c));

		if (!c) {
			st->nomem = true;
			return HT_ENOMEM;
		}
		st->counts = c;
		st->nr_counts = nr;
	}
	if (nr) {
		memcpy(st->counts, counts, nr * sizeof(*counts));
	}
	st->events = n;
	st->first_cycles = first_cycles;
	st->last_cycles = last_cycles;
	return 0;
}

/*
 * Scans stream @s into @st. Returns HT_EXIT_OK, or HT_EXIT_FAIL after
 * a message (damage: the stream ends there, or goes on at its next
 * packet with --keep-going).
 */
static int scan_stream(struct ht_ctf_set *set, const struct ht_ctf_stream *s,
		       struct stream_stats *st)
{
	const struct ht_ctf_scan_ops ops = {
	    .packet = on_packet,
	    .tally = on_tally,
	    .arg = st,
	};
	int status = HT_EXIT_OK;
	int ret;

	st->stream = s;
	while ((ret = ht_ctf_stream_scan(set, s, &ops)) != 0) {
		if (st->nomem) {
			return ht_cli_nomem();
		}
		fprintf(stderr, "%s: %s\n", ht_cli_prog,
			ht_ctf_set_last_error(set));
		status = HT_EXIT_FAIL;
	}
	if (st->events && s->stream_class && s->stream_class->default_clock) {
		st->has_time = true;
		st->first_ns = ht_ctf_stream_cycles_to_ns(s, st->first_cycles);
		st->last_ns = ht_ctf_stream_cycles_to_ns(s, st->last_cycles);
	}
	return status;
}

static int cmp_count(const void *a, const void *b)
{
	const struct class_count *x = a, *y = b;

	if (x->count != y->count) {
		return x->count < y->count ? 1 : -1;
	}
	if (x->cls->id != y->cls->id) {
		return x->cls->id < y->cls->id ? -1 : 1;
	}
	return 0;
}

/* A timestamp in seconds, the form of every text view. */
static void print_ns(int64_t ns)
{
	char b[HT_TIME_FORMAT_LEN];

	printf("%s s", ht_time_format_timestamp(b, sizeof(b), ns));
}

static void print_uuid(const uint8_t *u)
{
	int i;

	for (i = 0; i < 16; i++) {
		printf("%02x%s", u[i],
		       (i == 3 || i == 5 || i == 7 || i == 9) ? "-" : "");
	}
}

/*
 * The flight-recorder estimate (docs/views.md): events/s over the span
 * (intervals between the first and last event), bytes per event with
 * the packet headers and contexts (content bytes / events: what a ring
 * holds per event), so the seconds of history one KiB of buffer and
 * one packet of the stream's size hold at that rate.
 */
/* A duration of @s seconds, to the ns, the form of every text view. */
static void print_secs(double s)
{
	char b[HT_TIME_FORMAT_LEN];

	printf("%s", ht_time_format_duration(
			 b, sizeof(b),
			 s >= 1.8e10 ? UINT64_MAX : (uint64_t)(s * 1e9 + 0.5)));
}

static void print_estimate(const struct stream_stats *st)
{
	double span_s, rate, per_event, bytes_s;

	if (!st->has_time || st->events < 2 || st->last_ns <= st->first_ns) {
		printf(
		    "    history: no estimate (fewer than 2 timed events)\n");
		return;
	}
	span_s = (double)(st->last_ns - st->first_ns) / 1e9;
	rate = (double)(st->events - 1) / span_s;
	per_event = (double)st->content_bits / 8.0 / (double)st->events;
	bytes_s = rate * per_event;
	printf("    rate: %.4g events/s, %.4g bytes/event (packet headers "
	       "included)\n",
	       rate, per_event);
	printf("    history: ");
	print_secs(1024.0 / bytes_s);
	printf(" per KiB of buffer, ");
	print_secs((double)(st->max_packet_bits / 8) / bytes_s);
	printf(" per packet of %" PRIu64 " bytes\n", st->max_packet_bits / 8);
}

static void print_stream(const struct ht_ctf_stream *s, struct stream_stats *st,
			 unsigned top)
{
	struct class_count *cc;
	size_t n = 0, i;
	const struct ht_ctf_stream_class *sc = s->stream_class;

	printf("  stream %s:", s->file_name);
	if (sc) {
		printf(" stream class %" PRIu64, sc->id);
	}
	if (s->has_instance_id) {
		printf(", instance %" PRIu64, s->instance_id);
	}
	printf(", %" PRIu64 " bytes\n", s->file_size);
	if (sc && sc->default_clock) {
		printf("    clock: %s\n", sc->default_clock->name);
	}
	printf("    packets: %" PRIu64 "\n", st->packets);
	printf("    events: %" PRIu64 "\n", st->events);
	if (st->has_time) {
		printf("    first event: ");
		print_ns(st->first_ns);
		printf(" (%" PRIu64 " cycles)\n    last event: ",
		       st->first_cycles);
		print_ns(st->last_ns);
		printf(" (%" PRIu64 " cycles)\n    span: ", st->last_cycles);
		print_secs((double)(st->last_ns - st->first_ns) / 1e9);
		printf("\n");
	}
	print_estimate(st);
	printf("    discarded events: %" PRIu64 "\n", st->discarded);
	printf("    lost packets: %" PRIu64, st->lost);
	if (st->lost_before) {
		printf(" (%" PRIu64 " before the first packet)",
		       st->lost_before);
	}
	printf("\n");
	if (st->damaged) {
		printf("    damaged: yes\n");
	}
	cc = calloc(st->nr_counts + 1, sizeof(*cc));
	if (!cc || !sc) {
		free(cc);
		return;
	}
	for (i = 0; i < st->nr_counts && i < sc->nr_event_classes; i++) {
		if (st->counts[i]) {
			cc[n].cls = sc->event_classes[i];
			cc[n].count = st->counts[i];
			n++;
		}
	}
	qsort(cc, n, sizeof(*cc), cmp_count);
	if (n) {
		printf("    event types: %zu (top %zu)\n", n,
		       n < top ? n : (size_t)top);
	}
	for (i = 0; i < n && i < top; i++) {
		printf("      %12" PRIu64 "  %s\n", cc[i].count,
		       cc[i].cls->name);
	}
	free(cc);
}

static void print_report(struct ht_ctf_set *set, struct stream_stats *stats,
			 unsigned top)
{
	size_t t, i, j, idx = 0;
	uint64_t total = 0, streams = 0;

	for (t = 0; t < ht_ctf_set_nr_traces(set); t++) {
		const struct ht_ctf_trace *tr = ht_ctf_set_trace(set, t);
		uint64_t bytes = 0;

		printf("trace %s\n", tr->path);
		if (tr->has_uuid) {
			printf("  uuid: ");
			print_uuid(tr->uuid);
			printf("\n");
		}
		printf("  byte order: %s\n", tr->byte_order == HT_CTF_LE
						 ? "little-endian"
						 : "big-endian");
		for (i = 0; i < tr->nr_env; i++) {
			const struct ht_ctf_env_entry *e = &tr->env[i];

			if (e->is_string) {
				printf("  env %s = \"%s\"\n", e->name, e->str);
			} else {
				printf("  env %s = %" PRId64 "\n", e->name,
				       e->i);
			}
		}
		for (i = 0; i < tr->nr_clocks; i++) {
			const struct ht_ctf_clock *c = tr->clocks[i];

			printf(
			    "  clock %s: %" PRIu64 " Hz, offset %" PRId64
			    " s + %" PRId64 " cycles, precision %" PRIu64 "%s",
			    c->name, c->freq_hz, c->offset_s, c->offset_cycles,
			    c->precision, c->absolute ? ", absolute" : "");
			if (c->has_uuid) {
				printf(", uuid ");
				print_uuid(c->uuid);
			}
			printf("\n");
		}
		for (j = 0; j < tr->nr_streams; j++) {
			const struct ht_ctf_stream *s = tr->streams[j];

			if (!ht_ctf_set_stream_selected(set, s)) {
				continue; /* --core left it out */
			}
			print_stream(s, &stats[s->index], top);
			total += stats[s->index].events;
			bytes += s->file_size;
			streams++;
			idx++;
		}
		printf("  bytes: %" PRIu64 "\n", bytes);
	}
	printf("total: %zu traces, %" PRIu64 " streams, %" PRIu64 " events\n",
	       ht_ctf_set_nr_traces(set), streams, total);
}

/* The 16 bytes of a UUID in its text form, into @buf (37 bytes). */
static void fmt_uuid(char *buf, const uint8_t *u)
{
	int i, n = 0;

	for (i = 0; i < 16; i++) {
		n += sprintf(buf + n, "%02x%s", u[i],
			     (i == 3 || i == 5 || i == 7 || i == 9) ? "-" : "");
	}
}

/* One stream as JSON (an item of a trace's "streams"). */
static void json_stream(struct ht_json *j, const struct ht_ctf_stream *s,
			const struct stream_stats *st, unsigned top)
{
	const struct ht_ctf_stream_class *sc = s->stream_class;
	struct class_count *cc;
	size_t n = 0, i;

	ht_json_item(j);
	ht_json_begin_object(j);
	ht_json_member_str(j, "file", s->file_name);
	if (sc) {
		ht_json_member_u64(j, "stream_class", sc->id);
	}
	if (s->has_instance_id) {
		ht_json_member_u64(j, "instance", s->instance_id);
	}
	ht_json_member_u64(j, "bytes", s->file_size);
	if (sc && sc->default_clock) {
		ht_json_member_str(j, "clock", sc->default_clock->name);
	}
	ht_json_member_u64(j, "packets", st->packets);
	ht_json_member_u64(j, "events", st->events);
	if (st->has_time) {
		ht_json_member_i64(j, "first_ns", st->first_ns);
		ht_json_member_i64(j, "last_ns", st->last_ns);
		ht_json_member_u64(j, "first_cycles", st->first_cycles);
		ht_json_member_u64(j, "last_cycles", st->last_cycles);
		ht_json_member_u64(j, "content_bytes", st->content_bits / 8);
		ht_json_member_u64(j, "max_packet_bytes",
				   st->max_packet_bits / 8);
	}
	ht_json_member_u64(j, "discarded_events", st->discarded);
	ht_json_member_u64(j, "lost_packets", st->lost);
	ht_json_member_u64(j, "lost_before_first", st->lost_before);
	ht_json_member_bool(j, "damaged", st->damaged);
	ht_json_key(j, "event_types");
	ht_json_begin_array(j);
	cc = calloc(st->nr_counts + 1, sizeof(*cc));
	for (i = 0; cc && sc && i < st->nr_counts && i < sc->nr_event_classes;
	     i++) {
		if (st->counts[i]) {
			cc[n].cls = sc->event_classes[i];
			cc[n].count = st->counts[i];
			n++;
		}
	}
	if (cc) {
		qsort(cc, n, sizeof(*cc), cmp_count);
	}
	for (i = 0; i < n && i < top; i++) {
		ht_json_item(j);
		ht_json_begin_object(j);
		ht_json_member_str(j, "name", cc[i].cls->name);
		ht_json_member_u64(j, "count", cc[i].count);
		ht_json_end_object(j);
	}
	free(cc);
	ht_json_end_array(j);
	ht_json_end_object(j);
}

/* print_report() as one JSON object on stdout (docs/cli.md). */
static void json_report(struct ht_ctf_set *set, struct stream_stats *stats,
			unsigned top)
{
	struct ht_json j = {.f = stdout};
	char uuid[40];
	size_t t, i;

	ht_json_begin_object(&j);
	ht_json_key(&j, "traces");
	ht_json_begin_array(&j);
	for (t = 0; t < ht_ctf_set_nr_traces(set); t++) {
		const struct ht_ctf_trace *tr = ht_ctf_set_trace(set, t);

		ht_json_item(&j);
		ht_json_begin_object(&j);
		ht_json_member_str(&j, "path", tr->path);
		if (tr->has_uuid) {
			fmt_uuid(uuid, tr->uuid);
			ht_json_member_str(&j, "uuid", uuid);
		}
		ht_json_member_str(&j, "byte_order",
				   tr->byte_order == HT_CTF_LE ? "little-endian"
							       : "big-endian");
		ht_json_key(&j, "env");
		ht_json_begin_object(&j);
		for (i = 0; i < tr->nr_env; i++) {
			const struct ht_ctf_env_entry *e = &tr->env[i];

			if (e->is_string) {
				ht_json_member_str(&j, e->name, e->str);
			} else {
				ht_json_member_i64(&j, e->name, e->i);
			}
		}
		ht_json_end_object(&j);
		ht_json_key(&j, "clocks");
		ht_json_begin_array(&j);
		for (i = 0; i < tr->nr_clocks; i++) {
			const struct ht_ctf_clock *c = tr->clocks[i];

			ht_json_item(&j);
			ht_json_begin_object(&j);
			ht_json_member_str(&j, "name", c->name);
			ht_json_member_u64(&j, "freq_hz", c->freq_hz);
			ht_json_member_i64(&j, "offset_s", c->offset_s);
			ht_json_member_i64(&j, "offset_cycles",
					   c->offset_cycles);
			ht_json_member_u64(&j, "precision", c->precision);
			ht_json_member_bool(&j, "absolute", c->absolute);
			ht_json_end_object(&j);
		}
		ht_json_end_array(&j);
		ht_json_key(&j, "streams");
		ht_json_begin_array(&j);
		for (i = 0; i < tr->nr_streams; i++) {
			const struct ht_ctf_stream *s = tr->streams[i];

			if (ht_ctf_set_stream_selected(set, s)) {
				json_stream(&j, s, &stats[s->index], top);
			}
		}
		ht_json_end_array(&j);
		ht_json_end_object(&j);
	}
	ht_json_end_array(&j);
	ht_json_end_object(&j);
	printf("\n");
}

static size_t count_streams(struct ht_ctf_set *set)
{
	size_t t, n = 0;

	for (t = 0; t < ht_ctf_set_nr_traces(set); t++) {
		n += ht_ctf_set_trace(set, t)->nr_streams;
	}
	return n;
}

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct ht_ctf_open_opts *opts,
			 uint64_t *top, bool *json, struct ht_cli_range *range,
			 struct ht_cli_args *traces)
{
	const struct ht_cli_opt table[] = {
	    HT_CLI_UINT('n', "top", top, 0, 1000000, "a number of event types"),
	    HT_CLI_BITS('k', "keep-going", &opts->flags, HT_CTF_KEEP_GOING),
	    HT_CLI_RANGE(range, 'c'),
	    HT_CLI_FLAG('j', "json", json),
	    HT_CLI_OPT_END,
	};
	int ret;

	ret =
	    ht_cli_parse(argc, argv, table, HT_CLI_WANT_TRACES, usage, traces);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	return ht_cli_range_prepare(range, traces->v, traces->nr, opts, false);
}

int cmd_info(int argc, char **argv)
{
	struct ht_ctf_open_opts opts = {.warn = ht_cli_warn};
	struct ht_cli_range range = {0};
	struct ht_cli_args traces;
	struct ht_ctf_set *set = NULL;
	struct stream_stats *stats = NULL;
	uint64_t top = 10;
	bool json = false;
	size_t nstreams, t, i;
	int ret, status = HT_EXIT_OK;

	ret = parse_options(argc, argv, &opts, &top, &json, &range, &traces);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	if (ht_cli_open_traces(&set, traces.v, traces.nr, &opts)) {
		return HT_EXIT_FAIL;
	}
	nstreams = count_streams(set);
	stats = calloc(nstreams + 1, sizeof(*stats));
	if (!stats) {
		ht_ctf_set_close(set);
		return ht_cli_nomem();
	}
	for (t = 0; t < ht_ctf_set_nr_traces(set); t++) {
		const struct ht_ctf_trace *tr = ht_ctf_set_trace(set, t);

		for (i = 0; i < tr->nr_streams; i++) {
			const struct ht_ctf_stream *s = tr->streams[i];

			if (!ht_ctf_set_stream_selected(set, s)) {
				continue;
			}
			if (scan_stream(set, s, &stats[s->index])) {
				status = HT_EXIT_FAIL;
			}
			if (stats[s->index].nomem) {
				goto out;
			}
		}
	}
	if (json) {
		json_report(set, stats, (unsigned)top);
	} else {
		print_report(set, stats, (unsigned)top);
	}
out:
	for (i = 0; i < nstreams; i++) {
		free(stats[i].counts);
	}
	free(stats);
	ht_ctf_set_close(set);
	return status;
}
