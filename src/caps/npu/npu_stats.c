/* The npu capability's analysis (npu_stats.h). */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash_table.h"
#include "caps/npu/npu_stats.h"
#include "core/tracefile.h"

/* Older files' records end before the later fields: their kinds are checked by npu itself. */
/* Records of the size before amdxdna end before fctx: those fields are then left out. */
static const struct xp_rec_pack npu_pack[] = {
	XP_REC_P(struct xp_npu_rec, kind, XP_PACK_UINT),
	XP_REC_P(struct xp_npu_rec, dev, XP_PACK_UINT),
	XP_REC_P(struct xp_npu_rec, slot, XP_PACK_UINT),
	XP_REC_P(struct xp_npu_rec, fn, XP_PACK_UINT),
	XP_REC_P(struct xp_npu_rec, dur_ns, XP_PACK_UINT),
	XP_REC_P(struct xp_npu_rec, a, XP_PACK_UINT),
	XP_REC_P(struct xp_npu_rec, b, XP_PACK_UINT),
	XP_REC_P(struct xp_npu_rec, c, XP_PACK_UINT),
	XP_REC_P(struct xp_npu_rec, pad, XP_PACK_UINT),
	XP_REC_P(struct xp_npu_rec, comm, XP_PACK_INTERN),
	XP_REC_P(struct xp_npu_rec, name, XP_PACK_INTERN),
	XP_REC_P(struct xp_npu_rec, type, XP_PACK_INTERN),
	XP_REC_P(struct xp_npu_rec, fctx, XP_PACK_INTERN),
	XP_REC_P(struct xp_npu_rec, fseq, XP_PACK_DELTA),
	XP_REC_P(struct xp_npu_rec, seq, XP_PACK_DELTA),
};

const struct xp_rec_kind xp_npu_rec_kind = {
	.type = XP_REC_NPU, .min_size = XP_NPU_REC_V1_SIZE, .name = "npu",
	.pack = npu_pack, .npack = sizeof(npu_pack) / sizeof(npu_pack[0]),
};

/* ---- the rules: one table, first match wins ---- */

static const struct {
	const char *pattern;	/* fnmatch, on the whole name */
	enum xp_npu_cat cat;
} rules[] = {
	{ "*_ipc_*", XP_NPU_CAT_IPC },	{ "*_ipc", XP_NPU_CAT_IPC },
	{ "*jsm*", XP_NPU_CAT_IPC },	{ "*_mmu_*", XP_NPU_CAT_MEM },
	{ "*pgtable*", XP_NPU_CAT_MEM },	{ "*_pt_*", XP_NPU_CAT_MEM },
	{ "*_bo_*", XP_NPU_CAT_BUF },	{ "*_bo", XP_NPU_CAT_BUF },
	{ "*_gem_*", XP_NPU_CAT_BUF },	{ "*_submit*", XP_NPU_CAT_JOB },
	{ "*_job*", XP_NPU_CAT_JOB },	{ "*_cmdq*", XP_NPU_CAT_JOB },
	{ "*_rpm_*", XP_NPU_CAT_POWER },	{ "*_pm_*", XP_NPU_CAT_POWER },
	{ "*_suspend*", XP_NPU_CAT_POWER }, { "*_resume*", XP_NPU_CAT_POWER },
	{ "*_power*", XP_NPU_CAT_POWER },	{ "*d0i3*", XP_NPU_CAT_POWER },
	{ "*_fw_*", XP_NPU_CAT_FW },	{ "*_fw", XP_NPU_CAT_FW },
	{ "*_boot*", XP_NPU_CAT_FW },	{ "*firmware*", XP_NPU_CAT_FW },
};

