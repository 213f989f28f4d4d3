#include <inttypes.h>
#include <string.h>

#include "sinks/mem_report.h"
#include "sinks/text.h"

/* What each section's figures can be charged to, said in text and JSON. */
#define PER_PROC "per process"
#define PER_DEV "per device, not per process"
static const char *const why_bo = "amdgpu_bo_create runs in the ioctl of the allocating process";
static const char *const why_move =
	"amdgpu_bo_move runs in whichever task forced the move (eviction, another process's "
	"allocation, a kernel worker)";
static const char *const why_submit =
	"amdgpu_cs_ioctl runs in the submitting process; amdgpu_sched_run_job in the GPU "
	"scheduler's worker, so run and delay are per ring";
static const char *const why_iv =
	"amdgpu_iv fires in the interrupt handler; its pasid names the VM of the process, not a pid";
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
static const char *const why_xe_submit =
	"exec-queue and job creation run in the submitting process; job run and queue destroy in "
	"the scheduler's worker";
static const char *const why_xe_mem =
	"xe_bo_create runs in the allocating process; xe_bo_move in whichever task forced the "
	"move; xe_vma_pagefault in the GT fault worker";

static const char *human(uint64_t b, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int k = 0;

	while (v >= 1024 && k < 4) {
		v /= 1024;
		k++;
	}
	if (!k)
		snprintf(buf, len, "%" PRIu64 " B", b);
	else
		snprintf(buf, len, "%.1f %s", v, u[k]);
	return buf;
}

/* One row of a moves-by-placement table (amdgpu and xe), text and JSON. */
#define MOVE_HDR "  %-9s %-9s %8s %12s\n", "FROM", "TO", "MOVES", "BYTES"
static void text_move(FILE *f, const char *from, const char *to, uint64_t n, uint64_t bytes)
{
	fprintf(f, "  %-9s %-9s %8" PRIu64 " %12" PRIu64 "\n", from, to, n, bytes);
}

static void json_move(struct xp_json *j, const char *from, const char *to, uint64_t n, uint64_t bytes)
{
	xp_json_begin_obj(j);
	xp_json_kstr(j, "from", from);
	xp_json_kstr(j, "to", to);
	xp_json_ku64(j, "count", n);
	xp_json_ku64(j, "bytes", bytes);
	xp_json_end_obj(j);
}

static int group_events(const struct xp_rawtp_layout *l, const char *group, int *present,
			const char **actual)
{
	int n = 0;

	*present = 0;
	*actual = group;
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->ev[i].group, group)) {
			n++;
			*present += l->present[i];
			*actual = l->group[i];
		}
	return n;
}

static bool has(const struct xp_rawtp_layout *l, int ev) { return ev < l->n && l->present[ev]; }

static const char *pct(const struct xp_hist *h, double p, char *buf, size_t len)
{
	if (!h->count)
		return "-";
	return xp_fmt_ns(xp_hist_percentile(h, p), buf, len);
}

static void section(FILE *f, const char *title, const char *attr, const char *why)
{
	fprintf(f, "\n%s [%s]\n  (%s)\n", title, attr, why);
}

