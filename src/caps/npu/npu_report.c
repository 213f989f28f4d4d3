/* The npu capability's summary and stream lines. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "caps/npu/npu_report.h"
#include "sinks/perfetto.h"
#include "sinks/rows.h"
#include "sinks/text.h"

#define MAX_MOVED (XP_NPU_NCAT + 2)

static double secs_of(const struct xp_run_info *ri)
{
	return ri->duration_s > 0 ? ri->duration_s : 0;
}

static void lat_line(FILE *f, const char *what, const struct xp_hist *h)
{
	fprintf(f, "%-34.34s", what);
	xp_print_lat_cols(f, h);
}

static void fmt_err(int err, char *buf, size_t len)
{
	snprintf(buf, len, "%s", strerror(err < 0 ? -err : err));
}

/* A live run says what it traced; a file shows what its records hold. */
static bool show_intel(const struct xp_npu_state *s, const struct xp_npu_info *in)
{
	return in->known ? in->intel : s->nfn > 0 || s->nlat > 0 || s->njobq > 0 || s->njsm > 0 || s->npm > 0;
}

static bool show_xdna(const struct xp_npu_state *s, const struct xp_npu_info *in)
{
	return in->known ? in->xdna : s->nhw > 0;
}

/* amdxdna's hardware contexts: jobs by stage (text and JSON), and the stages' times (text) */
static void hw_who(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_npu_hwctx *h = row;

	(void)ctx;
	if (h->tgid)
		snprintf(v->buf, sizeof(v->buf), "%s[%u]", h->comm, h->tgid);
	else
		snprintf(v->buf, sizeof(v->buf), "-");
	v->s = v->buf;
}

#define HW(m) XP_FIELD(struct xp_npu_hwctx, m)
static const struct xp_col hw_cols[] = {
	{ XP_BOTH("HW CONTEXT", -20, "hwctx", XP_COL_STR), HW(name), .flags = XP_COL_CUT },
	{ XP_TEXT("PROCESS", -22, XP_COL_STR), .flags = XP_COL_CUT, .get = hw_who },
	{ XP_JSON("pid", XP_COL_INT), HW(tgid) },
	{ XP_JSON("comm", XP_COL_STR), HW(comm) },
	{ XP_BOTH("QUEUED", 7, "queued", XP_COL_INT), HW(queued) },
	{ XP_BOTH("RUN", 7, "run", XP_COL_INT), HW(run) },
	{ XP_BOTH("SENT", 7, "sent", XP_COL_INT), HW(sent) },
	{ XP_BOTH("SIGNALED", 8, "signaled", XP_COL_INT), HW(signaled) },
	{ XP_BOTH("DONE", 7, "done", XP_COL_INT), HW(done) },
	{ XP_BOTH("FREED", 7, "freed", XP_COL_INT), HW(freed) },
	{ XP_JSON("other_events", XP_COL_INT), HW(other) },
	{ XP_JSON("in_scheduler_ns", XP_COL_HIST), HW(wait) },
	{ XP_JSON("in_driver_ns", XP_COL_HIST), HW(submit) },
	{ XP_JSON("on_device_ns", XP_COL_HIST), HW(exec) },
	{ XP_JSON("queued_to_signaled_ns", XP_COL_HIST), HW(total) },
};

static const struct xp_col hw_time_cols[] = {
	{ XP_TEXT("TIMES avg / p99", -20, XP_COL_STR), HW(name), .flags = XP_COL_CUT },
	{ XP_TEXT("IN SCHEDULER", 21, XP_COL_HIST), HW(wait), .stat = XP_HIST_MEAN_P99 },
	{ XP_TEXT("IN DRIVER", 21, XP_COL_HIST), HW(submit), .stat = XP_HIST_MEAN_P99 },
	{ XP_TEXT("ON DEVICE", 21, XP_COL_HIST), HW(exec), .stat = XP_HIST_MEAN_P99 },
	{ XP_TEXT("QUEUED->SIGNALED", 21, XP_COL_HIST), HW(total), .stat = XP_HIST_MEAN_P99 },
};

static const struct xp_rows hw_rows = { XP_ROWS(hw_cols) };
static const struct xp_rows hw_time_rows = { XP_ROWS(hw_time_cols) };

static void xdna_text(FILE *f, const struct xp_npu_state *s)
{
	fprintf(f, "\namdxdna jobs per hardware context (the submitter from the scheduler's queue event):%s\n",
		s->nhw ? "" : " none");
	if (!s->nhw)
		return;
	xp_rows_head(f, &hw_rows, s);
	for (int i = 0; i < s->nhw; i++)
		xp_rows_text(f, &hw_rows, &s->hw[i], s);
	fputc('\n', f);
	xp_rows_head(f, &hw_time_rows, s);
	for (int i = 0; i < s->nhw; i++)
		xp_rows_text(f, &hw_time_rows, &s->hw[i], s);
}

