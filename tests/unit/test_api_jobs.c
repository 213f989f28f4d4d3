/*
 * api's join of calls with DRM scheduler jobs, on synthetic records: jobs
 * queued inside and outside calls on two threads, nested calls, done events
 * before and after the call's record and out of order, a done that never
 * comes, the tables' limits; and sched's analysis telling of its jobs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "caps/api/api_report.h"
#include "caps/api/api_stats.h"

static struct xp_api_state S;
static struct xp_api_joined J;
static struct xp_sched_listener L;

static struct xp_api_rec call_rec(uint32_t tid, uint64_t ts, uint64_t end, const char *fn, uint32_t depth)
{
	struct xp_api_rec r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = XP_REC_API;
	r.hdr.size = sizeof(r);
	r.hdr.ts_ns = ts;
	r.hdr.pid = 1;
	r.hdr.tid = tid;
	r.end_ns = end;
	r.what = XP_API_CALL;
	r.depth = depth;
	strcpy(r.comm, "app");
	snprintf(r.name, sizeof(r.name), "%s", fn);
	strcpy(r.lib, "libmock.so");
	return r;
}

static int call(uint32_t tid, uint64_t ts, uint64_t end, const char *fn, uint32_t depth)
{
	static struct xp_api_rec keep;	/* J.call points at it */

	keep = call_rec(tid, ts, end, fn, depth);
	return xp_api_add(&S, &keep, &J);
}

/* Job `seq` of the ring "r0" (6.17 keys: context 7, seqno), queued by `tid` at `ts`. */
static void queued(uint32_t tid, uint64_t seq, uint64_t ts)
{
	struct xp_sched_job_ref r = { .gen = 2, .k1 = 7, .k2 = seq, .pid = 1, .tid = tid, .ts = ts, .ring = "r0" };

	L.queued(L.ctx, &r);
}

static void ended(uint64_t seq, uint64_t ts, bool done)
{
	struct xp_sched_job_ref r = { .gen = 2, .k1 = 7, .k2 = seq, .ts = ts, .ring = "r0" };

	L.ended(L.ctx, &r, done);
}

static const struct xp_api_row *row(const char *fn)
{
	for (int i = 0; i < S.nrows; i++)
		if (!strcmp(S.rows[i].name, fn))
			return &S.rows[i];
	return NULL;
}

static void setup(void)
{
	xp_api_free(&S);
	CHECK(!xp_api_init(&S));
	CHECK(!xp_api_follow_jobs(&S, &L));
}

/* Two threads: each call takes its own thread's jobs inside it; done before and after its record. */
static void test_two_threads(void)
{
	setup();
	queued(10, 1, 110);
	queued(11, 2, 115);		/* the other thread's, inside the first call's time */
	queued(10, 3, 120);
	ended(1, 300, true);		/* done before the call's record arrives */
	CHECK_U64(call(10, 100, 200, "submit", 0), 1);
	CHECK_U64(J.jobs, 2);
	CHECK_U64(J.jobs_open, 1);
	CHECK_STR(J.ring, "r0");
	CHECK_U64(S.nwait, 1);
	CHECK_U64(call(11, 105, 150, "submit", 0), 1);
	CHECK_U64(J.jobs, 1);
	CHECK_U64(S.nwait, 2);
	ended(3, 450, true);		/* the first call's last */
	ended(2, 400, true);
	const struct xp_api_row *w = row("submit");
	CHECK(w != NULL);
	CHECK_U64(w->jobs, 3);
	CHECK_U64(w->max_jobs, 2);
	CHECK_U64(w->done.count, 2);
	CHECK_U64(w->done.max, 350);	/* 450 - 100 */
	CHECK_U64(w->done.sum, 350 + 295);	/* 450 - 100, 400 - 105 */
	CHECK_U64(w->undone, 0);
	CHECK_U64(S.nwait, 0);
	CHECK_U64(S.njob, 0);
	CHECK_U64(S.jobs_queued, 3);
	CHECK_U64(S.jobs_outside, 0);
}

