/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The npu capability's record and kernel maps: calls into the NPU driver's
 * functions (one kprobe.multi program, the function told by its attach
 * cookie), their durations where timed, and the driver's own tracepoints
 * (vpu:job, vpu:jsm, vpu:pm). Shared by kernel and user side.
 */
#ifndef XP_SHARED_NPU_H
#define XP_SHARED_NPU_H

#include "shared/record.h"

enum xp_npu_kind {
	XP_NPU_CALL = 1,	/* a call (stream and record mode; else counted in the kernel) */
	XP_NPU_RET = 2,		/* a timed call's return: dur_ns */
	XP_NPU_JOB = 3,		/* vpu:job: name = event, a = ctx_id, b = engine_id, c = job_id */
	XP_NPU_JSM = 4,		/* vpu:jsm: name = event, type, a = status, b = request_id, c = result */
	XP_NPU_PM = 5,		/* vpu:pm: name = event */
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
	char type[XP_NPU_STR];	/* JSM: the message type */
};

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
