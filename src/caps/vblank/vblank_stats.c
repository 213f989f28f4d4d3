#include <errno.h>
#include <string.h>

#include <stdio.h>

#include "caps/vblank/vblank_stats.h"
#include "core/tracefile.h"
#include "caps/vblank/vblank.h"
#include "caps/vblank/vblank_int.h"

void xp_vbl_init(struct xp_vbl_state *s, uint64_t late_ns)
{
	memset(s, 0, sizeof(*s));
	s->late_ns = late_ns ? late_ns : 1000000;
	for (int i = 0; i < XP_VBL_MAX_CPUS; i++)
		s->cpu_pipe[i] = -1;
}

/* A CRTC is a device's pipe: the same index on two devices is two CRTCs. */
struct xp_vbl_crtc *vbl_crtc_of(struct xp_vbl_state *s, int32_t dev, int32_t crtc)
{
	struct xp_vbl_crtc *c;

	for (int i = 0; i < s->ncrtcs; i++)
		if (s->crtcs[i].crtc == crtc && s->crtcs[i].dev == dev)
			return &s->crtcs[i];
	if (s->ncrtcs == XP_VBL_MAX_CRTCS) {
		s->overflow++;
		return NULL;
	}
	c = &s->crtcs[s->ncrtcs++];
	memset(c, 0, sizeof(*c));
	c->dev = dev;
	c->crtc = crtc;
	return c;
}

struct xp_vbl_file *vbl_file_find(struct xp_vbl_state *s, uint64_t file)
{
	for (int i = 0; i < s->nfiles; i++)
		if (s->files[i].file == file)
			return &s->files[i];
	return NULL;
}

/* The device a file's events are on: -1 when it never asked while traced. */
int32_t vbl_file_dev(const struct xp_vbl_state *s, uint64_t file)
{
	for (int i = 0; i < s->nfiles; i++)
		if (s->files[i].file == file)
			return s->files[i].dev;
	return -1;
}

struct xp_vbl_client *vbl_client_of(struct xp_vbl_state *s, uint64_t file, int32_t crtc)
{
	struct xp_vbl_client *c;

	for (int i = 0; i < s->nclients; i++)
		if (s->clients[i].file == file && s->clients[i].crtc == crtc)
			return &s->clients[i];
	if (s->nclients == XP_VBL_MAX_CLIENTS) {
		s->overflow++;
		return NULL;
	}
	c = &s->clients[s->nclients++];
	memset(c, 0, sizeof(*c));
	c->file = file;
	c->crtc = crtc;
	c->dev = vbl_file_dev(s, file);
	/* a file seen asking (on another CRTC, or for a flip) names its process here too */
	for (int i = 0; i < s->nclients - 1; i++)
		if (s->clients[i].file == file && s->clients[i].pid) {
			c->pid = s->clients[i].pid;
			c->tid = s->clients[i].tid;
			memcpy(c->comm, s->clients[i].comm, XP_COMM_LEN);
			break;
		}
	if (!c->pid) {
		const struct xp_vbl_file *f = vbl_file_find(s, file);

		if (f) {
			c->pid = f->pid;
			c->tid = f->tid;
			memcpy(c->comm, f->comm, XP_COMM_LEN);
		}
	}
	return c;
}

/* The timestamp of vblank `seq` on c, from the recent ones: exact, or
 * extrapolated from the nearest earlier one by the measured period. */
bool vbl_vblank_time(const struct xp_vbl_crtc *c, uint32_t seq, uint64_t *t)
{
	uint64_t period = xp_vbl_period_ns(c);
	bool found = false;
	uint32_t best = 0;

	for (unsigned int i = 0; i < c->rcount; i++) {
		unsigned int k = (c->rhead + XP_VBL_RECENT - 1 - i) % XP_VBL_RECENT;
		uint32_t d = seq - c->rseq[k];

		if (d == 0) {
			*t = c->rtime[k];
			return true;
		}
		if ((int32_t)d > 0 && period && (!found || d < best)) {
			best = d;
			*t = c->rtime[k] + (uint64_t)d * period;
			found = true;
		}
	}
	return found;
}

