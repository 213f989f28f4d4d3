/*
 * mocksubmit: submit jobs to the lab's mock GPU (/dev/mockgpu) from this
 * process, so the real drm_sched sees a real submitter (pid, comm).
 *
 *   mocksubmit [-s] [-q] [-t] [-o] [-n ITER] [-i MS] 'ring=0 dur_us=500 count=3' 'ring=1 dur_us=100 dep=@2' ...
 *
 * Each argument is one command written to the device on one open file
 * (so all jobs share one DRM client; with -o each argument gets a file of
 * its own, one DRM client each, written in turn from this one thread, so
 * the clients' jobs queue in the arguments' order). @K in an argument stands for the
 * handle of the K-th job submitted in this pass over the arguments
 * (1-based). -s writes "sync" at the end of each pass (wait for every job).
 * -n repeats the pass ITER times (0: forever), -i sleeps MS between passes.
 * Prints "job K HANDLE" per job (K counts over all passes) unless -q.
 * -t times every write that waits (sync, wait=H) on CLOCK_MONOTONIC and
 * prints "waits N wait_ns TOTAL" at the end: the client's own clock for
 * what a tracer of dma_fence_wait_start/end measures.
 * The device is /dev/mockgpu, or the path in the environment variable
 * MOCKGPU_DEV when set (e.g. MOCKGPU_DEV=/dev/xdnamock for the amdxdna
 * test double, the same module built with MOCK_XDNA, or the mock GPU's
 * DRM render node, /dev/dri/renderD<N>, with mockgpu's render_node=1: the
 * same commands by write()).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* write(2), timed when it waits and -t asked for it */
static unsigned long long waits, wait_ns;
static int timed, waiting;
static ssize_t xwrite(int fd, const char *buf, size_t len)
{
	unsigned long long t0 = now_ns();
	ssize_t r = write(fd, buf, len);

	if (timed && waiting && r >= 0) {
		waits++;
		wait_ns += now_ns() - t0;
	}
	return r;
}

int main(int argc, char **argv)
{
	unsigned long long handles[4096];
	int nh = 0, sync = 0, quiet = 0, each = 0, fds[64], nfd, fd, a, total = 0;
	long iters = 1, pass, interval_ms = 0;
	const char *dev = getenv("MOCKGPU_DEV");

	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-s")) sync = 1;
		else if (!strcmp(argv[1], "-q")) quiet = 1;
		else if (!strcmp(argv[1], "-t")) timed = 1;
		else if (!strcmp(argv[1], "-o")) each = 1;
		else if (!strcmp(argv[1], "-n") && argc > 2) { iters = atol(argv[2]); argv++; argc--; }
		else if (!strcmp(argv[1], "-i") && argc > 2) { interval_ms = atol(argv[2]); argv++; argc--; }
		else return 2;
		argv++; argc--;
	}
	if (!dev || !*dev)
		dev = "/dev/mockgpu";
	nfd = each ? argc - 1 : 1;
	if (nfd < 1 || nfd > 64)
		return 2;
	for (a = 0; a < nfd; a++) {
		fds[a] = open(dev, O_RDWR | O_CLOEXEC);
		if (fds[a] < 0) {
			perror(dev);
			return 1;
		}
	}
	for (pass = 0; iters == 0 || pass < iters; pass++) {
	nh = 0;
	for (a = 1; a < argc; a++) {
		char cmd[4096], rd[8192], *o = cmd, *s;
		for (s = argv[a]; *s && o < cmd + sizeof(cmd) - 24; s++) {
			if (*s == '@') {
				int k = (int)strtol(s + 1, &s, 10);
				s--;
				if (k < 1 || k > nh) {
					fprintf(stderr, "mocksubmit: no job @%d yet\n", k);
					return 2;
				}
				o += sprintf(o, "%llu", handles[k - 1]);
			} else {
				*o++ = *s;
			}
		}
		*o = 0;
		fd = fds[each ? a - 1 : 0];
		waiting = strstr(cmd, "wait=") != NULL || !strcmp(cmd, "sync");
		if (xwrite(fd, cmd, strlen(cmd)) < 0) {
			fprintf(stderr, "mocksubmit: '%s': ", cmd);
			perror("write");
			return 1;
		}
		ssize_t n = read(fd, rd, sizeof(rd) - 1);
		if (n <= 0)
			continue;
		rd[n] = 0;
		for (char *tok = strtok(rd, " \n"); tok; tok = strtok(NULL, " \n")) {
			if (nh < 4096)
				handles[nh++] = strtoull(tok, NULL, 10);
			total++;
			if (!quiet)
				printf("job %d %s\n", total, tok);
		}
	}
	waiting = 1;
	for (a = 0; sync && a < nfd; a++)
		if (xwrite(fds[a], "sync", 4) < 0) {
			perror("mocksubmit: sync");
			return 1;
		}
	if (interval_ms)
		usleep(interval_ms * 1000);
	}
	for (a = 0; a < nfd; a++)
		close(fds[a]);
	if (timed)
		printf("waits %llu wait_ns %llu\n", waits, wait_ns);
	return 0;
}
