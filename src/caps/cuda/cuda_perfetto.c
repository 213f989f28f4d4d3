/* `cuda` in the Perfetto export: kernels and copies on a track per GPU stream, arrows from their launch call. */
#include <stdio.h>
#include <string.h>

#include "caps/cuda/cuda_report.h"
#include "sinks/perfetto.h"

/* A GPU stream's track: one per process, device, context and stream. */
static void stream_track(struct xp_perfetto *p, const struct xp_cuda_rec *r, uint32_t *pid, uint32_t *tid)
{
	uint64_t h = 1469598103934665603ull;
	uint32_t key[4] = { r->hdr.pid, r->device, r->context, r->stream };
	char name[80];

	for (size_t i = 0; i < sizeof(key); i++)
		h = (h ^ ((const unsigned char *)key)[i]) * 1099511628211ull;
	snprintf(name, sizeof(name), "%.16s/%u GPU %u stream %u", r->comm, r->hdr.pid, r->device, r->stream);
	xp_perfetto_track(p, "CUDA streams", (uint32_t)(h ^ (h >> 32)), name, pid, tid);
}

void xp_perfetto_cuda(struct xp_perfetto *p, const struct xp_cuda_rec *r, const struct xp_cuda_done *d)
{
	char comm[XP_COMM_LEN], what[24];
	uint32_t pid, tid;
	uint64_t id;

	if (r->what != XP_CUDA_KERNEL && r->what != XP_CUDA_MEMCPY && r->what != XP_CUDA_MEMSET)
		return;
	stream_track(p, r, &pid, &tid);
	snprintf(what, sizeof(what), "%s %s", r->what == XP_CUDA_MEMSET ? "memset" : "memcpy",
		 xp_cuda_dir_names[xp_cuda_dir(r->what, r->kind)]);
	xp_perfetto_slice_begin(p, pid, tid, r->what == XP_CUDA_KERNEL ? "cuda_kernel" : "cuda_copy",
				r->what == XP_CUDA_KERNEL ? r->name : what, r->hdr.ts_ns, r->end_ns - r->hdr.ts_ns);
	if (xp_perfetto_args(p)) {
		xp_json_ku64(&p->j, "corr", r->corr);
		if (r->what == XP_CUDA_KERNEL) {
			xp_json_ku64(&p->j, "grid_x", r->grid[0]);
			xp_json_ku64(&p->j, "block_x", r->block[0]);
		} else {
			xp_json_ku64(&p->j, "bytes", r->bytes);
		}
		if (d->joined)
			xp_json_ku64(&p->j, "launch_to_start_ns", r->hdr.ts_ns - d->launch_ts);
	}
	xp_perfetto_slice_end(p);
	if (!d->joined)
		return;
	/* the launch call: a zero-length slice on its thread for the arrow to start from */
	memcpy(comm, r->comm, sizeof(comm));
	comm[XP_COMM_LEN - 1] = 0;
	id = p->next_id++;
	xp_perfetto_name(p, r->hdr.pid, d->launch_tid, comm);
	xp_perfetto_slice_begin(p, r->hdr.pid, d->launch_tid, "cuda_launch", "launch", d->launch_ts, 0);
	if (xp_perfetto_args(p))
		xp_json_ku64(&p->j, "corr", r->corr);
	xp_perfetto_slice_end(p);
	xp_perfetto_flow(p, id, true, r->hdr.pid, d->launch_tid, d->launch_ts);
	xp_perfetto_flow(p, id, false, pid, tid, r->hdr.ts_ns);
}
