/* `xputrace analyze`: shares, fairness, blame and inversions (src/sim/analyze.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/analyze.h"
#include "sinks/json.h"

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

/* ---- output ---- */

static const char *holder_name(const struct xp_sim_input *in, uint32_t h)
{
	return h < in->ntasks ? in->tasks[h].name : h == in->ntasks ? "(dependency)" : "(scheduler)";
}

static double ms(uint64_t ns) { return (double)ns / 1e6; }

#define AN_COLS 6	/* tasks shown as columns of the share table */

/* The (at most) k indices of the largest values, largest first; ties: the lower index. */
static uint32_t top_k(uint32_t *out, uint32_t k, const uint64_t *val, uint32_t n, size_t stride,
		      bool nonzero)
{
	uint32_t m = 0;

	for (; m < k; m++) {
		int64_t best = -1;

		for (uint32_t i = 0; i < n; i++) {
			uint64_t v = *(const uint64_t *)((const char *)val + i * stride);
			bool taken = false;

			for (uint32_t c = 0; c < m; c++)
				taken = taken || out[c] == i;
			if (!taken && (v || !nonzero) &&
			    (best < 0 || v > *(const uint64_t *)((const char *)val + (size_t)best * stride)))
				best = i;
		}
		if (best < 0)
			break;
		out[m] = (uint32_t)best;
	}
	return m;
}

static void text_shares(FILE *f, const struct xp_sim_input *in, const struct xp_analysis *a,
			const char *who, const char *plural)
{
	uint32_t cols[AN_COLS], ncols = top_k(cols, AN_COLS, a->task_busy, in->ntasks, sizeof(uint64_t), false);

	fprintf(f, "\nGPU share per %.3f s window: each %s's share of the GPU time used,\n"
		   "Jain's fairness index over the %s%s that ran (1: equal shares)\n",
		(double)a->window / 1e9, who, who, plural);
	fprintf(f, "%-9s %7s %6s", "WINDOW s", "BUSY ms", "JAIN");
	for (uint32_t c = 0; c < ncols; c++)
		fprintf(f, " %16.16s", in->tasks[cols[c]].name);
	fprintf(f, "%s\n", ncols < in->ntasks ? "  (others)" : "");
	for (uint32_t w = 0; w <= a->nwin; w++) {
		const uint64_t *x = w < a->nwin ? &a->win_busy[(size_t)w * in->ntasks] : a->task_busy;
		uint64_t busy = 0, other = 0;
		double jain = xp_jain(x, in->ntasks);
		char label[32];

		for (uint32_t t = 0; t < in->ntasks; t++)
			busy += x[t];
		if (w < a->nwin)
			snprintf(label, sizeof(label), "%.3f", (double)w * (double)a->window / 1e9);
		else
			snprintf(label, sizeof(label), "all");
		if (jain < 0)
			fprintf(f, "%-9s %7.3f %6s", label, ms(busy), "-");
		else
			fprintf(f, "%-9s %7.3f %6.3f", label, ms(busy), jain);
		for (uint32_t c = 0; c < ncols; c++) {
			fprintf(f, " %15.1f%%", busy ? 100.0 * (double)x[cols[c]] / (double)busy : 0.0);
			other += x[cols[c]];
		}
		if (ncols < in->ntasks)
			fprintf(f, " %9.1f%%", busy ? 100.0 * (double)(busy - other) / (double)busy : 0.0);
		fprintf(f, "\n");
	}
}

static void text_blame(FILE *f, const struct xp_sim_input *in, const struct xp_analysis *a)
{
	uint32_t shown = 0;

	fprintf(f, "\nWaits (queue -> run) and who held the ring meanwhile, per waiter and holder\n");
	fprintf(f, "%-20s %-20s %6s %10s %6s\n", "WAITER", "HOLDER", "JOBS", "HELD ms", "SHARE");
	for (uint32_t t = 0; t < in->ntasks; t++) {
		uint64_t w = 0;

		for (uint32_t p = 0; p < a->npair; p++)
			if (a->pair[p].waiter == t)
				w += a->pair[p].ns;
		for (uint32_t p = 0; p < a->npair; p++) {
			const struct xp_an_pair *pp = &a->pair[p];

			if (pp->waiter != t)
				continue;
			fprintf(f, "%-20s %-20s %6u %10.3f %5.1f%%\n", in->tasks[t].name,
				holder_name(in, pp->holder), pp->jobs, ms(pp->ns),
				w ? 100.0 * (double)pp->ns / (double)w : 0.0);
			shown++;
		}
	}
	if (!shown)
		fprintf(f, "(no job waited)\n");
}

