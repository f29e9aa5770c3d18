/* SPDX-License-Identifier: MIT */
/*
 * The simulated board's launcher (docs/sim.md): creates the shared
 * memory, the cores' clocks and metadata, forks the slaves, writes the
 * board file and runs the generic master (host/collect/board-master.h:
 * the sync daemon and the collector) on a thread while the frame
 * pipeline runs on the main thread, then stops everything and writes
 * truth.json.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"
#include "hetrace/packet-ring.h"
#include "host/collect/board-master.h"
#include "host/collect/board.h"
#include "host/collect/lttng-ust.h"
#include "master-tracer.h"
#include "meta.h"
#include "platforms/sim/board.h"
#include "sim.h"

_Static_assert(HT_SIM_MAX_SLAVES == SIM_MAX_SLAVES,
	       "sim.h and board.h agree on the number of slaves");

extern const unsigned char ht_master_events_metadata[];
extern const unsigned char ht_sim_board_slave_metadata[];

/*
 * The slaves' clocks: every one different; dsp0's counter wraps about
 * half a second into the run, dsp2's frequency steps half-way (DVFS),
 * dsp1 is a 32.768 kHz RTC-like counter. Drifts stay within +-200 ppm.
 * The slaves after the eighth get clocks of slave_spec().
 */
struct core_spec {
	uint64_t freq_hz;
	int64_t drift_ppb;
	uint64_t start_ticks; /* counter at the start (< 2^32) */
	uint64_t step_hz;     /* frequency after the mid-run step, or 0 */
};

#define WRAP_SOON(hz, ms) ((1ull << 32) - (uint64_t)(hz) / 1000u * (ms))
#define NR_FIXED_SPECS 8u
#define MAX_DRIFT_PPB 200000

static const struct core_spec fixed_specs[NR_FIXED_SPECS] = {
    {1000000000u, 35200, WRAP_SOON(1000000000u, 500), 0},
    {32768u, -173500, 123456789u, 0},
    {600000000u, 12000, 0x80000000u, 1000000000u},
    {200000000u, 199000, 3000000000u, 0},
    {19200000u, -88000, 77777u, 0},
    {100000000u, -200000, 4000000000u, 0},
    {750000000u, 57000, 1000u, 0},
    {48000000u, -9500, 0xdeadbeefu, 0},
};

/* Crystal frequencies of the slaves after the eighth (MHz and GHz). */
static const uint64_t more_freqs_hz[] = {
    1000000000u, 800000000u, 600000000u, 500000000u, 400000000u, 300000000u,
    250000000u,	 200000000u, 160000000u, 125000000u, 100000000u, 80000000u,
    64000000u,	 50000000u,  48000000u,	 40000000u,  32000000u,	 25000000u,
    24000000u,	 19200000u,  16000000u,	 12000000u,  10000000u,
};

/*
 * The clock of slave @k (dsp<k>): the fixed ones first, then clocks
 * derived from k alone (the same in every run): a frequency of the table
 * above, a drift in [-200, +200] ppm, a counter start below 2^32 minus
 * one second of ticks. The tracer extends the counter from its first
 * read: a wrap between the model's start and that read (the slave
 * forked, its tracer set up: tens of ms with 64 slaves on 2 CPUs) would
 * put the whole trace 2^32 ticks early.
 */
static void slave_spec(unsigned k, struct core_spec *sp)
{
	uint64_t h;

	if (k < NR_FIXED_SPECS) {
		*sp = fixed_specs[k];
		return;
	}
	/* splitmix64 of k: well spread, deterministic. */
	h = (uint64_t)k * 0x9e3779b97f4a7c15ull;
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	h ^= h >> 31;
	sp->freq_hz = more_freqs_hz[k % (sizeof(more_freqs_hz) /
					 sizeof(more_freqs_hz[0]))];
	sp->drift_ppb =
	    (int64_t)(h % (2u * MAX_DRIFT_PPB + 1u)) - MAX_DRIFT_PPB;
	sp->start_ticks = (h >> 32) % ((1ull << 32) - sp->freq_hz);
	sp->step_hz = 0;
}

struct master {
	const struct ht_sim_opts *o;
	struct ht_sim_result *res;
	char *err;
	size_t err_len;

