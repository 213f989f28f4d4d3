#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/fence/fence_stats.h"

const struct xp_rec_kind xp_fence_rec_kind = {
	.type = XP_REC_FENCE, .min_size = sizeof(struct xp_rawtp_rec), .name = "fence",
	XP_RAWTP_PACK,
};

/*
 * proc_ctx: where the kernel applies -p/-c/-G. Fences are made and waited
 * for in the task that asks; signals, emits and releases come from
 * interrupts and workers, so they are never filtered (a filtered run counts
 * other processes' signals as signals of fences not seen created).
 */
#define DF(name, p) { "dma_fence", name, { "driver", "timeline" }, p }
const struct xp_rawtp_event xp_fence_events[XP_FENCE_NEV] = {
	[XP_FENCE_INIT] = DF("dma_fence_init", true),
	[XP_FENCE_EMIT] = DF("dma_fence_emit", false),
	[XP_FENCE_ENABLE_SIGNAL] = DF("dma_fence_enable_signal", false),
	[XP_FENCE_SIGNALED] = DF("dma_fence_signaled", false),
	[XP_FENCE_WAIT_START] = DF("dma_fence_wait_start", true),
	[XP_FENCE_WAIT_END] = DF("dma_fence_wait_end", true),
	[XP_FENCE_DESTROY] = DF("dma_fence_destroy", false),
};
#undef DF

const char *xp_fence_tl_name(const struct xp_fence_tl *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s", t->driver, t->name);
	return buf;
}

int xp_fence_init(struct xp_fence_state *s)
{
	memset(s, 0, sizeof(*s));
	s->nlive_slots = 1u << XP_FENCE_BITS;
	if (!(s->live = calloc(s->nlive_slots, sizeof(*s->live))))
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nlive_slots; i++)
		s->live[i].tl = -1;
	for (size_t i = 0; i < sizeof(s->ctx_tl) / sizeof(s->ctx_tl[0]); i++)
		s->ctx_tl[i] = -1;
	return 0;
}

void xp_fence_free(struct xp_fence_state *s)
{
	free(s->live);
	s->live = NULL;
}

static uint32_t hash2(uint32_t a, uint32_t b)
{
	return (a * 0x9e3779b1u) ^ (b * 0x85ebca6bu);
}

/* open addressing; deleted slots (-2) are reused */
static struct xp_fence_live *live_find(struct xp_fence_state *s, uint32_t ctx, uint32_t seqno, bool add)
{
	uint32_t mask = s->nlive_slots - 1, h = hash2(ctx, seqno) & mask;
	struct xp_fence_live *tomb = NULL;

	for (uint32_t n = 0; n < s->nlive_slots; n++, h = (h + 1) & mask) {
		struct xp_fence_live *e = &s->live[h];

		if (e->tl == -1)
			return add ? (tomb ? tomb : e) : NULL;
		if (e->tl == -2) {
			if (!tomb)
				tomb = e;
			continue;
		}
		if (e->ctx == ctx && e->seqno == seqno)
			return e;
	}
	return add ? tomb : NULL;
}

static int tl_by_name(struct xp_fence_state *s, const char *drv, const char *name)
{
	for (int i = 0; i < s->ntl; i++)
		if (!strcmp(s->tl[i].driver, drv) && !strcmp(s->tl[i].name, name))
			return i;
	if (s->ntl == XP_FENCE_MAX_TL) {
		s->overflow++;
		return -1;
	}
	memset(&s->tl[s->ntl], 0, sizeof(s->tl[0]));
	snprintf(s->tl[s->ntl].driver, sizeof(s->tl[0].driver), "%s", drv);
	snprintf(s->tl[s->ntl].name, sizeof(s->tl[0].name), "%s", name);
	return s->ntl++;
}

/*
 * The record's timeline. init names it for sure; later events may name a
 * signaled fence's placeholder (7.3: "detached-driver"/"signaled-timeline",
 * i915 on 6.1: "signaled"), so they take the fence's own (`known` >= 0),
 * else the last timeline seen on the context, else their strings.
 */