/* intel_vpu's calls: refused functions, by category, by function, per process and per device */
static void calls_text(FILE *f, const struct xp_npu_state *s, const struct xp_npu_info *in, double secs)
{
	int unlisted = 0;
	char e[64];

	if (in->known && in->nrefused) {
		fprintf(f, "refused by the kernel (%d):", in->nrefused);
		for (int i = 0; i < in->nrefused && i < XP_NPU_MAX_REFUSED; i++) {
			fmt_err(in->refused[i].err, e, sizeof(e));
			fprintf(f, " %s (%s)%s", in->refused[i].name, e, i + 1 < in->nrefused ? "," : "");
		}
		fprintf(f, "%s\n", in->nrefused > XP_NPU_MAX_REFUSED ? " ..." : "");
	}
	fprintf(f, "\n%-16s %10s %10s\n", "CATEGORY", "CALLS", "PER_S");
	for (int c = 0; c < XP_NPU_NCAT; c++)
		fprintf(f, "%-16s %10" PRIu64 " %10.1f\n", xp_npu_cat_name(c), s->cat[c],
			secs ? (double)s->cat[c] / secs : 0.0);

	for (int i = 0, head = 0; i < s->nfn; i++) {
		const struct xp_npu_fnstat *fn = &s->fn[i];

		if (!fn->known)
			continue;
		if (!fn->calls) {
			unlisted++;
			continue;
		}
		if (!head++)
			fprintf(f, "\n%-40s %10s  %s\n", "FUNCTION", "CALLS", "CATEGORY");
		fprintf(f, "%-40.40s %10" PRIu64 "  %s\n", fn->name, fn->calls, xp_npu_cat_name(fn->cat));
	}
	if (unlisted)
		fprintf(f, "(%d attached function%s not called)\n", unlisted, unlisted == 1 ? "" : "s");

	fprintf(f, "\nper process (calls in a process's context: ioctls, open, close):%s\n",
		s->nprocs ? "" : " none");
	if (s->nprocs) {
		fprintf(f, "%-24s %8s", "PROCESS", "CALLS");
		for (int c = 0; c < XP_NPU_NCAT; c++)
			fprintf(f, " %s", xp_npu_cat_key(c));
		fprintf(f, "\n");
	}
	for (int i = 0; i < s->nprocs; i++) {
		const struct xp_npu_proc *p = &s->procs[i];
		char who[48];

		snprintf(who, sizeof(who), "%s[%u]", p->comm, p->tgid);
		fprintf(f, "%-24.24s %8" PRIu64, who, p->calls);
		for (int c = 0; c < XP_NPU_NCAT; c++)
			fprintf(f, " %*" PRIu64, (int)strlen(xp_npu_cat_key(c)), p->cat[c]);
		fprintf(f, "\n");
	}
	fprintf(f, "per device (interrupts, kernel threads, IPC workers): %" PRIu64 " calls", s->dev_calls);
	for (int c = 0; c < XP_NPU_NCAT; c++)
		if (s->dev_cat[c])
			fprintf(f, ", %s %" PRIu64, xp_npu_cat_name(c), s->dev_cat[c]);
	fprintf(f, "\n");
}