static const struct {
	const char *name;
	enum xp_npu_role role;
} roles[] = {
	{ "ivpu_ipc_send", XP_NPU_ROLE_IPC_MSG },
	{ "ivpu_ipc_receive", XP_NPU_ROLE_IPC_MSG },
	{ "ivpu_mmu_context_map_page", XP_NPU_ROLE_PAGE_MAP },
	{ "ivpu_gem_create_object", XP_NPU_ROLE_BUFFER },
	{ "ivpu_submit_ioctl", XP_NPU_ROLE_JOB },
};

static const char *const cat_names[XP_NPU_NCAT] = {
	"memory/MMU", "IPC/JSM", "buffer/GEM", "job/submit", "power", "firmware/boot", "other",
};
static const char *const cat_keys[XP_NPU_NCAT] = {
	"memory", "ipc", "buffer", "job", "power", "firmware", "other",
};

const char *xp_npu_cat_name(enum xp_npu_cat c) { return c < XP_NPU_NCAT ? cat_names[c] : "?"; }
const char *xp_npu_cat_key(enum xp_npu_cat c) { return c < XP_NPU_NCAT ? cat_keys[c] : "?"; }

enum xp_npu_cat xp_npu_category(const char *fn)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (!fnmatch(rules[i].pattern, fn, 0))
			return rules[i].cat;
	return XP_NPU_CAT_OTHER;
}

enum xp_npu_role xp_npu_role(const char *fn)
{
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (!strcmp(roles[i].name, fn))
			return roles[i].role;
	return XP_NPU_ROLE_NONE;
}

bool xp_npu_irq_name(const char *fn)
{
	return !fnmatch("*_irq_handler*", fn, 0) || !fnmatch("*_isr*", fn, 0) ||
	       !fnmatch("*_irq", fn, 0);
}

/* ---- the state ---- */

void xp_npu_init(struct xp_npu_state *s)
{
	memset(s, 0, sizeof(*s));
	s->pm_last = -1;
}

static struct xp_npu_fnstat *fn_at(struct xp_npu_state *s, uint32_t fn, const char *name)
{
	struct xp_npu_fnstat *f;

	if (fn >= XP_NPU_MAX_FN)
		return NULL;
	f = &s->fn[fn];
	if (!f->known && name && *name) {
		snprintf(f->name, sizeof(f->name), "%s", name);
		f->cat = (uint8_t)xp_npu_category(f->name);
		f->role = (uint8_t)xp_npu_role(f->name);
		f->known = true;
	}
	if ((int)fn >= s->nfn)
		s->nfn = (int)fn + 1;
	return f;
}

void xp_npu_set_fn(struct xp_npu_state *s, uint32_t fn, const char *name)
{
	fn_at(s, fn, name);
}

void xp_npu_set_lat(struct xp_npu_state *s, int slot, const char *name)
{
	if (slot < 0 || slot >= XP_NPU_MAX_LAT)
		return;
	snprintf(s->lat[slot].name, sizeof(s->lat[slot].name), "%s", name);
	if (slot >= s->nlat)
		s->nlat = slot + 1;
}

void xp_npu_add_calls(struct xp_npu_state *s, uint32_t fn, const char *name, uint32_t tgid,
		      const char *comm, uint64_t n)
{
	struct xp_npu_fnstat *f = fn_at(s, fn, name);
	struct xp_npu_proc *p = NULL;

	if (!f || !f->known) {
		s->overflow += n;
		return;
	}
	f->calls += n;
	s->cat[f->cat] += n;
	switch (f->role) {
	case XP_NPU_ROLE_IPC_MSG: s->ipc_msgs += n; break;
	case XP_NPU_ROLE_PAGE_MAP: s->pages += n; break;
	case XP_NPU_ROLE_BUFFER: s->buffers += n; break;
	case XP_NPU_ROLE_JOB: s->jobs += n; break;
	default: break;
	}
	if (!tgid) {
		s->dev_calls += n;
		s->dev_cat[f->cat] += n;
		return;
	}
	for (int i = 0; i < s->nprocs && !p; i++)
		if (s->procs[i].tgid == tgid)
			p = &s->procs[i];
	if (!p && s->nprocs < XP_NPU_MAX_PROCS) {
		p = &s->procs[s->nprocs++];
		memset(p, 0, sizeof(*p));
		p->tgid = tgid;
		snprintf(p->comm, sizeof(p->comm), "%.*s", XP_COMM_LEN - 1, comm ? comm : "");
	}
	if (!p) {
		s->procs_overflow += n;
		return;
	}
	p->calls += n;
	p->cat[f->cat] += n;
}

