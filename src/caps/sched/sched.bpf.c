// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DRM GPU scheduler events (group "gpu_scheduler"), both generations, copied
 * raw with the shared raw-tracepoint routine (bpf/rawtp.bpf.h): no field
 * offsets here, user space decodes with the layouts of the running kernel's
 * format files. String 0 is the ring name where the event has one.
 * Program index = enum xp_sched_tp (src/caps/sched/sched_stats.h).
 *
 * No process filters here: run and done fire in the scheduler's worker or in
 * an interrupt, not in the submitter, so user space filters after the join.
 */
#include "bpf/rawtp.bpf.h"

/* up to 6.16 */
XP_RAWTP_PROG(sched, XP_REC_SCHED, 0)	/* drm_sched_job */
XP_RAWTP_PROG(sched, XP_REC_SCHED, 1)	/* drm_run_job */
XP_RAWTP_PROG(sched, XP_REC_SCHED, 2)	/* drm_sched_process_job */
XP_RAWTP_PROG(sched, XP_REC_SCHED, 3)	/* drm_sched_job_wait_dep */
/* from 6.17 */
XP_RAWTP_PROG(sched, XP_REC_SCHED, 4)	/* drm_sched_job_queue */
XP_RAWTP_PROG(sched, XP_REC_SCHED, 5)	/* drm_sched_job_run */
XP_RAWTP_PROG(sched, XP_REC_SCHED, 6)	/* drm_sched_job_done */
XP_RAWTP_PROG(sched, XP_REC_SCHED, 7)	/* drm_sched_job_add_dep */
XP_RAWTP_PROG(sched, XP_REC_SCHED, 8)	/* drm_sched_job_unschedulable */

/*
 * The completion event (drm_sched_process_job up to 6.16, drm_sched_job_done
 * from 6.17) fires in the hardware fence's interrupt. A classic tracepoint
 * program there is skipped whenever it interrupts another BPF tracepoint
 * program on the same CPU (the kernel's per-CPU bpf_prog_active guard); a raw
 * tracepoint only guards against itself. Its argument is the
 * struct drm_sched_fence *, not the formatted record, so it builds the record
 * the classic copy would have produced: the fields at the offsets user space
 * read from the event's format (struct xp_sched_done_cfg). Attached to the
 * event by name; user space falls back to the classic program when this one
 * does not load or attach (no gpu_sched module BTF to relocate against).
 */
#include "caps/sched/sched.h"

const volatile struct xp_sched_done_cfg xp_sched_done = { .fence_off = -1, .context_off = -1,
							   .seqno_off = -1 };

static __always_inline void put_u64(struct xp_rawtp_rec *r, __s16 off, __u64 v)
{
	if (off < 0 || off > XP_RAWTP_RAW - (int)sizeof(v))
		return;
	__builtin_memcpy(&r->raw[off], &v, sizeof(v));
}

SEC("raw_tp")
int xp_sched_done_raw(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 ts = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	struct drm_sched_fence *f = (void *)(long)ctx->args[0];
	struct xp_rawtp_rec *r;
	__u32 n;

	r = xp_reserve(sizeof(*r));
	if (!r)
		return 0;
	__builtin_memset(r, 0, sizeof(*r));
	xp_fill_hdr(&r->hdr, XP_REC_SCHED, sizeof(*r), ts, id);
	r->ev = xp_sched_done.ev;
	n = xp_sched_done.raw_size;
	if (n > XP_RAWTP_RAW)
		n = XP_RAWTP_RAW;
	r->raw_len = (__u16)n;
	if (xp_sched_done.fence_off >= 0)
		put_u64(r, xp_sched_done.fence_off, (__u64)(long)&f->finished);
	if (xp_sched_done.context_off >= 0)
		put_u64(r, xp_sched_done.context_off, BPF_CORE_READ(f, finished.context));
	if (xp_sched_done.seqno_off >= 0)
		put_u64(r, xp_sched_done.seqno_off, BPF_CORE_READ(f, finished.seqno));
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	xp_submit(r);
	return 0;
}
