/* The sched summary (text, JSON) and its per-job stream lines. */
#ifndef XP_CAPS_SCHED_REPORT_H
#define XP_CAPS_SCHED_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "caps/sched/sched_stats.h"
#include "sinks/json.h"
#include "sinks/run_info.h"

struct xp_sched_report {
	const struct xp_sched_state *st;
	const struct xp_rawtp_layout *layout;	/* which events were traced */
	const struct xp_run_info *ri;
	uint64_t now;				/* the clock of the records: busy time up to here */
	bool hist;				/* text: log2 histograms too */
};

void xp_sched_report_text(FILE *f, const struct xp_sched_report *r);
void xp_sched_report_json(FILE *f, const struct xp_sched_report *r);

void xp_sched_stream_header(FILE *f);
void xp_sched_stream_text(FILE *f, const struct xp_sched_job_info *j, uint64_t t0);
void xp_sched_stream_json(struct xp_json *j, const struct xp_sched_job_info *job, uint64_t t0);

struct xp_perfetto;	/* src/sinks/perfetto.h */
/*
 * A completed GPU job (the sched analysis's on_job): run -> done as a slice
 * on its ring's track (a second lane of the ring when jobs overlap), queue ->
 * run as an async "queued" span, and a flow arrow from the submitting thread
 * (a zero-length "submit" slice at the queue event, inside its ioctl when
 * ioctls were recorded too) to the job.
 */
void xp_perfetto_sched_job(struct xp_perfetto *p, const struct xp_sched_job_info *j);

#endif
