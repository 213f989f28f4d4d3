/*
 * The protobuf format's async spans (the JSON's "b"/"e"): a span is kept
 * open by (id, name, cat) until its end, then written as a slice on a
 * lane, a child track of the thread it began on named after it, with as
 * many lanes as spans overlap ("queued (2)").
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/perfetto_int.h"
#include "sinks/perfetto_proto_int.h"

/* The open span keyed (id, name, cat), or the free slot where it would go. */
static struct async_begin *async_slot(struct xp_perfetto_proto *s, uint64_t id, uint32_t name, uint32_t cat)
{
	size_t i = (id * 0x9e3779b97f4a7c15ull ^ name * 0x85ebca6bu ^ cat) & (s->abcap - 1);

	while (s->ab[i].owner && (s->ab[i].id != id || s->ab[i].name != name || s->ab[i].cat != cat))
		i = (i + 1) & (s->abcap - 1);
	return &s->ab[i];
}

static bool async_grow(struct xp_perfetto_proto *s)
{
	struct async_begin *old = s->ab;
	size_t oldcap = s->abcap;

	s->abcap = oldcap ? oldcap * 2 : 64;
	if (!(s->ab = calloc(s->abcap, sizeof(*s->ab)))) {
		s->ab = old;
		s->abcap = oldcap;
		return false;
	}
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].owner)
			*async_slot(s, old[i].id, old[i].name, old[i].cat) = old[i];
	free(old);
	return true;
}

/* Linear probing without tombstones: the run after a removed slot moves up. */
static void async_remove(struct xp_perfetto_proto *s, struct async_begin *a)
{
	size_t j = (size_t)(a - s->ab);

	a->owner = 0;
	s->abn--;
	for (;;) {
		struct async_begin moved;

		j = (j + 1) & (s->abcap - 1);
		if (!s->ab[j].owner)
			return;
		moved = s->ab[j];
		s->ab[j].owner = 0;
		*async_slot(s, moved.id, moved.name, moved.cat) = moved;
	}
}

uint64_t xp_perfetto_proto_async_lane(struct xp_perfetto *p, uint64_t owner, uint32_t name, uint64_t start,
				      uint64_t end)
{
	struct xp_perfetto_proto *s = p->pb;
	struct lanes *l = NULL;
	char track[XP_PERFETTO_LANE_NAME + 16];
	int k, oldest = 0;

	for (size_t i = s->nlanes; i-- > 0;)
		if (s->lanes[i].owner == owner && s->lanes[i].name == name) {
			l = &s->lanes[i];
			break;
		}
	if (!l) {
		if (s->nlanes == s->lanecap) {
			size_t cap = s->lanecap ? s->lanecap * 2 : 16;
			struct lanes *v = realloc(s->lanes, cap * sizeof(*v));

			if (!v)
				return 0;
			s->lanes = v;
			s->lanecap = cap;
		}
		l = &s->lanes[s->nlanes++];
		memset(l, 0, sizeof(*l));
		l->owner = owner;
		l->name = name;
	}
	for (k = 0; k < l->n; k++) {
		if (l->end[k] <= start)
			break;
		if (l->end[k] < l->end[oldest])
			oldest = k;
	}
	if (k == l->n && l->n == ASYNC_LANES)
		k = oldest;	/* more spans at once than lanes: they overlap on one */
	else if (k == l->n) {
		const char *nm = s->names.by_iid[name - 1];

		if (k)
			snprintf(track, sizeof(track), "%.*s (%d)", XP_PERFETTO_LANE_NAME, nm, k + 1);
		else
			snprintf(track, sizeof(track), "%.*s", XP_PERFETTO_LANE_NAME, nm);
		l->uuid[k] = ++p->next_uuid;
		l->n++;
		xp_perfetto_proto_descriptor(p, l->uuid[k], owner, track, NULL);
	}
	l->end[k] = end;
	return l->uuid[k];
}

void xp_perfetto_proto_async(struct xp_perfetto *p, bool begin, uint32_t pid, uint32_t tid,
			     const char *cat, const char *name, uint64_t id, uint64_t rel_ts)
{
	struct xp_perfetto_proto *s = p->pb;
	uint32_t c = xp_perfetto_proto_intern(&s->cats, cat), n = xp_perfetto_proto_intern(&s->names, name);
	struct async_begin *a;

	if (!c || !n || ((s->abn + 1) * 2 > s->abcap && !async_grow(s))) {
		p->oom = true;
		return;
	}
	a = async_slot(s, id, n, c);
	if (begin) {
		uint64_t owner = xp_perfetto_uuid(p, pid, tid);

		if (!owner) {
			p->oom = true;
			return;
		}
		s->abn += !a->owner;
		*a = (struct async_begin){ id, owner, rel_ts, n, c };	/* a second begin replaces the first */
		return;
	}
	if (!a->owner)
		return;	/* an end without its begin: the JSON's lone "e" */
	{
		struct async_begin b = *a;
		uint64_t end = rel_ts > b.ts ? rel_ts : b.ts;

		async_remove(s, a);
		xp_perfetto_proto_push(p, xp_perfetto_proto_async_lane(p, b.owner, b.name, b.ts, end),
				       b.cat, b.name, b.ts, end, false);
	}
}
