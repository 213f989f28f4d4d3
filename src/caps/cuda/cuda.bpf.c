// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `xputrace cuda`: the USDT probes of libxputrace-cuda.so (provider
 * xputrace_cuda, cuda.h). Each probe's one argument points at a struct
 * xp_cuda_ev in the process; one program copies it, the kernel's name
 * and the task's cgroup into a record. Attaching a probe raises its
 * semaphore in every process that maps the library, so the library fills
 * in nothing while no program is attached.
 */
/* the kernel's register names in bpf_tracing.h (kernel_types.h declares pt_regs so) */
#define __VMLINUX_H__
#include "bpf/common.bpf.h"
#include <bpf/usdt.bpf.h>
#include "caps/cuda/cuda.h"

static __always_inline void put_name(char *dst, __u64 src)
{
	dst[0] = 0;
	if (src)
		bpf_probe_read_user_str(dst, XP_CUDA_NAME, (const void *)src);
}

static __always_inline int emit(void *ev_ptr)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	struct xp_cuda_ev ev;
	struct xp_cuda_rec *r;
	__u64 ts;

	if (xp_filtered(pid_tgid >> 32))
		return 0;
	if (bpf_probe_read_user(&ev, sizeof(ev), ev_ptr))
		return 0;
	if (!(r = xp_reserve(sizeof(*r))))
		return 0;
	ts = ev.what == XP_CUDA_DROPS || !ev.start_ns ? now : ev.start_ns;
	xp_fill_hdr(&r->hdr, XP_REC_CUDA, sizeof(*r), ts, pid_tgid);
	r->end_ns = ev.end_ns > ts ? ev.end_ns : ts;
	r->cgroup_id = bpf_get_current_cgroup_id();
	r->bytes = ev.bytes;
	r->what = ev.what;
	r->corr = ev.corr;
	r->device = ev.device;
	r->context = ev.context;
	r->stream = ev.stream;
	r->kind = ev.kind;
	__builtin_memcpy(r->grid, ev.grid, sizeof(r->grid));
	__builtin_memcpy(r->block, ev.block, sizeof(r->block));
	/* the process's name: the thread handing records over is the library's or CUPTI's */
	BPF_CORE_READ_STR_INTO(&r->comm, (struct task_struct *)bpf_get_current_task(), group_leader, comm);
	put_name(r->name, ev.name);
	xp_submit(r);
	return 0;
}

SEC("usdt")
int BPF_USDT(cuda_kernel, void *ev)
{
	return emit(ev);
}

SEC("usdt")
int BPF_USDT(cuda_memcpy, void *ev)
{
	return emit(ev);
}

SEC("usdt")
int BPF_USDT(cuda_memset, void *ev)
{
	return emit(ev);
}

/* A batch of launch calls, each a record on its own thread at its own time. */
SEC("usdt")
int BPF_USDT(cuda_launches, void *batch)
{
	struct xp_cuda_launches *b = batch;
	__u64 pid_tgid = bpf_get_current_pid_tgid(), cgroup_id;
	struct xp_cuda_rec *r;
	struct xp_cuda_launch m;
	char comm[XP_COMM_LEN];
	__u32 n;

	if (xp_filtered(pid_tgid >> 32) || bpf_probe_read_user(&n, sizeof(n), &b->n))
		return 0;
	cgroup_id = bpf_get_current_cgroup_id();
	bpf_get_current_comm(comm, sizeof(comm));
	for (__u32 i = 0; i < XP_CUDA_LAUNCH_BATCH && i < n; i++) {
		if (bpf_probe_read_user(&m, sizeof(m), &b->m[i]))
			break;
		if (!(r = xp_reserve(sizeof(*r))))
			continue;
		xp_fill_hdr(&r->hdr, XP_REC_CUDA, sizeof(*r), m.ts_ns, (pid_tgid & ~0xffffffffull) | m.tid);
		__builtin_memset(&r->end_ns, 0, sizeof(*r) - sizeof(r->hdr));
		r->end_ns = m.ts_ns;
		r->cgroup_id = cgroup_id;
		r->what = XP_CUDA_LAUNCH;
		r->corr = m.corr;
		r->context = m.context;
		r->kind = m.kind;
		__builtin_memcpy(r->comm, comm, sizeof(comm));
		put_name(r->name, m.name);
		xp_submit(r);
	}
	return 0;
}

SEC("usdt")
int BPF_USDT(cuda_drops, void *ev)
{
	return emit(ev);
}
