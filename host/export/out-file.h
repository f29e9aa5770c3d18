/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_OUT_FILE_H
#define HT_HOST_OUT_FILE_H

/*
 * An output file that is written whole or not at all (the exports and
 * the report): the data goes to a temporary file in the output's own
 * directory (".NAME.XXXXXX", so the rename stays on one file system),
 * which ht_out_file_commit() renames over NAME once everything is
 * written (not synced: exports are large and re-made at will). Until then a
 * previous file at NAME is left untouched; after a failure (a full disk, a file
 * size limit, any error of the writer) the temporary file is removed and NAME
 * is what it was. "-" is stdout, and a path that exists and is not a regular
 * file (/dev/null, a FIFO, a terminal) is written to directly: a
 * rename would replace it.
 *
 * It prints nothing: errors come back as HT_E... codes with a message
 * naming the file.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct ht_out_file {
	FILE *f;	  /* write here */
	const char *path; /* the output's name (not copied) */
	char *tmp;	  /* the temporary file; NULL when direct */
};

/*
 * Opens @path for writing as above. Returns 0, or a negative HT_E...
 * code with "cannot create 'PATH...': reason" in @err.
 */
int ht_out_file_open(struct ht_out_file *o, const char *path, char *err,
		     size_t err_len);

/*
 * Ends the writing: flushes, checks for write errors, closes and
 * renames the temporary file over the output. Returns 0, or HT_EIO
 * with "cannot write 'PATH': reason" in @err, the temporary file
 * removed. @o is closed either way.
 */
int ht_out_file_commit(struct ht_out_file *o, char *err, size_t err_len);

/* Closes @o after a failure and removes its temporary file (a direct
 * output keeps what was written). NULL members are allowed. */
void ht_out_file_abort(struct ht_out_file *o);

#endif
