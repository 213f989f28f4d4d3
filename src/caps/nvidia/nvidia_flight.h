/*
 * The nvidia capability's flight recorder (--on-xid): the last seconds of
 * records kept in memory, and written as a trace file when an Xid comes.
 */
#ifndef XP_CAPS_NVIDIA_FLIGHT_H
#define XP_CAPS_NVIDIA_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "caps/nvidia/nvidia_stats.h"
#include "core/tracefile.h"

#define XP_NV_FLIGHT_MAX_BYTES (64u << 20)

struct xp_cap_inst;
struct xp_trigger;
/* record --trigger nvidia:xid[=CODE]: whether h is an Xid (of that code) */
bool xp_nv_xid_trigger(const struct xp_cap_inst *ci, const struct xp_trigger *t, const struct xp_rec_hdr *h,
			uint64_t *when);

struct xp_nv_flight {
	uint64_t keep_ns;
	unsigned char *buf;	/* records back to back, each padded to 8 */
	size_t head, tail, cap;	/* bytes: the oldest at head, the next free at tail (linear, compacted) */
	uint64_t records;
	uint64_t evicted_full;	/* records let go before their time: over the memory bound */
};

int xp_nv_flight_init(struct xp_nv_flight *fl, uint64_t keep_ns);
void xp_nv_flight_free(struct xp_nv_flight *fl);
/* Keeps a copy of the record; lets go of those older than the newest one's time - keep. */
void xp_nv_flight_add(struct xp_nv_flight *fl, const struct xp_rec_hdr *h);
/* The oldest record's time, 0 when empty. */
uint64_t xp_nv_flight_oldest(const struct xp_nv_flight *fl);
/*
 * The device files held when the oldest kept record was written: those held
 * now (`now`, n of them, as the analysis has them after every kept record)
 * with the kept opens undone and the kept closes redone. Returns how many
 * are in `out` (at most max).
 */
int xp_nv_flight_holders(const struct xp_nv_flight *fl, const struct xp_nv_hold *now, int n,
			 struct xp_nv_hold *out, int max);
/*
 * Writes the `npre` records of `pre` (what was so at the start: GPUs,
 * holders), then every kept record, to fd as a trace file with `m` and `st`
 * (its records set here).
 */
int xp_nv_flight_write(const struct xp_nv_flight *fl, int fd, struct xp_trace_meta *m,
		       struct xp_trace_stats *st, const struct xp_rec_hdr *const *pre, int npre);

#endif
