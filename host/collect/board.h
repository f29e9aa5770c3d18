/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_BOARD_H
#define HT_HOST_BOARD_H

/*
 * The board description (docs/board.md): a YAML file saying what a
 * master must know of a heterogeneous board to trace it: the memory
 * regions it maps (POSIX shm, a plain file, /dev/mem, a UIO map), the
 * cores with their packet rings and sync mailboxes, each slave's
 * doorbell, and the sync timing.
 *
 * This layer reads and validates the text into the plain model below;
 * every error is "file:line:col: message" (unknown keys, wrong types,
 * duplicate names, overlapping rings, a register outside its region,
 * an undefined ${NAME} placeholder). It opens nothing and maps nothing:
 * host/collect/board-master.h does that.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/yaml-doc.h"

enum ht_board_region_kind {
	HT_BOARD_REGION_SHM,	/* POSIX shared memory object */
	HT_BOARD_REGION_FILE,	/* plain file, at `offset` */
	HT_BOARD_REGION_DEVMEM, /* /dev/mem at physical address `offset` */
	HT_BOARD_REGION_UIO,	/* /dev/uioN, map `map` */
};

struct ht_board_region {
	char *name;
	enum ht_board_region_kind kind;
	char *path;	 /* shm name, file, "/dev/mem" or the UIO device */
	uint64_t offset; /* file offset, or the physical address (devmem) */
	uint32_t map;	 /* UIO map index */
	uint64_t size;	 /* bytes, > 0 */
	struct ht_src_loc loc;
};

/* A place in a region. */
struct ht_board_place {
	size_t region; /* index in ht_board.regions */
	uint64_t offset;
	uint64_t size; /* 0 where the key has no size (mailbox, register) */
	struct ht_src_loc loc;
};

enum ht_board_ring_kind {
	HT_BOARD_RING_NONE,	 /* the core has no ring */
	HT_BOARD_RING_PLACE,	 /* at `place` */
	HT_BOARD_RING_DIRECTORY, /* found in the ring directory */
};

enum ht_board_doorbell_kind {
	HT_BOARD_DOORBELL_NONE,
	HT_BOARD_DOORBELL_MMIO,
	HT_BOARD_DOORBELL_SERIAL,
	HT_BOARD_DOORBELL_SOCKET,
	HT_BOARD_DOORBELL_SIGNAL,
};

struct ht_board_doorbell {
	enum ht_board_doorbell_kind kind;
	struct ht_src_loc loc;
	/* mmio: write `value` of `width` bits (8/16/32/64) at `reg`. */
	struct ht_board_place reg;
	unsigned width;
	uint64_t value;
	/* serial, socket: send `byte`; log what the target sends (or NULL). */
	char *device; /* serial device */
	uint32_t baud;
	char *path;	    /* socket: unix socket path, or NULL */
	char *host;	    /* socket: TCP host (with `port`), or NULL */
	uint16_t port;
	uint8_t byte;
	char *log;
	/* signal: send `signo` to `pid`; pin-away around bursts. */
	int64_t pid;
	int signo;
	bool pin_away;
};

enum ht_board_role {
	HT_BOARD_MASTER,
	HT_BOARD_SLAVE,
};

struct ht_board_core {
	char *name;
	enum ht_board_role role;
	bool has_id;
	uint32_t id;	/* core_id; when !has_id, the ring header's */
	char *output;	/* capture subdirectory (the name by default) */
	char *metadata; /* metadata file for a ring that carries none, or NULL */
	enum ht_board_ring_kind ring_kind;
	struct ht_board_place ring; /* HT_BOARD_RING_PLACE */
	bool has_mailbox;
	struct ht_board_place mailbox; /* struct ht_sync_slave_mbox */
	struct ht_board_doorbell doorbell;
	struct ht_src_loc loc;
};

struct ht_board_sync {
	size_t reference;    /* index of the master core */
	uint64_t period_ns;  /* default 10 ms */
	uint64_t timeout_ns; /* default 100 ms */
	unsigned burst;	     /* default 4 */
	uint64_t stall_ns;   /* default 2 s */
};

struct ht_board {
	char *path; /* the file read (messages use it) */
	char *name; /* `board:`, or NULL */
	struct ht_board_region *regions;
	size_t nr_regions;
	struct ht_board_core *cores;
	size_t nr_cores;
	size_t master; /* index of the core with role master */
	struct ht_board_sync sync;
	bool has_directory;
	struct ht_board_place directory; /* struct ht_ring_directory */
	/* The text as read (before placeholder substitution), for
	 * CAPTURE/board.yaml. */
	char *text;
	size_t text_len;
};

/*
 * Reads and validates the board file @path. @defines is NULL or a
 * NULL-terminated array of "NAME=VALUE" strings replacing the
 * placeholders ${NAME}. On success sets *@board (free it with
 * ht_board_free()) and returns 0; otherwise returns a negative HT_E...
 * code (HT_ENOENT, HT_ESYNTAX, HT_ECONFIG, HT_ENOMEM) with
 * "file:line:col: message" in @err.
 */
int ht_board_load(const char *path, const char *const *defines,
		  struct ht_board **board, char *err, size_t err_len);

/* The same for @len bytes of @text, named @name in messages. */
int ht_board_load_text(const char *name, const char *text, size_t len,
		       const char *const *defines, struct ht_board **board,
		       char *err, size_t err_len);

/* Frees a board. NULL is allowed. */
void ht_board_free(struct ht_board *board);

/* "shm", "file", "devmem", "uio". */
const char *ht_board_region_kind_name(enum ht_board_region_kind kind);

/*
 * Describes core @i's doorbell for messages, e.g. "signal SIGUSR1 to pid
 * 1234", "mmio 32-bit write of 0x1 at ipi+0x10", "none". Returns @buf.
 */
const char *ht_board_doorbell_describe(const struct ht_board *board, size_t i,
				       char *buf, size_t len);

#endif