static void text_waits(FILE *f, const struct xp_sim_input *in, const struct xp_analysis *a)
{
	uint32_t top[5], ntop = top_k(top, 5, &a->job[0].wait, in->njobs, sizeof(a->job[0]), true);

	fprintf(f, "\nLongest waits\n%-12s %-20s %-12s %9s  %s\n", "QUEUED s", "PROCESS", "RING", "WAIT ms",
		"HELD BY");
	for (uint32_t c = 0; c < ntop; c++) {
		const struct xp_sim_job *jb = &in->jobs[top[c]];
		const struct xp_an_job *aj = &a->job[top[c]];

		fprintf(f, "%-12.6f %-20s %-12s %9.3f ", (double)(jb->arrival - a->t0) / 1e9,
			in->tasks[jb->task].name, in->rings[jb->ring], ms(aj->wait));
		for (uint32_t k = aj->hold; k < aj->hold + aj->nhold; k++)
			fprintf(f, " %s %.3f", holder_name(in, a->hold[k].task), ms(a->hold[k].ns));
		fprintf(f, "\n");
	}
	if (!ntop)
		fprintf(f, "(no job waited)\n");
}

static void text_paths(FILE *f, const struct xp_sim_input *in, const struct xp_analysis *a)
{
	fprintf(f, "\nCritical paths (each one's longest dependency chain, first queued -> last done)\n"
		   "%-20s %5s %12s %10s %10s %10s %12s  %s\n", "PROCESS", "JOBS", "QUEUED s", "SPAN ms",
		"RING ms", "WAIT ms", "CPU ms", "RINGS");
	for (uint32_t t = 0; t < in->ntasks; t++) {
		const struct xp_an_path *pt = &a->path[t];

		if (!pt->njobs)
			continue;
		fprintf(f, "%-20s %5u %12.6f %10.3f %10.3f %10.3f %12.3f ", in->tasks[t].name, pt->njobs,
			(double)(pt->start - a->t0) / 1e9, ms(in->jobs[pt->end].rec_done - pt->start), ms(pt->run_ns),
			ms(pt->wait_ns), ms(pt->cpu_ns));
		/* the rings it went through, in order (runs of one ring said once) */
		for (uint32_t k = 0; k < pt->njobs; k++) {
			uint16_t r = in->jobs[a->path_job[pt->first + k]].ring;

			if (!k || in->jobs[a->path_job[pt->first + k - 1]].ring != r)
				fprintf(f, "%s%s", k ? ">" : " ", in->rings[r]);
		}
		fprintf(f, "\n");
	}
}

static void text_inversions(FILE *f, const struct xp_sim_input *in, const struct xp_analysis *a)
{
	if (!a->prio_known) {
		fprintf(f, "\nPriority inversions: none can be known: the scheduler's events carry no "
			   "priority\n(give the processes' priorities with --prio COMM|PID=N)\n");
		return;
	}
	fprintf(f, "\nPriority inversions: a job started while a higher-priority one, ready, waited on its ring\n");
	fprintf(f, "%-20s %-20s %6s %10s\n", "WAITED (HIGH)", "RAN (LOW)", "TIMES", "LOST ms");
	for (uint32_t k = 0; k < a->ninv; k++)
		fprintf(f, "%-20s %-20s %6u %10.3f\n", in->tasks[a->inv[k].waiter].name,
			in->tasks[a->inv[k].holder].name, a->inv[k].jobs, ms(a->inv[k].ns));
	if (!a->ninv)
		fprintf(f, "(none)\n");
}

void xp_analysis_text(FILE *f, const char *path, const struct xp_sim_input *in,
		      const struct xp_analysis *a)
{
	bool client = in->ntasks && in->tasks[0].has_client;
	const char *who = client ? "client" : "process", *plural = client ? "s" : "es";

	fprintf(f, "analyze: %s: %u jobs of %u %s%s on %u ring%s, %.3f s\n", path, in->njobs,
		in->ntasks, client ? "DRM client" : who, in->ntasks == 1 ? "" : plural,
		in->nrings, in->nrings == 1 ? "" : "s", (double)(a->t_end - a->t0) / 1e9);
	text_shares(f, in, a, who, plural);
	text_blame(f, in, a);
	text_waits(f, in, a);
	text_paths(f, in, a);
	text_inversions(f, in, a);
}

static void jain_key(struct xp_json *j, const char *k, double v)
{
	xp_json_key(j, k);
	if (v < 0)
		xp_json_null(j);
	else
		xp_json_double(j, v);
}

