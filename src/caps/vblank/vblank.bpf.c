// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The vblank capability's kernel side. The drm vblank tracepoints are copied
 * raw as by the generic family (slots 0..2 = enum xp_vbl_tp; 3 and 4 are its
 * own records below and never attached as tracepoints). Where kprobes
 * exist, three probes tell who asked for each event and which device a
 * vblank is on (src/caps/vblank/vblank.h):
 *  - drm_ioctl(filp, cmd, arg): the ioctl's number and entry time, kept per
 *    thread for the reservation that follows inside it;
 *  - drm_event_reserve_init(dev, file_priv, p, e) and its _locked variant:
 *    every event a file asks for (page flip and atomic commit through the
 *    first, wait-vblank and CRTC sequence through the second, which the
 *    first calls) is reserved there in the asking thread: one submit record;
 *  - drm_handle_vblank(dev, pipe): the device of the drm_vblank_event that
 *    follows on this CPU: one crtc record;
 *  - drm_crtc_arm_vblank_event(crtc, e) and drm_crtc_send_vblank_event(crtc,
 *    e): which pipe the CRTC object a frame asked for is, once a second per
 *    CRTC: one pipe record.
 */
#include "bpf/rawtp.bpf.h"
#include "caps/vblank/vblank.h"

/* what the probes read, from the drm module's BTF (see kernel_types.h) */
#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)
struct drm_minor {
	int index;
};

struct drm_device {
	struct drm_minor *primary;
};

struct drm_mode_object {
	__u32 id;
};

struct drm_crtc {
	struct drm_device *dev;
	struct drm_mode_object base;
	unsigned int index;
};

struct drm_event {
	__u32 type;
	__u32 length;
};

struct drm_event_vblank {
	struct drm_event base;
	__u64 user_data;
	__u32 tv_sec;
	__u32 tv_usec;
	__u32 sequence;
	__u32 crtc_id;
};
#pragma clang attribute pop

XP_RAWTP_PROG(vbl, XP_REC_VBLANK, 0)	/* drm_vblank_event */
XP_RAWTP_PROG(vbl, XP_REC_VBLANK, 1)	/* drm_vblank_event_queued */
XP_RAWTP_PROG(vbl, XP_REC_VBLANK, 2)	/* drm_vblank_event_delivered */
XP_RAWTP_PROG(vbl, XP_REC_VBLANK, 3)	/* slot of the submit record: never attached */
XP_RAWTP_PROG(vbl, XP_REC_VBLANK, 4)	/* slot of the crtc record: never attached */
XP_RAWTP_PROG(vbl, XP_REC_VBLANK, 5)	/* slot of the pipe record: never attached */

/*
 * The same three events as raw tracepoints, where they attach: user space
 * fills xp_vbl_raw[] from the format files (src/caps/vblank/vblank.h) and attaches
 * these instead of the classic slots, which the vblank interrupt skips
 * whenever it lands in another BPF program.
 */
const volatile struct xp_vbl_raw_cfg xp_vbl_raw[3] = {};

static __always_inline void put_arg(struct xp_rawtp_rec *r, __s16 off, __u8 size, __u64 v)
{
	if (off < 0 || off > XP_RAWTP_RAW - 8)
		return;
	switch (size) {
	case 1: { __u8 x = (__u8)v; __builtin_memcpy(&r->raw[off], &x, 1); break; }
	case 2: { __u16 x = (__u16)v; __builtin_memcpy(&r->raw[off], &x, 2); break; }
	case 4: { __u32 x = (__u32)v; __builtin_memcpy(&r->raw[off], &x, 4); break; }
	case 8: __builtin_memcpy(&r->raw[off], &v, 8); break;
	}
}

static __always_inline int emit_raw(struct bpf_raw_tracepoint_args *ctx, __u32 ev)
{
	__u64 ts = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	const volatile struct xp_vbl_raw_cfg *c;
	struct xp_rawtp_rec *r;
	__u32 n;

	if (ev >= 3)
		return 0;
	c = &xp_vbl_raw[ev];
	r = xp_rawtp_reserve(XP_REC_VBLANK, ev, c->filter, ts, id);
	if (!r)
		return 0;
	n = c->raw_size;
	r->raw_len = (__u16)(n > XP_RAWTP_RAW ? XP_RAWTP_RAW : n);
	put_arg(r, c->off[0], c->size[0], ctx->args[0]);
	put_arg(r, c->off[1], c->size[1], ctx->args[1]);
	put_arg(r, c->off[2], c->size[2], ctx->args[2]);
	put_arg(r, c->off[3], c->size[3], ctx->args[3]);
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	xp_submit(r);
	return 0;
}

SEC("raw_tp")
int xp_vbl_raw_0(struct bpf_raw_tracepoint_args *ctx) { return emit_raw(ctx, 0); }
SEC("raw_tp")
int xp_vbl_raw_1(struct bpf_raw_tracepoint_args *ctx) { return emit_raw(ctx, 1); }
SEC("raw_tp")
int xp_vbl_raw_2(struct bpf_raw_tracepoint_args *ctx) { return emit_raw(ctx, 2); }

