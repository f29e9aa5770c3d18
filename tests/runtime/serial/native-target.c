/* SPDX-License-Identifier: MIT */
/*
 * A Linux process that acts as an MCU on a serial line, for the tests
 * of the serial link's host side (build-target.sh builds it):
 *
 *   native-target (--unix PATH | --pty) [--retained FILE] [--overwrite]
 *       [--slot-size N] [--slots N] [--exit-after S] [--step-us N]
 *       [--name NAME]
 *
 * - The line: a unix socket it listens on (one host at a time; with no
 *   host connected the bytes it sends are lost, as on a UART with no
 *   cable), or a pseudo-terminal whose slave path it prints on stdout.
 * - The receive interrupt: the line's fd raises SIGIO (O_ASYNC); the
 *   handler reads what is there and feeds ht_serial_target_rx(), so a
 *   sync request is stamped while the workload runs. The rest of the
 *   program blocks SIGIO where an MCU masks interrupts (packet flush).
 * - The workload (native-workload.c, instrumented) runs in a loop;
 *   ht_serial_target_poll() runs between steps and while it sleeps
 *   (--step-us, default 10000).
 * - Retained RAM: --retained FILE, mmap'd, so it survives the process.
 *   REBOOT re-executes /proc/self/exe with the same arguments; the line's
 *   fds are inherited (NT_LINE_FDS), like a UART across a reset.
 * - Its GNU build id (from its own ELF note) goes into HELLO.
 * Built without -pie: function addresses are nm's, as on an MCU.
 *
 * Not instrumented (only native-workload.c is).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t nt_clock(void *data)
{
	struct timespec ts;

	(void)data;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define HT_CLOCK_CLK_FN nt_clock

#include "hetrace/ring-stream.h"
#include "hetrace/serial-target.h"
#include "native-workload.h"
#include "nt-trace.h"

extern const unsigned char nt_metadata[];
/* The image's first byte (GNU ld defines it). */
extern char __executable_start;

static struct {
	struct nt_core_ctx ctx;
	uint8_t placeholder[64];
	void *mem;
	struct ht_ring *ring;
	struct ht_ring_stream rs;
	struct ht_instr in;
	struct ht_instr_frame stack[256];
	struct ht_instr_func funcs[1024];
	struct ht_serial_target st;
	struct ht_serial_retained *ret;
	struct ht_serial_retained ret_ram; /* without --retained */
	uint8_t build_id[20];
	uint32_t build_id_len;
	int lfd;		    /* listening socket, or -1 */
	volatile int cfd;	    /* the line: client socket or pty master */
	int slave;		    /* the pty's slave, kept open */
	volatile sig_atomic_t gone; /* the host closed the line */
	volatile sig_atomic_t stop; /* SIGTERM / SIGINT */
	uint64_t events;
	uint64_t end_ns, step_ns;
	char **argv;
} nt = {.lfd = -1, .cfd = -1, .slave = -1};

/* ---- Tracer glue ---- */

static void emit_entry(void *ctx, uintptr_t fn, uintptr_t site, uint32_t task)
{
	(void)task;
	nt.events++;
	nt_trace_func_entry(ctx, fn, site);
}

static void emit_exit(void *ctx, uintptr_t fn, uint32_t task)
{
	(void)task;
	nt.events++;
	nt_trace_func_exit(ctx, fn);
}

static void emit_base(void *ctx, uintptr_t base)
{
	nt_trace_func_base(ctx, base);
}

static void emit_profile(void *ctx, const struct ht_instr_func *f)
{
	nt_trace_func_profile(ctx, f->addr, f->calls, f->incl, f->excl, f->max);
}

static void emit_stats(void *ctx, const struct ht_instr_stats *s)
{
	nt_trace_func_profile_stats(ctx, s->lost_calls, s->deep_calls,
				    s->unbalanced, s->nested);
}

static const struct ht_instr_ops instr_ops = {
    .entry = emit_entry,
    .exit = emit_exit,
    .base = emit_base,
    .profile = emit_profile,
    .stats = emit_stats,
};

static void open_cb(void *ctx)
{
	nt_core_open_packet(ctx);
}

static void close_cb(void *ctx)
{
	nt_core_close_packet(ctx);
}

static void trace_ack(void *arg, uint32_t seq)
{
	(void)arg;
	nt_trace_sync_ack(&nt.ctx, seq);
}

