#include <inttypes.h>
#include <string.h>

#include "caps/sched/sched_report.h"
#include "sinks/run_info.h"
#include "sinks/text.h"
#include "sinks/perfetto.h"
#include "sinks/rows.h"

static bool active(const struct xp_sched_counts *c)
{
	return c->queued || c->run || c->done || c->deps || c->unsched || c->incomplete ||
	       c->pending || c->inflight;
}

static double share(const struct xp_sched_counts *c, const struct xp_sched_report *r)
{
	double wall = r->ri->duration_s * 1e9;

	return wall > 0 ? (double)xp_sched_busy_ns(c, r->now) / wall : 0;
}

static void gen_events(const struct xp_rawtp_layout *l, int *n, int *gen)
{
	*gen = xp_sched_layout_gen(l, n);
}

/* The rows: a ring's or a process's counters, after the ring's or the process's own columns. */
static void busy_ns(const void *row, const void *ctx, struct xp_val *v)
{
	v->u = xp_sched_busy_ns(row, ((const struct xp_sched_report *)ctx)->now);
}

static void busy_share(const void *row, const void *ctx, struct xp_val *v)
{
	v->d = share(row, ctx);
}

static void busy_pct(const void *row, const void *ctx, struct xp_val *v)
{
	snprintf(v->buf, sizeof(v->buf), "%.1f%%", 100.0 * share(row, ctx));
	v->s = v->buf;
}

#define C(m) XP_FIELD(struct xp_sched_counts, m)
static const struct xp_col count_cols[] = {
	{ XP_BOTH("JOBS", 7, "jobs", XP_COL_INT), C(done) },
	{ XP_JSON("queued", XP_COL_INT), C(queued) },
	{ XP_JSON("run", XP_COL_INT), C(run) },
	{ XP_BOTH("PEND", 5, "pending", XP_COL_SINT), C(pending) },
	{ XP_BOTH("INFL", 5, "in_flight", XP_COL_SINT), C(inflight) },
	{ XP_BOTH("MAXQ", 5, "max_pending", XP_COL_SINT), C(max_pending) },
	{ XP_JSON("max_in_flight", XP_COL_SINT), C(max_inflight) },
	{ XP_JSON("job_count", XP_COL_INT), C(last_job_count) },
	{ XP_JSON("max_job_count", XP_COL_INT), C(max_job_count) },
	{ XP_JSON("hw_job_count", XP_COL_SINT), C(last_hw_job_count) },
	{ XP_BOTH("HWQ", 4, "max_hw_job_count", XP_COL_SINT), C(max_hw_job_count) },
	{ XP_JSON("busy_ns", XP_COL_INT), .get = busy_ns },
	{ XP_TEXT("BUSY", 6, XP_COL_STR), .get = busy_pct },
	{ XP_JSON("busy_share", XP_COL_DOUBLE), .get = busy_share },
	{ XP_TEXT("QUEUE p50/p90/p99", -26, XP_COL_HIST), C(qdelay) },
	{ XP_TEXT("EXEC p50/p90/p99", -26, XP_COL_HIST), C(exec) },
	{ XP_BOTH("DEPS", 5, "deps", XP_COL_INT), C(deps) },
	{ XP_BOTH("WAITED", 6, "waited", XP_COL_INT), C(waited) },
	{ XP_BOTH("UNSCHED", 7, "unschedulable", XP_COL_INT), C(unsched) },
	{ XP_BOTH("INCOMPL", 7, "incomplete", XP_COL_INT), C(incomplete) },
	{ XP_JSON("queue_delay_ns", XP_COL_HIST), C(qdelay) },
	{ XP_JSON("exec_ns", XP_COL_HIST), C(exec) },
	{ XP_JSON("dep_wait_ns", XP_COL_HIST), C(depwait) },
};

static const struct xp_rows count_rows = { XP_ROWS(count_cols) };

static const struct xp_col ring_cols[] = {
	{ XP_BOTH("RING", -20, "ring", XP_COL_STR), .flags = XP_COL_CUT, XP_FIELD(struct xp_sched_ring, name) },
};

static const struct xp_rows ring_rows = { XP_ROWS(ring_cols), .more = &count_rows,
					  .more_off = offsetof(struct xp_sched_ring, c) };

static void proc_client(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_sched_proc *p = row;

	(void)ctx;
	v->u = p->client_id;
	v->none = !p->has_client;
}

