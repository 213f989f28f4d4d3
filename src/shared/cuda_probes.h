/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What libxputrace-cuda.so (src/cuda/) hands over through its USDT probes,
 * provider "xputrace_cuda", each with one argument, a pointer to a struct
 * xp_cuda_ev in the process's memory, valid during the probe:
 *   kernel   a kernel ran (CUPTI's concurrent-kernel activity)
 *   memcpy   a copy ran (bytes, direction)
 *   memset   a memset ran (bytes)
 *   launches launch calls noted on their threads, handed over in batches
 *            (struct xp_cuda_launches): no probe fires on the launch path
 *   drops    CUPTI dropped records (count in `bytes`)
 * Times are CLOCK_MONOTONIC nanoseconds, the clock of bpf_ktime_get_ns.
 * Shared by the library, the BPF object (caps/cuda/cuda.bpf.c) and `xputrace
 * cuda`'s user space: fixed-width types only.
 */
#ifndef XP_SHARED_CUDA_PROBES_H
#define XP_SHARED_CUDA_PROBES_H

#include <linux/types.h>

#define XP_CUDA_PROVIDER xputrace_cuda

enum xp_cuda_what {
	XP_CUDA_KERNEL = 1,
	XP_CUDA_MEMCPY = 2,
	XP_CUDA_MEMSET = 3,
	XP_CUDA_LAUNCH = 4,
	XP_CUDA_DROPS = 5,
};

/* CUPTI's copy kinds (CUpti_ActivityMemcpyKind), the first ones named. */
enum xp_cuda_copy {
	XP_CUDA_COPY_UNKNOWN = 0,
	XP_CUDA_COPY_HTOD = 1,
	XP_CUDA_COPY_DTOH = 2,
	XP_CUDA_COPY_DTOD = 8,
	XP_CUDA_COPY_HTOH = 9,
	XP_CUDA_COPY_PTOP = 10,
};

/* What a probe points at (launches: struct xp_cuda_launches). */
struct xp_cuda_ev {
	__u64 start_ns;		/* GPU start (launch: 0) */
	__u64 end_ns;		/* GPU end */
	__u64 bytes;		/* copy, memset: bytes; drops: records dropped */
	__u64 name;		/* const char *: kernel name, launch: the API function (0: none) */
	__u32 what;		/* enum xp_cuda_what */
	__u32 corr;		/* CUPTI's correlation id */
	__u32 device;
	__u32 context;
	__u32 stream;
	__u32 kind;		/* memcpy: enum xp_cuda_copy; launch: domain << 16 | cbid */
	__u32 grid[3];
	__u32 block[3];
};

/*
 * One launch call: its entry's time and correlation id on its thread. A
 * runtime launch is one call: the driver launch it makes inside is not
 * noted again (the kernel carries the runtime call's correlation id).
 */
struct xp_cuda_launch {
	__u64 ts_ns;		/* CLOCK_MONOTONIC at the call's entry */
	__u64 name;		/* const char *: the API function */
	__u32 corr;		/* CUPTI's correlation id */
	__u32 tid;		/* the calling thread */
	__u32 context;
	__u32 kind;		/* domain << 16 | cbid */
};

#define XP_CUDA_LAUNCH_BATCH 128

/* What the launches probe points at: the marks since the last batch. */
struct xp_cuda_launches {
	__u32 n;
	__u32 pad;
	struct xp_cuda_launch m[XP_CUDA_LAUNCH_BATCH];
};

#endif
