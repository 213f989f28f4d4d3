/* `xputrace simulate`'s text and JSON (src/sim/sim_report.h). */
#include <stdio.h>
#include <string.h>

#include "sim/sim_report.h"
#include "sinks/json.h"

static const char *const enforce_names[] = { "pe", "ae" };
static const char *const predict_names[] = { "history", "mean", "last" };

const char *xp_sim_enforce_name(enum xp_sim_enforce e) { return enforce_names[e == XP_SIM_AE]; }

const char *xp_sim_predict_name(enum xp_sim_predict p)
{
	return p <= XP_SIM_PRED_LAST ? predict_names[p] : "?";
}

static double ms(uint64_t ns) { return (double)ns / 1e6; }

static bool any_res(const struct xp_sim_input *in)
{
	for (uint32_t t = 0; t < in->ntasks; t++)
		if (in->tasks[t].has_res)
			return true;
	return false;
}

static uint32_t ndeps(const struct xp_sim_input *in)
{
	uint32_t n = 0;

	for (uint32_t j = 0; j < in->njobs; j++)
		n += in->jobs[j].ndep;
	return n;
}

static void row(FILE *f, const char *policy, const char *task, const struct xp_sim_stats *s)
{
	fprintf(f, "%-9s %-20s %5u %8.3f %8.3f %8.3f %6u %8.1f %6.1f %8u", policy, task, s->jobs,
		ms(s->p50), ms(s->p99), ms(s->max), s->missed, s->jobs_per_s, 100.0 * s->util, s->overruns);
	if (s->npred)
		fprintf(f, " %9.1f\n", s->pred_err);
	else
		fprintf(f, " %9s\n", "-");
}

static const char *drm_prio_name(int p)
{
	static const char *const names[] = { "kernel", "high", "normal", "low" };

	return p >= XP_SIM_DRM_KERNEL && p <= XP_SIM_DRM_LOW ? names[p - XP_SIM_DRM_KERNEL] : "?";
}

/* With a drm-* policy: each task's GPU share while every task had work, and its waits. */
static void shares_text(FILE *f, const struct xp_sim_report *r)
{
	const struct xp_sim_input *in = r->in;
	bool drm = false;

	for (int k = 0; k < r->nres; k++)
		drm |= !strncmp(r->names[k], "drm-", 4);
	if (!drm)
		return;
	fprintf(f, "\nSHARE%% of the rings' time from the first arrival until the first task was done;"
		   " WAIT = queued until on the ring\n");
	fprintf(f, "%-9s %-20s %7s %10s %9s\n", "POLICY", "TASK", "SHARE%", "WINDOW ms", "WAIT ms");
	for (int k = 0; k < r->nres; k++) {
		const struct xp_sim_result *res = &r->res[k];

		for (uint32_t t = 0; t < in->ntasks; t++)
			fprintf(f, "%-9s %-20s %7.1f %10.3f %9.3f\n", r->names[k], in->tasks[t].name,
				res->task[t].share, ms(res->share_end - res->first), ms((uint64_t)res->task[t].wait_mean));
	}
}

void xp_sim_report_text(FILE *f, const struct xp_sim_report *r)
{
	const struct xp_sim_input *in = r->in;
	bool res = any_res(in);

	fprintf(f, "simulate: %s: %u jobs of %u task%s on %u ring%s", r->path, in->njobs, in->ntasks,
		in->ntasks == 1 ? "" : "s", in->nrings, in->nrings == 1 ? "" : "s");
	if (ndeps(in))
		fprintf(f, ", %u dependencies between them", ndeps(in));
	if (r->left_out)
		fprintf(f, " (%llu left out: no queue or run event)", (unsigned long long)r->left_out);
	fprintf(f, "\nmodel:    one engine per ring, non-preemptive; depth");
	for (uint16_t i = 0; i < in->nrings; i++)
		fprintf(f, "%s%s=%u", i ? ", " : " ", in->rings[i], in->depth[i]);
	if (in->react && in->react_off[in->nrings])
		fprintf(f, "; reaction %.3f ms (the mean of the recording's %u, replayed in order)\n",
			ms(in->overhead), in->react_off[in->nrings]);
	else
		fprintf(f, "; overhead %.3f ms\n", ms(in->overhead));
	fprintf(f, "tasks:   ");
	for (uint32_t t = 0; t < in->ntasks; t++) {
		const struct xp_sim_task *k = &in->tasks[t];

		fprintf(f, " %s", k->name);
		if (k->prio)
			fprintf(f, " prio %d", k->prio);
		if (k->drm_prio != XP_SIM_DRM_NORMAL)
			fprintf(f, " drm-prio %s", drm_prio_name(k->drm_prio));
		if (k->has_res)
			fprintf(f, " reserve %.3f/%.3f ms", ms(k->res_c), ms(k->res_p));
		if (k->deadline)
			fprintf(f, " deadline %.3f ms", ms(k->deadline));
		fprintf(f, "%s", t + 1 < in->ntasks ? ";" : "");
	}
	fprintf(f, "\n");
	if (res)
		fprintf(f, "reservations enforced %s (%s), costs predicted from %s\n",
			r->params.enforce == XP_SIM_AE ? "apriori" : "posteriorly",
			xp_sim_enforce_name(r->params.enforce), xp_sim_predict_name(r->params.predict));
	else
		fprintf(f, "costs predicted from %s\n", xp_sim_predict_name(r->params.predict));
	fprintf(f, "\nresponse time = done - queued; JOBS/s and UTIL over the schedule's span\n");
	fprintf(f, "%-9s %-20s %5s %8s %8s %8s %6s %8s %6s %8s %9s\n", "POLICY", "TASK", "JOBS", "P50 ms",
		"P99 ms", "MAX ms", "MISSED", "JOBS/s", "UTIL%", "OVERRUNS", "PRED ERR%");
	for (int k = 0; k < r->nres; k++) {
		for (uint32_t t = 0; t < in->ntasks; t++)
			row(f, r->names[k], in->tasks[t].name, &r->res[k].task[t]);
		row(f, r->names[k], "all", &r->res[k].all);
	}
	shares_text(f, r);
}