/* the table indices of the two records (enum xp_vbl_tp) */
#define EV_SUBMIT 3
#define EV_CRTC 4
#define EV_PIPE 5

/* CRTC -> when its pipe record was last written */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 256);
	__type(key, __u64);
	__type(value, __u64);
} pipe_seen SEC(".maps");

struct ioctl_entry {
	__u64 ts;
	__u32 nr;
	__u32 pad;
};

/* thread -> the DRM ioctl it is in (entries are overwritten, never removed) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct ioctl_entry);
} in_ioctl SEC(".maps");

/* thread -> the last event it reserved: the _locked call inside the other is the same event */
struct last_event {
	__u64 p, ts;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct last_event);
} reserved SEC(".maps");

static __always_inline int minor_of(struct drm_device *dev)
{
	struct drm_minor *m = BPF_CORE_READ(dev, primary);

	return m ? BPF_CORE_READ(m, index) : -1;
}

static __always_inline struct xp_rawtp_rec *rec(__u32 ev, __u16 len)
{
	struct xp_rawtp_rec *r = xp_reserve(sizeof(*r));

	if (!r)
		return 0;
	__builtin_memset(r, 0, sizeof(*r));
	xp_fill_hdr(&r->hdr, XP_REC_VBLANK, sizeof(*r), bpf_ktime_get_ns(), bpf_get_current_pid_tgid());
	r->ev = (__u16)ev;
	r->raw_len = len;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	return r;
}

SEC("kprobe")
int xp_vbl_ioctl(struct pt_regs *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ioctl_entry e = { .ts = bpf_ktime_get_ns(), .nr = (__u32)ctx->si & 0xff };

	bpf_map_update_elem(&in_ioctl, &tid, &e, BPF_ANY);
	return 0;
}

static __always_inline int on_reserve(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 tid = (__u32)id;
	struct drm_device *dev = (void *)ctx->di;
	struct drm_event *e = (void *)ctx->cx;
	struct last_event le = { .p = ctx->dx, .ts = now }, *prev;
	struct xp_vbl_submit_raw s = {};
	struct ioctl_entry *in;
	struct xp_rawtp_rec *r;

	if (xp_filtered(id >> 32))
		return 0;
	/* drm_event_reserve_init_locked called by drm_event_reserve_init: seen already */
	prev = bpf_map_lookup_elem(&reserved, &tid);
	if (prev && prev->p == le.p && now - prev->ts < 200000)
		return 0;
	bpf_map_update_elem(&reserved, &tid, &le, BPF_ANY);
	s.file = ctx->si;
	s.type = BPF_CORE_READ(e, type);
	if (s.type == XP_DRM_EVENT_VBLANK || s.type == XP_DRM_EVENT_FLIP_COMPLETE) {
		struct drm_event_vblank *v = (void *)e;

		s.crtc_id = BPF_CORE_READ(v, crtc_id);
		s.user_data = BPF_CORE_READ(v, user_data);
	}
	s.minor = minor_of(dev);
	in = bpf_map_lookup_elem(&in_ioctl, &tid);
	if (in) {
		s.submit_ns = in->ts;
		s.ioctl_nr = in->nr;
	}
	r = rec(EV_SUBMIT, sizeof(s));
	if (!r)
		return 0;
	__builtin_memcpy(r->raw, &s, sizeof(s));
	xp_submit(r);
	return 0;
}

SEC("kprobe")
int xp_vbl_reserve(struct pt_regs *ctx)
{
	return on_reserve(ctx);
}

SEC("kprobe")
int xp_vbl_reserve_locked(struct pt_regs *ctx)
{
	return on_reserve(ctx);
}

SEC("kprobe")
int xp_vbl_handle(struct pt_regs *ctx)
{
	struct xp_vbl_crtc_raw c = { .minor = minor_of((void *)ctx->di), .pipe = (__u32)ctx->si };
	struct xp_rawtp_rec *r = rec(EV_CRTC, sizeof(c));

	if (!r)
		return 0;
	__builtin_memcpy(r->raw, &c, sizeof(c));
	xp_submit(r);
	return 0;
}

/* The CRTC an event is armed on (or sent on at once): its object id and pipe. */
SEC("kprobe")
int xp_vbl_pipe(struct pt_regs *ctx)
{
	struct drm_crtc *crtc = (void *)ctx->di;
	__u64 key = ctx->di, now = bpf_ktime_get_ns(), *last = bpf_map_lookup_elem(&pipe_seen, &key);
	struct xp_vbl_pipe_raw p = {};
	struct xp_rawtp_rec *r;

	if (last && now - *last < 1000000000ULL)
		return 0;
	bpf_map_update_elem(&pipe_seen, &key, &now, BPF_ANY);
	p.minor = minor_of(BPF_CORE_READ(crtc, dev));
	p.crtc_id = BPF_CORE_READ(crtc, base.id);
	p.pipe = BPF_CORE_READ(crtc, index);
	r = rec(EV_PIPE, sizeof(p));
	if (!r)
		return 0;
	__builtin_memcpy(r->raw, &p, sizeof(p));
	xp_submit(r);
	return 0;
}
