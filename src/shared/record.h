/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The record stream: what the kernel-side programs write into the one ring
 * buffer, what `record` stores in a trace file, and what the decoder reads in
 * both cases. Shared by kernel and user side: fixed-width types only.
 *
 * Every record starts with struct xp_rec_hdr. `type` says which payload
 * follows; `size` is the whole record including the header, so a reader can
 * skip record types it does not know.
 */
#ifndef XP_SHARED_RECORD_H
#define XP_SHARED_RECORD_H

#include <linux/types.h>

#define XP_COMM_LEN 16

/* Kernel encoding of dev_t (MKDEV in linux/kdev_t.h): 12-bit major, 20-bit minor. */
#define XP_KDEV_MINORBITS 20
#define XP_KDEV(ma, mi) (((__u32)(ma) << XP_KDEV_MINORBITS) | (__u32)(mi))
#define XP_KDEV_MAJOR(d) ((__u32)(d) >> XP_KDEV_MINORBITS)
#define XP_KDEV_MINOR(d) ((__u32)(d) & ((1u << XP_KDEV_MINORBITS) - 1))

/*
 * The ids of the capabilities of format 1, kept so files written already read
 * the same. What a type is (its size, its fields) is its capability's record
 * kind (src/core/record_kind.h), named by its row; a new capability defines its
 * own id in its folder, and start-up refuses two rows with one id.
 */
enum xp_rec_type {
	XP_REC_NONE = 0,
	XP_REC_IOCTL = 1, /* struct xp_ioctl_rec: one completed ioctl */
	XP_REC_SCHED = 2, /* struct xp_rawtp_rec: one raw gpu_scheduler event */
	XP_REC_VBLANK = 3, /* struct xp_rawtp_rec: one raw drm vblank event */
	XP_REC_MEM = 4, /* struct xp_rawtp_rec: one raw amdgpu/i915/xe memory or submit event */
	XP_REC_LATENCY = 5, /* struct xp_lat_rec: one start/end pair of `latency` */
	XP_REC_NVIDIA = 6, /* struct xp_nv_rec (caps/nvidia/nvidia.h): one call into nvidia.ko */
	XP_REC_NPU = 7, /* struct xp_npu_rec (caps/npu/npu.h): an NPU driver call or event */
	XP_REC_TYPE_MAX,
};

struct xp_rec_hdr {
	__u16 type;	/* enum xp_rec_type */
	__u16 size;	/* bytes, header included */
	__u32 cpu;
	__u64 ts_ns;	/* CLOCK_MONOTONIC, the time the event began */
	__u32 pid;	/* thread group id */
	__u32 tid;
};

/* Why records were lost, counted in the kernel (map "drops", read through mmap). */
enum xp_drop_reason {
	XP_DROP_RINGBUF = 0,	/* ring buffer full: a record was not written */
	XP_DROP_MAP_FULL = 1,	/* an aggregation or pairing map was full */
	XP_DROP_REASON_MAX,
};
/*
 * Counted by user space, not by our programs: runs of our programs that the
 * kernel itself skipped (bpf_prog_info.recursion_misses), e.g. a tracepoint
 * firing in an interrupt while another BPF program runs on that CPU. Kernels
 * count these for tp_btf/raw_tp, and for classic tracepoints from Linux 6.7.
 */
#define XP_DROP_KERNEL_MISSED XP_DROP_REASON_MAX
#define XP_DROP_ALL (XP_DROP_REASON_MAX + 1)

#endif
