/*
 * Issues a known set of ioctls on /dev/null from two child processes with
 * known names, so the end-to-end tests can assert exact counts.
 *
 *   ioctl_driver [SCALE]   prints {"a": PID, "b": PID} once both are done
 *   ioctl_driver --self N  issues N FIONBIO itself, prints {"self": PID}
 *   ioctl_driver --wait    prints {"wait": PID}, then waits for its standard
 *                          input to end (a process that runs, for the 32-bit check)
 *   ioctl_driver --storm N P   N short-lived processes "xpt-storm", P at a
 *                          time, each one FIONBIO; prints {"storm": N} (those
 *                          that made their call)
 *   ioctl_driver --cmds N  one process "xpt-storm" issues N distinct commands
 *                          _IOC(_IOC_NONE, 'x', NR, SIZE) (ENOTTY; N up to
 *                          65536), one call each; prints {"cmds": N}
 *   ioctl_driver --flight MS  process "xpt-flight": a FIONBIO every 2 ms for
 *                          MS ms, one failing with EFAULT at 40 % of it and
 *                          one slowed 30 ms at 70 % (its argument on a page
 *                          that a userfaultfd thread fills 30 ms late); prints
 *                          {"flight": PID, "error_ns": T, "slow_ns": T, "calls": N},
 *                          T the calls' CLOCK_MONOTONIC start (slow_ns 0: no
 *                          userfaultfd here)
 *
 * Process "xpt-drv-a": 100*S FIONBIO (ok), 20*S FIONBIO with a NULL argument
 * (EFAULT), 50*S _IOWR('x',1,8) (ENOTTY). Process "xpt-drv-b": 30*S
 * _IOR('x',2,4) (ENOTTY), 7*S FIOCLEX (ok).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "storm.h"
#include "flight_slow.h"

static void repeat(int fd, unsigned long cmd, void *arg, int n)
{
	for (int i = 0; i < n; i++)
		ioctl(fd, cmd, arg);
}

static pid_t child(const char *name, int scale, int which)
{
	pid_t pid = fork();
	int fd, on = 0;

	if (pid)
		return pid;
	prctl(PR_SET_NAME, name);
	fd = open("/dev/null", O_RDWR);
	if (fd < 0)
		_exit(1);
	if (which == 0) {
		repeat(fd, FIONBIO, &on, 100 * scale);
		repeat(fd, FIONBIO, NULL, 20 * scale);
		repeat(fd, _IOWR('x', 1, unsigned long), NULL, 50 * scale);
	} else {
		repeat(fd, _IOR('x', 2, int), NULL, 30 * scale);
		repeat(fd, FIOCLEX, NULL, 7 * scale);
	}
	_exit(0);
}

/* One process of the storm: one FIONBIO on the fd in ctx. */
static int storm_child(void *ctx)
{
	int on = 0;

	prctl(PR_SET_NAME, "xpt-storm");
	return ioctl(*(int *)ctx, FIONBIO, &on) ? 1 : 0;
}

/* N processes, at most P alive at once, each making one ioctl and exiting. */
static int storm(int n, int p)
{
	int fd = open("/dev/null", O_RDWR), ok;

	if (fd < 0 || n < 1 || p < 1 || (ok = storm_run(n, p, storm_child, &fd)) < 0)
		return 1;
	printf("{\"storm\": %d}\n", ok);
	return ok == n ? 0 : 1;
}

/* N distinct commands of type 'x', which no generic ioctl of the VFS uses. */
static int cmds(int n)
{
	int fd = open("/dev/null", O_RDWR);

	if (fd < 0 || n < 1 || n > 65536)
		return 1;
	prctl(PR_SET_NAME, "xpt-storm");
	for (int i = 0; i < n; i++)
		ioctl(fd, _IOC(_IOC_NONE, 'x', i & 0xff, i >> 8), NULL);
	printf("{\"cmds\": %d}\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1, st, ok = 1;
	pid_t a, b;

	if (argc > 2 && !strcmp(argv[1], "--self")) {
		int fd = open("/dev/null", O_RDWR), on = 0;

		if (fd < 0)
			return 1;
		repeat(fd, FIONBIO, &on, atoi(argv[2]));
		printf("{\"self\": %d}\n", getpid());
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--flight"))
		return flight(atoi(argv[2]));
	if (argc > 2 && !strcmp(argv[1], "--cmds"))
		return cmds(atoi(argv[2]));
	if (argc > 3 && !strcmp(argv[1], "--storm"))
		return storm(atoi(argv[2]), atoi(argv[3]));
	if (argc > 1 && !strcmp(argv[1], "--wait")) {
		char buf[64];

		printf("{\"wait\": %d}\n", getpid());
		fflush(stdout);
		while (read(0, buf, sizeof(buf)) > 0)
			;
		return 0;
	}
	if (scale < 1)
		scale = 1;
	a = child("xpt-drv-a", scale, 0);
	b = child("xpt-drv-b", scale, 1);
	if (a < 0 || b < 0)
		return 1;
	if (waitpid(a, &st, 0) != a || !WIFEXITED(st) || WEXITSTATUS(st))
		ok = 0;
	if (waitpid(b, &st, 0) != b || !WIFEXITED(st) || WEXITSTATUS(st))
		ok = 0;
	printf("{\"a\": %d, \"b\": %d}\n", a, b);
	return ok ? 0 : 1;
}
