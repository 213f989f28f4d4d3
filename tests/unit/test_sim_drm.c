/*
 * drm_sched's own policies in the what-if scheduler (src/sim/sim_drm.h), on
 * schedules worked out by hand. One ring, depth 1, no reaction; "A 0-2" is
 * job A on the ring from 0 to 2 (ns).
 */
#include <stdlib.h>

#include "sim/sim.h"
#include "unit.h"

#define MAXJ 16

static struct xp_sim_job J[MAXJ];
static struct xp_sim_task T[3];
static char R[1][XP_SIM_NAME] = { "gfx" };
static uint32_t D[1] = { 1 };
static struct xp_sim_input in;
static struct xp_sim_result res;

static void setup(uint32_t ntasks)
{
	memset(J, 0, sizeof(J));
	memset(T, 0, sizeof(T));
	in = (struct xp_sim_input){ .jobs = J, .tasks = T, .ntasks = ntasks, .rings = R, .nrings = 1, .depth = D };
	for (uint32_t t = 0; t < ntasks; t++)
		snprintf(T[t].name, sizeof(T[t].name), "t%u", t);
}

static uint32_t job(uint32_t task, uint64_t arrival, uint64_t cost)
{
	J[in.njobs] = (struct xp_sim_job){ .task = task, .arrival = arrival, .cost = cost };
	return in.njobs++;
}

static int run(enum xp_sim_policy p)
{
	struct xp_sim_params params = { .policy = p };

	xp_sim_result_free(&res);
	return xp_sim_run(&in, &params, &res);
}

/* the jobs' ends, in job order */
static void ends(const uint64_t *want, uint32_t n)
{
	for (uint32_t j = 0; j < n; j++)
		CHECK_U64(res.job[j].end, want[j]);
}

/*
 * A(t0, 0, 4) B(t0, 1, 1) C(t1, 2, 2) D(t2, 3, 1); t2 is high priority.
 * drm-fifo: A 0-4; then the high run queue first: D 4-5; then the normal
 * one by the queue time of each entity's next job: B 5-6, C 6-8.
 * fifo (TimeGraph's, no priorities): A 0-4, B 4-5, C 5-7, D 7-8.
 */
static void test_drm_fifo(void)
{
	static const uint64_t want[] = { 4, 6, 8, 5 }, plain[] = { 4, 5, 7, 8 };

	setup(3);
	job(0, 0, 4);
	job(0, 1, 1);
	job(1, 2, 2);
	job(2, 3, 1);
	T[2].drm_prio = XP_SIM_DRM_HIGH;
	CHECK(run(XP_SIM_DRM_FIFO) == 0);
	ends(want, 4);
	CHECK(run(XP_SIM_FIFO) == 0);
	ends(plain, 4);
}

/*
 * t0: A B C, t1: D E F, t2: G, all at 0, and t2's H at 5; each costs 2.
 * 7.x: A 0-2 (t0 goes behind: stamp 1), D 2-4 (t1: 2), G 4-6 (t2 leaves
 * with stamp 0); H comes back with stamp 0, before t0 and t1: H 6-8, then
 * B 8-10 (t0: 3), E 10-12 (t1: 4), C 12-14, F 14-16.
 * 6.x: the list t0 t1 t2 in turn: A 0-2, D 2-4, G 4-6, B 6-8, E 8-10,
 * H 10-12 (t2's turn), C 12-14, F 14-16.
 */
static void test_drm_rr(void)
{
	static const uint64_t v7[] = { 2, 10, 14, 4, 12, 16, 6, 8 }, v6[] = { 2, 8, 14, 4, 10, 16, 6, 12 };

	setup(3);
	for (uint32_t t = 0; t < 2; t++)
		for (int k = 0; k < 3; k++)
			job(t, 0, 2);
	job(2, 0, 2);
	job(2, 5, 2);
	CHECK(run(XP_SIM_DRM_RR) == 0);
	ends(v7, 8);
	in.drm_list_rr = true;
	CHECK(run(XP_SIM_DRM_RR) == 0);
	ends(v6, 8);
}

