/* SPDX-License-Identifier: MIT */
/* hetrace-command: 50 print: print CTF traces as text, exactly as babeltrace2 does */
/*
 * hetrace print TRACE...: the events of CTF traces as text, the way
 * `babeltrace2 TRACE...` prints them (byte-identical), only faster.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "host/ctf/ctf-reader.h"
#include "common/error.h"
#include "host/ctf/pretty.h"

/* Output is written in chunks of about this size. */
#define FLUSH_BYTES (1u << 20)

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: %s [OPTIONS] TRACE...\n\n"
	    "Prints the events of the CTF traces found under each TRACE\n"
	    "(searched recursively), merged in time order, exactly as\n"
	    "`babeltrace2 TRACE...` prints them. Discarded events and lost\n"
	    "packets are reported on stderr. Traces whose clocks cannot be\n"
	    "compared and time going backwards in a stream are errors, as\n"
	    "for babeltrace2.\n\n"
	    "options:\n"
	    "  --clock-seconds    timestamps as seconds since the origin\n"
	    "  --clock-cycles     timestamps and deltas in clock cycles\n"
	    "  --clock-date       print the date too\n"
	    "  --clock-gmt        UTC instead of the local time zone\n"
	    "  --no-delta         no time delta between events\n"
	    "  --names=LIST       what to name: all, none, or some of\n"
	    "                     header, context, payload, scope\n"
	    "                     (default: context,payload)\n"
	    "  --fields=LIST      header fields: all, or some of trace,\n"
	    "                     trace:hostname, trace:domain,\n"
	    "                     trace:procname, trace:vpid, loglevel,\n"
	    "                     emf, callsite (default: trace:hostname,\n"
	    "                     trace:procname, trace:vpid)\n"
	    "  -e, --elf [CORE=]FILE\n"
	    "                     name the functions of func_entry and\n"
	    "                     func_exit records from this ELF file (of\n"
	    "                     core CORE, else of every core): the\n"
	    "                     name and file:line after the address\n"
	    "                     (repeatable; those lines then differ\n"
	    "                     from babeltrace2's)\n"
	    "  -k, --keep-going   skip a damaged packet and go on; print\n"
	    "                     events whose time goes backwards in\n"
	    "                     their stream, with a negative delta: how\n"
	    "                     far back (an error all the same: exit 1)\n"
	    "  --unrelated-clocks print traces whose clocks cannot be\n"
	    "                     compared (a capture's cores before\n"
	    "                     `hetrace sync`), each line naming its\n"
	    "                     trace (<TRACE> before the event name);\n"
	    "                     else they are refused\n" HT_CLI_RANGE_HELP
		HT_CLI_EVENTS_HELP "  --clock-offset SEC add SEC seconds to "
	    "the offset of every clock\n"
	    "                     (babeltrace2's --clock-offset)\n"
	    "  --clock-offset-ns NS\n"
	    "                     add NS nanoseconds to it\n"
	    "  -h, --help         this help\n",
	    ht_cli_prog);
}

struct word {
	const char *name;
	unsigned bit;
};

static const struct word name_words[] = {
    {"all", HT_PRETTY_NAME_ALL},
    {"none", 0},
    {"header", HT_PRETTY_NAME_HEADER},
    {"context", HT_PRETTY_NAME_CONTEXT},
    {"payload", HT_PRETTY_NAME_PAYLOAD},
    {"scope", HT_PRETTY_NAME_SCOPE},
    {NULL, 0},
};

static const struct word field_words[] = {
    {"all", HT_PRETTY_FIELD_ALL},
    {"trace", HT_PRETTY_FIELD_TRACE},
    {"trace:hostname", HT_PRETTY_FIELD_HOSTNAME},
    {"trace:domain", HT_PRETTY_FIELD_DOMAIN},
    {"trace:procname", HT_PRETTY_FIELD_PROCNAME},
    {"trace:vpid", HT_PRETTY_FIELD_VPID},
    {"loglevel", HT_PRETTY_FIELD_LOGLEVEL},
    {"emf", HT_PRETTY_FIELD_EMF},
    {"callsite", HT_PRETTY_FIELD_CALLSITE},
    {NULL, 0},
};

