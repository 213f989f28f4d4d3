/* The what-if scheduler: one event loop over every ring (src/sim/sim.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

static const char *const policy_names[XP_SIM_NPOLICIES] = { "fifo", "rr", "prt", "ht" };

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

uint64_t xp_sim_pct(const uint64_t *v, uint32_t n, double pct)
{
	uint32_t k;

	if (!n)
		return 0;
	k = (uint32_t)(pct / 100.0 * n + 0.999999);	/* nearest rank: ceil(p n) */
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

/* ---- cost prediction from a task's completed jobs ---- */

struct pred {
	uint64_t hist[XP_SIM_HISTORY];
	uint32_t n;		/* completed so far */
	uint64_t sum, last;
};

static void pred_add(struct pred *p, uint64_t cost)
{
	p->hist[p->n % XP_SIM_HISTORY] = cost;
	p->n++;
	p->sum += cost;
	p->last = cost;
}

static bool pred_get(const struct pred *p, enum xp_sim_predict how, uint64_t *out)
{
	uint32_t k;
	uint64_t s = 0;

	if (!p->n) {
		*out = 0;
		return false;
	}
	switch (how) {
	case XP_SIM_PRED_LAST:
		*out = p->last;
		break;
	case XP_SIM_PRED_MEAN:
		*out = p->sum / p->n;
		break;
	default:
		k = p->n < XP_SIM_HISTORY ? p->n : XP_SIM_HISTORY;
		for (uint32_t i = 0; i < k; i++)
			s += p->hist[i];
		*out = s / k;
		break;
	}
	return true;
}

/* ---- a task's reservation ---- */

struct budget {
	int64_t left;		/* may be negative: a debt */
	uint64_t next_refill;
	int64_t inflight_pred;	/* AE: predicted cost of its jobs handed, not completed */
	uint32_t inflight;
};

static void refill(const struct xp_sim_task *t, struct budget *b, uint64_t now)
{
	while (t->has_res && b->next_refill <= now) {
		b->left += (int64_t)t->res_c;
		if (b->left > (int64_t)t->res_c)
			b->left = (int64_t)t->res_c;
		b->next_refill += t->res_p;
	}
}

/* Charges a completed job; whether it overran what was left. */
static bool charge(const struct xp_sim_task *t, struct budget *b, uint64_t cost)
{
	bool over;

	if (!t->has_res)
		return false;
	over = (int64_t)cost > b->left;
	b->left -= (int64_t)cost;
	return over;
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
	default:
		return -1;
	}
}

static void hand(struct eng *e, uint16_t ri, uint32_t j, uint64_t now)
{
	struct ring *r = &e->rings[ri];
	const struct xp_sim_job *jb = &e->in->jobs[j];
	struct xp_sim_out_job *o = &e->res->job[j];
	struct budget *b = &e->bud[jb->task];

	r->q[jb->task].head++;	/* the job picked is its task's head */
	e->twait[jb->task]--;
	o->handed = now;
	if (on_gpu(r))
		o->start = r->tail_end;
	else
		o->start = now + (o->ready < now ? e->in->overhead : 0);
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
	e->state[j] = S_DONE;
	for (uint32_t k = e->rdep_off[j]; k < e->rdep_off[j + 1]; k++) {
		uint32_t d = e->rdeps[k];

		if (--e->deps_left[d] == 0 && e->state[d] == S_PENDING && e->in->jobs[d].arrival <= o->end &&
		    make_ready(e, d, o->end))
			return -ENOMEM;
	}
	return 0;
}

int xp_sim_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct okey {
	uint64_t k1, k2;
	uint32_t i;
};

static int okey_cmp(const void *a, const void *b)
{
	const struct okey *x = a, *y = b;

	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int xp_sim_order(uint32_t *idx, uint32_t n,
		 void (*keys)(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2), const void *ctx)
{
	struct okey *k = malloc(((size_t)n + 1) * sizeof(*k));

	if (!k)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		k[i].i = i;
		k[i].k2 = 0;
		keys(ctx, i, &k[i].k1, &k[i].k2);
	}
	qsort(k, n, sizeof(*k), okey_cmp);
	for (uint32_t i = 0; i < n; i++)
		idx[i] = k[i].i;
	free(k);
	return 0;
}

