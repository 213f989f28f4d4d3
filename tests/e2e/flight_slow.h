/*
 * ioctl_driver --flight: ioctls at known times, one failing and one slow,
 * for the flight recorder's test. The slow one's argument lies on a page
 * registered with userfaultfd, which a thread fills 30 ms after the fault:
 * the kernel's copy of the argument waits, so the call takes that long.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <linux/userfaultfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define SLOW_NS 30000000L

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *fill_late(void *arg)
{
	int uffd = *(int *)arg;
	struct uffd_msg msg;
	struct pollfd p = { uffd, POLLIN, 0 };
	static char zero[65536] __attribute__((aligned(65536)));
	long page = sysconf(_SC_PAGESIZE);
	struct timespec d = { 0, SLOW_NS };

	if (poll(&p, 1, 10000) != 1 || read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		return NULL;
	nanosleep(&d, NULL);
	struct uffdio_copy c = {
		.dst = msg.arg.pagefault.address & ~(uint64_t)(page - 1),
		.src = (uint64_t)(uintptr_t)zero, .len = (uint64_t)page,
	};
	ioctl(uffd, UFFDIO_COPY, &c);
	return NULL;
}

/* A page whose first touch waits for the thread: NULL where userfaultfd is refused. */
static void *slow_page(int *uffd, pthread_t *th)
{
	long page = sysconf(_SC_PAGESIZE);
	struct uffdio_api api = { .api = UFFD_API };
	void *p;

	if ((*uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC)) < 0 || ioctl(*uffd, UFFDIO_API, &api))
		return NULL;
	p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	struct uffdio_register reg = {
		.range = { (uint64_t)(uintptr_t)p, (uint64_t)page }, .mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	if (ioctl(*uffd, UFFDIO_REGISTER, &reg) || pthread_create(th, NULL, fill_late, uffd))
		return NULL;
	return p;
}

static int flight(int ms)
{
	int fd = open("/dev/null", O_RDWR), on = 0, uffd = -1, calls = 0;
	uint64_t t0, end, err_ns = 0, slow_ns = 0, now;
	pthread_t th;
	int *slow;

	if (fd < 0 || ms < 100)
		return 1;
	prctl(PR_SET_NAME, "xpt-flight");
	slow = slow_page(&uffd, &th);
	t0 = mono_ns();
	end = t0 + (uint64_t)ms * 1000000;
	while ((now = mono_ns()) < end) {
		struct timespec d = { 0, 2000000 };

		if (!err_ns && now >= t0 + (end - t0) * 4 / 10) {
			err_ns = mono_ns();
			ioctl(fd, FIONBIO, NULL);
		} else if (slow && !slow_ns && now >= t0 + (end - t0) * 7 / 10) {
			slow_ns = mono_ns();
			ioctl(fd, FIONBIO, slow);
			pthread_join(th, NULL);
		} else {
			ioctl(fd, FIONBIO, &on);
		}
		calls++;
		nanosleep(&d, NULL);
	}
	printf("{\"flight\": %d, \"error_ns\": %llu, \"slow_ns\": %llu, \"calls\": %d}\n", getpid(),
	       (unsigned long long)err_ns, (unsigned long long)slow_ns, calls);
	return 0;
}
