/* `cuda`'s counts: kernels per name, busy time as the union of intervals, copies, the launch join. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "caps/cuda/cuda_stats.h"
#include "core/tracefile.h"

static const struct xp_rec_field cuda_fields[] = {
	XP_REC_HDR_FIELDS(struct xp_cuda_rec),
	XP_REC_F(struct xp_cuda_rec, end_ns, XP_FIELD_UINT),
	XP_REC_F(struct xp_cuda_rec, cgroup_id, XP_FIELD_UINT),
	XP_REC_F(struct xp_cuda_rec, bytes, XP_FIELD_UINT),
	XP_REC_F(struct xp_cuda_rec, what, XP_FIELD_UINT),
	XP_REC_F(struct xp_cuda_rec, corr, XP_FIELD_UINT),
	XP_REC_F(struct xp_cuda_rec, device, XP_FIELD_UINT),
	XP_REC_F(struct xp_cuda_rec, context, XP_FIELD_UINT),
	XP_REC_F(struct xp_cuda_rec, stream, XP_FIELD_UINT),
	XP_REC_F(struct xp_cuda_rec, kind, XP_FIELD_UINT),
	XP_REC_F(struct xp_cuda_rec, grid, XP_FIELD_CHARS),
	XP_REC_F(struct xp_cuda_rec, block, XP_FIELD_CHARS),
	XP_REC_F(struct xp_cuda_rec, comm, XP_FIELD_CHARS),
	XP_REC_F(struct xp_cuda_rec, name, XP_FIELD_CHARS),
};

static const struct xp_rec_pack cuda_pack[] = {
	XP_REC_P(struct xp_cuda_rec, end_ns, XP_PACK_TS),
	XP_REC_P(struct xp_cuda_rec, cgroup_id, XP_PACK_INTERN),
	XP_REC_P(struct xp_cuda_rec, bytes, XP_PACK_UINT),
	XP_REC_P(struct xp_cuda_rec, what, XP_PACK_UINT),
	XP_REC_P(struct xp_cuda_rec, corr, XP_PACK_DELTA),
	XP_REC_P(struct xp_cuda_rec, device, XP_PACK_UINT),
	XP_REC_P(struct xp_cuda_rec, context, XP_PACK_UINT),
	XP_REC_P(struct xp_cuda_rec, stream, XP_PACK_UINT),
	XP_REC_P(struct xp_cuda_rec, kind, XP_PACK_UINT),
	XP_REC_P(struct xp_cuda_rec, grid, XP_PACK_INTERN),
	XP_REC_P(struct xp_cuda_rec, block, XP_PACK_INTERN),
	XP_REC_P(struct xp_cuda_rec, comm, XP_PACK_INTERN),
	XP_REC_P(struct xp_cuda_rec, name, XP_PACK_INTERN),
};

const struct xp_rec_kind xp_cuda_rec_kind = {
	.type = XP_REC_CUDA, .min_size = sizeof(struct xp_cuda_rec), .name = "cuda",
	.fields = cuda_fields, .nfields = sizeof(cuda_fields) / sizeof(cuda_fields[0]),
	.pack = cuda_pack, .npack = sizeof(cuda_pack) / sizeof(cuda_pack[0]),
};

const char *const xp_cuda_dir_names[XP_CUDA_NDIR] = { "htod", "dtoh", "dtod", "other", "memset" };

int xp_cuda_init(struct xp_cuda_state *s)
{
	memset(s, 0, sizeof(*s));
	s->krows = calloc(XP_CUDA_MAX_KROWS, sizeof(*s->krows));
	s->prows = calloc(XP_CUDA_MAX_PROWS, sizeof(*s->prows));
	s->marks = calloc(XP_CUDA_MARKS, sizeof(*s->marks));
	s->mark_tid = calloc(XP_CUDA_MARKS, sizeof(*s->mark_tid));
	if (!s->krows || !s->prows || !s->marks || !s->mark_tid) {
		xp_cuda_free(s);
		return -ENOMEM;
	}
	return 0;
}

void xp_cuda_free(struct xp_cuda_state *s)
{
	for (int i = 0; s->prows && i < s->nprows; i++)
		free(s->prows[i].iv);
	free(s->krows);
	free(s->prows);
	free(s->marks);
	free(s->mark_tid);
	memset(s, 0, sizeof(*s));
}

void xp_cuda_reset(struct xp_cuda_state *s)
{
	s->nkrows = 0;
	for (int i = 0; i < s->nprows; i++) {
		struct xp_cuda_prow *p = &s->prows[i];

		p->busy_base = xp_cuda_busy(p);
		p->kernels = 0;
		p->late = 0;
		memset(p->x, 0, sizeof(p->x));
	}
	s->kernels = s->joined = s->launches = s->copies = s->memsets = s->cupti_dropped = 0;
	s->marks_pushed = s->rows_full = 0;
}

int xp_cuda_dir(uint32_t what, uint32_t kind)
{
	if (what == XP_CUDA_MEMSET)
		return XP_CUDA_DIR_MEMSET;
	switch (kind) {
	case XP_CUDA_COPY_HTOD: return XP_CUDA_DIR_HTOD;
	case XP_CUDA_COPY_DTOH: return XP_CUDA_DIR_DTOH;
	case XP_CUDA_COPY_DTOD: return XP_CUDA_DIR_DTOD;
	default: return XP_CUDA_DIR_OTHER;
	}
}

static struct xp_cuda_prow *prow_of(struct xp_cuda_state *s, const struct xp_cuda_rec *r)
{
	struct xp_cuda_prow *p;

	for (int i = 0; i < s->nprows; i++)
		if (s->prows[i].pid == r->hdr.pid && s->prows[i].device == r->device)
			return &s->prows[i];
	if (s->nprows >= XP_CUDA_MAX_PROWS)
		return NULL;
	p = &s->prows[s->nprows++];
	memset(p, 0, sizeof(*p));
	p->pid = r->hdr.pid;
	p->device = r->device;
	p->cgroup_id = r->cgroup_id;
	memcpy(p->comm, r->comm, sizeof(p->comm));
	p->comm[XP_COMM_LEN - 1] = 0;
	return p;
}

static struct xp_cuda_krow *krow_of(struct xp_cuda_state *s, const struct xp_cuda_rec *r)
{
	struct xp_cuda_krow *k;

	for (int i = s->nkrows - 1; i >= 0; i--) {
		k = &s->krows[i];
		if (k->pid == r->hdr.pid && k->device == r->device && !strncmp(k->name, r->name, XP_CUDA_NAME))
			return k;
	}
	if (s->nkrows >= XP_CUDA_MAX_KROWS)
		return NULL;
	k = &s->krows[s->nkrows++];
	memset(k, 0, sizeof(*k));
	k->pid = r->hdr.pid;
	k->device = r->device;
	memcpy(k->comm, r->comm, sizeof(k->comm));
	k->comm[XP_COMM_LEN - 1] = 0;
	memcpy(k->name, r->name, sizeof(k->name));
	k->name[XP_CUDA_NAME - 1] = 0;
	return k;
}

uint64_t xp_cuda_busy(const struct xp_cuda_prow *p)
{
	return p->busy;
}

/* Folds the first n intervals into the total. */
static void fold(struct xp_cuda_prow *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		p->folded += p->iv[i].e - p->iv[i].s;
	if (n)
		p->folded_to = p->iv[n - 1].e;
	memmove(p->iv, p->iv + n, (p->niv - n) * sizeof(*p->iv));
	p->niv -= n;
}

