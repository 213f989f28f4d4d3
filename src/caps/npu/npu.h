/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The npu capability's record and kernel maps: calls into the NPU driver's
 * functions (one kprobe.multi program, the function told by its attach
 * cookie), their durations where timed, and the driver's own tracepoints
 * (vpu:job, vpu:jsm, vpu:pm); AMD's amdxdna job events joined with the
 * gpu_scheduler's. Shared by kernel and user side.
 */
#ifndef XP_CAPS_NPU_H
#define XP_CAPS_NPU_H

#include "shared/record.h"

enum xp_npu_kind {
	XP_NPU_CALL = 1,	/* a call (stream and record mode; else counted in the kernel) */
	XP_NPU_RET = 2,		/* a timed call's return: dur_ns */
	XP_NPU_JOB = 3,		/* vpu:job: name = event, a = ctx_id, b = engine_id, c = job_id */
	XP_NPU_JSM = 4,		/* vpu:jsm: name = event, type, a = status, b = request_id, c = result */
	XP_NPU_PM = 5,		/* vpu:pm: name = event */
	/* AMD's amdxdna: its job events, and the gpu_scheduler's for the same jobs */
	XP_NPU_XDNA = 6,	/* amdxdna:xdna_job: name = event, type = hw context, fctx/fseq, seq, a = op */
	XP_NPU_SQUEUE = 7,	/* gpu_scheduler:drm_sched_job_queue of an amdxdna job (the submitter's context) */
	XP_NPU_SDONE = 8,	/* gpu_scheduler:drm_sched_job_done of an amdxdna job */
};

/* The attach cookie of a function: its index, its latency slot + 1, whether it is an IRQ handler. */
#define XP_NPU_CK_FN(ck) ((__u32)((ck) & 0xffff))
#define XP_NPU_CK_SLOT(ck) ((__u32)(((ck) >> 16) & 0xff))	/* 0: not timed */
#define XP_NPU_CK_IRQ (1ull << 24)
#define XP_NPU_MAX_FN 4096
#define XP_NPU_MAX_LAT 8

#define XP_NPU_NAME 48
#define XP_NPU_STR 32

struct xp_npu_rec {
	struct xp_rec_hdr h;	/* ts_ns: the call's or the event's time; pid/tid: the task */
	__u8 kind;		/* enum xp_npu_kind */
	__u8 dev;		/* 1: outside a process's context (interrupt, kernel thread): per device */
	__u16 slot;		/* RET: the latency slot */
	__u32 fn;		/* CALL/RET: the function's index in this run */
	__u64 dur_ns;		/* RET */
	__u32 a, b, c, pad;
	char comm[XP_COMM_LEN];
	char name[XP_NPU_NAME];	/* CALL/RET: the function; JOB/JSM/PM: the event string */
	char type[XP_NPU_STR];	/* JSM: the message type; XDNA: the hw context; SQUEUE: the scheduler */
	/* since amdxdna: older files' records end before these (XP_NPU_REC_V1_SIZE) */
	union {
		__u64 fctx;	/* XDNA, SQUEUE, SDONE: the job's finished fence context */
		__u64 cgroup;	/* JOB: the cgroup id of the task it fired in (0: not recorded) */
	};
	__u64 fseq;		/* XDNA, SQUEUE, SDONE: the finished fence's seqno */
	__u64 seq;		/* XDNA: the driver's job sequence number in its hw context */
};

/* The size of a record written before the amdxdna fields: kinds CALL..PM only. */
#define XP_NPU_REC_V1_SIZE __builtin_offsetof(struct xp_npu_rec, fctx)

/* The kernel's count of calls: per process (tgid) and function; tgid 0: per device. */
struct xp_npu_key {
	__u32 tgid;
	__u32 fn;
};

struct xp_npu_val {
	__u64 calls;
	char comm[XP_COMM_LEN];
};

#endif
