/* fence summary (text, JSON), --stream lines and Perfetto slices. */
#include <inttypes.h>
#include <string.h>

#include "caps/fence/fence_report.h"
#include "sinks/perfetto.h"
#include "sinks/rows.h"
#include "sinks/text.h"

static void text_notes(FILE *f, const struct xp_tp_report *r)
{
	const struct xp_fence_state *s = r->st;
	const struct xp_rawtp_layout *l = r->layout;

	xp_print_skipped_events(f, l, NULL);
	xp_print_notes(f, r->filtered ? "fences' creation and to waits; signals of other processes' fences "
					"count as init unseen" : NULL,
		       s->overflow, "fences/timelines/processes", r->undecodable);
}

/* The rows of the summary: per timeline, per process, per thread; the fences and waits in all. */
static void tl_name(const void *row, const void *ctx, struct xp_val *v)
{
	(void)ctx;
	v->s = xp_fence_tl_name(row, v->buf, sizeof(v->buf));
}

#define TL(m) XP_FIELD(struct xp_fence_tl, m)
static const struct xp_col tl_cols[] = {
	{ XP_TEXT("DRIVER TIMELINE", -36, XP_COL_STR), .flags = XP_COL_CUT, .get = tl_name },
	{ XP_JSON("driver", XP_COL_STR), TL(driver) },
	{ XP_JSON("timeline", XP_COL_STR), TL(name) },
	{ XP_BOTH("CREATED", 8, "created", XP_COL_INT), TL(created) },
	{ XP_JSON("emitted", XP_COL_INT), TL(emitted) },
	{ XP_BOTH("SIGNALED", 8, "signaled", XP_COL_INT), TL(signaled) },
	{ XP_JSON("signaled_init_unseen", XP_COL_INT), TL(signaled_unseen) },
	{ XP_BOTH("NEVER_SIG", 10, "unsignaled", XP_COL_INT), TL(open) },
	{ XP_TEXT("INIT_UNSEEN", 11, XP_COL_INT), TL(signaled_unseen) },
	{ XP_JSON("enable_signal", XP_COL_INT), TL(enabled) },
	{ XP_JSON("destroyed", XP_COL_INT), TL(destroyed) },
	{ XP_JSON("destroyed_unsignaled", XP_COL_INT), TL(destroyed_unsignaled) },
	{ XP_BOTH("WAITS", 6, "waits", XP_COL_INT), TL(waits) },
	{ XP_JSON("wait_ns", XP_COL_INT), TL(wait_ns) },
	{ XP_TEXT("MEAN", 9, XP_COL_HIST), TL(life), .stat = XP_HIST_MEAN },
	{ XP_BOTH("p50/p90/p99", 0, "life_ns", XP_COL_HIST), TL(life), .gap = 1 },
};

/* Live runs and files that ended: what is still unsignaled was never signaled. */
static const char *tl_head(int i, const void *ctx)
{
	const struct xp_tp_report *r = ctx;

	return !r->final && tl_cols[i].head && !strcmp(tl_cols[i].head, "NEVER_SIG") ? "IN_FLIGHT" : NULL;
}

static const struct xp_rows tl_rows = { XP_ROWS(tl_cols), .indent = "  ", .head_of = tl_head };

static void proc_who(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_fence_proc *p = row;

	(void)ctx;
	snprintf(v->buf, sizeof(v->buf), "%u/%s", p->pid, p->comm);
	v->s = v->buf;
}

#define PROC(m) XP_FIELD(struct xp_fence_proc, m)
static const struct xp_col proc_cols[] = {
	{ XP_TEXT("PROCESS", -24, XP_COL_STR), .flags = XP_COL_CUT, .get = proc_who },
	{ XP_JSON("pid", XP_COL_INT), PROC(pid) },
	{ XP_JSON("comm", XP_COL_STR), PROC(comm) },
	{ XP_BOTH("CREATED", 8, "created", XP_COL_INT), PROC(created) },
	{ XP_BOTH("WAITS", 6, "waits", XP_COL_INT), PROC(waits) },
	{ XP_TEXT("WAIT_TIME", 10, XP_COL_HIST), PROC(wait), .stat = XP_HIST_SUM },
	{ XP_TEXT("MEAN", 9, XP_COL_HIST), PROC(wait), .stat = XP_HIST_MEAN },
	{ XP_TEXT("MAX", 9, XP_COL_HIST), PROC(wait), .stat = XP_HIST_MAX },
	{ XP_JSON("wait_max_ns", XP_COL_INT), PROC(wait_max) },
	{ XP_JSON("wait_ns", XP_COL_HIST), PROC(wait) },
};

