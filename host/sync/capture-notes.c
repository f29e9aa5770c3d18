/* SPDX-License-Identifier: MIT */
/*
 * The notes of a capture on what was wrong in it (capture-reader.h), and the
 * names of the problems they count.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture-reader-internal.h"
#include "common/buf.h"

#define MAX_NOTES 200

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
    [HT_CAPTURE_BAD_TIME] = "damaged timestamp",
};

const char *ht_capture_problem_name(enum ht_capture_problem p)
{
	return p < HT_CAPTURE_NR_PROBLEMS ? problem_names[p] : "?";
}

void ht__capture_reader_note(struct ht_capture_reader *cap, const char *fmt,
			     ...)
{
	va_list ap;
	char buf[1024];

	if (cap->notes.nr >= MAX_NOTES) {
		cap->notes_dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (ht_strv_add(&cap->notes, buf)) {
		cap->notes_dropped++;
	}
}

/* Whether scan note @a comes after @b: by time, stream, position, then
 * order. */
static bool key_after(const struct ht__capture_scan_note *a,
		      const struct ht__capture_scan_note *b)
{
	if (a->ns != b->ns) {
		return a->ns > b->ns;
	}
	if (a->stream != b->stream) {
		return a->stream > b->stream;
	}
	if (a->offset_bits != b->offset_bits) {
		return a->offset_bits > b->offset_bits;
	}
	return a->seq > b->seq;
}

/* Restores the max-heap of the scan notes from @i down. */
static void heap_down(struct ht__capture_scan_note *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct ht__capture_scan_note t;

		if (l < n && key_after(&h[l], &h[m])) {
			m = l;
		}
		if (r < n && key_after(&h[r], &h[m])) {
			m = r;
		}
		if (m == i) {
			return;
		}
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void heap_up(struct ht__capture_scan_note *h, size_t i)
{
	while (i) {
		size_t p = (i - 1) / 2;
		struct ht__capture_scan_note t;

		if (!key_after(&h[i], &h[p])) {
			return;
		}
		t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

void ht__capture_reader_note_at(struct ht_capture_reader *cap, int64_t ns,
				uint32_t stream, uint64_t offset_bits,
				const char *fmt, ...)
{
	struct ht__capture_scan_note n, *h = cap->scan_notes;
	va_list ap;
	char buf[1024];

	n.ns = ns;
	n.stream = stream;
	n.offset_bits = offset_bits;
	n.seq = cap->scan_notes_seq++;
	/* (the MAX_NOTES earliest are kept: the latest goes when full) */
	if (cap->nr_scan_notes == MAX_NOTES && !key_after(&h[0], &n)) {
		cap->notes_dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n.text = strdup(buf);
	if (!n.text) {
		cap->notes_dropped++;
		return;
	}
	if (cap->nr_scan_notes == MAX_NOTES) {
		free(h[0].text);
		h[0] = n;
		heap_down(h, cap->nr_scan_notes, 0);
		cap->notes_dropped++;
		return;
	}
	if (ht_array_reserve((void **)&cap->scan_notes, &cap->cap_scan_notes,
			     cap->nr_scan_notes + 1, sizeof(n))) {
		free(n.text);
		cap->notes_dropped++;
		return;
	}
	cap->scan_notes[cap->nr_scan_notes] = n;
	heap_up(cap->scan_notes, cap->nr_scan_notes++);
}

static int cmp_scan_note(const void *a, const void *b)
{
	const struct ht__capture_scan_note *x = a, *y = b;

	return key_after(x, y) ? 1 : key_after(y, x) ? -1 : 0;
}

void ht__capture_reader_notes_flush(struct ht_capture_reader *cap)
{
	size_t i;

	if (cap->nr_scan_notes > 1) {
		qsort(cap->scan_notes, cap->nr_scan_notes,
		      sizeof(*cap->scan_notes), cmp_scan_note);
	}
	for (i = 0; i < cap->nr_scan_notes; i++) {
		ht__capture_reader_note(cap, "%s", cap->scan_notes[i].text);
		free(cap->scan_notes[i].text);
	}
	cap->nr_scan_notes = 0;
}

void ht__capture_reader_notes_fini(struct ht_capture_reader *cap)
{
	size_t i;

	for (i = 0; i < cap->nr_scan_notes; i++) {
		free(cap->scan_notes[i].text);
	}
	free(cap->scan_notes);
	cap->scan_notes = NULL;
	cap->nr_scan_notes = 0;
	ht_strv_fini(&cap->notes);
}

size_t ht_capture_reader_nr_notes(const struct ht_capture_reader *cap)
{
	return cap->notes.nr;
}

const char *ht_capture_reader_note(const struct ht_capture_reader *cap,
				   size_t i)
{
	return i < cap->notes.nr ? cap->notes.items[i] : NULL;
}

uint64_t ht_capture_reader_nr_notes_dropped(const struct ht_capture_reader *cap)
{
	return cap->notes_dropped;
}
