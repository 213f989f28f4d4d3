// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The floor for the ioctl benchmark: the same hooks as `xputrace ioctl`, doing
 * nothing but counting ioctl entries and returns; for the api benchmark, a
 * uprobe and a uretprobe on one library function, counting its calls. What a tracer on these hooks
 * cannot go below; the summary mode's cost is compared with it. With
 * with_clock set, each entry and return also reads the clock, as a tracer that
 * measures latency must: the second baseline.
 */
#include "bpf/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u8 with_clock = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);	/* entries, returns, and their clock sums */
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline int bump(__u32 i)
{
	__u64 *n = bpf_map_lookup_elem(&counts, &i);

	if (n)
		(*n)++;
	if (with_clock) {
		i += 2;
		n = bpf_map_lookup_elem(&counts, &i);
		if (n)
			*n += bpf_ktime_get_ns();
	}
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_enter_btf, struct pt_regs *regs, long id)
{
	return id == 16 ? bump(0) : 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_exit_btf, struct pt_regs *regs, long ret)
{
	return regs->orig_ax == 16 ? bump(1) : 0;
}

/* the classic syscall events; their contexts are not read */
SEC("tracepoint/syscalls/sys_enter_ioctl")
int floor_enter_tp(void *ctx)
{
	return bump(0);
}

SEC("tracepoint/syscalls/sys_exit_ioctl")
int floor_exit_tp(void *ctx)
{
	return bump(1);
}

SEC("kprobe")
int floor_enter_kp(struct pt_regs *ctx)
{
	return bump(0);
}

SEC("kretprobe")
int floor_exit_kp(struct pt_regs *ctx)
{
	return bump(1);
}

/* the api benchmark's: one function's entry and return */
SEC("uprobe")
int floor_enter_up(struct pt_regs *ctx)
{
	return bump(0);
}

SEC("uretprobe")
int floor_exit_up(struct pt_regs *ctx)
{
	return bump(1);
}
