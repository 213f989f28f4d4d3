/*
 * `xputrace top`: the metrics `serve` serves, as a table of processes with
 * each counter's rate over the last refresh. No libbpf.
 */
#ifndef XP_SINKS_TOP_H
#define XP_SINKS_TOP_H

#include <stdbool.h>
#include <stdio.h>
#include "sinks/metrics.h"

/* Columns: at most this many counter families. */
#define XP_TOP_MAX_COLS 32

struct xp_top_opts {
	const char *sort;	/* a column ("ioctls", "ioctl_errors", ...), "pid", "comm" or "cgroup"; NULL: the first */
	int max_rows;		/* rows shown, 0: all (a terminal's height) */
	int width;		/* the cgroup column is cut to fit this; 0: no limit */
};

/*
 * Whether `sort` names a column of m: a bounded counter family without its
 * "xputrace_" prefix, or pid, comm, cgroup.
 */
bool xp_top_sort_known(const struct xp_metrics *m, const char *sort);

/*
 * One refresh: the column heads, then a row per process (pid, comm,
 * cgroup labels) that was active in the last `dt` seconds, with each
 * bounded counter family's (that has a series yet) rate per second (a histogram's: its sum's) (families in seconds as a
 * percentage of one CPU), sorted by o->sort, most first. Marks the values
 * as shown (the next refresh counts from them). -ENOMEM, or the rows shown.
 */
int xp_top_write(FILE *f, struct xp_metrics *m, double dt, const struct xp_top_opts *o);

#endif
