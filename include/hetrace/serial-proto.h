/* SPDX-License-Identifier: MIT */
#ifndef HETRACE_SERIAL_PROTO_H
#define HETRACE_SERIAL_PROTO_H

/*
 * The serial link's wire format (docs/serial.md): what a target and
 * the host say to each other on a byte stream (a UART, a USB-serial
 * bridge, a socket), and the frame codec both sides use.
 *
 * A frame on the wire is COBS(body) followed by one 0x00 byte. COBS
 * (consistent overhead byte stuffing) removes every 0x00 from the body
 * at a cost of one byte per 254, so 0x00 only ever ends a frame and a
 * reader that lost its place (garbage, a dropped byte) is back in step
 * at the next 0x00. The body:
 *
 *   0  u8   type         enum ht_sp_type
 *   1  u8   flags        0 (reserved)
 *   2  u16  seq          per direction, +1 for every frame sent (wraps)
 *   4  ...  payload      the type's layout, below
 *   n  u32  crc          CRC-32 (IEEE 802.3, as zlib) of bytes 0..n-1
 *
 * Every multi-byte field is little-endian at the byte offset given
 * (payloads are byte layouts, not C structs: no padding, no alignment).
 * Addresses are u64 on every target.
 *
 * The host's sync request is a single 0x00 sent while no frame is
 * being sent: the target's decoder sees an end of frame with nothing
 * before it (HT_FRAME_IDLE). Its receive interrupt stamps the time at
 * once and answers with a SYNC frame. The host never sends any other
 * lone 0x00 (a command frame is its COBS bytes and one 0x00). A target
 * may send extra 0x00 at any time (at boot: the host's decoder is
 * then in step).
 *
 * Versions: a different major is incompatible (refused by both sides,
 * named in the message); a higher minor only adds commands, frame
 * types, or fields at the end of a payload, which older readers ignore.
 *
 * Requires C99 and <stdint.h> only; no allocation.
 */

#include <stdint.h>

#define HT_SP_MAJOR 1u
#define HT_SP_MINOR 0u

#define HT_SP_HDR 4u /* type, flags, seq */
#define HT_SP_CRC 4u /* the CRC after the payload */
#define HT_SP_BODY_MIN (HT_SP_HDR + HT_SP_CRC)
/* The largest payload the host accepts (a target's packets are smaller). */
#define HT_SP_PAYLOAD_MAX 65536u
/* Encoded size of a body of @n bytes, delimiter included (worst case). */
#define HT_SP_ENCODED_MAX(n) ((n) + (n) / 254u + 2u)

/* Frame types. Target -> host below 0x10, host -> target from 0x10. */
enum ht_sp_type {
	HT_SP_HELLO = 0x01,  /* at boot, and the reply data of HT_SPC_HELLO */
	HT_SP_PACKET = 0x02, /* payload: one whole CTF packet */
	HT_SP_SYNC = 0x03,   /* answer to a sync request */
	HT_SP_REPLY = 0x04,  /* answer to a command */
	HT_SP_LOG = 0x05,    /* text the firmware prints (not NUL-terminated) */
	HT_SP_CMD = 0x10,    /* a command */
};

/*
 * HELLO payload (HT_SP_HELLO_SIZE bytes; also the data of the reply to
 * HT_SPC_HELLO):
 *   0  u8   major, 1 u8 minor    the target's protocol version
 *   2  u16  flags                enum ht_sp_hello_flags
 *   4  u32  core_id
 *   8  u64  clock_hz             the trace clock's frequency
 *   16 u32  metadata_size        bytes of TSDL (HT_SPC_METADATA)
 *   20 u32  metadata_crc         CRC-32 of it
 *   24 u32  boot_count           from the retained settings (0: none)
 *   28 u8   build_id_len         0..20
 *   29 u8[3] reserved
 *   32 u8[20] build_id           the firmware's GNU build id
 *   52 char[16] name             the core's name, NUL-padded
 */
#define HT_SP_HELLO_SIZE 68u
enum ht_sp_hello_flags {
	HT_SP_HAS_INSTR = 1u << 0,   /* function tracing is built in */
	HT_SP_HAS_PROFILE = 1u << 1, /* the on-target profile too */
	HT_SP_OVERWRITE = 1u << 2,   /* flight recorder: HT_SPC_DUMP_TRACE */
	HT_SP_RETAINED = 1u << 3,    /* settings were restored at boot */
};

