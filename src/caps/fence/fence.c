/* The fence capability: the kernel's dma_fence events, per driver and timeline, and who waited. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/cap.h"
#include "caps/fence/fence_metrics.h"
#include "caps/fence/fence_report.h"
#include "caps/fence/fence_stats.h"
#include "core/flight_trigger.h"
#include "live/kernel_side.h"
#include "sinks/perfetto.h"

static bool fc_available(const struct xp_doctor_env *d, char *why, size_t len)
{
	return xp_cap_tp_group_available(d, "dma_fence", "no dma_fence events: this kernel was built without them",
					 why, len);
}

static int fc_open(struct xp_cap_inst *ci, const struct xp_open_args *a, char *why, size_t len)
{
	return xp_tp_open(&ci->k, ci->layout, ci->cap->rec->type, a->f, a->share, why, len);
}

static void fc_no_events(const struct xp_cap_inst *ci, char *msg, size_t len)
{
	(void)ci;
	snprintf(msg, len, "this kernel has no dma_fence events; see 'xputrace doctor'");
}

static void fc_describe(const struct xp_cap_inst *ci, char *buf, size_t len)
{
	snprintf(buf, len, "dma_fence events (%d of %d)", ci->layout->npresent, ci->layout->n);
}

/* The analysis, in `size` bytes that begin with its state. */
static int fc_make(struct xp_cap_inst *ci, size_t size)
{
	struct xp_fence_state *s = calloc(1, size);	/* large */
	int err;

	if (!s)
		return -ENOMEM;
	if ((err = xp_fence_init(s))) {
		free(s);
		return err;
	}
	ci->st = s;
	return 0;
}

static int fc_init(struct xp_cap_inst *ci)
{
	return fc_make(ci, sizeof(struct xp_fence_state));
}

/* record --trigger fence:over=T[:COMM]: the analysis, and the wait the last record ended */
struct fc_trig {
	struct xp_fence_state s;	/* first: fc_free frees it all */
	bool waited;
	uint64_t wait_ns;
	char comm[XP_COMM_LEN];
};

static int fc_trigger_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	const struct xp_rawtp_rec *rec = (const struct xp_rawtp_rec *)h;
	struct xp_fence_done d;
	struct fc_trig *t;
	int err;

	if (!ci->st && (err = fc_make(ci, sizeof(struct fc_trig))))
		return err;
	t = ci->st;
	t->waited = false;
	if (h->size < sizeof(*rec) || xp_fence_add(&t->s, ci->layout, rec, &d))
		return 0;
	if (rec->ev == XP_FENCE_WAIT_END && d.paired && h->ts_ns >= d.start) {
		t->waited = true;
		t->wait_ns = h->ts_ns - d.start;
		memcpy(t->comm, rec->comm, sizeof(t->comm));
	}
	return 0;
}

static bool fc_trigger(const struct xp_cap_inst *ci, const struct xp_trigger *tr, const struct xp_rec_hdr *h,
			uint64_t *when)
{
	const struct fc_trig *t = ci->st;

	(void)h;
	(void)when;
	return t && t->waited && tr->kind == XP_TRIG_OVER && t->wait_ns > tr->over_ns &&
	       (!tr->name[0] || !strncmp(t->comm, tr->name, sizeof(t->comm)));
}

static void fc_free(struct xp_cap_inst *ci)
{
	xp_fence_free(ci->st);
	free(ci->st);
}

static int fc_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	const struct xp_rawtp_rec *rec = (const struct xp_rawtp_rec *)h;
	const struct xp_cap_env *e = ci->env;
	struct xp_fence_done d;

	/* a record it cannot decode is counted, not fatal */
	if (h->size < sizeof(*rec) || xp_fence_add(ci->st, ci->layout, rec, &d)) {
		ci->undecodable++;
		return 0;
	}
	if (e->out == XP_OUT_PERFETTO)
		xp_perfetto_fence(e->pf, ci->st, rec, &d);
	else if (e->out == XP_OUT_STREAM && e->json)
		xp_fence_stream_json(e->stream_json, ci->st, ci->layout, rec, &d, e->t0);
	else if (e->out == XP_OUT_STREAM)
		xp_fence_stream_text(e->f, ci->st, ci->layout, rec, &d, e->t0);
	return 0;
}

static void fc_report(struct xp_cap_inst *ci, FILE *f, const struct xp_cap_report *r)
{
	const struct xp_filters *fl = &ci->env->filt;
	struct xp_tp_report rep = {
		.st = ci->st, .layout = ci->layout, .ri = r->ri, .hist = r->hist, .final = r->final,
		.filtered = fl->pid || fl->comm || fl->cgroup_id, .undecodable = ci->undecodable,
	};

	(r->json ? xp_fence_report_json : xp_fence_report_text)(f, &rep);
}

static void fc_reset(struct xp_cap_inst *ci, uint64_t now)
{
	(void)now;
	xp_fence_reset(ci->st);
}

static int fc_metrics_init(struct xp_cap_inst *ci, const struct xp_metrics_in *mi)
{
	return xp_fence_metrics_init(ci->mst, mi);
}

static int fc_metrics_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	return h->size < sizeof(struct xp_rawtp_rec) ? 1 :
	       xp_fence_metrics_feed(ci->mst, ci->layout, (const struct xp_rawtp_rec *)h);
}

static void fc_metrics_free(struct xp_cap_inst *ci)
{
	xp_fence_metrics_free(ci->mst);
}

const struct xp_cap xp_cap_fence = {
	.name = "fence",
	.summary = "dma_fence lifetimes per timeline, and who waited on them",
	.about =
"The kernel's dma_fence events (dma_fence_init, _emit, _enable_signal,\n"
"_signaled, _wait_start, _wait_end, _destroy), whatever driver makes the\n"
"fences (drm_sched jobs, i915 requests, vgem, ...); the layouts are read from\n"
"the running kernel at start-up.\n"
"  per driver and timeline: fences created and signaled, the time from\n"
"          creation (init, or emit where the driver emits) to signaled: how\n"
"          long the device took; fences created while tracing and never\n"
"          signaled; signals of fences created before tracing, counted apart;\n"
"  waits:  wait_start -> wait_end in one thread, the time that thread lost\n"
"          waiting for the device, per process and thread.\n"
"Fences' creation and waits count per process (they run in the task that\n"
"makes or waits for the fence: an ioctl, a scheduler worker); signals mostly\n"
"come from interrupts and count per timeline only. The process filters apply\n"
"to creation and waits. With -i, fences in flight and waits in progress carry\n"
"over.\n",
	.examples =
"  xputrace fence -d 10               10 s of fences per timeline and waits\n"
"  xputrace fence --stream -c glxgears  one application's fences as they happen\n"
"  xputrace fence -i 1 -j             a JSON summary per second\n",
	.flags = XP_CAP_SAYS_UNDECODABLE,
	.rec = &xp_fence_rec_kind, .events = xp_fence_events, .nev = XP_FENCE_NEV,
	.available = fc_available, .open = fc_open, .no_events = fc_no_events, .describe = fc_describe,
	.init = fc_init, .free = fc_free, .feed = fc_feed, .stream_header = xp_fence_stream_header,
	.report = fc_report, .reset = fc_reset, .file_hook = "tracepoint",
	.triggers = "over", .trigger_feed = fc_trigger_feed, .trigger_match = fc_trigger,
	.metrics_size = sizeof(struct xp_fence_metrics),
	.metrics_init = fc_metrics_init, .metrics_feed = fc_metrics_feed, .metrics_free = fc_metrics_free,
};
