/* SPDX-License-Identifier: MIT */
/* hetrace gen: barectf 3 configuration -> C tracepoints + CTF metadata. */
/* hetrace-command: 10 gen: generate C tracepoints and CTF metadata from a barectf 3 config */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "gen/config/config-load.h"
#include "common/embedded.h"
#include "gen/emit/emit.h"
#include "common/error.h"

#define RUNTIME_PREFIX "hetrace/"

/* clang-format off */
static const char usage_text[] =
	"usage: %s CONFIG.yaml -o DIR [-I DIR]... [--header-only]\n"
	"       [--metadata-only] [--no-runtime] [--no-core-id]\n"
	"\n"
	"Reads a barectf 3 YAML configuration and writes into DIR:\n"
	"  <prefix>.h, <prefix>.c  the tracing functions (barectf 3.1's API)\n"
	"  metadata                the CTF 1.8 (TSDL) metadata of the trace\n"
	"  hetrace/*.h             the runtime headers the C code includes\n"
	"\n"
	"options:\n"
	"  -o, --output DIR     where to write (created if needed)\n"
	"  -I, --include-dir DIR\n"
	"                       search DIR for `$include` files: after the\n"
	"                       including file's directory, before the current\n"
	"                       directory and hetrace's standard includes;\n"
	"                       may be repeated\n"
	"      --header-only    one header holding everything, no .c file\n"
	"      --metadata-only  only the metadata\n"
	"      --no-runtime     do not copy the runtime headers\n"
	"      --no-core-id     no core_id in the packet context (barectf's\n"
	"                       packet context exactly)\n"
	"  -h, --help           this text\n"
	"\n"
	"An invalid configuration writes nothing: every problem is printed\n"
	"as file:line:column: message and the exit status is 1.\n";
/* clang-format on */

static void usage(FILE *out)
{
	fprintf(out, usage_text, ht_cli_prog);
}

/* One output file, written under a temporary name until all succeed. */
struct out_file {
	char *path;
	char *tmp;
};

struct outputs {
	struct out_file *files;
	size_t nr;
};

static int mkdir_p(const char *path)
{
	char *copy = strdup(path), *p;
	int ret = 0;

	if (!copy) {
		return -1;
	}
	for (p = copy + 1; *p; p++) {
		if (*p != '/') {
			continue;
		}
		*p = '\0';
		if (mkdir(copy, 0777) && errno != EEXIST) {
			ret = -1;
			goto free_copy;
		}
		*p = '/';
	}
	if (mkdir(copy, 0777) && errno != EEXIST) {
		ret = -1;
	}
free_copy:
	free(copy);
	return ret;
}

static char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (p) {
		snprintf(p, n, "%s/%s", dir, name);
	}
	return p;
}

/* Opens a temporary file for the final path; registers it in outs. */
static FILE *open_output(struct outputs *outs, const char *dir,
			 const char *name)
{
	struct out_file *files, *of;
	size_t n;
	FILE *f;
	int fd;

	files = realloc(outs->files, (outs->nr + 1) * sizeof(*files));
	if (!files) {
		return NULL;
	}
	outs->files = files;
	of = &files[outs->nr];
	of->path = path_join(dir, name);
	if (!of->path) {
		return NULL;
	}
	n = strlen(of->path) + 16;
	of->tmp = malloc(n);
	if (!of->tmp) {
		free(of->path);
		return NULL;
	}
	snprintf(of->tmp, n, "%s.tmp-XXXXXX", of->path);
	fd = mkstemp(of->tmp);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot create `%s`: %s\n", ht_cli_prog,
			of->path, strerror(errno));
		free(of->path);
		free(of->tmp);
		return NULL;
	}
	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(of->tmp);
		free(of->path);
		free(of->tmp);
		return NULL;
	}
	outs->nr++;
	return f;
}

static bool close_output(FILE *f, const char *what, int emit_ret)
{
	bool ok = emit_ret == 0 && !ferror(f);

	if (fclose(f)) {
		ok = false;
	}
	if (!ok) {
		fprintf(stderr, "%s: cannot write %s: %s\n", ht_cli_prog, what,
			emit_ret ? ht_strerror(emit_ret) : strerror(errno));
	}
	return ok;
}

static void outputs_fini(struct outputs *outs, bool commit, bool *ok)
{
	size_t i;

	for (i = 0; i < outs->nr; i++) {
		struct out_file *of = &outs->files[i];

		if (commit && rename(of->tmp, of->path)) {
			fprintf(stderr, "%s: cannot write `%s`: %s\n",
				ht_cli_prog, of->path, strerror(errno));
			*ok = false;
		}
		if (!commit) {
			unlink(of->tmp);
		}
		free(of->path);
		free(of->tmp);
	}
	free(outs->files);
}

