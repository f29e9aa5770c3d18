/* SPDX-License-Identifier: MIT */
/* hetrace-command: 90 demo: the simulated board end to end, with a summary */
/*
 * hetrace demo [-o DIR]: the whole pipeline on the simulated board, as
 * `make demo` runs it: sim (the board records a capture), sync (one
 * clock), paths (the frame pipeline: latencies, late frames and what
 * delayed them), report (HTML) and export (Perfetto). Each step is the
 * subcommand a user would type, run in this process and echoed; the
 * frame summary reads the path analysis. The slaves' Sobel code is
 * compiled into this program, which is the ELF file that names their
 * functions in the profile, the report and the export.
 */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "common/embedded.h"
#include "common/error.h"
#include "host/analysis/func-symbols.h"
#include "host/analysis/path-desc.h"
#include "host/analysis/paths.h"

#define PATHS_NAME "platforms/sim/frame-paths.yaml"
/* late frames listed with what delayed them */
#define MAX_LATE 8

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s [-o DIR] [--cores N] [--duration S]\n\n"
		"Runs the simulated board end to end: hetrace sim, sync,\n"
		"paths, profile, report and export, with a summary: cores,\n"
		"events, sync quality per core, frame latencies, the late\n"
		"frames and what delayed them. Files go under DIR.\n\n"
		"options:\n"
		"  -o, --output DIR   where the files go (default "
		"hetrace-demo)\n"
		"      --cores N      slave cores (default 8)\n"
		"  -d, --duration S   how long the board runs in seconds\n"
		"                     (default 3; also --seconds)\n"
		"  -h, --help         this help\n",
		ht_cli_prog);
}

/* Runs one subcommand as `hetrace ARGV...`, echoing it. */
static int step(const char *title, int (*cmd)(int, char **), char **argv)
{
	const char *saved = ht_cli_prog;
	char prog[64];
	int argc = 0, ret;

	/* Without elfutils the functions keep their addresses: no --elf. */
	if (!ht_func_symbols_supported()) {
		int in, out = 0;

		for (in = 0; argv[in]; in++) {
			if (!strcmp(argv[in], "--elf") && argv[in + 1]) {
				in++;
				continue;
			}
			argv[out++] = argv[in];
		}
		argv[out] = NULL;
	}
	printf("\n== %s\n$ hetrace", title);
	while (argv[argc]) {
		printf(" %s", argv[argc]);
		argc++;
	}
	printf("\n");
	fflush(stdout);
	snprintf(prog, sizeof(prog), "hetrace %s", argv[0]);
	ht_cli_prog = prog;
	ret = cmd(argc, argv);
	ht_cli_prog = saved;
	fflush(stdout);
	return ret;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Removes @path and everything under it; a missing @path is fine. */
static int remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		return errno == ENOENT ? 0 : -1;
	}
	return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int write_file(const char *path, const unsigned char *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f) {
		return HT_EIO;
	}
	if (fwrite(data, 1, size, f) != size) {
		ret = HT_EIO;
	}
	if (fclose(f) != 0) {
		ret = HT_EIO;
	}
	return ret;
}

/* "hiprio 46.2 ms on dsp1, dsp2" for one thing that delayed a frame. */
static void print_blame(const struct ht_paths_result *res,
			const struct ht_paths_blame *b)
{
	char buf[32];
	size_t c;
	int first = 1;

	printf("%s%s %s on", b->is_isr ? "" : "task ", b->who,
	       ht_paths_format_ns(buf, sizeof(buf), b->total_ns));
	for (c = 0; c < res->nr_cores; c++) {
		if (b->core_ns[c]) {
			printf("%s %s", first ? "" : ",", res->cores[c]);
			first = 0;
		}
	}
}

static const struct ht_paths_worst *
worst_of(const struct ht_paths_path_result *p, size_t instance)
{
	size_t i;

	for (i = 0; i < p->nr_worst; i++) {
		if (p->worst[i].instance == instance) {
			return &p->worst[i];
		}
	}
	return NULL;
}

/* One late frame: how late, and why (what delayed it by a tenth of its
 * lateness or more, the three first). */
static void print_late(const struct ht_paths_result *res,
		       const struct ht_paths_path_result *p,
		       const struct ht_paths_instance *in,
		       const struct ht_paths_worst *w)
{
	const char *sep = ": ";
	char a[32], b[32];
	size_t k;

	printf("  late: %s %" PRIu64 " took %s, %s past its deadline",
	       p->path->name, in->number,
	       ht_paths_format_ns(a, sizeof(a), in->response_ns),
	       ht_paths_format_ns(b, sizeof(b), (uint64_t)in->lateness_ns));
	if (in->has_firing &&
	    in->start_ns - in->firing_ns > in->lateness_ns / 2) {
		/* Released late: an earlier frame overran. */
		printf("%sstarted %s after its release time", sep,
		       ht_paths_format_ns(
			   a, sizeof(a),
			   (uint64_t)(in->start_ns - in->firing_ns)));
		sep = "; ";
	}
	for (k = 0; k < w->nr_blame && k < 3; k++) {
		/* Only what explains a tenth of the delay. */
		if (w->blame[k].total_ns * 10u < (uint64_t)in->lateness_ns) {
			continue;
		}
		printf("%s", sep);
		print_blame(res, &w->blame[k]);
		sep = "; ";
	}
	printf("\n");
}

