/* mem summary: the amdgpu driver's section, text and JSON (src/caps/mem/mem_report_int.h). */
#include "caps/mem/mem_report_int.h"

/* What each figure can be charged to, and why. */
static const char *const why_bo = "amdgpu_bo_create runs in the ioctl of the allocating process";
static const char *const why_move =
	"amdgpu_bo_move runs in whichever task forced the move (eviction, another process's "
	"allocation, a kernel worker)";
static const char *const why_submit =
	"amdgpu_cs_ioctl runs in the submitting process; amdgpu_sched_run_job in the GPU "
	"scheduler's worker, so run and delay are per ring";
static const char *const why_iv =
	"amdgpu_iv fires in the interrupt handler; its pasid names the VM of the process, not a pid";

void xp_mem_text_amdgpu(FILE *f, const struct xp_tp_report *r)
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
				k->submits, k->run, k->unmatched, xp_fmt_pct(&k->delay, 50, a, sizeof(a)),
				xp_fmt_pct(&k->delay, 99, b, sizeof(b)),
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

void xp_mem_json_amdgpu(struct xp_json *j, const struct xp_tp_report *r)
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
