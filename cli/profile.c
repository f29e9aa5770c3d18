/* SPDX-License-Identifier: MIT */
/* hetrace-command: 70 profile: function profile and call graph, ELF names */
/*
 * hetrace profile TRACE... [--elf [CORE=]FILE]... [-n N] [--sort KEY]
 *                 [--core C] [--callgraph] [--slices]
 * Per core and over all cores: the top-N functions with calls,
 * inclusive, exclusive, mean and max time; the call tree; the
 * on-target profile when the trace holds its dump (docs/instrument.md);
 * a warning when the records cover only part of the run.
 * hetrace profile TARGET [--elf FW] [-n N] [--sort KEY]: the on-target
 * profile of a live target, read over its serial link (docs/serial.md).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "host/ctf/ctf-reader.h"
#include "common/error.h"
#include "common/json-writer.h"
#include "common/time-format.h"
#include "host/analysis/func-profile.h"
#include "host/analysis/func-symbols.h"
#include "host/analysis/target-names.h"
#include "target.h"

struct ctx {
	struct ht_func_slices_opts prof; /* the profile's callbacks */
	struct ht_func_names *fnames;	 /* --elf, and the function tracker */
	struct ht_func_slices *funcs;
	const char *core; /* --core */
	bool slices;
	bool graph;
	bool json;
	struct ht_json j; /* --json: to stdout */
	bool json_first;  /* no core written yet */
	unsigned top;
	enum ht_func_profile_key key;
	struct ht_cli_elfs elfs;
	struct ht_ctf_open_opts opts;
	uint64_t timeout_ms; /* a live TARGET */
	bool strict_build_id;
	struct ht_cli_range range; /* --core, --begin, --end */
};

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: %s [OPTIONS] TRACE...\n"
	    "       %s [--elf FW] [-n N] [--sort KEY] [--timeout MS] "
	    "TARGET\n\n"
	    "Function profile of the func_entry/func_exit records of the "
	    "CTF traces\nunder TRACE... (-finstrument-functions, "
	    "docs/instrument.md): per core\nand over all cores, calls, "
	    "inclusive, exclusive, mean and max time;\nthe on-target "
	    "profile when the trace holds its dump (the two measure\n"
	    "different windows: docs/views.md). A warning says\n"
	    "when the records cover only part of the run (events "
	    "discarded,\npackets lost, fewer calls than the on-target "
	    "profile counted).\n\n"
	    "options:\n"
	    "  -e, --elf [CORE=]FILE  function names (and file:line) from "
	    "FILE, for\n"
	    "                         core CORE only or every core; "
	    "repeatable\n"
	    "  -n, --top N            N functions per table (default 20, "
	    "0: all)\n"
	    "  -s, --sort KEY         incl, excl, calls, avg or max "
	    "(default incl)\n"
	    "  -c, --core C           only core C (repeatable, or C,C...)\n"
	    "  --begin T, --end T, --timerange B,E\n"
	    "                         only the records in the range (times\n"
	    "                         as for `hetrace print`)\n"
	    "  -g, --callgraph        the call tree with times and counts\n"
	    "  -j, --json             the tables as JSON (docs/cli.md)\n"
	    "      --slices           every call: begin, core, depth, "
	    "function, ns\n"
	    "  -k, --keep-going       skip damaged packets and go on\n"
	    "  -h, --help             this help\n\n"
	    "TARGET, a live target on a serial link (docs/serial.md): "
	    "unix:PATH,\ntcp:HOST:PORT, HOST:PORT, pty:PATH, /dev/... "
	    "(a tty, [:BAUD]) or any\ncharacter device; anything else is a "
	    "trace. Its on-target profile is\nread page by page and shown "
	    "as a dumped one, names from --elf FW\n(one file), times "
	    "converted with the target's clock frequency.\n"
	    "      --timeout MS       wait for each reply (default 1000)\n"
	    "      --strict-build-id  FW's build id must be the target's\n",
	    ht_cli_prog, ht_cli_prog);
}

static bool core_selected(const char *want, const char *name)
{
	size_t n;

	if (!want || !strcmp(want, name)) {
		return true;
	}
	/* "main" selects the streams "main/<file>" of that core too. */
	n = strlen(want);
	return !strncmp(want, name, n) && name[n] == '/';
}

static void fmt_func(char *buf, size_t len, const char *name, uint64_t addr)
{
	if (name) {
		snprintf(buf, len, "%s", name);
	} else {
		snprintf(buf, len, "0x%" PRIx64, addr);
	}
}

