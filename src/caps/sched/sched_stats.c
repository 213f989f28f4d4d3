#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/sched/sched_stats.h"
#include "core/tracefile.h"
#include "caps/sched/sched_int.h"

const struct xp_rec_kind xp_sched_rec_kind = {
	.type = XP_REC_SCHED, .min_size = sizeof(struct xp_rawtp_rec), .name = "sched",
	XP_RAWTP_PACK,
};

int xp_sched_feed(struct xp_sched_state *s, const struct xp_rawtp_layout *l,
		  const struct xp_rawtp_rec *r)
{
	struct xp_sched_event ev;
	int err = xp_sched_decode(l, r, &ev);

	if (err)
		return err;
	err = xp_sched_add(s, &ev);
	/* age jobs whose end was never seen, once a second of trace time */
	if (ev.ts > s->last_expire + 1000000000ULL) {
		xp_sched_expire(s, ev.ts);
		s->last_expire = ev.ts;
	}
	return err;
}

/* ---- rings, processes, counters ---- */

static int ring_idx(struct xp_sched_state *s, const char *name)
{
	for (int i = 0; i < s->nrings; i++)
		if (!strcmp(s->rings[i].name, name))
			return i;
	if (s->nrings < XP_SCHED_MAX_RINGS) {
		snprintf(s->rings[s->nrings].name, XP_SCHED_STR, "%s", name);
		return s->nrings++;
	}
	strcpy(s->rings[XP_SCHED_MAX_RINGS].name, "(other)");
	return XP_SCHED_MAX_RINGS;
}

static int proc_idx(struct xp_sched_state *s, const struct xp_sched_event *ev)
{
	for (int i = 0; i < s->nprocs; i++) {
		struct xp_sched_proc *p = &s->procs[i];

		if (p->pid == ev->pid && p->has_client == ev->has_client &&
		    p->client_id == ev->client_id) {
			memcpy(p->comm, ev->comm, XP_COMM_LEN);	/* the latest name (exec) */
			return i;
		}
	}
	if (s->nprocs == s->proccap) {
		int cap = s->proccap ? s->proccap * 2 : 16;
		struct xp_sched_proc *n = realloc(s->procs, (size_t)cap * sizeof(*n));

		if (!n)
			return -1;
		s->procs = n;
		s->proccap = cap;
	}
	memset(&s->procs[s->nprocs], 0, sizeof(s->procs[0]));
	s->procs[s->nprocs].pid = ev->pid;
	memcpy(s->procs[s->nprocs].comm, ev->comm, XP_COMM_LEN);
	s->procs[s->nprocs].has_client = ev->has_client;
	s->procs[s->nprocs].client_id = ev->client_id;
	return s->nprocs++;
}

/* Does this job pass the filters? Unknown process: only without process filters. */
static bool match(const struct xp_sched_state *s, const struct xp_sched_job *j)
{
	if (s->filt.ring && (j->ring < 0 || strcmp(s->rings[j->ring].name, s->filt.ring)))
		return false;
	if (!s->filt.pid && !s->filt.comm && !s->filt.cgroup)
		return true;
	if (!(j->flags & J_PROC))
		return false;
	if (s->filt.pid && j->pid != s->filt.pid)
		return false;
	if (s->filt.comm && strncmp(j->comm, s->filt.comm, XP_COMM_LEN - 1))
		return false;
	return true;
}

/* Calls fn on the ring and process counters of a job that passes the filters. */
#define FOR_COUNTS(s, j, c, body)                                                      \
	do {                                                                           \
		if (match(s, j)) {                                                     \
			struct xp_sched_counts *c;                                     \
			if ((j)->ring >= 0) {                                          \
				c = &(s)->rings[(j)->ring].c;                          \
				body;                                                  \
			}                                                              \
			if ((j)->proc >= 0) {                                          \
				c = &(s)->procs[(j)->proc].c;                          \
				body;                                                  \
			}                                                              \
		}                                                                      \
	} while (0)

static void gauge_max(struct xp_sched_counts *c)
{
	if (c->pending > c->max_pending)
		c->max_pending = c->pending;
	if (c->inflight > c->max_inflight)
		c->max_inflight = c->inflight;
}

static void run_start(struct xp_sched_counts *c, uint64_t ts)
{
	if (c->running++ == 0)
		c->busy_since = ts;
}

