// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DRM GPU scheduler events (group "gpu_scheduler"), both generations, copied
 * raw with the shared raw-tracepoint routine (bpf/rawtp.bpf.h): no field
 * offsets here, user space decodes with the layouts of the running kernel's
 * format files. String 0 is the ring name where the event has one.
 * Program index = enum xp_sched_tp (src/core/sched_stats.h).
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
