/* The jobs of a trace file for simulate and analyze (src/sim/simload.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/simload.h"

struct xp_sim_raw {
	uint16_t ring;
	uint32_t pid;
	bool has_client;
	uint64_t client;
	char comm[16];
	uint64_t q, run, done;
	uint8_t ndep;
	struct { uint16_t ring; uint64_t ts; } dep[XP_SIM_DEPS];
};

static int ring_of(struct xp_sim_load *l, const char *name)
{
	char (*n)[XP_SIM_NAME];

	for (uint16_t i = 0; i < l->in.nrings; i++)
		if (!strncmp(l->in.rings[i], name, XP_SIM_NAME - 1))
			return i;
	if (l->in.nrings == UINT16_MAX)
		return -ENOSPC;
	if (!(n = realloc(l->in.rings, ((size_t)l->in.nrings + 1) * sizeof(*n))))
		return -ENOMEM;
	l->in.rings = n;
	snprintf(n[l->in.nrings], XP_SIM_NAME, "%s", name[0] ? name : "?");
	return l->in.nrings++;
}

void xp_sim_load_job(void *ctx, const struct xp_sched_job_info *j)
{
	struct xp_sim_load *l = ctx;
	struct xp_sim_raw *r;
	int ring;

	if (l->err)
		return;
	if (!j->has_queue) {
		l->no_queue++;
		return;
	}
	if (!j->has_run) {
		l->no_run++;
		return;
	}
	if ((ring = ring_of(l, j->ring)) < 0) {
		l->err = ring;
		return;
	}
	if (l->nraw == l->capraw) {
		uint32_t cap = l->capraw ? l->capraw * 2 : 256;
		struct xp_sim_raw *n = realloc(l->raw, (size_t)cap * sizeof(*n));

		if (!n) {
			l->err = -ENOMEM;
			return;
		}
		l->raw = n;
		l->capraw = cap;
	}
	r = &l->raw[l->nraw++];
	memset(r, 0, sizeof(*r));
	r->ring = (uint16_t)ring;
	r->pid = j->pid;
	r->has_client = j->has_client;
	r->client = j->client_id;
	snprintf(r->comm, sizeof(r->comm), "%s", j->comm);
	r->q = j->q_ts;
	r->run = j->run_ts;
	r->done = j->done_ts;
	for (int k = 0; k < j->ndep && k < XP_SIM_DEPS; k++) {
		int dr;

		if (!j->dep[k].known || !j->dep[k].signaled || (dr = ring_of(l, j->dep[k].ring)) < 0)
			continue;
		r->dep[r->ndep].ring = (uint16_t)dr;
		r->dep[r->ndep++].ts = j->dep[k].signal_ts;
	}
}

int xp_sim_load_open(struct xp_sim_load *l, const struct xp_trace_meta *m)
{
	int err;

	memset(l, 0, sizeof(*l));
	xp_rawtp_layout_init(&l->layout, xp_sched_events, XP_TP_SCHED_MAX);
	if (xp_trace_meta_layout(m, XP_REC_SCHED, &l->layout) <= 0) {
		struct xp_rawtp_layout *ml = calloc(1, sizeof(*ml));	/* large */

		/* i915's requests (mem) are jobs too, but their events cannot make a schedule */
		if (ml && !xp_rawtp_layout_init(ml, xp_mem_events, XP_MEM_NEV))
			l->i915_requests = xp_trace_meta_layout(m, XP_REC_MEM, ml) > 0 &&
					   ml->present[XP_MEM_I915_RQ_ADD];
		free(ml);
		return -ENOENT;
	}
	if ((err = xp_sched_init(&l->st, 0, 0)))
		return err;
	l->have_st = true;
	/* Linux 6.x's drm_sched serves each run queue's entities in a list's turn */
	l->in.drm_list_rr = atoi(m->kernel) < 7;
	l->st.filt.pid = m->filter_pid;
	l->st.filt.comm = m->filter_comm[0] ? m->filter_comm : NULL;
	l->st.filt.cgroup = m->filter_cgroup != 0;
	l->st.last_expire = m->start_ns;
	l->st.on_job = xp_sim_load_job;
	l->st.cb_ctx = l;
	return 0;
}

int xp_sim_load_feed(struct xp_sim_load *l, const struct xp_rec_hdr *h)
{
	int err;

	if (h->type != XP_REC_SCHED || !l->have_st)
		return 0;
	err = xp_sched_feed(&l->st, &l->layout, (const struct xp_rawtp_rec *)h);
	if (err == -ENOENT || err == -EBADMSG) {
		l->undecodable++;
		err = 0;
	}
	return err ? err : l->err;
}