static void text_amdgpu(FILE *f, const struct xp_mem_report *r)
{
	const struct xp_mem_state *s = r->st;
	const struct xp_rawtp_layout *l = r->layout;
	char a[24], b[24], c[24], d[24];

	if (has(l, XP_MEM_AMD_BO_CREATE)) {
		section(f, "amdgpu buffer objects created", PER_PROC, why_bo);
		fprintf(f, "  %" PRIu64 " BOs, %s: VRAM preferred %s, GTT preferred %s, CPU only %s\n",
			s->amd_bos, human(s->amd_bo_bytes, a, sizeof(a)),
			human(s->amd_bo_bytes_by_pref[0], b, sizeof(b)),
			human(s->amd_bo_bytes_by_pref[1], c, sizeof(c)),
			human(s->amd_bo_bytes_by_pref[2], d, sizeof(d)));
		fprintf(f, "  VRAM requested, placed in GTT: %" PRIu64 " BOs, %s%s\n", s->amd_vram_in_gtt,
			human(s->amd_vram_in_gtt_bytes, a, sizeof(a)),
			s->amd_vram_in_gtt ? "  <- VRAM full or not allowed" : "");
	}
	if (has(l, XP_MEM_AMD_BO_MOVE)) {
		double secs = r->ri->duration_s > 0 ? r->ri->duration_s : 0;

		section(f, "amdgpu buffer moves (migration traffic)", PER_DEV, why_move);
		fprintf(f, "  %" PRIu64 " moves, %s", s->amd_moves, human(s->amd_move_bytes, a, sizeof(a)));
		if (secs > 0)
			fprintf(f, ", %s/s", human((uint64_t)((double)s->amd_move_bytes / secs), b, sizeof(b)));
		fputc('\n', f);
		if (s->amd_moves) {
			fprintf(f, MOVE_HDR);
			for (int i = 0; i < XP_MEM_PLACEMENTS; i++)
				for (int k = 0; k < XP_MEM_PLACEMENTS; k++)
					if (s->amd_move_n[i][k])
						text_move(f, xp_amd_placement_name(i), xp_amd_placement_name(k),
							  s->amd_move_n[i][k], s->amd_move_b[i][k]);
		}
	}
	if (has(l, XP_MEM_AMD_CS_IOCTL) || has(l, XP_MEM_AMD_RUN_JOB)) {
		section(f, "amdgpu submissions: cs_ioctl -> sched_run_job", "submits " PER_PROC ", runs per ring",
			why_submit);
		if (!s->nrings)
			fprintf(f, "  no submissions\n");
		else
			fprintf(f, "  %-16s %8s %8s %9s  %s\n", "RING", "SUBMITS", "RUN", "UNMATCHED",
				"SUBMIT->RUN p50/p99/max");
		for (int i = 0; i < s->nrings; i++) {
			const struct xp_mem_ring *k = &s->rings[i];

			fprintf(f, "  %-16.16s %8" PRIu64 " %8" PRIu64 " %9" PRIu64 "  %s/%s/%s\n", k->name,
				k->submits, k->run, k->unmatched, pct(&k->delay, 50, a, sizeof(a)),
				pct(&k->delay, 99, b, sizeof(b)),
				k->delay.count ? xp_fmt_ns(k->delay.max, c, sizeof(c)) : "-");
		}
		if (r->hist)
			for (int i = 0; i < s->nrings; i++)
				if (s->rings[i].delay.count) {
					fprintf(f, "  ring %s submit -> run:\n", s->rings[i].name);
					xp_print_log2_hist(f, &s->rings[i].delay, 4);
				}
	}
	if (has(l, XP_MEM_AMD_IV)) {
		section(f, "amdgpu interrupts (iv)", PER_DEV, why_iv);
		fprintf(f, "  %" PRIu64 " interrupts\n", s->amd_iv);
		if (s->niv)
			fprintf(f, "  %8s %8s %8s %10s\n", "CLIENT", "SRC", "PASID", "COUNT");
		for (int i = 0; i < s->niv; i++)
			fprintf(f, "  %8u %8u %8u %10" PRIu64 "\n", s->iv[i].client, s->iv[i].src,
				s->iv[i].pasid, s->iv[i].count);
	}
}

static void text_i915_requests(FILE *f, const struct xp_mem_report *r)
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
			xp_mem_pending_count(s, XP_PEND_I915_RQ, i), pct(&e->life, 50, a, sizeof(a)),
			pct(&e->life, 99, b, sizeof(b)), e->life.count ? xp_fmt_ns(e->life.max, c, sizeof(c)) : "-");
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
			pct(&s->i915_wait, 50, a, sizeof(a)), pct(&s->i915_wait, 99, b, sizeof(b)),
			s->i915_wait.count ? xp_fmt_ns(s->i915_wait.max, c, sizeof(c)) : "-");
		if (s->i915_wait_unseen)
			fprintf(f, " (%" PRIu64 " ended without their start)", s->i915_wait_unseen);
		fputc('\n', f);
	}
}

