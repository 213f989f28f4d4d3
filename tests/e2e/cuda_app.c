/*
 * The cuda tests' application: does what CUDA's driver does with
 * CUDA_INJECTION64_PATH (opens the library, calls InitializeInjection),
 * then "runs" a workload on the stand-in libcupti (XPUTRACE_CUPTI, built
 * from tests/e2e/lib/cuptistub.c) whose every time, id, name and byte
 * count is known, and prints what a tracer must find:
 *
 *   device 0: N rounds of S kernels "xp_gemm", one per stream 1..S, round i
 *     kernel s over [base + i*P + s*O, + W): S kernels overlap in each
 *     round, the rounds do not; busy N*((S-1)*O + W), kernel time N*S*W
 *   device 1: D kernels "xp_delay" on stream 1, each starting 20 ms after
 *     its launch call, W2 long, none overlapping: busy D*W2; launched by
 *     the runtime (cudaLaunchKernel, which enters cuLaunchKernel inside)
 *   device 0 stream 7: C copies host to device of 1 MiB (200 us), C device
 *     to host of 4 KiB (10 us), C memsets of 512 bytes (5 us)
 *   dropped records: X
 *
 * Usage: cuda_app [-n N] [-s S] [-d D] [-c C] [-x X] [-w FILE] [-t THREADS] [-z MS]
 *   -w FILE  wait for FILE to exist before the workload (a tracer started),
 *            then for the library to have turned collection on (at most 5 s)
 *   -t T     the xp_gemm rounds from T threads (N split among them)
 *   -z MS    stay MS milliseconds after the workload before exiting
 * Records reach the library at exit (CUPTI's flush), or while it runs when
 * the library flushes them. After the workload and again before exiting it
 * prints whether the library is collecting ("collecting 1" or 0).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000ull
#define US 1000ull
#define P (1 * MS)
#define O (100 * US)
#define W (300 * US)
#define W2 (50 * US)

typedef uint32_t (*kernel_fn)(uint32_t, uint32_t, uint32_t, const char *, const uint32_t *, const uint32_t *,
			      uint64_t, uint64_t);
typedef uint32_t (*copy_fn)(uint32_t, uint32_t, uint32_t, uint32_t, uint64_t, uint64_t, uint64_t);

static kernel_fn kernel, kernel_rt;
static copy_fn copy;
static uint64_t (*now)(void);
static int N = 100, S = 3, D = 20, C = 10, X = 7, T = 1, Z;
static uint64_t base;

static void *stub_sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	if (!p) {
		fprintf(stderr, "cuda_app: %s: %s\n", name, dlerror());
		exit(1);
	}
	return p;
}

static void *gemm_rounds(void *arg)
{
	int t = (int)(intptr_t)arg;
	static const uint32_t grid[3] = { 128, 1, 1 }, block[3] = { 256, 1, 1 };

	for (int i = t; i < N; i += T)
		for (int s = 0; s < S; s++) {
			uint64_t st = base + (uint64_t)i * P + (uint64_t)s * O;

			kernel(0, 1, (uint32_t)s + 1, "xp_gemm", grid, block, st, st + W);
		}
	return NULL;
}

static int options(int argc, char **argv, const char **wait_file)
{
	int c;

	while ((c = getopt(argc, argv, "n:s:d:c:x:w:t:z:")) != -1) {
		switch (c) {
		case 'n': N = atoi(optarg); break;
		case 's': S = atoi(optarg); break;
		case 'd': D = atoi(optarg); break;
		case 'c': C = atoi(optarg); break;
		case 'x': X = atoi(optarg); break;
		case 'w': *wait_file = optarg; break;
		case 't': T = atoi(optarg); break;
		case 'z': Z = atoi(optarg); break;
		default: return -1;
		}
	}
	return S < 1 || S > 4 || T < 1 || T > 16 ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *inj = getenv("CUDA_INJECTION64_PATH"), *stub = getenv("XPUTRACE_CUPTI"), *wait_file = NULL;
	static const uint32_t g1[3] = { 1, 1, 1 }, b32[3] = { 32, 1, 1 };
	pthread_t th[16];
	void *hs, *hi;
	int (*init)(void), (*collecting)(void);

	if (options(argc, argv, &wait_file)) {
		fprintf(stderr, "usage: cuda_app [-n N] [-s S<=4] [-d D] [-c C] [-x X] [-w FILE] [-t T<=16] [-z MS]\n");
		return 2;
	}
	if (!inj || !stub) {
		fprintf(stderr, "cuda_app: set CUDA_INJECTION64_PATH and XPUTRACE_CUPTI\n");
		return 2;
	}
	if (!(hs = dlopen(stub, RTLD_NOW | RTLD_GLOBAL)) || !(hi = dlopen(inj, RTLD_NOW))) {
		fprintf(stderr, "cuda_app: %s\n", dlerror());
		return 1;
	}
	kernel = (kernel_fn)stub_sym(hs, "xpstub_kernel");
	kernel_rt = (kernel_fn)stub_sym(hs, "xpstub_kernel_rt");
	copy = (copy_fn)stub_sym(hs, "xpstub_copy");
	now = (uint64_t (*)(void))stub_sym(hs, "xpstub_now");
	collecting = (int (*)(void))stub_sym(hs, "xpstub_collecting");
	init = (int (*)(void))stub_sym(hi, "InitializeInjection");
	if (init() != 1) {
		fprintf(stderr, "cuda_app: InitializeInjection failed\n");
		return 1;
	}
	while (wait_file && access(wait_file, F_OK))
		usleep(10000);
	for (int i = 0; wait_file && !collecting() && i < 500; i++)
		usleep(10000);

	base = now() + 10 * MS;
	for (int t = 0; t < T; t++)
		pthread_create(&th[t], NULL, gemm_rounds, (void *)(intptr_t)t);
	for (int t = 0; t < T; t++)
		pthread_join(th[t], NULL);
	for (int i = 0; i < D; i++) {
		uint64_t st = now() + 20 * MS;

		kernel_rt(1, 2, 1, "xp_delay", g1, b32, st, st + W2);
		usleep(200);	/* the next starts after this one ends */
	}
	uint64_t t = base + (uint64_t)N * P + MS;
	for (int i = 0; i < C; i++, t += MS) {
		copy(0, 1, 7, 1, 1 << 20, t, t + 200 * US);
		copy(0, 1, 7, 2, 4096, t + 300 * US, t + 310 * US);
		copy(0, 1, 7, 0xff, 512, t + 400 * US, t + 405 * US);
	}
	((void (*)(size_t))stub_sym(hs, "xpstub_drop"))((size_t)X);

	printf("pid %d\n", (int)getpid());
	printf("gemm kernels %d time_ns %llu busy_ns %llu\n", N * S, (unsigned long long)N * S * W,
	       (unsigned long long)N * ((S - 1) * O + W));
	printf("delay kernels %d time_ns %llu busy_ns %llu\n", D, (unsigned long long)D * W2,
	       (unsigned long long)D * W2);
	printf("copies htod %d bytes %llu dtoh %d bytes %llu memset %d bytes %llu\n", C,
	       (unsigned long long)C << 20, C, (unsigned long long)C * 4096, C, (unsigned long long)C * 512);
	printf("drops %d\n", X);
	printf("collecting %d\n", collecting());
	fflush(stdout);
	if (Z > 0) {
		usleep((useconds_t)Z * 1000);
		printf("collecting %d\n", collecting());
	}
	return 0;
}
