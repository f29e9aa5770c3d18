/* SPDX-License-Identifier: MIT */
#ifndef HT_COMMON_TIME_FORMAT_H
#define HT_COMMON_TIME_FORMAT_H

/*
 * Times as every text view prints them (states, profile, paths, info,
 * the sync table, the demo): one form for a duration, one for a
 * timestamp. Knows nothing of traces or clocks: nanoseconds in, text
 * out.
 *
 * - A duration: the largest unit that keeps it at 1 or more (s, ms,
 *   us), three decimals rounded to nearest, or whole ns below 1 us:
 *   "850 ns", "1.500 us", "3.280 ms", "2.000 s".
 * - A timestamp (from the clock's origin): seconds with nine decimals,
 *   exact, babeltrace2's form without brackets: "12.000345678",
 *   "-0.000000100".
 */
#include <stddef.h>
#include <stdint.h>

/* Room for either form of any value, with its terminating NUL. */
#define HT_TIME_FORMAT_LEN 32

/* Writes duration @ns into @buf (@len bytes); returns @buf. */
const char *ht_time_format_duration(char *buf, size_t len, uint64_t ns);

/* Writes timestamp @ns into @buf (@len bytes); returns @buf. */
const char *ht_time_format_timestamp(char *buf, size_t len, int64_t ns);

#endif
