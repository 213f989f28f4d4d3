// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The npu capability's kernel side. One kprobe program attached to every
 * attachable function of the NPU driver at once (kprobe.multi, else one
 * kprobe each), the function told by its attach cookie (caps/npu/npu.h):
 * in summary mode it counts calls per process and function in a hash map,
 * in stream and record mode it writes one record per call. Timed functions
 * keep their entry time until the return program writes the duration. The
 * driver's tracepoints (vpu:job, vpu:jsm, vpu:pm) carry pointers to the
 * module's constant strings: they are read here, where they can be.
 */
#define __VMLINUX_H__
#include "bpf/common.bpf.h"
#include "caps/npu/npu.h"

#define PF_KTHREAD 0x00200000

struct task_struct___npu {
	unsigned int flags;
} __attribute__((preserve_access_index));

const volatile __u8 per_call = 0;	/* 1: a record per call instead of counting */
/* the tracepoints' field offsets, from their format files */
const volatile __u32 job_event_off = 8, job_ctx_off = 16, job_engine_off = 20, job_id_off = 24;
const volatile __u32 jsm_event_off = 8, jsm_type_off = 16, jsm_status_off = 24,
		     jsm_req_off = 28, jsm_result_off = 32;
const volatile __u32 pm_event_off = 8;
/*
 * The per-CPU preempt counter says whether a call runs in an interrupt:
 * user space gives the addresses of __preempt_count and __per_cpu_offset
 * (kallsyms), 0 where it has none.
 */
const volatile __u64 preempt_count_sym = 0, per_cpu_offset_sym = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct xp_npu_key);
	__type(value, struct xp_npu_val);
} npu_calls SEC(".maps");

/* The functions' names by index, filled by user space: for the records. */
struct npu_name {
	char s[XP_NPU_NAME];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XP_NPU_MAX_FN);
	__type(key, __u32);
	__type(value, struct npu_name);
} npu_names SEC(".maps");

struct start_key {
	__u32 id;	/* the thread, or the CPU in an interrupt */
	__u32 slot;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct start_key);
	__type(value, __u64);
} npu_starts SEC(".maps");

static __always_inline bool in_irq_ctx(void)
{
	__u64 off = 0, cpu = bpf_get_smp_processor_id();
	int pc = 0;

	if (!preempt_count_sym || !per_cpu_offset_sym)
		return false;
	if (bpf_probe_read_kernel(&off, sizeof(off), (void *)(per_cpu_offset_sym + cpu * 8)) ||
	    bpf_probe_read_kernel(&pc, sizeof(pc), (void *)(preempt_count_sym + off)))
		return false;
	/*
	 * Serving a softirq (bit 8), or any count above the softirq byte:
	 * hardirq and NMI nesting sit at bits 16-23 on 6.x kernels, but a
	 * 7.3 kernel was measured with hardirq at bit 24 (the bits below
	 * count interrupt-disabled sections there: no process's context
	 * either). Bit 31 is x86's need-resched flag.
	 */
	return (pc & 0x7fff0000) || (pc & 0x00000100);
}

static __always_inline bool in_kthread(void)
{
	struct task_struct___npu *t = (void *)bpf_get_current_task();

	return BPF_CORE_READ(t, flags) & PF_KTHREAD;
}

static __always_inline struct xp_npu_rec *rec_new(__u8 kind, __u64 ts, __u64 pid_tgid, __u8 dev)
{
	struct xp_npu_rec *r = xp_reserve(sizeof(*r));

	if (!r)
		return NULL;
	__builtin_memset(r, 0, sizeof(*r));
	xp_fill_hdr(&r->h, XP_REC_NPU, sizeof(*r), ts, pid_tgid);
	r->kind = kind;
	r->dev = dev;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	return r;
}

static __always_inline void name_of(__u32 fn, char *dst)
{
	struct npu_name *n = bpf_map_lookup_elem(&npu_names, &fn);

	if (n)
		__builtin_memcpy(dst, n->s, XP_NPU_NAME);
}

