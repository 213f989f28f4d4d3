/*
 * `api`'s analysis, without libbpf: joins each call with the ioctls its
 * thread issued inside it, and counts per function and process: calls,
 * errors, latency, ioctls per call, calls that issued none.
 *
 * The kernel writes an ioctl's record when it returns, and a call's when the
 * call returns, into one ring buffer, so the ioctls of a thread's call come
 * before the call: they wait per thread until a call whose [entry, return]
 * holds them; the outermost call's return lets them go.
 *
 * DRM scheduler jobs (when sched's analysis runs beside it and tells it of
 * each job, struct xp_sched_listener) join the same way: a job's queue event
 * fires in the submitting thread, so it belongs to every call of that thread
 * whose [entry, return] holds its queue time. Its done event comes from
 * another context, before or after the call's record: a call with jobs not
 * yet done waits for the last of them, then (last done - entry) is its
 * call -> done time. Jobs and calls past the tables' limits, jobs queued
 * outside any call and calls whose jobs never finished are counted.
 */
#ifndef XP_CAPS_API_STATS_H
#define XP_CAPS_API_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include "caps/api/api.h"
#include "caps/sched/sched_stats.h"
#include "core/hist.h"
#include "core/record_kind.h"

extern const struct xp_rec_kind xp_api_rec_kind;

#define XP_API_JOIN_MAX 32	/* ioctls of one call kept for its stream line */
#define XP_API_PENDING 256	/* ioctls of one thread waiting for their call */
#define XP_API_ROW_CMDS 6	/* ioctl commands named per row */
#define XP_API_ROW_ERRS 4	/* error codes counted apart per row */
#define XP_API_MAX_ROWS 4096
/*
 * The pid of the (other) rows: once the rows of processes fill all but
 * XP_API_MAX_FN of XP_API_MAX_ROWS (process churn), the calls of later
 * processes are added up in one (other) row per function.
 */
#define XP_API_PID_OTHER 0xffffffffu
#define XP_API_MAX_THREADS 4096
#define XP_API_JOBS 4096	/* jobs held at once: waiting for their call, or a call for them */
#define XP_API_WAITS 1024	/* calls waiting for the last of their jobs */
#define XP_API_RING 32		/* a ring's name, cut to 31 */

struct xp_api_ioctl {
	uint64_t ts, end;
	int64_t ret;
	uint32_t cmd, dev;
};

/* What a call record completed: the call and the ioctls inside it. */
struct xp_api_joined {
	const struct xp_api_rec *call;
	bool error;
	uint32_t n;		/* ioctls inside it */
	uint32_t nkept;		/* the first of them, in ioc */
	struct xp_api_ioctl ioc[XP_API_JOIN_MAX];
	/* with sched's jobs (jobs_on): those queued inside it, how many are not done yet, the first's ring */
	bool jobs_on;
	uint32_t jobs, jobs_open;
	bool rings_many;		/* its jobs went to more than one ring */
	char ring[XP_API_RING];
	uint64_t done_ts;		/* the last done, when jobs_open is 0 */
};

/* A job queued, held until the outermost call around it returned and it ended. */
struct xp_api_job {
	uint64_t k1, k2, q_ts, end_ts;
	uint32_t tid;
	uint8_t gen;
	bool ended, done;	/* ended: done, or never seen done (sched gave it up) */
	bool claimed;		/* the outermost call around it returned */
	char ring[XP_API_RING];
};

/* A call that returned before the last of its jobs ended. */
struct xp_api_wait {
	struct xp_api_rec call;
	uint32_t left;		/* its jobs not ended yet */
	bool undone;		/* one of them ended never seen done */
	uint64_t last_done;
};

struct xp_api_cmdcount {
	uint32_t dev, cmd;
	uint64_t n;
};

