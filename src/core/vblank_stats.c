#include <errno.h>
#include <string.h>

#include "core/vblank_stats.h"

const struct xp_rawtp_event xp_vbl_events[XP_VBL_NEV] = {
	[XP_VBL_EVENT] = { .group = "drm", .name = "drm_vblank_event" },
	[XP_VBL_QUEUED] = { .group = "drm", .name = "drm_vblank_event_queued", .proc_ctx = true },
	[XP_VBL_DELIVERED] = { .group = "drm", .name = "drm_vblank_event_delivered" },
};

int xp_vbl_decode(const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r,
		  struct xp_vbl_event *ev)
{
	uint64_t crtc, seq, v = 0;
	int err;

	if (r->ev >= XP_VBL_NEV || r->ev >= l->n || !l->present[r->ev])
		return -ENOENT;
	memset(ev, 0, sizeof(*ev));
	ev->kind = (enum xp_vbl_tp)r->ev;
	ev->ts = r->hdr.ts_ns;
	ev->pid = r->hdr.pid;
	ev->tid = r->hdr.tid;
	memcpy(ev->comm, r->comm, XP_COMM_LEN);
	ev->comm[XP_COMM_LEN - 1] = '\0';
	if ((err = xp_rawtp_u64(l, r, "crtc", &crtc)) || (err = xp_rawtp_u64(l, r, "seq", &seq)))
		return -EBADMSG;
	ev->crtc = (int32_t)crtc;
	ev->seq = (uint32_t)seq;
	if (ev->kind == XP_VBL_EVENT) {
		if (xp_rawtp_u64(l, r, "time", &ev->vtime))
			return -EBADMSG;
		if (!xp_rawtp_u64(l, r, "high_prec", &v))
			ev->high_prec = v != 0;
	} else if (xp_rawtp_u64(l, r, "file", &ev->file)) {
		return -EBADMSG;
	}
	return 0;
}

void xp_vbl_init(struct xp_vbl_state *s, uint64_t late_ns)
{
	memset(s, 0, sizeof(*s));
	s->late_ns = late_ns ? late_ns : 1000000;
}

static struct xp_vbl_crtc *crtc_of(struct xp_vbl_state *s, int32_t crtc)
{
	struct xp_vbl_crtc *c;

	for (int i = 0; i < s->ncrtcs; i++)
		if (s->crtcs[i].crtc == crtc)
			return &s->crtcs[i];
	if (s->ncrtcs == XP_VBL_MAX_CRTCS) {
		s->overflow++;
		return NULL;
	}
	c = &s->crtcs[s->ncrtcs++];
	memset(c, 0, sizeof(*c));
	c->crtc = crtc;
	return c;
}

static struct xp_vbl_client *client_of(struct xp_vbl_state *s, uint64_t file, int32_t crtc)
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
	/* a file seen queuing on another CRTC names its process here too */
	for (int i = 0; i < s->nclients - 1; i++)
		if (s->clients[i].file == file && s->clients[i].pid) {
			c->pid = s->clients[i].pid;
			memcpy(c->comm, s->clients[i].comm, XP_COMM_LEN);
			break;
		}
	return c;
}

/* The timestamp of vblank `seq` on c, from the recent ones: exact, or
 * extrapolated from the nearest earlier one by the measured period. */
static bool vblank_time(const struct xp_vbl_crtc *c, uint32_t seq, uint64_t *t)
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

static void settle(struct xp_vbl_state *s, struct xp_vbl_delivery *d, bool has_time, uint64_t vt)
{
	struct xp_vbl_crtc *c = crtc_of(s, d->crtc);
	struct xp_vbl_client *cl = client_of(s, d->file, d->crtc);

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
	if (s->on_delivery)
		s->on_delivery(s->cb_ctx, d);
}

static void on_vblank(struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	struct xp_vbl_crtc *c = crtc_of(s, ev->crtc);

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

		if (d->crtc == ev->crtc && (int32_t)(ev->seq - d->req_seq) >= 0) {
			struct xp_vbl_delivery one = *d;
			uint64_t vt;
			bool ok = vblank_time(c, one.req_seq, &vt);

			s->parked[i] = s->parked[--s->nparked];
			settle(s, &one, ok, vt);
			continue;
		}
		i++;
	}
}

