/* mem: the i915 driver's events (src/caps/mem/mem_stats.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "caps/mem/mem_stats.h"
#include "caps/mem/mem_int.h"

/* One function per event (bind and unbind share one), each read alone;
 * xp_mem_i915 only dispatches on the record's event. */

static int i915_create(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	uint64_t a = 0, b = 0;
	struct xp_mem_obj *o;
	int p;

	if (F("obj", &a) || F("size", &b))
		return -EBADMSG;
	s->i915_creates++;
	s->i915_create_bytes += b;
	p = xp_mem_proc_of(s, r);
	if (p >= 0) {
		s->procs[p].i915_creates++;
		s->procs[p].i915_create_bytes += b;
		s->procs[p].i915_live_objs++;
		s->procs[p].i915_live_bytes += b;
	}
	o = xp_mem_obj_find(s, a, true);
	if (!o) {
		s->overflow++;
		return 0;
	}
	*o = (struct xp_mem_obj){ .obj = a, .size = b, .proc = p >= 0 ? p : XP_MEM_MAX_PROCS };
	return 0;
}

static int i915_destroy(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	uint64_t a = 0;
	struct xp_mem_obj *o;

	if (F("obj", &a))
		return -EBADMSG;
	s->i915_destroys++;
	o = xp_mem_obj_find(s, a, false);
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
}

static int i915_bind(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	uint64_t a = 0, b = 0;
	struct xp_mem_obj *o;

	if (F("obj", &a) || F("size", &b))
		return -EBADMSG;
	o = xp_mem_obj_find(s, a, false);
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
}

static int i915_fault(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	uint64_t b = 0, c = 0;
	int p;

	if (F("gtt", &b) || F("write", &c))
		return -EBADMSG;
	s->i915_faults[b != 0][c != 0]++;
	p = xp_mem_proc_of(s, r);
	if (p >= 0)
		s->procs[p].i915_faults++;
	return 0;
}

int xp_mem_i915(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	uint64_t b = 0;

	switch (r->ev) {
	case XP_MEM_I915_CREATE: return i915_create(s, l, r);
	case XP_MEM_I915_DESTROY: return i915_destroy(s, l, r);
	case XP_MEM_I915_BIND:
	case XP_MEM_I915_UNBIND: return i915_bind(s, l, r);
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
	case XP_MEM_I915_FAULT: return i915_fault(s, l, r);
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
int xp_mem_i915_rq(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
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
		if ((p = xp_mem_proc_of(s, r)) >= 0)
			s->procs[p].i915_requests++;
		xp_mem_pending_push(s, XP_PEND_I915_RQ, ctx, seqno, r->hdr.ts_ns, e, p);
		return 0;
	case XP_MEM_I915_RQ_RETIRE:
		s->i915_retires++;
		e = engine_of(s, dev, cls, inst);
		if (e >= 0)
			s->engines[e].retired++;
		if (!xp_mem_pending_take(s, XP_PEND_I915_RQ, ctx, seqno, -1, &q)) {
			s->i915_retire_unseen++;
			if (e >= 0)
				s->engines[e].add_unseen++;
		} else if (e >= 0) {
			xp_hist_add(&s->engines[e].life, xp_mem_since(r->hdr.ts_ns, q.ts));
		}
		return 0;
	case XP_MEM_I915_RQ_WAIT_BEGIN:
		xp_mem_pending_push(s, XP_PEND_I915_WAIT, ctx, seqno, r->hdr.ts_ns, -1, xp_mem_proc_of(s, r));
		return 0;
	case XP_MEM_I915_RQ_WAIT_END:
		p = xp_mem_proc_of(s, r);
		if (!xp_mem_pending_take(s, XP_PEND_I915_WAIT, ctx, seqno, p, &q)) {
			s->i915_wait_unseen++;
			return 0;
		}
		s->i915_waits++;
		xp_hist_add(&s->i915_wait, xp_mem_since(r->hdr.ts_ns, q.ts));
		if (p >= 0) {
			s->procs[p].i915_waits++;
			s->procs[p].i915_wait_ns += xp_mem_since(r->hdr.ts_ns, q.ts);
		}
		return 0;
	}
	return -ENOENT;
}
