/* A fork storm for the e2e drivers: many short-lived processes, a few at a time. */
#ifndef XP_TESTS_E2E_STORM_H
#define XP_TESTS_E2E_STORM_H

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * n processes, at most p alive at once, each running child() and exiting
 * with its status. How many exited 0, or -1 when a fork or wait failed.
 */
static int storm_run(int n, int p, int (*child)(void *ctx), void *ctx)
{
	int alive = 0, ok = 0, st;

	for (int i = 0; i < n || alive;) {
		if (i < n && alive < p) {
			pid_t pid = fork();

			if (pid == 0)
				_exit(child(ctx));
			if (pid < 0)
				return -1;
			alive++;
			i++;
			continue;
		}
		if (wait(&st) < 0)
			return -1;
		alive--;
		ok += WIFEXITED(st) && !WEXITSTATUS(st);
	}
	return ok;
}

#endif
