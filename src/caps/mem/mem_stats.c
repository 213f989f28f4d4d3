#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/mem/mem_int.h"
#include "core/tracefile.h"
#include "caps/mem/mem_stats.h"

const struct xp_rec_kind xp_mem_rec_kind = {
	.type = XP_REC_MEM, .min_size = sizeof(struct xp_rawtp_rec), .name = "mem",
	XP_RAWTP_PACK,
};

#define P true
const struct xp_rawtp_event xp_mem_events[XP_MEM_NEV] = {
	[XP_MEM_AMD_BO_CREATE] = { "amdgpu", "amdgpu_bo_create", { NULL }, P },
	[XP_MEM_AMD_BO_MOVE] = { "amdgpu", "amdgpu_bo_move", { NULL }, false },
	[XP_MEM_AMD_CS_IOCTL] = { "amdgpu", "amdgpu_cs_ioctl", { "ring" }, P },
	[XP_MEM_AMD_RUN_JOB] = { "amdgpu", "amdgpu_sched_run_job", { "ring" }, false },
	[XP_MEM_AMD_IV] = { "amdgpu", "amdgpu_iv", { NULL }, false },
	[XP_MEM_I915_CREATE] = { "i915", "i915_gem_object_create", { NULL }, P },
	[XP_MEM_I915_DESTROY] = { "i915", "i915_gem_object_destroy", { NULL }, false },
	[XP_MEM_I915_BIND] = { "i915", "i915_vma_bind", { NULL }, false },
	[XP_MEM_I915_UNBIND] = { "i915", "i915_vma_unbind", { NULL }, false },
	[XP_MEM_I915_EVICT] = { "i915", "i915_gem_evict", { NULL }, false },
	[XP_MEM_I915_EVICT_NODE] = { "i915", "i915_gem_evict_node", { NULL }, false },
	[XP_MEM_I915_EVICT_VM] = { "i915", "i915_gem_evict_vm", { NULL }, false },
	[XP_MEM_I915_SHRINK] = { "i915", "i915_gem_shrink", { NULL }, false },
	[XP_MEM_I915_FAULT] = { "i915", "i915_gem_object_fault", { NULL }, P },
	[XP_MEM_XE_QUEUE_CREATE] = { "xe", "xe_exec_queue_create", { "dev" }, P },
	[XP_MEM_XE_QUEUE_DESTROY] = { "xe", "xe_exec_queue_destroy", { "dev" }, false },
	[XP_MEM_XE_JOB_CREATE] = { "xe", "xe_sched_job_create", { "dev" }, P },
	[XP_MEM_XE_JOB_RUN] = { "xe", "xe_sched_job_run", { "dev" }, false },
	[XP_MEM_XE_BO_MOVE] = { "xe", "xe_bo_move", { "new_placement_name", "old_placement_name" }, false },
	[XP_MEM_XE_VMA_FAULT] = { "xe", "xe_vma_pagefault", { "dev" }, false },
	[XP_MEM_XE_BO_CREATE] = { "xe", "xe_bo_create", { "dev" }, P },
	[XP_MEM_I915_RQ_ADD] = { "i915", "i915_request_add", { NULL }, P },
	[XP_MEM_I915_RQ_RETIRE] = { "i915", "i915_request_retire", { NULL }, false },
	[XP_MEM_I915_RQ_WAIT_BEGIN] = { "i915", "i915_request_wait_begin", { NULL }, P },
	[XP_MEM_I915_RQ_WAIT_END] = { "i915", "i915_request_wait_end", { NULL }, P },
};
#undef P

const char *xp_amd_placement_name(unsigned int pl)
{
	static const char *const n[XP_MEM_PLACEMENTS] = { "system", "gtt", "vram", "gds", "gws",
							   "oa", "doorbell", "other" };

	return n[pl < XP_MEM_PLACEMENTS ? pl : XP_MEM_PLACEMENTS - 1];
}

const char *xp_xe_class_name(unsigned int c)
{
	static const char *const n[XP_XE_CLASSES] = { "render", "video_decode", "video_enhance",
						       "copy", "other", "compute", "unknown" };

	return n[c < XP_XE_CLASSES ? c : XP_XE_CLASSES - 1];
}

