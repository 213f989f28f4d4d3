/* The sched capability's kernel side: the shared raw-tracepoint steps
 * (src/live/rawtp_live.h) on the sched skeleton. */
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
};

int xp_sched_live_open(struct xp_sched_live **out, struct xp_rawtp_layout *l,
		       const struct xp_live_share *share, char *why, size_t whylen)
{
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
	lv->skel = sched_bpf__open();
	if (!lv->skel) {
		err = -errno;
		snprintf(why, whylen, "opening the BPF object: %s", strerror(-err));
		free(lv);
		return err;
	}
	lv->skel->rodata->self_tgid = (uint32_t)getpid();
	err = xp_rawtp_live_prepare(lv->skel->obj, "sched", l,
				    (struct xp_rawtp_cfg *)lv->skel->rodata->xp_rawtp_cfg, why, whylen);
	if (!err && share)
		err = xp_live_share_maps(share, lv->skel->maps.events, lv->skel->maps.drops, why, whylen);
	if (!err && (err = sched_bpf__load(lv->skel)))
		snprintf(why, whylen, "loading the BPF programs: %s", strerror(-err));
	if (!err)
		err = xp_rawtp_live_attach(lv->skel->obj, "sched", l, lv->links, why, whylen);
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

void xp_sched_live_close(struct xp_sched_live *l)
{
	if (!l)
		return;
	xp_rawtp_live_detach(l->links);
	sched_bpf__destroy(l->skel);
	free(l);
}
