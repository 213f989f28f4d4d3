/* drm_sched's run queues, entities and the fair policy's virtual runtime (src/sim/sim_drm.h). */
#include <stdlib.h>

#include "sim/sim_drm.h"

#define NPRIO 4
#define EWMA_PRECISION 6	/* the kernel's DECLARE_EWMA(drm_sched_avgtime, 6, 4) */
#define EWMA_WEIGHT_SHIFT 2	/* ilog2(4) */

/* the fair policy's shifts, kernel to low */
static const unsigned int vshift[NPRIO] = { 1, 2, 4, 7 };

struct ent {
	bool queued;		/* on its run queue: it has jobs waiting */
	bool listed;		/* 6.x: in its run queue's list (from its first job on) */
	int64_t key;		/* its place: queue time, rr stamp or virtual runtime */
	uint64_t seq;		/* when it took that place (ties) */
	int64_t rr_ts;
	int64_t vruntime;
	uint64_t runtime, prev_runtime;
	uint64_t avg;		/* EWMA of its jobs' µs, scaled by 1 << EWMA_PRECISION */
};

struct dring {
	struct ent *e;		/* per task */
	uint64_t seq;
	int64_t rr_ts[NPRIO];
	uint64_t avg;		/* the ring's EWMA */
	uint32_t *list, nlist;	/* 6.x: the entities in the order of their first job */
	int64_t current[NPRIO];	/* 6.x: the task served last per run queue; -1 none */
};

struct xp_sim_drm {
	const struct xp_sim_input *in;
	enum xp_sim_policy policy;
	bool list_rr;
	struct dring *r;
};

static void ewma_add(uint64_t *avg, uint64_t val)
{
	*avg = *avg ? (((*avg << EWMA_WEIGHT_SHIFT) - *avg) + (val << EWMA_PRECISION)) >> EWMA_WEIGHT_SHIFT
		    : val << EWMA_PRECISION;
}

static uint64_t ewma_read(uint64_t avg) { return avg >> EWMA_PRECISION; }

/* kernel 0 .. low 3 */
static int prio_of(const struct xp_sim_drm *d, uint32_t t)
{
	int p = d->in->tasks[t].drm_prio - XP_SIM_DRM_KERNEL;

	return p < 0 ? 0 : p >= NPRIO ? NPRIO - 1 : p;
}

/* the run queue the entity is on */
static int rq_of(const struct xp_sim_drm *d, uint32_t t)
{
	return d->policy == XP_SIM_DRM_FAIR ? 0 : prio_of(d, t);
}

struct xp_sim_drm *xp_sim_drm_new(const struct xp_sim_input *in, enum xp_sim_policy policy)
{
	struct xp_sim_drm *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->in = in;
	d->policy = policy;
	d->list_rr = policy == XP_SIM_DRM_RR && in->drm_list_rr;
	d->r = calloc((size_t)in->nrings + 1, sizeof(*d->r));
	if (!d->r) {
		free(d);
		return NULL;
	}
	for (uint16_t i = 0; i < in->nrings; i++) {
		d->r[i].e = calloc((size_t)in->ntasks + 1, sizeof(struct ent));
		d->r[i].list = calloc((size_t)in->ntasks + 1, sizeof(uint32_t));
		if (!d->r[i].e || !d->r[i].list) {
			xp_sim_drm_free(d);
			return NULL;
		}
		for (int q = 0; q < NPRIO; q++)
			d->r[i].current[q] = -1;
	}
	return d;
}

void xp_sim_drm_free(struct xp_sim_drm *d)
{
	if (!d)
		return;
	for (uint16_t i = 0; d->r && i < d->in->nrings; i++) {
		free(d->r[i].e);
		free(d->r[i].list);
	}
	free(d->r);
	free(d);
}

static bool ahead(const struct ent *a, const struct ent *b)
{
	return a->key != b->key ? a->key < b->key : a->seq < b->seq;
}

/* the head of run queue q (ready or not); -1: empty */
static int64_t leftmost(const struct xp_sim_drm *d, const struct dring *r, int q)
{
	int64_t best = -1;

	for (uint32_t t = 0; t < d->in->ntasks; t++)
		if (r->e[t].queued && rq_of(d, t) == q && (best < 0 || ahead(&r->e[t], &r->e[best])))
			best = t;
	return best;
}

static void place(struct dring *r, struct ent *e, int64_t key)
{
	e->key = key;
	e->seq = r->seq++;
	e->queued = true;
}

