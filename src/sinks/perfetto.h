/*
 * Chrome trace-event JSON, the format ui.perfetto.dev and chrome://tracing
 * open: {"traceEvents":[...], "displayTimeUnit":"ns", "otherData":{...}}.
 *
 * Timestamps are microseconds after `t0` with nanosecond digits. Slices are
 * complete events ("ph":"X") on the pid/tid that made them; process and
 * thread names ("ph":"M") are written at the end for every thread seen.
 * Things that are no thread (a GPU ring, a CRTC) get a track: a synthetic
 * pid per group ("GPU rings", "Displays") and a tid per track, named the
 * same way. Flows ("ph":"s" then "ph":"f", the same id) draw an arrow from
 * a slice (the submitting ioctl) to a slice on another track (the job).
 */
#ifndef XP_SINKS_PERFETTO_H
#define XP_SINKS_PERFETTO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "core/devices.h"
#include "core/sched_stats.h"
#include "core/tracefile.h"
#include "core/vblank_stats.h"
#include "shared/ioctl.h"
#include "sinks/json.h"

/* Synthetic pids start above Linux's PID_MAX_LIMIT (2^22). */
#define XP_PERFETTO_TRACK_PID0 (1u << 23)

struct xp_perfetto_thread {
	uint32_t pid, tid;	/* tid 0: an empty slot */
	char name[64];
};

#define XP_PERFETTO_LANES 8	/* tracks per ring for jobs that overlap on it */

struct xp_perfetto_ring {
	char name[XP_SCHED_STR];
	uint64_t lane_end[XP_PERFETTO_LANES];	/* end of the last job put on each lane */
};

struct xp_perfetto {
	struct xp_json j;
	uint64_t t0;
	uint64_t events;
	struct xp_perfetto_thread *threads;	/* open addressing on (pid, tid) */
	size_t cap, n;
	char groups[8][32];			/* names of synthetic pids */
	int ngroups;
	bool oom;
	struct xp_perfetto_ring rings[XP_SCHED_MAX_RINGS + 1];	/* the last: all others */
	int nrings;
	uint64_t next_id;		/* flow and async ids */
};

void xp_perfetto_begin(struct xp_perfetto *p, FILE *f, uint64_t t0_ns);

/* Names a thread (its comm) or a track; the first name given stays. */
void xp_perfetto_name(struct xp_perfetto *p, uint32_t pid, uint32_t tid, const char *name);

/* A track outside any process: returns its pid and tid for slices. */
void xp_perfetto_track(struct xp_perfetto *p, const char *group, uint32_t id, const char *name,
		       uint32_t *pid, uint32_t *tid);

/*
 * Starts a complete slice; the caller may add keys to its "args" object
 * through p->j, then calls xp_perfetto_slice_end.
 */
void xp_perfetto_slice_begin(struct xp_perfetto *p, uint32_t pid, uint32_t tid, const char *cat,
			     const char *name, uint64_t ts_ns, uint64_t dur_ns);
void xp_perfetto_slice_end(struct xp_perfetto *p);

/* One end of a flow arrow: `start` on the source slice, then the finish. */
void xp_perfetto_flow(struct xp_perfetto *p, uint64_t id, bool start, uint32_t pid, uint32_t tid,
		      uint64_t ts_ns);

/* An instant ("ph":"i", thread scope); args and end as for a slice. */
void xp_perfetto_instant_begin(struct xp_perfetto *p, uint32_t pid, uint32_t tid, const char *cat,
			       const char *name, uint64_t ts_ns);
/* One end of an async span ("b"/"e"), paired by cat, name and id. */
void xp_perfetto_async(struct xp_perfetto *p, bool begin, uint32_t pid, uint32_t tid,
		       const char *cat, const char *name, uint64_t id, uint64_t ts_ns);

/*
 * A completed GPU job (the sched analysis's on_job): run -> done as a slice
 * on its ring's track (a second lane of the ring when jobs overlap), queue ->
 * run as an async "queued" span, and a flow arrow from the submitting thread
 * (a zero-length "submit" slice at the queue event, inside its ioctl when
 * ioctls were recorded too) to the job.
 */
void xp_perfetto_sched_job(struct xp_perfetto *p, const struct xp_sched_job_info *j);
/* A vblank event: an instant on its CRTC's track (vblanks, deliveries, requests). */
void xp_perfetto_vblank(struct xp_perfetto *p, const struct xp_vbl_event *ev);
/*
 * A frame (page flip, atomic commit, CRTC sequence) once settled: a slice on
 * the asking thread from its submit to its delivery, split at the vblank it
 * completed on (to scanout, to delivery), and a flow arrow to a "scanout"
 * slice at that vblank on its CRTC's track.
 */
void xp_perfetto_vblank_frame(struct xp_perfetto *p, const struct xp_vbl_delivery *d);

/*
 * A buffer memory or submission event (mem): an instant on the thread it
 * fired in when that is the causing process, else on its driver's track
 * ("GPU memory"), with its decoded fields as args.
 */
void xp_perfetto_mem(struct xp_perfetto *p, const struct xp_rawtp_layout *l,
		     const struct xp_rawtp_rec *r);

/* An ioctl as a slice on its thread, named as the reports name it. */
void xp_perfetto_ioctl(struct xp_perfetto *p, const struct xp_ioctl_rec *r,
		       const struct xp_devices *d);

/* Writes the names and, with `m`, the recording's host, kernel and clock. */
void xp_perfetto_end(struct xp_perfetto *p, const struct xp_trace_meta *m);

#endif
