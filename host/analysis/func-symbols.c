/* SPDX-License-Identifier: MIT */
/*
 * ELF function symbols and DWARF lines (host/analysis/func-symbols.h), with
 * elfutils.
 */
#include <strings.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "func-symbols.h"

struct sym {
	uint64_t start; /* link-time */
	uint64_t size;	/* 0: up to the next symbol */
	const char *name;
	int global;
};

struct ht_func_symbols {
	char *path;
	int fd;
	Elf *elf;
	Dwarf *dw;
	bool stripped, pie;
	uint64_t link_base;
	uint64_t bias;
	struct sym *syms;
	size_t nr_syms, cap_syms;
	/* Every function symbol by name (aliases too): name -> address. */
	struct sym *by_name;
	size_t nr_by_name;
	const uint8_t *build_id; /* into the ELF's data */
	size_t build_id_len;
};

static int cmp_sym_name(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c) {
		return c;
	}
	if (x->global != y->global) {
		return y->global - x->global;
	}
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start) {
		return x->start < y->start ? -1 : 1;
	}
	/* At one address, global names first, then by name (stable). */
	if (x->global != y->global) {
		return y->global - x->global;
	}
	return strcmp(x->name, y->name);
}

/* Appends the function symbols of symbol table section @scn. */
static int read_symtab(struct ht_func_symbols *sy, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n, i;

	if (!data || !sh->sh_entsize) {
		return 0;
	}
	n = sh->sh_size / sh->sh_entsize;
	if (ht_array_reserve((void **)&sy->syms, &sy->cap_syms, sy->nr_syms + n,
			     sizeof(*sy->syms))) {
		return HT_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &s)) {
			continue;
		}
		type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    s.st_shndx == SHN_UNDEF || s.st_value == 0) {
			continue;
		}
		name = elf_strptr(sy->elf, sh->sh_link, s.st_name);
		if (!name || !*name) {
			continue;
		}
		sy->syms[sy->nr_syms].start = s.st_value;
		sy->syms[sy->nr_syms].size = s.st_size;
		sy->syms[sy->nr_syms].name = name;
		sy->syms[sy->nr_syms].global =
		    GELF_ST_BIND(s.st_info) != STB_LOCAL;
		sy->nr_syms++;
	}
	return 0;
}

bool ht_func_symbols_supported(void)
{
	return true;
}

