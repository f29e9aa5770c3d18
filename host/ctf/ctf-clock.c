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

int ht_ctf_clock_cycles_to_ns(const struct ht_ctf_clock *clk, uint64_t cycles,
			      int64_t *ns_from_origin)
{
	int64_t off_s = clk->offset_s, base;
	int64_t off_c = clk->offset_cycles;
	uint64_t freq = clk->freq_hz ? clk->freq_hz : 1;
	uint64_t vns;

	/* normalize the offset: 0 <= offset cycles < freq */
	if (off_c >= 0) {
		off_s += off_c / (int64_t)(freq > INT64_MAX ? INT64_MAX : freq);
		off_c %= (int64_t)(freq > INT64_MAX ? INT64_MAX : freq);
	} else {
		int64_t f = freq > INT64_MAX ? INT64_MAX : (int64_t)freq;
		int64_t secs = (-off_c + f - 1) / f;

		off_s -= secs;
		off_c += secs * f;
	}
	if (__builtin_mul_overflow(off_s, INT64_C(1000000000), &base)) {
		return HT_ERANGE;
	}
	base += (int64_t)ns_from_value(freq, (uint64_t)off_c);
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
	if (c) {
		sc->base_ok = !ht_ctf_clock_cycles_to_ns(c, 0, &sc->base_ns);
		sc->freq_d = (double)c->freq_hz;
	}
}
