/*
 * fdinfo's metrics for `xputrace serve`: each DRM client's engine busy time
 * into xputrace_gpu_busy_seconds with source="fdinfo" (beside drm_sched's
 * source="drm_sched" series of the same family), and GPU memory per region
 * and kind as gauges, per cgroup (and process).
 */
#ifndef XP_CAPS_FDINFO_METRICS_H
#define XP_CAPS_FDINFO_METRICS_H

#include "caps/fdinfo/fdinfo_scan.h"
#include "sinks/metrics.h"

struct xp_fdinfo_metrics {
	struct xp_metrics_in in;
	struct xp_fdinfo_state *s;
	int busy, mem;		/* the families */
};

/* Declares the families into in->m; the processes read are those of `f`. 0 or -errno. */
int xp_fdinfo_metrics_init(struct xp_fdinfo_metrics *x, const struct xp_metrics_in *in,
			   const struct xp_filters *f);
/* One sample into the metrics (skipped where the last one's cost puts it later: xp_fdinfo_tick). 0 or -errno. */
int xp_fdinfo_metrics_sample(struct xp_fdinfo_metrics *x, uint64_t (*clock_ns)(void));
/* What one sample counted, from the accounting (tests call it on a state they fed). 0 or -ENOMEM. */
int xp_fdinfo_metrics_put(struct xp_fdinfo_metrics *x);
void xp_fdinfo_metrics_free(struct xp_fdinfo_metrics *x);

#endif
