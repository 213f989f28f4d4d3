/*
 * `mem`'s metrics for `xputrace serve`: GPU buffer objects created and their
 * bytes, per cgroup of the process that created them and driver (amdgpu,
 * i915, xe: the events fire in its ioctl), and bytes the drivers moved
 * between placements, per driver (moves run wherever eviction or the
 * allocation that forced them runs). No libbpf.
 */
#ifndef XP_CAPS_MEM_METRICS_H
#define XP_CAPS_MEM_METRICS_H

#include "caps/mem/mem_stats.h"
#include "core/cgroups.h"
#include "sinks/metrics.h"

struct xp_mem_metrics {
	struct xp_metrics_in in;
	struct xp_mem_state s;		/* its own decoding of the events */
	int bos, bytes, moved;		/* the families */
};

/* Declares the families into in->m; page_size: amdgpu's BO pages (0: 4096). 0 or -errno. */
int xp_mem_metrics_init(struct xp_mem_metrics *s, const struct xp_metrics_in *in, uint32_t page_size);
void xp_mem_metrics_free(struct xp_mem_metrics *s);
/* One amdgpu/i915/xe record. 0, 1 when it cannot be decoded, or -ENOMEM. */
int xp_mem_metrics_feed(struct xp_mem_metrics *s, const struct xp_rawtp_layout *l,
			const struct xp_rawtp_rec *r);

#endif