int xp_sim_task_match(const struct xp_sim_task *t, const char *key)
{
	char *end;
	unsigned long pid = strtoul(key, &end, 10);

	if (!strcmp(key, t->name))	/* "comm/pid", "comm/pid#client" */
		return 1;
	if (*key && !*end)
		return pid == t->pid;
	return !strncmp(key, t->comm, sizeof(t->comm) - 1);
}

static void q_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct xp_sim_raw *r = &((const struct xp_sim_raw *)ctx)[i];

	*k1 = r->q;
	*k2 = r->run;
}

/* by ring, then done */
static void ring_done_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct xp_sim_raw *r = &((const struct xp_sim_raw *)ctx)[i];

	*k1 = r->ring;
	*k2 = r->done;
}

/* by ring, then run */
static void ring_run_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct xp_sim_raw *r = &((const struct xp_sim_raw *)ctx)[i];

	*k1 = r->ring;
	*k2 = r->run;
}

/*
 * The scheduler's reactions, per ring in run order: each job's time from the
 * moment it could have been handed over (ready, with room on its ring: the
 * job `depth` runs before it done) to its run. The engine hands the k-th job
 * on a ring over the k-th reaction late, so a loaded host's stalls stay
 * where they were, a late first run included. The overhead is their mean.
 */
static int reactions(struct xp_sim_load *l, const uint32_t *byrun)
{
	struct xp_sim_input *in = &l->in;
	uint32_t n = l->nraw, first = 0;
	uint64_t sum = 0;

	in->react = malloc(((size_t)n + 1) * sizeof(*in->react));
	in->react_off = calloc((size_t)in->nrings + 1, sizeof(*in->react_off));
	if (!in->react || !in->react_off)
		return -ENOMEM;
	for (uint32_t k = 0; k < n; k++) {
		const struct xp_sim_raw *r = &l->raw[byrun[k]];
		uint32_t d = in->depth[r->ring] ? in->depth[r->ring] : 1;
		uint64_t from = r->q;

		if (k && l->raw[byrun[k - 1]].ring != r->ring)
			first = k;
		if (k - first >= d && l->raw[byrun[k - d]].done > from)
			from = l->raw[byrun[k - d]].done;	/* it waited for room */
		for (int i = 0; i < r->ndep; i++)
			if (r->dep[i].ts > from)
				from = r->dep[i].ts;
		in->react[k] = r->run > from ? r->run - from : 0;
		sum += in->react[k];
		in->react_off[r->ring + 1] = k + 1;
	}
	for (uint16_t i = 1; i <= in->nrings; i++)
		if (in->react_off[i] < in->react_off[i - 1])
			in->react_off[i] = in->react_off[i - 1];	/* a ring without any */
	in->overhead = n ? sum / n : 0;
	return 0;
}

static void task_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct xp_sim_load *l = ctx;

	*k1 = l->by_client ? l->raw[i].client : l->raw[i].pid;
	*k2 = l->raw[i].pid;
}

/* The tasks, by pid (or client); each raw job's task index into task_of. */
static int build_tasks(struct xp_sim_load *l, uint32_t *task_of)
{
	struct xp_sim_input *in = &l->in;
	uint32_t *idx = malloc(((size_t)l->nraw + 1) * sizeof(*idx));
	uint64_t prev = 0;

	in->tasks = calloc((size_t)l->nraw + 1, sizeof(*in->tasks));
	if (!idx || !in->tasks || xp_sim_order(idx, l->nraw, task_key, l)) {
		free(idx);
		return -ENOMEM;
	}
	for (uint32_t k = 0; k < l->nraw; k++) {
		const struct xp_sim_raw *r = &l->raw[idx[k]];
		uint64_t key = l->by_client ? r->client : r->pid;
		struct xp_sim_task *t;

		if (l->by_client && !r->has_client) {
			free(idx);
			return -ENODATA;
		}
		if (!k || key != prev) {
			t = &in->tasks[in->ntasks++];
			t->pid = r->pid;
			t->has_client = l->by_client;
			t->client = r->client;
		}
		t = &in->tasks[in->ntasks - 1];
		/* the latest name (exec): jobs were collected as they completed */
		memcpy(t->comm, r->comm, sizeof(t->comm));
		task_of[idx[k]] = in->ntasks - 1;
		prev = key;
	}
	for (uint32_t i = 0; i < in->ntasks; i++) {
		struct xp_sim_task *t = &in->tasks[i];

		if (t->has_client)
			snprintf(t->name, sizeof(t->name), "%.15s/%u#%llu", t->comm, t->pid,
				 (unsigned long long)t->client);
		else
			snprintf(t->name, sizeof(t->name), "%.15s/%u", t->comm, t->pid);
	}
	free(idx);
	return 0;
}

