/* fdinfo's clients across samples: busy time from the drivers' counters, sizes, gone clients. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/fdinfo/fdinfo_stats.h"

void xp_fdi_init(struct xp_fdi_stats *s)
{
	memset(s, 0, sizeof(*s));
}

void xp_fdi_free(struct xp_fdi_stats *s)
{
	free(s->c);
	free(s->slot);
	memset(s, 0, sizeof(*s));
}

static uint64_t key_hash(const char *pdev, uint64_t id)
{
	uint64_t h = 1469598103934665603ull ^ id;

	for (; *pdev; pdev++)
		h = (h ^ (unsigned char)*pdev) * 1099511628211ull;
	h ^= h >> 29;
	return h * 0x9e3779b97f4a7c15ull;
}

/* Client i into the table (at most half full: a free slot is always found). */
static void insert(struct xp_fdi_stats *s, int i)
{
	size_t j = key_hash(s->c[i].pdev, s->c[i].id) & (s->nslot - 1);

	while (s->slot[j])
		j = (j + 1) & (s->nslot - 1);
	s->slot[j] = i + 1;
}

static void rehash(struct xp_fdi_stats *s)
{
	memset(s->slot, 0, s->nslot * sizeof(*s->slot));
	for (int i = 0; i < s->n; i++)
		insert(s, i);
}

static int grow(struct xp_fdi_stats *s)
{
	int ncap = s->cap ? s->cap * 2 : 64;
	struct xp_fdi_client *c = realloc(s->c, (size_t)ncap * sizeof(*c));
	int *slot;

	if (!c)
		return -1;
	s->c = c;
	if (!(slot = calloc((size_t)ncap * 2, sizeof(*slot))))
		return -1;
	free(s->slot);
	s->slot = slot;
	s->nslot = (size_t)ncap * 2;
	s->cap = ncap;
	rehash(s);
	return 0;
}

static struct xp_fdi_client *lookup(struct xp_fdi_stats *s, const char *pdev, uint64_t id, bool *made)
{
	size_t j;

	*made = false;
	if (s->nslot) {
		for (j = key_hash(pdev, id) & (s->nslot - 1); s->slot[j]; j = (j + 1) & (s->nslot - 1)) {
			struct xp_fdi_client *c = &s->c[s->slot[j] - 1];

			if (c->id == id && !strcmp(c->pdev, pdev))
				return c;
		}
	}
	if (s->n >= XP_FDI_MAX_CLIENTS) {
		s->lost_clients++;
		return NULL;
	}
	if (s->n == s->cap && grow(s))
		return NULL;
	memset(&s->c[s->n], 0, sizeof(s->c[s->n]));
	snprintf(s->c[s->n].pdev, sizeof(s->c[s->n].pdev), "%s", pdev);
	s->c[s->n].id = id;
	insert(s, s->n++);
	*made = true;
	return &s->c[s->n - 1];
}

static enum xp_fdi_src source(uint8_t have)
{
	if (have & XP_FDI_NS)
		return XP_FDI_SRC_NS;
	if ((have & XP_FDI_CYCLES) && (have & XP_FDI_TOTAL_CYCLES))
		return XP_FDI_SRC_TOTAL;
	if ((have & XP_FDI_CYCLES) && (have & XP_FDI_MAXFREQ))
		return XP_FDI_SRC_MAXFREQ;
	return XP_FDI_SRC_NONE;
}

static struct xp_fdi_ceng *client_engine(struct xp_fdi_client *c, const char *name, bool *made)
{
	*made = false;
	for (int i = 0; i < c->neng; i++)
		if (!strcmp(c->eng[i].name, name))
			return &c->eng[i];
	if (c->neng >= XP_FDI_MAX_ENGINES)
		return NULL;
	memset(&c->eng[c->neng], 0, sizeof(c->eng[0]));
	snprintf(c->eng[c->neng].name, XP_FDI_NAME, "%s", name);
	*made = true;
	return &c->eng[c->neng++];
}

/* Busy ns of one engine since the last sample; `base`: the counters only set the baseline. */
static uint64_t engine_delta(struct xp_fdi_ceng *e, const struct xp_fdi_engine *fe, uint64_t dt_ns, bool base)
{
	uint64_t cur = e->src == XP_FDI_SRC_NS ? fe->ns : fe->cycles, d;

	if (base || cur < e->last) {	/* a counter that went back starts a new baseline */
		e->last = cur;
		e->last_total = fe->total_cycles;
		return 0;
	}
	d = cur - e->last;
	e->last = cur;
	switch (e->src) {
	case XP_FDI_SRC_NS:
		return d;
	case XP_FDI_SRC_MAXFREQ:
		return fe->maxfreq_hz ? (uint64_t)((unsigned __int128)d * 1000000000u / fe->maxfreq_hz) : 0;
	case XP_FDI_SRC_TOTAL: {
		uint64_t dt = fe->total_cycles - e->last_total;

		if (fe->total_cycles < e->last_total)
			dt = 0;
		e->last_total = fe->total_cycles;
		return dt ? (uint64_t)((unsigned __int128)d * dt_ns / dt) : 0;
	}
	default:
		return 0;
	}
}

