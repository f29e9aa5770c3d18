/* SPDX-License-Identifier: MIT */
/*
 * A set of CTF traces read as one time-ordered sequence of messages:
 * traces found under directories like babeltrace2 does, one decoder per
 * data stream file, merged with a binary heap keyed by time.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf-stream.h"
#include "common/path.h"
#include "common/buf.h"
#include "common/error.h"

struct class_match {
	const struct ht_ctf_event_class *cls; /* NULL: a free slot */
	bool match;
};

/* The records of a stream in the range, by class (ht_ctf_stream_scan()). */
struct range_tally {
	uint64_t *counts;
	size_t nr;
	uint64_t n, first, last;
};

struct ht_ctf_set {
	struct ht__trace **traces;
	size_t nr_traces;
	struct ht__stream **streams;
	size_t nr_streams;
	struct ht__stream **heap;
	size_t nr_heap;
	size_t init_i; /* streams given their first message so far */
	bool started;  /* the heap top was delivered: advance it first */
	/* HT_CTF_EVENTS_ONLY asked, but packet and stream boundaries are
	 * read for the order of ties (see hide_bounds()), not delivered */
	bool hide_bounds;
	/* ht_ctf_set_set_range(): the last time read, and past it */
	bool ranged, past_end;
	int64_t begin_ns, end_ns;
	/* ht_ctf_stream_scan() in a range: per stream, what it counted */
	struct range_tally *tallies;
	/* ht_ctf_select .events: the patterns, and per event class met
	 * whether it matches (open addressing by class pointer) */
	const char *const *events;
	size_t nr_events;
	struct class_match *matches;
	size_t nr_matches, cap_matches;
	/* ht_ctf_set_select_cores(): per stream, whether it is left out */
	bool *left_out;
	struct ht_ctf_open_opts opts;
	char err[1024];
};

/* ---------------------------------------------------------------- */
/* Small public helpers                                              */

size_t ht_ctf_enum_labels(const struct ht_ctf_type *type, uint64_t value,
			  const char **labels, size_t max)
{
	size_t m, r, n = 0;
	bool sig =
	    type->container ? type->container->is_signed : type->is_signed;

	for (m = 0; m < type->nr_mappings; m++) {
		const struct ht_ctf_enum_mapping *mp = &type->mappings[m];

		for (r = 0; r < mp->nr_ranges; r++) {
			const struct ht_ctf_enum_range *rg = &mp->ranges[r];
			bool in =
			    sig ? (int64_t)value >= rg->lower.s &&
				      (int64_t)value <= rg->upper.s
				: value >= rg->lower.u && value <= rg->upper.u;

			if (in) {
				if (n < max) {
					labels[n] = mp->label;
				}
				n++;
				break;
			}
		}
	}
	return n;
}

const struct ht_ctf_field *ht_ctf_field_member(const struct ht_ctf_field *f,
					       const char *name)
{
	const struct ht_ctf_field *c;
	uint32_t i;

	if (!f || f->type->kind != HT_CTF_STRUCT) {
		return NULL;
	}
	c = ht_ctf_field_first_child(f);
	for (i = 0; i < f->nr_children; i++, c = ht_ctf_field_next(c)) {
		if (c->name && !strcmp(c->name, name)) {
			return c;
		}
	}
	return NULL;
}

const struct ht_ctf_env_entry *
ht_ctf_trace_env(const struct ht_ctf_trace *trace, const char *name)
{
	size_t i;

	for (i = 0; i < trace->nr_env; i++) {
		if (!strcmp(trace->env[i].name, name)) {
			return &trace->env[i];
		}
	}
	return NULL;
}

/* ---------------------------------------------------------------- */
/* Opening                                                           */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The names of the entries of @dir but hidden ones and @skip (may be
 * NULL) into @out, in name order.
 */
static int dir_names(const char *dir, const char *skip, struct ht_strv *out,
		     char *err, size_t err_len)
{
	DIR *d;
	struct dirent *de;
	int ret = 0;

	d = opendir(dir);
	if (!d) {
		snprintf(err, err_len, "%s: cannot open directory: %s", dir,
			 strerror(errno));
		return HT_EIO;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    (skip && !strcmp(de->d_name, skip))) {
			continue;
		}
		ret = ht_strv_add(out, de->d_name);
		if (ret) {
			break;
		}
	}
	closedir(d);
	if (out->nr > 1) {
		qsort(out->items, out->nr, sizeof(*out->items), cmp_str);
	}
	return ret;
}

/* Adds @dir if it holds `metadata`, else searches its subdirectories. */
static int find_traces(const char *dir, struct ht_strv *out, unsigned depth,
		       char *err, size_t err_len)
{
	char *meta;
	struct stat st;
	struct ht_strv names = {0};
	size_t i;
	int ret;

	if (depth > 32) {
		return 0;
	}
	meta = ht_path_join(dir, "metadata");
	if (!meta) {
		return HT_ENOMEM;
	}
	if (!stat(meta, &st) && S_ISREG(st.st_mode)) {
		free(meta);
		return ht_strv_add(out, dir);
	}
	free(meta);
	ret = dir_names(dir, NULL, &names, err, err_len);
	for (i = 0; !ret && i < names.nr; i++) {
		char *sub = ht_path_join(dir, names.items[i]);

		if (!sub) {
			ret = HT_ENOMEM;
			break;
		}
		if (!stat(sub, &st) && S_ISDIR(st.st_mode)) {
			ret = find_traces(sub, out, depth + 1, err, err_len);
		}
		free(sub);
	}
	ht_strv_fini(&names);
	return ret;
}

static void trace_free(struct ht__trace *t)
{
	if (!t) {
		return;
	}
	free(t->metadata_path);
	ht__arena_fini(&t->arena);
	free(t);
}

static void stream_free(struct ht__stream *s)
{
	if (!s) {
		return;
	}
	if (s->map) {
		munmap((void *)s->map, s->map_len);
	}
	if (s->fd >= 0) {
		close(s->fd);
	}
	free(s->regs);
	free(s->tally);
	ht__stream_fini(s);
	free((char *)s->pub.path);
	free(s);
}

