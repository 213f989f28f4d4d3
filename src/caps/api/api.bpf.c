// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `xputrace api`: runtime library calls by uprobe and uretprobe, and the
 * ioctls on traced device nodes that a thread issues while inside one.
 *
 * One pair of programs serves every function: the attach cookie is the
 * function's index in the "fns" map. Entry pushes (time, index) on the
 * thread's stack of open calls; return pops it and writes one record. The
 * ioctl programs (the classic syscall events) look at a thread only while
 * it has an open call, so other threads' ioctls cost one hash lookup, and
 * write one record per ioctl on a traced device. User space joins them: an
 * ioctl record of a thread comes before the record of the call around it.
 */
#include "caps/ioctl/ioctl_dev.bpf.h"
#include "caps/api/api.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XP_API_MAX_FN);
	__type(key, __u32);
	__type(value, struct xp_api_fn);
} fns SEC(".maps");

/*
 * LRU, for threads past its size; a thread's frame goes when the thread
 * ends (thread_ends below), so it holds the live threads that made a call.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct xp_api_frame);
} frames SEC(".maps");

/*
 * Calls that will never return, by function (the cookie): their thread ended
 * inside them, by exit (the process called _exit in one, or was killed) or
 * exec. User space reads it at each report; the calls still open at the end
 * it finds in the frames.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XP_API_MAX_FN);
	__type(key, __u32);
	__type(value, __u64);
} ended SEC(".maps");

/* Counters user space reads from the mapped .bss. */
__u64 api_too_deep;	/* calls nested past XP_API_DEPTH: not recorded */
__u64 api_unmatched;	/* returns that did not match the open call (longjmp, exceptions) */

static struct xp_api_frame zero_frame;

SEC("uprobe")
int api_enter(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, d;
	struct xp_api_frame *f;

	if (xp_filtered(pid_tgid >> 32))
		return 0;
	f = bpf_map_lookup_elem(&frames, &tid);
	if (!f) {
		bpf_map_update_elem(&frames, &tid, &zero_frame, BPF_NOEXIST);
		if (!(f = bpf_map_lookup_elem(&frames, &tid))) {
			xp_drop(XP_DROP_MAP_FULL);
			return 0;
		}
	}
	d = f->depth;
	if (d < XP_API_DEPTH) {
		f->ts[d] = bpf_ktime_get_ns();
		f->fn[d] = (__u32)bpf_get_attach_cookie(ctx);
	} else {
		__sync_fetch_and_add(&api_too_deep, 1);
	}
	f->depth = d + 1;
	return 0;
}

SEC("uretprobe")
int api_exit(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 tid = (__u32)pid_tgid, fn = (__u32)bpf_get_attach_cookie(ctx), d;
	struct xp_api_frame *f = bpf_map_lookup_elem(&frames, &tid);
	struct xp_api_fn *desc;
	struct xp_api_rec *r;

	/* none open: filtered, or entered before tracing began */
	if (!f || !f->depth)
		return 0;
	d = --f->depth;
	if (d >= XP_API_DEPTH)
		return 0;
	if (f->fn[d] != fn) {
		__sync_fetch_and_add(&api_unmatched, 1);
		return 0;
	}
	if (!(desc = bpf_map_lookup_elem(&fns, &fn)) || !(r = xp_reserve(sizeof(*r))))
		return 0;
	xp_fill_hdr(&r->hdr, XP_REC_API, sizeof(*r), f->ts[d], pid_tgid);
	r->end_ns = now;
	r->ret = (int)ctx->ax;	/* rax: the kernel's struct pt_regs names it ax */
	r->arg = 0;
	r->what = XP_API_CALL;
	r->cmd = fn;
	r->dev = 0;
	r->fd = -1;
	r->depth = d;
	r->rule = desc->rule;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	__builtin_memcpy(r->name, desc->name, sizeof(r->name));
	__builtin_memcpy(r->lib, desc->lib, sizeof(r->lib));
	xp_submit(r);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_ioctl")
int api_ioctl_enter(struct tp_enter_ioctl *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), dev;
	struct xp_api_frame *f = bpf_map_lookup_elem(&frames, &tid);
	struct ioctl_start s = {};

	if (!f || !f->depth)
		return 0;
	dev = fd_to_traced_chrdev((int)ctx->fd, true);
	if (!dev)
		return 0;
	s.ts = bpf_ktime_get_ns();
	s.arg = ctx->arg;
	s.cmd = (__u32)ctx->cmd;
	s.dev = dev;
	s.fd = (int)ctx->fd;
	if (bpf_map_update_elem(&inflight, &tid, &s, BPF_ANY))
		xp_drop(XP_DROP_MAP_FULL);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_ioctl")
int api_ioctl_exit(struct tp_exit *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct ioctl_start *s = bpf_map_lookup_elem(&inflight, &tid);
	struct xp_api_rec *r;

	if (!s)
		return 0;
	if ((r = xp_reserve(sizeof(*r)))) {
		xp_fill_hdr(&r->hdr, XP_REC_API, sizeof(*r), s->ts, pid_tgid);
		r->end_ns = bpf_ktime_get_ns();
		r->ret = ctx->ret;
		r->arg = s->arg;
		r->what = XP_API_IOCTL;
		r->cmd = s->cmd;
		r->dev = s->dev;
		r->fd = s->fd;
		r->depth = 0;
		r->rule = 0;
		bpf_get_current_comm(r->comm, sizeof(r->comm));
		r->name[0] = 0;
		r->lib[0] = 0;
		xp_submit(r);
	}
	bpf_map_delete_elem(&inflight, &tid);
	return 0;
}

/* The current thread ends (or execs): its open calls are counted in ended, its frame freed. */
static __always_inline int thread_ends(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), d;
	struct xp_api_frame *f = bpf_map_lookup_elem(&frames, &tid);

	if (!f)
		return 0;
	d = f->depth < XP_API_DEPTH ? f->depth : XP_API_DEPTH;	/* deeper ones: api_too_deep */
	for (__u32 i = 0; i < XP_API_DEPTH && i < d; i++) {
		__u32 fn = f->fn[i];
		__u64 *n = bpf_map_lookup_elem(&ended, &fn);

		if (n)
			__sync_fetch_and_add(n, 1);
	}
	bpf_map_delete_elem(&frames, &tid);
	return 0;
}

SEC("tracepoint/sched/sched_process_exit")
int api_thread_exit(void *ctx)
{
	return thread_ends();
}

SEC("tracepoint/sched/sched_process_exec")
int api_thread_exec(void *ctx)
{
	return thread_ends();
}
