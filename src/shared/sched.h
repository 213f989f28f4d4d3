/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The sched capability's record: the first bytes of one raw gpu_scheduler
 * tracepoint record, as the kernel laid it out, plus the ring name its
 * __data_loc string points at. User space decodes the raw bytes with the
 * layout parsed from that event's tracefs format file, so the kernel side
 * knows no field offsets and both event generations share one program body.
 * Fixed-width types only: shared by kernel and user side.
 */
#ifndef XP_SHARED_SCHED_H
#define XP_SHARED_SCHED_H

#include <linux/types.h>
#include "shared/record.h"

/* Which tracepoint a record came from: the index into the per-event rodata. */
enum xp_sched_tp {
	/* up to Linux 6.16 */
	XP_TP_DRM_SCHED_JOB = 0,	/* queued (submitter's context) */
	XP_TP_DRM_RUN_JOB,		/* handed to the hardware */
	XP_TP_DRM_SCHED_PROCESS_JOB,	/* hardware fence signalled */
	XP_TP_DRM_SCHED_JOB_WAIT_DEP,	/* a dependency taken by the scheduler */
	/* from Linux 6.17 */
	XP_TP_DRM_SCHED_JOB_QUEUE,
	XP_TP_DRM_SCHED_JOB_RUN,
	XP_TP_DRM_SCHED_JOB_DONE,
	XP_TP_DRM_SCHED_JOB_ADD_DEP,
	XP_TP_DRM_SCHED_JOB_UNSCHEDULABLE,
	XP_TP_SCHED_MAX,
};

#define XP_SCHED_RAW 64		/* bytes of the raw record copied: every fixed field of both generations */
#define XP_SCHED_STR 32		/* ring name (drm_gpu_scheduler.name) */

struct xp_sched_rec {
	struct xp_rec_hdr hdr;	/* pid/tid: the task the event fired in */
	__u16 tp;		/* enum xp_sched_tp */
	__u16 raw_len;		/* valid bytes in raw */
	__u16 str_len;		/* bytes in str, NUL excluded */
	__u16 pad;
	char comm[XP_COMM_LEN];
	__u8 raw[XP_SCHED_RAW];
	char str[XP_SCHED_STR];
};

#endif
