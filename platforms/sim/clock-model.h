/* SPDX-License-Identifier: MIT */
#ifndef HT_SIM_CLOCK_MODEL_H
#define HT_SIM_CLOCK_MODEL_H

/*
 * The clock of a simulated core: a counter driven by the master's
 * reference clock t (CLOCK_MONOTONIC_RAW, ns) through exact piecewise
 * linear segments. In segment i (from_ns[i] <= t < from_ns[i + 1]):
 *
 *   ticks(t) = ticks[i] + floor((t - from_ns[i]) * rate_num[i] / rate_den[i])
 *
 * ticks(t) is the unwrapped counter; the core's hardware counter reads
 * its low `bits` bits. A crystal of nominal frequency f with a drift of
 * d ppb ticks f * (1e9 + d) / 1e18 times per ns: rate_num = f * (1e9 + d),
 * rate_den = 1e18 (exact integers, docs/sim.md). A frequency step (DVFS)
 * starts a new segment at the exact tick count the previous one reached.
 */
#include <stdint.h>

#define SIM_CLOCK_MAX_SEGS 2u
#define SIM_PPB_DEN 1000000000000000000ull /* 1e18: rate_den */

struct sim_clock_seg {
	uint64_t from_ns;  /* reference time the segment starts at */
	uint64_t ticks;	   /* unwrapped counter at from_ns */
	uint64_t rate_num; /* ticks per ns = rate_num / rate_den */
	uint64_t rate_den;
	uint64_t freq_hz; /* nominal frequency in this segment */
};

struct sim_clock_model {
	uint32_t bits;	  /* counter width: 32 (64 for the reference) */
	uint32_t nr_segs; /* 1, or 2 for the core whose frequency steps */
	int64_t drift_ppb;
	struct sim_clock_seg seg[SIM_CLOCK_MAX_SEGS];
};

/*
 * Sets up a crystal clock of @freq_hz with @drift_ppb, whose unwrapped
 * counter reads @start_ticks at reference time @t0_ns. When @step_hz is
 * not 0 the frequency becomes @step_hz (same drift) at @step_ns > @t0_ns.
 */
void sim_clock_model_init(struct sim_clock_model *m, uint64_t t0_ns,
			  uint64_t freq_hz, int64_t drift_ppb,
			  uint64_t start_ticks, uint32_t bits, uint64_t step_ns,
			  uint64_t step_hz);

/* The unwrapped counter at reference time @t_ns (>= seg[0].from_ns). */
uint64_t sim_clock_ticks(const struct sim_clock_model *m, uint64_t t_ns);

/* The reference clock: CLOCK_MONOTONIC_RAW in ns. */
uint64_t sim_ref_now_ns(void);

/* Sleeps @ns nanoseconds (a master's poll and settle waits). */
void sim_ref_sleep_ns(uint64_t ns);

#endif
