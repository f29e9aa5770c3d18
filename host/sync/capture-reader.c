/* SPDX-License-Identifier: MIT */
/*
 * A capture's cores and the messages between them (capture-reader.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture-reader-internal.h"
#include "common/error.h"
#include "common/path.h"

size_t ht_capture_reader_nr_cores(const struct ht_capture_reader *cap)
{
	return cap->nr_cores;
}

const struct ht_capture_core *
ht_capture_reader_core(const struct ht_capture_reader *cap, size_t i)
{
	return i < cap->nr_cores ? &cap->cores[i] : NULL;
}

long ht_capture_reader_find_core(const struct ht_capture_reader *cap,
				 const char *name)
{
	size_t i;

	for (i = 0; i < cap->nr_cores; i++) {
		if (!strcmp(cap->cores[i].name, name)) {
			return (long)i;
		}
	}
	return -1;
}

static void warn_cb(void *arg, const char *msg)
{
	ht__capture_reader_note(arg, "warning: %s", msg);
}

static const char *env_str(const struct ht_ctf_trace *t, const char *name)
{
	const struct ht_ctf_env_entry *e = ht_ctf_trace_env(t, name);

	return e && e->is_string ? e->str : NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* Whether @path is @dir or inside it (both as given, then resolved). */
static bool path_under(const char *path, const char *dir)
{
	char *rp = realpath(path, NULL), *rd = realpath(dir, NULL);
	bool under = false;

	if (rp && rd) {
		size_t n = strlen(rd);

		under = !strncmp(rp, rd, n) && (rp[n] == '/' || rp[n] == 0 ||
						(n == 1 && rd[0] == '/'));
	}
	free(rp);
	free(rd);
	return under;
}

/* LTTng traces name their tracer in env tracer_name. */
static bool is_lttng_ust(const struct ht_ctf_trace *t)
{
	const char *tn = env_str(t, "tracer_name");

	return tn && !strcmp(tn, "lttng-ust");
}

static bool is_lttng_kernel(const struct ht_ctf_trace *t)
{
	const char *tn = env_str(t, "tracer_name");

	return tn && !strcmp(tn, "lttng-modules");
}

/* A trace's core name as the capture sees it (env core_name or dir). */
static const char *trace_core_name(const struct ht_ctf_trace *t)
{
	const char *n = env_str(t, "core_name");

	return n ? n : base_name(t->path);
}

/*
 * The name of the core an LTTng-UST trace stands for when none is
 * given: the capture's only master, else the one master its slaves
 * name and that is not in the capture, else "lttng".
 */
static const char *lttng_default_name(struct ht_ctf_set *set, size_t lt)
{
	size_t n = ht_ctf_set_nr_traces(set), i, j, masters = 0;
	const char *master = NULL, *named = NULL;

	for (i = 0; i < n; i++) {
		const struct ht_ctf_trace *t = ht_ctf_set_trace(set, i);
		const char *role = env_str(t, "core_role");

		if (i != lt && !is_lttng_ust(t) && !is_lttng_kernel(t) &&
		    role && !strcmp(role, "master")) {
			masters++;
			master = trace_core_name(t);
		}
	}
	if (masters == 1) {
		return master;
	}
	for (i = 0; i < n; i++) {
		const char *m =
		    env_str(ht_ctf_set_trace(set, i), "core_master");
		bool present = false;

		if (!m || i == lt) {
			continue;
		}
		for (j = 0; j < n && !present; j++) {
			present =
			    j != lt &&
			    !strcmp(trace_core_name(ht_ctf_set_trace(set, j)),
				    m);
		}
		if (present) {
			continue;
		}
		if (named && strcmp(named, m)) {
			return "lttng";
		}
		named = m;
	}
	return named ? named : "lttng";
}

int ht_capture_reader_open(struct ht_capture_reader **out, const char *dir,
			   char *err, size_t err_len)
{
	struct ht_capture_reader_opts o = {0};

	o.dir = dir;
	return ht_capture_reader_open_opts(out, &o, err, err_len);
}

/* Opens the set of @paths into cap->set. */
static int open_set(struct ht_capture_reader *cap, const char *const *paths,
		    size_t nr_paths, char *err, size_t err_len)
{
	struct ht_ctf_open_opts opts = {0};

	opts.flags = HT_CTF_EVENTS_ONLY | HT_CTF_KEEP_GOING;
	opts.warn = warn_cb;
	opts.warn_arg = cap;
	return ht_ctf_set_open(&cap->set, paths, nr_paths, &opts, err, err_len);
}

