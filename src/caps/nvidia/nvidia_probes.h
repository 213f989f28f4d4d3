/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The nvidia capability's probe list, once: each probed function's programs
 * as the kernel side writes them (nvidia.bpf.c: a kprobe and an fentry per
 * entry, a kretprobe and an fexit per timed return) and as user space finds
 * them in the skeleton (nvidia_live.c). An X-macro: the includer defines
 * what one row becomes.
 *
 *   XP_NV_ENTRIES(E)  E(name, fn, call, args...)
 *       name  the programs: nv_NAME (kprobe), nv_NAME_fe (fentry)
 *       fn    its enum xp_nv_fn
 *       call  what the entry returns, from the arguments named in args
 *       args  the arguments read, as the driver declares them (none: empty)
 *   XP_NV_RETURNS(R)  R(name, fn, ret, args...)
 *       name  the programs: nv_NAME_ret (kretprobe), nv_NAME_fx (fexit)
 *       ret   the type of the return value
 *       args  every argument before it (fexit has them all)
 *
 * The returns are the functions of XP_NV_TIMED_MASK (nvidia.h). The entries'
 * call and the arguments name kernel types and inline functions of the BPF
 * program; user space uses only name and fn.
 */
#ifndef XP_CAPS_NVIDIA_PROBES_H
#define XP_CAPS_NVIDIA_PROBES_H

#define XP_NV_ENTRIES(E)                                                                        \
	E(open, XP_NV_OPEN, open_close(XP_NV_OPEN, inode, file), struct inode *inode,           \
	  struct file *file)                                                                    \
	E(close, XP_NV_CLOSE, open_close(XP_NV_CLOSE, inode, file), struct inode *inode,        \
	  struct file *file)                                                                    \
	E(ioctl, XP_NV_IOCTL, ioctl_enter(file, cmd), struct file *file, unsigned int cmd)      \
	E(mmap, XP_NV_MMAP, mmap_enter(file, vma), struct file *file,                           \
	  struct vm_area_struct___xp *vma)                                                      \
	E(fault, XP_NV_FAULT, fault_enter(vmf), struct vm_fault___xp *vmf)                      \
	E(isr, XP_NV_ISR, enter(XP_NV_ISR, XP_NV_NO_MINOR, irq, 0), int irq)                    \
	E(isr_msix, XP_NV_ISR_MSIX, enter(XP_NV_ISR_MSIX, XP_NV_NO_MINOR, irq, 0), int irq)     \
	E(isr_bh, XP_NV_ISR_BH, enter(XP_NV_ISR_BH, XP_NV_NO_MINOR, irq, 0), int irq)           \
	E(isr_msix_bh, XP_NV_ISR_MSIX_BH, enter(XP_NV_ISR_MSIX_BH, XP_NV_NO_MINOR, irq, 0),     \
	  int irq)                                                                              \
	E(p2p_get, XP_NV_P2P_GET, enter(XP_NV_P2P_GET, XP_NV_NO_MINOR, 0, length), __u64 token, \
	  __u32 va_space, __u64 va, __u64 length)                                               \
	E(p2p_put, XP_NV_P2P_PUT, enter(XP_NV_P2P_PUT, XP_NV_NO_MINOR, 0, 0))                   \
	E(p2p_dma_map, XP_NV_P2P_DMA_MAP, enter(XP_NV_P2P_DMA_MAP, XP_NV_NO_MINOR, 0, 0))       \
	E(suspend, XP_NV_SUSPEND, enter(XP_NV_SUSPEND, XP_NV_NO_MINOR, 0, 0))                   \
	E(resume, XP_NV_RESUME, enter(XP_NV_RESUME, XP_NV_NO_MINOR, 0, 0))

#define XP_NV_RETURNS(R)                                                                        \
	R(ioctl, XP_NV_IOCTL, long, struct file *file, unsigned int cmd, unsigned long arg)     \
	R(isr, XP_NV_ISR, int, int irq, void *arg)                                              \
	R(isr_msix, XP_NV_ISR_MSIX, int, int irq, void *arg)                                    \
	R(isr_bh, XP_NV_ISR_BH, int, int irq, void *data)                                       \
	R(isr_msix_bh, XP_NV_ISR_MSIX_BH, int, int irq, void *data)                             \
	R(suspend, XP_NV_SUSPEND, int, void *dev, int action, bool procfs)                      \
	R(resume, XP_NV_RESUME, int, void *dev, int action)

#endif
