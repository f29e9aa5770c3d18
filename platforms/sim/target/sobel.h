/* SPDX-License-Identifier: MIT */
#ifndef HT_SIM_SOBEL_H
#define HT_SIM_SOBEL_H

/*
 * The slaves' Sobel filter (docs/sim.md, "Function tracing"). sobel.c is
 * the one file of the board compiled with -finstrument-functions (the
 * Makefile says so): every call of sim_sobel_stripe() and of its per-row
 * function is recorded as func_entry/func_exit in the slave's stream;
 * the per-pixel helper is left out by gcc's
 * -finstrument-functions-exclude-function-list. Per stripe of R rows:
 * 1 call of sim_sobel_stripe, R calls of sobel_row.
 */
#include <stdint.h>

#include "platforms/sim/board.h"

struct sim_sobel_stripe {
	const uint8_t (*img)[SIM_WIDTH]; /* SIM_HEIGHT rows */
	uint8_t (*out)[SIM_WIDTH];	 /* SIM_HEIGHT rows */
	uint32_t row0;
	uint32_t rows; /* rows [row0, row0 + rows), clipped to the image */
	/*
	 * Called (not instrumented: slave.c) before row @at_row is
	 * filtered, when @at_row is in the stripe; NULL: never.
	 */
	void (*at_row)(void *arg);
	uint32_t at_row_y;
	void *arg;
};

/* Filters the stripe; returns its strong edges (gradient above 128). */
uint32_t sim_sobel_stripe(const struct sim_sobel_stripe *s);

#endif
