/* The vblank capability's kernel side (src/caps/vblank/vblank.bpf.c). */
#ifndef XP_CAPS_VBLANK_LIVE_H
#define XP_CAPS_VBLANK_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include "live/kernel_side.h"

/*
 * Parses the drm vblank events' layouts into `l`, loads and attaches their
 * programs, and where kprobes on the drm functions load and attach, the
 * probes that say who asked for each event and which device each vblank is
 * on (their layouts are then set in `l` too). -ENOENT: no drm vblank event.
 * Without the probes it still opens: *probes is false and `note` says why.
 */
int xp_vblank_live_open(struct xp_kside **out, struct xp_rawtp_layout *l,
			const struct xp_filters *f, const struct xp_live_share *share, bool *probes,
			char *note, size_t notelen, char *why, size_t whylen);

#endif
