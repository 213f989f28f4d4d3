/* `fence`'s metrics for `xputrace serve`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "caps/fence/fence_metrics.h"

/* Buckets of waits and of fences' times to signal, in ns: from 10 us by fours to about 2.6 s. */
static const uint64_t le[] = {
	10000, 40000, 160000, 640000, 2560000, 10240000, 40960000, 163840000, 655360000, 2621440000,
};
#define NLE ((int)(sizeof(le) / sizeof(le[0])))

static const struct xp_metric_def families[] = {
	{ offsetof(struct xp_fence_metrics, created), "xputrace_fences_created",
	  "dma_fences created, by the cgroup of the task that made them (a submitting ioctl, or "
	  "a driver's worker), driver and timeline",
	  NULL, XP_METRIC_COUNTER, NULL, 0 },
	{ offsetof(struct xp_fence_metrics, waits), "xputrace_fence_waits",
	  "Waits for a dma_fence that ended, by the cgroup of the waiting task, driver and "
	  "timeline",
	  NULL, XP_METRIC_COUNTER, NULL, 0 },
	{ offsetof(struct xp_fence_metrics, wait_secs), "xputrace_fence_wait_seconds",
	  "Time tasks waited for a dma_fence (wait_start -> wait_end), by cgroup, driver and "
	  "timeline",
	  "seconds", XP_METRIC_HISTOGRAM, le, NLE },
	{ offsetof(struct xp_fence_metrics, signal_secs), "xputrace_fence_signal_seconds",
	  "dma_fences' time from creation (or emit, where the driver emits) to signaled: how "
	  "long the device took, by driver and timeline",
	  "seconds", XP_METRIC_HISTOGRAM, le, NLE },
};

int xp_fence_metrics_init(struct xp_fence_metrics *s, const struct xp_metrics_in *in)
{
	int err;

	s->in = *in;
	if ((err = xp_fence_init(&s->s)))
		return err;
	return xp_metrics_declare(in->m, families, XP_METRIC_NDEFS(families), s);
}

void xp_fence_metrics_free(struct xp_fence_metrics *s)
{
	xp_fence_free(&s->s);
}

int xp_fence_metrics_feed(struct xp_fence_metrics *s, const struct xp_rawtp_layout *l,
			  const struct xp_rawtp_rec *r)
{
	struct xp_metrics *m = s->in.m;
	struct xp_fence_done d;
	struct xp_series *x, *y;

	if (xp_fence_add(&s->s, l, r, &d))
		return 1;
	/*
	 * Only what series are made of is kept here: the state's per-process
	 * and per-thread tables (its reports') start over before they fill,
	 * fences in flight and waits in progress carry over.
	 */
	if (s->s.nprocs >= XP_FENCE_MAX_PROCS - 1 || s->s.nthreads >= XP_FENCE_MAX_THREADS - 1)
		xp_fence_reset(&s->s);
	if (r->ev != XP_FENCE_INIT && !(r->ev == XP_FENCE_WAIT_END && d.paired) &&
	    !(r->ev == XP_FENCE_SIGNALED && d.paired))
		return 0;

	const struct xp_fence_tl *tl = d.tl >= 0 ? &s->s.tl[d.tl] : NULL;
	/* the timeline's key: its slot (timelines are never forgotten) */
	uint64_t tk = (uint64_t)(d.tl + 1);

	if (r->ev == XP_FENCE_SIGNALED) {
		struct xp_rec_labels c = { .in = &s->in, .name = { "driver", "timeline" },
					   .value = { tl ? tl->driver : "", tl ? tl->name : "" } };
		struct xp_metric_key k = { { tk, 0, 0, 0 } };

		if (!(x = xp_metrics_series(m, s->signal_secs, &k, xp_rec_labels, &c)))
			return -ENOMEM;
		xp_series_observe(m, x, r->hdr.ts_ns > d.start ? r->hdr.ts_ns - d.start : 0);
		return 0;
	}
	/* init and the waits fire in the task: its cgroup as the kernel side saw it */
	uint64_t cg = xp_metrics_pid_cgroup(&s->in, r->hdr.pid, xp_rawtp_cgroup(r));
	uint64_t pid = s->in.per_process ? r->hdr.pid : 0;
	struct xp_rec_labels c = { .in = &s->in, .task = true, .cgroup_id = cg, .pid = r->hdr.pid,
				   .comm = r->comm, .name = { "driver", "timeline" },
				   .value = { tl ? tl->driver : "", tl ? tl->name : "" } };
	struct xp_metric_key k = { { cg, pid, tk, 0 } };

	if (r->ev == XP_FENCE_INIT) {
		if (!(x = xp_metrics_series(m, s->created, &k, xp_rec_labels, &c)))
			return -ENOMEM;
		x->value++;
		return 0;
	}
	if (!(x = xp_metrics_series(m, s->waits, &k, xp_rec_labels, &c)) ||
	    !(y = xp_metrics_series(m, s->wait_secs, &k, xp_rec_labels, &c)))
		return -ENOMEM;
	x->value++;
	xp_series_observe(m, y, r->hdr.ts_ns > d.start ? r->hdr.ts_ns - d.start : 0);
	return 0;
}
