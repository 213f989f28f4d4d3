/*
 * dma_fence: the kernel's dma_fence tracepoints (include/trace/events/dma_fence.h),
 * decoded with the layouts parsed from tracefs, and the analysis. No libbpf:
 * live capture and the unit tests share it.
 *
 * A fence is (context, seqno) on a timeline named by its driver and timeline
 * strings. Its life runs from dma_fence_init (or dma_fence_emit, where the
 * driver says when it handed the fence to the device, as i915 does) to
 * dma_fence_signaled: how long the device took, for every driver, with or
 * without the DRM scheduler. A signal whose init was not seen (the fence was
 * created before tracing, or by a process the filters exclude) is counted
 * apart, never paired. Fences created while tracing and still unsignaled at
 * the end are reported as never signaled.
 *
 * Waits: dma_fence_wait_start -> dma_fence_wait_end in one thread is the time
 * that thread lost waiting for the device, per process and thread.
 *
 * Attribution. dma_fence_init fires where the fence is made (the submitting
 * process's ioctl for vgem and drm_sched's finished fences, a scheduler
 * worker for hardware fences); the waits in the waiting thread; signals
 * mostly in interrupts: fences created and waits count per process, the
 * rest per timeline only. From
 * 6.17 the events of the `dma_fence` class on a signaled fence name
 * "detached-driver" / "signaled-timeline": their timeline is found by the
 * fence's context instead.
 */
#ifndef XP_CAPS_FENCE_STATS_H
#define XP_CAPS_FENCE_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include "core/hist.h"
#include "core/rawtp_layout.h"
#include "core/record_kind.h"

/* Its record type: the next free id after enum xp_rec_type's (shared/record.h). */
#define XP_REC_FENCE 8

enum xp_fence_tp {
	XP_FENCE_INIT = 0,
	XP_FENCE_EMIT,
	XP_FENCE_ENABLE_SIGNAL,
	XP_FENCE_SIGNALED,
	XP_FENCE_WAIT_START,
	XP_FENCE_WAIT_END,
	XP_FENCE_DESTROY,
	XP_FENCE_NEV,
};

extern const struct xp_rawtp_event xp_fence_events[XP_FENCE_NEV];
extern const struct xp_rec_kind xp_fence_rec_kind;

#define XP_FENCE_MAX_TL 64
#define XP_FENCE_MAX_PROCS 256
#define XP_FENCE_MAX_THREADS 512
#define XP_FENCE_MAX_WAITS 1024	/* waits in progress */
#define XP_FENCE_BITS 16	/* fences in flight tracked: 2^16 */
#define XP_FENCE_CTX_BITS 12	/* context -> timeline cache */

struct xp_fence_tl {
	char driver[XP_RAWTP_STR], name[XP_RAWTP_STR];
	uint64_t created, emitted, signaled, signaled_unseen, enabled, destroyed, destroyed_unsignaled;
	uint64_t waits, wait_ns;
	uint64_t open;			/* created while tracing, not signaled yet (kept over intervals) */
	struct xp_hist life;		/* init (or emit) -> signaled */
};

struct xp_fence_proc {
	uint32_t pid;
	char comm[XP_COMM_LEN];
	uint64_t created, waits, wait_ns, wait_max;
	struct xp_hist wait;
};

struct xp_fence_thread {
	uint32_t pid, tid;
	char comm[XP_COMM_LEN];
	uint64_t waits, wait_ns, wait_max;
};

struct xp_fence_live {		/* a fence created while tracing, not signaled yet */
	uint32_t ctx, seqno;
	uint64_t init_ts, emit_ts;
	int16_t tl;			/* -1: free slot, -2: deleted */
};

struct xp_fence_wait {
	uint32_t tid, ctx, seqno;
	uint64_t ts;
};

struct xp_fence_state {
	struct xp_fence_tl tl[XP_FENCE_MAX_TL];
	int ntl;
	struct xp_fence_proc procs[XP_FENCE_MAX_PROCS];
	int nprocs;
	struct xp_fence_thread threads[XP_FENCE_MAX_THREADS];
	int nthreads;
	struct xp_fence_live *live;	/* open addressing on (context, seqno) */
	uint32_t nlive_slots;
	int16_t ctx_tl[1u << XP_FENCE_CTX_BITS];	/* context -> timeline, last seen; -1 none */
	uint32_t ctx_key[1u << XP_FENCE_CTX_BITS];
	struct xp_fence_wait waiting[XP_FENCE_MAX_WAITS];
	int nwaiting;
	/* counters of the interval */
	uint64_t events, created, signaled, signaled_unseen, waits, wait_unseen, overflow;
	struct xp_hist life, wait;
};

/* What one record completed, for --stream and Perfetto. */
struct xp_fence_done {
	int tl;			/* its timeline, -1: none known */
	bool paired;		/* signaled after a seen init, or wait_end after its start */
	uint64_t start;		/* init/emit or wait_start time, when paired */
	bool in_task;		/* an event of the causing task: hdr pid/tid are who did it */
	uint32_t ctx, seqno;
};

/* Allocates the fence table: -ENOMEM. */
int xp_fence_init(struct xp_fence_state *s);
void xp_fence_free(struct xp_fence_state *s);
/* Decodes and adds one record (`done` may be NULL); -ENOENT / -EBADMSG when it cannot be decoded. */
int xp_fence_add(struct xp_fence_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r,
		 struct xp_fence_done *done);
/* A new interval: counters to zero; timelines, fences in flight and waits in progress kept. */
void xp_fence_reset(struct xp_fence_state *s);
/* Fences created while tracing and not signaled (tl >= 0: of that timeline). */
uint64_t xp_fence_open(const struct xp_fence_state *s, int tl);
/* "vgem unbound": a timeline's name for reports and tracks. */
const char *xp_fence_tl_name(const struct xp_fence_tl *t, char *buf, size_t len);

#endif
