/* SPDX-License-Identifier: MIT */
/* One QEMU instance: start, connect, wait for the firmware, stop
 * (qemu-launch.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"
#include "qemu-launch.h"

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {0, (long)ms * 1000000L};

	nanosleep(&ts, NULL);
}

void qlaunch_last_line(const char *path, char *out, size_t len)
{
	char buf[4096];
	off_t end_off;
	ssize_t n;
	int fd;
	char *end, *start;

	out[0] = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return;
	}
	/* The last 4 KiB hold the last line (the logs are short lines). */
	end_off = lseek(fd, 0, SEEK_END);
	n = pread(fd, buf, sizeof(buf) - 1,
		  end_off > (off_t)sizeof(buf) - 1
		      ? end_off - (off_t)sizeof(buf) + 1
		      : 0);
	close(fd);
	if (n <= 0) {
		return;
	}
	buf[n] = 0;
	end = buf + n;
	while (end > buf && (end[-1] == '\n' || end[-1] == '\r')) {
		*--end = 0;
	}
	start = strrchr(buf, '\n');
	start = start ? start + 1 : buf;
	n = (ssize_t)strlen(start);
	if ((size_t)n >= len) {
		n = (ssize_t)len - 1;
	}
	memcpy(out, start, (size_t)n);
	out[n] = 0;
}

bool qlaunch_has_exited(struct qlaunch *q)
{
	int st;

	if (q->exited) {
		return true;
	}
	if (q->pid > 0 && waitpid(q->pid, &st, WNOHANG) == q->pid) {
		q->exited = true;
		q->status = st;
		q->pid = 0;
		return true;
	}
	return false;
}

static void describe_exit(const struct qlaunch *q, char *out, size_t len)
{
	if (WIFEXITED(q->status)) {
		snprintf(out, len, "exited with status %d",
			 WEXITSTATUS(q->status));
	} else if (WIFSIGNALED(q->status)) {
		snprintf(out, len, "killed by %s",
			 strsignal(WTERMSIG(q->status)));
	} else {
		snprintf(out, len, "ended");
	}
}

static void fail(const struct qlaunch *q, char *err, size_t err_len,
		 const char *what)
{
	char tail[512], how[64] = "";

	qlaunch_last_line(q->log_path, tail, sizeof(tail));
	if (q->exited) {
		describe_exit(q, how, sizeof(how));
	}
	snprintf(err, err_len, "%s: QEMU %s%s%s: command line: %s%s%s", q->name,
		 what, how[0] ? ", " : "", how, q->cmdline,
		 tail[0] ? "; QEMU said: " : "", tail);
}

/* Appends one argument to argv and to the printable command line. */
static void add_arg(struct qlaunch *q, char **argv, int *argc, char *arg)
{
	size_t at = strlen(q->cmdline);

	argv[(*argc)++] = arg;
	snprintf(q->cmdline + at, sizeof(q->cmdline) - at, "%s%s",
		 at ? " " : "", arg);
}

