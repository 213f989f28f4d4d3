/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The sched capability's job-completion event attached as a raw tracepoint
 * (src/caps/sched/sched.bpf.c, xp_sched_done_raw). A classic tracepoint program is
 * skipped when it interrupts another BPF tracepoint program on the same CPU,
 * and completions fire in the fence's interrupt; a raw tracepoint only guards
 * against itself. It sees the tracepoint's C argument (struct drm_sched_fence *)
 * instead of the formatted record, so it writes the fields user space decodes
 * into a struct xp_rawtp_rec at the offsets the tracefs format gives
 * (xp_sched_done_cfg_fill, src/caps/sched/sched_stats.h): the same record the
 * classic program would have copied. Fixed-width types only.
 */
#ifndef XP_CAPS_SCHED_H
#define XP_CAPS_SCHED_H

#include <linux/types.h>

struct xp_sched_done_cfg {
	__u16 ev;		/* event index (enum xp_sched_tp) written into the record */
	__u16 raw_size;		/* raw_len, as the classic copy would set it */
	__s16 fence_off;	/* up to 6.16: u64 &fence->finished at this offset; -1: none */
	__s16 context_off;	/* from 6.17: u64 fence->finished.context; -1: none */
	__s16 seqno_off;	/* from 6.17: u64 fence->finished.seqno; -1: none */
	__u16 pad;
};

#endif
