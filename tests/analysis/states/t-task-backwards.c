/* SPDX-License-Identifier: MIT */
/*
 * The task-state model (host/analysis/states.h) when time goes back
 * across cores: a task_wake seen on another CPU of the same kernel
 * domain at a time before the switch out it follows (within the sync
 * error). The trace is written here (two streams, CPUs arm0/cpu0 and
 * arm0/cpu1, role "kernel"); two readers over it feed the model cpu0's
 * events up to the switch out, then cpu1's wake, then the rest, so the
 * wake arrives after the switch with an earlier time.
 *
 * Expected: the blocked interval is clamped to zero length at the
 * switch out (never negative), the ready interval begins there, the
 * totals and counts follow, no anomaly.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "host/analysis/states.h"
#include "host/ctf/ctf-reader.h"
#include "tests/check.h"
#include "tests/ctf/reader/le-store.h"

#define PKT_BYTES 512u
#define HDR_BYTES 48u /* header 8 + context 40 */
#define EV_BYTES 32u  /* id 4, pad 4, timestamp 8, two uint64 */

static const char meta[] =
    "/* CTF 1.8 */\n"
    "typealias integer { size = 32; align = 32; signed = false; } "
    ":= uint32_t;\n"
    "typealias integer { size = 64; align = 64; signed = false; } "
    ":= uint64_t;\n"
    "trace { major = 1; minor = 8; byte_order = le;\n"
    "\tpacket.header := struct { uint32_t magic; uint32_t stream_id; };\n"
    "};\n"
    "env { core_1000_name = \"arm0/cpu0\"; core_1000_role = \"kernel\";\n"
    "\tcore_1001_name = \"arm0/cpu1\"; core_1001_role = \"kernel\"; };\n"
    "clock { name = clk; freq = 1000000000; };\n"
    "typealias integer { size = 64; align = 64; signed = false; "
    "map = clock.clk.value; } := ts_t;\n"
    "stream { id = 0;\n"
    "\tpacket.context := struct { ts_t timestamp_begin; "
    "ts_t timestamp_end;\n"
    "\t\tuint64_t content_size; uint64_t packet_size; "
    "uint32_t core_id; };\n"
    "\tevent.header := struct { uint32_t id; ts_t timestamp; };\n"
    "};\n"
    "event { name = task_switch; id = 0; stream_id = 0;\n"
    "\tfields := struct { uint64_t prev_tid; uint64_t next_tid; };\n"
    "};\n"
    "event { name = task_block; id = 1; stream_id = 0;\n"
    "\tfields := struct { uint64_t object; uint64_t kind; };\n"
    "};\n"
    "event { name = task_wake; id = 2; stream_id = 0;\n"
    "\tfields := struct { uint64_t tid; uint64_t object; };\n"
    "};\n";

struct wev {
	uint64_t ts;
	uint32_t id;
	uint64_t a, b;
};

