/* SPDX-License-Identifier: MIT */
/* hetrace-command: 20 record: drain the cores' packet rings into a capture */
/*
 * hetrace record -o CAPTURE RING...: attaches to the packet rings and
 * writes every core's packets into CAPTURE/<core>/ until Ctrl-C
 * (SIGINT, SIGTERM), until every ring is stopped, or for --duration
 * seconds. The work is host/collect/capture-writer.c's; this file parses the
 * command line, polls and prints.
 * hetrace record --board FILE -o CAPTURE: the generic master
 * (host/collect/board-master.h) records the board the file describes.
 * hetrace record --serial TARGET -o CAPTURE: a target on a serial line
 * or a socket (host/collect/serial-record.h).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "host/collect/board-master.h"
#include "host/collect/board.h"
#include "host/collect/capture-writer.h"
#include "host/collect/serial-record.h"
#include "common/error.h"
#include "hetrace/packet-ring.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: %s -o CAPTURE [OPTIONS] [RING...]\n"
	    "       %s --board FILE -o CAPTURE [--seconds S]\n"
	    "              [--define NAME=VALUE]...\n"
	    "       %s --board FILE --check [--define NAME=VALUE]...\n"
	    "       %s --serial TARGET -o CAPTURE [--seconds S] "
	    "[--metadata FILE]\n"
	    "              [--core NAME] [--master NAME] [--sync-period MS]\n"
	    "\n"
	    "Attaches to the packet rings RING... (files, or POSIX shared\n"
	    "memory objects named /NAME) and writes every core's packets\n"
	    "into CAPTURE/<core>/ (metadata + stream), until Ctrl-C, until\n"
	    "every ring's producer has stopped, or for --duration seconds.\n"
	    "FILE@OFFSET: the ring starts OFFSET bytes into FILE (bytes,\n"
	    "0x hex, k/M/G suffixes, terms joined by '+'): a QEMU core's\n"
	    "RAM file, e.g. rv32.ram@8M+64K.\n"
	    "Discard rings are drained live; overwrite rings (flight\n"
	    "recorder) are read once stopped, or at the end.\n"
	    "With --board, the board file (docs/board.md) says where the\n"
	    "rings are; record maps its regions, runs the sync handshake\n"
	    "with every slave through its doorbell and traces it into\n"
	    "CAPTURE/<master>/sync, and copies the file to "
	    "CAPTURE/board.yaml.\n"
	    "With --serial, the target is on a line: TARGET is\n"
	    "/dev/ttyX[:BAUD] (raw, default 115200), a pty path,\n"
	    "unix:PATH or tcp:HOST:PORT; its packets go to\n"
	    "CAPTURE/<core>/, the sync rounds over the line to\n"
	    "CAPTURE/<master>/sync (docs/serial.md).\n\n"
	    "options:\n"
	    "  -o, --output DIR       the capture directory (required)\n"
	    "      --shm-prefix P     also every /dev/shm/P* object\n"
	    "  -m, --metadata FILE    metadata for rings that carry none\n"
	    "  -d, --duration S       stop after S seconds (decimals allowed)\n"
	    "      --seconds S        the same\n"
	    "      --board FILE       record the board FILE describes\n"
	    "  -D, --define N=V       replace ${N} in the board file by V "
	    "(repeatable)\n"
	    "      --check            validate the board file, print a "
	    "summary, exit\n"
	    "      --serial TARGET    record the target on a serial line or "
	    "socket\n"
	    "      --socket ADDR      the same for unix:ADDR (a path) or "
	    "tcp:ADDR (HOST:PORT)\n"
	    "      --core NAME        the target's directory (default: its "
	    "HELLO name)\n"
	    "      --master NAME      the host's directory (default host)\n"
	    "      --sync-period MS   between two sync rounds over the line "
	    "(default 100)\n"
	    "  -l, --live             read overwrite rings live too\n"
	    "  -i, --interval MS      poll period when the rings are empty "
	    "(default 1)\n"
	    "      --no-fsync         do not sync the files to disk at the "
	    "end\n"
	    "  -q, --quiet            no progress line, no summary\n"
	    "  -h, --help             this help\n\n"
	    "A ring whose file shrinks (bus error) or whose stream cannot\n"
	    "be written (disk full, file too large) is stopped, its file\n"
	    "cut back to its last whole packet; the others go on.\n\n"
	    "exit status: 0 done, 1 a ring could not be attached, read or\n"
	    "written (the others are collected), a board file error, a\n"
	    "region that cannot be mapped, a slave that never answers or\n"
	    "stops answering, a serial target that does not answer or\n"
	    "goes away (the capture so far is kept), 2 usage error\n",
	    ht_cli_prog, ht_cli_prog, ht_cli_prog, ht_cli_prog);
}

static void warn_cb(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "%s%s: warning: %s\n", isatty(2) ? "\r\033[K" : "",
		ht_cli_prog, msg);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names "/P..." of the shared memory objects whose name starts with P. */
