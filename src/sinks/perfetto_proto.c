/*
 * The Perfetto writer's native format: a protobuf `Trace` of TracePackets on
 * one sequence (the messages and field numbers are listed in
 * tests/e2e/perfetto_subset.proto, which match Perfetto's own protos).
 *
 * - Every thread and named track is a TrackDescriptor, written when first
 *   named or used; a group ("GPU rings") a parent track; a process gets its
 *   ProcessDescriptor at the end, named as the JSON names it.
 * - A slice is a SLICE_BEGIN and a SLICE_END on its track, an instant an
 *   INSTANT; names and categories are interned, so an event carries two
 *   small ids, and the first packet clears the sequence's incremental state.
 *   Timestamps are nanoseconds from the recording's start, as in the JSON,
 *   written as deltas on a clock of the sequence's own (set up by the first
 *   packet: a ClockSnapshot and TracePacketDefaults), so every event says
 *   SEQ_NEEDS_INCREMENTAL_STATE. A track that has a run of events becomes
 *   the default (TrackEventDefaults), and its events name no track.
 * - Flows are ids on the slices they join. The JSON binds a flow's end to
 *   the slice enclosing its time on its thread; here the slice must carry
 *   the id, so the last WINDOW slices wait in memory before they are
 *   written, and a flow is put on the innermost of them that encloses it.
 * - An async span (JSON "b"/"e") is a slice on a child track of its thread
 *   named after it, with as many tracks as spans overlap ("queued (2)").
 * - Compressed (xp_perfetto_compress): each batch of packets written at once
 *   (FLUSH_AT bytes) is one zlib stream in the compressed_packets field of
 *   a packet of its own; Perfetto inflates it and reads the packets inside
 *   as if they stood there. The batch ends on a packet's end. libdeflate
 *   writes the stream: a whole buffer at a time, it takes about half of
 *   zlib's time at level 1 for a slightly smaller result (bench/export.sh).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>

#include "sinks/pbwire.h"
#include "sinks/perfetto_int.h"
#include "sinks/perfetto_proto_int.h"

/* Field numbers (Perfetto's protos/perfetto/trace). */
enum {
	TRACE_PACKET = 1,
	PKT_CLOCK_SNAPSHOT = 6, PKT_TIMESTAMP = 8, PKT_SEQ_ID = 10, PKT_TRACK_EVENT = 11,
	PKT_INTERNED = 12, PKT_SEQ_FLAGS = 13, PKT_TS_CLOCK_ID = 58, PKT_DEFAULTS = 59,
	PKT_TRACK_DESCRIPTOR = 60, PKT_COMPRESSED = 50,
	CS_CLOCKS = 1, CLK_ID = 1, CLK_TS = 2, CLK_INCREMENTAL = 3,
	DEF_TS_CLOCK_ID = 58, DEF_TRACK_EVENT = 11, TED_TRACK_UUID = 11,
	TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT = 5,
	PD_PID = 1, PD_NAME = 6,
	THD_PID = 1, THD_TID = 2, THD_NAME = 5,
	TE_CATEGORY_IIDS = 3, TE_TYPE = 9, TE_NAME_IID = 10, TE_TRACK_UUID = 11,
	TE_FLOW_IDS = 47, TE_TERMINATING_FLOW_IDS = 48,
	ID_CATEGORIES = 1, ID_NAMES = 2, INTERNED_IID = 1, INTERNED_NAME = 2,
};
enum { SEQ_CLEARED = 1, SEQ_NEEDS_STATE = 2 };
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3 };
/* BOOTTIME, the trace's clock; the sequence's own, of deltas (64..127: a sequence's) */
enum { CLOCK_BOOTTIME = 6, CLOCK_DELTA = 64 };

#define SEQ_ID 1
#define FLUSH_AT (1u << 20)	/* bytes gathered before a write */
#define TRACK_RUN 4		/* events in a row on a track that make it the default */
/*
 * The largest track event packet: sequence, flags, a time on BOOTTIME, and a
 * TrackEvent of type, track, category, name and 4 flow ids. Under 128 bytes.
 */
#define TE_MAX (2 + 11 + 6 + 6 + 4 * 10)
#define PACKET_MAX (2 + 2 + 3 + 11 + 2 + TE_MAX)
_Static_assert(PACKET_MAX < 128, "a track event packet's length is one byte");

/* Head room in zbuf: the packet's tag and length, compressed_packets' tag and length. */
#define ZHEAD (1 + 10 + 2 + 10)

/*
 * The batch in `out` deflated into one TracePacket{compressed_packets}, at
 * *at for *len bytes. False when out of memory.
 */
