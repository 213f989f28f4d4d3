/*
 * nvclient: a stand-in for an NVIDIA user-space client, for the lab's
 * nvidia test double. Opens /dev/nvidiactl and /dev/nvidia0, issues ioctls
 * with NVIDIA's escape numbers, maps and touches pages, closes.
 *
 *   nvclient [alloc=N] [control=N] [pages=N] [hold=SECONDS]
 *
 * Per alloc: NV_ESC_RM_ALLOC then NV_ESC_RM_FREE on /dev/nvidiactl; per
 * control: NV_ESC_RM_CONTROL; then NV_ESC_CARD_INFO once; pages: mmap N
 * pages of /dev/nvidia0 and touch each (one fault per page); hold: keep both
 * files open that long before closing them.
 * Prints "issued ESCAPE CALLS" lines and "opens N", "faults N", then one
 * "control_ns NS" line per NV_ESC_RM_CONTROL: its time as the caller sees it
 * (CLOCK_MONOTONIC around the ioctl), the upper end for a tracer's.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NV_IOCTL_MAGIC 'F'
struct nv_args { unsigned char b[32]; };

int main(int argc, char **argv)
{
	long alloc = 2, control = 3, npages = 4, hold = 0, i;
	int ctl, dev, rc = 0;
	struct nv_args a;
	long long *took;

	for (i = 1; i < argc; i++) {
		char *v = strchr(argv[i], '=');
		if (!v) return 2;
		*v++ = 0;
		if (!strcmp(argv[i], "alloc")) alloc = atol(v);
		else if (!strcmp(argv[i], "control")) control = atol(v);
		else if (!strcmp(argv[i], "pages")) npages = atol(v);
		else if (!strcmp(argv[i], "hold")) hold = atol(v);
		else return 2;
	}
	ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
	dev = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
	if (ctl < 0 || dev < 0) {
		perror("open /dev/nvidia*");
		return 1;
	}
	memset(&a, 0, sizeof(a));
	for (i = 0; i < alloc; i++) {
		rc |= ioctl(ctl, _IOWR(NV_IOCTL_MAGIC, 0x2B, struct nv_args), &a) < 0;
		rc |= ioctl(ctl, _IOWR(NV_IOCTL_MAGIC, 0x29, struct nv_args), &a) < 0;
	}
	took = calloc(control > 0 ? (size_t)control : 1, sizeof(*took));
	if (!took)
		return 1;
	for (i = 0; i < control; i++) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc |= ioctl(ctl, _IOWR(NV_IOCTL_MAGIC, 0x2A, struct nv_args), &a) < 0;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		took[i] = (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
	}
	rc |= ioctl(dev, _IOWR(NV_IOCTL_MAGIC, 200, struct nv_args), &a) < 0;
	if (npages) {
		long ps = sysconf(_SC_PAGESIZE);
		volatile char *m = mmap(NULL, npages * ps, PROT_READ | PROT_WRITE, MAP_SHARED, dev, 0);
		if (m == MAP_FAILED) {
			perror("mmap /dev/nvidia0");
			rc = 1;
		} else {
			for (i = 0; i < npages; i++)
				m[i * ps] = 1;
			munmap((void *)m, npages * ps);
		}
	}
	fflush(stdout);
	if (hold)
		sleep((unsigned int)hold);
	close(dev);
	close(ctl);
	printf("issued NV_ESC_RM_ALLOC %ld\nissued NV_ESC_RM_FREE %ld\nissued NV_ESC_RM_CONTROL %ld\n"
	       "issued NV_ESC_CARD_INFO 1\nopens 2\nfaults %ld\nirqs %ld\n",
	       alloc, alloc, control, npages, alloc + control);
	for (i = 0; i < control; i++)
		printf("control_ns %lld\n", took[i]);
	free(took);
	return rc ? 1 : 0;
}
