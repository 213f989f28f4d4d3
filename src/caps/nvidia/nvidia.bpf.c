// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The nvidia capability's kernel side: the probed nvidia.ko functions
 * (caps/nvidia/nvidia.h), on entry and, for those that are timed, on return,
 * through one of three hooks user space picks, cheapest first: fentry/fexit
 * (BTF trampolines, where the module has BTF), kprobe.multi (one link for
 * every function), one kprobe per function.
 * Counted calls write their record at the entry; timed calls keep the
 * entry's time and argument until the return, which writes the record
 * with the duration. User space attaches only the programs of functions
 * the loaded module has.
 */
/* kernel_types.h declares the kernel's struct pt_regs: its register names */
#define __VMLINUX_H__
#include "bpf/common.bpf.h"
#include "caps/nvidia/nvidia.h"
#include "caps/nvidia/nvidia_probes.h"

/* The structures read here that kernel_types.h does not declare. */
struct vm_area_struct___xp {
	unsigned long vm_start;
	unsigned long vm_end;
	struct file *vm_file;
} __attribute__((preserve_access_index));

struct vm_fault___xp {
	struct vm_area_struct___xp *vma;
} __attribute__((preserve_access_index));

struct nv_key {
	__u32 id;	/* the thread, or the CPU for hardirq handlers */
	__u32 fn;
};

struct nv_start {
	__u64 ts;
	__u32 minor;
	__u32 arg32;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct nv_key);
	__type(value, struct nv_start);
} nv_starts SEC(".maps");

/* Functions called in the calling process's context: the filters apply. */
#define PROC_CTX ((1u << XP_NV_OPEN) | (1u << XP_NV_CLOSE) | (1u << XP_NV_IOCTL) | \
		  (1u << XP_NV_MMAP) | (1u << XP_NV_FAULT))
/* Hardirq handlers: paired per CPU (the interrupted task may be any, or idle). */
#define HARDIRQ ((1u << XP_NV_ISR) | (1u << XP_NV_ISR_MSIX))

static __always_inline __u32 file_minor(struct file *f)
{
	struct inode *ino = BPF_CORE_READ(f, f_inode);

	return ino ? BPF_CORE_READ(ino, i_rdev) & 0xfffff : XP_NV_NO_MINOR;
}

/*
 * The filters (and leaving out the tracer itself) apply to the calls made in
 * a process's context; an interrupt runs in whichever task it interrupted,
 * the tracer's own included, and is never left out.
 */
static __always_inline bool skip(__u32 fn, __u64 pid_tgid)
{
	return ((1u << fn) & PROC_CTX) && xp_filtered(pid_tgid >> 32);
}

static __always_inline struct nv_key key_of(__u32 fn, __u64 pid_tgid)
{
	struct nv_key k = { .fn = fn };

	k.id = ((1u << fn) & HARDIRQ) ? bpf_get_smp_processor_id() | 0x80000000u : (__u32)pid_tgid;
	return k;
}

static __always_inline int emit(__u32 fn, __u64 ts, __u32 minor, __u32 arg32, __u64 arg64,
				__u64 dur, __s64 ret, __u8 timed)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct xp_nv_rec *r = xp_reserve(sizeof(*r));

	if (!r)
		return 0;
	xp_fill_hdr(&r->h, XP_REC_NVIDIA, sizeof(*r), ts, pid_tgid);
	r->fn = fn;
	r->timed = timed;
	r->pad = 0;
	r->pad2 = 0;
	r->minor = minor;
	r->arg32 = arg32;
	r->arg64 = arg64;
	r->dur_ns = dur;
	r->ret = ret;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	xp_submit(r);
	return 0;
}