static const struct xp_rows proc_rows = { XP_ROWS(proc_cols), .indent = "  " };

static void thread_who(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_fence_thread *t = row;

	(void)ctx;
	snprintf(v->buf, sizeof(v->buf), "thread %u/%s", t->tid, t->comm);
	v->s = v->buf;
}

static void thread_mean(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_fence_thread *t = row;

	(void)ctx;
	v->none = !t->waits;
	v->u = v->none ? 0 : t->wait_ns / t->waits;
}

#define THR(m) XP_FIELD(struct xp_fence_thread, m)
static const struct xp_col thread_cols[] = {
	{ XP_TEXT("", -31, XP_COL_STR), .flags = XP_COL_CUT, .get = thread_who },
	{ XP_JSON("tid", XP_COL_INT), THR(tid) },
	{ XP_JSON("comm", XP_COL_STR), THR(comm) },
	{ XP_BOTH("", 6, "waits", XP_COL_INT), THR(waits) },
	{ XP_BOTH("", 10, "wait_ns", XP_COL_NS), THR(wait_ns) },
	{ XP_TEXT("", 9, XP_COL_NS), .get = thread_mean },
	{ XP_BOTH("", 9, "wait_max_ns", XP_COL_NS), THR(wait_max) },
};

static const struct xp_rows thread_rows = { XP_ROWS(thread_cols), .indent = "    " };

static void fences_open(const void *row, const void *ctx, struct xp_val *v)
{
	(void)ctx;
	v->u = xp_fence_open(row, -1);
}

#define ST(m) XP_FIELD(struct xp_fence_state, m)
static const struct xp_col fences_cols[] = {
	{ XP_JSON("created", XP_COL_INT), ST(created) },
	{ XP_JSON("signaled", XP_COL_INT), ST(signaled) },
	{ XP_JSON("signaled_init_unseen", XP_COL_INT), ST(signaled_unseen) },
	{ XP_JSON("unsignaled", XP_COL_INT), .get = fences_open },
	{ XP_JSON("life_ns", XP_COL_HIST), ST(life) },
};

static const struct xp_col waits_cols[] = {
	{ XP_JSON("count", XP_COL_INT), ST(waits) },
	{ XP_JSON("without_start", XP_COL_INT), ST(wait_unseen) },
	{ XP_JSON("in_progress", XP_COL_SINT), ST(nwaiting) },
	{ XP_JSON("wait_ns", XP_COL_HIST), ST(wait) },
};

static void events_present(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_tp_report *r = ctx;

	(void)row;
	v->u = (uint64_t)r->layout->npresent;
}

#define REP(m) XP_FIELD(struct xp_tp_report, m), .flags = XP_COL_IN_CTX
static const struct xp_col head_cols[] = {
	{ XP_JSON("events_seen", XP_COL_INT), ST(events) },
	{ XP_JSON("events_present", XP_COL_INT), .get = events_present },
	{ XP_JSON("overflow", XP_COL_INT), ST(overflow) },
	{ XP_JSON("undecodable", XP_COL_INT), REP(undecodable) },
	{ XP_JSON("process_filter", XP_COL_BOOL), REP(filtered) },
	{ XP_JSON("final", XP_COL_BOOL), REP(final) },
};

static const struct xp_rows fences_rows = { XP_ROWS(fences_cols) };
static const struct xp_rows waits_rows = { XP_ROWS(waits_cols) };
static const struct xp_rows head_rows = { XP_ROWS(head_cols) };

static void text_timelines(FILE *f, const struct xp_tp_report *r)
{
	const struct xp_fence_state *s = r->st;
	char b[48];

	fprintf(f, "fences: %" PRIu64 " created, %" PRIu64 " signaled (created -> signaled %s), %" PRIu64
		   " %s, %" PRIu64 " signaled with their init unseen (created before tracing)\n",
		s->created, s->signaled, xp_fmt_pcts(&s->life, b, sizeof(b)), xp_fence_open(s, -1),
		r->final ? "never signaled" : "in flight", s->signaled_unseen);
	if (!s->ntl)
		return;
	xp_rows_head(f, &tl_rows, r);
	for (int i = 0; i < s->ntl; i++) {
		xp_rows_text(f, &tl_rows, &s->tl[i], r);
		if (r->hist && s->tl[i].life.count)
			xp_print_log2_hist(f, &s->tl[i].life, 4);
	}
}

