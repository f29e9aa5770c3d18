/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_FIT_PAIRS_H
#define HT_HOST_FIT_PAIRS_H

/*
 * The text form of a message set (`hetrace hull` input):
 *
 *	# comment lines start with '#'; blank lines are ignored
 *	3                       <- the number of nodes (node 0: reference)
 *	0 1 1000 52             <- sender receiver send_time recv_time
 *	1 0 60 1107
 *
 * Integers are decimal, times in each node's own unit, in (-2^62, 2^62).
 */
#include <stddef.h>
#include <stdio.h>

#include "clock-fit.h"

/*
 * Reads a message set from `in` (`name` is used in messages). On
 * success *out is a new set (ht_fit_set_destroy() it) and *lines (free()
 * it) holds the input line number of each message, by message index.
 * On failure returns HT_ESYNTAX, HT_ERANGE, HT_EIO or HT_ENOMEM and
 * writes "NAME:LINE: what is wrong" into err.
 */
int ht_fit_set_read_pairs(FILE *in, const char *name, struct ht_fit_set **out,
			  size_t **lines, char *err, size_t errlen);

#endif
