/* What mem's per-driver decoders (mem_amdgpu.c, mem_i915.c, mem_xe.c) share
 * with the common state in mem_stats.c; not part of the API (mem_stats.h is). */
#ifndef XP_CAPS_MEM_INT_H
#define XP_CAPS_MEM_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "caps/mem/mem_stats.h"

/* The per-process row of the task a record fired in (-1: table full). */
int xp_mem_proc_of(struct xp_mem_state *s, const struct xp_rawtp_rec *r);
/* The ring named by a record's string 0 (-1: table full). */
int xp_mem_ring_of(struct xp_mem_state *s, const struct xp_rawtp_rec *r);
/* Submissions waiting for their next event, keyed by fence (context, seqno). */
void xp_mem_pending_push(struct xp_mem_state *s, enum xp_mem_pend kind, uint64_t ctx, uint64_t seqno,
			 uint64_t ts, int ring, int proc);
bool xp_mem_pending_take(struct xp_mem_state *s, enum xp_mem_pend kind, uint64_t ctx, uint64_t seqno,
			 int proc, struct xp_mem_pending *out);
uint64_t xp_mem_since(uint64_t now, uint64_t then);
/* A live object by its address; created when `add`. */
struct xp_mem_obj *xp_mem_obj_find(struct xp_mem_state *s, uint64_t obj, bool add);

/* Field `name` of record r through layout l (both in scope), as in every decoder. */
#define F(name, v) xp_rawtp_u64(l, r, name, v)

/* Each driver's records (their event indices are in mem_stats.h). */
int xp_mem_amdgpu(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r);
int xp_mem_i915(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r);
int xp_mem_i915_rq(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r);
int xp_mem_xe(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r);

#endif
