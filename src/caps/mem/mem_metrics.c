/* `mem`'s metrics for `xputrace serve`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "caps/mem/mem_metrics.h"

static const struct xp_metric_def families[] = {
	{ offsetof(struct xp_mem_metrics, bos), "xputrace_gpu_buffers_created",
	  "GPU buffer objects created, by the cgroup of the process that created them and "
	  "driver",
	  NULL, XP_METRIC_COUNTER, NULL, 0 },
	{ offsetof(struct xp_mem_metrics, bytes), "xputrace_gpu_buffer_created_bytes",
	  "Bytes of the GPU buffer objects created, by the cgroup of the process that created "
	  "them and driver",
	  "bytes", XP_METRIC_COUNTER, NULL, 0 },
	{ offsetof(struct xp_mem_metrics, moved), "xputrace_gpu_buffer_moved_bytes",
	  "Bytes of buffer objects the driver moved between placements (VRAM, GTT, system; xe's "
	  "first placements, which copy nothing, left out), by driver",
	  "bytes", XP_METRIC_COUNTER, NULL, 0 },
};

int xp_mem_metrics_init(struct xp_mem_metrics *s, const struct xp_metrics_in *in, uint32_t page_size)
{
	int err;

	s->in = *in;
	if ((err = xp_mem_init(&s->s, page_size)))
		return err;
	return xp_metrics_declare(in->m, families, XP_METRIC_NDEFS(families), s);
}

void xp_mem_metrics_free(struct xp_mem_metrics *s)
{
	xp_mem_free(&s->s);
}

static const char *driver_of(unsigned int ev)
{
	if (ev <= XP_MEM_AMD_IV)
		return "amdgpu";
	if (ev >= XP_MEM_XE_QUEUE_CREATE && ev <= XP_MEM_XE_BO_CREATE)
		return "xe";
	return "i915";
}

int xp_mem_metrics_feed(struct xp_mem_metrics *s, const struct xp_rawtp_layout *l,
			const struct xp_rawtp_rec *r)
{
	struct xp_mem_state *st = &s->s;
	struct xp_metrics *m = s->in.m;
	/* what this record adds: the state's totals before and after it */
	uint64_t bos = st->amd_bos + st->i915_creates + st->xe_bos;
	uint64_t bytes = st->amd_bo_bytes + st->i915_create_bytes + st->xe_bo_bytes;
	uint64_t moved = st->amd_move_bytes + st->xe_move_bytes - st->xe_move_new_bytes;
	struct xp_series *x, *y;

	if (xp_mem_add(st, l, r))
		return 1;
	bos = st->amd_bos + st->i915_creates + st->xe_bos - bos;
	bytes = st->amd_bo_bytes + st->i915_create_bytes + st->xe_bo_bytes - bytes;
	moved = st->amd_move_bytes + st->xe_move_bytes - st->xe_move_new_bytes - moved;
	/* its per-process table is its reports': started over before it fills */
	if (st->nprocs >= XP_MEM_MAX_PROCS - 1)
		xp_mem_reset(st);
	if (bos) {
		uint64_t cg = xp_metrics_pid_cgroup(&s->in, r->hdr.pid, xp_rawtp_cgroup(r));
		uint64_t pid = s->in.per_process ? r->hdr.pid : 0;
		struct xp_rec_labels c = { .in = &s->in, .task = true, .cgroup_id = cg, .pid = r->hdr.pid,
					   .comm = r->comm, .name = { "driver" }, .value = { driver_of(r->ev) } };
		struct xp_metric_key k = { { cg, pid, (uint64_t)driver_of(r->ev)[0], 0 } };

		if (!(x = xp_metrics_series(m, s->bos, &k, xp_rec_labels, &c)) ||
		    !(y = xp_metrics_series(m, s->bytes, &k, xp_rec_labels, &c)))
			return -ENOMEM;
		x->value += bos;
		y->value += bytes;
	}
	if (moved) {
		struct xp_rec_labels c = { .in = &s->in, .name = { "driver" }, .value = { driver_of(r->ev) } };
		struct xp_metric_key k = { { (uint64_t)driver_of(r->ev)[0], 0, 0, 0 } };

		if (!(x = xp_metrics_series(m, s->moved, &k, xp_rec_labels, &c)))
			return -ENOMEM;
		x->value += moved;
	}
	return 0;
}
