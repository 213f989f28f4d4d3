/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which ioctls are on traced device nodes: the device number of the file
 * behind an fd, tested against the majors traced as a whole and the single
 * --device nodes. Shared by the programs that pick ioctls by device
 * (ioctl.bpf.c, and api.bpf.c for the ioctls an API call issued); user space
 * fills the maps with xp_ioctl_fill_device_maps (ioctl_live.h).
 */
#ifndef XP_CAPS_IOCTL_DEV_BPF_H
#define XP_CAPS_IOCTL_DEV_BPF_H

#include "bpf/common.bpf.h"
#include "caps/ioctl/ioctl.h"

const volatile __u8 have_devs = 0;	/* the "devs" map holds single nodes (--device) */
const volatile __u32 dev_list[XP_IOCTL_DEV_LIST];	/* or this list, when they fit */
const volatile __u8 ndev_list = 0;
/*
 * bpf_rdonly_cast (Linux 6.2) makes a pointer read by a helper a typed one,
 * whose fields are then plain loads. Weak, and called only where user space
 * found it (cast_ok, a load-time constant): on older kernels the verifier
 * removes the call as dead code.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;
const volatile __u8 cast_ok = 0;

/* Majors traced as a whole (drm, accel, nvidia*, kfd): array indexed by major. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} majors SEC(".maps");

/* Single device nodes, keyed by kernel dev_t. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u8);
} devs SEC(".maps");

/* An ioctl in progress on a traced device: from its entry, for its return. */
struct ioctl_start {
	__u64 ts;
	__u64 arg;
	__u32 cmd;
	__u32 dev;
	__s32 fd;
	__u32 pad;
};

/*
 * Calls in progress, keyed by thread id. LRU: a thread killed inside an
 * ioctl never reaches sys_exit, and its entry must not stay forever.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct ioctl_start);
} inflight SEC(".maps");

/* A plain load where the pointer is typed (btf), a CO-RE helper read where not. */
#define XP_READ(btf, p, field) ((btf) ? (p)->field : BPF_CORE_READ(p, field))

static __always_inline bool dev_traced(__u32 dev)
{
	__u32 major = XP_KDEV_MAJOR(dev);
	__u8 *on = bpf_map_lookup_elem(&majors, &major);

	if (on && *on)
		return true;
	/* a few --device nodes: compares, cheaper than a hash lookup */
	for (int i = 0; i < XP_IOCTL_DEV_LIST; i++)
		if (i < ndev_list && dev_list[i] == dev)
			return true;
	return have_devs && bpf_map_lookup_elem(&devs, &dev);
}

/* A traced character device's number, from its inode; 0 if not traced. */
#define INODE_TRACED(ino, rd)                                                           \
	({                                                                              \
		__u32 dev_ = rd(ino, i_rdev);                                           \
		/* a block device can have the same number as a traced character one */ \
		dev_ && dev_traced(dev_) && (rd(ino, i_mode) & XP_S_IFMT) == XP_S_IFCHR \
			? dev_ : 0;                                                     \
	})
#define PLAIN_READ(p, field) ((p)->field)

/*
 * Without the cast: i_mode and i_rdev, both near the start of struct inode,
 * in one helper read instead of two.
 */
#define INODE_HEAD 128
static __always_inline __u32 inode_traced_read(struct inode *ino)
{
	__u32 mo = bpf_core_field_offset(struct inode, i_mode);
	__u32 ro = bpf_core_field_offset(struct inode, i_rdev);
	__u8 head[INODE_HEAD];
	__u32 dev;

	if (mo > INODE_HEAD - 2 || ro > INODE_HEAD - 4)
		return INODE_TRACED(ino, BPF_CORE_READ);
	if (bpf_probe_read_kernel(head, (ro > mo ? ro + 4 : mo + 2), ino))
		return 0;
	dev = *(__u32 *)(head + ro);
	if (!dev || !dev_traced(dev))
		return 0;
	return (*(__u16 *)(head + mo) & XP_S_IFMT) == XP_S_IFCHR ? dev : 0;
}

/*
 * The traced character device behind fd, or 0. The device number is tested
 * first and the file type only for a traced one: most ioctls are on files
 * that are not (terminals, sockets: i_rdev 0), and each read costs.
 */
static __always_inline __u32 fd_to_traced_chrdev(int fd, bool btf)
{
	struct fdtable *fdt;
	struct file **fds;
	struct file *f = NULL;
	struct inode *ino;

	if (btf)
		fdt = bpf_get_current_task_btf()->files->fdt;
	else
		fdt = BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), files, fdt);
	if (!fdt || fd < 0 || (unsigned int)fd >= XP_READ(btf, fdt, max_fds))
		return 0;
	fds = XP_READ(btf, fdt, fd);
	/* an array indexed by a variable: no typed load reaches it */
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	if (!f)
		return 0;
	if (btf && cast_ok) {
		/* typed: the rest are plain (fault-safe) loads, not helper calls */
		f = bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));
		ino = f->f_inode;
		return ino ? INODE_TRACED(ino, PLAIN_READ) : 0;
	}
	ino = BPF_CORE_READ(f, f_inode);
	return ino ? inode_traced_read(ino) : 0;
}

/*
 * The classic syscalls:sys_enter_ioctl/sys_exit_ioctl events (their format
 * files give these layouts): the kernel runs them for ioctl() only, so other
 * syscalls pay only a bitmap test, but never for 32-bit (compat) calls, which
 * x86 leaves out of its syscall events.
 */
struct tp_enter_ioctl {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__u64 fd, cmd, arg;
};

struct tp_exit {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__s64 ret;
};

#endif
