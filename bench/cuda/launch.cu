// A known CUDA workload for libxputrace-cuda.so on a GPU host (not built by
// make: nvcc -O2 -cudart static -o launch launch.cu). It launches N kernels
// "spin" of a known length on S streams from the runtime API, M empty
// kernels "empty" back to back (the cost per launch), copies 1 MiB to the
// device C times, and prints what it did and the launch loop's time:
//   launch N S M C
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

__global__ void spin(long long cycles)
{
	long long t0 = clock64();
	while (clock64() - t0 < cycles)
		;
}

__global__ void empty(void) {}

static double now_s(void)
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, s = argc > 2 ? atoi(argv[2]) : 2;
	int m = argc > 3 ? atoi(argv[3]) : 20000, c = argc > 4 ? atoi(argv[4]) : 10;
	cudaStream_t st[8];
	void *d, *h;

	if (s < 1 || s > 8)
		return 2;
	for (int i = 0; i < s; i++)
		cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking);
	cudaMalloc(&d, 1 << 20);
	cudaMallocHost(&h, 1 << 20);
	empty<<<1, 1>>>();
	cudaDeviceSynchronize();
	for (int i = 0; i < n; i++)
		spin<<<1, 32, 0, st[i % s]>>>(20000);
	cudaDeviceSynchronize();
	double t0 = now_s();
	for (int i = 0; i < m; i++)
		empty<<<1, 1>>>();
	double t1 = now_s();
	cudaDeviceSynchronize();
	for (int i = 0; i < c; i++)
		cudaMemcpy(d, h, 1 << 20, cudaMemcpyHostToDevice);
	cudaDeviceSynchronize();
	printf("spin %d on %d streams, empty %d (+1 warm-up), htod %d x 1048576; launch loop %.3f us per launch; %s\n",
	       n, s, m, c, (t1 - t0) / m * 1e6, cudaGetErrorString(cudaGetLastError()));
	return 0;
}
