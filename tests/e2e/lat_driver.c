/*
 * The latency tests' workload, with known counts and times:
 *   lat_driver sleep NTHREADS COUNT BASE_MS   thread i sleeps COUNT times (i+1)*BASE_MS ms
 *   lat_driver call N US                      N calls of lat_work(US) (liblatwork.so)
 *   lat_driver recurse N DEPTH                N calls of lat_recurse(DEPTH): DEPTH+1 nested each
 *   lat_driver race NTHREADS N                 each thread N times lat_begin(7) then lat_end(7):
 *                                             one key, begun and ended on several CPUs at once
 *   lat_driver handoff N                      lat_begin(i) here, lat_end(i) in a child process
 *                                             named lat_ender, i = 1..N, one at a time
 * Prints "TID MS P50_NS" per sleeping thread (P50_NS: the median of its own
 * clock's durations around each call, nearest rank), or the calling thread's "TID".
 */
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int lat_work(int us);
int lat_recurse(int depth);
int lat_begin(long id);
int lat_end(long id);

struct th {
	pthread_t t;
	int count, ms;
	long tid;
	long long *ns;	/* each call's duration by this thread's own clock */
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static void *sleeper(void *p)
{
	struct th *t = p;

	t->tid = syscall(SYS_gettid);
	for (int i = 0; i < t->count; i++) {
		struct timespec ts = { t->ms / 1000, (long)(t->ms % 1000) * 1000000 };
		long long t0 = now_ns();

		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		t->ns[i] = now_ns() - t0;
	}
	return NULL;
}

static int race_n;

static void *racer(void *p)
{
	(void)p;
	for (int i = 0; i < race_n; i++) {
		lat_begin(7);
		lat_end(7);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "race")) {
		int n = atoi(argv[2]);
		pthread_t *t = calloc((size_t)n, sizeof(*t));

		race_n = atoi(argv[3]);
		for (int i = 0; i < n; i++)
			pthread_create(&t[i], NULL, racer, NULL);
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		printf("%d\n", n * race_n);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "handoff")) {
		int fd[2], n = atoi(argv[2]);
		pid_t child;

		if (pipe(fd))
			return 1;
		if (!(child = fork())) {
			long id;

			prctl(PR_SET_NAME, "lat_ender");
			close(fd[1]);
			while (read(fd[0], &id, sizeof(id)) == sizeof(id))
				lat_end(id);
			_exit(0);
		}
		close(fd[0]);
		for (long id = 1; id <= n; id++) {
			lat_begin(id);
			if (write(fd[1], &id, sizeof(id)) != sizeof(id))
				return 1;
		}
		close(fd[1]);
		waitpid(child, NULL, 0);
		printf("%d\n", n);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "sleep")) {
		int n = atoi(argv[2]), count = atoi(argv[3]), base = atoi(argv[4]);
		struct th *t = calloc((size_t)n, sizeof(*t));

		for (int i = 0; i < n; i++) {
			t[i].count = count;
			t[i].ms = (i + 1) * base;
			if (!(t[i].ns = calloc((size_t)count + 1, sizeof(*t[i].ns))))
				return 1;
			pthread_create(&t[i].t, NULL, sleeper, &t[i]);
		}
		for (int i = 0; i < n; i++)
			pthread_join(t[i].t, NULL);
		for (int i = 0; i < n; i++) {
			qsort(t[i].ns, (size_t)count, sizeof(*t[i].ns), cmp_ll);
			printf("%ld %d %lld\n", t[i].tid, t[i].ms, count ? t[i].ns[(count + 1) / 2 - 1] : 0);
		}
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "call")) {
		for (int i = 0; i < atoi(argv[2]); i++)
			lat_work(atoi(argv[3]));
		printf("%ld\n", (long)syscall(SYS_gettid));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "recurse")) {
		for (int i = 0; i < atoi(argv[2]); i++)
			lat_recurse(atoi(argv[3]));
		printf("%ld\n", (long)syscall(SYS_gettid));
		return 0;
	}
	fprintf(stderr, "usage: lat_driver sleep NTHREADS COUNT BASE_MS | call N US | recurse N DEPTH | "
			"race NTHREADS N | handoff N\n");
	return 2;
}
