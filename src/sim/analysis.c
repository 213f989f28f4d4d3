/* `xputrace analyze`: shares, fairness, blame and inversions (src/sim/analysis.h); its output is analysis_report.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/analysis.h"

double xp_jain(const uint64_t *x, uint32_t n)
{
	double s = 0, s2 = 0;
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++)
		if (x[i]) {
			s += (double)x[i];
			s2 += (double)x[i] * (double)x[i];
			k++;
		}
	return k ? s * s / (k * s2) : -1;
}

static uint64_t exec_start(const struct xp_sim_job *j) { return j->rec_done - j->cost; }

static void ring_done_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct xp_sim_job *j = &((const struct xp_sim_input *)ctx)->jobs[i];

	*k1 = j->ring;
	*k2 = j->rec_done;
}

static void run_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	(void)k2;
	*k1 = ((const struct xp_sim_input *)ctx)->jobs[i].rec_run;
}

static int pair_cmp(const void *a, const void *b)
{
	const struct xp_an_pair *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->waiter != y->waiter)
		return x->waiter < y->waiter ? -1 : 1;
	return x->holder < y->holder ? -1 : x->holder > y->holder;
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

/* Adds ns to job's holder `task` (a job's holders are the last ones added). */
static int add_hold(struct xp_analysis *a, uint32_t *cap, struct xp_an_job *aj, uint32_t task, uint64_t ns)
{
	if (!ns)
		return 0;
	for (uint32_t k = aj->hold; k < aj->hold + aj->nhold; k++)
		if (a->hold[k].task == task) {
			a->hold[k].ns += ns;
			return 0;
		}
	if (a->nhold == *cap) {
		uint32_t c = *cap ? *cap * 2 : 256;
		struct xp_an_hold *n = realloc(a->hold, (size_t)c * sizeof(*n));

		if (!n)
			return -ENOMEM;
		a->hold = n;
		*cap = c;
	}
	a->hold[a->nhold++] = (struct xp_an_hold){ task, ns };
	aj->nhold++;
	return 0;
}

/* Who held the ring while each job waited. */
static int blame(const struct xp_sim_input *in, struct xp_analysis *a, const uint32_t *byring)
{
	uint32_t cap = 0, n = in->njobs, ntasks = in->ntasks;
	uint32_t npairmax = (ntasks + 2) * ntasks;
	struct xp_an_pair *pairs = calloc((size_t)npairmax + 1, sizeof(*pairs));

	if (!pairs)
		return -ENOMEM;
	for (uint32_t j = 0; j < n; j++) {
		const struct xp_sim_job *jb = &in->jobs[j];
		struct xp_an_job *aj = &a->job[j];
		uint64_t q = jb->arrival, run = jb->rec_run, held = 0, held_dep = 0;
		uint64_t depend = jb->rec_dep_ready > q ? (jb->rec_dep_ready < run ? jb->rec_dep_ready : run) : q;
		uint32_t lo = 0, hi = n;

		aj->hold = a->nhold;
		aj->wait = run > q ? run - q : 0;
		if (!aj->wait)
			continue;
		/* the first on its ring that ended after the queue */
		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;
			const struct xp_sim_job *m = &in->jobs[byring[mid]];

			if (m->ring < jb->ring || (m->ring == jb->ring && m->rec_done <= q))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < n && in->jobs[byring[lo]].ring == jb->ring; lo++) {
			const struct xp_sim_job *h = &in->jobs[byring[lo]];
			uint64_t o;

			if (exec_start(h) >= run)
				break;
			if (byring[lo] == j || !(o = overlap(exec_start(h), h->rec_done, q, run)))
				continue;
			held += o;
			held_dep += overlap(exec_start(h), h->rec_done, q, depend);
			if (add_hold(a, &cap, aj, h->task, o))
				goto nomem;
		}
		{
			uint64_t idle = aj->wait > held ? aj->wait - held : 0;
			uint64_t dep = depend - q > held_dep ? depend - q - held_dep : 0;

			if (dep > idle)
				dep = idle;
			if (add_hold(a, &cap, aj, ntasks, dep) || add_hold(a, &cap, aj, ntasks + 1, idle - dep))
				goto nomem;
		}
		for (uint32_t k = aj->hold; k < aj->hold + aj->nhold; k++) {
			struct xp_an_pair *p = &pairs[jb->task * (ntasks + 2) + a->hold[k].task];

			p->waiter = jb->task;
			p->holder = a->hold[k].task;
			p->jobs++;
			p->ns += a->hold[k].ns;
		}
	}
	for (uint32_t k = 0; k < npairmax; k++)
		if (pairs[k].jobs)
			pairs[a->npair++] = pairs[k];
	qsort(pairs, a->npair, sizeof(*pairs), pair_cmp);
	a->pair = pairs;
	return 0;
