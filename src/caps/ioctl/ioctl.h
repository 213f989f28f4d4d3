/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `xputrace ioctl`: records and kernel-side aggregates. Fixed-width types only. */
#ifndef XP_CAPS_IOCTL_H
#define XP_CAPS_IOCTL_H

#include "shared/record.h"
#include "shared/hist_buckets.h"

/* --device nodes the kernel side compares one by one; more go to a hash map */
#define XP_IOCTL_DEV_LIST 8

/* Values of the "majors" map: a whole major is traced. Key: major number. */
/* Values of the "devs" map: one device node is traced. Key: kernel dev_t. */
#define XP_DEV_TRACED 1

struct xp_ioctl_rec {
	struct xp_rec_hdr hdr;	/* ts_ns: entry into ioctl() */
	__u64 lat_ns;		/* entry to return; XP_IOCTL_UNTIMED: entry unseen, ts_ns the return */
	__u64 arg;
	__u64 cgroup_id;
	__u32 cmd;
	__u32 dev;		/* kernel dev_t of the file's inode */
	__s32 fd;
	__s32 ret;		/* return value; negative errno on failure */
	char comm[XP_COMM_LEN];
};

/* lat_ns of a call whose start no program saw (a run the kernel skipped): counted, not timed. */
#define XP_IOCTL_UNTIMED (~0ull)

/* The pid of the (other) rows: calls of processes past the rows kept (no real pid). */
#define XP_IOCTL_PID_OTHER 0xffffffffu

/* Rows of the kernel's counts map (ioctl.bpf.c), where two drains' new keys must fit. */
#define XP_IOCTL_KERNEL_ROWS 16384

/*
 * The kernel's (other) rows, by generation modulo this: the generations a
 * program may still count in (the current one and the one before) and those
 * user space takes out (ioctl_live.c) never share a slot.
 */
#define XP_IOCTL_OTHER_GENS 4

/* Summary mode aggregates in the kernel, keyed by process, device and command. */
struct xp_ioctl_key {
	__u32 pid;
	__u32 dev;
	__u32 cmd;
	/*
	 * The drain generation the kernel counted it in (ioctl.bpf.c): user space
	 * takes an entry out of the map only once no program can still be adding
	 * to it. 0 in the user-space table.
	 */
	__u32 gen;
};

struct xp_ioctl_val {
	__u64 calls;
	__u64 errors;
	__u64 sum_ns;
	__u64 max_ns;
	char comm[XP_COMM_LEN];
	__u32 hist[XP_HIST_BUCKETS];
	/*
	 * The errno of the key's first call, when it failed (set as the entry is
	 * made, never changed after): failures with it are counted here, without
	 * the errno map's lookup; other errnos go to that map.
	 */
	__u32 err1;
	/* calls counted at their return only (their start unseen), in calls but not in the times */
	__u32 untimed;
	__u64 err1_calls;
};

/* Failed calls by errno, a separate map so the common path stays small. */
struct xp_ioctl_err_key {
	struct xp_ioctl_key k;
	__u32 err;	/* positive errno */
	__u32 pad;
};

#endif
