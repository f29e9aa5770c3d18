/* SPDX-License-Identifier: MIT */
/*
 * ELF function symbols (host/analysis/func-symbols.h) in a build without
 * elfutils (`make NO_ELFUTILS=1`, the default of a cross build of the
 * master): opening an ELF file fails with a message saying so, and
 * every trace is read with raw function addresses. The Makefile builds
 * this file instead of func-symbols.c.
 */
#include <stdio.h>

#include "common/error.h"
#include "func-symbols.h"

/* Never allocated: ht_func_symbols_open() is the only constructor. */
struct ht_func_symbols {
	int unused;
};

bool ht_func_symbols_supported(void)
{
	return false;
}

int ht_func_symbols_open(struct ht_func_symbols **sy, const char *path,
			 char *err, size_t err_len)
{
	*sy = NULL;
	snprintf(err, err_len,
		 "%s: cannot read ELF symbols: this hetrace was built "
		 "without elfutils (NO_ELFUTILS); name the functions with "
		 "a hetrace built with it, e.g. on the workstation",
		 path);
	return HT_EUNSUPPORTED;
}

void ht_func_symbols_close(struct ht_func_symbols *sy)
{
	(void)sy;
}

const char *ht_func_symbols_path(const struct ht_func_symbols *sy)
{
	(void)sy;
	return "";
}

bool ht_func_symbols_stripped(const struct ht_func_symbols *sy)
{
	(void)sy;
	return true;
}

size_t ht_func_symbols_count(const struct ht_func_symbols *sy)
{
	(void)sy;
	return 0;
}

bool ht_func_symbols_has_lines(const struct ht_func_symbols *sy)
{
	(void)sy;
	return false;
}

bool ht_func_symbols_is_pie(const struct ht_func_symbols *sy)
{
	(void)sy;
	return false;
}

uint64_t ht_func_symbols_link_base(const struct ht_func_symbols *sy)
{
	(void)sy;
	return 0;
}

void ht_func_symbols_set_bias(struct ht_func_symbols *sy, uint64_t bias)
{
	(void)sy;
	(void)bias;
}

uint64_t ht_func_symbols_bias(const struct ht_func_symbols *sy)
{
	(void)sy;
	return 0;
}

void ht_func_symbols_set_base(struct ht_func_symbols *sy, uint64_t run_base)
{
	(void)sy;
	(void)run_base;
}

size_t ht_func_symbols_guess_bias(const struct ht_func_symbols *sy,
				  const uint64_t *addrs, size_t n,
				  uint64_t *bias)
{
	(void)sy;
	(void)addrs;
	(void)n;
	*bias = 0;
	return 0;
}

const char *ht_func_symbols_func(const struct ht_func_symbols *sy,
				 uint64_t addr)
{
	(void)sy;
	(void)addr;
	return NULL;
}

bool ht_func_symbols_lookup(struct ht_func_symbols *sy, uint64_t addr,
			    struct ht_func_sym *out)
{
	(void)sy;
	(void)addr;
	out->name = NULL;
	out->start = 0;
	out->offset = 0;
	out->file = NULL;
	out->line = 0;
	return false;
}

int ht_func_symbols_address(const struct ht_func_symbols *sy, const char *name,
			    uint64_t *addr, size_t *nr_defs)
{
	(void)sy;
	(void)name;
	*addr = 0;
	if (nr_defs) {
		*nr_defs = 0;
	}
	return HT_EUNSUPPORTED;
}

size_t ht_func_symbols_nearest(const struct ht_func_symbols *sy,
			       const char *name, const char **out, size_t max)
{
	(void)sy;
	(void)name;
	(void)out;
	(void)max;
	return 0;
}

size_t ht_func_symbols_build_id(const struct ht_func_symbols *sy,
				const uint8_t **id)
{
	(void)sy;
	*id = NULL;
	return 0;
}