/*
 * Both normal; t0's jobs cost 3000, t1's 1000; three each, all at 0.
 * t0 joins an empty queue: 0. t1 joins behind it with nothing kept and the
 * same priority, its average (0) no more than the ring's (0): 0 - 1 = -1.
 * t1a 0-1000 (no runtime done yet: stays -1), t1b 1000-2000 (-1 + 1000 << 4
 * = 15999), t0a 2000-5000 (stays 0), t0b 5000-8000 (0 + 3000 << 4 =
 * 48000), t1c 8000-9000 (leaves: 15999 < 48000, keeps 0), t0c 9000-12000.
 */
static void test_drm_fair(void)
{
	static const uint64_t want[] = { 5000, 8000, 12000, 1000, 2000, 9000 };

	setup(2);
	for (uint32_t t = 0; t < 2; t++)
		for (int k = 0; k < 3; k++)
			job(t, 0, t ? 1000 : 3000);
	CHECK(run(XP_SIM_DRM_FAIR) == 0);
	ends(want, 6);
}

/*
 * t0 normal: ten jobs of 1000; t1 low: two of 1000; all at 0.
 * drm-fair: t0 at 0; t1 behind it at (1 + 0 + 0) << 7 µs = 128000. t0's
 * n-th job handed over leaves it at 16000 n (the jobs done before it, << 4):
 * jobs 0-8 first; after the 8th t0 is at 128000, queued after t1, so t1a
 * 9000-10000 (it stays at 128000, queued last), t0's 9th 10000-11000,
 * t1b 11000-12000.
 * drm-fifo: the normal run queue first, all of t0, then t1: 11000, 12000.
 * GPU shares (drm-fair) until t0 is done at 11000: t0 10000, t1 1000; t1
 * waits 9000 and 11000.
 */
static void test_drm_fair_low(void)
{
	setup(2);
	for (int k = 0; k < 10; k++)
		job(0, 0, 1000);
	job(1, 0, 1000);
	job(1, 0, 1000);
	T[1].drm_prio = XP_SIM_DRM_LOW;
	CHECK(run(XP_SIM_DRM_FAIR) == 0);
	for (uint32_t j = 0; j < 9; j++)
		CHECK_U64(res.job[j].end, (j + 1) * 1000);
	CHECK_U64(res.job[10].end, 10000);
	CHECK_U64(res.job[9].end, 11000);
	CHECK_U64(res.job[11].end, 12000);
	CHECK_U64(res.share_end, 11000);
	CHECK(res.task[0].share > 90.90 && res.task[0].share < 90.91);
	CHECK(res.task[1].share > 9.09 && res.task[1].share < 9.10);
	CHECK(res.task[1].wait_mean == 10000.0);
	CHECK(run(XP_SIM_DRM_FIFO) == 0);
	CHECK_U64(res.job[9].end, 10000);
	CHECK_U64(res.job[10].end, 11000);
	CHECK_U64(res.job[11].end, 12000);
	CHECK(xp_sim_policy_parse("drm-fair") == XP_SIM_DRM_FAIR);
	CHECK(xp_sim_policy_parse("drm-rr") == XP_SIM_DRM_RR);
}

/*
 * A high-priority entity joining behind a normal head with nothing kept goes
 * before it (by the priorities' difference); a second ring keeps its own
 * queues. t0 normal A B C at 0 (cost 2), t1 high D at 1 (cost 2).
 * drm-fair: A 0-2 (t0 stays at 0), D joins at 0 - 1: D 2-4, B 4-6, C 6-8.
 */
static void test_drm_fair_high(void)
{
	static const uint64_t want[] = { 2, 6, 8, 4 };

	setup(2);
	job(0, 0, 2);
	job(0, 0, 2);
	job(0, 0, 2);
	job(1, 1, 2);
	T[1].drm_prio = XP_SIM_DRM_HIGH;
	CHECK(run(XP_SIM_DRM_FAIR) == 0);
	ends(want, 4);
}

int main(void)
{
	RUN(test_drm_fifo);
	RUN(test_drm_rr);
	RUN(test_drm_fair);
	RUN(test_drm_fair_low);
	RUN(test_drm_fair_high);
	xp_sim_result_free(&res);
	UNIT_EXIT();
}
