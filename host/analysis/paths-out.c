/* SPDX-License-Identifier: MIT */
/* The path analysis as text and as JSON (docs/paths.md). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/json-writer.h"
#include "common/time-format.h"
#include "paths-internal.h"

const char *ht_paths_format_ns(char *buf, size_t len, uint64_t ns)
{
	return ht_time_format_duration(buf, len, ns);
}

/* A time from the clock's origin as seconds: "12.000345678". */
static const char *format_time(char *buf, size_t len, int64_t ns)
{
	return ht_time_format_timestamp(buf, len, ns);
}

#define F(i, v) ht_paths_format_ns(b[i], sizeof(b[i]), (v))

static void write_stat_cols(FILE *out, const struct ht_paths_stat *st)
{
	char b[8][32];

	if (!st->count) {
		fprintf(out, " %11s %11s %11s %11s", "-", "-", "-", "-");
		return;
	}
	fprintf(out, " %11s %11s %11s %11s", F(0, st->min_ns),
		F(1, (uint64_t)(st->mean_ns + 0.5)), F(2, st->max_ns),
		F(3, st->p99_ns));
}

static void write_during(FILE *out, const struct ht_path *path, uint64_t during)
{
	size_t k;
	bool first = true;

	for (k = 0; k < path->nr_activities && k < 64; k++) {
		if (during & (1ull << k)) {
			fprintf(out, "%s%s", first ? " (during " : ", ",
				path->activities[k].name);
			first = false;
		}
	}
	if (!first) {
		fputc(')', out);
	}
}

/* " on dsp1 for 2.000 ms and dsp2 for 1.000 ms": per core (in display
 * order), never summed: the same task on two cores ran meanwhile on
 * each, and a sum may exceed the interval. */
static void write_per_core(FILE *out, const struct ht_paths_result *res,
			   const uint64_t *core_ns)
{
	char b[1][32];
	size_t c, nc = 0, k = 0;

	for (c = 0; c < res->nr_cores; c++) {
		nc += core_ns[c] != 0;
	}
	for (c = 0; c < res->nr_cores; c++) {
		if (!core_ns[c]) {
			continue;
		}
		k++;
		fprintf(out, "%s%s for %s",
			k == 1	  ? ""
			: k == nc ? " and "
				  : ", ",
			res->cores[c], F(0, core_ns[c]));
	}
}

static void write_worst(FILE *out, const struct ht_paths_result *res,
			const struct ht_paths_path_result *pr,
			const struct ht_paths_worst *w)
{
	const struct ht_paths_instance *in = &pr->instances[w->instance];
	char b[8][32];
	size_t i;

	fprintf(out, "  %s %" PRIu64 ": response %s", pr->path->name,
		in->number, F(0, in->response_ns));
	if (in->deadline == HT_PATHS_DL_MISSED) {
		fprintf(out, ", deadline missed by %s",
			F(0, (uint64_t)in->lateness_ns));
	} else if (in->deadline == HT_PATHS_DL_MET) {
		fprintf(out, ", deadline met (slack %s)",
			F(0, (uint64_t)-in->lateness_ns));
	}
	fputc('\n', out);
	if (!res->has_states) {
		fprintf(out, "    (no task_switch or isr events: the "
			     "interference is not known)\n");
		return;
	}
	if (!w->nr_blame && !w->nr_blocked) {
		fprintf(out, "    nothing else ran on its cores meanwhile\n");
		return;
	}
	for (i = 0; i < w->nr_blame; i++) {
		const struct ht_paths_blame *bl = &w->blame[i];

		fprintf(out, "    %s %s ", bl->who,
			bl->is_isr ? "interrupted" : "preempted");
		write_per_core(out, res, bl->core_ns);
		write_during(out, pr->path, bl->during);
		fputc('\n', out);
	}
	for (i = 0; i < w->nr_blocked; i++) {
		const struct ht_paths_blocked *bk = &w->blocked[i];

		fprintf(out, "    %s blocked on 0x%" PRIx64 " (%s) on ",
			bk->task, bk->object, bk->object_kind);
		write_per_core(out, res, bk->core_ns);
		write_during(out, pr->path, bk->during);
		fputc('\n', out);
	}
	if (w->states_dropped) {
		fprintf(out, "    (too many task states to follow: the time "
			     "blocked is counted as preemption)\n");
	}
}