nomem:
	free(pairs);
	return -ENOMEM;
}

/* Jobs started while a higher-priority job, ready, waited on their ring. */
static int inversions(const struct xp_sim_input *in, struct xp_analysis *a, const uint32_t *byrun)
{
	uint32_t n = in->njobs, nt = in->ntasks, nw = 0, next = 0;
	uint32_t *waiting = malloc(((size_t)n + 1) * sizeof(*waiting));
	struct xp_an_pair *inv = calloc((size_t)nt * nt + 1, sizeof(*inv));

	if (!waiting || !inv) {
		free(waiting);
		free(inv);
		return -ENOMEM;
	}
	for (uint32_t k = 0; k < n; k++) {
		uint32_t l = byrun[k];
		const struct xp_sim_job *lj = &in->jobs[l];

		/* the jobs are by arrival: those queued by now wait */
		for (; next < n && in->jobs[next].arrival <= lj->rec_run; next++)
			waiting[nw++] = next;
		for (uint32_t w = 0; w < nw; w++) {
			const struct xp_sim_job *h = &in->jobs[waiting[w]];
			struct xp_an_pair *v;

			if (waiting[w] == l) {
				waiting[w--] = waiting[--nw];
				continue;
			}
			if (h->ring != lj->ring || h->rec_run <= lj->rec_run || h->rec_dep_ready > lj->rec_run ||
			    in->tasks[h->task].prio <= in->tasks[lj->task].prio)
				continue;
			v = &inv[h->task * nt + lj->task];
			v->waiter = h->task;
			v->holder = lj->task;
			v->jobs++;
			v->ns += overlap(exec_start(lj), lj->rec_done, h->arrival, h->rec_run);
		}
	}
	for (uint32_t k = 0; k < nt * nt; k++)
		if (inv[k].jobs)
			inv[a->ninv++] = inv[k];
	qsort(inv, a->ninv, sizeof(*inv), pair_cmp);
	a->inv = inv;
	free(waiting);
	return 0;
}

/*
 * Each job's chain back through the dependency that signalled last (jobs
 * come by arrival, so a dependency, queued before, is settled first);
 * per task the job whose chain spans the longest, and that span's parts.
 */
static int critical_paths(const struct xp_sim_input *in, struct xp_analysis *a)
{
	uint32_t n = in->njobs, *prev = malloc(((size_t)n + 1) * sizeof(*prev));
	uint64_t *start = malloc(((size_t)n + 1) * sizeof(*start));
	uint32_t *len = malloc(((size_t)n + 1) * sizeof(*len)), used = 0;

	a->path = calloc((size_t)in->ntasks + 1, sizeof(*a->path));
	if (!prev || !start || !len || !a->path) {
		free(prev), free(start), free(len);
		return -ENOMEM;
	}
	for (uint32_t j = 0; j < n; j++) {
		const struct xp_sim_job *jb = &in->jobs[j];
		int64_t d = -1;

		for (int k = 0; k < jb->ndep; k++)
			if (jb->dep[k] >= 0 && (uint32_t)jb->dep[k] < j &&
			    (d < 0 || in->jobs[jb->dep[k]].rec_done > in->jobs[d].rec_done))
				d = jb->dep[k];
		prev[j] = d < 0 ? UINT32_MAX : (uint32_t)d;
		start[j] = d < 0 ? jb->arrival : start[d];
		len[j] = d < 0 ? 1 : len[d] + 1;
		{
			struct xp_an_path *pt = &a->path[jb->task];
			const struct xp_sim_job *e = pt->njobs ? &in->jobs[pt->end] : NULL;

			if (!e || jb->rec_done - start[j] > e->rec_done - pt->start) {
				pt->end = j;
				pt->njobs = len[j];
				pt->start = start[j];
			}
		}
	}
	for (uint32_t t = 0; t < in->ntasks; t++)
		used += a->path[t].njobs;
	if (!(a->path_job = malloc(((size_t)used + 1) * sizeof(*a->path_job)))) {
		free(prev), free(start), free(len);
		return -ENOMEM;
	}
	used = 0;
	for (uint32_t t = 0; t < in->ntasks; t++) {
		struct xp_an_path *pt = &a->path[t];
		uint32_t k = pt->njobs, j = pt->end;

		pt->first = used;
		used += pt->njobs;
		for (; k > 0 && j != UINT32_MAX; j = prev[j]) {
			const struct xp_sim_job *jb = &in->jobs[j];
			uint64_t in_t = prev[j] == UINT32_MAX ? jb->arrival : in->jobs[prev[j]].rec_done;
			uint64_t from = jb->arrival > in_t ? jb->arrival : in_t, es = exec_start(jb);

			a->path_job[pt->first + --k] = j;
			pt->cpu_ns += jb->arrival > in_t ? jb->arrival - in_t : 0;
			pt->wait_ns += es > from ? es - from : 0;
			/* its cost, less what overlaps the wait counted (never, for a sane recording) */
			pt->run_ns += jb->rec_done - (es > from ? es : from);
		}
	}
	free(prev), free(start), free(len);
	return 0;
}

