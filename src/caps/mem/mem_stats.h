/*
 * Vendor memory and submission events (amdgpu, i915, xe): decoding the raw
 * records with the layouts parsed from tracefs, and the analysis.
 * No libbpf: live capture and the unit tests share it.
 *
 * Attribution. Events that fire in the ioctl of the process that caused them
 * are counted for that process: amdgpu_bo_create, amdgpu_cs_ioctl,
 * i915_gem_object_create, i915_gem_object_fault (the faulting process),
 * xe_bo_create, xe_exec_queue_create, xe_sched_job_create. The others fire
 * in interrupts, the scheduler's workers, reclaim or eviction, and are
 * counted per device/ring only: amdgpu_iv (interrupt; its pasid names the
 * process's VM), amdgpu_sched_run_job, amdgpu_bo_move and xe_bo_move (may
 * run in whichever process's allocation forced the move), i915_gem_shrink,
 * i915 evictions, xe_vma_pagefault (GT fault worker). i915 objects destroyed
 * (often in a worker) are charged back to the process that created them.
 * i915 requests: i915_request_add runs in the submitting process (or a driver
 * worker, for the driver's own requests), i915_request_retire wherever
 * completed requests are reaped, so add -> retire is per engine; a request's
 * wait_begin/wait_end run in the process that waits on it.
 */
#ifndef XP_CAPS_MEM_STATS_H
#define XP_CAPS_MEM_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/hist.h"
#include "core/rawtp_layout.h"
#include "core/record_kind.h"

enum xp_mem_tp {
	XP_MEM_AMD_BO_CREATE = 0,
	XP_MEM_AMD_BO_MOVE,
	XP_MEM_AMD_CS_IOCTL,
	XP_MEM_AMD_RUN_JOB,
	XP_MEM_AMD_IV,
	XP_MEM_I915_CREATE,
	XP_MEM_I915_DESTROY,
	XP_MEM_I915_BIND,
	XP_MEM_I915_UNBIND,
	XP_MEM_I915_EVICT,
	XP_MEM_I915_EVICT_NODE,
	XP_MEM_I915_EVICT_VM,
	XP_MEM_I915_SHRINK,
	XP_MEM_I915_FAULT,
	XP_MEM_XE_QUEUE_CREATE,
	XP_MEM_XE_QUEUE_DESTROY,
	XP_MEM_XE_JOB_CREATE,
	XP_MEM_XE_JOB_RUN,
	XP_MEM_XE_BO_MOVE,
	XP_MEM_XE_VMA_FAULT,
	XP_MEM_XE_BO_CREATE,
	/* appended, so that trace files with the earlier table still decode */
	XP_MEM_I915_RQ_ADD,
	XP_MEM_I915_RQ_RETIRE,
	XP_MEM_I915_RQ_WAIT_BEGIN,
	XP_MEM_I915_RQ_WAIT_END,
	XP_MEM_NEV,
};

extern const struct xp_rawtp_event xp_mem_events[XP_MEM_NEV];

/* amdgpu memory domains (AMDGPU_GEM_DOMAIN_*) and TTM placements (TTM_PL_*) */
#define XP_AMD_DOMAIN_CPU 0x1
#define XP_AMD_DOMAIN_GTT 0x2
#define XP_AMD_DOMAIN_VRAM 0x4
#define XP_TTM_PL_SYSTEM 0
#define XP_TTM_PL_TT 1
#define XP_TTM_PL_VRAM 2
#define XP_MEM_PLACEMENTS 8		/* 0..6 named, 7: other */

const char *xp_amd_placement_name(unsigned int pl);

struct xp_mem_proc {
	uint32_t pid;
	char comm[XP_COMM_LEN];
	uint64_t amd_bos, amd_bo_bytes, amd_vram_in_gtt, amd_submits;
	uint64_t i915_creates, i915_create_bytes, i915_live_objs, i915_live_bytes, i915_faults;
	uint64_t i915_requests, i915_waits, i915_wait_ns;
	uint64_t xe_bos, xe_bo_bytes, xe_queues, xe_jobs;
};

struct xp_mem_ring {
	char name[XP_RAWTP_STR];
	uint64_t submits, run, unmatched;
	struct xp_hist delay;		/* cs_ioctl -> sched_run_job */
};

struct xp_mem_xe_move {		/* xe moves between two placements, by name */
	char from[16], to[16];
	uint64_t count, bytes;
};

/* xe engine classes (enum xe_engine_class), the last slot for any other value */
#define XP_XE_CLASSES 7
const char *xp_xe_class_name(unsigned int c);

/* an i915 engine: device (DRM minor) and uabi class:instance */
struct xp_mem_engine {
	uint32_t dev;
	uint16_t class, instance;
	uint64_t added, retired, add_unseen;
	struct xp_hist life;		/* i915_request_add -> i915_request_retire */
};

/* "rcs0", "bcs1", ...: the engine's usual name from its uabi class and instance */
const char *xp_i915_engine_name(const struct xp_mem_engine *e, char *buf, size_t len);

struct xp_mem_iv {
	uint32_t client, src, pasid;
	uint64_t count;
};