/* The statistics of a schedule whose ends, overruns and predictions are set. */
static int stats(const struct xp_sim_input *in, struct xp_sim_result *res)
{
	uint64_t *resp = malloc(((size_t)in->njobs + 1) * sizeof(*resp));
	uint64_t *cost = calloc((size_t)in->ntasks + 1, sizeof(*cost));
	double *err = calloc((size_t)in->ntasks + 1, sizeof(*err));
	double span;

	if (!resp || !cost || !err) {
		free(resp);
		free(cost);
		free(err);
		return -ENOMEM;
	}
	res->first = UINT64_MAX;
	res->last = 0;
	for (uint32_t j = 0; j < in->njobs; j++) {
		if (in->jobs[j].arrival < res->first)
			res->first = in->jobs[j].arrival;
		if (res->job[j].end > res->last)
			res->last = res->job[j].end;
	}
	for (uint32_t t = 0; t <= in->ntasks; t++) {
		struct xp_sim_stats *s = t < in->ntasks ? &res->task[t] : &res->all;
		uint32_t n = 0;
		double sum = 0;
		uint64_t lo = UINT64_MAX, hi = 0;

		memset(s, 0, sizeof(*s));
		for (uint32_t j = 0; j < in->njobs; j++) {
			const struct xp_sim_job *jb = &in->jobs[j];
			const struct xp_sim_out_job *o = &res->job[j];
			uint64_t rt = o->end > jb->arrival ? o->end - jb->arrival : 0;

			if (t < in->ntasks && jb->task != t)
				continue;
			resp[n++] = rt;
			lo = jb->arrival < lo ? jb->arrival : lo;
			hi = o->end > hi ? o->end : hi;
			sum += (double)rt;
			cost[t] += jb->cost;
			if (jb->cost > s->max_cost)
				s->max_cost = jb->cost;
			if (in->tasks[jb->task].deadline && rt > in->tasks[jb->task].deadline)
				s->missed++;
			s->overruns += o->overrun;
			if (o->has_pred && jb->cost) {
				double d = (double)o->predicted - (double)jb->cost;

				err[t] += (d < 0 ? -d : d) / (double)jb->cost;
				s->npred++;
			}
		}
		qsort(resp, n, sizeof(*resp), xp_sim_cmp_u64);
		s->jobs = n;
		s->p50 = xp_sim_pct(resp, n, 50);
		s->p99 = xp_sim_pct(resp, n, 99);
		s->max = n ? resp[n - 1] : 0;
		s->mean = n ? sum / n : 0;
		/* a task's own span: from its first arrival to its last completion */
		span = n && hi > lo ? (double)(hi - lo) / 1e9 : 0;
		s->jobs_per_s = span > 0 ? n / span : 0;
		s->util = span > 0 ? (double)cost[t] / 1e9 / span : 0;
		s->pred_err = s->npred ? 100.0 * err[t] / s->npred : 0;
	}
	free(resp);
	free(cost);
	free(err);
	return 0;
}

static int alloc_result(const struct xp_sim_input *in, struct xp_sim_result *res)
{
	memset(res, 0, sizeof(*res));
	res->job = calloc((size_t)in->njobs + 1, sizeof(*res->job));
	res->task = calloc((size_t)in->ntasks + 1, sizeof(*res->task));
	if (!res->job || !res->task) {
		xp_sim_result_free(res);
		return -ENOMEM;
	}
	return 0;
}

void xp_sim_result_free(struct xp_sim_result *res)
{
	free(res->job);
	free(res->task);
	res->job = NULL;
	res->task = NULL;
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

	if ((err = alloc_result(in, res)))
		return err;
	if ((err = eng_init(&e, in)) || !(order = malloc(((size_t)in->njobs + 1) * sizeof(*order)))) {
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
		for (uint16_t i = 0; i < in->nrings; i++) {
			int64_t j;

			while ((j = pick(&e, i)) >= 0)
				hand(&e, i, (uint32_t)j, now);
		}
	}
	err = stats(in, res);
out:
	free(order);
	eng_free(&e);
	if (err)
		xp_sim_result_free(res);
	return err;
}

static void end_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	(void)k2;
	*k1 = ((const struct xp_sim_result *)ctx)->job[i].end;
}

static void start_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	(void)k2;
	*k1 = ((const struct xp_sim_result *)ctx)->job[i].start;
}

int xp_sim_recorded(const struct xp_sim_input *in, enum xp_sim_predict predict,
		    struct xp_sim_result *res)
{
	struct budget *bud = NULL;
	struct pred *pred = NULL;
	uint32_t *order = NULL;
	uint64_t first = UINT64_MAX;
	int err;

	if ((err = alloc_result(in, res)))
		return err;
	bud = calloc((size_t)in->ntasks + 1, sizeof(*bud));
	pred = calloc((size_t)in->ntasks + 1, sizeof(*pred));
	order = malloc(((size_t)in->njobs + 1) * sizeof(*order));
	if (!bud || !pred || !order) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t j = 0; j < in->njobs; j++) {
		struct xp_sim_out_job *o = &res->job[j];

		o->ready = in->jobs[j].arrival;
		o->handed = o->start = in->jobs[j].rec_run;
		o->end = in->jobs[j].rec_done;
		if (in->jobs[j].arrival < first)
			first = in->jobs[j].arrival;
	}
	for (uint32_t t = 0; t < in->ntasks; t++) {
		bud[t].left = (int64_t)in->tasks[t].res_c;
		bud[t].next_refill = first + in->tasks[t].res_p;
	}
	/* the reservations' accounting and the predictions, in completion order */
	if ((err = xp_sim_order(order, in->njobs, end_key, res)))
		goto out;
	for (uint32_t k = 0; k < in->njobs; k++) {
		uint32_t j = order[k], t = in->jobs[j].task;
		struct xp_sim_out_job *o = &res->job[j];

		refill(&in->tasks[t], &bud[t], o->end);
		o->overrun = charge(&in->tasks[t], &bud[t], in->jobs[j].cost);
	}
	/* a prediction from the task's jobs done before it ran: in start order */
	{
		uint32_t *bystart = malloc(((size_t)in->njobs + 1) * sizeof(*bystart)), k = 0;

		if (!bystart || (err = xp_sim_order(bystart, in->njobs, start_key, res))) {
			free(bystart);
			err = -ENOMEM;
			goto out;
		}
		for (uint32_t i = 0; i < in->njobs; i++) {
			uint32_t j = bystart[i];

			for (; k < in->njobs && res->job[order[k]].end <= res->job[j].start; k++)
				pred_add(&pred[in->jobs[order[k]].task], in->jobs[order[k]].cost);
			res->job[j].has_pred = pred_get(&pred[in->jobs[j].task], predict, &res->job[j].predicted);
		}
		free(bystart);
	}
	err = stats(in, res);
out:
	free(bud);
	free(pred);
	free(order);
	if (err)
		xp_sim_result_free(res);
	return err;
}
