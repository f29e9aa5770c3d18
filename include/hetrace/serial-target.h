/* SPDX-License-Identifier: MIT */
#ifndef HETRACE_SERIAL_TARGET_H
#define HETRACE_SERIAL_TARGET_H

/*
 * The target side of the serial link (docs/serial.md, "Wire format and
 * target side"): sends a core's committed packets from its packet ring
 * as PACKET frames on a byte stream, answers the host's sync requests
 * and commands, and keeps the function-tracing settings across a reset.
 *
 * It only reads committed packets from the ring (the consumer side of
 * include/hetrace/packet-ring.h): the tracepoints' fast path does not
 * know it exists. It does not know the UART: the port gives put() and
 * feeds received bytes to ht_serial_target_rx().
 *
 * Two contexts on one core:
 * - ht_serial_target_rx() from the UART's receive interrupt: decodes
 *   frames, stamps and traces sync requests at once, and posts a good
 *   command to a one-slot mailbox. It never runs a command.
 * - ht_serial_target_poll() (and ht_serial_target_log()) from the main
 *   loop or the UART's TX-empty interrupt, never nested in each other:
 *   runs the posted command, sends frames.
 * runtime/serial-target.c lists which side writes each shared field.
 *
 * Every byte is the caller's (struct ht_serial_target); no allocation.
 * Requires C99 and <stdint.h>, <stddef.h>, <string.h> only.
 */

#include <stddef.h>
#include <stdint.h>

#include "instrument.h"
#include "packet-ring.h"
#include "serial-proto.h"
#include "sync-slave.h"

/* Bytes of a received frame's body (commands are under 100 bytes). */
#ifndef HT_SERIAL_RX_SIZE
#define HT_SERIAL_RX_SIZE 128u
#endif
/* Bytes of LOG text waiting to be sent (a power of two). */
#ifndef HT_SERIAL_LOG_SIZE
#define HT_SERIAL_LOG_SIZE 128u
#endif
/* The largest reply: a PROFILE page. */
#define HT_SERIAL_REPLY_MAX                                                    \
	(HT_SP_CMD_HDR + HT_SP_PROFILE_HDR +                                   \
	 HT_SP_FUNCS_PER_REPLY * HT_SP_FUNC_SIZE)

/* What the port supplies. */
struct ht_serial_target_ops {
	/*
	 * Puts up to n bytes on the line; returns how many it took (0: the
	 * UART is full, try later). A polled port may block and return n.
	 */
	uint32_t (*put)(void *arg, const uint8_t *p, uint32_t n);
	/* The trace clock, extended to 64 bits (the tracer's timestamps). */
	uint64_t (*clock)(void *arg);
	/*
	 * Closes the packet being filled so it is committed to the ring
	 * (HT_SPC_FLUSH, PROFILE_TO_TRACE, DUMP_TRACE). NULL: FLUSH is
	 * unsupported.
	 */
	void (*flush)(void *arg);
	/* Resets the core (after the REBOOT reply is out); NULL: unsupported.
	 */
	void (*reboot)(void *arg);
	/* Event records written and lost so far (STATUS); NULL: zeros. */
	void (*counts)(void *arg, uint64_t *events, uint64_t *discarded);
	/*
	 * Pauses (1) or resumes (0) writing records while DUMP_TRACE sends
	 * an overwrite ring (the generated <prefix>enable_tracing()).
	 * NULL: function tracing is disabled during the dump instead
	 * (other tracepoints may then overwrite the oldest packets: those
	 * are counted as overwritten, and one caught while being sent
	 * ends with a wrong CRC, so the host drops it).
	 */
	void (*pause)(void *arg, int paused);
	void *arg;
};

/*
 * Settings kept across a reset, in RAM the startup code does not clear
 * (a .noinit section). magic, version, size first, the CRC-32 of every
 * byte before it last; new fields go before `reserved`'s end, with a
 * new size. Valid when magic, version, size and CRC all match.
 */
