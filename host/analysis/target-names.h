/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_TARGET_NAMES_H
#define HT_HOST_TARGET_NAMES_H

/*
 * Function names for a live target (`hetrace ctl`, `hetrace trace`,
 * `hetrace profile TARGET`): the user names a function, the target
 * wants the address its -finstrument-functions hooks see; the target
 * reports addresses, the user wants names; and the firmware's build id
 * says whether the ELF given is the one running.
 *
 * Built on host/analysis/func-symbols.h (the ELF); it knows nothing of
 * the serial line or of the protocol's byte layouts: the caller gives
 * the build id the target sent.
 */
#include <stddef.h>
#include <stdint.h>

#include "func-symbols.h"

/*
 * @spec is a function name or an address ("0x8039", or decimal): stores
 * the address the hooks see (ht_func_symbols_address(): the Thumb bit
 * kept) in *@addr. @sy may be NULL (no ELF): then only an address is
 * accepted. Returns 0; HT_EINVAL for a name without an ELF or an
 * address that is not a number; HT_ENOTFOUND for a name the ELF does
 * not define, the message listing the nearest names ("unknown function
 * 'procss' in fw.elf; nearest: process, process_frame"); HT_EUNSUPPORTED
 * in a build without elfutils. The message goes into @err.
 */
int ht_target_names_resolve(const struct ht_func_symbols *sy, const char *spec,
			    uint64_t *addr, char *err, size_t err_len);

/*
 * @addr as text into @buf: "NAME" when it is a function's address in
 * @sy (may be NULL), else "0xADDR"; "none" for 0 (no function set).
 * Returns @buf.
 */
const char *ht_target_names_format(const struct ht_func_symbols *sy,
				   uint64_t addr, char *buf, size_t len);

/* The name of @addr, NULL when @sy is NULL or it is not a function's. */
const char *ht_target_names_name(const struct ht_func_symbols *sy,
				 uint64_t addr);

/* How a target's build id compares with the ELF's. */
enum ht_build_id_match {
	HT_BUILD_ID_MATCH,
	HT_BUILD_ID_MISMATCH, /* both known, different: names may be wrong */
	HT_BUILD_ID_NO_TARGET_ID, /* the firmware sent none */
	HT_BUILD_ID_NO_ELF_ID,	  /* the ELF has no NT_GNU_BUILD_ID note */
};

/*
 * Compares the build id a target sent (@id, @len bytes; @len 0: none)
 * with @sy's, and says so in @msg (for the MISMATCH warning or the
 * notes: "fw.elf: build id 63d5... differs from the target's 9a1c...:
 * function names and addresses may be wrong").
 */
enum ht_build_id_match
ht_target_names_check_build_id(const struct ht_func_symbols *sy,
			       const uint8_t *id, size_t len, char *msg,
			       size_t msg_len);

/* @len bytes as lowercase hex into @buf ("" for none). Returns @buf. */
const char *ht_target_names_hex(const uint8_t *id, size_t len, char *buf,
				size_t buf_len);

#endif
