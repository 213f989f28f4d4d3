/*
 * Tests for src/caps/sched/sched_stats.c: decoding raw gpu_scheduler records with
 * layouts parsed from the real format texts of both generations, and joining
 * them into jobs, on synthetic streams with out-of-order, missing and
 * duplicate events, fence reuse (6.1), filters, bounded state and intervals.
 */
#include <errno.h>
#include <stdlib.h>

#include "caps/sched/sched_stats.h"
#include "caps/sched/sched_report.h"
#include "rawtp_util.h"
#include "caps/sched/sched_metrics.h"
#include "sched_formats.h"
#include "unit.h"

#define US 1000ULL
#define MS 1000000ULL

static struct xp_rawtp_layout L;

static void load_layouts(void)
{
	const char *txt[XP_TP_SCHED_MAX] = {
		fmt_61_job, fmt_61_run, fmt_61_process, fmt_61_wait_dep, fmt_617_queue,
		fmt_617_run, fmt_617_done, fmt_617_add_dep, fmt_617_unsched,
	};

	CHECK(xp_rawtp_layout_init(&L, xp_sched_events, XP_TP_SCHED_MAX) == 0);
	for (int i = 0; i < XP_TP_SCHED_MAX; i++) {
		CHECK(xp_rawtp_layout_parse(&L, i, txt[i]) == 0);
		CHECK(L.present[i]);
		CHECK_STR(L.fmt[i].name, xp_sched_tp_name(i));
	}
}

/* A record as the kernel side writes it: fields placed where the format says. */
struct fv { const char *name; uint64_t v; };

static struct xp_rawtp_rec mk(int tp, uint64_t ts, uint32_t pid, const char *comm,
			       const char *ring, const struct fv *fv, int n)
{
	struct xp_rawtp_rec r;

	rec_init(&L, &r, XP_REC_SCHED, tp, ts, pid, comm);
	if (ring)
		rec_str(&r, 0, ring);
	for (int i = 0; i < n; i++)
		CHECK(rec_put(&L, &r, fv[i].name, fv[i].v) == 0);
	return r;
}

static int feed(struct xp_sched_state *s, const struct xp_rawtp_rec *r)
{
	struct xp_sched_event ev;
	int err = xp_sched_decode(&L, r, &ev);

	return err ? err : xp_sched_add(s, &ev);
}

/* 6.16 and older */
static void oq(struct xp_sched_state *s, uint64_t ts, uint32_t pid, const char *comm,
	       const char *ring, uint64_t id, uint64_t fence, uint32_t jc)
{
	struct fv f[] = { { "id", id }, { "fence", fence }, { "job_count", jc }, { "hw_job_count", 1 },
			  { "entity", 0xe0 } };
	struct xp_rawtp_rec r = mk(XP_TP_DRM_SCHED_JOB, ts, pid, comm, ring, f, 5);

	CHECK(feed(s, &r) == 0);
}

static void orun(struct xp_sched_state *s, uint64_t ts, const char *ring, uint64_t id, uint64_t fence)
{
	struct fv f[] = { { "id", id }, { "fence", fence }, { "job_count", 0 }, { "hw_job_count", 2 },
			  { "entity", 0xe0 } };
	struct xp_rawtp_rec r = mk(XP_TP_DRM_RUN_JOB, ts, 77, "mockgpu-ring0", ring, f, 5);

	CHECK(feed(s, &r) == 0);
}

static void odone(struct xp_sched_state *s, uint64_t ts, uint64_t fence)
{
	struct fv f[] = { { "fence", fence } };
	struct xp_rawtp_rec r = mk(XP_TP_DRM_SCHED_PROCESS_JOB, ts, 0, "swapper/0", NULL, f, 1);

	CHECK(feed(s, &r) == 0);
}

static void odepf(struct xp_sched_state *s, uint64_t ts, const char *ring, uint64_t id,
		  uint64_t ctx, uint64_t seq, uint64_t fence)
{
	struct fv f[] = { { "id", id }, { "fence", fence }, { "ctx", ctx }, { "seqno", seq } };
	struct xp_rawtp_rec r = mk(XP_TP_DRM_SCHED_JOB_WAIT_DEP, ts, 77, "kworker", ring, f, 4);

	CHECK(feed(s, &r) == 0);
}

static void odep(struct xp_sched_state *s, uint64_t ts, const char *ring, uint64_t id,
		 uint64_t ctx, uint64_t seq)
{
	struct fv f[] = { { "id", id }, { "fence", 0xdead }, { "ctx", ctx }, { "seqno", seq } };
	struct xp_rawtp_rec r = mk(XP_TP_DRM_SCHED_JOB_WAIT_DEP, ts, 77, "kworker", ring, f, 4);

	CHECK(feed(s, &r) == 0);
}

/* 6.17 and newer */
static void nq(struct xp_sched_state *s, int tp, uint64_t ts, uint32_t pid, const char *comm,
	       const char *ring, uint64_t ctx, uint64_t seq, uint64_t client)
{
	struct fv f[] = { { "fence_context", ctx }, { "fence_seqno", seq }, { "client_id", client },
			  { "job_count", 3 }, { "hw_job_count", 1 } };
	struct xp_rawtp_rec r = mk(tp, ts, pid, comm, ring, f, 5);

	CHECK(feed(s, &r) == 0);
}

static void ndone(struct xp_sched_state *s, uint64_t ts, uint64_t ctx, uint64_t seq)
{
	struct fv f[] = { { "fence_context", ctx }, { "fence_seqno", seq } };
	struct xp_rawtp_rec r = mk(XP_TP_DRM_SCHED_JOB_DONE, ts, 0, "swapper/1", NULL, f, 2);

	CHECK(feed(s, &r) == 0);
}

static void ndep(struct xp_sched_state *s, int tp, uint64_t ts, uint32_t pid, uint64_t ctx,
		 uint64_t seq, uint64_t dctx, uint64_t dseq)
{
	struct fv f[] = { { "fence_context", ctx }, { "fence_seqno", seq }, { "ctx", dctx },
			  { "seqno", dseq } };
	struct xp_rawtp_rec r = mk(tp, ts, pid, "x", NULL, f, 4);

	CHECK(feed(s, &r) == 0);
}

static struct xp_sched_ring *ring(struct xp_sched_state *s, const char *name)
{
	for (int i = 0; i < s->nrings; i++)
		if (!strcmp(s->rings[i].name, name))
			return &s->rings[i];
	return NULL;
}

