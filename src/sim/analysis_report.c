/* `xputrace analyze`'s output: its text tables and its JSON (src/sim/analysis.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/analysis.h"
#include "sinks/json.h"

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
