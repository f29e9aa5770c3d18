/* SPDX-License-Identifier: MIT */
/*
 * The QEMU board's launcher (qemu-run.h, docs/qemu.md): starts the QEMU
 * cores, waits for their board blocks, writes the board file (each
 * core's RAM file, ring, mailbox and serial-socket doorbell; the
 * master's ring in a file of the work directory; kept as
 * CAPTURE/board.yaml) and runs the generic master on it
 * (host/collect/board-master.h: the rings drained, the sync handshake, the
 * master's sync events) on a thread of its own. This thread is the application:
 * it traces its messages with the simulated board's master tracer
 * (host/collect/master-events.yaml: the same events) into its ring,
 * hands out the workload through the shared-memory queues, watches the cores
 * (QEMU gone, a fault record, a handshake left unanswered), and stops
 * everything on every path.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "master-events.h"
#include "platforms/qemu/qemu-board.h"
#include "platforms/sim/master/master-tracer.h"
#include "platforms/sim/master/meta.h"
#include "platforms/sim/clock-model.h"
#include "host/collect/board-master.h"
#include "host/collect/board.h"
#include "common/error.h"
#include "common/message.h"
#include "common/path.h"
#include "hetrace/packet-ring.h"
#include "qemu-launch.h"
#include "qemu-run.h"

extern const unsigned char ht_master_events_metadata[];

/* The layout both sides compile must be the same (qemu-board.h). */
_Static_assert(sizeof(struct qb_msg) == 48, "qb_msg layout");
_Static_assert(sizeof(struct qb_block) == 6784, "qb_block layout");

#define MASTER_RING_SIZE (4u << 20)
#define MASTER_NAME "linux"
/* A request unanswered this long: the board file's `stall`. */
#define HANG_NS 1500000000ull
/* The launcher's own watch of the mailbox, after the recorder's: a
 * recorder that goes on recording after a stall still ends the run. */
#define HANG_WATCH_NS (HANG_NS + 500000000ull)
#define STOP_WAIT_NS 3000000000ull /* a core's answer to QB_JOB_STOP */
#define JOB_TIMEOUT_NS 120000000000ull

struct job_spec {
	uint32_t type;
	uint32_t arg;
	const char *name;
};

struct qcore {
	struct qlaunch q;
	uint32_t core_id;
	uint64_t clock_hz;
	bool started;
	bool stopped; /* crashed, hung, QEMU gone */
	bool faulted; /* stopped with a fault record: its UART says more */
	bool hung;    /* stopped answering the handshake, seen at hang_ns */
	uint64_t hang_ns;
	char reason[256];

	/* Jobs: the next to send, the one in flight. */
	unsigned next_job;
	bool busy;
	uint64_t busy_id;
	uint64_t sent_ns;
	uint64_t jobs_done;
	bool fail_sent;

	/* Hang watch: when the ACK word last moved. */
	uint32_t last_ack;
	uint64_t last_ack_ns;
};

/* The generic master, on its own thread. */
struct recorder {
	struct ht_board *board;
	struct ht_board_record_opts opts;
	struct ht_board_record_result res;
	pthread_t thread;
	bool running;	       /* the thread was created and not joined */
	volatile int stop;     /* set by the launcher: end the run */
	volatile int ended;    /* set by the thread: ht_board_record returned */
	volatile int attached; /* set by the thread: rings and sync running */
	uint64_t start_ns;     /* the launcher's time at its time origin */
	int ret;
	char err[1024];
};

struct run {
	const struct ht_qemu_opts *o;
	struct ht_qemu_result *res;
	char *err;
	size_t err_len;

	struct qcore c[2];
	unsigned nc;

	/* The master's tracer and its ring, in a file of the work
	 * directory: the board file names it as the master's ring. */
	char mring_path[512];
	int mring_fd;
	uint8_t *mring_mem;
	struct ht_ring *mring;
	struct sim_master_tracer tr;
	bool tracing;
	uint64_t next_msg_id;
	uint64_t master_events;

	struct recorder rec;
	struct job_spec jobs[32];
	unsigned nr_jobs;
	uint64_t t0;
};

static void set_err(struct run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_err(struct run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->err_len, fmt, ap);
	va_end(ap);
}

