/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel structures the BPF programs read, declared here instead of in a
 * generated vmlinux.h (see the Makefile). Only the fields used are listed;
 * preserve_access_index makes every access a CO-RE relocation that libbpf
 * resolves against the running kernel's BTF, so field order and the rest of
 * each structure do not matter.
 */
#ifndef XP_BPF_KERNEL_TYPES_H
#define XP_BPF_KERNEL_TYPES_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <stdbool.h>

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

/* x86-64 register frame; sys_enter/sys_exit pass it as their first argument */
struct pt_regs {
	unsigned long bx;
	unsigned long cx;
	unsigned long di;
	unsigned long si;
	unsigned long dx;
	unsigned long orig_ax;
	unsigned long ax;
	unsigned long ip;	/* libbpf's USDT arguments (bpf/usdt.bpf.h) */
	unsigned long cs;
};

struct inode {
	unsigned short i_mode;
	__u32 i_rdev;
};

struct qstr {
	const unsigned char *name;
};

struct dentry {
	struct qstr d_name;
};

struct path {
	struct dentry *dentry;
};

struct file {
	struct inode *f_inode;
	struct path f_path;
};

/* the executable's file: its dentry's name tells xputrace's own 32-bit probe */
struct mm_struct {
	struct file *exe_file;
};

struct fdtable {
	unsigned int max_fds;
	struct file **fd;
};

struct files_struct {
	struct fdtable *fdt;
};

struct task_struct {
	struct files_struct *files;
	struct mm_struct *mm;
	struct task_struct *group_leader;
	char comm[16];
};

/* the gpu_scheduler events' argument; drm_sched_fence is in the gpu_sched module's BTF */
struct dma_fence {
	__u64 context;
	__u64 seqno;
};

struct drm_sched_fence {
	struct dma_fence finished;
};

#pragma clang attribute pop

#define XP_S_IFMT 0170000
#define XP_S_IFCHR 0020000

#endif