static void run_end(struct xp_sched_counts *c, uint64_t ts)
{
	if (c->running <= 0)
		return;
	if (--c->running == 0 && ts > c->busy_since)
		c->busy_ns += ts - c->busy_since;
}

uint64_t xp_sched_busy_ns(const struct xp_sched_counts *c, uint64_t now)
{
	return c->busy_ns + (c->running > 0 && now > c->busy_since ? now - c->busy_since : 0);
}

/* Counts a job in (+1) or out (-1) of the pending or running gauges it passes. */
static void gauge(struct xp_sched_state *s, struct xp_sched_job *j, bool running, int d,
		  uint64_t ts)
{
	uint16_t br = running ? J_RUN_R : J_PEND_R, bp = running ? J_RUN_P : J_PEND_P;
	struct xp_sched_counts *cs[2] = { NULL, NULL };
	uint16_t bits[2] = { br, bp };

	if (d > 0 && match(s, j)) {
		if (j->ring >= 0 && !(j->flags & br))
			cs[0] = &s->rings[j->ring].c;
		if (j->proc >= 0 && !(j->flags & bp))
			cs[1] = &s->procs[j->proc].c;
	} else if (d < 0) {
		if (j->flags & br)
			cs[0] = &s->rings[j->ring].c;
		if (j->flags & bp)
			cs[1] = &s->procs[j->proc].c;
	}
	for (int k = 0; k < 2; k++) {
		struct xp_sched_counts *c = cs[k];

		if (!c)
			continue;
		if (d > 0)
			j->flags |= bits[k];
		else
			j->flags &= (uint16_t)~bits[k];
		if (running) {
			c->inflight += d;
			if (d > 0)
				run_start(c, ts);
			else
				run_end(c, ts);
		} else {
			c->pending += d;
		}
		gauge_max(c);
	}
}

static void ungauge(struct xp_sched_state *s, struct xp_sched_job *j, uint64_t ts)
{
	gauge(s, j, false, -1, ts);
	gauge(s, j, true, -1, ts);
}

/* The listener's view of a job at `ts`. */
static void tell(struct xp_sched_state *s, const struct xp_sched_job *j, uint64_t ts, int done)
{
	struct xp_sched_job_ref ref = {
		.gen = j->gen, .k1 = j->k1, .k2 = j->k2, .pid = j->pid, .tid = j->tid, .ts = ts,
		.ring = j->ring >= 0 ? s->rings[j->ring].name : "",
	};

	if (done < 0)
		s->lis.queued(s->lis.ctx, &ref);
	else
		s->lis.ended(s->lis.ctx, &ref, done);
}

/* A job ends: counted as done (complete) or incomplete, then forgotten. */
static void end_job(struct xp_sched_state *s, uint32_t idx, uint64_t ts, bool complete)
{
	struct xp_sched_job *j = sch_J(s, idx);

	if (s->lis.queued && (j->flags & J_QUEUED))
		tell(s, j, ts, complete);
	ungauge(s, j, ts);
	FOR_COUNTS(s, j, c, (c->deps += j->deps, c->unsched += j->unsched,
			     c->waited += j->wait_ts != 0));
	if (complete) {
		struct xp_sched_job_info info = {
			.gen = j->gen,
			.ring = j->ring >= 0 ? s->rings[j->ring].name : "",
			.pid = j->pid, .tid = j->tid,
			.k1 = j->k1, .k2 = j->k2,
			.has_queue = j->flags & J_QUEUED, .has_run = j->flags & J_RUN,
			.q_ts = j->q_ts, .run_ts = j->run_ts, .done_ts = ts,
			.deps = j->deps, .unsched = j->unsched,
			.inferred = j->flags & J_INFERRED,
		};

		memcpy(info.comm, j->comm, XP_COMM_LEN);
		if (j->proc >= 0) {
			info.has_client = s->procs[j->proc].has_client;
			info.client_id = s->procs[j->proc].client_id;
		}
		sch_deps_ready(s, j);
		if ((j->flags & J_RUN) && ((j->flags & J_DEPREADY) || j->wait_ts)) {
			info.has_depwait = true;
			info.depwait_exact = sch_dep_wait(j, &info.depwait_ns);
		}
		info.ndep = j->ndep;
		for (int i = 0; i < j->ndep; i++) {
			const struct xp_sched_dep *d = &j->dep[i];

			info.dep[i] = (struct xp_sched_dep_info){
				.ctx = d->ctx, .seqno = d->seqno, .known = d->ring >= 0,
				.ring = d->ring >= 0 ? s->rings[d->ring].name : "", .pid = d->pid,
				.signaled = d->done_ts != 0, .signal_ts = d->done_ts,
			};
		}
		if (!(j->flags & J_RUN))
			s->missing_run++;
		if (j->flags & J_INFERRED) {
			s->inferred++;
			info.has_run = false;	/* its execution time is unknown */
		}
		FOR_COUNTS(s, j, c, c->done++);
		sch_remember_done(s, j, ts);
		if ((j->flags & J_RUN) && !(j->flags & J_INFERRED)) {
			uint64_t exec = ts > j->run_ts ? ts - j->run_ts : 0;

			if (ts < j->run_ts)
				s->out_of_order++;
			FOR_COUNTS(s, j, c, xp_hist_add(&c->exec, exec));
		}
		if (s->on_job && match(s, j))
			s->on_job(s->cb_ctx, &info);
	} else {
		s->evicted++;
		FOR_COUNTS(s, j, c, c->incomplete++);
	}
	sch_release(s, idx);
}

