/*
 * Facts about NVIDIA's kernel module that the nvidia capability relies on,
 * read from NVIDIA's open kernel modules (kernel-open/nvidia/): Debian
 * trixie's nvidia-open-kernel-source 550.163 and NVIDIA's
 * open-gpu-kernel-modules 595 have the same names and signatures.
 *
 *   nv.c       nvidia_open, nvidia_close, nvidia_unlocked_ioctl (which calls
 *              nvidia_ioctl), nvidia_isr_msix (which calls nvidia_isr),
 *              nvidia_isr_kthread_bh, nvidia_isr_msix_kthread_bh,
 *              nvidia_suspend, nvidia_resume (called by nv_pmops_suspend /
 *              nv_pmops_resume; they call nv_power_management)
 *   nv-mmap.c  nvidia_mmap, nvidia_fault (static: probed only where the
 *              compiler kept its symbol)
 *   nv-p2p.c   nvidia_p2p_get_pages, nvidia_p2p_put_pages,
 *              nvidia_p2p_dma_map_pages (exported)
 *
 * The Xid tracepoint nvidia:nvidia_dev_xid (nv-tracepoint.h) first appears
 * in 575; 550 lacks it. Its fields: __string dev (the GPU's PCI name),
 * u32 error_code, __string msg; a 580.159.04 module on 6.18 showed them in
 * tracefs at offsets 8, 12 and 16, with all the functions above in kallsyms.
 */
#ifndef XP_CAPS_NVIDIA_FACTS_H
#define XP_CAPS_NVIDIA_FACTS_H

#include "caps/nvidia/nvidia.h"

struct xp_nv_func {
	const char *name;	/* the symbol in nvidia.ko */
	const char *proto;	/* its C signature, as the driver declares it */
	const char *file;	/* where it is defined, under kernel-open/nvidia/ */
	int arg;		/* the argument read: -1 none, else its index (0-based) */
	const char *arg_is;	/* what that argument is */
};

/* Indexed by enum xp_nv_fn. */
extern const struct xp_nv_func xp_nv_funcs[XP_NV_NFN];

/* The versions the table above holds for. */
#define XP_NV_FACTS_VERSIONS "550.163 (Debian trixie), 595 (open-gpu-kernel-modules)"

/* The Xid tracepoint: group, name, and its fields in order (575 and later). */
#define XP_NV_XID_GROUP "nvidia"
#define XP_NV_XID_EVENT "nvidia_dev_xid"
#define XP_NV_XID_FIELDS "__data_loc char[] dev; u32 error_code; __data_loc char[] msg"
#define XP_NV_XID_SINCE "575"

const char *xp_nv_fn_name(unsigned int fn);
/* The enum value of a function name, -1 when it is not one probed. */
int xp_nv_fn_by_name(const char *name);

#endif
