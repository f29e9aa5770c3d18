/* SPDX-License-Identifier: MIT */
/* hetrace-command: 27 qemu: run firmware on QEMU Cortex-M3 and RISC-V with the Linux master, capture */
/*
 * hetrace qemu -o CAPTURE --fw-dir DIR: the QEMU board
 * (platforms/qemu, docs/qemu.md), a Cortex-M3 and a RISC-V core under
 * QEMU running the paper's workload, the Linux master handing out the
 * jobs and running the sync handshake, every core's trace in CAPTURE.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platforms/qemu/master/qemu-run.h"
#include "cli.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: hetrace qemu -o CAPTURE (--fw-dir DIR | --cm3 ELF "
	    "--rv32 ELF) [options]\n"
	    "\n"
	    "Runs the QEMU board: a Cortex-M3 (mps2-an385) and a RISC-V RV32\n"
	    "(virt) core under QEMU, each running hetrace's firmware\n"
	    "(platforms/qemu; `make demo-qemu` builds it), and this process\n"
	    "as the Linux master: it describes the board in "
	    "CAPTURE/board.yaml\n"
	    "(each core's RAM file, ring, mailbox, and a byte on its serial\n"
	    "socket as the doorbell) and records it as `hetrace record "
	    "--board`\n"
	    "does (the sync handshake, every core's packet ring drained "
	    "into\n"
	    "CAPTURE, one CTF trace per core; `hetrace sync CAPTURE -o "
	    "TRACE`\n"
	    "puts them on one time base), while it hands out the paper's\n"
	    "workload (SHA-256 of the 5,040 permutations of \"barectf\",\n"
	    "pisum, quicksort) through shared-memory queues. Ctrl-C stops\n"
	    "early with a complete capture; no QEMU process is left behind.\n"
	    "\n"
	    "options:\n"
	    "  -o, --output DIR      the capture directory (required)\n"
	    "      --fw-dir DIR      firmware images DIR/cm3.elf, "
	    "DIR/rv32.elf\n"
	    "      --cm3 ELF         the Cortex-M3 image (alone: no RISC-V)\n"
	    "      --rv32 ELF        the RISC-V image (alone: no Cortex-M3)\n"
	    "      --icount CORE     run CORE (cm3, rv32, none) under "
	    "-icount,\n"
	    "                        its clock counting instructions, not "
	    "the\n"
	    "                        host's time: no line fits it "
	    "(default none)\n"
	    "      --shift N         -icount shift=N (default 0: 1 ns/insn)\n"
	    "      --sync-ms MS      handshake period (default 5)\n"
	    "      --light           a short workload (tests)\n"
	    "      --repeat N        run the job list N times (default 1)\n"
	    "      --extra-ms MS     keep the handshake going after the jobs\n"
	    "      --crash CORE      CORE faults after its first job (tests)\n"
	    "      --hang CORE       CORE hangs after its first job (tests)\n"
	    "      --work DIR        RAM files, sockets, QEMU logs (default:\n"
	    "                        a new directory in /tmp, removed after "
	    "a\n"
	    "                        successful run)\n"
	    "      --qemu-arm BIN    default qemu-system-arm\n"
	    "      --qemu-riscv BIN  default qemu-system-riscv32\n"
	    "      --no-fsync        do not sync the capture to disk\n"
	    "  -q, --quiet           no progress, no summary\n"
	    "  -h, --help            this help\n"
	    "\n"
	    "Exit status: 0 done, 1 a core or QEMU failed (the message names\n"
	    "which and when; the capture keeps every complete packet), 2 "
	    "usage.\n");
}

static void show_progress(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "%s: %s\n", ht_cli_prog, msg);
}

static void summary(const char *dir, const struct ht_qemu_result *r)
{
	unsigned i;

	printf("hetrace qemu: %u cores, %.2f s%s, capture in %s\n", r->nr_cores,
	       (double)r->elapsed_ns / 1e9,
	       r->interrupted ? " (interrupted)" : "", dir);
	printf("  %-6s %-6s %12s %7s %9s %8s %8s %9s %5s %5s %5s %9s\n", "core",
	       "role", "clock", "icount", "events", "packets", "MB",
	       "discarded", "jobs", "sync", "tmo", "min rtt");
	for (i = 0; i < r->nr_cores; i++) {
		const struct ht_qemu_core_stats *c = &r->core[i];

		printf("  %-6s %-6s %9.3f MHz %7s %9" PRIu64 " %8" PRIu64
		       " %8.2f %9" PRIu64 " %5" PRIu64 " %5" PRIu64 " %5" PRIu64
		       " %6.1f us\n",
		       c->name, c->role, (double)c->clock_hz / 1e6,
		       c->icount ? "yes" : "no", c->events, c->packets,
		       (double)c->bytes / 1e6, c->discarded, c->jobs,
		       c->sync_rounds, c->sync_timeouts,
		       (double)c->sync_min_rtt_ns / 1e3);
		if (c->stopped) {
			printf("  %-6s STOPPED: %s\n", c->name, c->stop_reason);
		}
	}
	if (r->nr_jobs) {
		printf("  %-6s %-9s %12s %14s %12s\n", "core", "job", "result",
		       "core ticks", "master ms");
		for (i = 0; i < r->nr_jobs; i++) {
			const struct ht_qemu_job *j = &r->jobs[i];

			printf("  %-6s %-9s %12" PRIu64 " %14" PRIu64
			       " %12.3f\n",
			       j->core, j->name, j->result, j->ticks,
			       (double)j->host_ns / 1e6);
		}
	}
}

/* Removes the work directory's files after a good run. */
static void clean_work(const char *dir)
{
	static const char *const names[] = {"cm3.log", "rv32.log", "cm3.uart",
					    "rv32.uart", "board.yaml"};
	char path[PATH_MAX];
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* What the options ask for. */
struct qemu_args {
	struct ht_qemu_opts o;
	const char *fw_dir;
	const char *icount;
	bool quiet;
	bool own_work; /* work is a new directory, removed after a good run */
	char cm3[PATH_MAX], rv32[PATH_MAX], work[PATH_MAX];
};

/* What the numeric options ask for, in their units. */
struct qemu_numbers {
	uint64_t shift, sync_ms, repeat, extra_ms;
};

/* ARG names a QEMU core, or is "none" when @none_ok; else a message. */
static int check_core(const char *opt, const char *arg, bool none_ok)
{
	if (!strcmp(arg, "cm3") || !strcmp(arg, "rv32") ||
	    (none_ok && !strcmp(arg, "none"))) {
		return HT_CLI_GO_ON;
	}
	fprintf(stderr, "%s: --%s: '%s': expected cm3%s rv32%s\n", ht_cli_prog,
		opt, arg, none_ok ? "," : " or", none_ok ? " or none" : "");
	return HT_EXIT_USAGE;
}

/* --icount CORE: which core counts instructions (or none). */
static int icount_opt(const struct ht_cli_opt *opt, const char *arg)
{
	const char **icount = opt->to.arg;
	int ret = check_core(opt->name, arg, true);

	if (ret == HT_CLI_GO_ON) {
		*icount = arg;
	}
	return ret;
}

/* --crash CORE, --hang CORE: how and which core fails (tests). */
static int fail_opt(const struct ht_cli_opt *opt, const char *arg)
{
	struct ht_qemu_opts *o = opt->to.arg;
	int ret = check_core(opt->name, arg, false);

	if (ret == HT_CLI_GO_ON) {
		o->fail = !strcmp(opt->name, "crash") ? HT_QEMU_FAIL_CRASH
						      : HT_QEMU_FAIL_HANG;
		o->fail_core = arg;
	}
	return ret;
}

/* The firmware of each core (--fw-dir, --cm3, --rv32), and what the
 * options say of the cores agreeing with it. Returns HT_CLI_GO_ON, or
 * HT_EXIT_USAGE after a message. */
static int pick_cores(struct qemu_args *a)
{
	if (a->fw_dir) {
		snprintf(a->cm3, sizeof(a->cm3), "%s/cm3.elf", a->fw_dir);
		snprintf(a->rv32, sizeof(a->rv32), "%s/rv32.elf", a->fw_dir);
		if (!a->o.fw_cm3) {
			a->o.fw_cm3 = a->cm3;
		}
		if (!a->o.fw_rv32) {
			a->o.fw_rv32 = a->rv32;
		}
	}
	if (!a->o.fw_cm3 && !a->o.fw_rv32) {
		return ht_cli_usage_error(usage,
					  "no firmware: give --fw-dir "
					  "DIR, --cm3 ELF or --rv32 ELF");
	}
	if (a->o.fail_core && !strcmp(a->o.fail_core, "cm3") ? !a->o.fw_cm3
	    : a->o.fail_core				     ? !a->o.fw_rv32
							     : false) {
		fprintf(stderr,
			"%s: --crash/--hang %s: that core does "
			"not run\n",
			ht_cli_prog, a->o.fail_core);
		return HT_EXIT_USAGE;
	}
	a->o.icount_cm3 = !strcmp(a->icount, "cm3");
	a->o.icount_rv32 = !strcmp(a->icount, "rv32");
	return HT_CLI_GO_ON;
}

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct qemu_args *a)
{
	struct qemu_numbers n = {0};
	const struct ht_cli_opt table[] = {
	    HT_CLI_STRING('o', "output", &a->o.capture_dir),
	    HT_CLI_STRING(0, "fw-dir", &a->fw_dir),
	    HT_CLI_STRING(0, "cm3", &a->o.fw_cm3),
	    HT_CLI_STRING(0, "rv32", &a->o.fw_rv32),
	    HT_CLI_CALL(0, "icount", icount_opt, &a->icount),
	    HT_CLI_UINT(0, "shift", &n.shift, 0, 10, NULL),
	    HT_CLI_UINT(0, "sync-ms", &n.sync_ms, 1, 10000, NULL),
	    HT_CLI_FLAG(0, "light", &a->o.light),
	    HT_CLI_UINT(0, "repeat", &n.repeat, 1, 4, NULL),
	    HT_CLI_UINT(0, "extra-ms", &n.extra_ms, 0, 3600000, NULL),
	    HT_CLI_CALL(0, "crash", fail_opt, &a->o),
	    HT_CLI_CALL(0, "hang", fail_opt, &a->o),
	    HT_CLI_STRING(0, "work", &a->o.work_dir),
	    HT_CLI_STRING(0, "qemu-arm", &a->o.qemu_arm),
	    HT_CLI_STRING(0, "qemu-riscv", &a->o.qemu_riscv),
	    HT_CLI_FLAG(0, "no-fsync", &a->o.no_fsync),
	    HT_CLI_FLAG('q', "quiet", &a->quiet),
	    HT_CLI_OPT_END,
	};
	struct ht_cli_args args;
	int ret;

	ret =
	    ht_cli_parse(argc, argv, table, HT_CLI_WANT_NO_ARGS, usage, &args);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	/* an option not given stays 0: the board's default */
	a->o.icount_shift = (unsigned)n.shift;
	a->o.sync_period_ns = n.sync_ms * 1000000u;
	a->o.repeat = (unsigned)n.repeat;
	a->o.extra_ns = n.extra_ms * 1000000u;
	if (!a->o.capture_dir) {
		return ht_cli_usage_error(usage, "-o CAPTURE is required");
	}
	return pick_cores(a);
}