static struct xp_npu_pend *pend_find(struct xp_npu_pend *t, const uint32_t k[3])
{
	for (int i = 0; i < XP_NPU_MAX_PEND; i++)
		if (t[i].used && !memcmp(t[i].k, k, sizeof(t[i].k)))
			return &t[i];
	return NULL;
}

static struct xp_npu_pend *pend_new(struct xp_npu_pend *t, const uint32_t k[3], uint64_t ts)
{
	struct xp_npu_pend *p = pend_find(t, k), *old = NULL;

	for (int i = 0; i < XP_NPU_MAX_PEND && !p; i++) {
		if (!t[i].used)
			p = &t[i];
		else if (!old || t[i].ts < old->ts)
			old = &t[i];
	}
	if (!p)
		p = old;	/* full: the oldest never completed */
	memcpy(p->k, k, sizeof(p->k));
	p->ts = ts;
	p->used = true;
	return p;
}

static bool has(const char *s, const char *w)
{
	return strstr(s, w) != NULL;
}

int xp_npu_job_event(const char *event)
{
	if (has(event, "submit"))
		return XP_NPU_JOB_SUBMIT;
	if (has(event, "done") || has(event, "signal") || has(event, "complete"))
		return XP_NPU_JOB_DONE;
	return 0;
}

static void add_job(struct xp_npu_state *s, const struct xp_npu_rec *r)
{
	uint32_t k[3] = { r->a, r->b, r->c };
	struct xp_npu_jobq *q = NULL;
	struct xp_npu_pend *p;
	int ev;

	for (int i = 0; i < s->njobq && !q; i++)
		if (s->jobq[i].ctx == r->a && s->jobq[i].engine == r->b)
			q = &s->jobq[i];
	if (!q && s->njobq < XP_NPU_MAX_JOBQ) {
		q = &s->jobq[s->njobq++];
		memset(q, 0, sizeof(*q));
		q->ctx = r->a;
		q->engine = r->b;
	}
	if (!q) {
		s->overflow++;
		return;
	}
	ev = xp_npu_job_event(r->name);
	if (ev == XP_NPU_JOB_SUBMIT) {
		q->submitted++;
		pend_new(s->jobs_open, k, r->h.ts_ns);
	} else if (ev == XP_NPU_JOB_DONE) {
		q->done++;
		if ((p = pend_find(s->jobs_open, k))) {
			if (r->h.ts_ns >= p->ts)
				xp_hist_add(&q->lat, r->h.ts_ns - p->ts);
			p->used = false;
		}
	}
}

static struct xp_npu_jsm *jsm_row(struct xp_npu_state *s, const char *type, uint32_t status)
{
	for (int i = 0; i < s->njsm; i++)
		if (s->jsm[i].status == status && !strcmp(s->jsm[i].type, type))
			return &s->jsm[i];
	if (s->njsm >= XP_NPU_MAX_JSM)
		return NULL;
	memset(&s->jsm[s->njsm], 0, sizeof(s->jsm[0]));
	snprintf(s->jsm[s->njsm].type, sizeof(s->jsm[0].type), "%s", type);
	s->jsm[s->njsm].status = status;
	return &s->jsm[s->njsm++];
}

