#include <errno.h>
#include <string.h>

#include <stdio.h>

#include "caps/vblank/vblank_stats.h"
#include "core/tracefile.h"
#include "caps/vblank/vblank.h"

const struct xp_rec_kind xp_vbl_rec_kind = {
	.type = XP_REC_VBLANK, .min_size = sizeof(struct xp_rawtp_rec), .name = "vblank",
};

const struct xp_rawtp_event xp_vbl_events[XP_VBL_NEV] = {
	[XP_VBL_EVENT] = { .group = "drm", .name = "drm_vblank_event" },
	[XP_VBL_QUEUED] = { .group = "drm", .name = "drm_vblank_event_queued", .proc_ctx = true },
	[XP_VBL_DELIVERED] = { .group = "drm", .name = "drm_vblank_event_delivered" },
	[XP_VBL_SUBMIT] = { .group = "xputrace", .name = "vblank_submit", .proc_ctx = true },
	[XP_VBL_CRTC] = { .group = "xputrace", .name = "vblank_crtc" },
	[XP_VBL_PIPE] = { .group = "xputrace", .name = "vblank_pipe" },
};

/* The layouts of struct xp_vbl_submit_raw and xp_vbl_crtc_raw, in format-file syntax. */
#define FIELD(t, n, s, sz, sg) "\tfield:" t " " #n ";\toffset:%zu;\tsize:" #sz ";\tsigned:" #sg ";\n"
static char submit_fmt[1024], crtc_fmt[512], pipe_fmt[512];

const char *xp_vbl_probe_format(int ev)
{
	if (ev == XP_VBL_SUBMIT) {
		if (!submit_fmt[0])
			snprintf(submit_fmt, sizeof(submit_fmt),
				 "name: vblank_submit\nID: 0\nformat:\n"
				 FIELD("u64", file, s, 8, 0) FIELD("u64", submit_ns, s, 8, 0)
				 FIELD("u32", type, s, 4, 0) FIELD("u32", crtc_id, s, 4, 0)
				 FIELD("s32", minor, s, 4, 1) FIELD("u32", ioctl_nr, s, 4, 0)
				 FIELD("u64", user_data, s, 8, 0) "\nprint fmt: \"\"\n",
				 offsetof(struct xp_vbl_submit_raw, file),
				 offsetof(struct xp_vbl_submit_raw, submit_ns),
				 offsetof(struct xp_vbl_submit_raw, type),
				 offsetof(struct xp_vbl_submit_raw, crtc_id),
				 offsetof(struct xp_vbl_submit_raw, minor),
				 offsetof(struct xp_vbl_submit_raw, ioctl_nr),
				 offsetof(struct xp_vbl_submit_raw, user_data));
		return submit_fmt;
	}
	if (ev == XP_VBL_CRTC) {
		if (!crtc_fmt[0])
			snprintf(crtc_fmt, sizeof(crtc_fmt),
				 "name: vblank_crtc\nID: 0\nformat:\n"
				 FIELD("s32", minor, s, 4, 1) FIELD("u32", pipe, s, 4, 0)
				 "\nprint fmt: \"\"\n",
				 offsetof(struct xp_vbl_crtc_raw, minor),
				 offsetof(struct xp_vbl_crtc_raw, pipe));
		return crtc_fmt;
	}
	if (ev == XP_VBL_PIPE) {
		if (!pipe_fmt[0])
			snprintf(pipe_fmt, sizeof(pipe_fmt),
				 "name: vblank_pipe\nID: 0\nformat:\n"
				 FIELD("s32", minor, s, 4, 1) FIELD("u32", crtc_id, s, 4, 0)
				 FIELD("u32", pipe, s, 4, 0) FIELD("u32", pad, s, 4, 0)
				 "\nprint fmt: \"\"\n",
				 offsetof(struct xp_vbl_pipe_raw, minor),
				 offsetof(struct xp_vbl_pipe_raw, crtc_id),
				 offsetof(struct xp_vbl_pipe_raw, pipe),
				 offsetof(struct xp_vbl_pipe_raw, pad));
		return pipe_fmt;
	}
	return NULL;
}

