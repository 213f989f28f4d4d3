/*
 * simulate's and analyze's --perfetto: schedules as Chrome trace-event JSON
 * (src/sinks/perfetto.h). Each schedule is a group of tracks, one per ring
 * ("GPU rings (fifo)": "gfx"), each job a slice named after its task from
 * its start to its end on the ring; each job's wait (queue -> start) an
 * async span on its process's track; analyze adds, for every job that
 * waited, an arrow ("blame") from each job that held its ring meanwhile.
 */
#ifndef XP_SIM_SIM_PERFETTO_H
#define XP_SIM_SIM_PERFETTO_H

#include "sim/sim.h"
#include "sinks/perfetto.h"

/* One schedule (a result of xp_sim_run or xp_sim_recorded) as the group "GPU rings (LABEL)". */
void xp_sim_perfetto_schedule(struct xp_perfetto *p, const struct xp_sim_input *in,
			      const struct xp_sim_result *res, const char *label);
/* The recorded schedule with its blame arrows. 0, -ENOMEM. */
int xp_sim_perfetto_blame(struct xp_perfetto *p, const struct xp_sim_input *in);

#endif
