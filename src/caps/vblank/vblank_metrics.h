/*
 * `vblank`'s metrics for `xputrace serve`: frames (page flips, atomic
 * commits, CRTC sequences) completed and those that missed their target
 * vblank, per cgroup of the process that asked for them, and vblanks per
 * CRTC. No libbpf.
 */
#ifndef XP_CAPS_VBLANK_METRICS_H
#define XP_CAPS_VBLANK_METRICS_H

#include "caps/vblank/vblank_stats.h"
#include "core/cgroups.h"
#include "sinks/metrics.h"

struct xp_vblank_metrics {
	struct xp_metrics_in in;
	struct xp_vbl_state s;		/* its own pairing of frames and vblanks */
	int frames, missed, scanout, vblanks;	/* the families */
	int err;			/* the first -ENOMEM of the frame callback */
};

/* Declares the families into in->m and starts the pairing. 0 or -errno. */
int xp_vblank_metrics_init(struct xp_vblank_metrics *s, const struct xp_metrics_in *in);
/* One vblank record. 0, 1 when it cannot be decoded, or -ENOMEM. */
int xp_vblank_metrics_feed(struct xp_vblank_metrics *s, const struct xp_rawtp_layout *l,
			   const struct xp_rawtp_rec *r);

#endif
