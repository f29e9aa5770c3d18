/* SPDX-License-Identifier: MIT */
/*
 * Function names for a live target (host/analysis/target-names.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "target-names.h"

/* How many names an "unknown function" message suggests. */
#define NEAREST_MAX 8

/* Whether @s is all a number (0x hex or decimal), then *@v. */
static bool parse_addr(const char *s, uint64_t *v)
{
	char *end;

	if (!(s[0] >= '0' && s[0] <= '9')) {
		return false;
	}
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

int ht_target_names_resolve(const struct ht_func_symbols *sy, const char *spec,
			    uint64_t *addr, char *err, size_t err_len)
{
	const char *near[NEAREST_MAX];
	size_t nr, i, off;
	int ret;

	if (parse_addr(spec, addr)) {
		return 0;
	}
	if (spec[0] >= '0' && spec[0] <= '9') {
		return ht_err_printf(err, err_len, HT_EINVAL,
				     "'%s' is neither a function name nor an "
				     "address (0x...)",
				     spec);
	}
	if (!sy) {
		return ht_err_printf(err, err_len, HT_EINVAL,
				     "function '%s': names need the firmware's "
				     "ELF (--elf FW), or give the address "
				     "(0x...)",
				     spec);
	}
	ret = ht_func_symbols_address(sy, spec, addr, NULL);
	if (ret == HT_EUNSUPPORTED) {
		return ht_err_printf(err, err_len, ret,
				     "function '%s': this hetrace was built "
				     "without elfutils (NO_ELFUTILS): give "
				     "the address (0x...)",
				     spec);
	}
	if (!ret) {
		return 0;
	}
	off = (size_t)snprintf(err, err_len, "unknown function '%s' in %s",
			       spec, ht_func_symbols_path(sy));
	if (ht_func_symbols_stripped(sy) && off < err_len) {
		off += (size_t)snprintf(err + off, err_len - off,
					" (stripped: no .symtab)");
	}
	nr = ht_func_symbols_nearest(sy, spec, near, NEAREST_MAX);
	for (i = 0; i < nr && off < err_len; i++) {
		off += (size_t)snprintf(err + off, err_len - off, "%s%s",
					i ? ", " : "; nearest: ", near[i]);
	}
	return HT_ENOTFOUND;
}

const char *ht_target_names_name(const struct ht_func_symbols *sy,
				 uint64_t addr)
{
	return sy && addr ? ht_func_symbols_func(sy, addr) : NULL;
}

const char *ht_target_names_format(const struct ht_func_symbols *sy,
				   uint64_t addr, char *buf, size_t len)
{
	const char *name = ht_target_names_name(sy, addr);

	if (!addr) {
		snprintf(buf, len, "none");
	} else if (name) {
		snprintf(buf, len, "%s", name);
	} else {
		snprintf(buf, len, "0x%" PRIx64, addr);
	}
	return buf;
}

const char *ht_target_names_hex(const uint8_t *id, size_t len, char *buf,
				size_t buf_len)
{
	size_t i;

	if (!buf_len) {
		return buf;
	}
	buf[0] = 0;
	for (i = 0; i < len && 2 * i + 2 < buf_len; i++) {
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
	}
	return buf;
}

enum ht_build_id_match
ht_target_names_check_build_id(const struct ht_func_symbols *sy,
			       const uint8_t *id, size_t len, char *msg,
			       size_t msg_len)
{
	const uint8_t *elf_id;
	size_t elf_len = ht_func_symbols_build_id(sy, &elf_id);
	char a[64], b[64];

	if (!len) {
		snprintf(msg, msg_len,
			 "the target sent no build id: %s cannot be checked "
			 "against the firmware",
			 ht_func_symbols_path(sy));
		return HT_BUILD_ID_NO_TARGET_ID;
	}
	if (!elf_len) {
		snprintf(msg, msg_len,
			 "%s has no build id (link with -Wl,--build-id): it "
			 "cannot be checked against the firmware's %s",
			 ht_func_symbols_path(sy),
			 ht_target_names_hex(id, len, b, sizeof(b)));
		return HT_BUILD_ID_NO_ELF_ID;
	}
	if (elf_len == len && !memcmp(elf_id, id, len)) {
		snprintf(msg, msg_len, "%s: build id %s matches the target",
			 ht_func_symbols_path(sy),
			 ht_target_names_hex(id, len, b, sizeof(b)));
		return HT_BUILD_ID_MATCH;
	}
	snprintf(msg, msg_len,
		 "%s: build id %s differs from the target's %s: it is not the "
		 "running firmware, function names and addresses may be wrong",
		 ht_func_symbols_path(sy),
		 ht_target_names_hex(elf_id, elf_len, a, sizeof(a)),
		 ht_target_names_hex(id, len, b, sizeof(b)));
	return HT_BUILD_ID_MISMATCH;
}