static double rel_s(const struct run *r, uint64_t ns)
{
	return (double)(ns - r->t0) / 1e9;
}

/* ---- The master's tracer ---- */

/* The master's metadata: the generated text with the core's env entries
 * (docs/events.md) and a fresh clock UUID. */
static int master_metadata(char **out, size_t *len)
{
	struct sim_core_desc d = {
	    .core_id = 0, .is_master = 1, .freq_hz = 1000000000u};

	snprintf(d.name, sizeof(d.name), "%s", MASTER_NAME);
	ht__sim_make_uuid(d.uuid, 0);
	return ht__sim_core_metadata((const char *)ht_master_events_metadata,
				     &d, MASTER_NAME, "hetrace-qemu", out, len);
}

/* The master's ring: a file of the work directory, mapped shared, that
 * the recorder maps again through the board file. */
static int map_master_ring(struct run *r)
{
	snprintf(r->mring_path, sizeof(r->mring_path), "%s/%s.ring",
		 r->o->work_dir, MASTER_NAME);
	r->mring_fd =
	    open(r->mring_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (r->mring_fd < 0 || ftruncate(r->mring_fd, MASTER_RING_SIZE) != 0) {
		set_err(r, "cannot create the master's ring file %s: %s",
			r->mring_path, strerror(errno));
		return HT_EIO;
	}
	r->mring_mem = mmap(NULL, MASTER_RING_SIZE, PROT_READ | PROT_WRITE,
			    MAP_SHARED, r->mring_fd, 0);
	if (r->mring_mem == MAP_FAILED) {
		r->mring_mem = NULL;
		set_err(r, "cannot map %s: %s", r->mring_path, strerror(errno));
		return HT_EIO;
	}
	return 0;
}

static int setup_master(struct run *r)
{
	char *meta = NULL;
	size_t len = 0;
	int ret;

	ret = map_master_ring(r);
	if (ret < 0) {
		return ret;
	}
	ret = master_metadata(&meta, &len);
	if (ret < 0) {
		set_err(r, "cannot write the master's metadata: %s",
			ht_strerror(ret));
		return ret;
	}
	r->mring =
	    ht_ring_init(r->mring_mem, MASTER_RING_SIZE, QB_SLOT_SIZE,
			 HT_RING_DISCARD, 0, MASTER_NAME, meta, (uint32_t)len);
	free(meta);
	if (!r->mring) {
		set_err(r, "cannot lay out the master's ring");
		return HT_EINVAL;
	}
	sim_master_tracer_start(&r->tr, r->mring, &r->master_events);
	r->tracing = true;
	return 0;
}

/* ---- The board file ---- */

/* @s as a double-quoted YAML scalar. A path holding "${" would be read
 * as a placeholder: refused. */
static int put_quoted(FILE *f, const char *s)
{
	if (strstr(s, "${")) {
		return HT_EINVAL;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\') {
			fputc('\\', f);
		}
		fputc(*s, f);
	}
	fputc('"', f);
	return 0;
}

/* The board as the recorder sees it: each QEMU core's RAM file from its
 * block on (ring at block + ring_off, mailbox in the block), its doorbell
 * the interrupt byte on its serial socket, what the firmware prints
 * logged into WORK/<core>.uart; the master's ring in its file. */
