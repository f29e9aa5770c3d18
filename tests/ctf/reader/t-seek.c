/* SPDX-License-Identifier: MIT */
/*
 * ht_ctf_set_seek_ns() against a linear scan, on a set of two traces
 * written here: trace "a" (1 GHz clock) with three streams of several
 * packets, an empty packet among them, and trace "b" (1 MHz clock with
 * an offset) with one stream whose times fall on trace a's. Timestamps
 * repeat inside streams and across streams and traces (ties).
 *
 * For every target (before the start, on each event, one ns before and
 * after each event, after the end, the extremes), the events delivered
 * after the seek must be exactly the linear scan's events from the
 * first one at or after the target, in the same order; in both
 * delivery modes (every message, events only), seeking forward and
 * backward from the middle of a scan.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/ctf/ctf-reader.h"
#include "common/error.h"
#include "tests/check.h"
#include "le-store.h"

#define PKT_BYTES 512u
#define HDR_BYTES 40u /* header 8 + context 32 */
#define EV_BYTES 24u  /* id 4, pad 4, timestamp 8, v 4, pad 4 */
#define MAX_EVENTS 4096

static const char meta_fmt[] =
    "/* CTF 1.8 */\n"
    "typealias integer { size = 32; align = 32; signed = false; } "
    ":= uint32_t;\n"
    "typealias integer { size = 64; align = 64; signed = false; } "
    ":= uint64_t;\n"
    "trace { major = 1; minor = 8; byte_order = le;\n"
    "\tpacket.header := struct { uint32_t magic; uint32_t stream_id; };\n"
    "};\n"
    "env { trace_name = \"%s\"; };\n"
    "clock { name = clk; freq = %llu; offset_s = %lld; };\n"
    "typealias integer { size = 64; align = 64; signed = false; "
    "map = clock.clk.value; } := ts_t;\n"
    "stream { id = 0;\n"
    "\tpacket.context := struct { ts_t timestamp_begin; "
    "ts_t timestamp_end;\n"
    "\t\tuint64_t content_size; uint64_t packet_size; };\n"
    "\tevent.header := struct { uint32_t id; ts_t timestamp; };\n"
    "};\n"
    "event { name = e; id = 0; stream_id = 0;\n"
    "\tfields := struct { uint32_t v; };\n"
    "};\n";

static void die(const char *what)
{
	fprintf(stderr, "t-seek: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void write_metadata(const char *dir, const char *name,
			   unsigned long long freq, long long offset_s)
{
	char path[512];
	FILE *f;

	if (mkdir(dir, 0755)) {
		die(dir);
	}
	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	if (!f) {
		die(path);
	}
	fprintf(f, meta_fmt, name, freq, offset_s);
	if (fclose(f)) {
		die(path);
	}
}

/*
 * Writes stream file @name of @dir: packets of @per_packet[i] events
 * whose timestamps are @ts (cycles, non-decreasing), payload v = @v0 + k.
 */
static void write_stream(const char *dir, const char *name, const uint64_t *ts,
			 size_t n, const unsigned *per_packet,
			 size_t nr_packets, uint32_t v0)
{
	uint8_t pkt[PKT_BYTES];
	char path[512];
	size_t k = 0, i, j;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f) {
		die(path);
	}
	for (i = 0; i < nr_packets; i++) {
		size_t off = HDR_BYTES;
		uint64_t begin = k < n ? ts[k] : ts[n - 1];
		uint64_t end = begin;

		memset(pkt, 0, sizeof(pkt));
		for (j = 0; j < per_packet[i] && k < n; j++, k++) {
			put32(pkt + off, 0);
			put64(pkt + off + 8, ts[k]);
			put32(pkt + off + 16, v0 + (uint32_t)k);
			off += EV_BYTES;
			end = ts[k];
		}
		put32(pkt, 0xc1fc1fc1u);
		put32(pkt + 4, 0);
		put64(pkt + 8, begin);
		put64(pkt + 16, end);
		/* the content ends after the last event's payload */
		put64(pkt + 24,
		      (uint64_t)(off > HDR_BYTES ? off - 4 : off) * 8);
		put64(pkt + 32, (uint64_t)PKT_BYTES * 8);
		if (fwrite(pkt, 1, sizeof(pkt), f) != sizeof(pkt)) {
			die(path);
		}
	}
	if (k != n) {
		fprintf(stderr, "t-seek: %zu events do not fit\n", n);
		exit(1);
	}
	if (fclose(f)) {
		die(path);
	}
}

