/* SPDX-License-Identifier: MIT */
/*
 * ht_ctf_scan_ops.records_at (the merge's scan, host/sync/merge-copy.c)
 * against .record: on stream files built here (the packet fuzzer's
 * metadata, tests/ctf/fuzz/fuzz-meta.h: LTTng's compact/extended
 * header and a bit-packed fixed one; packets of random records, so
 * that many are damaged), with HT_CTF_KEEP_GOING, the batches report
 * the same records (class, time, start and end: .record's
 * ht_ctf_stream_raw_pos() before and after) and the same errors at the
 * same places, in batches of at most HT_CTF_SCAN_BATCH; a callback
 * that stops the scan mid-stream loses nothing; in a range, the records
 * of the range at the same positions.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "host/ctf/ctf-reader.h"
#include "tests/check.h"
#include "tests/ctf/fuzz/fuzz-meta.h"

#define MAX_RECS 200000

struct log {
	struct ht_ctf_scan_rec rec[MAX_RECS];
	size_t n;
	int errors[64];
	size_t err_at[64]; /* records seen before each error */
	size_t nr_errors;
	/* .record: where the record started */
	const struct ht_ctf_stream *stream;
	uint64_t pos;
	size_t stop_every; /* .records_at: stop after that many calls */
	size_t calls;
};

static struct log by_record, by_batch;
static uint64_t seed = 88172645463325252ull;

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static void put(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}

static int on_packet(void *arg, const struct ht_ctf_stream *stream,
		     const struct ht_ctf_packet *pkt, uint64_t discarded,
		     uint64_t lost)
{
	struct log *l = arg;

	(void)pkt;
	(void)discarded;
	(void)lost;
	l->pos = ht_ctf_stream_raw_pos(stream);
	return 0;
}

static int on_record(void *arg, const struct ht_ctf_event_class *cls,
		     uint64_t cycles)
{
	struct log *l = arg;
	struct ht_ctf_scan_rec *r = &l->rec[l->n];

	REQUIRE(l->n < MAX_RECS);
	l->n++;

	r->cls = cls;
	r->cycles = cycles;
	r->start_bits = l->pos;
	r->end_bits = l->pos = ht_ctf_stream_raw_pos(l->stream);
	return 0;
}

static int on_records_at(void *arg, const struct ht_ctf_scan_rec *rec, size_t n)
{
	struct log *l = arg;

	CHECK(n >= 1 && n <= HT_CTF_SCAN_BATCH);
	REQUIRE(l->n + n <= MAX_RECS);
	memcpy(&l->rec[l->n], rec, n * sizeof(*rec));
	l->n += n;
	/* (a value above the HT_E... codes: the scan stops there) */
	return l->stop_every && ++l->calls % l->stop_every == 0 ? 1 : 0;
}

/* Scans every stream of @set into @l. */
static void scan_all(struct ht_ctf_set *set, const struct ht_ctf_scan_ops *ops,
		     struct log *l)
{
	const struct ht_ctf_trace *t = ht_ctf_set_trace(set, 0);
	size_t i;
	int ret;

	for (i = 0; i < t->nr_streams; i++) {
		l->stream = t->streams[i];
		while ((ret = ht_ctf_stream_scan(set, l->stream, ops)) != 0) {
			if (ret == 1) {
				continue;
			}
			if (l->nr_errors < 64) {
				l->err_at[l->nr_errors] = l->n;
				l->errors[l->nr_errors++] = ret;
			}
			if (l->nr_errors >= 64) {
				break;
			}
		}
	}
}

