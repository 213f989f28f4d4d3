/*
 * A client of Debian's HIP and HSA runtimes (libamdhip64-5,
 * libhsa-runtime64-1) for the api test: with no AMD GPU they answer with
 * error codes, but their entry points run, so each call is traced and its
 * code counted.
 *
 *   api_rocm hsa N   hsa_init, then N rounds of hsa_queue_create,
 *                    hsa_amd_memory_pool_allocate and hsa_executable_freeze
 *                    (on null handles: the runtime is not initialised)
 *   api_rocm hip N   N rounds of hipMalloc, hipMemcpy, hipLaunchKernel,
 *                    hipStreamSynchronize, hipEventSynchronize,
 *                    hipDeviceSynchronize and hipFree
 *
 * Prints the pid and each function's last code as JSON. Exit 3 when a
 * runtime or an entry point is missing.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define NFN 8

struct fn {
	const char *name;
	void *p;
	int ret;
};

static int bind(void *lib, struct fn *f, int n)
{
	for (int i = 0; i < n; i++)
		if (!(f[i].p = dlsym(lib, f[i].name))) {
			fprintf(stderr, "api_rocm: no %s\n", f[i].name);
			return -1;
		}
	return 0;
}

static void hsa_rounds(struct fn *f, int n)
{
	void *out = NULL;

	f[0].ret = ((int (*)(void))f[0].p)();	/* hsa_init: no /dev/kfd, an error */
	for (int i = 0; i < n; i++) {
		f[1].ret = ((int (*)(uint64_t, uint32_t, int, void *, void *, uint32_t, uint32_t, void **))f[1].p)(
			0, 64, 0, NULL, NULL, 0, 0, &out);
		f[2].ret = ((int (*)(uint64_t, size_t, uint32_t, void **))f[2].p)(0, 64, 0, &out);
		f[3].ret = ((int (*)(uint64_t, const char *))f[3].p)(0, NULL);
	}
}

static void hip_rounds(struct fn *f, int n)
{
	char a[8] = "", b[8] = "";
	void *p = NULL;

	for (int i = 0; i < n; i++) {
		f[0].ret = ((int (*)(void **, size_t))f[0].p)(&p, 64);
		f[1].ret = ((int (*)(void *, const void *, size_t, int))f[1].p)(a, b, sizeof(a), 0);
		f[2].ret = ((int (*)(const void *, uint64_t, uint64_t, void **, size_t, void *))f[2].p)(
			NULL, 0x100000001ULL, 0x100000001ULL, NULL, 0, NULL);
		f[3].ret = ((int (*)(void *))f[3].p)(NULL);
		f[4].ret = ((int (*)(void *))f[4].p)(NULL);
		f[5].ret = ((int (*)(void))f[5].p)();
		f[6].ret = ((int (*)(void *))f[6].p)(NULL);
	}
}

int main(int argc, char **argv)
{
	struct fn hsa[NFN] = { { .name = "hsa_init" }, { .name = "hsa_queue_create" }, { .name = "hsa_amd_memory_pool_allocate" },
			       { .name = "hsa_executable_freeze" } };
	struct fn hip[NFN] = { { .name = "hipMalloc" }, { .name = "hipMemcpy" }, { .name = "hipLaunchKernel" }, { .name = "hipStreamSynchronize" },
			       { .name = "hipEventSynchronize" }, { .name = "hipDeviceSynchronize" }, { .name = "hipFree" } };
	int is_hip = argc > 1 && !strcmp(argv[1], "hip"), n = argc > 2 ? atoi(argv[2]) : 1, nf = is_hip ? 7 : 4;
	struct fn *f = is_hip ? hip : hsa;
	void *lib = dlopen(is_hip ? "libamdhip64.so.5" : "libhsa-runtime64.so.1", RTLD_NOW);

	prctl(PR_SET_NAME, "xpt-api-rocm");
	if (!lib) {
		fprintf(stderr, "api_rocm: %s\n", dlerror());
		return 3;
	}
	if (bind(lib, f, nf))
		return 3;
	if (is_hip)
		hip_rounds(f, n);
	else
		hsa_rounds(f, n);
	printf("{\"pid\": %d", (int)getpid());
	for (int i = 0; i < nf; i++)
		printf(", \"%s\": %d", f[i].name, f[i].ret);
	printf("}\n");
	return 0;
}
