/* SPDX-License-Identifier: MIT */
/*
 * Convex-hull clock synchronization (docs/sync.md).
 *
 * For a tree edge (parent P, child C) a point (x, y) has x in C's time
 * and y in P's. A C->P message sent at s, received at r gives the
 * "upper" point (s, r + 1): every valid line t_P = a t_C + b passes on
 * or below it. A P->C message gives the "lower" point (r + 1, s): the
 * line passes on or above it. (+1: a reading floors its continuous
 * clock.) The feasible lines are those between the lower hull of the
 * upper points (U) and the upper hull of the lower points (L).
 *
 * Eliminating b (Fourier-Motzkin) from the constraints of a point u of
 * U and q of L gives a >= slope(u, q) when u.x < q.x, a <= slope(q, u)
 * when q.x < u.x, and u.y >= q.y when they share x: the feasible slopes
 * are [a_min, a_max], attained by the min- and max-slope lines, and
 * only hull vertices matter. At a time x the feasible values form an
 * interval: its top follows the min-slope line left of where that line
 * touches U, the lower hull of U between the two touch points, and the
 * max-slope line right of its touch point; its bottom is symmetric
 * with L (docs/sync.md derives it).
 *
 * This file holds the set, the tree and the solve; the fit of one edge
 * is in clock-edge.c (clock-fit-internal.h lists the files).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock-fit-internal.h"
#include "common/buf.h"
#include "common/error.h"

#define MAX_NODES 4096

static const char *const quality_names[] = {
    [HT_FIT_REFERENCE] = "reference",	  [HT_FIT_ACCURATE] = "accurate",
    [HT_FIT_APPROXIMATE] = "approximate", [HT_FIT_INCOMPLETE] = "incomplete",
    [HT_FIT_ABSENT] = "absent",		  [HT_FIT_FAIL] = "fail",
};

const char *ht_fit_quality_name(enum ht_fit_quality q)
{
	if ((unsigned)q >= sizeof(quality_names) / sizeof(quality_names[0])) {
		return "?";
	}
	return quality_names[q];
}

double ht_fit_line_slope(const struct ht_fit_line *l)
{
	if (!l->valid) {
		return 0.0;
	}
	return (double)((long double)((ht__i128)l->y1 - l->y0) /
			(long double)((ht__i128)l->x1 - l->x0));
}

double ht_fit_line_offset(const struct ht_fit_line *l)
{
	long double a;

	if (!l->valid) {
		return 0.0;
	}
	a = (long double)((ht__i128)l->y1 - l->y0) /
	    (long double)((ht__i128)l->x1 - l->x0);
	return (double)((long double)l->y0 - a * (long double)l->x0);
}

static void set_error(struct ht_fit_set *set, const char *msg)
{
	snprintf(set->err, sizeof(set->err), "%s", msg);
}

struct ht_fit_set *ht_fit_set_create(unsigned nr_nodes)
{
	struct ht_fit_set *set;

	if (nr_nodes == 0 || nr_nodes > MAX_NODES) {
		return NULL;
	}
	set = calloc(1, sizeof(*set));
	if (!set) {
		return NULL;
	}
	set->rate = calloc(nr_nodes, sizeof(*set->rate));
	if (!set->rate) {
		free(set);
		return NULL;
	}
	set->nr_nodes = nr_nodes;
	return set;
}

static void free_fits(struct ht_fit_set *set)
{
	unsigned i;
	size_t k;

	if (!set->fits) {
		return;
	}
	for (i = 0; i < set->nr_nodes; i++) {
		struct ht__node_fit *nf = &set->fits[i];

		for (k = 0; k < nf->pub.nr_segments; k++) {
			free(nf->segs[k].uh);
			free(nf->segs[k].lh);
		}
		free(nf->segs);
		free(nf->psegs);
		free(nf->rejected);
	}
	free(set->fits);
	set->fits = NULL;
	set->solved = false;
}

void ht_fit_set_destroy(struct ht_fit_set *set)
{
	if (!set) {
		return;
	}
	free_fits(set);
	free(set->msgs);
	free(set->rate);
	free(set);
}

int ht_fit_set_add_message(struct ht_fit_set *set, unsigned sender,
			   unsigned receiver, int64_t send_time,
			   int64_t recv_time)
{
	struct ht__fit_msg *m;

	set->err[0] = '\0';
	if (sender >= set->nr_nodes || receiver >= set->nr_nodes) {
		snprintf(set->err, sizeof(set->err),
			 "node %u out of range (%u nodes)",
			 sender >= set->nr_nodes ? sender : receiver,
			 set->nr_nodes);
		return HT_EINVAL;
	}
	if (sender == receiver) {
		snprintf(set->err, sizeof(set->err),
			 "node %u sends a message to itself", sender);
		return HT_EINVAL;
	}
	if (!time_ok(send_time) || !time_ok(recv_time)) {
		snprintf(
		    set->err, sizeof(set->err),
		    "time %lld out of range (-2^62, 2^62)",
		    (long long)(time_ok(send_time) ? recv_time : send_time));
		return HT_ERANGE;
	}
	/* (tested here first: the call only when the array is full) */
	if (set->nr_msgs == set->cap_msgs &&
	    ht_array_reserve((void **)&set->msgs, &set->cap_msgs,
			     set->nr_msgs + 1, sizeof(*set->msgs))) {
		set_error(set, "out of memory");
		return HT_ENOMEM;
	}
	m = &set->msgs[set->nr_msgs++];
	m->from = sender;
	m->to = receiver;
	m->s = send_time;
	m->r = recv_time;
	set->solved = false;
	return 0;
}

