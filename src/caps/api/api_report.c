/* `api` summary (text, JSON) and --stream lines. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "caps/api/api_report.h"
#include "sinks/perfetto.h"
#include "caps/ioctl/ioctl_report.h"
#include "sinks/rows.h"
#include "sinks/text.h"

const char *xp_api_ret_str(uint32_t rule, int64_t ret, char *buf, size_t len)
{
	char e[24];

	if (rule == XP_API_RET_NEGATIVE && ret < 0 && ret > -4096)
		snprintf(buf, len, "-%s", xp_errno_name((uint32_t)-ret, e, sizeof(e)));
	else if (ret >= 0x10000)
		snprintf(buf, len, "0x%" PRIx64, (uint64_t)ret);	/* Level Zero's codes */
	else
		snprintf(buf, len, "%" PRId64, ret);
	return buf;
}

static double per_call(const struct xp_api_row *w)
{
	return w->calls ? (double)w->ioctls / (double)w->calls : 0;
}

static uint64_t lost_total(const struct xp_api_report *r, const uint64_t *v)
{
	uint64_t n = 0;

	for (int i = 0; r->lost_known && i < r->nfn; i++)
		n += v[i];
	return n;
}

/* Calls that never returned, `what` happened to them, by function. */
static void lost_note(FILE *f, const struct xp_api_report *r, const uint64_t *v, const char *what)
{
	uint64_t n = lost_total(r, v);
	const char *sep = ": ";

	if (!n)
		return;
	fprintf(f, "note: %" PRIu64 " call%s %s", n, n == 1 ? "" : "s", what);
	for (int i = 0; i < r->nfn; i++) {
		if (!v[i])
			continue;
		fprintf(f, "%s%s %" PRIu64, sep, r->fns[i].name, v[i]);
		sep = ", ";
	}
	fputc('\n', f);
}

static void text_notes(FILE *f, const struct xp_api_report *r)
{
	const struct xp_api_state *s = r->st;

	for (int i = 0; i < r->nnotes; i++)
		fprintf(f, "note: %s\n", r->notes[i]);
	for (int i = 0; i < s->nrows; i++) {
		const struct xp_api_row *w = &s->rows[i];

		if (w->calls && !w->ioctls && w->pid != XP_API_PID_OTHER)
			fprintf(f, "note: %s (%s, pid %u): none of its %" PRIu64 " call%s issued an ioctl on a "
				   "traced device: the runtime submitted without the kernel there\n",
				w->name, w->lib, w->pid, w->calls, w->calls == 1 ? "" : "s");
	}
	if (s->calls_folded)
		fprintf(f, "note: more than %d rows of functions and processes: %" PRIu64 " calls of later "
			   "processes are added up in the (other) rows\n", XP_API_MAX_ROWS - XP_API_MAX_FN,
			s->calls_folded);
	if (r->too_deep)
		fprintf(f, "note: %" PRIu64 " calls nested deeper than %d traced calls: not counted\n",
			r->too_deep, XP_API_DEPTH);
	if (r->unmatched)
		fprintf(f, "note: %" PRIu64 " returns did not match their thread's open call (longjmp, "
			   "exceptions): not counted\n", r->unmatched);
	if (s->rows_full)
		fprintf(f, "note: %" PRIu64 " calls past %d functions and processes: not counted\n",
			s->rows_full, XP_API_MAX_ROWS);
	if (s->ioctls_lost)
		fprintf(f, "note: %" PRIu64 " ioctls not kept for their call (a thread's or the table's limit)\n",
			s->ioctls_lost);
	if (s->jobs_outside)
		fprintf(f, "note: %" PRIu64 " jobs queued by threads outside any traced call of theirs that "
			   "returned\n", s->jobs_outside);
	if (s->jobs_let_go)
		fprintf(f, "note: %" PRIu64 " jobs let go unjoined: %d held at once, none claimed by a call "
			   "yet (threads that made no traced call)\n", s->jobs_let_go, XP_API_JOBS);
	if (s->jobs_lost)
		fprintf(f, "note: %" PRIu64 " jobs not joined: %d held at once, all waited for by calls\n",
			s->jobs_lost, XP_API_JOBS);
	if (s->calls_unfollowed)
		fprintf(f, "note: %" PRIu64 " calls not followed to their jobs' done: %d calls waiting at once\n",
			s->calls_unfollowed, XP_API_WAITS);
	if (s->calls_open_at_end)
		fprintf(f, "note: %" PRIu64 " calls still waiting for a job when tracing ended: counted as "
			   "never done\n", s->calls_open_at_end);
	lost_note(f, r, r->ended, "never returned: the thread ended inside (exit or exec), not counted");
	lost_note(f, r, r->open, r->final ? "still in flight when tracing ended, not counted"
					  : "in flight at the interval's end, not counted yet");
	if (r->undecodable)
		fprintf(f, "note: %" PRIu64 " record%s could not be decoded\n", r->undecodable,
			r->undecodable == 1 ? "" : "s");
}

