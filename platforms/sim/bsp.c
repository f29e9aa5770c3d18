/* SPDX-License-Identifier: MIT */
/* The slave's board-support layer on Linux (bsp.h). */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <unistd.h>

#include "bsp.h"

static struct sim_shared *bsp_sh;
static const struct sim_clock_model *bsp_clock;
static void (*bsp_sync_isr)(void);
static void (*bsp_msg_isr)(void);
static sigset_t bsp_irqs;     /* SIGUSR1 and SIGUSR2 */
static sigset_t bsp_unmasked; /* the mask while waiting for an interrupt */
static volatile sig_atomic_t bsp_taken; /* interrupts taken (idle loop) */

static void on_signal(int sig)
{
	int saved = errno;

	bsp_taken = bsp_taken + 1;
	if (sig == SIGUSR1) {
		bsp_sync_isr();
	} else {
		bsp_msg_isr();
	}
	errno = saved;
}

void sim_bsp_init(struct sim_shared *sh, uint32_t core_id,
		  void (*sync_isr)(void), void (*msg_isr)(void))
{
	struct sigaction sa;

	bsp_sh = sh;
	bsp_clock = sim_clock(sh, core_id);
	bsp_sync_isr = sync_isr;
	bsp_msg_isr = msg_isr;
	sigemptyset(&bsp_irqs);
	sigaddset(&bsp_irqs, SIGUSR1);
	sigaddset(&bsp_irqs, SIGUSR2);
	sigprocmask(SIG_BLOCK, &bsp_irqs, &bsp_unmasked);
	sigdelset(&bsp_unmasked, SIGUSR1);
	sigdelset(&bsp_unmasked, SIGUSR2);

	sa.sa_handler = on_signal;
	sa.sa_mask = bsp_irqs; /* one interrupt at a time */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
}

uint32_t sim_bsp_counter(void *unused)
{
	(void)unused;
	/* The hardware counter holds the low 32 bits. */
	return (uint32_t)sim_clock_ticks(bsp_clock, sim_ref_now_ns());
}

void sim_bsp_irq_disable(void)
{
	sigprocmask(SIG_BLOCK, &bsp_irqs, NULL);
}

void sim_bsp_irq_enable(void)
{
	sigprocmask(SIG_UNBLOCK, &bsp_irqs, NULL);
}

int sim_bsp_irq_save(void)
{
	sigset_t old;

	sigprocmask(SIG_BLOCK, &bsp_irqs, &old);
	return !sigismember(&old, SIGUSR1);
}

void sim_bsp_irq_restore(int were_on)
{
	if (were_on) {
		sigprocmask(SIG_UNBLOCK, &bsp_irqs, NULL);
	}
}

void sim_bsp_wait_for_irq(void)
{
	sig_atomic_t taken = bsp_taken;
	uint32_t spin_ns = bsp_sh->idle_spin_ns;

	if (spin_ns) {
		uint64_t end = sim_ref_now_ns() + spin_ns;

		sim_bsp_irq_enable();
		while (bsp_taken == taken && sim_ref_now_ns() < end) {
		}
		sim_bsp_irq_disable();
		if (bsp_taken != taken) {
			return;
		}
	}
	/* Unmasks, sleeps, runs the handler, masks again: no lost wake-up. */
	sigsuspend(&bsp_unmasked);
}

int sim_bsp_raise_msg_irq(uint32_t core_id)
{
	pid_t pid;

	if (core_id == 0) {
		return sem_post(&bsp_sh->master_irq);
	}
	pid = core_id < bsp_sh->nr_cores ? *sim_pid(bsp_sh, core_id) : 0;
	/* Never kill(0): that would signal the whole board. */
	return pid > 0 ? kill(pid, SIGUSR2) : -1;
}

void sim_bsp_delay_us(uint32_t us)
{
	uint64_t end = sim_ref_now_ns() + (uint64_t)us * 1000u;

	while (sim_ref_now_ns() < end) {
	}
}

void sim_bsp_halt(int code)
{
	_exit(code);
}