static int print_board(struct run *r, FILE *f)
{
	uint64_t period =
	    r->o->sync_period_ns ? r->o->sync_period_ns : 5000000u;
	unsigned i;
	int ret;

	fprintf(f, "# Written by hetrace qemu (docs/qemu.md) for this run: "
		   "the recorder's view of the board.\n");
	fprintf(f, "board: hetrace-qemu\nregions:\n  %s: {file: ", MASTER_NAME);
	ret = put_quoted(f, r->mring_path);
	fprintf(f, ", size: %u}\n", MASTER_RING_SIZE);
	for (i = 0; ret == 0 && i < r->nc; i++) {
		const struct qlaunch *q = &r->c[i].q;

		fprintf(f, "  %s: {file: ", q->name);
		ret = put_quoted(f, q->ram_path);
		fprintf(f, ", offset: 0x%zx, size: 0x%zx}\n", q->block_off,
			QL_RAM_SIZE - q->block_off);
	}
	fprintf(f,
		"sync:\n  reference: %s\n  period: %" PRIu64
		"us\n  timeout: 100ms\n  burst: 1\n  stall: %llums\n",
		MASTER_NAME, period / 1000u, HANG_NS / 1000000ull);
	fprintf(f,
		"cores:\n  - name: %s\n    role: master\n"
		"    ring: {region: %s, offset: 0, size: %u}\n",
		MASTER_NAME, MASTER_NAME, MASTER_RING_SIZE);
	for (i = 0; ret == 0 && i < r->nc; i++) {
		const struct qcore *c = &r->c[i];
		const struct qb_block *b = c->q.block;

		fprintf(f,
			"  - name: %s\n    role: slave\n    id: %u\n"
			"    ring: {region: %s, offset: 0x%x, size: 0x%x}\n"
			"    mailbox: {region: %s, offset: 0x%zx}\n"
			"    doorbell:\n      socket: {path: ",
			c->q.name, c->core_id, c->q.name, b->ring_off,
			b->ring_size, c->q.name,
			offsetof(struct qb_block, mbox));
		ret = put_quoted(f, c->q.sock_path);
		fprintf(f, ", byte: 0x%02x, log: ", QB_IRQ_BYTE);
		if (ret == 0) {
			ret = put_quoted(f, c->q.uart_path);
		}
		fprintf(f, "}\n");
	}
	return ret;
}

/*
 * Writes the board file into the work directory and reads it back as
 * the recorder's board; the recorder keeps it as CAPTURE/board.yaml once
 * it has made sure that no capture is there already (a file written
 * there first would replace an earlier capture's).
 */
static int write_board(struct run *r)
{
	char *path = NULL, berr[1024];
	FILE *f = NULL;
	int ret;

	path = ht_path_join(r->o->work_dir, "board.yaml");
	if (!path) {
		set_err(r, "out of memory");
		return HT_ENOMEM;
	}
	f = fopen(path, "w");
	if (!f) {
		set_err(r, "cannot write %s: %s", path, strerror(errno));
		ret = HT_EIO;
		goto free_path;
	}
	ret = print_board(r, f);
	if (ret < 0) {
		set_err(r,
			"%s: the work directory %s cannot be named in a "
			"board file (it holds \"${\")",
			path, r->o->work_dir);
	}
	if (fclose(f) != 0 && ret == 0) {
		set_err(r, "cannot write %s: %s", path, strerror(errno));
		ret = HT_EIO;
	}
	if (ret == 0) {
		ret = ht_board_load(path, NULL, &r->rec.board, berr,
				    sizeof(berr));
		if (ret < 0) {
			set_err(r, "%s", berr);
		}
	}
free_path:
	free(path);
	return ret;
}

/* ---- The recorder ---- */

/* On the recorder's thread, right after its time origin (the start of
 * its sync daemon): the launcher's time of that origin. */
static void recorder_attached(void *arg)
{
	struct recorder *rec = arg;

	rec->start_ns = sim_ref_now_ns();
	__atomic_store_n(&rec->attached, 1, __ATOMIC_RELEASE);
}

