/* SPDX-License-Identifier: MIT */
#ifndef HT_COMMON_TIME_SPEC_H
#define HT_COMMON_TIME_SPEC_H

/*
 * Times given on the command line (--begin, --end, --timerange), in
 * babeltrace2's syntax (babeltrace2-filter.utils.trimmer(7)) plus a
 * form relative to the first time of the trace:
 *
 *   YYYY-MM-DD HH:MM[:SS[.NANO]]   a date and a time of day
 *   HH:MM[:SS[.NANO]]              a time of day, on the date of the
 *                                  trace's first time
 *   [-]SEC[.NANO]                  seconds from the clock's origin
 *   +NUMBER[UNIT]                  after the trace's first time; NUMBER
 *                                  is [digits][.digits], UNIT one of s
 *                                  (the default), ms, us, ns
 *
 * Dates and times of day are in the local time zone, or in UTC (GMT)
 * when asked, as babeltrace2 takes them. NANO is up to nine digits.
 * Parsing knows nothing of traces: a time of day and a relative time are
 * resolved against the trace's first time by ht_time_spec_resolve().
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ht_time_spec_kind {
	HT_TIME_SPEC_NONE = 0, /* not given */
	HT_TIME_SPEC_ORIGIN,   /* [-]SEC[.NANO] */
	HT_TIME_SPEC_DAY,      /* HH:MM[:SS[.NANO]] */
	HT_TIME_SPEC_DATE,     /* YYYY-MM-DD HH:MM[:SS[.NANO]] */
	HT_TIME_SPEC_RELATIVE, /* +NUMBER[UNIT] */
};

struct ht_time_spec {
	enum ht_time_spec_kind kind;
	/* ORIGIN: ns from the origin; DAY, DATE: ns into the day;
	 * RELATIVE: ns after the first time */
	int64_t ns;
	int year, month, day; /* DATE */
};

/*
 * Parses @text into @spec. Returns 0, or HT_EINVAL with *@bad_at the
 * 0-based position of the first character that does not fit (the
 * length of @text when it ends too early) and *@why a short reason.
 */
int ht_time_spec_parse(const char *text, struct ht_time_spec *spec,
		       size_t *bad_at, const char **why);

/*
 * Parses "BEGIN,END" or "[BEGIN,END]" (babeltrace2's --timerange).
 * Positions are in @text. Same returns.
 */
int ht_time_spec_parse_range(const char *text, struct ht_time_spec *begin,
			     struct ht_time_spec *end, size_t *bad_at,
			     const char **why);

/*
 * The time @spec names, in ns from the clock's origin: a time of day
 * on the date of @first_ns (ns from the origin, taken as Unix time),
 * a relative time after @first_ns; local time unless @gmt. Returns 0
 * or HT_ERANGE when the time is out of int64_t ns or the date cannot
 * be converted.
 */
int ht_time_spec_resolve(const struct ht_time_spec *spec, int64_t first_ns,
			 bool gmt, int64_t *ns);

#endif