/* Jobs before and after a call on its thread, and a call with none. */
static void test_outside(void)
{
	setup();
	queued(10, 1, 50);		/* before the call */
	queued(10, 2, 150);
	ended(1, 60, true);
	ended(2, 170, true);
	queued(10, 3, 250);		/* after it: kept for a later call */
	CHECK_U64(call(10, 100, 200, "submit", 0), 1);
	CHECK_U64(J.jobs, 1);
	CHECK_U64(J.jobs_open, 0);
	CHECK_U64(J.done_ts, 170);
	CHECK_U64(S.jobs_outside, 1);
	CHECK_U64(S.njob, 1);
	CHECK_U64(call(10, 300, 310, "wait", 0), 1);	/* none inside: job 3 is outside too */
	CHECK_U64(J.jobs, 0);
	CHECK_U64(S.jobs_outside, 2);
	CHECK_U64(S.njob, 0);
	CHECK_U64(row("submit")->done.count, 1);
	CHECK_U64(row("submit")->done.max, 70);
	CHECK_U64(row("wait")->no_job, 1);
	CHECK_U64(row("wait")->done.count, 0);
}

/* Nested calls: a job counts for every traced call around it; the outer one lets it go. */
static void test_nested(void)
{
	setup();
	queued(10, 1, 120);
	queued(10, 2, 160);		/* in the outer call only */
	CHECK_U64(call(10, 110, 130, "inner", 1), 1);
	CHECK_U64(J.jobs, 1);
	CHECK_U64(S.njob, 2);		/* nested: kept for the outer call */
	ended(1, 500, true);		/* the inner call's last: done; the outer waits still */
	CHECK_U64(row("inner")->done.count, 1);
	CHECK_U64(row("inner")->done.max, 390);
	CHECK_U64(call(10, 100, 200, "outer", 0), 1);
	CHECK_U64(J.jobs, 2);
	CHECK_U64(J.jobs_open, 1);
	CHECK_U64(S.njob, 1);		/* job 1 ended and claimed: gone */
	ended(2, 450, true);		/* out of order: before job 1's done in time */
	CHECK_U64(row("outer")->done.count, 1);
	CHECK_U64(row("outer")->done.max, 400);	/* the last done, 500, not the last told */
	CHECK_U64(S.njob, 0);
	CHECK_U64(S.nwait, 0);
}

/* A job sched gave up on, and one whose done never comes before the end. */
static void test_never_done(void)
{
	setup();
	queued(10, 1, 110);
	queued(10, 2, 120);
	CHECK_U64(call(10, 100, 200, "submit", 0), 1);
	ended(1, 300, false);		/* sched: incomplete */
	CHECK_U64(S.nwait, 1);
	ended(2, 350, true);
	CHECK_U64(row("submit")->undone, 1);
	CHECK_U64(row("submit")->done.count, 0);
	queued(10, 3, 410);
	CHECK_U64(call(10, 400, 500, "submit", 0), 1);
	queued(10, 4, 510);		/* after the last call: no call claims it */
	CHECK_U64(S.nwait, 1);
	xp_api_finish(&S);
	CHECK_U64(S.jobs_outside, 1);
	CHECK_U64(S.njob, 0);
	CHECK_U64(row("submit")->undone, 2);
	CHECK_U64(S.calls_open_at_end, 1);
	CHECK_U64(S.nwait, 0);
	ended(3, 600, true);		/* after the end: no call waits for it */
	CHECK_U64(row("submit")->done.count, 0);
}

/* The tables' limits: counted, never silent. */
static void test_limits(void)
{
	setup();
	/* a thread that never calls fills the table: its oldest jobs are let go */
	for (uint64_t i = 0; i < XP_API_JOBS + 5; i++)
		queued(99, 1000 + i, 1000 + i);
	CHECK_U64(S.jobs_let_go, 5);
	CHECK_U64(S.njob, XP_API_JOBS);
	/* calls that wait for their jobs claim them: once all are claimed, new jobs are lost */
	setup();
	for (uint64_t i = 0; i < XP_API_JOBS; i++) {
		queued(10, i, 10 * i + 1);
		call(10, 10 * i, 10 * i + 5, "submit", 0);
	}
	CHECK_U64(S.nwait, XP_API_WAITS);
	CHECK_U64(S.calls_unfollowed, XP_API_JOBS - XP_API_WAITS);
	CHECK_U64(S.njob, XP_API_JOBS);
	queued(10, 1u << 20, 1u << 30);
	CHECK_U64(S.jobs_lost, 1);
	CHECK_U64(S.jobs_let_go, 0);
	ended(0, 1u << 30, true);
	CHECK_U64(row("submit")->done.count, 1);
	CHECK_U64(S.nwait, XP_API_WAITS - 1);
	CHECK_U64(S.njob, XP_API_JOBS - 1);
}

