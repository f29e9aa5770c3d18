/* SPDX-License-Identifier: MIT */
/* hetrace-command: 60 states: per-core timeline summary (tasks, interrupts, idle) and utilization */
/*
 * hetrace states TRACE... [--window NS] [--core C]: the states model
 * (host/analysis/states.h) as tables: per core the time split (task, interrupt,
 * idle, unknown), utilization, per task and interrupt line the run
 * time, share and slices; with --window, per window and core the same
 * split and the tasks that ran (printed as the windows close).
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
#include "host/analysis/states.h"

#define MAX_ANOMALIES_SHOWN 20

struct ctx {
	const char *core_sel; /* --core: a name or an id */
	uint64_t anomalies;
	bool window_header;
	bool json;	  /* --json: one object on stdout */
	struct ht_json j; /* its writer */
	bool json_open;	  /* the object and its "windows" are begun */
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s [OPTIONS] TRACE...\n\n"
		"Per core of the CTF traces under TRACE... (a synchronized\n"
		"trace or a capture): the timeline summary from task_switch,\n"
		"isr_enter/isr_exit and func_entry/func_exit events: time in\n"
		"tasks, interrupts and idle, utilization, per task and\n"
		"interrupt line the run time and share; messages matched.\n"
		"Unmatched begin/end events are reported and counted.\n\n"
		"options:\n"
		"  -w, --window NS    also per time window of NS "
		"ns\n" HT_CLI_RANGE_HELP
		"      --pending N    sends kept waiting for their receive "
		"(default 65536;\n"
		"                     older ones are reported unmatched)\n"
		"  -k, --keep-going   skip damaged packets and go on\n"
		"  -j, --json         the tables as one JSON object "
		"(docs/cli.md)\n"
		"  -h, --help         this help\n",
		ht_cli_prog);
}

