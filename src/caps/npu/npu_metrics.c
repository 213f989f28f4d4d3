/* `npu`'s metrics for `xputrace serve`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "caps/npu/npu_metrics.h"
#include "caps/npu/npu_stats.h"

/* Buckets of a job's submit -> done, in ns: from 10 us by fours to about 2.6 s. */
static const uint64_t le[] = {
	10000, 40000, 160000, 640000, 2560000, 10240000, 40960000, 163840000, 655360000, 2621440000,
};
#define NLE ((int)(sizeof(le) / sizeof(le[0])))

static const struct xp_metric_def families[] = {
	{ offsetof(struct xp_npu_metrics, jobs), "xputrace_npu_jobs",
	  "NPU jobs submitted (intel_vpu's vpu:job), by the cgroup of the task that submitted "
	  "them, driver and engine",
	  NULL, XP_METRIC_COUNTER, NULL, 0 },
	{ offsetof(struct xp_npu_metrics, secs), "xputrace_npu_job_seconds",
	  "NPU jobs' time from submit to done, by the submitter's cgroup, driver and engine",
	  "seconds", XP_METRIC_HISTOGRAM, le, NLE },
};

int xp_npu_metrics_init(struct xp_npu_metrics *s, const struct xp_metrics_in *in)
{
	s->in = *in;
	return xp_metrics_declare(in->m, families, XP_METRIC_NDEFS(families), s);
}

struct label_ctx {
	const struct xp_npu_metrics *s;
	uint64_t cg;
	uint32_t pid, engine;
	const char *comm;
};

static void labels(void *p, char *buf, size_t len)
{
	const struct label_ctx *c = p;
	char e[16];

	xp_metrics_task_labels(&c->s->in, c->cg, c->pid, c->comm, buf, len);
	xp_labels_add(buf, len, "driver", "intel_vpu");
	snprintf(e, sizeof(e), "%u", c->engine);
	xp_labels_add(buf, len, "engine", e);
}

/* The open job's slot of (ctx, engine, job): its own, else a free one (make), else NULL. */
static struct xp_npu_mjob *slot(struct xp_npu_metrics *s, uint32_t ctx, uint32_t engine, uint32_t job,
				bool make)
{
	uint32_t h = (ctx * 2654435761u) ^ (engine * 40503u) ^ (job * 2246822519u);
	struct xp_npu_mjob *free_slot = NULL;

	for (int i = 0; i < 16; i++) {
		struct xp_npu_mjob *j = &s->open[(h + (uint32_t)i) % XP_NPU_METRICS_OPEN];

		if (j->used && j->ctx == ctx && j->engine == engine && j->job == job)
			return j;
		if (!j->used && !free_slot)
			free_slot = j;
	}
	if (!make)
		return NULL;
	/* sixteen jobs in a row never done: the first of them gives way */
	return free_slot ? free_slot : &s->open[h % XP_NPU_METRICS_OPEN];
}

int xp_npu_metrics_feed(struct xp_npu_metrics *s, const struct xp_rec_hdr *h)
{
	const struct xp_npu_rec *r = (const void *)h;
	struct xp_metrics *m = s->in.m;
	struct xp_npu_mjob *j;
	struct xp_series *x;
	char name[XP_NPU_NAME];
	int ev;

	if (h->size < XP_NPU_REC_V1_SIZE)
		return 1;
	if (r->kind != XP_NPU_JOB)
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)sizeof(r->name), r->name);
	ev = xp_npu_job_event(name);
	if (ev == XP_NPU_JOB_SUBMIT) {
		/* submitted in the task's ioctl: its cgroup, as the kernel side read it */
		uint64_t cg = xp_metrics_pid_cgroup(&s->in, h->pid, h->size >= sizeof(*r) ? r->cgroup : 0);
		struct label_ctx c = { s, cg, h->pid, r->b, r->comm };
		struct xp_metric_key k = { { cg, s->in.per_process ? h->pid : 0, r->b, 0 } };

		if (!(x = xp_metrics_series(m, s->jobs, &k, labels, &c)))
			return -ENOMEM;
		x->value++;
		j = slot(s, r->a, r->b, r->c, true);
		*j = (struct xp_npu_mjob){ .ctx = r->a, .engine = r->b, .job = r->c, .pid = h->pid,
					   .ts = h->ts_ns, .cg = cg, .used = true };
		memcpy(j->comm, r->comm, sizeof(j->comm));
		return 0;
	}
	if (ev != XP_NPU_JOB_DONE || !(j = slot(s, r->a, r->b, r->c, false)))
		return 0;	/* done in an interrupt's thread: its submit names the task */
	struct label_ctx c = { s, j->cg, j->pid, j->engine, j->comm };
	struct xp_metric_key k = { { j->cg, s->in.per_process ? j->pid : 0, j->engine, 0 } };

	j->used = false;
	if (!(x = xp_metrics_series(m, s->secs, &k, labels, &c)))
		return -ENOMEM;
	xp_series_observe(m, x, h->ts_ns > j->ts ? h->ts_ns - j->ts : 0);
	return 0;
}
