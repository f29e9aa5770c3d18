/* SPDX-License-Identifier: MIT */
/*
 * Name -> address, nearest names and build id (host/analysis/func-symbols.h,
 * host/analysis/target-names.h), on this test's own executable: the
 * functions below are its symbols, their run-time addresses the truth.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "host/analysis/func-symbols.h"
#include "host/analysis/target-names.h"
#include "tests/check.h"

__attribute__((noinline)) int ctl_process_frame(int x);
__attribute__((noinline)) int ctl_process_line(int x);
__attribute__((noinline)) int ctl_render(int x);

__attribute__((noinline)) int ctl_process_frame(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int ctl_process_line(int x)
{
	return x * 5 + 2;
}

__attribute__((noinline)) int ctl_render(int x)
{
	return x * 7 + 3;
}

/* Whether @s is one of the @n names of @v. */
static int has(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(v[i], s)) {
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ht_func_symbols *sy;
	uint64_t run[3] = {(uintptr_t)ctl_process_frame,
			   (uintptr_t)ctl_process_line, (uintptr_t)ctl_render};
	uint64_t bias, addr;
	const char *near[8];
	const uint8_t *id;
	size_t n, defs, id_len;
	char err[512], buf[64];
	int ret;

	(void)argc;
	if (!ht_func_symbols_supported()) {
		printf("built without elfutils: nothing to check\n");
		return 0;
	}
	ret = ht_func_symbols_open(&sy, argv[0], err, sizeof(err));
	REQUIRE(ret == 0);
	/* A PIE: the bias from the functions' run-time addresses. */
	CHECK(ht_func_symbols_guess_bias(sy, run, 3, &bias) == 3);
	ht_func_symbols_set_bias(sy, bias);

	/* Name -> the run-time address, as the hooks see it. */
	CHECK(ht_func_symbols_address(sy, "ctl_render", &addr, &defs) == 0);
	CHECK_MSG(addr == run[2], "0x%" PRIx64 " != 0x%" PRIx64, addr, run[2]);
	CHECK(defs == 1);
	CHECK(ht_target_names_resolve(sy, "ctl_process_line", &addr, err,
				      sizeof(err)) == 0);
	CHECK(addr == run[1]);
	CHECK(ht_target_names_resolve(sy, "0x1234", &addr, err, sizeof(err)) ==
	      0);
	CHECK(addr == 0x1234);
	CHECK(ht_target_names_resolve(NULL, "4096", &addr, err, sizeof(err)) ==
	      0);
	CHECK(addr == 4096);
	CHECK(ht_target_names_resolve(sy, "0x12zz", &addr, err, sizeof(err)) ==
	      HT_EINVAL);
	CHECK(ht_target_names_resolve(NULL, "ctl_render", &addr, err,
				      sizeof(err)) == HT_EINVAL);
	CHECK_MSG(strstr(err, "--elf") != NULL, "%s", err);

	/* Address -> name, and 0 is "none". */
	CHECK_STR(ht_target_names_format(sy, run[0], buf, sizeof(buf)),
		  "ctl_process_frame");
	CHECK_STR(ht_target_names_format(sy, 0, buf, sizeof(buf)), "none");
	CHECK_STR(ht_target_names_format(NULL, 0x10, buf, sizeof(buf)), "0x10");
	/* Inside a function is not a function's address: shown raw. */
	snprintf(err, sizeof(err), "0x%" PRIx64, run[0] + 1);
	CHECK_STR(ht_target_names_format(sy, run[0] + 1, buf, sizeof(buf)),
		  err);

	/* Unknown names: the nearest, prefix and substring first. */
	CHECK(ht_func_symbols_address(sy, "ctl_procss_frame", &addr, &defs) ==
	      HT_ENOTFOUND);
	CHECK(defs == 0);
	n = ht_func_symbols_nearest(sy, "ctl_procss_frame", near, 5);
	CHECK(n >= 1 && !strcmp(near[0], "ctl_process_frame"));
	n = ht_func_symbols_nearest(sy, "ctl_process", near, 8);
	CHECK(has(near, n, "ctl_process_frame"));
	CHECK(has(near, n, "ctl_process_line"));
	n = ht_func_symbols_nearest(sy, "RENDER", near, 8);
	CHECK(has(near, n, "ctl_render"));
	CHECK(ht_func_symbols_nearest(sy, "zzzzzzzzzzzzzzzzzzzzqqq", near, 5) ==
	      0);
	ret = ht_target_names_resolve(sy, "ctl_rendr", &addr, err, sizeof(err));
	CHECK(ret == HT_ENOTFOUND);
	CHECK_MSG(strstr(err, "unknown function 'ctl_rendr'") &&
		      strstr(err, "nearest: ctl_render"),
		  "%s", err);
	/* A long name is only matched as text: bounded work. */
	memset(buf, 'a', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = 0;
	CHECK(ht_target_names_resolve(sy, buf, &addr, err, sizeof(err)) ==
	      HT_ENOTFOUND);

	/* The build id: the note's bytes; compared with a target's. */
	id_len = ht_func_symbols_build_id(sy, &id);
	if (id_len) {
		uint8_t other[20];
		char msg[512];

		CHECK(ht_target_names_check_build_id(sy, id, id_len, msg,
						     sizeof(msg)) ==
		      HT_BUILD_ID_MATCH);
		memcpy(other, id, id_len < 20 ? id_len : 20);
		other[0] ^= 0xff;
		CHECK(ht_target_names_check_build_id(sy, other, id_len, msg,
						     sizeof(msg)) ==
		      HT_BUILD_ID_MISMATCH);
		CHECK_MSG(strstr(msg, "may be wrong") != NULL, "%s", msg);
		CHECK(ht_target_names_check_build_id(sy, other, 0, msg,
						     sizeof(msg)) ==
		      HT_BUILD_ID_NO_TARGET_ID);
	} else {
		printf("note: the test has no build id (linker default)\n");
	}
	ht_func_symbols_close(sy);
	return check_summary("t-target-names");
}