static const char *dl_text(const struct ht_paths_instance *in, char *buf,
			   size_t len)
{
	char t[32];

	switch (in->deadline) {
	case HT_PATHS_DL_MET:
		snprintf(buf, len, "met (slack %s)",
			 ht_paths_format_ns(t, sizeof(t),
					    (uint64_t)-in->lateness_ns));
		break;
	case HT_PATHS_DL_MISSED:
		snprintf(buf, len, "MISSED by %s",
			 ht_paths_format_ns(t, sizeof(t),
					    (uint64_t)in->lateness_ns));
		break;
	case HT_PATHS_DL_UNKNOWN:
		snprintf(buf, len, "incomplete");
		break;
	default:
		snprintf(buf, len, "%s", in->complete ? "-" : "incomplete");
		break;
	}
	return buf;
}

static bool is_worst(const struct ht_paths_path_result *pr, size_t i)
{
	size_t k;

	for (k = 0; k < pr->nr_worst; k++) {
		if (pr->worst[k].instance == i) {
			return true;
		}
	}
	return false;
}

int ht_paths_write_text(const struct ht_paths_result *res, FILE *out,
			bool all_instances)
{
	char b[8][32], t1[40], t2[40], dl[64];
	size_t i, k, j;

	fprintf(out, "%" PRIu64 " events, %" PRIu64 " path events; cores:",
		res->events, res->path_events);
	for (i = 0; i < res->nr_cores; i++) {
		fprintf(out, "%s %s", i ? "," : "", res->cores[i]);
	}
	fprintf(out, "%s\n", res->nr_cores ? "" : " none");
	for (i = 0; i < res->desc->nr_paths; i++) {
		const struct ht_paths_path_result *pr = &res->paths[i];
		const struct ht_path *path = pr->path;
		size_t shown = 0;

		fprintf(out, "\npath %s: %zu instances, %zu complete",
			path->name, pr->nr_instances,
			pr->nr_instances - (size_t)pr->incomplete);
		if (path->has_deadline) {
			fprintf(out,
				"; deadline %s: %" PRIu64 " met, %" PRIu64
				" missed",
				F(0, path->deadline_ns), pr->met, pr->missed);
		}
		if (path->has_period) {
			fprintf(out, "; period %s", F(0, path->period_ns));
		}
		fputc('\n', out);
		if (pr->no_trigger) {
			fprintf(out,
				"  %" PRIu64 " instances without their "
				"trigger (%s)\n",
				pr->no_trigger, path->trigger);
		}
		fprintf(out, "  %-24s %11s %11s %11s %11s\n", "", "min", "mean",
			"max", "p99");
		fprintf(out, "  %-24s", "response time");
		write_stat_cols(out, &pr->response);
		fputc('\n', out);
		if (path->has_period) {
			fprintf(out, "  %-24s", "release delay");
			write_stat_cols(out, &pr->jitter);
			fputc('\n', out);
		}
		fprintf(out, "\n  %-16s %-5s %5s  %-47s  %s\n", "activity",
			"join", "ran", "waiting time: min, mean, max, p99",
			"execution time: min, mean, max, p99");
		for (k = 0; k < path->nr_activities; k++) {
			const struct ht_path_activity *a = &path->activities[k];
			const struct ht_paths_activity_stats *as = &pr->acts[k];

			fprintf(out, "  %-16s %-5s %5" PRIu64, a->name,
				!a->nr_preds		      ? "-"
				: a->nr_preds == 1	      ? "seq"
				: a->join == HT_PATH_JOIN_AND ? "and"
							      : "or",
				pr->nr_instances - as->not_run);
			write_stat_cols(out, &as->wait);
			fputc(' ', out);
			write_stat_cols(out, &as->exec);
			if (as->early) {
				fprintf(out,
					"  (%" PRIu64 " began before "
					"their predecessors ended)",
					as->early);
			}
			fputc('\n', out);
		}
		fprintf(out, "\n  %-10s %-22s %-22s %11s  %s\n", "instance",
			"start (s)", "end (s)", "response", "deadline");
		for (j = 0; j < pr->nr_instances; j++) {
			const struct ht_paths_instance *in = &pr->instances[j];

			if (!all_instances &&
			    in->deadline != HT_PATHS_DL_MISSED &&
			    in->complete && !is_worst(pr, j)) {
				continue;
			}
			shown++;
			fprintf(out, "  %-10" PRIu64 " %-22s %-22s %11s  %s\n",
				in->number,
				format_time(t1, sizeof(t1), in->start_ns),
				in->complete
				    ? format_time(t2, sizeof(t2), in->end_ns)
				    : "-",
				in->complete ? F(0, in->response_ns) : "-",
				dl_text(in, dl, sizeof(dl)));
		}
		if (shown < pr->nr_instances) {
			fprintf(out,
				"  (%zu more instances met their deadline: "
				"--all shows every instance)\n",
				pr->nr_instances - shown);
		}
		if (pr->nr_worst) {
			fprintf(out, "\n  worst instances:\n");
			for (k = 0; k < pr->nr_worst; k++) {
				write_worst(out, res, pr, &pr->worst[k]);
			}
		}
	}
	if (res->unmatched_begin || res->unmatched_end ||
	    res->repeated_trigger || res->unknown_path ||
	    res->unknown_activity || res->read_errors) {
		fprintf(out,
			"\nanomalies: %" PRIu64 " unmatched begins, %" PRIu64
			" unmatched ends, %" PRIu64
			" repeated triggers, %" PRIu64
			" events of undescribed paths, %" PRIu64
			" of undescribed activities, %" PRIu64 " read errors\n",
			res->unmatched_begin, res->unmatched_end,
			res->repeated_trigger, res->unknown_path,
			res->unknown_activity, res->read_errors);
	}
	for (i = 0; i < res->nr_notes; i++) {
		fprintf(out, "  %s\n", res->notes[i]);
	}
	if (res->nr_notes_dropped) {
		fprintf(out, "  (%" PRIu64 " more)\n", res->nr_notes_dropped);
	}
	return ferror(out) ? HT_EIO : 0;
}

