#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/sched/sched_stats.h"
#include "core/tracefile.h"

const struct xp_rec_kind xp_sched_rec_kind = {
	.type = XP_REC_SCHED, .min_size = sizeof(struct xp_rawtp_rec), .name = "sched",
};

int xp_sched_feed(struct xp_sched_state *s, const struct xp_rawtp_layout *l,
		  const struct xp_rawtp_rec *r)
{
	struct xp_sched_event ev;
	int err = xp_sched_decode(l, r, &ev);

	if (err)
		return err;
	err = xp_sched_add(s, &ev);
	/* age jobs whose end was never seen, once a second of trace time */
	if (ev.ts > s->last_expire + 1000000000ULL) {
		xp_sched_expire(s, ev.ts);
		s->last_expire = ev.ts;
	}
	return err;
}

/* ---- the job table ---- */

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

static uint32_t hash64(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL) * 0xc2b2ae3d27d4eb4fULL;

	h ^= h >> 31;
	h *= 0x94d049bb133111ebULL;
	return (uint32_t)(h ^ (h >> 29));
}

int xp_sched_init(struct xp_sched_state *s, uint32_t cap, uint64_t max_age_ns)
{
	uint32_t n = 16;

	memset(s, 0, sizeof(*s));
	if (!cap)
		cap = 16384;
	while (n < cap && n < (1u << 24))
		n <<= 1;
	s->cap = n;
	s->nbuckets = n;
	s->max_age_ns = max_age_ns ? max_age_ns : 30ULL * 1000000000ULL;
	s->jobs = calloc(n, sizeof(*s->jobs));
	s->heads = calloc(n, sizeof(*s->heads));
	s->fheads = calloc(n, sizeof(*s->fheads));
	s->donec = calloc(XP_SCHED_DONE_CACHE, sizeof(*s->donec));
	if (!s->jobs || !s->heads || !s->fheads || !s->donec) {
		xp_sched_free(s);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		s->jobs[i].next = i + 2 <= n ? i + 2 : 0;	/* the free list */
	s->free_head = 1;
	return 0;
}

void xp_sched_free(struct xp_sched_state *s)
{
	free(s->jobs);
	free(s->heads);
	free(s->fheads);
	free(s->donec);
	free(s->procs);
	s->donec = NULL;
	s->jobs = NULL;
	s->heads = s->fheads = NULL;
	s->procs = NULL;
}

static struct xp_sched_job *J(struct xp_sched_state *s, uint32_t i) { return &s->jobs[i - 1]; }

static uint32_t find(struct xp_sched_state *s, uint8_t gen, uint64_t k1, uint64_t k2)
{
	uint32_t i = s->heads[hash64(k1, k2 ^ gen) & (s->nbuckets - 1)];

	for (; i; i = J(s, i)->next)
		if (J(s, i)->gen == gen && J(s, i)->k1 == k1 && J(s, i)->k2 == k2)
			return i;
	return 0;
}

static uint32_t find_fence(struct xp_sched_state *s, uint64_t fence)
{
	uint32_t i = s->fheads[hash64(fence, 0) & (s->nbuckets - 1)];

	for (; i; i = J(s, i)->fnext)
		if (J(s, i)->fence == fence)
			return i;
	return 0;
}

static void unlink_chain(uint32_t *head, struct xp_sched_state *s, uint32_t idx, bool fence)
{
	uint32_t *p = head;

	while (*p) {
		struct xp_sched_job *j = J(s, *p);

		if (*p == idx) {
			*p = fence ? j->fnext : j->next;
			return;
		}
		p = fence ? &j->fnext : &j->next;
	}
}

static void set_fence(struct xp_sched_state *s, uint32_t idx, uint64_t fence)
{
	struct xp_sched_job *j = J(s, idx);
	uint32_t *h;

	if (j->fence == fence)
		return;
	if (j->fence)
		unlink_chain(&s->fheads[hash64(j->fence, 0) & (s->nbuckets - 1)], s, idx, true);
	j->fence = fence;
	j->fnext = 0;
	if (!fence)
		return;
	h = &s->fheads[hash64(fence, 0) & (s->nbuckets - 1)];
	j->fnext = *h;
	*h = idx;
}

static void release(struct xp_sched_state *s, uint32_t idx)
{
	struct xp_sched_job *j = J(s, idx);

	if (j->flags & J_ONRUNLIST) {
		int r = j->ring >= 0 ? j->ring : XP_SCHED_MAX_RINGS;

		if (j->rprev)
			J(s, j->rprev)->rnext = j->rnext;
		else
			s->run_head[r] = j->rnext;
		if (j->rnext)
			J(s, j->rnext)->rprev = j->rprev;
		else
			s->run_tail[r] = j->rprev;
	}
	set_fence(s, idx, 0);
	unlink_chain(&s->heads[hash64(j->k1, j->k2 ^ j->gen) & (s->nbuckets - 1)], s, idx, false);
	memset(j, 0, sizeof(*j));
	j->next = s->free_head;
	s->free_head = idx;
	s->nused--;
}

/* ---- rings, processes, counters ---- */

static int ring_idx(struct xp_sched_state *s, const char *name)
{
	for (int i = 0; i < s->nrings; i++)
		if (!strcmp(s->rings[i].name, name))
			return i;
	if (s->nrings < XP_SCHED_MAX_RINGS) {
		snprintf(s->rings[s->nrings].name, XP_SCHED_STR, "%s", name);
		return s->nrings++;
	}
	strcpy(s->rings[XP_SCHED_MAX_RINGS].name, "(other)");
	return XP_SCHED_MAX_RINGS;
}

static int proc_idx(struct xp_sched_state *s, const struct xp_sched_event *ev)
{
	for (int i = 0; i < s->nprocs; i++) {
		struct xp_sched_proc *p = &s->procs[i];

		if (p->pid == ev->pid && p->has_client == ev->has_client &&
		    p->client_id == ev->client_id) {
			memcpy(p->comm, ev->comm, XP_COMM_LEN);	/* the latest name (exec) */
			return i;
		}
	}
	if (s->nprocs == s->proccap) {
		int cap = s->proccap ? s->proccap * 2 : 16;
		struct xp_sched_proc *n = realloc(s->procs, (size_t)cap * sizeof(*n));

		if (!n)
			return -1;
		s->procs = n;
		s->proccap = cap;
	}
	memset(&s->procs[s->nprocs], 0, sizeof(s->procs[0]));
	s->procs[s->nprocs].pid = ev->pid;
	memcpy(s->procs[s->nprocs].comm, ev->comm, XP_COMM_LEN);
	s->procs[s->nprocs].has_client = ev->has_client;
	s->procs[s->nprocs].client_id = ev->client_id;
	return s->nprocs++;
}

/* Does this job pass the filters? Unknown process: only without process filters. */
static bool match(const struct xp_sched_state *s, const struct xp_sched_job *j)
{
	if (s->filt.ring && (j->ring < 0 || strcmp(s->rings[j->ring].name, s->filt.ring)))
		return false;
	if (!s->filt.pid && !s->filt.comm && !s->filt.cgroup)
		return true;
	if (!(j->flags & J_PROC))
		return false;
	if (s->filt.pid && j->pid != s->filt.pid)
		return false;
	if (s->filt.comm && strncmp(j->comm, s->filt.comm, XP_COMM_LEN - 1))
		return false;
	return true;
}

/* Calls fn on the ring and process counters of a job that passes the filters. */
#define FOR_COUNTS(s, j, c, body)                                                      \
	do {                                                                           \
		if (match(s, j)) {                                                     \
			struct xp_sched_counts *c;                                     \
			if ((j)->ring >= 0) {                                          \
				c = &(s)->rings[(j)->ring].c;                          \
				body;                                                  \
			}                                                              \
			if ((j)->proc >= 0) {                                          \
				c = &(s)->procs[(j)->proc].c;                          \
				body;                                                  \
			}                                                              \
		}                                                                      \
	} while (0)

static void gauge_max(struct xp_sched_counts *c)
{
	if (c->pending > c->max_pending)
		c->max_pending = c->pending;
	if (c->inflight > c->max_inflight)
		c->max_inflight = c->inflight;
}

static void run_start(struct xp_sched_counts *c, uint64_t ts)
{
	if (c->running++ == 0)
		c->busy_since = ts;
}

static void run_end(struct xp_sched_counts *c, uint64_t ts)
{
	if (c->running <= 0)
		return;
	if (--c->running == 0 && ts > c->busy_since)
		c->busy_ns += ts - c->busy_since;
}

uint64_t xp_sched_busy_ns(const struct xp_sched_counts *c, uint64_t now)
{
	return c->busy_ns + (c->running > 0 && now > c->busy_since ? now - c->busy_since : 0);
}

/* Counts a job in (+1) or out (-1) of the pending or running gauges it passes. */
static void gauge(struct xp_sched_state *s, struct xp_sched_job *j, bool running, int d,
		  uint64_t ts)
{
	uint16_t br = running ? J_RUN_R : J_PEND_R, bp = running ? J_RUN_P : J_PEND_P;
	struct xp_sched_counts *cs[2] = { NULL, NULL };
	uint16_t bits[2] = { br, bp };

	if (d > 0 && match(s, j)) {
		if (j->ring >= 0 && !(j->flags & br))
			cs[0] = &s->rings[j->ring].c;
		if (j->proc >= 0 && !(j->flags & bp))
			cs[1] = &s->procs[j->proc].c;
	} else if (d < 0) {
		if (j->flags & br)
			cs[0] = &s->rings[j->ring].c;
		if (j->flags & bp)
			cs[1] = &s->procs[j->proc].c;
	}
	for (int k = 0; k < 2; k++) {
		struct xp_sched_counts *c = cs[k];

		if (!c)
			continue;
		if (d > 0)
			j->flags |= bits[k];
		else
			j->flags &= (uint16_t)~bits[k];
		if (running) {
			c->inflight += d;
			if (d > 0)
				run_start(c, ts);
			else
				run_end(c, ts);
		} else {
			c->pending += d;
		}
		gauge_max(c);
	}
}

static void ungauge(struct xp_sched_state *s, struct xp_sched_job *j, uint64_t ts)
{
	gauge(s, j, false, -1, ts);
	gauge(s, j, true, -1, ts);
}

static struct xp_sched_done_ent *done_slot(struct xp_sched_state *s, uint8_t gen, uint64_t a, uint64_t b)
{
	return &s->donec[hash64(a, b ^ gen) & (XP_SCHED_DONE_CACHE - 1)];
}

/* A job completed: remembered for the jobs that depend on its finished fence. */
static void remember_done(struct xp_sched_state *s, const struct xp_sched_job *j, uint64_t ts)
{
	uint64_t a = j->gen == 1 ? j->fence : j->k1, b = j->gen == 1 ? 0 : j->k2;
	struct xp_sched_done_ent *e;

	if (j->gen == 1 && !a)
		return;
	e = done_slot(s, j->gen, a, b);
	*e = (struct xp_sched_done_ent){ .a = a, .b = b, .ts = ts, .ring = j->ring, .gen = j->gen,
					 .pid = j->pid };
}

/* What is known of a dependency: the job it is (open now, or done recently). */
static void resolve_dep(struct xp_sched_state *s, uint8_t gen, struct xp_sched_dep *d)
{
	const struct xp_sched_done_ent *e;
	uint32_t idx;

	if (d->done_ts)
		return;
	e = done_slot(s, gen, d->a, d->b);
	/* up to 6.16 the key is an address: an older job's completion there is not it */
	if (e->ts && e->ts >= d->since && e->gen == gen && e->a == d->a && e->b == d->b) {
		d->done_ts = e->ts;
		d->ring = e->ring;
		d->pid = e->pid;
		return;
	}
	if (d->ring >= 0 || !d->a)
		return;
	idx = gen == 1 ? find_fence(s, d->a) : find(s, 2, d->a, d->b);
	if (idx && J(s, idx)->ring >= 0) {
		d->ring = J(s, idx)->ring;
		d->pid = J(s, idx)->pid;
	}
}

/*
 * Resolves every kept dependency; when all of them (and no more than were
 * kept) were seen signalled, the moment the last one did is dep_ready_ts.
 */
static void deps_ready(struct xp_sched_state *s, struct xp_sched_job *j)
{
	uint64_t ready = 0;
	bool all = j->ndep && j->ndep == j->deps;

	if (j->flags & J_DEPREADY)
		return;
	for (int i = 0; i < j->ndep; i++) {
		resolve_dep(s, j->gen, &j->dep[i]);
		all = all && j->dep[i].done_ts;
		if (j->dep[i].done_ts > ready)
			ready = j->dep[i].done_ts;
	}
	if (all) {
		j->dep_ready_ts = ready;
		j->flags |= J_DEPREADY;
	}
}

/* The dependency wait of a job that ran, and whether it is exact. */
static bool dep_wait(const struct xp_sched_job *j, uint64_t *ns)
{
	if ((j->flags & (J_DEPREADY | J_QUEUED)) == (J_DEPREADY | J_QUEUED)) {
		*ns = j->dep_ready_ts > j->q_ts ? j->dep_ready_ts - j->q_ts : 0;
		return true;
	}
	*ns = j->run_ts > j->wait_ts ? j->run_ts - j->wait_ts : 0;
	return false;
}

/* A job ends: counted as done (complete) or incomplete, then forgotten. */
static void end_job(struct xp_sched_state *s, uint32_t idx, uint64_t ts, bool complete)
{
	struct xp_sched_job *j = J(s, idx);

	ungauge(s, j, ts);
	FOR_COUNTS(s, j, c, (c->deps += j->deps, c->unsched += j->unsched,
			     c->waited += j->wait_ts != 0));
	if (complete) {
		struct xp_sched_job_info info = {
			.gen = j->gen,
			.ring = j->ring >= 0 ? s->rings[j->ring].name : "",
			.pid = j->pid, .tid = j->tid,
			.k1 = j->k1, .k2 = j->k2,
			.has_queue = j->flags & J_QUEUED, .has_run = j->flags & J_RUN,
			.q_ts = j->q_ts, .run_ts = j->run_ts, .done_ts = ts,
			.deps = j->deps, .unsched = j->unsched,
			.inferred = j->flags & J_INFERRED,
		};

		memcpy(info.comm, j->comm, XP_COMM_LEN);
		if (j->proc >= 0) {
			info.has_client = s->procs[j->proc].has_client;
			info.client_id = s->procs[j->proc].client_id;
		}
		deps_ready(s, j);
		if ((j->flags & J_RUN) && ((j->flags & J_DEPREADY) || j->wait_ts)) {
			info.has_depwait = true;
			info.depwait_exact = dep_wait(j, &info.depwait_ns);
		}
		info.ndep = j->ndep;
		for (int i = 0; i < j->ndep; i++) {
			const struct xp_sched_dep *d = &j->dep[i];

			info.dep[i] = (struct xp_sched_dep_info){
				.ctx = d->ctx, .seqno = d->seqno, .known = d->ring >= 0,
				.ring = d->ring >= 0 ? s->rings[d->ring].name : "", .pid = d->pid,
				.signaled = d->done_ts != 0, .signal_ts = d->done_ts,
			};
		}
		if (!(j->flags & J_RUN))
			s->missing_run++;
		if (j->flags & J_INFERRED) {
			s->inferred++;
			info.has_run = false;	/* its execution time is unknown */
		}
		FOR_COUNTS(s, j, c, c->done++);
		remember_done(s, j, ts);
		if ((j->flags & J_RUN) && !(j->flags & J_INFERRED)) {
			uint64_t exec = ts > j->run_ts ? ts - j->run_ts : 0;

			if (ts < j->run_ts)
				s->out_of_order++;
			FOR_COUNTS(s, j, c, xp_hist_add(&c->exec, exec));
		}
		if (s->on_job && match(s, j))
			s->on_job(s->cb_ctx, &info);
	} else {
		s->evicted++;
		FOR_COUNTS(s, j, c, c->incomplete++);
	}
	release(s, idx);
}

/*
 * A job's finished fence signals only after those of the jobs its entity
 * ran before it (a fence context signals in order), so when its done
 * arrives, the entity's jobs that ran earlier and are still open have
 * completed too: their done was lost. That happens with classic
 * tracepoints when the done (hard interrupt) lands on a CPU while another
 * BPF program runs there: the kernel skips the nested program.
 */
static void infer_earlier(struct xp_sched_state *s, uint32_t idx, uint64_t ts)
{
	struct xp_sched_job *x = J(s, idx);
	int r = x->ring >= 0 ? x->ring : XP_SCHED_MAX_RINGS;
	uint32_t i, next;

	if (!(x->flags & J_ONRUNLIST) || !x->entity)
		return;
	for (i = s->run_head[r]; i && i != idx; i = next) {
		struct xp_sched_job *j = J(s, i);

		next = j->rnext;
		if (j->entity == x->entity && j->gen == x->gen) {
			j->flags |= J_INFERRED;
			end_job(s, i, ts, true);
		}
	}
}

static uint32_t oldest(struct xp_sched_state *s)
{
	uint32_t best = 0;

	for (uint32_t i = 1; i <= s->cap; i++)
		if (J(s, i)->used && (!best || J(s, i)->last_ts < J(s, best)->last_ts))
			best = i;
	return best;
}

static uint32_t create(struct xp_sched_state *s, uint8_t gen, uint64_t k1, uint64_t k2,
		       uint64_t ts)
{
	struct xp_sched_job *j;
	uint32_t idx, *h;

	if (!s->free_head)
		end_job(s, oldest(s), ts, false);	/* full: the stalest job gives way */
	idx = s->free_head;
	j = J(s, idx);
	s->free_head = j->next;
	memset(j, 0, sizeof(*j));
	j->used = 1;
	j->gen = gen;
	j->k1 = k1;
	j->k2 = k2;
	j->ring = -1;
	j->proc = -1;
	j->last_ts = ts;
	h = &s->heads[hash64(k1, k2 ^ gen) & (s->nbuckets - 1)];
	j->next = *h;
	*h = idx;
	s->nused++;
	return idx;
}

static void qdelay(struct xp_sched_state *s, struct xp_sched_job *j)
{
	uint64_t d;

	if ((j->flags & (J_QUEUED | J_RUN)) != (J_QUEUED | J_RUN) || (j->flags & J_QDELAY))
		return;
	j->flags |= J_QDELAY;
	if (j->run_ts < j->q_ts)
		s->out_of_order++;
	d = j->run_ts > j->q_ts ? j->run_ts - j->q_ts : 0;
	FOR_COUNTS(s, j, c, xp_hist_add(&c->qdelay, d));
	deps_ready(s, j);
	if ((j->flags & J_DEPREADY) || j->wait_ts) {
		dep_wait(j, &d);
		FOR_COUNTS(s, j, c, xp_hist_add(&c->depwait, d));
	}
}

static void counts_from_event(struct xp_sched_state *s, struct xp_sched_job *j,
			      const struct xp_sched_event *ev)
{
	if (!ev->has_counts)
		return;
	FOR_COUNTS(s, j, c, ({
		c->last_job_count = ev->job_count;
		c->last_hw_job_count = ev->hw_job_count;
		if (ev->job_count > c->max_job_count)
			c->max_job_count = ev->job_count;
		if (ev->hw_job_count > c->max_hw_job_count)
			c->max_hw_job_count = ev->hw_job_count;
	}));
}

/* A queue event: the job's process, its place in the counts, the pending gauge. */
static void on_queue(struct xp_sched_state *s, struct xp_sched_job *j, uint32_t idx,
		     const struct xp_sched_event *ev)
{
	if (j->flags & J_QUEUED) {
		s->duplicates++;
		return;
	}
	j->flags |= J_QUEUED;
	j->q_ts = ev->ts;
	if (!(j->flags & J_PROC)) {
		int p = proc_idx(s, ev);

		j->flags |= J_PROC;
		j->pid = ev->pid;
		j->tid = ev->tid;
		memcpy(j->comm, ev->comm, XP_COMM_LEN);
		j->proc = p;
		/* a run seen before its queue was counted without the process */
		if (j->flags & J_RUNNING)
			gauge(s, j, true, +1, j->run_ts);
	}
	if (ev->gen == 1)
		set_fence(s, idx, ev->fence);
	FOR_COUNTS(s, j, c, c->queued++);
	counts_from_event(s, j, ev);
	if (!(j->flags & J_RUN))
		gauge(s, j, false, +1, ev->ts);
	qdelay(s, j);
}

/* A run event: pending to in flight, and the job joins its ring's run list. */
static void on_run(struct xp_sched_state *s, struct xp_sched_job *j, uint32_t idx,
		   const struct xp_sched_event *ev)
{
	if (j->flags & J_RUN) {
		s->duplicates++;
		return;
	}
	gauge(s, j, false, -1, ev->ts);
	j->flags |= J_RUN | J_RUNNING;
	j->run_ts = ev->ts;
	if (ev->gen == 1)
		set_fence(s, idx, ev->fence);
	FOR_COUNTS(s, j, c, c->run++);
	gauge(s, j, true, +1, ev->ts);
	if (!(j->flags & J_ONRUNLIST)) {
		int rr = j->ring >= 0 ? j->ring : XP_SCHED_MAX_RINGS;

		j->flags |= J_ONRUNLIST;
		j->rprev = s->run_tail[rr];
		j->rnext = 0;
		if (s->run_tail[rr])
			J(s, s->run_tail[rr])->rnext = idx;
		else
			s->run_head[rr] = idx;
		s->run_tail[rr] = idx;
	}
	counts_from_event(s, j, ev);
	qdelay(s, j);
}

/* A dependency: named by a traced job when it is one, its wait started. */
static void on_dep(struct xp_sched_state *s, struct xp_sched_job *j, uint32_t idx,
		   const struct xp_sched_event *ev)
{
	if (j->ndep < XP_SCHED_DEPS) {
		struct xp_sched_dep *d = &j->dep[j->ndep++];
		uint32_t dj;

		*d = (struct xp_sched_dep){ .a = ev->gen == 1 ? ev->dep_fence : ev->dep_ctx,
					    .b = ev->gen == 1 ? 0 : ev->dep_seqno,
					    .ctx = ev->dep_ctx, .seqno = ev->dep_seqno, .ring = -1 };
		dj = !d->a ? 0 : ev->gen == 1 ? find_fence(s, d->a) : find(s, 2, d->a, d->b);
		if (dj && dj != idx) {
			/* still open: its completion is yet to come */
			d->since = ev->ts;
			d->ring = J(s, dj)->ring;
			d->pid = J(s, dj)->pid;
		} else {
			resolve_dep(s, ev->gen, d);	/* done recently, perhaps */
		}
	}
	j->deps++;
	if (ev->gen == 1 && !j->wait_ts && !(j->flags & J_RUN))
		j->wait_ts = ev->ts;	/* 6.16-: taken by the scheduler, waited on until run */
}

/* A done event: the job it ends, and the earlier ones of its entity it implies. */
static void on_done(struct xp_sched_state *s, uint64_t k1, uint64_t k2, const struct xp_sched_event *ev)
{
	uint32_t idx = ev->gen == 1 ? find_fence(s, ev->fence) : find(s, 2, k1, k2);

	if (!idx) {
		s->unmatched++;	/* queued before we started, or a duplicate */
		return;
	}
	infer_earlier(s, idx, ev->ts);
	end_job(s, idx, ev->ts, true);
}

/* 6.1 reuses a freed fence's address: a job still holding it lost its done. */
static void fence_reused(struct xp_sched_state *s, uint32_t idx, const struct xp_sched_event *ev)
{
	uint32_t other = find_fence(s, ev->fence);

	if (other && other != idx) {
		/* its fence was freed, so it completed; only its done was lost */
		bool ran = J(s, other)->flags & J_RUN;

		J(s, other)->flags |= J_INFERRED;
		end_job(s, other, ev->ts, ran);
	}
}

int xp_sched_add(struct xp_sched_state *s, const struct xp_sched_event *ev)
{
	int ring = ev->ring[0] ? ring_idx(s, ev->ring) : -1;
	/* the job's key: ring and job id up to 6.16, fence context and seqno from 6.17 */
	uint64_t k1 = ev->gen == 1 ? (ring >= 0 ? (uint64_t)ring : 0) : ev->ctx;
	uint64_t k2 = ev->gen == 1 ? ev->job_id : ev->seqno;
	struct xp_sched_job *j;
	uint32_t idx;

	s->events++;
	if (!s->gen)
		s->gen = ev->gen;
	if (ev->ts > s->last_ts)
		s->last_ts = ev->ts;
	if (ev->kind == XP_SCHED_DONE) {
		on_done(s, k1, k2, ev);
		return 0;
	}
	idx = find(s, ev->gen, k1, k2);
	if (ev->gen == 1 && (ev->kind == XP_SCHED_QUEUE || ev->kind == XP_SCHED_RUN))
		fence_reused(s, idx, ev);
	if (!idx)
		idx = create(s, ev->gen, k1, k2, ev->ts);
	j = J(s, idx);
	j->last_ts = ev->ts;
	if (j->ring < 0 && ring >= 0 && !(j->flags & J_ONRUNLIST)) {
		/* a job that waited in the table for its ring (6.17 deps before queue) */
		j->ring = (int16_t)ring;
	}
	if (!j->entity && (ev->kind == XP_SCHED_QUEUE || ev->kind == XP_SCHED_RUN))
		j->entity = ev->gen == 1 ? ev->entity : ev->ctx;
	switch (ev->kind) {
	case XP_SCHED_QUEUE: on_queue(s, j, idx, ev); break;
	case XP_SCHED_RUN: on_run(s, j, idx, ev); break;
	case XP_SCHED_DEP: on_dep(s, j, idx, ev); break;
	case XP_SCHED_UNSCHED:
		j->unsched++;
		if (!j->wait_ts && !(j->flags & J_RUN))
			j->wait_ts = ev->ts;
		break;
	case XP_SCHED_DONE:
		break;
	}
	return 0;
}

void xp_sched_expire(struct xp_sched_state *s, uint64_t now)
{
	if (now < s->max_age_ns)
		return;
	for (uint32_t i = 1; i <= s->cap; i++)
		if (J(s, i)->used && J(s, i)->last_ts < now - s->max_age_ns)
			end_job(s, i, now, false);
}

void xp_sched_finish(struct xp_sched_state *s, uint64_t now)
{
	for (uint32_t i = 1; i <= s->cap; i++)
		if (J(s, i)->used) {
			s->open_at_end++;
			end_job(s, i, now, false);
		}
}

static void reset_counts(struct xp_sched_counts *c, uint64_t now)
{
	struct xp_sched_counts keep = *c;

	memset(c, 0, sizeof(*c));
	c->pending = keep.pending;
	c->inflight = keep.inflight;
	c->max_pending = keep.pending;
	c->max_inflight = keep.inflight;
	c->last_job_count = c->max_job_count = keep.last_job_count;
	c->last_hw_job_count = c->max_hw_job_count = keep.last_hw_job_count;
	c->running = keep.running;
	c->busy_since = keep.running > 0 ? now : 0;
}

void xp_sched_reset(struct xp_sched_state *s, uint64_t now)
{
	for (int i = 0; i <= XP_SCHED_MAX_RINGS; i++)
		reset_counts(&s->rings[i].c, now);
	for (int i = 0; i < s->nprocs; i++)
		reset_counts(&s->procs[i].c, now);
	s->events = s->duplicates = s->unmatched = s->evicted = 0;
	s->missing_run = s->out_of_order = s->inferred = s->open_at_end = 0;
}
