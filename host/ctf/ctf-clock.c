/* SPDX-License-Identifier: MIT */
/*
 * The clock classes' math: cycles of a clock -> ns from its origin,
 * with babeltrace2's double arithmetic for equal output, and the
 * per-stream-class constants that make the common case of it a few
 * instructions (ht__stream_class_to_ns(), ctf-model.h).
 */
#include "ctf-model.h"
#include "common/error.h"

static uint64_t ns_from_value(uint64_t freq, uint64_t cycles)
{
	double d;

	if (freq == UINT64_C(1000000000)) {
		return cycles;
	}
	/* the same double arithmetic as babeltrace2, for equal output */
	d = (1e9 * (double)cycles) / (double)freq;
	if (d >= (double)UINT64_MAX) {
		return UINT64_MAX;
	}
	return (uint64_t)d;
}

/*
 * The offset is computed in 128 bits: offset_s and offset are any
 * int64_t, so the seconds after normalization need 65 bits and their
 * nanoseconds 95; the result is then checked against the int64_t range.
 * (babeltrace2 refuses offset_s from 9223372035 on, a second short of
 * the limit; an offset that fits is taken here.)
 */
int ht__clock_offset_ns(const struct ht_ctf_clock *clk, int64_t *ns)
{
	__int128 freq = clk->freq_hz ? clk->freq_hz : 1;
	__int128 secs, cycles, total;

	/* normalize as babeltrace2 does: 0 <= offset cycles < freq, the
	 * whole seconds (floor, for a negative offset) moved to offset_s */
	secs = clk->offset_cycles / freq;
	cycles = clk->offset_cycles % freq;
	if (cycles < 0) {
		secs--;
		cycles += freq;
	}
	secs += clk->offset_s;
	total =
	    secs * 1000000000 + ns_from_value((uint64_t)freq, (uint64_t)cycles);
	if (total < INT64_MIN || total > INT64_MAX) {
		return HT_ERANGE;
	}
	*ns = (int64_t)total;
	return 0;
}

int ht_ctf_clock_cycles_to_ns(const struct ht_ctf_clock *clk, uint64_t cycles,
			      int64_t *ns_from_origin)
{
	uint64_t freq = clk->freq_hz ? clk->freq_hz : 1;
	uint64_t vns;
	int64_t base;

	if (ht__clock_offset_ns(clk, &base)) {
		return HT_ERANGE;
	}
	/* babeltrace2's limits: the value alone below INT64_MAX ns, the
	 * sum an int64_t (with base <= 0 it cannot overflow) */
	vns = ns_from_value(freq, cycles);
	if (vns >= (uint64_t)INT64_MAX) {
		return HT_ERANGE;
	}
	if (base > 0 && (int64_t)vns > INT64_MAX - base) {
		return HT_ERANGE;
	}
	*ns_from_origin = base + (int64_t)vns;
	return 0;
}

void ht__stream_class_clock_init(struct ht__stream_class *sc)
{
	const struct ht_ctf_clock *c = sc->pub.default_clock;

	sc->clock_is_ns = c && c->freq_hz == 1000000000;
	sc->max_cycles = 0;
	if (c) {
		uint64_t lo = 0, hi = UINT64_MAX;
		int64_t ns;

		sc->base_ok = !ht__clock_offset_ns(c, &sc->base_ns);
		sc->freq_d = (double)c->freq_hz;
		/* the values with a time are a prefix of the cycles (the
		 * conversion is monotonic): its end by bisection */
		if (!sc->base_ok || ht_ctf_clock_cycles_to_ns(c, 0, &ns)) {
			return;
		}
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2 + 1;

			if (ht_ctf_clock_cycles_to_ns(c, mid, &ns)) {
				hi = mid - 1;
			} else {
				lo = mid;
			}
		}
		sc->max_cycles = lo;
	}
}
