/* The vblank capability: frame timing per CRTC and per client from the drm vblank events. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "caps/cap.h"
#include "core/flight_trigger.h"
#include "core/msg.h"
#include "core/parse.h"
#include "caps/vblank/vblank_stats.h"
#include "live/features.h"
#include "live/kernel_side.h"
#include "caps/vblank/vblank_live.h"
#include "caps/vblank/vblank_metrics.h"
#include "sinks/perfetto.h"
#include "caps/vblank/vblank_report.h"

struct vblank_opts {
	uint64_t late_ns;
};

static const struct xp_cap_opt opts[] = {
	{ "late-ms", 0, "MS", "a delivery later than this is late (default 1)", false, NULL },
	{ NULL },
};

static void vb_opts_init(void *p)
{
	((struct vblank_opts *)p)->late_ns = 1000000;
}

static int vb_opt(void *p, int i, const char *arg)
{
	double ms;

	(void)i;
	/* same grammar as seconds: a positive decimal number */
	if (xp_parse_seconds(arg, &ms) || ms > 10000)
		return xp_fail(2, "vblank: --late-ms wants milliseconds from 0.001 to 10000, not '%s'", arg);
	((struct vblank_opts *)p)->late_ns = (uint64_t)(ms * 1e6 + 0.5);
	return 0;
}

static bool vb_available(const struct xp_doctor_env *d, char *why, size_t len)
{
	bool ok = d->at[XP_AT_TRACEPOINT].ok && d->event_exists("drm", "drm_vblank_event");
	bool kp = d->at[XP_AT_KPROBE].ok;

	if (!ok)
		snprintf(why, len, "no drm vblank events: the drm module is not loaded");
	else
		snprintf(why, len, "drm vblank events present; %s", kp
			 ? "kprobes: page flips and atomic commits attributed per process and device"
			 : "no kprobes: page flips and atomic commits unattributed, CRTCs of all devices added up");
	return ok;
}

/* Whether the probes attached in this run, and why not (one capability instance live). */
static bool vb_probes;
static char vb_probe_note[160];

static int vb_open_k(struct xp_cap_inst *ci, const struct xp_open_args *a, char *why, size_t len)
{
	char cards[128];
	int n, err = xp_vblank_live_open(&ci->k, ci->layout, a->f, a->share, &vb_probes, vb_probe_note,
					 sizeof(vb_probe_note), why, len);

	if (err)
		return err;
	if (!vb_probes)
		fprintf(stderr, "note: %s: page flips, atomic commits and CRTC sequences are attributed "
				"to no process\n", vb_probe_note);
	if (!vb_probes && (n = xp_display_devices("", cards, sizeof(cards))) > 1)
		fprintf(stderr, "note: %d display devices (%s); without kprobes the vblank events name "
				"only the CRTC index, so each CRTC row adds up that index on all of them\n",
			n, cards);
	return 0;
}

static void vb_no_events(const struct xp_cap_inst *ci, char *msg, size_t len)
{
	(void)ci;
	snprintf(msg, len, "this kernel has no drm vblank events (the drm module is not loaded); "
			   "see 'xputrace doctor'");
}

static void vb_describe(const struct xp_cap_inst *ci, char *buf, size_t len)
{
	int n = 0;

	for (int i = 0; i < XP_VBL_NDRM && i < ci->layout->n; i++)
		n += ci->layout->present[i];
	snprintf(buf, len, "vblanks (%d drm events%s)", n,
		 vb_probes ? "; requests and devices from kprobes on drm_event_reserve_init, "
			     "drm_handle_vblank" : "");
}

static void vb_on_delivery(void *ctx, const struct xp_vbl_delivery *d)
{
	const struct xp_cap_env *e = ((struct xp_cap_inst *)ctx)->env;

	(void)(e->json ? xp_vbl_stream_json(e->stream_json, d, e->t0) : xp_vbl_stream_text(e->f, d, e->t0));
}

static void vb_on_frame(void *ctx, const struct xp_vbl_delivery *d)
{
	xp_perfetto_vblank_frame(((struct xp_cap_inst *)ctx)->env->pf, d);
}

static int vb_init(struct xp_cap_inst *ci)
{
	const struct vblank_opts *o = ci->opts;
	struct xp_vbl_state *s = calloc(1, sizeof(*s));	/* large */

	if (!s)
		return -ENOMEM;
	xp_vbl_init(s, o->late_ns);
	s->proc_filter = ci->env->filt.pid || ci->env->filt.comm || ci->env->filt.cgroup_id;
	if (ci->env->out == XP_OUT_STREAM) {
		s->on_delivery = vb_on_delivery;
		s->cb_ctx = ci;
	} else if (ci->env->out == XP_OUT_PERFETTO) {
		s->on_frame = vb_on_frame;
		s->cb_ctx = ci;
	}
	ci->st = s;
	return 0;
}

static void vb_free_st(struct xp_cap_inst *ci)
{
	free(ci->st);
}

static int vb_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	struct xp_vbl_event ev;

	if (xp_vbl_decode(ci->layout, (const struct xp_rawtp_rec *)h, &ev)) {
		ci->undecodable++;
		return 0;
	}
	if (ci->env->out == XP_OUT_PERFETTO) {
		ev.dev = xp_vbl_dev_of(ci->st, &ev);
		xp_perfetto_vblank(ci->env->pf, &ev);
	}
	xp_vbl_add(ci->st, &ev);
	return 0;
}

/* record --trigger vblank:missed[:COMM]: the analysis, and whether the last record settled a missed frame */
struct vb_trig {
	struct xp_vbl_state s;	/* first: vb_free_st frees it all */
	bool missed;
	char comm[XP_COMM_LEN];
};

