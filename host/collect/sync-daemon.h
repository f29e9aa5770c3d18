/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_SYNC_DAEMON_H
#define HT_HOST_SYNC_DAEMON_H

/*
 * The master side of the sync handshake (include/hetrace/sync-slave.h has the
 * mailbox and the slave side; docs/events.md the events): a thread that,
 * every period, runs one round (or a burst of rounds) with each slave in
 * turn:
 *
 *   trace sync_req(n, slave)      (the caller's tracer, before the IRQ)
 *   post request n in the mailbox, raise the slave's interrupt
 *   poll the ACK (yield, then short sleeps) until n + 1 or the timeout
 *   trace sync_recv(n + 1, slave) (after the ACK was seen)
 *
 * n starts at 0 for every slave and grows by 2 per round, answered or
 * not. A round that times out traces no sync_recv and is counted; the
 * slave may still answer it later (its sync_ack and sync_notify are then
 * valid one-way messages without a partner).
 *
 * The tracing callbacks run on the daemon's thread: when the caller's
 * tracer is shared with other threads, the callbacks serialize it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hetrace/sync-slave.h"

struct ht_sync_daemon;

/* Zero it before filling it in: the optional fields are then off. */
struct ht_sync_daemon_slave {
	struct ht_sync_slave_mbox *mbox; /* in memory shared with the slave */
	uint32_t core_id;		 /* the `slave` field of the events */
	/*
	 * Raises the slave's interrupt (hetrace sim: a signal to the slave
	 * process; QEMU: a byte on a socket). Returns 0 or a negative
	 * HT_E... code.
	 */
	int (*raise_irq)(void *arg);
	void *raise_arg;
	/*
	 * Optional, with raise_arg: called before and after each burst of
	 * rounds with this slave, outside the stamped part of the rounds
	 * (hetrace sim: keeps the slave off the daemon's CPU meanwhile, as
	 * a DSP is another core than the master's).
	 */
	void (*burst_begin)(void *arg);
	void (*burst_end)(void *arg);
};

struct ht_sync_daemon_opts {
	uint64_t period_ns;  /* between the starts of two passes; 0: 10 ms */
	uint64_t timeout_ns; /* waiting for one ACK; 0: 100 ms */
	void (*trace_req)(void *arg, uint32_t seq, uint32_t slave_id);
	void (*trace_recv)(void *arg, uint32_t seq, uint32_t slave_id);
	void *trace_arg;
	/*
	 * Rounds with each slave per pass, back to back (0: 1). The first
	 * round of a burst may find the slave asleep; the next ones find it
	 * awake (a core's idle loop spins a little before it sleeps), with
	 * the short one-way delays that make the bounds tight, as NTP's
	 * burst mode does.
	 */
	unsigned burst;
};

/* Per slave. */
struct ht_sync_daemon_stats {
	uint32_t core_id;
	uint64_t rounds;       /* requests posted */
	uint64_t answered;     /* ACKs seen in time */
	uint64_t timeouts;     /* no ACK within timeout_ns */
	uint64_t raise_errors; /* raise_irq() failed (no request then) */
	uint64_t min_rtt_ns;   /* shortest request-to-ACK time seen (daemon's
				* CLOCK_MONOTONIC), 0 before the first ACK */
};

/*
 * Creates a daemon for @nr slaves (copied). The mailboxes must have been
 * initialized (ht_sync_slave_mbox_init()). Returns 0 or a negative HT_E... code
 * (HT_EINVAL: no slave, a missing callback or an invalid mailbox;
 * HT_ENOMEM).
 */
int ht_sync_daemon_create(struct ht_sync_daemon **d,
			  const struct ht_sync_daemon_opts *opts,
			  const struct ht_sync_daemon_slave *slaves, size_t nr);

/*
 * Runs one round with slave @i on the calling thread. Sets *@answered.
 * Returns 0, or the negative code of raise_irq() (no request was posted
 * then). Not to be called while the thread runs.
 */
int ht_sync_daemon_round(struct ht_sync_daemon *d, size_t i, bool *answered);

/* Starts the thread. Returns 0 or HT_EINVAL (already running) or HT_ENOMEM. */
int ht_sync_daemon_start(struct ht_sync_daemon *d);

/*
 * Stops the thread after the round in progress and joins it; nothing is
 * in flight after it returns. Does nothing when the thread is not
 * running.
 */
void ht_sync_daemon_stop(struct ht_sync_daemon *d);

/* Statistics of slave @i. Read them after ht_sync_daemon_stop(). */
void ht_sync_daemon_stats(const struct ht_sync_daemon *d, size_t i,
			  struct ht_sync_daemon_stats *st);

/* Stops the thread if needed and frees the daemon. NULL is allowed. */
void ht_sync_daemon_destroy(struct ht_sync_daemon *d);

#endif