/*
 * The set could not be opened: each trace of @traces is tried alone,
 * the ones that fail are listed as missing (with the reader's message,
 * which names the file and position) and taken out of @traces.
 */
static int drop_unreadable(struct ht_capture_reader *cap,
			   struct ht_strv *traces)
{
	struct ht_ctf_open_opts opts = {0};
	char why[1024];
	size_t i, n = 0;
	int ret = 0;

	opts.flags = HT_CTF_EVENTS_ONLY | HT_CTF_KEEP_GOING;
	for (i = 0; i < traces->nr; i++) {
		const char *p = traces->items[i];
		struct ht_ctf_set *one = NULL;
		char *meta;

		why[0] = '\0';
		ret = ht_ctf_set_open(&one, &p, 1, &opts, why, sizeof(why));
		ht_ctf_set_close(one);
		if (ret == HT_ENOMEM) {
			return ret;
		}
		if (!ret) {
			traces->items[n++] = traces->items[i];
			continue;
		}
		meta = ht_path_join(p, "metadata");
		ret = meta ? ht__capture_missing_add(cap, base_name(p), meta,
						     why[0] ? why
							    : ht_strerror(ret))
			   : HT_ENOMEM;
		free(meta);
		free(traces->items[i]);
		if (ret) {
			/* (the rest stays in the list, freed with it) */
			for (i++; i < traces->nr; i++) {
				traces->items[n++] = traces->items[i];
			}
			break;
		}
	}
	traces->nr = n;
	return ret;
}

/*
 * Opens every CTF trace under the capture (and under the LTTng
 * directory given, when it is elsewhere); the cores that cannot be
 * read are listed as missing and left out.
 */
static int open_traces(struct ht_capture_reader *cap,
		       const struct ht_capture_reader_opts *co, char *err,
		       size_t err_len)
{
	struct ht_strv traces = {0};
	const char **paths = NULL;
	size_t nr_paths, i;
	bool lttng_apart;
	int ret;

	ret = ht__capture_layout_find(cap, co->dir, &traces, err, err_len);
	if (ret) {
		goto free_traces;
	}
	/* (an LTTng directory inside the capture is found with it) */
	lttng_apart = co->lttng_dir && !path_under(co->lttng_dir, co->dir);
	if (!traces.nr && !lttng_apart) {
		if (cap->nr_missing) {
			snprintf(err, err_len, "%s: no readable core: %s: %s%s",
				 co->dir, cap->missing[0].file,
				 cap->missing[0].why,
				 cap->nr_missing > 1 ? " (and others)" : "");
			ret = HT_EFORMAT;
		} else {
			snprintf(err, err_len,
				 "%s: no CTF trace (no metadata file)",
				 co->dir);
			ret = HT_ENOENT;
		}
		goto free_traces;
	}
	for (;;) {
		nr_paths = traces.nr + 1;
		free(paths);
		paths = calloc(nr_paths, sizeof(*paths));
		if (!paths) {
			ret = HT_ENOMEM;
			goto free_traces;
		}
		for (i = 0; i < traces.nr; i++) {
			paths[i] = traces.items[i];
		}
		nr_paths = traces.nr;
		if (lttng_apart) {
			paths[nr_paths++] = co->lttng_dir;
		}
		ret = open_set(cap, paths, nr_paths, err, err_len);
		if (ret != HT_ENOMEM && ret && traces.nr) {
			/* which trace: listed, the others opened again
			 * (an error in the LTTng directory stays one) */
			size_t before = traces.nr;

			ret = drop_unreadable(cap, &traces);
			if (!ret && traces.nr < before) {
				err[0] = '\0';
				continue;
			}
			if (!ret) {
				ret = open_set(cap, paths, nr_paths, err,
					       err_len);
			}
		}
		break;
	}
	if (!ret && !ht_ctf_set_nr_traces(cap->set)) {
		snprintf(err, err_len, "%s: no readable core: %s: %s", co->dir,
			 cap->nr_missing ? cap->missing[0].file : co->dir,
			 cap->nr_missing ? cap->missing[0].why
					 : "no metadata file");
		ret = HT_EFORMAT;
	}
free_traces:
	free(paths);
	ht_strv_fini(&traces);
	return ret;
}

/*
 * A trace written by hetrace sync holds the env entry sync_reference
 * (merge.h, docs/merge.md): its cores are on one clock already, and a
 * second sync would take the whole trace for one core.
 */
