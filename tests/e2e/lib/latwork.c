/* A small library for the latency tests' uprobes: functions that take a known time. */
#include <time.h>

__attribute__((noinline)) int lat_work(int us)
{
	struct timespec ts = { 0, (long)us * 1000 };

	return nanosleep(&ts, NULL);
}

/* depth + 1 nested calls of itself, each sleeping 100 us */
__attribute__((noinline)) int lat_recurse(int depth)
{
	int r = lat_work(100);

	if (depth > 0)
		r += lat_recurse(depth - 1);
	__asm__ volatile("" ::: "memory");	/* not a tail call */
	return r;
}

/* Marks for pairs begun in one thread or process and ended in another: key = id. */
__attribute__((noinline)) int lat_begin(long id)
{
	__asm__ volatile("" ::: "memory");
	return (int)id;
}

__attribute__((noinline)) int lat_end(long id)
{
	__asm__ volatile("" ::: "memory");
	return (int)id;
}
