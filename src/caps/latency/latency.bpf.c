// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `xputrace latency`: the time from a "from" probe to a "to" probe, paired
 * in the kernel by a key (caps/latency/latency.h).
 *
 * Programs per probe family: classic tracepoints (ctx is the raw record,
 * key fields at offsets from its tracefs format), the pt_regs family
 * (kprobe, kretprobe, uprobe, uretprobe: key fields are function arguments
 * in registers) and BTF trampolines (fentry, fexit: arguments by
 * bpf_get_func_arg). User space loads the pair its probes need, sets the
 * trampolines' targets, and fills the per-side key settings before load;
 * nothing here names an event or a function.
 *
 * Pairing: each open start holds one slot of "inflight", an array shared
 * with user space (caps/latency/latency.h), within XP_LAT_WINDOW slots of its
 * key's hash. A slot changes state only by compare-and-swap: a start claims
 * a free slot, fills it and opens it; an end takes the newest open slot
 * of its key begun before it (nested starts of one key end innermost
 * first), reads it and frees it. No lock is taken anywhere, so a start or end that interrupts another
 * on the same CPU (an end from a timer's hardirq, a softirq, a nested
 * probe), or runs beside it on another CPU, can neither wait nor be refused
 * a lock, and no two ends take one start. A start that finds no free slot,
 * or nests too deep, is counted and dropped; an end without an open start
 * is counted. User space reads the table and the counters from memory
 * (mmap), never with map system calls: those mark the CPU as running BPF,
 * and the kernel skips tracepoint and kprobe programs that fire meanwhile.
 * The kernel still skips a classic tracepoint's program that fires while
 * another BPF program runs on its CPU (one at a time per CPU); a raw
 * tracepoint program on the same event (not under that rule) counts every
 * hit, so user space counts each skipped start and end, and where the
 * program running was one of ours it does the start or end itself, from
 * the event's arguments (see on_raw).
 * Each completed pair is one record in the ring buffer; statistics are
 * computed in user space, so `record`/`report` replay them.
 */
#include "bpf/common.bpf.h"
#include "caps/latency/latency.h"

/* Set before load. */
const volatile struct xp_lat_side_cfg from_cfg = {};
const volatile struct xp_lat_side_cfg to_cfg = {};
const volatile __u8 key_kind[XP_LAT_MAX_KEYS] = {};
const volatile __u64 key_names[XP_LAT_NAMES / 8] = {};

/* Sizes set by user space before load (--max-inflight, rounded up to a power of two). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct xp_lat_slot);
} inflight SEC(".maps");

const volatile __u32 inflight_mask = 16384 - 1;

/* Read by user space through the mapped .bss; written only atomically. */
__u64 lat_counts[XP_LAT_ST_MAX] = {};
__u64 lat_open = 0;		/* slots open now */
__u64 lat_seq = 0;		/* the next start's order */
__u32 lat_armed = 0;		/* set once every program is attached: runs and hits count */

#define NO_SLOT 0xffffffffu

enum { CTX_TP, CTX_REGS, CTX_BTF };

/* The six argument registers on x86-64; a flavour of the kernel's pt_regs. */
struct pt_regs___lat {
	unsigned long di, si, dx, cx, r8, r9;
} __attribute__((preserve_access_index));

static __always_inline void stat(__u32 i)
{
	if (i < XP_LAT_ST_MAX)
		__sync_fetch_and_add(&lat_counts[i], 1);
}

static __always_inline __u64 key_hash(const struct xp_lat_key *k)
{
	const __u64 *w = (const __u64 *)k;
	__u64 h = 1469598103934665603ull;

	for (int i = 0; i < (int)(sizeof(*k) / 8); i++)
		h = (h ^ w[i]) * 1099511628211ull;
	return h ^ (h >> 29);
}

