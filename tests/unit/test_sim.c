/*
 * The what-if scheduler (src/sim/sim.h) on schedules small enough to work
 * out by hand. Times are in ns but read as units: "A 0-4" is job A running
 * from 0 to 4. Each test writes its expected timeline above its checks.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim/analysis.h"
#include "sim/sim.h"
#include "sim/simload.h"
#include "unit.h"

#define MAXJ 16

static struct xp_sim_job J[MAXJ];
static struct xp_sim_task T[4];
static char R[2][XP_SIM_NAME] = { "gfx", "comp" };
static uint32_t D[2];
static struct xp_sim_input in;
static struct xp_sim_result res;

static void setup(uint32_t ntasks, uint16_t nrings, uint32_t depth, uint64_t overhead)
{
	memset(J, 0, sizeof(J));
	memset(T, 0, sizeof(T));
	in = (struct xp_sim_input){ .jobs = J, .tasks = T, .ntasks = ntasks, .rings = R,
				    .nrings = nrings, .depth = D, .overhead = overhead };
	D[0] = D[1] = depth;
	for (uint32_t t = 0; t < ntasks; t++)
		snprintf(T[t].name, sizeof(T[t].name), "t%u", t);
}

static uint32_t job(uint32_t task, uint64_t arrival, uint64_t cost)
{
	J[in.njobs] = (struct xp_sim_job){ .task = task, .arrival = arrival, .cost = cost };
	return in.njobs++;
}

static int run(enum xp_sim_policy p, enum xp_sim_enforce e, enum xp_sim_predict pr)
{
	struct xp_sim_params params = { .policy = p, .enforce = e, .predict = pr };

	xp_sim_result_free(&res);
	return xp_sim_run(&in, &params, &res);
}

/* start and end of job j */
#define SPAN(j, s, e)                              \
	do {                                       \
		CHECK_U64(res.job[j].start, s);    \
		CHECK_U64(res.job[j].end, e);      \
	} while (0)

/*
 * A(t0, 0, cost 4), C(t0, 1, 1), B(t1, 2, 2); t1 has the higher priority.
 * FIFO, depth 1, no overhead:  A 0-4, C 4-5, B 5-7 (ready order)
 * PRT:                         A 0-4, B 4-6, C 6-7 (B's priority)
 * HT:                          A 0-4, C 4-5 (handed at 1: the running group
 *                              is t0's and nothing higher waits), B 5-7
 */
static void scenario_abc(void)
{
	setup(2, 1, 1, 0);
	T[1].prio = 10;
	job(0, 0, 4);	/* A */
	job(0, 1, 1);	/* C */
	job(1, 2, 2);	/* B */
}