static void text_i915(FILE *f, const struct xp_mem_report *r)
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

static void text_xe(FILE *f, const struct xp_mem_report *r)
{
	const struct xp_mem_state *s = r->st;
	char a[24], b[24];

	section(f, "xe exec queues and jobs", "creation " PER_PROC ", runs per device", why_xe_submit);
	fprintf(f, "  exec queues created %" PRIu64 ", destroyed %" PRIu64 "; jobs created %" PRIu64
		   ", run %" PRIu64 "\n",
		s->xe_queues, s->xe_queue_destroys, s->xe_jobs, s->xe_jobs_run);
	if (s->xe_queues) {
		fprintf(f, "  queues by engine class:");
		for (unsigned int c = 0; c < XP_XE_CLASSES; c++)
			if (s->xe_queues_by_class[c])
				fprintf(f, " %s %" PRIu64, xp_xe_class_name(c), s->xe_queues_by_class[c]);
		fputc('\n', f);
	}
	section(f, "xe buffer objects, moves and faults", "creation " PER_PROC ", moves and faults per device",
		why_xe_mem);
	fprintf(f, "  BOs created %" PRIu64 " (%s), moves %" PRIu64 " (%s; %" PRIu64
		   " first placements without a copy), VMA page faults %" PRIu64 "\n",
		s->xe_bos, human(s->xe_bo_bytes, a, sizeof(a)), s->xe_moves,
		human(s->xe_move_bytes, b, sizeof(b)), s->xe_moves_new, s->xe_vma_faults);
	if (s->nxe_moves)
		fprintf(f, MOVE_HDR);
	for (int i = 0; i < s->nxe_moves; i++)
		text_move(f, s->xe_move[i].from, s->xe_move[i].to, s->xe_move[i].count, s->xe_move[i].bytes);
}