unsigned ht_fit_set_nr_nodes(const struct ht_fit_set *set)
{
	return set->nr_nodes;
}

size_t ht_fit_set_nr_messages(const struct ht_fit_set *set)
{
	return set->nr_msgs;
}

int ht_fit_set_node_rate(struct ht_fit_set *set, unsigned node,
			 uint64_t units_per_second)
{
	if (node >= set->nr_nodes) {
		set_error(set, "node out of range");
		return HT_EINVAL;
	}
	set->rate[node] = units_per_second;
	return 0;
}

const char *ht_fit_set_last_error(const struct ht_fit_set *set)
{
	return set->err;
}

static int build_tree(struct ht_fit_set *set, unsigned ref)
{
	unsigned n = set->nr_nodes, u, v, head = 0, tail = 0, phase;
	uint8_t *dir = calloc((size_t)n * n, 1);
	unsigned *queue = malloc(n * sizeof(*queue));
	size_t i;

	if (!dir || !queue) {
		free(dir);
		free(queue);
		return HT_ENOMEM;
	}
	for (i = 0; i < set->nr_msgs; i++) {
		dir[(size_t)set->msgs[i].from * n + set->msgs[i].to] = 1;
	}
	for (u = 0; u < n; u++) {
		set->fits[u].pub.parent = -1;
	}
	set->fits[ref].pub.depth = 0;
	queue[tail++] = ref;
	/* phase 0: edges with both directions; phase 1: any edge */
	for (phase = 0; phase < 2; phase++) {
		for (head = 0; head < tail; head++) {
			u = queue[head];
			for (v = 0; v < n; v++) {
				bool ab = dir[(size_t)u * n + v];
				bool ba = dir[(size_t)v * n + u];

				if (v == ref || set->fits[v].pub.parent >= 0) {
					continue;
				}
				if (phase == 0 ? !(ab && ba) : !(ab || ba)) {
					continue;
				}
				set->fits[v].pub.parent = (int)u;
				set->fits[v].pub.depth =
				    set->fits[u].pub.depth + 1;
				queue[tail++] = v;
			}
		}
	}
	free(dir);
	free(queue);
	return 0;
}

/* Each message as a point of the edge it crosses, grouped by the
 * edge's child: the points of node v are pts[off[v] .. off[v + 1]).
 * Messages off the tree are left out. @count is scratch (n + 1). */
