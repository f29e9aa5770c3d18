/* SPDX-License-Identifier: MIT */
/*
 * Function names for the views (func-names.h): host/analysis/func-slices.h does
 * the work (func_base, the bias guess, exact starts only); this file
 * opens the ELF files, keeps which stream is which core, and words the
 * notes.
 */
#include "func-names.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/message.h"
#include "func-slices.h"
#include "func-symbols.h"

struct ht_func_names {
	struct ht_func_slices *funcs;
	struct ht_func_symbols **syms; /* opened here */
	size_t nr_syms, cap_syms;
	/* stream index -> 1 + ht_func_slices core index (0: none) */
	unsigned *core_of;
	size_t nr_core_of, cap_core_of;
	size_t nr_cores_seen;
	/* by ht_func_slices core index, set by ht_func_names_ready(): the ELF
	 * named every function address of the core (it is the traced program)
	 */
	bool *trusted;
	bool ready;
	bool one_pass; /* names asked for during the only pass */
};

int ht_func_names_create_tracker(struct ht_func_names **out,
				 const struct ht_func_slices_opts *fo)
{
	struct ht_func_names *fn = calloc(1, sizeof(*fn));

	*out = NULL;
	if (!fn) {
		return HT_ENOMEM;
	}
	if (ht_func_slices_create(&fn->funcs, fo)) {
		free(fn);
		return HT_ENOMEM;
	}
	*out = fn;
	return 0;
}

int ht_func_names_create(struct ht_func_names **out)
{
	struct ht_func_slices_opts fo = {0};

	/* only the addresses and func_base matter: a shallow stack is
	 * enough (deeper calls are counted, not kept) */
	fo.max_depth = 64;
	return ht_func_names_create_tracker(out, &fo);
}

struct ht_func_slices *ht_func_names_slices(struct ht_func_names *fn)
{
	return fn->funcs;
}

void ht_func_names_destroy(struct ht_func_names *fn)
{
	size_t i;

	if (!fn) {
		return;
	}
	ht_func_slices_destroy(fn->funcs);
	for (i = 0; i < fn->nr_syms; i++) {
		ht_func_symbols_close(fn->syms[i]);
	}
	free(fn->syms);
	free(fn->core_of);
	free(fn->trusted);
	free(fn);
}

int ht_func_names_add(struct ht_func_names *fn, const char *spec, char *err,
		      size_t err_len)
{
	const char *eq = strchr(spec, '='), *path = spec;
	struct ht_func_symbols *sy = NULL;
	char *core = NULL;
	int ret;

	if (eq && eq != spec) {
		core = strndup(spec, (size_t)(eq - spec));
		if (!core) {
			return HT_ENOMEM;
		}
		path = eq + 1;
	}
	if (!*path) {
		snprintf(err, err_len, "'%s': no ELF file name", spec);
		free(core);
		return HT_EINVAL;
	}
	if (ht_array_reserve((void **)&fn->syms, &fn->cap_syms, fn->nr_syms + 1,
			     sizeof(*fn->syms))) {
		free(core);
		return HT_ENOMEM;
	}
	ret = ht_func_symbols_open(&sy, path, err, err_len);
	if (ret) {
		free(core);
		return ret;
	}
	fn->syms[fn->nr_syms++] = sy;
	/* ht_func_slices keeps its own copy of the core name */
	ret = ht_func_slices_add_symbols(fn->funcs, core, sy);
	free(core);
	return ret;
}

size_t ht_func_names_count(const struct ht_func_names *fn)
{
	return fn ? fn->nr_syms : 0;
}

int ht_func_names_scan(struct ht_func_names *fn, const struct ht_ctf_msg *msg)
{
	size_t n;
	int ret;

	ret = ht_func_slices_feed(fn->funcs, msg, NULL, 0);
	if (ret == HT_EFORMAT) {
		/* a function record without `addr` (the states model also
		 * reads `fn`, `func`...): nothing to learn from it (and no
		 * message to word) */
		ret = 0;
	}
	if (ret) {
		return ret;
	}
	n = ht_func_slices_nr_cores(fn->funcs);
	for (; fn->nr_cores_seen < n; fn->nr_cores_seen++) {
		const struct ht_func_core *c =
		    ht_func_slices_core(fn->funcs, fn->nr_cores_seen);
		unsigned si = c->stream->index;

		if (ht_array_extend((void **)&fn->core_of, &fn->nr_core_of,
				    &fn->cap_core_of, (size_t)si + 1,
				    sizeof(*fn->core_of))) {
			return HT_ENOMEM;
		}
		fn->core_of[si] = c->index + 1;
	}
	return 0;
}

