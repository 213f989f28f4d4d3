/*
 * One sample of every process's DRM and accel file descriptors: the
 * descriptors of /proc/PID/fd that name a file under /dev/dri or /dev/accel, their
 * /proc/PID/fdinfo/FD parsed and handed to the accounting. No libbpf.
 */
#ifndef XP_CAPS_FDINFO_SCAN_H
#define XP_CAPS_FDINFO_SCAN_H

#include <stdint.h>

#include "caps/fdinfo/fdinfo_stats.h"
#include "core/filters.h"

/*
 * Where /proc is: XPUTRACE_PROC_ROOT in the environment (tests only: a
 * tree of fixtures shaped like /proc), else "/proc".
 */
#define XP_FDI_PROC_ENV "XPUTRACE_PROC_ROOT"

struct xp_fdi_scan {
	const char *root;	/* /proc, or the tests' tree */
	const char *cgroup2;	/* the cgroup2 mount, for cgroup ids; NULL: none */
	uint32_t pid;		/* only this process (0: all) */
	const char *comm;	/* only processes of this name (NULL: all) */
	uint64_t cgroup_id;	/* only processes in this cgroup (0: all; needs cgroup2) */
};

/* The scan's root: the environment's, else /proc. */
const char *xp_fdi_proc_root(void);
/* One sample at `now` into `s` (xp_fdi_begin ... xp_fdi_end). 0, or -errno when the root cannot be read. */
int xp_fdi_sample(struct xp_fdi_stats *s, const struct xp_fdi_scan *sc, uint64_t now);

/* A sampler's state: the accounting, what to read. */
struct xp_fdinfo_state {
	struct xp_fdi_stats st;
	struct xp_fdi_scan sc;
	char *cg2;		/* the cgroup2 mount, allocated */
	uint64_t next_ns;	/* the next periodic sample, not before (xp_fdinfo_tick) */
	uint64_t last_cost_ns;	/* what the last sample took */
};

/*
 * The share of one CPU periodic samples may take: a sample that took T
 * puts the next periodic one at least T / XP_FDI_MAX_SHARE after its start,
 * so reading stays cheap however many processes there are (10,000 sleeping
 * processes take about a quarter of a second on a loaded 2-CPU machine).
 */
#define XP_FDI_MAX_SHARE 0.1
/*
 * A sample at `now` (clock_ns: CLOCK_MONOTONIC ns, read again after it),
 * skipped when `periodic` and the last sample's cost puts it later. 0 or -errno.
 */
int xp_fdinfo_tick(struct xp_fdinfo_state *s, bool periodic, uint64_t (*clock_ns)(void));
/* From the run's filters (-p/-c/-G). 0 or -ENOMEM. */
int xp_fdinfo_state_new(const struct xp_filters *f, struct xp_fdinfo_state **out);
void xp_fdinfo_state_free(struct xp_fdinfo_state *s);

#endif