static void print_frames(const struct ht_paths_result *res)
{
	size_t i, j, listed = 0;
	char a[32], b[32], c[32], d[32];

	for (i = 0; i < res->desc->nr_paths; i++) {
		const struct ht_paths_path_result *p = &res->paths[i];
		const struct ht_paths_stat *r = &p->response;

		printf("%s: %zu instances, %" PRIu64 " met the deadline, "
		       "%" PRIu64 " missed it, %" PRIu64 " incomplete\n",
		       p->path->name, p->nr_instances, p->met, p->missed,
		       p->incomplete);
		if (r->count) {
			printf("latency: min %s, mean %s, p99 %s, max %s\n",
			       ht_paths_format_ns(a, sizeof(a), r->min_ns),
			       ht_paths_format_ns(b, sizeof(b),
						  (uint64_t)r->mean_ns),
			       ht_paths_format_ns(c, sizeof(c), r->p99_ns),
			       ht_paths_format_ns(d, sizeof(d), r->max_ns));
		}
		for (j = 0; j < p->nr_instances && listed < MAX_LATE; j++) {
			const struct ht_paths_worst *w = worst_of(p, j);

			/* the late frames the analysis looked into (the
			 * worst ones): a listed frame always says why */
			if (p->instances[j].deadline != HT_PATHS_DL_MISSED ||
			    !w) {
				continue;
			}
			listed++;
			print_late(res, p, &p->instances[j], w);
		}
		if (p->missed > listed) {
			printf("  ... and %" PRIu64 " more late\n",
			       p->missed - listed);
		}
	}
}

static int frames_summary(const char *paths_file, const char *trace)
{
	struct ht_paths_opts opts = {.nr_worst = MAX_LATE};
	struct ht_path_desc *desc = NULL;
	struct ht_paths_result *res = NULL;
	char err[4096];
	int ret;

	printf("\n== the frames: latencies, late frames and what delayed "
	       "them\n");
	ret = ht_path_desc_load(&desc, paths_file, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		return ret;
	}
	ret = ht_paths_analyze(desc, &trace, 1, &opts, &res, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		goto destroy_desc;
	}
	print_frames(res);
	ht_paths_result_destroy(res);
destroy_desc:
	ht_path_desc_destroy(desc);
	return ret;
}

/* What the options ask for. */
struct demo_args {
	const char *dir;
	const char *cores, *seconds; /* passed on to sim */
};

/* The files the steps write and read, under the output directory. */
struct demo_files {
	char capture[4096], synced[4096], sync_json[4096], paths_file[4096];
	char report[4096], perfetto[4096];
	char self[4096]; /* this program: its symbols name the functions */
};

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct demo_args *a)
{
	/* sim checks --cores and --duration: a value it refuses is a
	 * failing step */
	const struct ht_cli_opt table[] = {
	    HT_CLI_STRING('o', "output", &a->dir),
	    HT_CLI_STRING(0, "cores", &a->cores),
	    HT_CLI_STRING('d', "duration", &a->seconds),
	    HT_CLI_ALIAS("seconds"),
	    HT_CLI_OPT_END,
	};
	struct ht_cli_args none;

	return ht_cli_parse(argc, argv, table, HT_CLI_WANT_NO_ARGS, usage,
			    &none);
}

/* The output directory, without an earlier run's traces, and the path
 * description the frames summary and the report read. */