int qlaunch_start(struct qlaunch *q, unsigned boot_timeout_ms, char *err,
		  size_t err_len)
{
	static char a_machine[] = "-machine", a_cpu[] = "-cpu",
		    a_m3[] = "cortex-m3", a_mem[] = "-m", a_16m[] = "16M",
		    a_bios[] = "-bios", a_none[] = "none", a_obj[] = "-object",
		    a_kernel[] = "-kernel", a_disp[] = "-display",
		    a_mon[] = "-monitor", a_serial[] = "-serial",
		    a_icount[] = "-icount", a_noreboot[] = "-no-reboot",
		    m_mps2[] = "mps2-an385,memory-backend=mem",
		    m_virt[] = "virt,memory-backend=mem";
	char backend[700], serial[200], icount[64], fw[512], bin[256];
	char *argv[32];
	int argc = 0, logfd, ret;
	struct stat st;
	uint64_t deadline;
	struct qb_block *b;
	size_t off;
	pid_t pid;

	q->pid = 0;
	q->exited = false;
	q->ram_fd = -1;
	q->ram = NULL;
	q->block = NULL;
	q->cmdline[0] = 0;
	snprintf(q->ram_path, sizeof(q->ram_path), "%s/%s.ram", q->work_dir,
		 q->name);
	snprintf(q->log_path, sizeof(q->log_path), "%s/%s.log", q->work_dir,
		 q->name);
	snprintf(q->uart_path, sizeof(q->uart_path), "%s/%s.uart", q->work_dir,
		 q->name);
	/* sun_path is short: the socket name is relative to work_dir's
	 * absolute path only when it fits. */
	if ((size_t)snprintf(q->sock_path, sizeof(q->sock_path), "%s/%s.sock",
			     q->work_dir, q->name) >= sizeof(q->sock_path)) {
		snprintf(err, err_len,
			 "%s: work directory path too long for a "
			 "unix socket: %s",
			 q->name, q->work_dir);
		return HT_EINVAL;
	}
	unlink(q->sock_path);

	q->ram_fd =
	    open(q->ram_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (q->ram_fd < 0 || ftruncate(q->ram_fd, QL_RAM_SIZE) != 0) {
		snprintf(err, err_len, "%s: cannot create the RAM file %s: %s",
			 q->name, q->ram_path, strerror(errno));
		ret = HT_EIO;
		goto undo;
	}
	q->ram = mmap(NULL, QL_RAM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		      q->ram_fd, 0);
	if (q->ram == MAP_FAILED) {
		q->ram = NULL;
		snprintf(err, err_len, "%s: cannot map %s: %s", q->name,
			 q->ram_path, strerror(errno));
		ret = HT_EIO;
		goto undo;
	}

	snprintf(bin, sizeof(bin), "%s", q->qemu);
	snprintf(fw, sizeof(fw), "%s", q->firmware);
	snprintf(backend, sizeof(backend),
		 "memory-backend-file,id=mem,size=16M,mem-path=%s,share=on",
		 q->ram_path);
	snprintf(serial, sizeof(serial), "unix:%s,server=on,wait=off",
		 q->sock_path);
	snprintf(icount, sizeof(icount), "shift=%u", q->icount_shift);
	add_arg(q, argv, &argc, bin);
	add_arg(q, argv, &argc, a_machine);
	add_arg(q, argv, &argc, q->riscv ? m_virt : m_mps2);
	if (q->riscv) {
		add_arg(q, argv, &argc, a_bios);
		add_arg(q, argv, &argc, a_none);
	} else {
		add_arg(q, argv, &argc, a_cpu);
		add_arg(q, argv, &argc, a_m3);
	}
	add_arg(q, argv, &argc, a_mem);
	add_arg(q, argv, &argc, a_16m);
	add_arg(q, argv, &argc, a_obj);
	add_arg(q, argv, &argc, backend);
	add_arg(q, argv, &argc, a_kernel);
	add_arg(q, argv, &argc, fw);
	add_arg(q, argv, &argc, a_disp);
	add_arg(q, argv, &argc, a_none);
	add_arg(q, argv, &argc, a_mon);
	add_arg(q, argv, &argc, a_none);
	add_arg(q, argv, &argc, a_serial);
	add_arg(q, argv, &argc, serial);
	add_arg(q, argv, &argc, a_noreboot);
	if (q->icount) {
		add_arg(q, argv, &argc, a_icount);
		add_arg(q, argv, &argc, icount);
	}
	argv[argc] = NULL;

	logfd =
	    open(q->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (logfd < 0) {
		snprintf(err, err_len, "%s: cannot create %s: %s", q->name,
			 q->log_path, strerror(errno));
		ret = HT_EIO;
		goto undo;
	}
	pid = fork();
	if (pid < 0) {
		close(logfd);
		snprintf(err, err_len, "%s: cannot start QEMU: %s", q->name,
			 strerror(errno));
		ret = HT_EIO;
		goto undo;
	}
	if (pid == 0) {
		pid_t parent = getppid();
		int devnull = open("/dev/null", O_RDONLY);

		/* Never outlive the master, even when it is killed. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent) {
			_exit(1);
		}
		/* Ctrl-C goes to the master, which stops QEMU itself. */
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (devnull >= 0) {
			dup2(devnull, 0);
		}
		dup2(logfd, 1);
		dup2(logfd, 2);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(logfd);
	q->pid = pid;

	/* The socket appears once QEMU has parsed its options. Nobody
	 * connects here: the recorder's doorbell does, later (wait=off lets
	 * the guest run meanwhile; what it prints before is dropped). */
	deadline = mono_ms() + boot_timeout_ms;
	for (;;) {
		if (qlaunch_has_exited(q)) {
			fail(q, err, err_len, "did not start");
			ret = HT_EIO;
			goto undo;
		}
		if (stat(q->sock_path, &st) == 0 && S_ISSOCK(st.st_mode)) {
			break;
		}
		if (mono_ms() > deadline) {
			fail(q, err, err_len,
			     "did not open its serial socket in time");
			ret = HT_EIO;
			goto undo;
		}
		sleep_ms(5);
	}

	/* The firmware publishes its block (magic last). */
	off = q->riscv ? QB_BLOCK_OFF_VIRT : QB_BLOCK_OFF_MPS2;
	b = (struct qb_block *)(q->ram + off);
	for (;;) {
		if (b->magic == QB_MAGIC && b->state != QB_BOOTING) {
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			break;
		}
		if (qlaunch_has_exited(q)) {
			fail(q, err, err_len,
			     "ended before the firmware booted");
			ret = HT_EIO;
			goto undo;
		}
		if (mono_ms() > deadline) {
			fail(q, err, err_len,
			     "runs but the firmware published no board block "
			     "(wrong image?)");
			ret = HT_EIO;
			goto undo;
		}
		sleep_ms(2);
	}
	if (b->version != QB_VERSION || b->size != sizeof(*b) ||
	    b->ring_off < sizeof(*b) ||
	    (uint64_t)off + b->ring_off + b->ring_size > QL_RAM_SIZE ||
	    !ht_sync_slave_mbox_is_valid(&b->mbox)) {
		snprintf(err, err_len,
			 "%s: %s: board block at offset %zu: version %u, size "
			 "%u, ring at +%u (%u bytes): this hetrace reads "
			 "version %u, size %zu",
			 q->name, q->ram_path, off, b->version, b->size,
			 b->ring_off, b->ring_size, QB_VERSION, sizeof(*b));
		ret = HT_EFORMAT;
		goto undo;
	}
	if (b->state == QB_FAULT) {
		snprintf(err, err_len,
			 "%s: the firmware faulted at boot: exception/cause %u "
			 "at pc 0x%08x, address 0x%08x",
			 q->name, b->fault.kind, b->fault.pc, b->fault.addr);
		ret = HT_EIO;
		goto undo;
	}
	q->block = b;
	q->block_off = off;
	return 0;
undo:
	qlaunch_stop(q);
	return ret;
}

void qlaunch_stop(struct qlaunch *q)
{
	uint64_t deadline;

	if (q->pid > 0 && !qlaunch_has_exited(q)) {
		kill(q->pid, SIGTERM);
		deadline = mono_ms() + 2000u;
		while (!qlaunch_has_exited(q) && mono_ms() < deadline) {
			sleep_ms(2);
		}
		if (!qlaunch_has_exited(q)) {
			kill(q->pid, SIGKILL);
			if (waitpid(q->pid, &q->status, 0) == q->pid) {
				q->exited = true;
			}
			q->pid = 0;
		}
	}
	if (q->ram) {
		munmap(q->ram, QL_RAM_SIZE);
		q->ram = NULL;
		q->block = NULL;
	}
	if (q->ram_fd >= 0) {
		close(q->ram_fd);
		q->ram_fd = -1;
		unlink(q->ram_path);
	}
	unlink(q->sock_path);
}
