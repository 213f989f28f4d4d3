/*
 * The latency tests' workload, with known counts and times:
 *   lat_driver sleep NTHREADS COUNT BASE_MS   thread i sleeps COUNT times (i+1)*BASE_MS ms
 *   lat_driver call N US                      N calls of lat_work(US) (liblatwork.so)
 *   lat_driver recurse N DEPTH                N calls of lat_recurse(DEPTH): DEPTH+1 nested each
 * Prints "TID MS P50_NS" per sleeping thread (P50_NS: the median of its own
 * clock's durations around each call, nearest rank), or the calling thread's "TID".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int lat_work(int us);
int lat_recurse(int depth);

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

int main(int argc, char **argv)
{
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
	fprintf(stderr, "usage: lat_driver sleep NTHREADS COUNT BASE_MS | call N US | recurse N DEPTH\n");
	return 2;
}
