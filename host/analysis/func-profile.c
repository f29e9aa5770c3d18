/* SPDX-License-Identifier: MIT */
/*
 * The function profile (host/analysis/func-profile.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "func-profile.h"

struct pcore {
	struct ht_func_profile_core pub;
	/* function index by address: open addressing, value index + 1 */
	uint64_t *keys;
	uint32_t *vals;
	size_t cap;
	size_t cap_funcs, cap_nodes;
};

struct ht_func_profile {
	struct pcore **cores; /* by ht_func_slices_core index */
	size_t nr_cores, cap_cores;
	struct ht_func_profile_core all;
	char **raw_names; /* "0x..." names of the all-cores sum */
	size_t nr_raw;
	int status;
};

int ht_func_profile_create(struct ht_func_profile **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : HT_ENOMEM;
}

void ht_func_profile_destroy(struct ht_func_profile *p)
{
	size_t i;

	if (!p) {
		return;
	}
	for (i = 0; i < p->nr_cores; i++) {
		if (p->cores[i]) {
			free(p->cores[i]->pub.funcs);
			free(p->cores[i]->pub.nodes);
			free(p->cores[i]->keys);
			free(p->cores[i]->vals);
			free(p->cores[i]);
		}
	}
	for (i = 0; i < p->nr_raw; i++) {
		free(p->raw_names[i]);
	}
	free(p->raw_names);
	free(p->all.funcs);
	free(p->cores);
	free(p);
}

static struct pcore *pcore_of(struct ht_func_profile *p,
			      const struct ht_func_core *core)
{
	struct pcore *c;

	if (ht_array_extend((void **)&p->cores, &p->nr_cores, &p->cap_cores,
			    (size_t)core->index + 1, sizeof(*p->cores))) {
		return NULL;
	}
	if (p->cores[core->index]) {
		return p->cores[core->index];
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		return NULL;
	}
	c->pub.core = core;
	c->pub.name = core->name;
	c->cap_nodes = 64;
	c->pub.nodes = calloc(c->cap_nodes, sizeof(*c->pub.nodes));
	if (!c->pub.nodes) {
		free(c);
		return NULL;
	}
	c->pub.nr_nodes = 1; /* the root */
	p->cores[core->index] = c;
	return c;
}

