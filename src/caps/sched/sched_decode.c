/* sched: the gpu_scheduler events, their layouts, and decoding one raw record
 * into an xp_sched_event (src/caps/sched/sched_stats.h); the job table that the
 * events feed is in sched_stats.c. */
#include <errno.h>
#include <string.h>

#include "caps/sched/sched_stats.h"

/*
 * Run and done fire in the scheduler's worker or an interrupt, so the pid and
 * comm filters apply after the join (see the header). The queue events fire
 * in the submitting process (drm_sched_entity_push_job, from its submit
 * ioctl): only they are marked proc_ctx, for the kernel-side cgroup filter.
 */
#define EV(n) { "gpu_scheduler", n, { "name", NULL }, false }
#define EVP(n) { "gpu_scheduler", n, { "name", NULL }, true }
const struct xp_rawtp_event xp_sched_events[XP_TP_SCHED_MAX] = {
	[XP_TP_DRM_SCHED_JOB] = EVP("drm_sched_job"),
	[XP_TP_DRM_RUN_JOB] = EV("drm_run_job"),
	[XP_TP_DRM_SCHED_PROCESS_JOB] = EV("drm_sched_process_job"),
	[XP_TP_DRM_SCHED_JOB_WAIT_DEP] = EV("drm_sched_job_wait_dep"),
	[XP_TP_DRM_SCHED_JOB_QUEUE] = EVP("drm_sched_job_queue"),
	[XP_TP_DRM_SCHED_JOB_RUN] = EV("drm_sched_job_run"),
	[XP_TP_DRM_SCHED_JOB_DONE] = EV("drm_sched_job_done"),
	[XP_TP_DRM_SCHED_JOB_ADD_DEP] = EV("drm_sched_job_add_dep"),
	[XP_TP_DRM_SCHED_JOB_UNSCHEDULABLE] = EV("drm_sched_job_unschedulable"),
};
#undef EV
#undef EVP

const char *xp_sched_tp_name(int tp)
{
	return tp >= 0 && tp < XP_TP_SCHED_MAX ? xp_sched_events[tp].name : "?";
}

int xp_sched_tp_gen(int tp)
{
	return tp < XP_TP_DRM_SCHED_JOB_QUEUE ? 1 : 2;
}

int xp_sched_layout_gen(const struct xp_rawtp_layout *l, int *nevents)
{
	int gen = 0, n = 0;

	for (int tp = 0; tp < l->n && tp < XP_TP_SCHED_MAX; tp++)
		if (l->present[tp]) {
			n++;
			if (xp_sched_tp_gen(tp) > gen)
				gen = xp_sched_tp_gen(tp);
		}
	if (nevents)
		*nevents = n;
	return gen;
}

static int u64_field(const struct xp_tp_format *f, const char *name, int16_t *off)
{
	const struct xp_tp_field *fld = xp_tp_field(f, name);

	if (!fld || fld->size != 8 || fld->data_loc || fld->offset + 8 > XP_RAWTP_RAW)
		return -EINVAL;
	*off = (int16_t)fld->offset;
	return 0;
}

int xp_sched_done_cfg_fill(const struct xp_rawtp_layout *l, struct xp_sched_done_cfg *c)
{
	static const int done[] = { XP_TP_DRM_SCHED_JOB_DONE, XP_TP_DRM_SCHED_PROCESS_JOB };
	const struct xp_tp_format *f;
	int tp = -1, err;

	memset(c, 0, sizeof(*c));
	c->fence_off = c->context_off = c->seqno_off = -1;
	for (size_t i = 0; tp < 0 && i < sizeof(done) / sizeof(done[0]); i++)
		if (done[i] < l->n && l->present[done[i]])
			tp = done[i];
	if (tp < 0)
		return -ENOENT;
	f = &l->fmt[tp];
	c->ev = (uint16_t)tp;
	c->raw_size = f->size < XP_RAWTP_RAW ? f->size : XP_RAWTP_RAW;
	if (tp == XP_TP_DRM_SCHED_PROCESS_JOB) {
		err = u64_field(f, "fence", &c->fence_off);
	} else {
		err = u64_field(f, "fence_context", &c->context_off);
		err = err ? err : u64_field(f, "fence_seqno", &c->seqno_off);
	}
	if (err) {
		c->fence_off = c->context_off = c->seqno_off = -1;
		return err;
	}
	return tp;
}

/* ---- decoding: one record into one xp_sched_event ---- */

/* gen 1 (up to Linux 6.16): a job is named by its finished fence's address and its id */
static int decode_gen1(const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r, int tp,
			struct xp_sched_event *ev)
{
	int err = 0;

