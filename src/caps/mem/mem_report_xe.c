/* mem summary: the xe driver's section, text and JSON (src/caps/mem/mem_report_int.h). */
#include "caps/mem/mem_report_int.h"

/* What each figure can be charged to, and why. */
static const char *const why_xe_submit =
	"exec-queue and job creation run in the submitting process; job run and queue destroy in "
	"the scheduler's worker";
static const char *const why_xe_mem =
	"xe_bo_create runs in the allocating process; xe_bo_move in whichever task forced the "
	"move; xe_vma_pagefault in the GT fault worker";


void xp_mem_text_xe(FILE *f, const struct xp_tp_report *r)
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

void xp_mem_json_xe(struct xp_json *j, const struct xp_tp_report *r)
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
