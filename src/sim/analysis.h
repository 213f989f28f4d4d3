/*
 * `xputrace analyze`: the recorded schedule of a trace file's jobs
 * (src/sim/simload.h), no what-if.
 *
 *   - GPU share: per window, each task's time on the rings (a job's
 *     exclusive time, as simload counts its cost) and Jain's fairness index
 *     (sum x)^2 / (n sum x^2) over the n tasks that had GPU time there;
 *   - blame: a job waits from its queue to its run; each moment of that
 *     wait is held by the job then on its ring (the task it belongs to,
 *     its own task's earlier jobs included), or the ring is idle: before
 *     the job's dependencies signalled that is "(dependency)", after it
 *     "(scheduler)" (the scheduler's reaction, or a wait the events do not
 *     explain). Summed per waiter and holder;
 *   - critical paths: per task, its job whose dependency chain (each job
 *     linked to the dependency that signalled last) spans the longest time
 *     from the chain's first queue to that job's done, and what that time
 *     was: on the ring (the jobs' own costs), waiting (from a job's
 *     dependency done, or its queue, to its start on the ring: the ring
 *     held or the scheduler), and the CPU's (from a dependency's done to
 *     the queue of the job that needed it);
 *   - priority inversions, when the tasks have priorities (the scheduler's
 *     events carry none; --prio gives them): a job started on a ring while
 *     a job of higher priority, queued and with its dependencies signalled,
 *     waited there; its time on the ring during that wait is the loss.
 */
#ifndef XP_SIM_ANALYSIS_H
#define XP_SIM_ANALYSIS_H

#include <stdio.h>
#include "sim/sim.h"

struct xp_an_hold {
	uint32_t task;		/* ntasks: (dependency), ntasks + 1: (scheduler) */
	uint64_t ns;
};

struct xp_an_job {
	uint64_t wait;		/* run - queue */
	uint32_t hold, nhold;	/* its holders: hold[hold .. hold + nhold) */
};

/* A waiter and what held it: for inversions, the higher task and the lower. */
struct xp_an_pair {
	uint32_t waiter, holder;	/* holder as in xp_an_hold */
	uint32_t jobs;			/* the waiter's jobs it held; inversions: how many */
	uint64_t ns;
};


/* A task's critical path: its longest dependency chain, by time. */
struct xp_an_path {
	uint32_t end;			/* the job it ends at; its task is the path's */
	uint32_t njobs;			/* jobs on the chain */
	uint64_t start;			/* the first job's queue time */
	uint64_t run_ns, wait_ns, cpu_ns;	/* sum: the end job's done - start */
	uint32_t first;			/* its jobs: path_job[first .. first + njobs), first to last */
};

struct xp_analysis {
	uint64_t t0, t_end, window;
	uint32_t nwin;
	uint64_t *win_busy;		/* [nwin][ntasks] ns */
	uint64_t *task_busy;		/* [ntasks] */
	struct xp_an_job *job;		/* [njobs] */
	struct xp_an_hold *hold;
	uint32_t nhold;
	struct xp_an_pair *pair;	/* by ns, largest first */
	uint32_t npair;
	bool prio_known;
	struct xp_an_pair *inv;		/* waiter: the high task, holder: the low; by ns */
	uint32_t ninv;
	struct xp_an_path *path;	/* [ntasks]: njobs 0 for a task with no job */
	uint32_t *path_job;
};

/* Jain's index of n values (those > 0 count); -1 when none is. */
double xp_jain(const uint64_t *x, uint32_t n);

/*
 * Analyses [t0, t_end) in windows of `window` ns (0: one window). prio_known:
 * the tasks' prio fields are meaningful. 0, -ENOMEM, -E2BIG (too many windows).
 */
int xp_analyze(const struct xp_sim_input *in, uint64_t t0, uint64_t t_end, uint64_t window,
	       bool prio_known, struct xp_analysis *a);
void xp_analysis_free(struct xp_analysis *a);

#define XP_AN_MAX_WINDOWS 100000

void xp_analysis_text(FILE *f, const char *path, const struct xp_sim_input *in,
		      const struct xp_analysis *a);
void xp_analysis_json(FILE *f, const char *path, const struct xp_sim_input *in,
		      const struct xp_analysis *a);

#endif