static void on_enter(void *arg, const struct ht_func_slice *s, void **user)
{
	struct ctx *x = arg;

	x->prof.enter(x->prof.arg, s, user);
}

static void on_slice(void *arg, const struct ht_func_slice *s, void *user)
{
	struct ctx *x = arg;
	char name[256];

	x->prof.slice(x->prof.arg, s, user);
	if (!x->slices || !core_selected(x->core, s->core->name)) {
		return;
	}
	fmt_func(name, sizeof(name),
		 ht_func_slices_name(x->funcs, s->core, s->addr), s->addr);
	printf("[%" PRId64 "] %s tid=%" PRIu32 " depth=%u %s dur=%" PRId64
	       " excl=%" PRIu64 "%s\n",
	       s->begin_ns, s->core->name, s->tid, s->depth, name,
	       s->end_ns - s->begin_ns, s->excl_ns,
	       s->forced_end ? " (no exit)" : "");
}

/* The source location of @addr, for the function column. */
static void fmt_where(char *buf, size_t len, const struct ht_func_core *core,
		      uint64_t addr)
{
	struct ht_func_sym sym;

	buf[0] = 0;
	if (!core || !core->syms) {
		return;
	}
	ht_func_symbols_set_bias(core->syms, core->bias);
	if (ht_func_symbols_lookup(core->syms, addr, &sym) && sym.file) {
		const char *base = strrchr(sym.file, '/');

		snprintf(buf, len, "  %s:%d", base ? base + 1 : sym.file,
			 sym.line);
	}
}

/*
 * What each profile measures (docs/views.md "Two function profiles"):
 * the same calls, different windows, so the figures differ by the
 * hooks' own cost and by what happens while they run.
 */
#define TRACE_MEASURES                                                         \
	"wall time from each call's func_entry record to its func_exit "       \
	"record: the hooks writing the function's own records, the "           \
	"interrupts they hold back and any preemption count in it"
#define TARGET_MEASURES                                                        \
	"profile clock cycles from after the entry hook to before the exit "   \
	"hook, converted at the core's clock_hz: the function's own records "  \
	"count in its caller; a clock whose frequency changed (DVFS) is "      \
	"converted at its first frequency"

/* @f sorted by @key, at most @top (0: all) in *@n; NULL: no memory. */
static struct ht_func_profile_func *
sorted_funcs(const struct ht_func_profile_core *pc, unsigned top,
	     enum ht_func_profile_key key, size_t *n)
{
	struct ht_func_profile_func *f;

	*n = pc->nr_funcs;
	f = malloc((*n + 1) * sizeof(*f));
	if (!f) {
		return NULL;
	}
	if (*n) {
		memcpy(f, pc->funcs, *n * sizeof(*f));
	}
	ht_func_profile_sort(f, *n, key);
	if (top && *n > top) {
		*n = top;
	}
	return f;
}

static void print_table(const struct ht_func_profile_core *pc, unsigned top,
			enum ht_func_profile_key key)
{
	struct ht_func_profile_func *f;
	char name[256], where[300], t[5][HT_TIME_FORMAT_LEN];
	size_t i, n;

	printf("== %s: %" PRIu64 " calls, %zu functions, total %s\n", pc->name,
	       pc->calls, pc->nr_funcs,
	       ht_time_format_duration(t[0], sizeof(t[0]), pc->total_ns));
	if (!pc->nr_funcs) {
		return;
	}
	f = sorted_funcs(pc, top, key, &n);
	if (!f) {
		return;
	}
	printf("%12s %14s %14s %12s %12s  %s\n", "calls", "incl", "excl", "avg",
	       "max", "function");
	for (i = 0; i < n; i++) {
		fmt_func(name, sizeof(name), f[i].name, f[i].addr);
		fmt_where(where, sizeof(where), pc->core, f[i].addr);
		printf(
		    "%12" PRIu64 " %14s %14s %12s %12s  %s%s\n", f[i].calls,
		    ht_time_format_duration(t[1], sizeof(t[1]), f[i].incl_ns),
		    ht_time_format_duration(t[2], sizeof(t[2]), f[i].excl_ns),
		    ht_time_format_duration(
			t[3], sizeof(t[3]),
			f[i].calls ? f[i].incl_ns / f[i].calls : 0),
		    ht_time_format_duration(t[4], sizeof(t[4]), f[i].max_ns),
		    name, where);
	}
	free(f);
}

