/* SPDX-License-Identifier: MIT */
/*
 * maxrss CMD ARGS...: runs CMD with its standard output to /dev/null
 * and prints its peak resident size in KiB (from wait4). Exits with
 * CMD's status. Small itself, so that the figure is CMD's own.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CMD ARGS...\n", argv[0]);
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, 1) < 0) {
			_exit(127);
		}
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("wait4");
		return 1;
	}
	printf("%ld\n", ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
