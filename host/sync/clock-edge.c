/* SPDX-License-Identifier: MIT */
/*
 * The fit of one tree edge (clock-fit-internal.h): its points sorted,
 * the "too fast" pairs excluded, the quality, and the pieces (one, or
 * several when the clock rate steps) with the breaks between them.
 */
#include <stdlib.h>
#include <string.h>

#include "clock-fit-internal.h"
#include "common/error.h"

#define DEFAULT_WINDOW 8
#define DEFAULT_MAX_SEGMENTS 16
#define MIN_PIECE_PAIRS 3

static int cmp_pt(const void *pa, const void *pb)
{
	const struct ht__fit_pt *a = pa, *b = pb;

	if (a->x != b->x) {
		return a->x < b->x ? -1 : 1;
	}
	if (a->y != b->y) {
		return a->y < b->y ? -1 : 1;
	}
	if (a->up != b->up) {
		return a->up ? 1 : -1;
	}
	return (a->msg > b->msg) - (a->msg < b->msg);
}

/* sorts by (x, y, up, msg): LSD radix on x (skipping the digits all
 * keys share), then the runs of equal x by cmp_pt */
static int sort_pts(struct ht__fit_pt *p, size_t n)
{
	struct ht__fit_pt *tmp = malloc(n * sizeof(*tmp)), *src = p, *dst = tmp;
	uint64_t first, diff = 0;
	size_t i, j, shift;

	if (!tmp) {
		return HT_ENOMEM;
	}
	first = (uint64_t)p[0].x ^ (1ull << 63);
	for (i = 1; i < n; i++) {
		diff |= ((uint64_t)p[i].x ^ (1ull << 63)) ^ first;
	}
	for (shift = 0; shift < 64; shift += 11) {
		size_t count[2048] = {0}, sum = 0;

		if (!((diff >> shift) & 2047)) {
			continue;
		}
		for (i = 0; i < n; i++) {
			count[(((uint64_t)src[i].x ^ (1ull << 63)) >> shift) &
			      2047]++;
		}
		for (i = 0; i < 2048; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++) {
			dst[count[(((uint64_t)src[i].x ^ (1ull << 63)) >>
				   shift) &
				  2047]++] = src[i];
		}
		tmp = src;
		src = dst;
		dst = tmp;
	}
	if (src != p) {
		memcpy(p, src, n * sizeof(*p));
		tmp = src;
	} else {
		tmp = dst;
	}
	free(tmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && p[j].x == p[i].x; j++) {
		}
		if (j - i > 1) {
			qsort(p + i, j - i, sizeof(*p), cmp_pt);
		}
	}
	return 0;
}

static int cmp_size(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

	return (a > b) - (a < b);
}

/* largest e with p[b..e) feasible (p[b..b+1) always is) */
static size_t max_prefix(struct ht__hull_sol *h, const struct ht__fit_pt *p,
			 size_t n, size_t b)
{
	size_t good = 1, bad, step = 2;

	while (b + step <= n && ht__hull_sol_run(h, p + b, step, SIZE_MAX)) {
		good = step;
		step *= 2;
	}
	if (b + step > n) {
		if (ht__hull_sol_run(h, p + b, n - b, SIZE_MAX)) {
			return n;
		}
		bad = n - b;
	} else {
		bad = step;
	}
	while (bad - good > 1) {
		size_t mid = good + (bad - good) / 2;

		if (ht__hull_sol_run(h, p + b, mid, SIZE_MAX)) {
			good = mid;
		} else {
			bad = mid;
		}
	}
	return b + good;
}

/* smallest s with p[s..e) feasible */
static size_t min_suffix(struct ht__hull_sol *h, const struct ht__fit_pt *p,
			 size_t e)
{
	size_t good = 1, bad, step = 2;

	while (step <= e && ht__hull_sol_run(h, p + e - step, step, SIZE_MAX)) {
		good = step;
		step *= 2;
	}
	if (step > e) {
		if (ht__hull_sol_run(h, p, e, SIZE_MAX)) {
			return 0;
		}
		bad = e;
	} else {
		bad = step;
	}
	while (bad - good > 1) {
		size_t mid = good + (bad - good) / 2;

		if (ht__hull_sol_run(h, p + e - mid, mid, SIZE_MAX)) {
			good = mid;
		} else {
			bad = mid;
		}
	}
	return e - good;
}

/* a piece of a piecewise fit needs MIN_PIECE_PAIRS each way */
static bool enough_pairs(const struct ht__fit_pt *p, size_t n)
{
	size_t i, up = 0;

	for (i = 0; i < n; i++) {
		up += p[i].up;
	}
	return up >= MIN_PIECE_PAIRS && n - up >= MIN_PIECE_PAIRS;
}

