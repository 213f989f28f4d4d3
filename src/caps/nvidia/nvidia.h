/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The nvidia capability's record: one call of a probed nvidia.ko function,
 * written at its entry (counted calls) or at its return (timed calls).
 * Shared by kernel and user side: fixed-width types only. The function
 * names and their argument shapes are in src/caps/nvidia/nvidia_facts.h.
 */
#ifndef XP_CAPS_NVIDIA_H
#define XP_CAPS_NVIDIA_H

#include "shared/record.h"

/* The probed functions, in the order of xp_nv_funcs (nvidia_facts.h). */
enum xp_nv_fn {
	XP_NV_OPEN,		/* nvidia_open(struct inode *, struct file *) */
	XP_NV_CLOSE,		/* nvidia_close(struct inode *, struct file *) */
	XP_NV_IOCTL,		/* nvidia_unlocked_ioctl(struct file *, unsigned int cmd, unsigned long) */
	XP_NV_MMAP,		/* nvidia_mmap(struct file *, struct vm_area_struct *) */
	XP_NV_FAULT,		/* nvidia_fault(struct vm_fault *) */
	XP_NV_ISR,		/* nvidia_isr(int irq, void *) */
	XP_NV_ISR_MSIX,		/* nvidia_isr_msix(int irq, void *) */
	XP_NV_ISR_BH,		/* nvidia_isr_kthread_bh(int irq, void *) */
	XP_NV_ISR_MSIX_BH,	/* nvidia_isr_msix_kthread_bh(int irq, void *) */
	XP_NV_P2P_GET,		/* nvidia_p2p_get_pages(u64, u32, u64 va, u64 length, ...) */
	XP_NV_P2P_PUT,		/* nvidia_p2p_put_pages(u64, u32, u64 va, ...) */
	XP_NV_P2P_DMA_MAP,	/* nvidia_p2p_dma_map_pages(struct pci_dev *, ...) */
	XP_NV_SUSPEND,		/* nvidia_suspend(struct device *, nv_pm_action_t, bool) */
	XP_NV_RESUME,		/* nvidia_resume(struct device *, nv_pm_action_t) */
	XP_NV_NFN,
};

/* Functions timed by a return probe: their record is written at the return. */
#define XP_NV_TIMED_MASK ((1u << XP_NV_IOCTL) | (1u << XP_NV_ISR) | (1u << XP_NV_ISR_MSIX) | \
			  (1u << XP_NV_ISR_BH) | (1u << XP_NV_ISR_MSIX_BH) |                  \
			  (1u << XP_NV_SUSPEND) | (1u << XP_NV_RESUME))

#define XP_NV_NO_MINOR 0xffffffffu

struct xp_nv_rec {
	struct xp_rec_hdr h;	/* ts_ns: the call's start; pid/tid: the calling task */
	__u8 fn;		/* enum xp_nv_fn */
	__u8 timed;		/* 1: dur_ns and ret are set (written at the return) */
	__u16 pad;
	__u32 minor;		/* the device file's minor (0..: GPU, 255: nvidiactl); XP_NV_NO_MINOR */
	__u32 arg32;		/* ioctl: cmd; interrupts: irq */
	__u32 pad2;
	__u64 arg64;		/* open/close: the struct file; mmap: bytes; p2p get: length */
	__u64 dur_ns;
	__s64 ret;		/* the return value (timed calls) */
	char comm[XP_COMM_LEN];
};


/* An Xid: the tracepoint nvidia:nvidia_dev_xid (575+), in a longer record. */
#define XP_NV_XID 0x80		/* xp_nv_rec.fn of an struct xp_nv_xid_rec */
#define XP_NV_XID_DEV 32
#define XP_NV_XID_MSG 128

struct xp_nv_xid_rec {
	struct xp_nv_rec r;	/* fn XP_NV_XID, arg32: the Xid code */
	char dev[XP_NV_XID_DEV];	/* the GPU's PCI name, "0000:01:00.0" */
	char msg[XP_NV_XID_MSG];
};

/*
 * What was so before the records began, written by user space (not by the
 * kernel side) at the start of a live run, of a `record` file and of an
 * --on-xid file, so that each reads back the same:
 *   XP_NV_HOLDER  a struct xp_nv_rec: a device file open then; pid, comm,
 *                 minor; arg64 the struct file where it is known (an
 *                 --on-xid file), 0 where it was found in /proc.
 *   XP_NV_GPU     a struct xp_nv_xid_rec: a GPU's PCI name (dev) and the
 *                 minor of its /dev/nvidiaN (r.minor), which Xids are tied by.
 * Builds from before them count them as undecodable and read the rest.
 */
#define XP_NV_HOLDER 0x81
#define XP_NV_GPU 0x82

#endif