static double jobs_per_call(const struct xp_api_row *w)
{
	return w->calls ? (double)w->jobs / (double)w->calls : 0;
}

/* A row's jobs: per call, and call -> the last of its jobs done. */
static void text_row_jobs(FILE *f, const struct xp_api_row *w)
{
	char p50[16], p99[16], mx[16];

	fprintf(f, "%8s jobs: %.2f/call (max %" PRIu64 ", %" PRIu64 " calls none)", "", jobs_per_call(w),
		w->max_jobs, w->no_job);
	if (w->done.count)
		fprintf(f, ", call->done p50 %s p99 %s max %s of %" PRIu64,
			xp_fmt_ns(xp_hist_percentile(&w->done, 50), p50, sizeof(p50)),
			xp_fmt_ns(xp_hist_percentile(&w->done, 99), p99, sizeof(p99)),
			xp_fmt_ns(w->done.max, mx, sizeof(mx)), w->done.count);
	if (w->undone)
		fprintf(f, ", %" PRIu64 " never done", w->undone);
	fputc('\n', f);
}

static void text_row_details(FILE *f, const struct xp_api_row *w, const struct xp_devices *d, bool jobs)
{
	char name[64], ret[32];

	if (jobs)
		text_row_jobs(f, w);
	if (w->ncmd) {
		fprintf(f, "%8s ioctls:", "");
		for (int i = 0; i < w->ncmd; i++)
			fprintf(f, " %s x%" PRIu64, xp_ioctl_entry_name(d, w->cmd[i].dev, w->cmd[i].cmd, name,
									 sizeof(name)), w->cmd[i].n);
		if (w->other_cmds)
			fprintf(f, " other x%" PRIu64, w->other_cmds);
		fputc('\n', f);
	}
	if (w->nerr) {
		fprintf(f, "%8s returned:", "");
		for (int i = 0; i < w->nerr; i++)
			fprintf(f, " %s x%" PRIu64, xp_api_ret_str(w->rule, w->err_code[i], ret, sizeof(ret)),
				w->err_n[i]);
		if (w->other_errs)
			fprintf(f, " other x%" PRIu64, w->other_errs);
		fputc('\n', f);
	}
}

void xp_api_report_text(FILE *f, const struct xp_api_report *r)
{
	struct xp_api_state *s = r->st;

	xp_api_sort(s);
	if (r->ri->interval)
		fprintf(f, "--- interval %" PRIu64 " ---\n", r->ri->interval);
	fprintf(f, "%s: %.1f s, %" PRIu64 " calls, %" PRIu64 " ioctls inside them, ", r->ri->command,
		r->ri->duration_s, s->calls, s->ioctls);
	if (s->jobs_on)
		fprintf(f, "%" PRIu64 " jobs queued, ", s->jobs_queued);
	xp_print_drops(f, r->ri);
	text_notes(f, r);
	if (!s->nrows)
		return;
	fprintf(f, "%-7s %-15s %-18s %-34s %7s %6s %9s %9s %9s %8s %8s\n", "PID", "COMM", "LIBRARY",
		"FUNCTION", "CALLS", "ERRORS", "p50", "p99", "max", "IOC/CALL", "NO-IOCTL");
	for (int i = 0; i < s->nrows; i++) {
		const struct xp_api_row *w = &s->rows[i];
		char p50[16], p99[16], mx[16], pid[16];

		snprintf(pid, sizeof(pid), w->pid == XP_API_PID_OTHER ? "-" : "%u", w->pid);
		fprintf(f, "%-7s %-15.15s %-18.18s %-34s %7" PRIu64 " %6" PRIu64 " %9s %9s %9s %8.2f %8" PRIu64 "\n",
			pid, w->comm, w->lib, w->name, w->calls, w->errors,
			xp_fmt_ns(xp_hist_percentile(&w->lat, 50), p50, sizeof(p50)),
			xp_fmt_ns(xp_hist_percentile(&w->lat, 99), p99, sizeof(p99)),
			xp_fmt_ns(w->lat.max, mx, sizeof(mx)), per_call(w), w->no_ioctl);
		text_row_details(f, w, r->devs, s->jobs_on);
		if (r->hist)
			xp_print_log2_hist(f, &w->lat, 8);
	}
}