static int check_not_synced(const struct ht_capture_reader *cap, char *err,
			    size_t err_len)
{
	size_t i;

	for (i = 0; i < ht_ctf_set_nr_traces(cap->set); i++) {
		const struct ht_ctf_trace *t = ht_ctf_set_trace(cap->set, i);
		const char *ref = env_str(t, "sync_reference");

		if (ref) {
			snprintf(
			    err, err_len,
			    "%s/metadata: already synchronized by hetrace "
			    "sync (env sync_reference = \"%s\"): its cores "
			    "are on one clock; read it as it is (print, "
			    "states, export), or sync the capture it was "
			    "made from",
			    t->path, ref);
			return HT_EFORMAT;
		}
	}
	return 0;
}

/*
 * The LTTng-UST trace that stands for a core, if any: one at most.
 * *lt is its trace index (-1: none) and cap->lttng_name the name of
 * its core.
 */
static int find_lttng(struct ht_capture_reader *cap,
		      const struct ht_capture_reader_opts *co, long *lt,
		      char *err, size_t err_len)
{
	size_t i, nr_traces = ht_ctf_set_nr_traces(cap->set);

	*lt = -1;
	for (i = 0; i < nr_traces; i++) {
		const struct ht_ctf_trace *t = ht_ctf_set_trace(cap->set, i);
		bool given =
		    co->lttng_dir && path_under(t->path, co->lttng_dir);

		if (is_lttng_kernel(t)) {
			if (cap->kernel) {
				snprintf(err, err_len,
					 "%s/metadata: a second LTTng kernel "
					 "trace (the first is %s); hetrace "
					 "sync merges the master's one",
					 t->path, cap->kernel->path);
				return HT_EUNSUPPORTED;
			}
			cap->kernel = t;
			continue;
		}
		if (!is_lttng_ust(t)) {
			if (given) {
				snprintf(err, err_len,
					 "%s/metadata: not an LTTng-UST trace "
					 "(env tracer_name is not "
					 "\"lttng-ust\"), under the LTTng "
					 "directory %s",
					 t->path, co->lttng_dir);
				return HT_EFORMAT;
			}
			continue;
		}
		if (env_str(t, "core_name")) {
			/* a core of the capture traced with LTTng-UST and
			 * named by its env: an ordinary core */
			continue;
		}
		if (*lt >= 0) {
			snprintf(err, err_len,
				 "%s/metadata: a second LTTng-UST trace (the "
				 "first is %s); hetrace sync takes one as the "
				 "master: give its directory with "
				 "--master-lttng",
				 t->path,
				 ht_ctf_set_trace(cap->set, (size_t)*lt)->path);
			return HT_EUNSUPPORTED;
		}
		*lt = (long)i;
	}
	if (co->lttng_dir && *lt < 0 &&
	    !(cap->kernel && path_under(cap->kernel->path, co->lttng_dir))) {
		snprintf(err, err_len,
			 "%s: no LTTng-UST or LTTng kernel trace (a metadata "
			 "file with env tracer_name = \"lttng-ust\" or "
			 "\"lttng-modules\") under it",
			 co->lttng_dir);
		return HT_ENOENT;
	}
	if (*lt >= 0) {
		cap->lttng_name = strdup(
		    co->lttng_core ? co->lttng_core
				   : lttng_default_name(cap->set, (size_t)*lt));
		if (!cap->lttng_name) {
			return HT_ENOMEM;
		}
	}
	return 0;
}

/*
 * The traces that are cores, into use[0..cap->nr_cores): not the
 * kernel's, not the one the LTTng-UST trace @lt replaces. Returns the
 * LTTng core's id: the replaced trace's, else 0 unless another core
 * has it.
 */
static uint32_t pick_cores(struct ht_capture_reader *cap, long lt, size_t *use)
{
	size_t i, nr_traces = ht_ctf_set_nr_traces(cap->set);
	const char *lt_name = cap->lttng_name;
	bool replaced = false;
	uint32_t lt_id = 0;

	for (i = 0; i < nr_traces; i++) {
		const struct ht_ctf_trace *t = ht_ctf_set_trace(cap->set, i);

		if (is_lttng_kernel(t)) {
			/* the master's CPUs: merged apart (sync-kernel.c) */
			continue;
		}
		if (lt >= 0 && (long)i != lt &&
		    !strcmp(trace_core_name(t), lt_name)) {
			const struct ht_ctf_env_entry *e =
			    ht_ctf_trace_env(t, "core_id");

			replaced = true;
			if (e && !e->is_string && e->i >= 0 &&
			    e->i <= UINT32_MAX) {
				lt_id = (uint32_t)e->i;
			}
			ht__capture_reader_note(
			    cap,
			    "core %s: the LTTng-UST trace %s stands for it; "
			    "the capture's trace %s is left out",
			    lt_name,
			    ht_ctf_set_trace(cap->set, (size_t)lt)->path,
			    t->path);
			continue;
		}
		use[cap->nr_cores++] = i;
	}
	if (lt >= 0 && !replaced) {
		/* core id 0, unless another core has it */
		for (i = 0; i < nr_traces; i++) {
			const struct ht_ctf_env_entry *e = ht_ctf_trace_env(
			    ht_ctf_set_trace(cap->set, i), "core_id");

			if ((long)i != lt && e && !e->is_string &&
			    e->i >= (int64_t)lt_id && e->i < UINT32_MAX) {
				lt_id = (uint32_t)e->i + 1;
			}
		}
	}
	return lt_id;
}