void xp_mem_report_text(FILE *f, const struct xp_mem_report *r)
{
	static const char *const groups[] = { "amdgpu", "i915", "xe" };
	const struct xp_mem_state *s = r->st;
	const struct xp_rawtp_layout *l = r->layout;
	bool on[3];

	if (r->ri->interval)
		fprintf(f, "--- interval %" PRIu64 " ---\n", r->ri->interval);
	fprintf(f, "%s: %.1f s, %d of %d events (", r->ri->command, r->ri->duration_s, l->npresent, l->n);
	for (int g = 0; g < 3; g++) {
		const char *actual;
		int present, n = group_events(l, groups[g], &present, &actual);

		on[g] = present > 0;
		fprintf(f, "%s%s %d/%d", g ? ", " : "", groups[g], present, n);
		if (strcmp(actual, groups[g]))
			fprintf(f, " read from group %s", actual);
	}
	fprintf(f, "), %" PRIu64 " events, ", s->events);
	xp_print_drops(f, r->ri->drops);
	for (int g = 0; g < 3; g++) {
		const char *actual;
		int present, n = group_events(l, groups[g], &present, &actual);

		if (!present) {
			fprintf(f, "note: no %s events on this kernel (the %s module is not loaded)\n", actual,
				groups[g]);
			continue;
		}
		for (int i = 0; i < l->n && present < n; i++)
			if (!l->present[i] && !strcmp(l->ev[i].group, groups[g]))
				fprintf(f, "note: this kernel has no %s/%s event: skipped\n", l->group[i],
					l->ev[i].name);
	}
	if (r->filtered)
		fprintf(f, "note: the process filters apply to the per-process events only; the "
			   "per-device ones are counted for every process\n");
	if (s->overflow)
		fprintf(f, "note: %" PRIu64 " events past the tracked processes/rings/objects\n", s->overflow);
	if (r->undecodable)
		fprintf(f, "note: %" PRIu64 " records could not be decoded\n", r->undecodable);
	if (on[0])
		text_amdgpu(f, r);
	if (on[1])
		text_i915(f, r);
	if (on[2])
		text_xe(f, r);
	if (!s->nprocs)
		return;
	fprintf(f, "\nper process (events in process context only):\n");
	fprintf(f, "  %-24s %7s %10s %7s %7s %7s %10s %7s %10s %6s %7s %6s %10s %6s %10s %6s %6s\n",
		"PROCESS", "AMD_BOS", "AMD_BYTES", "V->GTT", "SUBMITS", "I915OBJ", "I915BYTES", "LIVE",
		"LIVEBYTES", "FAULTS", "I915_RQ", "WAITS", "WAIT_TIME", "XE_BOS", "XE_BYTES", "XE_EQ", "XE_JOB");
	for (int i = 0; i < s->nprocs; i++) {
		const struct xp_mem_proc *p = &s->procs[i];
		char who[48];

		char wt[24];

		snprintf(who, sizeof(who), "%u/%s", p->pid, p->comm);
		fprintf(f, "  %-24.24s %7" PRIu64 " %10" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64
			   " %10" PRIu64 " %7" PRIu64 " %10" PRIu64 " %6" PRIu64 " %7" PRIu64 " %6" PRIu64
			   " %10s %6" PRIu64 " %10" PRIu64 " %6" PRIu64 " %6" PRIu64 "\n",
			who, p->amd_bos, p->amd_bo_bytes, p->amd_vram_in_gtt, p->amd_submits, p->i915_creates,
			p->i915_create_bytes, p->i915_live_objs, p->i915_live_bytes, p->i915_faults,
			p->i915_requests, p->i915_waits, p->i915_waits ? xp_fmt_ns(p->i915_wait_ns, wt, sizeof(wt)) : "-",
			p->xe_bos, p->xe_bo_bytes, p->xe_queues, p->xe_jobs);
	}
}

/* per_process: the section's figures are per process; where only some are,
 * per_process_figures says which, and where processes[] has them. */
static void attribution(struct xp_json *j, const char *attr, const char *why)
{
	xp_json_kbool(j, "per_process", !strcmp(attr, PER_PROC));
	xp_json_kstr(j, "attribution", why);
}

static void partial(struct xp_json *j, const char *why, const char *figures)
{
	attribution(j, PER_DEV, why);
	xp_json_kstr(j, "per_process_figures", figures);
}

