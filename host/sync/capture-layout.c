/* SPDX-License-Identifier: MIT */
/*
 * The directories of a capture (capture-reader-internal.h): which are
 * cores' traces, and which are cores that cannot be read. A capture
 * holds one directory per core (<capture>/<core>/metadata and its
 * stream files, host/collect/capture-writer.h); an LTTng session
 * directory holds its traces deeper. A directory that holds files but
 * no trace below it is a core whose metadata is missing; a trace with
 * a stream entry that is not a readable file would lose that stream
 * without a word (the CTF reader skips what is not a regular file).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture-reader-internal.h"
#include "common/error.h"
#include "common/path.h"

/* as deep as ht_ctf_set_open() looks */
#define MAX_DEPTH 32
/* core ids named by events and missing, listed one by one */
#define MAX_MISSING 64

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of @dir but hidden ones, in name order. */
static int dir_names(const char *dir, struct ht_strv *out, char *err,
		     size_t err_len)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d) {
		snprintf(err, err_len, "%s: cannot open directory: %s", dir,
			 strerror(errno));
		return HT_EIO;
	}
	while (!ret && (de = readdir(d))) {
		if (de->d_name[0] != '.') {
			ret = ht_strv_add(out, de->d_name);
		}
	}
	closedir(d);
	if (out->nr > 1) {
		qsort(out->items, out->nr, sizeof(*out->items), cmp_str);
	}
	return ret;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

int ht__capture_missing_add(struct ht_capture_reader *cap, const char *name,
			    const char *file, const char *why)
{
	struct ht_capture_missing *m;

	if (cap->nr_missing >= MAX_MISSING) {
		cap->missing_dropped++;
		return 0;
	}
	if (ht_array_reserve((void **)&cap->missing, &cap->cap_missing,
			     cap->nr_missing + 1, sizeof(*cap->missing))) {
		return HT_ENOMEM;
	}
	m = &cap->missing[cap->nr_missing];
	m->name = strdup(name);
	m->file = strdup(file);
	m->why = strdup(why);
	if (!m->name || !m->file || !m->why) {
		free((char *)m->name);
		free((char *)m->file);
		free((char *)m->why);
		return HT_ENOMEM;
	}
	cap->nr_missing++;
	return 0;
}

void ht__capture_missing_fini(struct ht_capture_reader *cap)
{
	size_t i;

	for (i = 0; i < cap->nr_missing; i++) {
		free((char *)cap->missing[i].name);
		free((char *)cap->missing[i].file);
		free((char *)cap->missing[i].why);
	}
	free(cap->missing);
	cap->missing = NULL;
	cap->nr_missing = 0;
}

size_t ht_capture_reader_nr_missing(const struct ht_capture_reader *cap)
{
	return cap->nr_missing;
}

const struct ht_capture_missing *
ht_capture_reader_missing(const struct ht_capture_reader *cap, size_t i)
{
	return i < cap->nr_missing ? &cap->missing[i] : NULL;
}

uint64_t
ht_capture_reader_nr_missing_dropped(const struct ht_capture_reader *cap)
{
	return cap->missing_dropped;
}

/*
 * Whether every stream entry of trace directory @dir can be read: a
 * regular file that opens, or a directory (LTTng's index/). Else the
 * core is listed as missing with the first bad entry.
 */
static int check_streams(struct ht_capture_reader *cap, const char *dir,
			 bool *ok, char *err, size_t err_len)
{
	struct ht_strv names = {0};
	size_t i;
	int ret;

	*ok = true;
	ret = dir_names(dir, &names, err, err_len);
	if (ret == HT_EIO) {
		*ok = false;
		ret = ht__capture_missing_add(cap, base_name(dir), dir, err);
	}
	for (i = 0; !ret && *ok && i < names.nr; i++) {
		char *p = ht_path_join(dir, names.items[i]);
		char why[512] = "";
		struct stat st;
		int fd;

		if (!p) {
			ret = HT_ENOMEM;
			break;
		}
		if (!strcmp(names.items[i], "metadata")) {
			/* (read by the CTF reader, which names it) */
		} else if (stat(p, &st)) {
			snprintf(why, sizeof(why),
				 "stream file cannot be read: %s",
				 strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			/* not a stream (LTTng's index/) */
		} else if (!S_ISREG(st.st_mode)) {
			snprintf(why, sizeof(why),
				 "not a regular file: its stream cannot be "
				 "read");
		} else if (st.st_size > 0) {
			fd = open(p, O_RDONLY | O_CLOEXEC);
			if (fd < 0) {
				snprintf(why, sizeof(why),
					 "stream file cannot be read: %s",
					 strerror(errno));
			} else {
				close(fd);
			}
		}
		if (why[0]) {
			*ok = false;
			ret = ht__capture_missing_add(cap, base_name(dir), p,
						      why);
		}
		free(p);
	}
	ht_strv_fini(&names);
	return ret;
}

/* Whether @path is a regular file (following links). */
static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/*
 * Walks @dir: a trace directory goes into @traces (if its streams can
 * be read); else its subdirectories are walked. *@found counts the
 * traces and missing cores at or below @dir.
 */
static int walk(struct ht_capture_reader *cap, const char *dir, unsigned depth,
		struct ht_strv *traces, size_t *found, char *err,
		size_t err_len)
{
	struct ht_strv names = {0};
	char *meta;
	size_t i, below = 0, files = 0;
	bool ok;
	int ret;

	if (depth > MAX_DEPTH) {
		return 0;
	}
	meta = ht_path_join(dir, "metadata");
	if (!meta) {
		return HT_ENOMEM;
	}
	if (is_file(meta)) {
		free(meta);
		(*found)++;
		ret = check_streams(cap, dir, &ok, err, err_len);
		return ret || !ok ? ret : ht_strv_add(traces, dir);
	}
	free(meta);
	ret = dir_names(dir, &names, err, err_len);
	if (ret == HT_EIO && depth > 0) {
		/* a core directory that cannot be listed */
		(*found)++;
		ret = ht__capture_missing_add(cap, base_name(dir), dir, err);
		err[0] = '\0';
		return ret;
	}
	for (i = 0; !ret && i < names.nr; i++) {
		char *sub = ht_path_join(dir, names.items[i]);
		struct stat st;

		if (!sub) {
			ret = HT_ENOMEM;
			break;
		}
		if (!stat(sub, &st) && S_ISDIR(st.st_mode)) {
			ret = walk(cap, sub, depth + 1, traces, &below, err,
				   err_len);
		} else {
			files++;
		}
		free(sub);
	}
	ht_strv_fini(&names);
	if (ret) {
		return ret;
	}
	*found += below;
	/* files and no trace below: a core without its metadata (the
	 * capture's own files, at its top, are not a core) */
	if (!below && files && depth > 0) {
		char why[256];

		(*found)++;
		snprintf(why, sizeof(why),
			 "no metadata file (the directory holds %zu other "
			 "file(s)): its events cannot be decoded",
			 files);
		ret = ht__capture_missing_add(cap, base_name(dir), dir, why);
	}
	return ret;
}

int ht__capture_layout_find(struct ht_capture_reader *cap, const char *dir,
			    struct ht_strv *traces, char *err, size_t err_len)
{
	size_t found = 0;

	return walk(cap, dir, 0, traces, &found, err, err_len);
}