static struct xp_sched_proc *proc(struct xp_sched_state *s, uint32_t pid)
{
	for (int i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	return NULL;
}

static struct xp_sched_job_info seen[64];
static int nseen;

static void on_job(void *ctx, const struct xp_sched_job_info *j)
{
	(void)ctx;
	if (nseen < 64)
		seen[nseen++] = *j;
}

static void init(struct xp_sched_state *s, uint32_t cap)
{
	CHECK(xp_sched_init(s, cap, 0) == 0);
	s->on_job = on_job;
	nseen = 0;
}

static void t_decode(void)
{
	struct fv f[] = { { "fence_context", 9 }, { "fence_seqno", 4 }, { "client_id", 12 },
			  { "job_count", 5 }, { "hw_job_count", (uint32_t)-1 } };
	struct xp_rawtp_rec r = mk(XP_TP_DRM_SCHED_JOB_QUEUE, 100, 42, "app", "ring1", f, 5);
	struct xp_sched_event ev;
	struct xp_rawtp_layout none = { 0 };

	CHECK(xp_sched_decode(&L, &r, &ev) == 0);
	CHECK(ev.kind == XP_SCHED_QUEUE && ev.gen == 2);
	CHECK_U64(ev.ctx, 9);
	CHECK_U64(ev.seqno, 4);
	CHECK(ev.has_client && ev.client_id == 12);
	CHECK(ev.has_counts && ev.job_count == 5 && ev.hw_job_count == -1);
	CHECK_STR(ev.ring, "ring1");
	CHECK_STR(ev.comm, "app");
	CHECK(xp_sched_decode(&none, &r, &ev) == -ENOENT);
	r.raw_len = 30;	/* cut before fence_seqno */
	CHECK(xp_sched_decode(&L, &r, &ev) == -EBADMSG);
	r.ev = XP_TP_SCHED_MAX;
	CHECK(xp_sched_decode(&L, &r, &ev) == -ENOENT);
	{
		struct fv g[] = { { "id", 7 }, { "ctx", 3 }, { "seqno", 0xffffffff } };
		struct xp_rawtp_rec w = mk(XP_TP_DRM_SCHED_JOB_WAIT_DEP, 5, 1, "k", "gfx", g, 3);

		CHECK(xp_sched_decode(&L, &w, &ev) == 0);
		CHECK(ev.kind == XP_SCHED_DEP && ev.gen == 1 && ev.job_id == 7);
		CHECK_U64(ev.dep_seqno, 0xffffffffULL);	/* unsigned: not sign-extended */
	}
}

/* What the kernel side is told per event: bytes to copy, where the ring name's word is. */
static void t_cfg(void)
{
	struct xp_rawtp_cfg cfg[XP_RAWTP_MAX_EV];

	xp_rawtp_cfg_fill(&L, cfg);
	CHECK_U64(cfg[XP_TP_DRM_SCHED_JOB].raw_size, 48);
	CHECK(cfg[XP_TP_DRM_SCHED_JOB].str_off[0] == 24 && cfg[XP_TP_DRM_SCHED_JOB].str_off[1] == -1);
	CHECK(cfg[XP_TP_DRM_SCHED_JOB_WAIT_DEP].str_off[0] == 8);
	CHECK(cfg[XP_TP_DRM_SCHED_JOB_QUEUE].str_off[0] == 8);
	CHECK(cfg[XP_TP_DRM_SCHED_PROCESS_JOB].str_off[0] == -1);
	CHECK(cfg[XP_TP_DRM_SCHED_JOB_DONE].str_off[0] == -1);
	CHECK_U64(cfg[XP_TP_DRM_SCHED_JOB_DONE].raw_size, 24);
	CHECK_U64(cfg[XP_TP_SCHED_MAX].raw_size, 0);
	for (int i = 0; i < XP_TP_SCHED_MAX; i++)
		CHECK(!cfg[i].filter);	/* filters apply after the join */
}

static void t_old_basic(void)
{
	struct xp_sched_state s;
	struct xp_sched_ring *r0, *r1;
	struct xp_sched_proc *a, *b;

	init(&s, 64);
	/* A (pid 10) two jobs on ring0, B (pid 20) one on ring1; ids are per ring */
	oq(&s, 1000 * US, 10, "procA", "ring0", 1, 0xf1, 1);
	oq(&s, 1001 * US, 10, "procA", "ring0", 2, 0xf2, 2);
	oq(&s, 1002 * US, 20, "procB", "ring1", 1, 0xf3, 1);
	orun(&s, 1010 * US, "ring0", 1, 0xf1);
	orun(&s, 1012 * US, "ring1", 1, 0xf3);
	odone(&s, 1210 * US, 0xf1);		/* 200us */
	orun(&s, 1210 * US, "ring0", 2, 0xf2);
	odone(&s, 1312 * US, 0xf3);		/* 300us */
	odone(&s, 1410 * US, 0xf2);		/* 200us */
	r0 = ring(&s, "ring0");
	r1 = ring(&s, "ring1");
	CHECK(r0 && r1);
	if (!r0 || !r1)
		return;
	CHECK_U64(r0->c.done, 2);
	CHECK_U64(r1->c.done, 1);
	CHECK_U64(r0->c.queued, 2);
	CHECK_U64(r0->c.pending, 0);
	CHECK_U64(r0->c.inflight, 0);
	CHECK_U64(r0->c.max_pending, 2);
	CHECK_U64(r0->c.max_job_count, 2);
	CHECK_U64(r0->c.max_hw_job_count, 2);
	CHECK_U64(r0->c.exec.count, 2);
	CHECK_U64(r0->c.exec.max, 200 * US);
	CHECK_U64(r0->c.qdelay.max, 209 * US);
	CHECK_U64(r1->c.exec.max, 300 * US);
	/* ring0 busy 1010..1410 without a gap */
	CHECK_U64(xp_sched_busy_ns(&r0->c, 2000 * US), 400 * US);
	a = proc(&s, 10);
	b = proc(&s, 20);
	CHECK(a && b && a->c.done == 2 && b->c.done == 1);
	CHECK(a && !strcmp(a->comm, "procA") && !a->has_client);
	CHECK_U64(nseen, 3);
	CHECK_U64(seen[0].pid, 10);
	CHECK_STR(seen[0].comm, "procA");
	CHECK_U64(seen[0].done_ts - seen[0].run_ts, 200 * US);
	CHECK_U64(xp_sched_open_jobs(&s), 0);
	CHECK_U64(s.unmatched + s.duplicates + s.evicted, 0);
	xp_sched_free(&s);
}

/* 6.1 reuses a freed fence: done pairs with the current holder only. */
static void t_old_fence_reuse(void)
{
	struct xp_sched_state s;
	struct xp_sched_ring *r;

	init(&s, 64);
	for (uint64_t id = 1; id <= 5; id++) {
		oq(&s, id * MS, 10, "a", "gfx", id, 0xabc, 1);
		orun(&s, id * MS + 10 * US, "gfx", id, 0xabc);
		odone(&s, id * MS + 110 * US, 0xabc);
	}
	r = ring(&s, "gfx");
	CHECK(r && r->c.done == 5 && r->c.exec.max == 100 * US && r->c.exec.count == 5);
	CHECK_U64(s.evicted, 0);
	/* a lost done: job 6 holds 0xabc, job 7 gets the address again */
	oq(&s, 10 * MS, 10, "a", "gfx", 6, 0xabc, 1);
	orun(&s, 10 * MS + 10 * US, "gfx", 6, 0xabc);
	oq(&s, 11 * MS, 10, "a", "gfx", 7, 0xabc, 1);
	orun(&s, 11 * MS + 10 * US, "gfx", 7, 0xabc);
	odone(&s, 11 * MS + 60 * US, 0xabc);
	/* the fence was freed, so job 6 completed: counted done, without a time */
	CHECK(r && r->c.done == 7 && r->c.incomplete == 0 && r->c.exec.count == 6);
	CHECK_U64(s.inferred, 1);
	CHECK(r && r->c.inflight == 0 && r->c.running == 0);
	CHECK_U64(seen[nseen - 1].k2, 7);
	CHECK_U64(seen[nseen - 1].done_ts - seen[nseen - 1].run_ts, 50 * US);
	CHECK_U64(xp_sched_open_jobs(&s), 0);
	xp_sched_free(&s);
}

static void t_old_deps(void)
{
	struct xp_sched_state s;
	struct xp_sched_ring *r;

	init(&s, 64);
	oq(&s, 1 * MS, 10, "a", "gfx", 1, 0x1, 1);
	odep(&s, 1 * MS + 5 * US, "gfx", 1, 50, 3);
	odep(&s, 1 * MS + 6 * US, "gfx", 1, 51, 9);
	orun(&s, 2 * MS, "gfx", 1, 0x1);
	odone(&s, 3 * MS, 0x1);
	r = ring(&s, "gfx");
	CHECK(r && r->c.deps == 2 && r->c.waited == 1 && r->c.depwait.count == 1);
	CHECK(r && r->c.depwait.max == 1 * MS - 5 * US);
	CHECK(nseen == 1 && seen[0].deps == 2 && seen[0].has_depwait);
	xp_sched_free(&s);
}

/*
 * Dependencies in the order the kernel emits them, counted exactly per job,
 * ring and process. Up to 6.16, drm_sched_job_wait_dep fires in the
 * scheduler's worker when it takes a job's dependency (drm_sched_entity_pop_job,
 * each dependency once), after the job's queue event and before its run.
 */
static void t_old_deps_order(void)
{
	struct xp_sched_state s;
	struct xp_sched_ring *g, *c;
	struct xp_sched_proc *a, *b;

	init(&s, 64);
	oq(&s, 1 * MS, 10, "a", "gfx", 1, 0x1, 1);
	oq(&s, 1 * MS + 1 * US, 10, "a", "gfx", 2, 0x2, 2);
	oq(&s, 1 * MS + 2 * US, 20, "b", "comp", 1, 0x3, 1);
	/* the worker takes job gfx/2's two dependencies and comp/1's one */
	orun(&s, 2 * MS, "gfx", 1, 0x1);
	odep(&s, 2 * MS + 1 * US, "gfx", 2, 50, 3);
	odep(&s, 2 * MS + 2 * US, "gfx", 2, 51, 9);
	odep(&s, 2 * MS + 3 * US, "comp", 1, 50, 3);
	orun(&s, 3 * MS, "comp", 1, 0x3);
	odone(&s, 4 * MS, 0x1);
	orun(&s, 4 * MS + 1 * US, "gfx", 2, 0x2);
	odone(&s, 5 * MS, 0x3);
	odone(&s, 6 * MS, 0x2);
	g = ring(&s, "gfx");
	c = ring(&s, "comp");
	a = proc(&s, 10);
	b = proc(&s, 20);
	CHECK(g && g->c.done == 2 && g->c.deps == 2 && g->c.waited == 1);
	CHECK(c && c->c.done == 1 && c->c.deps == 1 && c->c.waited == 1);
	CHECK(a && a->c.done == 2 && a->c.deps == 2 && a->c.waited == 1);
	CHECK(b && b->c.done == 1 && b->c.deps == 1 && b->c.waited == 1);
	CHECK_U64(s.nprocs, 2);	/* the worker's events make no process of their own */
	CHECK(nseen == 3 && seen[0].k2 == 1 && seen[0].deps == 0);
	CHECK(seen[1].k2 == 1 && seen[1].deps == 1 && !strcmp(seen[1].ring, "comp"));
	CHECK(seen[2].k2 == 2 && seen[2].deps == 2 && seen[2].has_depwait);
	CHECK_U64(seen[2].depwait_ns, 4 * MS + 1 * US - (2 * MS + 1 * US));
	CHECK_U64(xp_sched_open_jobs(&s), 0);
	CHECK_U64(s.unmatched + s.evicted, 0);
	xp_sched_free(&s);
}

/*
 * From 6.17, drm_sched_job_add_dep fires in drm_sched_entity_push_job, in the
 * submitter's context right after drm_sched_job_queue, once per entry of the
 * job's dependency array, with the job's armed finished fence (see
 * gpu_scheduler_trace.h: every event needs drm_sched_job_arm() first); the
 * worker fires drm_sched_job_unschedulable for a dependency not yet
 * signalled. Drivers call drm_sched_job_add_dependency() earlier, but that
 * function has no tracepoint.
 */
static void t_new_deps_order(void)
{
	struct xp_sched_state s;
	struct xp_sched_ring *r0, *r1;
	struct xp_sched_proc *a, *b;

	init(&s, 64);
	/* process 30 (client 7): 100:1 with no dependency, 100:2 with two */
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 1 * MS, 30, "app", "ring0", 100, 1, 7);
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 1 * MS + 1 * US, 30, "app", "ring0", 100, 2, 7);
	ndep(&s, XP_TP_DRM_SCHED_JOB_ADD_DEP, 1 * MS + 2 * US, 30, 100, 2, 200, 4);
	ndep(&s, XP_TP_DRM_SCHED_JOB_ADD_DEP, 1 * MS + 3 * US, 30, 100, 2, 300, 1);
	/* process 40 (client 8) on ring1: 200:5 with one */
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 1 * MS + 4 * US, 40, "game", "ring1", 200, 5, 8);
	ndep(&s, XP_TP_DRM_SCHED_JOB_ADD_DEP, 1 * MS + 5 * US, 40, 200, 5, 100, 1);
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 2 * MS, 0, "kworker", "ring0", 100, 1, 7);
	/* the worker: 100:2 waits for 300:1, 200:5 for 100:1 */
	ndep(&s, XP_TP_DRM_SCHED_JOB_UNSCHEDULABLE, 2 * MS + 1 * US, 0, 100, 2, 300, 1);
	ndep(&s, XP_TP_DRM_SCHED_JOB_UNSCHEDULABLE, 2 * MS + 2 * US, 0, 200, 5, 100, 1);
	ndone(&s, 3 * MS, 100, 1);
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 3 * MS + 10 * US, 0, "kworker", "ring1", 200, 5, 8);
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 4 * MS, 0, "kworker", "ring0", 100, 2, 7);
	ndone(&s, 5 * MS, 200, 5);
	ndone(&s, 6 * MS, 100, 2);
	r0 = ring(&s, "ring0");
	r1 = ring(&s, "ring1");
	a = proc(&s, 30);
	b = proc(&s, 40);
	CHECK(r0 && r0->c.done == 2 && r0->c.deps == 2 && r0->c.unsched == 1 && r0->c.waited == 1);
	CHECK(r1 && r1->c.done == 1 && r1->c.deps == 1 && r1->c.unsched == 1 && r1->c.waited == 1);
	CHECK(a && a->client_id == 7 && a->c.done == 2 && a->c.deps == 2 && a->c.unsched == 1);
	CHECK(b && b->client_id == 8 && b->c.done == 1 && b->c.deps == 1 && b->c.unsched == 1);
	CHECK_U64(s.nprocs, 2);
	CHECK(nseen == 3);
	CHECK(seen[0].k1 == 100 && seen[0].k2 == 1 && seen[0].deps == 0 && seen[0].unsched == 0);
	CHECK(seen[1].k1 == 200 && seen[1].k2 == 5 && seen[1].deps == 1 && seen[1].pid == 40);
	CHECK(seen[2].k1 == 100 && seen[2].k2 == 2 && seen[2].deps == 2 && seen[2].unsched == 1);
	CHECK(seen[2].has_depwait && seen[2].depwait_ns == 4 * MS - (2 * MS + 1 * US));
	/* what they waited on: 200:5 on job 100:1, traced, so its wait is exact
	 * (queue -> 100:1's done); 100:2 on fences of no traced job */
	CHECK(seen[1].has_depwait && seen[1].depwait_exact);
	CHECK_U64(seen[1].depwait_ns, 3 * MS - (1 * MS + 4 * US));
	CHECK(seen[1].ndep == 1 && seen[1].dep[0].known && !strcmp(seen[1].dep[0].ring, "ring0"));
	CHECK(seen[1].dep[0].pid == 30 && seen[1].dep[0].signaled && seen[1].dep[0].signal_ts == 3 * MS);
	CHECK(seen[1].dep[0].ctx == 100 && seen[1].dep[0].seqno == 1);
	CHECK(!seen[2].depwait_exact && seen[2].ndep == 2 && !seen[2].dep[0].known);
	CHECK(seen[2].dep[0].ctx == 200 && seen[2].dep[0].seqno == 4 && seen[2].dep[1].ctx == 300);
	CHECK(r1->c.depwait.count == 1 && r1->c.depwait.max == 3 * MS - (1 * MS + 4 * US));
	CHECK_U64(xp_sched_open_jobs(&s), 0);
	CHECK_U64(s.unmatched + s.evicted, 0);

	/* add_dep before queue (same armed fence) is the same job: counted once, attributed */
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 10 * MS, 30, "app", "ring0", 100, 3, 7);
	ndep(&s, XP_TP_DRM_SCHED_JOB_ADD_DEP, 9 * MS, 30, 100, 4, 200, 6);
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 10 * MS + 1 * US, 30, "app", "ring0", 100, 4, 7);
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 11 * MS, 0, "kworker", "ring0", 100, 3, 7);
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 11 * MS + 1 * US, 0, "kworker", "ring0", 100, 4, 7);
	ndone(&s, 12 * MS, 100, 3);
	ndone(&s, 12 * MS + 1 * US, 100, 4);
	CHECK(r0->c.done == 4 && r0->c.deps == 3 && a->c.deps == 3 && b->c.deps == 1);
	CHECK(nseen == 5 && seen[4].deps == 1 && seen[4].pid == 30);
	CHECK_U64(s.nprocs, 2);

	/* a dependency done and forgotten before the job was queued: named from
	 * the recent completions, and it did not wait at all */
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 20 * MS, 40, "game", "ring1", 200, 7, 8);
	ndep(&s, XP_TP_DRM_SCHED_JOB_ADD_DEP, 20 * MS + 1 * US, 40, 200, 7, 100, 2);
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 21 * MS, 0, "kworker", "ring1", 200, 7, 8);
	ndone(&s, 22 * MS, 200, 7);
	CHECK(nseen == 6 && seen[5].ndep == 1 && seen[5].dep[0].known && seen[5].dep[0].pid == 30);
	CHECK(seen[5].dep[0].signal_ts == 6 * MS && seen[5].depwait_exact && seen[5].depwait_ns == 0);
	xp_sched_free(&s);
}