static void json_amdgpu(struct xp_json *j, const struct xp_mem_report *r)
{
	const struct xp_mem_state *s = r->st;

	xp_json_key(j, "bo_create");
	xp_json_begin_obj(j);
	attribution(j, PER_PROC, why_bo);
	xp_json_ku64(j, "count", s->amd_bos);
	xp_json_ku64(j, "bytes", s->amd_bo_bytes);
	xp_json_ku64(j, "bytes_vram_preferred", s->amd_bo_bytes_by_pref[0]);
	xp_json_ku64(j, "bytes_gtt_preferred", s->amd_bo_bytes_by_pref[1]);
	xp_json_ku64(j, "bytes_cpu_only", s->amd_bo_bytes_by_pref[2]);
	xp_json_ku64(j, "vram_in_gtt", s->amd_vram_in_gtt);
	xp_json_ku64(j, "vram_in_gtt_bytes", s->amd_vram_in_gtt_bytes);
	xp_json_end_obj(j);

	xp_json_key(j, "bo_move");
	xp_json_begin_obj(j);
	attribution(j, PER_DEV, why_move);
	xp_json_ku64(j, "count", s->amd_moves);
	xp_json_ku64(j, "bytes", s->amd_move_bytes);
	xp_json_kdouble(j, "bytes_per_s",
			r->ri->duration_s > 0 ? (double)s->amd_move_bytes / r->ri->duration_s : 0);
	xp_json_key(j, "by_placement");
	xp_json_begin_arr(j);
	for (int i = 0; i < XP_MEM_PLACEMENTS; i++)
		for (int k = 0; k < XP_MEM_PLACEMENTS; k++)
			if (s->amd_move_n[i][k])
				json_move(j, xp_amd_placement_name(i), xp_amd_placement_name(k),
					  s->amd_move_n[i][k], s->amd_move_b[i][k]);
	xp_json_end_arr(j);
	xp_json_end_obj(j);

	xp_json_key(j, "submit");
	xp_json_begin_obj(j);
	partial(j, why_submit, "submits (processes[].amdgpu_submits)");
	xp_json_key(j, "rings");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->nrings; i++) {
		const struct xp_mem_ring *k = &s->rings[i];

		xp_json_begin_obj(j);
		xp_json_kstr(j, "ring", k->name);
		xp_json_ku64(j, "submits", k->submits);
		xp_json_ku64(j, "run", k->run);
		xp_json_ku64(j, "unmatched", k->unmatched);
		xp_json_khist(j, "submit_to_run_ns", &k->delay);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
	xp_json_end_obj(j);

	xp_json_key(j, "iv");
	xp_json_begin_obj(j);
	attribution(j, PER_DEV, why_iv);
	xp_json_ku64(j, "count", s->amd_iv);
	xp_json_key(j, "sources");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->niv; i++) {
		xp_json_begin_obj(j);
		xp_json_ku64(j, "client_id", s->iv[i].client);
		xp_json_ku64(j, "src_id", s->iv[i].src);
		xp_json_ku64(j, "pasid", s->iv[i].pasid);
		xp_json_ku64(j, "count", s->iv[i].count);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
	xp_json_end_obj(j);
}

static void json_i915(struct xp_json *j, const struct xp_mem_report *r)
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

static void json_xe(struct xp_json *j, const struct xp_mem_report *r)
{
	const struct xp_mem_state *s = r->st;

	xp_json_key(j, "submit");
	xp_json_begin_obj(j);
	partial(j, why_xe_submit, "exec queues and jobs created (processes[].xe_exec_queues, xe_jobs)");
	xp_json_ku64(j, "exec_queues_created", s->xe_queues);
	xp_json_ku64(j, "exec_queues_destroyed", s->xe_queue_destroys);
	xp_json_ku64(j, "jobs_created", s->xe_jobs);
	xp_json_ku64(j, "jobs_run", s->xe_jobs_run);
	xp_json_key(j, "exec_queues_by_class");
	xp_json_begin_obj(j);
	for (unsigned int c = 0; c < XP_XE_CLASSES; c++)
		if (s->xe_queues_by_class[c])
			xp_json_ku64(j, xp_xe_class_name(c), s->xe_queues_by_class[c]);
	xp_json_end_obj(j);
	xp_json_end_obj(j);
	xp_json_key(j, "memory");
	xp_json_begin_obj(j);
	partial(j, why_xe_mem, "BOs created (processes[].xe_bos, xe_bo_bytes)");
	xp_json_ku64(j, "bos_created", s->xe_bos);
	xp_json_ku64(j, "bo_bytes", s->xe_bo_bytes);
	xp_json_ku64(j, "moves", s->xe_moves);
	xp_json_ku64(j, "move_bytes", s->xe_move_bytes);
	xp_json_kdouble(j, "move_bytes_per_s",
			r->ri->duration_s > 0 ? (double)s->xe_move_bytes / r->ri->duration_s : 0);
	xp_json_ku64(j, "moves_without_source", s->xe_moves_new);
	xp_json_ku64(j, "moves_without_source_bytes", s->xe_move_new_bytes);
	xp_json_key(j, "by_placement");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->nxe_moves; i++)
		json_move(j, s->xe_move[i].from, s->xe_move[i].to, s->xe_move[i].count, s->xe_move[i].bytes);
	xp_json_end_arr(j);
	xp_json_ku64(j, "vma_pagefaults", s->xe_vma_faults);
	xp_json_end_obj(j);
}