static int tl_of(struct xp_fence_state *s, const struct xp_rawtp_rec *r, uint32_t ctx, int known)
{
	uint32_t slot = hash2(ctx, 0) & ((1u << XP_FENCE_CTX_BITS) - 1);
	char drv[XP_RAWTP_STR], name[XP_RAWTP_STR];
	int tl;

	if (known >= 0)
		return known;
	if (r->ev != XP_FENCE_INIT && s->ctx_tl[slot] >= 0 && s->ctx_key[slot] == ctx)
		return s->ctx_tl[slot];
	xp_rawtp_rec_str(r, 0, drv, sizeof(drv));
	xp_rawtp_rec_str(r, 1, name, sizeof(name));
	if (!strcmp(drv, "detached-driver") || !strcmp(name, "signaled-timeline"))
		return -1;
	if ((tl = tl_by_name(s, drv, name)) >= 0) {
		s->ctx_tl[slot] = (int16_t)tl;
		s->ctx_key[slot] = ctx;
	}
	return tl;
}

static struct xp_fence_proc *proc_of(struct xp_fence_state *s, const struct xp_rawtp_rec *r)
{
	struct xp_fence_proc *p;

	for (int i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == r->hdr.pid)
			return &s->procs[i];
	if (s->nprocs == XP_FENCE_MAX_PROCS) {
		s->overflow++;
		return NULL;
	}
	p = &s->procs[s->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = r->hdr.pid;
	memcpy(p->comm, r->comm, XP_COMM_LEN);
	p->comm[XP_COMM_LEN - 1] = '\0';
	return p;
}

static struct xp_fence_thread *thread_of(struct xp_fence_state *s, const struct xp_rawtp_rec *r)
{
	struct xp_fence_thread *t;

	for (int i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == r->hdr.tid && s->threads[i].pid == r->hdr.pid)
			return &s->threads[i];
	if (s->nthreads == XP_FENCE_MAX_THREADS) {
		s->overflow++;
		return NULL;
	}
	t = &s->threads[s->nthreads++];
	memset(t, 0, sizeof(*t));
	t->pid = r->hdr.pid;
	t->tid = r->hdr.tid;
	memcpy(t->comm, r->comm, XP_COMM_LEN);
	t->comm[XP_COMM_LEN - 1] = '\0';
	return t;
}

static void on_init(struct xp_fence_state *s, const struct xp_rawtp_rec *r, struct xp_fence_done *d,
		    struct xp_fence_proc *p)
{
	struct xp_fence_live *e = live_find(s, d->ctx, d->seqno, true);

	s->created++;
	if (d->tl >= 0)
		s->tl[d->tl].created++;
	if (p)
		p->created++;
	if (!e) {
		s->overflow++;	/* table full: its signal will count as unseen */
		return;
	}
	if (e->tl < 0 && d->tl >= 0)
		s->tl[d->tl].open++;
	*e = (struct xp_fence_live){ .ctx = d->ctx, .seqno = d->seqno, .init_ts = r->hdr.ts_ns,
				     .tl = (int16_t)d->tl };
	if (d->tl < 0)
		e->tl = -2;	/* no timeline slot left: not tracked */
}

static void on_signaled(struct xp_fence_state *s, const struct xp_rawtp_rec *r, struct xp_fence_live *e,
			struct xp_fence_done *d)
{
	struct xp_fence_tl *t = d->tl >= 0 ? &s->tl[d->tl] : NULL;
	uint64_t life;

	if (!e) {
		s->signaled_unseen++;
		if (t)
			t->signaled_unseen++;
		return;
	}
	d->paired = true;
	d->start = e->emit_ts ? e->emit_ts : e->init_ts;
	life = r->hdr.ts_ns > d->start ? r->hdr.ts_ns - d->start : 0;
	s->signaled++;
	xp_hist_add(&s->life, life);
	t->signaled++;
	t->open--;
	xp_hist_add(&t->life, life);
	e->tl = -2;
}

static void on_wait(struct xp_fence_state *s, const struct xp_rawtp_rec *r, struct xp_fence_done *d,
		    struct xp_fence_proc *p)
{
	struct xp_fence_thread *th;
	uint64_t dur;
	int i;