int ht_func_names_scan_traces(struct ht_func_names *fn,
			      const char *const *paths, size_t nr_paths,
			      const struct ht_ctf_open_opts *opts, char *err,
			      size_t err_len)
{
	struct ht_ctf_set *set;
	struct ht_ctf_msg msg;
	int ret;

	ret = ht_ctf_set_open(&set, paths, nr_paths, opts, err, err_len);
	if (ret) {
		return ret;
	}
	while ((ret = ht_ctf_set_next(set, &msg)) != HT_EEOF) {
		/* damaged input is the second pass's to report */
		if (!ret && ht_func_names_scan(fn, &msg) == HT_ENOMEM) {
			ht_ctf_set_close(set);
			snprintf(err, err_len, "%s", ht_strerror(HT_ENOMEM));
			return HT_ENOMEM;
		}
	}
	ht_ctf_set_close(set);
	return 0;
}

/* What a record class means to the plan, as ht_func_slices_feed() reads
 * its records. */
enum plan_kind {
	P_OTHER,    /* not delivered, or nothing for the names */
	P_BASE,	    /* func_base with an integer `base` */
	P_ENTRY,    /* func_entry: a name is asked for */
	P_ADDRS,    /* func_profile: an address, no name asked for */
	P_ADDR = 4, /* or-ed: the record may carry an `addr` */
};

struct plan_class {
	const struct ht_ctf_event_class *cls;
	unsigned kind;
};

struct plan {
	const char *const *events;
	size_t nr_events;
	struct plan_class *classes; /* open addressing by pointer */
	size_t cap, nr;
	/* the stream being scanned */
	uint64_t nr_base;
	bool func_before_base, has_addrs;
};

static bool plan_delivered(const struct plan *p, const char *name)
{
	size_t i;

	if (!p->nr_events) {
		return true;
	}
	/* as ht_ctf_set_next() selects them (ht_ctf_select .events) */
	for (i = 0; i < p->nr_events; i++) {
		if (!fnmatch(p->events[i], name, 0) ||
		    !fnmatch(p->events[i], ht_ctf_event_short_name(name), 0)) {
			return true;
		}
	}
	return false;
}

/* The payload member @name of @cls: 0 none, 1 an integer, 2 another
 * type (a leading '_' may be dropped by the decoder: either matches). */
static int plan_member(const struct ht_ctf_event_class *cls, const char *name)
{
	const struct ht_ctf_type *t = cls->payload;
	size_t i;

	if (!t || t->kind != HT_CTF_STRUCT) {
		return 0;
	}
	for (i = 0; i < t->nr_members; i++) {
		const char *m = t->members[i].name;

		if (m && (!strcmp(m, name) ||
			  (m[0] == '_' && !strcmp(m + 1, name)))) {
			enum ht_ctf_type_kind k = t->members[i].type->kind;

			return k == HT_CTF_INT || k == HT_CTF_ENUM ? 1 : 2;
		}
	}
	return 0;
}

static unsigned plan_kind_of(const struct plan *p,
			     const struct ht_ctf_event_class *cls)
{
	const char *name = cls->name ? cls->name : "";
	const char *n = ht_ctf_event_short_name(name);
	unsigned addr = plan_member(cls, "addr") ? P_ADDR : 0;

	if (!plan_delivered(p, name)) {
		return P_OTHER;
	}
	if (!strcmp(n, "func_base")) {
		/* a `base` that is not an integer is not read */
		return plan_member(cls, "base") == 1 ? P_BASE : P_OTHER;
	}
	if (!strcmp(n, "func_entry")) {
		return P_ENTRY | addr;
	}
	if (!strcmp(n, "func_profile")) {
		return P_ADDRS | addr;
	}
	return P_OTHER;
}

