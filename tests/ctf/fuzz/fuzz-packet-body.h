/* SPDX-License-Identifier: MIT */
/*
 * The body of the packet decoder fuzz targets (fuzz-packet.c for CTF 1.8,
 * fuzz-ctf2-packet.c for CTF 2): each target includes this file once and
 * defines write_metadata(), which writes its fixed trace's metadata. The
 * input is that trace's stream file; every message is read, with
 * keep-going. Then the stream is scanned (ht_ctf_stream_scan()): it must
 * report the same records (class and time), losses and errors, in the
 * same order; then scanned again with .tally: the same counts by class,
 * the same first and last times and errors. Any difference aborts.
 */
#ifndef HT_TESTS_FUZZ_PACKET_BODY_H
#define HT_TESTS_FUZZ_PACKET_BODY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/ctf/ctf-reader.h"
#include "common/error.h"

/* Writes the target's metadata to @f (defined by the including target). */
static void write_metadata(FILE *f);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

#define MAX_EVENTS 100000

/* what ht_ctf_set_next() delivered, for the scan to compare with */
struct seen {
	const char *cls[MAX_EVENTS]; /* class names: the two sets differ */
	uint64_t cycles[MAX_EVENTS];
	size_t n, at;
	uint64_t packets, discarded, lost;
};

static struct seen seen;

static int on_packet(void *arg, const struct ht_ctf_stream *s,
		     const struct ht_ctf_packet *pkt, uint64_t discarded,
		     uint64_t lost)
{
	struct seen *w = arg;

	(void)s;
	(void)pkt;
	if (!w->packets--) {
		abort(); /* more packets than ht_ctf_set_next() gave */
	}
	w->discarded -= discarded;
	w->lost -= lost;
	return 0;
}

static int on_record(void *arg, const struct ht_ctf_event_class *cls,
		     uint64_t cycles)
{
	struct seen *w = arg;

	if (w->at >= w->n) {
		abort(); /* more records than EVENT messages */
	}
	if (strcmp(w->cls[w->at], cls->name) || w->cycles[w->at] != cycles) {
		abort();
	}
	w->at++;
	return 0;
}

/* the totals of the last .tally call */
struct tally {
	const struct ht_ctf_stream_class *sc;
	uint64_t counts[64];
	size_t nr;
	uint64_t n, first, last;
};

static int on_tally(void *arg, const struct ht_ctf_stream *s,
		    const uint64_t *counts, size_t nr, uint64_t n,
		    uint64_t first_cycles, uint64_t last_cycles)
{
	struct tally *t = arg;

	/* no counts (nr 0) before the first packet's records */
	if (nr > 64 || (!nr && n) ||
	    (nr &&
	     (!s->stream_class || nr != s->stream_class->nr_event_classes))) {
		abort();
	}
	t->sc = s->stream_class;
	if (nr) {
		memcpy(t->counts, counts, nr * sizeof(*counts));
	}
	t->nr = nr;
	t->n = n;
	t->first = first_cycles;
	t->last = last_cycles;
	return 0;
}

/* Scans @set's only stream with .tally: the totals must be @w's. */
static void check_tally(struct ht_ctf_set *set, const struct seen *w,
			int errors)
{
	const struct ht_ctf_scan_ops ops = {.tally = on_tally,
					    .arg = &(struct tally){0}};
	struct tally *t = ops.arg;
	size_t i, k;

	for (i = 0; i < ht_ctf_set_trace(set, 0)->nr_streams; i++) {
		const struct ht_ctf_stream *st =
		    ht_ctf_set_trace(set, 0)->streams[i];

		while (ht_ctf_stream_scan(set, st, &ops) != 0) {
			if (errors-- == 0) {
				abort();
			}
		}
	}
	if (errors || t->n != w->n ||
	    (w->n &&
	     (t->first != w->cycles[0] || t->last != w->cycles[w->n - 1]))) {
		abort();
	}
	for (k = 0; k < t->nr; k++) {
		uint64_t c = 0;

		for (i = 0; i < w->n; i++) {
			c += !strcmp(w->cls[i], t->sc->event_classes[k]->name);
		}
		if (c != t->counts[k]) {
			abort();
		}
	}
}

static void setup(void)
{
	char path[128];
	FILE *f;

	if (mkdtemp(strcpy(path, "/tmp/ht-fuzz-XXXXXX")) == NULL) {
		abort();
	}
	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	if (!f) {
		abort();
	}
	write_metadata(f);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ht_ctf_open_opts opts = {.flags = HT_CTF_KEEP_GOING};
	const char *paths[1];
	struct ht_ctf_scan_ops ops = {.packet = on_packet, .record = on_record};
	struct ht_ctf_set *set, *set2;
	struct ht_ctf_msg msg;
	char path[128], err[512];
	FILE *f;
	int ret, n = 0, errors = 0, n_errors;
	bool complete;
	size_t i;

	if (!dir[0]) {
		setup();
	}
	snprintf(path, sizeof(path), "%s/stream", dir);
	f = fopen(path, "wb");
	if (!f) {
		abort();
	}
	fwrite(data, 1, size, f);
	fclose(f);
	paths[0] = dir;
	if (ht_ctf_set_open(&set, paths, 1, &opts, err, sizeof(err))) {
		return 0;
	}
	memset(&seen, 0, sizeof(seen));
	while ((ret = ht_ctf_set_next(set, &msg)) != HT_EEOF &&
	       n < MAX_EVENTS) {
		n++;
		if (ret) {
			errors++;
			continue;
		}
		switch (msg.kind) {
		case HT_CTF_MSG_EVENT:
			seen.cls[seen.n] = msg.event->cls->name;
			seen.cycles[seen.n++] = msg.cycles;
			break;
		case HT_CTF_MSG_PACKET_BEGIN:
			seen.packets++;
			break;
		case HT_CTF_MSG_DISCARDED_EVENTS:
			seen.discarded += msg.count;
			break;
		case HT_CTF_MSG_DISCARDED_PACKETS:
			seen.lost += msg.count;
			break;
		default:
			break;
		}
	}
	complete = ret == HT_EEOF;
	n_errors = errors;
	if (!complete) {
		ht_ctf_set_close(set);
		return 0;
	}
	/* the class names live in the first set's metadata: it stays
	 * open until the scan of the second one is compared */
	if (ht_ctf_set_open(&set2, paths, 1, &opts, err, sizeof(err))) {
		abort();
	}
	ops.arg = &seen;
	ops.packet_fields = size && (data[size - 1] & 1);
	for (i = 0; i < ht_ctf_set_trace(set2, 0)->nr_streams; i++) {
		const struct ht_ctf_stream *st =
		    ht_ctf_set_trace(set2, 0)->streams[i];

		while ((ret = ht_ctf_stream_scan(set2, st, &ops)) != 0) {
			if (errors-- == 0) {
				abort(); /* more damage found */
			}
		}
	}
	if (seen.at != seen.n || errors || seen.packets || seen.discarded ||
	    seen.lost) {
		abort();
	}
	ht_ctf_set_close(set2);
	if (ht_ctf_set_open(&set2, paths, 1, &opts, err, sizeof(err))) {
		abort();
	}
	check_tally(set2, &seen, n_errors);
	ht_ctf_set_close(set2);
	ht_ctf_set_close(set);
	return 0;
}

#endif
