/* `api`'s join of calls with the DRM scheduler jobs queued inside them, and their completion. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "caps/api/api_stats.h"

static void drop_job(struct xp_api_state *s, int i)
{
	s->job[i] = s->job[--s->njob];
}

/* A call whose jobs all ended: its call -> done time, or never done. */
static void call_done(struct xp_api_state *s, const struct xp_api_rec *call, bool undone, uint64_t last)
{
	struct xp_api_row *w = xp_api_row_of(s, call);

	if (!w) {
		s->rows_full++;
		return;
	}
	if (undone)
		w->undone++;
	else
		xp_hist_add(&w->done, last > call->hdr.ts_ns ? last - call->hdr.ts_ns : 0);
}

static bool holds(const struct xp_api_rec *call, uint32_t tid, uint64_t ts)
{
	return call->hdr.tid == tid && ts >= call->hdr.ts_ns && ts <= call->end_ns;
}

static void job_queued(void *ctx, const struct xp_sched_job_ref *r)
{
	struct xp_api_state *s = ctx;
	struct xp_api_job *j;

	s->jobs_queued++;
	if (s->njob == XP_API_JOBS) {
		int old = -1;

		/* the oldest job no call has claimed yet goes; those calls wait for stay */
		for (int i = 0; i < s->njob; i++)
			if (!s->job[i].claimed && (old < 0 || s->job[i].q_ts < s->job[old].q_ts))
				old = i;
		if (old < 0) {
			s->jobs_lost++;
			return;
		}
		s->jobs_let_go++;
		drop_job(s, old);
	}
	j = &s->job[s->njob++];
	*j = (struct xp_api_job){ .k1 = r->k1, .k2 = r->k2, .q_ts = r->ts, .tid = r->tid, .gen = r->gen };
	strncpy(j->ring, r->ring, XP_API_RING - 1);
}

static void job_ended(void *ctx, const struct xp_sched_job_ref *r, bool done)
{
	struct xp_api_state *s = ctx;
	struct xp_api_job *j;
	int i = 0;

	while (i < s->njob && (s->job[i].gen != r->gen || s->job[i].k1 != r->k1 || s->job[i].k2 != r->k2 ||
			       s->job[i].ended))
		i++;
	if (i == s->njob)
		return;		/* not held: let go, or queued before it was followed */
	j = &s->job[i];
	j->ended = true;
	j->done = done;
	j->end_ts = r->ts;
	/* the calls that returned around it: every one of them waits for it */
	for (int k = 0; k < s->nwait; k++) {
		struct xp_api_wait *w = &s->wait[k];

		if (!holds(&w->call, j->tid, j->q_ts))
			continue;
		if (!done)
			w->undone = true;
		else if (r->ts > w->last_done)
			w->last_done = r->ts;
		if (--w->left)
			continue;
		call_done(s, &w->call, w->undone, w->last_done);
		s->wait[k--] = s->wait[--s->nwait];
	}
	/* calls around it still to come (it was not claimed yet) read its end from here */
	if (j->claimed)
		drop_job(s, i);
}

int xp_api_follow_jobs(struct xp_api_state *s, struct xp_sched_listener *lis)
{
	if (!s->job)
		s->job = calloc(XP_API_JOBS, sizeof(*s->job));
	if (!s->wait)
		s->wait = calloc(XP_API_WAITS, sizeof(*s->wait));
	if (!s->job || !s->wait)
		return -ENOMEM;
	s->jobs_on = true;
	*lis = (struct xp_sched_listener){ job_queued, job_ended, s };
	return 0;
}

void xp_api_join_jobs(struct xp_api_state *s, const struct xp_api_rec *r, struct xp_api_row *w,
		      struct xp_api_joined *jn)
{
	uint32_t open = 0;
	bool undone = false;
	uint64_t last = 0;

	for (int i = 0; i < s->njob; i++) {
		struct xp_api_job *j = &s->job[i];
		bool inside = holds(r, j->tid, j->q_ts);

		if (j->tid != r->hdr.tid)
			continue;
		if (inside) {
			if (!jn->jobs++)
				memcpy(jn->ring, j->ring, XP_API_RING);
			else if (strcmp(jn->ring, j->ring))
				jn->rings_many = true;
			if (!j->ended)
				open++;
			else if (!j->done)
				undone = true;
			else if (j->end_ts > last)
				last = j->end_ts;
		}
		/* the outermost call's return: what came before it on its thread is settled */
		if (r->depth || j->q_ts > r->end_ns)
			continue;
		if (!inside && !j->claimed) {
			s->jobs_outside++;
			drop_job(s, i--);
		} else if (inside && j->ended) {
			drop_job(s, i--);
		} else {
			j->claimed = true;
		}
	}
	jn->jobs_open = open;
	jn->done_ts = open ? 0 : last;
	if (w) {
		w->jobs += jn->jobs;
		if (jn->jobs > w->max_jobs)
			w->max_jobs = jn->jobs;
		if (!jn->jobs)
			w->no_job++;
	}
	if (!jn->jobs || !w)
		return;
	if (!open) {
		call_done(s, r, undone, last);
		return;
	}
	if (s->nwait == XP_API_WAITS) {
		s->calls_unfollowed++;
		return;
	}
	s->wait[s->nwait++] = (struct xp_api_wait){ .call = *r, .left = open, .undone = undone, .last_done = last };
}

void xp_api_finish(struct xp_api_state *s)
{
	for (int k = 0; k < s->nwait; k++)
		call_done(s, &s->wait[k].call, true, 0);
	s->calls_open_at_end += (uint64_t)s->nwait;
	s->nwait = 0;
	/* jobs no call claimed: none of their thread's calls returned around them */
	for (int i = 0; i < s->njob; i++)
		if (!s->job[i].claimed)
			s->jobs_outside++;
	s->njob = 0;
}