/* Up to 6.16 a dependency is named by its address: a traced job's finished fence. */
static void t_old_dep_named(void)
{
	struct xp_sched_state s;

	init(&s, 64);
	oq(&s, 1 * MS, 10, "a", "gfx", 1, 0x1, 1);
	oq(&s, 1 * MS + 2 * US, 20, "b", "comp", 1, 0x3, 1);
	orun(&s, 2 * MS, "gfx", 1, 0x1);
	odepf(&s, 2 * MS + 1 * US, "comp", 1, 50, 3, 0x1);	/* comp/1 waits for gfx/1 */
	odone(&s, 4 * MS, 0x1);
	orun(&s, 4 * MS + 10 * US, "comp", 1, 0x3);
	odone(&s, 5 * MS, 0x3);
	CHECK(nseen == 2 && seen[1].ndep == 1 && seen[1].dep[0].known);
	CHECK(!strcmp(seen[1].dep[0].ring, "gfx") && seen[1].dep[0].pid == 10);
	CHECK(seen[1].dep[0].ctx == 50 && seen[1].dep[0].seqno == 3 && seen[1].dep[0].signal_ts == 4 * MS);
	CHECK(seen[1].depwait_exact && seen[1].depwait_ns == 4 * MS - (1 * MS + 2 * US));
	/* 0x1 is freed and reused by gfx/2; comp/2 depends on that new holder
	 * while it is open: gfx/1's completion at the same address is not it */
	oq(&s, 6 * MS, 10, "a", "gfx", 2, 0x1, 1);
	oq(&s, 6 * MS + 1 * US, 20, "b", "comp", 2, 0x4, 1);
	odepf(&s, 6 * MS + 2 * US, "comp", 2, 50, 4, 0x1);
	orun(&s, 7 * MS, "gfx", 2, 0x1);
	odone(&s, 9 * MS, 0x1);
	orun(&s, 9 * MS + 10 * US, "comp", 2, 0x4);
	odone(&s, 10 * MS, 0x4);
	CHECK(nseen == 4 && seen[3].k2 == 2 && !strcmp(seen[3].ring, "comp"));
	CHECK(seen[3].dep[0].signal_ts == 9 * MS && seen[3].depwait_exact);
	CHECK_U64(seen[3].depwait_ns, 9 * MS - (6 * MS + 1 * US));
	xp_sched_free(&s);
}