/*
 * The frame's target: the first vblank on c after its submit, by sequence
 * number: the last vblank traced before the submit plus the periods since
 * (so a vblank whose interrupt the kernel skipped still counts, as the
 * sequence numbers do), else the first traced after it. False when the
 * recent vblanks do not reach back to the submit.
 */
static bool target_seq(const struct xp_vbl_crtc *c, uint64_t submit, uint32_t done, uint32_t *seq)
{
	uint64_t period = xp_vbl_period_ns(c), last = 0;
	bool found = false, before = false;
	uint32_t best = 0, lseq = 0;

	for (unsigned int i = 0; i < c->rcount; i++) {
		unsigned int k = (c->rhead + XP_VBL_RECENT - 1 - i) % XP_VBL_RECENT;

		if (c->rtime[k] <= submit) {
			if (!before || c->rtime[k] >= last) {
				last = c->rtime[k];
				lseq = c->rseq[k];
			}
			before = true;
			continue;
		}
		/* at or before the vblank it completed on, the earliest */
		if ((int32_t)(done - c->rseq[k]) >= 0 && (!found || (int32_t)(best - c->rseq[k]) > 0)) {
			best = c->rseq[k];
			found = true;
		}
	}
	if (before && period) {
		best = lseq + (uint32_t)((submit - last) / period) + 1;
		/* asked after a vblank's time and before its late interrupt: went out on it */
		if ((int32_t)(done - best) < 0 && (int32_t)(done - lseq) >= 0)
			best = done;
		found = (int32_t)(done - best) >= 0;
	} else if (!before && c->rcount == XP_VBL_RECENT) {
		/* a full window with nothing before the submit may miss the true target */
		return false;
	}
	if (!found)
		return false;
	*seq = best;
	return true;
}

/* A frame's figures once the time of the vblank it completed on is known. */
static void settle_frame(struct xp_vbl_state *s, struct xp_vbl_crtc *c, struct xp_vbl_client *cl,
			 struct xp_vbl_delivery *d, bool has_time, uint64_t vt)
{
	uint32_t t;

	/* the target needs the vblanks around the submit, not this one's time */
	if (c && target_seq(c, d->submit_ns, d->seq, &t)) {
		d->has_target = true;
		d->missed_target = d->seq - t;
		if (d->missed_target && cl)
			cl->missed_target++;
	} else if (cl) {
		cl->target_unknown++;
	}
	if (!has_time)
		return;
	d->vblank_ns = vt;
	if (!cl)
		return;
	/* 0: asked after its vblank's time, before the interrupt that sent it */
	xp_hist_add(&cl->scanout, vt >= d->submit_ns ? vt - d->submit_ns : 0);
	if (cl->have_last_vt && vt > cl->prev_vt)
		xp_hist_add(&cl->interval, vt - cl->prev_vt);
	cl->have_last_vt = true;
	cl->prev_vt = vt;
	if (!cl->presented++)
		cl->first_vt = vt;
	cl->last_vt = vt;
	(void)s;
}

void vbl_settle(struct xp_vbl_state *s, struct xp_vbl_delivery *d, bool has_time, uint64_t vt)
{
	struct xp_vbl_crtc *c = vbl_crtc_of(s, d->dev, d->crtc);
	struct xp_vbl_client *cl = vbl_client_of(s, d->file, d->crtc);

	d->has_lateness = has_time;
	if (has_time) {
		d->lateness_ns = d->ts > vt ? d->ts - vt : 0;
		if (c)
			xp_hist_add(&c->lateness, d->lateness_ns);
		if (cl)
			xp_hist_add(&cl->lateness, d->lateness_ns);
	} else {
		s->unknown_lateness++;
	}
	d->late = (has_time && d->lateness_ns > s->late_ns) || d->seq != d->req_seq;
	if (d->late) {
		if (c)
			c->late++;
		if (cl)
			cl->late++;
	}
	if (d->frame)
		settle_frame(s, c, cl, d, has_time, vt);
	if (s->on_delivery)
		s->on_delivery(s->cb_ctx, d);
	if (d->frame && s->on_frame)
		s->on_frame(s->cb_ctx, d);
}