int ht_func_symbols_open(struct ht_func_symbols **out, const char *path,
			 char *err, size_t err_len)
{
	struct ht_func_symbols *sy;
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh_symtab, sh_dynsym;
	GElf_Ehdr eh;
	size_t phnum, i, j;
	bool have_load = false;
	int ret;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, err_len, "%s: libelf: %s", path, elf_errmsg(-1));
		return HT_EINVAL;
	}
	sy = calloc(1, sizeof(*sy));
	if (!sy) {
		return HT_ENOMEM;
	}
	sy->path = strdup(path);
	if (!sy->path) {
		ret = HT_ENOMEM;
		goto free_sy;
	}
	sy->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (sy->fd < 0) {
		snprintf(err, err_len, "%s: cannot open: %s", path,
			 strerror(errno));
		ret = errno == ENOENT ? HT_ENOENT : HT_EIO;
		goto free_path;
	}
	sy->elf = elf_begin(sy->fd, ELF_C_READ_MMAP, NULL);
	if (!sy->elf || elf_kind(sy->elf) != ELF_K_ELF ||
	    !gelf_getehdr(sy->elf, &eh)) {
		snprintf(err, err_len, "%s: offset 0: not an ELF file", path);
		ret = HT_EFORMAT;
		goto close_elf;
	}
	sy->pie = eh.e_type == ET_DYN;
	if (elf_getphdrnum(sy->elf, &phnum) == 0) {
		for (i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(sy->elf, (int)i, &ph) ||
			    ph.p_type != PT_LOAD) {
				continue;
			}
			if (!have_load || ph.p_vaddr < sy->link_base) {
				uint64_t align = ph.p_align ? ph.p_align : 1;

				/* PT_LOAD alignment is a power of two. */
				sy->link_base = ph.p_vaddr & ~(align - 1);
				have_load = true;
			}
		}
	}
	while ((scn = elf_nextscn(sy->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh)) {
			continue;
		}
		if (sh.sh_type == SHT_SYMTAB) {
			symtab = scn;
			sh_symtab = sh;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			sh_dynsym = sh;
		}
	}
	sy->stripped = !symtab;
	if (symtab) {
		ret = read_symtab(sy, symtab, &sh_symtab);
	} else if (dynsym) {
		ret = read_symtab(sy, dynsym, &sh_dynsym);
	} else {
		ret = 0;
	}
	if (ret) {
		goto close_elf;
	}
	if (sy->nr_syms) {
		/* By name first, before the aliases are merged by address. */
		sy->by_name = malloc(sy->nr_syms * sizeof(*sy->by_name));
		if (!sy->by_name) {
			ret = HT_ENOMEM;
			goto close_elf;
		}
		memcpy(sy->by_name, sy->syms, sy->nr_syms * sizeof(*sy->syms));
		sy->nr_by_name = sy->nr_syms;
		qsort(sy->by_name, sy->nr_by_name, sizeof(*sy->by_name),
		      cmp_sym_name);
		qsort(sy->syms, sy->nr_syms, sizeof(*sy->syms), cmp_sym);
		/* One symbol per address: the first (a global name). */
		for (i = 1, j = 0; i < sy->nr_syms; i++) {
			if (sy->syms[i].start != sy->syms[j].start) {
				sy->syms[++j] = sy->syms[i];
			} else if (!sy->syms[j].size) {
				sy->syms[j].size = sy->syms[i].size;
			}
		}
		sy->nr_syms = j + 1;
	}
	{
		const void *id;
		ssize_t n = dwelf_elf_gnu_build_id(sy->elf, &id);

		if (n > 0) {
			sy->build_id = id;
			sy->build_id_len = (size_t)n;
		}
	}
	/* No DWARF is fine: names without lines. */
	sy->dw = dwarf_begin_elf(sy->elf, DWARF_C_READ, NULL);
	*out = sy;
	return 0;

close_elf:
	free(sy->by_name);
	free(sy->syms);
	if (sy->elf) {
		elf_end(sy->elf);
	}
	close(sy->fd);
free_path:
	free(sy->path);
free_sy:
	free(sy);
	return ret;
}

void ht_func_symbols_close(struct ht_func_symbols *sy)
{
	if (!sy) {
		return;
	}
	if (sy->dw) {
		dwarf_end(sy->dw);
	}
	elf_end(sy->elf);
	close(sy->fd);
	free(sy->by_name);
	free(sy->syms);
	free(sy->path);
	free(sy);
}

const char *ht_func_symbols_path(const struct ht_func_symbols *sy)
{
	return sy->path;
}

bool ht_func_symbols_stripped(const struct ht_func_symbols *sy)
{
	return sy->stripped;
}

size_t ht_func_symbols_count(const struct ht_func_symbols *sy)
{
	return sy->nr_syms;
}

bool ht_func_symbols_has_lines(const struct ht_func_symbols *sy)
{
	return sy->dw != NULL;
}

bool ht_func_symbols_is_pie(const struct ht_func_symbols *sy)
{
	return sy->pie;
}

uint64_t ht_func_symbols_link_base(const struct ht_func_symbols *sy)
{
	return sy->link_base;
}

void ht_func_symbols_set_bias(struct ht_func_symbols *sy, uint64_t bias)
{
	sy->bias = bias;
}

uint64_t ht_func_symbols_bias(const struct ht_func_symbols *sy)
{
	return sy->bias;
}

void ht_func_symbols_set_base(struct ht_func_symbols *sy, uint64_t run_base)
{
	sy->bias = run_base - sy->link_base;
}

/* The last symbol starting at or before link-time address @a, or -1. */
static ptrdiff_t find_le(const struct sym *syms, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].start <= a) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return (ptrdiff_t)lo - 1;
}

