/* The vblank capability's kernel side: the drm vblank tracepoints copied raw,
 * and kprobes on the drm functions that know the asking file and the device. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/vblank_stats.h"
#include "live/vblank_live.h"
#include "vblank.skel.h"

static void skel_destroy(void *skel) { vblank_bpf__destroy(skel); }

/* The probes, in attach order: the ioctl before what happens inside it. */
static const char *const probe_fn[] = { "drm_ioctl", "drm_event_reserve_init", "drm_handle_vblank" };
#define NPROBES 3
#define PROBE_LINK0 (XP_KSIDE_LINKS - NPROBES)

static struct bpf_program *probe_prog(struct vblank_bpf *skel, int i)
{
	struct bpf_program *p[NPROBES] = { skel->progs.xp_vbl_ioctl, skel->progs.xp_vbl_reserve,
					   skel->progs.xp_vbl_handle };
	return p[i];
}

/* Opens and loads the skeleton, with the probes' programs or without. */
static int load(struct xp_kside *k, struct xp_rawtp_layout *l, const struct xp_filters *f,
		const struct xp_live_share *share, bool probes, char *why, size_t whylen)
{
	struct vblank_bpf *skel = vblank_bpf__open();
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
	err = xp_rawtp_live_prepare(k->obj, "vbl", l, (struct xp_rawtp_cfg *)skel->rodata->xp_rawtp_cfg,
				    true, why, whylen);
	if (err)
		return err;
	for (int i = 0; i < NPROBES; i++)
		bpf_program__set_autoload(probe_prog(skel, i), probes);
	if ((err = xp_live_share_maps(share, k->events, k->drops, why, whylen)))
		return err;
	if ((err = vblank_bpf__load(skel)))
		snprintf(why, whylen, "loading the BPF programs: %s", strerror(-err));
	return err;
}

static int attach_probes(struct xp_kside *k, char *why, size_t whylen)
{
	struct vblank_bpf *skel = k->skel;

	for (int i = 0; i < NPROBES; i++) {
		k->links[PROBE_LINK0 + i] = bpf_program__attach_kprobe(probe_prog(skel, i), false, probe_fn[i]);
		if (!k->links[PROBE_LINK0 + i]) {
			int err = -errno;

			snprintf(why, whylen, "no kprobe on %s: %s", probe_fn[i], strerror(-err));
			for (int j = 0; j <= i; j++) {
				bpf_link__destroy(k->links[PROBE_LINK0 + j]);
				k->links[PROBE_LINK0 + j] = NULL;
			}
			return err;
		}
	}
	return 0;
}

int xp_vblank_live_open(struct xp_kside **out, struct xp_rawtp_layout *l,
			const struct xp_filters *f, const struct xp_live_share *share, bool *probes,
			char *note, size_t notelen, char *why, size_t whylen)
{
	struct xp_kside *k;
	int err = xp_rawtp_live_layouts(l, why, whylen);

	*probes = false;
	note[0] = '\0';
	if (err < 0)
		return err;
	/* the drm group's events only: the table's own records have no tracefs format */
	for (int i = XP_VBL_NDRM; i < l->n; i++)
		l->present[i] = false;
	if (!(k = xp_kside_new(NULL, skel_destroy)))
		return -ENOMEM;
	err = load(k, l, f, share, true, note, notelen);
	if (!err && !(err = attach_probes(k, note, notelen)))
		*probes = true;
	if (err) {
		/* without the probes (no kprobes, or no drm BTF to relocate against) */
		xp_kside_detach(k);
		vblank_bpf__destroy(k->skel);
		k->skel = NULL;
		k->detached = false;
		err = load(k, l, f, share, false, why, whylen);
	}
	k->hook = *probes ? "tracepoint+kprobe" : "tracepoint";
	if (!err)
		err = xp_rawtp_live_attach(k, "vbl", l, why, whylen);
	if (err) {
		xp_kside_close(k);
		return err;
	}
	if (*probes) {
		xp_rawtp_layout_parse(l, XP_VBL_SUBMIT, xp_vbl_probe_format(XP_VBL_SUBMIT));
		xp_rawtp_layout_parse(l, XP_VBL_CRTC, xp_vbl_probe_format(XP_VBL_CRTC));
	}
	*out = k;
	return 0;
}
