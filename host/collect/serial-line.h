/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_SERIAL_LINE_H
#define HT_HOST_SERIAL_LINE_H

/*
 * The host's end of a serial link (include/hetrace/serial-proto.h,
 * docs/serial.md): opens the line (a tty set raw with termios, a
 * pseudo-terminal, a unix or TCP socket), decodes the frames the target
 * sends, tracks their sequence numbers (a gap is counted as lost
 * frames), hands packets, logs and HELLOs to a sink, and runs the
 * host's side of the protocol: commands with a tag and a timeout, the
 * HELLO and its version check, sync rounds stamped on CLOCK_MONOTONIC,
 * the metadata fetch.
 *
 * It knows the frames and the commands, not CTF: a PACKET frame's
 * payload is handed over as bytes (serial-record.h writes them into a
 * capture). Memory is bounded whatever the line sends: a read buffer,
 * a frame buffer and a copy of the awaited reply, each about
 * HT_SP_PAYLOAD_MAX; garbage is dropped and counted, and every wait
 * ends on its timeout.
 *
 * Errors: a timeout is HT_ETIMEDOUT with "TARGET: no reply to 'status'
 * in 1.0 s"; a line that went away (read 0, EIO, ENXIO, a hangup) is
 * HT_EIO with "TARGET: the line closed (...)", and every later call
 * fails the same way at once.
 */
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

struct ht_serial;

struct ht_serial_hello {
	uint8_t major, minor;
	uint16_t flags; /* enum ht_sp_hello_flags */
	uint32_t core_id;
	uint64_t clock_hz;
	uint32_t metadata_size, metadata_crc, boot_count;
	uint8_t build_id[20];
	uint32_t build_id_len;
	char name[17]; /* NUL-terminated */
};

/* Frames that are not the awaited reply. Any callback may be NULL. */
struct ht_serial_sink {
	void (*packet)(void *arg, const uint8_t *p, uint32_t n);
	void (*log)(void *arg, const char *text, uint32_t n);
	/* The target (re)booted: a HELLO frame nobody asked for. */
	void (*hello)(void *arg, const struct ht_serial_hello *h);
	void *arg;
};

struct ht_serial_reply {
	uint8_t status;	     /* enum ht_sp_status */
	const uint8_t *data; /* valid until the next call on the line */
	uint32_t size;
};

struct ht_serial_stats {
	uint64_t bytes;	 /* read from the line */
	uint64_t frames; /* good frames */
	uint32_t lost;	 /* frames missing by their seq */
	uint32_t crc_errs, cobs_errs, runts, too_long;
	uint64_t dropped_bytes; /* wire bytes of the dropped frames */
	/* Host additions (after the contract's fields). */
	uint64_t packets;    /* PACKET frames handed to the sink */
	uint32_t unexpected; /* good frames of no use (a late reply) */
	uint32_t hellos;     /* HELLO frames seen */
};

/*
 * Opens TARGET: /dev/ttyUSB0[:BAUD] (termios raw, default 115200; the
 * standard rates up to 4000000), pty:PATH or a /dev/pts/N path (a
 * pseudo-terminal: raw, no baud), unix:PATH, tcp:HOST:PORT (also
 * HOST:PORT; TCP_NODELAY). Returns 0 or HT_EINVAL (a malformed
 * TARGET), HT_EIO (cannot open or connect), HT_ENOMEM, with a message
 * naming TARGET in @err.
 */
int ht_serial_open(const char *target, struct ht_serial **out, char *err,
		   size_t len);

/* Closes the line and frees it. NULL is allowed. */
void ht_serial_close(struct ht_serial *s);

/* Where frames go that no call waits for (copied; NULL: dropped). */
void ht_serial_set_sink(struct ht_serial *s, const struct ht_serial_sink *sink);

/*
 * Sends HT_SPC_HELLO and fills @h from the reply. A different major is
 * HT_EFORMAT "protocol version mismatch: TARGET speaks 2.0, hetrace
 * 1.0". Timeout and lost line as ht_serial_command().
 */
int ht_serial_hello(struct ht_serial *s, struct ht_serial_hello *h,
		    int timeout_ms, char *err, size_t len);

/*
 * Sends command @cmd with @n bytes of @args and waits up to
 * @timeout_ms for the reply carrying its tag; other frames go to the
 * sink meanwhile. Returns 0 with @reply filled (its status is the
 * target's: the caller judges it), HT_ETIMEDOUT "TARGET: no reply to
 * 'status' in 1.0 s", HT_EIO for a line that went away.
 */
int ht_serial_command(struct ht_serial *s, uint8_t cmd, const void *args,
		      uint32_t n, struct ht_serial_reply *reply, int timeout_ms,
		      char *err, size_t len);

/*
 * Reads and dispatches for up to @timeout_ms (0: what is there now).
 * Returns 0, or HT_EIO for a line that went away.
 */
int ht_serial_pump(struct ht_serial *s, int timeout_ms, char *err, size_t len);

/*
 * One sync round: writes the lone 0x00 and waits for the SYNC frame.
 * @t_send: CLOCK_MONOTONIC ns just before the write; @t_recv: just
 * after the frame was decoded; @n and @t_target: the frame's round and
 * target time. HT_ETIMEDOUT "TARGET: no reply to 'sync' in ..." when
 * no SYNC frame came.
 */
int ht_serial_sync(struct ht_serial *s, uint64_t *t_send, uint64_t *t_recv,
		   uint32_t *n, uint64_t *t_target, int timeout_ms, char *err,
		   size_t len);

/*
 * The target's TSDL metadata (HT_SPC_METADATA, chunk by chunk), checked
 * against the size and CRC of the last HELLO (call ht_serial_hello()
 * first). @text is malloc'ed and NUL-terminated. HT_EFORMAT on a CRC or
 * size mismatch.
 */
int ht_serial_metadata(struct ht_serial *s, char **text, size_t *len, char *err,
		       size_t elen);

const struct ht_serial_stats *ht_serial_stats(const struct ht_serial *s);

/* The TARGET string as opened. */
const char *ht_serial_name(const struct ht_serial *s);

/* The short name of command @cmd ("status"), "0x42" style otherwise. */
const char *ht_serial_cmd_name(uint8_t cmd);

/* CLOCK_MONOTONIC in ns, the clock of ht_serial_sync(). */
uint64_t ht_serial_now_ns(void);

/*
 * A line over an fd the caller opened (a socketpair, a pipe: tests and
 * fuzzing); the line owns @fd from then on. @name names it in messages.
 */
int ht_serial_open_fd(int fd, const char *name, struct ht_serial **out,
		      char *err, size_t len);

/* The descriptor of the line (for poll() by a caller), -1 once lost. */
int ht_serial_fd(const struct ht_serial *s);

/*
 * The openers, for other users of a line (the board's serial and socket
 * doorbells). A tty set raw at @baud (0: left as it is, a pty), non-
 * blocking; a unix socket at @path, or TCP @host:@port with
 * TCP_NODELAY when @path is NULL. Return 0 or HT_EINVAL / HT_EIO with
 * a message naming the device in @err.
 */
int ht_serial_open_tty(const char *path, uint32_t baud, int *fd, char *err,
		       size_t len);
int ht_serial_connect(const char *path, const char *host, unsigned port,
		      int *fd, char *err, size_t len);

#endif