static void ioctls_per_call(const void *row, const void *ctx, struct xp_val *v)
{
	(void)ctx;
	v->d = per_call(row);
}

static void jobs_per_call_v(const void *row, const void *ctx, struct xp_val *v)
{
	(void)ctx;
	v->d = jobs_per_call(row);
}

/* null: the (other) row of many processes */
static void pid_v(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_api_row *w = row;

	(void)ctx;
	v->u = w->pid;
	v->none = w->pid == XP_API_PID_OTHER;
}

/* A function's row in JSON: who called it, its errors, its ioctls, its jobs */
#define ROW(m) XP_FIELD(struct xp_api_row, m)
static const struct xp_col call_cols[] = {
	{ XP_JSON("pid", XP_COL_INT), .get = pid_v },
	{ XP_JSON("comm", XP_COL_STR), ROW(comm) },
	{ XP_JSON("lib", XP_COL_STR), ROW(lib) },
	{ XP_JSON("function", XP_COL_STR), ROW(name) },
	{ XP_JSON("calls", XP_COL_INT), ROW(calls) },
	{ XP_JSON("errors", XP_COL_INT), ROW(errors) },
};

static const struct xp_col ioctl_cols[] = {
	{ XP_JSON("latency_ns", XP_COL_HIST), ROW(lat) },
	{ XP_JSON("ioctls", XP_COL_INT), ROW(ioctls) },
	{ XP_JSON("ioctls_per_call", XP_COL_DOUBLE), .get = ioctls_per_call },
	{ XP_JSON("max_ioctls_per_call", XP_COL_INT), ROW(max_ioctls) },
	{ XP_JSON("calls_without_ioctl", XP_COL_INT), ROW(no_ioctl) },
};

static const struct xp_col job_cols[] = {
	{ XP_JSON("jobs", XP_COL_INT), ROW(jobs) },
	{ XP_JSON("jobs_per_call", XP_COL_DOUBLE), .get = jobs_per_call_v },
	{ XP_JSON("max_jobs_per_call", XP_COL_INT), ROW(max_jobs) },
	{ XP_JSON("calls_without_job", XP_COL_INT), ROW(no_job) },
	{ XP_JSON("call_to_done_ns", XP_COL_HIST), ROW(done) },
	{ XP_JSON("calls_never_done", XP_COL_INT), ROW(undone) },
};

static const struct xp_rows call_rows = { XP_ROWS(call_cols) };
static const struct xp_rows ioctl_rows = { XP_ROWS(ioctl_cols) };
static const struct xp_rows job_rows = { XP_ROWS(job_cols) };

static void json_row(struct xp_json *j, const struct xp_api_row *w, const struct xp_devices *d, bool jobs)
{
	char name[64], ret[32];

	xp_json_begin_obj(j);
	xp_rows_json(j, &call_rows, w, d);
	xp_json_key(j, "errors_by_return");
	xp_json_begin_obj(j);
	for (int i = 0; i < w->nerr; i++)
		xp_json_ku64(j, xp_api_ret_str(w->rule, w->err_code[i], ret, sizeof(ret)), w->err_n[i]);
	if (w->other_errs)
		xp_json_ku64(j, "other", w->other_errs);
	xp_json_end_obj(j);
	xp_rows_json(j, &ioctl_rows, w, d);
	xp_json_key(j, "ioctl_names");
	xp_json_begin_obj(j);
	for (int i = 0; i < w->ncmd; i++)
		xp_json_ku64(j, xp_ioctl_entry_name(d, w->cmd[i].dev, w->cmd[i].cmd, name, sizeof(name)),
			     w->cmd[i].n);
	if (w->other_cmds)
		xp_json_ku64(j, "other", w->other_cmds);
	xp_json_end_obj(j);
	if (jobs)
		xp_rows_json(j, &job_rows, w, d);
	xp_json_end_obj(j);
}

