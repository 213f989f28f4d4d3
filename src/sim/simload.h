/*
 * The jobs of a trace file as the what-if scheduler and the analysis take
 * them: the sched capability's joined jobs (src/caps/sched/sched_stats.h),
 * with their process, ring, dependencies and the recording's times.
 *
 *   - arrival: the queue event; cost: the time the ring gave the job, from
 *     its run (or the end of the job before it on the ring, if later) to its
 *     done; jobs without a queue event (queued before the recording) or a
 *     run (its cost is unknown) are left out and counted;
 *   - a task is a process (pid), named comm/pid, or with `by_client` a DRM
 *     client (the events carry its id from Linux 6.17), comm/pid#client;
 *   - a dependency is another job of the file when the scheduler's events
 *     name it (its ring and the moment it signalled);
 *   - a ring's depth is the most jobs between run and done at once;
 *   - the reactions: each job's time from the moment it could have been
 *     handed over (ready, and room on its ring: the job `depth` runs before
 *     it done) to its run, per ring in run order; the overhead is their
 *     mean.
 *
 * i915's requests (recorded by mem) are not taken: their events say when a
 * request was added and when it was retired, which is when the driver reaped
 * it, not when it ran or completed; the events that say so (i915_request_in
 * and _out) exist only in kernels built with
 * CONFIG_DRM_I915_LOW_LEVEL_TRACEPOINTS, which Debian's are not.
 */
#ifndef XP_SIM_SIMLOAD_H
#define XP_SIM_SIMLOAD_H

#include "caps/mem/mem_stats.h"
#include "caps/sched/sched_stats.h"
#include "core/tracefile.h"
#include "sim/sim.h"

struct xp_sim_raw;

struct xp_sim_load {
	struct xp_sched_state st;
	struct xp_rawtp_layout layout;
	bool have_st;
	struct xp_sim_raw *raw;
	uint32_t nraw, capraw;
	uint64_t undecodable;
	uint64_t no_queue, no_run;	/* jobs left out */
	int err;			/* out of memory while collecting */
	bool by_client;			/* tasks are DRM clients (set before building) */
	bool i915_requests;		/* -ENOENT from open: the file has i915 requests (mem) instead */
	/* built */
	struct xp_sim_input in;
};

/*
 * Starts on a file whose metadata is read: its sched layouts and the
 * recording's filters. -ENOENT: the file recorded no sched events.
 */
int xp_sim_load_open(struct xp_sim_load *l, const struct xp_trace_meta *m);
/* One record of the file (records of other types are ignored). 0 or -errno. */
int xp_sim_load_feed(struct xp_sim_load *l, const struct xp_rec_hdr *h);
/* A joined job, as the sched analysis hands it over (its on_job; tests call it alone). */
void xp_sim_load_job(void *l, const struct xp_sched_job_info *j);
/* At the end of the file: builds l->in. 0, -ENOMEM; -ENODATA: by_client, and a job has no client id. */
int xp_sim_load_build(struct xp_sim_load *l, uint64_t end_ns);
void xp_sim_load_free(struct xp_sim_load *l);

/* Whether KEY (of a "KEY=VALUE" setting) names the task: its name (comm/pid[#client]), a pid, else a comm. */
int xp_sim_task_match(const struct xp_sim_task *t, const char *key);

#endif
