/*
 * An LD_PRELOAD library for tests/collect/record: watches how the
 * collector reads one ring file, HT_RING_IO_FILE (its pread() and
 * copy_file_range() calls on that file; the file is recognized by
 * device and inode).
 *
 *   HT_RING_IO_LOG=FILE  appends a line per call to FILE:
 *                        "pread OFFSET LENGTH RESULT" or
 *                        "copy_file_range OFFSET LENGTH RESULT ERRNO"
 *                        (OFFSET in the ring file; RESULT -1 on error)
 *   HT_RING_IO_CUT=SIZE  truncates the ring file to SIZE bytes just
 *                        before the first such call that reads past
 *                        SIZE: the file shrinks while the collector
 *                        copies, after its size check passed.
 *
 * Built with: cc -shared -fPIC -o ring-io.so ring-io.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static int cut_done;

/* The ring file's fd? */
static int is_ring(int fd)
{
	const char *path = getenv("HT_RING_IO_FILE");
	struct stat a, b;

	return path && fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* A read of @len bytes at @off of the ring file is about to run. */
static void before(off_t off, size_t len)
{
	const char *cut = getenv("HT_RING_IO_CUT");
	long long size;

	if (!cut || cut_done) {
		return;
	}
	size = strtoll(cut, NULL, 0);
	if ((long long)off + (long long)len > size) {
		cut_done = 1;
		if (truncate(getenv("HT_RING_IO_FILE"), (off_t)size) < 0) {
			perror("ring-io: truncate");
		}
	}
}

static void note(const char *what, long long off, size_t len, long long ret,
		 int err)
{
	const char *path = getenv("HT_RING_IO_LOG");
	char line[160];
	int fd, n;

	if (!path) {
		return;
	}
	n = snprintf(line, sizeof(line), "%s %lld %zu %lld %s\n", what, off,
		     len, ret, ret < 0 ? strerror(err) : "-");
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, line, (size_t)n) < 0) {
			perror("ring-io: log");
		}
		close(fd);
	}
}

static ssize_t watched_pread(const char *name, int fd, void *buf, size_t len,
			     off_t off)
{
	ssize_t (*real)(int, void *, size_t, off_t) =
	    (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, name);
	int ring = is_ring(fd), err;
	ssize_t ret;

	if (ring) {
		before(off, len);
	}
	ret = real(fd, buf, len, off);
	err = errno;
	if (ring) {
		note("pread", (long long)off, len, (long long)ret, err);
	}
	errno = err;
	return ret;
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	return watched_pread("pread", fd, buf, len, off);
}

ssize_t pread64(int fd, void *buf, size_t len, off_t off)
{
	return watched_pread("pread64", fd, buf, len, off);
}

ssize_t copy_file_range(int in, off_t *in_off, int out, off_t *out_off,
			size_t len, unsigned int flags)
{
	ssize_t (*real)(int, off_t *, int, off_t *, size_t, unsigned int) =
	    (ssize_t(*)(int, off_t *, int, off_t *, size_t, unsigned int))dlsym(
		RTLD_NEXT, "copy_file_range");
	long long at = in_off ? (long long)*in_off : -1;
	int ring = is_ring(in), err;
	ssize_t ret;

	if (ring && in_off) {
		before(*in_off, len);
	}
	ret = real(in, in_off, out, out_off, len, flags);
	err = errno;
	if (ring) {
		note("copy_file_range", at, len, (long long)ret, err);
	}
	errno = err;
	return ret;
}