int xp_cuda_busy_add(struct xp_cuda_prow *p, uint64_t s, uint64_t e)
{
	uint32_t lo = 0, hi = p->niv, j;
	uint64_t merged = 0;	/* the length of those [s, e) merges with */

	if (s < p->folded_to) {
		p->late++;
		s = p->folded_to;
	}
	if (e <= s)
		return 0;
	while (lo < hi) {	/* the first interval ending at or after s */
		uint32_t mid = (lo + hi) / 2;

		if (p->iv[mid].e < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (j = lo; j < p->niv && p->iv[j].s <= e; j++) {	/* those [s, e) touches merge into it */
		s = p->iv[j].s < s ? p->iv[j].s : s;
		e = p->iv[j].e > e ? p->iv[j].e : e;
		merged += p->iv[j].e - p->iv[j].s;
	}
	if (j == lo) {	/* touches none: inserted at lo */
		if (p->niv == p->cap) {
			uint32_t n = p->cap ? 2 * p->cap : 64;
			struct xp_cuda_iv *v = realloc(p->iv, n * sizeof(*v));

			if (!v)
				return -ENOMEM;
			p->iv = v;
			p->cap = n;
		}
		memmove(p->iv + lo + 1, p->iv + lo, (p->niv - lo) * sizeof(*p->iv));
		p->niv++;
	} else if (j > lo + 1) {
		memmove(p->iv + lo + 1, p->iv + j, (p->niv - j) * sizeof(*p->iv));
		p->niv -= j - lo - 1;
	}
	p->iv[lo] = (struct xp_cuda_iv){ s, e };
	p->busy += e - s - merged;
	/* what ended a horizon before the latest end is folded; too many open: the oldest half */
	for (j = 0; j < p->niv && p->iv[j].e + XP_CUDA_HORIZON_NS < p->iv[p->niv - 1].e; j++)
		;
	fold(p, p->niv > XP_CUDA_MAX_IV && j < p->niv / 2 ? p->niv / 2 : j);
	return 0;
}

static uint32_t mark_slot(uint32_t pid, uint32_t corr)
{
	uint64_t h = ((uint64_t)pid << 32 | corr) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 48) & (XP_CUDA_MARKS - 1);
}

static void add_launch(struct xp_cuda_state *s, const struct xp_cuda_rec *r)
{
	uint32_t i = mark_slot(r->hdr.pid, r->corr);

	s->launches++;
	if (s->marks[i].pid)
		s->marks_pushed++;
	s->marks[i] = (struct xp_cuda_mark){ r->hdr.pid, r->corr, r->hdr.ts_ns };
	s->mark_tid[i] = r->hdr.tid;
}

static int add_kernel(struct xp_cuda_state *s, const struct xp_cuda_rec *r, struct xp_cuda_done *d)
{
	struct xp_cuda_krow *k = krow_of(s, r);
	struct xp_cuda_prow *p = prow_of(s, r);
	uint32_t i = mark_slot(r->hdr.pid, r->corr);
	uint64_t st = r->hdr.ts_ns;

	s->kernels++;
	if (s->marks[i].pid == r->hdr.pid && s->marks[i].corr == r->corr) {
		d->joined = true;
		d->launch_ts = s->marks[i].ts;
		d->launch_tid = s->mark_tid[i];
		s->marks[i].pid = 0;
		s->joined++;
	}
	if (!k || !p) {
		s->rows_full++;
		return 0;
	}
	k->kernels++;
	xp_hist_add(&k->gpu, r->end_ns - st);
	if (d->joined)
		xp_hist_add(&k->delay, st > d->launch_ts ? st - d->launch_ts : 0);
	p->kernels++;
	return xp_cuda_busy_add(p, st, r->end_ns);
}

int xp_cuda_add(struct xp_cuda_state *s, const struct xp_cuda_rec *r, struct xp_cuda_done *d)
{
	struct xp_cuda_prow *p;
	struct xp_cuda_xfer *x;

	memset(d, 0, sizeof(*d));
	if (r->hdr.type != XP_REC_CUDA || r->hdr.size < sizeof(*r) || r->end_ns < r->hdr.ts_ns)
		return -EINVAL;
	switch (r->what) {
	case XP_CUDA_KERNEL:
		return add_kernel(s, r, d);
	case XP_CUDA_LAUNCH:
		add_launch(s, r);
		return 0;
	case XP_CUDA_DROPS:
		s->cupti_dropped += r->bytes;
		return 0;
	case XP_CUDA_MEMCPY:
	case XP_CUDA_MEMSET:
		*(r->what == XP_CUDA_MEMSET ? &s->memsets : &s->copies) += 1;
		if (!(p = prow_of(s, r))) {
			s->rows_full++;
			return 0;
		}
		x = &p->x[xp_cuda_dir(r->what, r->kind)];
		x->n++;
		x->bytes += r->bytes;
		x->ns += r->end_ns - r->hdr.ts_ns;
		return 0;
	default:
		return -EINVAL;
	}
}

static int by_gpu_time(const void *a, const void *b)
{
	const struct xp_cuda_krow *x = a, *y = b;

	if (x->gpu.sum != y->gpu.sum)
		return x->gpu.sum < y->gpu.sum ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_busy(const void *a, const void *b)
{
	const struct xp_cuda_prow *x = a, *y = b;
	uint64_t bx = xp_cuda_busy(x) - x->busy_base, by = xp_cuda_busy(y) - y->busy_base;

	if (bx != by)
		return bx < by ? 1 : -1;
	return x->pid != y->pid ? (x->pid < y->pid ? -1 : 1) : (x->device < y->device ? -1 : 1);
}

void xp_cuda_sort(struct xp_cuda_state *s)
{
	qsort(s->krows, (size_t)s->nkrows, sizeof(*s->krows), by_gpu_time);
	qsort(s->prows, (size_t)s->nprows, sizeof(*s->prows), by_busy);
}
