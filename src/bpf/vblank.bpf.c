// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DRM vblank events (group "drm"), copied raw: no field offsets here, user
 * space decodes with the layouts of the running kernel's format files.
 * Program index = enum xp_vbl_tp (src/core/vblank_stats.h).
 * No process filters: the vblank and delivery events fire in interrupts.
 */
#include "bpf/rawtp.bpf.h"

XP_RAWTP_PROG(vblank, XP_REC_VBLANK, 0)	/* drm_vblank_event */
XP_RAWTP_PROG(vblank, XP_REC_VBLANK, 1)	/* drm_vblank_event_queued */
XP_RAWTP_PROG(vblank, XP_REC_VBLANK, 2)	/* drm_vblank_event_delivered */
