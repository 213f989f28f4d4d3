/* `vblank`'s metrics for `xputrace serve`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "caps/vblank/vblank_metrics.h"

/* Buckets of a frame's time from its submit to the vblank it completed on, in ns: 1 ms to 4 frames at 60 Hz. */
static const uint64_t le[] = {
	1000000, 2000000, 4000000, 8333333, 16666667, 33333333, 50000000, 66666667,
};
#define NLE ((int)(sizeof(le) / sizeof(le[0])))

struct label_ctx {
	const struct xp_vblank_metrics *s;
	uint32_t pid;
	const char *comm;
	uint64_t cg;
	int32_t dev, crtc;
	unsigned int kind;
	bool task;	/* a frame's series: per cgroup (and process) and kind */
};

static void labels(void *p, char *buf, size_t len)
{
	const struct label_ctx *c = p;
	char v[32];

	if (c->task)
		xp_metrics_task_labels(&c->s->in, c->cg, c->pid, c->comm, buf, len);
	if (c->dev >= 0)
		snprintf(v, sizeof(v), "card%d", c->dev);
	else
		snprintf(v, sizeof(v), "unknown");
	xp_labels_add(buf, len, "device", v);
	if (c->task) {
		xp_labels_add(buf, len, "kind", xp_vbl_kind_name(c->kind, v, sizeof(v)));
	} else {
		snprintf(v, sizeof(v), "%d", c->crtc);
		xp_labels_add(buf, len, "crtc", v);
	}
}

/* A frame settled (paired with its completion): counted for the process that asked for it. */
static void on_frame(void *ctx, const struct xp_vbl_delivery *d)
{
	struct xp_vblank_metrics *s = ctx;
	struct xp_metrics *m = s->in.m;
	uint64_t cg, pid;
	struct xp_series *x;

	if (d->before || !d->pid)	/* asked before tracing, or by no process seen */
		return;
	cg = xp_metrics_pid_cgroup(&s->in, d->pid, 0);
	pid = s->in.per_process ? d->pid : 0;

	struct label_ctx c = { s, d->pid, d->comm, cg, d->dev, d->crtc, d->kind, true };
	struct xp_metric_key k = { { cg, pid, (uint64_t)(uint32_t)d->dev << 32 | d->kind, 0 } };

	if (!(x = xp_metrics_series(m, s->frames, &k, labels, &c)))
		goto oom;
	x->value++;
	if (d->has_target && d->missed_target) {
		if (!(x = xp_metrics_series(m, s->missed, &k, labels, &c)))
			goto oom;
		x->value++;
	}
	if (d->has_lateness && d->vblank_ns >= d->submit_ns) {
		if (!(x = xp_metrics_series(m, s->scanout, &k, labels, &c)))
			goto oom;
		xp_series_observe(m, x, d->vblank_ns - d->submit_ns);
	}
	return;
oom:
	s->err = -ENOMEM;
}

static const struct xp_metric_def families[] = {
	{ offsetof(struct xp_vblank_metrics, frames), "xputrace_frames",
	  "Frames completed (page flips, atomic commits, CRTC sequences), by the cgroup of the "
	  "process that asked for them, device and kind",
	  NULL, XP_METRIC_COUNTER, NULL, 0 },
	{ offsetof(struct xp_vblank_metrics, missed), "xputrace_frames_missed",
	  "Frames that completed on a later vblank than the first one after they were asked for",
	  NULL, XP_METRIC_COUNTER, NULL, 0 },
	{ offsetof(struct xp_vblank_metrics, scanout), "xputrace_frame_scanout_seconds",
	  "Frames' time from their submit to the vblank they completed on",
	  "seconds", XP_METRIC_HISTOGRAM, le, NLE },
	{ offsetof(struct xp_vblank_metrics, vblanks), "xputrace_vblanks",
	  "Vblanks the kernel handled, by device and CRTC (pipe)",
	  NULL, XP_METRIC_COUNTER, NULL, 0 },
};

int xp_vblank_metrics_init(struct xp_vblank_metrics *s, const struct xp_metrics_in *in)
{
	s->in = *in;
	xp_vbl_init(&s->s, 0);
	s->s.on_frame = on_frame;
	s->s.cb_ctx = s;
	return xp_metrics_declare(in->m, families, XP_METRIC_NDEFS(families), s);
}

int xp_vblank_metrics_feed(struct xp_vblank_metrics *s, const struct xp_rawtp_layout *l,
			   const struct xp_rawtp_rec *r)
{
	struct xp_vbl_event ev;

	if (xp_vbl_decode(l, r, &ev))
		return 1;
	if (ev.kind == XP_VBL_EVENT) {
		int32_t dev = xp_vbl_dev_of(&s->s, &ev);
		struct label_ctx c = { s, 0, "", 0, dev, ev.crtc, 0, false };
		struct xp_metric_key k = { { (uint64_t)(uint32_t)dev, (uint64_t)(uint32_t)ev.crtc, 0, 0 } };
		struct xp_series *x = xp_metrics_series(s->in.m, s->vblanks, &k, labels, &c);

		if (!x)
			return -ENOMEM;
		x->value++;
	}
	xp_vbl_add(&s->s, &ev);
	return s->err;
}