struct ev {
	int64_t ns;
	uint32_t v;
};

/* Reads every remaining EVENT message of @set (at most @max). */
static size_t read_events(struct ht_ctf_set *set, struct ev *out, size_t max)
{
	struct ht_ctf_msg m;
	size_t n = 0;
	int ret;

	while ((ret = ht_ctf_set_next(set, &m)) != HT_EEOF) {
		const struct ht_ctf_field *p, *v;

		if (ret) {
			CHECK_MSG(0, "ht_ctf_set_next: %s",
				  ht_ctf_set_last_error(set));
			break;
		}
		if (m.kind != HT_CTF_MSG_EVENT) {
			continue;
		}
		CHECK_MSG(m.has_time, "an event without a time");
		p = m.event->scope[HT_CTF_SCOPE_EVENT_PAYLOAD];
		v = ht_ctf_field_member(p, "v");
		CHECK_MSG(v != NULL, "no payload field v");
		if (n < max && v) {
			out[n].ns = m.ns;
			out[n].v = (uint32_t)v->v.u;
		}
		n++;
	}
	return n;
}

/* The first event of @lin at or after @ns. */
static size_t first_at(const struct ev *lin, size_t n, int64_t ns)
{
	size_t i;

	for (i = 0; i < n && lin[i].ns < ns; i++) {
	}
	return i;
}

static struct ev got[MAX_EVENTS];

static void check_seek(struct ht_ctf_set *set, const struct ev *lin, size_t n,
		       int64_t target, const char *what)
{
	size_t from = first_at(lin, n, target), k, m;
	int ret = ht_ctf_set_seek_ns(set, target);

	CHECK_MSG(ret == 0, "seek %s (%lld): %d", what, (long long)target, ret);
	m = read_events(set, got, MAX_EVENTS);
	CHECK_MSG(m == n - from,
		  "seek %s (%lld): %zu events after it, expected %zu", what,
		  (long long)target, m, n - from);
	for (k = 0; k < m && from + k < n; k++) {
		if (got[k].v != lin[from + k].v ||
		    got[k].ns != lin[from + k].ns) {
			CHECK_MSG(0,
				  "seek %s (%lld): event %zu is v=%u at %lld, "
				  "expected v=%u at %lld",
				  what, (long long)target, k, got[k].v,
				  (long long)got[k].ns, lin[from + k].v,
				  (long long)lin[from + k].ns);
			break;
		}
	}
}

