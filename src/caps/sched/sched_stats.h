/*
 * DRM GPU scheduler jobs: decoding raw gpu_scheduler records with the layouts
 * parsed from tracefs, joining each job's queue, run, done and dependency
 * events, and the per-ring and per-process statistics built from them.
 * No libbpf: live capture, record/report and the unit tests share it.
 *
 * Joining. Up to 6.16 queue/run/wait_dep carry (ring, job id) and queue/run
 * also the finished fence's address, which is all that done carries; 6.1
 * reuses a freed fence's address for later jobs, so done pairs with the job
 * that holds that address now, and the pairing is dropped at done. From 6.17
 * every event carries the finished fence's (context, seqno).
 * Attribution: queue fires in the submitter's context; run and done fire in
 * the scheduler's worker or an interrupt, so a job's process is the one its
 * queue event saw, and process filters apply here, after the join.
 * Bounded: the job table has a fixed capacity; jobs not seen for max_age, or
 * pushed out when it is full, are counted as incomplete, never leaked.
 * Dependencies. The first XP_SCHED_DEPS fences a job depends on are kept.
 * One that is another traced job's finished fence (6.17+: its context and
 * seqno; up to 6.16: its address) is named by that job's ring and process,
 * and its done event says exactly when it signalled (a small cache of recent
 * completions remembers jobs already forgotten). When every dependency of a
 * job is known so, its dependency wait is exact: from its queue to the last
 * of them signalling (0 when they had all signalled before). Otherwise it is
 * what the scheduler said: from finding the job blocked (wait_dep up to 6.16,
 * unschedulable from 6.17) to its run, which includes the scheduler's own
 * reaction time.
 */
#ifndef XP_CAPS_SCHED_STATS_H
#define XP_CAPS_SCHED_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include "core/hist.h"
#include "core/rawtp_layout.h"
#include "caps/sched/sched.h"
#include "core/record_kind.h"

/*
 * The capability's event table (group "gpu_scheduler"), records of type
 * XP_REC_SCHED (struct xp_rawtp_rec): the index is the program's in
 * src/caps/sched/sched.bpf.c and the record's `ev`.
 */
enum xp_sched_tp {
	/* up to Linux 6.16 */
	XP_TP_DRM_SCHED_JOB = 0,	/* queued (submitter's context) */
	XP_TP_DRM_RUN_JOB,		/* handed to the hardware */
	XP_TP_DRM_SCHED_PROCESS_JOB,	/* hardware fence signalled */
	XP_TP_DRM_SCHED_JOB_WAIT_DEP,	/* a dependency taken by the scheduler */
	/* from Linux 6.17 */
	XP_TP_DRM_SCHED_JOB_QUEUE,
	XP_TP_DRM_SCHED_JOB_RUN,
	XP_TP_DRM_SCHED_JOB_DONE,
	XP_TP_DRM_SCHED_JOB_ADD_DEP,
	XP_TP_DRM_SCHED_JOB_UNSCHEDULABLE,
	XP_TP_SCHED_MAX,
};

#define XP_SCHED_STR XP_RAWTP_STR	/* ring name (drm_gpu_scheduler.name): string 0 */

extern const struct xp_rawtp_event xp_sched_events[XP_TP_SCHED_MAX];

const char *xp_sched_tp_name(int tp);	/* the tracepoint's name in tracefs */
int xp_sched_tp_gen(int tp);		/* 1: up to 6.16, 2: from 6.17 */
/* The newest generation among the events present (0: none), and how many are. */
int xp_sched_layout_gen(const struct xp_rawtp_layout *l, int *nevents);

enum xp_sched_kind { XP_SCHED_QUEUE, XP_SCHED_RUN, XP_SCHED_DONE, XP_SCHED_DEP, XP_SCHED_UNSCHED };