static int add_stream(struct ht_ctf_set *set, struct ht__trace *t,
		      const char *path, const char *name, uint64_t size,
		      char *err, size_t err_len)
{
	struct ht__stream *s, **n;
	void *base;
	uint64_t len;
	long pg;
	int ret;

	s = calloc(1, sizeof(*s));
	if (!s) {
		return HT_ENOMEM;
	}
	s->fd = -1;
	s->pub.path = strdup(path);
	s->regs = calloc(t->nr_regs + 1, sizeof(*s->regs));
	if (!s->pub.path || !s->regs) {
		ret = HT_ENOMEM;
		goto fail;
	}
	s->pub.file_name = s->pub.path + strlen(s->pub.path) - strlen(name);
	s->pub.file_size = size;
	s->pub.trace = &t->pub;
	s->trace = t;
	s->size = size;
	s->flags = set->opts.flags;
	s->err = set->err;
	s->err_len = sizeof(set->err);
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		snprintf(err, err_len, "%s: cannot open: %s", path,
			 strerror(errno));
		ret = HT_EIO;
		goto fail;
	}
	/* the file, then at least one page of zeros: the decoder loads 8
	 * bytes at a time and may read up to 7 bytes past the end */
	pg = sysconf(_SC_PAGESIZE);
	if (pg <= 0) {
		pg = 4096;
	}
	len = ((size + pg - 1) & ~(uint64_t)(pg - 1)) + pg;
	if (len != (size_t)len) {
		snprintf(err, err_len, "%s: too large to map", path);
		ret = HT_EIO;
		goto fail;
	}
	base = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED ||
	    mmap(base, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, s->fd, 0) ==
		MAP_FAILED) {
		snprintf(err, err_len, "%s: cannot map: %s", path,
			 strerror(errno));
		if (base != MAP_FAILED) {
			munmap(base, len);
		}
		ret = HT_EIO;
		goto fail;
	}
	s->map = base;
	s->map_len = len;
	madvise((void *)s->map, size, MADV_SEQUENTIAL);
	ht__stream_rewind(s);
	n = realloc(set->streams, (set->nr_streams + 1) * sizeof(*n));
	if (!n) {
		ret = HT_ENOMEM;
		goto fail;
	}
	set->streams = n;
	s->pub.index = set->nr_streams;
	set->streams[set->nr_streams++] = s;
	return 0;
fail:
	stream_free(s);
	return ret;
}

/*
 * Adds the open options' clock offset to every clock of @t, the way
 * babeltrace2's source.ctf.fs applies clock-class-offset-s and
 * clock-class-offset-ns: the nanoseconds become whole seconds (floor)
 * and cycles, then the cycles are brought below the frequency. The
 * stream classes' clock constants follow.
 */
static void apply_clock_offset(struct ht__trace *t,
			       const struct ht_ctf_open_opts *o)
{
	int64_t ns = o->clock_offset_ns % 1000000000;
	int64_t sec = o->clock_offset_s + o->clock_offset_ns / 1000000000;
	size_t i;

	if (!o->clock_offset_s && !o->clock_offset_ns) {
		return;
	}
	if (ns < 0) {
		ns += 1000000000;
		sec--;
	}
	for (i = 0; i < t->pub.nr_clocks; i++) {
		struct ht_ctf_clock *c =
		    (struct ht_ctf_clock *)t->pub.clocks[i];
		int64_t freq = c->freq_hz ? (int64_t)c->freq_hz : 1;

		c->offset_s += sec;
		c->offset_cycles += (int64_t)((double)ns * (double)freq / 1e9);
		if (c->offset_cycles >= freq) {
			c->offset_s += c->offset_cycles / freq;
			c->offset_cycles %= freq;
		}
	}
	for (i = 0; i < t->pub.nr_stream_classes; i++) {
		ht__stream_class_clock_init(
		    (struct ht__stream_class *)t->pub.stream_classes[i]);
	}
}

/* Reads trace @dir's metadata into a new trace *@out. */
static int load_trace(struct ht_ctf_set *set, const char *dir,
		      struct ht__trace **out, char *err, size_t err_len)
{
	struct ht__trace *t;
	const struct ht_ctf_env_entry *e;
	char *text = NULL;
	size_t len;
	int ret;

	t = calloc(1, sizeof(*t));
	if (!t) {
		return HT_ENOMEM;
	}
	t->metadata_path = ht_path_join(dir, "metadata");
	if (!t->metadata_path) {
		ret = HT_ENOMEM;
		goto free_trace;
	}
	ret = ht_ctf_metadata_read(t->metadata_path, &text, &len, err, err_len);
	if (ret) {
		goto free_trace;
	}
	ret = ht__trace_load(t, t->metadata_path, text, len, &set->opts, err,
			     err_len);
	free(text);
	if (ret) {
		goto free_trace;
	}
	apply_clock_offset(t, &set->opts);
	t->pub.path = ht__arena_strdup(&t->arena, dir);
	if (!t->pub.path) {
		ret = HT_ENOMEM;
		goto free_trace;
	}
	e = ht_ctf_trace_env(&t->pub, "trace_name");
	t->pub.name = e && e->is_string ? e->str : t->pub.path;
	*out = t;
	return 0;
free_trace:
	trace_free(t);
	return ret;
}

/*
 * The data stream files of trace @t in @dir: every regular, non-empty
 * file but metadata and hidden ones, in name order.
 */