/* intel_vpu's tracepoints: jobs, JSM messages, PM transitions */
static void tracepoints_text(FILE *f, const struct xp_npu_state *s, const struct xp_npu_info *in)
{
	if (in->known && !in->tp_job && !in->tp_jsm && !in->tp_pm)
		fprintf(f, "\nnote: no jobs, JSM messages or PM transitions: %s\n", in->tp_why);
	if (s->njobq) {
		fprintf(f, "\n%-34s %8s %8s %10s %10s %10s\n", "JOBS (vpu:job) CONTEXT/ENGINE", "SUBMIT", "DONE",
			"AVG", "P99", "MAX");
		for (int i = 0; i < s->njobq; i++) {
			const struct xp_npu_jobq *q = &s->jobq[i];
			char a[16], b[16], c[16], w[48];

			snprintf(w, sizeof(w), "ctx %u engine %u", q->ctx, q->engine);
			fprintf(f, "%-34s %8" PRIu64 " %8" PRIu64 " %10s %10s %10s\n", w, q->submitted, q->done,
				xp_fmt_ns(q->lat.count ? q->lat.sum / q->lat.count : 0, a, sizeof(a)),
				xp_fmt_ns(xp_hist_percentile(&q->lat, 99), b, sizeof(b)),
				xp_fmt_ns(q->lat.max, c, sizeof(c)));
		}
	}
	if (s->njsm) {
		fprintf(f, "\n%-40s %6s %8s %10s %10s\n", "JSM MESSAGES (vpu:jsm) TYPE", "STATUS", "MSGS",
			"REQ->RESP", "MAX");
		for (int i = 0; i < s->njsm; i++) {
			const struct xp_npu_jsm *m = &s->jsm[i];
			char a[16], b[16];

			fprintf(f, "%-40.40s %6u %8" PRIu64 " %10s %10s\n", m->type, m->status, m->msgs,
				xp_fmt_mean(m->lat.sum, m->lat.count, a, sizeof(a)),
				m->lat.count ? xp_fmt_ns(m->lat.max, b, sizeof(b)) : "-");
		}
	}
	if (s->npm) {
		fprintf(f, "\n%-34s %8s %14s\n", "PM (vpu:pm) EVENT", "COUNT", "AVG TO NEXT");
		for (int i = 0; i < s->npm; i++) {
			char a[16];

			fprintf(f, "%-34.34s %8" PRIu64 " %14s\n", s->pm[i].event, s->pm[i].n,
				xp_fmt_mean(s->pm[i].dur.sum, s->pm[i].dur.count, a, sizeof(a)));
		}
	}
}

static void intel_text(FILE *f, const struct xp_npu_state *s, const struct xp_npu_info *in,
		       const struct xp_run_info *ri, bool hist)
{
	double secs = secs_of(ri);
	struct xp_npu_ratios now;
	int nmoved;
	struct xp_npu_moved mv[MAX_MOVED];

	calls_text(f, s, in, secs);
	fprintf(f, "\nIPC messages: %" PRIu64 " (%.1f/s)\n", s->ipc_msgs, secs ? (double)s->ipc_msgs / secs : 0.0);
	xp_npu_ratios(s, secs, &now);
	fprintf(f, "MMU pages mapped per buffer: ");
	if (now.has_pages_per_buffer)
		fprintf(f, "%.2f (%" PRIu64 " pages, %" PRIu64 " buffers)\n", now.pages_per_buffer, s->pages, s->buffers);
	else
		fprintf(f, "- (no buffer created)\n");
	fprintf(f, "IPC messages per job: ");
	if (now.has_ipc_per_job)
		fprintf(f, "%.2f (%" PRIu64 " jobs submitted)\n", now.ipc_per_job, s->jobs);
	else
		fprintf(f, "- (no job submitted)\n");

	if (s->nlat) {
		fprintf(f, "\n%-34s %8s %10s %10s %10s %10s\n", "LATENCY (entry -> return)", "CALLS", "AVG",
			"P50", "P99", "MAX");
		for (int i = 0; i < s->nlat; i++) {
			lat_line(f, s->lat[i].name, &s->lat[i].h);
			if (hist && s->lat[i].h.count)
				xp_print_log2_hist(f, &s->lat[i].h, 4);
		}
	}

	tracepoints_text(f, s, in);
	if (in->has_base) {
		nmoved = xp_npu_compare(&in->base, &now, in->threshold, mv, MAX_MOVED);
		fprintf(f, "\nagainst the baseline %s: %s beyond %.0f %%\n", in->base_file,
			nmoved ? "moved" : "nothing moved", in->threshold * 100);
		for (int i = 0; i < nmoved; i++)
			fprintf(f, "  %-36s %10.2f -> %10.2f (x%.2f)\n", mv[i].what, mv[i].base, mv[i].now,
				mv[i].base ? mv[i].now / mv[i].base : 0.0);
	}
}

void xp_npu_report_text(FILE *f, const struct xp_npu_state *s, const struct xp_npu_info *in,
			const struct xp_run_info *ri, bool hist)
{
	if (ri->interval)
		fprintf(f, "--- interval %" PRIu64 " ---\n", ri->interval);
	fprintf(f, "%s: %.1f s, ", ri->command, ri->duration_s);
	if (in->known && in->intel)
		fprintf(f, "intel_vpu: %d of %d ivpu_* functions attached (%s), ", in->attached, in->offered,
			in->hook);
	if (in->known && in->xdna)
		fprintf(f, "amdxdna: xdna_job%s, ", in->xdna_sched ? " + gpu_scheduler" : "");
	xp_print_drops(f, ri);
	if (in->known && !in->intel && in->intel_why[0])
		fprintf(f, "note: intel_vpu is loaded and not traced: %s\n", in->intel_why);
	if (in->known && in->xdna && !in->xdna_sched)
		fprintf(f, "note: amdxdna jobs not joined: %s\n", in->xdna_why);
	if (s->overflow || s->procs_overflow)
		fprintf(f, "note: %" PRIu64 " calls or events past the tables\n", s->overflow + s->procs_overflow);
	if (s->xjobs_evicted)
		fprintf(f, "note: %" PRIu64 " amdxdna jobs still open past the table, dropped\n", s->xjobs_evicted);
	if (show_intel(s, in))
		intel_text(f, s, in, ri, hist);
	if (show_xdna(s, in))
		xdna_text(f, s);
}