/* One profile as JSON members (docs/cli.md "profile --json"): what it
 * measures, its totals, its top functions. */
static void json_table(struct ht_json *j, const struct ht_func_profile_core *pc,
		       unsigned top, enum ht_func_profile_key key,
		       const char *measures)
{
	struct ht_func_profile_func *f;
	char name[256], where[300];
	size_t i, n;

	ht_json_member_str(j, "measures", measures);
	ht_json_member_u64(j, "calls", pc->calls);
	ht_json_member_u64(j, "total_ns", pc->total_ns);
	ht_json_member_u64(j, "nr_functions", pc->nr_funcs);
	ht_json_key(j, "functions");
	ht_json_begin_array(j);
	f = sorted_funcs(pc, top, key, &n);
	for (i = 0; f && i < n; i++) {
		fmt_func(name, sizeof(name), f[i].name, f[i].addr);
		fmt_where(where, sizeof(where), pc->core, f[i].addr);
		ht_json_item(j);
		ht_json_begin_object(j);
		ht_json_member_str(j, "name", name);
		snprintf(name, sizeof(name), "0x%" PRIx64, f[i].addr);
		ht_json_member_str(j, "addr", name);
		ht_json_member_str(j, "where", where[0] ? where + 2 : "");
		ht_json_member_u64(j, "calls", f[i].calls);
		ht_json_member_u64(j, "incl_ns", f[i].incl_ns);
		ht_json_member_u64(j, "excl_ns", f[i].excl_ns);
		ht_json_member_u64(j, "avg_ns",
				   f[i].calls ? f[i].incl_ns / f[i].calls : 0);
		ht_json_member_u64(j, "max_ns", f[i].max_ns);
		ht_json_member_u64(j, "forced", f[i].forced);
		ht_json_end_object(j);
	}
	ht_json_end_array(j);
	free(f);
}

static const struct ht_func_profile_node *nodes_sorted;

