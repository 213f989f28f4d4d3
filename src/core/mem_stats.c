#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem_stats.h"

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

static int proc_of(struct xp_mem_state *s, const struct xp_rawtp_rec *r)
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

static int ring_of(struct xp_mem_state *s, const struct xp_rawtp_rec *r)
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

/* A start event waiting for its end; the oldest is dropped (and counted) when full. */
static void pending_push(struct xp_mem_state *s, enum xp_mem_pend kind, uint64_t ctx, uint64_t seqno,
			 uint64_t ts, int ring, int proc)
{
	if (s->npending == XP_MEM_MAX_PENDING) {
		memmove(&s->pending[0], &s->pending[1], sizeof(s->pending[0]) * (XP_MEM_MAX_PENDING - 1));
		s->npending--;
		s->overflow++;
	}
	s->pending[s->npending++] = (struct xp_mem_pending){ .ctx = ctx, .seqno = seqno, .ts = ts,
							     .ring = (int16_t)ring, .kind = (uint8_t)kind,
							     .proc = proc };
}

/* Takes the oldest pending start of this kind for ctx/seqno (and process, when
 * proc >= 0); false when none was seen. */
static bool pending_take(struct xp_mem_state *s, enum xp_mem_pend kind, uint64_t ctx, uint64_t seqno,
			 int proc, struct xp_mem_pending *out)
{
	for (int i = 0; i < s->npending; i++) {
		struct xp_mem_pending *q = &s->pending[i];

		if (q->kind != kind || q->ctx != ctx || q->seqno != seqno || (proc >= 0 && q->proc != proc))
			continue;
		*out = *q;
		memmove(q, q + 1, sizeof(*q) * (size_t)(s->npending - i - 1));
		s->npending--;
		return true;
	}
	return false;
}

uint64_t xp_mem_pending_count(const struct xp_mem_state *s, enum xp_mem_pend kind, int ring)
{
	uint64_t n = 0;

	for (int i = 0; i < s->npending; i++)
		if (s->pending[i].kind == kind && (ring < 0 || s->pending[i].ring == ring))
			n++;
	return n;
}

static uint64_t since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* open addressing on the object's address; deleted slots are reused */
static struct xp_mem_obj *obj_find(struct xp_mem_state *s, uint64_t obj, bool add)
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

#define F(name, v) xp_rawtp_u64(l, r, name, v)

static int amd(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	uint64_t a = 0, b = 0, c = 0, d = 0;
	struct xp_mem_pending q;
	int p, k;

	switch (r->ev) {
	case XP_MEM_AMD_BO_CREATE:
		if (F("pages", &a) || F("type", &b) || F("prefer", &c))
			return -EBADMSG;
		F("allow", &d);
		a *= s->page_size;
		s->amd_bos++;
		s->amd_bo_bytes += a;
		s->amd_bo_bytes_by_pref[c & XP_AMD_DOMAIN_VRAM ? 0 : c & XP_AMD_DOMAIN_GTT ? 1 : 2] += a;
		p = proc_of(s, r);
		if (p >= 0) {
			s->procs[p].amd_bos++;
			s->procs[p].amd_bo_bytes += a;
		}
		/* asked for VRAM, placed in GTT: VRAM was full or not allowed */
		if ((c & XP_AMD_DOMAIN_VRAM) && b == XP_TTM_PL_TT) {
			s->amd_vram_in_gtt++;
			s->amd_vram_in_gtt_bytes += a;
			if (p >= 0)
				s->procs[p].amd_vram_in_gtt++;
		}
		return 0;
	case XP_MEM_AMD_BO_MOVE:
		if (F("bo_size", &a) || F("new_placement", &b) || F("old_placement", &c))
			return -EBADMSG;
		s->amd_moves++;
		s->amd_move_bytes += a;
		if (b >= XP_MEM_PLACEMENTS)
			b = XP_MEM_PLACEMENTS - 1;
		if (c >= XP_MEM_PLACEMENTS)
			c = XP_MEM_PLACEMENTS - 1;
		s->amd_move_n[c][b]++;
		s->amd_move_b[c][b] += a;
		return 0;
	case XP_MEM_AMD_CS_IOCTL:
	case XP_MEM_AMD_RUN_JOB:
		if (F("context", &a) || F("seqno", &b))
			return -EBADMSG;
		k = ring_of(s, r);
		if (r->ev == XP_MEM_AMD_CS_IOCTL) {
			p = proc_of(s, r);
			if (p >= 0)
				s->procs[p].amd_submits++;
			if (k >= 0)
				s->rings[k].submits++;
			pending_push(s, XP_PEND_AMD_SUBMIT, a, b, r->hdr.ts_ns, k, p);
			return 0;
		}
		if (k >= 0)
			s->rings[k].run++;
		if (!pending_take(s, XP_PEND_AMD_SUBMIT, a, b, -1, &q)) {
			if (k >= 0)
				s->rings[k].unmatched++;
		} else if (k >= 0) {
			xp_hist_add(&s->rings[k].delay, since(r->hdr.ts_ns, q.ts));
		}
		return 0;
	case XP_MEM_AMD_IV:
		if (F("client_id", &a) || F("src_id", &b))
			return -EBADMSG;
		F("pasid", &c);
		s->amd_iv++;
		for (int i = 0; i < s->niv; i++)
			if (s->iv[i].client == a && s->iv[i].src == b && s->iv[i].pasid == c) {
				s->iv[i].count++;
				return 0;
			}
		if (s->niv == XP_MEM_MAX_IV) {
			s->overflow++;
			return 0;
		}
		s->iv[s->niv++] = (struct xp_mem_iv){ (uint32_t)a, (uint32_t)b, (uint32_t)c, 1 };
		return 0;
	}
	return -ENOENT;
}