/*
 * A client's engines at this sample. Counters start from zero: a client or
 * engine first seen after the run's first sample counts all it shows, one
 * there at the first sample counts from there; cycles over the engine's
 * total need two samples (the time between them).
 */
static void engines(struct xp_fdi_stats *s, struct xp_fdi_client *c, const struct xp_fdinfo *fi, bool made)
{
	uint64_t dt = c->seen_ts && s->now > c->seen_ts ? s->now - c->seen_ts : 0;

	for (int i = 0; i < fi->neng; i++) {
		const struct xp_fdi_engine *fe = &fi->eng[i];
		enum xp_fdi_src src = source(fe->have);
		bool emade, base;
		struct xp_fdi_ceng *e = client_engine(c, fe->name, &emade);

		if (!e)
			continue;
		e->capacity = fe->capacity ? fe->capacity : 1;
		if (src == XP_FDI_SRC_NONE)
			continue;
		base = s->gen == 1 || (src != e->src && !emade && e->src != XP_FDI_SRC_NONE) ||
		       (src == XP_FDI_SRC_TOTAL && (made || emade || e->src != src));
		if (src != e->src && !base)	/* a new engine, or one whose counters appeared: from zero */
			e->last = e->last_total = 0;
		e->src = src;
		e->delta_ns = engine_delta(e, fe, dt, base);
		e->busy_ns += e->delta_ns;
		e->busy_total_ns += e->delta_ns;
	}
}

struct xp_fdi_client *xp_fdi_add(struct xp_fdi_stats *s, uint32_t pid, const struct xp_fdinfo *fi, bool *first)
{
	bool made;
	struct xp_fdi_client *c = lookup(s, fi->pdev, fi->client_id, &made);

	*first = false;
	if (!c)
		return NULL;
	s->fds++;
	if (c->gen == s->gen) {		/* shared: counted once */
		if (c->last_pid != pid) {
			c->nproc++;
			c->last_pid = pid;
		}
		if (pid < c->pid) {	/* shown as the lowest pid's */
			c->pid = pid;
			*first = true;
		}
		return c;
	}
	*first = true;
	for (int i = 0; i < c->neng; i++)
		c->eng[i].delta_ns = 0;
	engines(s, c, fi, made);
	c->nreg = fi->nreg;
	memcpy(c->reg, fi->reg, sizeof(c->reg[0]) * (size_t)fi->nreg);
	snprintf(c->driver, sizeof(c->driver), "%s", fi->driver);
	snprintf(c->name, sizeof(c->name), "%s", fi->name);
	c->gen = s->gen;
	c->seen_ts = s->now;
	c->closed = false;
	c->pid = c->last_pid = pid;
	c->nproc = 1;
	s->unknown_keys += fi->unknown;
	s->over += fi->over;
	return c;
}

void xp_fdi_begin(struct xp_fdi_stats *s, uint64_t now)
{
	s->gen++;
	s->samples++;
	s->now = now;
	s->procs = s->fds = s->nostats = s->unreadable = s->unknown_keys = s->over = 0;
	s->unreadable_pid = 0;
}

void xp_fdi_end(struct xp_fdi_stats *s)
{
	for (int i = 0; i < s->n; i++) {
		struct xp_fdi_client *c = &s->c[i];

		if (c->gen != s->gen && !c->closed) {
			c->closed = true;
			c->nproc = 0;
			s->closed_total++;
			for (int e = 0; e < c->neng; e++)
				c->eng[e].delta_ns = 0;
		}
	}
}

void xp_fdi_reset(struct xp_fdi_stats *s)
{
	int k = 0;

	for (int i = 0; i < s->n; i++) {
		if (s->c[i].closed)
			continue;
		if (k != i)
			s->c[k] = s->c[i];
		for (int e = 0; e < s->c[k].neng; e++)
			s->c[k].eng[e].busy_ns = 0;
		k++;
	}
	s->n = k;
	s->samples = 0;
	if (s->nslot)
		rehash(s);
}

double xp_fdi_pct(uint64_t ns, uint64_t elapsed_ns, uint32_t capacity)
{
	return elapsed_ns ? 100.0 * (double)ns / ((double)elapsed_ns * (capacity ? capacity : 1)) : 0;
}

const char *xp_fdi_src_name(enum xp_fdi_src src)
{
	static const char *const n[] = { "none", "ns", "cycles/total-cycles", "cycles/maxfreq" };

	return n[src];
}