	unsigned nr; /* cores: master + slaves */
	struct sim_core_desc desc[SIM_MAX_CORES];
	char shm_name[64]; /* "/hetrace-sim-<pid>" */
	int shm_fd;
	int shm_created;
	size_t shm_size;
	struct sim_shared *sh;
	int sem_ready;
	int forked; /* slaves forked so far */

	/* The master core's application tracer (the pipeline's events). */
	struct sim_master_tracer tr;
	uint64_t next_msg_id;
	/* --lttng: the same sync and message events through LTTng-UST */
	const struct ht_lttng_ops *lt;

	/* The generic master, on its own thread. */
	struct ht_board *board;
	pthread_t rec_thread;
	int rec_running;
	volatile int rec_stop;
	int rec_started; /* atomic: the recorder runs */
	int rec_done;	 /* atomic: ht_board_record() returned */
	int rec_ret;
	char rec_err[1024];
	struct ht_board_record_result rec;

	/* Frame state, updated by the messages from the slaves. */
	uint32_t alloc_buf;
	unsigned alloc_done;
	unsigned stripes_done;
	uint8_t replied[SIM_MAX_CORES]; /* [k]: slave k sent its result */
	uint32_t edges;

	uint64_t t0, t_end;
};

static void set_err(struct master *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_err(struct master *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, m->err_len, fmt, ap);
	va_end(ap);
}

/* ---- Set-up ---- */

/*
 * The shared memory is a POSIX shm object named after the master's pid,
 * so that the board file can name it; it is unlinked as soon as the
 * recorder mapped it, and at the end on every path.
 */
