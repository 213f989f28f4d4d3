// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `xputrace api`: runtime library calls by uprobe and uretprobe, and the
 * ioctls on traced device nodes that a thread issues while inside one.
 *
 * One pair of programs serves every function: the attach cookie is the
 * function's index in the "fns" map, with its rule (enum xp_api_rule) in
 * the upper 32 bits. Entry pushes (time, index) on the
 * thread's stack of open calls; return pops it and writes one record. The
 * ioctl programs (the classic syscall events) look at a thread only while
 * it has an open call, so other threads' ioctls cost one hash lookup, and
 * write one record per ioctl on a traced device. User space joins them: an
 * ioctl record of a thread comes before the record of the call around it.
 *
 * In summary mode a call that needs no record for that join (no ioctl and
 * no DRM scheduler job inside it) is counted here instead, by process and
 * function, with its latency in the user side's buckets and its errors by
 * value: the frame's marks tell which open calls saw an ioctl or a job.
 */
#include "caps/ioctl/ioctl_dev.bpf.h"
#include "caps/api/api.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XP_API_MAX_FN);
	__type(key, __u32);
	__type(value, struct xp_api_fn);
} fns SEC(".maps");

/* The frames of threads that own their entry (api.h): no hash lookup. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XP_API_FRAME_SLOTS);
	__type(key, __u32);
	__type(value, struct xp_api_frame);
} fslots SEC(".maps");

/*
 * The frames of the other threads. LRU, for threads past its size; a
 * thread's frame goes when the thread ends (thread_ends below), so it
 * holds the live threads that made a call.
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

/* The summary's counts (api.h): the entries, and each key's entry. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XP_API_AGG_ROWS);
	__type(key, __u32);
	__type(value, struct xp_api_agg);
} aggv SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XP_API_AGG_ROWS);
	__type(key, struct xp_api_agg_key);
	__type(value, __u32);
} agg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XP_API_AGG_ERRS);
	__type(key, struct xp_api_err_key);
	__type(value, __u64);
} errs SEC(".maps");

/* Counters user space reads from the mapped .bss. */
__u64 api_too_deep;	/* calls nested past XP_API_DEPTH: not recorded */
__u64 api_unmatched;	/* returns that did not match the open call (longjmp, exceptions) */

/*
 * Set by user space: agg_on, count calls that need no record in agg (summary
 * mode; cleared when jobs are joined that this side cannot see queued);
 * drain_gen, the generation new counts go to (moved on before each drain).
 */
volatile __u32 agg_on;
volatile __u32 drain_gen;
/* entries of aggv handed out in each generation's quarter (user space zeroes it once taken out) */
__u32 agg_next[XP_API_AGG_GENS];

static __u64 zero_u64;

static struct xp_api_frame zero_frame;

/*
 * The thread's frame: its own entry of fslots, else its frame in the hash
 * map; with `make`, a free entry is taken (when the thread has no frame in
 * the map, so it never has two) or a frame made in the map. NULL: none.
 */
static __always_inline struct xp_api_frame *frame_of(__u32 tid, bool make)
{
	__u32 i = tid % XP_API_FRAME_SLOTS;
	struct xp_api_frame *f = bpf_map_lookup_elem(&fslots, &i), *h;

	if (f && f->tid == tid)
		return f;
	h = bpf_map_lookup_elem(&frames, &tid);
	if (h || !make)
		return h;
	/* only its owner writes to an entry; others take it only while free */
	if (f && !f->tid && __sync_val_compare_and_swap(&f->tid, 0, tid) == 0)
		return f;
	bpf_map_update_elem(&frames, &tid, &zero_frame, BPF_NOEXIST);
	return bpf_map_lookup_elem(&frames, &tid);
}

