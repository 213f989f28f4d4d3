/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `xputrace cuda`: the record the BPF programs write from what
 * libxputrace-cuda.so hands over through its USDT probes
 * (shared/cuda_probes.h). Shared by the BPF object (cuda.bpf.c) and user
 * space: fixed-width types only.
 */
#ifndef XP_CAPS_CUDA_H
#define XP_CAPS_CUDA_H

#include <linux/types.h>
#include "shared/cuda_probes.h"
#include "shared/record.h"

/* The record type: the next free id after api's. */
#define XP_REC_CUDA 10
#define XP_CUDA_NAME 96		/* a kernel's or function's name, cut to 95 */

struct xp_cuda_rec {
	struct xp_rec_hdr hdr;	/* ts_ns: the GPU start; launch, drops: the probe's time */
	__u64 end_ns;		/* the GPU end (launch, drops: ts_ns) */
	__u64 cgroup_id;	/* of the probe's task */
	__u64 bytes;
	__u32 what;
	__u32 corr;
	__u32 device;
	__u32 context;
	__u32 stream;
	__u32 kind;
	__u32 grid[3];
	__u32 block[3];
	char comm[XP_COMM_LEN];
	char name[XP_CUDA_NAME];
};

#endif