static int i915(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	uint64_t a = 0, b = 0, c = 0;
	struct xp_mem_obj *o;
	int p;

	switch (r->ev) {
	case XP_MEM_I915_CREATE:
		if (F("obj", &a) || F("size", &b))
			return -EBADMSG;
		s->i915_creates++;
		s->i915_create_bytes += b;
		p = proc_of(s, r);
		if (p >= 0) {
			s->procs[p].i915_creates++;
			s->procs[p].i915_create_bytes += b;
			s->procs[p].i915_live_objs++;
			s->procs[p].i915_live_bytes += b;
		}
		o = obj_find(s, a, true);
		if (!o) {
			s->overflow++;
			return 0;
		}
		*o = (struct xp_mem_obj){ .obj = a, .size = b, .proc = p >= 0 ? p : XP_MEM_MAX_PROCS };
		return 0;
	case XP_MEM_I915_DESTROY:
		if (F("obj", &a))
			return -EBADMSG;
		s->i915_destroys++;
		o = obj_find(s, a, false);
		if (!o) {
			s->i915_destroy_untracked++;
			return 0;
		}
		s->i915_destroy_bytes += o->size;
		if (o->proc < XP_MEM_MAX_PROCS) {
			s->procs[o->proc].i915_live_objs--;
			s->procs[o->proc].i915_live_bytes -= o->size;
		}
		o->proc = -2;
		return 0;
	case XP_MEM_I915_BIND:
	case XP_MEM_I915_UNBIND:
		if (F("obj", &a) || F("size", &b))
			return -EBADMSG;
		o = obj_find(s, a, false);
		if (r->ev == XP_MEM_I915_UNBIND) {
			s->i915_unbinds++;
			if (o)
				o->unbound = 1;
			return 0;
		}
		s->i915_binds++;
		s->i915_bind_bytes += b;
		/* bound again after an unbind while tracing: evicted and brought back */
		if (o && o->unbound) {
			s->i915_rebinds++;
			o->unbound = 0;
		}
		if (o)
			o->bound_once = 1;
		return 0;
	case XP_MEM_I915_EVICT:
		s->i915_evicts++;
		if (!F("size", &b))
			s->i915_evict_bytes += b;
		return 0;
	case XP_MEM_I915_EVICT_NODE: s->i915_evict_nodes++; return 0;
	case XP_MEM_I915_EVICT_VM: s->i915_evict_vms++; return 0;
	case XP_MEM_I915_SHRINK:
		s->i915_shrinks++;
		if (!F("target", &b))
			s->i915_shrink_target += b;
		return 0;
	case XP_MEM_I915_FAULT:
		if (F("gtt", &b) || F("write", &c))
			return -EBADMSG;
		s->i915_faults[b != 0][c != 0]++;
		p = proc_of(s, r);
		if (p >= 0)
			s->procs[p].i915_faults++;
		return 0;
	}
	return -ENOENT;
}

static int engine_of(struct xp_mem_state *s, uint64_t dev, uint64_t class, uint64_t instance)
{
	for (int i = 0; i < s->nengines; i++)
		if (s->engines[i].dev == dev && s->engines[i].class == class &&
		    s->engines[i].instance == instance)
			return i;
	if (s->nengines == XP_MEM_MAX_ENGINES) {
		s->overflow++;
		return -1;
	}
	memset(&s->engines[s->nengines], 0, sizeof(s->engines[0]));
	s->engines[s->nengines].dev = (uint32_t)dev;
	s->engines[s->nengines].class = (uint16_t)class;
	s->engines[s->nengines].instance = (uint16_t)instance;
	return s->nengines++;
}

