/* SPDX-License-Identifier: MIT */
/*
 * Writing the generator's outputs, all or nothing (gen-write.h): each
 * output goes to "<path>.tmp-XXXXXX" and every one is renamed to its
 * final name only when all were written.
 *
 * The text itself comes from the emitters (emit.h) and the runtime
 * headers from the embedded files; this file only handles files and
 * the first failure's message.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/embedded.h"
#include "common/error.h"
#include "common/path.h"
#include "emit.h"
#include "gen-write.h"

#define RUNTIME_PREFIX "hetrace/"

/* One output file, written under a temporary name until all succeed. */
struct out_file {
	char *path;
	char *tmp;
};

struct writer {
	struct out_file *files;
	size_t nr, cap;
	int err;   /* the first failure */
	char *msg; /* its message */
	size_t msg_size;
};

/* Records a failure; only the first one is kept (and returned). */
__attribute__((format(printf, 3, 4))) static int fail(struct writer *w, int err,
						      const char *fmt, ...)
{
	va_list ap;

	if (w->err) {
		return w->err;
	}
	w->err = err;
	va_start(ap, fmt);
	vsnprintf(w->msg, w->msg_size, fmt, ap);
	va_end(ap);
	return err;
}

static int nomem(struct writer *w)
{
	return fail(w, HT_ENOMEM, "%s", ht_strerror(HT_ENOMEM));
}

/* mkdir -p; errno tells why when it fails. */
static int make_dir(struct writer *w, const char *path)
{
	if (ht_path_mkdirs(path)) {
		return fail(w, HT_EIO, "cannot create `%s`: %s", path,
			    strerror(errno));
	}
	return 0;
}

/* Opens a temporary file for dir/name and registers it in w. */
static FILE *open_output(struct writer *w, const char *dir, const char *name)
{
	struct out_file *of;
	size_t n;
	FILE *f;
	int fd;

	if (ht_array_reserve((void **)&w->files, &w->cap, w->nr + 1,
			     sizeof(*w->files))) {
		nomem(w);
		return NULL;
	}
	of = &w->files[w->nr];
	of->path = ht_path_join(dir, name);
	if (!of->path) {
		nomem(w);
		return NULL;
	}
	n = strlen(of->path) + 16;
	of->tmp = malloc(n);
	if (!of->tmp) {
		nomem(w);
		goto free_path;
	}
	snprintf(of->tmp, n, "%s.tmp-XXXXXX", of->path);
	fd = mkstemp(of->tmp);
	if (fd < 0) {
		fail(w, HT_EIO, "cannot create `%s`: %s", of->path,
		     strerror(errno));
		goto free_tmp;
	}
	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	if (!f) {
		fail(w, HT_EIO, "cannot create `%s`: %s", of->path,
		     strerror(errno));
		close(fd);
		unlink(of->tmp);
		goto free_tmp;
	}
	w->nr++;
	return f;

free_tmp:
	free(of->tmp);
free_path:
	free(of->path);
	return NULL;
}

/* Closes f; emit_ret is what the emitter that wrote it returned. */
static int close_output(struct writer *w, FILE *f, const char *what,
			int emit_ret)
{
	bool ok = emit_ret == 0 && !ferror(f);

	if (fclose(f)) {
		ok = false;
	}
	if (!ok) {
		return fail(w, HT_EIO, "cannot write %s: %s", what,
			    emit_ret ? ht_strerror(emit_ret) : strerror(errno));
	}
	return 0;
}

/* Renames every file to its final name (commit) or removes it. */
static void writer_fini(struct writer *w, bool commit)
{
	size_t i;

	for (i = 0; i < w->nr; i++) {
		struct out_file *of = &w->files[i];

		if (commit && rename(of->tmp, of->path)) {
			fail(w, HT_EIO, "cannot write `%s`: %s", of->path,
			     strerror(errno));
		}
		if (!commit) {
			unlink(of->tmp);
		}
		free(of->path);
		free(of->tmp);
	}
	free(w->files);
}

static bool is_symlink(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static int write_runtime(struct writer *w, const char *dir)
{
	const struct ht_embedded_file *e;
	char *rt_dir = ht_path_join(dir, "hetrace");
	int ret;

	if (!rt_dir) {
		return nomem(w);
	}
	ret = make_dir(w, rt_dir);
	if (!ret && is_symlink(rt_dir)) {
		/* Written through, it would put files outside the output. */
		ret = fail(w, HT_EIO,
			   "cannot write into `%s`: a symbolic link (every "
			   "file stays inside the output directory)",
			   rt_dir);
	}
	free(rt_dir);
	for (e = ht_embedded_files; e->name && !ret; e++) {
		FILE *f;

		if (strncmp(e->name, RUNTIME_PREFIX, strlen(RUNTIME_PREFIX))) {
			continue;
		}
		f = open_output(w, dir, e->name);
		if (!f) {
			return w->err;
		}
		fwrite(e->data, 1, e->size, f);
		ret = close_output(w, f, e->name, 0);
	}
	return ret;
}

static int write_outputs(struct writer *w, const struct ht_config *cfg,
			 const struct ht_gen_opts *opts)
{
	const char *dir = opts->out_dir;
	char name[512];
	FILE *f;
	int ret;

	f = open_output(w, dir, "metadata");
	if (!f) {
		return w->err;
	}
	ret = close_output(w, f, "metadata", ht_emit_tsdl(cfg, f));
	if (ret || opts->metadata_only) {
		return ret;
	}
	snprintf(name, sizeof(name), "%s.h", cfg->prefix_file);
	f = open_output(w, dir, name);
	if (!f) {
		return w->err;
	}
	ret = close_output(w, f, name,
			   ht_emit_c_header(cfg, f, opts->header_only));
	if (ret) {
		return ret;
	}
	if (!opts->header_only) {
		snprintf(name, sizeof(name), "%s.c", cfg->prefix_file);
		f = open_output(w, dir, name);
		if (!f) {
			return w->err;
		}
		ret = close_output(w, f, name, ht_emit_c_source(cfg, f));
		if (ret) {
			return ret;
		}
	}
	if (!opts->no_runtime) {
		ret = write_runtime(w, dir);
	}
	return ret;
}

int ht_gen_write(const struct ht_gen_opts *opts, struct ht_diags *diags,
		 char *msg, size_t msg_size)
{
	struct writer w = {.msg = msg, .msg_size = msg_size};
	struct ht_config *cfg;
	int ret;

	if (msg_size) {
		msg[0] = '\0';
	}
	ret = ht_config_load(opts->config, opts->include_dirs,
			     opts->nr_include_dirs, &cfg, diags);
	if (ret) {
		if (ret != HT_ECONFIG) {
			fail(&w, ret, "%s: %s", opts->config, ht_strerror(ret));
		}
		return ret;
	}
	if (opts->no_core_id) {
		cfg->no_core_id = true;
	}
	ret = make_dir(&w, opts->out_dir);
	if (!ret) {
		ret = write_outputs(&w, cfg, opts);
		writer_fini(&w, ret == 0);
		ret = w.err;
	}
	ht_config_destroy(cfg);
	return ret;
}
