/* SPDX-License-Identifier: MIT */
#ifndef HT_TESTS_SYNC_SYNTH_H
#define HT_TESTS_SYNC_SYNTH_H

/*
 * Synthetic clocks with exactly known truth, for the clock-sync tests
 * and bench/sync.sh. True time T is the reference's clock in ns
 * (integers). A node's continuous clock is piecewise linear in T:
 * value * den = cn[k] + (T - T[k]) * num[k] on piece k, so truth is an
 * exact rational; a reading is its floor.
 */
#include <stdbool.h>
#include <stdint.h>

#include "host/sync/clock-fit.h"

typedef __int128 s_i128;

struct sclock {
	int np; /* pieces: 1, or 2 for a rate step at T[1] */
	int64_t T[2];
	s_i128 cn[2], num[2], den;
	int64_t noise; /* +-noise ticks on every reading (breaks the model) */
};

static uint64_t s_rng = 0x9e3779b97f4a7c15ull;

static inline uint64_t s_rand(void)
{
	/* splitmix64 */
	uint64_t z = (s_rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [0, n) */
static inline uint64_t s_below(uint64_t n)
{
	return n ? s_rand() % n : 0;
}

/* a delay: min_ns plus an exponential-ish tail of mean mean_ns */
static inline int64_t s_delay(int64_t min_ns, int64_t mean_ns)
{
	/* -ln(u) * mean by a cheap integer approximation: sum of halvings */
	uint64_t u = s_rand();
	int64_t d = 0;

	while ((u & 1) && d < 40 * mean_ns) {
		d += mean_ns;
		u >>= 1;
	}
	return min_ns + d + (int64_t)s_below((uint64_t)mean_ns + 1);
}

static inline s_i128 s_floordiv(s_i128 a, s_i128 b)
{
	s_i128 q = a / b;

	if ((a % b != 0) && ((a < 0) != (b < 0))) {
		q--;
	}
	return q;
}

/*
 * A clock of freq_hz with a drift of ppm_milli thousandths of a ppm and
 * value `offset` at T = T0.
 */
static inline struct sclock s_clock(uint64_t freq_hz, int64_t ppm_milli,
				    int64_t T0, int64_t offset)
{
	struct sclock c = {0};

	c.np = 1;
	c.den = (s_i128)1000000000 * 1000000000;
	c.num[0] = (s_i128)freq_hz * (1000000000 + ppm_milli);
	c.T[0] = T0;
	c.cn[0] = (s_i128)offset * c.den;
	return c;
}

/* from T_step on, the clock runs at a new frequency (DVFS) */
static inline void s_clock_step(struct sclock *c, int64_t T_step,
				uint64_t freq_hz, int64_t ppm_milli)
{
	c->np = 2;
	c->T[1] = T_step;
	c->cn[1] = c->cn[0] + (s_i128)(T_step - c->T[0]) * c->num[0];
	c->num[1] = (s_i128)freq_hz * (1000000000 + ppm_milli);
}

/* the reading of the clock at true time T */
static inline int64_t s_read(const struct sclock *c, int64_t T)
{
	int k = c->np == 2 && T >= c->T[1] ? 1 : 0;
	int64_t v = (int64_t)s_floordiv(
	    c->cn[k] + (s_i128)(T - c->T[k]) * c->num[k], c->den);

	if (c->noise) {
		v += (int64_t)s_below(2 * (uint64_t)c->noise + 1) - c->noise;
	}
	return v;
}

/*
 * sign of (ref - truth(t)), truth(t) being the true time when the
 * continuous clock reads t (exact)
 */
static inline int s_cmp_truth(const struct sclock *c, int64_t t, int64_t ref)
{
	s_i128 td = (s_i128)t * c->den;
	int k = c->np == 2 && td >= c->cn[1] ? 1 : 0;
	s_i128 l = (s_i128)(ref - c->T[k]) * c->num[k], r = td - c->cn[k];

	return (l > r) - (l < r);
}

/* 2 * |est - truth(t)| <= width, exactly */
static inline bool s_within_half(const struct sclock *c, int64_t t, int64_t est,
				 int64_t width)
{
	s_i128 td = (s_i128)t * c->den;
	int k = c->np == 2 && td >= c->cn[1] ? 1 : 0;
	s_i128 d = (s_i128)(est - c->T[k]) * c->num[k] - (td - c->cn[k]);

	if (d < 0) {
		d = -d;
	}
	return 2 * d <= (s_i128)width * c->num[k];
}

/* the true time when the continuous clock reads t, rounded down */
static inline int64_t s_truth(const struct sclock *c, int64_t t)
{
	s_i128 td = (s_i128)t * c->den;
	int k = c->np == 2 && td >= c->cn[1] ? 1 : 0;

	return c->T[k] + (int64_t)s_floordiv(td - c->cn[k], c->num[k]);
}

/*
 * One handshake round at true time T between node a (clock ca, NULL =
 * the reference: readings are T) and node b: a->b, then b->a after the
 * ISR time. Each message's true receive follows its true send.
 */
struct s_round {
	int64_t min_ns, mean_ns, isr_ns;
	bool no_ab, no_ba; /* drop a direction */
};

/* when s_log is set (room for s_log_cap), messages are also logged */
struct s_msg {
	unsigned from, to;
	int64_t s, r;
};
static struct s_msg *s_log;
static size_t s_nlog, s_log_cap;

static inline int s_add(struct ht_fit_set *set, unsigned from, unsigned to,
			int64_t s, int64_t r)
{
	if (s_log && s_nlog < s_log_cap) {
		s_log[s_nlog].from = from;
		s_log[s_nlog].to = to;
		s_log[s_nlog].s = s;
		s_log[s_nlog].r = r;
		s_nlog++;
	}
	return ht_fit_set_add_message(set, from, to, s, r);
}

static inline int64_t s_at(const struct sclock *c, int64_t T)
{
	return c ? s_read(c, T) : T;
}

static inline int s_round(struct ht_fit_set *set, unsigned a,
			  const struct sclock *ca, unsigned b,
			  const struct sclock *cb, int64_t T,
			  const struct s_round *r)
{
	int64_t d1 = s_delay(r->min_ns, r->mean_ns);
	int64_t d2 = s_delay(r->min_ns, r->mean_ns);
	int64_t T2 = T + d1 + r->isr_ns;
	int ret = 0;

	if (!r->no_ab) {
		ret = s_add(set, a, b, s_at(ca, T), s_at(cb, T + d1));
	}
	if (!ret && !r->no_ba) {
		ret = s_add(set, b, a, s_at(cb, T2), s_at(ca, T2 + d2));
	}
	return ret;
}

/*
 * Slave clocks c[1..n-1] at rates @freq[0..n-2], each off by up to
 * +-200 ppm and started at a random count (c[0], the reference, is
 * untouched).
 */
static inline void s_slaves(struct sclock *c, const uint64_t *freq, unsigned n)
{
	unsigned v;

	for (v = 1; v < n; v++) {
		int64_t ppm = (int64_t)s_below(400001) - 200000;

		c[v] =
		    s_clock(freq[v - 1], ppm, 0, (int64_t)s_below(1ull << 40));
	}
}

/*
 * @rounds handshakes @r between the reference (node 0) and each slave
 * v of c[1..n-1], a @period apart from @T0, slave v @spread_ns * v
 * after the round's start. Returns 0 with *@last the last round's
 * time, or s_round()'s error.
 */
static inline int s_rounds(struct ht_fit_set *set, const struct sclock *c,
			   unsigned n, int64_t T0, int64_t period,
			   int64_t spread_ns, int rounds,
			   const struct s_round *r, int64_t *last)
{
	unsigned v;
	int k, ret;

	for (k = 0; k < rounds; k++) {
		for (v = 1; v < n; v++) {
			*last = T0 + k * period + (int64_t)v * spread_ns;
			ret = s_round(set, 0, NULL, v, &c[v], *last, r);
			if (ret) {
				return ret;
			}
		}
	}
	return 0;
}

#endif
