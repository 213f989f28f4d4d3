/*
 * The cost of one fdinfo sample with many processes: N sleeping children
 * (each with a few more descriptors than its stdio, none of them DRM),
 * then SAMPLES samples of /proc (xp_fdi_sample, as `xputrace fdinfo`
 * and `serve` take them every second), each timed; prints the fastest,
 * median and slowest sample (wall clock) and the CPU time a sample took on
 * average (user + system: what a loaded machine's wait does not inflate).
 *
 *   build/bench/fdinfo_sample [N [SAMPLES]]     (default 10000 and 20)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "caps/fdinfo/fdinfo_scan.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t procs_in_proc(void)
{
	FILE *f = popen("ls /proc | grep -c '^[0-9]'", "r");
	unsigned long long n = 0;

	if (f) {
		if (fscanf(f, "%llu", &n) != 1)
			n = 0;
		pclose(f);
	}
	return n;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10000, samples = argc > 2 ? atoi(argv[2]) : 20, made = 0;
	pid_t *kids = calloc((size_t)(n > 0 ? n : 1), sizeof(*kids));
	uint64_t *t = calloc((size_t)(samples > 0 ? samples : 1), sizeof(*t));
	struct xp_fdi_scan sc = { .root = "/proc" };
	struct xp_fdi_stats s;
	uint64_t cpu0;

	if (!kids || !t || n < 0 || samples < 1) {
		fprintf(stderr, "usage: fdinfo_sample [N [SAMPLES]]\n");
		return 2;
	}
	for (; made < n; made++) {
		pid_t p = fork();

		if (p < 0) {
			perror("fork");
			break;
		}
		if (!p) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (int i = 0; i < 8; i++)
				if (dup(i % 3) < 0)
					break;
			pause();
			_exit(0);
		}
		kids[made] = p;
	}
	sleep(1);	/* every child is in pause() with its descriptors */
	xp_fdi_init(&s);
	cpu0 = cpu_ns();
	for (int i = 0; i < samples; i++) {
		uint64_t t0 = now_ns();

		if (xp_fdi_sample(&s, &sc, t0)) {
			perror("sample");
			break;
		}
		t[i] = now_ns() - t0;
	}
	cpu0 = cpu_ns() - cpu0;
	printf("processes in /proc: %llu (%d sleeping children, 11 descriptors each)\n",
	       (unsigned long long)procs_in_proc(), made);
	qsort(t, (size_t)samples, sizeof(*t), cmp);
	printf("one sample: fastest %.1f ms, median %.1f ms, slowest %.1f ms (%d samples); "
	       "DRM clients %d, unreadable processes %llu\n", t[0] / 1e6, t[samples / 2] / 1e6,
	       t[samples - 1] / 1e6, samples, s.n, (unsigned long long)s.unreadable);
	printf("CPU time per sample: %.1f ms (user + system)\n", cpu0 / 1e6 / samples);
	for (int i = 0; i < made; i++)
		kill(kids[i], SIGKILL);
	for (int i = 0; i < made; i++)
		waitpid(kids[i], NULL, 0);
	xp_fdi_free(&s);
	free(kids);
	free(t);
	return 0;
}