static const struct sym *exact(const struct sym *syms, size_t n, uint64_t a)
{
	ptrdiff_t k = find_le(syms, n, a);

	return k >= 0 && syms[k].start == a ? &syms[k] : NULL;
}

const char *ht_func_symbols_func(const struct ht_func_symbols *sy,
				 uint64_t addr)
{
	const struct sym *s = exact(sy->syms, sy->nr_syms, addr - sy->bias);

	return s ? s->name : NULL;
}

static size_t count_hits(const struct ht_func_symbols *sy,
			 const uint64_t *addrs, size_t n, uint64_t bias)
{
	size_t i, hits = 0;

	for (i = 0; i < n; i++) {
		hits += exact(sy->syms, sy->nr_syms, addrs[i] - bias) != NULL;
	}
	return hits;
}

size_t ht_func_symbols_guess_bias(const struct ht_func_symbols *sy,
				  const uint64_t *addrs, size_t n,
				  uint64_t *bias)
{
	size_t best = 0, tries, i, k;
	uint64_t best_bias = 0;

	*bias = 0;
	if (!n || !sy->nr_syms) {
		return 0;
	}
	best = count_hits(sy, addrs, n, 0);
	if (best == n) {
		return best;
	}
	/* A load bias is page-aligned; the first addresses pin it down. */
	tries = n < 4 ? n : 4;
	for (k = 0; k < tries; k++) {
		for (i = 0; i < sy->nr_syms; i++) {
			uint64_t b = addrs[k] - sy->syms[i].start;
			size_t hits;

			if (b & 0xfffu) {
				continue;
			}
			hits = count_hits(sy, addrs, n, b);
			if (hits > best) {
				best = hits;
				best_bias = b;
			}
		}
		if (best == n) {
			break;
		}
	}
	*bias = best_bias;
	return best;
}

/* The CU DIE holding @a (link-time), without relying on .debug_aranges. */
static bool cu_of(Dwarf *dw, uint64_t a, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(dw, a, cu)) {
		return true;
	}
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, cu) &&
		    dwarf_haspc(cu, a) > 0) {
			return true;
		}
		off = next;
	}
	return false;
}

bool ht_func_symbols_lookup(struct ht_func_symbols *sy, uint64_t addr,
			    struct ht_func_sym *out)
{
	uint64_t a = addr - sy->bias;
	ptrdiff_t k = find_le(sy->syms, sy->nr_syms, a);
	Dwarf_Die cu;

	memset(out, 0, sizeof(*out));
	if (k >= 0) {
		const struct sym *s = &sy->syms[k];
		uint64_t end = s->size ? s->start + s->size
			       : (size_t)k + 1 < sy->nr_syms
				   ? sy->syms[k + 1].start
				   : s->start + 1;

		if (a < end || a == s->start) {
			out->name = s->name;
			out->start = s->start + sy->bias;
			out->offset = a - s->start;
		}
	}
	if (out->name && sy->dw && cu_of(sy->dw, a, &cu)) {
		Dwarf_Line *l = dwarf_getsrc_die(&cu, a);

		if (l) {
			out->file = dwarf_linesrc(l, NULL, NULL);
			if (dwarf_lineno(l, &out->line) != 0) {
				out->line = 0;
			}
		}
	}
	return out->name != NULL;
}