static __always_inline int enter(__u32 fn, __u32 minor, __u32 arg32, __u64 arg64)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), ts = bpf_ktime_get_ns();
	struct nv_key k;
	struct nv_start s = { .ts = ts, .minor = minor, .arg32 = arg32 };

	if (skip(fn, pid_tgid))
		return 0;
	if (!((1u << fn) & XP_NV_TIMED_MASK))
		return emit(fn, ts, minor, arg32, arg64, 0, 0, 0);
	k = key_of(fn, pid_tgid);
	if (bpf_map_update_elem(&nv_starts, &k, &s, BPF_ANY))
		xp_drop(XP_DROP_MAP_FULL);
	return 0;
}

static __always_inline int leave(__u32 fn, __s64 ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	struct nv_key k = key_of(fn, pid_tgid);
	struct nv_start *s = bpf_map_lookup_elem(&nv_starts, &k);
	struct nv_start c;

	if (!s)
		return 0;	/* entered before tracing began, or filtered */
	c = *s;
	bpf_map_delete_elem(&nv_starts, &k);
	return emit(fn, c.ts, c.minor, c.arg32, 0, now - c.ts, ret, 1);
}

/* --sample N: 1 in N ioctls of each escape is timed; every one is counted in nv_ioctl_seen */
const volatile __u32 sample_n = 1;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);	/* the ioctl's cmd */
	__type(value, __u64);	/* calls seen (filters applied) */
} nv_ioctl_seen SEC(".maps");

static __always_inline int ioctl_enter(struct file *file, __u32 cmd)
{
	__u64 *seen, n, zero = 0;

	if (sample_n > 1) {
		if (skip(XP_NV_IOCTL, bpf_get_current_pid_tgid()))
			return 0;
		seen = bpf_map_lookup_elem(&nv_ioctl_seen, &cmd);
		if (!seen) {
			bpf_map_update_elem(&nv_ioctl_seen, &cmd, &zero, BPF_NOEXIST);
			seen = bpf_map_lookup_elem(&nv_ioctl_seen, &cmd);
		}
		if (!seen) {
			xp_drop(XP_DROP_MAP_FULL);
			return 0;
		}
		/* the first call of an escape is timed, then every Nth after it */
		n = __sync_fetch_and_add(seen, 1);
		if (n % sample_n)
			return 0;
	}
	return enter(XP_NV_IOCTL, file_minor(file), cmd, 0);
}

/* The entries, whatever the hook: what each function's record takes from its arguments. */
static __always_inline int open_close(__u32 fn, struct inode *inode, struct file *file)
{
	return enter(fn, inode ? BPF_CORE_READ(inode, i_rdev) & 0xfffff : XP_NV_NO_MINOR, 0, (__u64)file);
}

static __always_inline int mmap_enter(struct file *file, struct vm_area_struct___xp *vma)
{
	__u64 bytes = BPF_CORE_READ(vma, vm_end) - BPF_CORE_READ(vma, vm_start);

	return enter(XP_NV_MMAP, file_minor(file), 0, bytes);
}

static __always_inline int fault_enter(struct vm_fault___xp *vmf)
{
	struct file *f = BPF_CORE_READ(vmf, vma, vm_file);

	return enter(XP_NV_FAULT, f ? file_minor(f) : XP_NV_NO_MINOR, 0, 0);
}

/* ---- one kprobe per function (and a return probe on the timed ones) ---- */

