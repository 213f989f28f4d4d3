/* The flight recorder's ring of records (flight_ring.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/flight_ring.h"

struct xp_fring_blk {
	struct xp_fring_blk *next;
	uint64_t arrived_ns;	/* when its newest record arrived */
	uint64_t oldest_ts;	/* the least ts_ns of its records */
	size_t used;
	uint64_t count;
	uint64_t data[XP_FRING_BLOCK / 8];	/* records, each padded to 8 bytes */
};

#define BLK_BYTES sizeof(struct xp_fring_blk)

void xp_fring_init(struct xp_fring *r, size_t max_bytes, uint64_t keep_ns)
{
	memset(r, 0, sizeof(*r));
	r->max_bytes = max_bytes < 2 * BLK_BYTES ? 2 * BLK_BYTES : max_bytes;
	r->keep_ns = keep_ns;
}

static void drop_head(struct xp_fring *r, uint64_t *blocks, uint64_t *records)
{
	struct xp_fring_blk *b = r->head;

	r->head = b->next;
	if (!r->head)
		r->tail = NULL;
	r->bytes -= BLK_BYTES;
	r->records -= b->count;
	(*blocks)++;
	*records += b->count;
	free(b);
}

int xp_fring_add(struct xp_fring *r, const struct xp_rec_hdr *h, uint64_t now_ns)
{
	size_t n = ((size_t)h->size + 7) & ~(size_t)7;
	struct xp_fring_blk *b = r->tail;

	if (h->size < sizeof(*h) || n > XP_FRING_BLOCK)
		return -EINVAL;
	if (!b || b->used + n > XP_FRING_BLOCK) {
		/* the new block takes the place of the oldest when the bound is reached */
		while (r->head && r->bytes + BLK_BYTES > r->max_bytes)
			drop_head(r, &r->cut_blocks, &r->cut_records);
		if (!(b = malloc(BLK_BYTES)))
			return -ENOMEM;
		b->next = NULL;
		b->used = 0;
		b->count = 0;
		b->oldest_ts = h->ts_ns;
		if (r->tail)
			r->tail->next = b;
		else
			r->head = b;
		r->tail = b;
		r->bytes += BLK_BYTES;
		if (r->bytes > r->peak_bytes)
			r->peak_bytes = r->bytes;
	}
	memcpy((uint8_t *)b->data + b->used, h, h->size);
	b->used += n;
	b->count++;
	b->arrived_ns = now_ns;
	if (h->ts_ns < b->oldest_ts)
		b->oldest_ts = h->ts_ns;
	r->records++;
	return 0;
}

void xp_fring_age(struct xp_fring *r, uint64_t now_ns)
{
	/* the newest block stays: records keep arriving into it */
	while (r->head && r->head != r->tail && r->head->arrived_ns + r->keep_ns < now_ns)
		drop_head(r, &r->aged_blocks, &r->aged_records);
}

int xp_fring_walk(const struct xp_fring *r, uint64_t from_ns, uint64_t to_ns,
		  int (*fn)(void *ctx, const struct xp_rec_hdr *h), void *ctx)
{
	int err;

	for (const struct xp_fring_blk *b = r->head; b; b = b->next) {
		for (size_t off = 0; off < b->used;) {
			const struct xp_rec_hdr *h = (const void *)((const uint8_t *)b->data + off);

			off += ((size_t)h->size + 7) & ~(size_t)7;
			if (h->ts_ns >= from_ns && h->ts_ns <= to_ns && (err = fn(ctx, h)))
				return err;
		}
	}
	return 0;
}

uint64_t xp_fring_oldest(const struct xp_fring *r)
{
	uint64_t least = 0;

	for (const struct xp_fring_blk *b = r->head; b; b = b->next)
		if (!least || b->oldest_ts < least)
			least = b->oldest_ts;
	return least;
}

void xp_fring_free(struct xp_fring *r)
{
	while (r->head) {
		struct xp_fring_blk *b = r->head;

		r->head = b->next;
		free(b);
	}
	r->tail = NULL;
	r->bytes = 0;
	r->records = 0;
}
