// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `xputrace latency`: the time from a "from" probe to a "to" probe, paired
 * in the kernel by a key (shared/latency.h).
 *
 * Programs per probe family: classic tracepoints (ctx is the raw record,
 * key fields at offsets from its tracefs format), the pt_regs family
 * (kprobe, kretprobe, uprobe, uretprobe: key fields are function arguments
 * in registers) and BTF trampolines (fentry, fexit: arguments by
 * bpf_get_func_arg). User space loads the pair its probes need, sets the
 * trampolines' targets, and fills the per-side key settings before load;
 * nothing here names an event or a function.
 *
 * Pairing: "depth" holds, per key, how many starts are open; a start is
 * kept in "inflight" under (key, depth), so nested starts of one key
 * (recursion, a thread re-entering) end innermost first. The in-flight
 * table is bounded: a start that finds it full is counted and dropped.
 * User space ages out starts older than --max-age. An end without an open
 * start is counted. Each completed pair is one record in the ring buffer;
 * statistics are computed in user space, so `record`/`report` replay them.
 */
#include "bpf/common.bpf.h"
#include "shared/latency.h"

/* Set before load. */
const volatile struct xp_lat_side_cfg from_cfg = {};
const volatile struct xp_lat_side_cfg to_cfg = {};
const volatile __u8 key_kind[XP_LAT_MAX_KEYS] = {};
const volatile __u64 key_names[XP_LAT_NAMES / 8] = {};

struct ifkey {
	struct xp_lat_key key;
	__u32 depth;
	__u32 pad;
};

struct ifval {
	__u64 ts;
	__u64 pid_tgid;
	char comm[XP_COMM_LEN];
};

/* Sizes set by user space before load (--max-inflight). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, struct ifkey);
	__type(value, struct ifval);
} inflight SEC(".maps");

/* LRU: a key whose starts never end must not pin an entry forever. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);
	__type(key, struct xp_lat_key);
	__type(value, __u32);
} depth SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XP_LAT_ST_MAX);
	__type(key, __u32);
	__type(value, __u64);
} lat_stats SEC(".maps");

/* The six argument registers on x86-64; a flavour of the kernel's pt_regs. */
struct pt_regs___lat {
	unsigned long di, si, dx, cx, r8, r9;
} __attribute__((preserve_access_index));

static __always_inline void stat(__u32 i)
{
	__u64 *n = bpf_map_lookup_elem(&lat_stats, &i);

	if (n)
		*n += 1;
}

/*
 * Read through the helper, not by loads from ctx: the compiler adds the
 * relocated field offset to ctx before loading, and older verifiers (6.1)
 * refuse a load through a modified ctx pointer.
 */
static __always_inline __u64 arg_of(void *ctx, __u8 i)
{
	struct pt_regs___lat *r = ctx;
	__u64 v = 0;

	switch (i) {
	case 0: bpf_core_read(&v, sizeof(v), &r->di); break;
	case 1: bpf_core_read(&v, sizeof(v), &r->si); break;
	case 2: bpf_core_read(&v, sizeof(v), &r->dx); break;
	case 3: bpf_core_read(&v, sizeof(v), &r->cx); break;
	case 4: bpf_core_read(&v, sizeof(v), &r->r8); break;
	default: bpf_core_read(&v, sizeof(v), &r->r9); break;
	}
	return v;
}

static __always_inline __u64 num_field(void *ctx, __u16 off, __u16 size, __u8 is_signed)
{
	__u64 v = 0;

	switch (size) {
	case 1: { __u8 x = 0; bpf_probe_read_kernel(&x, 1, ctx + off); v = is_signed ? (__u64)(__s8)x : x; break; }
	case 2: { __u16 x = 0; bpf_probe_read_kernel(&x, 2, ctx + off); v = is_signed ? (__u64)(__s16)x : x; break; }
	case 4: { __u32 x = 0; bpf_probe_read_kernel(&x, 4, ctx + off); v = is_signed ? (__u64)(__s32)x : x; break; }
	default: bpf_probe_read_kernel(&v, 8, ctx + off); break;
	}
	return v;
}

enum { CTX_TP, CTX_REGS, CTX_BTF };

/* The key from one side's settings; `mode`: what ctx is (CTX_*). */
static __always_inline void make_key(void *ctx, const volatile struct xp_lat_side_cfg *c,
				     struct xp_lat_key *key, __u64 pid_tgid, int mode)
{
	bool tp = mode == CTX_TP;

