/* SPDX-License-Identifier: MIT */
/*
 * The QEMU board's master (qemu-run.h, docs/qemu.md): starts the QEMU
 * cores, traces its own side with the simulated board's master tracer
 * (host/collect/master-events.yaml: the same events), runs the sync
 * daemon against the cores' mailboxes (the interrupt: a byte on the
 * core's serial socket), hands out the workload through the
 * shared-memory queues, drains every ring into the capture, watches
 * the cores (QEMU gone, a fault record, a handshake left unanswered),
 * and stops everything on every path.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "master-events.h"
#include "platforms/qemu/qemu-board.h"
#include "platforms/sim/master/master-tracer.h"
#include "platforms/sim/master/meta.h"
#include "platforms/sim/clock-model.h"
#include "host/collect/capture-writer.h"
#include "common/error.h"
#include "common/message.h"
#include "hetrace/packet-ring.h"
#include "qemu-launch.h"
#include "qemu-run.h"
#include "host/collect/sync-daemon.h"

extern const unsigned char ht_master_events_metadata[];

/* The layout both sides compile must be the same (qemu-board.h). */
_Static_assert(sizeof(struct qb_msg) == 48, "qb_msg layout");
_Static_assert(sizeof(struct qb_block) == 6784, "qb_block layout");

#define MASTER_RING_SIZE (4u << 20)
#define MASTER_NAME "linux"
#define HANG_NS 1500000000ull	   /* a request unanswered this long */
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
	char reason[256];

	/* Jobs: the next to send, the one in flight. */
	unsigned next_job;
	bool busy;
	uint64_t busy_id;
	uint64_t sent_ns;
	uint64_t jobs_done;
	bool fail_sent;

	/* Hang detection: when the ACK word last moved. */
	uint32_t last_ack;
	uint64_t last_ack_ns;
};

struct run {
	const struct ht_qemu_opts *o;
	struct ht_qemu_result *res;
	char *err;
	size_t err_len;

	struct qcore c[2];
	unsigned nc;

	/* The master's tracer and its ring (private memory). */
	uint8_t *mring_mem;
	struct ht_ring *mring;
	struct sim_master_tracer tr;
	uint64_t next_msg_id;
	uint64_t master_events;

	struct ht_sync_daemon *sd;
	struct ht_capture_writer *col;
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

static int raise_irq(void *arg)
{
	return qlaunch_raise_irq(arg);
}

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

static int setup_master(struct run *r)
{
	char *meta = NULL;
	size_t len = 0;
	int ret;

	ret = master_metadata(&meta, &len);
	if (ret < 0) {
		set_err(r, "cannot write the master's metadata: %s",
			ht_strerror(ret));
		return ret;
	}
	r->mring_mem = aligned_alloc(4096, MASTER_RING_SIZE);
	if (!r->mring_mem) {
		free(meta);
		set_err(r, "out of memory");
		return HT_ENOMEM;
	}
	memset(r->mring_mem, 0, MASTER_RING_SIZE);
	r->mring =
	    ht_ring_init(r->mring_mem, MASTER_RING_SIZE, QB_SLOT_SIZE,
			 HT_RING_DISCARD, 0, MASTER_NAME, meta, (uint32_t)len);
	free(meta);
	if (!r->mring) {
		set_err(r, "cannot lay out the master's ring");
		return HT_EINVAL;
	}
	sim_master_tracer_start(&r->tr, r->mring, &r->master_events);
	return 0;
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
	hetrace_master_trace_msg_send(&r->tr.ctx, m.id, c->core_id, m.size);
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
	return qlaunch_raise_irq(&c->q);
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
				   &r->tr.ctx, m.id, c->core_id, m.size));
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

static int check_core(struct run *r, struct qcore *c)
{
	struct qb_block *b = c->q.block;
	uint64_t now = sim_ref_now_ns();
	uint32_t req, ack;

	qlaunch_poll_uart(&c->q);
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
		   now - c->last_ack_ns > HANG_NS) {
		return core_stopped(
		    r, c,
		    "no answer to sync request %u for %.1f s: last answer "
		    "(ACK %u) seen at %.3f s (the core hangs with its "
		    "interrupts masked?)",
		    req, (double)(now - c->last_ack_ns) / 1e9, ack,
		    rel_s(r, c->last_ack_ns));
	}
	if (c->busy && now - c->sent_ns > JOB_TIMEOUT_NS) {
		return core_stopped(
		    r, c, "job %" PRIu64 " unanswered for %.0f s", c->busy_id,
		    (double)(now - c->sent_ns) / 1e9);
	}
	return 0;
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

