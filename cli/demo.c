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
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "common/embedded.h"
#include "common/error.h"
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

	printf("\n== %s\n$ hetrace", title);
	while (argv[argc]) {
		printf(" %s", argv[argc]);
		argc++;
	}
	printf("\n");
	fflush(stdout);
	snprintf(prog, sizeof(prog), "hetrace %s", argv[0]);
	ht_cli_prog = prog;
	optind = 0; /* a fresh getopt scan for every subcommand */
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
			const struct ht_paths_instance *in = &p->instances[j];
			const struct ht_paths_worst *w;
			const char *sep;
			size_t k;

			/* the late frames the analysis looked into (the
			 * worst ones): a listed frame always says why */
			w = worst_of(p, j);
			if (in->deadline != HT_PATHS_DL_MISSED || !w) {
				continue;
			}
			listed++;
			printf(
			    "  late: %s %" PRIu64 " took %s, %s past its "
			    "deadline",
			    p->path->name, in->number,
			    ht_paths_format_ns(a, sizeof(a), in->response_ns),
			    ht_paths_format_ns(b, sizeof(b),
					       (uint64_t)in->lateness_ns));
			sep = ": ";
			if (in->has_firing && in->start_ns - in->firing_ns >
						  in->lateness_ns / 2) {
				/* Released late: an earlier frame overran. */
				printf("%sstarted %s after its release time",
				       sep,
				       ht_paths_format_ns(
					   a, sizeof(a),
					   (uint64_t)(in->start_ns -
						      in->firing_ns)));
				sep = "; ";
			}
			for (k = 0; k < w->nr_blame && k < 3; k++) {
				/* Only what explains a tenth of the delay. */
				if (w->blame[k].total_ns * 10u <
				    (uint64_t)in->lateness_ns) {
					continue;
				}
				printf("%s", sep);
				print_blame(res, &w->blame[k]);
				sep = "; ";
			}
			printf("\n");
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

int cmd_demo(int argc, char **argv)
{
	enum { OPT_CORES = 256 };
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"cores", required_argument, NULL, OPT_CORES},
	    {"duration", required_argument, NULL, 'd'},
	    {"seconds", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *dir = "hetrace-demo", *cores = "8", *seconds = "3";
	const struct ht_embedded_file *paths_yaml;
	char capture[4096], synced[4096], sync_json[4096], paths_file[4096];
	char report[4096], perfetto[4096], self[4096];
	unsigned nr_cores;
	uint64_t duration_ns;
	ssize_t n;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			dir = optarg;
			break;
		/* checked here, with sim's limits, before anything is
		 * written; sim reads them again */
		case OPT_CORES:
			if (!ht_cli_sim_cores_arg(optarg, &nr_cores)) {
				return HT_EXIT_USAGE;
			}
			cores = optarg;
			break;
		case 'd':
			if (!ht_cli_sim_duration_arg(optarg, &duration_ns)) {
				return HT_EXIT_USAGE;
			}
			seconds = optarg;
			break;
		default:
			return ht_cli_help_or_usage(c, usage);
		}
	}
	if (optind < argc) {
		return ht_cli_usage_error(usage, "unexpected argument '%s'",
					  argv[optind]);
	}
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "%s: cannot create %s: %s\n", ht_cli_prog, dir,
			strerror(errno));
		return HT_EXIT_FAIL;
	}
	snprintf(capture, sizeof(capture), "%s/capture", dir);
	snprintf(synced, sizeof(synced), "%s/synced", dir);
	snprintf(sync_json, sizeof(sync_json), "%s/sync.json", dir);
	snprintf(paths_file, sizeof(paths_file), "%s/frame-paths.yaml", dir);
	snprintf(report, sizeof(report), "%s/report.html", dir);
	snprintf(perfetto, sizeof(perfetto), "%s/trace.perfetto-trace", dir);

	/* The files of an earlier run would make the steps refuse. */
	if (remove_tree(capture) < 0 || remove_tree(synced) < 0) {
		fprintf(stderr,
			"%s: cannot remove the files of an earlier "
			"run under %s: %s\n",
			ht_cli_prog, dir, strerror(errno));
		return HT_EXIT_FAIL;
	}
	/* The slaves' Sobel code is in this binary: its symbols name the
	 * function slices of the report and the export. */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		fprintf(stderr, "%s: cannot find this program's file: %s\n",
			ht_cli_prog, strerror(errno));
		return HT_EXIT_FAIL;
	}
	self[n] = '\0';
	paths_yaml = ht_embedded_find(PATHS_NAME);
	if (!paths_yaml ||
	    write_file(paths_file, paths_yaml->data, paths_yaml->size) < 0) {
		fprintf(stderr, "%s: cannot write %s\n", ht_cli_prog,
			paths_file);
		return HT_EXIT_FAIL;
	}

	{
		char *av[] = {"sim",	       "-o",	      capture,
			      "--cores",       (char *)cores, "--seconds",
			      (char *)seconds, NULL};

		if (step("the board: a master and its slaves record a capture",
			 cmd_sim, av) != HT_EXIT_OK) {
			return HT_EXIT_FAIL;
		}
	}
	{
		char *av[] = {"sync",	  capture,   "-o", synced,
			      "--report", sync_json, NULL};

		if (step("one clock: the convex-hull fit per core, one merged "
			 "trace",
			 cmd_sync, av) != HT_EXIT_OK) {
			return HT_EXIT_FAIL;
		}
	}
	if (frames_summary(paths_file, synced) < 0) {
		return HT_EXIT_FAIL;
	}
	{
		char *av[] = {"profile", synced, "--elf", self, "--core",
			      "dsp0",	 "-n",	 "5",	  NULL};

		if (step("the function profile of one slave "
			 "(-finstrument-functions)",
			 cmd_profile, av) != HT_EXIT_OK) {
			return HT_EXIT_FAIL;
		}
	}
	{
		char *av[] = {"report",	  "-o",	    report,    "--paths",
			      paths_file, "--sync", sync_json, "--elf",
			      self,	  synced,   NULL};

		if (step("the HTML report", cmd_report, av) != HT_EXIT_OK) {
			return HT_EXIT_FAIL;
		}
	}
	{
		char *av[] = {"export", synced,	 "-f", "perfetto", "-o",
			      perfetto, "--elf", self, NULL};

		if (step("the Perfetto trace (open it in ui.perfetto.dev)",
			 cmd_export, av) != HT_EXIT_OK) {
			return HT_EXIT_FAIL;
		}
	}
	printf("\n== files\n"
	       "%s      one CTF trace per core, truth.json\n"
	       "%s       all cores on one clock (babeltrace2 %s)\n"
	       "%s    the fit per core\n"
	       "%s  the HTML report\n"
	       "%s  for Perfetto\n",
	       capture, synced, synced, sync_json, report, perfetto);
	return HT_EXIT_OK;
}
