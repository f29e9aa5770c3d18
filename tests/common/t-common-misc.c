/* SPDX-License-Identifier: MIT */
/* The small helpers of common/: string lists, path joining, directory
 * creation, bounded file reads, error messages into a caller's buffer,
 * messages to a callback. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/file.h"
#include "common/message.h"
#include "common/path.h"
#include "tests/check.h"

static void strv(void)
{
	struct ht_strv v = {0};
	char name[32];
	size_t i, at = 99;

	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "core%zu", i);
		REQUIRE(!ht_strv_add(&v, name));
	}
	CHECK(v.nr == 100);
	CHECK(ht_strv_find(&v, "core57", &at) && at == 57);
	CHECK(!ht_strv_find(&v, "core100", &at) && at == 57);
	/* the list holds copies */
	snprintf(name, sizeof(name), "changed");
	CHECK_STR(v.items[99], "core99");
	ht_strv_add(&v, "core3");
	CHECK(ht_strv_find(&v, "core3", &at) && at == 3);
	ht_strv_fini(&v);
	CHECK(!v.items && !v.nr && !v.cap);
}

static void path_join(void)
{
	char *p;

	p = ht_path_join("cap", "dsp0");
	CHECK_STR(p, "cap/dsp0");
	free(p);
	p = ht_path_join("cap/", "dsp0");
	CHECK_STR(p, "cap/dsp0");
	free(p);
	p = ht_path_join("/", "metadata");
	CHECK_STR(p, "/metadata");
	free(p);
}

static void mkdirs(const char *dir)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/a/b/c", dir);
	CHECK(!ht_path_mkdirs(path));
	CHECK(!stat(path, &st) && S_ISDIR(st.st_mode));
	/* existing directories are fine, a trailing '/' too */
	snprintf(path, sizeof(path), "%s/a/b/", dir);
	CHECK(!ht_path_mkdirs(path));
	/* an empty path fails with ENOENT, a path under a file with ENOTDIR */
	errno = 0;
	CHECK(ht_path_mkdirs("") == HT_EIO && errno == ENOENT);
	snprintf(path, sizeof(path), "%s/f/x", dir);
	errno = 0;
	CHECK(ht_path_mkdirs(path) == HT_EIO && errno == ENOTDIR);
	snprintf(path, sizeof(path), "%s/a/b/c", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/a/b", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/a", dir);
	rmdir(path);
}

static void file_read(const char *dir)
{
	char path[4096], err[256] = "";
	char *text = (char *)1;
	size_t size = 7;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/f", dir);
	f = fopen(path, "w");
	REQUIRE(f);
	for (i = 0; i < 1000; i++) {
		fprintf(f, "line %d\n", i);
	}
	REQUIRE(!fclose(f));
	REQUIRE(!ht_file_read(path, 1u << 20, &text, &size, err, sizeof(err)));
	CHECK(size == 8890 && text[size] == '\0');
	CHECK(!strncmp(text, "line 0\nline 1\n", 14));
	free(text);

	/* too large for its limit: HT_ERANGE and the path named */
	f = fopen(path, "w");
	REQUIRE(f);
	for (i = 0; i < (1 << 20) / 8 + 1; i++) {
		fputs("12345678", f);
	}
	REQUIRE(!fclose(f));
	CHECK(ht_file_read(path, 1u << 20, &text, &size, err, sizeof(err)) ==
	      HT_ERANGE);
	CHECK(!text);
	CHECK_MSG(strstr(err, path) != NULL, "message: %s", err);

	snprintf(path, sizeof(path), "%s/missing", dir);
	CHECK(ht_file_read(path, 1u << 20, &text, &size, err, sizeof(err)) ==
	      HT_ENOENT);
	CHECK(!text);
	CHECK_MSG(strstr(err, path) != NULL, "message: %s", err);
}

static void err_printf(void)
{
	char err[16];

	CHECK(ht_err_printf(err, sizeof(err), HT_EFORMAT, "packet %d", 7) ==
	      HT_EFORMAT);
	CHECK_STR(err, "packet 7");
	/* cut to fit */
	CHECK(ht_err_printf(err, sizeof(err), HT_EIO, "%s",
			    "a message longer than the buffer") == HT_EIO);
	CHECK(strlen(err) == sizeof(err) - 1);
	/* no buffer: only the code */
	CHECK(ht_err_printf(NULL, 0, HT_ERANGE, "x") == HT_ERANGE);
	err[0] = 'z';
	CHECK(ht_err_printf(err, 0, HT_ERANGE, "x") == HT_ERANGE);
	CHECK(err[0] == 'z');
}

static void got(void *arg, const char *text)
{
	snprintf(arg, 64, "%s", text);
}

static void message(void)
{
	char seen[64] = "";

	ht_message_sendf(got, seen, "core %s: %u lost", "dsp1", 3u);
	CHECK_STR(seen, "core dsp1: 3 lost");
	/* no callback: nothing happens */
	ht_message_sendf(NULL, seen, "%s", "other");
	CHECK_STR(seen, "core dsp1: 3 lost");
}

int main(void)
{
	char dir[] = "/tmp/t-common-misc.XXXXXX";
	char path[64];

	REQUIRE(mkdtemp(dir));
	strv();
	path_join();
	file_read(dir);
	mkdirs(dir);
	err_printf();
	message();
	snprintf(path, sizeof(path), "%s/f", dir);
	unlink(path);
	rmdir(dir);
	return check_summary("t-common-misc");
}