/* Calls that never returned: totals, and by function those that have any. */
static void json_lost(struct xp_json *j, const struct xp_api_report *r)
{
	xp_json_ku64(j, "calls_thread_ended", lost_total(r, r->ended));
	xp_json_ku64(j, "calls_in_flight", lost_total(r, r->open));
	xp_json_key(j, "never_returned");
	xp_json_begin_arr(j);
	for (int i = 0; i < r->nfn; i++) {
		if (!r->ended[i] && !r->open[i])
			continue;
		xp_json_begin_obj(j);
		xp_json_kstr(j, "function", r->fns[i].name);
		xp_json_kstr(j, "lib", r->fns[i].lib);
		xp_json_ku64(j, "thread_ended", r->ended[i]);
		xp_json_ku64(j, "in_flight", r->open[i]);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
}

void xp_api_report_json(FILE *f, const struct xp_api_report *r)
{
	struct xp_api_state *s = r->st;
	struct xp_json j;

	xp_api_sort(s);
	xp_json_begin_run(&j, f, r->ri);
	xp_json_ku64(&j, "calls", s->calls);
	xp_json_ku64(&j, "ioctls", s->ioctls);
	xp_json_ku64(&j, "ioctls_lost", s->ioctls_lost);
	xp_json_ku64(&j, "calls_not_counted", s->rows_full + r->too_deep + r->unmatched);
	if (s->calls_folded)
		xp_json_ku64(&j, "calls_folded", s->calls_folded);
	xp_json_ku64(&j, "undecodable", r->undecodable);
	xp_json_kbool(&j, "jobs_followed", s->jobs_on);
	if (s->jobs_on) {
		xp_json_ku64(&j, "jobs_queued", s->jobs_queued);
		xp_json_ku64(&j, "jobs_outside_calls", s->jobs_outside);
		xp_json_ku64(&j, "jobs_let_go", s->jobs_let_go);
		xp_json_ku64(&j, "jobs_lost", s->jobs_lost);
		xp_json_ku64(&j, "calls_unfollowed", s->calls_unfollowed);
		xp_json_ku64(&j, "calls_open_at_end", s->calls_open_at_end);
	}
	if (r->lost_known)
		json_lost(&j, r);
	xp_json_kbool(&j, "final", r->final);
	xp_json_key(&j, "functions");
	xp_json_begin_arr(&j);
	for (int i = 0; i < s->nrows; i++)
		json_row(&j, &s->rows[i], r->devs, s->jobs_on);
	xp_json_end_arr(&j);
	xp_json_key(&j, "notes");
	xp_json_begin_arr(&j);
	for (int i = 0; i < r->nnotes; i++)
		xp_json_str(&j, r->notes[i]);
	xp_json_end_arr(&j);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
}

void xp_api_stream_header(FILE *f)
{
	fprintf(f, "%-12s %-28s %-34s %-12s %9s  %s\n", "TIME(s)", "PROCESS/TID", "FUNCTION", "RETURN",
		"LATENCY", "IOCTLS");
}

/* " | jobs 2 on ring0, done +1.2ms": a call's jobs and, when they all ended, its last done. */
static void stream_jobs(FILE *f, const struct xp_api_joined *j)
{
	const struct xp_api_rec *c = j->call;
	char dt[16];

	if (!j->jobs_on)
		return;
	fprintf(f, " | jobs %u", j->jobs);
	if (!j->jobs)
		return;
	fprintf(f, " on %s%s", j->ring[0] ? j->ring : "?", j->rings_many ? "+" : "");
	if (j->jobs_open)
		fprintf(f, ", %u not done", j->jobs_open);
	else if (j->done_ts)
		fprintf(f, ", done +%s", xp_fmt_ns(j->done_ts > c->hdr.ts_ns ? j->done_ts - c->hdr.ts_ns : 0,
						   dt, sizeof(dt)));
	else
		fputs(", never done", f);
}

void xp_api_stream_text(FILE *f, const struct xp_api_joined *j, const struct xp_devices *d, uint64_t t0)
{
	const struct xp_api_rec *c = j->call;
	char t[32], who[48], ret[32], lat[16], name[64], il[16];

	*xp_put_rel_s(t, c->hdr.ts_ns, t0) = 0;
	snprintf(who, sizeof(who), "%u/%u/%.16s", c->hdr.pid, c->hdr.tid, c->comm);
	fprintf(f, "%-12s %-28s %-34.47s %-12s %9s  ", t, who, c->name,
		xp_api_ret_str(c->rule, c->ret, ret, sizeof(ret)),
		xp_fmt_ns(c->end_ns - c->hdr.ts_ns, lat, sizeof(lat)));
	if (!j->n)
		fputs("none", f);
	else
		fprintf(f, "%u:", j->n);
	for (uint32_t i = 0; i < j->nkept; i++)
		fprintf(f, "%s %s=%" PRId64 " %s", i ? "," : "",
			xp_ioctl_entry_name(d, j->ioc[i].dev, j->ioc[i].cmd, name, sizeof(name)), j->ioc[i].ret,
			xp_fmt_ns(j->ioc[i].end - j->ioc[i].ts, il, sizeof(il)));
	if (j->n > j->nkept)
		fprintf(f, ", +%u more", j->n - j->nkept);
	stream_jobs(f, j);
	fputc('\n', f);
}

void xp_api_stream_json(struct xp_json *js, const struct xp_api_joined *j, const struct xp_devices *d,
			uint64_t t0)
{
	const struct xp_api_rec *c = j->call;
	char name[64];

	xp_json_begin_obj(js);
	xp_json_ki64(js, "t_ns", xp_rel_ns(c->hdr.ts_ns, t0));
	xp_json_ku64(js, "pid", c->hdr.pid);
	xp_json_ku64(js, "tid", c->hdr.tid);
	xp_json_kstr(js, "comm", c->comm);
	xp_json_kstr(js, "lib", c->lib);
	xp_json_kstr(js, "function", c->name);
	xp_json_ki64(js, "ret", c->ret);
	xp_json_kbool(js, "error", j->error);
	xp_json_ku64(js, "latency_ns", c->end_ns - c->hdr.ts_ns);
	xp_json_ku64(js, "depth", c->depth);
	xp_json_ku64(js, "ioctls", j->n);
	xp_json_key(js, "ioctl_list");
	xp_json_begin_arr(js);
	for (uint32_t i = 0; i < j->nkept; i++) {
		xp_json_begin_obj(js);
		xp_json_kstr(js, "name", xp_ioctl_entry_name(d, j->ioc[i].dev, j->ioc[i].cmd, name, sizeof(name)));
		xp_json_ku64(js, "cmd", j->ioc[i].cmd);
		xp_json_ki64(js, "ret", j->ioc[i].ret);
		xp_json_ki64(js, "t_ns", xp_rel_ns(j->ioc[i].ts, t0));
		xp_json_ku64(js, "latency_ns", j->ioc[i].end - j->ioc[i].ts);
		xp_json_end_obj(js);
	}
	xp_json_end_arr(js);
	if (j->jobs_on) {
		xp_json_ku64(js, "jobs", j->jobs);
		xp_json_kstr(js, "job_ring", j->ring);
		xp_json_kbool(js, "job_rings_many", j->rings_many);
		xp_json_ku64(js, "jobs_not_done", j->jobs_open);
		if (j->jobs && !j->jobs_open && j->done_ts)
			xp_json_ku64(js, "call_to_done_ns", j->done_ts > c->hdr.ts_ns ? j->done_ts - c->hdr.ts_ns : 0);
	}
	xp_json_end_obj(js);
	xp_json_finish(js);
}

void xp_perfetto_api(struct xp_perfetto *p, const struct xp_api_joined *j, const struct xp_devices *d,
		     bool ioctls)
{
	const struct xp_api_rec *c = j->call;
	uint32_t pid = c->hdr.pid, tid = c->hdr.tid;
	char comm[XP_COMM_LEN], name[64], ret[32];

	memcpy(comm, c->comm, sizeof(comm));
	comm[XP_COMM_LEN - 1] = '\0';
	xp_perfetto_name(p, pid, tid, comm);
	xp_perfetto_slice_begin(p, pid, tid, "api", c->name, c->hdr.ts_ns, c->end_ns - c->hdr.ts_ns);
	if (xp_perfetto_args(p)) {
		xp_json_kstr(&p->j, "lib", c->lib);
		xp_json_kstr(&p->j, "ret", xp_api_ret_str(c->rule, c->ret, ret, sizeof(ret)));
		xp_json_kbool(&p->j, "error", j->error);
		xp_json_ku64(&p->j, "ioctls", j->n);
		if (j->jobs_on)
			xp_json_ku64(&p->j, "jobs", j->jobs);
	}
	xp_perfetto_slice_end(p);
	/* inside the call on its thread's track: nesting shows the join, no arrow needed */
	for (uint32_t i = 0; ioctls && i < j->nkept; i++) {
		const struct xp_api_ioctl *io = &j->ioc[i];

		xp_perfetto_slice_begin(p, pid, tid, "ioctl", xp_ioctl_entry_name(d, io->dev, io->cmd, name, sizeof(name)),
					io->ts, io->end - io->ts);
		if (xp_perfetto_args(p))
			xp_json_ki64(&p->j, "ret", io->ret);
		xp_perfetto_slice_end(p);
	}
}
