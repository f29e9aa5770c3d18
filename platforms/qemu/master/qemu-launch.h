/* SPDX-License-Identifier: MIT */
#ifndef HT_QEMU_LAUNCH_H
#define HT_QEMU_LAUNCH_H

/*
 * One QEMU instance of the board (docs/qemu.md): its guest RAM backed
 * by a file this process maps too, its UART on a unix socket that QEMU
 * listens on (the recorder's doorbell connects there: a byte written
 * raises the core's receive interrupt, and it logs what the firmware
 * prints into uart_path), QEMU's own output in a log file. The process
 * never outlives this one (PR_SET_PDEATHSIG) and is stopped by
 * qlaunch_stop().
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "platforms/qemu/qemu-board.h"

#define QL_RAM_SIZE (16u << 20)

struct qlaunch {
	/* Filled by the caller. */
	const char *name;     /* core name: "cm3", "rv32" */
	const char *qemu;     /* the binary */
	const char *firmware; /* ELF */
	const char *work_dir;
	bool riscv; /* virt (RISC-V) instead of mps2-an385 */
	bool icount;
	unsigned icount_shift;

	/* Set by qlaunch_start(). */
	char ram_path[512], sock_path[108], log_path[512], uart_path[512];
	char cmdline[2048]; /* for messages */
	pid_t pid;	    /* 0 when not running */
	int status;	    /* wait status once exited */
	bool exited;
	int ram_fd;
	uint8_t *ram;
	struct qb_block *block;
	size_t block_off; /* the block's offset in the RAM file */
};

/*
 * Creates the RAM file, starts QEMU, waits for its serial socket and
 * until the firmware has published a valid board block (magic,
 * version, size, state QB_READY) within @boot_timeout_ms. Returns 0 or
 * a negative HT_E... code with a message naming the command line (and
 * QEMU's last words from the log) in @err. On failure the process is
 * stopped and everything undone.
 */
int qlaunch_start(struct qlaunch *q, unsigned boot_timeout_ms, char *err,
		  size_t err_len);

/* The last non-empty line of the text file @path into @out ("" when
 * there is none): QEMU's last words, the firmware's last UART line. */
void qlaunch_last_line(const char *path, char *out, size_t len);

/* True (and q->status set) once the QEMU process has ended. */
bool qlaunch_has_exited(struct qlaunch *q);

/* Stops QEMU (SIGTERM, then SIGKILL after 2 s), unmaps, closes, removes
 * the RAM file and the socket; keeps the logs. Safe to call twice. */
void qlaunch_stop(struct qlaunch *q);

#endif
