/*
 * `npu`'s metrics for `xputrace serve`: intel_vpu's jobs from its vpu:job
 * tracepoint, per cgroup of the task that submitted them and engine, and
 * their time from submit to done. (amdxdna's jobs run on the DRM scheduler:
 * `sched`'s metrics count them.) No libbpf.
 */
#ifndef XP_CAPS_NPU_METRICS_H
#define XP_CAPS_NPU_METRICS_H

#include "caps/npu/npu.h"
#include "core/cgroups.h"
#include "sinks/metrics.h"

/* A job submitted and not yet done: who submitted it, for its time's series. */
#define XP_NPU_METRICS_OPEN 1024
struct xp_npu_mjob {
	uint32_t ctx, engine, job;
	uint32_t pid;
	uint64_t ts, cg;
	char comm[XP_COMM_LEN];
	bool used;
};

struct xp_npu_metrics {
	struct xp_metrics_in in;
	struct xp_npu_mjob open[XP_NPU_METRICS_OPEN];	/* by (ctx, engine, job) */
	int jobs, secs;			/* the families */
};

/* Declares the families into in->m. 0 or -ENOMEM. */
int xp_npu_metrics_init(struct xp_npu_metrics *s, const struct xp_metrics_in *in);
/* One npu record (vpu:job counts; other kinds pass). 0, 1 when it cannot be decoded, or -ENOMEM. */
int xp_npu_metrics_feed(struct xp_npu_metrics *s, const struct xp_rec_hdr *h);

#endif
