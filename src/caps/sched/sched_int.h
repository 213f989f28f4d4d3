/* Between the files of the sched analysis only: the job table's types, not part of its interface. */
#ifndef XP_CAPS_SCHED_SCHED_INT_H
#define XP_CAPS_SCHED_SCHED_INT_H

#include "caps/sched/sched_stats.h"

enum {
	J_QUEUED = 1 << 0,	/* its queue event was seen */
	J_RUN = 1 << 1,		/* its run event was seen */
	J_PROC = 1 << 2,	/* process known */
	J_QDELAY = 1 << 3,	/* queue delay sampled */
	J_RUNNING = 1 << 4,	/* run, not done */
	J_ONRUNLIST = 1 << 5,	/* on its ring's list of running jobs */
	J_INFERRED = 1 << 6,	/* completed by inference */
	J_DEPREADY = 1 << 7,	/* every dependency's signal time known: dep_ready_ts */
	/* which gauges the job is counted in, so that it leaves exactly those */
	J_PEND_R = 1 << 8, J_PEND_P = 1 << 9, J_RUN_R = 1 << 10, J_RUN_P = 1 << 11,
};

struct xp_sched_job {
	uint32_t next, fnext;	/* 1-based chain links; 0 ends a chain */
	uint32_t rprev, rnext;	/* the ring's running jobs, in run order */
	uint64_t entity;	/* jobs of one entity complete in order */
	uint8_t used, gen;
	uint16_t flags;
	int16_t ring;		/* -1: not known yet */
	int32_t proc;		/* -1: not known */
	uint64_t k1, k2, fence;
	uint64_t q_ts, run_ts, wait_ts, last_ts, dep_ready_ts;
	uint32_t deps, unsched;
	uint8_t ndep;
	struct xp_sched_dep {
		uint64_t a, b;		/* gen 2: context, seqno; gen 1: fence address, 0 */
		uint64_t done_ts;	/* 0: not seen signalled */
		uint64_t since;		/* open when named: only a later completion is it */
		uint64_t ctx, seqno;	/* as the event gave them */
		int16_t ring;		/* -1: not a job we know */
		uint32_t pid;
	} dep[XP_SCHED_DEPS];
	uint32_t pid, tid;
	char comm[XP_COMM_LEN];
};

/* a completed job, remembered for the jobs that depend on it */
struct xp_sched_done_ent {
	uint64_t a, b, ts;
	int16_t ring;
	uint8_t gen;
	uint32_t pid;
};
#define XP_SCHED_DONE_CACHE 4096

uint32_t sch_hash64(uint64_t a, uint64_t b);
static inline struct xp_sched_job *sch_J(struct xp_sched_state *s, uint32_t i) { return &s->jobs[i - 1]; }
uint32_t sch_find(struct xp_sched_state *s, uint8_t gen, uint64_t k1, uint64_t k2);
uint32_t sch_find_fence(struct xp_sched_state *s, uint64_t fence);
void sch_set_fence(struct xp_sched_state *s, uint32_t idx, uint64_t fence);
void sch_release(struct xp_sched_state *s, uint32_t idx);
void sch_remember_done(struct xp_sched_state *s, const struct xp_sched_job *j, uint64_t ts);
void sch_resolve_dep(struct xp_sched_state *s, uint8_t gen, struct xp_sched_dep *d);
void sch_deps_ready(struct xp_sched_state *s, struct xp_sched_job *j);
bool sch_dep_wait(const struct xp_sched_job *j, uint64_t *ns);

#endif
