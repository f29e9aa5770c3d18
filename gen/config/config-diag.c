/* SPDX-License-Identifier: MIT */
/*
 * The configuration loader's messages: "file:line:column: message"
 * collected in the diagnostics list (each once), sorted in file order
 * at the end, with a "did you mean" suggestion for misspelled names.
 *
 * It formats and orders messages; it does not decide what is wrong
 * (the stages do) and never prints (the caller does).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "config-internal.h"

void ht_diags_fini(struct ht_diags *diags)
{
	size_t i;

	for (i = 0; i < diags->nr; i++) {
		free(diags->msgs[i]);
	}
	free(diags->msgs);
	diags->msgs = NULL;
	diags->nr = 0;
}

void ht__cfg_diag(struct loader *ld, const struct ht_src_loc *loc,
		  const char *fmt, ...)
{
	struct ht_buf buf = {0};
	struct diag_key *keys;
	char text[1024], *msg;
	va_list ap;
	size_t i;

	/* The message proper is cut at 1023 bytes, its position never. */
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	ht_buf_printf(&buf, "%s:%u:%u: ", loc->file ? loc->file : "?",
		      loc->line, loc->col);
	/*
	 * One line per message: the configuration's strings it quotes
	 * show their control characters escaped.
	 */
	for (i = 0; text[i]; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\n') {
			ht_buf_puts(&buf, "\\n");
		} else if (c < 0x20 || c == 0x7f) {
			ht_buf_printf(&buf, "\\x%02x", c);
		} else {
			ht_buf_putc(&buf, (char)c);
		}
	}
	msg = ht_buf_steal(&buf, NULL);
	if (!msg) {
		ld->fatal = HT_ENOMEM;
		return;
	}

	/* An alias used in many places reports its problems once. */
	for (i = 0; i < ld->diags->nr; i++) {
		if (!strcmp(ld->diags->msgs[i], msg)) {
			free(msg);
			return;
		}
	}
	if (ht_array_reserve((void **)&ld->diags->msgs, &ld->msgs_cap,
			     ld->diags->nr + 1, sizeof(*ld->diags->msgs)) ||
	    ht_array_reserve((void **)&ld->diag_keys, &ld->diag_keys_cap,
			     ld->diags->nr + 1, sizeof(*ld->diag_keys))) {
		free(msg);
		ld->fatal = HT_ENOMEM;
		return;
	}
	keys = ld->diag_keys;
	keys[ld->diags->nr].file = SIZE_MAX;
	for (i = 0; i < ld->cfg->nr_files; i++) {
		if (ld->cfg->files[i] == loc->file) {
			keys[ld->diags->nr].file = i;
			break;
		}
	}
	keys[ld->diags->nr].line = loc->line;
	keys[ld->diags->nr].col = loc->col;
	keys[ld->diags->nr].seq = ld->diags->nr;
	keys[ld->diags->nr].msg = msg;
	ld->diags->msgs[ld->diags->nr++] = msg;
}

static int cmp_diag(const void *a, const void *b)
{
	const struct diag_key *x = a, *y = b;

	if (x->file != y->file) {
		return x->file < y->file ? -1 : 1;
	}
	if (x->line != y->line) {
		return x->line < y->line ? -1 : 1;
	}
	if (x->col != y->col) {
		return x->col < y->col ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Messages in the order of the files read, then of their positions. */
void ht__cfg_sort_diags(struct loader *ld)
{
	size_t i;

	if (!ld->diag_keys) {
		return;
	}
	qsort(ld->diag_keys, ld->diags->nr, sizeof(*ld->diag_keys), cmp_diag);
	for (i = 0; i < ld->diags->nr; i++) {
		ld->diags->msgs[i] = ld->diag_keys[i].msg;
	}
	free(ld->diag_keys);
	ld->diag_keys = NULL;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[128], prev, tmp;

	if (lb >= sizeof(row) / sizeof(row[0]) || la >= 128) {
		return SIZE_MAX;
	}
	for (j = 0; j <= lb; j++) {
		row[j] = j;
	}
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			tmp = row[j];
			if (row[j] + 1 < best) {
				best = row[j] + 1;
			}
			if (row[j - 1] + 1 < best) {
				best = row[j - 1] + 1;
			}
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

/* The candidate closest to word when it is close enough, or NULL. */
static const char *closest(const char *word, const char *const *cands,
			   size_t nr)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX, i, len = strlen(word);

	for (i = 0; i < nr; i++) {
		size_t d = edit_distance(word, cands[i]);

		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	if (best && (best_d <= 2 || best_d * 3 <= len) && best_d < len) {
		return best;
	}
	return NULL;
}

void ht__cfg_suggestion(char *buf, size_t size, const char *word,
			const char *const *cands, size_t nr)
{
	const char *c = closest(word, cands, nr);

	if (c) {
		snprintf(buf, size, " (did you mean `%s`?)", c);
	} else {
		buf[0] = '\0';
	}
}

void ht__cfg_suggest_key(char *buf, size_t size, const char *word,
			 const struct ht_ynode *map)
{
	const char **names;
	size_t i, nr = 0;

	buf[0] = '\0';
	names = calloc(map ? map->nr + 1 : 1, sizeof(*names));
	if (!names) {
		return;
	}
	for (i = 0; map && i < map->nr; i++) {
		if (map->keys[i]->kind == HT_YNODE_SCALAR) {
			names[nr++] = map->keys[i]->str;
		}
	}
	ht__cfg_suggestion(buf, size, word, names, nr);
	free(names);
}

/* "a string (`abc`)", "an integer (`65`)", "a mapping", ... */
static const char *got(const struct ht_ynode *node, char *buf, size_t size)
{
	const char *what = ht_ynode_describe(node);

	if (node->kind != HT_YNODE_SCALAR ||
	    ht_yscalar_type(node) == HT_YSCALAR_NULL) {
		return what;
	}
	if (strlen(node->str) > 40) {
		snprintf(buf, size, "%s (`%.37s...`)", what, node->str);
	} else {
		snprintf(buf, size, "%s (`%s`)", what, node->str);
	}
	return buf;
}

void ht__cfg_expect_fail(struct loader *ld, const struct ht_ynode *node,
			 const char *key, const char *what)
{
	char buf[96];

	if (node->tag && !strcmp(node->tag, ERROR_TAG)) {
		return;
	}
	if (key) {
		ht__cfg_diag(ld, &node->loc, "`%s`: expected %s, got %s", key,
			     what, got(node, buf, sizeof(buf)));
	} else {
		ht__cfg_diag(ld, &node->loc, "expected %s, got %s", what,
			     got(node, buf, sizeof(buf)));
	}
}