static int cmp_node(const void *x, const void *y)
{
	const struct ht_func_profile_node *a =
	    &nodes_sorted[*(const uint32_t *)x];
	const struct ht_func_profile_node *b =
	    &nodes_sorted[*(const uint32_t *)y];

	if (a->incl_ns != b->incl_ns) {
		return a->incl_ns > b->incl_ns ? -1 : 1;
	}
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* One node of the call tree as JSON (an item of "callgraph"). */
static void json_node(struct ht_json *j, const struct ht_func_profile_node *n,
		      const char *name)
{
	char addr[32];

	snprintf(addr, sizeof(addr), "0x%" PRIx64, n->addr);
	ht_json_item(j);
	ht_json_begin_object(j);
	ht_json_member_str(j, "name", name);
	ht_json_member_str(j, "addr", addr);
	ht_json_member_u64(j, "depth", n->depth);
	ht_json_member_u64(j, "calls", n->calls);
	ht_json_member_u64(j, "incl_ns", n->incl_ns);
	ht_json_member_u64(j, "excl_ns", n->excl_ns);
	ht_json_end_object(j);
}

/* One node of the call tree as a line of text. */
static void print_node(const struct ht_func_profile_node *n, const char *name)
{
	char t[2][HT_TIME_FORMAT_LEN];
	unsigned indent = n->depth - 1;

	printf("%14s %12" PRIu64 " %14s  ",
	       ht_time_format_duration(t[0], sizeof(t[0]), n->incl_ns),
	       n->calls,
	       ht_time_format_duration(t[1], sizeof(t[1]), n->excl_ns));
	if (indent > 40) {
		/* Deep recursion: say the depth instead. */
		printf("%*s[%u] ", 80, "", n->depth);
	} else {
		printf("%*s", (int)(2 * indent), "");
	}
	printf("%s%s\n", indent ? "+- " : "", name);
}

/* The call tree, like uftrace graph: children by inclusive time; as
 * text, or with @j the items of a JSON array, in the same order (a
 * node, then its subtree; "depth" says where it hangs). */
static int print_graph(const struct ht_func_profile_core *pc, struct ht_json *j)
{
	uint32_t *todo, *kids;
	size_t sp = 0, i, nk;
	char name[256];

	if (!j) {
		printf("== %s: call graph\n%14s %12s %14s  %s\n", pc->name,
		       "incl", "calls", "excl", "function");
	}
	todo = malloc(pc->nr_nodes * sizeof(*todo));
	kids = malloc(pc->nr_nodes * sizeof(*kids));
	if (!todo || !kids) {
		free(todo);
		free(kids);
		return HT_ENOMEM;
	}
	nodes_sorted = pc->nodes;
	todo[sp++] = 0;
	while (sp) {
		const struct ht_func_profile_node *n = &pc->nodes[todo[--sp]];
		uint32_t k;

		if (n->depth) {
			fmt_func(name, sizeof(name), n->name, n->addr);
			if (j) {
				json_node(j, n, name);
			} else {
				print_node(n, name);
			}
		}
		nk = 0;
		for (k = n->first_child; k; k = pc->nodes[k].next_sibling) {
			kids[nk++] = k;
		}
		qsort(kids, nk, sizeof(*kids), cmp_node);
		for (i = nk; i > 0; i--) {
			todo[sp++] = kids[i - 1];
		}
	}
	free(todo);
	free(kids);
	return 0;
}

/* What the on-target profile could not count (func_profile_stats). */
struct dump_losses {
	uint64_t lost_calls, deep_calls, unbalanced, nested;
};

/*
 * The on-target profile's table (@f: @n functions, times in ns) and its
 * loss line, for a dump in a trace and a live target alike.
 */
static void print_target_table(const char *source, const char *core_name,
			       const struct ht_func_core *c,
			       struct ht_func_profile_func *f, size_t n,
			       const struct dump_losses *lost, unsigned top,
			       enum ht_func_profile_key key, uint64_t clock_hz,
			       struct ht_json *j)
{
	struct ht_func_profile_core pc;
	size_t i;

	memset(&pc, 0, sizeof(pc));
	for (i = 0; i < n; i++) {
		pc.calls += f[i].calls;
		pc.total_ns += f[i].excl_ns;
	}
	pc.core = c;
	pc.funcs = f;
	pc.nr_funcs = n;
	pc.name = core_name;
	if (j) {
		ht_json_key(j, "on_target");
		ht_json_begin_object(j);
		ht_json_member_str(j, "source", source);
		ht_json_member_u64(j, "clock_hz", clock_hz);
		json_table(j, &pc, top, key, TARGET_MEASURES);
		if (lost) {
			ht_json_key(j, "lost");
			ht_json_begin_object(j);
			ht_json_member_u64(j, "calls", lost->lost_calls);
			ht_json_member_u64(j, "deep_calls", lost->deep_calls);
			ht_json_member_u64(j, "unbalanced", lost->unbalanced);
			ht_json_member_u64(j, "nested", lost->nested);
			ht_json_end_object(j);
		}
		ht_json_end_object(j);
		return;
	}
	printf("-- on-target profile (%s; cycles at %" PRIu64
	       " Hz, from after the entry hook to before the exit hook)\n",
	       source, clock_hz);
	print_table(&pc, top, key);
	if (lost) {
		printf("   lost: %" PRIu64
		       " calls (function table full), %" PRIu64
		       " calls below the stack (counted, not timed), %" PRIu64
		       " unbalanced, %" PRIu64 " nested\n",
		       lost->lost_calls, lost->deep_calls, lost->unbalanced,
		       lost->nested);
	}
}

static void print_dumped(struct ht_func_slices *funcs,
			 const struct ht_func_core *c, unsigned top,
			 enum ht_func_profile_key key, struct ht_json *j)
{
	struct ht_func_profile_func *f;
	struct dump_losses lost = {
	    .lost_calls = c->dump_lost_calls,
	    .deep_calls = c->dump_deep_calls,
	    .unbalanced = c->dump_unbalanced,
	    .nested = c->dump_nested,
	};
	uint64_t hz = c->clock_freq_hz ? c->clock_freq_hz : 1000000000u;
	size_t i;

	if (!c->nr_dumped && !c->has_dump_stats) {
		return;
	}
	f = calloc(c->nr_dumped + 1, sizeof(*f));
	if (!f) {
		return;
	}
	for (i = 0; i < c->nr_dumped; i++) {
		const struct ht_func_dumped *d = &c->dumped[i];

		/* cycles -> ns, without overflow for long runs */
		f[i].addr = d->addr;
		f[i].name = ht_func_slices_name(funcs, c, d->addr);
		f[i].calls = d->calls;
		f[i].incl_ns =
		    (uint64_t)((long double)d->incl_cycles * 1e9L / hz);
		f[i].excl_ns =
		    (uint64_t)((long double)d->excl_cycles * 1e9L / hz);
		f[i].max_ns =
		    (uint64_t)((long double)d->max_cycles * 1e9L / hz);
	}
	print_target_table("dumped by the target", c->name, c, f, c->nr_dumped,
			   c->has_dump_stats ? &lost : NULL, top, key, hz, j);
	free(f);
}

/*
 * The two profiles of core @c side by side where they must agree: the
 * outermost calls' total (the hooks' cost moves time between a function
 * and its caller, not out of the total). The target's cycles over the
 * records' time give the clock frequency they imply: far from clock_hz,
 * the conversion is wrong (a clock that changed frequency, a wrong
 * clock_hz), not the code.
 */
static void compare_dumped(const struct ht_func_core *c,
			   const struct ht_func_profile_core *pc,
			   struct ht_json *j)
{
	uint64_t hz = c->clock_freq_hz ? c->clock_freq_hz : 1000000000u;
	uint64_t cycles = 0, target_ns;
	double implied_hz;
	char a[HT_TIME_FORMAT_LEN], b[HT_TIME_FORMAT_LEN];
	size_t i;

	if (!pc || !c->nr_dumped || !pc->total_ns) {
		return;
	}
	for (i = 0; i < c->nr_dumped; i++) {
		cycles += c->dumped[i].excl_cycles;
	}
	target_ns = (uint64_t)((long double)cycles * 1e9L / hz);
	implied_hz = (double)cycles * 1e9 / (double)pc->total_ns;
	if (j) {
		ht_json_key(j, "compare");
		ht_json_begin_object(j);
		ht_json_member_u64(j, "records_total_ns", pc->total_ns);
		ht_json_member_u64(j, "target_total_ns", target_ns);
		ht_json_member_u64(j, "target_total_cycles", cycles);
		ht_json_member_u64(j, "clock_hz", hz);
		ht_json_key(j, "implied_clock_hz");
		ht_json_double(j, implied_hz);
		ht_json_end_object(j);
		return;
	}
	printf("   the outermost calls: %s from the records, %s on the "
	       "target (%+.1f %%); its cycles over the records' time: "
	       "%.4g Hz, clock_hz %" PRIu64 "\n",
	       ht_time_format_duration(a, sizeof(a), pc->total_ns),
	       ht_time_format_duration(b, sizeof(b), target_ns),
	       100.0 * ((double)target_ns - (double)pc->total_ns) /
		   (double)pc->total_ns,
	       implied_hz, hz);
}

int ht_cli_profile_live(struct ht_cli_target *t, unsigned top,
			enum ht_func_profile_key key)
{
	struct ht_cli_target_profile tp;
	struct ht_func_profile_func *f;
	struct dump_losses lost;
	char source[128];
	size_t i;
	int status;

	status = ht_cli_target_profile(t, &tp);
	if (status) {
		ht_cli_target_profile_free(&tp);
		return status;
	}
	f = calloc(tp.nr_funcs + 1, sizeof(*f));
	if (!f) {
		ht_cli_target_profile_free(&tp);
		return ht_cli_nomem();
	}
	for (i = 0; i < tp.nr_funcs; i++) {
		const struct ht_cli_target_func *d = &tp.funcs[i];

		f[i].addr = d->addr;
		f[i].name = ht_target_names_name(t->sy, d->addr);
		f[i].calls = d->calls;
		f[i].incl_ns = ht_cli_target_ns(t, d->incl);
		f[i].excl_ns = ht_cli_target_ns(t, d->excl);
		f[i].max_ns = ht_cli_target_ns(t, d->max);
	}
	lost.lost_calls = tp.lost_calls;
	lost.deep_calls = tp.deep_calls;
	lost.unbalanced = tp.unbalanced;
	lost.nested = tp.nested;
	snprintf(source, sizeof(source),
		 "read from %s, %zu of %" PRIu32 " table slots", t->name,
		 tp.nr_funcs, tp.table_size);
	print_target_table(
	    source, t->hello.name, NULL, f, tp.nr_funcs, &lost, top, key,
	    t->hello.clock_hz ? t->hello.clock_hz : 1000000000u, NULL);
	if (tp.discarded) {
		printf("   discarded: %" PRIu32
		       " records counted, not written (buffer full)\n",
		       tp.discarded);
	}
	free(f);
	ht_cli_target_profile_free(&tp);
	return HT_EXIT_OK;
}

/* Notes on the names and the anomalies of a core, on stderr. */
static void check_core(struct ht_func_names *fn, const struct ht_func_core *c)
{
	ht_func_names_explain(fn, c, ht_cli_warn, ht_cli_note, NULL);
	if (c->unmatched_exits || c->missing_exits || c->unclosed ||
	    c->time_backwards) {
		fprintf(stderr,
			"%s: note: core %s: unbalanced: %" PRIu64
			" exits without entry (skipped), %" PRIu64
			" calls without exit closed by an outer exit, %" PRIu64
			" calls open at the end (closed at the last record), "
			"%" PRIu64 " times going back\n",
			ht_cli_prog, c->name, c->unmatched_exits,
			c->missing_exits, c->unclosed, c->time_backwards);
	}
}

/*
 * One warning on stderr when the records cover only part of the run:
 * the on-target profile counted more calls than were traced, or the
 * stream lost events or packets. With the dump, the numbers of calls
 * and the function that lost the most.
 */
static void check_partial(struct ht_func_slices *funcs,
			  const struct ht_func_core *c,
			  const struct ht_func_profile_core *pc)
{
	uint64_t made = c->dump_lost_calls, worst_made = 0, worst_traced = 0;
	uint64_t worst_addr = 0, gap = 0;
	char why[160], msg[1024], name[256];
	size_t i, k;

	for (i = 0; i < c->nr_dumped; i++) {
		const struct ht_func_dumped *d = &c->dumped[i];
		uint64_t traced = 0;

		made += d->calls;
		for (k = 0; pc && k < pc->nr_funcs; k++) {
			if (pc->funcs[k].addr == d->addr) {
				traced = pc->funcs[k].calls;
			}
		}
		if (d->calls > traced && d->calls - traced > gap) {
			gap = d->calls - traced;
			worst_addr = d->addr;
			worst_made = d->calls;
			worst_traced = traced;
		}
	}
	if (made <= c->entries && !c->discarded_events && !c->lost_packets) {
		return;
	}
	if (c->discarded_events && c->lost_packets) {
		snprintf(why, sizeof(why),
			 "%" PRIu64 " events discarded, %" PRIu64
			 " packets lost",
			 c->discarded_events, c->lost_packets);
	} else if (c->discarded_events) {
		snprintf(why, sizeof(why),
			 "%" PRIu64 " events discarded: buffer full",
			 c->discarded_events);
	} else if (c->lost_packets) {
		snprintf(why, sizeof(why),
			 "%" PRIu64 " packets lost: overwritten or dropped",
			 c->lost_packets);
	} else {
		snprintf(why, sizeof(why), "records missing");
	}
	if (made > c->entries) {
		fmt_func(name, sizeof(name),
			 ht_func_slices_name(funcs, c, worst_addr), worst_addr);
		snprintf(msg, sizeof(msg),
			 "core %s: %" PRIu64 " of %" PRIu64
			 " calls were traced (%s; %s: %" PRIu64 " of %" PRIu64
			 "): times are from the traced part only",
			 c->name, c->entries, made, why, name, worst_traced,
			 worst_made);
	} else {
		snprintf(msg, sizeof(msg),
			 "core %s: %" PRIu64
			 " calls were traced, not all (%s): times are from the "
			 "traced part only",
			 c->name, c->entries, why);
	}
	ht_cli_warn(NULL, msg);
}

/* --sort KEY. */
static int sort_opt(const struct ht_cli_opt *opt, const char *arg)
{
	enum ht_func_profile_key *key = opt->to.arg;
	int k = ht_func_profile_key_parse(arg);

	if (k < 0) {
		fprintf(stderr,
			"%s: bad --sort key '%s' (incl, excl, calls, avg, "
			"max)\n",
			ht_cli_prog, arg);
		return HT_EXIT_USAGE;
	}
	*key = (enum ht_func_profile_key)k;
	return HT_CLI_GO_ON;
}

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct ctx *x,
			 struct ht_cli_args *traces)
{
	uint64_t top = x->top;
	const struct ht_cli_opt table[] = {
	    HT_CLI_ELF(&x->elfs),
	    HT_CLI_UINT('n', "top", &top, 0, 100000000,
			"a number of functions"),
	    HT_CLI_CALL('s', "sort", sort_opt, &x->key),
	    HT_CLI_RANGE(&x->range, 'c'),
	    HT_CLI_FLAG('g', "callgraph", &x->graph),
	    HT_CLI_FLAG(0, "slices", &x->slices),
	    HT_CLI_FLAG('j', "json", &x->json),
	    HT_CLI_BITS('k', "keep-going", &x->opts.flags, HT_CTF_KEEP_GOING),
	    HT_CLI_UINT(0, "timeout", &x->timeout_ms, 1, 3600000,
			"a time in ms"),
	    HT_CLI_FLAG(0, "strict-build-id", &x->strict_build_id),
	    HT_CLI_OPT_END,
	};
	int ret;