/* --work DIR, else a new directory in /tmp. */
static int make_work_dir(struct qemu_args *a)
{
	if (a->o.work_dir && mkdir(a->o.work_dir, 0700) != 0 &&
	    errno != EEXIST) {
		fprintf(stderr, "%s: cannot create the work directory %s: %s\n",
			ht_cli_prog, a->o.work_dir, strerror(errno));
		return HT_EXIT_FAIL;
	}
	if (!a->o.work_dir) {
		snprintf(a->work, sizeof(a->work), "/tmp/hetrace-qemu-XXXXXX");
		if (!mkdtemp(a->work)) {
			fprintf(stderr,
				"%s: cannot create a work directory in "
				"/tmp: %s\n",
				ht_cli_prog, strerror(errno));
			return HT_EXIT_FAIL;
		}
		a->o.work_dir = a->work;
		a->own_work = true;
	}
	return HT_EXIT_OK;
}

int cmd_qemu(int argc, char **argv)
{
	struct qemu_args a = {.icount = "none"};
	struct ht_qemu_result *res;
	char err[4096];
	int ret;

	ret = parse_options(argc, argv, &a);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	ret = make_work_dir(&a);
	if (ret) {
		return ret;
	}
	a.o.stop = ht_cli_catch_stop(true);
	a.o.warn = ht_cli_warn;
	if (!a.quiet) {
		a.o.progress = show_progress;
	}

	res = calloc(1, sizeof(*res));
	if (!res) {
		return ht_cli_nomem();
	}
	ret = ht_qemu_run(&a.o, res, err, sizeof(err));
	ht_cli_catch_stop(false);
	if (!a.quiet && res->nr_cores) {
		summary(a.o.capture_dir, res);
	}
	if (ret < 0) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		fprintf(stderr, "%s: QEMU logs kept in %s\n", ht_cli_prog,
			a.o.work_dir);
		free(res);
		return HT_EXIT_FAIL;
	}
	if (a.own_work) {
		clean_work(a.o.work_dir);
	}
	free(res);
	return HT_EXIT_OK;
}
