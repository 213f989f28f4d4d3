/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The vblank capability's two records of its own, besides the drm vblank
 * tracepoints it copies raw (src/caps/vblank/vblank.bpf.c). Both are written into a
 * struct xp_rawtp_rec (ev = their index in the capability's event table,
 * raw = one of these structs) and decoded by field name through a layout that
 * user space describes in tracefs' format syntax (xp_vbl_submit_format,
 * src/caps/vblank/vblank_stats.c), stored in trace files like a tracepoint's.
 *
 *  - submit: an event a DRM file asked for, from a probe on
 *    drm_event_reserve_init() (every vblank, page-flip, atomic and CRTC
 *    sequence event is reserved there, in the asking thread, inside its
 *    ioctl): the file, the device, the event type and the CRTC object it is
 *    for, and when the ioctl began.
 *  - crtc: a vblank being handled, from a probe on drm_handle_vblank(): the
 *    device and pipe of the drm_vblank_event that follows on the same CPU
 *    (the tracepoint names only the pipe).
 *  - pipe: which pipe a CRTC object id is (struct xp_vbl_pipe_raw).
 * Fixed-width types only: shared by kernel and user side.
 */
#ifndef XP_CAPS_VBLANK_H
#define XP_CAPS_VBLANK_H

#include <linux/types.h>

/* struct drm_event's type (include/uapi/drm/drm.h) */
#define XP_DRM_EVENT_VBLANK 0x01
#define XP_DRM_EVENT_FLIP_COMPLETE 0x02
#define XP_DRM_EVENT_CRTC_SEQUENCE 0x03

struct xp_vbl_submit_raw {
	__u64 file;		/* struct drm_file * */
	__u64 submit_ns;	/* the ioctl's entry (CLOCK_MONOTONIC); 0: not seen */
	__u32 type;		/* XP_DRM_EVENT_* */
	__u32 crtc_id;		/* the CRTC's object id (vblank and flip events), else 0 */
	__s32 minor;		/* the device's primary minor (cardN); -1: unknown */
	__u32 ioctl_nr;		/* the DRM ioctl it came from (0xb0 PAGE_FLIP, 0xbc ATOMIC, ...) */
	__u64 user_data;	/* the client's cookie (vblank and flip events) */
};

struct xp_vbl_crtc_raw {
	__s32 minor;		/* the device's primary minor; -1: unknown */
	__u32 pipe;		/* the CRTC index, as drm_vblank_event names it */
};

/* A CRTC's object id and pipe, from a probe on drm_crtc_arm_vblank_event()
 * (the CRTC a frame's event is armed on): now and then per CRTC. */
struct xp_vbl_pipe_raw {
	__s32 minor;		/* the device's primary minor; -1: unknown */
	__u32 crtc_id;		/* its object id, as the submit record names it */
	__u32 pipe;		/* its index, as the vblank events name it */
	__u32 pad;
};

/*
 * The drm group's three events as raw tracepoints (no BTF needed): the
 * program sees the tracepoint's C arguments, not the formatted record, and
 * writes each one where the format file puts the field of the same position
 * (their TP_STRUCT__entry fields are their TP_PROTO arguments, in order), so
 * user space decodes the same record the classic copy would have made. A raw
 * tracepoint only guards against itself: a classic tracepoint program in the
 * vblank interrupt is skipped whenever it lands in another BPF program (the
 * probes in the asking thread among them).
 */
#define XP_VBL_RAW_ARGS 4
struct xp_vbl_raw_cfg {
	__u16 raw_size;			/* raw_len, as the classic copy would set it */
	__u8 filter;			/* process context: apply the filters */
	__u8 nargs;
	__s16 off[XP_VBL_RAW_ARGS];	/* where argument i goes in raw; -1: nowhere */
	__u8 size[XP_VBL_RAW_ARGS];	/* its size there: 1, 2, 4 or 8 */
};

#endif
