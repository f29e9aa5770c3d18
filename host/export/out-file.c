/* SPDX-License-Identifier: MIT */
/* Output files written whole or not at all (out-file.h). */
#include "out-file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"

int ht_out_file_open(struct ht_out_file *o, const char *path, char *err,
		     size_t err_len)
{
	const char *base = strrchr(path, '/');
	struct stat sb;
	size_t dir_len, n;
	mode_t mask;
	int fd;

	o->f = NULL;
	o->path = path;
	o->tmp = NULL;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	if (!stat(path, &sb) && !S_ISREG(sb.st_mode)) {
		o->f = fopen(path, "wb");
		if (!o->f) {
			snprintf(err, err_len, "cannot create '%s': %s", path,
				 strerror(errno));
			return HT_EIO;
		}
		return 0;
	}
	/* ".NAME.XXXXXX" next to NAME */
	base = base ? base + 1 : path;
	dir_len = (size_t)(base - path);
	n = strlen(path) + 9;
	o->tmp = malloc(n);
	if (!o->tmp) {
		snprintf(err, err_len, "out of memory");
		return HT_ENOMEM;
	}
	snprintf(o->tmp, n, "%.*s.%s.XXXXXX", (int)dir_len, path, base);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		snprintf(err, err_len, "cannot create '%s': %s", o->tmp,
			 strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return HT_EIO;
	}
	/* the mode a new file gets (mkstemp() makes it 0600; a failure
	 * only leaves it so) */
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		snprintf(err, err_len, "cannot write '%s': %s", o->tmp,
			 strerror(errno));
		close(fd);
		ht_out_file_abort(o);
		return HT_EIO;
	}
	return 0;
}

int ht_out_file_commit(struct ht_out_file *o, char *err, size_t err_len)
{
	int failed, saved = 0;

	if (!o->f) {
		return 0;
	}
	errno = 0;
	failed = ferror(o->f);
	if (fflush(o->f)) {
		failed = 1;
		saved = errno;
	}
	if (o->f != stdout) {
		if (fclose(o->f) && !failed) {
			failed = 1;
			saved = errno;
		}
	}
	o->f = NULL;
	if (!failed && o->tmp && rename(o->tmp, o->path)) {
		failed = 1;
		saved = errno;
	}
	if (failed) {
		snprintf(err, err_len, "cannot write '%s': %s", o->path,
			 saved ? strerror(saved) : "write error");
		ht_out_file_abort(o);
		return HT_EIO;
	}
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

void ht_out_file_abort(struct ht_out_file *o)
{
	if (o->f && o->f != stdout) {
		fclose(o->f);
	}
	o->f = NULL;
	if (o->tmp) {
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
}