static void trace_notify(void *arg, uint32_t seq)
{
	(void)arg;
	nt_trace_sync_notify(&nt.ctx, seq);
}

static const struct ht_sync_slave_ops sync_ops = {
    .trace_ack = trace_ack,
    .trace_notify = trace_notify,
};

/* ---- The "interrupt" ---- */

static void irq_mask(int masked)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGIO);
	sigprocmask(masked ? SIG_BLOCK : SIG_UNBLOCK, &s, NULL);
}

static void on_sigio(int sig)
{
	int e = errno, fd = nt.cfd;
	uint8_t b[256];
	ssize_t n, i;

	(void)sig;
	if (fd < 0) {
		return;
	}
	while ((n = read(fd, b, sizeof(b))) > 0) {
		for (i = 0; i < n; i++) {
			ht_serial_target_rx(&nt.st, b[i]);
		}
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		nt.gone = 1;
	}
	errno = e;
}

static void on_term(int sig)
{
	(void)sig;
	nt.stop = 1;
}

/* The line raises SIGIO on input; then takes what is already there. */
static void line_arm(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK | O_ASYNC);
	fcntl(fd, F_SETOWN, getpid());
	nt.cfd = fd;
	irq_mask(1);
	on_sigio(SIGIO);
	irq_mask(0);
}

/* ---- Port ops ---- */

static uint32_t port_put(void *arg, const uint8_t *p, uint32_t n)
{
	ssize_t k;

	(void)arg;
	if (nt.cfd < 0 || nt.gone) {
		return n; /* no cable: the bytes are lost */
	}
	k = write(nt.cfd, p, n);
	if (k < 0) {
		if (errno == EAGAIN || errno == EINTR) {
			return 0;
		}
		nt.gone = 1;
		return n;
	}
	return (uint32_t)k;
}

static uint64_t port_clock(void *arg)
{
	return nt_clock(arg);
}

/* Closes the open packet (committed) and opens the next one. */
static void port_flush(void *arg)
{
	(void)arg;
	irq_mask(1);
	if (nt_packet_is_open(&nt.ctx) && !nt_packet_is_empty(&nt.ctx)) {
		ht_ring_stream_close(&nt.rs);
		if (!ht_ring_is_full(nt.ring)) {
			ht_ring_stream_open(&nt.rs);
		}
	}
	irq_mask(0);
}

static void port_pause(void *arg, int paused)
{
	(void)arg;
	nt_enable_tracing(&nt.ctx, !paused);
}

static void port_counts(void *arg, uint64_t *events, uint64_t *discarded)
{
	(void)arg;
	*events = nt.events;
	*discarded =
	    ht_stream_discarded(&nt.ctx.parent.s) + ht_instr_discarded(&nt.in);
}

/* A reset: the same program again, the line and retained RAM kept. */
static void port_reboot(void *arg)
{
	char fds[64];

	(void)arg;
	irq_mask(1); /* stays blocked until the new image has its handler */
	if (nt.ret != &nt.ret_ram) {
		msync(nt.ret, sizeof(*nt.ret), MS_SYNC);
	}
	snprintf(fds, sizeof(fds), "%d %d %d", nt.lfd, nt.cfd, nt.slave);
	setenv("NT_LINE_FDS", fds, 1);
	fcntl(nt.cfd, F_SETFL, fcntl(nt.cfd, F_GETFL) & ~O_ASYNC);
	execv("/proc/self/exe", nt.argv);
	perror("native-target: execv /proc/self/exe");
	_exit(1);
}

static const struct ht_serial_target_ops port_ops = {
    .put = port_put,
    .clock = port_clock,
    .flush = port_flush,
    .reboot = port_reboot,
    .counts = port_counts,
    .pause = port_pause,
};

/* ---- Set-up ---- */

static int note_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	int i;

	(void)size;
	(void)data;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p, *end;

		if (ph->p_type != PT_NOTE) {
			continue;
		}
		p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const void *)p;
			const uint8_t *name = p + sizeof(*nh);
			const uint8_t *desc =
			    name + ((nh->n_namesz + 3u) & ~3u);

			if (nh->n_type == NT_GNU_BUILD_ID &&
			    nh->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
				nt.build_id_len =
				    nh->n_descsz > 20 ? 20 : nh->n_descsz;
				memcpy(nt.build_id, desc, nt.build_id_len);
				return 1;
			}
			p = desc + ((nh->n_descsz + 3u) & ~3u);
		}
	}
	return 1; /* the first object is the program */
}