/* The first entry of the by-name table not sorting before @name. */
static size_t find_name(const struct ht_func_symbols *sy, const char *name)
{
	size_t lo = 0, hi = sy->nr_by_name;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(sy->by_name[mid].name, name) < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

int ht_func_symbols_address(const struct ht_func_symbols *sy, const char *name,
			    uint64_t *addr, size_t *nr_defs)
{
	size_t k = find_name(sy, name), n = 0;
	uint64_t prev = 0;

	/* Sorted by name, then global first, then address: the first is
	 * the one to use; distinct addresses count as definitions. */
	for (size_t i = k;
	     i < sy->nr_by_name && !strcmp(sy->by_name[i].name, name); i++) {
		if (!n || sy->by_name[i].start != prev) {
			n++;
			prev = sy->by_name[i].start;
		}
	}
	if (nr_defs) {
		*nr_defs = n;
	}
	if (!n) {
		return HT_ENOTFOUND;
	}
	*addr = sy->by_name[k].start + sy->bias;
	return 0;
}

/* Bounds the work per name: longer names are only matched as text. */
#define NEAR_MAX_LEN 128

/*
 * Levenshtein distance of @a and @b (lengths at most NEAR_MAX_LEN), or
 * @limit + 1 as soon as it must exceed @limit (one row of the table).
 */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb,
			    size_t limit)
{
	size_t row[NEAR_MAX_LEN + 1];
	size_t i, j;

	if ((la > lb ? la - lb : lb - la) > limit) {
		return limit + 1;
	}
	for (j = 0; j <= lb; j++) {
		row[j] = j;
	}
	for (i = 1; i <= la; i++) {
		size_t diag = row[0], best;

		row[0] = i;
		best = row[0];
		for (j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t v = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < v) {
				v = up + 1;
			}
			if (row[j - 1] + 1 < v) {
				v = row[j - 1] + 1;
			}
			row[j] = v;
			diag = up;
			if (v < best) {
				best = v;
			}
		}
		if (best > limit) {
			return limit + 1;
		}
	}
	return row[lb];
}

static bool contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++) {
		if (!strncasecmp(hay, needle, n)) {
			return true;
		}
	}
	return !n;
}

/* Whether @name is among the first @n of @out. */
static bool listed(const char **out, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(out[i], name)) {
			return true;
		}
	}
	return false;
}

size_t ht_func_symbols_nearest(const struct ht_func_symbols *sy,
			       const char *name, const char **out, size_t max)
{
	size_t nr = 0, len = strlen(name), i;
	size_t *dist;
	const char **cand;
	size_t nr_cand = 0;

	if (!max || !len) {
		return 0;
	}
	/* Prefix matches, then substring matches. */
	for (int pass = 0; pass < 2 && nr < max; pass++) {
		for (i = 0; i < sy->nr_by_name && nr < max; i++) {
			const char *s = sy->by_name[i].name;
			bool hit = pass == 0 ? !strncasecmp(s, name, len)
					     : contains_nocase(s, name);

			if (hit && strcmp(s, name) && !listed(out, nr, s)) {
				out[nr++] = s;
			}
		}
	}
	if (nr >= max || len > NEAR_MAX_LEN) {
		return nr;
	}
	/* The closest by edit distance: keep the best max - nr, sorted. */
	dist = malloc((max - nr) * sizeof(*dist));
	cand = malloc((max - nr) * sizeof(*cand));
	if (!dist || !cand) {
		free(dist);
		free(cand);
		return nr;
	}
	for (i = 0; i < sy->nr_by_name; i++) {
		const char *s = sy->by_name[i].name;
		size_t ls = strlen(s), limit, d, k;

		if (ls > NEAR_MAX_LEN ||
		    (i && !strcmp(s, sy->by_name[i - 1].name))) {
			continue;
		}
		limit = (ls > len ? ls : len) / 3;
		if (limit < 2) {
			limit = 2;
		}
		if (nr_cand == max - nr && dist[nr_cand - 1] - 1 < limit) {
			/* Only a closer one than the worst kept is wanted. */
			limit = dist[nr_cand - 1] - 1;
		}
		d = edit_distance(name, len, s, ls, limit);
		if (d > limit || !d || listed(out, nr, s)) {
			continue;
		}
		/* Insert in order of distance, then name (the table's order).
		 */
		k = nr_cand < max - nr ? nr_cand++ : nr_cand - 1;
		while (k > 0 && dist[k - 1] > d) {
			dist[k] = dist[k - 1];
			cand[k] = cand[k - 1];
			k--;
		}
		dist[k] = d;
		cand[k] = s;
	}
	for (i = 0; i < nr_cand; i++) {
		out[nr++] = cand[i];
	}
	free(dist);
	free(cand);
	return nr;
}

size_t ht_func_symbols_build_id(const struct ht_func_symbols *sy,
				const uint8_t **id)
{
	*id = sy->build_id;
	return sy->build_id_len;
}
