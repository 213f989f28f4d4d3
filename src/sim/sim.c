/* The what-if scheduler: one event loop over every ring (src/sim/sim.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_drm.h"
#include "sim/sim_int.h"

static const char *const policy_names[XP_SIM_NPOLICIES] = {
	"fifo", "rr", "prt", "ht", "drm-fifo", "drm-rr", "drm-fair",
};

const char *xp_sim_policy_name(enum xp_sim_policy p)
{
	return p < XP_SIM_NPOLICIES ? policy_names[p] : "?";
}

int xp_sim_policy_parse(const char *s)
{
	for (int i = 0; i < XP_SIM_NPOLICIES; i++)
		if (!strcmp(s, policy_names[i]))
			return i;
	return -1;
}

/* ---- the engine ---- */

enum { S_PENDING, S_WAITING, S_ONGPU, S_DONE };

/* A task's ready jobs on a ring, by (ready, index): the head goes first. */
struct wq {
	uint32_t *v;
	uint32_t head, n, cap;
};

struct ring {
	uint32_t *gpu;		/* jobs handed, in order: [head, tail) */
	uint32_t head, tail;
	uint64_t tail_end;	/* when the last one handed ends */
	struct wq *q;		/* per task: ready, not handed */
	uint32_t last_task;	/* RR: the task served last */
	uint32_t nreact;	/* reactions used */
};

struct eng {
	const struct xp_sim_input *in;
	const struct xp_sim_params *p;
	struct xp_sim_result *res;
	uint8_t *state;
	uint8_t *deps_left;
	uint32_t *rdeps, *rdep_off;	/* who depends on each job */
	struct ring *rings;
	struct budget *bud;
	struct pred *pred;
	uint32_t *twait;		/* per task: its jobs waiting, on every ring */
	struct xp_sim_drm *drm;		/* the drm-* policies' run queues */
};

static bool before(const struct eng *e, uint32_t a, uint32_t b)
{
	if (e->res->job[a].ready != e->res->job[b].ready)
		return e->res->job[a].ready < e->res->job[b].ready;
	return a < b;
}

/* May the job's task hand it over now, as its reservation says? */
static bool budget_ok(const struct eng *e, uint32_t j)
{
	const struct xp_sim_job *jb = &e->in->jobs[j];
	const struct xp_sim_task *t = &e->in->tasks[jb->task];
	const struct budget *b = &e->bud[jb->task];
	uint64_t pr;

	if (!t->has_res)
		return true;
	if (e->p->enforce == XP_SIM_PE)
		return b->left > 0;
	pred_get(&e->pred[jb->task], e->p->predict, &pr);
	if (b->left >= (int64_t)t->res_c && !b->inflight)
		return true;	/* a whole budget: even a job predicted larger goes */
	return (int64_t)pr <= b->left - b->inflight_pred;
}

static uint32_t on_gpu(const struct ring *r) { return r->tail - r->head; }

static bool wq_empty(const struct wq *q) { return q->head == q->n; }

/* The head of task t's queue on ring r if the task may hand it over now; -1: none. */
static int64_t head_of(const struct eng *e, const struct ring *r, uint32_t t)
{
	const struct wq *q = &r->q[t];

	if (wq_empty(q) || !budget_ok(e, q->v[q->head]))
		return -1;
	return q->v[q->head];
}

struct drm_ready {
	const struct eng *e;
	const struct ring *r;
};

static bool drm_ready(void *ctx, uint32_t t)
{
	const struct drm_ready *c = ctx;

	return head_of(c->e, c->r, t) >= 0;
}

/*
 * The waiting job the policy hands to ring `ri` now; -1: none. A task's
 * jobs on a ring go in ready order and its reservation holds them all
 * alike, so only the heads of the tasks' queues are candidates.
 */
