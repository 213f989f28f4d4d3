/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel side of raw-tracepoint capabilities, written once: a classic
 * tracepoint program that copies the first bytes of its raw record and up to
 * two __data_loc strings into a struct xp_rawtp_rec. It knows no field
 * offsets; user space sets xp_rawtp_cfg[] from the tracefs format files
 * before load, and attaches program xp_<cap>_<index> to its event by name.
 *
 *   #include "bpf/rawtp.bpf.h"
 *   XP_RAWTP_PROG(sched, XP_REC_SCHED, 0)   // -> program "xp_sched_0"  (or tp.bpf.c's slots)
 */
#ifndef XP_BPF_RAWTP_H
#define XP_BPF_RAWTP_H

#include "bpf/common.bpf.h"
#include "shared/rawtp_rec.h"

const volatile struct xp_rawtp_cfg xp_rawtp_cfg[XP_RAWTP_MAX_EV] = {};

static __always_inline void xp_rawtp_str(void *ctx, struct xp_rawtp_rec *r, __s16 off, int i)
{
	__u64 base = (__u64)(long)ctx;
	__u32 loc = 0;
	long k;

	if (off < 0 || off > XP_RAWTP_RAW - 4)
		return;
	if (bpf_probe_read_kernel(&loc, sizeof(loc), (void *)(base + off)))
		return;
	k = bpf_probe_read_kernel_str(r->str[i], XP_RAWTP_STR, (void *)(base + (loc & 0xffff)));
	if (k > 0)
		r->str_len[i] = (__u16)(k - 1);
}

/*
 * A record of `type` for event ev, reserved, zeroed and headed (time ts,
 * task id); NULL when the filters leave the task out (`filter`: the event
 * fires in the causing process) or the ring buffer is full. Every program
 * that writes a struct xp_rawtp_rec starts with it (vblank's raw_tp ones too).
 */
static __always_inline struct xp_rawtp_rec *xp_rawtp_reserve(__u16 type, __u32 ev, bool filter, __u64 ts,
							    __u64 id)
{
	struct xp_rawtp_rec *r;

	if (filter && xp_filtered(id >> 32))
		return NULL;
	r = xp_reserve(sizeof(*r));
	if (!r)
		return NULL;
	__builtin_memset(r, 0, sizeof(*r));
	xp_fill_hdr(&r->hdr, type, sizeof(*r), ts, id);
	r->ev = (__u16)ev;
	return r;
}

static __always_inline int xp_rawtp_emit(void *ctx, __u16 type, __u32 ev)
{
	__u64 ts = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	struct xp_rawtp_rec *r;
	__u32 n;

	if (ev >= XP_RAWTP_MAX_EV)
		return 0;
	r = xp_rawtp_reserve(type, ev, xp_rawtp_cfg[ev].filter, ts, id);
	if (!r)
		return 0;
	n = xp_rawtp_cfg[ev].raw_size;
	if (n > XP_RAWTP_RAW)
		n = XP_RAWTP_RAW;
	if (n && !bpf_probe_read_kernel(r->raw, n, ctx))
		r->raw_len = (__u16)n;
	if (xp_rawtp_cfg[ev].cgroup && n <= XP_RAWTP_CGROUP_AT) {
		__u64 cg = bpf_get_current_cgroup_id();

		__builtin_memcpy(&r->raw[XP_RAWTP_CGROUP_AT], &cg, sizeof(cg));
	}
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	xp_rawtp_str(ctx, r, xp_rawtp_cfg[ev].str_off[0], 0);
	xp_rawtp_str(ctx, r, xp_rawtp_cfg[ev].str_off[1], 1);
	/*
	 * Stamped when the copy is done, just before the kernel goes on with
	 * what the event announces (run_job after drm_sched_job_run, ...), so
	 * the copy's own cost does not lengthen the interval this event starts;
	 * under emulation it is tens of microseconds. The completion event,
	 * which ends intervals, is a raw_tp program that stamps on entry.
	 */
	r->hdr.ts_ns = bpf_ktime_get_ns();
	xp_submit(r);
	return 0;
}

#define XP_RAWTP_PROG(cap, type, idx) \
	SEC("tracepoint") int xp_##cap##_##idx(void *ctx) { return xp_rawtp_emit(ctx, type, idx); }

#endif