/* --names LIST, --fields LIST: comma-separated words into a bit set. */
static int words_opt(const struct ht_cli_opt *opt, const char *arg)
{
	const struct word *words =
	    strcmp(opt->name, "names") ? field_words : name_words;
	unsigned *bits = opt->to.arg;
	char *copy = strdup(arg);
	char *save = NULL;
	char *w;
	int ret = HT_CLI_GO_ON;

	if (!copy) {
		return HT_EXIT_USAGE;
	}
	*bits = 0;
	for (w = strtok_r(copy, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; words[i].name; i++) {
			if (!strcmp(w, words[i].name)) {
				break;
			}
		}
		if (!words[i].name) {
			fprintf(stderr, "%s: unknown word '%s' in '%s'\n",
				ht_cli_prog, w, arg);
			ret = HT_EXIT_USAGE;
			break;
		}
		*bits |= words[i].bit;
	}
	free(copy);
	return ret;
}

/*
 * @path made absolute and normal ("." and ".." resolved, no double or
 * trailing slash) without resolving symbolic links, from the logical
 * working directory ($PWD when it names the working directory), the
 * way babeltrace2 names stream files.
 */
static char *abs_path(const char *path)
{
	const char *pwd = getenv("PWD");
	struct stat a, b;
	char cwd[4096];
	char *joined, *out, *seg, *save = NULL;
	size_t len, n;

	if (path[0] == '/') {
		joined = strdup(path);
	} else {
		if (!pwd || pwd[0] != '/' || stat(pwd, &a) || stat(".", &b) ||
		    a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
			pwd = getcwd(cwd, sizeof(cwd)) ? cwd : "/";
		}
		len = strlen(pwd) + strlen(path) + 2;
		joined = malloc(len);
		if (joined) {
			snprintf(joined, len, "%s/%s", pwd, path);
		}
	}
	if (!joined) {
		return NULL;
	}
	out = malloc(strlen(joined) + 2);
	if (!out) {
		free(joined);
		return NULL;
	}
	n = 0;
	for (seg = strtok_r(joined, "/", &save); seg;
	     seg = strtok_r(NULL, "/", &save)) {
		if (!strcmp(seg, ".")) {
			continue;
		}
		if (!strcmp(seg, "..")) {
			while (n > 0 && out[n - 1] != '/') {
				n--;
			}
			if (n > 0) {
				n--;
			}
			continue;
		}
		out[n++] = '/';
		len = strlen(seg);
		memcpy(out + n, seg, len);
		n += len;
	}
	if (!n) {
		out[n++] = '/';
	}
	out[n] = '\0';
	free(joined);
	return out;
}

/*
 * babeltrace2's name of a trace: the env hostname, then the trace
 * directory relative to the path given on the command line, joined by
 * '/' (either may be missing).
 */
static int name_trace(struct ht_pretty *pretty, const struct ht_ctf_trace *tr,
		      char *const *abs_inputs, size_t nr_inputs)
{
	const struct ht_ctf_env_entry *host = ht_ctf_trace_env(tr, "hostname");
	const char *rel = "";
	char *dir = abs_path(tr->path);
	char *name;
	size_t i, len;
	int ret;

	if (!dir) {
		return HT_ENOMEM;
	}
	for (i = 0; i < nr_inputs; i++) {
		len = strlen(abs_inputs[i]);
		if (!strcmp(dir, abs_inputs[i])) {
			rel = "";
			break;
		}
		if (!strncmp(dir, abs_inputs[i], len) &&
		    (dir[len] == '/' || len == 1)) {
			rel = dir + len + (len > 1);
			break;
		}
	}
	len =
	    strlen(rel) + 2 + (host && host->is_string ? strlen(host->str) : 0);
	name = malloc(len);
	if (!name) {
		free(dir);
		return HT_ENOMEM;
	}
	snprintf(name, len, "%s%s%s", host && host->is_string ? host->str : "",
		 host && host->is_string && rel[0] ? "/" : "", rel);
	ret = ht_pretty_set_trace_name(pretty, tr, name);
	free(name);
	free(dir);
	return ret;
}