/*
 * SYNC payload (16 bytes):
 *   0  u32  n        the round: 0, 2, 4, ... (the target's count x 2)
 *   4  u32  reserved
 *   8  u64  t        the target's clock (the trace clock, extended to
 *                    64 bits) when the request's byte was taken
 * The target also traces sync_ack(n) and sync_notify(n + 1) at that
 * time (include/hetrace/sync-slave.h), the host sync_req(n) stamped
 * before it wrote the request and sync_recv(n + 1) stamped after it read
 * this frame: the pairs `hetrace sync` fits.
 */
#define HT_SP_SYNC_SIZE 16u

/*
 * CMD payload: 0 u8 cmd (enum ht_sp_cmd), 1 u8 reserved, 2 u16 tag
 * (chosen by the host, echoed), 4.. the arguments.
 * REPLY payload: 0 u8 cmd, 1 u8 status (enum ht_sp_status), 2 u16 tag,
 * 4.. the data.
 */
#define HT_SP_CMD_HDR 4u

enum ht_sp_cmd {
	/* args: u8 host major, u8 host minor. data: the HELLO payload. A
	 * different major: status HT_SPS_VERSION (data: the HELLO all the
	 * same, for the message). */
	HT_SPC_HELLO = 0x01,
	/* args: up to 64 bytes. data: the same bytes. */
	HT_SPC_PING = 0x02,
	/* data: the STATUS layout below. */
	HT_SPC_STATUS = 0x03,
	/* Function tracing on / off (ht_instr_enable / disable), saved. */
	HT_SPC_ENABLE = 0x04,
	HT_SPC_DISABLE = 0x05,
	/* args: 0 u64 fn (0: none), 8 u32 nth (0: every call), 12 u32
	 * reserved, 16 u64 caller (0: any). Saved. */
	HT_SPC_TRIGGER = 0x06,
	/* args: 0 u64 fn (0: none). Saved. */
	HT_SPC_STOPPER = 0x07,
	/* args: 0 u64 fn: trigger and stopper both fn (the window is one
	 * call of fn and its callees). Saved. */
	HT_SPC_COUPLE = 0x08,
	/*
	 * The on-target profile, paged. args: 0 u32 first (table index).
	 * data: 0 u32 next (the index to ask for next; 0xffffffff: done),
	 * 4 u32 count, 8 u32 lost_calls, 12 u32 deep_calls, 16 u32
	 * unbalanced, 20 u32 nested, 24 u32 discarded (struct
	 * ht_instr_stats), 28 u32 table size, then `count` entries of
	 * HT_SP_FUNC_SIZE bytes: 0 u64 addr, 8 u32 calls, 12 u32 reserved,
	 * 16 u64 incl, 24 u64 excl, 32 u64 max (profile clock cycles).
	 * At most HT_SP_FUNCS_PER_REPLY entries per reply.
	 */
	HT_SPC_PROFILE = 0x09,
	/* Writes the profile into the trace (func_profile records, through
	 * ht_instr_profile_dump) and closes the packet. data: none. */
	HT_SPC_PROFILE_TO_TRACE = 0x0a,
	/* Flight recorder: sends the overwrite ring's packets, oldest
	 * first, as PACKET frames, then the reply. data: 0 u32 packets
	 * sent, 4 u32 packets overwritten before they could be sent. */
	HT_SPC_DUMP_TRACE = 0x0b,
	/* Closes the packet being filled, so that its events are sent. */
	HT_SPC_FLUSH = 0x0c,
	/* args: 0 u32 offset. data: 0 u32 offset, 4 u32 total, 8.. up to
	 * HT_SP_METADATA_CHUNK bytes of the TSDL metadata. */
	HT_SPC_METADATA = 0x0d,
	/* The reply is sent, then the target resets (the port's reboot). */
	HT_SPC_REBOOT = 0x0e,
	/* Forget the retained settings (trigger, stopper, enabled). */
	HT_SPC_CLEAR = 0x0f,
};
#define HT_SP_FUNC_SIZE 40u
#define HT_SP_FUNCS_PER_REPLY 16u
#define HT_SP_PROFILE_HDR 32u
#define HT_SP_METADATA_CHUNK 512u
#define HT_SP_PROFILE_DONE 0xffffffffu

