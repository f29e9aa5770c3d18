/* SPDX-License-Identifier: MIT */
/* Loading hetrace's LTTng-UST provider (lttng-ust.h). */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "lttng-ust.h"

#define PROVIDER_FILE "libhetrace-lttng.so"

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct ht_lttng_ops *loaded;

/* PROVIDER_FILE in the directory of the running executable. */
static int next_to_exe(char *path, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0) {
		return -1;
	}
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash) {
		return -1;
	}
	*slash = 0;
	if ((size_t)snprintf(path, len, "%s/%s", exe, PROVIDER_FILE) >= len) {
		return -1;
	}
	return 0;
}

static int check_ops(const struct ht_lttng_ops *ops, const char *where,
		     char *err, size_t err_len)
{
	if (!ops || ops->magic != HT_LTTNG_OPS_MAGIC ||
	    ops->version != HT_LTTNG_OPS_VERSION || ops->size < sizeof(*ops) ||
	    !ops->sync_req || !ops->sync_recv || !ops->msg_send ||
	    !ops->msg_recv) {
		snprintf(err, err_len,
			 "%s: not hetrace's LTTng-UST provider of version %u "
			 "(rebuild it with make)",
			 where, HT_LTTNG_OPS_VERSION);
		return HT_EFORMAT;
	}
	return 0;
}

int ht_lttng_load(const struct ht_lttng_ops **out, char *err, size_t err_len)
{
	const struct ht_lttng_ops *(*get)(void);
	const char *env = getenv("HETRACE_LTTNG_PROVIDER");
	char path[PATH_MAX + 32];
	void *h = NULL;
	int ret = 0;

	*out = NULL;
	pthread_mutex_lock(&load_lock);
	if (loaded) {
		*out = loaded;
		goto unlock;
	}
	if (env && *env) {
		snprintf(path, sizeof(path), "%s", env);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	} else {
		if (next_to_exe(path, sizeof(path)) == 0 &&
		    access(path, F_OK) == 0) {
			h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		} else {
			snprintf(path, sizeof(path), "%s", PROVIDER_FILE);
			h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		}
	}
	if (!h) {
		const char *why = dlerror();

		snprintf(err, err_len,
			 "cannot load hetrace's LTTng-UST provider %s: %s "
			 "(it is built next to hetrace when liblttng-ust-dev "
			 "is installed; HETRACE_LTTNG_PROVIDER names another "
			 "file)",
			 path, why ? why : "unknown error");
		ret = HT_ENOENT;
		goto unlock;
	}
	*(void **)&get = dlsym(h, HT_LTTNG_OPS_SYMBOL);
	if (!get) {
		snprintf(err, err_len, "%s: no symbol %s", path,
			 HT_LTTNG_OPS_SYMBOL);
		ret = HT_EFORMAT;
		/* lttng-ust does not support unloading a provider that
		 * registered its probes: the object stays loaded. */
		goto unlock;
	}
	ret = check_ops(get(), path, err, err_len);
	if (ret) {
		goto unlock;
	}
	loaded = get();
	*out = loaded;
unlock:
	pthread_mutex_unlock(&load_lock);
	return ret;
}