static void add_jsm(struct xp_npu_state *s, const struct xp_npu_rec *r)
{
	char type[XP_NPU_STR];
	struct xp_npu_jsm *m;
	uint32_t k[3] = { r->b, 0, 0 };
	struct xp_npu_pend *p = pend_find(s->jsm_open, k), *q;
	bool rx = has(r->name, "rx") || (!has(r->name, "tx") && p);

	snprintf(type, sizeof(type), "%.*s", XP_NPU_STR - 1, r->type[0] ? r->type : "?");
	if (!(m = jsm_row(s, type, r->a))) {
		s->overflow++;
		return;
	}
	m->msgs++;
	if (!rx) {
		q = pend_new(s->jsm_open, k, r->h.ts_ns);
		q->row = (uint32_t)(m - s->jsm);
	} else if (p) {
		if (p->row < (uint32_t)s->njsm && r->h.ts_ns >= p->ts)
			xp_hist_add(&s->jsm[p->row].lat, r->h.ts_ns - p->ts);
		p->used = false;
	}
}

static void add_pm(struct xp_npu_state *s, const struct xp_npu_rec *r)
{
	int i;

	if (s->pm_last >= 0 && r->h.ts_ns >= s->pm_last_ts)
		xp_hist_add(&s->pm[s->pm_last].dur, r->h.ts_ns - s->pm_last_ts);
	for (i = 0; i < s->npm; i++)
		if (!strcmp(s->pm[i].event, r->name))
			break;
	if (i == s->npm) {
		if (s->npm >= XP_NPU_MAX_PM) {
			s->overflow++;
			s->pm_last = -1;
			return;
		}
		memset(&s->pm[i], 0, sizeof(s->pm[0]));
		snprintf(s->pm[i].event, sizeof(s->pm[i].event), "%.*s", XP_NPU_NAME - 1, r->name);
		s->npm++;
	}
	s->pm[i].n++;
	s->pm_last = i;
	s->pm_last_ts = r->h.ts_ns;
}

/*
 * The jobs in flight: open addressing by fence, linear probing; a job
 * leaves by moving back the ones placed past it, so no search ever
 * walks the whole table.
 */
static uint32_t xjob_home(uint64_t fctx, uint64_t fseq)
{
	uint64_t h = (fctx * 0x9e3779b97f4a7c15ull) ^ (fseq * 0xc2b2ae3d27d4eb4full);

	return (uint32_t)(h >> 40) % XP_NPU_MAX_XJOBS;
}

static struct xp_npu_xjob *xjob_find(struct xp_npu_state *s, uint64_t fctx, uint64_t fseq)
{
	uint32_t i = xjob_home(fctx, fseq);

	for (int n = 0; n < XP_NPU_MAX_XJOBS && s->xjobs[i].used; n++, i = (i + 1) % XP_NPU_MAX_XJOBS)
		if (s->xjobs[i].fseq == fseq && s->xjobs[i].fctx == fctx)
			return &s->xjobs[i];
	return NULL;
}

static bool xjob_used(const void *e)
{
	return ((const struct xp_npu_xjob *)e)->used;
}

static uint32_t xjob_home_of(const void *e)
{
	const struct xp_npu_xjob *j = e;

	return xjob_home(j->fctx, j->fseq);
}

static void xjob_free(struct xp_npu_state *s, struct xp_npu_xjob *j)
{
	xp_lp_delete(s->xjobs, sizeof(*j), XP_NPU_MAX_XJOBS, (uint32_t)(j - s->xjobs), xjob_used, xjob_home_of);
}

static uint64_t xjob_t0(const struct xp_npu_xjob *j)
{
	return j->queue_ts ? j->queue_ts : j->run_ts ? j->run_ts : j->sent_ts;
}

/* The job of this fence, opened if new; when the table is full the oldest is dropped (counted). */
static struct xp_npu_xjob *xjob_get(struct xp_npu_state *s, uint64_t fctx, uint64_t fseq)
{
	struct xp_npu_xjob *j = xjob_find(s, fctx, fseq), *old = NULL;
	uint32_t i;

