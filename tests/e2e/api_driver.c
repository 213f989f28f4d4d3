/*
 * Calls the api tests' stand-in runtime (tests/e2e/lib/apiwork.c) from
 * several threads, so the tests can assert exact calls and ioctls per call.
 *
 *   api_driver LIB THREADS N [--wait|--exit|--hang|--storm]
 *
 * dlopens LIB (any of its copies), prints {"pid": PID}, with --wait then
 * waits for a line on its standard input, and in each of THREADS threads
 * makes N rounds of: zeCommandQueueExecuteCommandLists(q, 3),
 * zeFenceHostSynchronize, zeMemFree(ctx, NULL), clFinish,
 * clEnqueueNDRangeKernel (each where LIB has it). Then with --exit it
 * ends inside xptExitInside(0); with --hang it prints {"hang": PID} and
 * stays in xptHang(0) until its standard input ends. With --storm, N
 * short-lived processes instead, THREADS at a time, each one zeMemFree.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "storm.h"

static int (*exec_lists)(void *, uint32_t, void **, void *);
static int (*fence_sync)(void *, uint64_t);
static int (*mem_free)(void *, void *);
static int (*cl_finish)(void *);
static int (*cl_ndrange)(void *, void *, uint32_t, const size_t *, const size_t *, const size_t *, uint32_t,
			 const void *, void *);
static int rounds;

static void *work(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++) {
		if (exec_lists)
			exec_lists(NULL, 3, NULL, NULL);
		if (fence_sync)
			fence_sync(NULL, 0);
		if (mem_free)
			mem_free(NULL, NULL);
		if (cl_finish)
			cl_finish(NULL);
		if (cl_ndrange)
			cl_ndrange(NULL, NULL, 1, NULL, NULL, NULL, 0, NULL, NULL);
	}
	return NULL;
}

/* One process of the storm: one zeMemFree, which returns this code. */
static int storm_child(void *ctx)
{
	(void)ctx;
	return mem_free && mem_free(NULL, NULL) == 0x78000004 ? 0 : 1;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	void *lib;
	int n;

	if (argc < 4 || (n = atoi(argv[2])) < 1 || n > 64 || (rounds = atoi(argv[3])) < 0) {
		fprintf(stderr, "usage: api_driver LIB THREADS(1-64) N [--wait]\n");
		return 2;
	}
	prctl(PR_SET_NAME, "xpt-api");
	if (!(lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL))) {
		fprintf(stderr, "api_driver: %s\n", dlerror());
		return 1;
	}
	*(void **)&exec_lists = dlsym(lib, "zeCommandQueueExecuteCommandLists");
	*(void **)&fence_sync = dlsym(lib, "zeFenceHostSynchronize");
	*(void **)&mem_free = dlsym(lib, "zeMemFree");
	*(void **)&cl_finish = dlsym(lib, "clFinish");
	*(void **)&cl_ndrange = dlsym(lib, "clEnqueueNDRangeKernel");
	printf("{\"pid\": %d}\n", (int)getpid());
	fflush(stdout);
	if (argc > 4 && !strcmp(argv[4], "--wait")) {
		char line[16];

		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	if (argc > 4 && !strcmp(argv[4], "--storm"))
		return storm_run(rounds, n, storm_child, NULL) == rounds ? 0 : 1;
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, work, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	if (argc > 4 && !strcmp(argv[4], "--exit")) {
		int (*ex)(int) = (int (*)(int))dlsym(lib, "xptExitInside");

		return ex ? ex(0) : 1;
	}
	if (argc > 4 && !strcmp(argv[4], "--hang")) {
		int (*hang)(int) = (int (*)(int))dlsym(lib, "xptHang");

		printf("{\"hang\": %d}\n", (int)getpid());
		fflush(stdout);
		return hang ? hang(0) : 1;
	}
	return 0;
}
