/*
 * `sched`'s metrics for `xputrace serve`: GPU jobs, the time they held
 * their ring, and their queue delay and run time, per ring and per cgroup
 * of the process that queued them.
 */
#ifndef XP_CAPS_SCHED_METRICS_H
#define XP_CAPS_SCHED_METRICS_H

#include "caps/sched/sched_stats.h"
#include "core/cgroups.h"
#include "sinks/metrics.h"

struct xp_sched_metrics {
	struct xp_metrics_in in;
	struct xp_sched_state s;	/* its own join of the events into jobs */
	int jobs, busy, ring_busy, queue, run, unseen;	/* the families */
	struct { const char *ring; uint64_t end; } last[XP_SCHED_MAX_RINGS];	/* a ring's last done */
	int nlast;
	int err;			/* the first -ENOMEM of a callback */
};

/* Declares the families into in->m and starts the join. 0 or -errno. */
int xp_sched_metrics_init(struct xp_sched_metrics *s, const struct xp_metrics_in *in);
void xp_sched_metrics_free(struct xp_sched_metrics *s);
/* One gpu_scheduler record; a job's metrics are counted when it is done. 0 or -errno. */
int xp_sched_metrics_feed(struct xp_sched_metrics *s, const struct xp_rawtp_layout *l,
			  const struct xp_rawtp_rec *r);
/*
 * The time job `j` held its ring: from its run, or from the ring's previous
 * done if that came later (a ring runs its jobs in order, so a job handed
 * to it early waits there for those before it), to its done; `last_end`
 * the ring's previous done, updated. Exact for rings that finish in order.
 */
uint64_t xp_sched_busy_share(uint64_t run, uint64_t done, uint64_t *last_end);

#endif