#define HT_SERIAL_RETAINED_MAGIC 0x52535448u /* "HTSR" in little-endian */
#define HT_SERIAL_RETAINED_VERSION 1u

enum ht_serial_retained_flags {
	/* Function tracing enabled (ht_instr_enable) */
	HT_SERIAL_RET_ENABLED = 1u << 0,
	/* The host set them: restored into instr at boot. Without it only
	 * boot_count is kept and the firmware's own settings apply. */
	HT_SERIAL_RET_SET = 1u << 1,
};

struct ht_serial_retained {
	uint32_t magic;	     /* HT_SERIAL_RETAINED_MAGIC */
	uint32_t version;    /* HT_SERIAL_RETAINED_VERSION */
	uint32_t size;	     /* sizeof(struct ht_serial_retained) */
	uint32_t boot_count; /* 1 at the first boot, + 1 at each reset */
	uint32_t flags;	     /* enum ht_serial_retained_flags */
	uint32_t trigger_nth;
	uint64_t trigger; /* addresses: u64 on every target */
	uint64_t trigger_caller;
	uint64_t stopper;
	uint32_t reserved;
	uint32_t crc; /* ht_crc32() of the bytes before it */
};

struct ht_serial_target_config {
	const struct ht_serial_target_ops *ops;
	/* Packets are sent from here (include/hetrace/packet-ring.h); NULL:
	 * a control link only. Discard mode: every committed packet
	 * streams; overwrite mode: only on HT_SPC_DUMP_TRACE. */
	struct ht_ring *ring;
	/* NULL: no function-tracing commands (HT_SPS_UNSUPPORTED). */
	struct ht_instr *instr;
	/* Traces sync_ack / sync_notify; NULL: sync is not traced. */
	const struct ht_sync_slave_ops *sync;
	/* The TSDL metadata (HT_SPC_METADATA); NULL: none. */
	const char *metadata;
	uint32_t metadata_size;
	/* The firmware's GNU build id (HELLO); at most 20 bytes used. */
	const uint8_t *build_id;
	uint32_t build_id_len;
	uint32_t core_id;
	const char *name; /* the core's name, at most 16 bytes sent */
	uint64_t clock_hz;
	/* NULL: nothing kept across a reset. */
	struct ht_serial_retained *retained;
	/*
	 * Byte offset of the packet context's packet_size field (a u64
	 * in the target's byte order) in every packet: 16 for hetrace's
	 * default header (magic, stream_id) without uuid. 0: each packet
	 * fills its slot (hetrace's generated streams: packet_size is
	 * the slot size). A value outside 16 bytes .. slot_size, or not
	 * whole bytes, sends the whole slot (counted in bad_sizes).
	 */
	uint32_t packet_size_off;
};

/* What a frame being sent is. */
enum ht_serial_tx {
	HT_SERIAL_TX_NONE = 0,
	HT_SERIAL_TX_SYNC,
	HT_SERIAL_TX_REPLY, /* or the boot HELLO */
	HT_SERIAL_TX_LOG,
	HT_SERIAL_TX_PACKET,
};

/*
 * The target's state. Members are private to runtime/serial-target.c
 * (the counters may be read for tests and debugging).
 */
struct ht_serial_target {
	struct ht_serial_target_config cfg;
	struct ht_serial_retained fresh; /* the settings when none retained */
	struct ht_serial_retained *ret;	 /* cfg.retained, or &fresh */
	/* The firmware's own settings, for HT_SPC_CLEAR. */
	uint64_t def_trigger, def_trigger_caller, def_stopper;
	uint32_t def_trigger_nth;
	int def_enabled;
	int restored; /* settings were restored at boot */
	uint32_t metadata_crc;

