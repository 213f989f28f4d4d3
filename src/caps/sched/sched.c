/* The sched capability: DRM GPU scheduler jobs from queue to done, per ring and process. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/cap.h"
#include "core/flight_trigger.h"
#include "core/msg.h"
#include "core/parse.h"
#include "caps/sched/sched_stats.h"
#include "live/features.h"
#include "caps/sched/sched_live.h"
#include "live/kernel_side.h"
#include "sinks/perfetto.h"
#include "caps/sched/sched_report.h"
#include "caps/sched/sched_metrics.h"

struct sched_opts {
	const char *ring;
	uint64_t max_jobs;
};

static const struct xp_cap_opt opts[] = {
	{ "ring", 'r', "NAME", "only this ring (scheduler), e.g. gfx_0.0.0", false, NULL },
	{ "max-jobs", 0, "N", "jobs tracked at once (default 16384); older ones are\ncounted as incomplete", false, NULL },
	{ NULL },
};

static void sc_opts_init(void *p)
{
	struct sched_opts *o = p;

	o->max_jobs = 16384;
}

static int sc_opt(void *p, int i, const char *arg)
{
	struct sched_opts *o = p;
	uint64_t v;

	if (i == 0) {
		if (!*arg || strlen(arg) >= XP_SCHED_STR)
			return xp_fail(2, "sched: --ring wants a ring name of 1 to %d characters", XP_SCHED_STR - 1);
		o->ring = arg;
		return 0;
	}
	if (xp_parse_u64(arg, 16, 1u << 24, &v))
		return xp_fail(2, "sched: --max-jobs wants a number from 16 to 16777216, not '%s'", arg);
	o->max_jobs = v;
	return 0;
}

static bool sc_available(const struct xp_doctor_env *d, char *why, size_t len)
{
	return xp_cap_tp_group_available(d, "gpu_scheduler",
					 "no gpu_scheduler events: no driver using the DRM GPU scheduler is loaded",
					 why, len);
}

static int sc_open_k(struct xp_cap_inst *ci, const struct xp_open_args *a, char *why, size_t len)
{
	return xp_sched_live_open(&ci->k, ci->layout, a->f, a->share, why, len);
}

static void sc_no_events(const struct xp_cap_inst *ci, char *msg, size_t len)
{
	(void)ci;
	snprintf(msg, len, "this kernel has no gpu_scheduler events (no driver using the DRM GPU "
			   "scheduler is loaded); see 'xputrace doctor'");
}

static void sc_describe(const struct xp_cap_inst *ci, char *buf, size_t len)
{
	int nev, gen = xp_sched_layout_gen(ci->layout, &nev);

	snprintf(buf, len, "GPU scheduler jobs (%d %s, %s)", nev,
		 gen == 2 ? "6.17+ events" : "6.16- events", ci->k->hook);
}

static void sc_on_job(void *ctx, const struct xp_sched_job_info *j)
{
	struct xp_cap_inst *ci = ctx;
	const struct xp_cap_env *e = ci->env;

	if (e->out == XP_OUT_PERFETTO) {
		xp_perfetto_sched_job(e->pf, j);
		return;
	}
	(void)(e->json ? xp_sched_stream_json(e->stream_json, j, e->t0) : xp_sched_stream_text(e->f, j, e->t0));
}

/* The analysis in s (allocated by the caller, freed here on failure). */
static int sc_setup(struct xp_cap_inst *ci, struct xp_sched_state *s)
{
	const struct sched_opts *o = ci->opts;
	int err;

	/* live: the jobs tracked at once; a file: the default */
	if ((err = xp_sched_init(s, ci->env->live ? (uint32_t)o->max_jobs : 0, 0))) {
		free(s);
		return err;
	}
	s->filt.pid = ci->env->filt.pid;
	s->filt.comm = ci->env->filt.comm;
	s->filt.cgroup = ci->env->filt.cgroup_id != 0;
	s->filt.ring = o->ring;
	s->last_expire = ci->env->t0;
	ci->st = s;
	return 0;
}

static int sc_init(struct xp_cap_inst *ci)
{
	struct xp_sched_state *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	if ((err = sc_setup(ci, s)))
		return err;
	if (ci->env->out != XP_OUT_SUMMARY) {
		s->on_job = sc_on_job;
		s->cb_ctx = ci;
	}
	return 0;
}

/* record --trigger sched:queue=T, sched:run=T: the analysis, and the job the last record completed */
struct sc_trig {
	struct xp_sched_state s;	/* first: sc_free_st frees it all */
	bool done;
	bool has_queue, has_run;
	uint64_t q_ts, run_ts, done_ts;
	char ring[XP_SCHED_STR];
};

static void sc_trig_job(void *ctx, const struct xp_sched_job_info *j)
{
	struct sc_trig *t = ctx;

	t->done = true;
	t->has_queue = j->has_queue;
	t->has_run = j->has_run;
	t->q_ts = j->q_ts;
	t->run_ts = j->run_ts;
	t->done_ts = j->done_ts;
	snprintf(t->ring, sizeof(t->ring), "%s", j->ring ? j->ring : "");
}

