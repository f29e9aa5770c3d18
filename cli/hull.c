/* SPDX-License-Identifier: MIT */
/* hetrace-command: 35 hull: convex-hull clock fit of raw message pairs */
/*
 * hetrace hull [FILE]: reads messages (host/sync/fit-pairs.h), fits every
 * node to its parent in the tree rooted at node 0 (host/sync/clock-fit.h)
 * and prints, per node: quality, the min- and max-slope lines, the
 * estimate, the bound width, the pieces and the rejected pairs.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "host/sync/clock-fit.h"
#include "common/error.h"
#include "host/sync/fit-pairs.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: %s [OPTIONS] [FILE]\n\n"
	    "Fits clocks from message pairs by the convex-hull method.\n"
	    "Input (FILE or stdin): '#' comment lines, then the number of\n"
	    "nodes (node 0 is the reference), then one message per line:\n"
	    "  sender receiver send_time recv_time\n"
	    "each time in its own node's integer unit (ns, ticks...).\n"
	    "Prints per node its fit to its parent: quality, min- and\n"
	    "max-slope lines (exactly, through two points, and as slope\n"
	    "and offset), the estimate (mean of the two lines), the\n"
	    "largest bound width over the pairs, the linear pieces and\n"
	    "the rejected (too fast) pairs by input line.\n\n"
	    "options:\n"
	    "      --reference N   reference node (default 0)\n"
	    "  -R, --rate N=HZ     nominal rate of node N (for drift in ppm)\n"
	    "      --window N      pairs each side when judging a pair "
	    "too fast (8)\n"
	    "      --no-outliers   never exclude pairs\n"
	    "      --no-piecewise  never split into pieces\n"
	    "  -h, --help          this help\n\n"
	    "exit: 0 every node fitted, 1 bad input or a node absent /\n"
	    "failed, 2 usage error\n",
	    ht_cli_prog);
}

static void print_line(const char *what, const struct ht_fit_line *l)
{
	if (!l->valid) {
		printf("  %s: none (no pair bounds it)\n", what);
		return;
	}
	printf("  %s: slope %.12f offset %.3f through (%" PRId64 ", %" PRId64
	       ") (%" PRId64 ", %" PRId64 ")\n",
	       what, ht_fit_line_slope(l), ht_fit_line_offset(l), l->x0, l->y0,
	       l->x1, l->y1);
}

static void print_width(int64_t w)
{
	if (w == INT64_MAX) {
		printf("unbounded (one side only)");
	} else {
		printf("%" PRId64, w);
	}
}

static void print_x(int64_t x)
{
	if (x == INT64_MIN) {
		printf("-inf");
	} else if (x == INT64_MAX) {
		printf("+inf");
	} else {
		printf("%" PRId64, x);
	}
}

static const char *status_of(const struct ht_fit_node *f)
{
	switch (f->quality) {
	case HT_FIT_ACCURATE:
		return f->nr_segments > 1
			   ? "both directions; the rate changes: linear "
			     "pieces, continuous at the breaks"
			   : "both directions, every pair consistent";
	case HT_FIT_APPROXIMATE:
		return f->pairs_rejected
			   ? "hulls crossed; consistent once the too-fast "
			     "pairs were excluded"
			   : "few pairs or a slope bounded on one side only";
	case HT_FIT_INCOMPLETE:
		return f->pairs_up
			   ? "only child->parent messages: upper bound only"
			   : "only parent->child messages: lower bound "
			     "only";
	case HT_FIT_ABSENT:
		return "no messages link it to the reference";
	case HT_FIT_FAIL:
		return "the hulls cross and no line fits, even piecewise";
	default:
		return "";
	}
}

static void print_fit(const struct ht_fit_node *f, const size_t *lines)
{
	size_t i;

	if (f->parent < 0) {
		printf("node %u: %s: %s\n", f->node,
		       ht_fit_quality_name(f->quality), status_of(f));
		return;
	}
	printf("node %u (parent %d): %s: %s\n", f->node, f->parent,
	       ht_fit_quality_name(f->quality), status_of(f));
	printf("  pairs: %zu child->parent, %zu parent->child, %zu used, %zu "
	       "rejected\n",
	       f->pairs_up, f->pairs_down, f->pairs_used, f->pairs_rejected);
	if (f->pairs_rejected) {
		printf("  rejected (receive before send under every fit of "
		       "the others): line");
		for (i = 0; i < f->pairs_rejected; i++) {
			printf(" %zu", lines[f->rejected[i]]);
		}
		printf("\n");
	}
	if (f->nr_segments == 0) {
		return;
	}
	print_line("min-slope line", &f->min_line);
	print_line("max-slope line", &f->max_line);
	printf("  estimate: slope %.12f offset %.3f drift %+.3f ppm\n",
	       f->slope, f->offset, f->drift_ppm);
	printf("  bound width: ");
	print_width(f->width_max);
	printf(" (largest over the pairs, parent units)\n");
	if (f->nr_segments < 2) {
		return;
	}
	printf("  pieces: %zu\n", f->nr_segments);
	for (i = 0; i < f->nr_segments; i++) {
		const struct ht_fit_segment *s = &f->segments[i];

		printf("  piece %zu: from ", i);
		print_x(s->begin_x);
		printf(" to ");
		print_x(s->end_x);
		printf(", %zu pairs in [%" PRId64 ", %" PRId64 "]\n", s->pairs,
		       s->first_x, s->last_x);
		print_line("  min-slope line", &s->min_line);
		print_line("  max-slope line", &s->max_line);
		printf("    estimate: slope %.12f offset %.3f, bound width ",
		       s->slope, s->offset);
		print_width(s->width_max);
		printf("\n");
	}
}

/* What the options ask for. */
struct hull_args {
	struct ht_fit_opts opts;
	struct {
		unsigned node;
		uint64_t hz;
	} rates[64];
	unsigned nr_rates;
	uint64_t reference, window;
};