static void text_procs(FILE *f, const struct xp_tp_report *r)
{
	const struct xp_fence_state *s = r->st;
	char a[16];

	fprintf(f, "\nwaits: %" PRIu64 " (wait_start -> wait_end, mean %s), %" PRIu64 " without their start, %d "
		   "in progress\n", s->waits, xp_fmt_mean(s->wait.sum, s->wait.count, a, sizeof(a)), s->wait_unseen,
		s->nwaiting);
	if (!s->nprocs)
		return;
	fprintf(f, "per process (fences created, and waits):\n");
	xp_rows_head(f, &proc_rows, r);
	for (int i = 0; i < s->nprocs; i++) {
		const struct xp_fence_proc *p = &s->procs[i];

		xp_rows_text(f, &proc_rows, p, r);
		for (int k = 0; k < s->nthreads; k++)
			if (s->threads[k].pid == p->pid)
				xp_rows_text(f, &thread_rows, &s->threads[k], r);
		if (r->hist && p->wait.count)
			xp_print_log2_hist(f, &p->wait, 4);
	}
}

void xp_fence_report_text(FILE *f, const struct xp_tp_report *r)
{
	if (r->ri->interval)
		fprintf(f, "--- interval %" PRIu64 " ---\n", r->ri->interval);
	fprintf(f, "%s: %.1f s, %d of %d dma_fence events, %" PRIu64 " events, ", r->ri->command,
		r->ri->duration_s, r->layout->npresent, r->layout->n, ((const struct xp_fence_state *)r->st)->events);
	xp_print_drops(f, r->ri);
	text_notes(f, r);
	text_timelines(f, r);
	text_procs(f, r);
}

