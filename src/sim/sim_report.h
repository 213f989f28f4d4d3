/* `xputrace simulate`'s output: the recording's schedule and each policy's, per task. */
#ifndef XP_SIM_SIM_REPORT_H
#define XP_SIM_SIM_REPORT_H

#include <stdio.h>
#include "sim/sim.h"

#define XP_SIM_MAX_RESULTS 8

struct xp_sim_report {
	const char *path;
	const struct xp_sim_input *in;
	struct xp_sim_params params;	/* enforce and predict (policy: per result) */
	bool overhead_measured;		/* not given with --overhead */
	uint64_t left_out;		/* jobs without a queue or run event */
	const char *names[XP_SIM_MAX_RESULTS];	/* "recorded", "fifo", ... */
	struct xp_sim_result res[XP_SIM_MAX_RESULTS];
	int nres;
};

const char *xp_sim_enforce_name(enum xp_sim_enforce e);
const char *xp_sim_predict_name(enum xp_sim_predict p);

void xp_sim_report_text(FILE *f, const struct xp_sim_report *r);
void xp_sim_report_json(FILE *f, const struct xp_sim_report *r);

#endif