	if (j)
		return j;
	if (s->xjobs_open == XP_NPU_MAX_XJOBS) {
		for (int k = 0; k < XP_NPU_MAX_XJOBS; k++)
			if (!old || xjob_t0(&s->xjobs[k]) < xjob_t0(old))
				old = &s->xjobs[k];
		xjob_free(s, old);
		s->xjobs_open--;
		s->xjobs_evicted++;
	}
	for (i = xjob_home(fctx, fseq); s->xjobs[i].used; i = (i + 1) % XP_NPU_MAX_XJOBS)
		;
	s->xjobs_open++;
	s->xjobs[i] = (struct xp_npu_xjob){ .fctx = fctx, .fseq = fseq, .row = -1, .used = true };
	return &s->xjobs[i];
}

static int hwctx_row(struct xp_npu_state *s, const char *name)
{
	for (int i = 0; i < s->nhw; i++)
		if (!strcmp(s->hw[i].name, name))
			return i;
	if (s->nhw >= XP_NPU_MAX_HWCTX)
		return -1;
	memset(&s->hw[s->nhw], 0, sizeof(s->hw[0]));
	snprintf(s->hw[s->nhw].name, sizeof(s->hw[0].name), "%s", name);
	return s->nhw++;
}

static void lat(struct xp_hist *h, uint64_t from, uint64_t to)
{
	if (from && to >= from)
		xp_hist_add(h, to - from);
}

static void add_xdna(struct xp_npu_state *s, const struct xp_npu_rec *r)
{
	char ctx[XP_NPU_STR], ev[XP_NPU_NAME];
	struct xp_npu_xjob *j;
	struct xp_npu_hwctx *hw;
	uint64_t t = r->h.ts_ns;
	int row;

	snprintf(ctx, sizeof(ctx), "%.*s", XP_NPU_STR - 1, r->type[0] ? r->type : "?");
	snprintf(ev, sizeof(ev), "%.*s", XP_NPU_NAME - 1, r->name);
	s->xdna_events++;
	if ((row = hwctx_row(s, ctx)) < 0) {
		s->overflow++;
		return;
	}
	hw = &s->hw[row];
	j = xjob_get(s, r->fctx, r->fseq);
	if (j->row < 0) {
		j->row = row;
		if (j->queue_ts)
			hw->queued++;
	}
	if (j->tgid && !hw->tgid) {
		hw->tgid = j->tgid;
		memcpy(hw->comm, j->comm, sizeof(hw->comm));
	}
	if (!strcmp(ev, "job run")) {
		hw->run++;
		j->run_ts = t;
		lat(&hw->wait, j->queue_ts, t);
	} else if (!strcmp(ev, "sent to device")) {
		hw->sent++;
		j->sent_ts = t;
		lat(&hw->submit, j->run_ts, t);
	} else if (has(ev, "signal")) {
		hw->signaled++;
		lat(&hw->exec, j->sent_ts, t);
		lat(&hw->total, j->queue_ts, t);
	} else if (!strcmp(ev, "job free")) {
		hw->freed++;
		xjob_free(s, j);
		s->xjobs_open--;
	} else {
		hw->other++;
	}
}

static void add_squeue(struct xp_npu_state *s, const struct xp_npu_rec *r)
{
	struct xp_npu_xjob *j = xjob_get(s, r->fctx, r->fseq);

	s->xdna_events++;
	j->queue_ts = r->h.ts_ns;
	j->tgid = r->h.pid;
	memcpy(j->comm, r->comm, sizeof(j->comm));
	j->comm[XP_COMM_LEN - 1] = '\0';
	if (j->row >= 0)
		s->hw[j->row].queued++;
}

static void add_sdone(struct xp_npu_state *s, const struct xp_npu_rec *r)
{
	struct xp_npu_xjob *j = xjob_find(s, r->fctx, r->fseq);

	s->xdna_events++;
	if (j && j->row >= 0)
		s->hw[j->row].done++;
}