/* A statistic as a member "@name": count, and min, mean, max, p99 when
 * there is something to count. */
static void json_stat(struct ht_json *j, const char *name,
		      const struct ht_paths_stat *st)
{
	ht_json_key(j, name);
	ht_json_begin_object(j);
	ht_json_member_u64(j, "count", st->count);
	if (st->count) {
		ht_json_member_u64(j, "min", st->min_ns);
		ht_json_key(j, "mean");
		ht_json_printf(j, "%.1f", st->mean_ns);
		ht_json_member_u64(j, "max", st->max_ns);
		ht_json_member_u64(j, "p99", st->p99_ns);
	}
	ht_json_end_object(j);
}

static const char *const dl_names[] = {
    [HT_PATHS_DL_NONE] = "none",
    [HT_PATHS_DL_MET] = "met",
    [HT_PATHS_DL_MISSED] = "missed",
    [HT_PATHS_DL_UNKNOWN] = "unknown",
};

/* A time, or null when it is not known. */
static void json_time(struct ht_json *j, bool known, int64_t ns)
{
	if (known) {
		ht_json_i64(j, ns);
	} else {
		ht_json_raw(j, "null");
	}
}

/* Per activity: [core, ready|null, begin, end|null], [-1, ready, null,
 * null] when it was ready and never ran, or null. */
static void json_run(struct ht_json *j, const struct ht_paths_run *r)
{
	if (!(r->flags & HT_PATHS_RUN_BEGIN)) {
		if (r->flags & HT_PATHS_RUN_READY) {
			ht_json_printf(j, "[-1,%" PRId64 ",null,null]",
				       r->ready_ns);
		} else {
			ht_json_raw(j, "null");
		}
		return;
	}
	ht_json_printf(j, "[%d,", r->core);
	json_time(j,
		  (r->flags & HT_PATHS_RUN_READY) &&
		      !(r->flags & HT_PATHS_RUN_EARLY),
		  r->ready_ns);
	ht_json_printf(j, ",%" PRId64 ",", r->begin_ns);
	json_time(j, r->flags & HT_PATHS_RUN_END, r->end_ns);
	ht_json_raw(j, "]");
}

static void json_instance(struct ht_json *j,
			  const struct ht_paths_path_result *pr,
			  const struct ht_paths_instance *in)
{
	size_t k;

	ht_json_begin_object(j);
	ht_json_member_u64(j, "n", in->number);
	ht_json_member_i64(j, "start", in->start_ns);
	if (in->has_trigger) {
		ht_json_member_i64(j, "trigger", in->trigger_ns);
	}
	if (in->has_firing) {
		ht_json_member_i64(j, "firing", in->firing_ns);
	}
	if (in->complete) {
		ht_json_member_i64(j, "end", in->end_ns);
		ht_json_member_u64(j, "response", in->response_ns);
	}
	ht_json_member_bool(j, "complete", in->complete);
	ht_json_member_str(j, "deadline", dl_names[in->deadline]);
	if (in->deadline == HT_PATHS_DL_MET ||
	    in->deadline == HT_PATHS_DL_MISSED) {
		ht_json_member_i64(j, "lateness", in->lateness_ns);
	}
	ht_json_key(j, "runs");
	ht_json_begin_array(j);
	for (k = 0; k < pr->path->nr_activities; k++) {
		ht_json_item(j);
		json_run(j, &in->runs[k]);
	}
	ht_json_end_array(j);
	ht_json_end_object(j);
}