/*
 * STATUS data (HT_SP_STATUS_SIZE bytes):
 *   0  u32  state         enum ht_sp_state bits
 *   4  u32  ring_mode     0 discard (streaming), 1 overwrite
 *   8  u32  nr_slots      of the packet ring
 *   12 u32  slots_used    committed, not yet sent
 *   16 u32  slot_size
 *   20 u32  boot_count
 *   24 u64  events        event records written since boot
 *   32 u64  discarded     event records lost (buffer full, nesting)
 *   40 u64  trigger       0: none
 *   48 u32  trigger_nth
 *   52 u32  reserved
 *   56 u64  trigger_caller
 *   64 u64  stopper
 *   72 u32  packets_sent  PACKET frames
 *   76 u32  frames_sent   every frame
 *   80 u32  rx_frames     good command frames
 *   84 u32  rx_errors     frames dropped (CRC, length, COBS)
 *   88 u32  rx_lost       command frames missing by their seq
 *   92 u32  sync_rounds   SYNC frames sent
 *   96 u64  now           the trace clock when the status was taken
 */
#define HT_SP_STATUS_SIZE 104u
enum ht_sp_state {
	HT_SPS_ENABLED = 1u << 0, /* function tracing not disabled */
	HT_SPS_WINDOW = 1u << 1,  /* the recording window is open */
	HT_SPS_STOPPED = 1u << 2, /* tracing stopped for good */
	HT_SPS_FULL = 1u << 3,	  /* fixed mode, the buffer filled up */
	HT_SPS_RETAINED = 1u << 4 /* settings restored from retained RAM */
};

enum ht_sp_status {
	HT_SPS_OK = 0,
	HT_SPS_UNKNOWN = 1,	/* unknown command */
	HT_SPS_BAD_ARGS = 2,	/* wrong argument length or value */
	HT_SPS_UNSUPPORTED = 3, /* not built into this firmware */
	HT_SPS_VERSION = 4,	/* incompatible protocol major */
	HT_SPS_BUSY = 5,	/* try again (a dump is running) */
};

/* Little-endian loads and stores at byte offsets. */
static inline void ht_sp_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void ht_sp_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void ht_sp_put64(uint8_t *p, uint64_t v)
{
	ht_sp_put32(p, (uint32_t)v);
	ht_sp_put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t ht_sp_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (uint16_t)(p[1] << 8));
}

static inline uint32_t ht_sp_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t ht_sp_get64(const uint8_t *p)
{
	return (uint64_t)ht_sp_get32(p) | (uint64_t)ht_sp_get32(p + 4) << 32;
}

/* ---- The codec (runtime/serial-frame.c) ---- */

/*
 * CRC-32 (IEEE 802.3, reflected, as zlib's crc32()): @crc is 0 for a
 * first block, the previous result to continue. Table-driven on
 * nibbles (64 bytes of table: small enough for any MCU).
 */
uint32_t ht_crc32(uint32_t crc, const void *p, uint32_t n);

/*
 * The encoder, incremental: a frame is fed a piece at a time and comes
 * out one COBS block (at most 255 bytes) at a time, so a target sends
 * a packet straight from its ring slot with 256 bytes of state and a
 * UART that takes what it can.
 *
 *   ht_frame_enc_start(e, type, seq);
 *   while (input left) {
 *       n = ht_frame_enc_feed(e, p, len);   (consumes up to len)
 *       p += n; len -= n;
 *       while (ht_frame_enc_pending(e)) send ht_frame_enc_out(e) ...
 *           ht_frame_enc_take(e, sent);
 *   }
 *   ht_frame_enc_finish(e);    (CRC and delimiter; drain as above)
 *
 * feed() takes input only while no output is pending, and stops as
 * soon as a block is out: always drain between calls.
 */
struct ht_frame_enc {
	uint8_t out[256]; /* code byte, up to 254 data bytes, or the 0x00 */
	uint32_t out_len; /* bytes of out[] ready */
	uint32_t out_pos; /* of which already taken */
	uint32_t blk;	  /* data bytes in the open block (out[1..]) */
	uint32_t crc;
	uint8_t pre[4];	  /* the header, then the CRC: fed before/after */
	uint32_t pre_len; /* bytes in pre[] */
	uint32_t pre_pos; /* of which fed */
	int finishing;	  /* 1: finish() called, 2: CRC in pre[], 3: last
			     block out */
	int done;	  /* the delimiter is in out[] */
};

