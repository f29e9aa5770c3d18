/* SPDX-License-Identifier: MIT */
/*
 * The Sobel filter the slaves run on their stripes (sobel.h). Built with
 * -finstrument-functions: sim_sobel_stripe() and sobel_row() are traced
 * (func_entry/func_exit) and profiled on the core; sobel_gradient(), the
 * per-pixel helper, is excluded by name in the Makefile so that a frame
 * costs one record pair per row, not per pixel. Plain C99: it is the
 * code a DSP would run.
 */
#include <stdint.h>
#include <string.h>

#include "sobel.h"

/* |Gx| + |Gy| at (x, y), saturated to 255. Not instrumented. */
static uint32_t sobel_gradient(const uint8_t (*img)[SIM_WIDTH], uint32_t x,
			       uint32_t y)
{
	int gx = img[y - 1][x + 1] + 2 * img[y][x + 1] + img[y + 1][x + 1] -
		 img[y - 1][x - 1] - 2 * img[y][x - 1] - img[y + 1][x - 1];
	int gy = img[y + 1][x - 1] + 2 * img[y + 1][x] + img[y + 1][x + 1] -
		 img[y - 1][x - 1] - 2 * img[y - 1][x] - img[y - 1][x + 1];
	int g = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);

	return (uint32_t)(g > 255 ? 255 : g);
}

/* One row of the edge image; returns its strong edges. */
static uint32_t sobel_row(const uint8_t (*img)[SIM_WIDTH], uint8_t *out,
			  uint32_t y)
{
	uint32_t x, g, n = 0;

	if (y == 0 || y + 1 >= SIM_HEIGHT) {
		/* The border rows have no neighbours: no edge. */
		memset(out, 0, SIM_WIDTH);
		return 0;
	}
	out[0] = out[SIM_WIDTH - 1] = 0;
	for (x = 1; x + 1 < SIM_WIDTH; x++) {
		g = sobel_gradient(img, x, y);
		out[x] = (uint8_t)g;
		n += g > 128;
	}
	return n;
}

uint32_t sim_sobel_stripe(const struct sim_sobel_stripe *s)
{
	uint32_t y, edges = 0;

	for (y = s->row0; y < s->row0 + s->rows && y < SIM_HEIGHT; y++) {
		if (s->at_row && y == s->at_row_y) {
			s->at_row(s->arg);
		}
		edges += sobel_row(s->img, s->out[y], y);
	}
	return edges;
}