/* One event, normalized across generations. */
struct xp_sched_event {
	enum xp_sched_kind kind;
	uint8_t gen;			/* 1 or 2 */
	uint64_t ts;
	uint32_t pid, tid;
	char comm[XP_COMM_LEN];
	char ring[XP_SCHED_STR];	/* "" when the event has none (done, 6.17 deps) */
	uint64_t fence;			/* gen 1: finished fence address (queue, run, done) */
	uint64_t entity;		/* gen 1: the submitting entity's address (queue, run) */
	uint64_t job_id;		/* gen 1: per-scheduler job id (queue, run, wait_dep) */
	uint64_t ctx, seqno;		/* gen 2: the job's finished fence */
	uint64_t dep_ctx, dep_seqno;	/* DEP, UNSCHED: the fence waited on */
	uint64_t dep_fence;		/* gen 1 DEP: its address (a job's finished fence) */
	bool has_counts;
	uint32_t job_count;		/* jobs queued in the entity */
	int32_t hw_job_count;		/* jobs (credits) on the hardware */
	bool has_client;
	uint64_t client_id;		/* gen 2: the DRM file's client id */
};

/*
 * The settings of the raw-tracepoint completion program (src/caps/sched/sched.h)
 * from the parsed layouts: which completion event (the newest generation's
 * present one) and where its fields sit in the record. Returns that event's
 * index, -ENOENT when no completion event is present, -EINVAL when its
 * format lacks the fields or they are not u64-sized within the copied bytes.
 */
int xp_sched_done_cfg_fill(const struct xp_rawtp_layout *l, struct xp_sched_done_cfg *c);

/* Decodes a record; -ENOENT when its event has no layout, -EBADMSG when fields are missing. */
int xp_sched_decode(const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r,
		    struct xp_sched_event *ev);

/* What rings and processes both count. */
struct xp_sched_counts {
	uint64_t queued, run, done;	/* events joined to jobs that pass the filters */
	uint64_t deps;			/* dependencies added/taken */
	uint64_t waited;		/* jobs that waited for a dependency */
	uint64_t unsched;		/* unschedulable events (6.17+) */
	uint64_t incomplete;		/* never completed: aged out, pushed out, open at the end */
	int64_t pending, inflight;	/* now: queued and not run; run and not done */
	int64_t max_pending, max_inflight;
	uint32_t last_job_count, max_job_count;
	int32_t last_hw_job_count, max_hw_job_count;
	int64_t running;		/* for the busy union */
	uint64_t busy_since, busy_ns;
	struct xp_hist qdelay, exec, depwait;
};

struct xp_sched_ring {
	char name[XP_SCHED_STR];
	struct xp_sched_counts c;
};

struct xp_sched_proc {
	uint32_t pid;
	char comm[XP_COMM_LEN];
	bool has_client;
	uint64_t client_id;
	struct xp_sched_counts c;
};

/* A completed job, for --stream. */
#define XP_SCHED_DEPS 4

struct xp_sched_dep_info {
	uint64_t ctx, seqno;		/* the fence's context and seqno, as the event gave them */
	bool known;			/* a traced job's finished fence: ring and pid below */
	const char *ring;
	uint32_t pid;
	bool signaled;			/* that job's done seen: signal_ts */
	uint64_t signal_ts;
};

struct xp_sched_job_info {
	uint8_t gen;
	const char *ring;
	uint32_t pid, tid;
	char comm[XP_COMM_LEN];		/* "" when the queue event was not seen */
	bool has_client;
	uint64_t client_id;
	uint64_t k1, k2;		/* gen 1: ring index, job id; gen 2: fence context, seqno */
	bool has_queue, has_run;
	uint64_t q_ts, run_ts, done_ts;
	uint32_t deps, unsched;
	bool has_depwait;
	bool depwait_exact;		/* from the dependencies' own done events */
	uint64_t depwait_ns;
	uint8_t ndep;			/* dependencies kept (at most XP_SCHED_DEPS of deps) */
	struct xp_sched_dep_info dep[XP_SCHED_DEPS];
	bool inferred;			/* its done event was lost; a later job's done implies it */
};