static void xdna_json(struct xp_json *j, const struct xp_npu_state *s)
{
	xp_json_key(j, "amdxdna");
	xp_json_begin_obj(j);
	xp_json_ku64(j, "events", s->xdna_events);
	xp_json_ku64(j, "jobs_dropped_open", s->xjobs_evicted);
	xp_rows_json_arr(j, "contexts", &hw_rows, s->hw, s->nhw, sizeof(s->hw[0]), s, NULL);
	xp_json_end_obj(j);
}

/* Which drivers are traced, how intel_vpu's functions are attached; amdxdna's jobs */
static void drivers_json(struct xp_json *j, const struct xp_npu_state *s, const struct xp_npu_info *in)
{
	if (in->known) {
		xp_json_key(j, "drivers");
		xp_json_begin_obj(j);
		xp_json_kbool(j, "intel_vpu", in->intel);
		if (!in->intel && in->intel_why[0])
			xp_json_kstr(j, "intel_vpu_why", in->intel_why);
		xp_json_kbool(j, "amdxdna", in->xdna);
		xp_json_kbool(j, "amdxdna_joined", in->xdna_sched);
		if (in->xdna_why[0])
			xp_json_kstr(j, "amdxdna_why", in->xdna_why);
		xp_json_end_obj(j);
	}
	if (show_xdna(s, in))
		xdna_json(j, s);
	if (in->known && in->intel) {
		xp_json_key(j, "attach");
		xp_json_begin_obj(j);
		xp_json_kstr(j, "module", "intel_vpu");
		xp_json_kstr(j, "hook", in->hook);
		xp_json_ku64(j, "offered", (uint64_t)in->offered);
		xp_json_ku64(j, "attached", (uint64_t)in->attached);
		xp_json_key(j, "refused");
		xp_json_begin_arr(j);
		for (int i = 0; i < in->nrefused && i < XP_NPU_MAX_REFUSED; i++) {
			xp_json_begin_obj(j);
			xp_json_kstr(j, "function", in->refused[i].name);
			xp_json_kstr(j, "why", strerror(-in->refused[i].err));
			xp_json_end_obj(j);
		}
		xp_json_end_arr(j);
		xp_json_ku64(j, "refused_count", (uint64_t)in->nrefused);
		xp_json_kbool(j, "tracepoints", in->tp_job || in->tp_jsm || in->tp_pm);
		xp_json_end_obj(j);
	}
}

/* intel_vpu's calls: by category, by function, per process, of the device */
static void calls_json(struct xp_json *j, const struct xp_npu_state *s)
{
	xp_json_key(j, "categories");
	xp_json_begin_obj(j);
	for (int c = 0; c < XP_NPU_NCAT; c++)
		xp_json_ku64(j, xp_npu_cat_key(c), s->cat[c]);
	xp_json_end_obj(j);
	xp_json_key(j, "functions");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->nfn; i++) {
		if (!s->fn[i].known)
			continue;
		xp_json_begin_obj(j);
		xp_json_kstr(j, "function", s->fn[i].name);
		xp_json_ku64(j, "calls", s->fn[i].calls);
		xp_json_kstr(j, "category", xp_npu_cat_key(s->fn[i].cat));
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
	xp_json_key(j, "processes");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->nprocs; i++) {
		xp_json_begin_obj(j);
		xp_json_ku64(j, "pid", s->procs[i].tgid);
		xp_json_kstr(j, "comm", s->procs[i].comm);
		xp_json_ku64(j, "calls", s->procs[i].calls);
		xp_json_key(j, "categories");
		xp_json_begin_obj(j);
		for (int c = 0; c < XP_NPU_NCAT; c++)
			xp_json_ku64(j, xp_npu_cat_key(c), s->procs[i].cat[c]);
		xp_json_end_obj(j);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
	xp_json_key(j, "device");
	xp_json_begin_obj(j);
	xp_json_ku64(j, "calls", s->dev_calls);
	xp_json_key(j, "categories");
	xp_json_begin_obj(j);
	for (int c = 0; c < XP_NPU_NCAT; c++)
		xp_json_ku64(j, xp_npu_cat_key(c), s->dev_cat[c]);
	xp_json_end_obj(j);
	xp_json_end_obj(j);
}

