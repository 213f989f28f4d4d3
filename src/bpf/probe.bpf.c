// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Feature probes for `doctor`: one empty program per attach type. User space
 * loads and attaches each alone, so what doctor reports is what this kernel
 * really accepts, not what its version suggests.
 */
#include "bpf/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tracepoint/raw_syscalls/sys_enter")
int probe_tracepoint(void *ctx) { return 0; }

SEC("tp_btf/sys_enter")
int BPF_PROG(probe_tp_btf, struct pt_regs *regs, long id) { return 0; }

SEC("raw_tp/sys_enter")
int BPF_PROG(probe_raw_tp, struct pt_regs *regs, long id) { return 0; }

SEC("kprobe/vfs_read")
int probe_kprobe(void *ctx) { return 0; }

SEC("kprobe.multi/vfs_rea*")
int probe_kprobe_multi(void *ctx) { return 0; }

SEC("fentry/vfs_read")
int BPF_PROG(probe_fentry) { return 0; }

SEC("uprobe")
int probe_uprobe(void *ctx) { return 0; }
