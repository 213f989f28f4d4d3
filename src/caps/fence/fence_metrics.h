/*
 * `fence`'s metrics for `xputrace serve`: fences created and waits, per
 * cgroup of the task that made or waited for them, and the time fences took
 * to signal, per driver and timeline. No libbpf.
 */
#ifndef XP_CAPS_FENCE_METRICS_H
#define XP_CAPS_FENCE_METRICS_H

#include "caps/fence/fence_stats.h"
#include "core/cgroups.h"
#include "sinks/metrics.h"

struct xp_fence_metrics {
	struct xp_metrics_in in;
	struct xp_fence_state s;	/* its own pairing of the events */
	int created, waits, wait_secs, signal_secs;	/* the families */
};

/* Declares the families into in->m and starts the pairing. 0 or -errno. */
int xp_fence_metrics_init(struct xp_fence_metrics *s, const struct xp_metrics_in *in);
void xp_fence_metrics_free(struct xp_fence_metrics *s);
/* One dma_fence record. 0, 1 when it cannot be decoded, or -ENOMEM. */
int xp_fence_metrics_feed(struct xp_fence_metrics *s, const struct xp_rawtp_layout *l,
			  const struct xp_rawtp_rec *r);

#endif