	/* ---- Written by rx (the receive interrupt) ---- */
	struct ht_frame_dec dec;
	uint8_t rx_buf[HT_SERIAL_RX_SIZE];
	uint8_t cmd[HT_SERIAL_RX_SIZE]; /* the posted command's body */
	uint32_t cmd_len;
	volatile uint32_t cmd_posted; /* commands posted */
	uint16_t rx_seq;	      /* the next expected seq */
	int rx_have_seq;
	uint32_t rx_frames;	       /* good command frames */
	uint32_t rx_bad_type;	       /* good frames that are not commands */
	uint32_t rx_lost;	       /* command frames missing by seq */
	uint32_t cmd_dropped;	       /* a command came while one was posted */
	uint32_t sync_n;	       /* the latest request's round */
	uint64_t sync_t;	       /* and its time */
	volatile uint32_t sync_posted; /* requests stamped */
	uint32_t sync_replaced; /* stamped, then a newer one came first */

	/* ---- Written by poll / log (task context) ---- */
	volatile uint32_t cmd_taken; /* commands run */
	uint32_t sync_taken;	     /* requests answered or replaced */
	struct ht_frame_enc enc;
	enum ht_serial_tx tx; /* the frame being sent */
	uint16_t tx_seq;
	int tx_fin; /* finish() called */
	const uint8_t *tx_p, *tx_p2;
	uint32_t tx_n, tx_n2;
	uint8_t sync_buf[HT_SP_SYNC_SIZE];
	uint8_t reply[HT_SERIAL_REPLY_MAX];
	uint32_t reply_len;
	uint8_t reply_type; /* HT_SP_REPLY or HT_SP_HELLO; 0: no reply */
	int reboot_after;   /* the reply being sent is REBOOT's */
	uint32_t pkt;	    /* the packet being sent */
	/* DUMP_TRACE in progress: packets pkt .. dump_end - 1 */
	int dumping;
	uint32_t dump_end, dump_sent, dump_lost;
	uint16_t dump_tag;
	int dump_spoiled; /* the packet being sent was overwritten */
	int dump_paused;  /* 1: ops->pause; 2: instr disabled by the dump */
	uint8_t log[HT_SERIAL_LOG_SIZE];
	volatile uint32_t log_head; /* bytes queued (log) */
	volatile uint32_t log_tail; /* bytes sent (poll) */
	uint32_t log_lost;	    /* bytes that did not fit */
	uint32_t log_sent;	    /* bytes in the LOG frame being sent */
	uint32_t packets_sent, frames_sent, sync_rounds;
	uint32_t bad_sizes; /* packets with an invalid packet_size */
};

/*
 * Validates the retained settings (magic, version, size, CRC): valid
 * ones set by the host are applied to instr (trigger, stopper,
 * enabled) and boot_count goes + 1; invalid ones are replaced by the
 * firmware's settings with boot_count 1. Queues the HELLO frame. Call
 * it before the receive interrupt is enabled, after ht_instr_init().
 */
void ht_serial_target_init(struct ht_serial_target *t,
			   const struct ht_serial_target_config *c);

/*
 * From the UART receive interrupt, one byte at a time. A sync request
 * (a lone 0x00) is stamped here and traced (sync ops); commands are
 * decoded here and executed by the next poll.
 */
void ht_serial_target_rx(struct ht_serial_target *t, uint8_t byte);

/*
 * From the main loop (or the UART's TX-empty interrupt): runs a pending
 * command, sends what is pending in this order: SYNC, REPLY, LOG,
 * PACKETs (a frame is never interleaved with another). Returns 1 while
 * there is more to send (put() took less than offered), 0 when all is
 * out. Never blocks (unless put does).
 */
int ht_serial_target_poll(struct ht_serial_target *t);

/*
 * Queues text as LOG frames (what the firmware prints). From the same
 * context as poll. Returns the bytes queued; the rest (no room) is
 * dropped and counted in log_lost.
 */
uint32_t ht_serial_target_log(struct ht_serial_target *t, const char *s,
			      uint32_t n);

#endif