static int shm_list(const char *prefix, char ***names, size_t *nr)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *de;
	size_t plen;
	char **v = NULL, **nv;

	if (prefix[0] == '/') {
		prefix++;
	}
	plen = strlen(prefix);
	*nr = 0;
	if (!d) {
		return HT_EIO;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strncmp(de->d_name, prefix, plen)) {
			continue;
		}
		nv = realloc(v, (*nr + 1) * sizeof(*v));
		if (!nv) {
			break;
		}
		v = nv;
		v[*nr] = malloc(strlen(de->d_name) + 2);
		if (!v[*nr]) {
			break;
		}
		sprintf(v[*nr], "/%s", de->d_name);
		(*nr)++;
	}
	closedir(d);
	if (*nr) {
		qsort(v, *nr, sizeof(*v), cmp_str);
	}
	*names = v;
	return 0;
}

static void progress(struct ht_capture_writer *c, double secs)
{
	ht_board_print_progress(c, secs, stderr);
}

static void summary(struct ht_capture_writer *c, const char *dir, double secs)
{
	static const char *const states[] = {"empty", "running", "stopped"};
	struct ht_capture_writer_stats st;
	uint64_t bytes = 0;
	size_t i;

	printf("%-16s %-8s %-10s %10s %12s %10s %8s %8s %8s\n", "core", "state",
	       "mode", "packets", "bytes", "discarded", "full", "lost",
	       "damaged");
	for (i = 0; i < ht_capture_writer_nr_rings(c); i++) {
		ht_capture_writer_stats(c, i, &st);
		bytes += st.bytes;
		printf("%-16s %-8s %-10s %10" PRIu64 " %12" PRIu64 " %10" PRIu64
		       " %8u %8" PRIu64 " %8" PRIu64 "%s\n",
		       st.core_name, st.state < 3 ? states[st.state] : "?",
		       st.mode == HT_RING_OVERWRITE ? "overwrite" : "discard",
		       st.packets, st.bytes, st.events_discarded, st.full_count,
		       st.lost_packets, st.damaged_packets,
		       st.failed ? "  (failed)" : "");
	}
	for (i = 0; i < ht_capture_writer_nr_rings(c); i++) {
		ht_capture_writer_stats(c, i, &st);
		if (st.failed) {
			printf("%s: stopped: %s; its stream holds %" PRIu64
			       " whole packets, %" PRIu64 " bytes\n",
			       st.core_name, st.error ? st.error : "?",
			       st.packets, st.bytes);
		}
		if (st.loss_markers) {
			printf("%s: %" PRIu64 " of the %" PRIu64
			       " packets are empty ones announcing the losses "
			       "before the first packet or after the last\n",
			       st.core_name, st.loss_markers, st.packets);
		}
	}
	printf("%zu rings, %.1f MB in %.2f s into %s\n",
	       ht_capture_writer_nr_rings(c), (double)bytes / 1e6, secs, dir);
}

#define HT_CLI_MAX_DEFINES 256

/* What the options ask for. */
struct record_args {
	struct ht_capture_writer_opts copts;
	struct ht_capture_writer_ring_opts ropts;
	const char *out, *prefix;
	double duration; /* s, 0: until every ring stops */
	uint64_t interval_ms;
	bool quiet;
	const char *board; /* --board FILE */
	const char *defines[HT_CLI_MAX_DEFINES + 1];
	size_t nr_defines;
	bool check;
	const char *serial, *socket; /* --serial TARGET, --socket ADDR */
	const char *core, *master;
	double sync_period_ms;
};

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct record_args *a,
			 struct ht_cli_args *rings)
{
	const struct ht_cli_opt table[] = {
	    HT_CLI_STRING('o', "output", &a->out),
	    HT_CLI_STRING(0, "shm-prefix", &a->prefix),
	    HT_CLI_STRING('m', "metadata", &a->ropts.metadata_path),
	    HT_CLI_REAL('d', "duration", &a->duration, 1e-6, 1e9,
			"a duration in seconds"),
	    HT_CLI_ALIAS("seconds"),
	    HT_CLI_STRING(0, "board", &a->board),
	    HT_CLI_LIST('D', "define", a->defines, &a->nr_defines,
			HT_CLI_MAX_DEFINES, "NAME=VALUE"),
	    HT_CLI_FLAG(0, "check", &a->check),
	    HT_CLI_STRING(0, "serial", &a->serial),
	    HT_CLI_STRING(0, "socket", &a->socket),
	    HT_CLI_STRING(0, "core", &a->core),
	    HT_CLI_STRING(0, "master", &a->master),
	    HT_CLI_REAL(0, "sync-period", &a->sync_period_ms, 1, 3600e3,
			"a period in ms"),
	    HT_CLI_FLAG('l', "live", &a->copts.overwrite_live),
	    HT_CLI_UINT('i', "interval", &a->interval_ms, 0, 10000,
			"a period in ms"),
	    HT_CLI_FLAG(0, "no-fsync", &a->copts.no_fsync),
	    HT_CLI_FLAG('q', "quiet", &a->quiet),
	    HT_CLI_OPT_END,
	};
	int ret;