static void json_waits(struct xp_json *j, const struct xp_sim_input *in, const struct xp_analysis *a)
{
	xp_json_key(j, "job_waits");
	xp_json_begin_arr(j);
	for (uint32_t k = 0; k < in->njobs; k++) {
		const struct xp_sim_job *jb = &in->jobs[k];
		const struct xp_an_job *aj = &a->job[k];

		xp_json_begin_obj(j);
		xp_json_kstr(j, "process", in->tasks[jb->task].name);
		xp_json_kstr(j, "ring", in->rings[jb->ring]);
		xp_json_ku64(j, "queued_ns", jb->arrival - a->t0);
		xp_json_ku64(j, "wait_ns", aj->wait);
		xp_json_key(j, "held_by");
		xp_json_begin_obj(j);
		for (uint32_t h = aj->hold; h < aj->hold + aj->nhold; h++)
			xp_json_ku64(j, holder_name(in, a->hold[h].task), a->hold[h].ns);
		xp_json_end_obj(j);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
	xp_json_key(j, "critical_paths");
	xp_json_begin_arr(j);
	for (uint32_t t = 0; t < in->ntasks; t++) {
		const struct xp_an_path *pt = &a->path[t];

		if (!pt->njobs)
			continue;
		xp_json_begin_obj(j);
		xp_json_kstr(j, "process", in->tasks[t].name);
		xp_json_ku64(j, "jobs", pt->njobs);
		xp_json_ku64(j, "queued_ns", pt->start - a->t0);
		xp_json_ku64(j, "span_ns", in->jobs[pt->end].rec_done - pt->start);
		xp_json_ku64(j, "ring_ns", pt->run_ns);
		xp_json_ku64(j, "wait_ns", pt->wait_ns);
		xp_json_ku64(j, "cpu_ns", pt->cpu_ns);
		xp_json_key(j, "path");
		xp_json_begin_arr(j);
		for (uint32_t k = 0; k < pt->njobs; k++) {
			const struct xp_sim_job *jb = &in->jobs[a->path_job[pt->first + k]];

			xp_json_begin_obj(j);
			xp_json_kstr(j, "process", in->tasks[jb->task].name);
			xp_json_kstr(j, "ring", in->rings[jb->ring]);
			xp_json_ku64(j, "queued_ns", jb->arrival - a->t0);
			xp_json_ku64(j, "done_ns", jb->rec_done - a->t0);
			xp_json_end_obj(j);
		}
		xp_json_end_arr(j);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
	xp_json_key(j, "inversions");
	xp_json_begin_obj(j);
	xp_json_kbool(j, "known", a->prio_known);
	if (!a->prio_known) {
		xp_json_kstr(j, "why", "the scheduler's events carry no priority; --prio gives them");
	} else {
		xp_json_key(j, "pairs");
		xp_json_begin_arr(j);
		for (uint32_t k = 0; k < a->ninv; k++) {
			xp_json_begin_obj(j);
			xp_json_kstr(j, "high", in->tasks[a->inv[k].waiter].name);
			xp_json_kstr(j, "low", in->tasks[a->inv[k].holder].name);
			xp_json_ku64(j, "count", a->inv[k].jobs);
			xp_json_ku64(j, "ns", a->inv[k].ns);
			xp_json_end_obj(j);
		}
		xp_json_end_arr(j);
	}
	xp_json_end_obj(j);
}

void xp_analysis_json(FILE *f, const char *path, const struct xp_sim_input *in,
		      const struct xp_analysis *a)
{
	struct xp_json j;

	xp_json_init(&j, f, false);
	xp_json_begin_obj(&j);
	xp_json_kstr(&j, "file", path);
	xp_json_ku64(&j, "jobs", in->njobs);
	xp_json_kdouble(&j, "duration_s", (double)(a->t_end - a->t0) / 1e9);
	xp_json_kdouble(&j, "window_s", (double)a->window / 1e9);
	xp_json_kstr(&j, "by", in->ntasks && in->tasks[0].has_client ? "client" : "process");
	xp_json_key(&j, "rings");
	xp_json_begin_arr(&j);
	for (uint16_t r = 0; r < in->nrings; r++)
		xp_json_str(&j, in->rings[r]);
	xp_json_end_arr(&j);
	xp_json_key(&j, "processes");
	xp_json_begin_arr(&j);
	for (uint32_t t = 0; t < in->ntasks; t++) {
		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "name", in->tasks[t].name);
		xp_json_ku64(&j, "pid", in->tasks[t].pid);
		xp_json_kstr(&j, "comm", in->tasks[t].comm);
		if (in->tasks[t].has_client)
			xp_json_ku64(&j, "client", in->tasks[t].client);
		xp_json_ku64(&j, "gpu_ns", a->task_busy[t]);
		if (a->prio_known)
			xp_json_ki64(&j, "prio", in->tasks[t].prio);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	jain_key(&j, "jain", xp_jain(a->task_busy, in->ntasks));
	xp_json_key(&j, "windows");
	xp_json_begin_arr(&j);
	for (uint32_t w = 0; w < a->nwin; w++) {
		const uint64_t *x = &a->win_busy[(size_t)w * in->ntasks];

		xp_json_begin_obj(&j);
		xp_json_kdouble(&j, "start_s", (double)w * (double)a->window / 1e9);
		jain_key(&j, "jain", xp_jain(x, in->ntasks));
		xp_json_key(&j, "gpu_ns");
		xp_json_begin_arr(&j);
		for (uint32_t t = 0; t < in->ntasks; t++)
			xp_json_u64(&j, x[t]);
		xp_json_end_arr(&j);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	xp_json_key(&j, "blame");
	xp_json_begin_arr(&j);
	for (uint32_t p = 0; p < a->npair; p++) {
		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "waiter", in->tasks[a->pair[p].waiter].name);
		xp_json_kstr(&j, "holder", holder_name(in, a->pair[p].holder));
		xp_json_ku64(&j, "jobs", a->pair[p].jobs);
		xp_json_ku64(&j, "ns", a->pair[p].ns);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	json_waits(&j, in, a);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
}