static bool deflate_batch(struct xp_perfetto_proto *s, const uint8_t **at, size_t *len)
{
	size_t bound = libdeflate_zlib_compress_bound(s->z, s->out.n), n;
	uint8_t head[ZHEAD], *q;

	if (bound + ZHEAD > s->zcap) {
		uint8_t *b = realloc(s->zbuf, bound + ZHEAD);

		if (!b)
			return false;
		s->zbuf = b;
		s->zcap = bound + ZHEAD;
	}
	n = libdeflate_zlib_compress(s->z, s->out.b, s->out.n, s->zbuf + ZHEAD, s->zcap - ZHEAD);
	if (!n)	/* no room: cannot be, with the bound's room */
		return false;
	/* the heads go right before the deflated bytes, whose length is known only now */
	q = xp_pb_put_tag(head, PKT_COMPRESSED, XP_PB_LEN);
	q += xp_varint_put(q, n);
	{
		size_t inner = (size_t)(q - head) + n, h;
		uint8_t outer[1 + 10], *r = xp_pb_put_tag(outer, TRACE_PACKET, XP_PB_LEN);

		r += xp_varint_put(r, inner);
		h = (size_t)(r - outer) + (size_t)(q - head);
		memcpy(s->zbuf + ZHEAD - h, outer, (size_t)(r - outer));
		memcpy(s->zbuf + ZHEAD - (size_t)(q - head), head, (size_t)(q - head));
		*at = s->zbuf + ZHEAD - h;
		*len = h + n;
	}
	return true;
}

static void flush_out(struct xp_perfetto *p)
{
	struct xp_perfetto_proto *s = p->pb;
	struct xp_pb *o = &s->out;
	const uint8_t *at = o->b;
	size_t len = o->n;

	if (!len)
		return;
	if (s->z && !deflate_batch(s, &at, &len)) {
		p->oom = true;
		o->n = 0;
		return;
	}
	/* a failed write leaves the FILE's error set; its errno is kept for the message */
	errno = 0;
	if (fwrite(at, 1, len, p->f) != len && !p->werr)
		p->werr = errno ? errno : EIO;
	o->n = 0;
}

int xp_perfetto_compress(struct xp_perfetto *p, int level)
{
	struct xp_perfetto_proto *s = p->pb;

	if (!s || s->z)
		return -EINVAL;
	if (level < 1 || level > 12)
		return -EINVAL;
	return (s->z = libdeflate_alloc_compressor(level)) ? 0 : -ENOMEM;
}

/* A TracePacket on the sequence; returns its mark for packet_end. */
static size_t packet_begin(struct xp_perfetto_proto *s, uint32_t flags)
{
	size_t m = xp_pb_begin(&s->out, TRACE_PACKET);

	xp_pb_uint(&s->out, PKT_SEQ_ID, SEQ_ID);
	if (flags)
		xp_pb_uint(&s->out, PKT_SEQ_FLAGS, flags);
	return m;
}

static void packet_end(struct xp_perfetto *p, size_t m)
{
	xp_pb_end(&p->pb->out, m);
	if (p->pb->out.n >= FLUSH_AT)
		flush_out(p);
}

/*
 * TracePacketDefaults: every packet's clock is CLOCK_DELTA, every event's
 * track `track` (none: 0). A packet of them replaces those before.
 */
static void put_defaults(struct xp_pb *o, uint64_t track)
{
	size_t d = xp_pb_begin(o, PKT_DEFAULTS), ted;

	xp_pb_uint(o, DEF_TS_CLOCK_ID, CLOCK_DELTA);
	if (track) {
		ted = xp_pb_begin(o, DEF_TRACK_EVENT);
		xp_pb_uint(o, TED_TRACK_UUID, track);
		xp_pb_end(o, ted);
	}
	xp_pb_end(o, d);
}

/*
 * The sequence's first packet clears its incremental state and sets it up:
 * a clock of its own, CLOCK_DELTA, whose timestamps are deltas from the last
 * packet's on it (ClockSnapshot.Clock.is_incremental), 0 where BOOTTIME is 0,
 * and the default clock of every packet after it (TracePacketDefaults).
 */
