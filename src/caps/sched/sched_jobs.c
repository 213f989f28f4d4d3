/* sched: the job table (jobs by key and by fence, chains, release) and what jobs depend on (recent completions, dependency waits) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "caps/sched/sched_stats.h"
#include "core/tracefile.h"
#include "caps/sched/sched_int.h"
#include "caps/sched/sched_int.h"

/* ---- the job table ---- */


uint32_t sch_hash64(uint64_t a, uint64_t b)
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

uint32_t sch_find(struct xp_sched_state *s, uint8_t gen, uint64_t k1, uint64_t k2)
{
	uint32_t i = s->heads[sch_hash64(k1, k2 ^ gen) & (s->nbuckets - 1)];

	for (; i; i = sch_J(s, i)->next)
		if (sch_J(s, i)->gen == gen && sch_J(s, i)->k1 == k1 && sch_J(s, i)->k2 == k2)
			return i;
	return 0;
}

uint32_t sch_find_fence(struct xp_sched_state *s, uint64_t fence)
{
	uint32_t i = s->fheads[sch_hash64(fence, 0) & (s->nbuckets - 1)];

	for (; i; i = sch_J(s, i)->fnext)
		if (sch_J(s, i)->fence == fence)
			return i;
	return 0;
}

static void unlink_chain(uint32_t *head, struct xp_sched_state *s, uint32_t idx, bool fence)
{
	uint32_t *p = head;

	while (*p) {
		struct xp_sched_job *j = sch_J(s, *p);

		if (*p == idx) {
			*p = fence ? j->fnext : j->next;
			return;
		}
		p = fence ? &j->fnext : &j->next;
	}
}

void sch_set_fence(struct xp_sched_state *s, uint32_t idx, uint64_t fence)
{
	struct xp_sched_job *j = sch_J(s, idx);
	uint32_t *h;

	if (j->fence == fence)
		return;
	if (j->fence)
		unlink_chain(&s->fheads[sch_hash64(j->fence, 0) & (s->nbuckets - 1)], s, idx, true);
	j->fence = fence;
	j->fnext = 0;
	if (!fence)
		return;
	h = &s->fheads[sch_hash64(fence, 0) & (s->nbuckets - 1)];
	j->fnext = *h;
	*h = idx;
}

void sch_release(struct xp_sched_state *s, uint32_t idx)
{
	struct xp_sched_job *j = sch_J(s, idx);

	if (j->flags & J_ONRUNLIST) {
		int r = j->ring >= 0 ? j->ring : XP_SCHED_MAX_RINGS;

		if (j->rprev)
			sch_J(s, j->rprev)->rnext = j->rnext;
		else
			s->run_head[r] = j->rnext;
		if (j->rnext)
			sch_J(s, j->rnext)->rprev = j->rprev;
		else
			s->run_tail[r] = j->rprev;
	}
	sch_set_fence(s, idx, 0);
	unlink_chain(&s->heads[sch_hash64(j->k1, j->k2 ^ j->gen) & (s->nbuckets - 1)], s, idx, false);
	memset(j, 0, sizeof(*j));
	j->next = s->free_head;
	s->free_head = idx;
	s->nused--;
}

static struct xp_sched_done_ent *done_slot(struct xp_sched_state *s, uint8_t gen, uint64_t a, uint64_t b)
{
	return &s->donec[sch_hash64(a, b ^ gen) & (XP_SCHED_DONE_CACHE - 1)];
}

/* A job completed: remembered for the jobs that depend on its finished fence. */
void sch_remember_done(struct xp_sched_state *s, const struct xp_sched_job *j, uint64_t ts)
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
void sch_resolve_dep(struct xp_sched_state *s, uint8_t gen, struct xp_sched_dep *d)
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
	idx = gen == 1 ? sch_find_fence(s, d->a) : sch_find(s, 2, d->a, d->b);
	if (idx && sch_J(s, idx)->ring >= 0) {
		d->ring = sch_J(s, idx)->ring;
		d->pid = sch_J(s, idx)->pid;
	}
}

/*
 * Resolves every kept dependency; when all of them (and no more than were
 * kept) were seen signalled, the moment the last one did is dep_ready_ts.
 */
void sch_deps_ready(struct xp_sched_state *s, struct xp_sched_job *j)
{
	uint64_t ready = 0;
	bool all = j->ndep && j->ndep == j->deps;

	if (j->flags & J_DEPREADY)
		return;
	for (int i = 0; i < j->ndep; i++) {
		sch_resolve_dep(s, j->gen, &j->dep[i]);
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
bool sch_dep_wait(const struct xp_sched_job *j, uint64_t *ns)
{
	if ((j->flags & (J_DEPREADY | J_QUEUED)) == (J_DEPREADY | J_QUEUED)) {
		*ns = j->dep_ready_ts > j->q_ts ? j->dep_ready_ts - j->q_ts : 0;
		return true;
	}
	*ns = j->run_ts > j->wait_ts ? j->run_ts - j->wait_ts : 0;
	return false;
}