void ht_frame_enc_start(struct ht_frame_enc *e, uint8_t type, uint16_t seq);
/* Consumes bytes of payload; returns how many (0 when output is pending). */
uint32_t ht_frame_enc_feed(struct ht_frame_enc *e, const void *p, uint32_t n);
/*
 * Appends the CRC and ends the frame. Call it, then drain and call
 * ht_frame_enc_step() until ht_frame_enc_done().
 */
void ht_frame_enc_finish(struct ht_frame_enc *e);
/* After finish(): moves the CRC and delimiter out as space allows. */
void ht_frame_enc_step(struct ht_frame_enc *e);
static inline int ht_frame_enc_done(const struct ht_frame_enc *e)
{
	return e->done && e->out_pos == e->out_len;
}
static inline uint32_t ht_frame_enc_pending(const struct ht_frame_enc *e)
{
	return e->out_len - e->out_pos;
}
static inline const uint8_t *ht_frame_enc_out(const struct ht_frame_enc *e)
{
	return e->out + e->out_pos;
}
static inline void ht_frame_enc_take(struct ht_frame_enc *e, uint32_t n)
{
	e->out_pos += n;
	if (e->out_pos == e->out_len) {
		e->out_pos = 0;
		e->out_len = 0;
	}
}

/*
 * A whole frame into @dst (at most @cap bytes, HT_SP_ENCODED_MAX of the
 * body is enough): returns its length, or 0 when it does not fit.
 */
uint32_t ht_frame_encode(uint8_t *dst, uint32_t cap, uint8_t type, uint16_t seq,
			 const void *payload, uint32_t n);

/* What ht_frame_dec_byte() saw. */
enum ht_frame_result {
	HT_FRAME_MORE = 0, /* in the middle of a frame */
	HT_FRAME_OK = 1,   /* a good frame: ht_frame_dec_type() etc. */
	HT_FRAME_IDLE = 2, /* a 0x00 with no byte before it */
	HT_FRAME_BAD = 3,  /* a frame dropped: CRC, length or COBS error */
};

/*
 * The decoder, a byte at a time, into the caller's buffer of @cap
 * bytes (a frame whose body does not fit is dropped, counted in
 * `too_long`). Counts everything it drops.
 */
struct ht_frame_dec {
	uint8_t *buf;
	uint32_t cap;
	uint32_t len;  /* body bytes decoded so far */
	uint32_t left; /* data bytes left in the COBS block */
	int zero;      /* the block ends with an implicit 0x00 */
	int skip;      /* dropping until the next 0x00 */
	uint32_t raw;  /* bytes of the current frame on the wire */
	/* Counters (wrap at 2^32). */
	uint32_t frames;	/* good frames */
	uint32_t crc_errs;	/* dropped: CRC mismatch */
	uint32_t too_long;	/* dropped: body larger than cap */
	uint32_t runts;		/* dropped: body shorter than header + CRC */
	uint32_t cobs_errs;	/* dropped: a 0x00 inside a COBS block */
	uint64_t dropped_bytes; /* wire bytes of every dropped frame */
};

void ht_frame_dec_init(struct ht_frame_dec *d, uint8_t *buf, uint32_t cap);
/* Takes one wire byte: enum ht_frame_result. */
int ht_frame_dec_byte(struct ht_frame_dec *d, uint8_t b);

/* The good frame's fields (after HT_FRAME_OK, until the next byte). */
static inline uint8_t ht_frame_dec_type(const struct ht_frame_dec *d)
{
	return d->buf[0];
}
static inline uint16_t ht_frame_dec_seq(const struct ht_frame_dec *d)
{
	return ht_sp_get16(d->buf + 2);
}
static inline const uint8_t *ht_frame_dec_payload(const struct ht_frame_dec *d)
{
	return d->buf + HT_SP_HDR;
}
static inline uint32_t ht_frame_dec_size(const struct ht_frame_dec *d)
{
	return d->len - HT_SP_BODY_MIN;
}

#endif
