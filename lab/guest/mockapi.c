/*
 * mockapi: a stand-in GPU runtime for the lab's mock GPU. Its API function
 * mockSubmit() submits jobs the way a runtime's submit does: one
 * MOCK_IOCTL_SUBMIT ioctl per job on /dev/mockgpu, from the caller's
 * thread, returning before the jobs run. The device is the path in
 * MOCKGPU_DEV when set; on the module's DRM render node (major 226, with
 * render_node=1) the submit is the driver ioctl DRM_IOCTL_MOCK_SUBMIT. xputrace api traces it by name
 * (--lib /lab/bin/mockapi:mockSubmit): this program keeps its symbol table
 * (xputrace-lab: symbols).
 *
 *   mockapi [-n CALLS] [-k JOBS] [-d DUR_US] [-r RING] [-o OUTSIDE] [-v]
 *
 * CALLS times (default 20): mockSubmit(JOBS jobs of DUR_US us on RING),
 * then OUTSIDE jobs more by a write command outside any mockSubmit call,
 * then "sync" (wait for every job). -v prints "call T H" per call: T the
 * CLOCK_MONOTONIC ns just before it (the clock the kernel's events and the
 * module's job log use), H its last job's handle. Prints "calls N jobs M"
 * at the end.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* the module's definition (lab/modules/mockgpu/mockgpu.c) */
struct mock_submit_args {
	uint32_t ring, dur_us, count, pad;
	uint64_t handle;
};
#define MOCK_IOCTL_SUBMIT _IOWR('M', 0x01, struct mock_submit_args)
/* on the render node (lab/modules/mockgpu/mockgpu_drm.c): DRM_IOWR(DRM_COMMAND_BASE + 0, ...) */
#define DRM_IOCTL_MOCK_SUBMIT _IOWR('d', 0x40, struct mock_submit_args)
static unsigned long submit_cmd = MOCK_IOCTL_SUBMIT;

/* The traced API function: JOBS ioctls, one job each; the last job's handle in *last. 0 or -1. */
__attribute__((noinline, used)) int mockSubmit(int fd, unsigned int ring, unsigned int dur_us,
					       unsigned int jobs, uint64_t *last)
{
	for (unsigned int i = 0; i < jobs; i++) {
		struct mock_submit_args a = { .ring = ring, .dur_us = dur_us, .count = 1 };

		if (ioctl(fd, submit_cmd, &a) < 0)
			return -1;
		*last = a.handle;
	}
	__asm__ volatile("" ::: "memory");	/* not folded into the caller */
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int calls = 20, jobs = 1, dur = 1000, ring = 0, outside = 0, c;
	char cmd[64];
	int fd, o, verbose = 0;
	const char *dev = getenv("MOCKGPU_DEV");
	struct stat st;

	while ((o = getopt(argc, argv, "n:k:d:r:o:v")) != -1) {
		unsigned int v = optarg ? (unsigned int)strtoul(optarg, NULL, 10) : 0;

		switch (o) {
		case 'n': calls = v; break;
		case 'k': jobs = v; break;
		case 'd': dur = v; break;
		case 'r': ring = v; break;
		case 'o': outside = v; break;
		case 'v': verbose = 1; break;
		default:
			fprintf(stderr, "usage: mockapi [-n CALLS] [-k JOBS] [-d DUR_US] [-r RING] [-o OUTSIDE] [-v]\n");
			return 2;
		}
	}
	if (!dev || !*dev)
		dev = "/dev/mockgpu";
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(dev);
		return 1;
	}
	if (!fstat(fd, &st) && S_ISCHR(st.st_mode) && major(st.st_rdev) == 226)
		submit_cmd = DRM_IOCTL_MOCK_SUBMIT;
	for (c = 0; c < calls; c++) {
		struct timespec t;
		uint64_t last = 0;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if (mockSubmit(fd, ring, dur, jobs, &last)) {
			perror("mockSubmit");
			return 1;
		}
		if (verbose)
			printf("call %llu %llu\n", (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec,
			       (unsigned long long)last);
		snprintf(cmd, sizeof(cmd), "submit ring=%u dur_us=%u count=%u", ring, dur, outside);
		if (outside && write(fd, cmd, strlen(cmd)) < 0) {
			perror("mockapi: write");
			return 1;
		}
		if (write(fd, "sync", 4) < 0) {
			perror("mockapi: sync");
			return 1;
		}
	}
	close(fd);
	printf("calls %u jobs %u\n", calls, calls * (jobs + outside));
	return 0;
}