SEC("uprobe")
int api_enter(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, d;
	struct xp_api_frame *f;

	if (xp_filtered(pid_tgid >> 32))
		return 0;
	if (!(f = frame_of(tid, true))) {
		xp_drop(XP_DROP_MAP_FULL);
		return 0;
	}
	d = f->depth;
	if (d < XP_API_DEPTH) {
		f->ts[d] = bpf_ktime_get_ns();
		f->fn[d] = (__u32)bpf_get_attach_cookie(ctx);
		f->marks &= ~(1u << d);
	} else {
		__sync_fetch_and_add(&api_too_deep, 1);
	}
	f->depth = d + 1;
	return 0;
}

/*
 * The index in aggv of the entry of (pid, fn) in generation gen: the
 * thread's cached one, else the key's, else a new one; -1 when the
 * generation's quarter is full.
 */
static __always_inline long slot_of(struct xp_api_frame *f, __u32 pid, __u32 fn, __u32 gen, bool err, int ret)
{
	struct xp_api_slot *c = &f->cache[fn % XP_API_SLOT_CACHE];
	struct xp_api_agg_key key = { .pid = pid, .fn = fn, .gen = gen };
	struct xp_api_agg *v;
	__u32 q = gen % XP_API_AGG_GENS, n, slot, *sp;

	if (c->gen1 == gen + 1 && c->fn == fn)
		return c->slot;
	if ((sp = bpf_map_lookup_elem(&agg, &key))) {
		slot = *sp;
	} else {
		n = __sync_fetch_and_add(&agg_next[q], 1);
		if (n >= XP_API_AGG_SLOTS)
			return -1;
		slot = q * XP_API_AGG_SLOTS + n;
		if (bpf_map_update_elem(&agg, &key, &slot, BPF_NOEXIST)) {
			/* another CPU made it first (its entry is ours too), or the map is full */
			if (!(sp = bpf_map_lookup_elem(&agg, &key)))
				return -1;
			slot = *sp;
		} else if ((v = bpf_map_lookup_elem(&aggv, &slot))) {
			/*
			 * The entry's err1: this call's return when it failed,
			 * set once, by the call that made the entry (calls of
			 * other threads meanwhile count errors in errs).
			 */
			bpf_get_current_comm(v->comm, sizeof(v->comm));
			if (err)
				v->err1 = ret;
		}
	}
	c->gen1 = gen + 1;
	c->fn = fn;
	c->slot = slot;
	return slot;
}

/*
 * A call counted in the kernel, `err` whether it failed: false when a map
 * is full (the call then gets a record, and nothing of it was counted here).
 */
static __always_inline bool count(struct xp_api_frame *f, __u32 pid, __u32 fn, __u64 lat, bool err, int ret)
{
	__u32 gen = drain_gen, slot, b;
	long at = slot_of(f, pid, fn, gen, err, ret);
	struct xp_api_agg *v;

	if (at < 0)
		return false;
	slot = (__u32)at;
	if (!(v = bpf_map_lookup_elem(&aggv, &slot)))
		return false;
	if (err) {
		if (v->err1 == ret) {
			__sync_fetch_and_add(&v->err1_calls, 1);
		} else {
			struct xp_api_err_key ek = { .k = { .pid = pid, .fn = fn, .gen = gen }, .ret = ret };
			__u64 *n = bpf_map_lookup_elem(&errs, &ek);

			if (!n) {
				bpf_map_update_elem(&errs, &ek, &zero_u64, BPF_NOEXIST);
				if (!(n = bpf_map_lookup_elem(&errs, &ek)))
					return false;
			}
			__sync_fetch_and_add(n, 1);
		}
	}
	__sync_fetch_and_add(&v->sum_ns, lat);
	if (lat > v->max_ns)
		v->max_ns = lat;	/* a lost race only loses a near-equal maximum */
	b = xp_hist_bucket(lat);
	barrier_var(b);	/* keep the bound check on the register that indexes */
	if (b < XP_HIST_BUCKETS)
		__sync_fetch_and_add(&v->hist[b], 1);
	return true;
}