const char *xp_i915_engine_name(const struct xp_mem_engine *e, char *buf, size_t len)
{
	/* enum drm_i915_gem_engine_class: render, copy, video, video_enhance, compute */
	static const char *const n[] = { "rcs", "bcs", "vcs", "vecs", "ccs" };

	if (e->class < sizeof(n) / sizeof(n[0]))
		snprintf(buf, len, "%s%u", n[e->class], e->instance);
	else
		snprintf(buf, len, "class%u:%u", e->class, e->instance);
	return buf;
}

int xp_mem_init(struct xp_mem_state *s, uint32_t page_size)
{
	memset(s, 0, sizeof(*s));
	s->page_size = page_size ? page_size : 4096;
	s->nobjs = 1u << XP_MEM_OBJ_BITS;
	s->objs = calloc(s->nobjs, sizeof(*s->objs));
	if (!s->objs)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nobjs; i++)
		s->objs[i].proc = -1;
	return 0;
}

void xp_mem_free(struct xp_mem_state *s)
{
	free(s->objs);
	s->objs = NULL;
}

int xp_mem_proc_of(struct xp_mem_state *s, const struct xp_rawtp_rec *r)
{
	struct xp_mem_proc *p;

	for (int i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == r->hdr.pid)
			return i;
	if (s->nprocs == XP_MEM_MAX_PROCS) {
		s->overflow++;
		return -1;
	}
	p = &s->procs[s->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = r->hdr.pid;
	memcpy(p->comm, r->comm, XP_COMM_LEN);
	p->comm[XP_COMM_LEN - 1] = '\0';
	return s->nprocs++;
}

int xp_mem_ring_of(struct xp_mem_state *s, const struct xp_rawtp_rec *r)
{
	char name[XP_RAWTP_STR];

	xp_rawtp_rec_str(r, 0, name, sizeof(name));
	for (int i = 0; i < s->nrings; i++)
		if (!strcmp(s->rings[i].name, name))
			return i;
	if (s->nrings == XP_MEM_MAX_RINGS) {
		s->overflow++;
		return -1;
	}
	memset(&s->rings[s->nrings], 0, sizeof(s->rings[0]));
	memcpy(s->rings[s->nrings].name, name, sizeof(name));
	return s->nrings++;
}

static uint16_t *pend_bucket(struct xp_mem_state *s, unsigned kind, uint64_t ctx, uint64_t seqno)
{
	uint64_t h = (ctx * 0x9e3779b97f4a7c15ull) ^ (seqno * 0xc2b2ae3d27d4eb4full) ^ kind;

	return &s->pend_hash[(h ^ (h >> 29)) & (XP_MEM_PEND_HASH - 1)];
}

static void pending_remove(struct xp_mem_state *s, int i)
{
	struct xp_mem_pending *q = &s->pending[i];

	--*pend_bucket(s, q->kind, q->ctx, q->seqno);
	memmove(q, q + 1, sizeof(*q) * (size_t)(s->npending - i - 1));
	s->npending--;
}

/* A start event waiting for its end; the oldest is dropped (and counted) when full. */
void xp_mem_pending_push(struct xp_mem_state *s, enum xp_mem_pend kind, uint64_t ctx, uint64_t seqno,
			 uint64_t ts, int ring, int proc)
{
	if (s->npending == XP_MEM_MAX_PENDING) {
		pending_remove(s, 0);
		s->overflow++;
	}
	++*pend_bucket(s, kind, ctx, seqno);
	s->pending[s->npending++] = (struct xp_mem_pending){ .ctx = ctx, .seqno = seqno, .ts = ts,
							     .ring = (int16_t)ring, .kind = (uint8_t)kind,
							     .proc = proc };
}

static bool pending_is(const struct xp_mem_pending *q, unsigned kind, uint64_t ctx, uint64_t seqno, int proc)
{
	return q->kind == kind && q->ctx == ctx && q->seqno == seqno && (proc < 0 || q->proc == proc);
}

/* Takes the oldest pending start of this kind for ctx/seqno (and process, when
 * proc >= 0); false when none was seen. */
bool xp_mem_pending_take(struct xp_mem_state *s, enum xp_mem_pend kind, uint64_t ctx, uint64_t seqno,
			 int proc, struct xp_mem_pending *out)
{
	uint16_t n = *pend_bucket(s, kind, ctx, seqno);
	int i;

	if (!n)
		return false;
	if (n == 1) {	/* the one entry of its bucket: the only candidate, oldest or not */
		for (i = s->npending - 1; i >= 0 && !pending_is(&s->pending[i], kind, ctx, seqno, -1); i--)
			;
		if (i < 0 || !pending_is(&s->pending[i], kind, ctx, seqno, proc))
			return false;
	} else {
		for (i = 0; i < s->npending && !pending_is(&s->pending[i], kind, ctx, seqno, proc); i++)
			;
		if (i == s->npending)
			return false;
	}
	*out = s->pending[i];
	pending_remove(s, i);
	return true;
}

uint64_t xp_mem_pending_count(const struct xp_mem_state *s, enum xp_mem_pend kind, int ring)
{
	uint64_t n = 0;

	for (int i = 0; i < s->npending; i++)
		if (s->pending[i].kind == kind && (ring < 0 || s->pending[i].ring == ring))
			n++;
	return n;
}

uint64_t xp_mem_since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* open addressing on the object's address; deleted slots are reused */
struct xp_mem_obj *xp_mem_obj_find(struct xp_mem_state *s, uint64_t obj, bool add)
{
	uint32_t mask = s->nobjs - 1, h = (uint32_t)((obj >> 6) * 0x9e3779b1u) & mask;
	struct xp_mem_obj *tomb = NULL;

	for (uint32_t n = 0; n < s->nobjs; n++, h = (h + 1) & mask) {
		struct xp_mem_obj *o = &s->objs[h];

		if (o->proc == -1)
			return add ? (tomb ? tomb : o) : NULL;
		if (o->proc == -2) {
			if (!tomb)
				tomb = o;
			continue;
		}
		if (o->obj == obj)
			return o;
	}
	return add ? tomb : NULL;
}


int xp_mem_add(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	if (r->ev >= XP_MEM_NEV || r->ev >= l->n || !l->present[r->ev])
		return -ENOENT;
	s->events++;
	if (r->ev <= XP_MEM_AMD_IV)
		return xp_mem_amdgpu(s, l, r);
	if (r->ev <= XP_MEM_I915_FAULT)
		return xp_mem_i915(s, l, r);
	if (r->ev >= XP_MEM_I915_RQ_ADD)
		return xp_mem_i915_rq(s, l, r);
	return xp_mem_xe(s, l, r);
}

void xp_mem_reset(struct xp_mem_state *s)
{
	struct xp_mem_state keep = *s;

	/* counters to zero; processes' live figures, objects and pending submits stay */
	memset((char *)s + offsetof(struct xp_mem_state, amd_bos), 0,
	       offsetof(struct xp_mem_state, overflow) + sizeof(s->overflow) -
		       offsetof(struct xp_mem_state, amd_bos));
	s->objs = keep.objs;
	s->nobjs = keep.nobjs;
	memcpy(s->pending, keep.pending, sizeof(s->pending));
	s->npending = keep.npending;
	memcpy(s->pend_hash, keep.pend_hash, sizeof(s->pend_hash));
	for (int i = 0; i < keep.nrings; i++)
		memcpy(s->rings[i].name, keep.rings[i].name, sizeof(s->rings[i].name));
	s->nrings = keep.nrings;
	for (int i = 0; i < keep.nengines; i++) {
		s->engines[i].dev = keep.engines[i].dev;
		s->engines[i].class = keep.engines[i].class;
		s->engines[i].instance = keep.engines[i].instance;
	}
	s->nengines = keep.nengines;
	for (int i = 0; i < s->nprocs; i++) {
		struct xp_mem_proc *p = &s->procs[i];
		uint64_t lo = p->i915_live_objs, lb = p->i915_live_bytes;

		memset((char *)p + offsetof(struct xp_mem_proc, amd_bos), 0,
		       sizeof(*p) - offsetof(struct xp_mem_proc, amd_bos));
		p->i915_live_objs = lo;
		p->i915_live_bytes = lb;
	}
}

uint64_t xp_mem_live_objects(const struct xp_mem_state *s, uint64_t *bytes)
{
	uint64_t n = 0, b = 0;

	for (uint32_t i = 0; i < s->nobjs; i++)
		if (s->objs[i].proc >= 0) {
			n++;
			b += s->objs[i].size;
		}
	if (bytes)
		*bytes = b;
	return n;
}
