/* mem: the xe driver's events (src/caps/mem/mem_stats.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "caps/mem/mem_stats.h"
#include "caps/mem/mem_int.h"

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

int xp_mem_xe(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
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
		if ((p = xp_mem_proc_of(s, r)) >= 0)
			s->procs[p].xe_queues++;
		return 0;
	case XP_MEM_XE_QUEUE_DESTROY: s->xe_queue_destroys++; return 0;
	case XP_MEM_XE_JOB_CREATE:
		s->xe_jobs++;
		if ((p = xp_mem_proc_of(s, r)) >= 0)
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
		if ((p = xp_mem_proc_of(s, r)) >= 0) {
			s->procs[p].xe_bos++;
			s->procs[p].xe_bo_bytes += a;
		}
		return 0;
	}
	return -ENOENT;
}
