/*
 * A client of the real OpenCL and Level Zero loaders (Debian's
 * ocl-icd-libopencl1 and libze1) for the api test: with no device driver
 * behind them the loaders answer with error codes, but their entry points
 * run, so each call is traced and its code counted.
 *
 *   api_client N   N rounds of clFinish(NULL) and clWaitForEvents(0, NULL)
 *                  through libOpenCL.so.1, and zeCommandQueueSynchronize(NULL, 0)
 *                  through libze_loader.so.1 (no zeInit); prints the pid and
 *                  the codes the loaders returned as JSON. Exit 3 when a
 *                  loader is missing.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	void *cl = dlopen("libOpenCL.so.1", RTLD_NOW), *ze = dlopen("libze_loader.so.1", RTLD_NOW);
	int (*finish)(void *), (*wait)(uint32_t, const void *), (*qsync)(void *, uint64_t);
	int n = argc > 1 ? atoi(argv[1]) : 1, rf = 0, rw = 0, rq = 0;

	prctl(PR_SET_NAME, "xpt-api-client");
	if (!cl || !ze) {
		fprintf(stderr, "api_client: %s\n", dlerror());
		return 3;
	}
	*(void **)&finish = dlsym(cl, "clFinish");
	*(void **)&wait = dlsym(cl, "clWaitForEvents");
	*(void **)&qsync = dlsym(ze, "zeCommandQueueSynchronize");
	if (!finish || !wait || !qsync) {
		fprintf(stderr, "api_client: a loader lacks an entry point\n");
		return 3;
	}
	for (int i = 0; i < n; i++) {
		rf = finish(NULL);
		rw = wait(0, NULL);
		rq = qsync(NULL, 0);
	}
	printf("{\"pid\": %d, \"clFinish\": %d, \"clWaitForEvents\": %d, \"zeCommandQueueSynchronize\": %d}\n",
	       (int)getpid(), rf, rw, rq);
	return 0;
}