/* A stream file of @nr packets of stream class @sid at @path. */
static void write_stream(const char *path, unsigned sid, int nr)
{
	static uint8_t pkt[4096];
	FILE *f = fopen(path, "wb");
	uint64_t ts = 1000;
	int k;
	size_t i;

	REQUIRE(f != NULL);
	for (k = 0; k < nr; k++) {
		size_t size = 256 + (size_t)(rnd() % 3000);
		size_t content = 56 + (size_t)(rnd() % (size - 56 + 1));

		for (i = 56; i < size; i++) {
			/* mostly zero bytes: records that decode, with
			 * damage now and then */
			uint64_t v = rnd();

			pkt[i] = (uint8_t)(v % 64 == 0 ? v >> 8 : 0);
		}
		put(pkt, 0xc1fc1fc1u, 4);
		put(pkt + 4, sid, 4);
		put(pkt + 8, ts, 8);
		put(pkt + 16, ts + 100000, 8);
		put(pkt + 24, 8 * content, 8);
		put(pkt + 32, 8 * size, 8);
		put(pkt + 40, (uint64_t)k, 8);
		put(pkt + 48, 0, 4);
		put(pkt + 52, 0, 4);
		ts += 200000;
		REQUIRE(fwrite(pkt, 1, size, f) == size);
	}
	fclose(f);
}

static void compare(const char *what)
{
	size_t i;

	CHECK_MSG(by_record.n == by_batch.n, "%s: %zu records, batches %zu",
		  what, by_record.n, by_batch.n);
	for (i = 0; i < by_record.n && i < by_batch.n; i++) {
		const struct ht_ctf_scan_rec *a = &by_record.rec[i],
					     *b = &by_batch.rec[i];

		/* (the two sets have their own classes) */
		if (strcmp(a->cls->name, b->cls->name) ||
		    a->cycles != b->cycles || a->start_bits != b->start_bits ||
		    a->end_bits != b->end_bits) {
			CHECK_MSG(false,
				  "%s: record %zu: %" PRIu64 "..%" PRIu64
				  " at %" PRIu64 ", batches %" PRIu64
				  "..%" PRIu64 " at %" PRIu64,
				  what, i, a->start_bits, a->end_bits,
				  a->cycles, b->start_bits, b->end_bits,
				  b->cycles);
			break;
		}
	}
	CHECK_MSG(by_record.nr_errors == by_batch.nr_errors,
		  "%s: %zu errors, batches %zu", what, by_record.nr_errors,
		  by_batch.nr_errors);
	for (i = 0; i < by_record.nr_errors && i < by_batch.nr_errors; i++) {
		CHECK_MSG(by_record.errors[i] == by_batch.errors[i] &&
			      by_record.err_at[i] == by_batch.err_at[i],
			  "%s: error %zu: %d after %zu records, batches %d "
			  "after %zu",
			  what, i, by_record.errors[i], by_record.err_at[i],
			  by_batch.errors[i], by_batch.err_at[i]);
	}
}

static void run(const char *dir, size_t stop_every)
{
	const char *paths[1] = {dir};
	struct ht_ctf_open_opts oo = {0};
	struct ht_ctf_scan_ops rec = {0}, at = {0};
	struct ht_ctf_set *set, *set2;
	char err[512], what[64];

	oo.flags = HT_CTF_KEEP_GOING;
	memset(&by_record, 0, sizeof(by_record));
	memset(&by_batch, 0, sizeof(by_batch));
	REQUIRE(ht_ctf_set_open(&set, paths, 1, &oo, err, sizeof(err)) == 0);
	rec.packet = on_packet;
	rec.record = on_record;
	rec.arg = &by_record;
	scan_all(set, &rec, &by_record);
	/* (the classes stay valid while their set is open) */
	REQUIRE(ht_ctf_set_open(&set2, paths, 1, &oo, err, sizeof(err)) == 0);
	at.records_at = on_records_at;
	at.arg = &by_batch;
	by_batch.stop_every = stop_every;
	scan_all(set2, &at, &by_batch);
	snprintf(what, sizeof(what), "stop every %zu", stop_every);
	compare(what);
	ht_ctf_set_close(set);
	ht_ctf_set_close(set2);
}

/*
 * In a range (ht_ctf_set_set_range(): the scan behind the set's
 * filter): .records_at reports the records .record reports, at the
 * positions the scan without a range gives them.
 */
