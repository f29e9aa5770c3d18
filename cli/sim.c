/* SPDX-License-Identifier: MIT */
/* hetrace-command: 25 sim: run the simulated board and capture its traces */
/*
 * hetrace sim -o CAPTURE [--cores N] [--duration S]: the simulated board
 * (platforms/sim, docs/sim.md), a master and N slave processes with
 * their own clocks, tracing the Sobel pipeline and the sync handshake
 * into CAPTURE (one CTF trace per core, truth.json).
 */
#include <getopt.h>
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
	    "task switches, interrupts and the sync handshake. The capture\n"
	    "holds one CTF trace per core and truth.json, the clocks' true\n"
	    "models (docs/sim.md). Ctrl-C stops early with a complete "
	    "capture.\n"
	    "\n"
	    "options:\n"
	    "  -o, --output DIR       the capture directory (required)\n"
	    "      --cores N          slave cores, 1 to 8 (default 8)\n"
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

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct ht_sim_opts *o,
			 bool *quiet)
{
	enum {
		OPT_CORES = 256,
		OPT_FRAME,
		OPT_DEADLINE,
		OPT_SYNC,
		OPT_PREEMPT,
		OPT_BURST,
		OPT_SPIN,
		OPT_NOFSYNC,
		OPT_LTTNG
	};
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"cores", required_argument, NULL, OPT_CORES},
	    {"duration", required_argument, NULL, 'd'},
	    {"seconds", required_argument, NULL, 'd'},
	    {"frame-ms", required_argument, NULL, OPT_FRAME},
	    {"deadline-ms", required_argument, NULL, OPT_DEADLINE},
	    {"sync-ms", required_argument, NULL, OPT_SYNC},
	    {"preempt-every", required_argument, NULL, OPT_PREEMPT},
	    {"sync-burst", required_argument, NULL, OPT_BURST},
	    {"idle-spin-us", required_argument, NULL, OPT_SPIN},
	    {"no-fsync", no_argument, NULL, OPT_NOFSYNC},
	    {"lttng", no_argument, NULL, OPT_LTTNG},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, opt_index = 0;
	double v;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:d:qh", longopts, &opt_index)) !=
	       -1) {
		switch (c) {
		case 'o':
			o->capture_dir = optarg;
			break;
		case OPT_CORES:
			if (!ht_cli_real_arg("cores", optarg, 1,
					     HT_SIM_MAX_SLAVES, true,
					     "a number of slave cores", &v)) {
				return HT_EXIT_USAGE;
			}
			o->nr_slaves = (unsigned)v;
			break;
		case 'd':
			if (!ht_cli_real_arg("duration", optarg, 0.05, 3600,
					     false, "a duration", &v)) {
				return HT_EXIT_USAGE;
			}
			o->duration_ns = (uint64_t)(v * 1e9);
			break;
		case OPT_FRAME:
		case OPT_DEADLINE:
		case OPT_SYNC:
			if (!ht_cli_real_arg(longopts[opt_index].name, optarg,
					     0.1, 10000, false,
					     "a period in ms", &v)) {
				return HT_EXIT_USAGE;
			}
			*(c == OPT_FRAME      ? &o->frame_period_ns
			  : c == OPT_DEADLINE ? &o->deadline_ns
					      : &o->sync_period_ns) =
			    (uint64_t)(v * 1e6);
			break;
		case OPT_PREEMPT:
			if (!ht_cli_real_arg("preempt-every", optarg, 1,
					     1000000, true,
					     "a number of frames", &v)) {
				return HT_EXIT_USAGE;
			}
			o->preempt_every = (unsigned)v;
			break;
		case OPT_BURST:
			if (!ht_cli_real_arg("sync-burst", optarg, 1, 100, true,
					     "a number of rounds", &v)) {
				return HT_EXIT_USAGE;
			}
			o->sync_burst = (unsigned)v;
			break;
		case OPT_SPIN:
			if (!ht_cli_real_arg("idle-spin-us", optarg, 0, 100000,
					     false, "a time in us", &v)) {
				return HT_EXIT_USAGE;
			}
			o->idle_spin_ns = (uint32_t)(v * 1e3);
			break;
		case OPT_NOFSYNC:
			o->no_fsync = true;
			break;
		case OPT_LTTNG:
			o->lttng = true;
			break;
		case 'q':
			*quiet = true;
			break;
		case 'h':
			return ht_cli_help_or_usage(c, usage);
		case ':':
			return ht_cli_usage_error(usage,
						  "option '%s' needs a value",
						  argv[optind - 1]);
		default:
			return ht_cli_usage_error(usage, "unknown option '%s'",
						  argv[optind - 1]);
		}
	}
	if (ht_cli_want_no_args(argc, argv, usage) != HT_CLI_GO_ON) {
		return HT_EXIT_USAGE;
	}
	if (!o->capture_dir) {
		return ht_cli_usage_error(usage, "-o CAPTURE is required");
	}

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
