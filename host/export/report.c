/* SPDX-License-Identifier: MIT */
/*
 * The HTML report (report.h, docs/report.md): the inputs are read and
 * checked, the timelines built (report-timeline.h), the path analysis
 * (paths.h) run on its own passes, then the page is written: the
 * styles and the markup, the data as one JSON object, the viewer
 * (host/export/report/report.js). The page's files are built into the
 * binary (common/embedded.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "common/embedded.h"
#include "common/error.h"
#include "common/file.h"
#include "common/json-check.h"
#include "common/json-writer.h"
#include "host/analysis/func-names.h"
#include "host/analysis/path-desc.h"
#include "host/analysis/paths.h"
#include "host/analysis/states.h"
#include "report-timeline.h"
#include "report.h"

#define MAX_SYNC_BYTES (64u << 20)
#define MAX_PATH_INSTANCES 20000
#define MAX_DAMAGE_NOTES 20
/* the event table's first guess of the bytes of an event */
#define EVENT_TABLE_BYTES 80

struct note_sink {
	struct report *r;
	const struct ht_report_opts *opts;
};

/* One report being made: its inputs, what is built from them. */
struct job {
	const char *const *traces;
	size_t nr_traces;
	const struct ht_report_opts *opts;
	size_t budget, max_flows;
	struct report r;
	struct note_sink sink;
	struct ht_states *st; /* the model of pass 2, for its totals */
	struct ht_states_msgs msgs;
	struct ht_path_desc *desc;
	struct ht_paths_opts popts;
	struct ht_paths_result *pres;
	struct ht_func_names *fnames;
	char *sync_text, *paths_json;
	size_t sync_size, paths_size, nr_cores;
	uint64_t events;
};

/* Raw JSON text inside <script>: "</" becomes "<\/" (valid JSON, as
 * "</" can only appear inside strings). */
static void write_script_safe(FILE *out, const char *p, size_t n)
{
	size_t i, from = 0;

	for (i = 0; i + 1 < n; i++) {
		if (p[i] == '<' && p[i + 1] == '/') {
			fwrite(p + from, 1, i + 1 - from, out);
			fputc('\\', out);
			from = i + 1;
		}
	}
	fwrite(p + from, 1, n - from, out);
}

/* A note on the function names: into the page's notes and to the
 * caller's warn callback. */
static void note_cb(void *arg, const char *text)
{
	struct note_sink *ns = arg;
	struct ht_json j = {.b = &ns->r->notes, .flags = HT_JSON_HTML};

	if (ns->r->notes.len) {
		ht_json_raw(&j, ",");
	}
	ht_json_str(&j, text);
	if (ns->opts && ns->opts->warn) {
		ns->opts->warn(ns->opts->warn_arg, text);
	}
}

/* A damaged part of a trace (skipped): told, and noted in the page
 * (the first ones). */
static void damage_cb(void *arg, const char *text)
{
	struct note_sink *ns = arg;

	if (ns->r->reader_errors + ns->r->damaged_times <= MAX_DAMAGE_NOTES) {
		note_cb(arg, text);
	} else if (ns->opts && ns->opts->warn) {
		ns->opts->warn(ns->opts->warn_arg, text);
	}
}

/* The inputs that can be wrong come first, to fail before the work:
 * the sync report, the path description, the ELF files. */
static int read_inputs(struct job *jb, char *err, size_t err_len)
{
	const struct ht_report_opts *opts = jb->opts;
	size_t i;
	int ret;

	if (opts && opts->sync_file) {
		char msg[256];

		ret =
		    ht_file_read(opts->sync_file, MAX_SYNC_BYTES,
				 &jb->sync_text, &jb->sync_size, err, err_len);
		if (ret) {
			return ret;
		}
		ret = ht_json_check(jb->sync_text, jb->sync_size, msg,
				    sizeof(msg));
		if (ret) {
			snprintf(err, err_len, "%s:%s", opts->sync_file, msg);
			return ret;
		}
	}
	if (opts && opts->paths_file) {
		ret = ht_path_desc_load(&jb->desc, opts->paths_file, err,
					err_len);
		if (ret) {
			return ret;
		}
	}
	if (opts && opts->nr_elfs) {
		ret = ht_func_names_create(&jb->fnames);
		for (i = 0; !ret && i < opts->nr_elfs; i++) {
			ret = ht_func_names_add(jb->fnames, opts->elfs[i], err,
						err_len);
		}
		if (ret) {
			return ret;
		}
	}
	return 0;
}

