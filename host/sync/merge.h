/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_MERGE_H
#define HT_HOST_MERGE_H

/*
 * The merge: N CTF traces (one per core, each on its own clock) -> one
 * CTF trace on one clock in ns (ctf-writer.h), one stream per input
 * stream, every event with every field, its time mapped through its
 * core's function. Each output stream is written from its input stream
 * alone, so the cores are merged one after the other (a core's own
 * streams in their time order, for the order of its mapped times):
 * memory is (streams of one core) x (one packet), whatever the trace
 * size. A core whose records need no alignment beyond a byte after a
 * fixed event header has its records copied as bytes, the header
 * written anew (merge-copy.c); the others are decoded and encoded
 * field by field.
 *
 * Discarded events and lost packets of the inputs are carried over
 * (events_discarded, packet_seq_num gaps); damaged packets are skipped
 * and reported through the note callback, the rest is merged.
 *
 * The env block (docs/events.md): sync_reference, then per core
 * core_<id>_name, core_<id>_role, core_<id>_master (a slave),
 * core_<id>_sync (the sync quality), then the caller's extra entries.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/ctf/ctf-reader.h"

/* Maps a core's clock value (extended cycles) to reference ns (from
 * the reference clock's origin). Must be non-decreasing in @cycles. */
typedef int64_t (*ht_merge_map_fn)(void *arg, uint64_t cycles);

/*
 * Optional: map() of @cycles[i] into @ns[i] for i < @n, the same
 * values, for times of one stream of a core in their order (cheaper
 * per time than map()).
 */
typedef void (*ht_merge_map_many_fn)(void *arg, const uint64_t *cycles,
				     int64_t *ns, size_t n);

/* An event as the event-time callback sees it. */
struct ht_merge_event {
	uint32_t stream;      /* its stream's index in its core's trace */
	uint64_t offset_bits; /* where its record starts in that file */
	uint64_t cycles;      /* its time (extended cycles) */
};

/*
 * Optional: the time of event @ev, given @ns = map(ev->cycles). May
 * move an event later within the clock tick it was stamped in (e.g. a
 * receive placed after its send). Called once per event, in the core's
 * order; later events of the core are kept at or after it.
 */
typedef int64_t (*ht_merge_event_fn)(void *arg, const struct ht_merge_event *ev,
				     int64_t ns);

/*
 * Optional: event_time() of @ev[i] given @ns[i], into @ns[i], for i <
 * @n: the same values as @n calls in order (cheaper per event).
 */
typedef void (*ht_merge_event_many_fn)(void *arg,
				       const struct ht_merge_event *ev,
				       int64_t *ns, size_t n);

struct ht_merge_core {
	const char *path;   /* the core's trace directory */
	const char *name;   /* core name */
	uint32_t id;	    /* core id (packet context core_id) */
	const char *role;   /* "master"/"slave" or NULL */
	const char *master; /* master's name or NULL */
	const char *sync;   /* quality for the env, or NULL */
	ht_merge_map_fn map;
	ht_merge_map_many_fn map_many; /* NULL: map() one by one */
	ht_merge_event_fn event_time;  /* NULL: map() alone */
	/* NULL: event_time() one by one */
	ht_merge_event_many_fn event_time_many;
	void *map_arg;
	/* the core's own clock frequency (env core_<id>_clock_hz, for
	 * values in core cycles such as on-target profiles); 0: none */
	uint64_t clock_hz;
	/*
	 * An LTTng kernel trace: one core per CPU (packet context
	 * cpu_id = N), named `<name>/cpu<N>` with core id .id + N, role
	 * and master as above; its env entries are added as CPUs are met.
	 */
	bool per_cpu;
};

struct ht_merge_env {
	const char *name;
	const char *str; /* NULL: integer .i */
	int64_t i;
};

struct ht_merge_opts {
	const char *out_dir;
	bool overwrite;
	size_t packet_bytes;		      /* 0: the writer's default */
	const char *reference;		      /* reference core name */
	const struct ht_ctf_clock *ref_clock; /* name, uuid, absolute */
	/* the output clock's origin, in ref ns: a whole number of seconds
	 * no later than the earliest mapped time */
	int64_t origin_s;
	const struct ht_merge_env *env; /* extra env entries */
	size_t nr_env;
	/*
	 * Keep the reference clock as it is: its name, UUID, description,
	 * precision and offsets (origin_s is then ignored), so that the
	 * reference core's events keep their very timestamps (an LTTng
	 * trace, docs/lttng.md). Only a 1 GHz clock can be kept (the
	 * output is in ns); events mapped before its origin are an error.
	 */
	bool keep_ref_clock;
	/* called for each problem (damaged packet...); may be NULL */
	void (*note)(void *arg, const char *msg);
	void *note_arg;
};

struct ht_merge_stats {
	uint64_t events;
	uint64_t copied; /* of them, records copied as bytes */
	uint64_t discarded_events;
	uint64_t lost_packets;
	uint64_t damaged; /* damaged packets skipped */
	uint64_t clamped; /* events mapped before the origin */
	size_t streams;
	bool has_time;
	int64_t first_ns, last_ns; /* mapped, ref ns */
};

/*
 * Merges the traces of @cores into opts->out_dir. Returns 0 or a
 * negative HT_E... code with a message in @err.
 */
int ht_merge_run(const struct ht_merge_core *cores, size_t nr_cores,
		 const struct ht_merge_opts *opts, struct ht_merge_stats *st,
		 char *err, size_t err_len);

#endif
