/*
 * The benchmark's workload: N ioctls on /dev/null (an unknown command, so the
 * kernel answers ENOTTY at once), timed per round; prints the median
 * nanoseconds per call over the rounds. With "getppid", N getppid() calls
 * instead: what a tracer of ioctls costs the other syscalls. With "call LIB
 * FUNC", N calls of FUNC(NULL, NULL) in the library LIB (dlopen): the api
 * benchmark's traced call.
 *   ioctl_loop CALLS_PER_ROUND ROUNDS [getppid | call LIB FUNC]
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	int fd = open("/dev/null", O_RDWR);
	double *per = calloc(rounds > 0 ? rounds : 1, sizeof(*per));
	int other = argc > 3 && !strcmp(argv[3], "getppid");
	int (*fn)(void *, void *) = NULL;

	if (fd < 0 || n <= 0 || rounds <= 0 || !per)
		return 1;
	if (argc > 5 && !strcmp(argv[3], "call")) {
		void *lib = dlopen(argv[4], RTLD_NOW);

		if (!lib || !(*(void **)&fn = dlsym(lib, argv[5]))) {
			fprintf(stderr, "ioctl_loop: %s\n", dlerror());
			return 1;
		}
	}
	for (int r = 0; r < rounds; r++) {
		double t = now_ns();

		if (fn)
			for (long i = 0; i < n; i++)
				fn(NULL, NULL);
		else if (other)
			for (long i = 0; i < n; i++)
				syscall(SYS_getppid);	/* not the vDSO or a cached value */
		else
			for (long i = 0; i < n; i++)
				ioctl(fd, _IOWR('x', 1, long), NULL);
		per[r] = (now_ns() - t) / n;
	}
	qsort(per, rounds, sizeof(*per), cmp);
	printf("%.1f\n", per[rounds / 2]);
	return 0;
}