int xp_vbl_raw_cfg_fill(const struct xp_rawtp_layout *l, struct xp_vbl_raw_cfg cfg[XP_VBL_NDRM])
{
	memset(cfg, 0, sizeof(*cfg) * XP_VBL_NDRM);
	for (int e = 0; e < XP_VBL_NDRM && e < l->n; e++) {
		const struct xp_tp_format *f = &l->fmt[e];
		struct xp_vbl_raw_cfg *c = &cfg[e];

		for (int i = 0; i < XP_VBL_RAW_ARGS; i++)
			c->off[i] = -1;
		if (!l->present[e])
			continue;
		c->raw_size = f->size < XP_RAWTP_RAW ? f->size : XP_RAWTP_RAW;
		c->filter = l->ev[e].proc_ctx;
		for (int i = 0; i < f->nfields; i++) {
			const struct xp_tp_field *fl = &f->fields[i];

			if (fl->common)
				continue;
			if (fl->data_loc || c->nargs == XP_VBL_RAW_ARGS || fl->offset + fl->size > XP_RAWTP_RAW ||
			    (fl->size != 1 && fl->size != 2 && fl->size != 4 && fl->size != 8))
				return -EINVAL;
			c->off[c->nargs] = (int16_t)fl->offset;
			c->size[c->nargs++] = (uint8_t)fl->size;
		}
	}
	return 0;
}

const char *xp_vbl_kind_name(unsigned int kinds, char *buf, size_t len)
{
	static const char *const names[] = { "wait", "flip", "atomic", "seq" };
	size_t k = 0;

	buf[0] = '\0';
	for (int i = 0; i < 4 && k < len; i++)
		if (kinds & (1u << i))
			k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? "+" : "", names[i]);
	if (!k)
		snprintf(buf, len, "-");
	return buf;
}

/* The kind of frame an ioctl asks for, from the event type and the ioctl number. */
static unsigned int kind_of(uint32_t type, uint32_t nr)
{
	if (type == XP_DRM_EVENT_VBLANK)
		return XP_VBL_K_WAIT;
	if (type == XP_DRM_EVENT_CRTC_SEQUENCE)
		return XP_VBL_K_SEQ;
	/* a flip-complete event: ATOMIC (0xbc), else the legacy PAGE_FLIP (0xb0, 0xb1 target) */
	return nr == 0xbc ? XP_VBL_K_ATOMIC : XP_VBL_K_FLIP;
}

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
	ev->cpu = r->hdr.cpu;
	ev->dev = -1;
	if (ev->kind == XP_VBL_SUBMIT) {
		uint64_t t, id, nr, minor, sub;

		if (xp_rawtp_u64(l, r, "file", &ev->file) || xp_rawtp_u64(l, r, "type", &t) ||
		    xp_rawtp_u64(l, r, "crtc_id", &id) || xp_rawtp_u64(l, r, "minor", &minor) ||
		    xp_rawtp_u64(l, r, "ioctl_nr", &nr) || xp_rawtp_u64(l, r, "submit_ns", &sub))
			return -EBADMSG;
		(void)xp_rawtp_u64(l, r, "user_data", &ev->user_data);
		ev->type = (uint32_t)t;
		ev->crtc_id = (uint32_t)id;
		ev->ioctl_nr = (uint32_t)nr;
		ev->dev = (int32_t)(uint32_t)minor;
		ev->submit_ns = sub && sub <= ev->ts ? sub : ev->ts;
		ev->crtc = -1;
		return 0;
	}
	if (ev->kind == XP_VBL_PIPE) {
		uint64_t minor, id, pipe;

		if (xp_rawtp_u64(l, r, "minor", &minor) || xp_rawtp_u64(l, r, "crtc_id", &id) ||
		    xp_rawtp_u64(l, r, "pipe", &pipe))
			return -EBADMSG;
		ev->dev = (int32_t)(uint32_t)minor;
		ev->crtc_id = (uint32_t)id;
		ev->crtc = (int32_t)pipe;
		return 0;
	}
	if (ev->kind == XP_VBL_CRTC) {
		uint64_t minor, pipe;

		if (xp_rawtp_u64(l, r, "minor", &minor) || xp_rawtp_u64(l, r, "pipe", &pipe))
			return -EBADMSG;
		ev->dev = (int32_t)(uint32_t)minor;
		ev->crtc = (int32_t)pipe;
		return 0;
	}
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
	for (int i = 0; i < XP_VBL_MAX_CPUS; i++)
		s->cpu_pipe[i] = -1;
}

