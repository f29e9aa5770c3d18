/* SPDX-License-Identifier: MIT */
/* The benchmark workload (workload.h); tracepoints from "wl-hook.h". */
#include <stdint.h>

#include "wl-hook.h"
#include "workload.h"

static const uint32_t sha_k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu,
    0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u, 0xd807aa98u, 0x12835b01u,
    0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u,
    0xc19bf174u, 0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu,
    0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau, 0x983e5152u,
    0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u,
    0x06ca6351u, 0x14292967u, 0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu,
    0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u,
    0xd6990624u, 0xf40e3585u, 0x106aa070u, 0x19a4c116u, 0x1e376c08u,
    0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu,
    0x682e6ff3u, 0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u,
    0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32u - n));
}

void wl_sha256_short(const uint8_t *msg, uint32_t len, uint32_t h[8])
{
	uint32_t w[64];
	uint32_t a, b, c, d, e, f, g, hh, t1, t2;
	uint8_t blk[64];
	unsigned i;

	/* One block: the message, 0x80, zeros, the length in bits. */
	for (i = 0; i < 64u; i++) {
		blk[i] = i < len ? msg[i] : (i == len ? 0x80u : 0u);
	}
	blk[62] = (uint8_t)((len * 8u) >> 8);
	blk[63] = (uint8_t)(len * 8u);
	for (i = 0; i < 16u; i++) {
		w[i] = (uint32_t)blk[4 * i] << 24 |
		       (uint32_t)blk[4 * i + 1] << 16 |
		       (uint32_t)blk[4 * i + 2] << 8 | blk[4 * i + 3];
	}
	for (i = 16; i < 64u; i++) {
		uint32_t s0 =
		    ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 =
		    ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = 0x6a09e667u;
	b = 0xbb67ae85u;
	c = 0x3c6ef372u;
	d = 0xa54ff53au;
	e = 0x510e527fu;
	f = 0x9b05688cu;
	g = 0x1f83d9abu;
	hh = 0x5be0cd19u;
	for (i = 0; i < 64u; i++) {
		t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) +
		     ((e & f) ^ (~e & g)) + sha_k[i] + w[i];
		t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) +
		     ((a & b) ^ (a & c) ^ (b & c));
		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] = 0x6a09e667u + a;
	h[1] = 0xbb67ae85u + b;
	h[2] = 0x3c6ef372u + c;
	h[3] = 0xa54ff53au + d;
	h[4] = 0x510e527fu + e;
	h[5] = 0x9b05688cu + f;
	h[6] = 0x1f83d9abu + g;
	h[7] = 0x5be0cd19u + hh;
}

/* The next permutation in lexicographic order; 0 after the last. */
static int next_permutation(uint8_t *p, unsigned n)
{
	unsigned i = n - 1u, j = n - 1u;
	uint8_t t;

	while (i > 0 && p[i - 1] >= p[i]) {
		i--;
	}
	if (i == 0) {
		return 0;
	}
	while (p[j] <= p[i - 1]) {
		j--;
	}
	t = p[i - 1];
	p[i - 1] = p[j];
	p[j] = t;
	for (j = n - 1u; i < j; i++, j--) {
		t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
	return 1;
}

uint32_t wl_sha_permutations(uint32_t every)
{
	/* "barectf" sorted: the first permutation. */
	uint8_t p[7] = {'a', 'b', 'c', 'e', 'f', 'r', 't'};
	uint32_t h[8], acc = 0, i = 0, left = every;

	do {
		wl_sha256_short(p, 7, h);
		acc ^= h[0];
		/* A countdown, not a division per hash. */
		if (every && --left == 0u) {
			left = every;
			wl_tp_hash(i, h[0]);
		}
		i++;
	} while (next_permutation(p, 7));
	return acc;
}

uint32_t wl_pisum(uint32_t reps, int trace)
{
	volatile double keep = 0.0;
	double sum = 0.0;
	uint32_t r, k;

	for (r = 0; r < reps; r++) {
		sum = 0.0;
		for (k = 1; k <= 10000u; k++) {
			sum += 1.0 / ((double)k * (double)k);
		}
		keep = sum;
		if (trace) {
			wl_tp_pisum(r, (uint32_t)(sum * 1e9));
		}
	}
	return (uint32_t)(keep * 1e9);
}

static int32_t qs_data[QB_QSORT_MAX_N];
static uint32_t qs_calls;

static void quicksort(int32_t *a, int32_t lo, int32_t hi, uint32_t depth,
		      int trace)
{
	int32_t pivot, i, j, t;

	qs_calls++;
	if (trace) {
		wl_tp_qsort((uint32_t)lo, (uint32_t)hi, depth);
	}
	if (lo >= hi) {
		return;
	}
	pivot = a[lo + (hi - lo) / 2];
	i = lo;
	j = hi;
	while (i <= j) {
		while (a[i] < pivot) {
			i++;
		}
		while (a[j] > pivot) {
			j--;
		}
		if (i <= j) {
			t = a[i];
			a[i] = a[j];
			a[j] = t;
			i++;
			j--;
		}
	}
	quicksort(a, lo, j, depth + 1u, trace);
	quicksort(a, i, hi, depth + 1u, trace);
}

uint32_t wl_quicksort(uint32_t n, int trace)
{
	uint32_t x = 12345u, i;

	if (n > QB_QSORT_MAX_N) {
		n = QB_QSORT_MAX_N;
	}
	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		qs_data[i] = (int32_t)(x >> 1) % 100000;
	}
	qs_calls = 0;
	if (n) {
		quicksort(qs_data, 0, (int32_t)n - 1, 0, trace);
	}
	for (i = 1; i < n; i++) {
		if (qs_data[i - 1] > qs_data[i]) {
			return 0xffffffffu;
		}
	}
	return qs_calls;
}