SEC("kprobe.multi")
int npu_entry(struct pt_regs *ctx)
{
	__u64 ck = bpf_get_attach_cookie(ctx), pid_tgid = bpf_get_current_pid_tgid();
	__u64 ts = bpf_ktime_get_ns();
	bool irq = (ck & XP_NPU_CK_IRQ) || in_irq_ctx();
	__u8 dev = irq || in_kthread();
	__u32 fn = XP_NPU_CK_FN(ck), slot = XP_NPU_CK_SLOT(ck);

	/* the filters and the tracer itself apply to calls made for a process */
	if (!dev && xp_filtered(pid_tgid >> 32))
		return 0;
	if (per_call) {
		struct xp_npu_rec *r = rec_new(XP_NPU_CALL, ts, pid_tgid, dev);

		if (r) {
			r->fn = fn;
			name_of(fn, r->name);
			xp_submit(r);
		}
	} else {
		struct xp_npu_key k = { .tgid = dev ? 0 : pid_tgid >> 32, .fn = fn };
		struct xp_npu_val *v = bpf_map_lookup_elem(&npu_calls, &k);

		if (!v) {
			struct xp_npu_val nv = { 0 };

			if (!dev)
				bpf_get_current_comm(nv.comm, sizeof(nv.comm));
			bpf_map_update_elem(&npu_calls, &k, &nv, BPF_NOEXIST);
			v = bpf_map_lookup_elem(&npu_calls, &k);
		}
		if (v)
			__sync_fetch_and_add(&v->calls, 1);
		else
			xp_drop(XP_DROP_MAP_FULL);
	}
	if (slot) {
		struct start_key sk = { .id = irq ? bpf_get_smp_processor_id() | 0x80000000u
						  : (__u32)pid_tgid, .slot = slot };

		if (bpf_map_update_elem(&npu_starts, &sk, &ts, BPF_ANY))
			xp_drop(XP_DROP_MAP_FULL);
	}
	return 0;
}

SEC("kretprobe.multi")
int npu_return(struct pt_regs *ctx)
{
	__u64 ck = bpf_get_attach_cookie(ctx), pid_tgid = bpf_get_current_pid_tgid();
	__u64 now = bpf_ktime_get_ns(), *t, start;
	bool irq = (ck & XP_NPU_CK_IRQ) || in_irq_ctx();
	__u32 fn = XP_NPU_CK_FN(ck), slot = XP_NPU_CK_SLOT(ck);
	struct start_key sk = { .id = irq ? bpf_get_smp_processor_id() | 0x80000000u : (__u32)pid_tgid,
				.slot = slot };
	struct xp_npu_rec *r;

	if (!(t = bpf_map_lookup_elem(&npu_starts, &sk)))
		return 0;	/* entered before tracing began, or filtered */
	start = *t;
	bpf_map_delete_elem(&npu_starts, &sk);
	if (!(r = rec_new(XP_NPU_RET, start, pid_tgid, irq || in_kthread())))
		return 0;
	r->fn = fn;
	r->slot = slot - 1;
	r->dur_ns = now - start;
	name_of(fn, r->name);
	xp_submit(r);
	return 0;
}

static __always_inline void read_str(void *ctx, __u32 off, char *dst, __u32 len)
{
	const char *p = NULL;

	bpf_probe_read_kernel(&p, sizeof(p), (char *)ctx + off);
	if (!p || bpf_probe_read_kernel_str(dst, len, p) < 0)
		dst[0] = '\0';
}

static __always_inline __u32 read_u32(void *ctx, __u32 off)
{
	__u32 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + off);
	return v;
}

/* The driver's events come from workers and interrupts as often as from a process: never filtered. */
SEC("tracepoint")
int npu_job(void *ctx)
{
	struct xp_npu_rec *r = rec_new(XP_NPU_JOB, bpf_ktime_get_ns(), bpf_get_current_pid_tgid(), 0);

	if (!r)
		return 0;
	read_str(ctx, job_event_off, r->name, sizeof(r->name));
	r->a = read_u32(ctx, job_ctx_off);
	r->b = read_u32(ctx, job_engine_off);
	r->c = read_u32(ctx, job_id_off);
	/* a submit fires in the submitting task: serve's metrics count it by this cgroup */
	r->cgroup = bpf_get_current_cgroup_id();
	xp_submit(r);
	return 0;
}

SEC("tracepoint")
int npu_jsm(void *ctx)
{
	struct xp_npu_rec *r = rec_new(XP_NPU_JSM, bpf_ktime_get_ns(), bpf_get_current_pid_tgid(), 0);

	if (!r)
		return 0;
	read_str(ctx, jsm_event_off, r->name, sizeof(r->name));
	read_str(ctx, jsm_type_off, r->type, sizeof(r->type));
	r->a = read_u32(ctx, jsm_status_off);
	r->b = read_u32(ctx, jsm_req_off);
	r->c = read_u32(ctx, jsm_result_off);
	xp_submit(r);
	return 0;
}

SEC("tracepoint")
int npu_pm(void *ctx)
{
	struct xp_npu_rec *r = rec_new(XP_NPU_PM, bpf_ktime_get_ns(), bpf_get_current_pid_tgid(), 0);

	if (!r)
		return 0;
	read_str(ctx, pm_event_off, r->name, sizeof(r->name));
	xp_submit(r);
	return 0;
}