/* --stream: what a job waited on, by ring and pid when traced, else by fence */
static void t_stream_deps(void)
{
	struct xp_sched_job_info j = {
		.gen = 2, .ring = "ring1", .pid = 40, .tid = 40, .comm = "game", .k1 = 200, .k2 = 5,
		.has_queue = true, .has_run = true, .q_ts = 1 * MS, .run_ts = 3 * MS, .done_ts = 5 * MS,
		.deps = 3, .has_depwait = true, .depwait_exact = true, .depwait_ns = 2 * MS, .ndep = 2,
		.dep = { { .ctx = 100, .seqno = 1, .known = true, .ring = "ring0", .pid = 30,
			   .signaled = true, .signal_ts = 3 * MS },
			 { .ctx = 77, .seqno = 9 } },
	};
	struct xp_json js;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	xp_json_init(&js, f, false);
	xp_sched_stream_json(&js, &j, 1 * MS);
	xp_sched_stream_text(f, &j, 1 * MS);
	fclose(f);
	CHECK(strstr(buf, "\"dep_wait_ns\":2000000,\"dep_wait_exact\":true,\"waited_on\":["
			  "{\"fence_context\":100,\"fence_seqno\":1,\"ring\":\"ring0\",\"pid\":30,"
			  "\"signaled_ns\":2000000},{\"fence_context\":77,\"fence_seqno\":9}]") != NULL);
	CHECK(strstr(buf, "    3 2.00ms ring0/30,fence 77:9,+1\n") != NULL);
	free(buf);
}

static void t_new_basic(void)
{
	struct xp_sched_state s;
	struct xp_sched_ring *r;
	struct xp_sched_proc *a;

	init(&s, 64);
	/* two clients of one process: two rows */
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 1 * MS, 30, "app", "ring0", 100, 1, 7);
	ndep(&s, XP_TP_DRM_SCHED_JOB_ADD_DEP, 1 * MS, 30, 100, 1, 200, 4);
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 1 * MS + 1, 30, "app", "ring0", 101, 1, 8);
	ndep(&s, XP_TP_DRM_SCHED_JOB_UNSCHEDULABLE, 1 * MS + 2 * US, 0, 100, 1, 200, 4);
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 3 * MS, 0, "kworker", "ring0", 100, 1, 7);
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 3 * MS + 100 * US, 0, "kworker", "ring0", 101, 1, 8);
	ndone(&s, 8 * MS, 100, 1);
	ndone(&s, 8 * MS + 100 * US, 101, 1);
	r = ring(&s, "ring0");
	CHECK(r && r->c.done == 2 && r->c.deps == 1 && r->c.unsched == 1 && r->c.waited == 1);
	CHECK(r && r->c.exec.count == 2 && r->c.exec.max == 5 * MS);
	CHECK(r && r->c.depwait.max == 2 * MS - 2 * US);
	CHECK(r && xp_sched_busy_ns(&r->c, 9 * MS) == 5 * MS + 100 * US);
	CHECK_U64(s.nprocs, 2);
	a = proc(&s, 30);
	CHECK(a && a->has_client && (a->client_id == 7 || a->client_id == 8) && a->c.done == 1);
	CHECK(nseen == 2 && seen[0].has_client && seen[0].client_id == 7 && seen[0].k1 == 100);
	CHECK_U64(s.gen, 2);
	xp_sched_free(&s);
}