	ret = ht_cli_parse(argc, argv, table, 0, usage, rings);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	if (a->board && (rings->nr || a->prefix || a->ropts.metadata_path)) {
		return ht_cli_usage_error(
		    usage, "--board takes the rings from the board file (no "
			   "RING, --shm-prefix or --metadata)");
	}
	if (a->serial && a->socket) {
		return ht_cli_usage_error(usage,
					  "--serial and --socket: one of them");
	}
	if ((a->serial || a->socket) &&
	    (rings->nr || a->prefix || a->board || a->check)) {
		return ht_cli_usage_error(
		    usage, "--serial takes one target (no RING, --shm-prefix, "
			   "--board or --check)");
	}
	if (!(a->serial || a->socket) &&
	    (a->core || a->master || a->sync_period_ms)) {
		return ht_cli_usage_error(
		    usage, "--core, --master and --sync-period go with "
			   "--serial");
	}
	if (a->check && !a->board) {
		return ht_cli_usage_error(usage, "--check needs --board FILE");
	}
	if (!a->out && !a->check) {
		return ht_cli_usage_error(usage, "-o CAPTURE is required");
	}
	return HT_CLI_GO_ON;
}

/*
 * Attaches the rings named on the command line, then the /dev/shm
 * objects of --shm-prefix. Returns the exit status so far (a ring that
 * cannot be attached is said and skipped).
 */
static int attach_rings(struct ht_capture_writer *c,
			const struct record_args *a,
			const struct ht_cli_args *rings, char **shm,
			size_t nr_shm)
{
	char err[1024];
	int status = HT_EXIT_OK;
	size_t i;

	for (i = 0; i < rings->nr + nr_shm; i++) {
		const char *ring =
		    i < rings->nr ? rings->v[i] : shm[i - rings->nr];

		if (ht_capture_writer_add_path(c, ring, &a->ropts, err,
					       sizeof(err))) {
			fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
			status = HT_EXIT_FAIL;
		}
	}
	return status;
}

/*
 * Drains the rings until every one has stopped, --duration has passed
 * or a signal came, with a progress line on a terminal. Returns the
 * exit status so far.
 */
static int drain(struct ht_capture_writer *c, const struct record_args *a,
		 double start, bool tty, volatile sig_atomic_t *stop_signal)
{
	double last_progress = 0;
	int status = HT_EXIT_OK;

	while (!*stop_signal) {
		uint64_t bytes = 0;
		double t;

		if (ht_capture_writer_drain(c, &bytes)) {
			status = HT_EXIT_FAIL;
		}
		t = now_s() - start;
		if (tty && t - last_progress >= 0.25) {
			progress(c, t);
			last_progress = t;
		}
		if (ht_capture_writer_all_stopped(c) ||
		    (a->duration > 0 && t >= a->duration)) {
			break;
		}
		if (!bytes && a->interval_ms) {
			struct timespec ts = {(time_t)(a->interval_ms / 1000),
					      (long)(a->interval_ms % 1000) *
						  1000000L};

			nanosleep(&ts, NULL);
		}
	}
	return status;
}

/*
 * Writes what is left, then says how it went: the last progress line
 * on a terminal, what failed, the signal that stopped the run and the
 * summary. Returns the exit status it makes.
 */