static bool core_selected(const struct ctx *x, const struct ht_states_core *c)
{
	char id[16];

	if (!x->core_sel || !strcmp(x->core_sel, c->name)) {
		return true;
	}
	if (!c->has_core_id) {
		return false;
	}
	snprintf(id, sizeof(id), "%" PRIu32, c->core_id);
	return !strcmp(x->core_sel, id);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *kind_name(enum ht_states_kind k)
{
	switch (k) {
	case HT_STATES_IDLE:
		return "idle";
	case HT_STATES_TASK:
		return "task";
	case HT_STATES_ISR:
		return "irq";
	default:
		return "?";
	}
}

/* The JSON object and its "windows" array, begun once. */
static void json_open(struct ctx *x)
{
	if (x->json_open) {
		return;
	}
	x->json_open = true;
	x->j.f = stdout;
	ht_json_begin_object(&x->j);
	ht_json_key(&x->j, "windows");
	ht_json_begin_array(&x->j);
}

static void json_window(struct ctx *x, const struct ht_states_item *it)
{
	const struct ht_states_core *c = it->core;
	struct ht_json *j = &x->j;
	size_t i;

	json_open(x);
	ht_json_item(j);
	ht_json_begin_object(j);
	ht_json_member_i64(j, "begin_ns", it->win_begin_ns);
	ht_json_member_i64(j, "end_ns", it->win_end_ns);
	ht_json_member_str(j, "core", c->name);
	ht_json_member_u64(j, "task_ns", it->win_task_ns);
	ht_json_member_u64(j, "isr_ns", it->win_isr_ns);
	ht_json_member_u64(j, "idle_ns", it->win_idle_ns);
	ht_json_member_u64(j, "unknown_ns", it->win_unknown_ns);
	ht_json_key(j, "tasks");
	ht_json_begin_array(j);
	for (i = 0; i < c->nr_tasks; i++) {
		const struct ht_states_task *t = &c->tasks[i];

		if (t->window_ns && t->kind == HT_STATES_TASK) {
			ht_json_item(j);
			ht_json_begin_object(j);
			ht_json_member_u64(j, "id", t->id);
			ht_json_member_str(j, "name", t->name);
			ht_json_member_u64(j, "run_ns", t->window_ns);
			ht_json_end_object(j);
		}
	}
	ht_json_end_array(j);
	ht_json_end_object(j);
}

static void print_window(struct ctx *x, const struct ht_states_item *it)
{
	const struct ht_states_core *c = it->core;
	uint64_t known = it->win_idle_ns + it->win_task_ns + it->win_isr_ns;
	char b[HT_TIME_FORMAT_LEN], e[HT_TIME_FORMAT_LEN];
	size_t i;

	if (!x->window_header) {
		x->window_header = true;
		printf("%-20s %-20s %-12s %7s %7s %7s %7s %8s  %s\n",
		       "window begin (s)", "window end (s)", "core", "util%",
		       "task%", "isr%", "idle%", "unknown%", "tasks (share%)");
	}
	printf("%-20s %-20s %-12s",
	       ht_time_format_timestamp(b, sizeof(b), it->win_begin_ns),
	       ht_time_format_timestamp(e, sizeof(e), it->win_end_ns), c->name);
	if (!c->has_tasks) {
		printf(" %7s %7s", "-", "-");
	} else {
		printf(" %7.2f %7.2f",
		       pct(it->win_task_ns + it->win_isr_ns, known),
		       pct(it->win_task_ns, known));
	}
	printf(" %7.2f %7.2f %8.2f ", pct(it->win_isr_ns, known),
	       pct(it->win_idle_ns, known),
	       pct(it->win_unknown_ns,
		   (uint64_t)it->win_end_ns - (uint64_t)it->win_begin_ns));
	for (i = 0; i < c->nr_tasks; i++) {
		const struct ht_states_task *t = &c->tasks[i];

		if (t->window_ns && t->kind == HT_STATES_TASK) {
			printf(" %s(%.2f)", t->name, pct(t->window_ns, known));
		}
	}
	printf("\n");
}

static int on_item(void *arg, const struct ht_states_item *it)
{
	struct ctx *x = arg;

	switch (it->kind) {
	case HT_STATES_WINDOW:
		if (core_selected(x, it->core)) {
			if (x->json) {
				json_window(x, it);
			} else {
				print_window(x, it);
			}
		}
		break;
	case HT_STATES_ANOMALY:
		if (x->anomalies++ < MAX_ANOMALIES_SHOWN) {
			fprintf(stderr, "%s: warning: %s\n", ht_cli_prog,
				it->text);
		}
		break;
	default:
		break;
	}
	return 0;
}

/* The task states table (docs/views.md, "Task states"): tasks only. */
#define DUR(buf, ns) ht_time_format_duration(buf, sizeof(buf), ns)

static void print_task_states(const struct ht_states_core *c)
{
	char tb[6][HT_TIME_FORMAT_LEN];
	size_t i, n = 0;

	for (i = 0; i < c->nr_tasks; i++) {
		const struct ht_states_task *t = &c->tasks[i];

		if (t->kind != HT_STATES_TASK) {
			continue;
		}
		if (!n++) {
			printf("  %-10s %-20s %14s %14s %14s %14s %14s %14s\n",
			       "task", "name", "running", "ready", "blocked",
			       "interrupted", "max ready", "max blocked");
		}
		printf("  %-10" PRIu64 " %-20s %14s %14s %14s %14s %14s %14s\n",
		       t->id, t->name, DUR(tb[0], t->run_ns),
		       DUR(tb[1], t->ready_ns), DUR(tb[2], t->blocked_ns),
		       DUR(tb[3], t->interrupted_ns),
		       DUR(tb[4], t->max_ready_ns),
		       DUR(tb[5], t->max_blocked_ns));
	}
	if (c->wake_unblocked || c->block_no_task) {
		printf("  task state anomalies: wake of a task not blocked "
		       "%" PRIu64 ", block with no task running %" PRIu64 "\n",
		       c->wake_unblocked, c->block_no_task);
	}
}

static void print_core(const struct ht_states_core *c)
{
	uint64_t known = c->idle_ns + c->task_ns + c->isr_ns;
	uint64_t span =
	    c->has_time ? (uint64_t)c->last_ns - (uint64_t)c->first_ns : 0;
	char tb[4][HT_TIME_FORMAT_LEN];
	size_t i;

	printf("core %s", c->name);
	if (c->has_core_id) {
		printf(" (id %" PRIu32 "%s%s)", c->core_id, c->role ? ", " : "",
		       c->role ? c->role : "");
	}
	printf(": %" PRIu64 " events, %s .. %s s (span %s)\n", c->events,
	       ht_time_format_timestamp(tb[0], sizeof(tb[0]), c->first_ns),
	       ht_time_format_timestamp(tb[1], sizeof(tb[1]), c->last_ns),
	       ht_time_format_duration(tb[2], sizeof(tb[2]), span));
	if (!c->has_tasks) {
		printf("  no task_switch events: no task timeline, no "
		       "utilization\n");
	} else {
		printf("  utilization %.2f %% (task %.2f %%, isr %.2f %%, "
		       "idle %.2f %%) over %s known\n",
		       pct(c->task_ns + c->isr_ns, known),
		       pct(c->task_ns, known), pct(c->isr_ns, known),
		       pct(c->idle_ns, known),
		       ht_time_format_duration(tb[0], sizeof(tb[0]), known));
	}
	printf("  time: task %s, isr %s, idle %s, unknown %s\n",
	       ht_time_format_duration(tb[0], sizeof(tb[0]), c->task_ns),
	       ht_time_format_duration(tb[1], sizeof(tb[1]), c->isr_ns),
	       ht_time_format_duration(tb[2], sizeof(tb[2]), c->idle_ns),
	       ht_time_format_duration(tb[3], sizeof(tb[3]), c->unknown_ns));
	printf("  context switches %" PRIu64 ", interrupts %" PRIu64
	       ", calls %" PRIu64 "\n",
	       c->context_switches, c->interrupts, c->calls);
	if (c->nr_tasks) {
		printf("  %-5s %-10s %-20s %16s %8s %10s %14s\n", "kind", "id",
		       "name", "run", "share%", "slices", "max");
	}
	for (i = 0; i < c->nr_tasks; i++) {
		const struct ht_states_task *t = &c->tasks[i];

		printf("  %-5s %-10" PRIu64 " %-20s %16s %8.2f %10" PRIu64
		       " %14s\n",
		       kind_name(t->kind), t->id, t->name,
		       ht_time_format_duration(tb[0], sizeof(tb[0]), t->run_ns),
		       pct(t->run_ns, known), t->slices,
		       ht_time_format_duration(tb[1], sizeof(tb[1]),
					       t->max_slice_ns));
	}
	print_task_states(c);
	if (c->isr_exit_unmatched || c->isr_enter_unclosed ||
	    c->func_exit_unmatched || c->func_entry_unclosed ||
	    c->switch_prev_mismatch || c->time_backwards || c->depth_overflow) {
		printf("  anomalies: isr_exit unmatched %" PRIu64
		       ", isr_enter unclosed %" PRIu64
		       ", func_exit unmatched %" PRIu64
		       ", func_entry unclosed %" PRIu64
		       ", prev_tid mismatch %" PRIu64
		       ", time backwards %" PRIu64 ", too deep %" PRIu64 "\n",
		       c->isr_exit_unmatched, c->isr_enter_unclosed,
		       c->func_exit_unmatched, c->func_entry_unclosed,
		       c->switch_prev_mismatch, c->time_backwards,
		       c->depth_overflow);
	}
	if (c->time_damaged) {
		printf("  damaged times %" PRIu64
		       " (outside their packet's timestamp_begin .. "
		       "timestamp_end)\n",
		       c->time_damaged);
	}
}

/* One core's totals as JSON (an item of "cores"). */
static void json_core(struct ht_json *j, const struct ht_states_core *c)
{
	size_t i;

	ht_json_item(j);
	ht_json_begin_object(j);
	ht_json_member_str(j, "name", c->name);
	if (c->has_core_id) {
		ht_json_member_u64(j, "id", c->core_id);
	}
	if (c->role) {
		ht_json_member_str(j, "role", c->role);
	}
	ht_json_member_u64(j, "events", c->events);
	if (c->has_time) {
		ht_json_member_i64(j, "first_ns", c->first_ns);
		ht_json_member_i64(j, "last_ns", c->last_ns);
	}
	ht_json_member_bool(j, "has_tasks", c->has_tasks);
	ht_json_member_u64(j, "task_ns", c->task_ns);
	ht_json_member_u64(j, "isr_ns", c->isr_ns);
	ht_json_member_u64(j, "idle_ns", c->idle_ns);
	ht_json_member_u64(j, "unknown_ns", c->unknown_ns);
	ht_json_member_u64(j, "context_switches", c->context_switches);
	ht_json_member_u64(j, "interrupts", c->interrupts);
	ht_json_member_u64(j, "calls", c->calls);
	ht_json_key(j, "tasks");
	ht_json_begin_array(j);
	for (i = 0; i < c->nr_tasks; i++) {
		const struct ht_states_task *t = &c->tasks[i];

		ht_json_item(j);
		ht_json_begin_object(j);
		ht_json_member_str(j, "kind", kind_name(t->kind));
		ht_json_member_u64(j, "id", t->id);
		ht_json_member_str(j, "name", t->name);
		ht_json_member_u64(j, "run_ns", t->run_ns);
		ht_json_member_u64(j, "slices", t->slices);
		ht_json_member_u64(j, "max_slice_ns", t->max_slice_ns);
		if (t->kind == HT_STATES_TASK) {
			ht_json_member_u64(j, "ready_ns", t->ready_ns);
			ht_json_member_u64(j, "blocked_ns", t->blocked_ns);
			ht_json_member_u64(j, "interrupted_ns",
					   t->interrupted_ns);
			ht_json_member_u64(j, "max_ready_ns", t->max_ready_ns);
			ht_json_member_u64(j, "max_blocked_ns",
					   t->max_blocked_ns);
			ht_json_member_u64(j, "blocks", t->blocks);
		}
		ht_json_end_object(j);
	}
	ht_json_end_array(j);
	ht_json_key(j, "anomalies");
	ht_json_begin_object(j);
	ht_json_member_u64(j, "isr_exit_unmatched", c->isr_exit_unmatched);
	ht_json_member_u64(j, "isr_enter_unclosed", c->isr_enter_unclosed);
	ht_json_member_u64(j, "func_exit_unmatched", c->func_exit_unmatched);
	ht_json_member_u64(j, "func_entry_unclosed", c->func_entry_unclosed);
	ht_json_member_u64(j, "switch_prev_mismatch", c->switch_prev_mismatch);
	ht_json_member_u64(j, "time_backwards", c->time_backwards);
	ht_json_member_u64(j, "too_deep", c->depth_overflow);
	ht_json_member_u64(j, "time_damaged", c->time_damaged);
	ht_json_member_u64(j, "wake_unblocked", c->wake_unblocked);
	ht_json_member_u64(j, "block_no_task", c->block_no_task);
	ht_json_end_object(j);
	ht_json_end_object(j);
}

/* What the options ask for. */
struct states_args {
	struct ht_ctf_open_opts opts;
	struct ht_states_opts sopts;
	struct ctx x;
	struct ht_cli_args traces;
	struct ht_cli_range range;
};

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct states_args *a)
{
	uint64_t window_ns = 0, pending = 0;
	const struct ht_cli_opt table[] = {
	    HT_CLI_UINT('w', "window", &window_ns, 1, INT64_MAX,
			"a window in ns"),
	    HT_CLI_RANGE(&a->range, 'c'),
	    HT_CLI_UINT(0, "pending", &pending, 1, 1u << 30,
			"a number of messages"),
	    HT_CLI_BITS('k', "keep-going", &a->opts.flags, HT_CTF_KEEP_GOING),
	    HT_CLI_FLAG('j', "json", &a->x.json),
	    HT_CLI_OPT_END,
	};
	int ret;

	ret = ht_cli_parse(argc, argv, table, HT_CLI_WANT_TRACES, usage,
			   &a->traces);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	/* one core: its tables only, no message totals (its peers are
	 * not read) */
	a->x.core_sel = a->range.nr_cores == 1 ? a->range.cores[0] : NULL;
	/* not given: 0, the model's default */
	a->sopts.window_ns = (int64_t)window_ns;
	a->sopts.max_pending_msgs = (size_t)pending;
	return HT_CLI_GO_ON;
}

