// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The vblank capability's kernel side. The drm vblank tracepoints are copied
 * raw as by the generic family (slots 0..2 = enum xp_vbl_tp; 3 and 4 are its
 * own records below and never attached as tracepoints). Where kprobes
 * exist, three probes tell who asked for each event and which device a
 * vblank is on (src/shared/vblank.h):
 *  - drm_ioctl(filp, cmd, arg): the ioctl's number and entry time, kept per
 *    thread for the reservation that follows inside it;
 *  - drm_event_reserve_init(dev, file_priv, p, e): every event a file asks
 *    for (wait-vblank, page flip, atomic commit, CRTC sequence) is reserved
 *    here in the asking thread: one submit record;
 *  - drm_handle_vblank(dev, pipe): the device of the drm_vblank_event that
 *    follows on this CPU: one crtc record.
 */
#include "bpf/rawtp.bpf.h"
#include "shared/vblank.h"

/* what the probes read, from the drm module's BTF (see kernel_types.h) */
#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)
struct drm_minor {
	int index;
};

struct drm_device {
	struct drm_minor *primary;
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

/* the table indices of the two records (enum xp_vbl_tp) */
#define EV_SUBMIT 3
#define EV_CRTC 4

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

SEC("kprobe")
int xp_vbl_reserve(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct drm_device *dev = (void *)ctx->di;
	struct drm_event *e = (void *)ctx->cx;
	struct xp_vbl_submit_raw s = {};
	struct ioctl_entry *in;
	struct xp_rawtp_rec *r;

	if (xp_filtered(id >> 32))
		return 0;
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
