/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_BOARD_MASTER_H
#define HT_HOST_BOARD_MASTER_H

/*
 * The generic master: records a board described by a board file
 * (host/collect/board.h, docs/board.md). It maps the regions, finds
 * every core's ring (explicit place, or the ring directory the targets
 * fill in), attaches the rings to a collector
 * (host/collect/capture-writer.h), runs the sync daemon
 * (host/collect/sync-daemon.h) with each slave's doorbell, traces the
 * master's sync_req/sync_recv into a ring of its own (CAPTURE/<master>/,
 * stream file `sync`), and drains into the capture until told to stop.
 *
 * `hetrace record --board` calls it on its main thread; the launchers
 * (hetrace sim, the QEMU board) call it on a thread of their own while
 * their application runs, and end it through opts->stop.
 *
 * It knows nothing of how the slaves were started.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "host/collect/board.h"
#include "host/collect/capture-writer.h"
#include "host/collect/lttng-provider.h"
#include "host/collect/sync-daemon.h"

struct ht_board_record_opts {
	const char *capture_dir; /* required */
	/* Stop after this many seconds; 0: when *stop is set, or when
	 * every core's ring has stopped. */
	double seconds;
	/* Set non-zero (by a signal handler or another thread) to end the
	 * run; may be NULL. */
	volatile int *stop;
	bool quiet;    /* no warnings on stderr (unless warn is set) */
	bool progress; /* the progress line on stderr (a terminal) */
	/* Optional: also fire the LTTng-UST sync_req/sync_recv
	 * (host/collect/lttng-ust.h) for every round. */
	const struct ht_lttng_ops *lttng;
	bool no_fsync;	     /* do not fsync the capture at the end */
	bool overwrite_live; /* read overwrite rings live too */
	uint64_t interval_ms; /* poll period when nothing came; 0: 1 ms */
	/* Waiting for the ring directory's entries; 0: 5 s. */
	double directory_timeout_s;
	/* Warnings (damaged rings, lost packets); NULL: on stderr unless
	 * quiet. */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	/* Optional: called once, on the recording thread, when every ring
	 * is attached and the sync daemon runs. */
	void (*started)(void *arg);
	void *started_arg;
};

enum ht_board_sync_status {
	HT_BOARD_SYNC_NONE,	 /* master, or doorbell none: no rounds */
	HT_BOARD_SYNC_OK,	 /* answered to the end */
	HT_BOARD_SYNC_NO_ACK,	 /* never answered in its first `stall` */
	HT_BOARD_SYNC_STOPPED,	 /* answered, then nothing for `stall` */
};

/* One core of the board, in board order. */
struct ht_board_core_result {
	const char *name; /* the board's */
	bool has_ring;
	/* The core's ring; the strings are owned by the result. */
	struct ht_capture_writer_stats ring;
	enum ht_board_sync_status sync_status;
	struct ht_sync_daemon_stats sync; /* slaves with a doorbell */
	double last_ack_s;   /* seconds since the start, -1: never */
	double stopped_at_s; /* HT_BOARD_SYNC_STOPPED: when it stopped */
};

struct ht_board_record_result {
	struct ht_board_core_result *cores; /* nr_cores, board order */
	size_t nr_cores;
	/* The recorder's own ring (the master's sync events). */
	struct ht_capture_writer_stats sync_ring;
	double seconds;	    /* recording time */
	uint64_t bytes;	    /* written into the capture */
	bool complete;	    /* no fault: the capture holds every core */
};

/*
 * Records @board into opts->capture_dir until opts->seconds, *opts->stop
 * or every core's ring stopped. Fills *@result (free it with
 * ht_board_record_result_free(); zeroed first, filled as far as the run
 * went). Returns 0, or a negative HT_E... code with a message in @err:
 * a region that cannot be opened or mapped (naming region, path and
 * reason; nothing recorded), a ring or the directory not found, a slave
 * that never ACKs or stops answering (naming the core and its doorbell;
 * the capture is complete in what it holds and says so in
 * CAPTURE/record.json), a write error.
 */
int ht_board_record(const struct ht_board *board,
		    const struct ht_board_record_opts *opts,
		    struct ht_board_record_result *result, char *err,
		    size_t err_len);

/* Frees what a result holds. NULL is allowed. */
void ht_board_record_result_free(struct ht_board_record_result *result);

/*
 * Prints the summary table of `hetrace record` for @result (rings, then
 * per slave its sync rounds) on @out.
 */
void ht_board_record_print_summary(const struct ht_board_record_result *result,
				   const char *capture_dir, FILE *out);

/*
 * Prints the progress line of `hetrace record` for a collector on
 * @out (a terminal): "\r...\033[K".
 */
void ht_board_print_progress(struct ht_capture_writer *c, double secs,
			     FILE *out);

#endif
