/*
 * `cuda`'s metrics for `xputrace serve`: each process's GPU busy time per
 * device, the union of its kernels' intervals as the capability computes
 * it (cuda_stats.h), into xputrace_gpu_busy_seconds with source="cupti",
 * beside drm_sched's and fdinfo's series of that family; kernels, copied
 * bytes per direction and the records CUPTI dropped; per cgroup (and
 * process) and device.
 *
 * A daemon's state stays bounded: a process's intervals are let go once it
 * has exited and sent nothing for XP_CUDA_METRICS_IDLE_NS, and past
 * XP_CUDA_METRICS_PROCS the longest idle one is let go. Its series keep
 * what they counted; the counters never go back.
 */
#ifndef XP_CAPS_CUDA_METRICS_H
#define XP_CAPS_CUDA_METRICS_H

#include <stdbool.h>
#include "caps/cuda/cuda_stats.h"
#include "sinks/metrics.h"

#define XP_CUDA_METRICS_PROCS 4096		/* processes and devices kept */
#define XP_CUDA_METRICS_IDLE_NS 10000000000ull	/* an exited one's records may still come this long */

struct xp_cuda_mproc {
	struct xp_cuda_prow p;	/* pid, device, cgroup, comm, the busy union */
	uint64_t counted;	/* p.busy already in its series */
	uint64_t seen_ns;	/* its latest record's end */
};

struct xp_cuda_metrics {
	struct xp_metrics_in in;
	struct xp_cuda_mproc *procs;
	int nprocs, last;	/* last: the one the latest record was of (records come in runs) */
	uint64_t latest_ns, swept_ns;	/* the latest record's end; the last sweep */
	uint64_t let_go;		/* processes whose state was let go */
	bool (*alive)(uint32_t pid);	/* whether a process still runs (tests replace it) */
	int busy, kernels, bytes, dropped;	/* the families */
};

/* Declares the families into in->m. 0 or -errno. */
int xp_cuda_metrics_init(struct xp_cuda_metrics *x, const struct xp_metrics_in *in);
void xp_cuda_metrics_free(struct xp_cuda_metrics *x);
/* One record counted: 0, 1 when it is not one of cuda's, or -ENOMEM. */
int xp_cuda_metrics_feed(struct xp_cuda_metrics *x, const struct xp_cuda_rec *r);

#endif