	for (int i = 0; i < XP_LAT_MAX_KEYS; i++) {
		__u8 src = c->f[i].src;
		__u16 off = c->f[i].off, size = c->f[i].size;
		__u64 *num = (__u64 *)key->k[i];
		__u32 loc = 0;

		if (src == XP_LAT_SRC_TID) {
			*num = (__u32)pid_tgid;
		} else if (src == XP_LAT_SRC_PID) {
			*num = pid_tgid >> 32;
		} else if (tp && src == XP_LAT_SRC_NUM) {
			*num = num_field(ctx, off, size, c->f[i].is_signed);
		} else if (tp && (src == XP_LAT_SRC_STRLOC || src == XP_LAT_SRC_RELLOC)) {
			bpf_probe_read_kernel(&loc, 4, ctx + off);
			bpf_probe_read_kernel_str(key->k[i], XP_LAT_SLOT,
						  ctx + (loc & 0xffff) +
							  (src == XP_LAT_SRC_RELLOC ? off + 4 : 0));
		} else if (tp && src == XP_LAT_SRC_CHARS) {
			__u32 n = size < XP_LAT_SLOT - 1 ? size : XP_LAT_SLOT - 1;

			bpf_probe_read_kernel_str(key->k[i], n + 1, ctx + off);
		} else if (mode == CTX_REGS && src == XP_LAT_SRC_ARG) {
			*num = arg_of(ctx, c->f[i].arg);
		} else if (mode == CTX_BTF && src == XP_LAT_SRC_ARG) {
			bpf_get_func_arg(ctx, c->f[i].arg, num);
		}
	}
}

static __always_inline int on_from(void *ctx, int tp)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ifkey ik = {};
	struct ifval v = {};
	__u32 d = 0, *dp;

	if (xp_filtered(pid_tgid >> 32))
		return 0;
	make_key(ctx, &from_cfg, &ik.key, pid_tgid, tp);
	dp = bpf_map_lookup_elem(&depth, &ik.key);
	if (dp)
		d = *dp;
	if (d >= XP_LAT_MAX_DEPTH) {
		stat(XP_LAT_ST_TOO_DEEP);
		return 0;
	}
	ik.depth = d;
	v.ts = bpf_ktime_get_ns();
	v.pid_tgid = pid_tgid;
	bpf_get_current_comm(v.comm, sizeof(v.comm));
	if (bpf_map_update_elem(&inflight, &ik, &v, BPF_ANY)) {
		stat(XP_LAT_ST_INFLIGHT_FULL);
		xp_drop(XP_DROP_MAP_FULL);
		return 0;
	}
	d++;
	if (dp)
		*dp = d;
	else
		bpf_map_update_elem(&depth, &ik.key, &d, BPF_ANY);
	stat(XP_LAT_ST_STARTS);
	return 0;
}

static __always_inline int on_to(void *ctx, int tp)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	struct xp_lat_rec *r;
	struct ifkey ik = {};
	struct ifval *v;
	__u32 *dp;

	if (xp_filtered(pid_tgid >> 32))
		return 0;
	make_key(ctx, &to_cfg, &ik.key, pid_tgid, tp);
	dp = bpf_map_lookup_elem(&depth, &ik.key);
	if (!dp || !*dp) {
		stat(XP_LAT_ST_ORPHAN_ENDS);
		return 0;
	}
	ik.depth = *dp - 1;
	if (ik.depth)
		*dp = ik.depth;
	else
		bpf_map_delete_elem(&depth, &ik.key);
	v = bpf_map_lookup_elem(&inflight, &ik);
	if (!v) {
		/* aged out by user space, or never kept */
		stat(XP_LAT_ST_ORPHAN_ENDS);
		return 0;
	}
	stat(XP_LAT_ST_ENDS);
	r = xp_reserve(sizeof(*r));
	if (r) {
		xp_fill_hdr(&r->hdr, XP_REC_LATENCY, sizeof(*r), v->ts, v->pid_tgid);
		r->end_ns = now;
		r->end_tid = (__u32)pid_tgid;
		r->depth = (__u16)ik.depth;
		for (int i = 0; i < XP_LAT_MAX_KEYS; i++)
			r->kind[i] = key_kind[i];
		__builtin_memcpy(&r->key, &ik.key, sizeof(r->key));
		for (int i = 0; i < XP_LAT_NAMES / 8; i++)
			((__u64 *)r->names)[i] = key_names[i];
		__builtin_memcpy(r->comm, v->comm, sizeof(r->comm));
		xp_submit(r);
	}
	bpf_map_delete_elem(&inflight, &ik);
	return 0;
}

SEC("tracepoint")
int lat_from_tp(void *ctx)
{
	return on_from(ctx, CTX_TP);
}

SEC("tracepoint")
int lat_to_tp(void *ctx)
{
	return on_to(ctx, CTX_TP);
}

/* kprobe, kretprobe, uprobe and uretprobe alike: attached by user space */
SEC("kprobe")
int lat_from_kp(struct pt_regs *ctx)
{
	return on_from(ctx, CTX_REGS);
}

SEC("kprobe")
int lat_to_kp(struct pt_regs *ctx)
{
	return on_to(ctx, CTX_REGS);
}

/* trampolines: the target function is set by user space before load */
SEC("fentry")
int lat_from_fentry(void *ctx)
{
	return on_from(ctx, CTX_BTF);
}

SEC("fexit")
int lat_from_fexit(void *ctx)
{
	return on_from(ctx, CTX_BTF);
}

SEC("fentry")
int lat_to_fentry(void *ctx)
{
	return on_to(ctx, CTX_BTF);
}

SEC("fexit")
int lat_to_fexit(void *ctx)
{
	return on_to(ctx, CTX_BTF);
}