/* A CRTC is a device's pipe: the same index on two devices is two CRTCs. */
static struct xp_vbl_crtc *crtc_of(struct xp_vbl_state *s, int32_t dev, int32_t crtc)
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

static struct xp_vbl_file *file_find(struct xp_vbl_state *s, uint64_t file)
{
	for (int i = 0; i < s->nfiles; i++)
		if (s->files[i].file == file)
			return &s->files[i];
	return NULL;
}

/* The device a file's events are on: -1 when it never asked while traced. */
static int32_t file_dev(const struct xp_vbl_state *s, uint64_t file)
{
	for (int i = 0; i < s->nfiles; i++)
		if (s->files[i].file == file)
			return s->files[i].dev;
	return -1;
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
	c->dev = file_dev(s, file);
	/* a file seen asking (on another CRTC, or for a flip) names its process here too */
	for (int i = 0; i < s->nclients - 1; i++)
		if (s->clients[i].file == file && s->clients[i].pid) {
			c->pid = s->clients[i].pid;
			c->tid = s->clients[i].tid;
			memcpy(c->comm, s->clients[i].comm, XP_COMM_LEN);
			break;
		}
	if (!c->pid) {
		const struct xp_vbl_file *f = file_find(s, file);

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

static void settle(struct xp_vbl_state *s, struct xp_vbl_delivery *d, bool has_time, uint64_t vt)
{
	struct xp_vbl_crtc *c = crtc_of(s, d->dev, d->crtc);
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
	if (d->frame)
		settle_frame(s, c, cl, d, has_time, vt);
	if (s->on_delivery)
		s->on_delivery(s->cb_ctx, d);
	if (d->frame && s->on_frame)
		s->on_frame(s->cb_ctx, d);
}

/*
 * The device of a vblank: the crtc record just before it on its CPU. Without
 * one (its probe was skipped: it fires in the interrupt, and a kprobe that
 * lands in another BPF program does not run), the device whose CRTC of that
 * pipe this vblank's sequence number follows most closely.
 */
static int32_t vblank_dev(struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	int32_t dev = -1;
	uint32_t best = 0;

	if (ev->cpu < XP_VBL_MAX_CPUS && s->cpu_pipe[ev->cpu] == ev->crtc) {
		dev = s->cpu_dev[ev->cpu];
		s->cpu_pipe[ev->cpu] = -1;
		return dev;
	}
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
	if (dev >= 0)
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
	struct xp_vbl_crtc *c = crtc_of(s, dev, ev->crtc);

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
	struct xp_vbl_crtc *c = crtc_of(s, file_dev(s, ev->file), ev->crtc);
	struct xp_vbl_client *cl = client_of(s, ev->file, ev->crtc);
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

static int32_t id_pipe(const struct xp_vbl_state *s, int32_t dev, uint32_t id)
{
	for (int i = 0; i < s->nids; i++)
		if (s->ids[i].dev == dev && s->ids[i].id == id)
			return s->ids[i].pipe;
	return -1;
}

static bool pipe_taken(const struct xp_vbl_state *s, int32_t dev, int32_t pipe, uint32_t id)
{
	for (int i = 0; i < s->nids; i++)
		if (s->ids[i].dev == dev && s->ids[i].pipe == pipe && s->ids[i].id != id)
			return true;
	return false;
}

static void take_asker(struct xp_vbl_client *cl, uint32_t pid, uint32_t tid, const char *comm)
{
	cl->pid = pid;
	cl->tid = tid;
	memcpy(cl->comm, comm, XP_COMM_LEN);
}

/* A CRTC object's pipe, as the kernel armed an event on it: exact, replaces a guess. */
static void on_pipe(struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	/* a guess that gave this pipe to another object was wrong */
	for (int i = 0; i < s->nids;)
		if (s->ids[i].dev == ev->dev && s->ids[i].pipe == ev->crtc && s->ids[i].id != ev->crtc_id)
			s->ids[i] = s->ids[--s->nids];
		else
			i++;
	for (int i = 0; i < s->nids; i++)
		if (s->ids[i].dev == ev->dev && s->ids[i].id == ev->crtc_id) {
			s->ids[i].pipe = ev->crtc;
			return;
		}
	if (s->nids < XP_VBL_MAX_IDS)
		s->ids[s->nids++] = (struct xp_vbl_crtc_id){ ev->dev, ev->crtc_id, ev->crtc };
	else
		s->overflow++;
}

/* A submit record: the file's device and process; a frame asked for. */
static void on_submit(struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	unsigned int kind = kind_of(ev->type, ev->ioctl_nr);
	struct xp_vbl_file *f = file_find(s, ev->file);
	struct xp_vbl_flip *fl;
	int32_t pipe;

	s->attributed = true;
	s->submits++;
	if (!f) {
		if (s->nfiles == XP_VBL_MAX_FILES) {	/* the oldest file is forgotten */
			memmove(&s->files[0], &s->files[1], sizeof(s->files[0]) * (XP_VBL_MAX_FILES - 1));
			s->nfiles--;
			s->overflow++;
		}
		f = &s->files[s->nfiles++];
		f->file = ev->file;
	}
	f->dev = ev->dev;
	f->pid = ev->pid;
	f->tid = ev->tid;
	memcpy(f->comm, ev->comm, XP_COMM_LEN);
	for (int i = 0; i < s->nclients; i++)
		if (s->clients[i].file == ev->file) {
			s->clients[i].dev = ev->dev;
			if (!s->clients[i].pid)
				take_asker(&s->clients[i], ev->pid, ev->tid, ev->comm);
		}
	/* a wait-vblank request: its queued tracepoint has the CRTC and vblank */
	if (kind == XP_VBL_K_WAIT)
		return;
	if (s->nflips == XP_VBL_MAX_FLIPS) {	/* the oldest is given up on */
		memmove(&s->flips[0], &s->flips[1], sizeof(s->flips[0]) * (XP_VBL_MAX_FLIPS - 1));
		s->nflips--;
		s->overflow++;
	}
	fl = &s->flips[s->nflips++];
	memset(fl, 0, sizeof(*fl));
	fl->file = ev->file;
	fl->ts = ev->ts;
	fl->submit_ns = ev->submit_ns;
	fl->dev = ev->dev;
	fl->crtc_id = ev->crtc_id;
	fl->pid = ev->pid;
	fl->tid = ev->tid;
	fl->kind = kind;
	memcpy(fl->comm, ev->comm, XP_COMM_LEN);
	/* a CRTC whose pipe is known counts the frame asked now, else at its completion */
	if (ev->crtc_id && (pipe = id_pipe(s, ev->dev, ev->crtc_id)) >= 0) {
		struct xp_vbl_client *cl = client_of(s, ev->file, pipe);

		if (cl) {
			cl->asked++;
			cl->kinds |= kind;
			take_asker(cl, ev->pid, ev->tid, ev->comm);
			fl->counted = true;
		}
	}
}

/* Whether flip f may be on pipe `crtc` (its CRTC object is that pipe, or not known yet). */
static bool flip_on_pipe(const struct xp_vbl_state *s, const struct xp_vbl_flip *f, int32_t crtc)
{
	int32_t pipe;

	if (!f->crtc_id)
		return true;
	pipe = id_pipe(s, f->dev, f->crtc_id);
	if (pipe >= 0)
		return pipe == crtc;
	return !pipe_taken(s, f->dev, crtc, f->crtc_id);
}

/* A frame leaves the list: asked (if not counted yet) on client cl. */
static void flip_take(struct xp_vbl_state *s, int i, struct xp_vbl_client *cl)
{
	const struct xp_vbl_flip *f = &s->flips[i];

	if (cl) {
		if (!f->counted)
			cl->asked++;
		cl->kinds |= f->kind;
		take_asker(cl, f->pid, f->tid, f->comm);
	}
	memmove(&s->flips[i], &s->flips[i + 1], sizeof(s->flips[0]) * (size_t)(s->nflips - i - 1));
	s->nflips--;
}

/*
 * The frame a completion on vblank ev->seq finishes: of the frames the file
 * asked on this pipe (or on a CRTC whose pipe is not known yet: then learnt
 * from it) before that vblank and before the completion was recorded, the
 * newest. The older ones on the same CRTC lost their completion: counted as
 * unseen and dropped. Taken off the list into d.
 */
static bool match_frame(struct xp_vbl_state *s, const struct xp_vbl_event *ev, struct xp_vbl_crtc *c,
			struct xp_vbl_client *cl, struct xp_vbl_delivery *d)
{
	struct xp_vbl_flip *f;
	int best = -1;

	/*
	 * Asked before the completion was recorded: not before the vblank's own
	 * timestamp, since a driver whose interrupt comes late (vkms's timer)
	 * still arms a frame asked in between for that vblank.
	 */
	(void)c;
	for (int i = 0; i < s->nflips; i++) {
		f = &s->flips[i];
		if (f->file != ev->file || f->ts > ev->ts || f->submit_ns > ev->ts || !flip_on_pipe(s, f, ev->crtc))
			continue;
		if (best < 0 || f->submit_ns >= s->flips[best].submit_ns)
			best = i;
	}
	if (best < 0)
		return false;
	f = &s->flips[best];
	if (f->crtc_id && id_pipe(s, f->dev, f->crtc_id) < 0 && s->nids < XP_VBL_MAX_IDS)
		s->ids[s->nids++] = (struct xp_vbl_crtc_id){ f->dev, f->crtc_id, ev->crtc };
	d->frame = true;
	d->pid = f->pid;
	d->tid = f->tid;
	memcpy(d->comm, f->comm, XP_COMM_LEN);
	d->kind = f->kind;
	d->submit_ns = f->submit_ns;
	{
		uint64_t file = f->file, sub = f->submit_ns;
		uint32_t id = f->crtc_id;
		int32_t dev = f->dev;

		flip_take(s, best, cl);
		if (cl)
			cl->completed++;
		/* older frames of this CRTC, asked before this vblank too: their completion was not seen */
		for (int i = 0; i < s->nflips;) {
			f = &s->flips[i];
			if (f->file == file && f->dev == dev && f->crtc_id == id && f->submit_ns <= sub &&
			    f->ts <= ev->ts && flip_on_pipe(s, f, ev->crtc)) {
				flip_take(s, i, cl);
				if (cl)
					cl->unseen++;
				s->unseen_frames++;
				continue;
			}
			i++;
		}
	}
	return true;
}

static bool exact_request(const struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	for (int i = 0; i < s->npending; i++)
		if (s->pending[i].file == ev->file && s->pending[i].crtc == ev->crtc &&
		    s->pending[i].seq == ev->seq)
			return true;
	return false;
}

/* Whether a delivery to (file, crtc) is known to be for a process that queued on it. */
static bool requested(const struct xp_vbl_state *s, uint64_t file, int32_t crtc)
{
	for (int i = 0; i < s->nfiles; i++)
		if (s->files[i].file == file)
			return true;
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
		d->tid = 0;
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
	/* gaps between a client's deliveries are its misses only where it asked
	 * for each vblank (wait-vblank requests); frames have their own rule */
	if (d->queued && cl->have_last && (int32_t)(d->seq - cl->last_seq) > 1) {
		d->missed_before = d->seq - cl->last_seq - 1;
		cl->missed_frames += d->missed_before;
		if (c)
			c->missed_frames += d->missed_before;
	}
	if (!d->frame && cl->have_last && d->ts > cl->last_ts)
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
	/* the file's device, else that of the vblank being handled on this CPU */
	d.dev = file_dev(s, ev->file);
	if (d.dev < 0 && ev->cpu < XP_VBL_MAX_CPUS && s->cpu_pipe[ev->cpu] == ev->crtc)
		d.dev = s->cpu_dev[ev->cpu];
	c = crtc_of(s, d.dev, ev->crtc);
	cl = client_of(s, ev->file, ev->crtc);
	if (exact_request(s, ev) || !match_frame(s, ev, c, cl, &d))
		match_request(s, ev, cl, &d);
	/*
	 * Nothing asked for it while traced: before the client's first paired
	 * completion it was asked before tracing began, after it its submit was
	 * not seen (a skipped or dropped event). (file 0: the kernel's own.)
	 */
	if (!d.frame && !d.queued && ev->file) {
		d.before = !cl || !cl->paired;
		if (d.before)
			s->before_frames++;
		else
			s->unmatched_frames++;
		if (cl)
			(void)(d.before ? cl->before++ : cl->unsubmitted++);
	} else if (cl) {
		cl->paired = true;
	}
	if (c) {
		c->delivered++;
		if (d.queued)
			xp_hist_add(&c->latency, d.latency_ns);
		else if (!d.frame)
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

int32_t xp_vbl_dev_of(const struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	int32_t dev = -1;

	if (ev->kind == XP_VBL_SUBMIT || ev->kind == XP_VBL_CRTC || ev->kind == XP_VBL_PIPE)
		return ev->dev;
	if (ev->kind != XP_VBL_EVENT)
		dev = file_dev(s, ev->file);
	if (dev < 0 && ev->kind != XP_VBL_QUEUED && ev->cpu < XP_VBL_MAX_CPUS &&
	    s->cpu_pipe[ev->cpu] == ev->crtc)
		dev = s->cpu_dev[ev->cpu];
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
	case XP_VBL_DELIVERED: on_delivered(s, ev); break;
	case XP_VBL_SUBMIT: on_submit(s, ev); break;
	case XP_VBL_CRTC: on_crtc(s, ev); break;
	case XP_VBL_PIPE: on_pipe(s, ev); break;
	default: break;
	}
}

void xp_vbl_finish(struct xp_vbl_state *s)
{
	while (s->nparked) {
		struct xp_vbl_delivery d = s->parked[--s->nparked];
		struct xp_vbl_crtc *c = crtc_of(s, d.dev, d.crtc);
		uint64_t vt;
		bool ok = c && vblank_time(c, d.req_seq, &vt);

		settle(s, &d, ok, ok ? vt : 0);
	}
	/* frames asked and never completed, on their CRTC where it is known */
	for (int i = 0; i < s->nflips;) {
		struct xp_vbl_flip *f = &s->flips[i];
		int32_t pipe = f->crtc_id ? id_pipe(s, f->dev, f->crtc_id) : -1;
		const struct xp_vbl_crtc *c = NULL;
		struct xp_vbl_client *cl;

		for (int k = 0; pipe >= 0 && k < s->ncrtcs; k++)
			if (s->crtcs[k].dev == f->dev && s->crtcs[k].crtc == pipe)
				c = &s->crtcs[k];
		cl = client_of(s, f->file, pipe);
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
				take_asker(cl, f->pid, f->tid, f->comm);
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