int xp_sim_load_build(struct xp_sim_load *l, uint64_t end_ns)
{
	struct xp_sim_input *in = &l->in;
	uint32_t n, *order = NULL, *byring = NULL, *task_of = NULL, *pos = NULL;
	uint64_t *cost = NULL;
	int err = -ENOMEM;

	if (l->have_st)
		xp_sched_finish(&l->st, end_ns);	/* what is still open never completed */
	if (l->err)
		return l->err;
	n = l->nraw;
	order = malloc(((size_t)n + 1) * sizeof(*order));
	byring = malloc(((size_t)n + 1) * sizeof(*byring));
	task_of = malloc(((size_t)n + 1) * sizeof(*task_of));
	pos = malloc(((size_t)n + 1) * sizeof(*pos));
	cost = malloc(((size_t)n + 1) * sizeof(*cost));
	in->jobs = calloc((size_t)n + 1, sizeof(*in->jobs));
	in->depth = calloc((size_t)in->nrings + 1, sizeof(*in->depth));
	if (!order || !byring || !task_of || !pos || !cost || !in->jobs || !in->depth)
		goto out;
	if ((err = build_tasks(l, task_of)))
		goto out;
	if ((err = xp_sim_order(order, n, q_key, l->raw)) || (err = xp_sim_order(byring, n, ring_done_key, l->raw)))
		goto out;
	/*
	 * Per ring in done order: each job's exclusive time on the ring and the
	 * depth (jobs run and not done when one runs).
	 */
	for (uint32_t k = 0; k < n; k++) {
		const struct xp_sim_raw *r = &l->raw[byring[k]];
		uint64_t prev = 0, begin;
		uint32_t inflight = 1;

		if (k && l->raw[byring[k - 1]].ring == r->ring)
			prev = l->raw[byring[k - 1]].done;
		begin = r->run > prev ? r->run : prev;
		cost[byring[k]] = r->done > begin ? r->done - begin : 0;
		for (uint32_t b = k; b-- > 0 && l->raw[byring[b]].ring == r->ring &&
				     l->raw[byring[b]].done > r->run;)
			if (l->raw[byring[b]].run <= r->run)
				inflight++;
		if (inflight > in->depth[r->ring])
			in->depth[r->ring] = inflight;
	}
	if ((err = xp_sim_order(pos, n, ring_run_key, l->raw)) || (err = reactions(l, pos)))
		goto out;
	for (uint32_t k = 0; k < n; k++)
		pos[order[k]] = k;
	for (uint32_t k = 0; k < n; k++) {
		const struct xp_sim_raw *r = &l->raw[order[k]];
		struct xp_sim_job *j = &in->jobs[k];

		j->task = task_of[order[k]];
		j->ring = r->ring;
		j->arrival = r->q;
		j->cost = cost[order[k]];
		j->rec_run = r->run;
		j->rec_done = r->done;
		for (int d = 0; d < r->ndep; d++) {
			/* the job on that ring that was done at that moment */
			uint32_t lo = 0, hi = n;

			while (lo < hi) {
				uint32_t mid = (lo + hi) / 2;
				const struct xp_sim_raw *m = &l->raw[byring[mid]];

				if (m->ring < r->dep[d].ring || (m->ring == r->dep[d].ring && m->done < r->dep[d].ts))
					lo = mid + 1;
				else
					hi = mid;
			}
			if (r->dep[d].ts > j->rec_dep_ready)
				j->rec_dep_ready = r->dep[d].ts;
			if (lo < n && l->raw[byring[lo]].ring == r->dep[d].ring &&
			    l->raw[byring[lo]].done == r->dep[d].ts && byring[lo] != order[k])
				j->dep[j->ndep++] = (int32_t)pos[byring[lo]];
		}
	}
	in->njobs = n;
	err = 0;
out:
	free(order);
	free(byring);
	free(task_of);
	free(pos);
	free(cost);
	return err;
}

void xp_sim_load_free(struct xp_sim_load *l)
{
	if (l->have_st)
		xp_sched_free(&l->st);
	l->have_st = false;
	free(l->raw);
	free(l->in.jobs);
	free(l->in.tasks);
	free(l->in.rings);
	free(l->in.depth);
	free(l->in.react);
	free(l->in.react_off);
	memset(&l->in, 0, sizeof(l->in));
	l->raw = NULL;
}
