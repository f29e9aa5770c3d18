/*
 * The board of tests/collect/board and bench/record.sh's board line: one
 * POSIX shared memory object holding N slaves' packet rings and sync
 * mailboxes, and N slave processes, each tracing `tick { n }` into its
 * ring with the real runtime and answering its mailbox when its doorbell
 * rings. `hetrace record --board` is the master.
 *
 *   board-slaves [OPTIONS] SHM N
 *   -d MODES   doorbell per slave, comma separated, the last repeated:
 *              signal (SIGUSR1), socket (a byte on the unix socket
 *              SOCKDIR/dspI.sock), mmio (a word in the region at
 *              DOORBELL_OFF + 8 * I), serial (a byte on a pseudo
 *              terminal, whose device the ready file names), none
 *   -S DIR     directory of the sockets (default /tmp)
 *   -t SEC     how long the slaves trace (default 2)
 *   -e N       ticks per millisecond (default 10)
 *   -x I       slave I never answers
 *   -X I@SEC   slave I stops answering (SIGSTOP itself) after SEC s
 *   -R         publish the rings in the ring directory too
 *   -r FILE    written once everything is laid out: one line per slave,
 *              "dspI PID [PTY]"
 *
 * Layout of the region (docs/board.md's worked example):
 *   0x0800 + 8 I      slave I's mmio doorbell word
 *   0x1000 + 256 I    slave I's mailbox (struct ht_sync_slave_mbox)
 *   0x8000            the ring directory
 *   0x10000 + RING I  slave I's ring (RING = 256 KiB)
 * Slave I is core id I + 1, named dspI; its clock is CLOCK_MONOTONIC_RAW
 * plus (I + 1) seconds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "barectf.h"
#include "hetrace/ring-directory.h"
#include "hetrace/ring-stream.h"
#include "hetrace/sync-slave.h"
#include "tests/collect/read-file.h"

#ifndef METADATA_PATH
#error "build with -DMETADATA_PATH=\"...\""
#endif

#define DOORBELL_OFF 0x800u
#define MBOX_OFF 0x1000u
#define MBOX_STRIDE 256u
#define DIR_OFF 0x8000u
#define RINGS_OFF 0x10000u
#define RING_SIZE (256u << 10)
#define SLOT_SIZE 4096u
#define MAX_SLAVES 128u

enum bell { BELL_SIGNAL, BELL_SOCKET, BELL_MMIO, BELL_SERIAL, BELL_NONE };

struct slave {
	struct ht_ring_stream rs;
	struct barectf_main_ctx ctx;
	uint8_t placeholder[8];
	uint64_t offset_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t clock_read(void *data)
{
	return now_ns() + ((struct slave *)data)->offset_ns;
}

static void open_main(void *ctx)
{
	barectf_main_open_packet(ctx);
}

static void close_main(void *ctx)
{
	barectf_main_close_packet(ctx);
}

static void trace_ack(void *arg, uint32_t seq)
{
	barectf_main_trace_sync_ack(arg, seq);
}

static void trace_notify(void *arg, uint32_t seq)
{
	barectf_main_trace_sync_notify(arg, seq);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* The slave's life: trace ticks, answer the doorbell, stop at the end. */