/* pairs_up and pairs_down of @f: the pairs each way */
static void count_directions(struct ht_fit_node *f, const struct ht__fit_pt *p,
			     size_t n)
{
	size_t i;

	f->pairs_up = f->pairs_down = 0;
	for (i = 0; i < n; i++) {
		if (p[i].up) {
			f->pairs_up++;
		} else {
			f->pairs_down++;
		}
	}
}

/*
 * "Too fast" pairs: inconsistent with their neighbours (@window on each
 * side), which are consistent without them. Removes them from
 * p[0..*n) and keeps their message indices, sorted, in nf->rejected.
 */
static int reject_too_fast(struct ht__node_fit *nf, struct ht__hull_sol *h,
			   struct ht__fit_pt *p, size_t *n, size_t window)
{
	size_t i, k, i0 = 0, nr_rej = 0;
	bool *rej, prev_ok = false, cur_ok = false;
	int ret = 0;

	rej = calloc(*n, sizeof(*rej));
	if (!rej) {
		return HT_ENOMEM;
	}
	for (i = 0; i < *n; i++) {
		size_t a = i > window ? i - window : 0;
		size_t b = i + window + 1 < *n ? i + window + 1 : *n;

		/* Blocks of 4 half-windows at a stride of 2: the window
		 * of a point in the first half of the stride lies in the
		 * previous block, in the second half in this one; a
		 * consistent block clears them. */
		if (i % (2 * window) == 0) {
			size_t bb = i + 4 * window < *n ? i + 4 * window : *n;

			prev_ok = i > 0 && cur_ok;
			cur_ok = ht__hull_sol_run(h, p + i, bb - i, SIZE_MAX);
			i0 = i;
		}
		if (i - i0 < window && i0 > 0 ? prev_ok : cur_ok) {
			continue;
		}
		if (!ht__hull_sol_run(h, p + a, b - a, SIZE_MAX) &&
		    ht__hull_sol_run(h, p + a, b - a, i - a)) {
			rej[i] = true;
			nr_rej++;
		}
	}
	if (nr_rej) {
		nf->rejected = malloc(nr_rej * sizeof(size_t));
		if (!nf->rejected) {
			ret = HT_ENOMEM;
			goto free_rej;
		}
		for (i = 0, k = 0; i < *n; i++) {
			if (rej[i]) {
				nf->rejected[k++] = p[i].msg;
			} else {
				p[i - k] = p[i];
			}
		}
		*n -= nr_rej;
		qsort(nf->rejected, nr_rej, sizeof(size_t), cmp_size);
	}
	nf->pub.pairs_rejected = nr_rej;
free_rej:
	free(rej);
	return ret;
}

/*
 * The quality of the fit of the pairs p[0..n) left after the
 * rejection, before any piece is cut; *whole_ok when one piece fits
 * them all. Returns false when the fit fails already.
 */
static bool judge_quality(struct ht_fit_node *f, struct ht__hull_sol *h,
			  const struct ht__fit_pt *p, size_t n,
			  const struct ht_fit_opts *opt, bool *whole_ok)
{
	size_t nr_rej = f->pairs_rejected;

	*whole_ok = false;
	if (f->pairs_up == 0 || f->pairs_down == 0) {
		f->quality = HT_FIT_INCOMPLETE;
		*whole_ok = true;
	} else if (n == 0) {
		f->quality = HT_FIT_FAIL;
		return false;
	} else if ((*whole_ok = ht__hull_sol_run(h, p, n, SIZE_MAX))) {
		f->quality = nr_rej || !h->has_min || !h->has_max ||
				     f->pairs_up < 2 || f->pairs_down < 2
				 ? HT_FIT_APPROXIMATE
				 : HT_FIT_ACCURATE;
	} else if (opt && opt->no_piecewise) {
		f->quality = HT_FIT_FAIL;
		return false;
	} else {
		f->quality = nr_rej ? HT_FIT_APPROXIMATE : HT_FIT_ACCURATE;
	}
	return true;
}

/*
 * The chunks of p[0..n), one per piece, into begin[]/end[] (room for
 * @max_segs + 1): maximal feasible chunks from the left; then, from the
 * right, each piece keeps only the pairs that no later chunk can
 * explain, so every piece holds pairs of one true segment. Returns the
 * number of chunks, 0 when more than @max_segs are needed.
 */
static size_t cut_chunks(struct ht__hull_sol *h, const struct ht__fit_pt *p,
			 size_t n, bool whole_ok, size_t max_segs,
			 size_t *begin, size_t *end)
{
	size_t i, k, nr_chunks = 0;

	for (i = 0; i < n;) {
		if (nr_chunks == max_segs) {
			return 0;
		}
		begin[nr_chunks++] = i;
		i = whole_ok ? n : max_prefix(h, p, n, i);
	}
	end[nr_chunks - 1] = n;
	for (k = nr_chunks - 1; k > 0; k--) {
		end[k - 1] = min_suffix(h, p, end[k]);
	}
	return nr_chunks;
}

