/*
 * vgemfence: make a known number of real dma_fences with vgem and signal
 * each after a known delay, from several threads, so a lab scenario can
 * check what a tracer of the dma_fence events counts and times.
 *
 *   vgemfence VGEM_DEVICE [threads=T] [fences=N] [delay_us=D] [leave=L]
 *
 * Each thread creates its own vgem buffer, then N times: VGEM_FENCE_ATTACH
 * (a new fence, dma_fence_init in the kernel, in this thread), sleeps D us,
 * VGEM_FENCE_SIGNAL (dma_fence_signal, in this thread). It times attach
 * return -> signal return on CLOCK_MONOTONIC. Then it attaches L more fences
 * that it leaves unsignaled (vgem signals them itself after 10 s, or when
 * the buffer goes). Prints, when all threads are done:
 *   thread TID fences N signaled N left L mean_ns M
 *   total fences N*T signaled N*T left L*T mean_ns M median_ns MED
 * and exits 1 if any ioctl failed. With hold_ms=MS it waits that long after
 * the threads are done before closing (the left fences stay unsignaled), or
 * until SIGUSR1 comes, whichever is first: a test lets it go once its tracers
 * have stopped, however long that took on a loaded machine.
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <drm.h>
#include <drm_mode.h>

/* vgem's fence ioctls (include/uapi/drm/vgem_drm.h) */
struct vgem_fence_attach { uint32_t handle, flags, out_fence, pad; };
struct vgem_fence_signal { uint32_t fence, flags; };
#define VGEM_IOCTL_FENCE_ATTACH DRM_IOWR(DRM_COMMAND_BASE + 0x1, struct vgem_fence_attach)
#define VGEM_IOCTL_FENCE_SIGNAL DRM_IOW(DRM_COMMAND_BASE + 0x2, struct vgem_fence_signal)

static int fd, fences = 10, leave, failed;
static long delay_us = 2000;

struct thr {
	pthread_t t;
	long tid;
	int signaled, left;
	uint64_t sum_ns;
	uint64_t *each_ns;	/* each signaled fence's time */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int finished, nthreads;

static int xioctl(unsigned long req, void *arg, const char *what)
{
	int r;

	do
		r = ioctl(fd, req, arg);
	while (r < 0 && (errno == EINTR || errno == EAGAIN));
	if (r < 0) {
		fprintf(stderr, "vgemfence: %s: %s\n", what, strerror(errno));
		__atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
	}
	return r;
}

static void *run(void *arg)
{
	struct thr *th = arg;
	struct drm_mode_create_dumb d = { .width = 64, .height = 64, .bpp = 32 };
	struct timespec ts = { .tv_sec = delay_us / 1000000, .tv_nsec = (delay_us % 1000000) * 1000 };
	int i;

	th->tid = syscall(SYS_gettid);
	th->each_ns = calloc(fences ? fences : 1, sizeof(*th->each_ns));
	if (!th->each_ns) {
		__atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	if (xioctl(DRM_IOCTL_MODE_CREATE_DUMB, &d, "CREATE_DUMB"))
		return NULL;
	for (i = 0; i < fences; i++) {
		/* a read (shared) fence: it may sit beside those still unsignaled */
		struct vgem_fence_attach a = { .handle = d.handle };
		struct vgem_fence_signal s;
		uint64_t t0;

		if (xioctl(VGEM_IOCTL_FENCE_ATTACH, &a, "FENCE_ATTACH"))
			return NULL;
		t0 = now_ns();
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		ts.tv_sec = delay_us / 1000000, ts.tv_nsec = (delay_us % 1000000) * 1000;
		s = (struct vgem_fence_signal){ .fence = a.out_fence };
		if (xioctl(VGEM_IOCTL_FENCE_SIGNAL, &s, "FENCE_SIGNAL"))
			return NULL;
		t0 = now_ns() - t0;
		th->sum_ns += t0;
		th->each_ns[th->signaled++] = t0;
	}
	/* the fences left are attached once every thread has signaled its own, so
	 * that none of them is near vgem's own 10 s time-out when the test ends */
	__atomic_add_fetch(&finished, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&finished, __ATOMIC_RELAXED) < nthreads && !__atomic_load_n(&failed, __ATOMIC_RELAXED))
		usleep(1000);
	for (i = 0; i < leave; i++) {
		struct vgem_fence_attach a = { .handle = d.handle };

		if (xioctl(VGEM_IOCTL_FENCE_ATTACH, &a, "FENCE_ATTACH (left)"))
			return NULL;
		th->left++;
	}
	return NULL;
}

static long arg(int argc, char **argv, const char *name, long def)
{
	size_t n = strlen(name);

	for (int i = 2; i < argc; i++)
		if (!strncmp(argv[i], name, n) && argv[i][n] == '=')
			return strtol(argv[i] + n + 1, NULL, 0);
	return def;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static volatile sig_atomic_t released;
static void on_usr1(int sig) { (void)sig; released = 1; }

int main(int argc, char **argv)
{
	struct thr th[64] = { 0 };
	int nthr, signaled = 0, left = 0, i;
	long hold_ms;
	uint64_t sum = 0, *all;

	if (argc < 2) {
		fprintf(stderr, "usage: vgemfence VGEM_DEVICE [threads=T] [fences=N] [delay_us=D] [leave=L] [hold_ms=MS]\n");
		return 2;
	}
	nthr = nthreads = (int)arg(argc, argv, "threads", 1);
	fences = (int)arg(argc, argv, "fences", 10);
	delay_us = arg(argc, argv, "delay_us", 2000);
	leave = (int)arg(argc, argv, "leave", 0);
	hold_ms = arg(argc, argv, "hold_ms", 0);
	signal(SIGUSR1, on_usr1);
	if (nthr < 1 || nthr > 64 || fences < 0 || delay_us < 0 || leave < 0) {
		fprintf(stderr, "vgemfence: threads 1..64, fences, delay_us and leave >= 0\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "vgemfence: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < nthr; i++)
		if (pthread_create(&th[i].t, NULL, run, &th[i])) {
			fprintf(stderr, "vgemfence: pthread_create failed\n");
			return 1;
		}
	for (i = 0; i < nthr; i++) {
		pthread_join(th[i].t, NULL);
		printf("thread %ld fences %d signaled %d left %d mean_ns %llu\n", th[i].tid, fences,
		       th[i].signaled, th[i].left,
		       (unsigned long long)(th[i].signaled ? th[i].sum_ns / th[i].signaled : 0));
		signaled += th[i].signaled;
		left += th[i].left;
		sum += th[i].sum_ns;
	}
	all = calloc(signaled ? signaled : 1, sizeof(*all));
	if (!all)
		return 1;
	for (i = 0, signaled = 0; i < nthr; i++)
		for (int k = 0; k < th[i].signaled; k++)
			all[signaled++] = th[i].each_ns[k];
	qsort(all, signaled, sizeof(*all), by_value);
	printf("total fences %d signaled %d left %d mean_ns %llu median_ns %llu\n", fences * nthr, signaled, left,
	       (unsigned long long)(signaled ? sum / signaled : 0),
	       (unsigned long long)(signaled ? all[(signaled - 1) / 2] : 0));
	fflush(stdout);
	for (; hold_ms > 0 && !released; hold_ms -= 10)
		usleep(10000);
	close(fd);
	return failed;
}