void xp_fence_report_json(FILE *f, const struct xp_tp_report *r)
{
	const struct xp_fence_state *s = r->st;
	struct xp_json j;

	xp_json_begin_run(&j, f, r->ri);
	xp_rows_json(&j, &head_rows, s, r);
	xp_json_kevents(&j, "events", r->layout, r->layout->n);
	xp_json_key(&j, "fences");
	xp_rows_json_obj(&j, &fences_rows, s, r);
	xp_rows_json_arr(&j, "timelines", &tl_rows, s->tl, s->ntl, sizeof(s->tl[0]), r, NULL);
	xp_json_key(&j, "waits");
	xp_rows_json_obj(&j, &waits_rows, s, r);
	xp_json_key(&j, "processes");
	xp_json_begin_arr(&j);
	for (int i = 0; i < s->nprocs; i++) {
		xp_json_begin_obj(&j);
		xp_rows_json(&j, &proc_rows, &s->procs[i], r);
		xp_json_key(&j, "threads");
		xp_json_begin_arr(&j);
		for (int k = 0; k < s->nthreads; k++)
			if (s->threads[k].pid == s->procs[i].pid)
				xp_rows_json_obj(&j, &thread_rows, &s->threads[k], r);
		xp_json_end_arr(&j);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
}

void xp_fence_stream_header(FILE *f)
{
	fprintf(f, "%-12s %-24s %-24s %-30s %s\n", "TIME(s)", "PROCESS/TID", "EVENT", "DRIVER TIMELINE",
		"CONTEXT:SEQNO");
}

/* The timeline the analysis gave the record, else the record's own strings. */
static void tl_strings(const struct xp_fence_state *s, const struct xp_rawtp_rec *r,
		       const struct xp_fence_done *d, char *drv, char *name)
{
	if (d->tl >= 0 && d->tl < s->ntl) {
		memcpy(drv, s->tl[d->tl].driver, XP_RAWTP_STR);
		memcpy(name, s->tl[d->tl].name, XP_RAWTP_STR);
	} else {
		xp_rawtp_rec_str(r, 0, drv, XP_RAWTP_STR);
		xp_rawtp_rec_str(r, 1, name, XP_RAWTP_STR);
	}
}

void xp_fence_stream_text(FILE *f, const struct xp_fence_state *s, const struct xp_rawtp_layout *l,
			  const struct xp_rawtp_rec *r, const struct xp_fence_done *d, uint64_t t0)
{
	char who[48], t[32], drv[XP_RAWTP_STR], name[XP_RAWTP_STR], dur[24], tl[2 * XP_RAWTP_STR + 2];

	if (r->ev >= l->n)
		return;
	if (d->in_task)
		snprintf(who, sizeof(who), "%u/%u/%.16s", r->hdr.pid, r->hdr.tid, r->comm);
	else
		snprintf(who, sizeof(who), "-");	/* an interrupt: no process */
	tl_strings(s, r, d, drv, name);
	snprintf(tl, sizeof(tl), "%s %s", drv, name);
	*xp_put_rel_s(t, r->hdr.ts_ns, t0) = '\0';
	fprintf(f, "%12s %-24.24s %-24s %-30s %u:%u", t, who, l->ev[r->ev].name, tl, d->ctx, d->seqno);
	if (d->paired)
		fprintf(f, " %s=%s", r->ev == XP_FENCE_SIGNALED ? "life" : "waited",
			xp_fmt_ns(r->hdr.ts_ns - d->start, dur, sizeof(dur)));
	fputc('\n', f);
}

void xp_fence_stream_json(struct xp_json *j, const struct xp_fence_state *s, const struct xp_rawtp_layout *l,
			  const struct xp_rawtp_rec *r, const struct xp_fence_done *d, uint64_t t0)
{
	char drv[XP_RAWTP_STR], name[XP_RAWTP_STR], comm[XP_COMM_LEN + 1];

	if (r->ev >= l->n)
		return;
	tl_strings(s, r, d, drv, name);
	xp_json_begin_obj(j);
	xp_json_ki64(j, "t_ns", xp_rel_ns(r->hdr.ts_ns, t0));
	xp_json_kstr(j, "event", l->ev[r->ev].name);
	if (d->in_task) {
		memcpy(comm, r->comm, XP_COMM_LEN);
		comm[XP_COMM_LEN] = '\0';
		xp_json_ku64(j, "pid", r->hdr.pid);
		xp_json_ku64(j, "tid", r->hdr.tid);
		xp_json_kstr(j, "comm", comm);
	} else {
		xp_json_key(j, "pid");
		xp_json_null(j);
	}
	xp_json_kstr(j, "driver", drv);
	xp_json_kstr(j, "timeline", name);
	xp_json_ku64(j, "context", d->ctx);
	xp_json_ku64(j, "seqno", d->seqno);
	if (d->paired)
		xp_json_ku64(j, r->ev == XP_FENCE_SIGNALED ? "life_ns" : "wait_ns", r->hdr.ts_ns - d->start);
	xp_json_end_obj(j);
	xp_json_finish(j);
}

void xp_perfetto_fence(struct xp_perfetto *p, const struct xp_fence_state *s, const struct xp_rawtp_rec *r,
		       const struct xp_fence_done *d)
{
	char drv[XP_RAWTP_STR], name[XP_RAWTP_STR], tl[2 * XP_RAWTP_STR + 2], sn[32];
	const char *shown;
	uint32_t pid = r->hdr.pid, tid = r->hdr.tid;

	if (!d->paired)
		return;
	tl_strings(s, r, d, drv, name);
	snprintf(tl, sizeof(tl), "%s %s", drv, name);
	if (r->ev == XP_FENCE_SIGNALED) {
		/* more overlap than lanes: a slice would break the track's nesting */
		if (xp_perfetto_lane(p, "GPU fences", tl, XP_FENCE_MAX_TL, d->start, r->hdr.ts_ns, &pid, &tid,
				     &shown) < 0)
			return;
		snprintf(sn, sizeof(sn), "fence %u:%u", d->ctx, d->seqno);
		xp_perfetto_slice_begin(p, pid, tid, "fence", sn, d->start, r->hdr.ts_ns - d->start);
	} else {
		char comm[XP_COMM_LEN + 1];

		memcpy(comm, r->comm, XP_COMM_LEN);
		comm[XP_COMM_LEN] = '\0';
		xp_perfetto_name(p, pid, pid, comm);
		xp_perfetto_name(p, pid, tid, comm);
		xp_perfetto_slice_begin(p, pid, tid, "fence", "fence wait", d->start, r->hdr.ts_ns - d->start);
	}
	xp_json_kstr(&p->j, "driver", drv);
	xp_json_kstr(&p->j, "timeline", name);
	xp_json_ku64(&p->j, "context", d->ctx);
	xp_json_ku64(&p->j, "seqno", d->seqno);
	xp_perfetto_slice_end(p);
}
