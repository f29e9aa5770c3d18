/* SPDX-License-Identifier: MIT */
/*
 * The sync handshake, both sides (include/hetrace/sync-slave.h,
 * host/collect/sync-daemon.h): a forked slave answers from a SIGUSR1 handler
 * with ht_sync_slave_handle(); the master runs rounds with the daemon.
 * Checks the pairing by seq, the order of the four timestamps (one
 * clock here, so each receive must follow its send), spurious
 * interrupts, timeouts (a stopped slave) and late answers, the thread.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"
#include "hetrace/sync-slave.h"
#include "host/collect/sync-daemon.h"
#include "tests/check.h"

#define MAX_SEQ 4096

struct shared {
	struct ht_sync_slave_mbox mbox;
	volatile int stop;
	/* Timestamps by seq, 0 when the event never happened. */
	volatile uint64_t req[MAX_SEQ], ack[MAX_SEQ], notify[MAX_SEQ],
	    recv[MAX_SEQ];
	volatile unsigned acks, notifies; /* slave's calls */
};

static struct shared *sh;
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Slave side. */
static void slave_ack(void *arg, uint32_t seq)
{
	(void)arg;
	if (seq < MAX_SEQ) {
		sh->ack[seq] = now_ns();
	}
	sh->acks++;
}

static void slave_notify(void *arg, uint32_t seq)
{
	(void)arg;
	if (seq < MAX_SEQ) {
		sh->notify[seq] = now_ns();
	}
	sh->notifies++;
}

static void slave_irq(int sig)
{
	static const struct ht_sync_slave_ops ops = {slave_ack, slave_notify,
						     NULL};

	(void)sig;
	ht_sync_slave_handle(&sh->mbox, &ops);
}

static void slave_main(void)
{
	struct sigaction sa;
	sigset_t none;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = slave_irq;
	sigaction(SIGUSR1, &sa, NULL);
	/* The handler is in place: SIGUSR1 may come (sigsuspend unblocks it).
	 */
	sigemptyset(&none);
	while (!sh->stop) {
		sigsuspend(&none);
	}
	_exit(0);
}

/* Master side. */
static void master_req(void *arg, uint32_t seq, uint32_t slave)
{
	(void)arg;
	CHECK_MSG(slave == 7, "sync_req slave %u", slave);
	if (seq < MAX_SEQ) {
		sh->req[seq] = now_ns();
	}
}

static void master_recv(void *arg, uint32_t seq, uint32_t slave)
{
	(void)arg;
	CHECK_MSG(slave == 7, "sync_recv slave %u", slave);
	if (seq < MAX_SEQ) {
		sh->recv[seq] = now_ns();
	}
}

static int raise_irq(void *arg)
{
	return kill((pid_t)(intptr_t)arg, SIGUSR1) == 0 ? 0 : HT_EIO;
}

static int raise_fails(void *arg)
{
	(void)arg;
	return HT_EIO;
}

static void check_round(uint32_t n)
{
	CHECK_MSG(sh->req[n] && sh->ack[n] && sh->notify[n + 1] &&
		      sh->recv[n + 1],
		  "round %u incomplete", n);
	CHECK_MSG(sh->req[n] <= sh->ack[n],
		  "round %u: sync_ack before sync_req", n);
	CHECK_MSG(sh->ack[n] <= sh->notify[n + 1],
		  "round %u: notify before ack", n);
	CHECK_MSG(sh->notify[n + 1] <= sh->recv[n + 1],
		  "round %u: sync_recv before sync_notify", n);
}