static void test_fifo(void)
{
	scenario_abc();
	CHECK(run(XP_SIM_FIFO, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	SPAN(0, 0, 4);
	SPAN(1, 4, 5);
	SPAN(2, 5, 7);
	/* responses: A 4, C 4, B 5 */
	CHECK_U64(res.task[0].max, 4);
	CHECK_U64(res.task[1].max, 5);
	CHECK_U64(res.all.p50, 4);
	CHECK_U64(res.first, 0);
	CHECK_U64(res.last, 7);
}

static void test_prt(void)
{
	scenario_abc();
	CHECK(run(XP_SIM_PRT, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	SPAN(0, 0, 4);
	SPAN(2, 4, 6);
	SPAN(1, 6, 7);
	CHECK_U64(res.task[1].max, 4);	/* B: 6 - 2 */
}

static void test_ht(void)
{
	scenario_abc();
	CHECK(run(XP_SIM_HT, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	SPAN(0, 0, 4);
	SPAN(1, 4, 5);
	CHECK_U64(res.job[1].handed, 1);	/* went at once, into the GPU's queue */
	SPAN(2, 5, 7);
}

/*
 * The same with an overhead of 1 (a job that waited, handed to an idle ring):
 * PRT:  A 0-4, B handed 4 runs 5-7, C 8-9: two reactions
 * HT:   A 0-4, C 4-5 back to back (handed at 1), B 6-8: one reaction,
 *       so HT ends sooner: more throughput
 * FIFO: A 0-4, C 5-6, B 7-9
 */
static void test_overhead(void)
{
	scenario_abc();
	in.overhead = 1;
	CHECK(run(XP_SIM_PRT, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	SPAN(0, 0, 4);
	SPAN(2, 5, 7);
	SPAN(1, 8, 9);
	CHECK_U64(res.last, 9);
	CHECK(run(XP_SIM_HT, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	SPAN(0, 0, 4);
	SPAN(1, 4, 5);
	SPAN(2, 6, 8);
	CHECK_U64(res.last, 8);
	CHECK(run(XP_SIM_FIFO, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	SPAN(1, 5, 6);
	SPAN(2, 7, 9);
}

/*
 * HT does not pipeline past a higher-priority waiter:
 * A(t0, 0, 4), B(t1 prio 10, 1, 2), C(t0, 2, 1)
 * HT: A 0-4; B waits (ring busy, not its task); C waits (B is higher):
 *     B 4-6, C 6-7
 */
static void test_ht_higher_waits(void)
{
	setup(2, 1, 1, 0);
	T[1].prio = 10;
	job(0, 0, 4);
	job(1, 1, 2);
	job(0, 2, 1);
	CHECK(run(XP_SIM_HT, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	SPAN(0, 0, 4);
	SPAN(1, 4, 6);
	SPAN(2, 6, 7);
}

/*
 * RR: t0 queues A0 A1 A2 at 0, t1 B0 B1 at 0 (after t0's), cost 1 each.
 * FIFO: A0 0-1, A1 1-2, A2 2-3, B0 3-4, B1 4-5
 * RR:   A0 0-1, B0 1-2, A1 2-3, B1 3-4, A2 4-5
 */
static void test_rr(void)
{
	setup(2, 1, 1, 0);
	job(0, 0, 1);
	job(0, 0, 1);
	job(0, 0, 1);
	job(1, 0, 1);
	job(1, 0, 1);
	CHECK(run(XP_SIM_FIFO, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	SPAN(2, 2, 3);
	SPAN(3, 3, 4);
	CHECK(run(XP_SIM_RR, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	SPAN(0, 0, 1);
	SPAN(3, 1, 2);
	SPAN(1, 2, 3);
	SPAN(4, 3, 4);
	SPAN(2, 4, 5);
}

/*
 * Depth 2 (FIFO): two jobs on the ring at once, run back to back.
 * A(0, 3), B(0, 3), C(1, 1), overhead 1:
 *   A 0-3 and B handed at 0 (starts 3-6); C handed at 3 when A ends, ring
 *   busy with B: no reaction gap, C 6-7
 * Depth 1: A 0-3, B 4-7, C 8-9
 */
static void test_depth(void)
{
	setup(1, 1, 2, 1);
	job(0, 0, 3);
	job(0, 0, 3);
	job(0, 1, 1);
	CHECK(run(XP_SIM_FIFO, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	SPAN(0, 0, 3);
	SPAN(1, 3, 6);
	CHECK_U64(res.job[2].handed, 3);
	SPAN(2, 6, 7);
	D[0] = 1;
	CHECK(run(XP_SIM_FIFO, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	SPAN(1, 4, 7);
	SPAN(2, 8, 9);
}

/*
 * The recording's reactions, replayed in order: depth 2, A B C D of 2 each
 * at 0, reactions 0 0 5 0 on the ring. A 0-2, B 2-4 (handed at once); C
 * waited, handed at 2 when A ends: a stall of 5 leaves the ring idle after
 * B, C 7-9; D handed at 4, reacts at once but queues behind C: 9-11. With
 * a constant overhead of 1 instead, C's reaction ends while B still runs:
 * C 4-6, D 6-8, no gap. Reactions 3 0 0 0: the first run comes late and
 * everything after it with it, A 3-5, B 5-7, C 7-9, D 9-11.
 */
static void test_reactions(void)
{
	static uint64_t react[4] = { 0, 0, 5, 0 };
	static uint32_t off[2] = { 0, 4 };

	setup(1, 1, 2, 1);
	for (int k = 0; k < 4; k++)
		job(0, 0, 2);
	in.react = react;
	in.react_off = off;
	CHECK(run(XP_SIM_FIFO, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	SPAN(0, 0, 2);
	SPAN(1, 2, 4);
	CHECK_U64(res.job[2].handed, 2);
	SPAN(2, 7, 9);
	SPAN(3, 9, 11);
	react[0] = 3;
	react[2] = 0;
	CHECK(run(XP_SIM_FIFO, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	SPAN(0, 3, 5);
	SPAN(1, 5, 7);
	SPAN(2, 7, 9);
	SPAN(3, 9, 11);
	in.react = NULL;
	CHECK(run(XP_SIM_FIFO, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	SPAN(2, 4, 6);
	SPAN(3, 6, 8);
}

/*
 * Dependencies across rings: X on comp (0, cost 5); Y on gfx (1, cost 1)
 * waits for X; Z on gfx (2, cost 1).
 *   X 0-5 (comp); Z 2-3 (gfx); Y ready at 5, 5-6
 */
static void test_deps(void)
{
	setup(1, 2, 1, 0);
	uint32_t x = job(0, 0, 5), y = job(0, 1, 1), z = job(0, 2, 1);

	J[x].ring = 1;
	J[y].dep[0] = (int32_t)x;
	J[y].ndep = 1;
	CHECK(run(XP_SIM_FIFO, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	SPAN(x, 0, 5);
	SPAN(z, 2, 3);
	CHECK_U64(res.job[y].ready, 5);
	SPAN(y, 5, 6);
	/* a cycle is refused */
	J[x].dep[0] = (int32_t)y;
	J[x].ndep = 1;
	CHECK(run(XP_SIM_FIFO, XP_SIM_PE, XP_SIM_PRED_HISTORY) == -EINVAL);
}

/*
 * Reservation C=4 per P=10 for t0, three jobs of cost 3 at 0, 1, 2.
 * PE (charged after, goes while the budget is positive):
 *   j0 0-3, budget 4 -> 1; j1 3-6 (1 > 0), budget 1 -> -2: overrun;
 *   j2 waits; at 10 the budget is min(-2 + 4, 4) = 2 > 0: j2 10-13,
 *   2 -> -1: overrun. 2 overruns.
 * AE (predicted from the last job: goes only if it fits):
 *   j0 0-3 (a whole budget), 4 -> 1; j1 predicted 3 > 1, waits; at 10
 *   budget min(1 + 4, 4) = 4: j1 10-13, 4 -> 1; j2 waits again; at 20:
 *   j2 20-23. No overrun.
 */
static void test_reserve(void)
{
	setup(1, 1, 1, 0);
	T[0].has_res = true;
	T[0].res_c = 4;
	T[0].res_p = 10;
	job(0, 0, 3);
	job(0, 1, 3);
	job(0, 2, 3);
	CHECK(run(XP_SIM_FIFO, XP_SIM_PE, XP_SIM_PRED_LAST) == 0);
	SPAN(0, 0, 3);
	SPAN(1, 3, 6);
	SPAN(2, 10, 13);
	CHECK(!res.job[0].overrun && res.job[1].overrun && res.job[2].overrun);
	CHECK_U64(res.task[0].overruns, 2);
	CHECK(run(XP_SIM_FIFO, XP_SIM_AE, XP_SIM_PRED_LAST) == 0);
	SPAN(0, 0, 3);
	SPAN(1, 10, 13);
	SPAN(2, 20, 23);
	CHECK_U64(res.task[0].overruns, 0);
	/* a job that waited for its budget pays the reaction too */
	in.overhead = 1;
	CHECK(run(XP_SIM_PRT, XP_SIM_AE, XP_SIM_PRED_LAST) == 0);
	SPAN(1, 11, 14);
}

/*
 * Prediction: costs 2, 4, 6, 8 of one task, arriving 0, 10, 20, 30.
 * last:    -, 2, 4, 6  -> errors 50%, 33.3%, 25%: mean 36.1%
 * mean:    -, 2, 3, 4  -> 50%, 50%, 50%: 50%
 * history: the mean of the last 8: the same as mean here
 */
static void test_predict(void)
{
	setup(1, 1, 1, 0);
	job(0, 0, 2);
	job(0, 10, 4);
	job(0, 20, 6);
	job(0, 30, 8);
	CHECK(run(XP_SIM_FIFO, XP_SIM_PE, XP_SIM_PRED_LAST) == 0);
	CHECK(!res.job[0].has_pred);
	CHECK_U64(res.job[3].predicted, 6);
	CHECK_U64(res.task[0].npred, 3);
	CHECK((int)(res.task[0].pred_err * 10 + 0.5) == 361);
	CHECK(run(XP_SIM_FIFO, XP_SIM_PE, XP_SIM_PRED_MEAN) == 0);
	CHECK_U64(res.job[3].predicted, 4);
	CHECK((int)(res.task[0].pred_err + 0.5) == 50);
	CHECK(run(XP_SIM_FIFO, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	CHECK_U64(res.job[3].predicted, 4);
}

/*
 * Statistics: deadlines, throughput, utilisation; and the recording's own
 * schedule. Two jobs of t0: (0, cost 2) and (1, cost 2) under FIFO:
 * 0-2, 2-4: responses 2, 3; deadline 2: one miss; makespan 4 ns:
 * 5e8 jobs/s, utilisation 1.
 */
static void test_stats(void)
{
	setup(1, 1, 1, 0);
	T[0].deadline = 2;
	job(0, 0, 2);
	job(0, 1, 2);
	CHECK(run(XP_SIM_FIFO, XP_SIM_PE, XP_SIM_PRED_HISTORY) == 0);
	CHECK_U64(res.task[0].missed, 1);
	CHECK_U64(res.task[0].p50, 2);
	CHECK_U64(res.task[0].p99, 3);
	CHECK((uint64_t)(res.task[0].jobs_per_s + 0.5) == 500000000ULL);
	CHECK((int)(res.task[0].util * 100 + 0.5) == 100);
	/* recorded: ran 5-7 and 7-9 */
	J[0].rec_run = 5, J[0].rec_done = 7;
	J[1].rec_run = 7, J[1].rec_done = 9;
	xp_sim_result_free(&res);
	CHECK(xp_sim_recorded(&in, XP_SIM_PRED_LAST, &res) == 0);
	CHECK_U64(res.task[0].max, 8);
	CHECK_U64(res.job[1].predicted, 2);
	CHECK(res.job[1].has_pred && !res.job[0].has_pred);
	CHECK_U64(xp_sim_pct((const uint64_t[]){ 1, 2, 3, 4 }, 4, 50), 2);
	CHECK_U64(xp_sim_pct((const uint64_t[]){ 1, 2, 3, 4 }, 4, 99), 4);
	CHECK(xp_sim_policy_parse("ht") == XP_SIM_HT && xp_sim_policy_parse("edf") < 0);
}

/*
 * analyze on a recorded ring (times in ns), t1 has the higher priority:
 *   A t0 queued 0,  ran 0-40
 *   B t1 queued 10, ran 40-60
 *   C t0 queued 20, ran 70-80
 *   D t1 queued 30, ran 95-100, its dependencies signalled at 90
 *   E t1 queued 65, ran 80-85
 * Blame (who held the ring during each wait):
 *   B [10,40]: t0 30
 *   C [20,70]: t0 (A) 20, t1 (B) 20, idle 60-70: scheduler 10
 *   D [30,95]: t0 (A 10, C 10) 20, t1 (B 20, E 5) 25, idle 20, of which
 *              before 90: [30,90] is 60, 45 of it held: dependency 15,
 *              scheduler 5
 *   E [65,80]: t0 (C) 10, scheduler 5
 * Pairs: t1<-t0 3 jobs 60, t1<-t1 1 job 25, t1<-dep 1 job 15, t1<-sched
 *   2 jobs 10; t0<-t0 20, t0<-t1 20, t0<-sched 10 (1 job each).
 * Windows of 50: [0,50) t0 40, t1 10: Jain 50^2 / (2 (40^2 + 10^2)) =
 *   0.7353; [50,100) t0 10 (C), t1 20 (B 10, E 5, D 5): Jain
 *   30^2 / (2 (10^2 + 20^2)) = 0.9.
 * Inversions: C (t0) started at 70 while E (t1, ready) waited since 65:
 *   once, C's 10 on the ring lost to it. D was not ready (90) when C or E
 *   started: no inversion.
 */
static void test_analyze(void)
{
	static const struct { uint32_t task; uint64_t q, run, done, dep; } rec[] = {
		{ 0, 0, 0, 40, 0 }, { 1, 10, 40, 60, 0 }, { 0, 20, 70, 80, 0 },
		{ 1, 30, 95, 100, 90 }, { 1, 65, 80, 85, 0 },
	};
	struct xp_analysis a;
	uint64_t win0[2], win1[2];

	setup(2, 1, 1, 0);
	T[1].prio = 10;
	for (uint32_t k = 0; k < 5; k++) {
		uint32_t j = job(rec[k].task, rec[k].q, rec[k].done - rec[k].run);

		J[j].rec_run = rec[k].run;
		J[j].rec_done = rec[k].done;
		J[j].rec_dep_ready = rec[k].dep;
	}
	CHECK(xp_analyze(&in, 0, 100, 50, true, &a) == 0);
	CHECK_U64(a.nwin, 2);
	memcpy(win0, &a.win_busy[0], sizeof(win0));
	memcpy(win1, &a.win_busy[2], sizeof(win1));
	CHECK_U64(win0[0], 40);
	CHECK_U64(win0[1], 10);
	CHECK_U64(win1[0], 10);
	CHECK_U64(win1[1], 20);
	CHECK((int)(xp_jain(win0, 2) * 10000 + 0.5) == 7353);
	CHECK((int)(xp_jain(win1, 2) * 1000 + 0.5) == 900);
	CHECK(xp_jain((const uint64_t[]){ 0, 0 }, 2) < 0);
	CHECK_U64(a.job[0].wait, 0);
	CHECK_U64(a.job[0].nhold, 0);
	CHECK_U64(a.job[3].wait, 65);
	CHECK_U64(a.npair, 7);
	for (uint32_t p = 0; p < a.npair; p++) {
		const struct xp_an_pair *pp = &a.pair[p];
		/* holder 2: (dependency), 3: (scheduler) */
		static const uint64_t want_ns[2][4] = { { 20, 20, 0, 10 }, { 60, 25, 15, 10 } };
		static const uint32_t want_jobs[2][4] = { { 1, 1, 0, 1 }, { 3, 1, 1, 2 } };

		CHECK_U64(pp->ns, want_ns[pp->waiter][pp->holder]);
		CHECK_U64(pp->jobs, want_jobs[pp->waiter][pp->holder]);
	}
	CHECK_U64(a.pair[0].ns, 60);	/* the largest first */
	CHECK_U64(a.ninv, 1);
	CHECK_U64(a.inv[0].waiter, 1);
	CHECK_U64(a.inv[0].holder, 0);
	CHECK_U64(a.inv[0].jobs, 1);
	CHECK_U64(a.inv[0].ns, 10);
	xp_analysis_free(&a);
	/* without priorities nothing is said of inversions; one window: all of it */
	CHECK(xp_analyze(&in, 0, 100, 0, false, &a) == 0);
	CHECK_U64(a.nwin, 1);
	CHECK_U64(a.ninv, 0);
	CHECK(!a.prio_known);
	xp_analysis_free(&a);
	CHECK(xp_analyze(&in, 0, 100, 1, false, &a) == 0);
	CHECK_U64(a.nwin, 100);
	xp_analysis_free(&a);
	CHECK(xp_analyze(&in, 0, 1000000, 1, false, &a) == -E2BIG);
}

/*
 * The loader: joined jobs (as the sched analysis hands them over) into the
 * engine's input.
 *   J1 a/10 gfx  queued 0,   ran 0-100
 *   J4 b/20 comp queued 5,   ran 5-50
 *   J2 b/20 gfx  queued 10,  ran 150-200: the ring had room (depth 2): the
 *                scheduler's reaction 140
 *   J3 a/10 gfx  queued 60,  ran 190-260: handed while J2 ran (depth 2);
 *                it waited for room, made at J1's end (100): a reaction
 *                of 90; its cost is from J2's end: 60
 * Reactions: gfx 0 140 90 0 (J1 J2 J3 J5), comp 0; their mean 46.
 *   J5 a/10 gfx  queued 300, ran 300-310, waited for J4 (signalled at 50)
 *   and a job never seen queued, one never seen run: left out.
 * By arrival: J1 J4 J2 J3 J5; tasks by pid: a/10, b/20.
 */
static void test_load(void)
{
	static struct xp_sim_load l;
	struct xp_sched_job_info j[7] = {
		{ .ring = "gfx", .pid = 10, .comm = "a", .has_queue = true, .has_run = true, .q_ts = 0, .run_ts = 0, .done_ts = 100 },
		{ .ring = "comp", .pid = 20, .comm = "b", .has_queue = true, .has_run = true, .q_ts = 5, .run_ts = 5, .done_ts = 50 },
		{ .ring = "gfx", .pid = 20, .comm = "b", .has_queue = true, .has_run = true, .q_ts = 10, .run_ts = 150, .done_ts = 200 },
		{ .ring = "gfx", .pid = 10, .comm = "a", .has_queue = true, .has_run = true, .q_ts = 60, .run_ts = 190, .done_ts = 260 },
		{ .ring = "gfx", .pid = 10, .comm = "a", .has_queue = true, .has_run = true, .q_ts = 300, .run_ts = 300, .done_ts = 310,
		  .ndep = 1, .dep = { { .known = true, .ring = "comp", .pid = 20, .signaled = true, .signal_ts = 50 } } },
		{ .ring = "gfx", .pid = 10, .comm = "a", .has_queue = false, .has_run = true, .run_ts = 320, .done_ts = 330 },
		{ .ring = "gfx", .pid = 10, .comm = "a", .has_queue = true, .has_run = false, .q_ts = 330, .done_ts = 340 },
	};
	static const uint64_t cost[5] = { 100, 45, 50, 60, 10 };

	memset(&l, 0, sizeof(l));
	for (int k = 0; k < 7; k++)
		xp_sim_load_job(&l, &j[k]);
	CHECK(xp_sim_load_build(&l, 400) == 0);
	CHECK_U64(l.in.njobs, 5);
	CHECK_U64(l.no_queue, 1);
	CHECK_U64(l.no_run, 1);
	CHECK_U64(l.in.ntasks, 2);
	CHECK_STR(l.in.tasks[0].name, "a/10");
	CHECK_STR(l.in.tasks[1].name, "b/20");
	CHECK_U64(l.in.nrings, 2);
	CHECK_STR(l.in.rings[0], "gfx");
	CHECK_U64(l.in.depth[0], 2);
	CHECK_U64(l.in.depth[1], 1);
	CHECK_U64(l.in.overhead, 46);
	CHECK_U64(l.in.react_off[0], 0);
	CHECK_U64(l.in.react_off[1], 4);	/* gfx */
	CHECK_U64(l.in.react_off[2], 5);	/* comp */
	CHECK_U64(l.in.react[1], 140);
	CHECK_U64(l.in.react[2], 90);
	CHECK_U64(l.in.react[4], 0);
	for (int k = 0; k < 5; k++)
		CHECK_U64(l.in.jobs[k].cost, cost[k]);
	CHECK_U64(l.in.jobs[1].ring, 1);
	CHECK_U64(l.in.jobs[2].task, 1);
	CHECK_U64(l.in.jobs[4].ndep, 1);
	CHECK_U64(l.in.jobs[4].dep[0], 1);
	CHECK_U64(l.in.jobs[4].rec_dep_ready, 50);
	CHECK(xp_sim_task_match(&l.in.tasks[0], "a") && xp_sim_task_match(&l.in.tasks[1], "20"));
	CHECK(!xp_sim_task_match(&l.in.tasks[0], "ab") && !xp_sim_task_match(&l.in.tasks[0], "1"));
	/*
	 * FIFO at depth 1 with the recorded reactions in order: J1 0-100 (0);
	 * J4 5-50 on comp (0); J2 waited, handed at 100, 140 late: 240-290; J3
	 * handed at 290, 90 late: 380-440; J5 (J4 long done) ready at 300
	 * behind J3, handed at 440 (0): 440-450.
	 */
	{
		struct xp_sim_params p = { .policy = XP_SIM_FIFO };
		static const uint64_t end[5] = { 100, 50, 290, 440, 450 };

		l.in.depth[0] = 1;
		xp_sim_result_free(&res);
		CHECK(xp_sim_run(&l.in, &p, &res) == 0);
		for (uint32_t k = 0; k < l.in.njobs; k++)
			CHECK_U64(res.job[k].end, end[k]);
	}
	xp_sim_load_free(&l);
}

/*
 * Critical paths, by hand. A (t0, ring 0): queued 0, on the ring 0-10.
 * B (t1, ring 1) needs A: queued 2, A done at 10, on its ring 14-20 (cost 6).
 * C (t1, ring 0) needs B: queued 25 (the CPU took 5 after B), on 27-30.
 * t1's path A > B > C spans 0-30: on the ring 10 + 6 + 3 = 19, waiting
 * (B from A's done 10 to 14, C from its queue 25 to 27) 6, the CPU's 5.
 * t0's path is A alone: 10 on the ring.
 */
static void test_critical_path(void)
{
	struct xp_analysis a;
	uint32_t A, B, C;

	setup(2, 2, 1, 0);
	A = job(0, 0, 10);
	B = job(1, 2, 6);
	C = job(1, 25, 3);
	J[A].rec_run = 0, J[A].rec_done = 10;
	J[B].ring = 1, J[B].rec_run = 14, J[B].rec_done = 20, J[B].rec_dep_ready = 10;
	J[B].ndep = 1, J[B].dep[0] = (int32_t)A;
	J[C].rec_run = 27, J[C].rec_done = 30, J[C].rec_dep_ready = 20;
	J[C].ndep = 1, J[C].dep[0] = (int32_t)B;
	CHECK(xp_analyze(&in, 0, 30, 0, false, &a) == 0);
	CHECK_U64(a.path[1].njobs, 3);
	CHECK_U64(a.path[1].end, C);
	CHECK_U64(a.path[1].start, 0);
	CHECK_U64(a.path[1].run_ns, 19);
	CHECK_U64(a.path[1].wait_ns, 6);
	CHECK_U64(a.path[1].cpu_ns, 5);
	CHECK_U64(a.path_job[a.path[1].first], A);
	CHECK_U64(a.path_job[a.path[1].first + 1], B);
	CHECK_U64(a.path_job[a.path[1].first + 2], C);
	CHECK_U64(a.path[0].njobs, 1);
	CHECK_U64(a.path[0].end, A);
	CHECK_U64(a.path[0].run_ns, 10);
	CHECK_U64(a.path[0].wait_ns + a.path[0].cpu_ns, 0);
	xp_analysis_free(&a);
}

int main(void)
{
	RUN(test_fifo);
	RUN(test_prt);
	RUN(test_ht);
	RUN(test_overhead);
	RUN(test_reactions);
	RUN(test_ht_higher_waits);
	RUN(test_rr);
	RUN(test_depth);
	RUN(test_deps);
	RUN(test_reserve);
	RUN(test_predict);
	RUN(test_stats);
	RUN(test_analyze);
	RUN(test_critical_path);
	RUN(test_load);
	xp_sim_result_free(&res);
	UNIT_EXIT();
}