static __always_inline bool key_eq(const struct xp_lat_key *a, const struct xp_lat_key *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;
	__u64 d = 0;

	for (int i = 0; i < (int)(sizeof(*a) / 8); i++)
		d |= x[i] ^ y[i];
	return !d;
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

/*
 * One look over a key's window, by bpf_loop: the verifier checks the body
 * once, not once per slot and path.
 */
struct scan {
	struct xp_lat_key key;
	__u64 h, best_seq;
	__u64 now;		/* an end's time */
	__u32 mine, best, n;
	bool claimed;
};

/* A start's look: claims the first free slot, counts the key's open starts. */
static long scan_from(__u32 i, void *ctx)
{
	struct scan *c = ctx;
	__u32 idx = ((__u32)c->h + i) & inflight_mask;
	struct xp_lat_slot *s = bpf_map_lookup_elem(&inflight, &idx);

	if (!s)
		return 1;
	if (c->mine == NO_SLOT && s->state == XP_LAT_SLOT_FREE &&
	    __sync_val_compare_and_swap(&s->state, XP_LAT_SLOT_FREE, XP_LAT_SLOT_CLAIMED) ==
		    XP_LAT_SLOT_FREE) {
		c->mine = idx;
		s->hash = c->h;	/* an end that comes meanwhile knows to wait */
	} else if (s->state == XP_LAT_SLOT_OPEN && s->hash == c->h && key_eq(&s->key, &c->key)) {
		c->n++;
	}
	return 0;
}

/*
 * An end's look: the key's newest open start, and how many are open. Only
 * starts from before the end count: on another CPU a start of the same key
 * can open while the end looks, and is not its start.
 */
static long scan_to(__u32 i, void *ctx)
{
	struct scan *c = ctx;
	__u32 idx = ((__u32)c->h + i) & inflight_mask;
	struct xp_lat_slot *s = bpf_map_lookup_elem(&inflight, &idx);
	__u64 st;

	if (!s)
		return 1;
	st = s->state;
	if (st == XP_LAT_SLOT_CLAIMED && s->hash == c->h)
		c->claimed = true;
	if (st != XP_LAT_SLOT_OPEN || s->hash != c->h || !key_eq(&s->key, &c->key) || s->ts > c->now)
		return 0;
	c->n++;
	if (c->best == NO_SLOT || s->seq > c->best_seq) {
		c->best = idx;
		c->best_seq = s->seq;
	}
	return 0;
}

/* Opens a start of key c->key (hashed in c->h). */
static __always_inline void start_key(struct scan *c, __u64 ts, __u64 pid_tgid)
{
	struct xp_lat_slot *s;
	__u32 mine;

	c->mine = NO_SLOT;
	c->n = 0;
	bpf_loop(XP_LAT_WINDOW, scan_from, c, 0);
	mine = c->mine;
	if (mine == NO_SLOT) {
		stat(XP_LAT_ST_INFLIGHT_FULL);
		xp_drop(XP_DROP_MAP_FULL);
		return;
	}
	s = bpf_map_lookup_elem(&inflight, &mine);
	if (!s)
		return;
	if (c->n >= XP_LAT_MAX_DEPTH) {
		__sync_val_compare_and_swap(&s->state, XP_LAT_SLOT_CLAIMED, XP_LAT_SLOT_FREE);
		stat(XP_LAT_ST_TOO_DEEP);
		return;
	}
	s->ts = ts;
	s->pid_tgid = pid_tgid;
	__builtin_memcpy(&s->key, &c->key, sizeof(c->key));
	bpf_get_current_comm(s->comm, sizeof(s->comm));
	s->seq = __sync_fetch_and_add(&lat_seq, 1);
	__sync_fetch_and_add(&lat_open, 1);
	/* a full barrier: the slot's contents are visible before it opens */
	__sync_val_compare_and_swap(&s->state, XP_LAT_SLOT_CLAIMED, XP_LAT_SLOT_OPEN);
	stat(XP_LAT_ST_STARTS);
}

static __always_inline void emit(struct xp_lat_slot *s, __u64 now, __u64 pid_tgid, __u32 depth)
{
	struct xp_lat_rec *r = xp_reserve(sizeof(*r));

	if (!r)
		return;
	xp_fill_hdr(&r->hdr, XP_REC_LATENCY, sizeof(*r), s->ts, s->pid_tgid);
	r->end_ns = now;
	r->end_tid = (__u32)pid_tgid;
	r->depth = (__u16)depth;
	for (int i = 0; i < XP_LAT_MAX_KEYS; i++)
		r->kind[i] = key_kind[i];
	__builtin_memcpy(&r->key, &s->key, sizeof(r->key));
	for (int i = 0; i < XP_LAT_NAMES / 8; i++)
		((__u64 *)r->names)[i] = key_names[i];
	__builtin_memcpy(r->comm, s->comm, sizeof(r->comm));
	xp_submit(r);
}

/*
 * A scan can lose its slot to another end, or to ageing, between reading it
 * and taking it; or see its start still being written on another CPU. Scan
 * again, a few times.
 */
#define END_TRIES 4

/*
 * Ends the newest open start of key c->key. `quiet`: the filters leave out
 * the thread the end runs in; the end still ends a start they kept, and
 * only without one is it left out rather than counted as an end without a
 * start (an end from an interrupt runs in whatever thread it interrupted,
 * xputrace itself included, or in a worker).
 */
static __always_inline void end_key(struct scan *c, __u64 now, __u64 pid_tgid, bool quiet)
{
	struct xp_lat_slot *s;

	c->now = now;
	for (int t = 0; t < END_TRIES; t++) {
		__u32 best;

		c->best = NO_SLOT;
		c->best_seq = 0;
		c->n = 0;
		c->claimed = false;
		bpf_loop(XP_LAT_WINDOW, scan_to, c, 0);
		best = c->best;
		if (best == NO_SLOT) {
			if (c->claimed)
				continue;
			break;
		}
		s = bpf_map_lookup_elem(&inflight, &best);
		if (!s)
			break;
		if (__sync_val_compare_and_swap(&s->state, XP_LAT_SLOT_OPEN, XP_LAT_SLOT_TAKEN) !=
		    XP_LAT_SLOT_OPEN)
			continue;
		if (s->hash != c->h || !key_eq(&s->key, &c->key) || s->ts > now) {
			/* freed and opened again for another key meanwhile: not ours */
			__sync_val_compare_and_swap(&s->state, XP_LAT_SLOT_TAKEN, XP_LAT_SLOT_OPEN);
			continue;
		}
		emit(s, now, pid_tgid, c->n ? c->n - 1 : 0);
		__sync_fetch_and_sub(&lat_open, 1);
		__sync_val_compare_and_swap(&s->state, XP_LAT_SLOT_TAKEN, XP_LAT_SLOT_FREE);
		stat(XP_LAT_ST_ENDS);
		return;
	}
	/* its start being written when it came: an end inside its own start */
	if (!quiet)
		stat(c->claimed ? XP_LAT_ST_END_RACED : XP_LAT_ST_ORPHAN_ENDS);
}

/* Recovering what the kernel skipped: the handover, learning, keys from arguments. */
#include "caps/latency/latency_recover.bpf.h"

/* The classic programs, all kinds. */
static __always_inline int on_from(void *ctx, int mode)
{
	/* busy first: the kernel skips other hits from the moment it enters us */
	struct handoff *h = mode == CTX_TP ? hand_busy() : NULL;
	__u64 pid_tgid = bpf_get_current_pid_tgid(), ts = bpf_ktime_get_ns();
	struct scan c = {};

	if (lat_armed)
		stat(XP_LAT_ST_FROM_RUNS);
	if (xp_filtered(pid_tgid >> 32)) {
		hand_over(h, 0, NULL);
		goto out;
	}
	make_key(ctx, &from_cfg, &c.key, pid_tgid, mode);
	hand_over(h, 0, &c.key);
	c.h = key_hash(&c.key);
	start_key(&c, ts, pid_tgid);
out:
	if (h)
		h->busy = 0;
	return 0;
}

static __always_inline int on_to(void *ctx, int mode)
{
	struct handoff *h = mode == CTX_TP ? hand_busy() : NULL;
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	struct scan c = {};
	bool quiet;

	if (lat_armed)
		stat(XP_LAT_ST_TO_RUNS);
	quiet = xp_filtered(pid_tgid >> 32);
	if (quiet && !lat_open) {
		hand_over(h, 1, NULL);
		goto out;
	}
	make_key(ctx, &to_cfg, &c.key, pid_tgid, mode);
	hand_over(h, 1, &c.key);
	c.h = key_hash(&c.key);
	end_key(&c, now, pid_tgid, quiet);
out:
	if (h)
		h->busy = 0;
	return 0;
}

/*
 * The raw side of a hit on a classic tracepoint's event: counts every hit
 * (hits minus the classic program's runs is what the kernel skipped), learns
 * from the classic side's key, and does what a skipped hit would have done.
 */
static __always_inline int on_raw(void *ctx, int side)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	struct handoff *h = hand();
	struct scan c = {};
	__u32 n;

	if (lat_armed)
		stat(side ? XP_LAT_ST_TO_HITS : XP_LAT_ST_FROM_HITS);
	if (!h)
		return 0;
	if (h->busy) {
		/* inside one of our classic programs: this hit's was skipped */
		if (!key_from_args(ctx, side, &c.key, pid_tgid))
			return 0;
		c.h = key_hash(&c.key);
		if (side) {
			end_key(&c, now, pid_tgid, xp_filtered(pid_tgid >> 32));
		} else {
			if (xp_filtered(pid_tgid >> 32))
				return 0;
			start_key(&c, now, pid_tgid);
		}
		stat(side ? XP_LAT_ST_TO_RECOVERED : XP_LAT_ST_FROM_RECOVERED);
		return 0;
	}
	if (h->raw_busy)
		return 0;	/* nested in ourselves: the handover on top is not ours */
	h->raw_busy = 1;
	n = h->n;
	if (n > 0) {
		h->n = n - 1;
		n--;
		if (n < XP_LAT_HANDOFF && h->e[n].side == (__u32)side && h->e[n].valid)
			learn(ctx, side, &h->e[n].key);
	}
	h->raw_busy = 0;
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

/* Raw tracepoints on the classic tracepoints' events, attached by name. */
SEC("raw_tp")
int lat_from_hit(void *ctx)
{
	return on_raw(ctx, 0);
}

SEC("raw_tp")
int lat_to_hit(void *ctx)
{
	return on_raw(ctx, 1);
}
