/* SPDX-License-Identifier: MIT */
/* The text form of a message set (fit-pairs.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "fit-pairs.h"

/* Splits the next integer off *pp; false (and why) when there is none
 * or it does not fit. */
static bool next_int(char **pp, long long *v, const char **why)
{
	char *p = *pp, *end;

	while (*p == ' ' || *p == '\t') {
		p++;
	}
	if (!*p) {
		*why = "missing";
		return false;
	}
	errno = 0;
	*v = strtoll(p, &end, 10);
	if (end == p || (*end && !isspace((unsigned char)*end))) {
		*why = "not an integer";
		return false;
	}
	if (errno == ERANGE) {
		*why = "too large";
		return false;
	}
	*pp = end;
	return true;
}

static const char *const field_names[] = {"sender", "receiver", "send_time",
					  "recv_time"};

/* The first line: the number of nodes, 1 to 4096. */
static int parse_nodes(char *p, const char *line, long long *nodes,
		       const char *name, size_t lineno, char *err,
		       size_t errlen)
{
	const char *why = NULL;

	if (!next_int(&p, nodes, &why) || *nodes < 1 || *nodes > 4096 || *p) {
		snprintf(err, errlen,
			 "%s:%zu: expected the number of nodes (1 to 4096), "
			 "got '%s'",
			 name, lineno, line);
		return HT_ESYNTAX;
	}
	return 0;
}

/* A message line: sender receiver send_time recv_time, the nodes among
 * the @nodes of the set. */
static int parse_message(char *p, long long nodes, long long v[4],
			 const char *name, size_t lineno, char *err,
			 size_t errlen)
{
	const char *why = NULL;
	int i;

	for (i = 0; i < 4; i++) {
		if (!next_int(&p, &v[i], &why)) {
			snprintf(err, errlen,
				 "%s:%zu: %s: %s (expected 'sender "
				 "receiver send_time recv_time')",
				 name, lineno, field_names[i], why);
			return HT_ESYNTAX;
		}
	}
	while (*p == ' ' || *p == '\t') {
		p++;
	}
	if (*p) {
		snprintf(err, errlen, "%s:%zu: extra text '%s' after 4 fields",
			 name, lineno, p);
		return HT_ESYNTAX;
	}
	for (i = 0; i < 2; i++) {
		if (v[i] < 0 || v[i] >= nodes) {
			snprintf(err, errlen,
				 "%s:%zu: %s %lld is not a node (0 to %lld)",
				 name, lineno, field_names[i], v[i], nodes - 1);
			return HT_ERANGE;
		}
	}
	return 0;
}

int ht_fit_set_read_pairs(FILE *in, const char *name, struct ht_fit_set **out,
			  size_t **lines, char *err, size_t errlen)
{
	struct ht_fit_set *set = NULL;
	size_t *ln = NULL, nr_ln = 0, cap_ln = 0, lineno = 0;
	char *buf = NULL;
	size_t bufsz = 0;
	long long nodes = 0;
	ssize_t len;
	int ret = 0;

	*out = NULL;
	*lines = NULL;
	while ((len = getline(&buf, &bufsz, in)) >= 0) {
		long long v[4];
		char *p = buf;

		lineno++;
		while (len > 0 && isspace((unsigned char)buf[len - 1])) {
			buf[--len] = '\0';
		}
		while (*p == ' ' || *p == '\t') {
			p++;
		}
		if (!*p || *p == '#') {
			continue;
		}
		if (!set) {
			ret = parse_nodes(p, buf, &nodes, name, lineno, err,
					  errlen);
			if (ret) {
				goto fail;
			}
			set = ht_fit_set_create((unsigned)nodes);
			if (!set) {
				ret = HT_ENOMEM;
				snprintf(err, errlen, "%s: out of memory",
					 name);
				goto fail;
			}
			continue;
		}
		ret = parse_message(p, nodes, v, name, lineno, err, errlen);
		if (ret) {
			goto fail;
		}
		ret = ht_fit_set_add_message(set, (unsigned)v[0],
					     (unsigned)v[1], v[2], v[3]);
		if (ret) {
			snprintf(err, errlen, "%s:%zu: %s", name, lineno,
				 ht_fit_set_last_error(set));
			goto fail;
		}
		if (ht_array_reserve((void **)&ln, &cap_ln, nr_ln + 1,
				     sizeof(*ln))) {
			ret = HT_ENOMEM;
			snprintf(err, errlen, "%s: out of memory", name);
			goto fail;
		}
		ln[nr_ln++] = lineno;
	}
	if (ferror(in)) {
		snprintf(err, errlen, "%s:%zu: read error", name, lineno);
		ret = HT_EIO;
		goto fail;
	}
	if (!set) {
		snprintf(err, errlen,
			 "%s:%zu: no node count (the first line that is not a "
			 "comment)",
			 name, lineno);
		ret = HT_ESYNTAX;
		goto fail;
	}
	free(buf);
	*out = set;
	*lines = ln;
	return 0;

fail:
	free(buf);
	free(ln);
	ht_fit_set_destroy(set);
	return ret;
}