#define XP_MEM_MAX_PROCS 256
#define XP_MEM_MAX_RINGS 32
#define XP_MEM_MAX_IV 64
#define XP_MEM_MAX_XE_MOVES 16
#define XP_MEM_MAX_ENGINES 32
#define XP_MEM_MAX_PENDING 4096
#define XP_MEM_PEND_HASH 8192		/* buckets of pend_hash: twice the entries */
#define XP_MEM_OBJ_BITS 16		/* i915 objects tracked: 2^16 */

struct xp_mem_obj {		/* a live i915 object created while tracing */
	uint64_t obj, size;
	int32_t proc;		/* -1: free slot; -2: deleted */
	uint8_t bound_once, unbound;
};

/* what a pending entry waits for: its end event, matched on ctx/seqno */
enum xp_mem_pend {
	XP_PEND_AMD_SUBMIT,	/* amdgpu_cs_ioctl, ends at amdgpu_sched_run_job; ring index */
	XP_PEND_I915_RQ,	/* i915_request_add, ends at retire; engine index */
	XP_PEND_I915_WAIT,	/* i915_request_wait_begin, ends at wait_end in the same process */
};

struct xp_mem_pending {
	uint64_t ctx, seqno, ts;
	int16_t ring;
	uint8_t kind;
	int32_t proc;
};

struct xp_mem_state {
	uint32_t page_size;
	struct xp_mem_proc procs[XP_MEM_MAX_PROCS];
	int nprocs;
	/* amdgpu */
	uint64_t amd_bos, amd_bo_bytes, amd_bo_bytes_by_pref[3];	/* VRAM, GTT, CPU-only preferred */
	uint64_t amd_vram_in_gtt, amd_vram_in_gtt_bytes;
	uint64_t amd_moves, amd_move_bytes;
	uint64_t amd_move_n[XP_MEM_PLACEMENTS][XP_MEM_PLACEMENTS];	/* [from][to] */
	uint64_t amd_move_b[XP_MEM_PLACEMENTS][XP_MEM_PLACEMENTS];
	struct xp_mem_ring rings[XP_MEM_MAX_RINGS];
	int nrings;
	struct xp_mem_pending pending[XP_MEM_MAX_PENDING];
	int npending;
	/*
	 * Pending entries per hash of (kind, ctx, seqno): an end with none
	 * is told at once, one with a single entry is found from the newest
	 * end, where a start waits when older ones were left unmatched (their
	 * end lost), so an end does not walk them all.
	 */
	uint16_t pend_hash[XP_MEM_PEND_HASH];
	uint64_t amd_iv;
	struct xp_mem_iv iv[XP_MEM_MAX_IV];
	int niv;
	/* i915 */
	uint64_t i915_creates, i915_create_bytes, i915_destroys, i915_destroy_bytes;
	uint64_t i915_destroy_untracked;	/* objects created before tracing began */
	uint64_t i915_binds, i915_bind_bytes, i915_unbinds, i915_rebinds;
	uint64_t i915_evicts, i915_evict_bytes, i915_evict_nodes, i915_evict_vms;
	uint64_t i915_shrinks, i915_shrink_target;
	uint64_t i915_faults[2][2];		/* [gtt][write] */
	struct xp_mem_obj *objs;
	uint32_t nobjs;
	struct xp_mem_engine engines[XP_MEM_MAX_ENGINES];
	int nengines;
	uint64_t i915_requests, i915_retires, i915_retire_unseen;
	uint64_t i915_waits, i915_wait_unseen;	/* unseen: wait_end without its begin */
	struct xp_hist i915_wait;
	/* xe */
	uint64_t xe_queues, xe_queue_destroys, xe_jobs, xe_jobs_run;
	uint64_t xe_queues_by_class[XP_XE_CLASSES];
	uint64_t xe_moves, xe_move_bytes, xe_vma_faults, xe_bos, xe_bo_bytes;
	uint64_t xe_moves_new, xe_move_new_bytes;	/* move_lacks_source: first placement, no copy */
	struct xp_mem_xe_move xe_move[XP_MEM_MAX_XE_MOVES];
	int nxe_moves;
	/* everything */
	uint64_t events, overflow;
};

/* Allocates the object table; -ENOMEM. page_size: 0 for 4096. */
int xp_mem_init(struct xp_mem_state *s, uint32_t page_size);
void xp_mem_free(struct xp_mem_state *s);
/* Decodes and adds one record; -ENOENT / -EBADMSG when it cannot be decoded. */
int xp_mem_add(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r);
/* A new interval: counts to zero; live objects, pending submits kept. */
void xp_mem_reset(struct xp_mem_state *s);
/* Pending entries of one kind (requests or submits still in flight); engine
 * or ring >= 0 counts only those of that engine/ring. */
uint64_t xp_mem_pending_count(const struct xp_mem_state *s, enum xp_mem_pend kind, int ring);
/* i915 objects created while tracing and still alive: leak candidates. */
uint64_t xp_mem_live_objects(const struct xp_mem_state *s, uint64_t *bytes);

/* Its record kind (raw amdgpu/i915/xe records (struct xp_rawtp_rec)), for its row. */
extern const struct xp_rec_kind xp_mem_rec_kind;

#endif