/* babeltrace2's stream ID: stream_instance_id, else the file's rank. */
static uint64_t stream_id(const struct ht_ctf_stream *st)
{
	const struct ht_ctf_trace *tr = st->trace;
	size_t i;

	if (st->has_instance_id) {
		return st->instance_id;
	}
	for (i = 0; i < tr->nr_streams; i++) {
		if (tr->streams[i] == st) {
			return i;
		}
	}
	return 0;
}

static int flush_out(struct ht_pretty *pretty)
{
	size_t len;
	const char *data = ht_pretty_data(pretty, &len);

	if (ht_pretty_take_warning(pretty)) {
		fputs("[warning] Fallback to [sec.ns] to print negative time "
		      "value. Use --clock-seconds.\n",
		      stderr);
	}
	if (len && fwrite(data, 1, len, stdout) != len) {
		return -1;
	}
	ht_pretty_consume(pretty);
	return 0;
}

/* --elf: function names after the addresses of function records. */
struct fnames {
	struct ht_func_names *fn;
	char buf[1024];
};

static bool fn_wants(void *arg, const struct ht_ctf_event_class *cls)
{
	const char *n = cls->name ? cls->name : "";
	const char *colon = strrchr(n, ':');

	(void)arg;
	if (colon) {
		n = colon + 1;
	}
	return !strcmp(n, "func_entry") || !strcmp(n, "func_exit");
}

static const char *fn_note(void *arg, const struct ht_ctf_msg *msg,
			   const struct ht_ctf_field *f)
{
	struct fnames *x = arg;

	if (!f->name) {
		return NULL;
	}
	if (!strcmp(f->name, "addr")) {
		return ht_func_names_describe(x->fn, msg, f->v.u, false, x->buf,
					      sizeof(x->buf));
	}
	if (!strcmp(f->name, "call_site")) {
		return ht_func_names_describe(x->fn, msg, f->v.u, true, x->buf,
					      sizeof(x->buf));
	}
	return NULL;
}

/*
 * Reads the traces once to learn each core's func_base and function
 * addresses, so that the names (and a guessed load bias) are right
 * from the first record of the printing pass; says which ELF files do
 * not name the traced functions.
 */
static int fn_prepare(struct fnames *x, const char *const *paths, size_t n,
		      const struct ht_ctf_open_opts *oo)
{
	struct ht_func_slices *funcs = ht_func_names_slices(x->fn);
	char err[1024];
	size_t i;
	int ret;

	ret = ht_func_names_scan_traces(x->fn, paths, n, oo, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		return ret;
	}
	ht_func_names_ready(x->fn, NULL, NULL);
	for (i = 0; i < ht_func_slices_nr_cores(funcs); i++) {
		ht_func_names_explain(x->fn, ht_func_slices_core(funcs, i),
				      ht_cli_warn, ht_cli_note, NULL);
	}
	return 0;
}

static int report_discarded(struct ht_pretty *pretty,
			    const struct ht_ctf_msg *msg)
{
	char line[8192];
	char *path;
	size_t n;

	/* keep stdout and stderr in order on a terminal */
	if (flush_out(pretty) || fflush(stdout)) {
		return -1;
	}
	path = abs_path(msg->stream->path);
	n = ht_pretty_discarded(pretty, msg, path ? path : msg->stream->path,
				stream_id(msg->stream), line, sizeof(line));
	free(path);
	fwrite(line, 1, n, stderr);
	return 0;
}

/* What the options ask for. */
struct print_args {
	struct ht_pretty_opts po;
	struct ht_ctf_open_opts oo;
	struct ht_cli_elfs elfs;
	bool unrelated_clocks; /* --unrelated-clocks */
	struct ht_cli_range range;
};