static void t_out_of_order(void)
{
	struct xp_sched_state s;
	struct xp_sched_ring *r;
	struct xp_sched_proc *a;

	init(&s, 64);
	/* the scheduler's run is delivered before the submitter's queue record */
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 1 * MS + 3 * US, 0, "kworker", "ring0", 5, 1, 7);
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 1 * MS, 40, "late", "ring0", 5, 1, 7);
	ndone(&s, 2 * MS, 5, 1);
	r = ring(&s, "ring0");
	a = proc(&s, 40);
	CHECK(r && r->c.done == 1 && r->c.qdelay.count == 1 && r->c.qdelay.max == 3 * US);
	CHECK(r && r->c.pending == 0 && r->c.inflight == 0 && r->c.running == 0);
	CHECK(a && a->c.done == 1 && a->c.inflight == 0 && a->c.exec.max == 1 * MS - 3 * US);
	CHECK(nseen == 1 && seen[0].pid == 40);
	/* a run stamped before its queue: delay 0, counted as out of order */
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 5 * MS, 0, "kworker", "ring0", 5, 2, 7);
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 5 * MS + 1 * US, 40, "late", "ring0", 5, 2, 7);
	ndone(&s, 6 * MS, 5, 2);
	CHECK_U64(s.out_of_order, 1);
	CHECK(r && r->c.qdelay.count == 2);
	xp_sched_free(&s);
}

static void t_missing_and_duplicates(void)
{
	struct xp_sched_state s;
	struct xp_sched_ring *r;

	init(&s, 64);
	ndone(&s, 1 * MS, 9, 9);		/* queued before the trace began */
	CHECK_U64(s.unmatched, 1);
	/* run without queue: the ring counts it, no process does */
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 2 * MS, 0, "kworker", "ring0", 9, 10, 1);
	ndone(&s, 3 * MS, 9, 10);
	r = ring(&s, "ring0");
	CHECK(r && r->c.done == 1 && r->c.exec.count == 1 && r->c.qdelay.count == 0);
	CHECK_U64(s.nprocs, 0);
	/* done without run: completed, no execution time */
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 4 * MS, 5, "p", "ring0", 9, 11, 1);
	ndone(&s, 5 * MS, 9, 11);
	CHECK_U64(s.missing_run, 1);
	CHECK(r && r->c.done == 2 && r->c.exec.count == 1 && r->c.pending == 0);
	/* duplicates */
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 6 * MS, 5, "p", "ring0", 9, 12, 1);
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 6 * MS, 5, "p", "ring0", 9, 12, 1);
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 7 * MS, 0, "k", "ring0", 9, 12, 1);
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 7 * MS, 0, "k", "ring0", 9, 12, 1);
	ndone(&s, 8 * MS, 9, 12);
	ndone(&s, 8 * MS, 9, 12);
	CHECK_U64(s.duplicates, 2);
	CHECK_U64(s.unmatched, 2);
	CHECK(r && r->c.done == 3 && r->c.queued == 2 && r->c.run == 2);
	CHECK(r && r->c.inflight == 0 && r->c.pending == 0);
	/* never done: open at the end, counted as incomplete */
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 9 * MS, 5, "p", "ring0", 9, 13, 1);
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 9 * MS, 5, "p", "ring0", 9, 14, 1);
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 10 * MS, 0, "k", "ring0", 9, 13, 1);
	CHECK(r && r->c.pending == 1 && r->c.inflight == 1);
	CHECK_U64(xp_sched_open_jobs(&s), 2);
	xp_sched_finish(&s, 11 * MS);
	CHECK(r && r->c.incomplete == 2 && r->c.pending == 0 && r->c.inflight == 0);
	CHECK(r && proc(&s, 5) && proc(&s, 5)->c.incomplete == 2);
	CHECK_U64(xp_sched_open_jobs(&s), 0);
	CHECK_U64(s.open_at_end, 2);
	xp_sched_free(&s);
}

static void t_filters(void)
{
	struct xp_sched_state s;
	struct xp_sched_ring *r;

	init(&s, 64);
	s.filt.pid = 10;
	for (uint64_t i = 1; i <= 4; i++) {
		uint32_t pid = i % 2 ? 10 : 20;

		nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, i * MS, pid, pid == 10 ? "a" : "b", "ring0", 1, i, 0);
		nq(&s, XP_TP_DRM_SCHED_JOB_RUN, i * MS + 10, 0, "k", "ring0", 1, i, 0);
		ndone(&s, i * MS + 100, 1, i);
	}
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 9 * MS, 0, "k", "ring0", 1, 99, 0);	/* unknown owner */
	ndone(&s, 9 * MS + 100, 1, 99);
	r = ring(&s, "ring0");
	CHECK(r && r->c.done == 2 && r->c.inflight == 0);
	CHECK_U64(nseen, 2);
	CHECK(proc(&s, 20) && proc(&s, 20)->c.done == 0);
	xp_sched_free(&s);

	init(&s, 64);
	s.filt.comm = "b";
	s.filt.ring = "ring1";
	for (uint64_t i = 1; i <= 4; i++) {
		const char *rn = i <= 2 ? "ring0" : "ring1";

		nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, i * MS, 20, "b", rn, 1, i, 0);
		nq(&s, XP_TP_DRM_SCHED_JOB_RUN, i * MS + 10, 0, "k", rn, 1, i, 0);
		ndone(&s, i * MS + 100, 1, i);
	}
	CHECK(ring(&s, "ring0") && ring(&s, "ring0")->c.done == 0);
	CHECK(ring(&s, "ring1") && ring(&s, "ring1")->c.done == 2);
	CHECK_U64(nseen, 2);
	xp_sched_free(&s);
}

static void t_bounded(void)
{
	struct xp_sched_state s;
	struct xp_sched_ring *r;

	init(&s, 16);
	for (uint64_t i = 1; i <= 100; i++)
		nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, i * MS, 5, "p", "ring0", 1, i, 0);
	CHECK_U64(xp_sched_open_jobs(&s), 16);
	r = ring(&s, "ring0");
	CHECK(r && r->c.incomplete == 84 && r->c.pending == 16);
	/* the newest are still there and complete normally */
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 200 * MS, 0, "k", "ring0", 1, 100, 0);
	ndone(&s, 201 * MS, 1, 100);
	CHECK(r && r->c.done == 1);
	/* aging: 30 s without an event */
	xp_sched_expire(&s, 90 * MS + 30ULL * 1000 * MS);
	CHECK_U64(xp_sched_open_jobs(&s), 10);	/* younger than 30 s: kept */
	xp_sched_expire(&s, 200 * MS + 30ULL * 1000 * MS);
	CHECK_U64(xp_sched_open_jobs(&s), 0);
	CHECK(r && r->c.incomplete == 99 && r->c.pending == 0);
	CHECK_U64(s.evicted, 99);
	xp_sched_finish(&s, 300 * MS + 30ULL * 1000 * MS);
	CHECK_U64(s.open_at_end, 0);	/* pushed out and aged: none left open at the end */
	xp_sched_free(&s);
}