static void retained_map(const char *path)
{
	int fd;
	void *m;

	nt.ret = &nt.ret_ram;
	if (!path) {
		return;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, sizeof(*nt.ret)) < 0) {
		perror(path);
		exit(1);
	}
	m = mmap(NULL, sizeof(*nt.ret), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 0);
	if (m == MAP_FAILED) {
		perror(path);
		exit(1);
	}
	close(fd);
	nt.ret = m;
}

static void line_open(const char *unix_path, int pty)
{
	const char *inh = getenv("NT_LINE_FDS");
	struct sockaddr_un a;
	struct termios tio;

	if (inh && sscanf(inh, "%d %d %d", &nt.lfd, &nt.cfd, &nt.slave) == 3) {
		unsetenv("NT_LINE_FDS");
		if (nt.cfd >= 0) {
			line_arm(nt.cfd);
		}
		return;
	}
	if (pty) {
		int m = posix_openpt(O_RDWR | O_NOCTTY);

		if (m < 0 || grantpt(m) || unlockpt(m)) {
			perror("native-target: pty");
			exit(1);
		}
		/* Kept open: the host may close and reopen its side. */
		nt.slave = open(ptsname(m), O_RDWR | O_NOCTTY);
		if (nt.slave < 0 || tcgetattr(nt.slave, &tio)) {
			perror("native-target: pty slave");
			exit(1);
		}
		cfmakeraw(&tio);
		tcsetattr(nt.slave, TCSANOW, &tio);
		printf("%s\n", ptsname(m));
		fflush(stdout);
		line_arm(m);
		return;
	}
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	if (strlen(unix_path) >= sizeof(a.sun_path)) {
		fprintf(stderr, "native-target: %s: path too long\n",
			unix_path);
		exit(2);
	}
	strcpy(a.sun_path, unix_path);
	unlink(unix_path);
	nt.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (nt.lfd < 0 || bind(nt.lfd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(nt.lfd, 1)) {
		perror(unix_path);
		exit(1);
	}
}

static void tracer_start(int overwrite, uint32_t slot_size, uint32_t slots)
{
	struct nt_platform_callbacks cbs = {0};
	struct ht_instr_config ic;
	uint32_t total = 4096u + slot_size * slots;

	nt.mem = aligned_alloc(64, total);
	nt.ring = nt.mem ? ht_ring_init(nt.mem, total, slot_size,
					overwrite ? HT_RING_OVERWRITE
						  : HT_RING_DISCARD,
					0, "native", NULL, 0)
			 : NULL;
	if (!nt.ring) {
		fprintf(stderr, "native-target: cannot lay out the ring\n");
		exit(2);
	}
	nt.rs.ring = nt.ring;
	nt.rs.ctx = &nt.ctx;
	nt.rs.set_buf = nt_packet_set_buf;
	nt.rs.is_open = nt_packet_is_open;
	nt.rs.is_empty = nt_packet_is_empty;
	nt.rs.open = open_cb;
	nt.rs.close = close_cb;
	cbs.clk_clock_get_value = nt_clock;
	cbs.is_backend_full = ht_ring_stream_is_full;
	cbs.open_packet = ht_ring_stream_open;
	cbs.close_packet = ht_ring_stream_close;
	nt_init(&nt.ctx, nt.placeholder, sizeof(nt.placeholder), cbs, &nt.rs);
	ht_ring_stream_start(&nt.rs);

	memset(&ic, 0, sizeof(ic));
	ic.flags = HT_INSTR_TRACE | HT_INSTR_PROFILE;
	ic.ops = &instr_ops;
	ic.ctx = &nt.ctx;
	ic.clock = nt_clock;
	ic.stack = nt.stack;
	ic.stack_depth = 256;
	ic.funcs = nt.funcs;
	ic.nr_funcs = 1024;
	ic.image_base = (uintptr_t)&__executable_start;
	if (ht_instr_init(&nt.in, &ic)) {
		fprintf(stderr, "native-target: bad instrumentation config\n");
		exit(2);
	}
}

/* ---- Main loop ---- */

static void service(void)
{
	if (nt.gone && nt.cfd >= 0) {
		irq_mask(1);
		close(nt.cfd);
		nt.cfd = -1;
		nt.gone = 0;
		irq_mask(0);
	}
	if (nt.lfd >= 0 && nt.cfd < 0) {
		/* Not close-on-exec: the line survives a reboot. */
		int fd = accept4(nt.lfd, NULL, NULL, 0);

		if (fd >= 0) {
			line_arm(fd);
		}
	}
	ht_serial_target_poll(&nt.st);
}

/* Between two steps: serves the line for step_ns; 0: time to stop. */
static int between(void *arg)
{
	uint64_t until = nt_clock(NULL) + nt.step_ns, now;
	struct timespec nap = {0, 200000};

	(void)arg;
	do {
		service();
		now = nt_clock(NULL);
		if (nt.stop || (nt.end_ns && now >= nt.end_ns)) {
			return 0;
		}
		if (now < until) {
			nanosleep(&nap, NULL);
		}
	} while (now < until);
	return 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: native-target (--unix PATH | --pty) [--retained FILE] "
		"[--overwrite]\n       [--slot-size N] [--slots N] "
		"[--exit-after S] [--step-us N] [--name NAME]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"unix", required_argument, NULL, 'u'},
	    {"pty", no_argument, NULL, 'p'},
	    {"retained", required_argument, NULL, 'r'},
	    {"overwrite", no_argument, NULL, 'o'},
	    {"slot-size", required_argument, NULL, 's'},
	    {"slots", required_argument, NULL, 'n'},
	    {"exit-after", required_argument, NULL, 'x'},
	    {"step-us", required_argument, NULL, 't'},
	    {"name", required_argument, NULL, 'N'},
	    {NULL, 0, NULL, 0},
	};
	const char *unix_path = NULL, *retained = NULL, *name = "native";
	int pty = 0, overwrite = 0, c;
	uint32_t slot_size = 1024, slots = 16;
	double exit_after = 0;
	struct ht_serial_target_config sc;
	struct sigaction sa;

	nt.step_ns = 10000000u;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
			unix_path = optarg;
			break;
		case 'p':
			pty = 1;
			break;
		case 'r':
			retained = optarg;
			break;
		case 'o':
			overwrite = 1;
			break;
		case 's':
			slot_size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			slots = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'x':
			exit_after = strtod(optarg, NULL);
			break;
		case 't':
			nt.step_ns = strtoull(optarg, NULL, 0) * 1000u;
			break;
		case 'N':
			name = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !!unix_path == pty || slot_size < 256 ||
	    slot_size % 8u || slots < 2 || slots > 65536) {
		usage();
	}
	nt.argv = argv;
	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_sigio;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGIO, &sa, NULL);
	/* Masked until the serial target is initialized (a reboot arrives
	 * with it masked already). */
	irq_mask(1);

	dl_iterate_phdr(note_cb, NULL);
	retained_map(retained);
	tracer_start(overwrite, slot_size, slots);

	memset(&sc, 0, sizeof(sc));
	sc.ops = &port_ops;
	sc.ring = nt.ring;
	sc.instr = &nt.in;
	sc.sync = &sync_ops;
	sc.metadata = (const char *)nt_metadata;
	sc.metadata_size = (uint32_t)strlen((const char *)nt_metadata);
	sc.build_id = nt.build_id;
	sc.build_id_len = nt.build_id_len;
	sc.core_id = 0;
	sc.name = name;
	sc.clock_hz = 1000000000u;
	sc.retained = nt.ret;
	sc.packet_size_off = 16; /* magic, stream_id, then packet_size */
	ht_serial_target_init(&nt.st, &sc);
	ht_instr_start(&nt.in);
	irq_mask(0);
	line_open(unix_path, pty);

	if (exit_after > 0) {
		nt.end_ns = nt_clock(NULL) + (uint64_t)(exit_after * 1e9);
	}
	work_loop(between, NULL);

	ht_instr_stop(&nt.in);
	irq_mask(1);
	if (nt.cfd >= 0) {
		close(nt.cfd);
	}
	if (nt.ret != &nt.ret_ram) {
		msync(nt.ret, sizeof(*nt.ret), MS_SYNC);
		munmap(nt.ret, sizeof(*nt.ret));
	}
	if (unix_path) {
		unlink(unix_path);
	}
	free(nt.mem);
	return 0;
}