static void on_queued(struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	struct xp_vbl_crtc *c = crtc_of(s, ev->crtc);
	struct xp_vbl_client *cl = client_of(s, ev->file, ev->crtc);
	struct xp_vbl_pending *p;

	if (c)
		c->queued++;
	if (cl) {
		cl->queued++;
		cl->pid = ev->pid;
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

/* Whether a delivery to (file, crtc) is known to be for a process that queued on it. */
static bool requested(const struct xp_vbl_state *s, uint64_t file, int32_t crtc)
{
	for (int i = 0; i < s->npending; i++)
		if (s->pending[i].file == file && s->pending[i].crtc == crtc)
			return true;
	for (int i = 0; i < s->nclients; i++)
		if (s->clients[i].file == file && s->clients[i].crtc == crtc && s->clients[i].pid)
			return true;
	return false;
}

/*
 * The request a delivery answers: exact (file, crtc, seq), else the oldest
 * earlier request of that file and CRTC, taken off the pending list into d;
 * without one, the process last seen on the client.
 */
static void match_request(struct xp_vbl_state *s, const struct xp_vbl_event *ev,
			  const struct xp_vbl_client *cl, struct xp_vbl_delivery *d)
{
	int match = -1;

	for (int i = 0; i < s->npending; i++) {
		const struct xp_vbl_pending *p = &s->pending[i];

		if (p->file != ev->file || p->crtc != ev->crtc)
			continue;
		if (p->seq == ev->seq) {
			match = i;
			break;
		}
		if (match < 0 && (int32_t)(ev->seq - p->seq) > 0)
			match = i;
	}
	if (match >= 0) {
		const struct xp_vbl_pending *p = &s->pending[match];

		d->queued = true;
		d->req_seq = p->seq;
		d->latency_ns = ev->ts > p->ts ? ev->ts - p->ts : 0;
		d->pid = p->pid;
		memcpy(d->comm, p->comm, XP_COMM_LEN);
		memmove(&s->pending[match], &s->pending[match + 1],
			sizeof(s->pending[0]) * (size_t)(s->npending - match - 1));
		s->npending--;
	} else if (cl && cl->pid) {
		d->pid = cl->pid;
		memcpy(d->comm, cl->comm, XP_COMM_LEN);
	}
}

/* A delivery on the client's side: its counts, the frames it missed since its
 * last delivery (charged to the CRTC too), the time between its frames. */
static void client_delivered(struct xp_vbl_crtc *c, struct xp_vbl_client *cl, struct xp_vbl_delivery *d)
{
	cl->delivered++;
	if (d->queued)
		xp_hist_add(&cl->latency, d->latency_ns);
	else
		cl->unqueued++;
	if (d->seq != d->req_seq)
		cl->late_frames += d->seq - d->req_seq;
	if (cl->have_last && (int32_t)(d->seq - cl->last_seq) > 1) {
		d->missed_before = d->seq - cl->last_seq - 1;
		cl->missed_frames += d->missed_before;
		if (c)
			c->missed_frames += d->missed_before;
	}
	if (cl->have_last && d->ts > cl->last_ts)
		xp_hist_add(&cl->frame, d->ts - cl->last_ts);
	cl->have_last = true;
	cl->last_seq = d->seq;
	cl->last_ts = d->ts;
}

static void on_delivered(struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	struct xp_vbl_crtc *c;
	struct xp_vbl_client *cl;
	struct xp_vbl_delivery d = { .ts = ev->ts, .file = ev->file, .crtc = ev->crtc,
				     .seq = ev->seq, .req_seq = ev->seq };
	uint64_t vt;

	/*
	 * With process filters the kernel kept only the chosen processes'
	 * requests: a delivery to a file none of them queued on is another
	 * process's (or a page flip's), not one of theirs.
	 */
	if (s->proc_filter && !requested(s, ev->file, ev->crtc)) {
		s->filtered++;
		return;
	}
	c = crtc_of(s, ev->crtc);
	cl = client_of(s, ev->file, ev->crtc);
	match_request(s, ev, cl, &d);
	if (c) {
		c->delivered++;
		if (d.queued)
			xp_hist_add(&c->latency, d.latency_ns);
		else
			c->unqueued++;
		if (d.seq != d.req_seq)
			c->late_frames += d.seq - d.req_seq;
	}
	if (cl)
		client_delivered(c, cl, &d);
	/* lateness needs the requested vblank's timestamp: its drm_vblank_event
	 * comes after the deliveries it triggers, so wait for it unless known */
	if (c && c->have_last && (int32_t)(c->last_seq - d.req_seq) >= 0 && vblank_time(c, d.req_seq, &vt)) {
		settle(s, &d, true, vt);
	} else if (s->nparked < XP_VBL_MAX_PARKED) {
		s->parked[s->nparked++] = d;
	} else {
		settle(s, &d, false, 0);
	}
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
	case XP_VBL_DELIVERED: on_delivered(s, ev); break;
	default: break;
	}
}

void xp_vbl_finish(struct xp_vbl_state *s)
{
	while (s->nparked) {
		struct xp_vbl_delivery d = s->parked[--s->nparked];
		struct xp_vbl_crtc *c = crtc_of(s, d.crtc);
		uint64_t vt;
		bool ok = c && vblank_time(c, d.req_seq, &vt);

		settle(s, &d, ok, ok ? vt : 0);
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
		memset(&c->latency, 0, sizeof(c->latency));
		memset(&c->lateness, 0, sizeof(c->lateness));
		memset(&c->frame, 0, sizeof(c->frame));
	}
	s->events = s->overflow = s->unknown_lateness = s->filtered = 0;
	s->first_ts = s->last_ts = 0;
}

uint64_t xp_vbl_period_ns(const struct xp_vbl_crtc *c)
{
	return c->span_seq ? (c->span_ns + c->span_seq / 2) / c->span_seq : 0;
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