/* Core @i from its trace @tr: name, id, role, master's name and clock.
 * The LTTng-UST trace @lt is a master with id @lt_id. */
static int describe_core(struct ht_capture_reader *cap, size_t i, size_t tr,
			 long lt, uint32_t lt_id, char *err, size_t err_len)
{
	struct ht_capture_core *c = &cap->cores[i];
	const struct ht_ctf_trace *t = ht_ctf_set_trace(cap->set, tr);
	const struct ht_ctf_env_entry *e;
	const char *role;
	size_t j;

	c->trace = t;
	c->name = trace_core_name(t);
	e = ht_ctf_trace_env(t, "core_id");
	c->id = (uint32_t)i;
	if ((long)tr == lt) {
		c->name = cap->lttng_name;
		c->id = lt_id;
		c->has_id = true;
		c->is_master = true;
		c->is_lttng = true;
		c->master = -1;
		e = NULL;
	} else if (e && !e->is_string) {
		if (e->i < 0 || e->i > UINT32_MAX) {
			snprintf(err, err_len,
				 "%s/metadata: env core_id = %" PRId64
				 " is not a core id (0 to 2^32-1)",
				 t->path, e->i);
			return HT_EFORMAT;
		}
		c->id = (uint32_t)e->i;
		c->has_id = true;
	}
	if (!c->is_lttng) {
		role = env_str(t, "core_role");
		c->is_master = role && !strcmp(role, "master");
		c->master_name = env_str(t, "core_master");
		c->master = -1;
	}
	for (j = 0; j < t->nr_stream_classes; j++) {
		const struct ht_ctf_clock *k =
		    t->stream_classes[j]->default_clock;

		if (!k) {
			continue;
		}
		if (c->clock && c->clock != k) {
			snprintf(err, err_len,
				 "%s/metadata: core %s has two "
				 "clocks (%s and %s); a core has one",
				 t->path, c->name, c->clock->name, k->name);
			return HT_EUNSUPPORTED;
		}
		c->clock = k;
	}
	if (!c->clock) {
		snprintf(err, err_len,
			 "%s/metadata: core %s has no clock: its "
			 "events cannot be placed in time",
			 t->path, c->name);
		return HT_EFORMAT;
	}
	return 0;
}

/* No two cores share a name or an id. */
static int check_unique(const struct ht_capture_reader *cap, char *err,
			size_t err_len)
{
	size_t i, j;

	for (i = 0; i < cap->nr_cores; i++) {
		const struct ht_capture_core *c = &cap->cores[i];

		for (j = 0; j < i; j++) {
			if (!strcmp(cap->cores[j].name, c->name)) {
				snprintf(err, err_len,
					 "%s/metadata: core name '%s' is also "
					 "the name of %s",
					 c->trace->path, c->name,
					 cap->cores[j].trace->path);
				return HT_EFORMAT;
			}
			if (cap->cores[j].id == c->id) {
				snprintf(err, err_len,
					 "%s/metadata: core id %" PRIu32
					 " is also the id of %s (%s)",
					 c->trace->path, c->id,
					 cap->cores[j].name,
					 cap->cores[j].trace->path);
				return HT_EFORMAT;
			}
		}
	}
	return 0;
}