/* Pass 1: the cores, the span, the segments to plan the levels. */
static int measure(struct job *jb, char *err, size_t err_len)
{
	struct report *r = &jb->r;
	bool has_time = false;
	size_t i;
	int ret;

	if (jb->desc) {
		/* the paths' instances from this pass; their interference
		 * from pass 2's states model when it reads what that pass
		 * would (every core, the whole time), else in a pass of its
		 * own */
		jb->popts.select = jb->opts->select;
		jb->popts.no_interference = !jb->opts->select;
		ret = ht_paths_reader_create(jb->desc, &jb->popts,
					     &r->paths_reader);
		if (ret) {
			return ret;
		}
	}
	ret = ht__report_pass(r, jb->traces, jb->nr_traces, jb->fnames, &jb->st,
			      err, err_len);
	if (ret) {
		return ret;
	}
	if (jb->fnames) {
		ht_func_names_ready(jb->fnames, note_cb, &jb->sink);
	}
	jb->nr_cores = ht_states_nr_cores(jb->st);
	r->t0 = INT64_MAX;
	r->t1 = INT64_MIN;
	for (i = 0; i < jb->nr_cores; i++) {
		const struct ht_states_core *sc = ht_states_core(jb->st, i);

		jb->events += sc->events;
		if (sc->has_time) {
			has_time = true;
			r->t0 = sc->first_ns < r->t0 ? sc->first_ns : r->t0;
			r->t1 = sc->last_ns > r->t1 ? sc->last_ns : r->t1;
		}
	}
	if (!has_time) {
		snprintf(err, err_len, "%s: no events with a time in the trace",
			 jb->nr_traces ? jb->traces[0] : "?");
		return HT_EFORMAT;
	}
	/* at least 1 ns (at the end of time, the axis starts 1 ns early) */
	if (r->t1 <= r->t0) {
		if (r->t0 == INT64_MAX) {
			r->t0--;
		}
		r->t1 = r->t0 + 1;
	}
	r->span = (uint64_t)r->t1 - (uint64_t)r->t0;
	if (!ht__report_core(r, (unsigned)jb->nr_cores)) {
		return HT_ENOMEM;
	}
	r->nr_core_rows = jb->nr_cores;
	ht_states_msgs(jb->st, &jb->msgs);
	r->flow_stride =
	    jb->msgs.matched > jb->max_flows
		? (jb->msgs.matched + jb->max_flows - 1) / jb->max_flows
		: 1;
	ht_states_destroy(jb->st);
	jb->st = NULL;
	return 0;
}

/* Pass 2 and the path analysis: everything the page shows. */
static int build(struct job *jb, char *err, size_t err_len)
{
	struct report *r = &jb->r;
	FILE *ms;
	int ret;
	struct ht_pretty_opts po = {.no_delta = true,
				    .names = HT_PRETTY_NAME_DEFAULT};
	size_t reserve;

	/* the event table: at most a quarter of the budget, every
	 * stride-th event (the stride guessed at EVENT_TABLE_BYTES an
	 * event, doubled in pass 2 when the rows need more); the levels
	 * are planned for the rest, then kept for what the table left */
	r->ev_bytes = jb->budget / 4;
	r->ev_max = r->ev_bytes / 16;
	r->ev_stride = 1;
	while (jb->events / r->ev_stride * EVENT_TABLE_BYTES > r->ev_bytes) {
		r->ev_stride *= 2;
	}
	reserve = (size_t)(jb->events / r->ev_stride * EVENT_TABLE_BYTES);
	if (r->ev_max) {
		ret = ht_pretty_create(&r->pretty, &po);
		if (ret) {
			return ret;
		}
	}
	ret = ht__report_plan(r, jb->budget - reserve);
	if (ret) {
		return ret;
	}
	if (jb->desc) {
		ret = ht_paths_reader_finish(r->paths_reader, jb->traces,
					     jb->nr_traces, &jb->pres, err,
					     err_len);
		if (!ret && jb->popts.no_interference) {
			ret = ht_paths_interference_create(jb->pres,
							   &r->interference);
		}
		if (ret) {
			return ret;
		}
	}
	r->pass = 2;
	ret = ht__report_pass(r, jb->traces, jb->nr_traces, jb->fnames, &jb->st,
			      err, err_len);
	if (ret) {
		return ret;
	}
	ret = ht__report_finish(r, jb->budget);
	if (ret || !jb->desc) {
		return ret;
	}
	if (r->interference) {
		ret = ht_paths_interference_finish(r->interference);
		if (!ret) {
			ret = ht_paths_result_reorder(jb->pres);
		}
		if (ret) {
			return ret;
		}
	}
	ms = open_memstream(&jb->paths_json, &jb->paths_size);
	if (!ms) {
		return HT_ENOMEM;
	}
	ret = ht_paths_write_json_max(jb->pres, ms, MAX_PATH_INSTANCES);
	if (fclose(ms) && !ret) {
		ret = HT_ENOMEM;
	}
	return ret;
}