/* The per-core tables and the message counts, after the run. Returns
 * the exit status they make. */
static int print_tables(struct ht_states *st, struct ctx *x)
{
	struct ht_states_msgs m;
	int status = HT_EXIT_OK;
	size_t i, shown = 0;
	uint64_t damaged = 0;
	size_t *order;

	if (x->window_header) {
		printf("\n");
	}
	order = malloc((ht_states_nr_cores(st) + 1) * sizeof(*order));
	if (!order) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog,
			ht_strerror(HT_ENOMEM));
		return HT_EXIT_FAIL;
	}
	ht_states_core_order(st, order);
	if (x->json) {
		json_open(x);
		ht_json_end_array(&x->j);
		ht_json_key(&x->j, "cores");
		ht_json_begin_array(&x->j);
	}
	for (i = 0; i < ht_states_nr_cores(st); i++) {
		const struct ht_states_core *core =
		    ht_states_core(st, order[i]);

		if (core_selected(x, core)) {
			if (x->json) {
				json_core(&x->j, core);
			} else {
				print_core(core);
			}
			shown++;
		}
		damaged += core->time_damaged;
	}
	free(order);
	if (x->json) {
		ht_json_end_array(&x->j);
	}
	if (x->core_sel && !shown) {
		fprintf(stderr, "%s: no core '%s' in the trace\n", ht_cli_prog,
			x->core_sel);
		status = HT_EXIT_FAIL;
	}
	if (!x->core_sel && x->json) {
		ht_states_msgs(st, &m);
		ht_json_key(&x->j, "messages");
		ht_json_begin_object(&x->j);
		ht_json_member_u64(&x->j, "sent", m.sent);
		ht_json_member_u64(&x->j, "received", m.received);
		ht_json_member_u64(&x->j, "matched", m.matched);
		ht_json_member_u64(&x->j, "received_without_send",
				   m.recv_unmatched);
		ht_json_member_u64(&x->j, "sent_without_receive",
				   m.send_unmatched);
		ht_json_member_u64(&x->j, "evicted", m.send_evicted);
		ht_json_end_object(&x->j);
	} else if (!x->core_sel) {
		ht_states_msgs(st, &m);
		printf("messages: %" PRIu64 " sent, %" PRIu64
		       " received, %" PRIu64 " matched, %" PRIu64
		       " received without a send, %" PRIu64
		       " sent without a receive (%" PRIu64 " evicted)\n",
		       m.sent, m.received, m.matched, m.recv_unmatched,
		       m.send_unmatched, m.send_evicted);
	}
	if (x->json) {
		ht_json_end_object(&x->j);
		printf("\n");
	}
	if (x->anomalies > MAX_ANOMALIES_SHOWN) {
		fprintf(stderr, "%s: %" PRIu64 " anomalies (%d shown)\n",
			ht_cli_prog, x->anomalies, MAX_ANOMALIES_SHOWN);
	}
	if (damaged) {
		/* damaged input, used as well as it can be */
		fprintf(stderr, "%s: %" PRIu64 " events with a damaged time\n",
			ht_cli_prog, damaged);
		status = HT_EXIT_FAIL;
	}
	return status;
}