static int finish(struct ht_capture_writer *c, const struct record_args *a,
		  double start, bool tty, volatile sig_atomic_t *stop_signal)
{
	char err[1024];
	int status = HT_EXIT_OK;
	size_t i;
	int ret;

	ret = ht_capture_writer_finish(c, err, sizeof(err));
	if (tty) {
		progress(c, now_s() - start);
		fputc('\n', stderr);
	}
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		status = HT_EXIT_FAIL;
	}
	for (i = 0; i < ht_capture_writer_nr_rings(c); i++) {
		struct ht_capture_writer_stats st;

		ht_capture_writer_stats(c, i, &st);
		if (st.failed) {
			status = HT_EXIT_FAIL;
		}
	}
	if (!a->quiet) {
		if (*stop_signal) {
			fprintf(stderr, "%s: stopped by signal %d\n",
				ht_cli_prog, (int)*stop_signal);
		}
		summary(c, a->out, now_s() - start);
	}
	return status;
}

/* --check: one screen saying what the board file describes. */
static void board_summary(const struct ht_board *b)
{
	static const char *const rings[] = {"-", "", "directory"};
	const struct ht_board_sync *sy = &b->sync;
	char where[128], bell[200];
	size_t i;

	printf("board %s (%s): %zu regions, %zu cores, master %s\n",
	       b->name ? b->name : "-", b->path, b->nr_regions, b->nr_cores,
	       b->cores[b->master].name);
	for (i = 0; i < b->nr_regions; i++) {
		const struct ht_board_region *r = &b->regions[i];

		printf("  region %-12s %-6s %s", r->name,
		       ht_board_region_kind_name(r->kind), r->path);
		if (r->kind == HT_BOARD_REGION_UIO) {
			printf(" map %" PRIu32, r->map);
		} else if (r->kind != HT_BOARD_REGION_SHM) {
			printf(" at 0x%" PRIx64, r->offset);
		}
		printf(", %" PRIu64 " bytes\n", r->size);
	}
	if (b->has_directory) {
		printf("  ring directory at %s+0x%" PRIx64 "\n",
		       b->regions[b->directory.region].name,
		       b->directory.offset);
	}
	printf("  sync: period %.3g ms, timeout %.3g ms, burst %u, stall "
	       "%.3g s\n",
	       (double)sy->period_ns / 1e6, (double)sy->timeout_ns / 1e6,
	       sy->burst, (double)sy->stall_ns / 1e9);
	for (i = 0; i < b->nr_cores; i++) {
		const struct ht_board_core *c = &b->cores[i];

		if (c->ring_kind == HT_BOARD_RING_PLACE) {
			snprintf(where, sizeof(where),
				 "%s+0x%" PRIx64 " (%" PRIu64 " bytes)",
				 b->regions[c->ring.region].name,
				 c->ring.offset, c->ring.size);
		} else {
			snprintf(where, sizeof(where), "%s",
				 rings[c->ring_kind]);
		}
		printf("  %-6s %-12s -> %s/  ring %s",
		       c->role == HT_BOARD_MASTER ? "master" : "slave", c->name,
		       c->output, where);
		if (c->role == HT_BOARD_SLAVE) {
			printf("  doorbell %s", ht_board_doorbell_describe(
						    b, i, bell, sizeof(bell)));
		}
		putchar('\n');
	}
}

static void board_warn(void *arg, const char *msg)
{
	(void)arg;
	warn_cb(NULL, msg);
}

/* hetrace record --board FILE: load, then check or record. */
static int record_board(struct record_args *a)
{
	struct ht_board_record_opts o = {
	    .capture_dir = a->out,
	    .seconds = a->duration,
	    .quiet = a->quiet,
	    .no_fsync = a->copts.no_fsync,
	    .overwrite_live = a->copts.overwrite_live,
	    .interval_ms = a->interval_ms,
	    .warn = board_warn,
	};
	struct ht_board_record_result res;
	struct ht_board *b;
	volatile sig_atomic_t *stop_signal;
	char err[1024];
	int ret;

	a->defines[a->nr_defines] = NULL;
	ret = ht_board_load(a->board, a->defines, &b, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		return ret == HT_EINVAL ? HT_EXIT_USAGE : HT_EXIT_FAIL;
	}
	if (a->check) {
		board_summary(b);
		ht_board_free(b);
		return HT_EXIT_OK;
	}
	signal(SIGXFSZ, SIG_IGN);
	stop_signal = ht_cli_catch_stop(true);
	o.stop = (volatile int *)stop_signal;
	o.progress = !a->quiet && isatty(2);
	ret = ht_board_record(b, &o, &res, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
	}
	if (!a->quiet && res.nr_cores) {
		if (*stop_signal) {
			fprintf(stderr, "%s: stopped by signal %d\n",
				ht_cli_prog, (int)*stop_signal);
		}
		ht_board_record_print_summary(&res, a->out, stdout);
	}
	ht_board_record_result_free(&res);
	ht_board_free(b);
	return ret ? HT_EXIT_FAIL : HT_EXIT_OK;
}

