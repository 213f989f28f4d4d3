/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `xputrace api`: user-space GPU/NPU runtime calls (uprobes and uretprobes)
 * and the ioctls each thread issued inside them. Shared by the BPF object
 * (api.bpf.c) and user space: the record and the function descriptors.
 */
#ifndef XP_CAPS_API_H
#define XP_CAPS_API_H

#include <linux/types.h>
#include "shared/record.h"
#include "shared/hist_buckets.h"

/* The record type: the next free id after fence's. */
#define XP_REC_API 9

#define XP_API_NAME 48		/* a function's name, cut to 47 */
#define XP_API_LIB 32		/* a library's soname, cut to 31 */
#define XP_API_MAX_FN 256	/* functions traced in one run */
#define XP_API_DEPTH 8		/* nested traced calls kept per thread */

/* What a return value says (struct xp_api_fn.rule). */
enum xp_api_rule {
	XP_API_RET_NONZERO = 0,	/* ze, cl, cu, vk, hip, hsa: 0 is success, anything else an error */
	XP_API_RET_NEGATIVE = 1,	/* libdrm: a negative value (errno) is an error */
	XP_API_RET_VALUE = 2,	/* a value, never an error (hsa_signal_wait_*: the signal's value) */
};

/* One traced function, by its cookie (the index): filled by user space before attach. */
struct xp_api_fn {
	char name[XP_API_NAME];
	char lib[XP_API_LIB];
	__u32 rule;		/* enum xp_api_rule */
	__u32 pad;
};

/*
 * Where a thread last counted a function (summary mode): its entry's slot in
 * the counts array for generation gen1 - 1 (0: none), so that a thread's
 * next calls of it in the generation need no hash lookup.
 */
struct xp_api_slot {
	__u32 gen1;
	__u32 fn;
	__u32 slot;
	__u32 pad;
};

#define XP_API_SLOT_CACHE 4	/* slots a thread keeps, by function index modulo this */

/* A thread's open calls (the frames map): depth may pass XP_API_DEPTH (those are not kept). */
struct xp_api_frame {
	__u64 ts[XP_API_DEPTH];
	__u32 fn[XP_API_DEPTH];	/* the function's index */
	__u32 depth;
	/*
	 * Bit d: the open call at depth d saw an ioctl on a traced device or a
	 * job queued inside it, so its return needs a record for user space's
	 * join. XP_API_LOOSE: a job queued while no call was open, which the
	 * next outermost call's record settles (an outside job).
	 */
	__u32 marks;
	__u32 tid;		/* in the frames array: its owner, 0 while free */
	__u32 pad;
	struct xp_api_slot cache[XP_API_SLOT_CACHE];
};

/*
 * Threads' frames in an array, by thread id modulo this: a thread owns the
 * entry it finds free until it ends, so its programs find it without a
 * hash lookup; a thread whose entry another owns has its frame in the hash
 * map instead.
 */
#define XP_API_FRAME_SLOTS 16384

#define XP_API_LOOSE (1u << 31)

/*
 * Summary mode: calls whose return needs no record (no ioctl and no job
 * inside) are counted in the kernel, by process, function and drain
 * generation (as `ioctl`'s counts: user space takes out only entries no
 * program adds to anymore).
 */
struct xp_api_agg_key {
	__u32 pid;
	__u32 fn;		/* the function's index */
	__u32 gen;
	__u32 pad;
};

struct xp_api_agg {
	__u64 sum_ns;	/* the calls: the sum of hist (one add less a call) */
	__u64 max_ns;
	__u64 err1_calls;	/* errors that returned err1 */
	char comm[XP_COMM_LEN];	/* the process's name at its first call counted here */
	/*
	 * The return value of the entry's first call when that was an error
	 * (set as the entry is made, never changed after), 0 when it was not:
	 * errors with it are counted here, others in the errs map.
	 */
	__s32 err1;
	__u32 hist[XP_HIST_BUCKETS];
	__u32 pad;
};

/* The errors of an entry other than its err1, by return value. */
struct xp_api_err_key {
	struct xp_api_agg_key k;
	__s32 ret;
	__u32 pad;
};

/*
 * The kernel's counts: an array of XP_API_AGG_ROWS entries, a quarter for
 * each generation modulo XP_API_AGG_GENS (the one programs count in, the
 * one before, which a tick leaves a second more, and those user space takes
 * out never share one), and a hash map from struct xp_api_agg_key to the
 * entry's index. A call that finds its generation's quarter full gets a
 * record.
 */
#define XP_API_AGG_ROWS 4096
#define XP_API_AGG_GENS 4
#define XP_API_AGG_SLOTS (XP_API_AGG_ROWS / XP_API_AGG_GENS)
#define XP_API_AGG_ERRS 4096

enum xp_api_what {
	XP_API_CALL = 1,	/* a call returned: ts_ns its entry, end_ns its return */
	XP_API_IOCTL = 2,	/* an ioctl on a traced device, issued inside a call of its thread */
};

struct xp_api_rec {
	struct xp_rec_hdr hdr;	/* ts_ns: the call's entry, or the ioctl's */
	__u64 end_ns;		/* its return */
	__s64 ret;		/* the return value (a call's as an int) */
	__u64 arg;		/* ioctl: its argument */
	__u32 what;		/* enum xp_api_what */
	__u32 cmd;		/* ioctl: the command */
	__u32 dev;		/* ioctl: kernel dev_t of the file */
	__s32 fd;		/* ioctl */
	__u32 depth;		/* call: traced calls it is nested in on its thread (0: outermost) */
	__u32 rule;		/* call: enum xp_api_rule */
	char comm[XP_COMM_LEN];
	char name[XP_API_NAME];	/* call: the function */
	char lib[XP_API_LIB];	/* call: its library */
};

#endif