static int64_t pick(struct eng *e, uint16_t ri)
{
	struct ring *r = &e->rings[ri];
	const struct xp_sim_input *in = e->in;
	uint32_t on = on_gpu(r), depth = in->depth && in->depth[ri] ? in->depth[ri] : 1;
	int64_t best = -1, j;

	switch (e->p->policy) {
	case XP_SIM_FIFO:
		if (on >= depth)
			return -1;
		for (uint32_t t = 0; t < in->ntasks; t++)
			if ((j = head_of(e, r, t)) >= 0 && (best < 0 || before(e, (uint32_t)j, (uint32_t)best)))
				best = j;
		return best;
	case XP_SIM_RR:
		if (on >= depth)
			return -1;
		/* the first task after the one served last that has a job to go */
		for (uint32_t d = 1; d <= in->ntasks; d++)
			if ((j = head_of(e, r, (r->last_task + d) % in->ntasks)) >= 0)
				return j;
		return -1;
	case XP_SIM_PRT:
	case XP_SIM_HT: {
		uint32_t running;

		if (on == 0) {
			for (uint32_t t = 0; t < in->ntasks; t++) {
				if ((j = head_of(e, r, t)) < 0)
					continue;
				if (best < 0 || in->tasks[t].prio > in->tasks[in->jobs[best].task].prio ||
				    (in->tasks[t].prio == in->tasks[in->jobs[best].task].prio &&
				     before(e, (uint32_t)j, (uint32_t)best)))
					best = j;
			}
			return best;
		}
		if (e->p->policy == XP_SIM_PRT)
			return -1;
		/* HT on a busy ring: the running task's next job, if nothing higher waits */
		running = in->jobs[r->gpu[r->tail - 1]].task;
		if ((best = head_of(e, r, running)) < 0)
			return -1;
		for (uint32_t t = 0; t < in->ntasks; t++)
			if (t != running && head_of(e, r, t) >= 0 && in->tasks[t].prio > in->tasks[running].prio)
				return -1;
		return best;
	}
	case XP_SIM_DRM_FIFO:
	case XP_SIM_DRM_RR:
	case XP_SIM_DRM_FAIR: {
		struct drm_ready c = { e, r };

		if (on >= depth || (j = xp_sim_drm_select(e->drm, ri, drm_ready, &c)) < 0)
			return -1;
		return head_of(e, r, (uint32_t)j);
	}
	default:
		return -1;
	}
}

static uint64_t reaction(const struct xp_sim_input *in, uint16_t ri, uint32_t k)
{
	uint32_t n;

	if (!in->react || !(n = in->react_off[ri + 1] - in->react_off[ri]))
		return in->overhead;
	return in->react[in->react_off[ri] + k % n];
}

/* the least of the rings' next reactions: how far ahead the drm policies see arrivals */
static uint64_t horizon(const struct eng *e)
{
	uint64_t h = UINT64_MAX;

	for (uint16_t i = 0; i < e->in->nrings; i++) {
		uint64_t r = reaction(e->in, i, e->rings[i].nreact);

		h = r < h ? r : h;
	}
	return h == UINT64_MAX ? 0 : h;
}

static void hand(struct eng *e, uint16_t ri, uint32_t j, uint64_t now)
{
	struct ring *r = &e->rings[ri];
	const struct xp_sim_job *jb = &e->in->jobs[j];
	struct xp_sim_out_job *o = &e->res->job[j];
	struct budget *b = &e->bud[jb->task];
	struct wq *q = &r->q[jb->task];

	q->head++;	/* the job picked is its task's head */
	e->twait[jb->task]--;
	if (e->drm)
		xp_sim_drm_pop(e->drm, ri, jb->task, !wq_empty(q),
			       wq_empty(q) ? 0 : e->in->jobs[q->v[q->head]].arrival);
	o->handed = now;
	o->start = on_gpu(r) ? r->tail_end : now;
	if (e->in->react || o->ready < now) {	/* the scheduler's reaction */
		uint64_t at = now + reaction(e->in, ri, r->nreact++);

		if (at > o->start)
			o->start = at;
	}
	if (o->start < jb->arrival)	/* seen ahead of its arrival (horizon) */
		o->start = jb->arrival;
	o->end = o->start + jb->cost;
	o->has_pred = pred_get(&e->pred[jb->task], e->p->predict, &o->predicted);
	r->gpu[r->tail++] = j;
	r->tail_end = o->end;
	r->last_task = jb->task;
	b->inflight++;
	b->inflight_pred += (int64_t)o->predicted;
	e->state[j] = S_ONGPU;
}