static bool write_runtime(struct outputs *outs, const char *dir)
{
	const struct ht_embedded_file *e;
	char *rt_dir = path_join(dir, "hetrace");
	bool ok = true;

	if (!rt_dir) {
		return false;
	}
	if (mkdir_p(rt_dir)) {
		fprintf(stderr, "%s: cannot create `%s`: %s\n", ht_cli_prog,
			rt_dir, strerror(errno));
		free(rt_dir);
		return false;
	}
	for (e = ht_embedded_files; e->name && ok; e++) {
		FILE *f;

		if (strncmp(e->name, RUNTIME_PREFIX, strlen(RUNTIME_PREFIX))) {
			continue;
		}
		f = open_output(outs, dir, e->name);
		if (!f) {
			ok = false;
			break;
		}
		fwrite(e->data, 1, e->size, f);
		ok = close_output(f, e->name, 0);
	}
	free(rt_dir);
	return ok;
}

static bool write_outputs(const struct ht_config *cfg, const char *dir,
			  bool header_only, bool metadata_only, bool runtime)
{
	struct outputs outs = {0};
	char name[512];
	bool ok = true;
	FILE *f;

	f = open_output(&outs, dir, "metadata");
	ok = f && close_output(f, "metadata", ht_emit_tsdl(cfg, f));
	if (ok && !metadata_only) {
		snprintf(name, sizeof(name), "%s.h", cfg->prefix_file);
		f = open_output(&outs, dir, name);
		ok = f && close_output(f, name,
				       ht_emit_c_header(cfg, f, header_only));
	}
	if (ok && !metadata_only && !header_only) {
		snprintf(name, sizeof(name), "%s.c", cfg->prefix_file);
		f = open_output(&outs, dir, name);
		ok = f && close_output(f, name, ht_emit_c_source(cfg, f));
	}
	if (ok && !metadata_only && runtime) {
		ok = write_runtime(&outs, dir);
	}
	outputs_fini(&outs, ok, &ok);
	return ok;
}

int cmd_gen(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"include-dir", required_argument, NULL, 'I'},
	    {"header-only", no_argument, NULL, 'H'},
	    {"metadata-only", no_argument, NULL, 'M'},
	    {"no-runtime", no_argument, NULL, 'R'},
	    {"no-core-id", no_argument, NULL, 'C'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool header_only = false, metadata_only = false, runtime = true;
	bool no_core_id = false;
	const char **inc_dirs = NULL, *out_dir = NULL;
	struct ht_diags diags = {0};
	struct ht_config *cfg = NULL;
	size_t nr_inc = 0, i;
	int opt, ret, status = HT_EXIT_USAGE;

	optind = 1;
	inc_dirs = calloc((size_t)argc + 1, sizeof(*inc_dirs));
	if (!inc_dirs) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog,
			ht_strerror(HT_ENOMEM));
		return HT_EXIT_FAIL;
	}
	while ((opt = getopt_long(argc, argv, "o:I:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out_dir = optarg;
			break;
		case 'I':
			inc_dirs[nr_inc++] = optarg;
			break;
		case 'H':
			header_only = true;
			break;
		case 'M':
			metadata_only = true;
			break;
		case 'R':
			runtime = false;
			break;
		case 'C':
			no_core_id = true;
			break;
		case 'h':
			usage(stdout);
			status = HT_EXIT_OK;
			goto free_dirs;
		default:
			fprintf(stderr, "Try '%s --help'.\n", ht_cli_prog);
			goto free_dirs;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog,
			optind >= argc ? "missing CONFIG.yaml"
				       : "expected exactly one CONFIG.yaml");
		fprintf(stderr, "Try '%s --help'.\n", ht_cli_prog);
		goto free_dirs;
	}
	if (!out_dir) {
		fprintf(stderr, "%s: missing -o DIR\n", ht_cli_prog);
		fprintf(stderr, "Try '%s --help'.\n", ht_cli_prog);
		goto free_dirs;
	}
	if (header_only && metadata_only) {
		fprintf(stderr,
			"%s: --header-only and --metadata-only exclude each "
			"other\n",
			ht_cli_prog);
		goto free_dirs;
	}

	status = HT_EXIT_FAIL;
	ret = ht_config_load(argv[optind], inc_dirs, nr_inc, &cfg, &diags);
	for (i = 0; i < diags.nr; i++) {
		fprintf(stderr, "%s\n", diags.msgs[i]);
	}
	ht_diags_fini(&diags);
	if (ret) {
		if (ret != HT_ECONFIG) {
			fprintf(stderr, "%s: %s: %s\n", ht_cli_prog,
				argv[optind], ht_strerror(ret));
		}
		goto free_dirs;
	}
	if (no_core_id) {
		cfg->no_core_id = true;
	}
	if (mkdir_p(out_dir)) {
		fprintf(stderr, "%s: cannot create `%s`: %s\n", ht_cli_prog,
			out_dir, strerror(errno));
		goto destroy_cfg;
	}
	if (write_outputs(cfg, out_dir, header_only, metadata_only, runtime)) {
		status = HT_EXIT_OK;
	}

destroy_cfg:
	ht_config_destroy(cfg);
free_dirs:
	free(inc_dirs);
	return status;
}