static int run_workload(struct run *r)
{
	uint64_t last_drain = 0, end_extra = 0;
	unsigned i;
	int ret;

	for (;;) {
		bool all_done = true;
		uint64_t now;

		receive(r);
		for (i = 0; i < r->nc; i++) {
			struct qcore *c = &r->c[i];
			bool fails = r->o->fail != HT_QEMU_FAIL_NONE &&
				     r->o->fail_core &&
				     !strcmp(r->o->fail_core, c->q.name);

			ret = check_core(r, c);
			if (ret < 0) {
				return ret;
			}
			if (c->busy) {
				all_done = false;
				continue;
			}
			if (fails && c->jobs_done >= 1 && !c->fail_sent) {
				c->fail_sent = true;
				ht_message_sendf(
				    r->o->progress, r->o->progress_arg,
				    "%.2f s  %-5s told to %s",
				    rel_s(r, sim_ref_now_ns()), c->q.name,
				    r->o->fail == HT_QEMU_FAIL_CRASH ? "crash"
								     : "hang");
				ret = send_job(r, c,
					       r->o->fail == HT_QEMU_FAIL_CRASH
						   ? QB_JOB_CRASH
						   : QB_JOB_HANG,
					       0);
				if (ret < 0) {
					return core_stopped(
					    r, c, "cannot send a job");
				}
				all_done = false;
				continue;
			}
			if (c->next_job < r->nr_jobs) {
				const struct job_spec *j =
				    &r->jobs[c->next_job++];

				ret = send_job(r, c, j->type, j->arg);
				if (ret < 0) {
					return core_stopped(
					    r, c, "cannot send job %s",
					    j->name);
				}
				all_done = false;
			}
		}
		now = sim_ref_now_ns();
		if (now - last_drain > 5000000u) {
			ret = ht_capture_writer_drain(r->col, NULL);
			if (ret < 0) {
				set_err(r, "cannot write the capture in %s: %s",
					r->o->capture_dir, ht_strerror(ret));
				return ret;
			}
			last_drain = now;
		}
		if (stop_requested(r)) {
			r->res->interrupted = true;
			return 0;
		}
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

static int create_collector(struct run *r)
{
	struct ht_capture_writer_opts co = {0};
	struct ht_capture_writer_ring_opts ro = {0};
	char cerr[512];
	unsigned i;
	int ret;

	co.warn = r->o->warn;
	co.warn_arg = r->o->warn_arg;
	co.no_fsync = r->o->no_fsync;
	ret = ht_capture_writer_create(&r->col, r->o->capture_dir, &co, cerr,
				       sizeof(cerr));
	if (ret < 0) {
		set_err(r, "%s", cerr);
		return ret;
	}
	ro.core_name = MASTER_NAME;
	ro.core_role = "master";
	ret = ht_capture_writer_add_memory(
	    r->col, r->mring_mem, MASTER_RING_SIZE, &ro, cerr, sizeof(cerr));
	for (i = 0; ret == 0 && i < r->nc; i++) {
		struct qcore *c = &r->c[i];
		struct qb_block *b = c->q.block;

		memset(&ro, 0, sizeof(ro));
		ro.core_name = c->q.name;
		ro.core_role = "slave";
		ro.core_master = MASTER_NAME;
		ret = ht_capture_writer_add_memory(
		    r->col, (uint8_t *)b + b->ring_off, b->ring_size, &ro, cerr,
		    sizeof(cerr));
	}
	if (ret < 0) {
		set_err(r, "%s", cerr);
	}
	return ret;
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
		c->q.sock = -1;
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

static void fill_result(struct run *r)
{
	struct ht_qemu_result *res = r->res;
	unsigned i, n = 0;

	for (i = 0; i <= r->nc; i++) {
		struct ht_qemu_core_stats *cs = &res->core[n];
		struct qcore *c = i ? &r->c[i - 1] : NULL;

		if (c && !c->started) {
			continue;
		}
		snprintf(cs->name, sizeof(cs->name), "%s",
			 c ? c->q.name : MASTER_NAME);
		cs->core_id = c ? c->core_id : 0;
		cs->role = c ? "slave" : "master";
		cs->clock_hz = c ? c->clock_hz : 1000000000u;
		cs->icount = c && c->q.icount;
		cs->events = c ? (c->q.block ? c->q.block->events : 0)
			       : r->master_events;
		if (c && c->q.block) {
			cs->irqs = c->q.block->irqs;
		}
		cs->jobs = c ? c->jobs_done : 0;
		cs->stopped = c && c->stopped;
		if (c) {
			snprintf(cs->stop_reason, sizeof(cs->stop_reason), "%s",
				 c->reason);
		}
		if (r->col && n < ht_capture_writer_nr_rings(r->col)) {
			struct ht_capture_writer_stats st;

			ht_capture_writer_stats(r->col, n, &st);
			cs->packets = st.packets;
			cs->bytes = st.bytes;
			cs->discarded = st.events_discarded;
		}
		if (c && r->sd) {
			struct ht_sync_daemon_stats st;

			ht_sync_daemon_stats(r->sd, i - 1, &st);
			cs->sync_rounds = st.rounds;
			cs->sync_timeouts = st.timeouts;
			cs->sync_min_rtt_ns = st.min_rtt_ns;
		}
		n++;
	}
	res->nr_cores = n;
}

static int teardown(struct run *r, int ret)
{
	char cerr[512];
	unsigned i;
	int rr;

	if (r->sd) {
		ht_sync_daemon_stop(r->sd);
	}
	if (r->col) {
		stop_cores(r);
	}
	sim_master_tracer_stop(&r->tr);
	if (r->col) {
		rr = ht_capture_writer_finish(r->col, cerr, sizeof(cerr));
		if (rr < 0 && ret == 0) {
			set_err(r, "%s", cerr);
			ret = rr;
		}
	}
	r->res->elapsed_ns = sim_ref_now_ns() - r->t0;
	fill_result(r);
	for (i = 0; i < r->nc; i++) {
		qlaunch_stop(&r->c[i].q);
	}
	ht_sync_daemon_destroy(r->sd);
	r->sd = NULL;
	ht_capture_writer_destroy(r->col);
	r->col = NULL;
	if (r->mring_mem) {
		free(r->mring_mem);
		r->mring_mem = NULL;
	}
	sim_master_tracer_fini(&r->tr);
	return ret;
}

int ht_qemu_run(const struct ht_qemu_opts *opts, struct ht_qemu_result *res,
		char *err, size_t err_len)
{
	struct ht_sync_daemon_slave slaves[2] = {0};
	struct ht_sync_daemon_opts so = {0};
	struct run *r;
	unsigned i;
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
	r->t0 = sim_ref_now_ns();
	plan_jobs(r);

	ret = start_cores(r);
	if (ret < 0) {
		goto out;
	}
	ret = setup_master(r);
	if (ret < 0) {
		goto out;
	}
	ret = create_collector(r);
	if (ret < 0) {
		goto out;
	}
	for (i = 0; i < r->nc; i++) {
		slaves[i].mbox = &r->c[i].q.block->mbox;
		slaves[i].core_id = r->c[i].core_id;
		slaves[i].raise_irq = raise_irq;
		slaves[i].raise_arg = &r->c[i].q;
	}
	so.period_ns = opts->sync_period_ns ? opts->sync_period_ns : 5000000u;
	so.trace_req = sim_master_tracer_sync_req;
	so.trace_recv = sim_master_tracer_sync_recv;
	so.trace_arg = &r->tr;
	ret = ht_sync_daemon_create(&r->sd, &so, slaves, r->nc);
	if (ret < 0) {
		set_err(r, "cannot create the sync daemon: %s",
			ht_strerror(ret));
		goto out;
	}
	ret = ht_sync_daemon_start(r->sd);
	if (ret < 0) {
		set_err(r, "cannot start the sync daemon: %s",
			ht_strerror(ret));
		goto out;
	}
	/* A few rounds before the first job: both sides of the fit. */
	sim_ref_sleep_ns(so.period_ns * 4u);
	ret = run_workload(r);
out:
	ret = teardown(r, ret);
	free(r);
	return ret;
}
