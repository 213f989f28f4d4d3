/*
 * The packed records of trace file format 2 (tracefile.h): each record of a
 * block coded field by field as its kind describes (enum xp_pack_code in
 * core/record_kind.h), so that an ioctl takes about 16 bytes instead of 80, and
 * unpacked back into exactly the bytes that were packed. Blocks are coded
 * alone: a block's state (the previous time, the interned values) starts
 * empty, so a file cut short still reads up to its last whole block.
 *
 * A record is
 *   varint type, varint size, varint cpu, zigzag(ts_ns - previous ts_ns),
 *   pid interned, zigzag(tid - pid),
 *   then the plan of its type, segment by segment while a segment ends within
 *   `size`, then the rest of the record as bytes.
 * Bytes are zero runs and literal runs: varint zeros, varint literal length,
 * the literal, ... until the length is filled. An interned value is varint 0
 * and its bytes the first time in a block, else varint 1 + its index.
 */
#ifndef XP_CORE_PACK_H
#define XP_CORE_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/record_kind.h"
#include "core/varint.h"
#include "shared/record.h"

#define XP_PACK_MAX_SEGS 64		/* segments of one type's plan */
#define XP_PACK_MAX_PLANS 64		/* types with a plan */
#define XP_PACK_MAX_SLOTS 128		/* interned fields, over all plans */
#define XP_PACK_INTERN_MAX 1024		/* values interned per field and block */
#define XP_PACK_MAX_REC 65535		/* hdr.size's largest */

/* ---- plans and the state of one block ------------------------------------ */

struct xp_pack_seg {
	uint16_t off, size;
	uint8_t code;		/* enum xp_pack_code */
	uint8_t slot;		/* INTERN: its table */
};

struct xp_pack;

struct xp_pack *xp_pack_new(void);
void xp_pack_free(struct xp_pack *p);

/*
 * Adds the plan of a kind in use: its described fields in offset order, the
 * gaps between them as bytes. Kinds without a description need none.
 * 0, -EINVAL for a description that overlaps itself or is out of range,
 * -E2BIG past the limits above.
 */
int xp_pack_plan_kind(struct xp_pack *p, const struct xp_rec_kind *k);
/*
 * Adds a plan as a file carries it (whole segments from the header's end on,
 * no gaps). 0, or -EBADMSG with a reason in why.
 */
int xp_pack_plan_add(struct xp_pack *p, uint16_t type, const struct xp_pack_seg *segs, unsigned int n,
		     const char **why);
/* The plans, for the file (tracefile_write.c): how many, and each. */
unsigned int xp_pack_nplans(const struct xp_pack *p);
uint16_t xp_pack_plan_at(const struct xp_pack *p, unsigned int i, const struct xp_pack_seg **segs,
			 unsigned int *n);

/* Starts a block: no previous time, nothing interned. */
void xp_pack_reset(struct xp_pack *p);

/* The most bytes a record of `size` bytes can pack into. */
static inline size_t xp_pack_bound(size_t size) { return 2 * size + 64; }

/* Packs the record h (hdr.size bytes) at out (xp_pack_bound bytes free); returns the bytes written. */
size_t xp_pack_rec(struct xp_pack *p, const struct xp_rec_hdr *h, uint8_t *out);

/*
 * Unpacks one record from *in (not past end) into rec (XP_PACK_MAX_REC bytes,
 * 8-aligned) and advances *in. 0, or -EBADMSG with a reason in why.
 */
int xp_unpack_rec(struct xp_pack *p, const uint8_t **in, const uint8_t *end, void *rec, const char **why);

#endif
