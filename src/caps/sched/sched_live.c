/* The sched capability's kernel side: the raw-tracepoint steps (kernel_side.h) on
 * the sched skeleton, and the completion event as a raw tracepoint where it
 * loads (src/caps/sched/sched.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps/sched/sched_stats.h"
#include "caps/sched/sched_live.h"
#include "live/kernel_side.h"
#include "live/skel.h"
#include "sched.skel.h"

XP_SKEL_OPS(sched);

/* The slot of links[] that holds the completion's raw tracepoint. */
#define DONE_LINK XP_RAWTP_MAX_EV

struct try {
	struct xp_rawtp_layout *l;
	const struct xp_sched_done_cfg *done;	/* the completion as a raw tracepoint, or NULL */
};

/*
 * The raw-tracepoint steps; with `done` (its event index in done->ev), that
 * event through the raw tracepoint program instead of its classic one.
 */
static int configure(struct xp_kside *k, void *ctx, char *why, size_t whylen)
{
	const struct try *t = ctx;
	struct sched_bpf *skel = k->skel;
	char name[32];
	int err;

	err = xp_rawtp_live_prepare(k->obj, "sched", t->l, (struct xp_rawtp_cfg *)skel->rodata->xp_rawtp_cfg,
				    true, why, whylen);
	if (err)
		return err;
	bpf_program__set_autoload(skel->progs.xp_sched_done_raw, t->done != NULL);
	if (t->done) {
		snprintf(name, sizeof(name), "xp_sched_%d", t->done->ev);
		bpf_program__set_autoload(bpf_object__find_program_by_name(k->obj, name), false);
		memcpy((void *)&skel->rodata->xp_sched_done, t->done, sizeof(*t->done));
	}
	return 0;
}

static int attach(struct xp_kside *k, void *ctx, char *why, size_t whylen)
{
	const struct try *t = ctx;
	struct sched_bpf *skel = k->skel;
	struct xp_rawtp_layout *l = t->l;
	int err;

	/* the completion first, so that every job seen running is seen done */
	if (t->done) {
		k->links[DONE_LINK] = bpf_program__attach_raw_tracepoint(skel->progs.xp_sched_done_raw,
									 l->ev[t->done->ev].name);
		if (!k->links[DONE_LINK]) {
			err = -errno;
			snprintf(why, whylen, "attaching the raw tracepoint %s: %s",
				 l->ev[t->done->ev].name, strerror(-err));
			return err;
		}
		l->present[t->done->ev] = false;	/* the classic attach skips it */
	}
	err = xp_rawtp_live_attach(k, "sched", l, why, whylen);
	if (t->done)
		l->present[t->done->ev] = true;
	return err;
}

int xp_sched_live_open(struct xp_kside **out, struct xp_rawtp_layout *l,
		       const struct xp_filters *f, const struct xp_live_share *share, char *why,
		       size_t whylen)
{
	/*
	 * pid and comm apply after the join (run and done fire in no submitter's
	 * context); only the cgroup filter runs in the kernel, on the queue events.
	 */
	struct xp_filters kf = { .cgroup_id = f ? f->cgroup_id : 0 };
	struct xp_sched_done_cfg done;
	struct try t = { l, &done };
	struct xp_skel_steps s = { .hook = "tracepoint+raw_tp", .f = &kf, .share = share,
				   .configure = configure, .attach = attach, .ctx = &t };
	int err;

	/* which events exist decides the generation, never the kernel version */
	err = xp_rawtp_live_layouts(l, why, whylen);
	if (err < 0)
		return err;
	/*
	 * The completion event fires in an interrupt: as a classic tracepoint the
	 * kernel skips it whenever it interrupts another BPF tracepoint program.
	 * A raw tracepoint first; the classic one where that does not load or
	 * attach (no gpu_sched module BTF for the fence's CO-RE relocations).
	 */
	err = -ENOENT;
	if (xp_sched_done_cfg_fill(l, &done) >= 0)
		err = xp_skel_open(out, &sched_skel_ops, &s, why, whylen);
	if (err) {
		t.done = NULL;
		s.hook = "tracepoint";
		err = xp_skel_open(out, &sched_skel_ops, &s, why, whylen);
	}
	return err;
}