int cmd_states(int argc, char **argv)
{
	struct states_args a = {
	    .opts = {.warn = ht_cli_warn},
	    .sopts = {.no_events = true},
	};
	struct ht_ctf_set *set = NULL;
	struct ht_states *st = NULL;
	uint64_t errors = 0;
	char err[1024];
	int ret, status = HT_EXIT_OK;

	ret = parse_options(argc, argv, &a);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	a.opts.flags |= HT_CTF_EVENTS_ONLY;
	ret = ht_cli_range_prepare(&a.range, a.traces.v, a.traces.nr, &a.opts,
				   false);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	if (ht_cli_open_traces(&set, a.traces.v, a.traces.nr, &a.opts)) {
		return HT_EXIT_FAIL;
	}
	ret = ht_states_create(&st, &a.sopts, on_item, &a.x);
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, ht_strerror(ret));
		status = HT_EXIT_FAIL;
		goto close_set;
	}
	ret = ht_states_run(st, set, &errors, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, ht_strerror(ret));
		status = HT_EXIT_FAIL;
		goto destroy;
	}
	if (errors) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		if (errors > 1) {
			fprintf(stderr, "%s: %" PRIu64 " more errors\n",
				ht_cli_prog, errors - 1);
		}
		status = HT_EXIT_FAIL;
	}
	if (print_tables(st, &a.x)) {
		status = HT_EXIT_FAIL;
	}
destroy:
	ht_states_destroy(st);
close_set:
	ht_ctf_set_close(set);
	return status;
}
