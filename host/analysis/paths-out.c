/* SPDX-License-Identifier: MIT */
/* The path analysis as text and as JSON (docs/paths.md). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/json-out.h"
#include "paths-internal.h"

const char *ht_paths_format_ns(char *buf, size_t len, uint64_t ns)
{
	static const struct {
		uint64_t div;
		const char *unit;
	} units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ns >= units[i].div) {
			/* three decimals, rounded to nearest */
			uint64_t milli =
			    (ns * 1000 + units[i].div / 2) / units[i].div;

			if (ns > UINT64_MAX / 1000) {
				milli = ns / (units[i].div / 1000);
			}
			snprintf(buf, len, "%" PRIu64 ".%03" PRIu64 " %s",
				 milli / 1000, milli % 1000, units[i].unit);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRIu64 " ns", ns);
	return buf;
}

/* A time from the clock's origin as seconds: "12.000345678". */
static const char *format_time(char *buf, size_t len, int64_t ns)
{
	uint64_t m = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	snprintf(buf, len, "%s%" PRIu64 ".%09" PRIu64, ns < 0 ? "-" : "",
		 m / 1000000000u, m % 1000000000u);
	return buf;
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

static const struct ht_paths_result *sort_res;

static int core_name_cmp(const void *a, const void *b)
{
	return strverscmp(sort_res->cores[*(const size_t *)a],
			  sort_res->cores[*(const size_t *)b]);
}

static void write_worst(FILE *out, const struct ht_paths_result *res,
			const struct ht_paths_path_result *pr,
			const struct ht_paths_worst *w)
{
	const struct ht_paths_instance *in = &pr->instances[w->instance];
	char b[8][32];
	size_t i, c, ci, *order;

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
	if (!w->nr_blame) {
		fprintf(out, "    nothing else ran on its cores meanwhile\n");
		return;
	}
	/* cores in name order (dsp1 before dsp2 before dsp10) */
	order = malloc((res->nr_cores + 1) * sizeof(*order));
	if (!order) {
		return;
	}
	for (c = 0; c < res->nr_cores; c++) {
		order[c] = c;
	}
	sort_res = res;
	qsort(order, res->nr_cores, sizeof(*order), core_name_cmp);
	for (i = 0; i < w->nr_blame; i++) {
		const struct ht_paths_blame *bl = &w->blame[i];
		size_t nc = 0, k = 0;

		for (c = 0; c < res->nr_cores; c++) {
			nc += bl->core_ns[c] != 0;
		}
		fprintf(out, "    %s %s ", bl->who,
			bl->is_isr ? "interrupted" : "preempted");
		for (ci = 0; ci < res->nr_cores; ci++) {
			c = order[ci];
			if (!bl->core_ns[c]) {
				continue;
			}
			k++;
			fprintf(out, "%s%s",
				k == 1	  ? ""
				: k == nc ? " and "
					  : ", ",
				res->cores[c]);
		}
		fprintf(out, " for %s", F(0, bl->total_ns));
		if (nc > 1 && nc <= 4) {
			k = 0;
			for (ci = 0; ci < res->nr_cores; ci++) {
				c = order[ci];
				if (bl->core_ns[c]) {
					fprintf(out, "%s%s %s",
						k++ ? ", " : ": ",
						res->cores[c],
						F(1, bl->core_ns[c]));
				}
			}
		}
		write_during(out, pr->path, bl->during);
		fputc('\n', out);
	}
	free(order);
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

static void json_stat(FILE *out, const char *name,
		      const struct ht_paths_stat *st)
{
	fprintf(out, "\"%s\":{\"count\":%" PRIu64, name, st->count);
	if (st->count) {
		fprintf(out,
			",\"min\":%" PRIu64 ",\"mean\":%.1f,\"max\":%" PRIu64
			",\"p99\":%" PRIu64,
			st->min_ns, st->mean_ns, st->max_ns, st->p99_ns);
	}
	fputc('}', out);
}

static const char *const dl_names[] = {
    [HT_PATHS_DL_NONE] = "none",
    [HT_PATHS_DL_MET] = "met",
    [HT_PATHS_DL_MISSED] = "missed",
    [HT_PATHS_DL_UNKNOWN] = "unknown",
};

static void json_instance(FILE *out, const struct ht_paths_path_result *pr,
			  const struct ht_paths_instance *in)
{
	size_t k;

	fprintf(out, "{\"n\":%" PRIu64 ",\"start\":%" PRId64, in->number,
		in->start_ns);
	if (in->has_trigger) {
		fprintf(out, ",\"trigger\":%" PRId64, in->trigger_ns);
	}
	if (in->has_firing) {
		fprintf(out, ",\"firing\":%" PRId64, in->firing_ns);
	}
	if (in->complete) {
		fprintf(out, ",\"end\":%" PRId64 ",\"response\":%" PRIu64,
			in->end_ns, in->response_ns);
	}
	fprintf(out, ",\"complete\":%s,\"deadline\":\"%s\"",
		in->complete ? "true" : "false", dl_names[in->deadline]);
	if (in->deadline == HT_PATHS_DL_MET ||
	    in->deadline == HT_PATHS_DL_MISSED) {
		fprintf(out, ",\"lateness\":%" PRId64, in->lateness_ns);
	}
	/* per activity: [core, ready|null, begin|null, end|null] or null */
	fprintf(out, ",\"runs\":[");
	for (k = 0; k < pr->path->nr_activities; k++) {
		const struct ht_paths_run *r = &in->runs[k];

		fprintf(out, "%s", k ? "," : "");
		if (!(r->flags & HT_PATHS_RUN_BEGIN)) {
			if (r->flags & HT_PATHS_RUN_READY) {
				fprintf(out, "[-1,%" PRId64 ",null,null]",
					r->ready_ns);
			} else {
				fprintf(out, "null");
			}
			continue;
		}
		fprintf(out, "[%d,", r->core);
		if ((r->flags & HT_PATHS_RUN_READY) &&
		    !(r->flags & HT_PATHS_RUN_EARLY)) {
			fprintf(out, "%" PRId64, r->ready_ns);
		} else {
			fprintf(out, "null");
		}
		fprintf(out, ",%" PRId64 ",", r->begin_ns);
		if (r->flags & HT_PATHS_RUN_END) {
			fprintf(out, "%" PRId64 "]", r->end_ns);
		} else {
			fprintf(out, "null]");
		}
	}
	fprintf(out, "]}");
}

int ht_paths_write_json(const struct ht_paths_result *res, FILE *out)
{
	return ht_paths_write_json_max(res, out, SIZE_MAX);
}

int ht_paths_write_json_max(const struct ht_paths_result *res, FILE *out,
			    size_t max_instances)
{
	size_t i, k, j, c;

	fprintf(out, "{\"file\":");
	ht__json_str(out, res->desc->file);
	fprintf(out,
		",\"events\":%" PRIu64 ",\"path_events\":%" PRIu64
		",\"has_states\":%s,\"cores\":[",
		res->events, res->path_events,
		res->has_states ? "true" : "false");
	for (i = 0; i < res->nr_cores; i++) {
		fprintf(out, "%s", i ? "," : "");
		ht__json_str(out, res->cores[i]);
	}
	fprintf(out,
		"],\"anomalies\":{\"unmatched_begin\":%" PRIu64
		",\"unmatched_end\":%" PRIu64 ",\"repeated_trigger\":%" PRIu64
		",\"unknown_path\":%" PRIu64 ",\"unknown_activity\":%" PRIu64
		",\"read_errors\":%" PRIu64 "},\"notes\":[",
		res->unmatched_begin, res->unmatched_end, res->repeated_trigger,
		res->unknown_path, res->unknown_activity, res->read_errors);
	for (i = 0; i < res->nr_notes; i++) {
		fprintf(out, "%s", i ? "," : "");
		ht__json_str(out, res->notes[i]);
	}
	fprintf(out, "],\"paths\":[");
	for (i = 0; i < res->desc->nr_paths; i++) {
		const struct ht_paths_path_result *pr = &res->paths[i];
		const struct ht_path *path = pr->path;

		fprintf(out, "%s\n{\"name\":", i ? "," : "");
		ht__json_str(out, path->name);
		fprintf(out, ",\"trigger\":");
		ht__json_str(out, path->trigger);
		if (path->has_period) {
			fprintf(out, ",\"period_ns\":%" PRIu64,
				path->period_ns);
		}
		if (path->has_deadline) {
			fprintf(out, ",\"deadline_ns\":%" PRIu64,
				path->deadline_ns);
		}
		fprintf(out,
			",\"instances_count\":%zu,\"met\":%" PRIu64
			",\"missed\":%" PRIu64 ",\"incomplete\":%" PRIu64
			",\"no_trigger\":%" PRIu64 ",",
			pr->nr_instances, pr->met, pr->missed, pr->incomplete,
			pr->no_trigger);
		json_stat(out, "response", &pr->response);
		fputc(',', out);
		json_stat(out, "release_delay", &pr->jitter);
		fprintf(out, ",\"activities\":[");
		for (k = 0; k < path->nr_activities; k++) {
			const struct ht_path_activity *a = &path->activities[k];

			fprintf(out, "%s\n{\"name\":", k ? "," : "");
			ht__json_str(out, a->name);
			fprintf(out, ",\"join\":\"%s\",\"after\":[",
				a->join == HT_PATH_JOIN_AND ? "and" : "or");
			for (j = 0; j < a->nr_preds; j++) {
				fprintf(out, "%s", j ? "," : "");
				ht__json_str(
				    out, path->activities[a->preds[j]].name);
			}
			fprintf(out,
				"],\"not_run\":%" PRIu64 ",\"early\":%" PRIu64
				",",
				pr->acts[k].not_run, pr->acts[k].early);
			json_stat(out, "wait", &pr->acts[k].wait);
			fputc(',', out);
			json_stat(out, "exec", &pr->acts[k].exec);
			fputc('}', out);
		}
		fprintf(out, "],\"worst\":[");
		for (k = 0; k < pr->nr_worst; k++) {
			const struct ht_paths_worst *w = &pr->worst[k];

			fprintf(
			    out, "%s\n{\"instance\":%" PRIu64 ",\"blame\":[",
			    k ? "," : "", pr->instances[w->instance].number);
			for (j = 0; j < w->nr_blame; j++) {
				const struct ht_paths_blame *b = &w->blame[j];
				bool first = true;

				fprintf(out, "%s{\"who\":", j ? "," : "");
				ht__json_str(out, b->who);
				fprintf(out,
					",\"isr\":%s,\"ns\":%" PRIu64
					",\"cores\":{",
					b->is_isr ? "true" : "false",
					b->total_ns);
				for (c = 0; c < res->nr_cores; c++) {
					if (!b->core_ns[c]) {
						continue;
					}
					fprintf(out, "%s", first ? "" : ",");
					first = false;
					ht__json_str(out, res->cores[c]);
					fprintf(out, ":%" PRIu64,
						b->core_ns[c]);
				}
				fprintf(out, "},\"during\":[");
				first = true;
				for (c = 0; c < path->nr_activities && c < 64;
				     c++) {
					if (b->during & (1ull << c)) {
						fprintf(out, "%s",
							first ? "" : ",");
						first = false;
						ht__json_str(
						    out,
						    path->activities[c].name);
					}
				}
				fprintf(out, "]}");
			}
			fprintf(out, "]}");
		}
		{
			size_t stride = 1, shown = 0;

			if (max_instances && pr->nr_instances > max_instances) {
				stride =
				    (pr->nr_instances + max_instances - 1) /
				    max_instances;
			}
			fprintf(out, "],\"instances\":[");
			for (j = 0; j < pr->nr_instances; j++) {
				if (j % stride && !is_worst(pr, j)) {
					continue;
				}
				fprintf(out, "%s\n", shown++ ? "," : "");
				json_instance(out, pr, &pr->instances[j]);
			}
			fprintf(out, "],\"instances_shown\":%zu", shown);
		}
		fputc('}', out);
	}
	fprintf(out, "]}\n");
	return ferror(out) ? HT_EIO : 0;
}