void xp_mem_report_json(FILE *f, const struct xp_mem_report *r)
{
	static const char *const groups[] = { "amdgpu", "i915", "xe" };
	static void (*const sec[])(struct xp_json *, const struct xp_mem_report *) = {
		json_amdgpu, json_i915, json_xe,
	};
	const struct xp_mem_state *s = r->st;
	const struct xp_rawtp_layout *l = r->layout;
	struct xp_json j;

	xp_json_init(&j, f, false);
	xp_json_begin_obj(&j);
	xp_json_run_info(&j, r->ri);
	xp_json_ku64(&j, "page_size", s->page_size);
	xp_json_ku64(&j, "events_seen", s->events);
	xp_json_ku64(&j, "overflow", s->overflow);
	xp_json_ku64(&j, "undecodable", r->undecodable);
	xp_json_kbool(&j, "process_filter", r->filtered);
	xp_json_key(&j, "events");
	xp_json_begin_obj(&j);
	for (int i = 0; i < l->n; i++) {
		xp_json_key(&j, l->ev[i].name);
		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "group", l->group[i]);
		xp_json_kbool(&j, "present", l->present[i]);
		xp_json_kbool(&j, "per_process", l->ev[i].proc_ctx);
		xp_json_end_obj(&j);
	}
	xp_json_end_obj(&j);
	for (int g = 0; g < 3; g++) {
		const char *actual;
		int present, n = group_events(l, groups[g], &present, &actual);

		xp_json_key(&j, groups[g]);
		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "group", actual);
		xp_json_ku64(&j, "events", (uint64_t)n);
		xp_json_ku64(&j, "events_present", (uint64_t)present);
		if (present)
			sec[g](&j, r);
		xp_json_end_obj(&j);
	}
	xp_json_key(&j, "processes");
	xp_json_begin_arr(&j);
	for (int i = 0; i < s->nprocs; i++) {
		const struct xp_mem_proc *p = &s->procs[i];

		xp_json_begin_obj(&j);
		xp_json_ku64(&j, "pid", p->pid);
		xp_json_kstr(&j, "comm", p->comm);
		xp_json_ku64(&j, "amdgpu_bos", p->amd_bos);
		xp_json_ku64(&j, "amdgpu_bo_bytes", p->amd_bo_bytes);
		xp_json_ku64(&j, "amdgpu_vram_in_gtt", p->amd_vram_in_gtt);
		xp_json_ku64(&j, "amdgpu_submits", p->amd_submits);
		xp_json_ku64(&j, "i915_created", p->i915_creates);
		xp_json_ku64(&j, "i915_created_bytes", p->i915_create_bytes);
		xp_json_ku64(&j, "i915_live", p->i915_live_objs);
		xp_json_ku64(&j, "i915_live_bytes", p->i915_live_bytes);
		xp_json_ku64(&j, "i915_faults", p->i915_faults);
		xp_json_ku64(&j, "i915_requests", p->i915_requests);
		xp_json_ku64(&j, "i915_waits", p->i915_waits);
		xp_json_ku64(&j, "i915_wait_ns", p->i915_wait_ns);
		xp_json_ku64(&j, "xe_bos", p->xe_bos);
		xp_json_ku64(&j, "xe_bo_bytes", p->xe_bo_bytes);
		xp_json_ku64(&j, "xe_exec_queues", p->xe_queues);
		xp_json_ku64(&j, "xe_jobs", p->xe_jobs);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
}

void xp_mem_stream_header(FILE *f)
{
	fprintf(f, "%-12s %-24s %-26s %s\n", "TIME(s)", "PROCESS", "EVENT", "FIELDS");
}

