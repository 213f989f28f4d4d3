/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Part of latency.bpf.c, included by it at one place and by nothing else:
 * the raw side's recovery of hits the kernel skipped (the classic side's
 * handover, learning which argument gives each key field, keys from
 * arguments). It uses what latency.bpf.c defines before the include.
 */
#ifndef XP_CAPS_LATENCY_RECOVER_BPF_H
#define XP_CAPS_LATENCY_RECOVER_BPF_H

/*
 * Recovering what the kernel skipped. The kernel runs one tracepoint or
 * kprobe program per CPU at a time: a classic tracepoint that fires in an
 * interrupt while one of ours runs on that CPU (the interrupted task's
 * start or end) never reaches its program. The raw tracepoint on the same
 * event (attached after it, so on each hit it runs second) still runs, and
 * knows the hit was skipped when one of our classic programs is mid-run on
 * its CPU ("busy"). It has the event's arguments, not its record; so on
 * each hit both see, the classic program hands its key over (a per-CPU
 * stack: hits nest, last in first out) and the raw one learns which
 * argument each key field equals (a vote over every hit both see). Once
 * each field has an argument nearly every hit agrees with, a skipped hit's
 * key is made from its arguments and the start or end is done there. A
 * handover that may be another hit's (the raw program is itself nested, or
 * the hit is of the other side) teaches nothing; one that is another's
 * unnoticed is outvoted. A key field that no argument gives (one the
 * event computes) never agrees: such skips stay counted as skipped.
 */
#define XP_LAT_HANDOFF 4

struct handoff {
	__u32 busy;		/* one of our classic programs is running on this CPU */
	__u32 raw_busy;		/* one of our raw programs is running on this CPU */
	__u32 n;
	__u32 pad;
	struct {
		struct xp_lat_key key;
		__u32 side, valid;
	} e[XP_LAT_HANDOFF];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct handoff);
} handoff SEC(".maps");

/*
 * Set before load: the arguments the side's event has, from BTF; 0 where
 * that is unknown (a module without BTF). Then all six are tried: reads
 * past the real ones see the stack of the kernel's caller, which can hold
 * copies of the arguments, but never before them, so the first candidate
 * that every hit agrees with is the argument itself.
 */
const volatile __u32 event_nargs[2] = {};

static __always_inline __u32 nargs_of(int side)
{
	__u32 n = event_nargs[side & 1];

	return n && n < 6 ? n : 6;
}
/* Set by user space once a side's raw program is attached. */
__u32 lat_raw_on[2] = {};
/*
 * Per side: hits that taught, and per key field and argument how many of
 * them agreed. A vote, not an intersection: a handover that was another
 * hit's (the classic program skipped for a cause the raw one cannot see)
 * outvoted, not fatal.
 */
__u64 lat_learned[2] = {};
__u64 lat_agree[2][XP_LAT_MAX_KEYS][6] = {};

static __always_inline struct handoff *hand(void)
{
	__u32 z = 0;

	return bpf_map_lookup_elem(&handoff, &z);
}

/* This CPU's handover, marked: one of our classic programs runs here. */
static __always_inline struct handoff *hand_busy(void)
{
	struct handoff *h = hand();

	if (h)
		h->busy = 1;
	return h;
}

/* The classic side of a hit: its key, or none (filtered), for the raw side. */
static __always_inline void hand_over(struct handoff *h, int side, const struct xp_lat_key *key)
{
	__u32 n;

	if (!h || h->raw_busy || !lat_raw_on[side & 1])
		return;
	n = h->n;
	if (n >= XP_LAT_HANDOFF) {
		h->n = n + 1;	/* counted, so the pops stay balanced */
		return;
	}
	h->e[n].side = side;
	h->e[n].valid = key != NULL;
	if (key)
		__builtin_memcpy(&h->e[n].key, key, sizeof(*key));
	h->n = n + 1;
}