static int write_embedded(FILE *out, const char *name, char *err,
			  size_t err_len)
{
	const struct ht_embedded_file *f = ht_embedded_find(name);

	if (!f) {
		snprintf(err, err_len, "%s is not built into hetrace", name);
		return HT_ENOENT;
	}
	fwrite(f->data, 1, f->size, out);
	return 0;
}

/* The page up to its data: head, styles, markup. */
static int write_head(FILE *out, char *err, size_t err_len)
{
	int ret;

	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		     "<meta charset=\"utf-8\">\n<title>hetrace report</title>\n"
		     "<style>\n");
	ret =
	    write_embedded(out, "host/export/report/report.css", err, err_len);
	if (ret) {
		return ret;
	}
	fprintf(out, "</style>\n</head>\n<body>\n");
	return write_embedded(out, "host/export/report/report.html", err,
			      err_len);
}

static const char *kind_name(enum ht_states_kind k)
{
	switch (k) {
	case HT_STATES_FUNC:
		return "func";
	case HT_STATES_IDLE:
		return "idle";
	case HT_STATES_ISR:
		return "isr";
	default:
		return "task";
	}
}

static void write_core(struct ht_json *j, const struct report *r,
		       const struct ht_states_core *sc)
{
	size_t i;

	ht_json_begin_object(j);
	ht_json_member_str(j, "name", sc->name);
	ht_json_member_str(j, "group", sc->group ? sc->group : "");
	ht_json_member_str(j, "role", sc->role ? sc->role : "");
	ht_json_member_bool(j, "has_tasks", sc->has_tasks);
	ht_json_member_u64(j, "first",
			   sc->has_time ? ht__report_rel(r, sc->first_ns) : 0);
	ht_json_member_u64(j, "last",
			   sc->has_time ? ht__report_rel(r, sc->last_ns) : 0);
	ht_json_member_u64(j, "unknown", sc->unknown_ns);
	ht_json_member_u64(j, "idle", sc->idle_ns);
	ht_json_member_u64(j, "task", sc->task_ns);
	ht_json_member_u64(j, "isr", sc->isr_ns);
	ht_json_member_u64(j, "events", sc->events);
	ht_json_member_u64(j, "switches", sc->context_switches);
	ht_json_member_u64(j, "interrupts", sc->interrupts);
	ht_json_member_u64(j, "anomalies",
			   sc->isr_exit_unmatched + sc->isr_enter_unclosed +
			       sc->switch_prev_mismatch + sc->time_backwards +
			       sc->depth_overflow + sc->time_damaged);
	ht_json_key(j, "tasks");
	ht_json_begin_array(j);
	for (i = 0; i < sc->nr_tasks; i++) {
		const struct ht_states_task *t = &sc->tasks[i];

		ht_json_item(j);
		ht_json_begin_object(j);
		ht_json_member_str(j, "name", t->name ? t->name : "?");
		ht_json_member_str(j, "kind",
				   t->kind == HT_STATES_ISR    ? "isr"
				   : t->kind == HT_STATES_IDLE ? "idle"
							       : "task");
		ht_json_member_u64(j, "run", t->run_ns);
		ht_json_end_object(j);
	}
	ht_json_end_array(j);
	ht_json_end_object(j);
}

/* An array item: the @n bytes at @p as a base64 string (the page's
 * JSON goes to a stream, j->f). */
static void base64_item(struct ht_json *j, const void *p, size_t n)
{
	ht_json_item(j);
	ht_json_raw(j, "\"");
	ht_base64_write(j->f, p, n);
	ht_json_raw(j, "\"");
}

/* The timeline levels kept, then the exact slices when kept: per row
 * its runs in base64. */