	ret =
	    ht_cli_parse(argc, argv, table, HT_CLI_WANT_TRACES, usage, traces);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	x->top = (unsigned)top;
	/* one core: the tables say it too (and a live target refuses it) */
	x->core = x->range.nr_cores == 1 ? x->range.cores[0] : NULL;
	return HT_CLI_GO_ON;
}

/*
 * Feeds every record of @set to the function tracker (and through it
 * to the profile). Returns the exit status so far, or -1 when out of
 * memory.
 */
static int feed_all(struct ctx *x, struct ht_ctf_set *set,
		    struct ht_func_profile *prof)
{
	struct ht_ctf_msg msg;
	char err[1024];
	int ret, status = HT_EXIT_OK;

	for (;;) {
		ret = ht_ctf_set_next(set, &msg);
		if (ret == HT_EEOF) {
			break;
		}
		if (ret) {
			/* The damaged stream ends; the others go on. */
			fprintf(stderr, "%s: %s\n", ht_cli_prog,
				ht_ctf_set_last_error(set));
			status = HT_EXIT_FAIL;
			continue;
		}
		ret = ht_func_slices_feed(x->funcs, &msg, err, sizeof(err));
		if (ret == HT_EFORMAT) {
			fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
			status = HT_EXIT_FAIL;
		} else if (ret || ht_func_profile_status(prof)) {
			return -1;
		}
	}
	ht_func_slices_finish(x->funcs);
	return status;
}

