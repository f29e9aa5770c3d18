/* SPDX-License-Identifier: MIT */
#ifndef HT_QEMU_RUN_H
#define HT_QEMU_RUN_H

/*
 * The QEMU board (docs/qemu.md): the Linux master (this process) and
 * two bare-metal cores under QEMU, a Cortex-M3 (mps2-an385) and a
 * RISC-V RV32 (virt), each running the firmware of platforms/qemu/target.
 * The launcher starts the cores, writes the board file
 * CAPTURE/board.yaml (each core's RAM file, ring and mailbox; a byte on
 * its serial socket as the doorbell) and records it with the generic
 * master (host/collect/board-master.h) on a thread, while it hands out
 * the paper's workload through the shared-memory queues. `hetrace qemu`
 * (cli/qemu.c) is a thin front end.
 */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HT_QEMU_MAX_CORES 3u /* the master and two QEMU cores */

/* What a core must do after its workload (tests of the failure paths). */
enum ht_qemu_fail {
	HT_QEMU_FAIL_NONE = 0,
	HT_QEMU_FAIL_CRASH, /* a load from an undecoded address */
	HT_QEMU_FAIL_HANG,  /* spins with interrupts masked */
};

struct ht_qemu_opts {
	const char *capture_dir; /* required */
	const char *fw_cm3;	 /* firmware images (ELF); NULL: that core */
	const char *fw_rv32;	 /* is left out (at least one is needed) */
	const char *work_dir;	 /* RAM files, sockets, logs; required */
	const char *qemu_arm;	 /* NULL: "qemu-system-arm" */
	const char *qemu_riscv;	 /* NULL: "qemu-system-riscv32" */
	/* Run this core under -icount shift=N (0 ns per insn = 2^N): its
	 * clock then follows its instructions, not the host's time. */
	bool icount_cm3, icount_rv32;
	unsigned icount_shift;
	uint64_t sync_period_ns; /* 0: 5 ms */
	/* The workload: SHA-256 rounds (a tracepoint every 1, 5, 10, 100
	 * hashes), pisum repetitions, quicksort size; all 0: the defaults
	 * (1 round of each SHA, 2 pisum, 10,000 ints). `light` runs one
	 * SHA round, 1 pisum and 2,000 ints (tests). */
	bool light;
	unsigned repeat;   /* the whole job list, N times (0: 1) */
	uint64_t extra_ns; /* keep the handshake running after the jobs */
	/* A core that crashes or hangs after its first job. */
	enum ht_qemu_fail fail;
	const char *fail_core; /* "cm3" or "rv32" */
	bool no_fsync;
	volatile sig_atomic_t *stop; /* set by a signal handler */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	/* Progress lines (one per job answered); may be NULL. */
	void (*progress)(void *arg, const char *msg);
	void *progress_arg;
};

struct ht_qemu_core_stats {
	char name[16];
	uint32_t core_id;
	const char *role; /* "master" / "slave" */
	uint64_t clock_hz;
	bool icount;
	uint64_t events;	 /* tracing calls (firmware's count) */
	uint64_t packets, bytes; /* written to the capture */
	uint64_t discarded;
	uint64_t jobs; /* jobs answered */
	uint64_t sync_rounds, sync_timeouts, sync_min_rtt_ns;
	uint64_t irqs;
	/* A core that stopped: why and when. */
	bool stopped;
	char stop_reason[256];
};

struct ht_qemu_result {
	unsigned nr_cores;
	struct ht_qemu_core_stats core[HT_QEMU_MAX_CORES];
	uint64_t elapsed_ns;
	bool interrupted;
	/* The job table (the paper-style results; ticks on each core). */
	unsigned nr_jobs;
	struct ht_qemu_job {
		char core[16];
		const char *name; /* "sha/1", "pisum", "qsort" ... */
		uint32_t arg;
		uint64_t result;
		uint64_t ticks;
		uint64_t host_ns; /* send to receive on the master */
	} jobs[64];
};

/*
 * Runs the board and writes the capture. Returns 0, or a negative HT_E...
 * code with a message in @err (a QEMU that does not start names its
 * command line; a core that crashed or stopped answering is named with
 * the time it stopped; the capture holds every complete packet in every
 * case). No QEMU process is left when it returns.
 */
int ht_qemu_run(const struct ht_qemu_opts *opts, struct ht_qemu_result *res,
		char *err, size_t err_len);

#endif
