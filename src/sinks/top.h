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
	bool sources;		/* GPU busy time a column per source, and the first two's difference */
};

/*
 * Whether `sort` names a column of m: a bounded counter family without its
 * "xputrace_" prefix, or pid, comm, cgroup.
 */
bool xp_top_sort_known(const struct xp_metrics *m, const char *sort);

/* A frame's row: pid \x1f comm \x1f cgroup (or "-" \x1f a ring's labels \x1f "-"), its rates. */
struct xp_top_row {
	char key[360];
	double v[XP_TOP_MAX_COLS];
};

/* One refresh's table, before it is sorted and printed. */
struct xp_top_frame {
	int ncol;
	char name[XP_TOP_MAX_COLS][64];	/* the family without "xputrace_": what --sort names */
	char head[XP_TOP_MAX_COLS][68];	/* with "%" (seconds, as a share of one CPU) or "/s" */
	struct xp_top_row *rows;
	int nrows;
};

/*
 * The rates since the last frame (`dt` seconds) into *fr, a row per process
 * (or ring, CRTC, timeline) in key order; marks the values as shown. With
 * `sources`, GPU busy time is a column per source that has a series
 * (drm_sched, cupti, fdinfo, in that order) and, where two have, a column
 * of the second's minus the first's (gpu_busy_seconds:fdinfo-drm_sched).
 * 0 or -ENOMEM.
 */
int xp_top_frame_make(struct xp_metrics *m, double dt, bool sources, struct xp_top_frame *fr);
void xp_top_frame_free(struct xp_top_frame *fr);
/*
 * Sorts the rows by column `col` (most first), or where col < 0 by key
 * field `field` (0 pid, numerically; 1 comm; 2 cgroup); then by key.
 * `reverse` turns it around.
 */
void xp_top_frame_sort(struct xp_top_frame *fr, int col, int field, bool reverse);
/*
 * The column `sort` names: its own, else (--sources) its family's first
 * source's ("gpu_busy_seconds" -> "gpu_busy_seconds:drm_sched"); -1: none.
 */
int xp_top_col_named(const struct xp_top_frame *fr, const char *sort);
/* Field i (0 pid, 1 comm, 2 cgroup) of a row's key, into buf. */
const char *xp_top_field(const char *key, int i, char *buf, size_t len);

/*
 * One refresh: the column heads, then a row per process (pid, comm,
 * cgroup labels) that was active in the last `dt` seconds, with each
 * bounded counter family's (that has a series yet) rate per second (a histogram's: its sum's) (families in seconds as a
 * percentage of one CPU), sorted by o->sort, most first. Marks the values
 * as shown (the next refresh counts from them). -ENOMEM, or the rows shown.
 */
int xp_top_write(FILE *f, struct xp_metrics *m, double dt, const struct xp_top_opts *o);

#endif
