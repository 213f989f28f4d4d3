/* fence summary (text, JSON), --stream lines and Perfetto slices. */
#include <inttypes.h>
#include <string.h>

#include "caps/fence/fence_report.h"
#include "sinks/perfetto.h"
#include "sinks/text.h"

static void text_notes(FILE *f, const struct xp_fence_report *r)
{
	const struct xp_fence_state *s = r->st;
	const struct xp_rawtp_layout *l = r->layout;

	for (int i = 0; i < l->n; i++)
		if (!l->present[i])
			fprintf(f, "note: this kernel has no %s/%s event: skipped\n", l->group[i], l->ev[i].name);
	if (r->filtered)
		fprintf(f, "note: the process filters apply to fences' creation and to waits; signals "
			   "of other processes' fences count as init unseen\n");
	if (s->overflow)
		fprintf(f, "note: %" PRIu64 " events past the tracked fences/timelines/processes\n", s->overflow);
	if (r->undecodable)
		fprintf(f, "note: %" PRIu64 " record%s could not be decoded\n", r->undecodable,
			r->undecodable == 1 ? "" : "s");
}

static void text_timelines(FILE *f, const struct xp_fence_report *r)
{
	const struct xp_fence_state *s = r->st;
	char a[16], b[48], n[2 * XP_RAWTP_STR + 2];

	fprintf(f, "fences: %" PRIu64 " created, %" PRIu64 " signaled (created -> signaled %s), %" PRIu64
		   " %s, %" PRIu64 " signaled with their init unseen (created before tracing)\n",
		s->created, s->signaled, xp_fmt_pcts(&s->life, b, sizeof(b)), xp_fence_open(s, -1),
		r->final ? "never signaled" : "in flight", s->signaled_unseen);
	if (!s->ntl)
		return;
	fprintf(f, "  %-36s %8s %8s %10s %11s %6s %9s  %s\n", "DRIVER TIMELINE", "CREATED", "SIGNALED",
		r->final ? "NEVER_SIG" : "IN_FLIGHT", "INIT_UNSEEN", "WAITS", "MEAN", "p50/p90/p99");
	for (int i = 0; i < s->ntl; i++) {
		const struct xp_fence_tl *t = &s->tl[i];

		fprintf(f, "  %-36.36s %8" PRIu64 " %8" PRIu64 " %10" PRIu64 " %11" PRIu64 " %6" PRIu64 " %9s  %s\n",
			xp_fence_tl_name(t, n, sizeof(n)), t->created, t->signaled, t->open, t->signaled_unseen,
			t->waits, xp_fmt_mean(t->life.sum, t->life.count, a, sizeof(a)), xp_fmt_pcts(&t->life, b, sizeof(b)));
		if (r->hist && t->life.count)
			xp_print_log2_hist(f, &t->life, 4);
	}
}

static void text_procs(FILE *f, const struct xp_fence_report *r)
{
	const struct xp_fence_state *s = r->st;
	char a[16], b[16], c[16];

	fprintf(f, "\nwaits: %" PRIu64 " (wait_start -> wait_end, mean %s), %" PRIu64 " without their start, %d "
		   "in progress\n", s->waits, xp_fmt_mean(s->wait.sum, s->wait.count, a, sizeof(a)), s->wait_unseen,
		s->nwaiting);
	if (!s->nprocs)
		return;
	fprintf(f, "per process (fences created, and waits):\n  %-24s %8s %6s %10s %9s %9s\n", "PROCESS",
		"CREATED", "WAITS", "WAIT_TIME", "MEAN", "MAX");
	for (int i = 0; i < s->nprocs; i++) {
		const struct xp_fence_proc *p = &s->procs[i];
		char who[48];

		snprintf(who, sizeof(who), "%u/%s", p->pid, p->comm);
		fprintf(f, "  %-24.24s %8" PRIu64 " %6" PRIu64 " %10s %9s %9s\n", who, p->created, p->waits, p->waits ? xp_fmt_ns(p->wait_ns, a, sizeof(a)) : "-",
			xp_fmt_mean(p->wait_ns, p->waits, b, sizeof(b)),
			p->waits ? xp_fmt_ns(p->wait_max, c, sizeof(c)) : "-");
		for (int k = 0; k < s->nthreads; k++) {
			const struct xp_fence_thread *t = &s->threads[k];

			if (t->pid != p->pid)
				continue;
			snprintf(who, sizeof(who), "thread %u/%s", t->tid, t->comm);
			fprintf(f, "    %-31.31s %6" PRIu64 " %10s %9s %9s\n", who, t->waits,
				xp_fmt_ns(t->wait_ns, a, sizeof(a)), xp_fmt_mean(t->wait_ns, t->waits, b, sizeof(b)),
				xp_fmt_ns(t->wait_max, c, sizeof(c)));
		}
		if (r->hist && p->wait.count)
			xp_print_log2_hist(f, &p->wait, 4);
	}
}