static int sc_trigger_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	struct sc_trig *t = ci->st;
	int err;

	if (!t) {
		if (!(t = calloc(1, sizeof(*t))))
			return -ENOMEM;
		if ((err = sc_setup(ci, &t->s)))
			return err;
		t->s.on_job = sc_trig_job;
		t->s.cb_ctx = t;
	}
	t->done = false;
	err = xp_sched_feed(&t->s, ci->layout, (const struct xp_rawtp_rec *)h);
	return err == -ENOENT || err == -EBADMSG ? 0 : err;
}

static bool sc_trigger(const struct xp_cap_inst *ci, const struct xp_trigger *tr, const struct xp_rec_hdr *h,
			uint64_t *when)
{
	const struct sc_trig *t = ci->st;
	uint64_t d;

	(void)h;
	(void)when;
	if (!t || !t->done)
		return false;
	if (tr->kind == XP_TRIG_QUEUE && t->has_queue && t->has_run)
		d = t->run_ts > t->q_ts ? t->run_ts - t->q_ts : 0;
	else if (tr->kind == XP_TRIG_RUN && t->has_run)
		d = t->done_ts > t->run_ts ? t->done_ts - t->run_ts : 0;
	else
		return false;
	return d > tr->over_ns && (!tr->name[0] || !strcmp(t->ring, tr->name));
}

static void sc_free_st(struct xp_cap_inst *ci)
{
	xp_sched_free(ci->st);
	free(ci->st);
}

static int sc_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	int err = xp_sched_feed(ci->st, ci->layout, (const struct xp_rawtp_rec *)h);

	if (err == -ENOENT || err == -EBADMSG) {
		ci->undecodable++;
		err = 0;
	}
	return err;
}

static void sc_report(struct xp_cap_inst *ci, FILE *f, const struct xp_cap_report *r)
{
	struct xp_sched_report rep = {
		.st = ci->st, .layout = ci->layout, .ri = r->ri, .hist = r->hist, .now = r->now,
	};

	if (r->final)
		xp_sched_finish(ci->st, r->now);	/* what is still open never completed here */
	(r->json ? xp_sched_report_json : xp_sched_report_text)(f, &rep);
}

static void sc_reset(struct xp_cap_inst *ci, uint64_t now)
{
	xp_sched_reset(ci->st, now);
}

static int sc_metrics_init(struct xp_cap_inst *ci, const struct xp_metrics_in *mi)
{
	return xp_sched_metrics_init(ci->mst, mi);
}

static int sc_metrics_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	return xp_sched_metrics_feed(ci->mst, ci->layout, (const struct xp_rawtp_rec *)h);
}

static void sc_metrics_free(struct xp_cap_inst *ci)
{
	xp_sched_metrics_free(ci->mst);
}

const struct xp_cap xp_cap_sched = {
	.name = "sched",
	.summary = "DRM GPU scheduler jobs: queue delay, run time, per ring and process",
	.about =
"Traces the jobs of the DRM GPU scheduler (amdgpu, xe, nouveau, v3d, etnaviv,\n"
"panfrost, lima, amdxdna, ...) from its gpu_scheduler tracepoints, either\n"
"generation (up to 6.16: drm_sched_job, drm_run_job, drm_sched_process_job,\n"
"drm_sched_job_wait_dep; from 6.17: drm_sched_job_queue/_run/_done/_add_dep/\n"
"_unschedulable), found at start-up. Per ring and per submitting process\n"
"(and DRM client on 6.17+): jobs, queue depth, jobs in flight, busy share,\n"
"queue delay (queue -> run) and execution time (run -> done) with p50/p90/p99\n"
"and log2 histograms, dependencies and dependency waits, unschedulable events,\n"
"and jobs never seen to complete (incomplete).\n"
"Process filters apply to the submitter, after joining each job's events:\n"
"run and done fire in the scheduler's worker or an interrupt, not in it\n"
"(--cgroup keeps the queue events of that cgroup's tasks in the kernel).\n",
	.examples =
"  xputrace sched -d 10                   every job for 10 s\n"
"  xputrace sched --stream -c vkcube      one application's jobs as they finish\n"
"  xputrace sched -i 1 -r gfx_0.0.0 -j    one ring, a JSON summary per second\n",
	.rec = &xp_sched_rec_kind, .events = xp_sched_events, .nev = XP_TP_SCHED_MAX,
	.opts = opts, .opts_size = sizeof(struct sched_opts), .opts_init = sc_opts_init, .opt = sc_opt,
	.available = sc_available, .open = sc_open_k, .no_events = sc_no_events, .describe = sc_describe,
	.init = sc_init, .free = sc_free_st, .feed = sc_feed, .stream_header = xp_sched_stream_header,
	.report = sc_report, .reset = sc_reset, .file_hook = "tracepoint",
	.triggers = "queue run", .trigger_feed = sc_trigger_feed, .trigger_match = sc_trigger,
	.metrics_size = sizeof(struct xp_sched_metrics),
	.metrics_init = sc_metrics_init, .metrics_feed = sc_metrics_feed, .metrics_free = sc_metrics_free,
};