/* The strings @names as an array. */
static void json_names(struct ht_json *j, char *const *names, size_t n)
{
	size_t i;

	ht_json_begin_array(j);
	for (i = 0; i < n; i++) {
		ht_json_item(j);
		ht_json_str(j, names[i]);
	}
	ht_json_end_array(j);
}

static void json_activity(struct ht_json *j, const struct ht_path *path,
			  const struct ht_paths_path_result *pr, size_t k)
{
	const struct ht_path_activity *a = &path->activities[k];
	size_t p;

	ht_json_begin_object(j);
	ht_json_member_str(j, "name", a->name);
	ht_json_member_str(j, "join",
			   a->join == HT_PATH_JOIN_AND ? "and" : "or");
	ht_json_key(j, "after");
	ht_json_begin_array(j);
	for (p = 0; p < a->nr_preds; p++) {
		ht_json_item(j);
		ht_json_str(j, path->activities[a->preds[p]].name);
	}
	ht_json_end_array(j);
	ht_json_member_u64(j, "not_run", pr->acts[k].not_run);
	ht_json_member_u64(j, "early", pr->acts[k].early);
	json_stat(j, "wait", &pr->acts[k].wait);
	json_stat(j, "exec", &pr->acts[k].exec);
	ht_json_end_object(j);
}

/* "cores": the time per core of the result, "during": the activities
 * (bit i: activity i) it overlapped. */
static void json_cores_during(struct ht_json *j,
			      const struct ht_paths_result *res,
			      const struct ht_path *path,
			      const uint64_t *core_ns, uint64_t during)
{
	size_t c;

	ht_json_key(j, "cores");
	ht_json_begin_object(j);
	for (c = 0; c < res->nr_cores; c++) {
		if (core_ns[c]) {
			ht_json_member_u64(j, res->cores[c], core_ns[c]);
		}
	}
	ht_json_end_object(j);
	ht_json_key(j, "during");
	ht_json_begin_array(j);
	for (c = 0; c < path->nr_activities && c < 64; c++) {
		if (during & (1ull << c)) {
			ht_json_item(j);
			ht_json_str(j, path->activities[c].name);
		}
	}
	ht_json_end_array(j);
}

/* Who delayed a worst instance: per core, and during which
 * activities. */
static void json_blame(struct ht_json *j, const struct ht_paths_result *res,
		       const struct ht_path *path,
		       const struct ht_paths_blame *b)
{
	ht_json_begin_object(j);
	ht_json_member_str(j, "who", b->who);
	ht_json_member_bool(j, "isr", b->is_isr);
	ht_json_member_str(j, "kind", b->is_isr ? "interrupted" : "preempted");
	ht_json_member_u64(j, "ns", b->total_ns);
	json_cores_during(j, res, path, b->core_ns, b->during);
	ht_json_end_object(j);
}

/* What an activity's task was blocked on: per core, and during which
 * activities. */
static void json_blocked(struct ht_json *j, const struct ht_paths_result *res,
			 const struct ht_path *path,
			 const struct ht_paths_blocked *b)
{
	ht_json_begin_object(j);
	ht_json_member_str(j, "task", b->task);
	ht_json_member_u64(j, "object", b->object);
	ht_json_member_str(j, "object_kind", b->object_kind);
	ht_json_member_u64(j, "ns", b->total_ns);
	json_cores_during(j, res, path, b->core_ns, b->during);
	ht_json_end_object(j);
}

/* The instances, evenly thinned to @max (the worst ones always). */
static void json_instances(struct ht_json *j,
			   const struct ht_paths_path_result *pr, size_t max)
{
	size_t stride = 1, shown = 0, i;

	if (max && pr->nr_instances > max) {
		stride = (pr->nr_instances + max - 1) / max;
	}
	ht_json_key(j, "instances");
	ht_json_begin_array(j);
	for (i = 0; i < pr->nr_instances; i++) {
		if (i % stride && !is_worst(pr, i)) {
			continue;
		}
		ht_json_item(j);
		ht_json_raw(j, "\n");
		json_instance(j, pr, &pr->instances[i]);
		shown++;
	}
	ht_json_end_array(j);
	ht_json_member_u64(j, "instances_shown", shown);
}