struct xp_sched_filter {
	uint32_t pid;			/* 0: all */
	const char *comm;		/* NULL: all */
	const char *ring;		/* NULL: all */
	bool cgroup;			/* the kernel kept only one cgroup's queue events:
					 * jobs not seen queued are another cgroup's */
};

struct xp_sched_job;

/*
 * A job as another analysis follows it (api: the call that queued it): its
 * key, unique among open jobs, and where and when it was queued or ended.
 */
struct xp_sched_job_ref {
	uint8_t gen;
	uint64_t k1, k2;		/* as in struct xp_sched_job_info */
	uint32_t pid, tid;		/* the submitter (queue only) */
	uint64_t ts;			/* its queue, or its end */
	const char *ring;		/* "" when not known */
};

/* Told of every job's queue event and of its end: done, or incomplete (never seen done). */
struct xp_sched_listener {
	void (*queued)(void *ctx, const struct xp_sched_job_ref *j);
	void (*ended)(void *ctx, const struct xp_sched_job_ref *j, bool done);
	void *ctx;
};

#define XP_SCHED_MAX_RINGS 64

struct xp_sched_state {
	struct xp_sched_filter filt;
	uint32_t cap;
	uint64_t max_age_ns;
	struct xp_sched_job *jobs;
	uint32_t *heads, *fheads, nbuckets;	/* key chains, gen-1 fence chains */
	struct xp_sched_done_ent *donec;	/* recent completions, direct-mapped */
	uint32_t free_head, nused;
	struct xp_sched_ring rings[XP_SCHED_MAX_RINGS + 1];	/* the last: "(other)" */
	int nrings;
	struct xp_sched_proc *procs;
	int nprocs, proccap;
	/* totals over everything seen, filters or not */
	uint64_t events, duplicates, unmatched, evicted, missing_run, out_of_order;
	uint64_t inferred;		/* done implied by a later job of the same entity */
	uint64_t open_at_end;		/* of the incomplete: still open when tracing ended */
	uint32_t run_head[XP_SCHED_MAX_RINGS + 1], run_tail[XP_SCHED_MAX_RINGS + 1];
	uint64_t last_ts;
	uint64_t last_expire;		/* xp_sched_feed's last aging pass (trace time) */
	int gen;			/* the generation seen, 0 before the first event */
	void (*on_job)(void *ctx, const struct xp_sched_job_info *j);
	void *cb_ctx;
	struct xp_sched_listener lis;	/* none when lis.queued is NULL */
};

/* cap: jobs tracked at once (rounded up to a power of two); max_age_ns: 0 for 30 s. */
int xp_sched_init(struct xp_sched_state *s, uint32_t cap, uint64_t max_age_ns);
void xp_sched_free(struct xp_sched_state *s);
int xp_sched_add(struct xp_sched_state *s, const struct xp_sched_event *ev);
/*
 * A record as the live command and report take it: decode with `l`, add,
 * and age jobs once a second of trace time. -ENOENT/-EBADMSG: undecodable
 * (the caller counts it), else xp_sched_add's result.
 */
int xp_sched_feed(struct xp_sched_state *s, const struct xp_rawtp_layout *l,
		  const struct xp_rawtp_rec *r);
/* Ends jobs not seen since now - max_age as incomplete. */
void xp_sched_expire(struct xp_sched_state *s, uint64_t now);
/* At the end of a run: every job still open is counted as incomplete. */
void xp_sched_finish(struct xp_sched_state *s, uint64_t now);
/* Starts a new interval: counters and histograms to zero, open jobs kept. */
void xp_sched_reset(struct xp_sched_state *s, uint64_t now);
/* Busy time (union of run→done intervals) up to now. */
uint64_t xp_sched_busy_ns(const struct xp_sched_counts *c, uint64_t now);
/* Jobs open now. */
static inline uint32_t xp_sched_open_jobs(const struct xp_sched_state *s) { return s->nused; }

/* Its record kind (raw gpu_scheduler records (struct xp_rawtp_rec)), for its row. */
extern const struct xp_rec_kind xp_sched_rec_kind;

#endif
