/* SPDX-License-Identifier: MIT */
/*
 * The sync daemon: the master side of the handshake (sync-daemon.h).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"
#include "sync-daemon.h"

/* Polls that only yield before the poll loop starts sleeping. */
#define SPIN_NS 30000
#define YIELD_POLLS 64
#define POLL_SLEEP_NS 20000

struct slave_state {
	struct ht_sync_daemon_slave slave;
	uint32_t next_seq;
	struct ht_sync_daemon_stats st;
};

struct ht_sync_daemon {
	struct ht_sync_daemon_opts opts;
	struct slave_state *slaves;
	size_t nr;

	pthread_t thread;
	bool running;
	pthread_mutex_t lock; /* guards stop */
	pthread_cond_t cond;  /* signalled by ht_sync_daemon_stop() */
	bool stop;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct timespec ns_to_ts(uint64_t ns)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(ns / 1000000000u);
	ts.tv_nsec = (long)(ns % 1000000000u);
	return ts;
}

int ht_sync_daemon_create(struct ht_sync_daemon **out,
			  const struct ht_sync_daemon_opts *opts,
			  const struct ht_sync_daemon_slave *slaves, size_t nr)
{
	struct ht_sync_daemon *d;
	pthread_condattr_t ca;
	size_t i;

	*out = NULL;
	if (!opts || !opts->trace_req || !opts->trace_recv || !slaves ||
	    nr == 0) {
		return HT_EINVAL;
	}
	for (i = 0; i < nr; i++) {
		if (!slaves[i].mbox || !slaves[i].raise_irq ||
		    !ht_sync_slave_mbox_is_valid(slaves[i].mbox)) {
			return HT_EINVAL;
		}
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		return HT_ENOMEM;
	}
	d->slaves = calloc(nr, sizeof(*d->slaves));
	if (!d->slaves) {
		free(d);
		return HT_ENOMEM;
	}
	d->opts = *opts;
	if (!d->opts.period_ns) {
		d->opts.period_ns = 10000000u;
	}
	if (!d->opts.timeout_ns) {
		d->opts.timeout_ns = 100000000u;
	}
	if (!d->opts.burst) {
		d->opts.burst = 1;
	}
	d->nr = nr;
	for (i = 0; i < nr; i++) {
		d->slaves[i].slave = slaves[i];
		d->slaves[i].st.core_id = slaves[i].core_id;
	}
	pthread_mutex_init(&d->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&d->cond, &ca);
	pthread_condattr_destroy(&ca);
	*out = d;
	return 0;
}

int ht_sync_daemon_round(struct ht_sync_daemon *d, size_t i, bool *answered)
{
	struct slave_state *s = &d->slaves[i];
	struct ht_sync_slave_mbox *m = s->slave.mbox;
	uint32_t n = s->next_seq;
	uint64_t t0, deadline, now;
	unsigned polls = 0;
	int ret;

	*answered = false;
	s->next_seq = n + 2u;
	/* Before the request: no clock read between the post and the raise. */
	t0 = mono_ns();
	/* sync_req is stamped before the interrupt is raised. */
	d->opts.trace_req(d->opts.trace_arg, n, s->slave.core_id);
	ht_sync_slave_mbox_post(m, n);
	ret = s->slave.raise_irq(s->slave.raise_arg);
	if (ret < 0) {
		s->st.raise_errors++;
		return ret;
	}
	s->st.rounds++;
	deadline = t0 + d->opts.timeout_ns;
	for (;;) {
		if (ht_sync_slave_mbox_answered(m, n)) {
			/* sync_recv is stamped after the ACK was seen. */
			d->opts.trace_recv(d->opts.trace_arg, n + 1u,
					   s->slave.core_id);
			now = mono_ns();
			if (!s->st.min_rtt_ns || now - t0 < s->st.min_rtt_ns) {
				s->st.min_rtt_ns = now - t0;
			}
			s->st.answered++;
			*answered = true;
			return 0;
		}
		now = mono_ns();
		if (now >= deadline) {
			s->st.timeouts++;
			return 0;
		}
		/*
		 * Spin first: the slave answers within microseconds when it
		 * has a CPU of its own, and a yield could hand this CPU to
		 * another task for a whole time slice. Then, as the slave may
		 * share this CPU, yield (a short round trip), then sleep so
		 * that a slow slave costs no CPU.
		 */
		if (now - t0 < SPIN_NS) {
			continue;
		}
		if (polls++ < YIELD_POLLS) {
			sched_yield();
		} else {
			struct timespec ts = ns_to_ts(POLL_SLEEP_NS);

			nanosleep(&ts, NULL);
		}
	}
}

static void *daemon_main(void *arg)
{
	struct ht_sync_daemon *d = arg;
	uint64_t next = mono_ns();
	bool answered;
	size_t i;

	pthread_mutex_lock(&d->lock);
	while (!d->stop) {
		pthread_mutex_unlock(&d->lock);
		for (i = 0; i < d->nr; i++) {
			unsigned b;

			const struct ht_sync_daemon_slave *sl =
			    &d->slaves[i].slave;

			if (sl->burst_begin) {
				sl->burst_begin(sl->raise_arg);
			}
			/* A failed raise is counted; the other slaves go on. */
			for (b = 0; b < d->opts.burst; b++) {
				(void)ht_sync_daemon_round(d, i, &answered);
			}
			if (sl->burst_end) {
				sl->burst_end(sl->raise_arg);
			}
		}
		next += d->opts.period_ns;
		if (next < mono_ns()) {
			/* Late (a slow slave): start the next pass now. */
			next = mono_ns();
		}
		pthread_mutex_lock(&d->lock);
		while (!d->stop) {
			struct timespec ts = ns_to_ts(next);

			if (pthread_cond_timedwait(&d->cond, &d->lock, &ts) ==
			    ETIMEDOUT) {
				break;
			}
		}
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

int ht_sync_daemon_start(struct ht_sync_daemon *d)
{
	if (d->running) {
		return HT_EINVAL;
	}
	d->stop = false;
	if (pthread_create(&d->thread, NULL, daemon_main, d) != 0) {
		return HT_ENOMEM;
	}
	d->running = true;
	return 0;
}

void ht_sync_daemon_stop(struct ht_sync_daemon *d)
{
	if (!d->running) {
		return;
	}
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	d->running = false;
}

void ht_sync_daemon_stats(const struct ht_sync_daemon *d, size_t i,
			  struct ht_sync_daemon_stats *st)
{
	*st = d->slaves[i].st;
}

void ht_sync_daemon_destroy(struct ht_sync_daemon *d)
{
	if (!d) {
		return;
	}
	ht_sync_daemon_stop(d);
	pthread_cond_destroy(&d->cond);
	pthread_mutex_destroy(&d->lock);
	free(d->slaves);
	free(d);
}
