/* SPDX-License-Identifier: MIT */
#ifndef HT_SIM_META_H
#define HT_SIM_META_H

/* What the master writes about each core: TSDL metadata and truth.json. */
#include <stddef.h>
#include <stdint.h>

#include "platforms/sim/clock-model.h"

struct sim_core_desc {
	char name[16]; /* core_name: "arm0", "dsp0".. */
	uint32_t core_id;
	int is_master;
	uint64_t freq_hz; /* nominal frequency declared in the metadata */
	uint8_t uuid[16]; /* the clock's UUID */
	const struct sim_clock_model *clock; /* NULL: the reference */
};

/*
 * The core's metadata: the generated TSDL @tmpl with the core's env
 * entries (core_name, core_id, core_role, core_master, board = @board), its
 * clock's frequency and UUID. Sets *@out (malloc'd, NUL-terminated) and
 * *@len. Returns 0, HT_EFORMAT when @tmpl lacks the env or clock block
 * (the generator changed), or HT_ENOMEM.
 */
int ht__sim_core_metadata(const char *tmpl, const struct sim_core_desc *c,
			  const char *master_name, const char *board,
			  char **out, size_t *len);

/* A fresh random (version 4) UUID for a clock; without an entropy source,
 * one made of the time, the process id and @salt. */
void ht__sim_make_uuid(uint8_t u[16], unsigned salt);

/*
 * Writes truth.json (docs/sim.md) into @path, through a temporary file
 * renamed at the end. Returns 0 or HT_EIO.
 */
int ht__sim_write_truth(const char *path, const struct sim_core_desc *cores,
			unsigned nr, uint64_t start_ns, uint64_t end_ns);

#endif
