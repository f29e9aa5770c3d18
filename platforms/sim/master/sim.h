/* SPDX-License-Identifier: MIT */
#ifndef HT_SIM_SIM_H
#define HT_SIM_SIM_H

/*
 * The simulated board (docs/sim.md): one master process (arm0) and up
 * to 128 slave processes (dsp0..dsp127) with simulated clocks, the Sobel
 * frame pipeline, and the generic master (host/collect/board-master.h)
 * recording them from the board file the launcher writes. `hetrace sim`
 * (cli/sim.c) is a thin front end.
 */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HT_SIM_MAX_SLAVES 128u

struct ht_sim_opts {
	const char *capture_dir;  /* required */
	unsigned nr_slaves;	  /* 1..HT_SIM_MAX_SLAVES; 0: 8 */
	uint64_t duration_ns;	  /* 0: 3 s */
	uint64_t frame_period_ns; /* 0: 33 ms */
	uint64_t deadline_ns;	  /* 0: 16 ms */
	uint64_t sync_period_ns;  /* 0: 10 ms */
	unsigned preempt_every;	  /* every Nth frame is preempted; 0: 10 */
	uint64_t preempt_ns; /* busy time of the preempting task; 0: 20 ms */
	bool no_fsync;	     /* do not fsync the capture */
	/* the master also traces its sync and message events through
	 * LTTng-UST (hetrace's provider, docs/lttng.md) */
	bool lttng;
	/* Set (by a signal handler) to stop early; the capture stays complete.
	 */
	volatile sig_atomic_t *stop;
	/* The recorder's warnings (damaged packets, a slave that stopped
	 * answering...); may be NULL. */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	/*
	 * The sync handshake's tightness (docs/sim.md, "The sync
	 * handshake"): rounds with each slave per pass, back to back (0: 3),
	 * and how long an idle slave spins, interrupts unmasked, before it
	 * sleeps (0: never, it sleeps at once; at most 1 s).
	 */
	unsigned sync_burst;
	uint32_t idle_spin_ns;
};

struct ht_sim_core_stats {
	char name[16];
	const char *role; /* "master" or "slave" */
	uint32_t core_id;
	uint64_t freq_hz; /* nominal, at the start */
	uint64_t events;  /* tracing calls */
	uint64_t packets; /* packets written to the capture */
	uint64_t bytes;
	uint64_t discarded;   /* events_discarded of the last packet */
	uint64_t sync_rounds; /* slaves: handshake rounds */
	uint64_t sync_timeouts;
	uint64_t sync_min_rtt_ns;
	bool wrapped; /* the 32-bit counter wrapped during the run */
};

struct ht_sim_result {
	unsigned nr_cores;
	struct ht_sim_core_stats core[HT_SIM_MAX_SLAVES + 1];
	uint64_t frames;
	uint64_t late_frames;
	uint64_t elapsed_ns;
	bool interrupted; /* stopped by opts->stop */
};

/*
 * Runs the board for the duration and writes the capture (one CTF trace
 * per core and truth.json). Returns 0 or a negative HT_E... code with a
 * message in @err; every process and the shared memory are gone when
 * it returns, whatever the outcome.
 */
int ht_sim_run(const struct ht_sim_opts *opts, struct ht_sim_result *res,
	       char *err, size_t err_len);

#endif
