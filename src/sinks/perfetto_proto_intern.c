/*
 * The protobuf format's interned strings (names and categories): each text
 * once, by an iid from 1, found again by its hash or by the address it was
 * last passed at.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/perfetto_proto_int.h"

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h ? h : 1;
}

static bool intern_grow(struct intern *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	void *slot = calloc(cap, sizeof(*t->slot));
	char **by = realloc(t->by_iid, cap / 2 * sizeof(*by));

	if (by)
		t->by_iid = by;
	if (!slot || !by) {
		free(slot);
		return false;
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	for (size_t k = 0; k < t->n; k++) {	/* re-place every string by its iid */
		uint32_t h = str_hash(t->by_iid[k]);
		size_t i = h & (cap - 1);

		while (t->slot[i].iid)
			i = (i + 1) & (cap - 1);
		t->slot[i].hash = h;
		t->slot[i].iid = (uint32_t)k + 1;
	}
	return true;
}

uint32_t xp_perfetto_proto_intern(struct intern *t, const char *s)
{
	/* an address seen lately: its text is compared, a buffer may have been reused */
	size_t r = ((uintptr_t)s >> 3) & (INTERN_RECENT - 1);
	uint32_t h;
	size_t i;

	if (t->recent[r].s == s && !strcmp(t->by_iid[t->recent[r].iid - 1], s))
		return t->recent[r].iid;
	h = str_hash(s);
	if ((t->n + 1) * 2 > t->cap && !intern_grow(t))
		return 0;
	for (i = h & (t->cap - 1); t->slot[i].iid; i = (i + 1) & (t->cap - 1))
		if (t->slot[i].hash == h && !strcmp(t->by_iid[t->slot[i].iid - 1], s))
			break;
	if (!t->slot[i].iid) {
		if (!(t->by_iid[t->n] = strdup(s)))
			return 0;
		t->slot[i].hash = h;
		t->slot[i].iid = (uint32_t)++t->n;
	}
	t->recent[r].s = s;
	t->recent[r].iid = t->slot[i].iid;
	return t->slot[i].iid;
}

void xp_perfetto_proto_intern_free(struct intern *t)
{
	for (size_t k = 0; k < t->n; k++)
		free(t->by_iid[k]);
	free(t->by_iid);
	free(t->slot);
}
