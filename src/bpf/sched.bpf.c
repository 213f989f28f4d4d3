// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DRM GPU scheduler events, both generations, with no field offsets here:
 * each program copies the first bytes of its raw tracepoint record and the
 * ring name its first __data_loc string points at. User space parsed the
 * events' tracefs format files; it says per event how many bytes the fixed
 * part has and where the string's __data_loc word is (rodata, set before
 * load), and decodes the bytes with the same layouts.
 *
 * No process filters here: run and done fire in the scheduler's worker or in
 * an interrupt, not in the submitter, so user space filters after the join.
 */
#include "bpf/common.bpf.h"
#include "shared/sched.h"

const volatile __u16 raw_size[XP_TP_SCHED_MAX] = {};
const volatile __s16 str_off[XP_TP_SCHED_MAX] = {};	/* -1: no string */

static __always_inline int emit(void *ctx, __u32 tp)
{
	__u64 ts = bpf_ktime_get_ns();
	__u64 base = (__u64)(long)ctx;
	struct xp_sched_rec *r;
	__u32 n, loc = 0;
	__s16 so;
	long k;

	r = xp_reserve(sizeof(*r));
	if (!r)
		return 0;
	__builtin_memset(r, 0, sizeof(*r));
	xp_fill_hdr(&r->hdr, XP_REC_SCHED, sizeof(*r), ts, bpf_get_current_pid_tgid());
	r->tp = (__u16)tp;
	n = raw_size[tp];
	if (n > XP_SCHED_RAW)
		n = XP_SCHED_RAW;
	if (!bpf_probe_read_kernel(r->raw, n, (void *)base))
		r->raw_len = (__u16)n;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	so = str_off[tp];
	if (so >= 0 && so <= XP_SCHED_RAW - 4 &&
	    !bpf_probe_read_kernel(&loc, sizeof(loc), (void *)(base + so))) {
		k = bpf_probe_read_kernel_str(r->str, sizeof(r->str), (void *)(base + (loc & 0xffff)));
		if (k > 0)
			r->str_len = (__u16)(k - 1);
	}
	xp_submit(r);
	return 0;
}

/* attached by name from user space: bpf_program__attach_tracepoint(prog, "gpu_scheduler", NAME) */
#define TP(N, IDX) \
	SEC("tracepoint") int xp_sched_##N(void *ctx) { return emit(ctx, IDX); }

TP(drm_sched_job, XP_TP_DRM_SCHED_JOB)
TP(drm_run_job, XP_TP_DRM_RUN_JOB)
TP(drm_sched_process_job, XP_TP_DRM_SCHED_PROCESS_JOB)
TP(drm_sched_job_wait_dep, XP_TP_DRM_SCHED_JOB_WAIT_DEP)
TP(drm_sched_job_queue, XP_TP_DRM_SCHED_JOB_QUEUE)
TP(drm_sched_job_run, XP_TP_DRM_SCHED_JOB_RUN)
TP(drm_sched_job_done, XP_TP_DRM_SCHED_JOB_DONE)
TP(drm_sched_job_add_dep, XP_TP_DRM_SCHED_JOB_ADD_DEP)
TP(drm_sched_job_unschedulable, XP_TP_DRM_SCHED_JOB_UNSCHEDULABLE)