void xp_fence_report_text(FILE *f, const struct xp_fence_report *r)
{
	if (r->ri->interval)
		fprintf(f, "--- interval %" PRIu64 " ---\n", r->ri->interval);
	fprintf(f, "%s: %.1f s, %d of %d dma_fence events, %" PRIu64 " events, ", r->ri->command,
		r->ri->duration_s, r->layout->npresent, r->layout->n, r->st->events);
	xp_print_drops(f, r->ri);
	text_notes(f, r);
	text_timelines(f, r);
	text_procs(f, r);
}

static void json_timelines(struct xp_json *j, const struct xp_fence_state *s)
{
	xp_json_key(j, "timelines");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->ntl; i++) {
		const struct xp_fence_tl *t = &s->tl[i];

		xp_json_begin_obj(j);
		xp_json_kstr(j, "driver", t->driver);
		xp_json_kstr(j, "timeline", t->name);
		xp_json_ku64(j, "created", t->created);
		xp_json_ku64(j, "emitted", t->emitted);
		xp_json_ku64(j, "signaled", t->signaled);
		xp_json_ku64(j, "signaled_init_unseen", t->signaled_unseen);
		xp_json_ku64(j, "unsignaled", t->open);
		xp_json_ku64(j, "enable_signal", t->enabled);
		xp_json_ku64(j, "destroyed", t->destroyed);
		xp_json_ku64(j, "destroyed_unsignaled", t->destroyed_unsignaled);
		xp_json_ku64(j, "waits", t->waits);
		xp_json_ku64(j, "wait_ns", t->wait_ns);
		xp_json_khist(j, "life_ns", &t->life);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
}

static void json_procs(struct xp_json *j, const struct xp_fence_state *s)
{
	xp_json_key(j, "processes");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->nprocs; i++) {
		const struct xp_fence_proc *p = &s->procs[i];

		xp_json_begin_obj(j);
		xp_json_ku64(j, "pid", p->pid);
		xp_json_kstr(j, "comm", p->comm);
		xp_json_ku64(j, "created", p->created);
		xp_json_ku64(j, "waits", p->waits);
		xp_json_ku64(j, "wait_max_ns", p->wait_max);
		xp_json_khist(j, "wait_ns", &p->wait);
		xp_json_key(j, "threads");
		xp_json_begin_arr(j);
		for (int k = 0; k < s->nthreads; k++) {
			const struct xp_fence_thread *t = &s->threads[k];

			if (t->pid != p->pid)
				continue;
			xp_json_begin_obj(j);
			xp_json_ku64(j, "tid", t->tid);
			xp_json_kstr(j, "comm", t->comm);
			xp_json_ku64(j, "waits", t->waits);
			xp_json_ku64(j, "wait_ns", t->wait_ns);
			xp_json_ku64(j, "wait_max_ns", t->wait_max);
			xp_json_end_obj(j);
		}
		xp_json_end_arr(j);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
}

void xp_fence_report_json(FILE *f, const struct xp_fence_report *r)
{
	const struct xp_fence_state *s = r->st;
	const struct xp_rawtp_layout *l = r->layout;
	struct xp_json j;

	xp_json_init(&j, f, false);
	xp_json_begin_obj(&j);
	xp_json_run_info(&j, r->ri);
	xp_json_ku64(&j, "events_seen", s->events);
	xp_json_ku64(&j, "events_present", (uint64_t)l->npresent);
	xp_json_ku64(&j, "overflow", s->overflow);
	xp_json_ku64(&j, "undecodable", r->undecodable);
	xp_json_kbool(&j, "process_filter", r->filtered);
	xp_json_kbool(&j, "final", r->final);
	xp_json_key(&j, "events");
	xp_json_begin_obj(&j);
	for (int i = 0; i < l->n; i++)
		xp_json_kbool(&j, l->ev[i].name, l->present[i]);
	xp_json_end_obj(&j);
	xp_json_key(&j, "fences");
	xp_json_begin_obj(&j);
	xp_json_ku64(&j, "created", s->created);
	xp_json_ku64(&j, "signaled", s->signaled);
	xp_json_ku64(&j, "signaled_init_unseen", s->signaled_unseen);
	xp_json_ku64(&j, "unsignaled", xp_fence_open(s, -1));
	xp_json_khist(&j, "life_ns", &s->life);
	xp_json_end_obj(&j);
	json_timelines(&j, s);
	xp_json_key(&j, "waits");
	xp_json_begin_obj(&j);
	xp_json_ku64(&j, "count", s->waits);
	xp_json_ku64(&j, "without_start", s->wait_unseen);
	xp_json_ku64(&j, "in_progress", (uint64_t)s->nwaiting);
	xp_json_khist(&j, "wait_ns", &s->wait);
	xp_json_end_obj(&j);
	json_procs(&j, s);
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