static void die(const char *what)
{
	fprintf(stderr, "t-task-backwards: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* One packet of @n events in stream file @name of @dir. */
static void write_stream(const char *dir, const char *name, uint32_t core_id,
			 const struct wev *ev, size_t n)
{
	uint8_t pkt[PKT_BYTES];
	char path[512];
	size_t off = HDR_BYTES, k;
	FILE *f;

	memset(pkt, 0, sizeof(pkt));
	for (k = 0; k < n; k++) {
		put32(pkt + off, ev[k].id);
		put64(pkt + off + 8, ev[k].ts);
		put64(pkt + off + 16, ev[k].a);
		put64(pkt + off + 24, ev[k].b);
		off += EV_BYTES;
	}
	put32(pkt, 0xc1fc1fc1u);
	put64(pkt + 8, ev[0].ts);
	put64(pkt + 16, ev[n - 1].ts);
	put64(pkt + 24, (uint64_t)off * 8);
	put64(pkt + 32, (uint64_t)PKT_BYTES * 8);
	put32(pkt + 40, core_id);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(pkt, 1, sizeof(pkt), f) != sizeof(pkt) || fclose(f)) {
		die(path);
	}
}

struct seen {
	struct ht_states_task_state s[16];
	size_t n;
	unsigned anomalies;
};

static int on_item(void *arg, const struct ht_states_item *it)
{
	struct seen *sn = arg;

	if (it->kind == HT_STATES_ANOMALY) {
		fprintf(stderr, "anomaly: %s\n", it->text);
		sn->anomalies++;
	}
	if (it->kind == HT_STATES_TASK_STATE && sn->n < 16) {
		sn->s[sn->n] = *it->task_state;
		sn->s[sn->n].name = NULL;
		sn->s[sn->n].by_name = NULL;
		sn->n++;
	}
	return 0;
}

/* Feeds @st the messages of stream file @file from @set (the others
 * skipped) up to and including its first event at or after @stop_ns
 * (INT64_MAX: to the end). */
static void feed(struct ht_states *st, struct ht_ctf_set *set, const char *file,
		 int64_t stop_ns)
{
	struct ht_ctf_msg m;
	int ret;

	while ((ret = ht_ctf_set_next(set, &m)) != HT_EEOF) {
		if (ret) {
			fprintf(stderr, "read: %s\n",
				ht_ctf_set_last_error(set));
			exit(1);
		}
		if (strcmp(m.stream->file_name, file)) {
			continue;
		}
		REQUIRE(ht_states_feed(st, &m) == 0);
		if (m.kind == HT_CTF_MSG_EVENT && m.has_time &&
		    m.ns >= stop_ns) {
			return;
		}
	}
}

int main(void)
{
	char dir[] = "/tmp/t-task-backwards.XXXXXX", path[600];
	const struct wev cpu0[] = {
	    {1000, 0, 0, 5},	/* idle -> A (tid 5) */
	    {2000, 1, 0x2a, 0}, /* A blocks on msg 0x2a */
	    {3000, 0, 5, 0},	/* A switched out: blocked */
	    {4000, 0, 0, 5},	/* A runs again */
	};
	const struct wev cpu1[] = {
	    {2500, 2, 5, 0x2a}, /* A woken, before the switch out */
	};
	const char *const paths[] = {dir};
	struct ht_ctf_set *x = NULL, *y = NULL;
	struct ht_states *st = NULL;
	struct seen sn = {0};
	const struct ht_states_core *c0 = NULL;
	const struct ht_states_task *a = NULL;
	struct ht_states_task_totals tt;
	char err[256];
	size_t i;
	FILE *f;

	REQUIRE(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	REQUIRE(f && fputs(meta, f) >= 0 && fclose(f) == 0);
	write_stream(dir, "cpu0", 1000, cpu0, 4);
	write_stream(dir, "cpu1", 1001, cpu1, 1);
	if (ht_ctf_set_open(&x, paths, 1, NULL, err, sizeof(err)) ||
	    ht_ctf_set_open(&y, paths, 1, NULL, err, sizeof(err))) {
		fprintf(stderr, "t-task-backwards: %s\n", err);
		return 1;
	}
	REQUIRE(ht_states_create(&st, NULL, on_item, &sn) == 0);

	feed(st, x, "cpu0", 3000);	/* up to A's switch out */
	feed(st, y, "cpu1", INT64_MAX); /* the wake at 2500 */
	feed(st, x, "cpu0", INT64_MAX);
	REQUIRE(ht_states_finish(st) == 0);

	/* running 1000-3000, blocked 3000-3000 (clamped: never negative),
	 * ready 3000-4000 (from the switch out, not from the wake) */
	CHECK_MSG(sn.n == 3, "%zu task states, expected 3", sn.n);
	if (sn.n == 3) {
		CHECK(sn.s[0].state == HT_STATES_TASK &&
		      sn.s[0].begin_ns == 1000 && sn.s[0].end_ns == 3000);
		CHECK(sn.s[1].state == HT_STATES_BLOCKED &&
		      sn.s[1].begin_ns == 3000 && sn.s[1].end_ns == 3000 &&
		      sn.s[1].object == 0x2a &&
		      sn.s[1].object_kind == HT_STATES_OBJ_MSG);
		CHECK_MSG(sn.s[2].state == HT_STATES_READY &&
			      sn.s[2].begin_ns == 3000 &&
			      sn.s[2].end_ns == 4000,
			  "ready %lld..%lld", (long long)sn.s[2].begin_ns,
			  (long long)sn.s[2].end_ns);
	}
	for (i = 0; i < sn.n; i++) {
		CHECK(sn.s[i].tid == 5 && sn.s[i].end_ns >= sn.s[i].begin_ns);
	}
	CHECK(sn.anomalies == 0);
	REQUIRE(ht_states_nr_cores(st) == 2);
	for (i = 0; i < 2; i++) {
		const struct ht_states_core *c = ht_states_core(st, i);

		CHECK(c->time_backwards == 0 && c->wake_unblocked == 0);
		if (!strcmp(c->name, "arm0/cpu0")) {
			c0 = c;
		}
	}
	REQUIRE(c0 != NULL);
	for (i = 0; i < c0->nr_tasks; i++) {
		if (c0->tasks[i].id == 5) {
			a = &c0->tasks[i];
		}
	}
	REQUIRE(a != NULL);
	CHECK_MSG(a->blocked_ns == 0 && a->blocks == 1 &&
		      a->max_blocked_ns == 0,
		  "blocked %llu ns in %llu", (unsigned long long)a->blocked_ns,
		  (unsigned long long)a->blocks);
	CHECK_MSG(a->ready_ns == 1000 && a->max_ready_ns == 1000,
		  "ready %llu ns", (unsigned long long)a->ready_ns);
	ht_states_task_totals(st, &tt);
	CHECK(tt.intervals == 3 && tt.waiting_evicted == 0 &&
	      tt.waiting_at_end == 0);

	ht_states_destroy(st);
	ht_ctf_set_close(x);
	ht_ctf_set_close(y);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cpu0", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cpu1", dir);
	unlink(path);
	rmdir(dir);
	return check_summary("t-task-backwards");
}