/* An interval's reset keeps what waits; the done lands in the new interval's row. */
static void test_reset(void)
{
	setup();
	queued(10, 1, 110);
	CHECK_U64(call(10, 100, 200, "submit", 0), 1);
	xp_api_reset(&S);
	CHECK_U64(S.nrows, 0);
	ended(1, 1100, true);
	CHECK_U64(row("submit")->done.count, 1);
	CHECK_U64(row("submit")->calls, 0);
	CHECK_U64(row("submit")->done.max, 1000);
}

/* sched's analysis tells of a queue and a done, with the keys both ends share. */
static void test_from_sched(void)
{
	struct xp_sched_state ss;
	struct xp_sched_event ev = { .kind = XP_SCHED_QUEUE, .gen = 2, .ts = 110, .pid = 1, .tid = 10,
				     .ctx = 7, .seqno = 5 };

	setup();
	CHECK(!xp_sched_init(&ss, 64, 0));
	ss.lis = L;
	strcpy(ev.ring, "gfx");
	strcpy(ev.comm, "app");
	CHECK(!xp_sched_add(&ss, &ev));
	ev.kind = XP_SCHED_RUN;
	ev.ts = 130;
	CHECK(!xp_sched_add(&ss, &ev));
	CHECK_U64(call(10, 100, 200, "submit", 0), 1);
	CHECK_U64(J.jobs, 1);
	CHECK_STR(J.ring, "gfx");
	ev.kind = XP_SCHED_DONE;
	ev.ts = 700;
	ev.ring[0] = '\0';
	CHECK(!xp_sched_add(&ss, &ev));
	CHECK_U64(row("submit")->done.count, 1);
	CHECK_U64(row("submit")->done.max, 600);
	/* a job sched never sees done: its end of run tells api so */
	ev = (struct xp_sched_event){ .kind = XP_SCHED_QUEUE, .gen = 2, .ts = 310, .pid = 1, .tid = 10,
				      .ctx = 7, .seqno = 6 };
	CHECK(!xp_sched_add(&ss, &ev));
	CHECK_U64(call(10, 300, 400, "submit", 0), 1);
	xp_sched_finish(&ss, 1000);
	CHECK_U64(row("submit")->undone, 1);
	CHECK_U64(S.nwait, 0);
	xp_sched_free(&ss);
}

/* The summary and stream line say it. */
static void test_output(void)
{
	struct xp_devices devs = { 0 };
	struct xp_run_info ri = { .command = "api", .source = "live", .mode = "summary" };
	struct xp_api_report rep = { .st = &S, .devs = &devs, .ri = &ri, .final = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	setup();
	queued(10, 1, 110);
	queued(10, 2, 50);
	ended(1, 1100, true);
	CHECK_U64(call(10, 100, 200, "submit", 0), 1);
	f = open_memstream(&buf, &len);
	xp_api_stream_text(f, &J, &devs, 0);
	fclose(f);
	CHECK(strstr(buf, "| jobs 1 on r0, done +1.0us") != NULL);
	free(buf);
	f = open_memstream(&buf, &len);
	xp_api_report_text(f, &rep);
	fclose(f);
	CHECK(strstr(buf, "2 jobs queued") != NULL);
	CHECK(strstr(buf, "jobs: 1.00/call (max 1, 0 calls none), call->done p50") != NULL);
	CHECK(strstr(buf, "note: 1 jobs queued by threads outside any traced call of theirs that returned") != NULL);
	free(buf);
}

int main(void)
{
	RUN(test_two_threads);
	RUN(test_outside);
	RUN(test_nested);
	RUN(test_never_done);
	RUN(test_limits);
	RUN(test_reset);
	RUN(test_from_sched);
	RUN(test_output);
	xp_api_free(&S);
	UNIT_EXIT();
}
