/*
 * What-if scheduling of recorded GPU jobs (`xputrace simulate`) and the
 * analysis of the recorded schedule (`xputrace analyze`). No libbpf: the
 * engine is fed a plain list of jobs, so the unit tests write schedules by
 * hand (tests/unit/test_sim.c).
 *
 * The model, after TimeGraph (Kato et al., USENIX ATC 2011):
 *   - every ring is one engine that runs one job at a time, non-preemptive;
 *     in front of it the GPU's own queue (jobs handed to the hardware run
 *     back to back, in the order handed) and the scheduler's wait queue;
 *   - a job arrives at its recorded queue time and is ready once the jobs it
 *     depends on have completed in the simulation; its cost is what it took
 *     on the ring in the recording;
 *   - a job is handed over once it is ready and its ring has room (a
 *     completion may make it), and starts no sooner than the scheduler's
 *     reaction after that (the completion interrupt, the scheduler's work)
 *     nor before the job ahead of it on the ring ends; the reactions are the
 *     recording's, per ring in the order they happened, the k-th hand-over
 *     taking the k-th (from the first again when the schedule needs more: a
 *     loaded host's few long stalls stay in the replay, which a mean would
 *     smooth away); or, given one constant `overhead`, only a job that
 *     waited pays it;
 *   - policies: FIFO and RR keep up to `depth` jobs on a ring (drm_sched's
 *     credits), FIFO in ready order, RR one job per task in turn; drm-fifo,
 *     drm-rr and drm-fair choose as Linux's drm_sched does (sim_drm.h); PRT hands
 *     a job over only when the ring is empty, the highest priority first;
 *     HT hands it over at once when the ring is empty or holds only the same
 *     task's jobs and nothing of higher priority waits (the GPU's own FIFO),
 *     else as PRT does;
 *   - reservations: a task's budget C is refilled every P from the first
 *     arrival (a debt is carried over: min(C, budget + C)). PE (posterior)
 *     charges a job's cost when it completes and lets the task's jobs go
 *     while the budget is positive; AE (apriori) lets a job go only when its
 *     predicted cost fits in what is left (or the budget is whole). A job
 *     whose cost exceeds the budget left when it went is an overrun;
 *   - cost prediction from the task's jobs completed so far: `history` the
 *     mean of the last XP_SIM_HISTORY, `mean` the mean of all, `last` the
 *     last one; none yet: 0.
 * Ties: completions, then refills, then arrivals at one instant; among
 * equals the earlier ready job, then the lower index.
 */
#ifndef XP_SIM_SIM_H
#define XP_SIM_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define XP_SIM_DEPS 4
#define XP_SIM_HISTORY 8
#define XP_SIM_NAME 32

enum xp_sim_policy {
	XP_SIM_FIFO, XP_SIM_RR, XP_SIM_PRT, XP_SIM_HT,
	XP_SIM_DRM_FIFO, XP_SIM_DRM_RR, XP_SIM_DRM_FAIR,	/* drm_sched's own (sim_drm.h) */
	XP_SIM_NPOLICIES
};
/* drm_sched's entity priorities (the tasks' drm_prio); normal is the default */
enum xp_sim_drm_prio { XP_SIM_DRM_KERNEL = -2, XP_SIM_DRM_HIGH, XP_SIM_DRM_NORMAL, XP_SIM_DRM_LOW };
enum xp_sim_enforce { XP_SIM_PE, XP_SIM_AE };
enum xp_sim_predict { XP_SIM_PRED_HISTORY, XP_SIM_PRED_MEAN, XP_SIM_PRED_LAST };

struct xp_sim_job {
	uint32_t task;			/* index into the tasks */
	uint16_t ring;			/* index into the rings */
	uint64_t arrival;		/* queue time, ns */
	uint64_t cost;			/* time on the ring, ns */
	uint8_t ndep;
	int32_t dep[XP_SIM_DEPS];	/* indices of the jobs it waits for */
	uint64_t rec_run, rec_done;	/* the recording's, for comparison (0: none) */
	uint64_t rec_dep_ready;		/* when its dependencies signalled in the recording */
};