/* --clock-offset SEC, --clock-offset-ns NS: a whole number, a sign
 * allowed. */
static int offset_opt(const struct ht_cli_opt *opt, const char *arg)
{
	int64_t *to = opt->to.arg;
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (!*arg || *end || errno) {
		fprintf(stderr, "%s: --%s: expected a whole number, got '%s'\n",
			ht_cli_prog, opt->name, arg);
		return HT_EXIT_USAGE;
	}
	*to = v;
	return HT_CLI_GO_ON;
}

/* --clock-seconds, --clock-cycles: the last one given counts. */
static int clock_opt(const struct ht_cli_opt *opt, const char *arg)
{
	enum ht_pretty_clock *clock = opt->to.arg;

	(void)arg;
	*clock = !strcmp(opt->name, "clock-seconds") ? HT_PRETTY_CLOCK_SECONDS
						     : HT_PRETTY_CLOCK_CYCLES;
	return HT_CLI_GO_ON;
}

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct print_args *a,
			 struct ht_cli_args *traces)
{
	const struct ht_cli_opt table[] = {
	    HT_CLI_CALL_NOARG(0, "clock-seconds", clock_opt, &a->po.clock),
	    HT_CLI_CALL_NOARG(0, "clock-cycles", clock_opt, &a->po.clock),
	    HT_CLI_FLAG(0, "clock-date", &a->po.clock_date),
	    HT_CLI_FLAG(0, "clock-gmt", &a->po.clock_gmt),
	    HT_CLI_FLAG(0, "no-delta", &a->po.no_delta),
	    HT_CLI_CALL(0, "names", words_opt, &a->po.names),
	    HT_CLI_CALL(0, "fields", words_opt, &a->po.fields),
	    HT_CLI_ELF(&a->elfs),
	    HT_CLI_BITS('k', "keep-going", &a->oo.flags, HT_CTF_KEEP_GOING),
	    HT_CLI_FLAG(0, "unrelated-clocks", &a->unrelated_clocks),
	    HT_CLI_RANGE(&a->range, 0),
	    HT_CLI_EVENTS(&a->range),
	    HT_CLI_CALL(0, "clock-offset", offset_opt, &a->oo.clock_offset_s),
	    HT_CLI_CALL(0, "clock-offset-ns", offset_opt,
			&a->oo.clock_offset_ns),
	    HT_CLI_OPT_END,
	};

	return ht_cli_parse(argc, argv, table, HT_CLI_WANT_TRACES, usage,
			    traces);
}

/* Names every trace of @set the way babeltrace2 does (name_trace()). */
static int name_traces(struct ht_pretty *pretty, struct ht_ctf_set *set,
		       char **inputs, size_t nr_inputs)
{
	char **abs_inputs = calloc(nr_inputs, sizeof(*abs_inputs));
	size_t i;
	int ret = 0;

	if (!abs_inputs) {
		return HT_ENOMEM;
	}
	for (i = 0; i < nr_inputs; i++) {
		abs_inputs[i] = abs_path(inputs[i]);
		if (!abs_inputs[i]) {
			ret = HT_ENOMEM;
			goto free_inputs;
		}
	}
	for (i = 0; i < ht_ctf_set_nr_traces(set) && !ret; i++) {
		ret = name_trace(pretty, ht_ctf_set_trace(set, i), abs_inputs,
				 nr_inputs);
	}
free_inputs:
	for (i = 0; i < nr_inputs; i++) {
		free(abs_inputs[i]);
	}
	free(abs_inputs);
	return ret;
}

