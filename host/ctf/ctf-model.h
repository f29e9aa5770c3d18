/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CTF_MODEL_H
#define HT_HOST_CTF_MODEL_H

/*
 * The metadata model: the private side of a trace, its stream classes
 * and event classes (their public side is in ctf-reader.h), as the TSDL
 * parser builds them, with the decode plans the plan compiler hangs on
 * them (ctf-plan.h), and the clock classes' math (cycles -> ns). The
 * model knows types, classes and clocks; it does not know data stream
 * files, packets or the bytes of a record.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf-arena.h"
#include "ctf-plan.h"
#include "ctf-reader.h"

struct ht__event_class {
	struct ht_ctf_event_class pub;
	struct ht__plan context, payload;
	uint32_t index; /* in its stream class's event_classes */
	/* its scopes and the stream's event context are absent, fixed or
	 * flat: the fast path of the decoder takes the whole record */
	bool fast;
	/* the scan of its records after the event header; with a fixed
	 * event header (.hdr_fast of its stream class), .head_bits is the
	 * size of the header and of a first fixed step merged with it */
	const struct ht__skip *skip;
	uint32_t nr_skip;
	uint64_t head_bits;
};

struct ht__stream_class {
	struct ht_ctf_stream_class pub;
	struct ht__plan packet_context, event_header, event_context;
	/* event classes by id: a dense table when ids are small */
	struct ht__event_class **by_id;
	uint64_t nr_by_id;
	/*
	 * The event header, when it is fixed and its integers have no
	 * side effect but the event id and one clock update: its leaves
	 * are all loaded as plain ones, then the id is read from field
	 * .hdr_id (-1: none) and the clock updated from field .hdr_ts
	 * (-1: none) of .hdr_ts_bits bits.
	 */
	const struct ht__run *hdr_fast;
	int32_t hdr_id, hdr_ts;
	unsigned hdr_ts_bits;
	/* the same as leaf indices in .hdr_fast (-1: none) */
	int32_t hdr_id_leaf, hdr_ts_leaf;
	/*
	 * The id and the timestamp (if any) are unsigned little-endian
	 * leaves that one 8-byte load at the header's first byte holds:
	 * shifted right by the header's bit in that byte, each is
	 * (w >> shift) & mask.
	 */
	bool hdr_one_load;
	uint32_t hdr_id_shift, hdr_ts_shift;
	uint64_t hdr_id_mask, hdr_ts_mask;
	/* else the event header as LTTng's compact/extended one, when it
	 * is one (.hdr_var.nr > 0) */
	struct ht__hdr_var hdr_var;
	/* with .hdr_fast: the scan's entries by id (.nr_by_id of them) */
	struct ht__scan_entry *scan_by_id;
	bool clock_is_ns; /* default clock at 1 GHz: ns = base + cycles */
	bool base_ok;	  /* base_ns is valid */
	int64_t base_ns;  /* the default clock's offset in ns */
	double freq_d;	  /* its frequency */
	/* the last clock value whose time fits in int64_t ns from the
	 * origin (ht_ctf_clock_cycles_to_ns()) */
	uint64_t max_cycles;
	/* CTF 2: the default clock class the metadata names, the default
	 * clock even when no field has its timestamps (events are then at
	 * its value 0, as babeltrace2 puts them); NULL in CTF 1.8 */
	const struct ht_ctf_clock *ctf2_clock;
};

struct ht__trace {
	struct ht_ctf_trace pub;
	struct ht__arena arena;
	struct ht__plan packet_header;
	unsigned nr_regs;
	char *metadata_path;
	/* read from CTF 2 metadata: the roles of its integers
	 * (ht_ctf_type.role) say what member names say in CTF 1.8 */
	bool ctf2;
};

/*
 * Parses TSDL metadata @text (@len bytes) read from @path into @trace
 * (already zeroed, arena ready): the model only, no decode plan.
 * Warnings go to @opts->warn (@opts may be NULL). Returns 0 or a
 * negative HT_E... code with "path:line:col: message" in @err.
 */
int ht__tsdl_parse(struct ht__trace *trace, const char *path, const char *text,
		   size_t len, const struct ht_ctf_open_opts *opts, char *err,
		   size_t err_len);

/*
 * Parses CTF 2 metadata @text (@len bytes, a JSON text sequence: each
 * fragment after a 0x1e byte) read from @path into @trace (zeroed,
 * arena ready), translated into the same model as TSDL: the model
 * only, no decode plan (ctf2-metadata.c). Returns 0 or a negative
 * HT_E... code with "path:line:col: fragment N: JSON path: message"
 * in @err.
 */
int ht__ctf2_parse(struct ht__trace *trace, const char *path, const char *text,
		   size_t len, const struct ht_ctf_open_opts *opts, char *err,
		   size_t err_len);

/*
 * Loads trace @trace (zeroed, arena ready) from metadata @text read
 * from @path (TSDL, or CTF 2 JSON when it starts with 0x1e): parses it
 * into the model, then compiles the decode plans.
 * Returns 0 or a negative HT_E... code with a message in @err.
 */
int ht__trace_load(struct ht__trace *trace, const char *path, const char *text,
		   size_t len, const struct ht_ctf_open_opts *opts, char *err,
		   size_t err_len);

/*
 * The offset of clock @clk in ns from its origin (offset_s and offset
 * together), in @ns. Returns 0 or HT_ERANGE when it is not an int64_t.
 */
int ht__clock_offset_ns(const struct ht_ctf_clock *clk, int64_t *ns);

/*
 * Sets the clock fields of @sc (.clock_is_ns, .base_ok, .base_ns,
 * .freq_d, .max_cycles) from its default clock, once that is known.
 */
void ht__stream_class_clock_init(struct ht__stream_class *sc);

/*
 * @cycles of the default clock of @sc in ns from its origin, as
 * ht_ctf_clock_cycles_to_ns() computes it; INT64_MAX past .max_cycles
 * (the decoder reports such times: ht__stream_packet_time()).
 * The precomputed base makes the common case a few instructions.
 */
static inline int64_t ht__stream_class_to_ns(const struct ht__stream_class *sc,
					     uint64_t cycles)
{
	const struct ht_ctf_clock *c = sc->pub.default_clock;
	uint64_t vns;
	int64_t ns;

	if (!c) {
		return 0;
	}
	if (sc->base_ok) {
		if (sc->clock_is_ns) {
			vns = cycles;
		} else {
			double d = (1e9 * (double)cycles) / sc->freq_d;

			vns =
			    d >= (double)UINT64_MAX ? UINT64_MAX : (uint64_t)d;
		}
		if (vns < (uint64_t)INT64_MAX &&
		    !(sc->base_ns > 0 &&
		      (int64_t)vns > INT64_MAX - sc->base_ns)) {
			return sc->base_ns + (int64_t)vns;
		}
	}
	if (ht_ctf_clock_cycles_to_ns(c, cycles, &ns)) {
		return INT64_MAX;
	}
	return ns;
}

#endif