static int prepare(const struct demo_args *a, struct demo_files *f)
{
	const struct ht_embedded_file *paths_yaml;
	ssize_t n;

	if (mkdir(a->dir, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "%s: cannot create %s: %s\n", ht_cli_prog,
			a->dir, strerror(errno));
		return HT_EXIT_FAIL;
	}
	snprintf(f->capture, sizeof(f->capture), "%s/capture", a->dir);
	snprintf(f->synced, sizeof(f->synced), "%s/synced", a->dir);
	snprintf(f->sync_json, sizeof(f->sync_json), "%s/sync.json", a->dir);
	snprintf(f->paths_file, sizeof(f->paths_file), "%s/frame-paths.yaml",
		 a->dir);
	snprintf(f->report, sizeof(f->report), "%s/report.html", a->dir);
	snprintf(f->perfetto, sizeof(f->perfetto), "%s/trace.perfetto-trace",
		 a->dir);

	/* The files of an earlier run would make the steps refuse. */
	if (remove_tree(f->capture) < 0 || remove_tree(f->synced) < 0) {
		fprintf(stderr,
			"%s: cannot remove the files of an earlier "
			"run under %s: %s\n",
			ht_cli_prog, a->dir, strerror(errno));
		return HT_EXIT_FAIL;
	}
	/* The slaves' Sobel code is in this binary: its symbols name the
	 * function slices of the report and the export. */
	n = readlink("/proc/self/exe", f->self, sizeof(f->self) - 1);
	if (n <= 0) {
		fprintf(stderr, "%s: cannot find this program's file: %s\n",
			ht_cli_prog, strerror(errno));
		return HT_EXIT_FAIL;
	}
	f->self[n] = '\0';
	paths_yaml = ht_embedded_find(PATHS_NAME);
	if (!paths_yaml ||
	    write_file(f->paths_file, paths_yaml->data, paths_yaml->size) < 0) {
		fprintf(stderr, "%s: cannot write %s\n", ht_cli_prog,
			f->paths_file);
		return HT_EXIT_FAIL;
	}
	return HT_EXIT_OK;
}

/* sim, sync, the frames, profile, report, export: each prints its
 * command line and its output; the first that fails ends the demo. */
static int run_steps(const struct demo_args *a, struct demo_files *f)
{
	{
		char *av[] = {"sim",
			      "-o",
			      f->capture,
			      "--cores",
			      (char *)a->cores,
			      "--seconds",
			      (char *)a->seconds,
			      NULL};

		if (step("the board: a master and its slaves record a capture",
			 cmd_sim, av) != HT_EXIT_OK) {
			return HT_EXIT_FAIL;
		}
	}
	{
		char *av[] = {"sync",	  f->capture,	"-o", f->synced,
			      "--report", f->sync_json, NULL};

		if (step("one clock: the convex-hull fit per core, one merged "
			 "trace",
			 cmd_sync, av) != HT_EXIT_OK) {
			return HT_EXIT_FAIL;
		}
	}
	if (frames_summary(f->paths_file, f->synced) < 0) {
		return HT_EXIT_FAIL;
	}
	{
		char *av[] = {"profile", f->synced, "--elf", f->self, "--core",
			      "dsp0",	 "-n",	    "5",     NULL};

		if (step("the function profile of one slave "
			 "(-finstrument-functions)",
			 cmd_profile, av) != HT_EXIT_OK) {
			return HT_EXIT_FAIL;
		}
		printf("why the two tables differ: the records time a call "
		       "from its func_entry record\nto its func_exit record, "
		       "the target from after its entry hook to before its\n"
		       "exit hook. A short function (sobel_row) is longer in "
		       "the records by the cost\nof writing its two records, "
		       "the interrupts held back while they were written\n"
		       "and any preemption of this simulation in that "
		       "window; the target counts that\ntime in the caller. "
		       "The outermost calls agree (the last line); on a core\n"
		       "whose clock changes frequency (dsp2 here) the "
		       "target's cycles are converted\nat its first "
		       "frequency (docs/views.md, \"Two function "
		       "profiles\").\n");
	}
	{
		char *av[] = {"report",	     "-o",	f->report,    "--paths",
			      f->paths_file, "--sync",	f->sync_json, "--elf",
			      f->self,	     f->synced, NULL};

		if (step("the HTML report", cmd_report, av) != HT_EXIT_OK) {
			return HT_EXIT_FAIL;
		}
	}
	{
		char *av[] = {"export",	   f->synced, "-f",    "perfetto", "-o",
			      f->perfetto, "--elf",   f->self, NULL};

		if (step("the Perfetto trace (open it in ui.perfetto.dev)",
			 cmd_export, av) != HT_EXIT_OK) {
			return HT_EXIT_FAIL;
		}
	}
	return HT_EXIT_OK;
}

int cmd_demo(int argc, char **argv)
{
	struct demo_args a = {
	    .dir = "hetrace-demo",
	    .cores = "8",
	    .seconds = "3",
	};
	struct demo_files f;
	int ret;

	ret = parse_options(argc, argv, &a);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	ret = prepare(&a, &f);
	if (ret) {
		return ret;
	}
	ret = run_steps(&a, &f);
	if (ret) {
		return ret;
	}
	printf("\n== files\n"
	       "%s      one CTF trace per core, truth.json\n"
	       "%s       all cores on one clock (babeltrace2 %s)\n"
	       "%s    the fit per core\n"
	       "%s  the HTML report\n"
	       "%s  for Perfetto\n",
	       f.capture, f.synced, f.synced, f.sync_json, f.report,
	       f.perfetto);
	return HT_EXIT_OK;
}
