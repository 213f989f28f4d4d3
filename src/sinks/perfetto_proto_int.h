/*
 * What the files of the Perfetto writer's protobuf format share:
 * perfetto_proto.c (packets, tracks, slices and flows), perfetto_proto_intern.c
 * (interned strings), perfetto_proto_async.c (async spans on lanes).
 */
#ifndef XP_SINKS_PERFETTO_PROTO_INT_H
#define XP_SINKS_PERFETTO_PROTO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinks/pbwire.h"
#include "sinks/perfetto.h"

#define WINDOW 32		/* slices held back for the flows that bind to them */
#define ASYNC_LANES 16
#define NO_END UINT64_MAX	/* an async span never ended */
#define INTERN_RECENT 8		/* a power of two */
#define ENDS 64			/* slice ends held back to be written in time order */

/* Interned strings: a hash of their text, and by iid (from 1) for writing. */
struct intern {
	struct { uint32_t hash, iid; } *slot;
	size_t cap, n;
	char **by_iid;		/* by_iid[iid - 1] */
	uint32_t written;	/* iids up to this one have been written */
	/* the last strings looked up, by address: callers pass the same few names again */
	struct { const char *s; uint32_t iid; } recent[INTERN_RECENT];
};

struct pending {
	uint64_t uuid, start, end;
	uint32_t name, cat;	/* iids */
	bool instant;
	uint8_t nflow, nterm;
	uint64_t flow[2], term[2];
};

struct async_begin {
	uint64_t id, owner, ts;	/* owner: the track of the thread it began on; 0: a free slot */
	uint32_t name, cat;
};

struct lanes {
	uint64_t owner;
	uint32_t name;
	int n;
	uint64_t uuid[ASYNC_LANES], end[ASYNC_LANES];
};

struct xp_perfetto_proto {
	struct xp_pb out;
	uint64_t clock;		/* CLOCK_DELTA's time: the last packet's on it */
	uint64_t track;		/* the default track of events (TrackEventDefaults); 0: none */
	uint64_t run_track;	/* the last event's track, and how many in a row were on it */
	unsigned run;
	struct intern names, cats;
	struct pending win[WINDOW];
	unsigned head, count;
	struct { uint64_t ts, uuid; } ends[ENDS];	/* by time, the latest first */
	unsigned nends;
	struct async_begin *ab;	/* open addressing on (id, name, cat) */
	size_t abcap, abn;
	struct lanes *lanes;
	size_t nlanes, lanecap;
	struct libdeflate_compressor *z;	/* compressing batches; NULL: not */
	uint8_t *zbuf;		/* a batch's packet: its head, then the deflated batch */
	size_t zcap;
};

/* The iid of s, a new one the first time; 0 when out of memory. */
uint32_t xp_perfetto_proto_intern(struct intern *t, const char *s);
void xp_perfetto_proto_intern_free(struct intern *t);

/* TrackDescriptor{uuid, parent_uuid, name | thread} */
void xp_perfetto_proto_descriptor(struct xp_perfetto *p, uint64_t uuid, uint64_t parent, const char *name,
				  const struct xp_perfetto_thread *thread);
/* A slice (or an instant) into the window of slices held back for flows. */
void xp_perfetto_proto_push(struct xp_perfetto *p, uint64_t uuid, uint32_t cat, uint32_t name,
			    uint64_t start, uint64_t end, bool instant);
/* The track of the span's lane: the first under `owner` named `name` free at `start`. */
uint64_t xp_perfetto_proto_async_lane(struct xp_perfetto *p, uint64_t owner, uint32_t name, uint64_t start,
				      uint64_t end);

#endif
