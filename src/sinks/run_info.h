/* What every summary says about the run that produced it, in text and JSON. */
#ifndef XP_SINKS_RUN_INFO_H
#define XP_SINKS_RUN_INFO_H

#include <stdbool.h>
#include <stdint.h>
#include "shared/record.h"
#include "core/hist.h"
#include "sinks/json.h"

struct xp_run_info {
	const char *command;
	const char *source;	/* "live" or the trace file read */
	const char *mode;	/* "summary" (kernel aggregates) or "stream" */
	const char *hook;	/* "tp_btf", "raw_tp", or NULL */
	double duration_s;
	uint64_t drops[XP_DROP_ALL];
	uint64_t interval;	/* 0, or the number of this interval */
	/* the kernel runs kprobe, uprobe or classic tracepoint programs of this
	 * run but, before Linux 6.7, does not count the runs it skips (one
	 * firing in an interrupt while another such program runs on its CPU):
	 * drops may be short of what was lost, and the summary says so */
	bool skips_uncounted;
};

uint64_t xp_run_total_drops(const struct xp_run_info *ri);
/* The members above as keys of the object being written. */
void xp_json_run_info(struct xp_json *j, const struct xp_run_info *ri);
/* A summary's JSON document begun on f: its object opened, the run's keys in it. */
void xp_json_begin_run(struct xp_json *j, FILE *f, const struct xp_run_info *ri);

struct xp_rawtp_layout;		/* core/rawtp.h */

/*
 * What a tracepoint capability's summary is made from (fence, mem, vblank):
 * its analysis state, the events traced, the run, and how to print.
 */
struct xp_tp_report {
	const void *st;				/* the capability's state */
	const struct xp_rawtp_layout *layout;	/* the events traced */
	const struct xp_run_info *ri;
	bool hist;		/* text: log2 histograms too */
	bool filtered;		/* -p/--comm/--cgroup: the kernel filters the events a task causes */
	bool final;		/* the run ended: what is still open was never completed */
	uint64_t undecodable;	/* records the analysis could not decode */
};
/* `key`: {"EVENT": true if this kernel has it, ...} for the first n events of the layout. */
void xp_json_kevents(struct xp_json *j, const char *key, const struct xp_rawtp_layout *l, int n);

/* A latency histogram under `key`: count, sum, p50/p90/p99, max and the
 * non-empty log2 slots as {"lo": 2^k (0 for the first), "count": n}. */
void xp_json_khist(struct xp_json *j, const char *key, const struct xp_hist *h);

#endif
