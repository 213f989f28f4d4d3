/* The vblank capability's kernel side: the drm vblank tracepoints copied raw,
 * and kprobes on the drm functions that know the asking file and the device. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps/vblank/vblank_stats.h"
#include "caps/vblank/vblank_live.h"
#include "live/skel.h"
#include "vblank.skel.h"

XP_SKEL_OPS(vblank);

/*
 * The probes, in attach order: each vblank's device and the CRTCs' pipes
 * first (a frame asked once the submits are seen must find its vblanks on
 * its device), then the ioctl before what happens inside it.
 */
static const char *const probe_fn[] = { "drm_handle_vblank", "drm_crtc_arm_vblank_event",
					 "drm_crtc_send_vblank_event", "drm_ioctl", "drm_event_reserve_init",
					 "drm_event_reserve_init_locked" };
#define NPROBES 6
#define PROBE_LINK0 (XP_KSIDE_LINKS - NPROBES)

static struct bpf_program *probe_prog(struct vblank_bpf *skel, int i)
{
	struct bpf_program *p[NPROBES] = { skel->progs.xp_vbl_handle, skel->progs.xp_vbl_pipe,
					   skel->progs.xp_vbl_pipe, skel->progs.xp_vbl_ioctl,
					   skel->progs.xp_vbl_reserve, skel->progs.xp_vbl_reserve_locked };
	return p[i];
}

/* One way of opening: the probes' programs or not, the drm events as raw tracepoints (raw) or classic ones. */
struct way {
	struct xp_rawtp_layout *l;
	bool probes, raw;
};

static int configure(struct xp_kside *k, void *ctx, char *why, size_t whylen)
{
	const struct way *w = ctx;
	struct xp_rawtp_layout *l = w->l;
	struct vblank_bpf *skel = k->skel;
	struct bpf_program *rp[XP_VBL_NDRM];
	int err;

	err = xp_rawtp_live_prepare(k->obj, "vbl", l, (struct xp_rawtp_cfg *)skel->rodata->xp_rawtp_cfg,
				    true, why, whylen);
	if (err)
		return err;
	rp[0] = skel->progs.xp_vbl_raw_0;
	rp[1] = skel->progs.xp_vbl_raw_1;
	rp[2] = skel->progs.xp_vbl_raw_2;
	if (w->raw && (err = xp_vbl_raw_cfg_fill(l, (struct xp_vbl_raw_cfg *)skel->rodata->xp_vbl_raw))) {
		snprintf(why, whylen, "the drm vblank events' fields do not map to their arguments");
		return err;
	}
	for (int i = 0; i < XP_VBL_NDRM; i++) {
		bpf_program__set_autoload(rp[i], w->raw && l->present[i]);
		if (w->raw)	/* the classic slot stays unloaded */
			bpf_program__set_autoload(bpf_object__find_program_by_name(k->obj, i == 0 ? "xp_vbl_0" :
						  i == 1 ? "xp_vbl_1" : "xp_vbl_2"), false);
	}
	for (int i = 0; i < NPROBES; i++)
		bpf_program__set_autoload(probe_prog(skel, i), w->probes);
	return 0;
}

/* Probes [from, to) of probe_fn. */
static int attach_probes(struct xp_kside *k, int from, int to, char *why, size_t whylen)
{
	struct vblank_bpf *skel = k->skel;

	for (int i = from; i < to; i++) {
		k->links[PROBE_LINK0 + i] = bpf_program__attach_kprobe(probe_prog(skel, i), false, probe_fn[i]);
		if (!k->links[PROBE_LINK0 + i]) {
			int err = -errno;

			snprintf(why, whylen, "no kprobe on %s: %s", probe_fn[i], strerror(-err));
			return err;
		}
	}
	return 0;
}

/* The drm events, last first (deliveries before their queueing is watched
 * would pair with nothing): raw tracepoints, or the classic slots. */
static int attach_events(struct xp_kside *k, struct xp_rawtp_layout *l, bool raw, char *why,
			 size_t whylen)
{
	struct vblank_bpf *skel = k->skel;
	struct bpf_program *rp[XP_VBL_NDRM] = { skel->progs.xp_vbl_raw_0, skel->progs.xp_vbl_raw_1,
						skel->progs.xp_vbl_raw_2 };

	if (!raw)
		return xp_rawtp_live_attach(k, "vbl", l, why, whylen);
	for (int i = XP_VBL_NDRM - 1; i >= 0; i--) {
		if (!l->present[i])
			continue;
		k->links[i] = bpf_program__attach_raw_tracepoint(rp[i], l->ev[i].name);
		if (!k->links[i]) {
			int err = -errno;

			snprintf(why, whylen, "attaching the raw tracepoint %s: %s", l->ev[i].name,
				 strerror(-err));
			return err;
		}
	}
	return 0;
}