/* Fields worth showing: the event's own, not the common header or pointers' padding. */
static bool shown(const struct xp_tp_field *fl)
{
	return !fl->common;
}

void xp_mem_stream_text(FILE *f, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r,
			uint64_t t0)
{
	const struct xp_tp_format *fmt;
	char who[48], str[XP_RAWTP_STR], t[32];

	if (r->ev >= l->n)
		return;
	fmt = &l->fmt[r->ev];
	if (l->ev[r->ev].proc_ctx)
		snprintf(who, sizeof(who), "%u/%.16s", r->hdr.pid, r->comm);
	else
		snprintf(who, sizeof(who), "-");	/* not in the causing process's context */
	*xp_put_rel_s(t, r->hdr.ts_ns, t0) = '\0';	/* before t0: negative, never wrapped */
	fprintf(f, "%12s %-24.24s %-26s", t, who,
		l->ev[r->ev].name);
	for (int i = 0; i < fmt->nfields; i++) {
		const struct xp_tp_field *fl = &fmt->fields[i];
		uint64_t v;

		if (!shown(fl))
			continue;
		if (fl->data_loc) {
			for (int k = 0; k < XP_RAWTP_NSTR; k++)
				if (l->ev[r->ev].str[k] && !strcmp(l->ev[r->ev].str[k], fl->name))
					fprintf(f, " %s=%s", fl->name, xp_rawtp_rec_str(r, k, str, sizeof(str)));
			continue;
		}
		if (xp_tp_read_u64(fl, r->raw, r->raw_len, &v))
			continue;
		if (strchr(fl->type, '*'))
			fprintf(f, " %s=0x%" PRIx64, fl->name, v);
		else if (fl->is_signed)
			fprintf(f, " %s=%" PRId64, fl->name, (int64_t)v);
		else
			fprintf(f, " %s=%" PRIu64, fl->name, v);
	}
	fputc('\n', f);
}

void xp_mem_json_fields(struct xp_json *j, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	const struct xp_tp_format *fmt = &l->fmt[r->ev];
	char str[XP_RAWTP_STR];

	xp_json_begin_obj(j);
	for (int i = 0; i < fmt->nfields; i++) {
		const struct xp_tp_field *fl = &fmt->fields[i];
		uint64_t v;

		if (!shown(fl))
			continue;
		if (fl->data_loc) {
			for (int k = 0; k < XP_RAWTP_NSTR; k++)
				if (l->ev[r->ev].str[k] && !strcmp(l->ev[r->ev].str[k], fl->name))
					xp_json_kstr(j, fl->name, xp_rawtp_rec_str(r, k, str, sizeof(str)));
			continue;
		}
		if (xp_tp_read_u64(fl, r->raw, r->raw_len, &v))
			continue;
		if (fl->is_signed)
			xp_json_ki64(j, fl->name, (int64_t)v);
		else
			xp_json_ku64(j, fl->name, v);
	}
	xp_json_end_obj(j);
}

void xp_mem_stream_json(struct xp_json *j, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r,
			uint64_t t0)
{
	if (r->ev >= l->n)
		return;
	xp_json_begin_obj(j);
	xp_json_ki64(j, "t_ns", xp_rel_ns(r->hdr.ts_ns, t0));
	xp_json_kstr(j, "event", l->ev[r->ev].name);
	xp_json_kstr(j, "group", l->group[r->ev]);
	if (l->ev[r->ev].proc_ctx) {
		char comm[XP_COMM_LEN + 1];

		memcpy(comm, r->comm, XP_COMM_LEN);
		comm[XP_COMM_LEN] = '\0';
		xp_json_ku64(j, "pid", r->hdr.pid);
		xp_json_kstr(j, "comm", comm);
	} else {
		xp_json_key(j, "pid");
		xp_json_null(j);
	}
	xp_json_key(j, "fields");
	xp_mem_json_fields(j, l, r);
	xp_json_end_obj(j);
	xp_json_finish(j);
}