/* i915 requests, keyed like their fences: context and seqno */
static int i915_rq(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	uint64_t dev = 0, ctx = 0, cls = 0, inst = 0, seqno = 0;
	struct xp_mem_pending q;
	int e, p;

	if (F("dev", &dev) || F("ctx", &ctx) || F("class", &cls) || F("instance", &inst) ||
	    F("seqno", &seqno))
		return -EBADMSG;
	switch (r->ev) {
	case XP_MEM_I915_RQ_ADD:
		s->i915_requests++;
		e = engine_of(s, dev, cls, inst);
		if (e >= 0)
			s->engines[e].added++;
		if ((p = proc_of(s, r)) >= 0)
			s->procs[p].i915_requests++;
		pending_push(s, XP_PEND_I915_RQ, ctx, seqno, r->hdr.ts_ns, e, p);
		return 0;
	case XP_MEM_I915_RQ_RETIRE:
		s->i915_retires++;
		e = engine_of(s, dev, cls, inst);
		if (e >= 0)
			s->engines[e].retired++;
		if (!pending_take(s, XP_PEND_I915_RQ, ctx, seqno, -1, &q)) {
			s->i915_retire_unseen++;
			if (e >= 0)
				s->engines[e].add_unseen++;
		} else if (e >= 0) {
			xp_hist_add(&s->engines[e].life, since(r->hdr.ts_ns, q.ts));
		}
		return 0;
	case XP_MEM_I915_RQ_WAIT_BEGIN:
		pending_push(s, XP_PEND_I915_WAIT, ctx, seqno, r->hdr.ts_ns, -1, proc_of(s, r));
		return 0;
	case XP_MEM_I915_RQ_WAIT_END:
		p = proc_of(s, r);
		if (!pending_take(s, XP_PEND_I915_WAIT, ctx, seqno, p, &q)) {
			s->i915_wait_unseen++;
			return 0;
		}
		s->i915_waits++;
		xp_hist_add(&s->i915_wait, since(r->hdr.ts_ns, q.ts));
		if (p >= 0) {
			s->procs[p].i915_waits++;
			s->procs[p].i915_wait_ns += since(r->hdr.ts_ns, q.ts);
		}
		return 0;
	}
	return -ENOENT;
}

/* the (from, to) placement pair of an xe move; NULL when the table is full */
static struct xp_mem_xe_move *xe_move_of(struct xp_mem_state *s, const struct xp_rawtp_rec *r)
{
	char from[sizeof(s->xe_move[0].from)], to[sizeof(s->xe_move[0].to)];

	xp_rawtp_rec_str(r, 0, to, sizeof(to));	/* new_placement_name */
	xp_rawtp_rec_str(r, 1, from, sizeof(from));	/* old_placement_name */
	for (int i = 0; i < s->nxe_moves; i++)
		if (!strcmp(s->xe_move[i].from, from) && !strcmp(s->xe_move[i].to, to))
			return &s->xe_move[i];
	if (s->nxe_moves == XP_MEM_MAX_XE_MOVES) {
		s->overflow++;
		return NULL;
	}
	memset(&s->xe_move[s->nxe_moves], 0, sizeof(s->xe_move[0]));
	memcpy(s->xe_move[s->nxe_moves].from, from, sizeof(from));
	memcpy(s->xe_move[s->nxe_moves].to, to, sizeof(to));
	return &s->xe_move[s->nxe_moves++];
}

static int xe(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	uint64_t a = 0, b = 0;
	struct xp_mem_xe_move *m;
	int p;

	switch (r->ev) {
	case XP_MEM_XE_QUEUE_CREATE:
		if (F("class", &a))
			return -EBADMSG;
		s->xe_queues++;
		s->xe_queues_by_class[a < XP_XE_CLASSES ? a : XP_XE_CLASSES - 1]++;
		if ((p = proc_of(s, r)) >= 0)
			s->procs[p].xe_queues++;
		return 0;
	case XP_MEM_XE_QUEUE_DESTROY: s->xe_queue_destroys++; return 0;
	case XP_MEM_XE_JOB_CREATE:
		s->xe_jobs++;
		if ((p = proc_of(s, r)) >= 0)
			s->procs[p].xe_jobs++;
		return 0;
	case XP_MEM_XE_JOB_RUN: s->xe_jobs_run++; return 0;
	case XP_MEM_XE_BO_MOVE:
		if (F("size", &a) || F("move_lacks_source", &b))
			return -EBADMSG;
		s->xe_moves++;
		s->xe_move_bytes += a;
		if (b) {
			s->xe_moves_new++;
			s->xe_move_new_bytes += a;
		}
		if ((m = xe_move_of(s, r))) {
			m->count++;
			m->bytes += a;
		}
		return 0;
	case XP_MEM_XE_VMA_FAULT: s->xe_vma_faults++; return 0;
	case XP_MEM_XE_BO_CREATE:
		if (F("size", &a))
			return -EBADMSG;
		s->xe_bos++;
		s->xe_bo_bytes += a;
		if ((p = proc_of(s, r)) >= 0) {
			s->procs[p].xe_bos++;
			s->procs[p].xe_bo_bytes += a;
		}
		return 0;
	}
	return -ENOENT;
}

int xp_mem_add(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	if (r->ev >= XP_MEM_NEV || r->ev >= l->n || !l->present[r->ev])
		return -ENOENT;
	s->events++;
	if (r->ev <= XP_MEM_AMD_IV)
		return amd(s, l, r);
	if (r->ev <= XP_MEM_I915_FAULT)
		return i915(s, l, r);
	if (r->ev >= XP_MEM_I915_RQ_ADD)
		return i915_rq(s, l, r);
	return xe(s, l, r);
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