int xp_analyze(const struct xp_sim_input *in, uint64_t t0, uint64_t t_end, uint64_t window,
	       bool prio_known, struct xp_analysis *a)
{
	uint32_t *byring = NULL, *byrun = NULL, n = in->njobs;
	int err = -ENOMEM;

	memset(a, 0, sizeof(*a));
	for (uint32_t j = 0; j < n; j++) {
		if (in->jobs[j].arrival < t0)
			t0 = in->jobs[j].arrival;
		if (in->jobs[j].rec_done > t_end)
			t_end = in->jobs[j].rec_done;
	}
	if (t_end <= t0)
		t_end = t0 + 1;
	a->t0 = t0;
	a->t_end = t_end;
	a->window = window ? window : t_end - t0;
	if ((t_end - t0 + a->window - 1) / a->window > XP_AN_MAX_WINDOWS)
		return -E2BIG;
	a->nwin = (uint32_t)((t_end - t0 + a->window - 1) / a->window);
	a->prio_known = prio_known;
	a->win_busy = calloc((size_t)a->nwin * in->ntasks + 1, sizeof(*a->win_busy));
	a->task_busy = calloc((size_t)in->ntasks + 1, sizeof(*a->task_busy));
	a->job = calloc((size_t)n + 1, sizeof(*a->job));
	byring = malloc(((size_t)n + 1) * sizeof(*byring));
	byrun = malloc(((size_t)n + 1) * sizeof(*byrun));
	if (!a->win_busy || !a->task_busy || !a->job || !byring || !byrun)
		goto out;
	for (uint32_t j = 0; j < n; j++) {
		const struct xp_sim_job *jb = &in->jobs[j];
		uint64_t s = exec_start(jb), e = jb->rec_done;

		a->task_busy[jb->task] += jb->cost;
		for (uint64_t w = (s - t0) / a->window; w < a->nwin && t0 + w * a->window < e; w++) {
			uint64_t w0 = t0 + w * a->window;

			a->win_busy[w * in->ntasks + jb->task] += overlap(s, e, w0, w0 + a->window);
		}
	}
	if ((err = xp_sim_order(byring, n, ring_done_key, in)) || (err = xp_sim_order(byrun, n, run_key, in)))
		goto out;
	if ((err = blame(in, a, byring)) || (err = critical_paths(in, a)))
		goto out;
	if (prio_known)
		err = inversions(in, a, byrun);
out:
	free(byring);
	free(byrun);
	if (err)
		xp_analysis_free(a);
	return err;
}

void xp_analysis_free(struct xp_analysis *a)
{
	free(a->win_busy);
	free(a->task_busy);
	free(a->job);
	free(a->hold);
	free(a->pair);
	free(a->inv);
	free(a->path);
	free(a->path_job);
	memset(a, 0, sizeof(*a));
}
