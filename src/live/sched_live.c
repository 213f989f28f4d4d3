/* The sched capability's kernel side: the shared raw-tracepoint steps
 * (src/live/rawtp_live.h) on the sched skeleton, and the completion event
 * as a raw tracepoint where it loads (src/shared/sched.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/capture.h"
#include "live/rawtp_live.h"
#include "live/tracefs.h"
#include "sched.skel.h"

struct xp_sched_live {
	struct sched_bpf *skel;
	struct bpf_link *links[XP_RAWTP_MAX_EV];
	struct bpf_link *done_link;	/* the completion event's raw tracepoint, or NULL */
	const char *hook;
};

static void unload(struct xp_sched_live *lv)
{
	xp_rawtp_live_detach(lv->links);
	bpf_link__destroy(lv->done_link);
	lv->done_link = NULL;
	sched_bpf__destroy(lv->skel);
	lv->skel = NULL;
}

/*
 * Opens, loads and attaches the skeleton; with `done` (its event index in
 * done->ev), that event through the raw tracepoint program instead of its
 * classic one. On failure the caller unloads.
 */
static int load(struct xp_sched_live *lv, struct xp_rawtp_layout *l,
		const struct xp_live_share *share, const struct xp_sched_done_cfg *done, char *why,
		size_t whylen)
{
	char name[32];
	int err;

	lv->skel = sched_bpf__open();
	if (!lv->skel) {
		err = -errno;
		snprintf(why, whylen, "opening the BPF object: %s", strerror(-err));
		return err;
	}
	lv->skel->rodata->self_tgid = (uint32_t)getpid();
	err = xp_rawtp_live_prepare(lv->skel->obj, "sched", l,
				    (struct xp_rawtp_cfg *)lv->skel->rodata->xp_rawtp_cfg, why, whylen);
	if (err)
		return err;
	bpf_program__set_autoload(lv->skel->progs.xp_sched_done_raw, done != NULL);
	if (done) {
		snprintf(name, sizeof(name), "xp_sched_%d", done->ev);
		bpf_program__set_autoload(bpf_object__find_program_by_name(lv->skel->obj, name), false);
		memcpy((void *)&lv->skel->rodata->xp_sched_done, done, sizeof(*done));
	}
	if (share && (err = xp_live_share_maps(share, lv->skel->maps.events, lv->skel->maps.drops,
					       why, whylen)))
		return err;
	if ((err = sched_bpf__load(lv->skel))) {
		snprintf(why, whylen, "loading the BPF programs: %s", strerror(-err));
		return err;
	}
	/* the completion first, so that every job seen running is seen done */
	if (done) {
		lv->done_link = bpf_program__attach_raw_tracepoint(lv->skel->progs.xp_sched_done_raw,
								   l->ev[done->ev].name);
		if (!lv->done_link) {
			err = -errno;
			snprintf(why, whylen, "attaching the raw tracepoint %s: %s",
				 l->ev[done->ev].name, strerror(-err));
			return err;
		}
		l->present[done->ev] = false;	/* the classic attach skips it */
	}
	err = xp_rawtp_live_attach(lv->skel->obj, "sched", l, lv->links, why, whylen);
	if (done)
		l->present[done->ev] = true;
	return err;
}

int xp_sched_live_open(struct xp_sched_live **out, struct xp_rawtp_layout *l,
		       const struct xp_live_share *share, char *why, size_t whylen)
{
	struct xp_sched_done_cfg done;
	struct xp_sched_live *lv;
	bool mounted;
	const char *tfs;
	int err;

	/* which events exist decides the generation, never the kernel version */
	xp_rawtp_layout_init(l, xp_sched_events, XP_TP_SCHED_MAX);
	if (!(tfs = xp_tracefs(why, whylen, &mounted)))
		return -ENODEV;
	err = xp_rawtp_layout_load(l, tfs, why, whylen);
	if (err <= 0)
		return err ? err : -ENOENT;
	if (!(lv = calloc(1, sizeof(*lv))))
		return -ENOMEM;
	/*
	 * The completion event fires in an interrupt: as a classic tracepoint the
	 * kernel skips it whenever it interrupts another BPF tracepoint program.
	 * A raw tracepoint first; the classic one where that does not load or
	 * attach (no gpu_sched module BTF for the fence's CO-RE relocations).
	 */
	err = -ENOENT;
	if (xp_sched_done_cfg_fill(l, &done) >= 0) {
		err = load(lv, l, share, &done, why, whylen);
		if (err)
			unload(lv);
		else
			lv->hook = "tracepoint+raw_tp";
	}
	if (err) {
		err = load(lv, l, share, NULL, why, whylen);
		lv->hook = "tracepoint";
	}
	if (err) {
		xp_sched_live_close(lv);
		return err;
	}
	*out = lv;
	return 0;
}

struct bpf_map *xp_sched_live_events(const struct xp_sched_live *l) { return l->skel->maps.events; }
struct bpf_map *xp_sched_live_drops(const struct xp_sched_live *l) { return l->skel->maps.drops; }
struct bpf_object *xp_sched_live_object(const struct xp_sched_live *l) { return l->skel->obj; }
const char *xp_sched_live_hook(const struct xp_sched_live *l) { return l->hook; }

void xp_sched_live_close(struct xp_sched_live *l)
{
	if (!l)
		return;
	unload(l);
	free(l);
}
