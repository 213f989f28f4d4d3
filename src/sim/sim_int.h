/*
 * What the engine (sim.c) and the statistics and recorded schedule
 * (sim_stats.c) share: cost prediction, reservations' accounting, results.
 */
#ifndef XP_SIM_SIM_INT_H
#define XP_SIM_SIM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim.h"

/* ---- cost prediction from a task's completed jobs ---- */

struct pred {
	uint64_t hist[XP_SIM_HISTORY];
	uint32_t n;		/* completed so far */
	uint64_t sum, last;
};

static inline void pred_add(struct pred *p, uint64_t cost)
{
	p->hist[p->n % XP_SIM_HISTORY] = cost;
	p->n++;
	p->sum += cost;
	p->last = cost;
}

static inline bool pred_get(const struct pred *p, enum xp_sim_predict how, uint64_t *out)
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

static inline void refill(const struct xp_sim_task *t, struct budget *b, uint64_t now)
{
	while (t->has_res && b->next_refill <= now) {
		b->left += (int64_t)t->res_c;
		if (b->left > (int64_t)t->res_c)
			b->left = (int64_t)t->res_c;
		b->next_refill += t->res_p;
	}
}

/* Charges a completed job; whether it overran what was left. */
static inline bool charge(const struct xp_sim_task *t, struct budget *b, uint64_t cost)
{
	bool over;

	if (!t->has_res)
		return false;
	over = (int64_t)cost > b->left;
	b->left -= (int64_t)cost;
	return over;
}

/* The results' arrays for `in`, zeroed. 0, -ENOMEM. */
int xp_sim_result_alloc(const struct xp_sim_input *in, struct xp_sim_result *res);
/* The statistics of a schedule whose ends, overruns and predictions are set. 0, -ENOMEM. */
int xp_sim_stats_fill(const struct xp_sim_input *in, struct xp_sim_result *res);

#endif
