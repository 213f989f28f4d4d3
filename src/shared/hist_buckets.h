/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Latency histogram buckets, computed the same way in the kernel (summary
 * mode aggregates there) and in user space (stream, record and report modes
 * aggregate there), so both give identical summaries.
 *
 * Log-linear: values below 2^XP_HIST_SUB_BITS have a bucket each; above, each
 * power of two is split into 2^XP_HIST_SUB_BITS equal sub-buckets, so a
 * bucket's width is at most 1/8 of its lower bound (12.5%). Collapsing the
 * sub-buckets of one power of two gives the classic log2 histogram.
 * Values of 2^(XP_HIST_MAX_MSB+1) ns (about 137 s) and above share the last
 * bucket, an overflow bucket of its own.
 */
#ifndef XP_SHARED_HIST_BUCKETS_H
#define XP_SHARED_HIST_BUCKETS_H

#include <linux/types.h>

#define XP_HIST_SUB_BITS 3
#define XP_HIST_SUB (1u << XP_HIST_SUB_BITS)
#define XP_HIST_MAX_MSB 36
/* the last bucket holds everything from 2^(XP_HIST_MAX_MSB+1) up */
#define XP_HIST_BUCKETS (XP_HIST_SUB + (XP_HIST_MAX_MSB - XP_HIST_SUB_BITS + 1) * XP_HIST_SUB + 1)

/* floor(log2(v)) for v > 0, branch-light so that the BPF verifier accepts it */
static __always_inline __u32 xp_log2_u64(__u64 v)
{
	__u32 r = 0, shift;

	shift = (v > 0xffffffffULL) << 5; v >>= shift; r |= shift;
	shift = (v > 0xffffULL) << 4; v >>= shift; r |= shift;
	shift = (v > 0xffULL) << 3; v >>= shift; r |= shift;
	shift = (v > 0xfULL) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3ULL) << 1; v >>= shift; r |= shift;
	r |= (__u32)(v >> 1);
	return r;
}

static __always_inline __u32 xp_hist_bucket(__u64 v)
{
	__u32 msb;

	if (v < XP_HIST_SUB)
		return (__u32)v;
	msb = xp_log2_u64(v);
	if (msb > XP_HIST_MAX_MSB)
		return XP_HIST_BUCKETS - 1;
	return XP_HIST_SUB + (msb - XP_HIST_SUB_BITS) * XP_HIST_SUB +
	       (__u32)((v >> (msb - XP_HIST_SUB_BITS)) & (XP_HIST_SUB - 1));
}

#endif