/* The tables of every selected core. Returns the exit status so far,
 * or -1 when out of memory. */
/* A core's profiles as one JSON object (an item of "cores"). */
static int json_core(struct ctx *x, const struct ht_func_core *fc,
		     const struct ht_func_profile_core *pc)
{
	struct ht_json *j = &x->j;

	ht_json_item(j);
	ht_json_begin_object(j);
	ht_json_member_str(j, "name", fc->name);
	if (pc) {
		ht_json_key(j, "trace");
		ht_json_begin_object(j);
		json_table(j, pc, x->top, x->key, TRACE_MEASURES);
		if (x->graph) {
			ht_json_key(j, "callgraph");
			ht_json_begin_array(j);
			if (print_graph(pc, j)) {
				return -1;
			}
			ht_json_end_array(j);
		}
		ht_json_end_object(j);
	}
	print_dumped(x->funcs, fc, x->top, x->key, j);
	compare_dumped(fc, pc, j);
	ht_json_end_object(j);
	return 0;
}

static int print_profile(struct ctx *x, struct ht_func_profile *prof)
{
	bool any = false;
	size_t i;

	if (x->json) {
		x->j.f = stdout;
		ht_json_begin_object(&x->j);
		ht_json_key(&x->j, "cores");
		ht_json_begin_array(&x->j);
	}

	for (i = 0; i < ht_func_slices_nr_cores(x->funcs); i++) {
		const struct ht_func_core *fc =
		    ht_func_slices_core(x->funcs, i);
		const struct ht_func_profile_core *pc = NULL;
		size_t k;

		if (!core_selected(x->core, fc->name)) {
			continue;
		}
		any = true;
		check_core(x->fnames, fc);
		for (k = 0; k < ht_func_profile_nr_cores(prof); k++) {
			if (ht_func_profile_core(prof, k)->core == fc) {
				pc = ht_func_profile_core(prof, k);
			}
		}
		check_partial(x->funcs, fc, pc);
		if (x->json) {
			if (json_core(x, fc, pc)) {
				return -1;
			}
			continue;
		}
		if (pc) {
			printf("-- from the records (%s)\n", TRACE_MEASURES);
			print_table(pc, x->top, x->key);
			if (x->graph && print_graph(pc, NULL)) {
				return -1;
			}
		}
		print_dumped(x->funcs, fc, x->top, x->key, NULL);
		compare_dumped(fc, pc, NULL);
	}
	if (x->json) {
		ht_json_end_array(&x->j);
		if (any && !x->core && ht_func_profile_nr_cores(prof) > 1) {
			ht_json_key(&x->j, "all_cores");
			ht_json_begin_object(&x->j);
			json_table(&x->j, ht_func_profile_all(prof), x->top,
				   x->key, TRACE_MEASURES);
			ht_json_end_object(&x->j);
		}
		ht_json_end_object(&x->j);
		printf("\n");
	}
	if (!any) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog,
			x->core ? "no function records on that core"
				: "no function records (func_entry, "
				  "func_exit, func_profile) in the trace");
		return HT_EXIT_FAIL;
	}
	if (!x->json && !x->core && ht_func_profile_nr_cores(prof) > 1) {
		print_table(ht_func_profile_all(prof), x->top, x->key);
	}
	return HT_EXIT_OK;
}