/* Each core's master (env core_master) among the cores of @dir. */
static int find_masters(struct ht_capture_reader *cap, const char *dir,
			char *err, size_t err_len)
{
	size_t i, j;

	for (i = 0; i < cap->nr_cores; i++) {
		struct ht_capture_core *c = &cap->cores[i];

		if (!c->master_name) {
			continue;
		}
		c->master = ht_capture_reader_find_core(cap, c->master_name);
		for (j = 0; c->master < 0 && j < cap->nr_missing; j++) {
			const struct ht_capture_missing *m =
			    ht_capture_reader_missing(cap, j);

			if (!strcmp(m->name, c->master_name)) {
				snprintf(err, err_len,
					 "%s/metadata: core %s: its master "
					 "'%s' cannot be read: %s: %s",
					 c->trace->path, c->name,
					 c->master_name, m->file, m->why);
				return HT_ENOENT;
			}
		}
		if (c->master < 0) {
			snprintf(err, err_len,
				 "%s/metadata: core %s: its master '%s' "
				 "is not in the capture %s (a core is "
				 "missing)",
				 c->trace->path, c->name, c->master_name, dir);
			return HT_ENOENT;
		}
		if ((size_t)c->master == i) {
			snprintf(err, err_len,
				 "%s/metadata: core %s is its own master",
				 c->trace->path, c->name);
			return HT_EFORMAT;
		}
	}
	return 0;
}

/* The core of every stream of the set; the left-out traces' streams
 * have none (-1). */
static int map_streams(struct ht_capture_reader *cap)
{
	size_t i, j, nr_traces = ht_ctf_set_nr_traces(cap->set);
	size_t nr_streams = 0;

	for (i = 0; i < nr_traces; i++) {
		nr_streams += ht_ctf_set_trace(cap->set, i)->nr_streams;
	}
	cap->nr_streams = nr_streams;
	cap->core_of_stream = malloc((nr_streams + 1) * sizeof(long));
	if (!cap->core_of_stream) {
		return HT_ENOMEM;
	}
	for (i = 0; i < nr_streams; i++) {
		cap->core_of_stream[i] = -1;
	}
	for (i = 0; i < cap->nr_cores; i++) {
		const struct ht_ctf_trace *t = cap->cores[i].trace;

		for (j = 0; j < t->nr_streams; j++) {
			if (t->streams[j]->index < nr_streams) {
				cap->core_of_stream[t->streams[j]->index] =
				    (long)i;
			}
		}
	}
	return 0;
}

int ht_capture_reader_open_opts(struct ht_capture_reader **out,
				const struct ht_capture_reader_opts *co,
				char *err, size_t err_len)
{
	struct ht_capture_reader *cap;
	size_t i, *use = NULL;
	uint32_t lt_id;
	long lt;
	int ret;

	*out = NULL;
	cap = calloc(1, sizeof(*cap));
	if (!cap) {
		return HT_ENOMEM;
	}
	ret = open_traces(cap, co, err, err_len);
	if (!ret) {
		ret = check_not_synced(cap, err, err_len);
	}
	if (ret) {
		goto close_cap;
	}
	ret = find_lttng(cap, co, &lt, err, err_len);
	if (ret) {
		goto close_cap;
	}
	use = calloc(ht_ctf_set_nr_traces(cap->set), sizeof(*use));
	if (!use) {
		ret = HT_ENOMEM;
		goto close_cap;
	}
	lt_id = pick_cores(cap, lt, use);
	cap->cores = calloc(cap->nr_cores + 1, sizeof(*cap->cores));
	if (!cap->cores) {
		ret = HT_ENOMEM;
		goto close_cap;
	}
	for (i = 0; i < cap->nr_cores; i++) {
		ret = describe_core(cap, i, use[i], lt, lt_id, err, err_len);
		if (ret) {
			goto close_cap;
		}
	}
	ret = check_unique(cap, err, err_len);
	if (ret) {
		goto close_cap;
	}
	ret = find_masters(cap, co->dir, err, err_len);
	if (ret) {
		goto close_cap;
	}
	cap->dir = strdup(co->dir);
	if (!cap->dir) {
		ret = HT_ENOMEM;
		goto close_cap;
	}
	ret = map_streams(cap);
	if (!ret) {
		ret = ht__capture_reader_scan_init(cap);
	}
	if (ret) {
		goto close_cap;
	}
	free(use);
	*out = cap;
	return 0;
close_cap:
	free(use);
	ht_capture_reader_close(cap);
	return ret;
}

void ht_capture_reader_close(struct ht_capture_reader *cap)
{
	if (!cap) {
		return;
	}
	ht__capture_reader_scan_fini(cap);
	ht__capture_reader_notes_fini(cap);
	ht__capture_missing_fini(cap);
	free(cap->core_of_stream);
	free(cap->cores);
	free(cap->dir);
	free(cap->lttng_name);
	ht_ctf_set_close(cap->set);
	free(cap);
}

const struct ht_ctf_trace *
ht_capture_reader_kernel(const struct ht_capture_reader *cap)
{
	return cap->kernel;
}
