/* SPDX-License-Identifier: MIT */
/* hetrace-command: 25 sim: run the simulated board and capture its traces */
/*
 * hetrace sim -o CAPTURE [--cores N] [--duration S]: the simulated board
 * (platforms/sim, docs/sim.md), a master and N slave processes with
 * their own clocks, tracing the Sobel pipeline and the sync handshake,
 * recorded by the generic master from the board file it writes into
 * CAPTURE (one CTF trace per core, board.yaml, truth.json).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platforms/sim/master/sim.h"
#include "cli.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: hetrace sim -o CAPTURE [--cores N] [--duration S]\n"
	    "\n"
	    "Runs the simulated board: a master (arm0) and N slave cores\n"
	    "(dsp0..), each a process with its own simulated clock\n"
	    "(32.768 kHz to 1 GHz, offsets, drift, 32-bit counters that wrap,\n"
	    "a frequency step), tracing the Sobel frame pipeline, messages,\n"
	    "task switches, interrupts and the sync handshake. The slaves\n"
	    "are recorded by the generic master from the board file the\n"
	    "launcher writes (CAPTURE/board.yaml, as `hetrace record\n"
	    "--board`). The capture holds one CTF trace per core and\n"
	    "truth.json, the clocks' true models (docs/sim.md). Ctrl-C\n"
	    "stops early with a complete capture.\n"
	    "\n"
	    "options:\n"
	    "  -o, --output DIR       the capture directory (required)\n"
	    "      --cores N          slave cores, 1 to 128 (default 8; also\n"
	    "                         --slaves)\n"
	    "  -d, --duration S       run time in seconds (default 3; also\n"
	    "                         --seconds)\n"
	    "      --frame-ms MS      frame period (default 33)\n"
	    "      --deadline-ms MS   frame deadline (default 16)\n"
	    "      --sync-ms MS       sync handshake period (default 10)\n"
	    "      --preempt-every N  every Nth frame is preempted (default "
	    "10)\n"
	    "      --sync-burst N     handshake rounds per slave and period,\n"
	    "                         back to back (default 3)\n"
	    "      --idle-spin-us US  an idle slave spins this long before it\n"
	    "                         sleeps (default 0: never)\n"
	    "      --no-fsync         do not sync the capture to disk\n"
	    "      --lttng            the master also emits its sync and "
	    "message\n"
	    "                         events through LTTng-UST (provider "
	    "hetrace,\n"
	    "                         libhetrace-lttng.so; docs/lttng.md)\n"
	    "  -q, --quiet            no summary\n"
	    "  -h, --help             this help\n");
}

static void summary(const char *dir, const struct ht_sim_result *r)
{
	unsigned i;

	printf("hetrace sim: %u cores, %.2f s%s, %" PRIu64 " frames (%" PRIu64
	       " late), capture in %s\n",
	       r->nr_cores, (double)r->elapsed_ns / 1e9,
	       r->interrupted ? " (interrupted)" : "", r->frames,
	       r->late_frames, dir);
	printf("%-5s %-6s %12s %9s %8s %9s %7s %8s %9s\n", "core", "role",
	       "clock Hz", "events", "packets", "discarded", "rounds",
	       "timeouts", "wrapped");
	for (i = 0; i < r->nr_cores; i++) {
		const struct ht_sim_core_stats *c = &r->core[i];

		printf("%-5s %-6s %12" PRIu64 " %9" PRIu64 " %8" PRIu64
		       " %9" PRIu64 " %7" PRIu64 " %8" PRIu64 " %9s\n",
		       c->name, c->role, c->freq_hz, c->events, c->packets,
		       c->discarded, c->sync_rounds, c->sync_timeouts,
		       i == 0	    ? "-"
		       : c->wrapped ? "yes"
				    : "no");
	}
}

/* What the options ask for, in their units. */
struct sim_args {
	double cores, duration_s, frame_ms, deadline_ms, sync_ms;
	double preempt_every, sync_burst, idle_spin_us;
};

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct ht_sim_opts *o,
			 bool *quiet)
{
	struct sim_args a = {0};
	const struct ht_cli_opt table[] = {
	    HT_CLI_STRING('o', "output", &o->capture_dir),
	    HT_CLI_WHOLE(0, "cores", &a.cores, 1, HT_SIM_MAX_SLAVES,
			 "a number of slave cores"),
	    HT_CLI_ALIAS("slaves"),
	    HT_CLI_REAL('d', "duration", &a.duration_s, 0.05, 3600,
			"a duration"),
	    HT_CLI_ALIAS("seconds"),
	    HT_CLI_REAL(0, "frame-ms", &a.frame_ms, 0.1, 10000,
			"a period in ms"),
	    HT_CLI_REAL(0, "deadline-ms", &a.deadline_ms, 0.1, 10000,
			"a period in ms"),
	    HT_CLI_REAL(0, "sync-ms", &a.sync_ms, 0.1, 10000, "a period in ms"),
	    HT_CLI_WHOLE(0, "preempt-every", &a.preempt_every, 1, 1000000,
			 "a number of frames"),
	    HT_CLI_WHOLE(0, "sync-burst", &a.sync_burst, 1, 100,
			 "a number of rounds"),
	    HT_CLI_REAL(0, "idle-spin-us", &a.idle_spin_us, 0, 100000,
			"a time in us"),
	    HT_CLI_FLAG(0, "no-fsync", &o->no_fsync),
	    HT_CLI_FLAG(0, "lttng", &o->lttng),
	    HT_CLI_FLAG('q', "quiet", quiet),
	    HT_CLI_OPT_END,
	};
	struct ht_cli_args args;
	int ret;

	ret = ht_cli_parse(argc, argv, table,
			   HT_CLI_WANT_NO_ARGS | HT_CLI_OWN_MESSAGES, usage,
			   &args);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	if (!o->capture_dir) {
		return ht_cli_usage_error(usage, "-o CAPTURE is required");
	}
	/* an option not given stays 0: the board's default */
	o->nr_slaves = (unsigned)a.cores;
	o->duration_ns = (uint64_t)(a.duration_s * 1e9);
	o->frame_period_ns = (uint64_t)(a.frame_ms * 1e6);
	o->deadline_ns = (uint64_t)(a.deadline_ms * 1e6);
	o->sync_period_ns = (uint64_t)(a.sync_ms * 1e6);
	o->preempt_every = (unsigned)a.preempt_every;
	o->sync_burst = (unsigned)a.sync_burst;
	o->idle_spin_ns = (uint32_t)(a.idle_spin_us * 1e3);
	return HT_CLI_GO_ON;
}

int cmd_sim(int argc, char **argv)
{
	struct ht_sim_opts o = {0};
	struct ht_sim_result res;
	char err[1024];
	bool quiet = false;
	int ret;

	ret = parse_options(argc, argv, &o, &quiet);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	o.stop = ht_cli_catch_stop(true);
	o.warn = ht_cli_warn;

	ret = ht_sim_run(&o, &res, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		return HT_EXIT_FAIL;
	}
	if (!quiet) {
		summary(o.capture_dir, &res);
	}
	return HT_EXIT_OK;
}
