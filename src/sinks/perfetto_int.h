/*
 * What the two formats of the Perfetto writer share (perfetto.c, the JSON
 * and the threads and tracks; perfetto_proto.c, the protobuf packets). Not the
 * writer's interface: that is perfetto.h.
 */
#ifndef XP_SINKS_PERFETTO_INT_H
#define XP_SINKS_PERFETTO_INT_H

#include "sinks/perfetto.h"

/* Timestamps relative to t0, as both formats show them: never before it. */
static inline uint64_t xp_pf_rel(const struct xp_perfetto *p, uint64_t ts_ns)
{
	return ts_ns > p->t0 ? ts_ns - p->t0 : 0;
}

/* The track of a thread or of a named track, described on first use. */
uint64_t xp_perfetto_uuid(struct xp_perfetto *p, uint32_t pid, uint32_t tid);

/* The protobuf format (perfetto_proto.c, perfetto_proto_intern.c, perfetto_proto_async.c). */
int xp_perfetto_proto_new(struct xp_perfetto *p);
/* A thread or named track (its name may have changed), a group of tracks, a process. */
void xp_perfetto_proto_describe(struct xp_perfetto *p, const struct xp_perfetto_thread *t);
void xp_perfetto_proto_group(struct xp_perfetto *p, int g);
void xp_perfetto_proto_process(struct xp_perfetto *p, uint32_t pid, const char *name);
void xp_perfetto_proto_slice(struct xp_perfetto *p, uint32_t pid, uint32_t tid, const char *cat,
			     const char *name, uint64_t rel_start, uint64_t rel_end, bool instant);
void xp_perfetto_proto_flow(struct xp_perfetto *p, uint64_t id, bool start, uint32_t pid, uint32_t tid,
			    uint64_t rel_ts);
void xp_perfetto_proto_async(struct xp_perfetto *p, bool begin, uint32_t pid, uint32_t tid,
			     const char *cat, const char *name, uint64_t id, uint64_t rel_ts);
/* Writes what is pending and frees the state. */
void xp_perfetto_proto_finish(struct xp_perfetto *p);

#endif