int main(void)
{
	struct ht_sync_daemon_opts o = {0};
	struct ht_sync_daemon_stats st;
	struct ht_sync_daemon_slave sl = {0};
	struct ht_sync_daemon *d;
	struct ht_sync_slave_mbox bad;
	bool answered;
	pid_t pid;
	uint32_t n, answers;
	int ret, i;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	ht_sync_slave_mbox_init(&sh->mbox, 7);
	CHECK_MSG(ht_sync_slave_mbox_is_valid(&sh->mbox),
		  "fresh mailbox invalid");
	CHECK_MSG(sh->mbox.req == HT_SYNC_SLAVE_IDLE && sh->mbox.ack == 0,
		  "initial words");

	/* A spurious interrupt before any request answers nothing. */
	{
		static const struct ht_sync_slave_ops ops = {
		    slave_ack, slave_notify, NULL};

		CHECK_MSG(ht_sync_slave_handle(&sh->mbox, &ops) == 0,
			  "answered without a request");
		CHECK_MSG(sh->acks == 0, "traced without a request");
	}

	/* Block SIGUSR1 until the child installed its handler. */
	{
		sigset_t s;

		sigemptyset(&s);
		sigaddset(&s, SIGUSR1);
		sigprocmask(SIG_BLOCK, &s, NULL);
		pid = fork();
		if (pid == 0) {
			slave_main();
		}
		sigprocmask(SIG_UNBLOCK, &s, NULL);
	}
	if (pid < 0) {
		perror("fork");
		return 1;
	}

	/* Bad set-ups. */
	memset(&bad, 0, sizeof(bad));
	sl.mbox = &bad;
	sl.core_id = 7;
	sl.raise_irq = raise_irq;
	sl.raise_arg = (void *)(intptr_t)pid;
	o.trace_req = master_req;
	o.trace_recv = master_recv;
	o.timeout_ns = 500000000u;
	CHECK_MSG(ht_sync_daemon_create(&d, &o, &sl, 1) == HT_EINVAL,
		  "invalid mailbox accepted");
	sl.mbox = &sh->mbox;
	CHECK_MSG(ht_sync_daemon_create(&d, &o, &sl, 0) == HT_EINVAL,
		  "no slave accepted");

	ret = ht_sync_daemon_create(&d, &o, &sl, 1);
	CHECK_MSG(ret == 0, "create: %s", ht_strerror(ret));
	if (ret) {
		return 1;
	}

	/* 50 synchronous rounds: seq 0, 2, ... each answered, in order. */
	for (i = 0; i < 50; i++) {
		ret = ht_sync_daemon_round(d, 0, &answered);
		CHECK_MSG(ret == 0 && answered, "round %d not answered", i);
	}
	for (n = 0; n < 100; n += 2) {
		check_round(n);
	}
	CHECK_MSG(sh->acks == 50 && sh->notifies == 50, "slave traced %u/%u",
		  sh->acks, sh->notifies);
	CHECK_MSG(sh->mbox.ack == 99 && sh->mbox.answers == 50,
		  "ack %u answers %u", sh->mbox.ack, sh->mbox.answers);

	/* A repeated interrupt for an answered request answers nothing. */
	answers = sh->mbox.answers;
	kill(pid, SIGUSR1);
	usleep(20000);
	CHECK_MSG(sh->mbox.answers == answers, "spurious interrupt answered");

	/* A stopped slave: the round times out, the slave answers later. */
	ht_sync_daemon_destroy(d);
	o.timeout_ns = 30000000u;
	ret = ht_sync_daemon_create(&d, &o, &sl, 1);
	CHECK_MSG(ret == 0, "create: %s", ht_strerror(ret));
	kill(pid, SIGSTOP);
	ret = ht_sync_daemon_round(d, 0, &answered);
	CHECK_MSG(ret == 0 && !answered, "stopped slave answered");
	ht_sync_daemon_stats(d, 0, &st);
	CHECK_MSG(st.timeouts == 1 && st.rounds == 1 && st.answered == 0,
		  "timeouts %llu rounds %llu", (unsigned long long)st.timeouts,
		  (unsigned long long)st.rounds);
	CHECK_MSG(sh->recv[1] != 0 && sh->req[0] != 0, "earlier rounds kept");
	kill(pid, SIGCONT);
	for (i = 0; i < 200 && sh->mbox.ack != 1; i++) {
		usleep(1000);
	}
	CHECK_MSG(sh->mbox.ack == 1, "late answer missing (ack %u)",
		  sh->mbox.ack);
	/* The next round goes on with seq 2. */
	ret = ht_sync_daemon_round(d, 0, &answered);
	CHECK_MSG(ret == 0 && answered, "round after a timeout not answered");
	CHECK_MSG(sh->mbox.ack == 3, "ack %u after the round after a timeout",
		  sh->mbox.ack);

	/* A failing interrupt: counted, nothing posted. */
	ht_sync_daemon_destroy(d);
	memset((void *)sh->req, 0, sizeof(sh->req));
	memset((void *)sh->recv, 0, sizeof(sh->recv));
	memset((void *)sh->ack, 0, sizeof(sh->ack));
	memset((void *)sh->notify, 0, sizeof(sh->notify));
	ht_sync_slave_mbox_init(&sh->mbox, 7);
	sl.raise_irq = raise_fails;
	ret = ht_sync_daemon_create(&d, &o, &sl, 1);
	CHECK_MSG(ret == 0, "create: %s", ht_strerror(ret));
	ret = ht_sync_daemon_round(d, 0, &answered);
	CHECK_MSG(ret == HT_EIO && !answered, "failed raise: %d", ret);
	ht_sync_daemon_stats(d, 0, &st);
	CHECK_MSG(st.raise_errors == 1 && st.rounds == 0, "raise errors %llu",
		  (unsigned long long)st.raise_errors);
	ht_sync_daemon_destroy(d);

	/* The thread: 1 ms period for 100 ms, then stopped. */
	ht_sync_slave_mbox_init(&sh->mbox, 7);
	memset((void *)sh->req, 0, sizeof(sh->req));
	sl.raise_irq = raise_irq;
	o.period_ns = 1000000u;
	o.timeout_ns = 1000000000u;
	ret = ht_sync_daemon_create(&d, &o, &sl, 1);
	CHECK_MSG(ret == 0, "create: %s", ht_strerror(ret));
	CHECK_MSG(ht_sync_daemon_start(d) == 0, "start");
	CHECK_MSG(ht_sync_daemon_start(d) == HT_EINVAL, "started twice");
	usleep(100000);
	ht_sync_daemon_stop(d);
	ht_sync_daemon_stats(d, 0, &st);
	CHECK_MSG(st.rounds >= 10 && st.answered == st.rounds && !st.timeouts,
		  "thread: rounds %llu answered %llu timeouts %llu",
		  (unsigned long long)st.rounds,
		  (unsigned long long)st.answered,
		  (unsigned long long)st.timeouts);
	CHECK_MSG(st.min_rtt_ns > 0, "no round-trip time");
	for (n = 0; n < 2 * st.rounds && n + 1 < MAX_SEQ; n += 2) {
		check_round(n);
	}
	/* Stopped means stopped: no request is posted afterwards. */
	n = sh->mbox.req;
	usleep(10000);
	CHECK_MSG(sh->mbox.req == n && sh->mbox.ack == n + 1,
		  "request after stop");
	ht_sync_daemon_destroy(d);

	/*
	 * Bursts: 4 rounds back to back per pass, passes 60 ms apart, for
	 * 150 ms: whole bursts only, each much shorter than the gap to the
	 * next one.
	 */
	ht_sync_slave_mbox_init(&sh->mbox, 7);
	memset((void *)sh->req, 0, sizeof(sh->req));
	o.period_ns = 60000000u;
	o.burst = 4;
	ret = ht_sync_daemon_create(&d, &o, &sl, 1);
	CHECK_MSG(ret == 0, "create: %s", ht_strerror(ret));
	CHECK_MSG(ht_sync_daemon_start(d) == 0, "start with bursts");
	usleep(150000);
	ht_sync_daemon_stop(d);
	ht_sync_daemon_stats(d, 0, &st);
	CHECK_MSG(
	    st.rounds >= 8 && st.rounds % 4 == 0 && st.answered == st.rounds,
	    "bursts: rounds %llu answered %llu", (unsigned long long)st.rounds,
	    (unsigned long long)st.answered);
	for (n = 0; n < 2 * st.rounds && n + 1 < MAX_SEQ; n += 2) {
		check_round(n);
	}
	for (n = 0; n + 8 < 2 * st.rounds; n += 8) {
		uint64_t span = sh->req[n + 6] - sh->req[n];
		uint64_t gap = sh->req[n + 8] - sh->req[n + 6];

		CHECK_MSG(span < 20000000u && gap > 30000000u,
			  "burst at seq %u: %llu ns long, next %llu ns later",
			  n, (unsigned long long)span, (unsigned long long)gap);
	}
	ht_sync_daemon_destroy(d);

	sh->stop = 1;
	kill(pid, SIGUSR1);
	waitpid(pid, NULL, 0);
	return check_summary("t-sync-handshake");
}
