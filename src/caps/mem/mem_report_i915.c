/* mem summary: the i915 driver's section, text and JSON (src/caps/mem/mem_report_int.h). */
#include "caps/mem/mem_report_int.h"

/* What each figure can be charged to, and why. */
static const char *const why_i915_obj =
	"i915_gem_object_create runs in the ioctl of the creating process; a destroy (often in a "
	"worker) is charged back to the creator";
static const char *const why_i915_bind =
	"i915_vma_bind/unbind run wherever the object is (re)bound: execbuf, faults, eviction";
static const char *const why_i915_evict =
	"i915 evictions and shrinks run in reclaim or in the eviction path of whichever task "
	"needed the space";
static const char *const why_i915_fault = "i915_gem_object_fault runs in the faulting process";
static const char *const why_i915_rq =
	"i915_request_add runs in the submitting process (a driver worker for the driver's own "
	"requests); retire wherever completed requests are reaped, later than completion, so "
	"add->retire is per engine and bounds the request's time from above; waits run in the "
	"waiting process";

static void text_i915_requests(FILE *f, const struct xp_tp_report *r)
{
	const struct xp_mem_state *s = r->st;
	char a[24], b[24], c[24], name[24];

	section(f, "i915 requests: add -> retire", "adds and waits " PER_PROC ", retires per engine",
		why_i915_rq);
	fprintf(f, "  added %" PRIu64 ", retired %" PRIu64 " (%" PRIu64 " added before tracing or filtered out)"
		   ", in flight %" PRIu64 "\n",
		s->i915_requests, s->i915_retires, s->i915_retire_unseen,
		xp_mem_pending_count(s, XP_PEND_I915_RQ, -1));
	if (s->nengines)
		fprintf(f, "  %3s %-8s %8s %8s %8s %9s  %s\n", "DEV", "ENGINE", "ADDED", "RETIRED", "UNSEEN",
			"IN_FLIGHT", "ADD->RETIRE p50/p99/max");
	for (int i = 0; i < s->nengines; i++) {
		const struct xp_mem_engine *e = &s->engines[i];

		fprintf(f, "  %3u %-8s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9" PRIu64 "  %s/%s/%s\n", e->dev,
			xp_i915_engine_name(e, name, sizeof(name)), e->added, e->retired, e->add_unseen,
			xp_mem_pending_count(s, XP_PEND_I915_RQ, i), xp_fmt_pct(&e->life, 50, a, sizeof(a)),
			xp_fmt_pct(&e->life, 99, b, sizeof(b)), e->life.count ? xp_fmt_ns(e->life.max, c, sizeof(c)) : "-");
	}
	if (r->hist)
		for (int i = 0; i < s->nengines; i++)
			if (s->engines[i].life.count) {
				fprintf(f, "  engine %u %s add -> retire:\n", s->engines[i].dev,
					xp_i915_engine_name(&s->engines[i], name, sizeof(name)));
				xp_print_log2_hist(f, &s->engines[i].life, 4);
			}
	if (has(r->layout, XP_MEM_I915_RQ_WAIT_BEGIN) && has(r->layout, XP_MEM_I915_RQ_WAIT_END)) {
		fprintf(f, "  waits on requests: %" PRIu64 ", p50/p99/max %s/%s/%s", s->i915_waits,
			xp_fmt_pct(&s->i915_wait, 50, a, sizeof(a)), xp_fmt_pct(&s->i915_wait, 99, b, sizeof(b)),
			s->i915_wait.count ? xp_fmt_ns(s->i915_wait.max, c, sizeof(c)) : "-");
		if (s->i915_wait_unseen)
			fprintf(f, " (%" PRIu64 " ended without their start)", s->i915_wait_unseen);
		fputc('\n', f);
	}
}

void xp_mem_text_i915(FILE *f, const struct xp_tp_report *r)
{
	const struct xp_mem_state *s = r->st;
	const struct xp_rawtp_layout *l = r->layout;
	char a[24], b[24];
	uint64_t live_b, live_n = xp_mem_live_objects(s, &live_b);

	if (has(l, XP_MEM_I915_CREATE) || has(l, XP_MEM_I915_DESTROY)) {
		section(f, "i915 GEM objects", PER_PROC, why_i915_obj);
		fprintf(f, "  created %" PRIu64 " (%s), destroyed %" PRIu64 " (%s", s->i915_creates,
			human(s->i915_create_bytes, a, sizeof(a)), s->i915_destroys,
			human(s->i915_destroy_bytes, b, sizeof(b)));
		if (s->i915_destroy_untracked)
			fprintf(f, "; %" PRIu64 " created before tracing, size unknown", s->i915_destroy_untracked);
		fprintf(f, ")\n  leak candidates (created while tracing, not destroyed): %" PRIu64 " objects, %s\n",
			live_n, human(live_b, a, sizeof(a)));
	}
	if (has(l, XP_MEM_I915_BIND) || has(l, XP_MEM_I915_UNBIND)) {
		section(f, "i915 VMA binds", PER_DEV, why_i915_bind);
		fprintf(f, "  binds %" PRIu64 " (%s), unbinds %" PRIu64 ", rebinds %" PRIu64 "%s\n",
			s->i915_binds, human(s->i915_bind_bytes, a, sizeof(a)), s->i915_unbinds,
			s->i915_rebinds, s->i915_rebinds ? "  <- unbound and bound again: thrashing" : "");
	}
	if (has(l, XP_MEM_I915_EVICT) || has(l, XP_MEM_I915_EVICT_NODE) || has(l, XP_MEM_I915_EVICT_VM) ||
	    has(l, XP_MEM_I915_SHRINK)) {
		section(f, "i915 eviction and shrink (memory pressure)", PER_DEV, why_i915_evict);
		fprintf(f, "  evict %" PRIu64 " (%s requested), evict_node %" PRIu64 ", evict_vm %" PRIu64
			   ", shrink %" PRIu64 " (target %" PRIu64 " pages)\n",
			s->i915_evicts, human(s->i915_evict_bytes, a, sizeof(a)), s->i915_evict_nodes,
			s->i915_evict_vms, s->i915_shrinks, s->i915_shrink_target);
	}
	if (has(l, XP_MEM_I915_FAULT)) {
		section(f, "i915 faults", PER_PROC, why_i915_fault);
		fprintf(f, "  GTT read %" PRIu64 ", GTT write %" PRIu64 ", CPU read %" PRIu64
			   ", CPU write %" PRIu64 "\n",
			s->i915_faults[1][0], s->i915_faults[1][1], s->i915_faults[0][0], s->i915_faults[0][1]);
	}
	if (has(l, XP_MEM_I915_RQ_ADD) || has(l, XP_MEM_I915_RQ_RETIRE))
		text_i915_requests(f, r);
}

