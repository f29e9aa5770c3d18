/* SPDX-License-Identifier: MIT */
/* Durations and timestamps as text (common/time-format.h). */
#include <inttypes.h>
#include <stdio.h>

#include "time-format.h"

const char *ht_time_format_duration(char *buf, size_t len, uint64_t ns)
{
	static const struct {
		uint64_t div;
		const char *unit;
	} units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t div = units[i].div, milli;

		if (ns < div) {
			continue;
		}
		/* thousandths of the unit, rounded to nearest; past
		 * UINT64_MAX / 1000 ns (213 days) truncated */
		milli = ns > UINT64_MAX / 1000 ? ns / (div / 1000)
					       : (ns * 1000 + div / 2) / div;
		if (i > 0 && milli >= 1000000) {
			/* rounded up to the next unit: 999.9996 us is
			 * 1.000 ms */
			milli /= 1000;
			i--;
		}
		snprintf(buf, len, "%" PRIu64 ".%03" PRIu64 " %s", milli / 1000,
			 milli % 1000, units[i].unit);
		return buf;
	}
	snprintf(buf, len, "%" PRIu64 " ns", ns);
	return buf;
}

const char *ht_time_format_timestamp(char *buf, size_t len, int64_t ns)
{
	uint64_t m = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	snprintf(buf, len, "%s%" PRIu64 ".%09" PRIu64, ns < 0 ? "-" : "",
		 m / 1000000000u, m % 1000000000u);
	return buf;
}
