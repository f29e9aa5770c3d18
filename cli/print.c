/* SPDX-License-Identifier: MIT */
/* hetrace-command: 50 print: print CTF traces as text, exactly as babeltrace2 does */
/*
 * hetrace print TRACE...: the events of CTF traces as text, the way
 * `babeltrace2 TRACE...` prints them (byte-identical), only faster.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "host/ctf/ctf-reader.h"
#include "common/error.h"
#include "host/analysis/functions.h"
#include "host/ctf/pretty.h"
#include "host/analysis/symbols.h"

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
	    "packets are reported on stderr.\n\n"
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
	    "  -k, --keep-going   skip a damaged packet and go on\n"
	    "  -h, --help         this help\n",
	    ht_cli_prog);
}

struct word {
	const char *name;
	unsigned bit;
};

static const struct word name_words[] = {
    {"all", HT_PRETTY_NAME_ALL},	 {"none", 0},
    {"header", HT_PRETTY_NAME_HEADER},	 {"context", HT_PRETTY_NAME_CONTEXT},
    {"payload", HT_PRETTY_NAME_PAYLOAD}, {"scope", HT_PRETTY_NAME_SCOPE},
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
};

/* A comma-separated list of words into a bit set; -1 on an unknown one. */
static int parse_list(const char *arg, const struct word *words, size_t n,
		      unsigned *bits)
{
	char *copy = strdup(arg);
	char *save = NULL;
	char *w;
	int ret = 0;

	if (!copy) {
		return -1;
	}
	*bits = 0;
	for (w = strtok_r(copy, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < n; i++) {
			if (!strcmp(w, words[i].name)) {
				break;
			}
		}
		if (i == n) {
			fprintf(stderr, "%s: unknown word '%s' in '%s'\n",
				ht_cli_prog, w, arg);
			ret = -1;
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
struct elf_arg {
	const char *core; /* NULL: every core without its own */
	const char *path;
	struct ht_symbols *sy;
};

struct fnames {
	struct ht_ctf_set *scan; /* the first pass (the tracker points in) */
	struct ht_funcs *funcs;
	const struct ht_funcs_core **by_stream; /* by stream index */
	bool *trusted; /* by stream index: every function address named */
	size_t nr_streams;
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

/* "name at file:line" (or "name+0xoff at ...") of @addr into x->buf. */
static const char *fn_describe(struct fnames *x, const struct ht_funcs_core *c,
			       uint64_t addr, const char *name)
{
	struct ht_sym sym;
	uint64_t saved = ht_symbols_bias(c->syms);
	bool found;
	int n;

	ht_symbols_set_bias(c->syms, c->bias);
	found = ht_symbols_lookup(c->syms, addr, &sym);
	ht_symbols_set_bias(c->syms, saved);
	if (!name) {
		if (!found || !sym.name) {
			return NULL;
		}
		n = snprintf(x->buf, sizeof(x->buf), "%s+0x%llx", sym.name,
			     (unsigned long long)sym.offset);
	} else {
		n = snprintf(x->buf, sizeof(x->buf), "%s", name);
	}
	if (found && sym.file && n > 0 && (size_t)n < sizeof(x->buf)) {
		const char *base = strrchr(sym.file, '/');

		snprintf(x->buf + n, sizeof(x->buf) - n, " at %s:%d",
			 base ? base + 1 : sym.file, sym.line);
	}
	return x->buf;
}

static const char *fn_note(void *arg, const struct ht_ctf_msg *msg,
			   const struct ht_ctf_field *f)
{
	struct fnames *x = arg;
	unsigned si = msg->stream->index;
	const struct ht_funcs_core *c;

	if (si >= x->nr_streams || !(c = x->by_stream[si]) || !c->syms ||
	    !f->name) {
		return NULL;
	}
	if (!strcmp(f->name, "addr")) {
		const char *name = ht_funcs_name(x->funcs, c, f->v.u);

		/* never a wrong name: only exact function starts */
		return name ? fn_describe(x, c, f->v.u, name) : NULL;
	}
	if (!strcmp(f->name, "call_site") && x->trusted[si]) {
		/* inside a function: only when this ELF named every
		 * function of the core (it is the traced program) */
		return fn_describe(x, c, f->v.u, NULL);
	}
	return NULL;
}

/*
 * Reads the traces once through the function tracker: it learns each
 * core's func_base and function addresses, so that the names (and a
 * guessed load bias) are right from the first record of the printing
 * pass. Warns when an ELF names few of a core's functions.
 */
static int fn_prepare(struct fnames *x, const char *const *paths, size_t n,
		      const struct ht_ctf_open_opts *oo, size_t nr_streams)
{
	struct ht_ctf_set *set;
	struct ht_ctf_msg msg;
	char err[1024];
	size_t i;
	int ret;

	ret = ht_ctf_set_open(&x->scan, paths, n, oo, err, sizeof(err));
	set = x->scan;
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		return ret;
	}
	while ((ret = ht_ctf_set_next(set, &msg)) != HT_EEOF) {
		if (!ret) {
			ret = ht_funcs_feed(x->funcs, &msg, err, sizeof(err));
			if (ret == HT_ENOMEM) {
				break;
			}
		}
		/* damaged input is reported by the printing pass */
		ret = 0;
	}
	if (ret && ret != HT_EEOF) {
		return ret;
	}
	ht_funcs_finish(x->funcs);
	x->nr_streams = nr_streams;
	x->by_stream = calloc(nr_streams + 1, sizeof(*x->by_stream));
	x->trusted = calloc(nr_streams + 1, sizeof(*x->trusted));
	if (!x->by_stream || !x->trusted) {
		return HT_ENOMEM;
	}
	for (i = 0; i < ht_funcs_nr_cores(x->funcs); i++) {
		const struct ht_funcs_core *c = ht_funcs_core(x->funcs, i);
		size_t named, total;

		if (!c->stream || c->stream->index >= nr_streams) {
			continue;
		}
		x->by_stream[c->stream->index] = c;
		if (!c->syms) {
			continue;
		}
		ht_funcs_name_stats(x->funcs, c, &named, &total);
		x->trusted[c->stream->index] = total && named == total;
		if (total && ht_symbols_stripped(c->syms) && named < total) {
			fprintf(stderr,
				"%s: note: %s has no symbol table (stripped): "
				"core %s shows %zu of %zu function addresses "
				"raw\n",
				ht_cli_prog, ht_symbols_path(c->syms), c->name,
				total - named, total);
		} else if (total && named < total) {
			fprintf(stderr,
				"%s: warning: %s names %zu of the %zu function "
				"addresses of core %s (not the traced "
				"program?): the others stay raw\n",
				ht_cli_prog, ht_symbols_path(c->syms), named,
				total, c->name);
		}
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

int cmd_print(int argc, char **argv)
{
	enum {
		OPT_CLOCK_SECONDS = 256,
		OPT_CLOCK_CYCLES,
		OPT_CLOCK_DATE,
		OPT_CLOCK_GMT,
		OPT_NO_DELTA,
		OPT_NAMES,
		OPT_FIELDS,
	};
	static const struct option longopts[] = {
	    {"clock-seconds", no_argument, NULL, OPT_CLOCK_SECONDS},
	    {"clock-cycles", no_argument, NULL, OPT_CLOCK_CYCLES},
	    {"clock-date", no_argument, NULL, OPT_CLOCK_DATE},
	    {"clock-gmt", no_argument, NULL, OPT_CLOCK_GMT},
	    {"no-delta", no_argument, NULL, OPT_NO_DELTA},
	    {"names", required_argument, NULL, OPT_NAMES},
	    {"fields", required_argument, NULL, OPT_FIELDS},
	    {"elf", required_argument, NULL, 'e'},
	    {"keep-going", no_argument, NULL, 'k'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct elf_arg *elfs = NULL;
	size_t nr_elfs = 0;
	struct fnames fn = {0};
	struct ht_pretty_opts po = {
	    .names = HT_PRETTY_NAME_DEFAULT,
	    .fields = HT_PRETTY_FIELD_DEFAULT,
	};
	struct ht_ctf_open_opts oo = {.warn = ht_cli_warn};
	struct ht_pretty *pretty = NULL;
	struct ht_ctf_set *set = NULL;
	char **abs_inputs = NULL;
	int status = HT_EXIT_OK;
	char err[1024];
	size_t i, nr_paths;
	int c, ret;

	elfs = calloc((size_t)argc + 1, sizeof(*elfs));
	if (!elfs) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog,
			ht_strerror(HT_ENOMEM));
		return HT_EXIT_FAIL;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "e:kh", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': {
			char *eq = strchr(optarg, '=');

			elfs[nr_elfs].path = optarg;
			if (eq && eq != optarg) {
				*eq = '\0';
				elfs[nr_elfs].core = optarg;
				elfs[nr_elfs].path = eq + 1;
			}
			if (!*elfs[nr_elfs].path) {
				fprintf(stderr, "%s: bad --elf value\n",
					ht_cli_prog);
				free(elfs);
				return HT_EXIT_USAGE;
			}
			nr_elfs++;
			break;
		}
		case OPT_CLOCK_SECONDS:
			po.clock = HT_PRETTY_CLOCK_SECONDS;
			break;
		case OPT_CLOCK_CYCLES:
			po.clock = HT_PRETTY_CLOCK_CYCLES;
			break;
		case OPT_CLOCK_DATE:
			po.clock_date = true;
			break;
		case OPT_CLOCK_GMT:
			po.clock_gmt = true;
			break;
		case OPT_NO_DELTA:
			po.no_delta = true;
			break;
		case OPT_NAMES:
			if (parse_list(optarg, name_words,
				       sizeof(name_words) /
					   sizeof(name_words[0]),
				       &po.names)) {
				free(elfs);
				return HT_EXIT_USAGE;
			}
			break;
		case OPT_FIELDS:
			if (parse_list(optarg, field_words,
				       sizeof(field_words) /
					   sizeof(field_words[0]),
				       &po.fields)) {
				free(elfs);
				return HT_EXIT_USAGE;
			}
			break;
		case 'k':
			oo.flags |= HT_CTF_KEEP_GOING;
			break;
		case 'h':
			free(elfs);
			usage(stdout);
			return HT_EXIT_OK;
		default:
			free(elfs);
			usage(stderr);
			return HT_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no trace given\n", ht_cli_prog);
		free(elfs);
		usage(stderr);
		return HT_EXIT_USAGE;
	}
	nr_paths = (size_t)(argc - optind);
	oo.flags |= HT_CTF_EVENTS_ONLY;

	ret = ht_ctf_set_open(&set, (const char *const *)argv + optind,
			      nr_paths, &oo, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog,
			err[0] ? err : ht_strerror(ret));
		free(elfs);
		return HT_EXIT_FAIL;
	}
	ret = ht_pretty_create(&pretty, &po);
	abs_inputs = calloc(nr_paths, sizeof(*abs_inputs));
	if (ret || !abs_inputs) {
		goto nomem;
	}
	for (i = 0; i < nr_paths; i++) {
		abs_inputs[i] = abs_path(argv[optind + (int)i]);
		if (!abs_inputs[i]) {
			goto nomem;
		}
	}
	for (i = 0; i < ht_ctf_set_nr_traces(set); i++) {
		if (name_trace(pretty, ht_ctf_set_trace(set, i), abs_inputs,
			       nr_paths)) {
			goto nomem;
		}
	}
	if (nr_elfs) {
		struct ht_pretty_note note = {
		    .wants = fn_wants,
		    .note = fn_note,
		    .arg = &fn,
		};
		size_t nr_streams = 0;

		if (ht_funcs_create(&fn.funcs, NULL)) {
			goto nomem;
		}
		for (i = 0; i < nr_elfs; i++) {
			ret = ht_symbols_open(&elfs[i].sy, elfs[i].path, err,
					      sizeof(err));
			if (ret) {
				fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
				status = HT_EXIT_FAIL;
				goto out;
			}
			if (ht_funcs_add_symbols(fn.funcs, elfs[i].core,
						 elfs[i].sy)) {
				goto nomem;
			}
		}
		for (i = 0; i < ht_ctf_set_nr_traces(set); i++) {
			nr_streams += ht_ctf_set_trace(set, i)->nr_streams;
		}
		ret = fn_prepare(&fn, (const char *const *)argv + optind,
				 nr_paths, &oo, nr_streams);
		if (ret) {
			if (ret == HT_ENOMEM) {
				goto nomem;
			}
			status = HT_EXIT_FAIL;
			goto out;
		}
		ht_pretty_set_note(pretty, &note);
	}

	for (;;) {
		struct ht_ctf_msg msg;

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
				ht_ctf_set_error(set));
			status = HT_EXIT_FAIL;
			continue;
		}
		switch (msg.kind) {
		case HT_CTF_MSG_EVENT:
			if (ht_pretty_event(pretty, &msg)) {
				goto nomem;
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
		{
			size_t len;

			ht_pretty_data(pretty, &len);
			if (len >= FLUSH_BYTES && flush_out(pretty)) {
				goto write_error;
			}
		}
	}
	if (flush_out(pretty) || fflush(stdout)) {
		goto write_error;
	}
	goto out;

write_error:
	fprintf(stderr, "%s: cannot write the output: %s\n", ht_cli_prog,
		strerror(errno));
	status = HT_EXIT_FAIL;
	goto out;
nomem:
	fprintf(stderr, "%s: %s\n", ht_cli_prog, ht_strerror(HT_ENOMEM));
	status = HT_EXIT_FAIL;
out:
	if (abs_inputs) {
		for (i = 0; i < nr_paths; i++) {
			free(abs_inputs[i]);
		}
		free(abs_inputs);
	}
	ht_pretty_destroy(pretty);
	ht_ctf_set_close(set);
	ht_funcs_destroy(fn.funcs);
	ht_ctf_set_close(fn.scan);
	free(fn.by_stream);
	free(fn.trusted);
	for (i = 0; i < nr_elfs; i++) {
		ht_symbols_close(elfs[i].sy);
	}
	free(elfs);
	return status;
}
