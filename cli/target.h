/* SPDX-License-Identifier: MIT */
#ifndef HT_CLI_TARGET_H
#define HT_CLI_TARGET_H

/*
 * A live target on a serial link (docs/serial.md), for the commands
 * that talk to one: `hetrace ctl`, `hetrace trace`, `hetrace profile
 * TARGET`. Opens the line (host/collect/serial-line.h), says HELLO,
 * checks the firmware's build id against --elf, turns function names
 * into the addresses the target's hooks see
 * (host/analysis/target-names.h), sends commands and judges their
 * replies, reads the on-target profile page by page. Every function
 * that can fail prints its message and returns the exit status
 * (HT_EXIT_OK, HT_EXIT_FAIL, HT_EXIT_USAGE).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hetrace/serial-proto.h"
#include "host/analysis/func-profile.h"
#include "host/analysis/func-symbols.h"
#include "host/collect/serial-line.h"

/* --timeout's default, ms: a command's reply on a 115200 baud line. */
#define HT_CLI_TARGET_TIMEOUT_MS 1000

struct ht_cli_target {
	const char *name; /* the TARGET string */
	const char *what; /* the command run, for messages (NULL: none) */
	struct ht_serial *line;
	struct ht_serial_hello hello; /* the answer to our HELLO */
	struct ht_func_symbols *sy;   /* --elf, NULL: none */
	int timeout_ms;
	bool strict_build_id; /* a build id mismatch is an error */
	/* What came on the side while waiting for replies. */
	unsigned reboots;		   /* HELLO frames not asked for */
	struct ht_serial_hello last_hello; /* the last of them */
	/* PACKET frames: dump-trace's writer, NULL: counted only. */
	void (*packet)(void *arg, const uint8_t *p, uint32_t n);
	void *packet_arg;
	uint64_t packets;
};

/*
 * Whether @arg names a live target rather than a trace: "unix:",
 * "tcp:" or "pty:" first, a path under /dev/ (a tty, "/dev/ttyUSB0:
 * 921600" too), a character device anywhere (a pseudo-terminal's
 * link), or HOST:PORT where no such file exists.
 */
bool ht_cli_is_target(const char *arg);

/* Opens the firmware's ELF (@elf NULL: none). Returns the exit status. */
int ht_cli_target_elf(struct ht_cli_target *t, const char *elf);

/*
 * @spec (a function name or 0xADDR) as the address the target's hooks
 * see. An unknown name: the nearest names, HT_EXIT_USAGE.
 */
int ht_cli_target_resolve(struct ht_cli_target *t, const char *opt,
			  const char *spec, uint64_t *addr);

/*
 * Opens the line to @target, says HELLO (a protocol version mismatch
 * names both versions) and checks the build id against the ELF (a
 * mismatch: a warning, an error with strict_build_id; a missing one: a
 * note). Returns the exit status.
 */
int ht_cli_target_open(struct ht_cli_target *t, const char *target);

/* Closes the line and the ELF. */
void ht_cli_target_close(struct ht_cli_target *t);

/*
 * Sends @cmd and waits for its reply (@timeout_ms, 0: t->timeout_ms);
 * a reply whose status is not OK is a failure said with the command's
 * name. Returns the exit status; @reply is valid until the next call
 * on the line.
 */
int ht_cli_target_cmd(struct ht_cli_target *t, uint8_t cmd, const void *args,
		      uint32_t n, struct ht_serial_reply *reply,
		      int timeout_ms);

/* The STATUS data (serial-proto.h's layout), decoded. */
struct ht_cli_target_status {
	uint32_t state, ring_mode, nr_slots, slots_used, slot_size;
	uint32_t boot_count;
	uint64_t events, discarded;
	uint64_t trigger, trigger_caller, stopper;
	uint32_t trigger_nth;
	uint32_t packets_sent, frames_sent, rx_frames, rx_errors, rx_lost;
	uint32_t sync_rounds;
	uint64_t now;
};

int ht_cli_target_status(struct ht_cli_target *t,
			 struct ht_cli_target_status *st);

/* One function of the on-target profile (HT_SPC_PROFILE). */
struct ht_cli_target_func {
	uint64_t addr;
	uint32_t calls;
	uint64_t incl, excl, max; /* the target's clock cycles */
};

struct ht_cli_target_profile {
	uint32_t lost_calls, deep_calls, unbalanced, nested, discarded;
	uint32_t table_size;
	struct ht_cli_target_func *funcs;
	size_t nr_funcs;
};

/* Reads every page of the on-target profile. Returns the exit status. */
int ht_cli_target_profile(struct ht_cli_target *t,
			  struct ht_cli_target_profile *p);
void ht_cli_target_profile_free(struct ht_cli_target_profile *p);

/* Cycles of the target's clock (HELLO's clock_hz) in ns. */
uint64_t ht_cli_target_ns(const struct ht_cli_target *t, uint64_t cycles);

/* cli/profile.c: the on-target profile of a live target, printed as
 * `hetrace profile TRACE` prints a dumped one. Returns the exit status. */
int ht_cli_profile_live(struct ht_cli_target *t, unsigned top,
			enum ht_func_profile_key key);

#endif