static __always_inline bool is_error(__u32 rule, int ret)
{
	if (rule == XP_API_RET_VALUE)
		return false;
	return rule == XP_API_RET_NEGATIVE ? ret < 0 : ret != 0;
}

SEC("uretprobe")
int api_exit(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns(), cookie = bpf_get_attach_cookie(ctx);
	__u32 tid = (__u32)pid_tgid, fn = (__u32)cookie, rule = (__u32)(cookie >> 32), d, mask;
	struct xp_api_frame *f = frame_of(tid, false);
	int ret = (int)ctx->ax;	/* rax: the kernel's struct pt_regs names it ax */
	struct xp_api_fn *desc;
	struct xp_api_rec *r;
	bool marked;

	barrier_var(ret);	/* read here: the verifier refuses a load through a moved ctx pointer */
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
	/* the outermost call's record also settles jobs queued outside any call */
	mask = (1u << d) | (d ? 0 : XP_API_LOOSE);
	marked = f->marks & mask;
	f->marks &= ~mask;
	if (agg_on && !marked &&
	    count(f, pid_tgid >> 32, fn, now > f->ts[d] ? now - f->ts[d] : 0, is_error(rule, ret), ret))
		return 0;
	if (!(desc = bpf_map_lookup_elem(&fns, &fn)) || !(r = xp_reserve(sizeof(*r))))
		return 0;
	xp_fill_hdr(&r->hdr, XP_REC_API, sizeof(*r), f->ts[d], pid_tgid);
	r->end_ns = now;
	r->ret = ret;
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
	struct xp_api_frame *f = frame_of(tid, false);
	struct ioctl_start s = {};

	if (!f || !f->depth)
		return 0;
	dev = fd_to_traced_chrdev((int)ctx->fd, true);
	if (!dev)
		return 0;
	/* every call open around it needs its record */
	f->marks |= f->depth < XP_API_DEPTH ? (1u << f->depth) - 1 : (1u << XP_API_DEPTH) - 1;
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

/*
 * A DRM scheduler job queued (gpu_scheduler:drm_sched_job_queue, or
 * drm_sched_job before 6.17; attached by name): it fires in the submitting
 * thread, and the calls open around it need their records for the jobs'
 * join; queued outside any call, the next outermost call's record settles
 * it. A thread that made no traced call yet gets its frame here.
 */
SEC("tracepoint")
int api_job_queued(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, d;
	struct xp_api_frame *f = frame_of(tid, false);

	if (!f && (xp_filtered(pid_tgid >> 32) || !(f = frame_of(tid, true))))
		return 0;
	d = f->depth;
	f->marks |= !d ? XP_API_LOOSE : d < XP_API_DEPTH ? (1u << d) - 1 : (1u << XP_API_DEPTH) - 1;
	return 0;
}

/* The current thread ends (or execs): its open calls are counted in ended, its frame freed. */
static __always_inline int thread_ends(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), d, k = tid % XP_API_FRAME_SLOTS;
	struct xp_api_frame *f = frame_of(tid, false), *own = bpf_map_lookup_elem(&fslots, &k);

	if (!f)
		return 0;
	d = f->depth < XP_API_DEPTH ? f->depth : XP_API_DEPTH;	/* deeper ones: api_too_deep */
	for (__u32 i = 0; i < XP_API_DEPTH && i < d; i++) {
		__u32 fn = f->fn[i];
		__u64 *n = bpf_map_lookup_elem(&ended, &fn);

		if (n)
			__sync_fetch_and_add(n, 1);
	}
	if (!own || f != own) {
		bpf_map_delete_elem(&frames, &tid);
		return 0;
	}
	/* the entry, clean, for another thread; freed last */
	f->depth = 0;
	f->marks = 0;
	for (__u32 c = 0; c < XP_API_SLOT_CACHE; c++)
		f->cache[c].gen1 = 0;
	__sync_lock_test_and_set(&f->tid, 0);
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