	if (r->ev == XP_FENCE_WAIT_START) {
		if (s->nwaiting == XP_FENCE_MAX_WAITS) {	/* the oldest is dropped */
			memmove(&s->waiting[0], &s->waiting[1], sizeof(s->waiting[0]) * (XP_FENCE_MAX_WAITS - 1));
			s->nwaiting--;
			s->overflow++;
		}
		s->waiting[s->nwaiting++] = (struct xp_fence_wait){ .tid = r->hdr.tid, .ctx = d->ctx,
								    .seqno = d->seqno, .ts = r->hdr.ts_ns };
		return;
	}
	for (i = 0; i < s->nwaiting; i++)
		if (s->waiting[i].tid == r->hdr.tid && s->waiting[i].ctx == d->ctx &&
		    s->waiting[i].seqno == d->seqno)
			break;
	if (i == s->nwaiting) {
		s->wait_unseen++;
		return;
	}
	d->paired = true;
	d->start = s->waiting[i].ts;
	memmove(&s->waiting[i], &s->waiting[i + 1], sizeof(s->waiting[0]) * (size_t)(s->nwaiting - i - 1));
	s->nwaiting--;
	dur = r->hdr.ts_ns > d->start ? r->hdr.ts_ns - d->start : 0;
	s->waits++;
	xp_hist_add(&s->wait, dur);
	if (d->tl >= 0) {
		s->tl[d->tl].waits++;
		s->tl[d->tl].wait_ns += dur;
	}
	if (p) {
		p->waits++;
		p->wait_ns += dur;
		if (dur > p->wait_max)
			p->wait_max = dur;
		xp_hist_add(&p->wait, dur);
	}
	if ((th = thread_of(s, r))) {
		th->waits++;
		th->wait_ns += dur;
		if (dur > th->wait_max)
			th->wait_max = dur;
	}
}

int xp_fence_add(struct xp_fence_state *s, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r,
		 struct xp_fence_done *done)
{
	struct xp_fence_done dd, *d = done ? done : &dd;
	struct xp_fence_proc *p = NULL;
	struct xp_fence_live *e = NULL;
	uint64_t ctx, seqno;
	int err;

	if (r->ev >= XP_FENCE_NEV || r->ev >= l->n || !l->present[r->ev])
		return -ENOENT;
	if ((err = xp_rawtp_u64(l, r, "context", &ctx)) || (err = xp_rawtp_u64(l, r, "seqno", &seqno)))
		return err;
	memset(d, 0, sizeof(*d));
	d->ctx = (uint32_t)ctx;
	d->seqno = (uint32_t)seqno;
	/* the BPF copy of a tracepoint's common_flags is not filled in: the table says */
	d->in_task = l->ev[r->ev].proc_ctx;
	s->events++;
	if (r->ev != XP_FENCE_INIT && (e = live_find(s, d->ctx, d->seqno, false)) && e->tl < 0)
		e = NULL;
	d->tl = tl_of(s, r, d->ctx, e ? e->tl : -1);
	if (r->ev == XP_FENCE_INIT || r->ev == XP_FENCE_WAIT_END)
		p = proc_of(s, r);
	switch (r->ev) {
	case XP_FENCE_INIT:
		on_init(s, r, d, p);
		break;
	case XP_FENCE_EMIT:
		if (d->tl >= 0)
			s->tl[d->tl].emitted++;
		if (e)
			e->emit_ts = r->hdr.ts_ns;
		break;
	case XP_FENCE_ENABLE_SIGNAL:
		if (d->tl >= 0)
			s->tl[d->tl].enabled++;
		break;
	case XP_FENCE_SIGNALED:
		on_signaled(s, r, e, d);
		break;
	case XP_FENCE_DESTROY:
		if (d->tl >= 0)
			s->tl[d->tl].destroyed++;
		if (e) {	/* released unsignaled: no longer open */
			s->tl[e->tl].destroyed_unsignaled++;
			s->tl[e->tl].open--;
			e->tl = -2;
		}
		break;
	default:
		on_wait(s, r, d, p);
	}
	return 0;
}

void xp_fence_reset(struct xp_fence_state *s)
{
	for (int i = 0; i < s->ntl; i++) {
		struct xp_fence_tl *t = &s->tl[i], keep = *t;

		memset(t, 0, sizeof(*t));
		memcpy(t->driver, keep.driver, sizeof(t->driver));
		memcpy(t->name, keep.name, sizeof(t->name));
		t->open = keep.open;
	}
	s->nprocs = 0;
	s->nthreads = 0;
	s->events = s->created = s->signaled = s->signaled_unseen = s->waits = s->wait_unseen = 0;
	s->overflow = 0;
	memset(&s->life, 0, sizeof(s->life));
	memset(&s->wait, 0, sizeof(s->wait));
}

uint64_t xp_fence_open(const struct xp_fence_state *s, int tl)
{
	uint64_t n = 0;

	for (int i = 0; i < s->ntl; i++)
		if (tl < 0 || tl == i)
			n += s->tl[i].open;
	return n;
}
