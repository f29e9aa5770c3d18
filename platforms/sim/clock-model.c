/* SPDX-License-Identifier: MIT */
/* The simulated cores' clocks (clock-model.h). */
#include <time.h>

#include "clock-model.h"

typedef unsigned __int128 u128;

static uint64_t seg_ticks(const struct sim_clock_seg *s, uint64_t t_ns)
{
	/* (t - from) < 2^64 and rate_num < 2^64: the product fits 128 bits. */
	u128 dt = t_ns - s->from_ns;

	return s->ticks + (uint64_t)(dt * s->rate_num / s->rate_den);
}

void sim_clock_model_init(struct sim_clock_model *m, uint64_t t0_ns,
			  uint64_t freq_hz, int64_t drift_ppb,
			  uint64_t start_ticks, uint32_t bits, uint64_t step_ns,
			  uint64_t step_hz)
{
	uint64_t ppb = (uint64_t)(1000000000 + drift_ppb);

	m->bits = bits;
	m->drift_ppb = drift_ppb;
	m->nr_segs = 1;
	m->seg[0].from_ns = t0_ns;
	m->seg[0].ticks = start_ticks;
	m->seg[0].rate_num = freq_hz * ppb;
	m->seg[0].rate_den = SIM_PPB_DEN;
	m->seg[0].freq_hz = freq_hz;
	if (step_hz && step_ns > t0_ns) {
		m->nr_segs = 2;
		m->seg[1].from_ns = step_ns;
		m->seg[1].ticks = seg_ticks(&m->seg[0], step_ns);
		m->seg[1].rate_num = step_hz * ppb;
		m->seg[1].rate_den = SIM_PPB_DEN;
		m->seg[1].freq_hz = step_hz;
	}
}

uint64_t sim_clock_ticks(const struct sim_clock_model *m, uint64_t t_ns)
{
	uint32_t i = m->nr_segs - 1u;

	while (i > 0 && t_ns < m->seg[i].from_ns) {
		i--;
	}
	if (t_ns < m->seg[0].from_ns) {
		return m->seg[0].ticks;
	}
	return seg_ticks(&m->seg[i], t_ns);
}

uint64_t sim_ref_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void sim_ref_sleep_ns(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000u),
			      (long)(ns % 1000000000u)};

	nanosleep(&ts, NULL);
}