static void t_busy_and_interval(void)
{
	struct xp_sched_state s;
	struct xp_sched_ring *r;

	init(&s, 64);
	/* overlapping runs 0..4 ms and 2..6 ms, then 10..11 ms: union 7 ms */
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 0, 1, "a", "ring0", 1, 1, 0);
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 0, 1, "a", "ring0", 1, 2, 0);
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 0, 1, "a", "ring0", 1, 3, 0);
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 0, 0, "k", "ring0", 1, 1, 0);
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 2 * MS, 0, "k", "ring0", 1, 2, 0);
	ndone(&s, 4 * MS, 1, 1);
	ndone(&s, 6 * MS, 1, 2);
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 10 * MS, 0, "k", "ring0", 1, 3, 0);
	r = ring(&s, "ring0");
	CHECK(r && xp_sched_busy_ns(&r->c, 11 * MS) == 7 * MS);
	CHECK(r && r->c.max_inflight == 2);
	/* a new interval: counters zero, the open job is kept and still running */
	xp_sched_reset(&s, 11 * MS);
	CHECK(r && r->c.done == 0 && r->c.exec.count == 0 && r->c.inflight == 1);
	ndone(&s, 12 * MS, 1, 3);
	CHECK(r && r->c.done == 1 && r->c.exec.max == 2 * MS);
	CHECK(r && xp_sched_busy_ns(&r->c, 20 * MS) == 1 * MS);
	xp_sched_free(&s);
}

/* Many jobs through a small table: counts stay exact, nothing leaks. */
static void t_many(void)
{
	struct xp_sched_state s;
	struct xp_sched_ring *r;
	uint64_t ts = 0;

	init(&s, 32);
	s.on_job = NULL;
	for (uint64_t i = 1; i <= 20000; i++) {
		uint64_t f = 0x1000 + (i % 7) * 64;	/* addresses come back again and again */

		oq(&s, ts, (uint32_t)(100 + i % 3), "w", i % 2 ? "r0" : "r1", i, f, 1);
		orun(&s, ts + 5 * US, i % 2 ? "r0" : "r1", i, f);
		odone(&s, ts + (i % 2 ? 200 : 5000) * US, f);
		ts += 6 * MS;
	}
	r = ring(&s, "r0");
	CHECK(r && r->c.done == 10000 && r->c.incomplete == 0);
	/* histogram resolution: within a bucket (12.5%) of the true 195 us */
	CHECK(r && xp_hist_percentile(&r->c.exec, 50) >= 175 * US &&
	      xp_hist_percentile(&r->c.exec, 50) <= 195 * US && r->c.exec.max == 195 * US);
	r = ring(&s, "r1");
	CHECK(r && r->c.done == 10000);
	CHECK(r && xp_hist_percentile(&r->c.exec, 50) >= 4500 * US &&
	      xp_hist_percentile(&r->c.exec, 50) <= 4995 * US && r->c.exec.max == 4995 * US);
	CHECK(proc(&s, 100) && proc(&s, 101) && proc(&s, 102));
	CHECK(proc(&s, 100)->c.done + proc(&s, 101)->c.done + proc(&s, 102)->c.done == 20000);
	CHECK_U64(xp_sched_open_jobs(&s), 0);
	CHECK_U64(s.evicted + s.unmatched + s.duplicates, 0);
	xp_sched_free(&s);
}

/*
 * Two submitters on one ring, four jobs on the hardware at once, fence
 * addresses handed out again as soon as a job is done (a free list, like
 * the slab): every job pairs with its own done.
 */
static void t_old_interleaved(void)
{
	struct xp_sched_state s;
	struct xp_sched_ring *r;
	uint64_t freelist[64], ts = 1000, id = 0;
	uint64_t hw[4], hwfence[4];
	int nfree = 0, nhw = 0;
	uint64_t pend[256], pendf[256];
	int npend = 0;

	init(&s, 64);
	s.on_job = NULL;
	for (int i = 0; i < 8; i++)
		freelist[nfree++] = 0x5000 + (uint64_t)i * 0x100;
	for (int step = 0; step < 4000; step++) {
		/* submit when a fence is free, else run or complete */
		if (nfree && npend < 200 && step % 3 != 2) {
			uint64_t f = freelist[--nfree];

			id++;
			oq(&s, ts++, id % 2 ? 10 : 20, id % 2 ? "a" : "b", "ring0", id, f, 1);
			pend[npend] = id;
			pendf[npend++] = f;
		} else if (npend && nhw < 4) {
			hw[nhw] = pend[0];
			hwfence[nhw++] = pendf[0];
			orun(&s, ts++, "ring0", pend[0], pendf[0]);
			memmove(pend, pend + 1, (size_t)--npend * sizeof(pend[0]));
			memmove(pendf, pendf + 1, (size_t)npend * sizeof(pendf[0]));
		} else if (nhw) {
			odone(&s, ts++, hwfence[0]);
			freelist[nfree++] = hwfence[0];
			memmove(hw, hw + 1, (size_t)--nhw * sizeof(hw[0]));
			memmove(hwfence, hwfence + 1, (size_t)nhw * sizeof(hwfence[0]));
		}
	}
	r = ring(&s, "ring0");
	CHECK(r && r->c.incomplete == 0);
	CHECK(r && r->c.done + (uint64_t)npend + (uint64_t)nhw == id);
	CHECK_U64(s.evicted + s.unmatched + s.duplicates, 0);
	xp_sched_free(&s);
}

/* A lost done (nested BPF program skipped): a later job of the entity implies it. */
static void t_lost_done(void)
{
	struct xp_sched_state s;
	struct xp_sched_ring *r;

	init(&s, 64);
	for (uint64_t i = 1; i <= 3; i++)
		nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, i, 1, "a", "ring0", 7, i, 0);
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 4, 2, "b", "ring0", 8, 1, 0);	/* another entity */
	for (uint64_t i = 1; i <= 3; i++)
		nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 10 + i, 0, "k", "ring0", 7, i, 0);
	nq(&s, XP_TP_DRM_SCHED_JOB_RUN, 14, 0, "k", "ring0", 8, 1, 0);
	/* done of 7:1 and 7:2 lost; 7:3 done */
	ndone(&s, 100, 7, 3);
	r = ring(&s, "ring0");
	CHECK(r && r->c.done == 3 && r->c.exec.count == 1 && r->c.inflight == 1);
	CHECK_U64(s.inferred, 2);
	CHECK_U64(xp_sched_open_jobs(&s), 1);	/* 8:1 is not implied */
	CHECK(nseen == 3 && seen[0].inferred && !seen[0].has_run && !seen[2].inferred);
	/* 6.16-: the same by entity address */
	oq(&s, 200, 1, "a", "gfx", 1, 0xa1, 1);
	oq(&s, 201, 1, "a", "gfx", 2, 0xa2, 1);
	orun(&s, 202, "gfx", 1, 0xa1);
	orun(&s, 203, "gfx", 2, 0xa2);
	odone(&s, 300, 0xa2);
	CHECK(ring(&s, "gfx") && ring(&s, "gfx")->c.done == 2 && ring(&s, "gfx")->c.inflight == 0);
	CHECK_U64(s.inferred, 3);
	xp_sched_free(&s);
}