/* One function in one process. */
struct xp_api_row {
	uint32_t pid;
	uint32_t rule;
	char comm[XP_COMM_LEN];
	char lib[XP_API_LIB];
	char name[XP_API_NAME];
	uint64_t calls, errors, ioctls, no_ioctl, max_ioctls;
	struct xp_hist lat;
	int ncmd;
	struct xp_api_cmdcount cmd[XP_API_ROW_CMDS];
	uint64_t other_cmds;	/* ioctls of commands past the named ones */
	int nerr;
	int64_t err_code[XP_API_ROW_ERRS];
	uint64_t err_n[XP_API_ROW_ERRS];
	uint64_t other_errs;
	/* with sched's jobs */
	uint64_t jobs, max_jobs, no_job;
	struct xp_hist done;	/* call entry -> the last of its jobs done */
	uint64_t undone;	/* calls with a job never seen done (lost, or open at the end) */
};

struct xp_api_thread {
	uint32_t tid;
	uint32_t n;
	struct xp_api_ioctl ioc[XP_API_PENDING];
};

struct xp_api_state {
	struct xp_api_row *rows;
	int nrows;
	struct xp_api_thread *threads;	/* XP_API_MAX_THREADS, allocated */
	int nthreads;
	uint64_t calls, ioctls;		/* this interval */
	uint64_t rows_full;		/* calls of functions past XP_API_MAX_ROWS: counted nowhere else */
	uint64_t calls_folded;		/* calls of later processes, added up in (other) rows */
	uint64_t ioctls_lost;		/* ioctls not kept for their call (a thread's or the table's limit) */
	/* sched's jobs: followed only when `jobs_on` (xp_api_follow_jobs) */
	bool jobs_on;
	struct xp_api_job *job;		/* XP_API_JOBS, allocated */
	int njob;
	struct xp_api_wait *wait;	/* XP_API_WAITS, allocated */
	int nwait;
	uint64_t jobs_queued;		/* this interval: queue events told */
	uint64_t jobs_outside;		/* queued by a thread outside any traced call of it that returned */
	uint64_t jobs_let_go;		/* let go unjoined when the table was full (oldest first) */
	uint64_t jobs_lost;		/* not held: the table full of jobs their calls wait for */
	uint64_t calls_unfollowed;	/* calls not followed to done: the table of waiting calls full */
	uint64_t calls_open_at_end;	/* waiting for a job when the run ended */
};

int xp_api_init(struct xp_api_state *s);
void xp_api_free(struct xp_api_state *s);
/* A new interval: rows go, ioctls waiting for their call stay. */
void xp_api_reset(struct xp_api_state *s);
/* Whether a call's return value is an error under its rule. */
bool xp_api_is_error(uint32_t rule, int64_t ret);
/*
 * One record: 1 when it completed a call (then `j` has it and its
 * ioctls), 0 when it was an ioctl kept for its call, -EINVAL when the record
 * is not one this build reads.
 */
int xp_api_add(struct xp_api_state *s, const struct xp_api_rec *r, struct xp_api_joined *j);
/*
 * Calls the kernel counted without a record (struct xp_api_agg: no ioctl
 * and no job inside them) of function `fn` in process `pid`, added to its
 * row as their records would have been; then the errors it counted apart
 * (the errs map: a return value other than the entry's err1), `n` of them.
 */
void xp_api_add_counted(struct xp_api_state *s, uint32_t pid, const struct xp_api_fn *fn,
			const struct xp_api_agg *v);
void xp_api_add_counted_err(struct xp_api_state *s, uint32_t pid, const struct xp_api_fn *fn, int64_t ret,
			    uint64_t n);
/* From now on, sched's jobs are joined too: the listener to give sched's analysis. */
int xp_api_follow_jobs(struct xp_api_state *s, struct xp_sched_listener *lis);
/* A call's jobs (inside add_call): joined into j, counted in w (NULL: past the rows' limit). */
void xp_api_join_jobs(struct xp_api_state *s, const struct xp_api_rec *r, struct xp_api_row *w,
		      struct xp_api_joined *j);
/*
 * The run ended: calls still waiting for a job count as never done, jobs no
 * returned call claimed as outside calls.
 */
void xp_api_finish(struct xp_api_state *s);
/*
 * The row of a call's function and process, made when new; past the rows
 * of processes, its function's (other) row; NULL past XP_API_MAX_ROWS.
 */
struct xp_api_row *xp_api_row_of(struct xp_api_state *s, const struct xp_api_rec *r);
/* The rows, most calls first (the order reports use); sorts s->rows. */
void xp_api_sort(struct xp_api_state *s);

#endif