static int attach(struct xp_kside *k, void *ctx, char *why, size_t whylen)
{
	const struct way *w = ctx;
	int err = 0;

	/*
	 * The completions before the submits: a frame asked once the probes
	 * run then always has its completion traced too, and the completions
	 * seen before are of frames queued before tracing, said apart. The
	 * vblank's device probe comes before both, so no vblank is without it.
	 */
	if (w->probes)	/* each vblank's device, from its first */
		err = attach_probes(k, 0, 1, why, whylen);
	if (!err)
		err = attach_events(k, w->l, w->raw, why, whylen);
	if (!err && w->probes)
		err = attach_probes(k, 1, NPROBES, why, whylen);
	return err;
}

/* One way of opening, into *out. */
static int try_open(struct xp_kside **out, struct xp_rawtp_layout *l, const struct xp_filters *f,
		    const struct xp_live_share *share, bool probes, bool raw, char *why, size_t whylen)
{
	struct way w = { l, probes, raw };
	struct xp_skel_steps s = { .f = f, .share = share, .configure = configure, .attach = attach,
				   .ctx = &w };

	return xp_skel_open(out, &vblank_skel_ops, &s, why, whylen);
}

int xp_vblank_live_open(struct xp_kside **out, struct xp_rawtp_layout *l,
			const struct xp_filters *f, const struct xp_live_share *share, bool *probes,
			char *note, size_t notelen, char *why, size_t whylen)
{
	/* tests pick one way: raw_tp+kprobe, raw_tp, tracepoint+kprobe, tracepoint */
	static const char *const hooks[] = { "raw_tp+kprobe", "raw_tp", "tracepoint+kprobe", "tracepoint" };
	const char *force = getenv("XPUTRACE_VBLANK_HOOK");
	char rawwhy[160] = "";
	struct xp_kside *k = NULL;
	bool raw = true;
	int h = -1, err;

	if (force && *force) {
		for (int i = 0; i < 4; i++)
			if (!strcmp(force, hooks[i]))
				h = i;
		if (h < 0) {
			snprintf(why, whylen, "XPUTRACE_VBLANK_HOOK=%s: not a hook (raw_tp+kprobe, raw_tp, "
					      "tracepoint+kprobe, tracepoint)", force);
			return -EINVAL;
		}
	}
	err = xp_rawtp_live_layouts(l, why, whylen);

	*probes = false;
	note[0] = '\0';
	if (err < 0)
		return err;
	/* the drm group's events only: the table's own records have no tracefs format */
	for (int i = XP_VBL_NDRM; i < l->n; i++)
		l->present[i] = false;
	/*
	 * Raw tracepoints with the probes first; the probes are what is left out
	 * first (no kprobes, no drm BTF to relocate against), then the raw
	 * tracepoints (a kernel that cannot attach them to a module's events).
	 */
	if (h >= 0) {
		raw = h < 2;
		*probes = !(h & 1);
		err = try_open(&k, l, f, share, *probes, raw, why, whylen);
		if (!*probes)
			snprintf(note, notelen, "XPUTRACE_VBLANK_HOOK=%s: no probes", force);
	} else if (!(err = try_open(&k, l, f, share, true, true, note, notelen))) {
		*probes = true;
	} else if ((err = try_open(&k, l, f, share, false, true, rawwhy, sizeof(rawwhy)))) {
		raw = false;
		if (!(err = try_open(&k, l, f, share, true, false, rawwhy, sizeof(rawwhy))))
			*probes = true;
		else
			err = try_open(&k, l, f, share, false, false, why, whylen);
	}
	if (err)
		return err;
	k->hook = raw ? (*probes ? "raw_tp+kprobe" : "raw_tp") : (*probes ? "tracepoint+kprobe" : "tracepoint");
	if (*probes) {
		note[0] = '\0';
		xp_rawtp_layout_parse(l, XP_VBL_SUBMIT, xp_vbl_probe_format(XP_VBL_SUBMIT));
		xp_rawtp_layout_parse(l, XP_VBL_CRTC, xp_vbl_probe_format(XP_VBL_CRTC));
		xp_rawtp_layout_parse(l, XP_VBL_PIPE, xp_vbl_probe_format(XP_VBL_PIPE));
	}
	*out = k;
	return 0;
}