/* the fair policy's place for an entity coming back to its run queue */
static int64_t restore_vruntime(const struct xp_sim_drm *d, struct dring *r, uint32_t t)
{
	struct ent *e = &r->e[t];
	int64_t head = leftmost(d, r, rq_of(d, t)), min = head >= 0 ? r->e[head].vruntime : 0;
	int64_t v = e->vruntime;
	int prio = prio_of(d, t);

	if (!v && head >= 0) {
		int hprio = prio_of(d, (uint32_t)head);
		uint64_t avg = ewma_read(e->avg), ravg = ewma_read(r->avg);

		if (prio > hprio)
			v = (int64_t)(((1 + avg + ravg) << vshift[prio]) * 1000);
		else if (prio < hprio)
			v = -(int64_t)(hprio - prio);
		else
			v = avg <= ravg ? -1 : 1;
	}
	e->vruntime = min + v;
	return e->vruntime;
}

void xp_sim_drm_push(struct xp_sim_drm *d, uint16_t ri, uint32_t t, uint64_t ts)
{
	struct dring *r = &d->r[ri];
	struct ent *e = &r->e[t];

	if (!e->listed) {
		e->listed = true;
		r->list[r->nlist++] = t;
	}
	switch (d->policy) {
	case XP_SIM_DRM_FAIR:
		place(r, e, restore_vruntime(d, r, t));
		break;
	case XP_SIM_DRM_RR:
		place(r, e, e->rr_ts);
		break;
	default:
		place(r, e, (int64_t)ts);
		break;
	}
}

void xp_sim_drm_pop(struct xp_sim_drm *d, uint16_t ri, uint32_t t, bool more, uint64_t next_ts)
{
	struct dring *r = &d->r[ri];
	struct ent *e = &r->e[t];
	int q = rq_of(d, t);

	if (!more) {
		int64_t head, min;

		e->queued = false;
		if (d->policy != XP_SIM_DRM_FAIR)
			return;
		/* keep its runtime relative to the least queued */
		head = leftmost(d, r, q);
		min = head >= 0 ? r->e[head].vruntime : 0;
		e->vruntime = min && e->vruntime > min ? e->vruntime - min : 0;
		return;
	}
	switch (d->policy) {
	case XP_SIM_DRM_FAIR:
		e->vruntime += (int64_t)((e->runtime - e->prev_runtime) << vshift[prio_of(d, t)]);
		e->prev_runtime = e->runtime;
		place(r, e, e->vruntime);
		break;
	case XP_SIM_DRM_RR:
		e->rr_ts = ++r->rr_ts[q];
		place(r, e, e->rr_ts);
		break;
	default:
		place(r, e, (int64_t)next_ts);
		break;
	}
}

void xp_sim_drm_done(struct xp_sim_drm *d, uint16_t ri, uint32_t t, uint64_t cost)
{
	struct dring *r = &d->r[ri];

	r->e[t].runtime += cost;
	ewma_add(&r->e[t].avg, cost / 1000);
	ewma_add(&r->avg, cost / 1000);
}

/* 6.x: the next ready entity of run queue q after the one served last, that one last */
static int64_t select_list(struct xp_sim_drm *d, struct dring *r, int q,
			   bool (*ready)(void *ctx, uint32_t t), void *ctx)
{
	uint32_t start = 0;

	for (uint32_t k = 0; r->current[q] >= 0 && k < r->nlist; k++)
		if (r->list[k] == (uint32_t)r->current[q])
			start = k + 1;
	for (uint32_t n = 0; n < r->nlist; n++) {
		uint32_t t = r->list[(start + n) % r->nlist];

		if (rq_of(d, t) == q && r->e[t].queued && ready(ctx, t)) {
			r->current[q] = t;
			return t;
		}
	}
	return -1;
}

int64_t xp_sim_drm_select(struct xp_sim_drm *d, uint16_t ri, bool (*ready)(void *ctx, uint32_t t),
			  void *ctx)
{
	struct dring *r = &d->r[ri];

	for (int q = 0; q < NPRIO; q++) {
		int64_t best = -1;

		if (d->list_rr) {
			if ((best = select_list(d, r, q, ready, ctx)) >= 0)
				return best;
			continue;
		}
		for (uint32_t t = 0; t < d->in->ntasks; t++)
			if (r->e[t].queued && rq_of(d, t) == q && ready(ctx, t) &&
			    (best < 0 || ahead(&r->e[t], &r->e[best])))
				best = t;
		if (best >= 0)
			return best;
	}
	return -1;
}