/*
 * A job's finished fence signals only after those of the jobs its entity
 * ran before it (a fence context signals in order), so when its done
 * arrives, the entity's jobs that ran earlier and are still open have
 * completed too: their done was lost. That happens with classic
 * tracepoints when the done (hard interrupt) lands on a CPU while another
 * BPF program runs there: the kernel skips the nested program.
 */
static void infer_earlier(struct xp_sched_state *s, uint32_t idx, uint64_t ts)
{
	struct xp_sched_job *x = sch_J(s, idx);
	int r = x->ring >= 0 ? x->ring : XP_SCHED_MAX_RINGS;
	uint32_t i, next;

	if (!(x->flags & J_ONRUNLIST) || !x->entity)
		return;
	for (i = s->run_head[r]; i && i != idx; i = next) {
		struct xp_sched_job *j = sch_J(s, i);

		next = j->rnext;
		if (j->entity == x->entity && j->gen == x->gen) {
			j->flags |= J_INFERRED;
			end_job(s, i, ts, true);
		}
	}
}

static uint32_t oldest(struct xp_sched_state *s)
{
	uint32_t best = 0;

	for (uint32_t i = 1; i <= s->cap; i++)
		if (sch_J(s, i)->used && (!best || sch_J(s, i)->last_ts < sch_J(s, best)->last_ts))
			best = i;
	return best;
}

static uint32_t create(struct xp_sched_state *s, uint8_t gen, uint64_t k1, uint64_t k2,
		       uint64_t ts)
{
	struct xp_sched_job *j;
	uint32_t idx, *h;

	if (!s->free_head)
		end_job(s, oldest(s), ts, false);	/* full: the stalest job gives way */
	idx = s->free_head;
	j = sch_J(s, idx);
	s->free_head = j->next;
	memset(j, 0, sizeof(*j));
	j->used = 1;
	j->gen = gen;
	j->k1 = k1;
	j->k2 = k2;
	j->ring = -1;
	j->proc = -1;
	j->last_ts = ts;
	h = &s->heads[sch_hash64(k1, k2 ^ gen) & (s->nbuckets - 1)];
	j->next = *h;
	*h = idx;
	s->nused++;
	return idx;
}

static void qdelay(struct xp_sched_state *s, struct xp_sched_job *j)
{
	uint64_t d;

	if ((j->flags & (J_QUEUED | J_RUN)) != (J_QUEUED | J_RUN) || (j->flags & J_QDELAY))
		return;
	j->flags |= J_QDELAY;
	if (j->run_ts < j->q_ts)
		s->out_of_order++;
	d = j->run_ts > j->q_ts ? j->run_ts - j->q_ts : 0;
	FOR_COUNTS(s, j, c, xp_hist_add(&c->qdelay, d));
	sch_deps_ready(s, j);
	if ((j->flags & J_DEPREADY) || j->wait_ts) {
		sch_dep_wait(j, &d);
		FOR_COUNTS(s, j, c, xp_hist_add(&c->depwait, d));
	}
}

static void counts_from_event(struct xp_sched_state *s, struct xp_sched_job *j,
			      const struct xp_sched_event *ev)
{
	if (!ev->has_counts)
		return;
	FOR_COUNTS(s, j, c, ({
		c->last_job_count = ev->job_count;
		c->last_hw_job_count = ev->hw_job_count;
		if (ev->job_count > c->max_job_count)
			c->max_job_count = ev->job_count;
		if (ev->hw_job_count > c->max_hw_job_count)
			c->max_hw_job_count = ev->hw_job_count;
	}));
}