#define PR(m) XP_FIELD(struct xp_sched_proc, m)
static const struct xp_col proc_cols[] = {
	{ XP_BOTH("PID", -7, "pid", XP_COL_INT), PR(pid) },
	{ XP_BOTH("COMM", -16, "comm", XP_COL_STR), .flags = XP_COL_CUT, PR(comm) },
	{ XP_BOTH("CLIENT", -6, "client_id", XP_COL_INT), .flags = XP_COL_OMIT, .get = proc_client },
};

static const struct xp_rows proc_rows = { XP_ROWS(proc_cols), .more = &count_rows,
					  .more_off = offsetof(struct xp_sched_proc, c) };

void xp_sched_report_text(FILE *f, const struct xp_sched_report *r)
{
	const struct xp_sched_state *s = r->st;
	uint64_t done = 0, incomplete = 0;
	int nev, gen, nrings = 0, nprocs = 0;

	gen_events(r->layout, &nev, &gen);
	for (int i = 0; i <= XP_SCHED_MAX_RINGS; i++)
		if (active(&s->rings[i].c)) {
			nrings++;
			done += s->rings[i].c.done;
			incomplete += s->rings[i].c.incomplete;
		}
	for (int i = 0; i < s->nprocs; i++)
		nprocs += active(&s->procs[i].c);
	if (r->ri->interval)
		fprintf(f, "--- interval %" PRIu64 " ---\n", r->ri->interval);
	fprintf(f, "%s: %.1f s, %s events (%d), %d ring%s, %d process%s, %" PRIu64 " job%s done, "
		   "incomplete: %" PRIu64,
		r->ri->command, r->ri->duration_s, gen == 2 ? "6.17+" : "6.16-", nev, nrings,
		nrings == 1 ? "" : "s", nprocs, nprocs == 1 ? "" : "es", done, done == 1 ? "" : "s",
		incomplete);
	if (s->open_at_end)
		fprintf(f, " (%" PRIu64 " still in flight when tracing ended)", s->open_at_end);
	fputs(", ", f);
	xp_print_drops(f, r->ri);
	if (s->unmatched || s->duplicates || s->out_of_order || s->missing_run || s->inferred)
		fprintf(f, "done of jobs queued before tracing: %" PRIu64 ", duplicates: %" PRIu64 ", out of order: %" PRIu64
			   ", done without run: %" PRIu64 ", done inferred (event lost): %" PRIu64 "\n",
			s->unmatched, s->duplicates, s->out_of_order, s->missing_run, s->inferred);
	if (!nrings) {
		fprintf(f, "no GPU scheduler jobs\n");
		return;
	}
	fputc('\n', f);
	xp_rows_head(f, &ring_rows, r);
	for (int i = 0; i <= XP_SCHED_MAX_RINGS; i++)
		if (active(&s->rings[i].c))
			xp_rows_text(f, &ring_rows, &s->rings[i], r);
	if (nprocs) {
		fputc('\n', f);
		xp_rows_head(f, &proc_rows, r);
		for (int i = 0; i < s->nprocs; i++)
			if (active(&s->procs[i].c))
				xp_rows_text(f, &proc_rows, &s->procs[i], r);
	}
	if (!r->hist)
		return;
	for (int i = 0; i <= XP_SCHED_MAX_RINGS; i++) {
		const struct xp_sched_counts *c = &s->rings[i].c;

		if (!active(c))
			continue;
		if (c->qdelay.count) {
			fprintf(f, "\n%s queue delay (queue -> run):\n", s->rings[i].name);
			xp_print_log2_hist(f, &c->qdelay, 2);
		}
		if (c->exec.count) {
			fprintf(f, "\n%s execution (run -> done):\n", s->rings[i].name);
			xp_print_log2_hist(f, &c->exec, 2);
		}
		if (c->depwait.count) {
			fprintf(f, "\n%s dependency wait (-> run):\n", s->rings[i].name);
			xp_print_log2_hist(f, &c->depwait, 2);
		}
	}
}

static bool ring_active(const void *row)
{
	return active(&((const struct xp_sched_ring *)row)->c);
}

static bool proc_active(const void *row)
{
	return active(&((const struct xp_sched_proc *)row)->c);
}