/* The printing pass: every message of @set. Returns the exit status. */
static int print_events(struct ht_pretty *pretty, struct ht_ctf_set *set)
{
	int status = HT_EXIT_OK;
	int ret;

	for (;;) {
		struct ht_ctf_msg msg;
		size_t len;

		ret = ht_ctf_set_next(set, &msg);
		if (ret == HT_EEOF) {
			break;
		}
		if (ret) {
			/* everything before the damage is printed first */
			if (flush_out(pretty) || fflush(stdout)) {
				goto write_error;
			}
			fprintf(stderr, "%s: %s\n", ht_cli_prog,
				ht_ctf_set_last_error(set));
			status = HT_EXIT_FAIL;
			continue;
		}
		switch (msg.kind) {
		case HT_CTF_MSG_EVENT:
			if (ht_pretty_event(pretty, &msg)) {
				return ht_cli_nomem();
			}
			break;
		case HT_CTF_MSG_DISCARDED_EVENTS:
		case HT_CTF_MSG_DISCARDED_PACKETS:
			if (report_discarded(pretty, &msg)) {
				goto write_error;
			}
			break;
		default:
			break;
		}
		ht_pretty_data(pretty, &len);
		if (len >= FLUSH_BYTES && flush_out(pretty)) {
			goto write_error;
		}
	}
	if (flush_out(pretty) || fflush(stdout)) {
		goto write_error;
	}
	return status;

write_error:
	fprintf(stderr, "%s: cannot write the output: %s\n", ht_cli_prog,
		strerror(errno));
	return HT_EXIT_FAIL;
}

/*
 * Traces whose clocks cannot be compared are refused (babeltrace2
 * refuses them too); with --unrelated-clocks they are printed, each
 * line naming its trace, after a warning. Returns 0 or -1 (said).
 */
static int check_clocks(const struct ht_ctf_set *set, struct print_args *a)
{
	char err[1024];

	if (!ht_ctf_set_check_clocks(set, err, sizeof(err))) {
		return 0;
	}
	if (!a->unrelated_clocks) {
		fprintf(stderr,
			"%s: %s; `hetrace sync` puts the cores of a capture "
			"on one clock, --unrelated-clocks prints them as they "
			"are\n",
			ht_cli_prog, err);
		return -1;
	}
	fprintf(stderr,
		"%s: warning: %s; printed in the order of each clock's own "
		"values, every line naming its trace (<TRACE>)\n",
		ht_cli_prog, err);
	a->po.mark_trace = true;
	return 0;
}

int cmd_print(int argc, char **argv)
{
	struct print_args a = {
	    .po =
		{
		    .names = HT_PRETTY_NAME_DEFAULT,
		    .fields = HT_PRETTY_FIELD_DEFAULT,
		},
	    .oo = {.warn = ht_cli_warn},
	};
	struct fnames fn = {0};
	struct ht_pretty_note note = {
	    .wants = fn_wants,
	    .note = fn_note,
	    .arg = &fn,
	};
	struct ht_pretty *pretty = NULL;
	struct ht_ctf_set *set = NULL;
	struct ht_cli_args traces;
	int status;

	status = parse_options(argc, argv, &a, &traces);
	if (status != HT_CLI_GO_ON) {
		return status;
	}
	a.oo.flags |= HT_CTF_EVENTS_ONLY;
	status = ht_cli_range_prepare(&a.range, traces.v, traces.nr, &a.oo,
				      a.po.clock_gmt);
	if (status != HT_CLI_GO_ON) {
		return status;
	}
	status = ht_cli_open_traces(&set, traces.v, traces.nr, &a.oo);
	if (status) {
		return status;
	}
	if (check_clocks(set, &a)) {
		status = HT_EXIT_FAIL;
		goto out;
	}
	if (ht_pretty_create(&pretty, &a.po) ||
	    name_traces(pretty, set, traces.v, traces.nr)) {
		status = ht_cli_nomem();
		goto out;
	}
	status = ht_cli_elf_open(&fn.fn, &a.elfs, NULL);
	if (status) {
		goto out;
	}
	if (fn.fn) {
		if (fn_prepare(&fn, (const char *const *)traces.v, traces.nr,
			       &a.oo)) {
			status = HT_EXIT_FAIL;
			goto out;
		}
		ht_pretty_set_note(pretty, &note);
	}
	status = print_events(pretty, set);
out:
	ht_pretty_destroy(pretty);
	ht_ctf_set_close(set);
	ht_func_names_destroy(fn.fn);
	return status;
}
