/* mem: the amdgpu driver's events (src/caps/mem/mem_stats.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "caps/mem/mem_stats.h"
#include "caps/mem/mem_int.h"

/* One function per event (or pair of events joined by fence), each read alone;
 * xp_mem_amdgpu only dispatches on the record's event. */

static int amd_bo_create(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	uint64_t a = 0, b = 0, c = 0, d = 0;
	int p;

	if (F("pages", &a) || F("type", &b) || F("prefer", &c))
		return -EBADMSG;
	F("allow", &d);
	a *= s->page_size;
	s->amd_bos++;
	s->amd_bo_bytes += a;
	s->amd_bo_bytes_by_pref[c & XP_AMD_DOMAIN_VRAM ? 0 : c & XP_AMD_DOMAIN_GTT ? 1 : 2] += a;
	p = xp_mem_proc_of(s, r);
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
}

static int amd_bo_move(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	uint64_t a = 0, b = 0, c = 0;

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
}

/* cs_ioctl (submit, in the process) and sched_run_job (run, per ring), joined by fence */
static int amd_submit_run(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	uint64_t a = 0, b = 0;
	struct xp_mem_pending q;
	int p, k;

	if (F("context", &a) || F("seqno", &b))
		return -EBADMSG;
	k = xp_mem_ring_of(s, r);
	if (r->ev == XP_MEM_AMD_CS_IOCTL) {
		p = xp_mem_proc_of(s, r);
		if (p >= 0)
			s->procs[p].amd_submits++;
		if (k >= 0)
			s->rings[k].submits++;
		xp_mem_pending_push(s, XP_PEND_AMD_SUBMIT, a, b, r->hdr.ts_ns, k, p);
		return 0;
	}
	if (k >= 0)
		s->rings[k].run++;
	if (!xp_mem_pending_take(s, XP_PEND_AMD_SUBMIT, a, b, -1, &q)) {
		if (k >= 0)
			s->rings[k].unmatched++;
	} else if (k >= 0) {
		xp_hist_add(&s->rings[k].delay, xp_mem_since(r->hdr.ts_ns, q.ts));
	}
	return 0;
}

static int amd_iv(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	uint64_t a = 0, b = 0, c = 0;

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

int xp_mem_amdgpu(struct xp_mem_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	switch (r->ev) {
	case XP_MEM_AMD_BO_CREATE: return amd_bo_create(s, l, r);
	case XP_MEM_AMD_BO_MOVE: return amd_bo_move(s, l, r);
	case XP_MEM_AMD_CS_IOCTL:
	case XP_MEM_AMD_RUN_JOB: return amd_submit_run(s, l, r);
	case XP_MEM_AMD_IV: return amd_iv(s, l, r);
	}
	return -ENOENT;
}