static int make_ready(struct eng *e, uint32_t j, uint64_t now)
{
	const struct xp_sim_job *jb = &e->in->jobs[j];
	struct wq *q = &e->rings[jb->ring].q[jb->task];
	bool was_empty = wq_empty(q);
	uint32_t k;

	e->res->job[j].ready = now;
	e->state[j] = S_WAITING;
	if (q->n == q->cap) {
		uint32_t cap = q->cap ? q->cap * 2 : 16, live = q->n - q->head;
		uint32_t *v = malloc((size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		if (live)
			memcpy(v, q->v + q->head, (size_t)live * sizeof(*v));
		free(q->v);
		q->v = v;
		q->cap = cap;
		q->n = live;
		q->head = 0;
	}
	/* by (ready, index): only jobs ready at this same instant can be behind */
	for (k = q->n; k > q->head && before(e, j, q->v[k - 1]); k--)
		q->v[k] = q->v[k - 1];
	q->v[k] = j;
	q->n++;
	e->twait[jb->task]++;
	if (e->drm && was_empty)	/* the entity joins its run queue */
		xp_sim_drm_push(e->drm, jb->ring, jb->task, jb->arrival);
	return 0;
}

static int complete(struct eng *e, uint32_t j)
{
	const struct xp_sim_job *jb = &e->in->jobs[j];
	struct xp_sim_out_job *o = &e->res->job[j];
	struct budget *b = &e->bud[jb->task];

	refill(&e->in->tasks[jb->task], b, o->end);
	o->overrun = charge(&e->in->tasks[jb->task], b, jb->cost);
	b->inflight--;
	b->inflight_pred -= (int64_t)o->predicted;
	pred_add(&e->pred[jb->task], jb->cost);
	if (e->drm)
		xp_sim_drm_done(e->drm, jb->ring, jb->task, jb->cost);
	e->state[j] = S_DONE;
	for (uint32_t k = e->rdep_off[j]; k < e->rdep_off[j + 1]; k++) {
		uint32_t d = e->rdeps[k];

		if (--e->deps_left[d] == 0 && e->state[d] == S_PENDING && e->in->jobs[d].arrival <= o->end &&
		    make_ready(e, d, o->end))
			return -ENOMEM;
	}
	return 0;
}

static void eng_free(struct eng *e)
{
	if (e->rings)
		for (uint16_t i = 0; i < e->in->nrings; i++) {
			free(e->rings[i].gpu);
			for (uint32_t t = 0; e->rings[i].q && t < e->in->ntasks; t++)
				free(e->rings[i].q[t].v);
			free(e->rings[i].q);
		}
	free(e->rings);
	free(e->state);
	free(e->deps_left);
	free(e->rdeps);
	free(e->rdep_off);
	free(e->bud);
	free(e->pred);
	free(e->twait);
	xp_sim_drm_free(e->drm);
}

static int eng_init(struct eng *e, const struct xp_sim_input *in)
{
	uint32_t n = in->njobs, ndeps = 0;

	for (uint32_t j = 0; j < n; j++) {
		if (in->jobs[j].task >= in->ntasks || in->jobs[j].ring >= in->nrings ||
		    in->jobs[j].ndep > XP_SIM_DEPS)
			return -EINVAL;
		for (int k = 0; k < in->jobs[j].ndep; k++)
			if (in->jobs[j].dep[k] < 0 || (uint32_t)in->jobs[j].dep[k] >= n)
				return -EINVAL;
		ndeps += in->jobs[j].ndep;
	}
	e->state = calloc((size_t)n + 1, 1);
	e->deps_left = calloc((size_t)n + 1, 1);
	e->rdeps = calloc((size_t)ndeps + 1, sizeof(*e->rdeps));
	e->rdep_off = calloc((size_t)n + 2, sizeof(*e->rdep_off));
	e->rings = calloc((size_t)in->nrings + 1, sizeof(*e->rings));
	e->bud = calloc((size_t)in->ntasks + 1, sizeof(*e->bud));
	e->pred = calloc((size_t)in->ntasks + 1, sizeof(*e->pred));
	e->twait = calloc((size_t)in->ntasks + 1, sizeof(*e->twait));
	if (!e->state || !e->deps_left || !e->rdeps || !e->rdep_off || !e->rings || !e->bud || !e->pred ||
	    !e->twait)
		return -ENOMEM;
	for (uint16_t i = 0; i < in->nrings; i++) {
		e->rings[i].gpu = calloc((size_t)n + 1, sizeof(uint32_t));
		e->rings[i].q = calloc((size_t)in->ntasks + 1, sizeof(struct wq));
		e->rings[i].last_task = in->ntasks ? in->ntasks - 1 : 0;
		if (!e->rings[i].gpu || !e->rings[i].q)
			return -ENOMEM;
	}
	/* who depends on whom, as offsets into one array */
	for (uint32_t j = 0; j < n; j++) {
		e->deps_left[j] = in->jobs[j].ndep;
		for (int k = 0; k < in->jobs[j].ndep; k++)
			e->rdep_off[in->jobs[j].dep[k] + 1]++;
	}
	for (uint32_t j = 0; j < n; j++)
		e->rdep_off[j + 1] += e->rdep_off[j];
	{
		uint32_t *fill = calloc((size_t)n + 1, sizeof(*fill));

		if (!fill)
			return -ENOMEM;
		for (uint32_t j = 0; j < n; j++)
			for (int k = 0; k < in->jobs[j].ndep; k++) {
				uint32_t d = (uint32_t)in->jobs[j].dep[k];

				e->rdeps[e->rdep_off[d] + fill[d]++] = j;
			}
		free(fill);
	}
	return 0;
}

static void arrival_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	(void)k2;
	*k1 = ((const struct xp_sim_input *)ctx)->jobs[i].arrival;
}

int xp_sim_run(const struct xp_sim_input *in, const struct xp_sim_params *p,
	       struct xp_sim_result *res)
{
	struct eng e = { .in = in, .p = p, .res = res };
	uint32_t *order = NULL, next = 0, done = 0;
	uint64_t first = UINT64_MAX;
	int err;

	if ((err = xp_sim_result_alloc(in, res)))
		return err;
	if (p->policy >= XP_SIM_DRM_FIFO && p->policy <= XP_SIM_DRM_FAIR && !(e.drm = xp_sim_drm_new(in, p->policy)))
		err = -ENOMEM;
	if (err || (err = eng_init(&e, in)) || !(order = malloc(((size_t)in->njobs + 1) * sizeof(*order)))) {
		err = err ? err : -ENOMEM;
		goto out;
	}
	for (uint32_t j = 0; j < in->njobs; j++)
		if (in->jobs[j].arrival < first)
			first = in->jobs[j].arrival;
	if ((err = xp_sim_order(order, in->njobs, arrival_key, in)))
		goto out;
	for (uint32_t t = 0; t < in->ntasks; t++) {
		e.bud[t].left = (int64_t)in->tasks[t].res_c;
		e.bud[t].next_refill = first + in->tasks[t].res_p;
		if (in->tasks[t].has_res && !in->tasks[t].res_p) {
			err = -EINVAL;
			goto out;
		}
	}
	while (done < in->njobs) {
		uint64_t now = UINT64_MAX;

		/* the next instant anything happens */
		if (next < in->njobs)
			now = in->jobs[order[next]].arrival;
		for (uint16_t i = 0; i < in->nrings; i++)
			if (on_gpu(&e.rings[i]) && res->job[e.rings[i].gpu[e.rings[i].head]].end < now)
				now = res->job[e.rings[i].gpu[e.rings[i].head]].end;
		for (uint32_t t = 0; t < in->ntasks; t++)
			if (e.twait[t] && in->tasks[t].has_res && e.bud[t].next_refill < now)
				now = e.bud[t].next_refill;	/* a refill may let it go */
		if (now == UINT64_MAX) {
			err = -EINVAL;	/* jobs left that nothing will make ready: a cycle */
			goto out;
		}
		for (uint16_t i = 0; i < in->nrings; i++) {
			struct ring *r = &e.rings[i];

			while (on_gpu(r) && res->job[r->gpu[r->head]].end <= now) {
				if ((err = complete(&e, r->gpu[r->head++])))
					goto out;
				done++;
			}
		}
		for (uint32_t t = 0; t < in->ntasks; t++)
			refill(&in->tasks[t], &e.bud[t], now);
		for (; next < in->njobs && in->jobs[order[next]].arrival <= now; next++)
			if (!e.deps_left[order[next]] && (err = make_ready(&e, order[next], now)))
				goto out;
		/* drm_sched chooses when its worker runs, a reaction later: what arrived by then is its to see */
		for (uint64_t by = e.drm ? now + horizon(&e) : now; next < in->njobs && in->jobs[order[next]].arrival <= by;
		     next++)
			if (!e.deps_left[order[next]] && (err = make_ready(&e, order[next], in->jobs[order[next]].arrival)))
				goto out;
		for (uint16_t i = 0; i < in->nrings; i++) {
			int64_t j;

			while ((j = pick(&e, i)) >= 0)
				hand(&e, i, (uint32_t)j, now);
		}
	}
	err = xp_sim_stats_fill(in, res);
out:
	free(order);
	eng_free(&e);
	if (err)
		xp_sim_result_free(res);
	return err;
}