/* intel_vpu's tracepoints: jobs, JSM messages, PM transitions */
static void tracepoints_json(struct xp_json *j, const struct xp_npu_state *s)
{
	xp_json_key(j, "jobs");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->njobq; i++) {
		xp_json_begin_obj(j);
		xp_json_ku64(j, "ctx", s->jobq[i].ctx);
		xp_json_ku64(j, "engine", s->jobq[i].engine);
		xp_json_ku64(j, "submitted", s->jobq[i].submitted);
		xp_json_ku64(j, "done", s->jobq[i].done);
		xp_json_khist(j, "submit_to_done_ns", &s->jobq[i].lat);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
	xp_json_key(j, "jsm");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->njsm; i++) {
		xp_json_begin_obj(j);
		xp_json_kstr(j, "type", s->jsm[i].type);
		xp_json_ku64(j, "status", s->jsm[i].status);
		xp_json_ku64(j, "messages", s->jsm[i].msgs);
		xp_json_khist(j, "request_to_response_ns", &s->jsm[i].lat);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
	xp_json_key(j, "pm");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->npm; i++) {
		xp_json_begin_obj(j);
		xp_json_kstr(j, "event", s->pm[i].event);
		xp_json_ku64(j, "count", s->pm[i].n);
		xp_json_khist(j, "to_next_ns", &s->pm[i].dur);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
}

/* The ratios that moved against the baseline */
static void baseline_json(struct xp_json *j, const struct xp_npu_info *in, const struct xp_npu_ratios *now)
{
	if (in->has_base) {
		struct xp_npu_moved mv[MAX_MOVED];
		int n = xp_npu_compare(&in->base, now, in->threshold, mv, MAX_MOVED);

		xp_json_key(j, "baseline");
		xp_json_begin_obj(j);
		xp_json_kstr(j, "file", in->base_file);
		xp_json_kdouble(j, "threshold", in->threshold);
		xp_json_key(j, "moved");
		xp_json_begin_arr(j);
		for (int i = 0; i < n; i++) {
			xp_json_begin_obj(j);
			xp_json_kstr(j, "ratio", mv[i].what);
			xp_json_kdouble(j, "baseline", mv[i].base);
			xp_json_kdouble(j, "now", mv[i].now);
			xp_json_end_obj(j);
		}
		xp_json_end_arr(j);
		xp_json_end_obj(j);
	}
}

void xp_npu_report_json(FILE *f, const struct xp_npu_state *s, const struct xp_npu_info *in,
			const struct xp_run_info *ri)
{
	struct xp_json j;
	double secs = secs_of(ri);
	struct xp_npu_ratios now;

	xp_npu_ratios(s, secs, &now);
	xp_json_begin_run(&j, f, ri);
	drivers_json(&j, s, in);
	calls_json(&j, s);
	xp_json_ku64(&j, "ipc_messages", s->ipc_msgs);
	xp_json_kdouble(&j, "ipc_messages_per_s", secs ? (double)s->ipc_msgs / secs : 0);
	xp_json_ku64(&j, "mmu_pages_mapped", s->pages);
	xp_json_ku64(&j, "buffers_created", s->buffers);
	xp_json_ku64(&j, "jobs_submitted", s->jobs);
	xp_json_key(&j, "ratios");
	xp_json_begin_obj(&j);
	xp_json_key(&j, "mmu_pages_per_buffer");
	if (now.has_pages_per_buffer)
		xp_json_double(&j, now.pages_per_buffer);
	else
		xp_json_null(&j);
	xp_json_key(&j, "ipc_messages_per_job");
	if (now.has_ipc_per_job)
		xp_json_double(&j, now.ipc_per_job);
	else
		xp_json_null(&j);
	xp_json_key(&j, "calls_per_s");
	xp_json_begin_obj(&j);
	for (int c = 0; c < XP_NPU_NCAT; c++)
		xp_json_kdouble(&j, xp_npu_cat_key(c), now.per_s[c]);
	xp_json_end_obj(&j);
	xp_json_end_obj(&j);
	xp_json_key(&j, "latency");
	xp_json_begin_arr(&j);
	for (int i = 0; i < s->nlat; i++) {
		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "function", s->lat[i].name);
		xp_json_khist(&j, "ns", &s->lat[i].h);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	tracepoints_json(&j, s);
	baseline_json(&j, in, &now);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
}
