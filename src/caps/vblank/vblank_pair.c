/* vblank: pairing the frames asked (submits, queued events) with their deliveries and the vblanks they completed on */
#include <errno.h>
#include <string.h>
#include <stdio.h>
#include "caps/vblank/vblank_stats.h"
#include "core/tracefile.h"
#include "caps/vblank/vblank.h"
#include "caps/vblank/vblank_int.h"

int32_t vbl_id_pipe(const struct xp_vbl_state *s, int32_t dev, uint32_t id)
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

void vbl_take_asker(struct xp_vbl_client *cl, uint32_t pid, uint32_t tid, const char *comm)
{
	cl->pid = pid;
	cl->tid = tid;
	memcpy(cl->comm, comm, XP_COMM_LEN);
}

/* A CRTC object's pipe, as the kernel armed an event on it: exact, replaces a guess. */
void vbl_on_pipe(struct xp_vbl_state *s, const struct xp_vbl_event *ev)
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
void vbl_on_submit(struct xp_vbl_state *s, const struct xp_vbl_event *ev)
{
	unsigned int kind = vbl_kind_of(ev->type, ev->ioctl_nr);
	struct xp_vbl_file *f = vbl_file_find(s, ev->file);
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
				vbl_take_asker(&s->clients[i], ev->pid, ev->tid, ev->comm);
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
	if (ev->crtc_id && (pipe = vbl_id_pipe(s, ev->dev, ev->crtc_id)) >= 0) {
		struct xp_vbl_client *cl = vbl_client_of(s, ev->file, pipe);

		if (cl) {
			cl->asked++;
			cl->kinds |= kind;
			vbl_take_asker(cl, ev->pid, ev->tid, ev->comm);
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
	pipe = vbl_id_pipe(s, f->dev, f->crtc_id);
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
		vbl_take_asker(cl, f->pid, f->tid, f->comm);
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
	if (f->crtc_id && vbl_id_pipe(s, f->dev, f->crtc_id) < 0 && s->nids < XP_VBL_MAX_IDS)
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

void vbl_on_delivered(struct xp_vbl_state *s, const struct xp_vbl_event *ev)
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
	d.dev = vbl_file_dev(s, ev->file);
	if (d.dev < 0 && ev->cpu < XP_VBL_MAX_CPUS && s->cpu_pipe[ev->cpu] == ev->crtc)
		d.dev = s->cpu_dev[ev->cpu];
	c = vbl_crtc_of(s, d.dev, ev->crtc);
	cl = vbl_client_of(s, ev->file, ev->crtc);
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
	if (c && c->have_last && (int32_t)(c->last_seq - d.req_seq) >= 0 && vbl_vblank_time(c, d.req_seq, &vt)) {
		vbl_settle(s, &d, true, vt);
	} else if (s->nparked < XP_VBL_MAX_PARKED) {
		s->parked[s->nparked++] = d;
	} else {
		vbl_settle(s, &d, false, 0);
	}
}