/* hetrace profile TARGET: the on-target profile of a live target. */
static int profile_target(struct ctx *x, const char *target)
{
	struct ht_cli_target t = {
	    .timeout_ms = (int)x->timeout_ms,
	    .strict_build_id = x->strict_build_id,
	};
	const char *elf = NULL;
	int status;

	if (x->elfs.nr > 1 || x->core || x->graph || x->slices || x->json ||
	    x->opts.flags) {
		fprintf(stderr,
			"%s: a live target takes one --elf FW, -n, --sort, "
			"--timeout and --strict-build-id only\n",
			ht_cli_prog);
		usage(stderr);
		return HT_EXIT_USAGE;
	}
	if (x->elfs.nr) {
		/* "CORE=FILE" is the trace form's; a target is one core */
		const char *eq = strchr(x->elfs.spec[0], '=');

		elf = eq ? eq + 1 : x->elfs.spec[0];
	}
	status = ht_cli_target_elf(&t, elf);
	if (!status) {
		status = ht_cli_target_open(&t, target);
	}
	if (!status) {
		status = ht_cli_profile_live(&t, x->top, x->key);
	}
	ht_cli_target_close(&t);
	return status;
}

int cmd_profile(int argc, char **argv)
{
	struct ctx x = {
	    .top = 20,
	    .key = HT_FUNC_PROFILE_INCL,
	    .opts = {.warn = ht_cli_warn},
	};
	struct ht_func_slices_opts fopts = {0};
	struct ht_cli_args traces;
	struct ht_ctf_set *set = NULL;
	struct ht_func_profile *prof = NULL;
	int status, printed;

	status = parse_options(argc, argv, &x, &traces);
	if (status != HT_CLI_GO_ON) {
		return status;
	}
	if (traces.nr == 1 && ht_cli_is_target(traces.v[0])) {
		return profile_target(&x, traces.v[0]);
	}
	if (x.json && x.slices) {
		return ht_cli_usage_error(usage, "--json and --slices do not "
						 "go together");
	}
	if (x.timeout_ms || x.strict_build_id) {
		return ht_cli_usage_error(usage, "--timeout and "
						 "--strict-build-id are for a "
						 "live TARGET");
	}
	if (ht_func_profile_create(&prof)) {
		return ht_cli_nomem();
	}
	ht_func_profile_slices_opts(prof, &x.prof);
	fopts.enter = on_enter;
	fopts.slice = on_slice;
	fopts.arg = &x;
	status = ht_cli_elf_open(&x.fnames, &x.elfs, &fopts);
	if (status) {
		goto out;
	}
	x.funcs = ht_func_names_slices(x.fnames);
	status =
	    ht_cli_range_prepare(&x.range, traces.v, traces.nr, &x.opts, false);
	if (status == HT_CLI_GO_ON) {
		status = ht_cli_open_traces(&set, traces.v, traces.nr, &x.opts);
	}
	if (status) {
		goto out;
	}
	status = feed_all(&x, set, prof);
	if (status < 0 || ht_func_profile_status(prof) ||
	    ht_func_profile_resolve(prof, x.funcs)) {
		goto nomem;
	}
	printed = print_profile(&x, prof);
	if (printed < 0) {
		goto nomem;
	}
	if (printed) {
		status = printed;
	}
	goto out;

nomem:
	status = ht_cli_nomem();
out:
	ht_ctf_set_close(set);
	ht_func_names_destroy(x.fnames);
	ht_func_profile_destroy(prof);
	return status;
}
