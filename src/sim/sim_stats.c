/* The schedules' statistics, the recording's own schedule, and the helpers (src/sim/sim.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_int.h"

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

/*
 * Each task's share of the rings' time from the first arrival until the
 * first task is done (its last completion): the time every task had work.
 */
static void shares(const struct xp_sim_input *in, struct xp_sim_result *res)
{
	uint64_t end = UINT64_MAX;
	double total = 0;

	for (uint32_t t = 0; t < in->ntasks; t++)
		res->task[t].share = 0;
	for (uint32_t t = 0; t < in->ntasks; t++) {
		uint64_t last = 0;

		for (uint32_t j = 0; j < in->njobs; j++)
			if (in->jobs[j].task == t && res->job[j].end > last)
				last = res->job[j].end;
		if (last && last < end)
			end = last;
	}
	res->share_end = end == UINT64_MAX ? res->last : end;
	for (uint32_t j = 0; j < in->njobs; j++) {
		uint64_t e = res->job[j].end, s = e > in->jobs[j].cost ? e - in->jobs[j].cost : 0;

		s = s < res->first ? res->first : s;
		e = e > res->share_end ? res->share_end : e;
		if (e > s) {
			res->task[in->jobs[j].task].share += (double)(e - s);
			total += (double)(e - s);
		}
	}
	for (uint32_t t = 0; t < in->ntasks; t++)
		res->task[t].share = total > 0 ? 100.0 * res->task[t].share / total : 0;
	res->all.share = total > 0 ? 100.0 : 0;
}

int xp_sim_stats_fill(const struct xp_sim_input *in, struct xp_sim_result *res)
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
		double sum = 0, wait = 0;
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
			/* until it began on the ring: its end less its cost, recorded or simulated alike */
			wait += o->end - jb->cost > jb->arrival ? (double)(o->end - jb->cost - jb->arrival) : 0;
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
		s->wait_mean = n ? wait / n : 0;
		/* a task's own span: from its first arrival to its last completion */
		span = n && hi > lo ? (double)(hi - lo) / 1e9 : 0;
		s->jobs_per_s = span > 0 ? n / span : 0;
		s->util = span > 0 ? (double)cost[t] / 1e9 / span : 0;
		s->pred_err = s->npred ? 100.0 * err[t] / s->npred : 0;
	}
	shares(in, res);
	free(resp);
	free(cost);
	free(err);
	return 0;
}

int xp_sim_result_alloc(const struct xp_sim_input *in, struct xp_sim_result *res)
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

	if ((err = xp_sim_result_alloc(in, res)))
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
	err = xp_sim_stats_fill(in, res);
out:
	free(bud);
	free(pred);
	free(order);
	if (err)
		xp_sim_result_free(res);
	return err;
}
