/* SPDX-License-Identifier: MIT */
/*
 * The LTTng kernel trace's master and clock (sync-kernel.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "sync-kernel.h"

/* The default clock of @t's stream classes, or NULL. */
static const struct ht_ctf_clock *trace_clock(const struct ht_ctf_trace *t)
{
	size_t i;

	for (i = 0; i < t->nr_stream_classes; i++) {
		if (t->stream_classes[i]->default_clock) {
			return t->stream_classes[i]->default_clock;
		}
	}
	return NULL;
}

/* The clock's origin in cycles, for comparing two clocks. */
static __int128 origin(const struct ht_ctf_clock *k)
{
	return (__int128)k->offset_s * (__int128)k->freq_hz + k->offset_cycles;
}

static long pick(const struct ht_sync_run *run, const char *core_name)
{
	size_t i;
	long found = -1;

	for (i = 0; i < run->nr_cores; i++) {
		if (run->cores[i].core->is_lttng) {
			return (long)i;
		}
	}
	for (i = 0; i < run->nr_cores; i++) {
		const struct ht_capture_core *c = run->cores[i].core;

		if (core_name ? !strcmp(c->name, core_name) : c->is_master) {
			if (found >= 0) {
				return -2; /* two masters */
			}
			found = (long)i;
		}
	}
	return found;
}

int ht_sync_kernel_master(const struct ht_sync_run *run,
			  const struct ht_ctf_trace *kernel,
			  const char *core_name, size_t *master, char *err,
			  size_t err_len)
{
	const struct ht_ctf_clock *kk = trace_clock(kernel), *mk;
	const struct ht_capture_core *m;
	long i = pick(run, core_name);
	const char *what = NULL;

	if (i < 0) {
		snprintf(err, err_len,
			 "%s: LTTng kernel trace: %s; give the master it was "
			 "recorded on with --lttng-core",
			 kernel->path,
			 core_name ? "no core of that name"
			 : i == -2 ? "the capture has several masters"
				   : "the capture has no master");
		return HT_EINVAL;
	}
	m = run->cores[i].core;
	mk = m->clock;
	if (!kk || !mk) {
		snprintf(err, err_len,
			 "%s: LTTng kernel trace: %s has no clock: its "
			 "events cannot be placed on master %s's clock",
			 kernel->path, kk ? m->name : "it", m->name);
		return HT_EFORMAT;
	}
	if (strcmp(kk->name, mk->name)) {
		what = "name";
	} else if (kk->freq_hz != mk->freq_hz) {
		what = "frequency";
	} else if (origin(kk) != origin(mk)) {
		what = "offset";
	}
	if (what) {
		snprintf(err, err_len,
			 "%s/metadata: the LTTng kernel trace is not on master "
			 "%s's clock: its %s differs (kernel clock %s, %" PRIu64
			 " Hz, offset_s = %" PRId64 ", offset = %" PRId64
			 "; master clock %s, %" PRIu64
			 " Hz, offset_s = %" PRId64 ", offset = %" PRId64
			 "); record it on the master in the same session "
			 "(docs/lttng.md)",
			 kernel->path, m->name, what, kk->name, kk->freq_hz,
			 kk->offset_s, kk->offset_cycles, mk->name, mk->freq_hz,
			 mk->offset_s, mk->offset_cycles);
		return HT_EFORMAT;
	}
	*master = (size_t)i;
	return 0;
}