static void *recorder_main(void *arg)
{
	struct recorder *rec = arg;

	rec->ret = ht_board_record(rec->board, &rec->opts, &rec->res, rec->err,
				   sizeof(rec->err));
	__atomic_store_n(&rec->ended, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool recorder_ended(const struct recorder *rec)
{
	return __atomic_load_n(&rec->ended, __ATOMIC_ACQUIRE);
}

/* Starts the recorder and waits until every ring is attached and the
 * sync daemon runs (or the recorder failed). */
static int start_recorder(struct run *r)
{
	struct recorder *rec = &r->rec;
	struct ht_board_record_opts *ro = &rec->opts;

	ro->capture_dir = r->o->capture_dir;
	ro->stop = &rec->stop;
	ro->quiet = true;
	ro->no_fsync = r->o->no_fsync;
	ro->warn = r->o->warn;
	ro->warn_arg = r->o->warn_arg;
	ro->started = recorder_attached;
	ro->started_arg = rec;
	rec->start_ns = sim_ref_now_ns(); /* until the recorder says */
	if (pthread_create(&rec->thread, NULL, recorder_main, rec) != 0) {
		set_err(r, "cannot start the recorder's thread");
		return HT_ENOMEM;
	}
	rec->running = true;
	while (!__atomic_load_n(&rec->attached, __ATOMIC_ACQUIRE)) {
		if (recorder_ended(rec)) {
			pthread_join(rec->thread, NULL);
			rec->running = false;
			set_err(r, "%s",
				rec->err[0] ? rec->err
					    : "the recorder ended at once");
			return rec->ret < 0 ? rec->ret : HT_EIO;
		}
		sim_ref_sleep_ns(1000000u);
	}
	return 0;
}

/* Ends the recorder (its last drain takes every committed packet) and
 * joins it. Returns its status. */
static int stop_recorder(struct run *r)
{
	struct recorder *rec = &r->rec;

	if (rec->running) {
		rec->stop = 1;
		pthread_join(rec->thread, NULL);
		rec->running = false;
	}
	return rec->ret;
}

/* The recorder's result for core @name, or NULL. */
static const struct ht_board_core_result *rec_core(const struct run *r,
						   const char *name)
{
	size_t i;

	for (i = 0; i < r->rec.res.nr_cores; i++) {
		if (r->rec.res.cores[i].name &&
		    !strcmp(r->rec.res.cores[i].name, name)) {
			return &r->rec.res.cores[i];
		}
	}
	return NULL;
}

/* ---- Messages ---- */

static int send_job(struct run *r, struct qcore *c, uint32_t type, uint32_t arg)
{
	struct qb_msg m = {0};
	struct qb_block *b = c->q.block;
	uint64_t deadline = sim_ref_now_ns() + 1000000000ull;

	m.type = type;
	m.arg = arg;
	m.size = (uint32_t)sizeof(m);
	pthread_mutex_lock(&r->tr.lock);
	m.id = ++r->next_msg_id;
	/* msg_send is stamped before the message is visible. */
	hetrace_master_trace_msg_send(&r->tr.rt.ctx, m.id, c->core_id, m.size);
	r->master_events++;
	pthread_mutex_unlock(&r->tr.lock);
	while (!qb_queue_push(&b->down, &m)) {
		if (sim_ref_now_ns() > deadline) {
			return HT_EIO;
		}
		sim_ref_sleep_ns(100000u);
	}
	c->busy = true;
	c->busy_id = m.id;
	c->sent_ns = sim_ref_now_ns();
	/* No interrupt: the core takes the queue at its next one, at the
	 * latest the next sync round (every period), as a real board's
	 * application that shares the doorbell with the recorder would. */
	return 0;
}

/* Takes the cores' replies. */
static void receive(struct run *r)
{
	struct qb_msg m;
	unsigned i;

	for (i = 0; i < r->nc; i++) {
		struct qcore *c = &r->c[i];

		if (!c->q.block) {
			continue;
		}
		while (qb_queue_pop(&c->q.block->up, &m)) {
			uint64_t now;

			/* msg_recv is stamped after the message was taken. */
			SIM_MT(&r->tr,
			       hetrace_master_trace_msg_recv(
				   &r->tr.rt.ctx, m.id, c->core_id, m.size));
			now = sim_ref_now_ns();
			if (c->busy && m.job == (uint32_t)c->busy_id) {
				c->busy = false;
			}
			c->jobs_done++;
			if (m.type != QB_JOB_STOP && c->next_job > 0 &&
			    r->res->nr_jobs < sizeof(r->res->jobs) /
						  sizeof(r->res->jobs[0])) {
				struct ht_qemu_job *j =
				    &r->res->jobs[r->res->nr_jobs++];

				snprintf(j->core, sizeof(j->core), "%s",
					 c->q.name);
				j->name = r->jobs[c->next_job - 1].name;
				j->arg = r->jobs[c->next_job - 1].arg;
				j->result = m.result;
				j->ticks = m.ticks;
				j->host_ns = now - c->sent_ns;
				ht_message_sendf(
				    r->o->progress, r->o->progress_arg,
				    "%.2f s  %-5s %-8s result %" PRIu64
				    "  %.3f ms on the core",
				    rel_s(r, now), c->q.name,
				    r->jobs[c->next_job - 1].name, m.result,
				    (double)m.ticks * 1e3 /
					(double)c->clock_hz);
			}
		}
	}
}

/* ---- Health ---- */

/* Marks @c stopped with a reason; returns HT_EIO. */
static int core_stopped(struct run *r, struct qcore *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int core_stopped(struct run *r, struct qcore *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
	c->stopped = true;
	set_err(r, "core %s stopped: %s", c->q.name, c->reason);
	return HT_EIO;
}

/*
 * The message for @c, which no longer answers the handshake (seen at
 * c->hang_ns). The recorder, once ended, says when the last answer
 * came (on its time axis, from its start); without its word the
 * launcher's own look at the ACK word stands in.
 */
static void hang_message(struct run *r, struct qcore *c)
{
	const struct ht_board_core_result *cr = rec_core(r, c->q.name);
	uint64_t last = c->last_ack_ns ? c->last_ack_ns : r->rec.start_ns;

	if (cr && cr->sync_status == HT_BOARD_SYNC_STOPPED &&
	    cr->last_ack_s >= 0) {
		last = r->rec.start_ns + (uint64_t)(cr->last_ack_s * 1e9);
	}
	(void)core_stopped(
	    r, c,
	    "no answer to sync request %u for %.1f s: last answer (ACK %u) "
	    "seen at %.3f s (the core hangs with its interrupts masked?)",
	    c->q.block->mbox.req,
	    (double)(c->hang_ns > last ? c->hang_ns - last : 0) / 1e9,
	    c->q.block->mbox.ack, rel_s(r, last));
}

static int core_hangs(struct run *r, struct qcore *c)
{
	c->hung = true;
	c->hang_ns = sim_ref_now_ns();
	hang_message(r, c);
	return HT_EIO;
}

static int check_core(struct run *r, struct qcore *c)
{
	struct qb_block *b = c->q.block;
	uint64_t now = sim_ref_now_ns();
	uint32_t req, ack;

	if (qlaunch_has_exited(&c->q)) {
		return core_stopped(r, c,
				    "QEMU (pid gone) ended at %.3f s "
				    "(status 0x%x): %s",
				    rel_s(r, now), c->q.status, c->q.cmdline);
	}
	if (b->state == QB_FAULT) {
		const struct qb_fault *f = &b->fault;
		uint64_t t = (uint64_t)f->ticks_hi << 32 | f->ticks_lo;

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		c->faulted = true;
		return core_stopped(
		    r, c,
		    "fault (exception/cause %u) at pc 0x%08x, address "
		    "0x%08x, status 0x%08x, at its clock %" PRIu64
		    " ticks (%.6f s); seen by the master at %.3f s",
		    f->kind, f->pc, f->addr, f->status, t,
		    (double)t / (double)c->clock_hz, rel_s(r, now));
	}
	req = b->mbox.req;
	ack = b->mbox.ack;
	if (!c->last_ack_ns || ack != c->last_ack) {
		/* Answered (or first look): the core takes interrupts. */
		c->last_ack = ack;
		c->last_ack_ns = now;
	} else if (req != HT_SYNC_SLAVE_IDLE && ack != req + 1u &&
		   now - c->last_ack_ns > HANG_WATCH_NS) {
		return core_hangs(r, c);
	}
	if (c->busy && now - c->sent_ns > JOB_TIMEOUT_NS) {
		return core_stopped(
		    r, c, "job %" PRIu64 " unanswered for %.0f s", c->busy_id,
		    (double)(now - c->sent_ns) / 1e9);
	}
	return 0;
}

/* The recorder ended while the board runs: a core it reports stopped
 * (its handshake unanswered), or its own failure. */
static int recorder_failed(struct run *r)
{
	unsigned i;

	stop_recorder(r);
	for (i = 0; i < r->nc; i++) {
		const struct ht_board_core_result *cr =
		    rec_core(r, r->c[i].q.name);

		if (cr && (cr->sync_status == HT_BOARD_SYNC_STOPPED ||
			   cr->sync_status == HT_BOARD_SYNC_NO_ACK)) {
			return core_hangs(r, &r->c[i]);
		}
	}
	set_err(r, "the recorder ended before the board: %s",
		r->rec.err[0] ? r->rec.err : "no error given");
	return r->rec.ret < 0 ? r->rec.ret : HT_EIO;
}

/* ---- The run ---- */

static void plan_jobs(struct run *r)
{
	static const struct job_spec full[] = {
	    {QB_JOB_SHA, 0, "sha/none"},    {QB_JOB_SHA, 1, "sha/1"},
	    {QB_JOB_SHA, 5, "sha/5"},	    {QB_JOB_SHA, 10, "sha/10"},
	    {QB_JOB_SHA, 100, "sha/100"},   {QB_JOB_PISUM, 2, "pisum"},
	    {QB_JOB_QSORT, 10000, "qsort"},
	};
	static const struct job_spec light[] = {
	    {QB_JOB_SHA, 1, "sha/1"},
	    {QB_JOB_PISUM, 1, "pisum"},
	    {QB_JOB_QSORT, 2000, "qsort"},
	};
	const struct job_spec *js = r->o->light ? light : full;
	unsigned n = r->o->light ? 3u : 7u, rep, i;
	unsigned reps = r->o->repeat ? r->o->repeat : 1u;

	r->nr_jobs = 0;
	for (rep = 0; rep < reps; rep++) {
		for (i = 0; i < n && r->nr_jobs < 32u; i++) {
			r->jobs[r->nr_jobs++] = js[i];
		}
	}
}

static bool stop_requested(const struct run *r)
{
	return r->o->stop && *r->o->stop;
}

/* Sends @c its next job when it has none in flight; *@more is false
 * once it has nothing left to do. 0 or HT_EIO (the core is stopped). */
static int dispatch(struct run *r, struct qcore *c, bool *more)
{
	bool fails = r->o->fail != HT_QEMU_FAIL_NONE && r->o->fail_core &&
		     !strcmp(r->o->fail_core, c->q.name);
	int ret;

	*more = true;
	if (c->busy) {
		return 0;
	}
	if (fails && c->jobs_done >= 1 && !c->fail_sent) {
		c->fail_sent = true;
		ht_message_sendf(r->o->progress, r->o->progress_arg,
				 "%.2f s  %-5s told to %s",
				 rel_s(r, sim_ref_now_ns()), c->q.name,
				 r->o->fail == HT_QEMU_FAIL_CRASH ? "crash"
								  : "hang");
		ret = send_job(r, c,
			       r->o->fail == HT_QEMU_FAIL_CRASH ? QB_JOB_CRASH
								: QB_JOB_HANG,
			       0);
		return ret < 0 ? core_stopped(r, c, "cannot send a job") : 0;
	}
	if (c->next_job < r->nr_jobs) {
		const struct job_spec *j = &r->jobs[c->next_job++];

		ret = send_job(r, c, j->type, j->arg);
		return ret < 0
			   ? core_stopped(r, c, "cannot send job %s", j->name)
			   : 0;
	}
	*more = false;
	return 0;
}

static int run_workload(struct run *r)
{
	uint64_t end_extra = 0;
	unsigned i;
	int ret;

	for (;;) {
		bool all_done = true, more = true;
		uint64_t now;

		receive(r);
		for (i = 0; i < r->nc; i++) {
			ret = check_core(r, &r->c[i]);
			if (ret == 0) {
				ret = dispatch(r, &r->c[i], &more);
			}
			if (ret < 0) {
				return ret;
			}
			all_done = all_done && !more;
		}
		if (recorder_ended(&r->rec)) {
			return recorder_failed(r);
		}
		if (stop_requested(r)) {
			r->res->interrupted = true;
			return 0;
		}
		now = sim_ref_now_ns();
		if (all_done) {
			if (!end_extra) {
				end_extra = now + r->o->extra_ns;
			}
			if (now >= end_extra) {
				return 0;
			}
		}
		sim_ref_sleep_ns(200000u);
	}
}

/* Asks every healthy core to stop tracing and waits for its ring. */
static void stop_cores(struct run *r)
{
	uint64_t deadline;
	unsigned i;
	bool waiting;

	for (i = 0; i < r->nc; i++) {
		struct qcore *c = &r->c[i];

		if (c->q.block && !c->stopped &&
		    c->q.block->state == QB_READY) {
			(void)send_job(r, c, QB_JOB_STOP, 0);
		}
	}
	deadline = sim_ref_now_ns() + STOP_WAIT_NS;
	do {
		receive(r);
		waiting = false;
		for (i = 0; i < r->nc; i++) {
			struct qcore *c = &r->c[i];

			if (c->q.block && !c->stopped &&
			    c->q.block->state == QB_READY &&
			    !qlaunch_has_exited(&c->q)) {
				waiting = true;
			}
		}
		if (waiting) {
			sim_ref_sleep_ns(1000000u);
		}
	} while (waiting && sim_ref_now_ns() < deadline);
	receive(r);
}

static int start_cores(struct run *r)
{
	const struct ht_qemu_opts *o = r->o;
	char qerr[4096];
	unsigned i;
	int ret;

	if (o->fw_cm3) {
		struct qcore *c = &r->c[r->nc++];

		c->q.name = "cm3";
		c->q.qemu = o->qemu_arm ? o->qemu_arm : "qemu-system-arm";
		c->q.firmware = o->fw_cm3;
		c->q.riscv = false;
		c->q.icount = o->icount_cm3;
		c->core_id = 1;
	}
	if (o->fw_rv32) {
		struct qcore *c = &r->c[r->nc++];

		c->q.name = "rv32";
		c->q.qemu =
		    o->qemu_riscv ? o->qemu_riscv : "qemu-system-riscv32";
		c->q.firmware = o->fw_rv32;
		c->q.riscv = true;
		c->q.icount = o->icount_rv32;
		c->core_id = 2;
	}
	for (i = 0; i < r->nc; i++) {
		struct qcore *c = &r->c[i];

		c->q.work_dir = o->work_dir;
		c->q.icount_shift = o->icount_shift;
		c->q.ram_fd = -1;
		ret = qlaunch_start(&c->q, 10000u, qerr, sizeof(qerr));
		if (ret < 0) {
			set_err(r, "%s", qerr);
			return ret;
		}
		c->started = true;
		if (c->q.block->core_id != c->core_id ||
		    strncmp(c->q.block->core_name, c->q.name, 16) != 0) {
			set_err(r,
				"%s: the firmware %s is core %u (%.16s), "
				"not %s",
				c->q.name, c->q.firmware, c->q.block->core_id,
				c->q.block->core_name, c->q.name);
			return HT_EINVAL;
		}
		c->clock_hz = c->q.block->clock_hz;
		ht_message_sendf(r->o->progress, r->o->progress_arg,
				 "%.2f s  %-5s booted: %s",
				 rel_s(r, sim_ref_now_ns()), c->q.name,
				 c->q.cmdline);
	}
	return 0;
}

/* What the recorder drained of core @name's ring into @cs, with the
 * sync rounds of a slave; returns the rounds' events on the master
 * (a sync_req per round, a sync_recv per answer). */
static uint64_t fill_recorded(const struct run *r, const char *name,
			      struct ht_qemu_core_stats *cs)
{
	const struct ht_board_core_result *cr = rec_core(r, name);

	if (!cr) {
		return 0;
	}
	if (cr->has_ring) {
		cs->packets = cr->ring.packets;
		cs->bytes = cr->ring.bytes;
		cs->discarded = cr->ring.events_discarded;
	}
	cs->sync_rounds = cr->sync.rounds;
	cs->sync_timeouts = cr->sync.timeouts;
	cs->sync_min_rtt_ns = cr->sync.min_rtt_ns;
	return cr->sync.rounds + cr->sync.answered;
}

static void fill_result(struct run *r)
{
	struct ht_qemu_result *res = r->res;
	struct ht_qemu_core_stats *m = &res->core[0];
	uint64_t sync_events = 0;
	unsigned i, n = 1;

	snprintf(m->name, sizeof(m->name), "%s", MASTER_NAME);
	m->role = "master";
	m->clock_hz = 1000000000u;
	(void)fill_recorded(r, MASTER_NAME, m);
	m->packets += r->rec.res.sync_ring.packets;
	m->bytes += r->rec.res.sync_ring.bytes;
	for (i = 0; i < r->nc; i++) {
		struct ht_qemu_core_stats *cs = &res->core[n];
		struct qcore *c = &r->c[i];

		if (!c->started) {
			continue;
		}
		snprintf(cs->name, sizeof(cs->name), "%s", c->q.name);
		cs->core_id = c->core_id;
		cs->role = "slave";
		cs->clock_hz = c->clock_hz;
		cs->icount = c->q.icount;
		if (c->q.block) {
			cs->events = c->q.block->events;
			cs->irqs = c->q.block->irqs;
		}
		cs->jobs = c->jobs_done;
		cs->stopped = c->stopped;
		snprintf(cs->stop_reason, sizeof(cs->stop_reason), "%s",
			 c->reason);
		sync_events += fill_recorded(r, c->q.name, cs);
		n++;
	}
	m->events = r->master_events + sync_events;
	res->nr_cores = n;
}

/* The stopped core's message once the recorder has ended: a hang with
 * the recorder's time of the last answer; a fault with the last line
 * the core printed (its fault record), from the log the recorder's
 * doorbell kept. */
static void final_message(struct run *r)
{
	char line[256];
	size_t at;
	unsigned i;

	for (i = 0; i < r->nc; i++) {
		if (r->c[i].hung) {
			hang_message(r, &r->c[i]);
		}
		if (!r->c[i].faulted) {
			continue;
		}
		qlaunch_last_line(r->c[i].q.uart_path, line, sizeof(line));
		at = strlen(r->err);
		if (line[0] && at < r->err_len) {
			snprintf(r->err + at, r->err_len - at,
				 "; its UART said: %s", line);
		}
	}
}

static int teardown(struct run *r, int ret)
{
	int rr;
	unsigned i;

	if (r->rec.running && !recorder_ended(&r->rec)) {
		stop_cores(r);
	}
	if (r->tracing) {
		sim_master_tracer_stop(&r->tr);
	}
	if (r->rec.running) {
		rr = stop_recorder(r);
		if (rr < 0 && ret == 0) {
			set_err(r, "%s", r->rec.err);
			ret = rr;
		}
	}
	r->res->elapsed_ns = sim_ref_now_ns() - r->t0;
	fill_result(r);
	if (ret < 0) {
		final_message(r);
	}
	for (i = 0; i < r->nc; i++) {
		qlaunch_stop(&r->c[i].q);
	}
	ht_board_record_result_free(&r->rec.res);
	ht_board_free(r->rec.board);
	r->rec.board = NULL;
	if (r->tracing) {
		sim_master_tracer_fini(&r->tr);
	}
	if (r->mring_mem) {
		munmap(r->mring_mem, MASTER_RING_SIZE);
		r->mring_mem = NULL;
	}
	if (r->mring_fd >= 0) {
		close(r->mring_fd);
		unlink(r->mring_path);
	}
	return ret;
}

int ht_qemu_run(const struct ht_qemu_opts *opts, struct ht_qemu_result *res,
		char *err, size_t err_len)
{
	struct run *r;
	int ret;

	memset(res, 0, sizeof(*res));
	if (!opts->capture_dir || !opts->work_dir ||
	    (!opts->fw_cm3 && !opts->fw_rv32)) {
		snprintf(err, err_len, "invalid options");
		return HT_EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, err_len, "out of memory");
		return HT_ENOMEM;
	}
	r->o = opts;
	r->res = res;
	r->err = err;
	r->err_len = err_len;
	r->mring_fd = -1;
	r->t0 = sim_ref_now_ns();
	plan_jobs(r);

	ret = start_cores(r);
	if (ret == 0) {
		ret = setup_master(r);
	}
	if (ret == 0) {
		ret = write_board(r);
	}
	if (ret == 0) {
		ret = start_recorder(r);
	}
	if (ret == 0) {
		/* A few rounds before the first job: both sides of the fit. */
		sim_ref_sleep_ns(
		    (opts->sync_period_ns ? opts->sync_period_ns : 5000000u) *
		    4u);
		ret = run_workload(r);
	}
	ret = teardown(r, ret);
	free(r);
	return ret;
}