static void json_path(struct ht_json *j, const struct ht_paths_result *res,
		      const struct ht_paths_path_result *pr,
		      size_t max_instances)
{
	const struct ht_path *path = pr->path;
	size_t k, b;

	ht_json_begin_object(j);
	ht_json_member_str(j, "name", path->name);
	ht_json_member_str(j, "trigger", path->trigger);
	if (path->has_period) {
		ht_json_member_u64(j, "period_ns", path->period_ns);
	}
	if (path->has_deadline) {
		ht_json_member_u64(j, "deadline_ns", path->deadline_ns);
	}
	ht_json_member_u64(j, "instances_count", pr->nr_instances);
	ht_json_member_u64(j, "met", pr->met);
	ht_json_member_u64(j, "missed", pr->missed);
	ht_json_member_u64(j, "incomplete", pr->incomplete);
	ht_json_member_u64(j, "no_trigger", pr->no_trigger);
	json_stat(j, "response", &pr->response);
	json_stat(j, "release_delay", &pr->jitter);
	ht_json_key(j, "activities");
	ht_json_begin_array(j);
	for (k = 0; k < path->nr_activities; k++) {
		ht_json_item(j);
		ht_json_raw(j, "\n");
		json_activity(j, path, pr, k);
	}
	ht_json_end_array(j);
	ht_json_key(j, "worst");
	ht_json_begin_array(j);
	for (k = 0; k < pr->nr_worst; k++) {
		const struct ht_paths_worst *w = &pr->worst[k];

		ht_json_item(j);
		ht_json_raw(j, "\n");
		ht_json_begin_object(j);
		ht_json_member_u64(j, "instance",
				   pr->instances[w->instance].number);
		ht_json_key(j, "blame");
		ht_json_begin_array(j);
		for (b = 0; b < w->nr_blame; b++) {
			ht_json_item(j);
			json_blame(j, res, path, &w->blame[b]);
		}
		ht_json_end_array(j);
		ht_json_key(j, "blocked");
		ht_json_begin_array(j);
		for (b = 0; b < w->nr_blocked; b++) {
			ht_json_item(j);
			json_blocked(j, res, path, &w->blocked[b]);
		}
		ht_json_end_array(j);
		ht_json_member_bool(j, "states_dropped", w->states_dropped);
		ht_json_end_object(j);
	}
	ht_json_end_array(j);
	json_instances(j, pr, max_instances);
	ht_json_end_object(j);
}

int ht_paths_write_json(const struct ht_paths_result *res, FILE *out)
{
	return ht_paths_write_json_max(res, out, SIZE_MAX);
}

int ht_paths_write_json_max(const struct ht_paths_result *res, FILE *out,
			    size_t max_instances)
{
	struct ht_json j = {.f = out};
	size_t i;

	ht_json_begin_object(&j);
	ht_json_member_str(&j, "file", res->desc->file);
	ht_json_member_u64(&j, "events", res->events);
	ht_json_member_u64(&j, "path_events", res->path_events);
	ht_json_member_bool(&j, "has_states", res->has_states);
	ht_json_key(&j, "cores");
	json_names(&j, res->cores, res->nr_cores);
	ht_json_key(&j, "anomalies");
	ht_json_begin_object(&j);
	ht_json_member_u64(&j, "unmatched_begin", res->unmatched_begin);
	ht_json_member_u64(&j, "unmatched_end", res->unmatched_end);
	ht_json_member_u64(&j, "repeated_trigger", res->repeated_trigger);
	ht_json_member_u64(&j, "unknown_path", res->unknown_path);
	ht_json_member_u64(&j, "unknown_activity", res->unknown_activity);
	ht_json_member_u64(&j, "read_errors", res->read_errors);
	ht_json_end_object(&j);
	ht_json_key(&j, "notes");
	json_names(&j, res->notes, res->nr_notes);
	ht_json_key(&j, "paths");
	ht_json_begin_array(&j);
	for (i = 0; i < res->desc->nr_paths; i++) {
		ht_json_item(&j);
		ht_json_raw(&j, "\n");
		json_path(&j, res, &res->paths[i], max_instances);
	}
	ht_json_end_array(&j);
	ht_json_end_object(&j);
	ht_json_raw(&j, "\n");
	return ferror(out) ? HT_EIO : 0;
}