struct xp_sim_task {
	uint32_t pid;
	char comm[16];
	bool has_client;		/* a DRM client, not the whole process */
	uint64_t client;
	char name[XP_SIM_NAME];		/* "comm/pid", "comm/pid#client" */
	int prio;			/* higher goes first (PRT, HT) */
	int8_t drm_prio;		/* enum xp_sim_drm_prio (the drm-* policies) */
	bool has_res;
	uint64_t res_c, res_p;		/* budget per period, ns */
	uint64_t deadline;		/* 0: none */
};

struct xp_sim_input {
	struct xp_sim_job *jobs;	/* by arrival */
	uint32_t njobs;
	struct xp_sim_task *tasks;
	uint32_t ntasks;
	char (*rings)[XP_SIM_NAME];
	uint16_t nrings;
	uint32_t *depth;		/* per ring: jobs FIFO and RR keep on it */
	uint64_t overhead;		/* ns, see above: the reactions' mean */
	uint64_t *react;		/* the recorded reactions, ring by ring, or NULL */
	uint32_t *react_off;		/* ring i's: react[react_off[i] .. react_off[i + 1]) */
	bool drm_list_rr;		/* drm-rr as Linux 6.x makes it (sim_drm.h) */
};

struct xp_sim_params {
	enum xp_sim_policy policy;
	enum xp_sim_enforce enforce;
	enum xp_sim_predict predict;
};

/* What became of one job. */
struct xp_sim_out_job {
	uint64_t ready, handed, start, end;
	uint64_t predicted;		/* the cost predicted when it was handed over */
	bool has_pred;			/* the task had completed jobs by then */
	bool overrun;
};

/* A task's (or everyone's) results. */
struct xp_sim_stats {
	uint32_t jobs;
	uint64_t p50, p99, max;		/* response time: end - arrival */
	double mean;
	uint32_t missed;		/* deadline misses */
	double jobs_per_s;		/* jobs / span: from its first arrival to its last completion */
	double util;			/* cost / span */
	uint64_t max_cost;		/* the longest job's cost */
	uint32_t overruns;
	uint32_t npred;			/* jobs with a prediction */
	double pred_err;		/* mean |predicted - cost| / cost, % */
	double share;			/* its part of the rings' time while every task had work, % */
	double wait_mean;		/* from arrival until it began on the ring (end - cost), ns */
};

struct xp_sim_result {
	struct xp_sim_out_job *job;	/* njobs */
	struct xp_sim_stats *task;	/* ntasks */
	struct xp_sim_stats all;
	uint64_t first, last;		/* first arrival, last completion */
	uint64_t share_end;		/* the shares' window: first .. the first task's last completion */
};

const char *xp_sim_policy_name(enum xp_sim_policy p);
int xp_sim_policy_parse(const char *s);	/* -1: unknown */

/* Runs the schedule. 0, -ENOMEM, -EINVAL (a dependency cycle or bad index). */
int xp_sim_run(const struct xp_sim_input *in, const struct xp_sim_params *p,
	       struct xp_sim_result *res);
void xp_sim_result_free(struct xp_sim_result *res);

/*
 * The recording's own schedule as a result (start = run, end = done,
 * stats from them), for the "recorded" column and the model's validation.
 */
int xp_sim_recorded(const struct xp_sim_input *in, enum xp_sim_predict predict,
		    struct xp_sim_result *res);

/*
 * idx[0..n) = 0..n-1 ordered by the keys keys(ctx, i) gives (k1, then k2),
 * then by i. 0, -ENOMEM.
 */
int xp_sim_order(uint32_t *idx, uint32_t n,
		 void (*keys)(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2), const void *ctx);
/* qsort's comparison of uint64_t values. */
int xp_sim_cmp_u64(const void *a, const void *b);

/* Nearest-rank percentile of n sorted values. */
uint64_t xp_sim_pct(const uint64_t *v, uint32_t n, double pct);

#endif