/*
 * The text summary's header and rows line up: each column's name starts
 * where its values start (left-aligned columns) or ends where they end
 * (right-aligned), and the lines are equally long. Names with spaces are
 * found in the header in order; row values have none.
 */
struct colspec { const char *name; bool left; };

static const struct colspec counter_cols[] = {
	{ "JOBS", false }, { "PEND", false }, { "INFL", false }, { "MAXQ", false },
	{ "HWQ", false }, { "BUSY", false }, { "QUEUE p50/p90/p99", true },
	{ "EXEC p50/p90/p99", true }, { "DEPS", false }, { "WAITED", false },
	{ "UNSCHED", false }, { "INCOMPL", false },
};

static const char *line_at(const char *text, const char *prefix, char *buf, size_t len)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		size_t n = strcspn(p, "\n");

		if (!strncmp(p, prefix, strlen(prefix)) && n < len) {
			memcpy(buf, p, n);
			buf[n] = '\0';
			return buf;
		}
	}
	return NULL;
}

static void check_aligned(const char *hdr, const char *row, const struct colspec *keys, int nkeys)
{
	const char *hp = hdr, *rp = row;
	int n = nkeys + (int)(sizeof(counter_cols) / sizeof(counter_cols[0]));

	CHECK(hdr && row);
	if (!hdr || !row)
		return;
	for (int i = 0; i < n; i++) {
		const struct colspec *c = i < nkeys ? &keys[i] : &counter_cols[i - nkeys];
		const char *h = strstr(hp, c->name);
		size_t rs, re, hs, he;

		while (*rp == ' ')
			rp++;
		CHECK(h != NULL && *rp);
		if (!h || !*rp)
			return;
		hs = (size_t)(h - hdr);
		he = hs + strlen(c->name);
		rs = (size_t)(rp - row);
		re = rs + strcspn(rp, " ");
		if (c->left)
			CHECK_U64(rs, hs);	/* column i starts at the same offset */
		else
			CHECK_U64(re, he);	/* and right-aligned ones end there */
		hp = h + strlen(c->name);
		rp = row + re;
	}
	CHECK_U64(strlen(row), strlen(hdr));
}

static void t_text_columns(void)
{
	static const struct colspec ring_keys[] = { { "RING", true } };
	static const struct colspec proc_keys[] = { { "PID", true }, { "COMM", true },
						    { "CLIENT", true } };
	struct xp_sched_state s;
	struct xp_rawtp_layout l;
	struct xp_run_info ri = { .command = "sched", .duration_s = 1.0 };
	struct xp_sched_report rep = { .st = &s, .layout = &l, .ri = &ri, .now = 20 * MS };
	char *out = NULL, hdr[512], row[512];
	size_t len = 0;
	FILE *f;

	init(&s, 64);
	xp_rawtp_layout_init(&l, xp_sched_events, XP_TP_SCHED_MAX);
	for (uint64_t i = 1; i <= 12; i++) {
		nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, i * MS, 4321, "app", "ring0", 100, i, 7);
		if (i == 3)
			ndep(&s, XP_TP_DRM_SCHED_JOB_ADD_DEP, i * MS + 1, 4321, 100, i, 200, 1);
		nq(&s, XP_TP_DRM_SCHED_JOB_RUN, i * MS + 150 * US, 0, "k", "ring0", 100, i, 7);
		ndone(&s, i * MS + 700 * US, 100, i);
	}
	nq(&s, XP_TP_DRM_SCHED_JOB_QUEUE, 15 * MS, 4321, "app", "ring0", 100, 13, 7);
	xp_sched_finish(&s, 20 * MS);	/* one incomplete */
	f = open_memstream(&out, &len);
	xp_sched_report_text(f, &rep);
	fclose(f);
	check_aligned(line_at(out, "RING ", hdr, sizeof(hdr)), line_at(out, "ring0 ", row, sizeof(row)),
		      ring_keys, 1);
	check_aligned(line_at(out, "PID ", hdr, sizeof(hdr)), line_at(out, "4321 ", row, sizeof(row)),
		      proc_keys, 3);
	CHECK(line_at(out, "ring0 ", row, sizeof(row)) && strstr(row, " 12 "));
	free(out);
	xp_sched_free(&s);
}

/*
 * The raw-tracepoint completion program's settings (src/caps/sched/sched.h): the
 * offsets user space computes from the real format texts, and a record built
 * the way that program builds it (zeroed, the fields written at those offsets,
 * raw_len from the settings) decodes like the classic copy.
 */
static struct xp_rawtp_rec done_rec(const struct xp_sched_done_cfg *c, uint64_t fence, uint64_t ctx,
				    uint64_t seq)
{
	struct xp_rawtp_rec r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = XP_REC_SCHED;
	r.hdr.size = sizeof(r);
	r.hdr.ts_ns = 5 * MS;
	r.ev = c->ev;
	r.raw_len = c->raw_size;
	if (c->fence_off >= 0)
		memcpy(&r.raw[c->fence_off], &fence, 8);
	if (c->context_off >= 0)
		memcpy(&r.raw[c->context_off], &ctx, 8);
	if (c->seqno_off >= 0)
		memcpy(&r.raw[c->seqno_off], &seq, 8);
	return r;
}

static void t_done_cfg(void)
{
	static struct xp_rawtp_layout g1, g2;
	struct xp_rawtp_cfg cfg[XP_RAWTP_MAX_EV];
	struct xp_sched_done_cfg c;
	struct xp_sched_event ev;
	struct xp_rawtp_rec r;

	/* up to 6.16: drm_sched_process_job, fence pointer at 8 */
	CHECK(xp_rawtp_layout_init(&g1, xp_sched_events, XP_TP_SCHED_MAX) == 0);
	CHECK(xp_sched_done_cfg_fill(&g1, &c) == -ENOENT);
	CHECK(xp_rawtp_layout_parse(&g1, XP_TP_DRM_SCHED_JOB, fmt_61_job) == 0);
	CHECK(xp_rawtp_layout_parse(&g1, XP_TP_DRM_SCHED_PROCESS_JOB, fmt_61_process) == 0);
	CHECK(xp_sched_done_cfg_fill(&g1, &c) == XP_TP_DRM_SCHED_PROCESS_JOB);
	xp_rawtp_cfg_fill(&g1, cfg);
	CHECK_U64(c.ev, XP_TP_DRM_SCHED_PROCESS_JOB);
	CHECK_U64(c.fence_off, 8);
	CHECK(c.context_off == -1 && c.seqno_off == -1);
	CHECK_U64(c.raw_size, 16);
	CHECK_U64(c.raw_size, cfg[XP_TP_DRM_SCHED_PROCESS_JOB].raw_size);
	r = done_rec(&c, 0xffff888012345678ULL, 0, 0);
	CHECK(xp_sched_decode(&g1, &r, &ev) == 0);
	CHECK(ev.kind == XP_SCHED_DONE && ev.gen == 1);
	CHECK_U64(ev.fence, 0xffff888012345678ULL);

	/* from 6.17: drm_sched_job_done, fence_context at 8, fence_seqno at 16 */
	CHECK(xp_rawtp_layout_init(&g2, xp_sched_events, XP_TP_SCHED_MAX) == 0);
	CHECK(xp_rawtp_layout_parse(&g2, XP_TP_DRM_SCHED_JOB_QUEUE, fmt_617_queue) == 0);
	CHECK(xp_rawtp_layout_parse(&g2, XP_TP_DRM_SCHED_JOB_DONE, fmt_617_done) == 0);
	CHECK(xp_sched_done_cfg_fill(&g2, &c) == XP_TP_DRM_SCHED_JOB_DONE);
	xp_rawtp_cfg_fill(&g2, cfg);
	CHECK_U64(c.ev, XP_TP_DRM_SCHED_JOB_DONE);
	CHECK(c.fence_off == -1);
	CHECK_U64(c.context_off, 8);
	CHECK_U64(c.seqno_off, 16);
	CHECK_U64(c.raw_size, 24);
	CHECK_U64(c.raw_size, cfg[XP_TP_DRM_SCHED_JOB_DONE].raw_size);
	r = done_rec(&c, 0, 1234, 99);
	CHECK(xp_sched_decode(&g2, &r, &ev) == 0);
	CHECK(ev.kind == XP_SCHED_DONE && ev.gen == 2);
	CHECK_U64(ev.ctx, 1234);
	CHECK_U64(ev.seqno, 99);

	/* both present: the newest generation's */
	CHECK(xp_sched_done_cfg_fill(&L, &c) == XP_TP_DRM_SCHED_JOB_DONE);

	/* a completion format without the fields: no raw tracepoint settings */
	CHECK(xp_rawtp_layout_parse(&g1, XP_TP_DRM_SCHED_PROCESS_JOB, fmt_617_done) == 0);
	CHECK(xp_sched_done_cfg_fill(&g1, &c) == -EINVAL);
	CHECK(c.fence_off == -1 && c.context_off == -1 && c.seqno_off == -1);
}