static void vb_trig_frame(void *ctx, const struct xp_vbl_delivery *d)
{
	struct vb_trig *t = ctx;

	if (d->frame && d->has_target && d->missed_target) {
		t->missed = true;
		memcpy(t->comm, d->comm, sizeof(t->comm));
	}
}

static int vb_trigger_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	const struct vblank_opts *o = ci->opts;
	struct vb_trig *t = ci->st;
	struct xp_vbl_event ev;

	if (!t) {
		if (!(t = calloc(1, sizeof(*t))))	/* large */
			return -ENOMEM;
		xp_vbl_init(&t->s, o->late_ns);
		t->s.proc_filter = ci->env->filt.pid || ci->env->filt.comm || ci->env->filt.cgroup_id;
		t->s.on_frame = vb_trig_frame;
		t->s.cb_ctx = t;
		ci->st = t;
	}
	t->missed = false;
	if (!xp_vbl_decode(ci->layout, (const struct xp_rawtp_rec *)h, &ev))
		xp_vbl_add(&t->s, &ev);
	return 0;
}

static bool vb_trigger(const struct xp_cap_inst *ci, const struct xp_trigger *tr, const struct xp_rec_hdr *h,
			uint64_t *when)
{
	const struct vb_trig *t = ci->st;

	(void)h;
	(void)when;
	return t && t->missed && tr->kind == XP_TRIG_MISSED &&
	       (!tr->name[0] || !strncmp(t->comm, tr->name, sizeof(t->comm)));
}

static void vb_report(struct xp_cap_inst *ci, FILE *f, const struct xp_cap_report *r)
{
	struct xp_tp_report rep = { .st = ci->st, .layout = ci->layout, .ri = r->ri, .hist = r->hist };

	if (r->final)
		xp_vbl_finish(ci->st);
	(r->json ? xp_vbl_report_json : xp_vbl_report_text)(f, &rep);
}

static void vb_reset(struct xp_cap_inst *ci, uint64_t now)
{
	(void)now;
	xp_vbl_reset(ci->st);
}

static int vb_metrics_init(struct xp_cap_inst *ci, const struct xp_metrics_in *mi)
{
	return xp_vblank_metrics_init(ci->mst, mi);
}

static int vb_metrics_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	return h->size < sizeof(struct xp_rawtp_rec) ? 1 :
	       xp_vblank_metrics_feed(ci->mst, ci->layout, (const struct xp_rawtp_rec *)h);
}

const struct xp_cap xp_cap_vblank = {
	.name = "vblank",
	.summary = "frame timing per CRTC: refresh rate, missed vblanks, late events",
	.about =
"Frame timing from the DRM vblank tracepoints (drm_vblank_event, _queued,\n"
"_delivered; their layouts are read from the running kernel at start-up) and,\n"
"where the kernel has kprobes, probes on drm_ioctl, drm_event_reserve_init\n"
"and its _locked variant (every event a DRM file asks for, in the asking\n"
"thread), drm_crtc_arm_vblank_event and drm_crtc_send_vblank_event (which\n"
"pipe a CRTC object is) and drm_handle_vblank (the device of each vblank).\n"
"Per CRTC (a device's pipe): the measured refresh rate, the vblank interval's\n"
"jitter (stddev, p99, max), and missed vblanks (sequence numbers skipped\n"
"between handled vblanks; a silence of 1 s or more is counted as an idle gap:\n"
"the interrupt was off because nobody waited). Per client (DRM file and CRTC,\n"
"named by the process that asked): wait-vblank requests, deliveries, the\n"
"queued -> delivered latency, frames missed (vblanks skipped between two\n"
"requested deliveries), and late deliveries: delivered more than --late-ms\n"
"after the timestamp of the vblank requested, or on a later vblank than\n"
"requested. Frames (page flips, atomic commits with an event, CRTC sequences)\n"
"per process, thread and CRTC: asked, completed, submit -> scanout (the ioctl\n"
"to the vblank the frame went out on), vblank -> delivered, frames that\n"
"missed their target (completed one or more vblanks after the first vblank\n"
"following the submit), the frame interval and the present rate. Without\n"
"kprobes, frames cannot be named (they complete in the vblank interrupt) and\n"
"show as (unknown), and the vblank events carry a CRTC index and no device:\n"
"with several display devices a CRTC row adds up that index on all of them.\n"
"The process filters apply to the requests (made in the process); with one,\n"
"only deliveries to files the chosen processes asked on are counted.\n",
	.examples =
"  xputrace vblank -d 10                 refresh, misses and latency for 10 s\n"
"  xputrace vblank --stream --late-ms 2  every delivery, late ones flagged\n"
"  xputrace vblank -c kwin_wayland -d 5  a compositor's page flips and misses\n"
"  xputrace vblank -i 1 -j               a JSON summary per second\n",
	.rec = &xp_vbl_rec_kind, .events = xp_vbl_events, .nev = XP_VBL_NEV,
	.opts = opts, .opts_size = sizeof(struct vblank_opts), .opts_init = vb_opts_init, .opt = vb_opt,
	.available = vb_available, .open = vb_open_k, .no_events = vb_no_events, .describe = vb_describe,
	.init = vb_init, .free = vb_free_st, .feed = vb_feed, .stream_header = xp_vbl_stream_header,
	.report = vb_report, .reset = vb_reset, .file_hook = "tracepoint",
	.triggers = "missed", .trigger_feed = vb_trigger_feed, .trigger_match = vb_trigger,
	.metrics_size = sizeof(struct xp_vblank_metrics),
	.metrics_init = vb_metrics_init, .metrics_feed = vb_metrics_feed,
};