static void sequence_start(struct xp_perfetto_proto *s)
{
	struct xp_pb *o = &s->out;
	size_t m = packet_begin(s, SEQ_CLEARED), cs = xp_pb_begin(o, PKT_CLOCK_SNAPSHOT), c;

	c = xp_pb_begin(o, CS_CLOCKS);
	xp_pb_uint(o, CLK_ID, CLOCK_BOOTTIME);
	xp_pb_uint(o, CLK_TS, 0);
	xp_pb_end(o, c);
	c = xp_pb_begin(o, CS_CLOCKS);
	xp_pb_uint(o, CLK_ID, CLOCK_DELTA);
	xp_pb_uint(o, CLK_TS, 0);
	xp_pb_uint(o, CLK_INCREMENTAL, 1);
	xp_pb_end(o, c);
	xp_pb_end(o, cs);
	put_defaults(o, 0);
	xp_pb_end(o, m);
	s->clock = 0;
}

/*
 * An event on `track`: after TRACK_RUN in a row on one that is not the
 * default, a packet makes it the default, and events on it name no track.
 * (Threads that take turns leave the default where it is: no packet.)
 */
static void follow_track(struct xp_perfetto_proto *s, uint64_t track)
{
	size_t m;

	if (track == s->track)
		return;
	if (track != s->run_track) {
		s->run_track = track;
		s->run = 0;
	}
	if (++s->run < TRACK_RUN)
		return;
	m = packet_begin(s, SEQ_NEEDS_STATE);
	put_defaults(&s->out, track);
	xp_pb_end(&s->out, m);
	s->track = track;
}

int xp_perfetto_proto_new(struct xp_perfetto *p)
{
	if (!(p->pb = calloc(1, sizeof(*p->pb))))
		return -ENOMEM;
	sequence_start(p->pb);
	return 0;
}

/* TrackDescriptor{uuid, parent_uuid, name | thread} */
void xp_perfetto_proto_descriptor(struct xp_perfetto *p, uint64_t uuid, uint64_t parent, const char *name,
				  const struct xp_perfetto_thread *thread)
{
	struct xp_pb *o = &p->pb->out;
	size_t m = packet_begin(p->pb, 0), td = xp_pb_begin(o, PKT_TRACK_DESCRIPTOR), th;

	xp_pb_uint(o, TD_UUID, uuid);
	if (parent)
		xp_pb_uint(o, TD_PARENT, parent);
	if (thread) {
		th = xp_pb_begin(o, TD_THREAD);
		xp_pb_int(o, THD_PID, thread->pid);
		xp_pb_int(o, THD_TID, thread->tid == UINT32_MAX ? 0 : thread->tid);
		if (thread->name[0])
			xp_pb_str(o, THD_NAME, thread->name);
		xp_pb_end(o, th);
	} else if (name && name[0]) {
		xp_pb_str(o, TD_NAME, name);
	}
	xp_pb_end(o, td);
	packet_end(p, m);
}

void xp_perfetto_proto_group(struct xp_perfetto *p, int g)
{
	xp_perfetto_proto_descriptor(p, p->group_uuid[g], 0, p->groups[g], NULL);
}

void xp_perfetto_proto_describe(struct xp_perfetto *p, const struct xp_perfetto_thread *t)
{
	uint32_t g = t->pid - XP_PERFETTO_TRACK_PID0;

	if (t->pid >= XP_PERFETTO_TRACK_PID0)	/* a named track in its group */
		xp_perfetto_proto_descriptor(p, t->uuid, g < 8 ? p->group_uuid[g] : 0, t->name, NULL);
	else
		xp_perfetto_proto_descriptor(p, t->uuid, 0, NULL, t);
}

void xp_perfetto_proto_process(struct xp_perfetto *p, uint32_t pid, const char *name)
{
	struct xp_pb *o = &p->pb->out;
	size_t m = packet_begin(p->pb, 0), td = xp_pb_begin(o, PKT_TRACK_DESCRIPTOR), pd;

	xp_pb_uint(o, TD_UUID, ++p->next_uuid);
	pd = xp_pb_begin(o, TD_PROCESS);
	xp_pb_int(o, PD_PID, pid);
	if (name[0])
		xp_pb_str(o, PD_NAME, name);
	xp_pb_end(o, pd);
	xp_pb_end(o, td);
	packet_end(p, m);
}

/* InternedData with the strings of t from its last written iid up to `upto`. */
static void interned_new(struct xp_pb *o, struct intern *t, uint32_t field, uint32_t upto)
{
	for (; t->written < upto; t->written++) {
		size_t m = xp_pb_begin(o, field);

		xp_pb_uint(o, INTERNED_IID, t->written + 1);
		xp_pb_str(o, INTERNED_NAME, t->by_iid[t->written]);
		xp_pb_end(o, m);
	}
}

