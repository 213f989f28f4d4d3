/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `xputrace latency`: the time between a "from" probe and a "to" probe,
 * paired in the kernel by a key. Shared by the BPF object
 * (src/caps/latency/latency.bpf.c) and user space: the key layout, the per-side
 * configuration set before load, and the record of one completed pair.
 */
#ifndef XP_CAPS_LATENCY_H
#define XP_CAPS_LATENCY_H

#include <linux/types.h>
#include "shared/record.h"

#define XP_LAT_MAX_KEYS 2	/* key fields */
#define XP_LAT_SLOT 32		/* bytes per key field: a number, or a string cut to 31 */
#define XP_LAT_NAMES 48		/* "dev,pasid": the key's names, NUL-padded */

/* Where a key field comes from, per side. */
enum xp_lat_src {
	XP_LAT_SRC_NONE = 0,
	XP_LAT_SRC_TID = 1,	/* the current thread */
	XP_LAT_SRC_PID = 2,	/* the current process */
	XP_LAT_SRC_NUM = 3,	/* a numeric tracepoint field: off, size, is_signed */
	XP_LAT_SRC_STRLOC = 4,	/* a __data_loc string field at off */
	XP_LAT_SRC_RELLOC = 5,	/* a __rel_loc string field at off */
	XP_LAT_SRC_CHARS = 6,	/* a fixed char[size] field at off */
	XP_LAT_SRC_ARG = 7,	/* a function argument: arg = 0..5 */
};

/* What a key field is, for printing: the same on both sides. */
enum xp_lat_kind {
	XP_LAT_KIND_NONE = 0,
	XP_LAT_KIND_UINT = 1,
	XP_LAT_KIND_INT = 2,
	XP_LAT_KIND_STR = 3,
	XP_LAT_KIND_HEX = 4,	/* function arguments: often pointers */
};

struct xp_lat_field_cfg {
	__u8 src;		/* enum xp_lat_src */
	__u8 is_signed;
	__u8 arg;
	__u8 pad;
	__u16 off, size;
};

/* One side's settings (rodata, before load). */
struct xp_lat_side_cfg {
	struct xp_lat_field_cfg f[XP_LAT_MAX_KEYS];
};

/* The pairing key: the same bytes from both sides. */
struct xp_lat_key {
	__u8 k[XP_LAT_MAX_KEYS][XP_LAT_SLOT];
};

/*
 * Counters the kernel keeps (global "lat_counts", added to atomically and
 * read by user space from the mapped .bss, so reading them takes no system
 * call: a map system call marks the CPU as running BPF, and a tracepoint or
 * kprobe that fires there meanwhile, e.g. an end from an interrupt, would be
 * skipped by the kernel).
 */
enum xp_lat_stat {
	XP_LAT_ST_STARTS = 0,	/* "from" probes that started a pair */
	XP_LAT_ST_ENDS = 1,	/* "to" probes that completed a pair */
	XP_LAT_ST_ORPHAN_ENDS = 2,	/* "to" probes without a start in flight */
	XP_LAT_ST_INFLIGHT_FULL = 3,	/* starts not kept: no free slot near their key's place */
	XP_LAT_ST_TOO_DEEP = 4,	/* starts nested deeper than XP_LAT_MAX_DEPTH under one key */
	XP_LAT_ST_FROM_RUNS = 5,	/* the "from" program ran (filtered or not) */
	XP_LAT_ST_TO_RUNS = 6,	/* the "to" program ran (filtered or not) */
	XP_LAT_ST_FROM_HITS = 7,	/* a classic "from" tracepoint fired (raw tracepoint count) */
	XP_LAT_ST_TO_HITS = 8,	/* a classic "to" tracepoint fired (raw tracepoint count) */
	XP_LAT_ST_END_RACED = 9,	/* an end found its start still being written (it came inside it) */
	XP_LAT_ST_FROM_RECOVERED = 10,	/* skipped starts done from the raw tracepoint's arguments */
	XP_LAT_ST_TO_RECOVERED = 11,	/* skipped ends done from the raw tracepoint's arguments */
	XP_LAT_ST_MAX,
};

/*
 * The in-flight table: an array of slots, one open start each, shared with
 * user space by mmap. A key's starts live within XP_LAT_WINDOW slots from
 * its hash; slots change state only by compare-and-swap, so starts and ends
 * on several CPUs, in interrupts nested in one another, and user space's
 * ageing never lose or share a slot, and nothing takes a lock.
 */
enum xp_lat_slot_state {
	XP_LAT_SLOT_FREE = 0,
	XP_LAT_SLOT_CLAIMED = 1,	/* a start is writing it */
	XP_LAT_SLOT_OPEN = 2,		/* a start waiting for its end */
	XP_LAT_SLOT_TAKEN = 3,		/* an end (or ageing) is reading it */
};

#define XP_LAT_WINDOW 32

struct xp_lat_slot {
	__u64 state;		/* enum xp_lat_slot_state */
	__u64 seq;		/* order of starts: a key's newest open start ends first */
	__u64 hash;		/* of the key */
	__u64 ts;
	__u64 pid_tgid;
	struct xp_lat_key key;
	char comm[XP_COMM_LEN];
};

#define XP_LAT_MAX_DEPTH 16

/* One completed pair. hdr.ts_ns is the start, hdr.pid/tid the starting thread. */
struct xp_lat_rec {
	struct xp_rec_hdr hdr;
	__u64 end_ns;
	__u32 end_tid;
	__u16 depth;		/* nesting level of this pair under its key (0: outermost) */
	__u8 kind[XP_LAT_MAX_KEYS];	/* enum xp_lat_kind per key field */
	struct xp_lat_key key;
	char names[XP_LAT_NAMES];	/* the key fields' names, comma-separated */
	char comm[XP_COMM_LEN];	/* of the starting thread */
};

#endif