static void write_levels(struct ht_json *j, struct report *r)
{
	size_t i;
	unsigned l;

	ht_json_begin_array(j);
	for (l = 0; l < r->nr_kept + (r->exact_kept ? 1 : 0); l++) {
		bool ex = l == r->nr_kept;

		ht_json_item(j);
		ht_json_raw(j, "\n");
		ht_json_begin_object(j);
		ht_json_member_i64(j, "n", ex ? 0 : r->level_n[l]);
		ht_json_key(j, "rows");
		ht_json_begin_array(j);
		for (i = 0; i < ht__report_nr_rows(r); i++) {
			const struct trow *t = ht__report_row(r, i);
			const struct enc *e = ex ? &t->exact : &t->lv[l];

			base64_item(j, e->out.data, e->out.len);
		}
		ht_json_end_array(j);
		ht_json_end_object(j);
	}
	ht_json_end_array(j);
}

/* Per core, per utilization bucket, one byte in base64: 0 nothing
 * known; 1..201 busy 0..100 %. */
static void write_util(struct ht_json *j, const struct job *jb)
{
	size_t i;

	ht_json_printf(j, "{\"n\":%d,\"rows\":", UTIL_BUCKETS);
	ht_json_begin_array(j);
	for (i = 0; i < jb->nr_cores; i++) {
		const struct core *c = &jb->r.cores[i];
		unsigned char u[UTIL_BUCKETS];
		int k;

		for (k = 0; k < UTIL_BUCKETS; k++) {
			u[k] =
			    c->known[k]
				? (unsigned char)(1 +
						  lround(200.0 *
							 (double)c->busy[k] /
							 (double)c->known[k]))
				: 0;
		}
		base64_item(j, u, UTIL_BUCKETS);
	}
	ht_json_end_array(j);
	ht_json_raw(j, "}");
}

/* JSON made elsewhere, as it is, or null. */
static void write_embedded_json(FILE *out, const char *text, size_t size)
{
	if (text) {
		write_script_safe(out, text, size);
	} else {
		fprintf(out, "null");
	}
}

/* The page's data: one JSON object in a <script> element. */
static void write_data(FILE *out, struct job *jb)
{
	struct ht_json j = {.f = out, .flags = HT_JSON_HTML};
	struct report *r = &jb->r;
	const struct ht_report_opts *opts = jb->opts;
	size_t i;

	fprintf(out, "<script id=\"ht-data\" type=\"application/json\">\n"
		     "{\"title\":");
	ht_json_str(&j, opts && opts->title
			    ? opts->title
			    : (jb->nr_traces ? jb->traces[0] : ""));
	fprintf(out,
		",\"t0\":\"%" PRId64 "\",\"span\":%" PRIu64
		",\"events\":%" PRIu64 ",\n\"cores\":",
		r->t0, r->span, jb->events);
	ht_json_begin_array(&j);
	for (i = 0; i < jb->nr_cores; i++) {
		ht_json_item(&j);
		ht_json_raw(&j, "\n");
		write_core(&j, r, ht_states_core(jb->st, i));
	}
	ht_json_end_array(&j);
	/* the display order of the cores: master, kernel CPUs, slaves,
	 * then by core id (states.h) */
	{
		size_t *order =
		    calloc(jb->nr_cores ? jb->nr_cores : 1, sizeof(*order));

		fprintf(out, ",\n\"order\":[");
		if (order) {
			ht_states_core_order(jb->st, order);
		}
		for (i = 0; i < jb->nr_cores; i++) {
			fprintf(out, "%s%zu", i ? "," : "",
				order ? order[i] : i);
		}
		fprintf(out, "]");
		free(order);
	}
	fprintf(out, ",\n\"states\":");
	ht_json_begin_array(&j);
	for (i = 0; i < r->nr_states; i++) {
		ht_json_item(&j);
		ht_json_begin_object(&j);
		ht_json_member_str(&j, "n", r->states[i].name);
		ht_json_member_str(&j, "k",
				   r->states[i].task_state
				       ? "ts"
				       : kind_name(r->states[i].kind));
		ht_json_end_object(&j);
	}
	ht_json_end_array(&j);
	fprintf(out, ",\n\"levels\":");
	write_levels(&j, r);
	/* the function rows: [core index, depth], rows nr_cores.. */
	fprintf(out, ",\n\"frows\":[");
	for (i = 0; i < r->nr_frows; i++) {
		fprintf(out, "%s[%u,%u]", i ? "," : "", r->frows[i].core,
			r->frows[i].depth);
	}
	/* the task rows: [core index, tid, name], rows after those */
	fprintf(out, "],\n\"trows\":");
	ht_json_begin_array(&j);
	for (i = 0; i < r->nr_trows; i++) {
		ht_json_item(&j);
		ht_json_printf(&j, "[%u,%" PRIu64 ",", r->trows[i].core,
			       r->trows[i].tid);
		ht_json_str(&j, r->trows[i].name);
		ht_json_raw(&j, "]");
	}
	ht_json_end_array(&j);
	fprintf(out, ",\n\"func_rows\":%d,\n\"notes\":[", FUNC_ROWS);
	fwrite(r->notes.data ? r->notes.data : "", 1, r->notes.len, out);
	fprintf(out, "],\n\"util\":");
	write_util(&j, jb);
	fprintf(out,
		",\n\"msgs\":{\"sent\":%" PRIu64 ",\"received\":%" PRIu64
		",\"matched\":%" PRIu64 ",\"kept\":%" PRIu64 "},\n\"flows\":[",
		jb->msgs.sent, jb->msgs.received, jb->msgs.matched,
		r->flows_kept);
	fwrite(r->flow_json.data ? r->flow_json.data : "", 1, r->flow_json.len,
	       out);
	fprintf(out,
		"],\n\"table\":{\"events\":%" PRIu64 ",\"stride\":%" PRIu64
		",\"kept\":%" PRIu64 ",\"rows\":[\n",
		jb->events, r->ev_stride ? r->ev_stride : 1, r->ev_kept);
	fwrite(r->ev_json.data ? r->ev_json.data : "", 1, r->ev_json.len, out);
	fprintf(out, "]},\n\"paths\":");
	write_embedded_json(out, jb->paths_json, jb->paths_size);
	fprintf(out, ",\n\"sync\":");
	write_embedded_json(out, jb->sync_text, jb->sync_size);
	fprintf(out, "}\n</script>\n");
}

