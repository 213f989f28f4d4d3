/* Schedules and blame as Perfetto trace events (src/sim/sim_perfetto.h). */
#include <errno.h>
#include <stdlib.h>

#include "sim/sim_perfetto.h"

void xp_sim_perfetto_schedule(struct xp_perfetto *p, const struct xp_sim_input *in,
			      const struct xp_sim_result *res, const char *label)
{
	char group[32], async[48];

	snprintf(group, sizeof(group), "GPU rings (%s)", label);
	snprintf(async, sizeof(async), "waiting (%s)", label);
	for (uint32_t j = 0; j < in->njobs; j++) {
		const struct xp_sim_job *jb = &in->jobs[j];
		const struct xp_sim_task *t = &in->tasks[jb->task];
		const struct xp_sim_out_job *o = &res->job[j];
		uint64_t start = o->end - jb->cost, id = ++p->next_id;
		uint32_t pid, tid;

		xp_perfetto_track(p, group, jb->ring, in->rings[jb->ring], &pid, &tid);
		xp_perfetto_slice_begin(p, pid, tid, "gpu", t->name, start, jb->cost);
		xp_json_ku64(&p->j, "queued_us", (jb->arrival - p->t0) / 1000);
		xp_json_ku64(&p->j, "wait_ns", start - jb->arrival);
		xp_json_ku64(&p->j, "response_ns", o->end - jb->arrival);
		if (o->overrun)
			xp_json_kbool(&p->j, "overrun", true);
		xp_perfetto_slice_end(p);
		if (start > jb->arrival) {
			xp_perfetto_name(p, t->pid, t->pid, t->comm);
			xp_perfetto_async(p, true, t->pid, t->pid, "sim", async, id, jb->arrival);
			xp_perfetto_async(p, false, t->pid, t->pid, "sim", async, id, start);
		}
	}
}

static uint64_t exec_start(const struct xp_sim_job *j) { return j->rec_done - j->cost; }

static void ring_start_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct xp_sim_job *j = &((const struct xp_sim_input *)ctx)->jobs[i];

	*k1 = j->ring;
	*k2 = exec_start(j);
}

int xp_sim_perfetto_blame(struct xp_perfetto *p, const struct xp_sim_input *in)
{
	struct xp_sim_result rec;
	uint32_t *byring, n = in->njobs;
	int err;

	if ((err = xp_sim_recorded(in, XP_SIM_PRED_HISTORY, &rec)))
		return err;
	xp_sim_perfetto_schedule(p, in, &rec, "recorded");
	xp_sim_result_free(&rec);
	if (!(byring = malloc(((size_t)n + 1) * sizeof(*byring))) ||
	    xp_sim_order(byring, n, ring_start_key, in)) {
		free(byring);
		return -ENOMEM;
	}
	for (uint32_t j = 0; j < n; j++) {
		const struct xp_sim_job *w = &in->jobs[j];
		uint32_t lo = 0, hi = n, pid, tid;

		if (exec_start(w) <= w->arrival)
			continue;
		xp_perfetto_track(p, "GPU rings (recorded)", w->ring, in->rings[w->ring], &pid, &tid);
		/* the first on its ring that started after the wait ends: those before may hold it */
		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;
			const struct xp_sim_job *m = &in->jobs[byring[mid]];

			if (m->ring < w->ring || (m->ring == w->ring && exec_start(m) < exec_start(w)))
				lo = mid + 1;
			else
				hi = mid;
		}
		while (lo-- > 0 && in->jobs[byring[lo]].ring == w->ring) {
			const struct xp_sim_job *h = &in->jobs[byring[lo]];
			uint64_t id;

			if (h->rec_done <= w->arrival)
				break;	/* ended before the wait began: so did all before it */
			if (byring[lo] == j)
				continue;
			id = ++p->next_id;
			xp_perfetto_flow_named(p, "blame", id, true, pid, tid,
					       exec_start(h) > w->arrival ? exec_start(h) : w->arrival);
			xp_perfetto_flow_named(p, "blame", id, false, pid, tid, exec_start(w));
		}
	}
	free(byring);
	return 0;
}
