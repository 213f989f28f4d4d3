/* The sched capability's kernel side: the raw-tracepoint steps (kside.h) on
 * the sched skeleton, and the completion event as a raw tracepoint where it
 * loads (src/caps/sched/sched.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps/sched/sched_stats.h"
#include "caps/sched/sched_live.h"
#include "live/kside.h"
#include "sched.skel.h"

static void skel_destroy(void *skel) { sched_bpf__destroy(skel); }

/* The slot of links[] that holds the completion's raw tracepoint. */
#define DONE_LINK XP_RAWTP_MAX_EV

/*
 * Opens, loads and attaches the skeleton; with `done` (its event index in
 * done->ev), that event through the raw tracepoint program instead of its
 * classic one. On failure the caller closes k.
 */
static int load(struct xp_kside *k, struct xp_rawtp_layout *l, const struct xp_filters *f,
		const struct xp_live_share *share, const struct xp_sched_done_cfg *done, char *why,
		size_t whylen)
{
	struct sched_bpf *skel = sched_bpf__open();
	char name[32];
	int err;

	if (!skel) {
		err = -errno;
		snprintf(why, whylen, "opening the BPF object: %s", strerror(-err));
		return err;
	}
	k->skel = skel;
	k->obj = skel->obj;
	k->events = skel->maps.events;
	k->drops = skel->maps.drops;
	XP_APPLY_FILTERS(skel, f);
	err = xp_rawtp_live_prepare(k->obj, "sched", l, (struct xp_rawtp_cfg *)skel->rodata->xp_rawtp_cfg,
				    true, why, whylen);
	if (err)
		return err;
	bpf_program__set_autoload(skel->progs.xp_sched_done_raw, done != NULL);
	if (done) {
		snprintf(name, sizeof(name), "xp_sched_%d", done->ev);
		bpf_program__set_autoload(bpf_object__find_program_by_name(k->obj, name), false);
		memcpy((void *)&skel->rodata->xp_sched_done, done, sizeof(*done));
	}
	if ((err = xp_live_share_maps(share, k->events, k->drops, why, whylen)))
		return err;
	if ((err = sched_bpf__load(skel))) {
		snprintf(why, whylen, "loading the BPF programs: %s", strerror(-err));
		return err;
	}
	/* the completion first, so that every job seen running is seen done */
	if (done) {
		k->links[DONE_LINK] = bpf_program__attach_raw_tracepoint(skel->progs.xp_sched_done_raw,
									 l->ev[done->ev].name);
		if (!k->links[DONE_LINK]) {
			err = -errno;
			snprintf(why, whylen, "attaching the raw tracepoint %s: %s",
				 l->ev[done->ev].name, strerror(-err));
			return err;
		}
		l->present[done->ev] = false;	/* the classic attach skips it */
	}
	err = xp_rawtp_live_attach(k, "sched", l, why, whylen);
	if (done)
		l->present[done->ev] = true;
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
	struct xp_kside *k;
	int err;

	/* which events exist decides the generation, never the kernel version */
	err = xp_rawtp_live_layouts(l, why, whylen);
	if (err < 0)
		return err;
	if (!(k = xp_kside_new(NULL, skel_destroy)))
		return -ENOMEM;
	/*
	 * The completion event fires in an interrupt: as a classic tracepoint the
	 * kernel skips it whenever it interrupts another BPF tracepoint program.
	 * A raw tracepoint first; the classic one where that does not load or
	 * attach (no gpu_sched module BTF for the fence's CO-RE relocations).
	 */
	err = -ENOENT;
	if (xp_sched_done_cfg_fill(l, &done) >= 0) {
		err = load(k, l, &kf, share, &done, why, whylen);
		k->hook = "tracepoint+raw_tp";
		if (err) {
			xp_kside_detach(k);
			sched_bpf__destroy(k->skel);
			k->skel = NULL;
		}
	}
	if (err) {
		err = load(k, l, &kf, share, NULL, why, whylen);
		k->hook = "tracepoint";
	}
	if (err) {
		xp_kside_close(k);
		return err;
	}
	*out = k;
	return 0;
}