static void serial_warn(void *arg, const char *msg)
{
	(void)arg;
	warn_cb(NULL, msg);
}

/* hetrace record --serial TARGET (or --socket ADDR). */
static int record_serial(struct record_args *a)
{
	struct ht_serial_record_opts o = {
	    .capture = a->out,
	    .core = a->core,
	    .master = a->master,
	    .metadata_file = a->ropts.metadata_path,
	    .seconds = a->duration,
	    .sync_period = a->sync_period_ms / 1e3,
	    .quiet = a->quiet,
	    .no_fsync = a->copts.no_fsync,
	    .warn = serial_warn,
	};
	struct ht_serial_record_result res;
	struct ht_serial *s;
	volatile sig_atomic_t *stop_signal;
	char target[4200], err[1024];
	int ret;

	if (a->socket) {
		/* A path is a unix socket, anything else HOST:PORT. */
		snprintf(target, sizeof(target), "%s:%s",
			 strchr(a->socket, '/') || !strchr(a->socket, ':')
			     ? "unix"
			     : "tcp",
			 a->socket);
	} else {
		snprintf(target, sizeof(target), "%s", a->serial);
	}
	ret = ht_serial_open(target, &s, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		return ret == HT_EINVAL ? HT_EXIT_USAGE : HT_EXIT_FAIL;
	}
	signal(SIGXFSZ, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	stop_signal = ht_cli_catch_stop(true);
	o.stop = (volatile int *)stop_signal;
	o.progress = !a->quiet && isatty(2);
	ret = ht_serial_record(s, &o, &res, err, sizeof(err));
	if (o.progress && res.nr_rings) {
		fputc('\n', stderr);
	}
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
	}
	if (!a->quiet && res.nr_rings) {
		if (*stop_signal) {
			fprintf(stderr, "%s: stopped by signal %d\n",
				ht_cli_prog, (int)*stop_signal);
		}
		ht_serial_record_print_summary(&res, a->out, stdout);
	}
	ht_serial_close(s);
	return ret ? HT_EXIT_FAIL : HT_EXIT_OK;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a = {
	    .copts = {.warn = warn_cb},
	    .interval_ms = 1,
	};
	struct ht_capture_writer *c = NULL;
	char **shm = NULL;
	struct ht_cli_args rings;
	size_t nr_shm = 0, i;
	char err[1024];
	double start;
	bool tty;
	int ret, status;
	volatile sig_atomic_t *stop_signal;

	ret = parse_options(argc, argv, &a, &rings);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	if (a.board) {
		return record_board(&a);
	}
	if (a.serial || a.socket) {
		return record_serial(&a);
	}
	if (a.prefix && shm_list(a.prefix, &shm, &nr_shm)) {
		fprintf(stderr, "%s: /dev/shm: %s\n", ht_cli_prog,
			strerror(errno));
		return HT_EXIT_FAIL;
	}
	if (!rings.nr && !nr_shm) {
		if (!a.prefix) {
			ret = ht_cli_usage_error(usage, "no ring given");
		} else {
			fprintf(stderr,
				"%s: no ring given (no /dev/shm object matches "
				"the prefix)\n",
				ht_cli_prog);
			ret = HT_EXIT_FAIL;
		}
		goto free_shm;
	}

	ret = ht_capture_writer_create(&c, a.out, &a.copts, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		ret = HT_EXIT_FAIL;
		goto free_shm;
	}
	status = attach_rings(c, &a, &rings, shm, nr_shm);
	if (!ht_capture_writer_nr_rings(c)) {
		fprintf(stderr, "%s: no ring attached\n", ht_cli_prog);
		ret = HT_EXIT_FAIL;
		goto destroy;
	}

	/* A file size limit (ulimit -f) is a write error (EFBIG) that
	 * stops one stream, not a signal that kills the collector. */
	signal(SIGXFSZ, SIG_IGN);
	stop_signal = ht_cli_catch_stop(true);
	tty = !a.quiet && isatty(2);
	start = now_s();
	if (drain(c, &a, start, tty, stop_signal)) {
		status = HT_EXIT_FAIL;
	}
	if (finish(c, &a, start, tty, stop_signal)) {
		status = HT_EXIT_FAIL;
	}
	ret = status;

destroy:
	ht_capture_writer_destroy(c);
free_shm:
	for (i = 0; i < nr_shm; i++) {
		free(shm[i]);
	}
	free(shm);
	return ret;
}
