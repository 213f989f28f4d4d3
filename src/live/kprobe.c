#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "live/kprobe.h"
#include "live/skel.h"
#include "live/tracefs.h"

#define GROUP "xputrace"
#define MAX_EVENTS 32

static char events[MAX_EVENTS][64];
static int nevents;
static uint64_t missed_removed;	/* what removed events had missed */
static int serial;		/* numbers the event names: never reused */

static int write_probe(const char *root, const char *line)
{
	char path[PATH_MAX];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/kprobe_events", root);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, line, strlen(line)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static int remove_event(const char *root, const char *name)
{
	char line[300];

	snprintf(line, sizeof(line), "-:" GROUP "/%.255s\n", name);
	return write_probe(root, line);
}

/* Events of tracers that died before removing theirs: named ..._<pid>. */
static void remove_stale(const char *root)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/events/" GROUP, root);
	if (!(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		const char *us = strrchr(e->d_name, '_');
		char *end;
		long pid;

		if (!us || e->d_type != DT_DIR)
			continue;
		pid = strtol(us + 1, &end, 10);
		if (*end || pid <= 0 || pid == getpid())
			continue;
		if (kill((pid_t)pid, 0) && errno == ESRCH)
			remove_event(root, e->d_name);
	}
	closedir(d);
}

static int read_id(const char *root, const char *name, long *id)
{
	char path[PATH_MAX];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/events/" GROUP "/%s/id", root, name);
	if (!(f = fopen(path, "re")))
		return -errno;
	n = fscanf(f, "%ld", id);
	fclose(f);
	return n == 1 ? 0 : -EINVAL;
}

static uint64_t missed_of(const char *root, const char *name)
{
	char path[PATH_MAX], ev[128];
	unsigned long long hits, miss;
	uint64_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kprobe_profile", root);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fscanf(f, "%127s %llu %llu", ev, &hits, &miss) == 3)
		if (!strcmp(ev, name))
			n += miss;
	fclose(f);
	return n;
}

/* A probe event of this process on `func`: its entry (maxactive < 0) or its return. */
static int attach(struct bpf_program *prog, const char *func, int maxactive,
		  struct bpf_link **link, char *why, size_t whylen)
{
	const char *kind = maxactive < 0 ? "kernel" : "return";
	struct perf_event_attr attr;
	char line[192], *name;
	const char *root;
	int err, pfd;
	long id;

	*link = NULL;
	if ((err = xp_startup_stopped(why, whylen)))
		return err;
	if (!(root = xp_tracefs(why, whylen, NULL)))
		return -ENOENT;
	if (nevents == MAX_EVENTS)
		return -E2BIG;
	if (nevents == 0) {
		remove_stale(root);
		atexit(xp_kretprobes_remove);
	}
	/*
	 * An event name is a C identifier of at most 63 characters: the function's
	 * ("module:func" and "func.isra.0" too) cut to one, made unique by the
	 * event's number, and ending in the pid that remove_stale reads.
	 */
	name = events[nevents];
	snprintf(name, sizeof(events[0]), "%.36s_%c%d_%d", func, maxactive < 0 ? 'e' : 'r', serial++,
		 (int)getpid());
	for (char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
			*c = '_';
	if (maxactive < 0)
		snprintf(line, sizeof(line), "p:" GROUP "/%s %s\n", name, func);
	else
		snprintf(line, sizeof(line), "r%d:" GROUP "/%s %s\n", maxactive, name, func);
	if ((err = write_probe(root, line))) {
		snprintf(why, whylen, "cannot create a %s probe on %s in tracefs: %s", kind, func,
			 strerror(-err));
		return err;
	}
	nevents++;
	if ((err = read_id(root, name, &id))) {
		snprintf(why, whylen, "tracefs made no id for the %s probe on %s", kind, func);
		return err;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = (uint64_t)id;
	attr.sample_period = 1;
	pfd = (int)syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0) {
		err = -errno;
		snprintf(why, whylen, "cannot open the %s probe on %s: %s", kind, func, strerror(errno));
		return err;
	}
	*link = bpf_program__attach_perf_event(prog, pfd);
	if (!*link) {
		err = -errno;
		close(pfd);
		snprintf(why, whylen, "cannot attach to the %s probe on %s: %s", kind, func,
			 strerror(-err));
		return err;
	}
	return 0;
}

int xp_kretprobe_attach(struct bpf_program *prog, const char *func, int maxactive,
			struct bpf_link **link, char *why, size_t whylen)
{
	return attach(prog, func, maxactive < 0 ? 0 : maxactive, link, why, whylen);
}

int xp_kprobe_attach(struct bpf_program *prog, const char *func, struct bpf_link **link,
		     char *why, size_t whylen)
{
	return attach(prog, func, -1, link, why, whylen);
}

static uint64_t (*other_missed)(void);

void xp_kprobes_missed_also(uint64_t (*fn)(void))
{
	other_missed = fn;
}

uint64_t xp_kretprobes_missed(void)
{
	char why[128];
	const char *root = nevents ? xp_tracefs(why, sizeof(why), NULL) : NULL;
	uint64_t n = missed_removed + (other_missed ? other_missed() : 0);

	for (int i = 0; root && i < nevents; i++)
		n += missed_of(root, events[i]);
	return n;
}

void xp_kretprobes_remove(void)
{
	char why[128];
	const char *root = nevents ? xp_tracefs(why, sizeof(why), NULL) : NULL;
	int kept = 0;

	if (!root)
		return;
	/*
	 * An event still attached (another capability of this process, as in a
	 * record of several) cannot go yet: it stays listed, for its misses and
	 * for the next call (at the latest at exit).
	 */
	for (int i = 0; i < nevents; i++) {
		uint64_t missed = missed_of(root, events[i]);

		if (remove_event(root, events[i]) == 0)
			missed_removed += missed;
		else if (kept++ != i)
			memcpy(events[kept - 1], events[i], sizeof(events[0]));
	}
	nevents = kept;
}
