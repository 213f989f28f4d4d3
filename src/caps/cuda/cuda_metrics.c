/* `cuda`'s metrics for `xputrace serve`. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/cuda/cuda_metrics.h"

struct label_ctx {
	const struct xp_cuda_metrics *x;
	const struct xp_cuda_prow *p;
	uint64_t cg;
	const char *source, *direction;
};

static void labels(void *ctx, char *buf, size_t len)
{
	const struct label_ctx *l = ctx;
	char dev[16];

	snprintf(dev, sizeof(dev), "%u", l->p->device);
	xp_metrics_task_labels(&l->x->in, l->cg, l->p->pid, l->p->comm, buf, len);
	xp_labels_add(buf, len, "device", dev);
	if (l->direction)
		xp_labels_add(buf, len, "direction", l->direction);
	if (l->source)
		xp_labels_add(buf, len, "source", l->source);
}

static bool pid_alive(uint32_t pid)
{
	return !kill((pid_t)pid, 0) || errno == EPERM;
}

int xp_cuda_metrics_init(struct xp_cuda_metrics *x, const struct xp_metrics_in *in)
{
	struct xp_metrics *m = in->m;

	x->in = *in;
	x->alive = pid_alive;
	if (!(x->procs = calloc(XP_CUDA_METRICS_PROCS, sizeof(*x->procs))))
		return -ENOMEM;
	/* the family sched and fdinfo declare too: one family, its series told apart by `source` */
	x->busy = xp_metrics_family(m, "xputrace_gpu_busy_seconds", XP_GPU_BUSY_HELP,
				    "seconds", XP_METRIC_COUNTER, 1e-9, true);
	x->kernels = xp_metrics_family(m, "xputrace_cuda_kernels", "CUDA kernels that ran, per cgroup and "
				       "device, from CUPTI (libxputrace-cuda.so)", NULL, XP_METRIC_COUNTER, 1, true);
	x->bytes = xp_metrics_family(m, "xputrace_cuda_copy_bytes", "Bytes CUDA copied (htod, dtoh, dtod, "
				     "other) or set (memset), per cgroup, device and direction, from CUPTI",
				     "bytes", XP_METRIC_COUNTER, 1, true);
	x->dropped = xp_metrics_family(m, "xputrace_cuda_cupti_dropped", "Activity records CUPTI dropped "
				       "(its buffers full) before libxputrace-cuda.so saw them", NULL,
				       XP_METRIC_COUNTER, 1, true);
	return x->busy < 0 || x->kernels < 0 || x->bytes < 0 || x->dropped < 0 ? -ENOMEM : 0;
}

void xp_cuda_metrics_free(struct xp_cuda_metrics *x)
{
	for (int i = 0; x->procs && i < x->nprocs; i++)
		free(x->procs[i].p.iv);
	free(x->procs);
	x->procs = NULL;
	x->nprocs = 0;
}

static void let_go(struct xp_cuda_metrics *x, int i)
{
	free(x->procs[i].p.iv);
	x->procs[i] = x->procs[--x->nprocs];
	x->let_go++;
}

/* Processes that exited and sent nothing for a while: their state let go. */
static void sweep(struct xp_cuda_metrics *x)
{
	x->swept_ns = x->latest_ns;
	for (int i = x->nprocs - 1; i >= 0; i--)
		if (x->procs[i].seen_ns + XP_CUDA_METRICS_IDLE_NS < x->latest_ns && !x->alive(x->procs[i].p.pid))
			let_go(x, i);
}

static struct xp_cuda_mproc *mproc_of(struct xp_cuda_metrics *x, const struct xp_cuda_rec *r)
{
	struct xp_cuda_mproc *mp;
	int oldest = 0;

	if (x->last < x->nprocs && x->procs[x->last].p.pid == r->hdr.pid &&
	    x->procs[x->last].p.device == r->device)
		return &x->procs[x->last];
	for (int i = 0; i < x->nprocs; i++) {
		if (x->procs[i].p.pid == r->hdr.pid && x->procs[i].p.device == r->device)
			return &x->procs[x->last = i];
		if (x->procs[i].seen_ns < x->procs[oldest].seen_ns)
			oldest = i;
	}
	if (x->nprocs == XP_CUDA_METRICS_PROCS)
		let_go(x, oldest);
	mp = &x->procs[x->last = x->nprocs++];
	memset(mp, 0, sizeof(*mp));
	mp->p.pid = r->hdr.pid;
	mp->p.device = r->device;
	mp->p.cgroup_id = r->cgroup_id;
	memcpy(mp->p.comm, r->comm, sizeof(mp->p.comm));
	mp->p.comm[XP_COMM_LEN - 1] = 0;
	return mp;
}

/* Adds v to the series of family fam for mp (direction or source as its labels say). */
static int count(struct xp_cuda_metrics *x, const struct xp_cuda_mproc *mp, int fam, int dir, uint64_t v)
{
	uint64_t cg = xp_metrics_pid_cgroup(&x->in, mp->p.pid, mp->p.cgroup_id);
	struct xp_metric_key k = { { cg, x->in.per_process ? mp->p.pid : 0, mp->p.device, (uint64_t)dir } };
	struct label_ctx l = { x, &mp->p, cg, fam == x->busy ? "cupti" : NULL,
			       fam == x->bytes ? xp_cuda_dir_names[dir] : NULL };
	struct xp_series *s;

	if (!v)
		return 0;
	if (!(s = xp_metrics_series(x->in.m, fam, &k, labels, &l)))
		return -ENOMEM;
	s->value += v;
	return 0;
}

int xp_cuda_metrics_feed(struct xp_cuda_metrics *x, const struct xp_cuda_rec *r)
{
	struct xp_cuda_mproc *mp;
	int err;

	if (r->hdr.type != XP_REC_CUDA || r->hdr.size < sizeof(*r) || r->end_ns < r->hdr.ts_ns)
		return 1;
	if (r->what == XP_CUDA_LAUNCH)
		return 0;
	if (r->what != XP_CUDA_KERNEL && r->what != XP_CUDA_MEMCPY && r->what != XP_CUDA_MEMSET &&
	    r->what != XP_CUDA_DROPS)
		return 1;
	if (r->end_ns > x->latest_ns)
		x->latest_ns = r->end_ns;
	if (x->latest_ns - x->swept_ns >= XP_CUDA_METRICS_IDLE_NS)
		sweep(x);
	mp = mproc_of(x, r);
	if (r->end_ns > mp->seen_ns)
		mp->seen_ns = r->end_ns;
	if (r->what == XP_CUDA_DROPS)
		return count(x, mp, x->dropped, 0, r->bytes);
	if (r->what != XP_CUDA_KERNEL)
		return count(x, mp, x->bytes, xp_cuda_dir(r->what, r->kind), r->bytes);
	if ((err = count(x, mp, x->kernels, 0, 1)) || (err = xp_cuda_busy_add(&mp->p, r->hdr.ts_ns, r->end_ns)))
		return err;
	err = count(x, mp, x->busy, 0, mp->p.busy - mp->counted);
	mp->counted = mp->p.busy;
	return err;
}