/* The viewer and the end of the page. */
static int write_tail(FILE *out, char *err, size_t err_len)
{
	int ret;

	fprintf(out, "<script>\n");
	ret = write_embedded(out, "host/export/report/report.js", err, err_len);
	if (ret) {
		return ret;
	}
	fprintf(out, "</script>\n</body>\n</html>\n");
	if (fflush(out) || ferror(out)) {
		/* errno: that of the last write, which failed as well */
		snprintf(err, err_len, "cannot write the report: %s",
			 strerror(errno));
		return HT_EIO;
	}
	return 0;
}

static void fill_stats(const struct job *jb, struct ht_report_stats *stats)
{
	const struct report *r = &jb->r;

	stats->events = jb->events;
	stats->nr_cores = jb->nr_cores;
	stats->nr_levels = r->nr_kept;
	stats->exact = r->exact_kept;
	stats->finest_ns =
	    r->exact_kept
		? 1
		: (int64_t)(r->span / (uint64_t)r->level_n[r->nr_kept - 1]);
	stats->flows = jb->msgs.matched;
	stats->flows_kept = r->flows_kept;
	stats->reader_errors = r->reader_errors;
	stats->damaged_times = r->damaged_times;
}

int ht_report_write(const char *const *traces, size_t nr_traces,
		    const struct ht_report_opts *opts, FILE *out,
		    struct ht_report_stats *stats, char *err, size_t err_len)
{
	struct job jb = {
	    .traces = traces,
	    .nr_traces = nr_traces,
	    .opts = opts,
	    .budget = opts && opts->budget_bytes ? opts->budget_bytes
						 : (size_t)14 << 20,
	    .max_flows = opts && opts->max_flows ? opts->max_flows : 20000,
	    .r = {.pass = 1},
	};
	int ret;

	if (err_len) {
		err[0] = '\0';
	}
	jb.sink.r = &jb.r;
	jb.sink.opts = opts;
	jb.r.select = opts->select;
	jb.r.on_damage = damage_cb;
	jb.r.on_damage_arg = &jb.sink;
	ret = read_inputs(&jb, err, err_len);
	if (ret) {
		goto out;
	}
	ret = measure(&jb, err, err_len);
	if (ret) {
		goto out;
	}
	ret = build(&jb, err, err_len);
	if (ret) {
		goto out;
	}
	ret = write_head(out, err, err_len);
	if (ret) {
		goto out;
	}
	write_data(out, &jb);
	ret = write_tail(out, err, err_len);
	if (ret) {
		goto out;
	}
	if (stats) {
		fill_stats(&jb, stats);
	}
out:
	/* first: the path analysis' passes it holds use the description */
	ht__report_fini(&jb.r);
	ht_states_destroy(jb.st);
	ht_func_names_destroy(jb.fnames);
	ht_paths_result_destroy(jb.pres);
	ht_path_desc_destroy(jb.desc);
	free(jb.paths_json);
	free(jb.sync_text);
	return ret;
}