/* Fits one piece per chunk, the breaks between them and the clamps,
 * and fills the public fit from them. */
static int fit_pieces(struct ht__node_fit *nf, struct ht__hull_sol *h,
		      const struct ht__fit_pt *p, const size_t *begin,
		      const size_t *end, size_t nr_chunks)
{
	struct ht_fit_node *f = &nf->pub;
	size_t k;
	int ret;

	nf->segs = calloc(nr_chunks, sizeof(*nf->segs));
	nf->psegs = calloc(nr_chunks, sizeof(*nf->psegs));
	if (!nf->segs || !nf->psegs) {
		return HT_ENOMEM;
	}
	for (k = 0; k < nr_chunks; k++) {
		struct ht__piece *sg = &nf->segs[k];

		f->nr_segments = k + 1;
		ret = ht__piece_fit(sg, h, p + begin[k], end[k] - begin[k]);
		if (ret) {
			return ret;
		}
		if (nr_chunks > 1 &&
		    (!sg->two_sided ||
		     !enough_pairs(p + begin[k], end[k] - begin[k]))) {
			/* a piece bounded on one side cannot be joined, and
			 * tiny pieces would explain any noise */
			f->quality = HT_FIT_FAIL;
		}
		ht__piece_publish(sg, &nf->psegs[k], end[k] - begin[k]);
	}
	for (k = 0; k + 1 < nr_chunks; k++) {
		ht__break_range(&nf->segs[k], &nf->segs[k + 1]);
	}
	for (k = 0; k < nr_chunks; k++) {
		nf->psegs[k].begin_x =
		    k == 0 ? INT64_MIN
			   : ht__break_at(&nf->psegs[k - 1], &nf->psegs[k]);
		nf->psegs[k].end_x = INT64_MAX;
		if (k > 0) {
			nf->psegs[k - 1].end_x = nf->psegs[k].begin_x;
		}
		f->width_max = max64(f->width_max, nf->psegs[k].width_max);
	}
	ht__fit_clamps(nf);
	f->segments = nf->psegs;
	f->min_line = nf->psegs[0].min_line;
	f->max_line = nf->psegs[0].max_line;
	f->slope = nf->psegs[0].slope;
	f->offset = nf->psegs[0].offset;
	return 0;
}

int ht__edge_solve(struct ht__node_fit *nf, struct ht__fit_pt *p, size_t n,
		   const struct ht_fit_opts *opt)
{
	struct ht_fit_node *f = &nf->pub;
	struct ht__hull_sol h = {0};
	size_t i, window, max_segs, nr_chunks, *begin = NULL, *end = NULL;
	bool whole_ok;
	int ret = 0;

	window =
	    opt && opt->outlier_window ? opt->outlier_window : DEFAULT_WINDOW;
	max_segs =
	    opt && opt->max_segments ? opt->max_segments : DEFAULT_MAX_SEGMENTS;
	count_directions(f, p, n);
	if (n == 0) {
		f->quality = HT_FIT_ABSENT;
		return 0;
	}
	/* sorting makes everything below independent of the add order */
	for (i = 1; i < n && cmp_pt(&p[i - 1], &p[i]) <= 0; i++) {
	}
	if (i < n) {
		ret = sort_pts(p, n);
		if (ret) {
			return ret;
		}
	}
	h.uh = malloc(n * sizeof(*h.uh));
	h.lh = malloc(n * sizeof(*h.lh));
	begin = malloc((max_segs + 1) * sizeof(*begin));
	end = malloc((max_segs + 1) * sizeof(*end));
	if (!h.uh || !h.lh || !begin || !end) {
		ret = HT_ENOMEM;
		goto free_scratch;
	}
	if (!ht__hull_sol_run(&h, p, n, SIZE_MAX) &&
	    !(opt && opt->no_outliers)) {
		ret = reject_too_fast(nf, &h, p, &n, window);
		if (ret) {
			goto free_scratch;
		}
	}
	f->rejected = nf->rejected;
	f->pairs_used = n;
	if (!judge_quality(f, &h, p, n, opt, &whole_ok)) {
		goto free_scratch;
	}
	nr_chunks = cut_chunks(&h, p, n, whole_ok, max_segs, begin, end);
	if (!nr_chunks) {
		f->quality = HT_FIT_FAIL;
		goto free_scratch;
	}
	ret = fit_pieces(nf, &h, p, begin, end, nr_chunks);

free_scratch:
	if (f->quality == HT_FIT_FAIL) {
		f->pairs_used = 0;
	}
	free(begin);
	free(end);
	free(h.uh);
	free(h.lh);
	return ret;
}