/* The device whose CRTC of a vblank's pipe its sequence number follows most closely; -1: none. */
static int32_t dev_by_seq(const struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	int32_t dev = -1;
	uint32_t best = 0;

	for (int i = 0; s->devices && i < s->ncrtcs; i++) {
		const struct xp_vbl_crtc *c = &s->crtcs[i];
		uint32_t d = ev->seq - c->last_seq;

		if (c->crtc != ev->crtc || c->dev < 0 || !c->have_last || (int32_t)d <= 0)
			continue;
		if (dev < 0 || d < best) {
			dev = c->dev;
			best = d;
		}
	}
	return dev;
}

/*
 * The device of a vblank: the crtc record just before it on its CPU. Without
 * one (its probe was skipped: it fires in the interrupt, and a kprobe that
 * lands in another BPF program does not run), the device whose CRTC of that
 * pipe this vblank's sequence number follows most closely.
 */
static int32_t vblank_dev(struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	int32_t dev;

	if (ev->cpu < XP_VBL_MAX_CPUS && s->cpu_pipe[ev->cpu] == ev->crtc) {
		dev = s->cpu_dev[ev->cpu];
		s->cpu_pipe[ev->cpu] = -1;
		return dev;
	}
	if ((dev = dev_by_seq(s, ev)) >= 0)
		s->devices_guessed++;
	return dev;
}

static void on_crtc(struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	s->devices = true;
	if (ev->cpu < XP_VBL_MAX_CPUS) {
		s->cpu_dev[ev->cpu] = ev->dev;
		s->cpu_pipe[ev->cpu] = ev->crtc;
	}
}

static void on_vblank(struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	int32_t dev = vblank_dev(s, ev);
	struct xp_vbl_crtc *c = vbl_crtc_of(s, dev, ev->crtc);

	if (!c)
		return;
	if (!c->vblanks++)
		c->first_seq = ev->seq;
	c->last_seq_seen = ev->seq;
	if (c->have_last) {
		uint32_t dseq = ev->seq - c->last_seq;
		uint64_t dt = ev->vtime - c->last_vtime;

		if ((int32_t)dseq <= 0 || ev->vtime < c->last_vtime) {
			c->backwards++;
		} else if (dt >= XP_VBL_IDLE_NS) {
			c->idle_gaps++;
		} else {
			c->span_ns += dt;
			c->span_seq += dseq;
			c->missed += dseq - 1;
			if (dseq == 1) {
				c->n1++;
				c->sum1 += (double)dt;
				c->sumsq1 += (double)dt * (double)dt;
				xp_hist_add(&c->interval, dt);
			}
		}
	}
	c->have_last = true;
	c->last_seq = ev->seq;
	c->last_vtime = ev->vtime;
	c->rseq[c->rhead] = ev->seq;
	c->rtime[c->rhead] = ev->vtime;
	c->rhead = (c->rhead + 1) % XP_VBL_RECENT;
	if (c->rcount < XP_VBL_RECENT)
		c->rcount++;
	/* deliveries waiting for this vblank's timestamp */
	for (int i = 0; i < s->nparked;) {
		struct xp_vbl_delivery *d = &s->parked[i];

		if (d->crtc == ev->crtc && d->dev == dev && (int32_t)(ev->seq - d->req_seq) >= 0) {
			struct xp_vbl_delivery one = *d;
			uint64_t vt;
			bool ok = vbl_vblank_time(c, one.req_seq, &vt);

			s->parked[i] = s->parked[--s->nparked];
			vbl_settle(s, &one, ok, vt);
			continue;
		}
		i++;
	}
}

