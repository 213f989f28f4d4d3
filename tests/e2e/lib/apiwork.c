/*
 * A stand-in runtime for the api tests' uprobes: functions with Level Zero
 * and OpenCL names that issue a known number of ioctls on /dev/null and
 * return known codes. Copied under a runtime's soname (libze_loader.so.1,
 * libOpenCL.so.1) by the test.
 *
 *   zeCommandQueueExecuteCommandLists(q, n, ...)  n FIONBIO, returns 0
 *   zeFenceHostSynchronize                        1 _IOWR('x',1,8) (ENOTTY), returns 0
 *   zeMemFree(ctx, NULL)                          no ioctl, returns 0x78000004
 *   clFinish                                      2 FIOCLEX, returns -36
 *   clEnqueueNDRangeKernel                        1 FIONBIO, then
 *                                                 zeCommandQueueExecuteCommandLists(q, 3): 4 in all
 *   xptExitInside(code)                           ends the process inside it: _exit(code)
 *   xptHang(fd)                                   returns once fd reads end of file (a call
 *                                                 in flight for as long as the test wants)
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int dev_fd(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	return fd;
}

__attribute__((noinline)) int zeCommandQueueExecuteCommandLists(void *q, uint32_t n, void **lists, void *fence)
{
	int on = 0;

	(void)q, (void)lists, (void)fence;
	for (uint32_t i = 0; i < n; i++)
		ioctl(dev_fd(), FIONBIO, &on);
	return 0;
}

__attribute__((noinline)) int zeFenceHostSynchronize(void *fence, uint64_t timeout)
{
	(void)fence, (void)timeout;
	ioctl(dev_fd(), _IOWR('x', 1, unsigned long), NULL);
	return 0;
}

__attribute__((noinline)) int zeMemFree(void *ctx, void *p)
{
	(void)ctx;
	__asm__ volatile("" ::: "memory");
	return p ? 0 : 0x78000004;	/* ZE_RESULT_ERROR_INVALID_ARGUMENT */
}

__attribute__((noinline)) int clFinish(void *queue)
{
	(void)queue;
	ioctl(dev_fd(), FIOCLEX, NULL);
	ioctl(dev_fd(), FIOCLEX, NULL);
	return -36;	/* CL_INVALID_COMMAND_QUEUE */
}

__attribute__((noinline)) int clEnqueueNDRangeKernel(void *queue, void *kernel, uint32_t dim, const size_t *off,
						     const size_t *global, const size_t *local, uint32_t nev,
						     const void *wait, void *ev)
{
	int on = 0, r;

	(void)kernel, (void)dim, (void)off, (void)global, (void)local, (void)nev, (void)wait, (void)ev;
	ioctl(dev_fd(), FIONBIO, &on);
	r = zeCommandQueueExecuteCommandLists(queue, 3, NULL, NULL);
	__asm__ volatile("" ::: "memory");	/* not a tail call */
	return r;
}

__attribute__((noinline)) int xptExitInside(int code)
{
	_exit(code);
}

__attribute__((noinline)) int xptHang(int fd)
{
	char buf[64];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	__asm__ volatile("" ::: "memory");
	return 0;
}
