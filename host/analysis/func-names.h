/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_FUNC_NAMES_H
#define HT_HOST_FUNC_NAMES_H

/*
 * Function names for the views (hetrace print, profile, export,
 * report): ELF files per core (host/analysis/func-symbols.h) and each core's
 * load bias, decided as host/analysis/func-slices.h decides it, so
 * relocated images (PIE, shared objects) get the right names:
 * - the bias is the core's `func_base` record minus the ELF's lowest
 *   load address;
 * - without func_base (an overwrite ring lost its first packet), it is
 *   found from every function address the core traced, which is why
 *   the trace is read twice: a first pass feeds ht_func_names_scan() with
 *   every message, ht_func_names_ready() decides, and only then are names
 *   asked for (a bias guessed from the first addresses alone could
 *   give wrong names). ht_func_names_plan() says when one pass gives
 *   the same names (func_base first in every stream).
 * A name is given only when the address is exactly a function's first
 * byte in the ELF: a file that does not match gives NULL (the views show
 * the raw address) and a warning, never a wrong name.
 *
 * `hetrace profile` feeds its own tracker (ht_func_names_create_tracker(),
 * ht_func_names_slices()) in one pass: it names only at the end.
 *
 * Cores are streams (docs/events.md); the second pass may read the
 * same traces through another ht_ctf_set: cores are found again by the
 * stream's index, which is the same for the same trace paths.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "func-slices.h"
#include "host/ctf/ctf-reader.h"

struct ht_func_names; /* opaque */

/* Creates an empty set of ELF files. Returns 0 or HT_ENOMEM. */
int ht_func_names_create(struct ht_func_names **fn);

/*
 * The same with a function tracker made with @fo (ht_func_slices_create()),
 * for a caller that feeds it itself and wants the slices too.
 */
int ht_func_names_create_tracker(struct ht_func_names **fn,
				 const struct ht_func_slices_opts *fo);

/* The function tracker: fed by ht_func_names_scan(), or by the caller. */
struct ht_func_slices *ht_func_names_slices(struct ht_func_names *fn);

/* Releases it and the ELF files it opened. NULL is allowed. */
void ht_func_names_destroy(struct ht_func_names *fn);

/*
 * Opens an ELF file given as "[CORE=]FILE": FILE names the functions of
 * the core called CORE, or of every core without its own when there is
 * no "CORE=". Returns 0, HT_EINVAL (empty file name), HT_ENOENT or
 * HT_EFORMAT (not ELF) with a message naming the file in @err.
 */
int ht_func_names_add(struct ht_func_names *fn, const char *spec, char *err,
		      size_t err_len);

/* The number of ELF files added (0: no names to find). */
size_t ht_func_names_count(const struct ht_func_names *fn);

/*
 * The first pass: every message of the trace set, in order (records
 * other than func_* cost a class lookup). Returns 0 or HT_ENOMEM.
 */
int ht_func_names_scan(struct ht_func_names *fn, const struct ht_ctf_msg *msg);

/*
 * The whole first pass: opens the traces under @paths again and scans
 * every message. Damaged parts are skipped (the second pass reports
 * them). Returns 0, or an error of ht_ctf_set_open() or HT_ENOMEM with
 * a message in @err.
 */
int ht_func_names_scan_traces(struct ht_func_names *fn,
			      const char *const *paths, size_t nr_paths,
			      const struct ht_ctf_open_opts *opts, char *err,
			      size_t err_len);

/*
 * Whether the first pass can be left out for @set: the names are then
 * asked for while the set is read once, each message given to
 * ht_func_names_scan() before it is used, and ht_func_names_ready()
 * called at the end (its notes come after the pass). It can when every
 * stream's bias is known before its first name is asked for: its one
 * func_base record comes before its function records, or it has no
 * func_base and no record with an `addr` (nothing to guess from: bias
 * 0). To tell, reads the record classes of the selected streams
 * (ht_ctf_stream_scan(): no field decoded), none when a trace's
 * metadata declares no func_base and no `addr`. @events (@nr_events
 * fnmatch(3) patterns, ht_ctf_select .events; none: all) are the
 * classes the set delivers. The caller rewinds the set (ht_ctf_set_seek_ns())
 * before reading it. Returns 0 (damaged input: *@one_pass is false, the reading
 * reports it) or HT_ENOMEM.
 */
int ht_func_names_plan(struct ht_func_names *fn, struct ht_ctf_set *set,
		       const char *const *events, size_t nr_events,
		       bool *one_pass);

/*
 * Ends the first pass: decides each core's bias and calls @note (may be
 * NULL) with what the user should know, one text per call: a stripped
 * file, addresses that are not functions of the file (a mismatched ELF:
 * shown raw), a bias guessed without func_base.
 */
void ht_func_names_ready(struct ht_func_names *fn,
			 void (*note)(void *arg, const char *text), void *arg);

/*
 * The name of the function whose run-time address is @addr, traced in
 * @msg's stream; NULL when unknown (no ELF for that core, stripped, not
 * a function start). Valid until ht_func_names_destroy().
 */
const char *ht_func_names_lookup(struct ht_func_names *fn,
				 const struct ht_ctf_msg *msg, uint64_t addr);

/*
 * What the user should know about the names of core @c, one text per
 * call: @warn for a file whose symbols are not the core's functions
 * (they stay raw), @note for a stripped file and a load bias guessed
 * without func_base. ht_func_names_ready() says it for every core through
 * its one callback. Either callback may be NULL.
 */
void ht_func_names_explain(struct ht_func_names *fn,
			   const struct ht_func_core *c,
			   void (*warn)(void *arg, const char *text),
			   void (*note)(void *arg, const char *text),
			   void *arg);

/*
 * @addr of @msg's stream as text into @buf: "NAME at FILE:LINE" (the
 * line when the ELF has debug information) when it is a function's
 * first byte; with @inside (a call site), "NAME+0xOFF at FILE:LINE",
 * given only when the ELF named every function address of the core (it
 * is the traced program). Returns @buf, or NULL when there is nothing
 * sure to say. Call after ht_func_names_ready().
 */
const char *ht_func_names_describe(struct ht_func_names *fn,
				   const struct ht_ctf_msg *msg, uint64_t addr,
				   bool inside, char *buf, size_t len);

#endif