static void on_queued(struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	struct xp_vbl_crtc *c = vbl_crtc_of(s, vbl_file_dev(s, ev->file), ev->crtc);
	struct xp_vbl_client *cl = vbl_client_of(s, ev->file, ev->crtc);
	struct xp_vbl_pending *p;

	if (c)
		c->queued++;
	if (cl) {
		cl->queued++;
		cl->kinds |= XP_VBL_K_WAIT;
		cl->pid = ev->pid;
		cl->tid = ev->tid;
		memcpy(cl->comm, ev->comm, XP_COMM_LEN);
	}
	if (s->npending == XP_VBL_MAX_PENDING) {
		/* the oldest request is given up on */
		memmove(&s->pending[0], &s->pending[1], sizeof(s->pending[0]) * (XP_VBL_MAX_PENDING - 1));
		s->npending--;
		s->overflow++;
	}
	p = &s->pending[s->npending++];
	p->file = ev->file;
	p->ts = ev->ts;
	p->crtc = ev->crtc;
	p->seq = ev->seq;
	p->pid = ev->pid;
	memcpy(p->comm, ev->comm, XP_COMM_LEN);
}

int32_t xp_vbl_dev_of(const struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	int32_t dev = -1;

	if (ev->kind == XP_VBL_SUBMIT || ev->kind == XP_VBL_CRTC || ev->kind == XP_VBL_PIPE)
		return ev->dev;
	if (ev->kind != XP_VBL_EVENT)
		dev = vbl_file_dev(s, ev->file);
	if (dev < 0 && ev->kind != XP_VBL_QUEUED && ev->cpu < XP_VBL_MAX_CPUS &&
	    s->cpu_pipe[ev->cpu] == ev->crtc)
		dev = s->cpu_dev[ev->cpu];
	/* a vblank whose crtc record was skipped: as xp_vbl_add guesses it */
	if (dev < 0 && ev->kind == XP_VBL_EVENT)
		dev = dev_by_seq(s, ev);
	return dev;
}

void xp_vbl_add(struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	s->events++;
	if (!s->first_ts || ev->ts < s->first_ts)
		s->first_ts = ev->ts;
	if (ev->ts > s->last_ts)
		s->last_ts = ev->ts;
	switch (ev->kind) {
	case XP_VBL_EVENT: on_vblank(s, ev); break;
	case XP_VBL_QUEUED: on_queued(s, ev); break;
	case XP_VBL_DELIVERED: vbl_on_delivered(s, ev); break;
	case XP_VBL_SUBMIT: vbl_on_submit(s, ev); break;
	case XP_VBL_CRTC: on_crtc(s, ev); break;
	case XP_VBL_PIPE: vbl_on_pipe(s, ev); break;
	default: break;
	}
}

void xp_vbl_finish(struct xp_vbl_state *s)
{
	while (s->nparked) {
		struct xp_vbl_delivery d = s->parked[--s->nparked];
		struct xp_vbl_crtc *c = vbl_crtc_of(s, d.dev, d.crtc);
		uint64_t vt;
		bool ok = c && vbl_vblank_time(c, d.req_seq, &vt);

		vbl_settle(s, &d, ok, ok ? vt : 0);
	}
	/* frames asked and never completed, on their CRTC where it is known */
	for (int i = 0; i < s->nflips;) {
		struct xp_vbl_flip *f = &s->flips[i];
		int32_t pipe = f->crtc_id ? vbl_id_pipe(s, f->dev, f->crtc_id) : -1;
		const struct xp_vbl_crtc *c = NULL;
		struct xp_vbl_client *cl;

		for (int k = 0; pipe >= 0 && k < s->ncrtcs; k++)
			if (s->crtcs[k].dev == f->dev && s->crtcs[k].crtc == pipe)
				c = &s->crtcs[k];
		cl = vbl_client_of(s, f->file, pipe);
		/* asked after the last vblank traced on its CRTC (tracing stopped first): not counted */
		if (c && c->have_last && f->submit_ns > c->last_vtime) {
			if (f->counted && cl && cl->asked)
				cl->asked--;
			s->asked_after_end++;
			memmove(f, f + 1, sizeof(*f) * (size_t)(s->nflips - i - 1));
			s->nflips--;
			continue;
		}
		if (!f->counted && cl) {
			cl->asked++;
			cl->kinds |= f->kind;
			if (!cl->pid)
				vbl_take_asker(cl, f->pid, f->tid, f->comm);
		}
		f->counted = true;
		i++;
	}
}