static __always_inline bool mappable(__u8 src)
{
	return src == XP_LAT_SRC_NUM || src == XP_LAT_SRC_STRLOC || src == XP_LAT_SRC_RELLOC ||
	       src == XP_LAT_SRC_CHARS;
}

static __always_inline __u64 size_mask(__u16 size)
{
	return size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
}

/* Key field i from argument value a, as make_key would have it from the record. */
static __always_inline void field_from_arg(const volatile struct xp_lat_side_cfg *c, int i, __u64 a,
					   __u8 *out)
{
	__u8 src = c->f[i].src;
	__u16 size = c->f[i].size;

	if (src == XP_LAT_SRC_NUM) {
		__u64 v = a & size_mask(size);

		if (c->f[i].is_signed && size < 8 && (v >> (size * 8 - 1)) & 1)
			v |= ~size_mask(size);
		*(__u64 *)out = v;
	} else if (src == XP_LAT_SRC_CHARS) {
		__u32 n = size < XP_LAT_SLOT - 1 ? size : XP_LAT_SLOT - 1;

		bpf_probe_read_kernel_str(out, n + 1, (void *)a);
	} else {
		bpf_probe_read_kernel_str(out, XP_LAT_SLOT, (void *)a);
	}
}

static __always_inline bool slot_eq(const __u8 *a, const __u8 *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;

	return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3];
}

static __always_inline __u64 arg_at(void *ctx, __u32 j)
{
	__u64 a = 0;

	/* by helper: a load from ctx would ask the event for 6 arguments at attach */
	bpf_probe_read_kernel(&a, sizeof(a), ctx + j * 8);
	return a;
}

/* Counts, per argument, whether it gives each key field of one hit the classic side made. */
static __always_inline void learn(void *ctx, int side, const struct xp_lat_key *key)
{
	const volatile struct xp_lat_side_cfg *c = side ? &to_cfg : &from_cfg;
	__u32 nargs = nargs_of(side);

	for (int i = 0; i < XP_LAT_MAX_KEYS; i++) {
		if (!mappable(c->f[i].src))
			continue;
		for (__u32 j = 0; j < 6 && j < nargs; j++) {
			__u8 v[XP_LAT_SLOT] = {};

			field_from_arg(c, i, arg_at(ctx, j), v);
			if (slot_eq(v, key->k[i]))
				__sync_fetch_and_add(&lat_agree[side & 1][i][j], 1);
		}
	}
	__sync_fetch_and_add(&lat_learned[side & 1], 1);
}

/* Hits that must have taught before a key is made from arguments (twice
 * as many where the number of arguments is not known). */
#define XP_LAT_LEARN_MIN 4

/*
 * The key of a skipped hit from its arguments; false while not learned.
 * Each field takes the first argument that agreed with at least 15 of every
 * 16 hits: arguments come first, in order.
 */
static __always_inline bool key_from_args(void *ctx, int side, struct xp_lat_key *key, __u64 pid_tgid)
{
	const volatile struct xp_lat_side_cfg *c = side ? &to_cfg : &from_cfg;
	__u64 n = lat_learned[side & 1];

	if (n < (event_nargs[side & 1] ? XP_LAT_LEARN_MIN : 2 * XP_LAT_LEARN_MIN))
		return false;
	for (int i = 0; i < XP_LAT_MAX_KEYS; i++) {
		__u8 src = c->f[i].src;
		__u32 j = 6;

		if (src == XP_LAT_SRC_TID) {
			*(__u64 *)key->k[i] = (__u32)pid_tgid;
			continue;
		}
		if (src == XP_LAT_SRC_PID) {
			*(__u64 *)key->k[i] = pid_tgid >> 32;
			continue;
		}
		if (!mappable(src))
			continue;
		for (__u32 a = 0; a < 6; a++) {
			if (lat_agree[side & 1][i][a] * 16 >= n * 15) {
				j = a;
				break;
			}
		}
		if (j >= 6)
			return false;
		field_from_arg(c, i, arg_at(ctx, j), key->k[i]);
	}
	return true;
}

#endif