	switch (tp) {
	case XP_TP_DRM_SCHED_JOB:
	case XP_TP_DRM_RUN_JOB:
		ev->kind = tp == XP_TP_DRM_SCHED_JOB ? XP_SCHED_QUEUE : XP_SCHED_RUN;
		err = xp_rawtp_u64(l, r, "fence", &ev->fence);
		err = err ? err : xp_rawtp_u64(l, r, "id", &ev->job_id);
		xp_rawtp_u64(l, r, "entity", &ev->entity);
		return err;
	case XP_TP_DRM_SCHED_PROCESS_JOB:
		ev->kind = XP_SCHED_DONE;
		err = xp_rawtp_u64(l, r, "fence", &ev->fence);
		return err;
	case XP_TP_DRM_SCHED_JOB_WAIT_DEP:
		ev->kind = XP_SCHED_DEP;
		err = xp_rawtp_u64(l, r, "id", &ev->job_id);
		xp_rawtp_u64(l, r, "fence", &ev->dep_fence);
		err = err ? err : xp_rawtp_u64(l, r, "ctx", &ev->dep_ctx);
		err = err ? err : xp_rawtp_u64(l, r, "seqno", &ev->dep_seqno);
		return err;
	}
	return err;
}

/* gen 2 (from Linux 6.17): a job is named by its finished fence (context, seqno) */
static int decode_gen2(const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r, int tp,
			struct xp_sched_event *ev)
{
	int err = 0;

	switch (tp) {
	case XP_TP_DRM_SCHED_JOB_QUEUE:
	case XP_TP_DRM_SCHED_JOB_RUN:
		ev->kind = tp == XP_TP_DRM_SCHED_JOB_QUEUE ? XP_SCHED_QUEUE : XP_SCHED_RUN;
		err = xp_rawtp_u64(l, r, "fence_context", &ev->ctx);
		err = err ? err : xp_rawtp_u64(l, r, "fence_seqno", &ev->seqno);
		if (!xp_rawtp_u64(l, r, "client_id", &ev->client_id))
			ev->has_client = true;
		return err;
	case XP_TP_DRM_SCHED_JOB_DONE:
		ev->kind = XP_SCHED_DONE;
		err = xp_rawtp_u64(l, r, "fence_context", &ev->ctx);
		err = err ? err : xp_rawtp_u64(l, r, "fence_seqno", &ev->seqno);
		return err;
	case XP_TP_DRM_SCHED_JOB_ADD_DEP:
	case XP_TP_DRM_SCHED_JOB_UNSCHEDULABLE:
		ev->kind = tp == XP_TP_DRM_SCHED_JOB_ADD_DEP ? XP_SCHED_DEP : XP_SCHED_UNSCHED;
		err = xp_rawtp_u64(l, r, "fence_context", &ev->ctx);
		err = err ? err : xp_rawtp_u64(l, r, "fence_seqno", &ev->seqno);
		err = err ? err : xp_rawtp_u64(l, r, "ctx", &ev->dep_ctx);
		err = err ? err : xp_rawtp_u64(l, r, "seqno", &ev->dep_seqno);
		return err;
	}
	return err;
}

int xp_sched_decode(const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r,
		    struct xp_sched_event *ev)
{
	uint64_t v;
	int tp = r->ev, err;

	if (tp >= XP_TP_SCHED_MAX || tp >= l->n || !l->present[tp])
		return -ENOENT;
	memset(ev, 0, sizeof(*ev));
	ev->gen = (uint8_t)xp_sched_tp_gen(tp);
	ev->ts = r->hdr.ts_ns;
	ev->pid = r->hdr.pid;
	ev->tid = r->hdr.tid;
	memcpy(ev->comm, r->comm, XP_COMM_LEN);
	ev->comm[XP_COMM_LEN - 1] = '\0';
	xp_rawtp_rec_str(r, 0, ev->ring, sizeof(ev->ring));
	err = ev->gen == 1 ? decode_gen1(l, r, tp, ev) : decode_gen2(l, r, tp, ev);
	if (err)
		return -EBADMSG;
	if (ev->kind == XP_SCHED_QUEUE || ev->kind == XP_SCHED_RUN) {
		if (!xp_rawtp_u64(l, r, "job_count", &v)) {
			ev->has_counts = true;
			ev->job_count = (uint32_t)v;
			if (!xp_rawtp_u64(l, r, "hw_job_count", &v))
				ev->hw_job_count = (int32_t)v;
		}
	}
	return 0;
}