static void stats_json(struct xp_json *j, const struct xp_sim_stats *s)
{
	xp_json_ku64(j, "jobs", s->jobs);
	xp_json_ku64(j, "p50_ns", s->p50);
	xp_json_ku64(j, "p99_ns", s->p99);
	xp_json_ku64(j, "max_ns", s->max);
	xp_json_kdouble(j, "mean_ns", s->mean);
	xp_json_ku64(j, "missed", s->missed);
	xp_json_kdouble(j, "jobs_per_s", s->jobs_per_s);
	xp_json_kdouble(j, "util", s->util);
	xp_json_ku64(j, "max_cost_ns", s->max_cost);
	xp_json_ku64(j, "overruns", s->overruns);
	xp_json_key(j, "pred_err_pct");
	if (s->npred)
		xp_json_double(j, s->pred_err);
	else
		xp_json_null(j);
	xp_json_kdouble(j, "share_pct", s->share);
	xp_json_kdouble(j, "wait_mean_ns", s->wait_mean);
}

void xp_sim_report_json(FILE *f, const struct xp_sim_report *r)
{
	const struct xp_sim_input *in = r->in;
	struct xp_json j;

	xp_json_init(&j, f, false);
	xp_json_begin_obj(&j);
	xp_json_kstr(&j, "file", r->path);
	xp_json_ku64(&j, "jobs", in->njobs);
	xp_json_ku64(&j, "dependencies", ndeps(in));
	xp_json_ku64(&j, "left_out", r->left_out);
	xp_json_ku64(&j, "overhead_ns", in->overhead);
	xp_json_kbool(&j, "overhead_measured", r->overhead_measured);
	xp_json_ku64(&j, "reactions", in->react ? in->react_off[in->nrings] : 0);
	xp_json_kstr(&j, "enforce", xp_sim_enforce_name(r->params.enforce));
	xp_json_kstr(&j, "predict", xp_sim_predict_name(r->params.predict));
	xp_json_key(&j, "rings");
	xp_json_begin_arr(&j);
	for (uint16_t i = 0; i < in->nrings; i++) {
		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "name", in->rings[i]);
		xp_json_ku64(&j, "depth", in->depth[i]);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	xp_json_key(&j, "tasks");
	xp_json_begin_arr(&j);
	for (uint32_t t = 0; t < in->ntasks; t++) {
		const struct xp_sim_task *k = &in->tasks[t];

		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "name", k->name);
		xp_json_ku64(&j, "pid", k->pid);
		xp_json_kstr(&j, "comm", k->comm);
		if (k->has_client)
			xp_json_ku64(&j, "client", k->client);
		xp_json_ki64(&j, "prio", k->prio);
		xp_json_kstr(&j, "drm_prio", drm_prio_name(k->drm_prio));
		if (k->has_res) {
			xp_json_ku64(&j, "reserve_c_ns", k->res_c);
			xp_json_ku64(&j, "reserve_p_ns", k->res_p);
		}
		if (k->deadline)
			xp_json_ku64(&j, "deadline_ns", k->deadline);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	xp_json_key(&j, "results");
	xp_json_begin_arr(&j);
	for (int k = 0; k < r->nres; k++) {
		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "policy", r->names[k]);
		xp_json_ku64(&j, "span_ns", r->res[k].last > r->res[k].first ? r->res[k].last - r->res[k].first : 0);
		xp_json_ku64(&j, "share_window_ns", r->res[k].share_end - r->res[k].first);
		xp_json_key(&j, "tasks");
		xp_json_begin_arr(&j);
		for (uint32_t t = 0; t < in->ntasks; t++) {
			xp_json_begin_obj(&j);
			xp_json_kstr(&j, "name", in->tasks[t].name);
			stats_json(&j, &r->res[k].task[t]);
			xp_json_end_obj(&j);
		}
		xp_json_end_arr(&j);
		xp_json_key(&j, "all");
		xp_json_begin_obj(&j);
		stats_json(&j, &r->res[k].all);
		xp_json_end_obj(&j);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
}