void xp_sched_report_json(FILE *f, const struct xp_sched_report *r)
{
	const struct xp_sched_state *s = r->st;
	uint64_t done = 0, incomplete = 0;
	struct xp_json j;
	int nev, gen;

	gen_events(r->layout, &nev, &gen);
	for (int i = 0; i <= XP_SCHED_MAX_RINGS; i++) {
		done += s->rings[i].c.done;
		incomplete += s->rings[i].c.incomplete;
	}
	xp_json_begin_run(&j, f, r->ri);
	xp_json_kstr(&j, "generation", gen == 2 ? "6.17+" : "6.16-");
	xp_json_key(&j, "events");
	xp_json_begin_arr(&j);
	for (int tp = 0; tp < XP_TP_SCHED_MAX && tp < r->layout->n; tp++)
		if (r->layout->present[tp])
			xp_json_str(&j, xp_sched_tp_name(tp));
	xp_json_end_arr(&j);
	xp_json_ku64(&j, "jobs", done);
	xp_json_ku64(&j, "incomplete", incomplete);
	xp_json_ku64(&j, "open_at_end", s->open_at_end);
	xp_json_ku64(&j, "open", xp_sched_open_jobs(s));
	xp_json_ku64(&j, "unmatched_done", s->unmatched);
	xp_json_ku64(&j, "duplicates", s->duplicates);
	xp_json_ku64(&j, "out_of_order", s->out_of_order);
	xp_json_ku64(&j, "done_without_run", s->missing_run);
	xp_json_ku64(&j, "done_inferred", s->inferred);
	xp_rows_json_arr(&j, "rings", &ring_rows, s->rings, XP_SCHED_MAX_RINGS + 1, sizeof(s->rings[0]), r,
			 ring_active);
	xp_rows_json_arr(&j, "processes", &proc_rows, s->procs, s->nprocs, sizeof(s->procs[0]), r, proc_active);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
}

void xp_sched_stream_header(FILE *f)
{
	fprintf(f, "%-12s %-16s %-8s %-16s %-6s %-22s %10s %10s %4s %s\n", "TIME(s)", "RING", "PID",
		"COMM", "CLIENT", "JOB", "QUEUE", "EXEC", "DEPS", "DEPWAIT ON");
}

static void job_name(const struct xp_sched_job_info *j, char *buf, size_t len)
{
	if (j->gen == 2)
		snprintf(buf, len, "%" PRIu64 ":%" PRIu64, j->k1, j->k2);
	else
		snprintf(buf, len, "id %" PRIu64, j->k2);
}

void xp_sched_stream_text(FILE *f, const struct xp_sched_job_info *j, uint64_t t0)
{
	char q[16] = "-", e[16] = "-", d[16] = "-", cl[24] = "-", name[48], ts[32];

	if (j->has_queue && j->has_run)
		xp_fmt_ns(j->run_ts > j->q_ts ? j->run_ts - j->q_ts : 0, q, sizeof(q));
	if (j->has_run)
		xp_fmt_ns(j->done_ts > j->run_ts ? j->done_ts - j->run_ts : 0, e, sizeof(e));
	if (j->has_depwait)
		xp_fmt_ns(j->depwait_ns, d, sizeof(d));
	if (j->has_client)
		snprintf(cl, sizeof(cl), "%" PRIu64, j->client_id);
	job_name(j, name, sizeof(name));
	*xp_put_rel_s(ts, j->done_ts, t0) = '\0';	/* a job done before t0: negative */
	fprintf(f, "%-12s %-16.16s %-8u %-16.16s %-6s %-22s %10s %10s %4u %s%s",
		ts, j->ring, j->pid,
		j->comm[0] ? j->comm : "?", cl, name, q, e, j->deps, d,
		j->has_depwait && !j->depwait_exact ? "~" : "");
	/* what it waited on: a traced job's ring and pid, else the fence */
	for (int i = 0; i < j->ndep; i++) {
		if (j->dep[i].known)
			fprintf(f, "%s%s/%u", i ? "," : " ", j->dep[i].ring, j->dep[i].pid);
		else
			fprintf(f, "%sfence %" PRIu64 ":%" PRIu64, i ? "," : " ", j->dep[i].ctx,
				j->dep[i].seqno);
	}
	if (j->deps > j->ndep)
		fprintf(f, ",+%u", j->deps - j->ndep);
	fputc('\n', f);
}