void xp_vbl_reset(struct xp_vbl_state *s)
{
	for (int i = 0; i < s->ncrtcs; i++) {
		struct xp_vbl_crtc *c = &s->crtcs[i];

		c->vblanks = c->missed = c->idle_gaps = c->backwards = 0;
		c->span_ns = c->span_seq = c->n1 = 0;
		c->sum1 = c->sumsq1 = 0;
		c->queued = c->delivered = c->late = c->late_frames = c->unqueued = c->missed_frames = 0;
		memset(&c->interval, 0, sizeof(c->interval));
		memset(&c->latency, 0, sizeof(c->latency));
		memset(&c->lateness, 0, sizeof(c->lateness));
	}
	for (int i = 0; i < s->nclients; i++) {
		struct xp_vbl_client *c = &s->clients[i];

		c->queued = c->delivered = c->unqueued = c->missed_frames = c->late = c->late_frames = 0;
		c->asked = c->completed = c->missed_target = c->target_unknown = 0;
		c->before = c->unsubmitted = c->unseen = 0;
		c->presented = c->first_vt = c->last_vt = 0;
		memset(&c->scanout, 0, sizeof(c->scanout));
		memset(&c->interval, 0, sizeof(c->interval));
		memset(&c->latency, 0, sizeof(c->latency));
		memset(&c->lateness, 0, sizeof(c->lateness));
		memset(&c->frame, 0, sizeof(c->frame));
	}
	s->events = s->overflow = s->unknown_lateness = s->filtered = 0;
	s->submits = s->unmatched_frames = s->devices_guessed = 0;
	s->before_frames = s->unseen_frames = s->asked_after_end = 0;
	/* frames asked this interval whose CRTC was not known yet are counted in the next */
	s->first_ts = s->last_ts = 0;
}

uint64_t xp_vbl_period_ns(const struct xp_vbl_crtc *c)
{
	return c->span_seq ? (c->span_ns + c->span_seq / 2) / c->span_seq : 0;
}

uint64_t xp_vbl_present_mhz(const struct xp_vbl_client *c)
{
	unsigned __int128 num;
	uint64_t span = c->last_vt - c->first_vt;

	if (c->presented < 2 || !span)
		return 0;
	num = (unsigned __int128)(c->presented - 1) * 1000000000000ULL;
	return (uint64_t)((num + span / 2) / span);
}

uint64_t xp_vbl_refresh_mhz(const struct xp_vbl_crtc *c)
{
	unsigned __int128 num;

	if (!c->span_ns)
		return 0;
	num = (unsigned __int128)c->span_seq * 1000000000000ULL;
	return (uint64_t)((num + c->span_ns / 2) / c->span_ns);
}

/* Newton's square root: the binary links no libm */
static double root(double v)
{
	double x = v;

	if (v <= 0)
		return 0;
	for (int i = 0; i < 200; i++) {
		double nx = 0.5 * (x + v / x);

		if (nx == x)
			break;
		x = nx;
	}
	return x;
}

double xp_vbl_interval_stddev_ns(const struct xp_vbl_crtc *c)
{
	double mean, var;

	if (c->n1 < 2)
		return 0;
	mean = c->sum1 / (double)c->n1;
	var = c->sumsq1 / (double)c->n1 - mean * mean;
	return var > 0 ? root(var) : 0;
}