static void bucket_points(const struct ht_fit_set *set, struct ht__fit_pt *pts,
			  size_t *count, size_t *off)
{
	unsigned n = set->nr_nodes, v;
	size_t i;

	for (i = 0; i < set->nr_msgs; i++) {
		const struct ht__fit_msg *m = &set->msgs[i];

		if (set->fits[m->to].pub.parent == (int)m->from) {
			count[m->to]++;
		} else if (set->fits[m->from].pub.parent == (int)m->to) {
			count[m->from]++;
		}
	}
	for (v = 0; v < n; v++) {
		off[v + 1] = off[v] + count[v];
		count[v] = off[v];
	}
	for (i = 0; i < set->nr_msgs; i++) {
		const struct ht__fit_msg *m = &set->msgs[i];
		struct ht__fit_pt *q;

		if (set->fits[m->to].pub.parent == (int)m->from) {
			q = &pts[count[m->to]++];
			q->x = m->r + 1;
			q->y = m->s;
			q->up = false;
		} else if (set->fits[m->from].pub.parent == (int)m->to) {
			q = &pts[count[m->from]++];
			q->x = m->s;
			q->y = m->r + 1;
			q->up = true;
		} else {
			continue;
		}
		q->msg = i;
	}
}

/* Fits node @v to its parent (its points p[0..n)), with its drift. */
static int fit_node(struct ht_fit_set *set, unsigned v, struct ht__fit_pt *p,
		    size_t n, const struct ht_fit_opts *options)
{
	struct ht__node_fit *nf = &set->fits[v];
	int ret;

	if (v == set->reference) {
		nf->pub.quality = HT_FIT_REFERENCE;
		return 0;
	}
	if (nf->pub.parent < 0) {
		nf->pub.quality = HT_FIT_ABSENT;
		return 0;
	}
	ret = ht__edge_solve(nf, p, n, options);
	if (ret) {
		return ret;
	}
	if (set->rate[v] && set->rate[nf->pub.parent]) {
		double nominal =
		    (double)set->rate[nf->pub.parent] / (double)set->rate[v];

		nf->pub.drift_ppm = (nf->pub.slope / nominal - 1) * 1e6;
	} else {
		nf->pub.drift_ppm = (nf->pub.slope - 1) * 1e6;
	}
	return 0;
}

int ht_fit_set_solve(struct ht_fit_set *set, unsigned reference,
		     const struct ht_fit_opts *options)
{
	unsigned n = set->nr_nodes, v;
	size_t *count = NULL, *off = NULL;
	struct ht__fit_pt *pts = NULL;
	int ret;

	set->err[0] = '\0';
	if (reference >= n) {
		set_error(set, "reference node out of range");
		return HT_EINVAL;
	}
	free_fits(set);
	set->fits = calloc(n, sizeof(*set->fits));
	count = calloc(n + 1, sizeof(*count));
	off = calloc(n + 1, sizeof(*off));
	pts = malloc((set->nr_msgs ? set->nr_msgs : 1) * sizeof(*pts));
	if (!set->fits || !count || !off || !pts) {
		ret = HT_ENOMEM;
		goto out;
	}
	set->reference = reference;
	for (v = 0; v < n; v++) {
		set->fits[v].pub.node = v;
	}
	ret = build_tree(set, reference);
	if (ret) {
		goto out;
	}
	bucket_points(set, pts, count, off);
	for (v = 0; v < n; v++) {
		ret = fit_node(set, v, pts + off[v], off[v + 1] - off[v],
			       options);
		if (ret) {
			set_error(set, "out of memory");
			goto out;
		}
	}
	set->solved = true;
out:
	if (ret) {
		free_fits(set);
	}
	free(count);
	free(off);
	free(pts);
	return ret;
}

const struct ht_fit_node *ht_fit_set_get_node(const struct ht_fit_set *set,
					      unsigned node)
{
	if (!set->solved || node >= set->nr_nodes) {
		return NULL;
	}
	return &set->fits[node].pub;
}
