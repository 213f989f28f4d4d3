/*
 * drm_sched's own choice of the next job (the drm-fifo, drm-rr and drm-fair
 * policies of src/sim/sim.h), as Linux's drivers/gpu/drm/scheduler makes it.
 *
 * One entity per task per ring (a process, or a DRM client, submits to one
 * entity of each ring). An entity is queued on its ring's run queue while it
 * has jobs waiting; the scheduler hands over the next job of the first ready
 * entity of the first run queue that has one, when the ring has a credit
 * (each job takes one; depth is the credit limit).
 *
 *   - run queues: drm-fifo and drm-rr keep one per priority (kernel, high,
 *     normal, low) and serve them strictly in that order; drm-fair keeps one
 *     for all, the priority weighing the virtual runtime instead;
 *   - drm-fifo (7.x's default): entities by the queue time of their next job;
 *   - drm-rr as 7.x makes it: an entity that stays queued after a hand-over
 *     goes behind every other (its ring's counter, +1); one that comes back
 *     to the queue takes its last place again;
 *     as 6.x makes it (`list_rr`): the entities of a run queue in the order
 *     of their first job, served in turn after the one served last;
 *   - drm-fair (7.x, sched_policy=2): entities by virtual runtime, the time
 *     their jobs took on the ring (counted when a job completes) shifted
 *     left by 1, 2, 4 or 7 for kernel, high, normal and low. It is brought
 *     up to date when a job is handed over and the entity stays queued. An
 *     entity that leaves the queue keeps its runtime less the least one
 *     queued (0 when not more); coming back it gets that plus the least
 *     queued; if it kept 0 and others are queued, it goes behind the head
 *     when its priority is lower ((1 + its average job + the ring's
 *     average job, in µs) << its shift, as µs), before it when higher (by
 *     the priorities' difference, ns), and by 1 ns either side of it when
 *     equal (before it if its jobs are no longer than the ring's average).
 *     The averages are the kernel's EWMA (weight 1/4) of the jobs' µs.
 *
 * Ties between equal keys: the entity queued earlier first (an rbtree puts
 * an equal key after those already in it). The engine (sim.c) lets these
 * policies see the jobs that arrive within the next reaction, as the
 * kernel's worker, running that much later, does.
 */
#ifndef XP_SIM_SIM_DRM_H
#define XP_SIM_SIM_DRM_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim.h"

struct xp_sim_drm;

/* NULL on -ENOMEM; `policy` is one of the XP_SIM_DRM_* */
struct xp_sim_drm *xp_sim_drm_new(const struct xp_sim_input *in, enum xp_sim_policy policy);
void xp_sim_drm_free(struct xp_sim_drm *d);

/* Task t's entity on ring r gets a job while it had none queued; ts: the job's queue time. */
void xp_sim_drm_push(struct xp_sim_drm *d, uint16_t r, uint32_t t, uint64_t ts);
/* A job of the entity was handed over; more: it has another queued, queued at next_ts. */
void xp_sim_drm_pop(struct xp_sim_drm *d, uint16_t r, uint32_t t, bool more, uint64_t next_ts);
/* A job of the entity completed after `cost` ns on the ring. */
void xp_sim_drm_done(struct xp_sim_drm *d, uint16_t r, uint32_t t, uint64_t cost);
/*
 * The task whose entity goes next on ring r, among those ready(ctx, t) says
 * may; -1: none. The ring must have a credit free.
 */
int64_t xp_sim_drm_select(struct xp_sim_drm *d, uint16_t r, bool (*ready)(void *ctx, uint32_t t),
			  void *ctx);

#endif
