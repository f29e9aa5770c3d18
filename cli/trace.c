/* SPDX-License-Identifier: MIT */
/* hetrace-command: 24 trace: set a target's trigger and stopper, record it over its serial link, export */
/*
 * hetrace trace TARGET --elf FW [--trigger F [--nth N] [--caller F]]
 *               [--stopper F] [--couple F] [--seconds S] -o CAPTURE
 *               [--perfetto FILE]
 * One shot: HELLO and the build id check, the recording window set by
 * name (cli/target.c), tracing enabled, the capture recorded with sync
 * rounds (host/collect/serial-record.h, which flushes the target at the
 * end), then a summary read back from the capture and, with
 * --perfetto, the core's trace exported (host/export/export.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/error.h"
#include "common/path.h"
#include "host/analysis/func-names.h"
#include "host/analysis/func-slices.h"
#include "host/analysis/target-names.h"
#include "host/collect/serial-record.h"
#include "host/export/export.h"
#include "host/export/out-file.h"
#include "target.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: %s TARGET [--elf FW] [--trigger F [--nth N] [--caller "
	    "F]]\n"
	    "          [--stopper F | --couple F] [--seconds S] -o CAPTURE\n"
	    "          [--perfetto FILE]\n\n"
	    "Sets the recording window of the target at the other end of a "
	    "serial link\n(docs/serial.md), enables function tracing, records "
	    "its packets with sync\nrounds into CAPTURE for S seconds (or "
	    "until Ctrl-C), flushes the target's\nlast packet and prints a "
	    "summary: events, losses, how often the trigger\nopened the "
	    "window. F is a function name (through --elf FW) or an "
	    "address\n0x...; without --trigger, --stopper and --couple the "
	    "window is cleared:\neverything from now on is traced. "
	    "TARGET: /dev/ttyUSB0[:BAUD], pty:PATH,\nunix:PATH, "
	    "tcp:HOST:PORT or HOST:PORT.\n\n"
	    "options:\n"
	    "  -e, --elf FW           the firmware's ELF: names, build id "
	    "check\n"
	    "      --trigger F        record from F's entry\n"
	    "      --nth N            only F's Nth call (0: every call)\n"
	    "      --caller F         only when F is called from this "
	    "function\n"
	    "      --stopper F        stop recording after F's exit\n"
	    "      --couple F         record one call of F and its callees\n"
	    "  -d, --seconds S        record for S seconds (default 2; also "
	    "--duration)\n"
	    "  -o, --output DIR       the capture directory (required)\n"
	    "      --perfetto FILE    then export the core's trace for "
	    "Perfetto\n"
	    "      --timeout MS       wait for each reply (default 1000)\n"
	    "      --strict-build-id  FW's build id must be the target's\n"
	    "  -q, --quiet            no progress line\n"
	    "  -h, --help             this help\n\n"
	    "exit status: 0 done, 1 the target does not answer or went away "
	    "(the\ncapture so far is kept), a refused command, the export "
	    "failed, 2 usage\nerror (an unknown function name: the nearest "
	    "names)\n",
	    ht_cli_prog);
}

/* What the options ask for. */
struct trace_args {
	const char *elf, *trigger, *caller, *stopper, *couple;
	const char *output, *perfetto;
	uint64_t nth, timeout_ms;
	double seconds;
	bool strict_build_id, quiet;
	struct ht_cli_args rest; /* TARGET */
};

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct trace_args *a)
{
	bool has_nth = false;
	const struct ht_cli_opt table[] = {
	    HT_CLI_STRING('e', "elf", &a->elf),
	    HT_CLI_STRING(0, "trigger", &a->trigger),
	    HT_CLI_UINT(0, "nth", &a->nth, 0, UINT32_MAX, "a call number"),
	    HT_CLI_STRING(0, "caller", &a->caller),
	    HT_CLI_STRING(0, "stopper", &a->stopper),
	    HT_CLI_STRING(0, "couple", &a->couple),
	    HT_CLI_REAL('d', "seconds", &a->seconds, 1e-3, 1e9,
			"a duration in seconds"),
	    HT_CLI_ALIAS("duration"),
	    HT_CLI_STRING('o', "output", &a->output),
	    HT_CLI_STRING(0, "perfetto", &a->perfetto),
	    HT_CLI_UINT(0, "timeout", &a->timeout_ms, 1, 3600000,
			"a time in ms"),
	    HT_CLI_FLAG(0, "strict-build-id", &a->strict_build_id),
	    HT_CLI_FLAG('q', "quiet", &a->quiet),
	    HT_CLI_OPT_END,
	};
	int ret;

	a->nth = UINT64_MAX; /* not given */
	ret = ht_cli_parse(argc, argv, table, 0, usage, &a->rest);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	has_nth = a->nth != UINT64_MAX;
	if (!has_nth) {
		a->nth = 0;
	}
	if (a->rest.nr != 1) {
		return ht_cli_usage_error(usage, "%s",
					  a->rest.nr ? "one TARGET only"
						     : "no TARGET given");
	}
	if (!a->output) {
		return ht_cli_usage_error(usage, "-o CAPTURE is required");
	}
	if (a->couple && (a->trigger || a->stopper)) {
		return ht_cli_usage_error(usage,
					  "--couple F is --trigger F --stopper "
					  "F for one call: not with them");
	}
	if ((has_nth || a->caller) && !a->trigger) {
		return ht_cli_usage_error(usage,
					  "--nth and --caller are conditions "
					  "of --trigger");
	}
	if (a->seconds == 0) {
		a->seconds = 2;
	}
	return HT_CLI_GO_ON;
}

