/* SPDX-License-Identifier: MIT */
/* The tracepoint provider of the LTTng-UST print test (ust-app.c). */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER hetrace_test

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./ust-tp.h"

#if !defined(TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_ENUM(
    hetrace_test, color,
    LTTNG_UST_TP_ENUM_VALUES(lttng_ust_field_enum_value("RED", 0)
				 lttng_ust_field_enum_range("GREEN", 1, 5)
				     lttng_ust_field_enum_auto("BLUE")))

LTTNG_UST_TRACEPOINT_EVENT(
    hetrace_test, ev,
    LTTNG_UST_TP_ARGS(int, i, const char *, s, double, d, float, f, const int *,
		      arr, size_t, n),
    LTTNG_UST_TP_FIELDS(
	lttng_ust_field_integer(int, i, i) lttng_ust_field_integer_hex(
	    int, ihex, i) lttng_ust_field_integer(unsigned long, ul,
						  (unsigned long)i * 3)
	    lttng_ust_field_integer_network(int, inet,
					    i) lttng_ust_field_string(s, s)
		lttng_ust_field_float(double, d, d) lttng_ust_field_float(
		    float, f, f) lttng_ust_field_array(int, arr, arr, 3)
		    lttng_ust_field_sequence(int, seq, arr, size_t, n)
			lttng_ust_field_sequence_text(
			    char, seqtext, s, size_t,
			    n + 1) lttng_ust_field_integer_hex(uint8_t, u8hex,
							       (uint8_t)i)
			    lttng_ust_field_integer(
				int64_t, big, (int64_t)i * -123456789012LL)
				lttng_ust_field_array_text(char, arrtext, s, 4)
				    lttng_ust_field_enum(hetrace_test, color,
							 int, col, i % 8)))

LTTNG_UST_TRACEPOINT_EVENT(hetrace_test, simple, LTTNG_UST_TP_ARGS(int, i),
			   LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, i,
								       i)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(hetrace_test, simple,
			      LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

#endif

#include <lttng/tracepoint-event.h>