static int setup_shared(struct master *m)
{
	unsigned nr_slaves = m->nr - 1u;
	uint64_t step_ns = m->t0 + m->o->duration_ns / 2u;
	struct sim_shared layout = {0};
	unsigned i;

	sim_layout(&layout, m->nr);
	m->shm_size = (size_t)layout.total_size;
	snprintf(m->shm_name, sizeof(m->shm_name), "/hetrace-sim-%ld",
		 (long)getpid());
	m->shm_fd =
	    shm_open(m->shm_name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (m->shm_fd < 0 && errno == EEXIST) {
		/* Left by a killed run of a process with this pid. */
		shm_unlink(m->shm_name);
		m->shm_fd = shm_open(
		    m->shm_name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	}
	if (m->shm_fd < 0) {
		set_err(m, "cannot create the shared memory %s: %s",
			m->shm_name, strerror(errno));
		return HT_EIO;
	}
	m->shm_created = 1;
	if (ftruncate(m->shm_fd, (off_t)m->shm_size) != 0) {
		set_err(m, "cannot size the shared memory %s (%zu bytes): %s",
			m->shm_name, m->shm_size, strerror(errno));
		return HT_EIO;
	}
	m->sh = mmap(NULL, m->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		     m->shm_fd, 0);
	if (m->sh == MAP_FAILED) {
		m->sh = NULL;
		set_err(m, "cannot map the shared memory %s: %s", m->shm_name,
			strerror(errno));
		return HT_EIO;
	}
	*m->sh = layout;
	m->sh->version = SIM_SHARED_VERSION;
	m->sh->size = (uint32_t)sizeof(*m->sh);
	m->sh->idle_spin_ns = m->o->idle_spin_ns;
	if (sem_init(&m->sh->master_irq, 1, 0) != 0) {
		set_err(m, "cannot create the master's semaphore: %s",
			strerror(errno));
		return HT_EIO;
	}
	m->sem_ready = 1;

	/* The master: the reference clock. */
	snprintf(m->desc[0].name, sizeof(m->desc[0].name), "arm0");
	m->desc[0].core_id = 0;
	m->desc[0].is_master = 1;
	m->desc[0].freq_hz = 1000000000u;
	ht__sim_make_uuid(m->desc[0].uuid, 0);
	for (i = 0; i < nr_slaves; i++) {
		struct core_spec sp;
		struct sim_core_desc *d = &m->desc[i + 1];
		struct sim_clock_model *cm = sim_clock(m->sh, i + 1);

		slave_spec(i, &sp);
		sim_clock_model_init(cm, m->t0, sp.freq_hz, sp.drift_ppb,
				     sp.start_ticks, 32, step_ns, sp.step_hz);
		snprintf(d->name, sizeof(d->name), "dsp%u", i);
		d->core_id = i + 1;
		d->freq_hz = sp.freq_hz;
		d->clock = cm;
		ht__sim_make_uuid(d->uuid, i + 1);
		ht_sync_slave_mbox_init(sim_mbox(m->sh, i + 1), i + 1);
	}

	for (i = 0; i < m->nr; i++) {
		const struct sim_core_desc *d = &m->desc[i];
		const char *tmpl =
		    (const char *)(i == 0 ? ht_master_events_metadata
					  : ht_sim_board_slave_metadata);
		char *meta;
		size_t len;
		int ret;

		ret = ht__sim_core_metadata(tmpl, d, m->desc[0].name,
					    "hetrace-sim", &meta, &len);
		if (ret < 0) {
			set_err(m, "cannot write the metadata of %s: %s",
				d->name, ht_strerror(ret));
			return ret;
		}
		if (!ht_ring_init(sim_ring_mem(m->sh, i), SIM_RING_SIZE,
				  SIM_SLOT_SIZE, HT_RING_DISCARD, i, d->name,
				  meta, (uint32_t)len)) {
			free(meta);
			set_err(m, "cannot lay out the ring of %s", d->name);
			return HT_EINVAL;
		}
		free(meta);
	}
	/* Everything above before the magic that says the region is ready. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	m->sh->magic = SIM_SHARED_MAGIC;
	return 0;
}

static int fork_slaves(struct master *m)
{
	pid_t self = getpid();
	sigset_t irqs, old;
	unsigned i;
	int ret = 0;

	/*
	 * A child inherits the mask: an interrupt raised before it installed
	 * its handlers stays pending instead of killing it.
	 */
	sigemptyset(&irqs);
	sigaddset(&irqs, SIGUSR1);
	sigaddset(&irqs, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &irqs, &old);
	for (i = 1; i < m->nr; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			set_err(m, "cannot start slave %s: %s", m->desc[i].name,
				strerror(errno));
			ret = HT_EIO;
			break;
		}
		if (pid == 0) {
			char comm[16];

			/* The master stops the slaves, not the terminal. */
			signal(SIGINT, SIG_IGN);
			signal(SIGTERM, SIG_IGN);
			signal(SIGHUP, SIG_IGN);
			/* Never outlive the master. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != self) {
				_exit(1);
			}
			snprintf(comm, sizeof(comm), "sim-%s", m->desc[i].name);
			prctl(PR_SET_NAME, comm);
			ht__sim_slave_main(m->sh, i);
		}
		*sim_pid(m->sh, i) = pid;
		m->forked++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static int check_slaves(struct master *m);

/* ---- The board file and the generic master ---- */

/* A duration in the board file's units: whole microseconds, at least 1. */
static uint64_t board_us(uint64_t ns)
{
	return ns >= 1000u ? (ns + 500u) / 1000u : 1u;
}

/*
 * The board file of this run (docs/sim.md, docs/board.md): the shared
 * memory as one shm region, every core's ring, each slave's mailbox and
 * its doorbell (SIGUSR1 to its process, kept off the daemon's CPU during
 * a burst), the sync timing of the options. Sets *@text (malloc'd).
 */
static int board_text(struct master *m, char **text, size_t *len)
{
	FILE *f = open_memstream(text, len);
	unsigned i;

	if (!f) {
		return HT_ENOMEM;
	}
	fprintf(f,
		"# The simulated board of `hetrace sim` (docs/sim.md), written "
		"by its\n"
		"# launcher and recorded by the generic master "
		"(docs/board.md).\n"
		"board: hetrace-sim\n"
		"regions:\n"
		"  shm0: {shm: %s, size: %zu}\n"
		"sync:\n"
		"  reference: %s\n"
		"  period: %" PRIu64 "us\n"
		"  timeout: 100ms\n"
		"  burst: %u\n"
		"  stall: 5s\n"
		"cores:\n",
		m->shm_name, m->shm_size, m->desc[0].name,
		board_us(m->o->sync_period_ns), m->o->sync_burst);
	for (i = 0; i < m->nr; i++) {
		uint64_t ring = (uint64_t)((uint8_t *)sim_ring_mem(m->sh, i) -
					   (uint8_t *)m->sh);

		fprintf(f, "  - name: %s\n", m->desc[i].name);
		fprintf(f, "    role: %s\n", i == 0 ? "master" : "slave");
		fprintf(f, "    id: %u\n", i);
		fprintf(f,
			"    ring: {region: shm0, offset: 0x%" PRIx64
			", size: %u}\n",
			ring, SIM_RING_SIZE);
		if (i == 0) {
			continue;
		}
		fprintf(f,
			"    mailbox: {region: shm0, offset: 0x%" PRIx64 "}\n",
			(uint64_t)((uint8_t *)sim_mbox(m->sh, i) -
				   (uint8_t *)m->sh));
		fprintf(f,
			"    doorbell:\n"
			"      signal: {pid: %ld, signal: SIGUSR1, pin-away: "
			"true}\n",
			(long)*sim_pid(m->sh, i));
	}
	if (fclose(f) != 0) {
		free(*text);
		*text = NULL;
		return HT_ENOMEM;
	}
	return 0;
}

/* On the recorder's thread: every ring attached, the daemon running. */
static void recorder_started(void *arg)
{
	struct master *m = arg;

	/* The recorder has mapped the region: its name is no longer needed. */
	shm_unlink(m->shm_name);
	__atomic_store_n(&m->rec_started, 1, __ATOMIC_SEQ_CST);
}

static void *recorder_main(void *arg)
{
	struct master *m = arg;
	struct ht_board_record_opts ro = {0};

	ro.capture_dir = m->o->capture_dir;
	ro.stop = &m->rec_stop;
	ro.quiet = true;
	ro.lttng = m->lt;
	ro.no_fsync = m->o->no_fsync;
	/* A ring of 1 MiB fills in seconds: polling it every 5 ms leaves
	 * the CPUs to the slaves and the sync daemon. */
	ro.interval_ms = 5;
	ro.warn = m->o->warn;
	ro.warn_arg = m->o->warn_arg;
	ro.started = recorder_started;
	ro.started_arg = m;
	m->rec_ret = ht_board_record(m->board, &ro, &m->rec, m->rec_err,
				     sizeof(m->rec_err));
	__atomic_store_n(&m->rec_done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * Writes the board file, loads it back as the recorder will read it
 * (named CAPTURE/board.yaml in messages: the recorder copies it there),
 * starts the recorder's thread and waits until it runs. HT_EIO with the
 * recorder's message when it could not start (a capture that cannot be
 * written or already exists).
 */
static int start_recorder(struct master *m)
{
	char path[4096];
	char *text = NULL;
	size_t len = 0;
	int ret;

	ret = board_text(m, &text, &len);
	if (ret < 0) {
		set_err(m, "cannot write the board file: %s", ht_strerror(ret));
		return ret;
	}
	snprintf(path, sizeof(path), "%s/board.yaml", m->o->capture_dir);
	ret = ht_board_load_text(path, text, len, NULL, &m->board, m->err,
				 m->err_len);
	free(text);
	if (ret < 0) {
		return ret;
	}
	if (pthread_create(&m->rec_thread, NULL, recorder_main, m) != 0) {
		set_err(m, "cannot start the recorder's thread");
		return HT_ENOMEM;
	}
	m->rec_running = 1;
	while (!__atomic_load_n(&m->rec_started, __ATOMIC_SEQ_CST)) {
		if (__atomic_load_n(&m->rec_done, __ATOMIC_SEQ_CST)) {
			pthread_join(m->rec_thread, NULL);
			m->rec_running = 0;
			set_err(m, "%s", m->rec_err);
			return m->rec_ret < 0 ? m->rec_ret : HT_EIO;
		}
		if (check_slaves(m) < 0) {
			return HT_EIO;
		}
		sim_ref_sleep_ns(1000000u);
	}
	return 0;
}

/* ---- The frame pipeline ---- */

static void master_send(struct master *m, uint32_t dst, struct sim_msg *msg)
{
	struct sim_msgq *q = sim_q(m->sh, 0, dst);

	msg->id = ++m->next_msg_id;
	/* msg_send is stamped before the message is visible. */
	SIM_MT(&m->tr, hetrace_master_trace_msg_send(&m->tr.rt.ctx, msg->id,
						     dst, msg->size));
	if (m->lt) {
		m->lt->msg_send(msg->id, dst, msg->size);
	}
	while (!sim_msgq_push(q, msg)) {
		/* The slave is behind: let it run. */
		sim_ref_sleep_ns(20000u);
	}
	kill(*sim_pid(m->sh, dst), SIGUSR2);
}

/* Takes every message the slaves queued for the master. */
static void master_receive(struct master *m)
{
	struct sim_msg msg;
	uint32_t src;

	for (src = 1; src < m->nr; src++) {
		while (sim_msgq_pop(sim_q(m->sh, src, 0), &msg)) {
			/* msg_recv is stamped after the message was taken. */
			SIM_MT(&m->tr,
			       hetrace_master_trace_msg_recv(
				   &m->tr.rt.ctx, msg.id, src, msg.size));
			if (m->lt) {
				m->lt->msg_recv(msg.id, src, msg.size);
			}
			if (msg.type == SIM_MSG_ALLOC_REPLY) {
				m->alloc_buf = msg.buf % SIM_NBUF;
				m->alloc_done = 1;
			} else if (msg.type == SIM_MSG_STRIPE_DONE) {
				m->stripes_done++;
				m->replied[src] = 1;
				m->edges += msg.edges;
			}
		}
	}
}

/*
 * HT_EIO when a slave process has ended (it never should on its own).
 * The zombie is left for stop_slaves(): its pid cannot be reused while
 * the daemon may still signal it.
 */
static int check_slaves(struct master *m)
{
	siginfo_t si;
	unsigned i;

	for (i = 1; i < m->nr; i++) {
		pid_t pid = *sim_pid(m->sh, i);

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si,
			   WEXITED | WNOHANG | WNOWAIT) != 0 ||
		    si.si_pid != pid) {
			continue;
		}
		if (si.si_code == CLD_EXITED) {
			set_err(m, "slave %s exited with status %d",
				m->desc[i].name, si.si_status);
		} else {
			set_err(m, "slave %s died: %s", m->desc[i].name,
				strsignal(si.si_status));
		}
		return HT_EIO;
	}
	return 0;
}

/*
 * Waits until *@done reaches @want; HT_EIO when a slave died or after a
 * long silence (naming the slaves that did not answer).
 */
static int master_wait(struct master *m, const volatile unsigned *done,
		       unsigned want, uint32_t frame, const char *what)
{
	uint64_t deadline = sim_ref_now_ns() + 5000000000ull;
	struct timespec ts;
	char missing[128];
	size_t at = 0;
	unsigned i;

	for (;;) {
		master_receive(m);
		if (*done >= want) {
			return 0;
		}
		if (check_slaves(m) < 0) {
			return HT_EIO;
		}
		if (sim_ref_now_ns() > deadline) {
			missing[0] = 0;
			for (i = 1; i < m->nr && at + 8 < sizeof(missing);
			     i++) {
				if (done == &m->alloc_done ? i == 1
							   : !m->replied[i]) {
					at += (size_t)snprintf(
					    missing + at, sizeof(missing) - at,
					    " %s", m->desc[i].name);
				}
			}
			set_err(m, "frame %" PRIu32 ": no %s after 5 s from:%s",
				frame, what, missing);
			return HT_EIO;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 2000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		(void)sem_clockwait(&m->sh->master_irq, CLOCK_MONOTONIC, &ts);
	}
}

static void fill_image(struct master *m, uint32_t buf, uint32_t frame)
{
	uint32_t x, y;

	/* A moving checkerboard: every frame has different edges. */
	for (y = 0; y < SIM_HEIGHT; y++) {
		for (x = 0; x < SIM_WIDTH; x++) {
			(*sim_image(m->sh, buf))[y][x] =
			    (uint8_t)(((x + frame * 7u) / 16u + y / 16u) % 2u
					  ? 200
					  : 30);
		}
	}
}

static int run_frame(struct master *m, uint32_t f, uint64_t release)
{
	unsigned nr_slaves = m->nr - 1u;
	unsigned a = nr_slaves >= 3 ? 2 : 1, b = a + 1; /* preempted slaves */
	int preempt = nr_slaves >= 2 && m->o->preempt_every &&
		      f % m->o->preempt_every == m->o->preempt_every - 1u;
	uint32_t rows = (SIM_HEIGHT + nr_slaves - 1u) / nr_slaves;
	struct sim_msg msg;
	uint64_t latency;
	unsigned k;
	int ret;

	SIM_MT(&m->tr,
	       hetrace_master_trace_path_begin(&m->tr.rt.ctx, "frame", f));
	SIM_MT(&m->tr,
	       hetrace_master_trace_frame_begin(&m->tr.rt.ctx, f, nr_slaves));

	/* dsp0 hands out the frame's buffers. */
	memset(&msg, 0, sizeof(msg));
	msg.type = SIM_MSG_ALLOC_REQ;
	msg.frame = f;
	msg.size = 16;
	m->alloc_done = 0;
	master_send(m, 1, &msg);
	ret = master_wait(m, &m->alloc_done, 1, f, "buffers");
	if (ret < 0) {
		return ret;
	}

	SIM_MT(&m->tr, hetrace_master_trace_activity_begin(
			   &m->tr.rt.ctx, "frame", "split", f));
	fill_image(m, m->alloc_buf, f);
	m->stripes_done = 0;
	memset(m->replied, 0, sizeof(m->replied));
	m->edges = 0;
	for (k = 0; k < nr_slaves; k++) {
		memset(&msg, 0, sizeof(msg));
		msg.type = SIM_MSG_STRIPE;
		msg.frame = f;
		msg.buf = m->alloc_buf;
		msg.row0 = k * rows;
		msg.rows = msg.row0 >= SIM_HEIGHT ? 0
			   : msg.row0 + rows > SIM_HEIGHT
			       ? SIM_HEIGHT - msg.row0
			       : rows;
		msg.size = msg.rows * SIM_WIDTH;
		if (preempt && (k + 1 == a || k + 1 == b)) {
			msg.hiprio = k + 1 == a ? SIM_HIPRIO_INITIATOR
						: SIM_HIPRIO_RESPONDER;
			msg.peer = k + 1 == a ? b : a;
			msg.hiprio_us = (uint32_t)(m->o->preempt_ns / 1000u);
		}
		master_send(m, k + 1, &msg);
	}
	SIM_MT(&m->tr, hetrace_master_trace_activity_end(&m->tr.rt.ctx, "frame",
							 "split", f));

	ret = master_wait(m, &m->stripes_done, nr_slaves, f, "stripe results");
	if (ret < 0) {
		return ret;
	}

	SIM_MT(&m->tr, hetrace_master_trace_activity_begin(
			   &m->tr.rt.ctx, "frame", "gather", f));
	memset(&msg, 0, sizeof(msg));
	msg.type = SIM_MSG_FREE;
	msg.frame = f;
	msg.buf = m->alloc_buf;
	msg.size = 16;
	master_send(m, 1, &msg);
	SIM_MT(&m->tr, hetrace_master_trace_activity_end(&m->tr.rt.ctx, "frame",
							 "gather", f));

	latency = sim_ref_now_ns() - release;
	m->res->frames++;
	if (latency > m->o->deadline_ns) {
		m->res->late_frames++;
	}
	SIM_MT(&m->tr,
	       hetrace_master_trace_frame_end(
		   &m->tr.rt.ctx, f, latency, m->o->deadline_ns, m->edges,
		   latency > m->o->deadline_ns ? "late" : "ok"));
	return 0;
}

static int stop_requested(const struct master *m)
{
	return (m->o->stop && *m->o->stop) ||
	       __atomic_load_n(&m->rec_done, __ATOMIC_SEQ_CST);
}

/* The recorder ended before the pipeline (a write error, a slave that
 * stopped answering): its message is the run's. */
static int recorder_ended(struct master *m)
{
	if (m->rec_ret < 0) {
		set_err(m, "%s", m->rec_err);
		return m->rec_ret;
	}
	set_err(m, "the recorder stopped before the end of the run");
	return HT_EIO;
}

static int run_pipeline(struct master *m)
{
	uint64_t start = sim_ref_now_ns();
	uint32_t f;
	int ret;

	for (f = 0;; f++) {
		uint64_t release = start + (uint64_t)f * m->o->frame_period_ns;
		uint64_t now;

		/* Sleeps until the frame's release, in steps (Ctrl-C). */
		while ((now = sim_ref_now_ns()) < release &&
		       !stop_requested(m)) {
			sim_ref_sleep_ns(release - now < 10000000u
					     ? release - now
					     : 10000000u);
		}
		if (__atomic_load_n(&m->rec_done, __ATOMIC_SEQ_CST)) {
			return recorder_ended(m);
		}
		if (stop_requested(m)) {
			m->res->interrupted = true;
			return 0;
		}
		if (release >= m->t0 + m->o->duration_ns) {
			return 0;
		}
		ret = run_frame(m, f, release);
		if (ret < 0) {
			return ret;
		}
	}
}

/* ---- Tear-down, from any stage of the set-up ---- */

/*
 * Stops the slaves and waits until they exited (each ends its stream
 * and stops its ring first); a slave still there after 3 s is killed.
 * They are reaped by reap_slaves().
 */
static void stop_slaves(struct master *m)
{
	uint64_t deadline;
	siginfo_t si;
	int i, left;

	if (!m->sh || !m->forked) {
		return;
	}
	m->sh->stop = 1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (i = 1; i <= m->forked; i++) {
		kill(*sim_pid(m->sh, i), SIGUSR2);
	}
	deadline = sim_ref_now_ns() + 3000000000ull;
	do {
		left = 0;
		for (i = 1; i <= m->forked; i++) {
			memset(&si, 0, sizeof(si));
			if (waitid(P_PID, (id_t)*sim_pid(m->sh, i), &si,
				   WEXITED | WNOHANG | WNOWAIT) != 0 ||
			    si.si_pid == 0) {
				left++;
			}
		}
		if (left) {
			sim_ref_sleep_ns(2000000u);
		}
	} while (left && sim_ref_now_ns() < deadline);
	if (left) {
		for (i = 1; i <= m->forked; i++) {
			kill(*sim_pid(m->sh, i), SIGKILL);
		}
	}
}

static void reap_slaves(struct master *m)
{
	int i;

	for (i = 1; i <= m->forked; i++) {
		waitpid(*sim_pid(m->sh, i), NULL, 0);
	}
	m->forked = 0;
}

static void fill_result(struct master *m)
{
	struct ht_sim_result *r = m->res;
	unsigned i;

	r->nr_cores = m->nr;
	for (i = 0; i < m->nr; i++) {
		struct ht_sim_core_stats *cs = &r->core[i];
		const struct sim_core_desc *d = &m->desc[i];

		snprintf(cs->name, sizeof(cs->name), "%s", d->name);
		cs->role = d->is_master ? "master" : "slave";
		cs->core_id = d->core_id;
		cs->freq_hz = d->freq_hz;
		if (m->sh) {
			cs->events = *sim_events(m->sh, i);
		}
		if (d->clock) {
			cs->wrapped = (sim_clock_ticks(d->clock, m->t_end) >>
				       32) != (d->clock->seg[0].ticks >> 32);
		}
		if (i < m->rec.nr_cores && m->rec.cores[i].has_ring) {
			const struct ht_capture_writer_stats *st =
			    &m->rec.cores[i].ring;

			cs->packets = st->packets;
			cs->bytes = st->bytes;
			cs->discarded = st->events_discarded;
		}
		if (i > 0 && i < m->rec.nr_cores) {
			const struct ht_sync_daemon_stats *st =
			    &m->rec.cores[i].sync;

			cs->sync_rounds = st->rounds;
			cs->sync_timeouts = st->timeouts;
			cs->sync_min_rtt_ns = st->min_rtt_ns;
			/* The master's sync_req and sync_recv (in its
			 * stream `sync`). */
			r->core[0].events += 2u * st->rounds - st->timeouts;
		}
	}
	if (m->rec.nr_cores) {
		r->core[0].packets += m->rec.sync_ring.packets;
		r->core[0].bytes += m->rec.sync_ring.bytes;
		r->core[0].discarded += m->rec.sync_ring.events_discarded;
	}
}

static int teardown(struct master *m, int ret)
{
	char path[4096];
	int r;

	stop_slaves(m);
	sim_master_tracer_stop(&m->tr);
	/*
	 * Reaped before the recorder stops: its sync daemon ends a pass
	 * over every slave before it sees the stop, and a round with an
	 * exited slave fails at once when the pid is gone (kill() fails),
	 * where a zombie's round would wait its whole timeout (64 slaves x
	 * 3 rounds x 100 ms). Pids are allocated cyclically: one of these
	 * is reused by another process only after pid_max others, not in
	 * the milliseconds until the daemon stops.
	 */
	if (m->sh) {
		reap_slaves(m);
	}
	if (m->rec_running) {
		/* Every core's ring stopped: the recorder's last drain holds
		 * everything. */
		m->rec_stop = 1;
		pthread_join(m->rec_thread, NULL);
		m->rec_running = 0;
		if (m->rec_ret < 0 && ret == 0) {
			set_err(m, "%s", m->rec_err);
			ret = m->rec_ret;
		}
	}
	/* Every core stopped tracing, the sync daemon too: the traces end
	 * before this. */
	m->t_end = sim_ref_now_ns();
	if (m->rec_started) {
		snprintf(path, sizeof(path), "%s/truth.json",
			 m->o->capture_dir);
		r = ht__sim_write_truth(path, m->desc, m->nr, m->t0, m->t_end);
		if (r < 0 && ret == 0) {
			set_err(m, "cannot write %s: %s", path,
				strerror(errno));
			ret = r;
		}
	}
	fill_result(m);
	m->res->elapsed_ns = m->t_end - m->t0;
	ht_board_record_result_free(&m->rec);
	ht_board_free(m->board);
	m->board = NULL;
	if (m->sh) {
		if (m->sem_ready) {
			sem_destroy(&m->sh->master_irq);
		}
		munmap(m->sh, m->shm_size);
		m->sh = NULL;
	}
	if (m->shm_fd >= 0) {
		close(m->shm_fd);
	}
	if (m->shm_created) {
		/* Gone already when the recorder started (ENOENT then). */
		shm_unlink(m->shm_name);
	}
	sim_master_tracer_fini(&m->tr);
	return ret;
}

int ht_sim_run(const struct ht_sim_opts *opts, struct ht_sim_result *res,
	       char *err, size_t err_len)
{
	struct ht_sim_opts o = *opts;
	struct master *m;
	uint64_t settle_ns;
	unsigned i;
	int ret;

	memset(res, 0, sizeof(*res));
	if (!o.capture_dir || o.nr_slaves > HT_SIM_MAX_SLAVES ||
	    o.idle_spin_ns > 1000000000u) {
		snprintf(err, err_len, "invalid options");
		return HT_EINVAL;
	}
	if (!o.nr_slaves) {
		o.nr_slaves = 8;
	}
	if (!o.duration_ns) {
		o.duration_ns = 3000000000ull;
	}
	if (!o.frame_period_ns) {
		o.frame_period_ns = 33000000u;
	}
	if (!o.deadline_ns) {
		o.deadline_ns = 16000000u;
	}
	if (!o.sync_period_ns) {
		o.sync_period_ns = 10000000u;
	}
	if (!o.preempt_every) {
		o.preempt_every = 10;
	}
	if (!o.sync_burst) {
		o.sync_burst = 3;
	}
	if (!o.preempt_ns) {
		o.preempt_ns = 20000000u;
	}

	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, err_len, "out of memory");
		return HT_ENOMEM;
	}
	m->o = &o;
	m->res = res;
	m->err = err;
	m->err_len = err_len;
	m->nr = o.nr_slaves + 1u;
	m->shm_fd = -1;
	m->t0 = sim_ref_now_ns();

	ret = setup_shared(m);
	if (ret < 0) {
		goto out;
	}
	/* The slaves before any thread: fork() copies only the caller. */
	ret = fork_slaves(m);
	if (ret < 0) {
		goto out;
	}
	if (o.lttng) {
		/* After the fork: the slaves do not inherit lttng-ust. */
		char lerr[768];

		ret = ht_lttng_load(&m->lt, lerr, sizeof(lerr));
		if (ret < 0) {
			set_err(m, "--lttng: %s", lerr);
			goto out;
		}
	}
	sim_master_tracer_start(&m->tr,
				(struct ht_ring *)sim_ring_mem(m->sh, 0),
				sim_events(m->sh, 0));

	/*
	 * The handshake starts before the workload, as a board syncs its
	 * cores at boot: the slaves answer while they wait for the go, so
	 * the traces begin with rounds on a quiet board (otherwise the
	 * widest bounds were at the start).
	 */
	ret = start_recorder(m);
	if (ret < 0) {
		goto out;
	}
	settle_ns = 2u * o.sync_period_ns;
	sim_ref_sleep_ns(settle_ns < 100000000u ? settle_ns : 100000000u);
	/* Go: the slaves leave their wait, the workload starts. */
	m->sh->go = 1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (i = 1; i < m->nr; i++) {
		kill(*sim_pid(m->sh, i), SIGUSR2);
	}
	ret = run_pipeline(m);
out:
	ret = teardown(m, ret);
	free(m);
	return ret;
}