static int plan_class(struct plan *p, const struct ht_ctf_event_class *cls,
		      unsigned *kind)
{
	size_t h, i;

	if (2 * (p->nr + 1) > p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct plan_class *c = calloc(cap, sizeof(*c));

		if (!c) {
			return HT_ENOMEM;
		}
		for (i = 0; i < p->cap; i++) {
			if (p->classes[i].cls) {
				h = ((uintptr_t)p->classes[i].cls >> 4) % cap;
				while (c[h].cls) {
					h = (h + 1) % cap;
				}
				c[h] = p->classes[i];
			}
		}
		free(p->classes);
		p->classes = c;
		p->cap = cap;
	}
	h = ((uintptr_t)cls >> 4) % p->cap;
	while (p->classes[h].cls && p->classes[h].cls != cls) {
		h = (h + 1) % p->cap;
	}
	if (!p->classes[h].cls) {
		p->classes[h].cls = cls;
		p->classes[h].kind = plan_kind_of(p, cls);
		p->nr++;
	}
	*kind = p->classes[h].kind;
	return 0;
}

/* Whether the stream scanned so far still allows one pass. */
static bool plan_stream_ok(const struct plan *p)
{
	if (p->nr_base > 1 || (p->nr_base == 1 && p->func_before_base)) {
		return false; /* the bias changes, or is not known in time */
	}
	return p->nr_base == 1 || !p->has_addrs;
}

static int plan_records(void *arg, const struct ht_ctf_event_class *const *cls,
			const uint64_t *cycles, size_t n)
{
	struct plan *p = arg;
	unsigned kind;
	size_t i;
	int ret;

	(void)cycles;
	for (i = 0; i < n; i++) {
		ret = plan_class(p, cls[i], &kind);
		if (ret) {
			return ret;
		}
		if (kind == P_OTHER) {
			continue;
		}
		if ((kind & ~P_ADDR) == P_BASE) {
			p->nr_base++;
		} else if (!p->nr_base) {
			p->func_before_base = true;
		}
		p->has_addrs |= (kind & P_ADDR) != 0;
		if (!plan_stream_ok(p) &&
		    (p->nr_base || (p->func_before_base && p->has_addrs))) {
			return 1; /* two passes, whatever follows */
		}
	}
	return 0;
}

/* Whether a record of @tr may carry a func_base or an address (its
 * metadata declares such a class): else its bias is 0 from the start. */
static int plan_trace_needs_scan(struct plan *p, const struct ht_ctf_trace *tr,
				 bool *needs)
{
	size_t k, i;
	unsigned kind;
	int ret;

	*needs = false;
	for (k = 0; k < tr->nr_stream_classes; k++) {
		const struct ht_ctf_stream_class *sc = tr->stream_classes[k];

		for (i = 0; i < sc->nr_event_classes; i++) {
			ret = plan_class(p, sc->event_classes[i], &kind);
			if (ret) {
				return ret;
			}
			if (kind == P_BASE || (kind & P_ADDR)) {
				*needs = true;
				return 0;
			}
		}
	}
	return 0;
}

int ht_func_names_plan(struct ht_func_names *fn, struct ht_ctf_set *set,
		       const char *const *events, size_t nr_events,
		       bool *one_pass)
{
	bool needs;
	struct plan p = {.events = events, .nr_events = nr_events};
	struct ht_ctf_scan_ops ops = {.records = plan_records, .arg = &p};
	size_t t, i;
	int ret = 0;

	*one_pass = false;
	for (t = 0; t < ht_ctf_set_nr_traces(set); t++) {
		const struct ht_ctf_trace *tr = ht_ctf_set_trace(set, t);

		ret = plan_trace_needs_scan(&p, tr, &needs);
		if (ret) {
			goto out;
		}
		for (i = 0; needs && i < tr->nr_streams; i++) {
			p.nr_base = 0;
			p.func_before_base = p.has_addrs = false;
			ret = ht_ctf_stream_scan(set, tr->streams[i], &ops);
			if (ret || !plan_stream_ok(&p)) {
				goto out;
			}
		}
	}
	*one_pass = true;
	fn->one_pass = true;
out:
	free(p.classes);
	return ret == HT_ENOMEM ? ret : 0;
}