/* --rate NODE=HZ, repeatable. */
static int rate_opt(const struct ht_cli_opt *opt, const char *arg)
{
	struct hull_args *a = opt->to.arg;
	const char *eq = strchr(arg, '=');
	char num[24];
	uint64_t n;

	if (a->nr_rates == 64) {
		fprintf(stderr, "%s: --rate: more than 64\n", ht_cli_prog);
		return HT_EXIT_USAGE;
	}
	if (eq && (size_t)(eq - arg) < sizeof(num)) {
		memcpy(num, arg, (size_t)(eq - arg));
		num[eq - arg] = '\0';
	}
	if (!eq || (size_t)(eq - arg) >= sizeof(num) ||
	    !ht_cli_uint_value(num, 0, UINT_MAX, &n) ||
	    !ht_cli_uint_value(eq + 1, 1, UINT64_MAX - 1,
			       &a->rates[a->nr_rates].hz)) {
		fprintf(stderr,
			"%s: --rate: expected NODE=HZ (a node, a clock rate "
			"of 1 Hz or more), got '%s'\n",
			ht_cli_prog, arg);
		return HT_EXIT_USAGE;
	}
	a->rates[a->nr_rates++].node = (unsigned)n;
	return HT_CLI_GO_ON;
}

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct hull_args *a,
			 struct ht_cli_args *file)
{
	const struct ht_cli_opt table[] = {
	    HT_CLI_UINT(0, "reference", &a->reference, 0, UINT_MAX, "a node"),
	    HT_CLI_CALL('R', "rate", rate_opt, a),
	    HT_CLI_UINT(0, "window", &a->window, 1, 1000, "a number of pairs"),
	    HT_CLI_FLAG(0, "no-outliers", &a->opts.no_outliers),
	    HT_CLI_FLAG(0, "no-piecewise", &a->opts.no_piecewise),
	    HT_CLI_OPT_END,
	};
	int ret;

	ret = ht_cli_parse(argc, argv, table, 0, usage, file);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	if (file->nr > 1) {
		return ht_cli_usage_error(
		    usage, "one FILE expected, got also '%s'", file->v[1]);
	}
	/* not given: 0, the solver's default */
	a->opts.outlier_window = (unsigned)a->window;
	return HT_CLI_GO_ON;
}

/* The pairs of FILE, or of stdin without FILE or with "-", and the
 * input line of each. Returns HT_EXIT_OK, or HT_EXIT_FAIL after a
 * message. */
static int read_pairs(const struct ht_cli_args *file, const char **name,
		      struct ht_fit_set **set, size_t **lines)
{
	FILE *in = stdin;
	char err[512];
	int ret;

	*name = "<stdin>";
	if (file->nr && strcmp(file->v[0], "-")) {
		*name = file->v[0];
		in = fopen(*name, "r");
		if (!in) {
			fprintf(stderr, "%s: cannot open %s: %m\n", ht_cli_prog,
				*name);
			return HT_EXIT_FAIL;
		}
	}
	ret = ht_fit_set_read_pairs(in, *name, set, lines, err, sizeof(err));
	if (in != stdin) {
		fclose(in);
	}
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		return HT_EXIT_FAIL;
	}
	return HT_EXIT_OK;
}

int cmd_hull(int argc, char **argv)
{
	struct hull_args a = {0};
	struct ht_cli_args file;
	struct ht_fit_set *set = NULL;
	const char *name;
	size_t *lines = NULL;
	unsigned i, nodes, reference;
	int ret, status = HT_EXIT_OK;

	ret = parse_options(argc, argv, &a, &file);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	reference = (unsigned)a.reference;
	if (read_pairs(&file, &name, &set, &lines)) {
		return HT_EXIT_FAIL;
	}
	nodes = ht_fit_set_nr_nodes(set);
	if (reference >= nodes) {
		fprintf(stderr,
			"%s: %s: reference %u is not a node (0 to %u)\n",
			ht_cli_prog, name, reference, nodes - 1);
		status = HT_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < a.nr_rates; i++) {
		if (ht_fit_set_node_rate(set, a.rates[i].node, a.rates[i].hz)) {
			fprintf(stderr,
				"%s: --rate: %u is not a node (0 to %u)\n",
				ht_cli_prog, a.rates[i].node, nodes - 1);
			status = HT_EXIT_USAGE;
			goto out;
		}
	}
	ret = ht_fit_set_solve(set, reference, &a.opts);
	if (ret) {
		fprintf(stderr, "%s: %s: %s\n", ht_cli_prog, name,
			ht_fit_set_last_error(set));
		status = HT_EXIT_FAIL;
		goto out;
	}
	printf("%u nodes, reference %u, %zu messages\n", nodes, reference,
	       ht_fit_set_nr_messages(set));
	for (i = 0; i < nodes; i++) {
		const struct ht_fit_node *f = ht_fit_set_get_node(set, i);

		if (i == reference) {
			continue;
		}
		print_fit(f, lines);
		if (f->quality == HT_FIT_ABSENT || f->quality == HT_FIT_FAIL) {
			status = HT_EXIT_FAIL;
		}
	}
out:
	free(lines);
	ht_fit_set_destroy(set);
	return status;
}