void xp_sched_stream_json(struct xp_json *js, const struct xp_sched_job_info *j, uint64_t t0)
{
	xp_json_begin_obj(js);
	xp_json_kstr(js, "event", "job");
	xp_json_ki64(js, "ts_ns", xp_rel_ns(j->done_ts, t0));
	xp_json_kstr(js, "ring", j->ring);
	if (j->has_queue) {
		xp_json_ku64(js, "pid", j->pid);
		xp_json_ku64(js, "tid", j->tid);
		xp_json_kstr(js, "comm", j->comm);
	}
	if (j->has_client)
		xp_json_ku64(js, "client_id", j->client_id);
	if (j->gen == 2) {
		xp_json_ku64(js, "fence_context", j->k1);
		xp_json_ku64(js, "fence_seqno", j->k2);
	} else {
		xp_json_ku64(js, "job_id", j->k2);
	}
	xp_json_key(js, "queue_ns");
	if (j->has_queue && j->has_run)
		xp_json_u64(js, j->run_ts > j->q_ts ? j->run_ts - j->q_ts : 0);
	else
		xp_json_null(js);
	xp_json_key(js, "exec_ns");
	if (j->has_run)
		xp_json_u64(js, j->done_ts > j->run_ts ? j->done_ts - j->run_ts : 0);
	else
		xp_json_null(js);
	xp_json_ku64(js, "deps", j->deps);
	xp_json_ku64(js, "unschedulable", j->unsched);
	if (j->inferred)
		xp_json_kbool(js, "done_inferred", true);
	if (j->has_depwait) {
		xp_json_ku64(js, "dep_wait_ns", j->depwait_ns);
		xp_json_kbool(js, "dep_wait_exact", j->depwait_exact);
	}
	if (j->ndep) {
		xp_json_key(js, "waited_on");
		xp_json_begin_arr(js);
		for (int i = 0; i < j->ndep; i++) {
			const struct xp_sched_dep_info *dp = &j->dep[i];

			xp_json_begin_obj(js);
			xp_json_ku64(js, "fence_context", dp->ctx);
			xp_json_ku64(js, "fence_seqno", dp->seqno);
			if (dp->known) {
				xp_json_kstr(js, "ring", dp->ring);
				xp_json_ku64(js, "pid", dp->pid);
			}
			if (dp->signaled)
				xp_json_ki64(js, "signaled_ns", xp_rel_ns(dp->signal_ts, t0));
			xp_json_end_obj(js);
		}
		xp_json_end_arr(js);
	}
	xp_json_end_obj(js);
	xp_json_finish(js);
}

/* Its Perfetto events (src/sinks/perfetto.h). */
_Static_assert(XP_SCHED_STR <= XP_PERFETTO_LANE_NAME, "ring names fit a laned track");

void xp_perfetto_sched_job(struct xp_perfetto *p, const struct xp_sched_job_info *j)
{
	char name[64];
	const char *ring;
	uint32_t pid, tid;
	uint64_t start = j->has_run ? j->run_ts : j->done_ts, id;

	/* more overlap than lanes: a slice would break the track's nesting */
	if (xp_perfetto_lane(p, "GPU rings", j->ring && j->ring[0] ? j->ring : "(unknown ring)",
			     XP_SCHED_MAX_RINGS, start, j->done_ts, &pid, &tid, &ring) < 0)
		return;
	id = ++p->next_id;
	snprintf(name, sizeof(name), "%s", j->comm[0] ? j->comm : "job");
	xp_perfetto_slice_begin(p, pid, tid, "gpu_job", name, start, j->done_ts - start);
	xp_json_kstr(&p->j, "ring", ring);
	if (j->has_queue) {
		xp_json_ku64(&p->j, "pid", j->pid);
		xp_json_kstr(&p->j, "comm", j->comm);
	}
	if (j->gen == 2) {
		xp_json_ku64(&p->j, "fence_context", j->k1);
		xp_json_ku64(&p->j, "fence_seqno", j->k2);
	} else {
		xp_json_ku64(&p->j, "job_id", j->k2);
	}
	if (j->has_client)
		xp_json_ku64(&p->j, "client_id", j->client_id);
	if (j->has_queue && j->has_run && j->run_ts >= j->q_ts)
		xp_json_ku64(&p->j, "queue_delay_ns", j->run_ts - j->q_ts);
	if (j->deps)
		xp_json_ku64(&p->j, "deps", j->deps);
	if (j->inferred)
		xp_json_kbool(&p->j, "done_inferred", true);
	xp_perfetto_slice_end(p);
	if (!j->has_queue || j->q_ts > start)
		return;
	/* a job whose done was lost (inferred) has no known run: no queued span */
	if (j->has_run) {
		xp_perfetto_async(p, true, pid, tid, "gpu_queue", "queued", id, j->q_ts);
		xp_perfetto_async(p, false, pid, tid, "gpu_queue", "queued", id, j->run_ts);
	}
	/* the submitter: a zero-length slice for the arrow to start from */
	xp_perfetto_name(p, j->pid, j->tid, j->comm);
	xp_perfetto_slice_begin(p, j->pid, j->tid, "gpu_submit", "submit", j->q_ts, 0);
	xp_json_kstr(&p->j, "ring", ring);
	xp_perfetto_slice_end(p);
	xp_perfetto_flow(p, id, true, j->pid, j->tid, j->q_ts);
	xp_perfetto_flow(p, id, false, pid, tid, start);
}
