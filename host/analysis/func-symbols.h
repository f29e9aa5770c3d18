/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_FUNC_SYMBOLS_H
#define HT_HOST_FUNC_SYMBOLS_H

/*
 * Function names, and file:line where DWARF is there, from an ELF file
 * (elfutils: libelf for the symbol tables, libdw for the line tables).
 *
 * Addresses given to the lookups are run-time addresses, as the trace
 * holds them. For a position-independent executable (or any image
 * loaded elsewhere than linked) set the load bias first:
 * ht_func_symbols_set_base() with the trace's func_base, or
 * ht_func_symbols_guess_bias() from the traced function addresses.
 *
 * Never a wrong name: ht_func_symbols_func() names an address only when it
 * is exactly a function's first byte (what -finstrument-functions
 * hooks receive), so an ELF that is not the traced one gives NULL
 * (raw addresses), not a neighbour's name.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ht_func_symbols; /* opaque */

/*
 * False in a build without elfutils (`make NO_ELFUTILS=1`, the default of
 * a cross build), where ht_func_symbols_open() always fails.
 */
bool ht_func_symbols_supported(void);

/*
 * Reads the function symbols of the ELF file @path (.symtab, else
 * .dynsym). Returns 0, or a negative HT_E... code with a message naming
 * the file in @err: HT_ENOENT (cannot open), HT_EFORMAT (not ELF).
 * A stripped file opens: ht_func_symbols_stripped() says so.
 */
int ht_func_symbols_open(struct ht_func_symbols **sy, const char *path,
			 char *err, size_t err_len);

/* Releases. NULL is allowed. */
void ht_func_symbols_close(struct ht_func_symbols *sy);

/* The path given to ht_func_symbols_open(). */
const char *ht_func_symbols_path(const struct ht_func_symbols *sy);

/* True when the file has no .symtab (only exported names, or none). */
bool ht_func_symbols_stripped(const struct ht_func_symbols *sy);

/* The number of function symbols read. */
size_t ht_func_symbols_count(const struct ht_func_symbols *sy);

/* True when the file has DWARF line information. */
bool ht_func_symbols_has_lines(const struct ht_func_symbols *sy);

/* True for a position-independent image (ET_DYN). */
bool ht_func_symbols_is_pie(const struct ht_func_symbols *sy);

/*
 * The image's first byte in the link-time address space: the lowest
 * PT_LOAD address, rounded down to its alignment (0 for a PIE).
 */
uint64_t ht_func_symbols_link_base(const struct ht_func_symbols *sy);

/* Run-time address = link-time address + @bias. Default 0. */
void ht_func_symbols_set_bias(struct ht_func_symbols *sy, uint64_t bias);
uint64_t ht_func_symbols_bias(const struct ht_func_symbols *sy);

/* The bias from the image's run-time first byte (a func_base value). */
void ht_func_symbols_set_base(struct ht_func_symbols *sy, uint64_t run_base);

/*
 * Finds the load bias that makes most of @addrs (traced function entry
 * addresses, run time) function starts: tries bias 0, then page-aligned
 * biases that map @addrs[0..] onto a symbol. Stores it in *@bias and
 * returns how many of the @n addresses it explains (0: none; the bias
 * is then 0).
 */
size_t ht_func_symbols_guess_bias(const struct ht_func_symbols *sy,
				  const uint64_t *addrs, size_t n,
				  uint64_t *bias);

/* The name of the function starting exactly at @addr, or NULL. */
const char *ht_func_symbols_func(const struct ht_func_symbols *sy,
				 uint64_t addr);

/* What is known of an address. */
struct ht_func_sym {
	const char *name; /* the function containing it, NULL if none */
	uint64_t start;	  /* its run-time start */
	uint64_t offset;  /* addr - start */
	const char *file; /* source file, NULL without DWARF */
	int line;	  /* 0 without DWARF */
};

/*
 * The function containing @addr (start <= addr < start + size) and,
 * with DWARF, the source line of @addr. Returns false when no function
 * contains it (out->name NULL).
 */
bool ht_func_symbols_lookup(struct ht_func_symbols *sy, uint64_t addr,
			    struct ht_func_sym *out);

/*
 * The run-time address of the function called @name (its symbol value
 * plus the bias): exactly what the -finstrument-functions hooks receive
 * as `fn`, so what a target's trigger and stopper compare with. On ARM
 * the symbol of Thumb code has bit 0 set (st_value 0x8039 for code at
 * 0x8038) and gcc passes that same value to the hooks; the bit is kept.
 * A name defined more than once (static functions of several files):
 * the global definition, else the lowest address; *@nr_defs (may be
 * NULL) says how many there are. Returns 0, or HT_ENOTFOUND.
 */
int ht_func_symbols_address(const struct ht_func_symbols *sy, const char *name,
			    uint64_t *addr, size_t *nr_defs);

/*
 * The function names nearest to @name, for an "unknown function"
 * message: first the names that start with it or contain it (case
 * ignored), then the closest by edit distance (at most a third of the
 * longer name's length, at least 2), closest first. Stores at most
 * @max names (valid until ht_func_symbols_close()) in @out and returns
 * how many.
 */
size_t ht_func_symbols_nearest(const struct ht_func_symbols *sy,
			       const char *name, const char **out, size_t max);

/*
 * The GNU build id of the file (its NT_GNU_BUILD_ID note, as `readelf
 * -n` shows it). Returns its length in bytes (*@id points into the
 * file's data until ht_func_symbols_close()), or 0 when the file has
 * none.
 */
size_t ht_func_symbols_build_id(const struct ht_func_symbols *sy,
				const uint8_t **id);

#endif
