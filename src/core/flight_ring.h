/*
 * The flight recorder's ring (`record --last`): the records of the last
 * seconds, kept in memory in blocks, bounded in bytes and in seconds. The
 * oldest block goes first, whole, when the bytes would pass the bound or
 * when its newest record arrived longer ago than the seconds kept; both are
 * counted apart (the bound in bytes loses a window, the age does not).
 */
#ifndef XP_CORE_FLIGHT_RING_H
#define XP_CORE_FLIGHT_RING_H

#include <stddef.h>
#include <stdint.h>
#include "shared/record.h"

#define XP_FRING_BLOCK (256u << 10)	/* bytes a block holds, header aside */

struct xp_fring_blk;

struct xp_fring {
	struct xp_fring_blk *head, *tail;	/* oldest, newest */
	size_t max_bytes;		/* the bound: blocks' sizes, headers included */
	uint64_t keep_ns;		/* a block is kept while its newest arrived within this */
	size_t bytes;			/* what the blocks take now */
	size_t peak_bytes;
	uint64_t records;		/* records in the ring now */
	uint64_t aged_blocks, aged_records;	/* let go by age: older than keep_ns */
	uint64_t cut_blocks, cut_records;	/* let go by the bound in bytes */
};

/* An empty ring of at most max_bytes (at least two blocks' worth) keeping keep_ns. */
void xp_fring_init(struct xp_fring *r, size_t max_bytes, uint64_t keep_ns);
/* Copies one record (h->size bytes) in, arrived at now_ns: 0 or -ENOMEM / -EINVAL. */
int xp_fring_add(struct xp_fring *r, const struct xp_rec_hdr *h, uint64_t now_ns);
/* Lets go of the blocks whose newest record arrived before now_ns - keep_ns. */
void xp_fring_age(struct xp_fring *r, uint64_t now_ns);
/*
 * Hands every record kept whose ts_ns lies in [from_ns, to_ns] to fn, in
 * the order they arrived: 0 or fn's negative return.
 */
int xp_fring_walk(const struct xp_fring *r, uint64_t from_ns, uint64_t to_ns,
		  int (*fn)(void *ctx, const struct xp_rec_hdr *h), void *ctx);
/* The ts_ns of the oldest record kept; 0 when empty. */
uint64_t xp_fring_oldest(const struct xp_fring *r);
void xp_fring_free(struct xp_fring *r);

#endif