/* A queue event: the job's process, its place in the counts, the pending gauge. */
static void on_queue(struct xp_sched_state *s, struct xp_sched_job *j, uint32_t idx,
		     const struct xp_sched_event *ev)
{
	if (j->flags & J_QUEUED) {
		s->duplicates++;
		return;
	}
	j->flags |= J_QUEUED;
	j->q_ts = ev->ts;
	if (!(j->flags & J_PROC)) {
		int p = proc_idx(s, ev);

		j->flags |= J_PROC;
		j->pid = ev->pid;
		j->tid = ev->tid;
		memcpy(j->comm, ev->comm, XP_COMM_LEN);
		j->proc = p;
		/* a run seen before its queue was counted without the process */
		if (j->flags & J_RUNNING)
			gauge(s, j, true, +1, j->run_ts);
	}
	if (ev->gen == 1)
		sch_set_fence(s, idx, ev->fence);
	FOR_COUNTS(s, j, c, c->queued++);
	counts_from_event(s, j, ev);
	if (!(j->flags & J_RUN))
		gauge(s, j, false, +1, ev->ts);
	qdelay(s, j);
	if (s->lis.queued)
		tell(s, j, ev->ts, -1);
}

/* A run event: pending to in flight, and the job joins its ring's run list. */
static void on_run(struct xp_sched_state *s, struct xp_sched_job *j, uint32_t idx,
		   const struct xp_sched_event *ev)
{
	if (j->flags & J_RUN) {
		s->duplicates++;
		return;
	}
	gauge(s, j, false, -1, ev->ts);
	j->flags |= J_RUN | J_RUNNING;
	j->run_ts = ev->ts;
	if (ev->gen == 1)
		sch_set_fence(s, idx, ev->fence);
	FOR_COUNTS(s, j, c, c->run++);
	gauge(s, j, true, +1, ev->ts);
	if (!(j->flags & J_ONRUNLIST)) {
		int rr = j->ring >= 0 ? j->ring : XP_SCHED_MAX_RINGS;

		j->flags |= J_ONRUNLIST;
		j->rprev = s->run_tail[rr];
		j->rnext = 0;
		if (s->run_tail[rr])
			sch_J(s, s->run_tail[rr])->rnext = idx;
		else
			s->run_head[rr] = idx;
		s->run_tail[rr] = idx;
	}
	counts_from_event(s, j, ev);
	qdelay(s, j);
}

/* A dependency: named by a traced job when it is one, its wait started. */
static void on_dep(struct xp_sched_state *s, struct xp_sched_job *j, uint32_t idx,
		   const struct xp_sched_event *ev)
{
	if (j->ndep < XP_SCHED_DEPS) {
		struct xp_sched_dep *d = &j->dep[j->ndep++];
		uint32_t dj;

		*d = (struct xp_sched_dep){ .a = ev->gen == 1 ? ev->dep_fence : ev->dep_ctx,
					    .b = ev->gen == 1 ? 0 : ev->dep_seqno,
					    .ctx = ev->dep_ctx, .seqno = ev->dep_seqno, .ring = -1 };
		dj = !d->a ? 0 : ev->gen == 1 ? sch_find_fence(s, d->a) : sch_find(s, 2, d->a, d->b);
		if (dj && dj != idx) {
			/* still open: its completion is yet to come */
			d->since = ev->ts;
			d->ring = sch_J(s, dj)->ring;
			d->pid = sch_J(s, dj)->pid;
		} else {
			sch_resolve_dep(s, ev->gen, d);	/* done recently, perhaps */
		}
	}
	j->deps++;
	if (ev->gen == 1 && !j->wait_ts && !(j->flags & J_RUN))
		j->wait_ts = ev->ts;	/* 6.16-: taken by the scheduler, waited on until run */
}

/* A done event: the job it ends, and the earlier ones of its entity it implies. */
static void on_done(struct xp_sched_state *s, uint64_t k1, uint64_t k2, const struct xp_sched_event *ev)
{
	uint32_t idx = ev->gen == 1 ? sch_find_fence(s, ev->fence) : sch_find(s, 2, k1, k2);

	if (!idx) {
		s->unmatched++;	/* queued before we started, or a duplicate */
		return;
	}
	infer_earlier(s, idx, ev->ts);
	end_job(s, idx, ev->ts, true);
}