/* The window's functions, resolved before the line opens. */
struct window {
	uint64_t trigger, caller, stopper, couple;
};

static int resolve(struct ht_cli_target *t, const struct trace_args *a,
		   struct window *win)
{
	int status = HT_EXIT_OK;

	if (a->trigger) {
		status = ht_cli_target_resolve(t, "--trigger", a->trigger,
					       &win->trigger);
	}
	if (!status && a->caller) {
		status = ht_cli_target_resolve(t, "--caller", a->caller,
					       &win->caller);
	}
	if (!status && a->stopper) {
		status = ht_cli_target_resolve(t, "--stopper", a->stopper,
					       &win->stopper);
	}
	if (!status && a->couple) {
		status = ht_cli_target_resolve(t, "--couple", a->couple,
					       &win->couple);
	}
	return status;
}

/*
 * Sends what the target has before the window is set, and waits for
 * the line to be quiet: those packets hold records of the settings
 * before (the sink counts and drops them), so the capture holds only
 * what the new window lets through.
 */
static int drain_before(struct ht_cli_target *t)
{
	struct ht_serial_reply r;
	uint64_t end, quiet_since;
	char err[1024];
	int status;

	status = ht_cli_target_cmd(t, HT_SPC_DISABLE, NULL, 0, &r, 0);
	if (!status) {
		status = ht_cli_target_cmd(t, HT_SPC_FLUSH, NULL, 0, &r, 0);
	}
	if (status) {
		return status;
	}
	end = ht_serial_now_ns() + (uint64_t)t->timeout_ms * 1000000u;
	quiet_since = ht_serial_now_ns();
	while (ht_serial_now_ns() < end) {
		uint64_t before = ht_serial_stats(t->line)->bytes;

		if (ht_serial_pump(t->line, 10, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
			return HT_EXIT_FAIL;
		}
		if (ht_serial_stats(t->line)->bytes != before) {
			quiet_since = ht_serial_now_ns();
		} else if (ht_serial_now_ns() - quiet_since > 50000000u) {
			break;
		}
	}
	return HT_EXIT_OK;
}

/* Sets the window (or clears it) and enables tracing. */
static int set_window(struct ht_cli_target *t, const struct trace_args *a,
		      const struct window *win)
{
	struct ht_serial_reply r;
	uint8_t args[24] = {0};
	int status;

	if (!(t->hello.flags & HT_SP_HAS_INSTR)) {
		if (a->trigger || a->stopper || a->couple) {
			fprintf(
			    stderr,
			    "%s: %s: the firmware has no function tracing "
			    "(HELLO): no --trigger, --stopper or --couple\n",
			    ht_cli_prog, t->name);
			return HT_EXIT_FAIL;
		}
		/* its events are recorded as they come */
		return HT_EXIT_OK;
	}
	status = drain_before(t);
	if (status) {
		return status;
	}
	if (a->couple) {
		ht_sp_put64(args, win->couple);
		status = ht_cli_target_cmd(t, HT_SPC_COUPLE, args, 8, &r, 0);
	} else {
		ht_sp_put64(args, win->trigger);
		ht_sp_put32(args + 8, (uint32_t)a->nth);
		ht_sp_put64(args + 16, win->caller);
		status = ht_cli_target_cmd(t, HT_SPC_TRIGGER, args, 24, &r, 0);
		if (!status) {
			ht_sp_put64(args, win->stopper);
			status = ht_cli_target_cmd(t, HT_SPC_STOPPER, args, 8,
						   &r, 0);
		}
	}
	if (!status) {
		status = ht_cli_target_cmd(t, HT_SPC_ENABLE, NULL, 0, &r, 0);
	}
	return status;
}

/* What the capture holds, read back. */
struct summary {
	uint64_t opener; /* the function that opens the window, 0: none */
	uint64_t events, entries, exits, windows;
	uint64_t discarded, lost_packets;
	uint64_t first_seq; /* packets the target sent before the run */
};

static void on_enter(void *arg, const struct ht_func_slice *s, void **user)
{
	struct summary *sum = arg;

	(void)user;
	/* each window begins with the opener's entry, outermost there */
	if (sum->opener && s->addr == sum->opener && s->depth == 0) {
		sum->windows++;
	}
}

/* Reads CAPTURE/<core> once for the summary. Returns the exit status. */
static int read_back(const char *dir, struct summary *sum)
{
	/* calls cut by the window's edges are normal here: no warnings */
	struct ht_ctf_open_opts opts = {.flags = HT_CTF_KEEP_GOING};
	struct ht_func_slices_opts fo = {.enter = on_enter, .arg = sum};
	struct ht_func_slices *f = NULL;
	struct ht_ctf_set *set = NULL;
	struct ht_ctf_msg msg;
	char *paths[1] = {(char *)dir};
	char err[1024];
	int status, ret;

	if (ht_func_slices_create(&f, &fo)) {
		return ht_cli_nomem();
	}
	status = ht_cli_open_traces(&set, paths, 1, &opts);
	while (!status && (ret = ht_ctf_set_next(set, &msg)) != HT_EEOF) {
		if (ret) {
			fprintf(stderr, "%s: %s\n", ht_cli_prog,
				ht_ctf_set_last_error(set));
			status = HT_EXIT_FAIL;
			break;
		}
		if (msg.kind == HT_CTF_MSG_EVENT) {
			sum->events++;
		} else if (msg.kind == HT_CTF_MSG_DISCARDED_PACKETS) {
			if (msg.before_first) {
				sum->first_seq += msg.count;
			} else {
				sum->lost_packets += msg.count;
			}
		} else if (msg.kind == HT_CTF_MSG_DISCARDED_EVENTS) {
			sum->discarded += msg.count;
		}
		if (ht_func_slices_feed(f, &msg, err, sizeof(err)) ==
		    HT_ENOMEM) {
			status = ht_cli_nomem();
		}
	}
	if (set) {
		ht_func_slices_finish(f);
		for (size_t i = 0; i < ht_func_slices_nr_cores(f); i++) {
			const struct ht_func_core *c =
			    ht_func_slices_core(f, i);

			sum->entries += c->entries;
			sum->exits += c->exits;
		}
	}
	ht_ctf_set_close(set);
	ht_func_slices_destroy(f);
	return status;
}

/* --perfetto FILE: the core's trace, names from --elf. */
static int export_perfetto(const char *dir, const char *elf, const char *file,
			   bool quiet)
{
	struct ht_ctf_open_opts opts = {
	    .flags = HT_CTF_KEEP_GOING | HT_CTF_EVENTS_ONLY,
	    .warn = ht_cli_warn,
	};
	struct ht_export_opts eopts = {.warn = ht_cli_warn};
	struct ht_export_stats stats;
	struct ht_func_names *fn = NULL;
	struct ht_ctf_set *set = NULL;
	struct ht_out_file out;
	char *paths[1] = {(char *)dir};
	char err[1024];
	int status;

	if (elf) {
		if (ht_func_names_create(&fn)) {
			return ht_cli_nomem();
		}
		if (ht_func_names_add(fn, elf, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
			status = HT_EXIT_FAIL;
			goto destroy_names;
		}
		eopts.fnames = fn;
	}
	status = ht_cli_open_traces(&set, paths, 1, &opts);
	if (status) {
		goto destroy_names;
	}
	if (ht_out_file_open(&out, file, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		status = HT_EXIT_FAIL;
		goto close_set;
	}
	if (ht_export_run(ht_export_find("perfetto"), set, out.f, &eopts,
			  &stats, err, sizeof(err))) {
		ht_out_file_abort(&out);
		fprintf(stderr, "%s: %s: %s\n", ht_cli_prog, file, err);
		status = HT_EXIT_FAIL;
		goto close_set;
	}
	if (ht_out_file_commit(&out, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		status = HT_EXIT_FAIL;
		goto close_set;
	}
	if (!quiet) {
		printf("perfetto: %s: %" PRIu64 " slices, %" PRIu64
		       " instants, %" PRIu64 " bytes\n",
		       file, stats.slices, stats.instants, stats.bytes);
	}
close_set:
	ht_ctf_set_close(set);
destroy_names:
	ht_func_names_destroy(fn);
	return status;
}

static void print_summary(const struct ht_cli_target *t,
			  const struct ht_serial_record_result *r,
			  const struct summary *sum, const char *dir)
{
	char name[300];

	printf("trace: %" PRIu64 " events (%" PRIu64 " func_entry, %" PRIu64
	       " func_exit) in %.1f s into %s\n",
	       sum->events, sum->entries, sum->exits, r->seconds, dir);
	printf("lost: %" PRIu64 " events discarded by the target, %" PRIu64
	       " packets lost, %" PRIu32 " frames lost on the line, %" PRIu32
	       " bad frames\n",
	       sum->discarded, sum->lost_packets, r->line.lost,
	       r->line.crc_errs + r->line.cobs_errs + r->line.runts +
		   r->line.too_long);
	if (sum->first_seq) {
		printf("the recording begins at the target's packet %" PRIu64
		       " (the ones before were sent before it)\n",
		       sum->first_seq);
	}
	if (sum->opener) {
		printf("window: opened %" PRIu64 " times by %s\n", sum->windows,
		       ht_target_names_format(t->sy, sum->opener, name,
					      sizeof(name)));
	}
	printf("sync: %" PRIu64 " rounds (%" PRIu64 " timed out)",
	       r->sync_rounds, r->sync_timeouts);
	if (r->min_rtt_ns) {
		printf(", shortest round trip %.3f ms",
		       (double)r->min_rtt_ns / 1e6);
	}
	printf("\n");
	if (r->boots) {
		printf("the target rebooted %" PRIu32
		       " times during the run: its streams after each boot "
		       "are stream-bootN\n",
		       r->boots);
	}
}

static void warn_cb(void *arg, const char *msg)
{
	ht_cli_warn(arg, msg);
}

int cmd_trace(int argc, char **argv)
{
	struct trace_args a = {0};
	struct ht_cli_target t = {0};
	struct window win = {0};
	struct ht_serial_record_opts ro = {0};
	struct ht_serial_record_result rr;
	struct summary sum = {0};
	char err[1024], *dir = NULL;
	int status, ret;

	status = parse_options(argc, argv, &a);
	if (status != HT_CLI_GO_ON) {
		return status;
	}
	t.timeout_ms = (int)a.timeout_ms;
	t.strict_build_id = a.strict_build_id;
	t.what = "trace";
	status = ht_cli_target_elf(&t, a.elf);
	if (!status) {
		status = resolve(&t, &a, &win);
	}
	if (!status) {
		status = ht_cli_target_open(&t, a.rest.v[0]);
	}
	if (!status) {
		status = set_window(&t, &a, &win);
	}
	if (status) {
		goto close_target;
	}
	sum.opener = a.couple ? win.couple : win.trigger;

	memset(&rr, 0, sizeof(rr));
	ro.capture = a.output;
	ro.seconds = a.seconds;
	ro.stop = (volatile int *)ht_cli_catch_stop(true);
	ro.quiet = a.quiet;
	ro.progress = !a.quiet;
	ro.hello_timeout_ms = t.timeout_ms;
	/* The line was drained before the window was set: what comes now
	 * is the window's. */
	ro.keep_early = 1;
	ro.warn = warn_cb;
	ret = ht_serial_record(t.line, &ro, &rr, err, sizeof(err));
	ht_cli_catch_stop(false);
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		status = HT_EXIT_FAIL;
		if (!rr.core[0]) {
			goto close_target;
		}
		/* the line went away: what was recorded is complete */
	}
	dir = ht_path_join(a.output, rr.core);
	if (!dir) {
		status = ht_cli_nomem();
		goto close_target;
	}
	if (read_back(dir, &sum)) {
		status = HT_EXIT_FAIL;
		goto free_dir;
	}
	print_summary(&t, &rr, &sum, dir);
	if (a.perfetto && export_perfetto(dir, a.elf, a.perfetto, a.quiet)) {
		status = HT_EXIT_FAIL;
	}
free_dir:
	free(dir);
close_target:
	ht_cli_target_close(&t);
	return status;
}
