/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_SERIAL_RECORD_H
#define HT_HOST_SERIAL_RECORD_H

/*
 * Recording a target on a serial line (serial-line.h) into a capture,
 * the same capture `hetrace record --board` writes:
 *
 *   CAPTURE/<core>/metadata    the target's TSDL (or --metadata FILE)
 *   CAPTURE/<core>/stream      its packets, verbatim, in arrival order
 *   CAPTURE/<core>/stream-bootN  the packets after the target's Nth boot
 *                              seen in the run (its numbering restarts)
 *   CAPTURE/<master>/metadata, sync   the host's sync_req/sync_recv
 *   CAPTURE/record.json        how the recording went
 *
 * A sync round every sync_period, between the drains. The host's
 * events are stamped with the round's CLOCK_MONOTONIC times, so the
 * fit sees exactly the pairs the line gave. It checks packets only as
 * far as the frame's CRC goes: it does not decode CTF.
 */
#include <stdint.h>
#include <stdio.h>

#include "serial-line.h"

struct ht_serial_record_opts {
	const char *capture;
	const char *core;	   /* NULL: HELLO's name */
	const char *metadata_file; /* NULL: from the target */
	double seconds;		   /* 0: until stop */
	volatile int *stop;	   /* set by a signal handler */
	double sync_period;	   /* s, 0: default 0.1 */
	int quiet;		   /* no progress line */
	/* Host additions. */
	const char *master;   /* the master's name, NULL: "host" */
	int progress;	      /* a progress line on stderr */
	int no_fsync;	      /* do not fsync at the end */
	int hello_timeout_ms; /* 0: 2000 */
	/*
	 * Packets that arrive before the reply to the recorder's HELLO
	 * were on the line before it spoke (a pty or a socket buffer
	 * holds them): dropped, unless the caller drained the line itself
	 * and knows they are new (hetrace trace). Those that arrive while
	 * the metadata is fetched are always kept.
	 */
	int keep_early;
	/* Warnings (a reboot, a lost frame); NULL: none. */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
};

/* What the collector wrote into one stream file. */
struct ht_serial_record_ring {
	char name[96]; /* <core>/<stream> */
	uint64_t packets, bytes, events_discarded, damaged;
	int failed;
	char error[256];
};
#define HT_SERIAL_RECORD_MAX_RINGS 9

struct ht_serial_record_result {
	uint64_t packets, bytes, sync_rounds, sync_timeouts;
	struct ht_serial_stats line;
	int line_lost; /* the device went away */
	/* Host additions. */
	double seconds;
	uint32_t boots;	     /* HELLOs with a new boot seen after the first */
	uint32_t streams;    /* stream files written */
	uint64_t min_rtt_ns; /* shortest sync round, 0: none */
	/* Answers after a timeout that may belong to the round given up. */
	uint64_t sync_unused;
	char core[64];	 /* the core's directory name */
	char master[64]; /* the master's */
	struct ht_serial_record_ring rings[HT_SERIAL_RECORD_MAX_RINGS];
	uint32_t nr_rings;
};

/*
 * Says HELLO, fetches the metadata, then drains the target's packets
 * into CAPTURE/<core>/ and the sync pairs into CAPTURE/<master>/sync
 * until the time is up, *stop is set or the line goes away; writes
 * CAPTURE/record.json in every case once the capture exists. Returns 0,
 * or a negative HT_E... code with a message (HT_EIO and line_lost for
 * a device that went away: the capture so far is complete and closed).
 */
int ht_serial_record(struct ht_serial *s, const struct ht_serial_record_opts *o,
		     struct ht_serial_record_result *r, char *err, size_t len);

/* The summary `hetrace record --serial` prints. */
void ht_serial_record_print_summary(const struct ht_serial_record_result *res,
				    const char *capture, FILE *out);

#endif