void ht_func_names_explain(struct ht_func_names *fn,
			   const struct ht_func_core *c,
			   void (*warn)(void *arg, const char *text),
			   void (*note)(void *arg, const char *text), void *arg)
{
	size_t named, total;

	if (!c->syms) {
		return;
	}
	/* decides the bias from func_base or from every address */
	ht_func_slices_name_stats(fn->funcs, c, &named, &total);
	if (ht_func_symbols_stripped(c->syms)) {
		ht_message_sendf(
		    note, arg,
		    "%s is stripped (no .symtab): core %s's functions are "
		    "shown as addresses%s",
		    ht_func_symbols_path(c->syms), c->name,
		    ht_func_symbols_count(c->syms) ? " (exported ones excepted)"
						   : "");
	} else if (total && named < total) {
		ht_message_sendf(
		    warn, arg,
		    "core %s: %zu of %zu function addresses are not "
		    "functions of %s (%s): shown as raw addresses",
		    c->name, total - named, total,
		    ht_func_symbols_path(c->syms),
		    named ? "a different build?"
			  : "the file does not match this trace: it names "
			    "0 of the core's function addresses");
	}
	if (c->bias_guessed) {
		ht_message_sendf(
		    note, arg,
		    "core %s: no func_base record; load bias 0x%" PRIx64
		    " found from the addresses",
		    c->name, c->bias);
	}
}

void ht_func_names_ready(struct ht_func_names *fn,
			 void (*note)(void *arg, const char *text), void *arg)
{
	size_t i, n = ht_func_slices_nr_cores(fn->funcs);

	fn->ready = true;
	free(fn->trusted);
	fn->trusted = calloc(n + 1, sizeof(*fn->trusted));
	for (i = 0; i < n; i++) {
		const struct ht_func_core *c =
		    ht_func_slices_core(fn->funcs, i);
		size_t named, total;

		ht_func_names_explain(fn, c, note, note, arg);
		if (c->syms && fn->trusted) {
			ht_func_slices_name_stats(fn->funcs, c, &named, &total);
			fn->trusted[i] = total && named == total;
		}
	}
}

/* The core of @msg's stream once ready, else NULL. */
static const struct ht_func_core *core_of_msg(struct ht_func_names *fn,
					      const struct ht_ctf_msg *msg)
{
	unsigned si = msg->stream->index;

	if (!(fn->ready || fn->one_pass) || si >= fn->nr_core_of ||
	    !fn->core_of[si]) {
		return NULL;
	}
	return ht_func_slices_core(fn->funcs, fn->core_of[si] - 1);
}

const char *ht_func_names_lookup(struct ht_func_names *fn,
				 const struct ht_ctf_msg *msg, uint64_t addr)
{
	const struct ht_func_core *c = core_of_msg(fn, msg);

	return c ? ht_func_slices_name(fn->funcs, c, addr) : NULL;
}

const char *ht_func_names_describe(struct ht_func_names *fn,
				   const struct ht_ctf_msg *msg, uint64_t addr,
				   bool inside, char *buf, size_t len)
{
	const struct ht_func_core *c = core_of_msg(fn, msg);
	const char *name = NULL;
	struct ht_func_sym sym;
	uint64_t saved;
	bool found;
	int n;

	if (!c || !c->syms) {
		return NULL;
	}
	if (inside) {
		/* only when this ELF named every function of the core: a
		 * call site of another program would get a wrong name */
		if (!fn->trusted || !fn->trusted[c->index]) {
			return NULL;
		}
	} else {
		/* never a wrong name: only exact function starts */
		name = ht_func_slices_name(fn->funcs, c, addr);
		if (!name) {
			return NULL;
		}
	}
	saved = ht_func_symbols_bias(c->syms);
	ht_func_symbols_set_bias(c->syms, c->bias);
	found = ht_func_symbols_lookup(c->syms, addr, &sym);
	ht_func_symbols_set_bias(c->syms, saved);
	if (!name) {
		if (!found || !sym.name) {
			return NULL;
		}
		n = snprintf(buf, len, "%s+0x%llx", sym.name,
			     (unsigned long long)sym.offset);
	} else {
		n = snprintf(buf, len, "%s", name);
	}
	if (found && sym.file && n > 0 && (size_t)n < len) {
		const char *base = strrchr(sym.file, '/');

		snprintf(buf + n, len - n, " at %s:%d",
			 base ? base + 1 : sym.file, sym.line);
	}
	return buf;
}
