/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What every kernel-side program shares: the one ring buffer of typed
 * records, the drop counters, the process filters, and the wake-up policy.
 */
#ifndef XP_BPF_COMMON_H
#define XP_BPF_COMMON_H

#include "bpf/kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "shared/record.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Size set by user space before load. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} events SEC(".maps");

/*
 * The drop counters: user space reads them through mmap, never by a map
 * lookup. A lookup through the bpf() syscall raises the CPU's
 * bpf_prog_active while it copies, and a preemptible kernel (7.x's lazy
 * preemption) may switch to another task meanwhile: every kprobe and
 * tracepoint program on that CPU is then skipped until the reader runs
 * again. Its own periodic read of the counters lost other tasks' events.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, XP_DROP_REASON_MAX);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* Set by user space between open and load. */
const volatile __u32 self_tgid = 0;	/* the tracer itself: never traced */
const volatile __u32 filter_tgid = 0;	/* 0: every process */
const volatile __u64 filter_cgid = 0;	/* 0: every cgroup */
const volatile __u8 filter_comm_on = 0;
const volatile char filter_comm[XP_COMM_LEN] = {};
/* Wake the reader only once this much is queued; it also polls on a timer. */
const volatile __u64 wakeup_bytes = 256 << 10;

static __always_inline void xp_drop(__u32 reason)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &reason);

	if (n)
		__sync_fetch_and_add(n, 1);	/* shared by every CPU (drops are rare) */
}

/* True when the current task is excluded by the tracer's filters. */
static __always_inline bool xp_filtered(__u32 tgid)
{
	if (tgid == self_tgid)
		return true;
	if (filter_tgid && tgid != filter_tgid)
		return true;
	if (filter_cgid && bpf_get_current_cgroup_id() != filter_cgid)
		return true;
	if (filter_comm_on) {
		char comm[XP_COMM_LEN];

		bpf_get_current_comm(comm, sizeof(comm));
		for (int i = 0; i < XP_COMM_LEN; i++) {
			if (comm[i] != filter_comm[i])
				return true;
			if (!comm[i])
				break;
		}
	}
	return false;
}

static __always_inline void *xp_reserve(__u32 size)
{
	void *r = bpf_ringbuf_reserve(&events, size, 0);

	if (!r)
		xp_drop(XP_DROP_RINGBUF);
	return r;
}

static __always_inline void xp_fill_hdr(struct xp_rec_hdr *h, __u16 type, __u16 size,
					__u64 ts, __u64 pid_tgid)
{
	h->type = type;
	h->size = size;
	h->cpu = bpf_get_smp_processor_id();
	h->ts_ns = ts;
	h->pid = pid_tgid >> 32;
	h->tid = (__u32)pid_tgid;
}

/* Waking the reader per record costs microseconds; batch instead. */
static __always_inline void xp_submit(void *rec)
{
	__u64 queued = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);

	bpf_ringbuf_submit(rec, queued >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

#endif