/* 6.1 reuses a freed fence's address: a job still holding it lost its done. */
static void fence_reused(struct xp_sched_state *s, uint32_t idx, const struct xp_sched_event *ev)
{
	uint32_t other = sch_find_fence(s, ev->fence);

	if (other && other != idx) {
		/* its fence was freed, so it completed; only its done was lost */
		bool ran = sch_J(s, other)->flags & J_RUN;

		sch_J(s, other)->flags |= J_INFERRED;
		end_job(s, other, ev->ts, ran);
	}
}

int xp_sched_add(struct xp_sched_state *s, const struct xp_sched_event *ev)
{
	int ring = ev->ring[0] ? ring_idx(s, ev->ring) : -1;
	/* the job's key: ring and job id up to 6.16, fence context and seqno from 6.17 */
	uint64_t k1 = ev->gen == 1 ? (ring >= 0 ? (uint64_t)ring : 0) : ev->ctx;
	uint64_t k2 = ev->gen == 1 ? ev->job_id : ev->seqno;
	struct xp_sched_job *j;
	uint32_t idx;

	s->events++;
	if (!s->gen)
		s->gen = ev->gen;
	if (ev->ts > s->last_ts)
		s->last_ts = ev->ts;
	if (ev->kind == XP_SCHED_DONE) {
		on_done(s, k1, k2, ev);
		return 0;
	}
	idx = sch_find(s, ev->gen, k1, k2);
	if (ev->gen == 1 && (ev->kind == XP_SCHED_QUEUE || ev->kind == XP_SCHED_RUN))
		fence_reused(s, idx, ev);
	if (!idx)
		idx = create(s, ev->gen, k1, k2, ev->ts);
	j = sch_J(s, idx);
	j->last_ts = ev->ts;
	if (j->ring < 0 && ring >= 0 && !(j->flags & J_ONRUNLIST)) {
		/* a job that waited in the table for its ring (6.17 deps before queue) */
		j->ring = (int16_t)ring;
	}
	if (!j->entity && (ev->kind == XP_SCHED_QUEUE || ev->kind == XP_SCHED_RUN))
		j->entity = ev->gen == 1 ? ev->entity : ev->ctx;
	switch (ev->kind) {
	case XP_SCHED_QUEUE: on_queue(s, j, idx, ev); break;
	case XP_SCHED_RUN: on_run(s, j, idx, ev); break;
	case XP_SCHED_DEP: on_dep(s, j, idx, ev); break;
	case XP_SCHED_UNSCHED:
		j->unsched++;
		if (!j->wait_ts && !(j->flags & J_RUN))
			j->wait_ts = ev->ts;
		break;
	case XP_SCHED_DONE:
		break;
	}
	return 0;
}

void xp_sched_expire(struct xp_sched_state *s, uint64_t now)
{
	if (now < s->max_age_ns)
		return;
	for (uint32_t i = 1; i <= s->cap; i++)
		if (sch_J(s, i)->used && sch_J(s, i)->last_ts < now - s->max_age_ns)
			end_job(s, i, now, false);
}

void xp_sched_finish(struct xp_sched_state *s, uint64_t now)
{
	for (uint32_t i = 1; i <= s->cap; i++)
		if (sch_J(s, i)->used) {
			s->open_at_end++;
			end_job(s, i, now, false);
		}
}

static void reset_counts(struct xp_sched_counts *c, uint64_t now)
{
	struct xp_sched_counts keep = *c;

	memset(c, 0, sizeof(*c));
	c->pending = keep.pending;
	c->inflight = keep.inflight;
	c->max_pending = keep.pending;
	c->max_inflight = keep.inflight;
	c->last_job_count = c->max_job_count = keep.last_job_count;
	c->last_hw_job_count = c->max_hw_job_count = keep.last_hw_job_count;
	c->running = keep.running;
	c->busy_since = keep.running > 0 ? now : 0;
}

void xp_sched_reset(struct xp_sched_state *s, uint64_t now)
{
	for (int i = 0; i <= XP_SCHED_MAX_RINGS; i++)
		reset_counts(&s->rings[i].c, now);
	for (int i = 0; i < s->nprocs; i++)
		reset_counts(&s->procs[i].c, now);
	s->events = s->duplicates = s->unmatched = s->evicted = 0;
	s->missing_run = s->out_of_order = s->inferred = s->open_at_end = 0;
}