/*
 * AMD's amdxdna. Its xdna_job event names the job's scheduler fence
 * (context, seqno), which the gpu_scheduler's events name too: the queue
 * event (in the submitter's context) and the done event join each job to
 * its process and its time in the scheduler. The gpu_scheduler's events
 * fire for every driver: queue events are kept for amdxdna's schedulers
 * (by name), done events for the fence contexts of those jobs.
 */
const volatile __u32 xj_name_off = 8, xj_str_off = 12, xj_fctx_off = 16, xj_fseq_off = 24, xj_seq_off = 32,
		     xj_op_off = 40;
const volatile __u32 sq_name_off = 8, sq_fctx_off = 24, sq_fseq_off = 32;
const volatile __u32 sd_fctx_off = 8, sd_fseq_off = 16;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} xdna_fctx SEC(".maps");

/* A __data_loc string of the event: its low 16 bits are the offset in the record. */
static __always_inline void read_loc(void *ctx, __u32 off, char *dst, __u32 len)
{
	__u32 loc = 0;

	if (bpf_probe_read_kernel(&loc, sizeof(loc), (char *)ctx + off) ||
	    bpf_probe_read_kernel_str(dst, len, (char *)ctx + (loc & 0xffff)) < 0)
		dst[0] = '\0';
}

static __always_inline __u64 read_u64(void *ctx, __u32 off)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + off);
	return v;
}

static __always_inline void xdna_ctx_seen(__u64 fctx)
{
	__u8 one = 1;

	bpf_map_update_elem(&xdna_fctx, &fctx, &one, BPF_ANY);
}

/*
 * With -p, -c or -G, a job's events are kept when its queue event was the
 * filtered process's: a fence context is one hardware context's, of one
 * process. Without filters every job is kept, queued before tracing or not.
 */
static __always_inline bool filters_on(void)
{
	return filter_tgid || filter_cgid || filter_comm_on;
}

SEC("tracepoint")
int xdna_job(void *ctx)
{
	__u64 fctx = read_u64(ctx, xj_fctx_off);
	struct xp_npu_rec *r;

	if (filters_on() && !bpf_map_lookup_elem(&xdna_fctx, &fctx))
		return 0;
	if (!(r = rec_new(XP_NPU_XDNA, bpf_ktime_get_ns(), bpf_get_current_pid_tgid(), 1)))
		return 0;
	read_loc(ctx, xj_str_off, r->name, sizeof(r->name));
	read_loc(ctx, xj_name_off, r->type, sizeof(r->type));
	r->fctx = fctx;
	r->fseq = read_u64(ctx, xj_fseq_off);
	r->seq = read_u64(ctx, xj_seq_off);
	r->a = xj_op_off ? read_u32(ctx, xj_op_off) : 0;	/* 0: a kernel whose event has no op */
	xdna_ctx_seen(r->fctx);
	xp_submit(r);
	return 0;
}

SEC("tracepoint")
int xdna_sched_queue(void *ctx)
{
	char sched[XP_NPU_STR];
	struct xp_npu_rec *r;

	read_loc(ctx, sq_name_off, sched, sizeof(sched));
	if (sched[0] != 'a' || sched[1] != 'm' || sched[2] != 'd' || sched[3] != 'x' || sched[4] != 'd' ||
	    sched[5] != 'n' || sched[6] != 'a')
		return 0;
	/* the submitter's context: the filters apply here */
	if (xp_filtered(bpf_get_current_pid_tgid() >> 32))
		return 0;
	if (!(r = rec_new(XP_NPU_SQUEUE, bpf_ktime_get_ns(), bpf_get_current_pid_tgid(), 0)))
		return 0;
	__builtin_memcpy(r->type, sched, sizeof(sched));
	r->fctx = read_u64(ctx, sq_fctx_off);
	r->fseq = read_u64(ctx, sq_fseq_off);
	xdna_ctx_seen(r->fctx);
	xp_submit(r);
	return 0;
}

SEC("tracepoint")
int xdna_sched_done(void *ctx)
{
	__u64 fctx = read_u64(ctx, sd_fctx_off);
	struct xp_npu_rec *r;

	if (!bpf_map_lookup_elem(&xdna_fctx, &fctx))
		return 0;
	if (!(r = rec_new(XP_NPU_SDONE, bpf_ktime_get_ns(), bpf_get_current_pid_tgid(), 1)))
		return 0;
	r->fctx = fctx;
	r->fseq = read_u64(ctx, sd_fseq_off);
	xp_submit(r);
	return 0;
}