void xp_mem_json_i915(struct xp_json *j, const struct xp_tp_report *r)
{
	const struct xp_mem_state *s = r->st;
	uint64_t live_b, live_n = xp_mem_live_objects(s, &live_b);

	xp_json_key(j, "objects");
	xp_json_begin_obj(j);
	attribution(j, PER_PROC, why_i915_obj);
	xp_json_ku64(j, "created", s->i915_creates);
	xp_json_ku64(j, "created_bytes", s->i915_create_bytes);
	xp_json_ku64(j, "destroyed", s->i915_destroys);
	xp_json_ku64(j, "destroyed_bytes", s->i915_destroy_bytes);
	xp_json_ku64(j, "destroyed_untracked", s->i915_destroy_untracked);
	xp_json_ku64(j, "leak_candidates", live_n);
	xp_json_ku64(j, "leak_candidate_bytes", live_b);
	xp_json_end_obj(j);

	xp_json_key(j, "vma");
	xp_json_begin_obj(j);
	attribution(j, PER_DEV, why_i915_bind);
	xp_json_ku64(j, "binds", s->i915_binds);
	xp_json_ku64(j, "bind_bytes", s->i915_bind_bytes);
	xp_json_ku64(j, "unbinds", s->i915_unbinds);
	xp_json_ku64(j, "rebinds", s->i915_rebinds);
	xp_json_end_obj(j);

	xp_json_key(j, "pressure");
	xp_json_begin_obj(j);
	attribution(j, PER_DEV, why_i915_evict);
	xp_json_ku64(j, "evict", s->i915_evicts);
	xp_json_ku64(j, "evict_bytes", s->i915_evict_bytes);
	xp_json_ku64(j, "evict_node", s->i915_evict_nodes);
	xp_json_ku64(j, "evict_vm", s->i915_evict_vms);
	xp_json_ku64(j, "shrink", s->i915_shrinks);
	xp_json_ku64(j, "shrink_target_pages", s->i915_shrink_target);
	xp_json_end_obj(j);

	xp_json_key(j, "faults");
	xp_json_begin_obj(j);
	attribution(j, PER_PROC, why_i915_fault);
	xp_json_ku64(j, "gtt_read", s->i915_faults[1][0]);
	xp_json_ku64(j, "gtt_write", s->i915_faults[1][1]);
	xp_json_ku64(j, "cpu_read", s->i915_faults[0][0]);
	xp_json_ku64(j, "cpu_write", s->i915_faults[0][1]);
	xp_json_end_obj(j);

	xp_json_key(j, "requests");
	xp_json_begin_obj(j);
	partial(j, why_i915_rq, "requests added and waits (processes[].i915_requests, i915_waits, i915_wait_ns)");
	xp_json_ku64(j, "added", s->i915_requests);
	xp_json_ku64(j, "retired", s->i915_retires);
	xp_json_ku64(j, "retired_add_unseen", s->i915_retire_unseen);
	xp_json_ku64(j, "in_flight", xp_mem_pending_count(s, XP_PEND_I915_RQ, -1));
	xp_json_key(j, "engines");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->nengines; i++) {
		const struct xp_mem_engine *e = &s->engines[i];
		char name[24];

		xp_json_begin_obj(j);
		xp_json_ku64(j, "dev", e->dev);
		xp_json_kstr(j, "engine", xp_i915_engine_name(e, name, sizeof(name)));
		xp_json_ku64(j, "class", e->class);
		xp_json_ku64(j, "instance", e->instance);
		xp_json_ku64(j, "added", e->added);
		xp_json_ku64(j, "retired", e->retired);
		xp_json_ku64(j, "add_unseen", e->add_unseen);
		xp_json_ku64(j, "in_flight", xp_mem_pending_count(s, XP_PEND_I915_RQ, i));
		xp_json_khist(j, "add_to_retire_ns", &e->life);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
	xp_json_ku64(j, "waits", s->i915_waits);
	xp_json_ku64(j, "waits_without_start", s->i915_wait_unseen);
	xp_json_khist(j, "wait_ns", &s->i915_wait);
	xp_json_end_obj(j);
}
