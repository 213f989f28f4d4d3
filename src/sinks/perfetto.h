/*
 * The Perfetto writer every capability calls. It writes one of two formats:
 *
 * Perfetto's native protobuf trace (xp_perfetto_begin_proto, perfetto_proto.c):
 * the same tracks, slices, flows and spans as below, as TrackDescriptor and
 * TrackEvent packets with interned names. What callers write into p->j
 * (a slice's args) is dropped there.
 *
 * Chrome trace-event JSON, which ui.perfetto.dev and chrome://tracing
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
#include "core/tracefile.h"
#include "sinks/json.h"

/* Synthetic pids start above Linux's PID_MAX_LIMIT (2^22). */
#define XP_PERFETTO_TRACK_PID0 (1u << 23)

struct xp_perfetto_thread {
	uint32_t pid, tid;	/* tid 0: an empty slot */
	uint64_t uuid;		/* its track's, in the protobuf format */
	char name[64];
};

struct xp_perfetto_proto;

#define XP_PERFETTO_LANES 8	/* tracks per named track for slices that overlap on it */
#define XP_PERFETTO_LANED_MAX 64	/* named tracks with lanes kept apart */
#define XP_PERFETTO_LANE_NAME 64

/* A named track (a GPU ring) whose overlapping slices go on lanes of their own. */
struct xp_perfetto_laned {
	char name[XP_PERFETTO_LANE_NAME];
	uint64_t lane_end[XP_PERFETTO_LANES];	/* end of the last slice put on each lane */
};

struct xp_perfetto {
	struct xp_json j;
	uint64_t t0;
	uint64_t events;
	struct xp_perfetto_thread *threads;	/* open addressing on (pid, tid) */
	size_t cap, n;
	struct xp_perfetto_thread *last;	/* the one looked up last, or NULL */
	char groups[8][32];			/* names of synthetic pids */
	int ngroups;
	bool oom;
	struct xp_perfetto_laned laned[XP_PERFETTO_LANED_MAX + 1];	/* the last: all others */
	int nlaned;
	uint64_t next_id;		/* flow and async ids */
	FILE *f;			/* where it writes */
	struct xp_perfetto_proto *pb;		/* the protobuf format's state; NULL: JSON */
	int werr;			/* errno of its first failed write (protobuf format) */
	uint64_t next_uuid;		/* the protobuf format's track ids */
	uint64_t group_uuid[8];
};

void xp_perfetto_begin(struct xp_perfetto *p, FILE *f, uint64_t t0_ns);
/* The same in Perfetto's protobuf format. 0, -ENOMEM. */
int xp_perfetto_begin_proto(struct xp_perfetto *p, FILE *f, uint64_t t0_ns);
/*
 * After xp_perfetto_begin_proto: the packets go out in zlib batches
 * (TracePacket.compressed_packets) at libdeflate's `level` (1-12). 0,
 * -EINVAL (a level out of range), -ENOMEM.
 */
int xp_perfetto_compress(struct xp_perfetto *p, int level);

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
/* Whether args written into p->j are kept (the JSON format); a hot caller may skip them. */
static inline bool xp_perfetto_args(const struct xp_perfetto *p) { return !p->pb; }

/* One end of a flow arrow: `start` on the source slice, then the finish. */
void xp_perfetto_flow(struct xp_perfetto *p, uint64_t id, bool start, uint32_t pid, uint32_t tid,
		      uint64_t ts_ns);
/* The same with its name ("blame"); xp_perfetto_flow's are "submit". */
void xp_perfetto_flow_named(struct xp_perfetto *p, const char *name, uint64_t id, bool start,
			    uint32_t pid, uint32_t tid, uint64_t ts_ns);

/* An instant ("ph":"i", thread scope); args and end as for a slice. */
void xp_perfetto_instant_begin(struct xp_perfetto *p, uint32_t pid, uint32_t tid, const char *cat,
			       const char *name, uint64_t ts_ns);
/* One end of an async span ("b"/"e"), paired by cat, name and id. */
void xp_perfetto_async(struct xp_perfetto *p, bool begin, uint32_t pid, uint32_t tid,
		       const char *cat, const char *name, uint64_t id, uint64_t ts_ns);

/*
 * A slice from `start` to `end` on the named track `name` of `group`: on its
 * first lane free at `start` (lane 0 is the track itself, lane k > 0 the
 * track "name (k+1)"). Beyond `max_named` names (at most
 * XP_PERFETTO_LANED_MAX), all others share one track "(other)". Returns the
 * lane, with the track's pid and tid and the name it is shown by; -1 when
 * every lane is still busy (a slice there would break the track's nesting).
 */
int xp_perfetto_lane(struct xp_perfetto *p, const char *group, const char *name, int max_named,
		     uint64_t start, uint64_t end, uint32_t *pid, uint32_t *tid, const char **shown);

/* Writes the names and, with `m`, the recording's host, kernel and clock. */
void xp_perfetto_end(struct xp_perfetto *p, const struct xp_trace_meta *m);

#endif