static size_t hash(uint64_t a, size_t cap)
{
	return (size_t)((a * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

/* The function record of @addr, created if needed; NULL: no memory. */
static struct ht_func_profile_func *func_of(struct pcore *c, uint64_t addr)
{
	size_t i;

	if ((c->pub.nr_funcs + 1) * 2 > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64, k;
		uint64_t *keys = calloc(cap, sizeof(*keys));
		uint32_t *vals = calloc(cap, sizeof(*vals));

		if (!keys || !vals) {
			free(keys);
			free(vals);
			return NULL;
		}
		for (k = 0; k < c->cap; k++) {
			if (c->vals[k]) {
				i = hash(c->keys[k], cap);
				while (vals[i]) {
					i = (i + 1) & (cap - 1);
				}
				keys[i] = c->keys[k];
				vals[i] = c->vals[k];
			}
		}
		free(c->keys);
		free(c->vals);
		c->keys = keys;
		c->vals = vals;
		c->cap = cap;
	}
	i = hash(addr, c->cap);
	while (c->vals[i]) {
		if (c->keys[i] == addr) {
			return &c->pub.funcs[c->vals[i] - 1];
		}
		i = (i + 1) & (c->cap - 1);
	}
	if (c->pub.nr_funcs == c->cap_funcs &&
	    ht_array_reserve((void **)&c->pub.funcs, &c->cap_funcs,
			     c->pub.nr_funcs + 1, sizeof(*c->pub.funcs))) {
		return NULL;
	}
	memset(&c->pub.funcs[c->pub.nr_funcs], 0, sizeof(*c->pub.funcs));
	c->pub.funcs[c->pub.nr_funcs].addr = addr;
	c->keys[i] = addr;
	c->vals[i] = (uint32_t)++c->pub.nr_funcs;
	return &c->pub.funcs[c->pub.nr_funcs - 1];
}

/* The child of node @parent for @addr, created if needed; 0: no memory. */
static uint32_t child_of(struct pcore *c, uint32_t parent, uint64_t addr)
{
	struct ht_func_profile_node *n;
	uint32_t k, prev = 0;

	for (k = c->pub.nodes[parent].first_child; k;
	     prev = k, k = c->pub.nodes[k].next_sibling) {
		if (c->pub.nodes[k].addr == addr) {
			/* Move to front: loops call the same child again. */
			if (prev) {
				c->pub.nodes[prev].next_sibling =
				    c->pub.nodes[k].next_sibling;
				c->pub.nodes[k].next_sibling =
				    c->pub.nodes[parent].first_child;
				c->pub.nodes[parent].first_child = k;
			}
			return k;
		}
	}
	if (c->pub.nr_nodes == c->cap_nodes &&
	    ht_array_reserve((void **)&c->pub.nodes, &c->cap_nodes,
			     c->pub.nr_nodes + 1, sizeof(*c->pub.nodes))) {
		return 0;
	}
	k = (uint32_t)c->pub.nr_nodes++;
	n = &c->pub.nodes[k];
	memset(n, 0, sizeof(*n));
	n->addr = addr;
	n->parent = parent;
	n->depth = c->pub.nodes[parent].depth + 1;
	n->next_sibling = c->pub.nodes[parent].first_child;
	c->pub.nodes[parent].first_child = k;
	return k;
}

/*
 * The tracker keeps one pointer per open call: the call tree node in
 * the high bits, and whether the call is its function's outermost.
 */
static void *user_make(uint32_t node, bool outermost)
{
	return (void *)(((uintptr_t)node << 1 | (outermost ? 1u : 0u)) + 2u);
}

static uint32_t user_node(void *u)
{
	return u ? (uint32_t)(((uintptr_t)u - 2u) >> 1) : 0;
}

static bool user_outermost(void *u)
{
	return u && (((uintptr_t)u - 2u) & 1u);
}

static void on_enter(void *arg, const struct ht_func_slice *s, void **user)
{
	struct ht_func_profile *p = arg;
	struct pcore *c = pcore_of(p, s->core);
	struct ht_func_profile_func *fn;
	uint32_t node;

	if (!c || !(fn = func_of(c, s->addr))) {
		p->status = HT_ENOMEM;
		return;
	}
	node = child_of(c, user_node(s->parent_user), s->addr);
	if (!node) {
		p->status = HT_ENOMEM;
		return;
	}
	*user = user_make(node, fn->active++ == 0);
}

static void on_slice(void *arg, const struct ht_func_slice *s, void *user)
{
	struct ht_func_profile *p = arg;
	struct pcore *c = pcore_of(p, s->core);
	struct ht_func_profile_func *fn;
	uint64_t dur = (uint64_t)(s->end_ns - s->begin_ns);
	struct ht_func_profile_node *n;

	if (!c || !user || !(fn = func_of(c, s->addr))) {
		/* on_enter failed: status says so */
		return;
	}
	fn->calls++;
	fn->excl_ns += s->excl_ns;
	fn->forced += s->forced_end;
	if (fn->max_ns < dur) {
		fn->max_ns = dur;
	}
	if (fn->active) {
		fn->active--;
	}
	if (user_outermost(user)) {
		fn->incl_ns += dur;
	}
	n = &c->pub.nodes[user_node(user)];
	n->calls++;
	n->incl_ns += dur;
	n->excl_ns += s->excl_ns;
	c->pub.calls++;
	if (s->depth == 0) {
		c->pub.total_ns += dur;
		c->pub.nodes[0].incl_ns += dur;
		c->pub.nodes[0].calls++;
	}
}

void ht_func_profile_slices_opts(struct ht_func_profile *p,
				 struct ht_func_slices_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->enter = on_enter;
	opts->slice = on_slice;
	opts->arg = p;
}

int ht_func_profile_status(const struct ht_func_profile *p)
{
	return p->status;
}

size_t ht_func_profile_nr_cores(const struct ht_func_profile *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nr_cores; i++) {
		n += p->cores[i] != NULL;
	}
	return n;
}

const struct ht_func_profile_core *
ht_func_profile_core(const struct ht_func_profile *p, size_t i)
{
	size_t k;

	for (k = 0; k < p->nr_cores; k++) {
		if (p->cores[k] && i-- == 0) {
			return &p->cores[k]->pub;
		}
	}
	return NULL;
}

const struct ht_func_profile_core *
ht_func_profile_all(const struct ht_func_profile *p)
{
	return &p->all;
}

static int cmp_name_addr(const struct ht_func_profile_func *a,
			 const struct ht_func_profile_func *b)
{
	if (a->name && b->name) {
		int r = strcmp(a->name, b->name);

		if (r) {
			return r;
		}
	} else if (a->name || b->name) {
		return a->name ? -1 : 1;
	}
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int cmp_by_name(const void *x, const void *y)
{
	return cmp_name_addr(x, y);
}

int ht_func_profile_resolve(struct ht_func_profile *p, struct ht_func_slices *f)
{
	struct ht_func_profile_func *all;
	size_t i, k, n = 0, m;

	for (i = 0; i < p->nr_cores; i++) {
		struct pcore *c = p->cores[i];

		if (!c) {
			continue;
		}
		for (k = 0; k < c->pub.nr_funcs; k++) {
			c->pub.funcs[k].name = ht_func_slices_name(
			    f, c->pub.core, c->pub.funcs[k].addr);
		}
		for (k = 1; k < c->pub.nr_nodes; k++) {
			c->pub.nodes[k].name = ht_func_slices_name(
			    f, c->pub.core, c->pub.nodes[k].addr);
		}
		n += c->pub.nr_funcs;
		p->all.calls += c->pub.calls;
		p->all.total_ns += c->pub.total_ns;
	}
	p->all.name = "all cores";
	all = calloc(n ? n : 1, sizeof(*all));
	if (!all) {
		return HT_ENOMEM;
	}
	for (i = 0, n = 0; i < p->nr_cores; i++) {
		if (p->cores[i]) {
			memcpy(all + n, p->cores[i]->pub.funcs,
			       p->cores[i]->pub.nr_funcs * sizeof(*all));
			n += p->cores[i]->pub.nr_funcs;
		}
	}
	/* Unnamed functions of different cores are different functions
	 * even at one address (each core has its own image): merged by
	 * name only. */
	qsort(all, n, sizeof(*all), cmp_by_name);
	for (i = 0, m = 0; i < n; i++) {
		if (m && all[i].name && all[m - 1].name &&
		    !strcmp(all[i].name, all[m - 1].name)) {
			all[m - 1].calls += all[i].calls;
			all[m - 1].incl_ns += all[i].incl_ns;
			all[m - 1].excl_ns += all[i].excl_ns;
			all[m - 1].forced += all[i].forced;
			if (all[m - 1].max_ns < all[i].max_ns) {
				all[m - 1].max_ns = all[i].max_ns;
			}
		} else {
			all[m++] = all[i];
		}
	}
	free(p->all.funcs);
	p->all.funcs = all;
	p->all.nr_funcs = m;
	return 0;
}

int ht_func_profile_key_parse(const char *s)
{
	static const char *const keys[] = {"incl", "excl", "calls", "avg",
					   "max"};
	int i;

	for (i = 0; i < 5; i++) {
		if (!strcmp(s, keys[i])) {
			return i;
		}
	}
	return -1;
}

static enum ht_func_profile_key sort_key;

static uint64_t key_of(const struct ht_func_profile_func *f)
{
	switch (sort_key) {
	case HT_FUNC_PROFILE_EXCL:
		return f->excl_ns;
	case HT_FUNC_PROFILE_CALLS:
		return f->calls;
	case HT_FUNC_PROFILE_AVG:
		return f->calls ? f->incl_ns / f->calls : 0;
	case HT_FUNC_PROFILE_MAX:
		return f->max_ns;
	case HT_FUNC_PROFILE_INCL:
	default:
		return f->incl_ns;
	}
}

static int cmp_key(const void *x, const void *y)
{
	uint64_t a = key_of(x), b = key_of(y);

	if (a != b) {
		return a > b ? -1 : 1;
	}
	return cmp_name_addr(x, y);
}

void ht_func_profile_sort(struct ht_func_profile_func *funcs, size_t n,
			  enum ht_func_profile_key key)
{
	sort_key = key;
	qsort(funcs, n, sizeof(*funcs), cmp_key);
}