#define NV_KPROBE(name, fn, call, ...) \
	SEC("kprobe") int BPF_KPROBE(nv_##name, ##__VA_ARGS__) { return call; }
#define NV_KRETPROBE(name, fn, ret_t, ...) \
	SEC("kprobe") int BPF_KRETPROBE(nv_##name##_ret, ret_t ret) { return leave(fn, ret); }
XP_NV_ENTRIES(NV_KPROBE)
XP_NV_RETURNS(NV_KRETPROBE)

/*
 * ---- kprobe.multi: one program for every entry, one for every return; the
 * function is the attach cookie (its enum xp_nv_fn), set per symbol ----
 */
SEC("kprobe.multi")
int nv_multi(struct pt_regs *ctx)
{
	__u32 fn = (__u32)bpf_get_attach_cookie(ctx);

	switch (fn) {
	case XP_NV_OPEN:
	case XP_NV_CLOSE:
		return open_close(fn, (struct inode *)PT_REGS_PARM1(ctx), (struct file *)PT_REGS_PARM2(ctx));
	case XP_NV_IOCTL:
		return ioctl_enter((struct file *)PT_REGS_PARM1(ctx), (__u32)PT_REGS_PARM2(ctx));
	case XP_NV_MMAP:
		return mmap_enter((struct file *)PT_REGS_PARM1(ctx), (void *)PT_REGS_PARM2(ctx));
	case XP_NV_FAULT:
		return fault_enter((void *)PT_REGS_PARM1(ctx));
	case XP_NV_ISR:
	case XP_NV_ISR_MSIX:
	case XP_NV_ISR_BH:
	case XP_NV_ISR_MSIX_BH:
		return enter(fn, XP_NV_NO_MINOR, (int)PT_REGS_PARM1(ctx), 0);
	case XP_NV_P2P_GET:
		return enter(fn, XP_NV_NO_MINOR, 0, PT_REGS_PARM4(ctx));
	default:
		return fn < XP_NV_NFN ? enter(fn, XP_NV_NO_MINOR, 0, 0) : 0;
	}
}

SEC("kretprobe.multi")
int nv_multi_ret(struct pt_regs *ctx)
{
	__u32 fn = (__u32)bpf_get_attach_cookie(ctx);

	return fn < XP_NV_NFN ? leave(fn, (long)PT_REGS_RC(ctx)) : 0;
}

/*
 * ---- fentry/fexit: BPF trampolines on the module's functions, found in its
 * BTF (targets set by user space); the arguments as the driver declares them ----
 */
#define NV_FENTRY(name, fn, call, ...) \
	SEC("fentry") int BPF_PROG(nv_##name##_fe, ##__VA_ARGS__) { return call; }
/* fexit: every argument comes before the return value */
#define NV_FEXIT(name, fn, ret_t, ...) \
	SEC("fexit") int BPF_PROG(nv_##name##_fx, __VA_ARGS__, ret_t ret) { return leave(fn, ret); }
XP_NV_ENTRIES(NV_FENTRY)
XP_NV_RETURNS(NV_FEXIT)

/* The Xid tracepoint: where its fields are, from its format file (0: absent). */
const volatile __u32 xid_dev_off = 0, xid_code_off = 0, xid_msg_off = 0;

static __always_inline void copy_loc(void *ctx, __u32 off, char *dst, __u32 size)
{
	__u32 loc = 0;

	bpf_probe_read_kernel(&loc, sizeof(loc), ctx + off);
	if (bpf_probe_read_kernel_str(dst, size, ctx + (loc & 0xffff)) < 0)
		dst[0] = 0;
}

SEC("tracepoint")
int nv_xid(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct xp_nv_xid_rec *x = xp_reserve(sizeof(*x));
	__u32 code = 0;

	if (!x)
		return 0;
	xp_fill_hdr(&x->r.h, XP_REC_NVIDIA, sizeof(*x), bpf_ktime_get_ns(), pid_tgid);
	bpf_probe_read_kernel(&code, sizeof(code), ctx + xid_code_off);
	x->r.fn = XP_NV_XID;
	x->r.timed = 0;
	x->r.pad = 0;
	x->r.pad2 = 0;
	x->r.minor = XP_NV_NO_MINOR;
	x->r.arg32 = code;
	x->r.arg64 = 0;
	x->r.dur_ns = 0;
	x->r.ret = 0;
	bpf_get_current_comm(x->r.comm, sizeof(x->r.comm));
	copy_loc(ctx, xid_dev_off, x->dev, sizeof(x->dev));
	copy_loc(ctx, xid_msg_off, x->msg, sizeof(x->msg));
	xp_submit(x);
	return 0;
}