/*
 * A packet's time at q: on CLOCK_DELTA, the time since the last packet's
 * on it, or, for a time before that one (a slice begun before one pushed
 * ahead of it, as GPU jobs and spans are, or an end let out of a full
 * hold), on BOOTTIME in full, which leaves CLOCK_DELTA where it was.
 */
static uint8_t *put_time(struct xp_perfetto_proto *s, uint8_t *q, uint64_t ts)
{
	if (ts >= s->clock) {
		q = xp_pb_put_uint(q, PKT_TIMESTAMP, ts - s->clock);
		s->clock = ts;
		return q;
	}
	q = xp_pb_put_uint(q, PKT_TS_CLOCK_ID, CLOCK_BOOTTIME);
	return xp_pb_put_uint(q, PKT_TIMESTAMP, ts);
}

/*
 * One TrackEvent packet; the slice's flows go on its begin (or instant).
 * Names and categories new to the sequence go first in a packet of their
 * own. The packet is written in place after one check for room: it is
 * shorter than 128 bytes, and so is its TrackEvent, so each length is one
 * byte, filled in at the end.
 */
static void track_event(struct xp_perfetto *p, const struct pending *e, int type, uint64_t ts)
{
	struct xp_perfetto_proto *s = p->pb;
	struct xp_pb *o = &s->out;
	bool named = type != TYPE_SLICE_END;
	uint8_t *q, *pkt, *te;

	if (named && (e->name > s->names.written || e->cat > s->cats.written)) {
		size_t m = packet_begin(s, SEQ_NEEDS_STATE), id = xp_pb_begin(o, PKT_INTERNED);

		interned_new(o, &s->cats, ID_CATEGORIES, e->cat);
		interned_new(o, &s->names, ID_NAMES, e->name);
		xp_pb_end(o, id);
		xp_pb_end(o, m);
	}
	follow_track(s, e->uuid);
	if (o->cap - o->n < PACKET_MAX + 2 && !xp_pb_reserve(o, PACKET_MAX + 2))
		return;
	q = xp_pb_put_tag(o->b + o->n, TRACE_PACKET, XP_PB_LEN);
	pkt = ++q;
	/* every event needs the sequence's state: its clock, and but for an end its names */
	q = xp_pb_put_uint(q, PKT_SEQ_ID, SEQ_ID);
	q = xp_pb_put_uint(q, PKT_SEQ_FLAGS, SEQ_NEEDS_STATE);
	q = put_time(s, q, ts);
	q = xp_pb_put_tag(q, PKT_TRACK_EVENT, XP_PB_LEN);
	te = ++q;
	q = xp_pb_put_uint(q, TE_TYPE, (uint64_t)type);
	if (e->uuid != s->track)
		q = xp_pb_put_uint(q, TE_TRACK_UUID, e->uuid);
	if (named) {
		q = xp_pb_put_uint(q, TE_CATEGORY_IIDS, e->cat);
		q = xp_pb_put_uint(q, TE_NAME_IID, e->name);
		for (int i = 0; i < e->nflow; i++)
			q = xp_pb_put_fixed64(q, TE_FLOW_IDS, e->flow[i]);
		for (int i = 0; i < e->nterm; i++)
			q = xp_pb_put_fixed64(q, TE_TERMINATING_FLOW_IDS, e->term[i]);
	}
	te[-1] = (uint8_t)(q - te);
	pkt[-1] = (uint8_t)(q - pkt);
	o->n = (size_t)(q - o->b);
	if (o->n >= FLUSH_AT)
		flush_out(p);
}

/* The held-back slice ends up to `upto`, the earliest first. */
static void ends_upto(struct xp_perfetto *p, uint64_t upto)
{
	struct xp_perfetto_proto *s = p->pb;

	while (s->nends && s->ends[s->nends - 1].ts <= upto) {
		struct pending e = { .uuid = s->ends[s->nends - 1].uuid };

		s->nends--;
		track_event(p, &e, TYPE_SLICE_END, s->ends[s->nends].ts);
	}
}

/*
 * A slice's begin (or an instant) is written at once, after the held-back
 * ends before it; its end is held back until an event after it, so that
 * times mostly rise (a time before the last is written in full, not as a
 * delta). An end at the same time as a begin goes first: slices nest.
 */