/* A ring's busy time: each job from its run or the ring's previous done, to its done. */
static void t_busy_share(void)
{
	uint64_t last = 0;

	CHECK_U64(xp_sched_busy_share(0, 10, &last), 10);
	CHECK_U64(xp_sched_busy_share(1, 20, &last), 10);	/* handed early: waited for the first */
	CHECK_U64(xp_sched_busy_share(25, 30, &last), 5);	/* the ring idle from 20 to 25 */
	CHECK_U64(xp_sched_busy_share(26, 29, &last), 0);	/* out of order: inside what was counted */
	CHECK_U64(last, 30);
}

static void stub_cgroup(void *ctx, uint64_t id, char *buf, size_t len)
{
	(void)ctx, (void)id;
	xp_labels_add(buf, len, "cgroup", "/test");
}

/* serve's sched metrics: jobs, the time they held their ring, queue and run histograms */
static void t_metrics(void)
{
	struct xp_metrics m;
	struct xp_metrics_in in = { .m = &m, .cgroup_labels = stub_cgroup };
	struct xp_sched_metrics *sm = calloc(1, sizeof(*sm));
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	t_busy_share();
	xp_metrics_init(&m, 0);
	CHECK(sm && xp_sched_metrics_init(sm, &in) == 0);
	/* ring0: three jobs, the second handed to the ring before the first is done */
	nq(&sm->s, XP_TP_DRM_SCHED_JOB_QUEUE, 0, 4321, "app", "ring0", 100, 1, 7);
	nq(&sm->s, XP_TP_DRM_SCHED_JOB_QUEUE, 0, 4321, "app", "ring0", 100, 2, 7);
	nq(&sm->s, XP_TP_DRM_SCHED_JOB_RUN, 1 * MS, 0, "k", "ring0", 100, 1, 7);
	nq(&sm->s, XP_TP_DRM_SCHED_JOB_RUN, 2 * MS, 0, "k", "ring0", 100, 2, 7);
	ndone(&sm->s, 11 * MS, 100, 1);
	ndone(&sm->s, 21 * MS, 100, 2);
	nq(&sm->s, XP_TP_DRM_SCHED_JOB_QUEUE, 22 * MS, 4321, "app", "ring0", 100, 3, 7);
	nq(&sm->s, XP_TP_DRM_SCHED_JOB_RUN, 25 * MS, 0, "k", "ring0", 100, 3, 7);
	ndone(&sm->s, 30 * MS, 100, 3);
	/* job 4's done is lost: job 5's implies it, and 4's time goes to 5 */
	nq(&sm->s, XP_TP_DRM_SCHED_JOB_QUEUE, 31 * MS, 4321, "app", "ring0", 100, 4, 7);
	nq(&sm->s, XP_TP_DRM_SCHED_JOB_QUEUE, 31 * MS, 4321, "app", "ring0", 100, 5, 7);
	nq(&sm->s, XP_TP_DRM_SCHED_JOB_RUN, 32 * MS, 0, "k", "ring0", 100, 4, 7);
	nq(&sm->s, XP_TP_DRM_SCHED_JOB_RUN, 33 * MS, 0, "k", "ring0", 100, 5, 7);
	ndone(&sm->s, 40 * MS, 100, 5);
	CHECK(sm->err == 0);
	f = open_memstream(&out, &len);
	xp_metrics_write(f, &m, false);
	fclose(f);
	CHECK(strstr(out, "xputrace_gpu_jobs_total{cgroup=\"/test\",ring=\"ring0\"} 5\n") != NULL);
	/* 10 + 10 (from the first's done) + 5 ms, then 5 from its run: 33 to 40 (4's start unknown) */
	CHECK(strstr(out, "xputrace_gpu_busy_seconds_total{cgroup=\"/test\",ring=\"ring0\",source=\"drm_sched\"} 0.032\n") != NULL);
	CHECK(strstr(out, "xputrace_gpu_ring_busy_seconds_total{ring=\"ring0\"} 0.032\n") != NULL);
	CHECK(strstr(out, "xputrace_gpu_jobs_done_unseen_total{ring=\"ring0\"} 1\n") != NULL);
	CHECK(strstr(out, "xputrace_gpu_job_run_seconds_count{ring=\"ring0\"} 4\n") != NULL);
	/* run - done: 10 + 19 + 5 + 7 ms (job 4's unknown); queue delays 1, 2, 3, 2 ms (4's run unseen) */
	CHECK(strstr(out, "xputrace_gpu_job_run_seconds_sum{ring=\"ring0\"} 0.041\n") != NULL);
	CHECK(strstr(out, "xputrace_gpu_job_queue_seconds_sum{ring=\"ring0\"} 0.008\n") != NULL);
	CHECK(strstr(out, "xputrace_gpu_job_queue_seconds_bucket{ring=\"ring0\",le=\"0.00256\"} 3\n") != NULL);
	CHECK(strstr(out, "xputrace_gpu_job_queue_seconds_bucket{ring=\"ring0\",le=\"0.01024\"} 4\n") != NULL);
	free(out);
	xp_sched_metrics_free(sm);
	free(sm);
	xp_metrics_free(&m);
}

int main(void)
{
	load_layouts();
	RUN(t_decode);
	RUN(t_cfg);
	RUN(t_done_cfg);
	RUN(t_old_basic);
	RUN(t_old_fence_reuse);
	RUN(t_old_deps);
	RUN(t_old_deps_order);
	RUN(t_old_dep_named);
	RUN(t_stream_deps);
	RUN(t_new_deps_order);
	RUN(t_new_basic);
	RUN(t_out_of_order);
	RUN(t_missing_and_duplicates);
	RUN(t_filters);
	RUN(t_bounded);
	RUN(t_busy_and_interval);
	RUN(t_many);
	RUN(t_old_interleaved);
	RUN(t_lost_done);
	RUN(t_text_columns);
	RUN(t_metrics);
	UNIT_EXIT();
}