static int run_slave(uint8_t *base, unsigned i, enum bell bell, int lfd,
		     double seconds, unsigned per_ms, int mute,
		     double stop_after)
{
	struct ht_sync_slave_mbox *mbox =
	    (void *)(base + MBOX_OFF + MBOX_STRIDE * i);
	volatile uint64_t *word = (void *)(base + DOORBELL_OFF + 8u * i);
	struct slave self;
	struct ht_sync_slave_ops ops;
	struct barectf_platform_callbacks cbs = {
	    clock_read, ht_ring_stream_is_full, ht_ring_stream_open,
	    ht_ring_stream_close};
	uint64_t t0 = now_ns(), end, next = t0;
	sigset_t set;
	uint32_t n = 0;
	int cfd = -1, said_hello = 0;
	char hello[64];

	memset(&self, 0, sizeof(self));
	self.offset_ns = (uint64_t)(i + 1) * 1000000000u;
	self.rs.ring =
	    (struct ht_ring *)(base + RINGS_OFF + (size_t)RING_SIZE * i);
	self.rs.ctx = &self.ctx;
	self.rs.set_buf = barectf_packet_set_buf;
	self.rs.is_open = barectf_packet_is_open;
	self.rs.is_empty = barectf_packet_is_empty;
	self.rs.open = open_main;
	self.rs.close = close_main;
	barectf_init(&self.ctx, self.placeholder, SLOT_SIZE, cbs, &self.rs);
	barectf_set_core_id(&self.ctx, i + 1);
	ht_ring_stream_start(&self.rs);
	ops.trace_ack = trace_ack;
	ops.trace_notify = trace_notify;
	ops.arg = &self.ctx;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	end = t0 + (uint64_t)(seconds * 1e9);
	while (now_ns() < end) {
		uint64_t t = now_ns();
		int rang = 0;

		if (stop_after > 0 && t - t0 >= (uint64_t)(stop_after * 1e9)) {
			stop_after = 0;
			raise(SIGSTOP);
		}
		while (next <= t) {
			barectf_main_trace_tick(&self.ctx, n++);
			next += 1000000u / (per_ms ? per_ms : 1);
		}
		switch (bell) {
		case BELL_SIGNAL: {
			struct timespec ts = {0, 200000};

			rang = sigtimedwait(&set, NULL, &ts) == SIGUSR1;
			break;
		}
		case BELL_SOCKET: {
			struct pollfd p = {cfd >= 0 ? cfd : lfd, POLLIN, 0};
			char c;

			if (poll(&p, 1, 1) == 1) {
				if (cfd < 0) {
					cfd = accept(lfd, NULL, NULL);
					snprintf(hello, sizeof(hello),
						 "hello from dsp%u\n", i);
					if (cfd >= 0 &&
					    write(cfd, hello, strlen(hello)) <
						0) {
						die("write");
					}
				} else if (read(cfd, &c, 1) == 1) {
					rang = 1;
				}
			}
			break;
		}
		case BELL_SERIAL: {
			/* lfd: the pseudo terminal's master side. */
			struct pollfd p = {lfd, POLLIN, 0};
			char c;

			if (!said_hello) {
				snprintf(hello, sizeof(hello),
					 "hello from dsp%u on a uart\n", i);
				said_hello =
				    write(lfd, hello, strlen(hello)) > 0;
			}
			rang = poll(&p, 1, 1) == 1 && read(lfd, &c, 1) == 1;
			break;
		}
		case BELL_MMIO:
			if (*word) {
				*word = 0;
				rang = 1;
			} else {
				sched_yield();
			}
			break;
		default: {
			struct timespec ts = {0, 200000};

			nanosleep(&ts, NULL);
			break;
		}
		}
		if (rang && !mute) {
			ht_sync_slave_handle(mbox, &ops);
		}
	}
	ht_ring_stream_stop(&self.rs);
	printf("dsp%u ticks %u\n", i, n);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const char *modes = "signal", *sockdir = "/tmp", *ready = NULL;
	enum bell bells[MAX_SLAVES];
	int lfd[MAX_SLAVES];
	char pty[MAX_SLAVES][64];
	pid_t pids[MAX_SLAVES];
	double seconds = 2, stop_after = 0;
	unsigned per_ms = 10, n, i;
	int mute = -1, stopper = -1, dir = 0, opt, status = 0;
	uint32_t meta_len;
	size_t size;
	uint8_t *base;
	char *meta, *m;
	sigset_t set;
	int fd;

	while ((opt = getopt(argc, argv, "d:S:t:e:x:X:Rr:")) != -1) {
		switch (opt) {
		case 'd':
			modes = optarg;
			break;
		case 'S':
			sockdir = optarg;
			break;
		case 't':
			seconds = strtod(optarg, NULL);
			break;
		case 'e':
			per_ms = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'x':
			mute = atoi(optarg);
			break;
		case 'X':
			stopper = atoi(optarg);
			m = strchr(optarg, '@');
			stop_after = m ? strtod(m + 1, NULL) : 1;
			break;
		case 'R':
			dir = 1;
			break;
		case 'r':
			ready = optarg;
			break;
		default:
			return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: board-slaves [OPTIONS] SHM N\n");
		return 2;
	}
	n = (unsigned)strtoul(argv[optind + 1], NULL, 0);
	if (!n || n > MAX_SLAVES) {
		fprintf(stderr, "board-slaves: 1 to %u slaves\n", MAX_SLAVES);
		return 2;
	}
	/* Doorbells: the list's last entry repeats. */
	m = strdup(modes);
	for (i = 0; i < n; i++) {
		static const char *const names[] = {"signal", "socket", "mmio",
						    "serial", "none"};
		char *tok = strsep(&m, ",");
		unsigned k;

		if (!tok) {
			bells[i] = bells[i - 1];
			continue;
		}
		for (k = 0; k < 5 && strcmp(tok, names[k]); k++) {
		}
		if (k == 5) {
			fprintf(stderr, "board-slaves: doorbell '%s'\n", tok);
			return 2;
		}
		bells[i] = (enum bell)k;
	}

	size = RINGS_OFF + (size_t)RING_SIZE * n;
	shm_unlink(argv[optind]);
	fd = shm_open(argv[optind], O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
		die(argv[optind]);
	}
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		die("mmap");
	}
	close(fd);
	meta = read_file(METADATA_PATH, &meta_len);
	if (dir) {
		ht_ring_directory_init((void *)(base + DIR_OFF), n);
	}
	for (i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "dsp%u", i);
		if (!ht_ring_init(base + RINGS_OFF + (size_t)RING_SIZE * i,
				  RING_SIZE, SLOT_SIZE, HT_RING_DISCARD, i + 1,
				  name, meta, meta_len)) {
			fprintf(stderr, "board-slaves: ht_ring_init\n");
			return 1;
		}
		ht_sync_slave_mbox_init(
		    (void *)(base + MBOX_OFF + MBOX_STRIDE * i), i + 1);
		if (dir) {
			ht_ring_directory_publish(
			    (void *)(base + DIR_OFF), i, i + 1, name,
			    RINGS_OFF + (uint64_t)RING_SIZE * i, RING_SIZE,
			    MBOX_OFF + (uint64_t)MBOX_STRIDE * i);
		}
		lfd[i] = -1;
		pty[i][0] = '\0';
		if (bells[i] == BELL_SERIAL) {
			lfd[i] = posix_openpt(O_RDWR | O_NOCTTY);
			if (lfd[i] < 0 || grantpt(lfd[i]) != 0 ||
			    unlockpt(lfd[i]) != 0 || !ptsname(lfd[i])) {
				die("posix_openpt");
			}
			snprintf(pty[i], sizeof(pty[i]), "%s", ptsname(lfd[i]));
		}
		if (bells[i] == BELL_SOCKET) {
			struct sockaddr_un sa = {.sun_family = AF_UNIX};

			snprintf(sa.sun_path, sizeof(sa.sun_path),
				 "%s/dsp%u.sock", sockdir, i);
			unlink(sa.sun_path);
			lfd[i] = socket(AF_UNIX, SOCK_STREAM, 0);
			if (lfd[i] < 0 ||
			    bind(lfd[i], (struct sockaddr *)&sa, sizeof(sa)) !=
				0 ||
			    listen(lfd[i], 1) != 0) {
				die(sa.sun_path);
			}
		}
	}
	/* SIGUSR1 is taken by sigtimedwait() only. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			die("fork");
		}
		if (pids[i] == 0) {
			_exit(run_slave(base, i, bells[i], lfd[i], seconds,
					per_ms, (int)i == mute,
					(int)i == stopper ? stop_after : 0));
		}
	}
	if (ready) {
		char tmp[512];
		FILE *f;

		snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
		f = fopen(tmp, "w");
		for (i = 0; f && i < n; i++) {
			fprintf(f, "dsp%u %d %s\n", i, (int)pids[i], pty[i]);
		}
		if (!f || fclose(f) != 0 || rename(tmp, ready) != 0) {
			die(ready);
		}
	}
	for (i = 0; i < n; i++) {
		int st;

		if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			status = 1;
		}
	}
	free(meta);
	return status;
}
