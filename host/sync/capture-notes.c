/* SPDX-License-Identifier: MIT */
/*
 * The notes of a capture on what was wrong in it (capture-reader.h), and the
 * names of the problems they count.
 */
#include <stdarg.h>
#include <stdio.h>

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

void ht__capture_reader_notes_fini(struct ht_capture_reader *cap)
{
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
