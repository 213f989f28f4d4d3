/* The sched capability's kernel side (sched.bpf.c beside it), for its row. */
#ifndef XP_CAPS_SCHED_LIVE_H
#define XP_CAPS_SCHED_LIVE_H

#include <stddef.h>
#include "core/filters.h"
#include "core/rawtp_layout.h"
#include "live/kernel_side.h"

/* The sched capability's kernel side (gpu_scheduler events, both generations). */
int xp_sched_live_open(struct xp_kside **out, struct xp_rawtp_layout *l,
		       const struct xp_filters *f, const struct xp_live_share *share, char *why,
		       size_t whylen);

#endif
