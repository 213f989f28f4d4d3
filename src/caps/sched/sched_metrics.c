/* `sched`'s metrics for `xputrace serve`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/sched/sched_metrics.h"
#include "core/cgroups.h"

/* Buckets of queue delays and run times, in ns: from 10 us by fours to about 2.6 s. */
static const uint64_t le[] = {
	10000, 40000, 160000, 640000, 2560000, 10240000, 40960000, 163840000, 655360000, 2621440000,
};
#define NLE ((int)(sizeof(le) / sizeof(le[0])))

uint64_t xp_sched_busy_share(uint64_t run, uint64_t done, uint64_t *last_end)
{
	uint64_t from = run > *last_end ? run : *last_end;

	if (done > *last_end)
		*last_end = done;
	return done > from ? done - from : 0;
}

struct label_ctx {
	const struct xp_sched_metrics *s;
	const struct xp_sched_job_info *j;
	uint64_t cg;
	bool cgroup;	/* the series is per cgroup */
	bool busy;	/* of the GPU busy family, which says its source */
};

static void labels(void *p, char *buf, size_t len)
{
	const struct label_ctx *c = p;

	if (c->cgroup)
		xp_metrics_task_labels(&c->s->in, c->cg, c->j->pid, c->j->comm, buf, len);
	xp_labels_add(buf, len, "ring", c->j->ring ? c->j->ring : "");
	if (c->busy)
		xp_labels_add(buf, len, "source", "drm_sched");
}

static uint64_t *last_end_of(struct xp_sched_metrics *s, const char *ring)
{
	for (int i = 0; i < s->nlast; i++)
		if (s->last[i].ring == ring || !strcmp(s->last[i].ring, ring))
			return &s->last[i].end;
	if (s->nlast == XP_SCHED_MAX_RINGS)
		return NULL;
	s->last[s->nlast].ring = ring;
	s->last[s->nlast].end = 0;
	return &s->last[s->nlast++].end;
}

/* A hash of a ring's name: its series' key (names are few and stable). */
static uint64_t ring_key(const char *ring)
{
	uint64_t h = 1469598103934665603ull;

	for (const char *p = ring; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

static void on_job(void *ctx, const struct xp_sched_job_info *j)
{
	struct xp_sched_metrics *s = ctx;
	struct xp_metrics *m = s->in.m;
	const char *ring = j->ring ? j->ring : "";
	uint64_t rk = ring_key(ring), cg = xp_metrics_pid_cgroup(&s->in, j->pid, 0), *last;
	uint64_t pid = s->in.per_process ? j->pid : 0;
	struct xp_metric_key kc = { { cg, pid, rk, 0 } }, kr = { { rk, 0, 0, 0 } };
	struct label_ctx lc = { s, j, cg, true, false }, lr = { s, j, 0, false, false };
	struct label_ctx lb = { s, j, cg, true, true };
	struct xp_series *jobs = xp_metrics_series(m, s->jobs, &kc, labels, &lc), *x;

	if (!jobs) {
		s->err = -ENOMEM;
		return;
	}
	jobs->value++;
	if (j->has_queue && j->has_run && j->run_ts >= j->q_ts) {
		if (!(x = xp_metrics_series(m, s->queue, &kr, labels, &lr)))
			goto oom;
		xp_series_observe(m, x, j->run_ts - j->q_ts);
	}
	/*
	 * A job whose done event was lost (the kernel skipped it; a later job's
	 * done implies it) has no time of its own: its time on the ring goes to
	 * the job after it, which may be another cgroup's. Counted, so the
	 * shares can be read with that in mind.
	 */
	if (j->inferred) {
		if (!(x = xp_metrics_series(m, s->unseen, &kr, labels, &lr)))
			goto oom;
		x->value++;
	}
	if (!j->has_run || j->inferred || !(last = last_end_of(s, ring)))
		return;
	if (!(x = xp_metrics_series(m, s->run, &kr, labels, &lr)))
		goto oom;
	xp_series_observe(m, x, j->done_ts > j->run_ts ? j->done_ts - j->run_ts : 0);
	{
		uint64_t held = xp_sched_busy_share(j->run_ts, j->done_ts, last);
		struct xp_series *b = xp_metrics_series(m, s->busy, &kc, labels, &lb);
		struct xp_series *rb = xp_metrics_series(m, s->ring_busy, &kr, labels, &lr);

		if (!b || !rb)
			goto oom;
		b->value += held;
		rb->value += held;
	}
	return;
oom:
	s->err = -ENOMEM;
}

int xp_sched_metrics_init(struct xp_sched_metrics *s, const struct xp_metrics_in *in)
{
	struct xp_metrics *m = in->m;
	int err;

	s->in = *in;
	if ((err = xp_sched_init(&s->s, 0, 0)))
		return err;
	s->s.on_job = on_job;
	s->s.cb_ctx = s;
	s->jobs = xp_metrics_family(m, "xputrace_gpu_jobs", "GPU jobs of the DRM scheduler completed, "
				    "by the cgroup of the process that queued them, and ring", NULL,
				    XP_METRIC_COUNTER, 1, true);
	s->busy = xp_metrics_family(m, "xputrace_gpu_busy_seconds", XP_GPU_BUSY_HELP,
				    "seconds", XP_METRIC_COUNTER, 1e-9, true);
	s->ring_busy = xp_metrics_family(m, "xputrace_gpu_ring_busy_seconds", "Time a ring was busy "
					 "with jobs (overlapping jobs counted once)", "seconds",
					 XP_METRIC_COUNTER, 1e-9, true);
	s->queue = xp_metrics_histogram(m, "xputrace_gpu_job_queue_seconds", "GPU jobs' time from "
					"queued to handed to the ring (run), per ring", "seconds", le, NLE,
					1e-9, true);
	s->run = xp_metrics_histogram(m, "xputrace_gpu_job_run_seconds", "GPU jobs' time from run to "
				      "done, per ring", "seconds", le, NLE, 1e-9, true);
	s->unseen = xp_metrics_family(m, "xputrace_gpu_jobs_done_unseen", "GPU jobs whose done event "
				      "was lost (a later job's implied it): their time on the ring is not "
				      "known, and the job after them may count some of it", NULL,
				      XP_METRIC_COUNTER, 1, true);
	return s->jobs < 0 || s->busy < 0 || s->ring_busy < 0 || s->queue < 0 || s->run < 0 || s->unseen < 0 ?
		       -ENOMEM : 0;
}

void xp_sched_metrics_free(struct xp_sched_metrics *s)
{
	xp_sched_free(&s->s);
}

int xp_sched_metrics_feed(struct xp_sched_metrics *s, const struct xp_rawtp_layout *l,
			  const struct xp_rawtp_rec *r)
{
	int err;

	/*
	 * The submitter's cgroup, at its queue event: as the kernel side saw it
	 * there, else read now from /proc. Read at the done, a process that
	 * ended meanwhile would have none.
	 */
	if (r->hdr.pid && r->ev < l->n && l->ev[r->ev].proc_ctx)
		xp_metrics_pid_cgroup(&s->in, r->hdr.pid, xp_rawtp_cgroup(r));
	err = xp_sched_feed(&s->s, l, r);

	if (s->err)
		return s->err;
	return err == -ENOENT || err == -EBADMSG ? 1 : err;	/* 1: undecodable */
}