static void run(const char *root, unsigned flags)
{
	static struct ev lin[MAX_EVENTS];
	struct ht_ctf_open_opts opts = {.flags = flags};
	const char *paths[1] = {root};
	struct ht_ctf_set *set;
	char err[1024];
	size_t n, i, half;
	int ret;

	ret = ht_ctf_set_open(&set, paths, 1, &opts, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "t-seek: open: %s\n", err);
		exit(1);
	}
	CHECK_MSG(ht_ctf_set_nr_traces(set) == 2, "%zu traces",
		  ht_ctf_set_nr_traces(set));
	n = read_events(set, lin, MAX_EVENTS);
	CHECK_MSG(n > 100 && n < MAX_EVENTS, "%zu events", n);
	for (i = 1; i < n; i++) {
		CHECK_MSG(lin[i - 1].ns <= lin[i].ns,
			  "not in time order at %zu", i);
	}

	check_seek(set, lin, n, INT64_MIN, "INT64_MIN");
	check_seek(set, lin, n, lin[0].ns - 1000, "before the start");
	check_seek(set, lin, n, lin[0].ns, "on the first event");
	for (i = 0; i < n; i++) {
		check_seek(set, lin, n, lin[i].ns, "on an event");
		check_seek(set, lin, n, lin[i].ns - 1, "just before an event");
		check_seek(set, lin, n, lin[i].ns + 1, "just after an event");
		if (i + 1 < n && lin[i + 1].ns > lin[i].ns + 2) {
			check_seek(set, lin, n,
				   lin[i].ns + (lin[i + 1].ns - lin[i].ns) / 2,
				   "between events");
		}
	}
	check_seek(set, lin, n, lin[n - 1].ns, "on the last event");
	check_seek(set, lin, n, lin[n - 1].ns + 1, "after the end");
	check_seek(set, lin, n, INT64_MAX, "INT64_MAX");

	/* from the middle of a scan, backward then forward */
	half = n / 2;
	ret = ht_ctf_set_seek_ns(set, INT64_MIN);
	CHECK_MSG(ret == 0, "seek: %d", ret);
	for (i = 0; i < half; i++) {
		struct ht_ctf_msg m;

		do {
			ret = ht_ctf_set_next(set, &m);
		} while (!ret && m.kind != HT_CTF_MSG_EVENT);
		CHECK_MSG(ret == 0, "next: %d", ret);
	}
	check_seek(set, lin, n, lin[n / 4].ns, "backward from the middle");
	for (i = 0; i < half; i++) {
		struct ht_ctf_msg m;

		ret = ht_ctf_set_next(set, &m);
	}
	check_seek(set, lin, n, lin[3 * n / 4].ns, "forward from the middle");
	ht_ctf_set_close(set);
}

int main(void)
{
	static uint64_t ts[3][MAX_EVENTS], tb[MAX_EVENTS];
	static const unsigned pp_a0[] = {5, 19, 0, 19, 19, 7, 19, 19, 19, 19};
	static const unsigned pp_a1[] = {19, 19, 3, 19, 19, 19};
	static const unsigned pp_a2[] = {1, 19, 19, 19, 19, 19, 19};
	static const unsigned pp_b[] = {10, 19, 19, 19, 19};
	char root[] = "/tmp/ht-t-seek.XXXXXX";
	char a[600], b[600], cmd[700];
	size_t na[3] = {0}, nb = 0, s, k;
	const unsigned *pp[3] = {pp_a0, pp_a1, pp_a2};
	size_t npp[3] = {10, 6, 7};
	uint64_t seed = 12345;

	if (!mkdtemp(root)) {
		die("mkdtemp");
	}
	snprintf(a, sizeof(a), "%s/a", root);
	snprintf(b, sizeof(b), "%s/b", root);
	write_metadata(a, "a", 1000000000ull, 0);
	write_metadata(b, "b", 1000000ull, 5);

	/* trace a: times in ns, steps of 0 to 3 thousand ns (ties inside
	 * and across the streams) */
	for (s = 0; s < 3; s++) {
		uint64_t t = 5000000000ull + s * 1000;
		size_t cap = 0;

		for (k = 0; k < npp[s]; k++) {
			cap += pp[s][k];
		}
		for (k = 0; k < cap - 2; k++) {
			seed = seed * 6364136223846793005ull +
			       1442695040888963407ull;
			t += ((seed >> 33) % 4) * 1000;
			ts[s][na[s]++] = t;
		}
	}
	/* trace b: 1 MHz from 5 s: cycle c is 5e9 + 1000 c ns, so every
	 * other step lands on trace a's times */
	for (k = 0; k < 80; k++) {
		tb[nb++] = k * 2 + (k % 3 == 0);
	}
	write_stream(a, "s0", ts[0], na[0], pp_a0, 10, 0);
	write_stream(a, "s1", ts[1], na[1], pp_a1, 6, 10000);
	write_stream(a, "s2", ts[2], na[2], pp_a2, 7, 20000);
	write_stream(b, "core", tb, nb, pp_b, 5, 30000);

	run(root, 0);
	run(root, HT_CTF_EVENTS_ONLY);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd)) {
		fprintf(stderr, "t-seek: cannot remove %s\n", root);
	}
	return check_summary("t-seek");
}