static void run_range(const char *dir)
{
	static struct log full, in_range;
	const char *paths[1] = {dir};
	struct ht_ctf_open_opts oo = {0};
	struct ht_ctf_scan_ops rec = {0}, at = {0};
	struct ht_ctf_set *a, *b, *c;
	const struct ht_ctf_stream *st;
	int64_t begin, end;
	size_t i, j = 0;
	char err[512];

	oo.flags = HT_CTF_KEEP_GOING;
	memset(&full, 0, sizeof(full));
	memset(&in_range, 0, sizeof(in_range));
	memset(&by_record, 0, sizeof(by_record));
	REQUIRE(ht_ctf_set_open(&a, paths, 1, &oo, err, sizeof(err)) == 0);
	at.records_at = on_records_at;
	at.arg = &full;
	scan_all(a, &at, &full);
	if (full.n < 30) {
		ht_ctf_set_close(a);
		return;
	}
	st = ht_ctf_set_trace(a, 0)->streams[0];
	begin = ht_ctf_stream_cycles_to_ns(st, full.rec[full.n / 5].cycles);
	end = ht_ctf_stream_cycles_to_ns(st, full.rec[full.n / 2].cycles);
	if (begin > end) {
		ht_ctf_set_close(a);
		return;
	}
	REQUIRE(ht_ctf_set_open(&b, paths, 1, &oo, err, sizeof(err)) == 0);
	REQUIRE(ht_ctf_set_set_range(b, begin, end) == 0);
	rec.packet = on_packet;
	rec.record = on_record;
	rec.arg = &by_record;
	scan_all(b, &rec, &by_record);
	REQUIRE(ht_ctf_set_open(&c, paths, 1, &oo, err, sizeof(err)) == 0);
	REQUIRE(ht_ctf_set_set_range(c, begin, end) == 0);
	at.arg = &in_range;
	scan_all(c, &at, &in_range);
	CHECK_MSG(by_record.n == in_range.n && in_range.n > 0,
		  "range: %zu records, batches %zu", by_record.n, in_range.n);
	for (i = 0; i < by_record.n && i < in_range.n; i++) {
		const struct ht_ctf_scan_rec *x = &by_record.rec[i],
					     *y = &in_range.rec[i];

		CHECK_MSG(!strcmp(x->cls->name, y->cls->name) &&
			      x->cycles == y->cycles,
			  "range: record %zu differs", i);
		/* (in order: the same record of the scan without a range) */
		while (j < full.n && (full.rec[j].start_bits != y->start_bits ||
				      full.rec[j].end_bits != y->end_bits ||
				      full.rec[j].cycles != y->cycles)) {
			j++;
		}
		CHECK_MSG(j < full.n,
			  "range: record %zu at %" PRIu64
			  " not found without the range",
			  i, y->start_bits);
	}
	ht_ctf_set_close(a);
	ht_ctf_set_close(b);
	ht_ctf_set_close(c);
}

int main(void)
{
	char dir[] = "/tmp/ht-scan-at-XXXXXX", path[256];
	size_t total = 0, errors = 0;
	FILE *f;
	int trial;

	REQUIRE(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	REQUIRE(f != NULL);
	fputs(fuzz_metadata, f);
	fclose(f);
	for (trial = 0; trial < 40; trial++) {
		snprintf(path, sizeof(path), "%s/s0", dir);
		write_stream(path, 0, 8);
		snprintf(path, sizeof(path), "%s/s1", dir);
		write_stream(path, 1, 8);
		run(dir, 0);
		run(dir, 3);
		total += by_record.n;
		errors += by_record.nr_errors;
		run_range(dir);
	}
	/* the traces have records and damage to compare */
	CHECK_MSG(total > 10000, "only %zu records", total);
	CHECK_MSG(errors > 100, "only %zu errors", errors);
	printf("t-scan-records-at: %zu records, %zu errors compared\n", total,
	       errors);
	snprintf(path, sizeof(path), "%s/s0", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/s1", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	unlink(path);
	rmdir(dir);
	return check_summary("t-scan-records-at");
}