static void write_pending(struct xp_perfetto *p, const struct pending *e)
{
	struct xp_perfetto_proto *s = p->pb;
	unsigned i;

	ends_upto(p, e->start);
	if (e->instant) {
		track_event(p, e, TYPE_INSTANT, e->start);
		return;
	}
	track_event(p, e, TYPE_SLICE_BEGIN, e->start);
	if (e->end == NO_END)
		return;
	if (s->nends == ENDS) {	/* full: the earliest goes now */
		struct pending x = { .uuid = s->ends[--s->nends].uuid };

		track_event(p, &x, TYPE_SLICE_END, s->ends[s->nends].ts);
	}
	for (i = s->nends++; i > 0 && s->ends[i - 1].ts < e->end; i--)
		s->ends[i] = s->ends[i - 1];
	s->ends[i].ts = e->end;
	s->ends[i].uuid = e->uuid;
}

/* A slot at the window's end, writing the oldest when it is full. */
static struct pending *window_push(struct xp_perfetto *p)
{
	struct xp_perfetto_proto *s = p->pb;
	struct pending *e;

	if (s->count == WINDOW) {
		write_pending(p, &s->win[s->head]);
		s->head = (s->head + 1) % WINDOW;
		s->count--;
	}
	e = &s->win[(s->head + s->count++) % WINDOW];
	memset(e, 0, sizeof(*e));
	return e;
}

void xp_perfetto_proto_push(struct xp_perfetto *p, uint64_t uuid, uint32_t cat, uint32_t name,
			    uint64_t start, uint64_t end, bool instant)
{
	struct pending *e;

	if (!uuid || !cat || !name) {
		p->oom = true;
		return;
	}
	e = window_push(p);
	e->uuid = uuid;
	e->cat = cat;
	e->name = name;
	e->start = start;
	e->end = end;
	e->instant = instant;
}

void xp_perfetto_proto_slice(struct xp_perfetto *p, uint32_t pid, uint32_t tid, const char *cat,
			     const char *name, uint64_t rel_start, uint64_t rel_end, bool instant)
{
	xp_perfetto_proto_push(p, xp_perfetto_uuid(p, pid, tid), xp_perfetto_proto_intern(&p->pb->cats, cat),
			       xp_perfetto_proto_intern(&p->pb->names, name), rel_start, rel_end, instant);
}

void xp_perfetto_proto_flow(struct xp_perfetto *p, uint64_t id, bool start, uint32_t pid, uint32_t tid,
			    uint64_t rel_ts)
{
	struct xp_perfetto_proto *s = p->pb;
	uint64_t uuid = xp_perfetto_uuid(p, pid, tid);
	struct pending *best = NULL, *e;

	/* the innermost held-back slice of that track enclosing ts: the latest begun, then the shortest */
	for (unsigned k = 0; k < s->count; k++) {
		e = &s->win[(s->head + k) % WINDOW];
		if (e->uuid != uuid || e->instant || e->start > rel_ts || e->end < rel_ts)
			continue;
		if (!best || e->start > best->start || (e->start == best->start && e->end <= best->end))
			best = e;
	}
	if (!best || (start ? best->nflow : best->nterm) == 2) {
		/* nothing to bind to any more: an instant carries the arrow's end */
		xp_perfetto_proto_push(p, uuid, xp_perfetto_proto_intern(&s->cats, "flow"),
				       xp_perfetto_proto_intern(&s->names, start ? "flow start" : "flow end"),
				       rel_ts, rel_ts, true);
		best = s->count ? &s->win[(s->head + s->count - 1) % WINDOW] : NULL;
		if (!best)
			return;
	}
	if (start)
		best->flow[best->nflow++] = id;
	else
		best->term[best->nterm++] = id;
}

void xp_perfetto_proto_finish(struct xp_perfetto *p)
{
	struct xp_perfetto_proto *s = p->pb;

	/* spans still open: begun, never ended */
	for (size_t i = 0; i < s->abcap; i++)
		if (s->ab[i].owner)
			xp_perfetto_proto_push(p, xp_perfetto_proto_async_lane(p, s->ab[i].owner, s->ab[i].name,
										       s->ab[i].ts, NO_END),
					       s->ab[i].cat, s->ab[i].name, s->ab[i].ts, NO_END, false);
	for (; s->count; s->count--, s->head = (s->head + 1) % WINDOW)
		write_pending(p, &s->win[s->head]);
	ends_upto(p, UINT64_MAX - 1);	/* NO_END is never held */
	if (s->out.oom)
		p->oom = true;
	flush_out(p);
	if (s->z)
		libdeflate_free_compressor(s->z);
	free(s->zbuf);
	xp_pb_free(&s->out);
	xp_perfetto_proto_intern_free(&s->names);
	xp_perfetto_proto_intern_free(&s->cats);
	free(s->ab);
	free(s->lanes);
	free(s);
	p->pb = NULL;
}