static int add_streams(struct ht_ctf_set *set, struct ht__trace *t,
		       const char *dir, char *err, size_t err_len)
{
	struct ht_strv files = {0};
	size_t first = set->nr_streams, i;
	const struct ht_ctf_stream **ss;
	int ret;

	ret = dir_names(dir, "metadata", &files, err, err_len);
	for (i = 0; !ret && i < files.nr; i++) {
		char *p = ht_path_join(dir, files.items[i]);
		struct stat st;

		if (!p) {
			ret = HT_ENOMEM;
			break;
		}
		if (!stat(p, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
			ret = add_stream(set, t, p, files.items[i], st.st_size,
					 err, err_len);
		}
		free(p);
	}
	ht_strv_fini(&files);
	if (ret) {
		return ret;
	}
	ss = ht__arena_alloc(&t->arena,
			     (set->nr_streams - first + 1) * sizeof(*ss));
	if (!ss) {
		return HT_ENOMEM;
	}
	for (i = first; i < set->nr_streams; i++) {
		ss[i - first] = &set->streams[i]->pub;
	}
	t->pub.streams = ss;
	t->pub.nr_streams = set->nr_streams - first;
	return 0;
}

/*
 * The name babeltrace2 2.0 gives the trace in @dir, which its muxer
 * orders traces by: the env hostname, then the directory relative to
 * the input path it was found under (none when it is that path),
 * joined by '/'; "" when both are missing.
 */
static int mux_trace_name(struct ht__trace *t, const char *dir,
			  const char *const *paths, size_t nr_paths,
			  const char **out)
{
	const struct ht_ctf_env_entry *host =
	    ht_ctf_trace_env(&t->pub, "hostname");
	const char *h = host && host->is_string ? host->str : "";
	const char *rel = "";
	size_t i, len;
	char *name;

	for (i = 0; i < nr_paths; i++) {
		len = strlen(paths[i]);
		while (len > 1 && paths[i][len - 1] == '/') {
			len--;
		}
		if (!strncmp(dir, paths[i], len) && dir[len] == '/') {
			rel = dir + len + 1;
			break;
		}
		if (!strncmp(dir, paths[i], len) && !dir[len]) {
			break;
		}
	}
	len = strlen(h) + strlen(rel) + 2;
	name = ht__arena_alloc(&t->arena, len);
	if (!name) {
		return HT_ENOMEM;
	}
	snprintf(name, len, "%s%s%s", h, h[0] && rel[0] ? "/" : "", rel);
	*out = name;
	return 0;
}

static int open_trace(struct ht_ctf_set *set, const char *dir,
		      const char *const *paths, size_t nr_paths, char *err,
		      size_t err_len)
{
	struct ht__trace *t, **nt;
	const char *mux_name;
	size_t i, first = set->nr_streams;
	int ret;

	ret = load_trace(set, dir, &t, err, err_len);
	if (ret) {
		return ret;
	}
	ret = mux_trace_name(t, dir, paths, nr_paths, &mux_name);
	if (ret) {
		trace_free(t);
		return ret;
	}
	nt = realloc(set->traces, (set->nr_traces + 1) * sizeof(*nt));
	if (!nt) {
		trace_free(t);
		return HT_ENOMEM;
	}
	set->traces = nt;
	set->traces[set->nr_traces++] = t;
	ret = add_streams(set, t, dir, err, err_len);
	for (i = first; i < set->nr_streams; i++) {
		set->streams[i]->mux_trace_name = mux_name;
	}
	return ret;
}

void ht_ctf_set_close(struct ht_ctf_set *set)
{
	size_t i;

	if (!set) {
		return;
	}
	for (i = 0; i < set->nr_streams; i++) {
		stream_free(set->streams[i]);
	}
	for (i = 0; i < set->nr_traces; i++) {
		trace_free(set->traces[i]);
	}
	free(set->streams);
	free(set->traces);
	free(set->heap);
	free(set->left_out);
	free(set->matches);
	if (set->tallies) {
		for (i = 0; i < set->nr_streams; i++) {
			free(set->tallies[i].counts);
		}
	}
	free(set->tallies);
	free(set);
}

static int open_select(struct ht_ctf_set *set, const struct ht_ctf_select *sel,
		       char *err, size_t err_len)
{
	int ret = 0;

	set->events = sel->events;
	set->nr_events = sel->nr_events;
	if (sel->nr_cores) {
		ret = ht_ctf_set_select_cores(set, sel->cores, sel->nr_cores,
					      err, err_len);
	}
	if (!ret && ht_ctf_set_set_range(set, sel->begin_ns, sel->end_ns)) {
		snprintf(err, err_len,
			 "the range begins after its end (%lld > %lld ns)",
			 (long long)sel->begin_ns, (long long)sel->end_ns);
		ret = HT_EINVAL;
	}
	return ret;
}

static int cmp_mux_trace(const void *pa, const void *pb)
{
	const struct ht__stream *a = *(const struct ht__stream *const *)pa;
	const struct ht__stream *b = *(const struct ht__stream *const *)pb;
	const struct ht_ctf_trace *ta = a->pub.trace, *tb = b->pub.trace;

	if (ta->has_uuid != tb->has_uuid) {
		return ta->has_uuid - tb->has_uuid;
	}
	if (ta->has_uuid && memcmp(ta->uuid, tb->uuid, 16)) {
		return memcmp(ta->uuid, tb->uuid, 16);
	}
	return strcmp(a->mux_trace_name, b->mux_trace_name);
}

/*
 * When two traces look the same to babeltrace2's muxer (no UUID or the
 * same one, and the same name), the type of the messages at equal times
 * orders their events: a packet's end holds back the events after it.
 * Then the streams read their boundaries though HT_CTF_EVENTS_ONLY was
 * asked, and ht_ctf_set_next() leaves them out. Otherwise (most sets)
 * the streams of different traces are ordered by trace before type.
 */
static int hide_bounds(struct ht_ctf_set *set)
{
	struct ht__stream **first;
	size_t i, n = 0;

	if (set->nr_traces < 2) {
		return 0;
	}
	first = malloc(set->nr_traces * sizeof(*first));
	if (!first) {
		return HT_ENOMEM;
	}
	for (i = 0; i < set->nr_streams; i++) {
		if (!i ||
		    set->streams[i]->trace != set->streams[i - 1]->trace) {
			first[n++] = set->streams[i];
		}
	}
	qsort(first, n, sizeof(*first), cmp_mux_trace);
	for (i = 1; i < n && !set->hide_bounds; i++) {
		set->hide_bounds = !cmp_mux_trace(&first[i - 1], &first[i]);
	}
	free(first);
	for (i = 0; set->hide_bounds && i < set->nr_streams; i++) {
		set->streams[i]->flags &= ~(unsigned)HT_CTF_EVENTS_ONLY;
	}
	return 0;
}

int ht_ctf_set_open(struct ht_ctf_set **out, const char *const *paths,
		    size_t nr_paths, const struct ht_ctf_open_opts *opts,
		    char *err, size_t err_len)
{
	struct ht_ctf_set *set;
	struct ht_strv dirs = {0};
	char dummy[2];
	size_t i;
	int ret = 0;

	if (!err || !err_len) {
		err = dummy;
		err_len = sizeof(dummy);
	}
	err[0] = '\0';
	*out = NULL;
	set = calloc(1, sizeof(*set));
	if (!set) {
		snprintf(err, err_len, "out of memory");
		return HT_ENOMEM;
	}
	set->begin_ns = INT64_MIN;
	set->end_ns = INT64_MAX;
	if (opts) {
		set->opts = *opts;
	}
	for (i = 0; !ret && i < nr_paths; i++) {
		struct stat st;
		const char *p = paths[i];

		if (stat(p, &st)) {
			snprintf(err, err_len, "%s: %s", p, strerror(errno));
			ret = errno == ENOENT ? HT_ENOENT : HT_EIO;
		} else if (S_ISDIR(st.st_mode)) {
			size_t before = dirs.nr;

			ret = find_traces(p, &dirs, 0, err, err_len);
			if (!ret && dirs.nr == before) {
				snprintf(err, err_len,
					 "%s: no CTF trace found (no "
					 "`metadata` file)",
					 p);
				ret = HT_ENOENT;
			}
		} else {
			/* a metadata file: its directory is the trace */
			const char *slash = strrchr(p, '/');
			char *dir = slash ? strndup(p, slash - p) : strdup(".");

			if (!dir) {
				ret = HT_ENOMEM;
			} else {
				ret = ht_strv_add(&dirs, dir[0] ? dir : "/");
				free(dir);
			}
		}
	}
	if (!ret && dirs.nr > 1) {
		qsort(dirs.items, dirs.nr, sizeof(*dirs.items), cmp_str);
	}
	for (i = 0; !ret && i < dirs.nr; i++) {
		if (i && !strcmp(dirs.items[i], dirs.items[i - 1])) {
			continue;
		}
		ret = open_trace(set, dirs.items[i], paths, nr_paths, err,
				 err_len);
	}
	ht_strv_fini(&dirs);
	if (!ret && (set->opts.flags & HT_CTF_EVENTS_ONLY)) {
		ret = hide_bounds(set);
	}
	if (!ret) {
		set->heap = calloc(set->nr_streams + 1, sizeof(*set->heap));
		if (!set->heap) {
			ret = HT_ENOMEM;
		}
	}
	if (!ret && opts && opts->select) {
		ret = open_select(set, opts->select, err, err_len);
	}
	set->opts.select = NULL;
	if (ret) {
		if (ret == HT_ENOMEM && !err[0]) {
			snprintf(err, err_len, "out of memory");
		}
		ht_ctf_set_close(set);
		return ret;
	}
	*out = set;
	return 0;
}

size_t ht_ctf_set_nr_traces(const struct ht_ctf_set *set)
{
	return set->nr_traces;
}

const struct ht_ctf_trace *ht_ctf_set_trace(const struct ht_ctf_set *set,
					    size_t i)
{
	return i < set->nr_traces ? &set->traces[i]->pub : NULL;
}

const char *ht_ctf_set_last_error(const struct ht_ctf_set *set)
{
	return set->err;
}

/* ---------------------------------------------------------------- */
/* Merging                                                           */

/* babeltrace2's muxer puts message types in this order on a tie */
static int kind_weight(enum ht_ctf_msg_kind k)
{
	switch (k) {
	case HT_CTF_MSG_STREAM_BEGIN:
		return 7;
	case HT_CTF_MSG_PACKET_BEGIN:
		return 6;
	case HT_CTF_MSG_EVENT:
		return 5;
	case HT_CTF_MSG_DISCARDED_EVENTS:
		return 4;
	case HT_CTF_MSG_PACKET_END:
		return 3;
	case HT_CTF_MSG_DISCARDED_PACKETS:
		return 1;
	default:
		return 0;
	}
}

/* strcmp with NULL first */
static int cmp_opt_str(const char *a, const char *b)
{
	if (!a || !b) {
		return !a && b ? -1 : a && !b ? 1 : 0;
	}
	return strcmp(a, b);
}

/*
 * The order of two pending messages at the same time, as babeltrace2
 * 2.0's muxer decides it (common_muxing_compare_messages() in
 * plugins/common/muxing/muxing.c): trace UUID (with one first), trace
 * name (mux_trace_name()), stream class id, stream id (mux_ids()),
 * then for messages of one type: events by class (id, name, log
 * level, EMF URI), then by stream name (babeltrace2 names a stream by
 * its file's path); packet and stream messages by stream name;
 * discarded ones by stream name, then range, then count; for messages
 * of two types: by type (kind_weight()). Where it finds no difference,
 * its first input port wins: the first stream of the set. babeltrace2
 * takes some differences as an int, truncated: so here.
 */
static bool tie_before(const struct ht__stream *a, const struct ht__stream *b)
{
	const struct ht_ctf_trace *ta = a->pub.trace, *tb = b->pub.trace;
	const struct ht_ctf_stream_class *sa = a->pub.stream_class;
	const struct ht_ctf_stream_class *sb = b->pub.stream_class;
	const struct ht_ctf_msg *ma = a->cur, *mb = b->cur;
	int c;

	if (ta != tb) {
		if (ta->has_uuid != tb->has_uuid) {
			return ta->has_uuid;
		}
		if (ta->has_uuid) {
			c = memcmp(ta->uuid, tb->uuid, 16);
			if (c) {
				return c < 0;
			}
		}
		c = cmp_opt_str(a->mux_trace_name, b->mux_trace_name);
		if (c) {
			return c < 0;
		}
	}
	if (sa && sb && sa->id != sb->id) {
		return sa->id < sb->id;
	}
	if (a->mux_stream_id != b->mux_stream_id) {
		return a->mux_stream_id < b->mux_stream_id;
	}
	if (ma->kind != mb->kind) {
		return kind_weight(ma->kind) > kind_weight(mb->kind);
	}
	if (ma->kind == HT_CTF_MSG_EVENT) {
		const struct ht_ctf_event_class *ea = ma->event->cls;
		const struct ht_ctf_event_class *eb = mb->event->cls;

		if (ea->id != eb->id) {
			return ea->id < eb->id;
		}
		c = cmp_opt_str(ea->name, eb->name);
		if (c) {
			return c < 0;
		}
		if (ea->has_loglevel != eb->has_loglevel) {
			return ea->has_loglevel;
		}
		if (ea->has_loglevel && ea->loglevel != eb->loglevel) {
			return (int)(ea->loglevel - eb->loglevel) < 0;
		}
		c = cmp_opt_str(ea->emf_uri, eb->emf_uri);
		if (c) {
			return c < 0;
		}
	}
	c = strcmp(a->pub.path, b->pub.path);
	if (c) {
		return c < 0;
	}
	if (ma->kind == HT_CTF_MSG_DISCARDED_EVENTS ||
	    ma->kind == HT_CTF_MSG_DISCARDED_PACKETS) {
		if (ma->has_range && mb->has_range) {
			c = (int)(ma->begin_cycles - mb->begin_cycles);
			if (c) {
				return c < 0;
			}
			c = (int)(ma->end_cycles - mb->end_cycles);
			if (c) {
				return c < 0;
			}
		}
		c = (int)(ma->count - mb->count);
		if (c) {
			return c < 0;
		}
	}
	return a->pub.index < b->pub.index;
}

/*
 * The stream ids babeltrace2 2.0 gives: the packet header's
 * stream_instance_id, else (source.ctf.fs) a number counted per trace
 * over the files without one, in path order. Known once each stream
 * read its first packet.
 */
static void mux_ids(struct ht_ctf_set *set)
{
	size_t i = 0, j, k;

	while (i < set->nr_streams) {
		const struct ht__trace *t = set->streams[i]->trace;
		bool any_instance = false;
		uint64_t next = 0;

		for (j = i; j < set->nr_streams && set->streams[j]->trace == t;
		     j++) {
			any_instance |= set->streams[j]->pub.has_instance_id;
		}
		for (k = i; k < j; k++) {
			struct ht__stream *s = set->streams[k];

			if (s->pub.has_instance_id) {
				s->mux_stream_id = s->pub.instance_id;
			} else if (!any_instance) {
				s->mux_stream_id = next++;
			}
		}
		i = j;
	}
}

static inline bool before(const struct ht__stream *a,
			  const struct ht__stream *b)
{
	if (a->key != b->key) {
		return a->key < b->key;
	}
	return tie_before(a, b);
}

static void sift_down(struct ht_ctf_set *set, size_t i)
{
	struct ht__stream **h = set->heap, *x = h[i];
	size_t n = set->nr_heap;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n) {
			break;
		}
		if (c + 1 < n && before(h[c + 1], h[c])) {
			c++;
		}
		if (!before(h[c], x)) {
			break;
		}
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

static void heap_pop(struct ht_ctf_set *set)
{
	set->heap[0] = set->heap[--set->nr_heap];
	if (set->nr_heap) {
		sift_down(set, 0);
	}
}

/*
 * Copies the pending message of @s. An event's time was just stored
 * field by field: copying those fields one by one (not as a block of
 * wide loads) lets the loads take the values from the stores.
 */
/* "clock 'NAME' (uuid U)" and how it is related to others. */
static void clock_desc(const struct ht_ctf_clock *c, char *out, size_t len)
{
	char u[40] = "";
	int i, n = 0;

	if (!c) {
		snprintf(out, len, "no clock");
		return;
	}
	for (i = 0; c->has_uuid && i < 16; i++) {
		n += snprintf(u + n, sizeof(u) - n, "%02x%s", c->uuid[i],
			      i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
	}
	snprintf(out, len, "clock '%s' (%s%s%s)", c->name,
		 c->absolute ? "absolute, " : "",
		 c->has_uuid ? "uuid " : "no uuid", u);
}

/* Whether clocks @a and @b (either may be NULL) can be compared. */
static bool clocks_related(const struct ht_ctf_clock *a,
			   const struct ht_ctf_clock *b)
{
	if (a == b) {
		return true;
	}
	if (!a || !b) {
		return false;
	}
	if (a->absolute || b->absolute) {
		return a->absolute && b->absolute;
	}
	return a->has_uuid && b->has_uuid && !memcmp(a->uuid, b->uuid, 16);
}

int ht_ctf_set_check_clocks(const struct ht_ctf_set *set, char *err,
			    size_t err_len)
{
	const struct ht_ctf_trace *ft = NULL;
	const struct ht_ctf_clock *first = NULL;
	char a[128], b[128];
	size_t t, k;

	for (t = 0; t < set->nr_traces; t++) {
		const struct ht_ctf_trace *tr = &set->traces[t]->pub;

		if (!tr->nr_streams) {
			continue;
		}
		for (k = 0; k < tr->nr_stream_classes; k++) {
			const struct ht_ctf_clock *c =
			    tr->stream_classes[k]->default_clock;

			if (!ft) {
				ft = tr;
				first = c;
				continue;
			}
			if (clocks_related(first, c)) {
				continue;
			}
			clock_desc(first, a, sizeof(a));
			clock_desc(c, b, sizeof(b));
			snprintf(err, err_len,
				 "cannot merge the events of %s, %s, with "
				 "those of %s, %s: the clocks are unrelated "
				 "(merged clocks are one clock, or all "
				 "absolute, or all of one uuid)",
				 ft->path, a, tr->path, b);
			return HT_EINVAL;
		}
	}
	return 0;
}

static inline void msg_copy(struct ht_ctf_msg *dst, const struct ht__stream *s)
{
	const struct ht_ctf_msg *m = s->cur;

	if (m->kind == HT_CTF_MSG_EVENT) {
		dst->kind = m->kind;
		dst->stream = m->stream;
		dst->has_time = m->has_time;
		dst->cycles = m->cycles;
		dst->ns = m->ns;
		dst->packet = m->packet;
		dst->event = m->event;
		dst->count = 0;
		dst->has_range = false;
		dst->begin_cycles = dst->end_cycles = 0;
		dst->begin_ns = dst->end_ns = 0;
		dst->back_cycles = m->back_cycles;
		return;
	}
	*dst = *m;
}

/* Advances stream heap[0]; on error keeps the heap consistent. */
static int advance_top(struct ht_ctf_set *set)
{
	struct ht__stream *s = set->heap[0];
	int ret = ht__stream_advance(s);

	if (ret == HT_EEOF) {
		heap_pop(set);
		return 0;
	}
	if (ret) {
		/* the stream state moved past the damage: re-advance it
		 * on the next call */
		return ret;
	}
	sift_down(set, 0);
	return 0;
}

static inline __attribute__((always_inline)) int
set_next(struct ht_ctf_set *set, struct ht_ctf_msg *msg);

static bool class_matches(const struct ht_ctf_set *set,
			  const struct ht_ctf_event_class *cls)
{
	const char *name = cls->name ? cls->name : "";
	size_t i;

	for (i = 0; i < set->nr_events; i++) {
		if (!fnmatch(set->events[i], name, 0) ||
		    !fnmatch(set->events[i], ht_ctf_event_short_name(name),
			     0)) {
			return true;
		}
	}
	return false;
}

/* Whether EVENT messages of @cls are delivered (ht_ctf_select .events). */
static int event_wanted(struct ht_ctf_set *set,
			const struct ht_ctf_event_class *cls, bool *wanted)
{
	size_t h, i;

	if (2 * (set->nr_matches + 1) > set->cap_matches) {
		size_t cap = set->cap_matches ? 2 * set->cap_matches : 64;
		struct class_match *m = calloc(cap, sizeof(*m));

		if (!m) {
			return HT_ENOMEM;
		}
		for (i = 0; i < set->cap_matches; i++) {
			if (set->matches[i].cls) {
				h = ((uintptr_t)set->matches[i].cls >> 4) % cap;
				while (m[h].cls) {
					h = (h + 1) % cap;
				}
				m[h] = set->matches[i];
			}
		}
		free(set->matches);
		set->matches = m;
		set->cap_matches = cap;
	}
	h = ((uintptr_t)cls >> 4) % set->cap_matches;
	while (set->matches[h].cls && set->matches[h].cls != cls) {
		h = (h + 1) % set->cap_matches;
	}
	if (!set->matches[h].cls) {
		set->matches[h].cls = cls;
		set->matches[h].match = class_matches(set, cls);
		set->nr_matches++;
	}
	*wanted = set->matches[h].match;
	return 0;
}

int ht_ctf_set_next(struct ht_ctf_set *set, struct ht_ctf_msg *msg)
{
	bool wanted;
	int ret;

	if (!set->ranged && !set->nr_events && !set->hide_bounds) {
		return set_next(set, msg);
	}
	if (set->past_end) {
		return HT_EEOF;
	}
	for (;;) {
		ret = set_next(set, msg);
		if (ret) {
			return ret;
		}
		if (set->hide_bounds && msg->kind != HT_CTF_MSG_EVENT &&
		    msg->kind != HT_CTF_MSG_DISCARDED_EVENTS &&
		    msg->kind != HT_CTF_MSG_DISCARDED_PACKETS) {
			continue;
		}
		/* in time order: the first message past the end ends the
		 * range */
		if (set->ranged && msg->has_time && msg->ns > set->end_ns) {
			set->past_end = true;
			return HT_EEOF;
		}
		if (msg->kind != HT_CTF_MSG_EVENT || !set->nr_events) {
			return 0;
		}
		ret = event_wanted(set, msg->event->cls, &wanted);
		if (ret || wanted) {
			return ret;
		}
	}
}

static int set_next_slow(struct ht_ctf_set *set, struct ht_ctf_msg *msg,
			 int ret);

/*
 * The next message of the set into @msg. Inline: the usual case (the
 * top stream goes on, and most often stays before both its children:
 * no sift) costs no call of its own.
 */
static inline __attribute__((always_inline)) int
set_next(struct ht_ctf_set *set, struct ht_ctf_msg *msg)
{
	if (set->started && set->nr_heap) {
		struct ht__stream **h = set->heap, *s = h[0];
		int ret = ht__stream_advance(s);

		if (!ret) {
			if ((set->nr_heap > 1 && before(h[1], s)) ||
			    (set->nr_heap > 2 && before(h[2], s))) {
				sift_down(set, 0);
			}
			msg_copy(msg, h[0]);
			return 0;
		}
		return set_next_slow(set, msg, ret);
	}
	return set_next_slow(set, msg, 0);
}

/* set_next() but its usual case; @ret: what advancing the top stream
 * returned (0: not advanced) */
static __attribute__((noinline)) int
set_next_slow(struct ht_ctf_set *set, struct ht_ctf_msg *msg, int ret)
{
	if (ret) {
		if (ret != HT_EEOF) {
			return ret;
		}
		heap_pop(set);
		if (!set->nr_heap) {
			return HT_EEOF;
		}
		msg_copy(msg, set->heap[0]);
		return 0;
	}
	if (!set->started) {
		/* first call (or after a seek): every stream gets its
		 * first message */
		while (set->init_i < set->nr_streams) {
			struct ht__stream *s = set->streams[set->init_i];
			size_t i;

			ret = set->left_out && set->left_out[set->init_i]
				  ? HT_EEOF
				  : ht__stream_advance(s);
			if (ret && ret != HT_EEOF) {
				/* the stream went on or ended: it is tried
				 * again on the next call */
				return ret;
			}
			set->init_i++;
			if (!ret) {
				set->heap[set->nr_heap++] = s;
			}
			if (set->init_i == set->nr_streams) {
				mux_ids(set);
				for (i = set->nr_heap / 2 + 1; i-- > 0;) {
					if (i < set->nr_heap) {
						sift_down(set, i);
					}
				}
			}
		}
		set->started = true;
	} else if (set->nr_heap) {
		ret = advance_top(set);
		if (ret) {
			return ret;
		}
	}
	if (!set->nr_heap) {
		return HT_EEOF;
	}
	msg_copy(msg, set->heap[0]);
	return 0;
}

int ht_ctf_set_seek_ns(struct ht_ctf_set *set, int64_t ns)
{
	size_t i;

	for (i = 0; i < set->nr_streams; i++) {
		struct ht__stream *s = set->streams[i];

		ht__stream_rewind(s);
		s->seeking = true;
		s->seek_ns = ns;
		if (!(set->left_out && set->left_out[i])) {
			ht__stream_seek_packet(s, ns);
		}
	}
	set->past_end = false;
	set->nr_heap = 0;
	set->init_i = 0;
	set->started = false;
	return 0;
}

/* A scan in a range: the caller's callbacks behind a filter. */
struct range_scan {
	const struct ht_ctf_scan_ops *user;
	struct ht__stream *s;
	struct range_tally *t;
	int64_t begin_ns, end_ns;
	bool past; /* a packet or record past the end was met */
};

static int range_packet(void *arg, const struct ht_ctf_stream *stream,
			const struct ht_ctf_packet *pkt, uint64_t discarded,
			uint64_t lost)
{
	struct range_scan *r = arg;

	if (pkt->has_begin &&
	    ht__stream_to_ns(r->s, pkt->begin_cycles) > r->end_ns) {
		r->past = true;
		return 1;
	}
	if (!r->user->packet ||
	    (pkt->has_end &&
	     ht__stream_to_ns(r->s, pkt->end_cycles) < r->begin_ns)) {
		return 0;
	}
	return r->user->packet(r->user->arg, stream, pkt, discarded, lost);
}

static int range_records(void *arg, const struct ht_ctf_event_class *const *cls,
			 const uint64_t *cycles, size_t n)
{
	struct range_scan *r = arg;
	const struct ht_ctf_scan_ops *u = r->user;
	size_t i = 0, j, k;
	int ret = 0;

	/* a stream is in time order: the records in the range are one
	 * run of the batch */
	while (i < n && ht__stream_to_ns(r->s, cycles[i]) < r->begin_ns) {
		i++;
	}
	for (j = i; j < n && ht__stream_to_ns(r->s, cycles[j]) <= r->end_ns;
	     j++) {
	}
	if (j > i) {
		if (u->tally) {
			struct range_tally *t = r->t;
			size_t nr = r->s->pub.stream_class->nr_event_classes;

			if (t->nr < nr) {
				uint64_t *c =
				    realloc(t->counts, nr * sizeof(*c));

				if (!c) {
					return HT_ENOMEM;
				}
				memset(c + t->nr, 0, (nr - t->nr) * sizeof(*c));
				t->counts = c;
				t->nr = nr;
			}
			for (k = i; k < j; k++) {
				t->counts[((const struct ht__event_class *)
					       cls[k])
					      ->index]++;
			}
			if (!t->n) {
				t->first = cycles[i];
			}
			t->n += j - i;
			t->last = cycles[j - 1];
		} else if (u->records) {
			ret = u->records(u->arg, cls + i, cycles + i, j - i);
		} else if (u->record) {
			for (k = i; k < j && !ret; k++) {
				ret = u->record(u->arg, cls[k], cycles[k]);
			}
		}
	}
	if (!ret && j < n) {
		r->past = true;
		ret = 1;
	}
	return ret;
}

/* range_records() for a caller of .records_at: the run of the batch in
 * the range passed on. */
static int range_records_at(void *arg, const struct ht_ctf_scan_rec *rec,
			    size_t n)
{
	struct range_scan *r = arg;
	size_t i = 0, j;
	int ret = 0;

	while (i < n && ht__stream_to_ns(r->s, rec[i].cycles) < r->begin_ns) {
		i++;
	}
	for (j = i; j < n && ht__stream_to_ns(r->s, rec[j].cycles) <= r->end_ns;
	     j++) {
	}
	if (j > i) {
		ret = r->user->records_at(r->user->arg, rec + i, j - i);
	}
	if (!ret && j < n) {
		r->past = true;
		ret = 1;
	}
	return ret;
}

/* ht_ctf_stream_scan() in a range (ht_ctf_set_set_range()). */
static int scan_range(struct ht_ctf_set *set, struct ht__stream *s,
		      const struct ht_ctf_scan_ops *ops)
{
	struct range_scan r = {
	    .user = ops,
	    .s = s,
	    .begin_ns = set->begin_ns,
	    .end_ns = set->end_ns,
	};
	struct ht_ctf_scan_ops proxy = {
	    .packet = range_packet,
	    .records = range_records,
	    .arg = &r,
	    .packet_fields = ops->packet_fields,
	};
	int ret;

	if (ops->records_at && !ops->tally) {
		proxy.records = NULL;
		proxy.records_at = range_records_at;
	}
	if (!set->tallies) {
		set->tallies =
		    calloc(set->nr_streams + 1, sizeof(*set->tallies));
		if (!set->tallies) {
			return HT_ENOMEM;
		}
	}
	r.t = &set->tallies[s->pub.index];
	ret = ht__stream_scan(s, &proxy);
	if (r.past) {
		/* the rest of the stream is past the range */
		ht__stream_release_all(s);
		s->state = HT__S_DONE;
		ret = 0;
	}
	if (ops->tally) {
		int t = ops->tally(ops->arg, &s->pub, r.t->counts, r.t->nr,
				   r.t->n, r.t->first, r.t->last);

		ret = ret ? ret : t;
	}
	return ret;
}

int ht_ctf_stream_scan(struct ht_ctf_set *set,
		       const struct ht_ctf_stream *stream,
		       const struct ht_ctf_scan_ops *ops)
{
	if (!set || !stream || !ops || stream->index >= set->nr_streams ||
	    &set->streams[stream->index]->pub != stream) {
		return HT_EINVAL;
	}
	if (set->left_out && set->left_out[stream->index]) {
		return 0;
	}
	if (set->begin_ns != INT64_MIN || set->end_ns != INT64_MAX) {
		return scan_range(set, set->streams[stream->index], ops);
	}
	return ht__stream_scan(set->streams[stream->index], ops);
}

int64_t ht_ctf_stream_cycles_to_ns(const struct ht_ctf_stream *stream,
				   uint64_t cycles)
{
	/* the public part is the first member of the private stream */
	return ht__stream_to_ns((const struct ht__stream *)stream, cycles);
}

/* ---------------------------------------------------------------- */
/* Range and core selection                                          */

bool ht_ctf_set_stream_selected(const struct ht_ctf_set *set,
				const struct ht_ctf_stream *s)
{
	return !(set->left_out && s->index < set->nr_streams &&
		 set->left_out[s->index]);
}

/* Whether core @c is named by @name: its name, or its id in decimal. */
static bool core_named(const struct ht_ctf_core *c, const char *name)
{
	char id[24];

	if (!strcmp(c->name, name)) {
		return true;
	}
	snprintf(id, sizeof(id), "%llu", (unsigned long long)c->id);
	return c->has_id && !strcmp(id, name);
}

int ht_ctf_set_select_cores(struct ht_ctf_set *set, const char *const *names,
			    size_t nr, char *err, size_t err_len)
{
	bool *found = calloc(nr + 1, sizeof(*found));
	struct ht_strv cores = {0};
	struct ht_buf all = {0};
	size_t i, k, at;
	int ret = 0;

	free(set->left_out);
	set->left_out = calloc(set->nr_streams + 1, sizeof(*set->left_out));
	if (!found || !set->left_out) {
		free(found);
		return HT_ENOMEM;
	}
	for (i = 0; i < set->nr_streams; i++) {
		struct ht__stream *s = set->streams[i];
		struct ht_ctf_core c;
		char buf[512];
		bool in = false;

		ht__stream_rewind(s);
		s->pkt_off = 0;
		/* a stream whose first packet cannot be read is named by
		 * its file; its damage is reported when it is read */
		ht_ctf_stream_core(
		    &s->pub,
		    ht__stream_read_packet(s, true) ? NULL : s->pkt.context,
		    buf, sizeof(buf), &c);
		ht__stream_rewind(s);
		for (k = 0; k < nr; k++) {
			/* a core without a name in the env: its file's
			 * name too (as `profile` names it) */
			if (core_named(&c, names[k]) ||
			    (c.name == buf &&
			     !strcmp(s->pub.file_name, names[k]))) {
				found[k] = in = true;
			}
		}
		set->left_out[i] = !in;
		if (!ht_strv_find(&cores, c.name, &at)) {
			ret = ht_strv_add(&cores, c.name);
			if (ret) {
				goto out;
			}
			ht_buf_printf(&all, "%s%s", all.len ? ", " : "",
				      c.name);
		}
	}
	if (all.nomem) {
		ret = HT_ENOMEM;
		goto out;
	}
	for (k = 0; k < nr; k++) {
		if (!found[k]) {
			snprintf(err, err_len,
				 "no core '%s' in the trace (cores: %s)",
				 names[k], all.len ? (char *)all.data : "none");
			ret = HT_ENOENT;
			break;
		}
	}
out:
	ht_buf_fini(&all);
	ht_strv_fini(&cores);
	free(found);
	return ret;
}

int ht_ctf_set_first_ns(struct ht_ctf_set *set, int64_t *ns)
{
	bool any = false;
	size_t i;

	for (i = 0; i < set->nr_streams; i++) {
		struct ht__stream *s = set->streams[i];
		unsigned flags = s->flags;
		int64_t t = 0;
		bool has = false;
		int ret;

		if (set->left_out && set->left_out[i]) {
			continue;
		}
		ht__stream_rewind(s);
		if (!ht__stream_read_packet(s, false) && s->pkt.has_begin) {
			t = ht__stream_to_ns(s, s->pkt.begin_cycles);
			has = true;
		} else {
			/* no timestamp_begin: the stream's first event */
			ht__stream_rewind(s);
			s->flags |= HT_CTF_EVENTS_ONLY;
			while (!(ret = ht__stream_advance(s))) {
				if (s->cur->has_time) {
					t = s->cur->ns;
					has = true;
					break;
				}
			}
			s->flags = flags;
		}
		ht__stream_rewind(s);
		if (has && (!any || t < *ns)) {
			*ns = t;
			any = true;
		}
	}
	return any ? 0 : HT_EEOF;
}

int ht_ctf_set_set_range(struct ht_ctf_set *set, int64_t begin_ns,
			 int64_t end_ns)
{
	if (begin_ns > end_ns) {
		return HT_EINVAL;
	}
	set->ranged = end_ns != INT64_MAX;
	set->begin_ns = begin_ns;
	set->end_ns = end_ns;
	set->past_end = false;
	if (begin_ns != INT64_MIN) {
		return ht_ctf_set_seek_ns(set, begin_ns);
	}
	return 0;
}
