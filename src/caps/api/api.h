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

/* A thread's open calls (the frames map): depth may pass XP_API_DEPTH (those are not kept). */
struct xp_api_frame {
	__u64 ts[XP_API_DEPTH];
	__u32 fn[XP_API_DEPTH];	/* the function's index */
	__u32 depth;
	__u32 pad;
};

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