int xp_npu_add(struct xp_npu_state *s, const struct xp_npu_rec *r)
{
	char name[XP_NPU_NAME];

	snprintf(name, sizeof(name), "%.*s", XP_NPU_NAME - 1, r->name);
	switch (r->kind) {
	case XP_NPU_CALL:
		if (r->fn >= XP_NPU_MAX_FN)
			return -EINVAL;
		xp_npu_add_calls(s, r->fn, name, r->dev ? 0 : r->h.pid, r->comm, 1);
		return 0;
	case XP_NPU_RET:
		if (r->slot >= XP_NPU_MAX_LAT)
			return -EINVAL;
		if (!s->lat[r->slot].name[0])
			xp_npu_set_lat(s, r->slot, name);
		xp_hist_add(&s->lat[r->slot].h, r->dur_ns);
		return 0;
	case XP_NPU_JOB: s->tp_events++; add_job(s, r); return 0;
	case XP_NPU_JSM: s->tp_events++; add_jsm(s, r); return 0;
	case XP_NPU_PM: s->tp_events++; add_pm(s, r); return 0;
	case XP_NPU_XDNA: add_xdna(s, r); return 0;
	case XP_NPU_SQUEUE: add_squeue(s, r); return 0;
	case XP_NPU_SDONE: add_sdone(s, r); return 0;
	default: return -EINVAL;
	}
}

void xp_npu_ratios(const struct xp_npu_state *s, double secs, struct xp_npu_ratios *r)
{
	memset(r, 0, sizeof(*r));
	r->has_pages_per_buffer = s->buffers > 0;
	r->pages_per_buffer = s->buffers ? (double)s->pages / (double)s->buffers : 0;
	r->has_ipc_per_job = s->jobs > 0;
	r->ipc_per_job = s->jobs ? (double)s->ipc_msgs / (double)s->jobs : 0;
	for (int c = 0; c < XP_NPU_NCAT; c++)
		r->per_s[c] = secs > 0 ? (double)s->cat[c] / secs : 0;
}

void xp_npu_reset(struct xp_npu_state *s)
{
	for (int i = 0; i < s->nfn; i++)
		s->fn[i].calls = 0;
	s->nprocs = 0;
	s->procs_overflow = 0;
	s->dev_calls = 0;
	memset(s->dev_cat, 0, sizeof(s->dev_cat));
	memset(s->cat, 0, sizeof(s->cat));
	s->ipc_msgs = s->pages = s->buffers = s->jobs = 0;
	for (int i = 0; i < s->nlat; i++)
		memset(&s->lat[i].h, 0, sizeof(s->lat[i].h));
	for (int i = 0; i < s->njobq; i++) {
		s->jobq[i].submitted = s->jobq[i].done = 0;
		memset(&s->jobq[i].lat, 0, sizeof(s->jobq[i].lat));
	}
	for (int i = 0; i < s->njsm; i++) {
		s->jsm[i].msgs = 0;
		memset(&s->jsm[i].lat, 0, sizeof(s->jsm[i].lat));
	}
	for (int i = 0; i < s->npm; i++) {
		s->pm[i].n = 0;
		memset(&s->pm[i].dur, 0, sizeof(s->pm[i].dur));
	}
	s->tp_events = s->overflow = 0;
	for (int i = 0; i < s->nhw; i++) {
		struct xp_npu_hwctx *h = &s->hw[i];

		h->queued = h->run = h->sent = h->signaled = h->freed = h->done = h->other = 0;
		memset(&h->wait, 0, sizeof(h->wait));
		memset(&h->submit, 0, sizeof(h->submit));
		memset(&h->exec, 0, sizeof(h->exec));
		memset(&h->total, 0, sizeof(h->total));
	}
	s->xdna_events = s->xjobs_evicted = 0;
}
