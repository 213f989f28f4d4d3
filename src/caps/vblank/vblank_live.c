/* The vblank capability's kernel side: the drm vblank tracepoints copied raw,
 * and kprobes on the drm functions that know the asking file and the device. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps/vblank/vblank_stats.h"
#include "caps/vblank/vblank_live.h"
#include "vblank.skel.h"

static void skel_destroy(void *skel) { vblank_bpf__destroy(skel); }

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

/* Opens and loads the skeleton, with the probes' programs or without, the
 * drm events as raw tracepoints (raw) or classic ones. */
static int load(struct xp_kside *k, struct xp_rawtp_layout *l, const struct xp_filters *f,
		const struct xp_live_share *share, bool probes, bool raw, char *why, size_t whylen)
{
	struct vblank_bpf *skel = vblank_bpf__open();
	struct bpf_program *rp[XP_VBL_NDRM];
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
	rp[0] = skel->progs.xp_vbl_raw_0;
	rp[1] = skel->progs.xp_vbl_raw_1;
	rp[2] = skel->progs.xp_vbl_raw_2;
	if (raw && (err = xp_vbl_raw_cfg_fill(l, (struct xp_vbl_raw_cfg *)skel->rodata->xp_vbl_raw))) {
		snprintf(why, whylen, "the drm vblank events' fields do not map to their arguments");
		return err;
	}
	for (int i = 0; i < XP_VBL_NDRM; i++) {
		bpf_program__set_autoload(rp[i], raw && l->present[i]);
		if (raw)	/* the classic slot stays unloaded */
			bpf_program__set_autoload(bpf_object__find_program_by_name(k->obj, i == 0 ? "xp_vbl_0" :
						  i == 1 ? "xp_vbl_1" : "xp_vbl_2"), false);
	}
	for (int i = 0; i < NPROBES; i++)
		bpf_program__set_autoload(probe_prog(skel, i), probes);
	if ((err = xp_live_share_maps(share, k->events, k->drops, why, whylen)))
		return err;
	if ((err = vblank_bpf__load(skel)))
		snprintf(why, whylen, "loading the BPF programs: %s", strerror(-err));
	return err;
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

/* One way of opening; on failure k is left empty for the next. */
static int try_open(struct xp_kside *k, struct xp_rawtp_layout *l, const struct xp_filters *f,
		    const struct xp_live_share *share, bool probes, bool raw, char *why, size_t whylen)
{
	int err = load(k, l, f, share, probes, raw, why, whylen);

	/*
	 * The completions before the submits: a frame asked once the probes
	 * run then always has its completion traced too, and the completions
	 * seen before are of frames queued before tracing, said apart. The
	 * vblank's device probe comes before both, so no vblank is without it.
	 */
	if (!err && probes)	/* each vblank's device, from its first */
		err = attach_probes(k, 0, 1, why, whylen);
	if (!err)
		err = attach_events(k, l, raw, why, whylen);
	if (!err && probes)
		err = attach_probes(k, 1, NPROBES, why, whylen);
	if (err) {
		xp_kside_detach(k);
		if (k->skel)
			vblank_bpf__destroy(k->skel);
		k->skel = NULL;
		k->obj = NULL;
		k->detached = false;
	}
	return err;
}

int xp_vblank_live_open(struct xp_kside **out, struct xp_rawtp_layout *l,
			const struct xp_filters *f, const struct xp_live_share *share, bool *probes,
			char *note, size_t notelen, char *why, size_t whylen)
{
	/* tests pick one way: raw_tp+kprobe, raw_tp, tracepoint+kprobe, tracepoint */
	static const char *const hooks[] = { "raw_tp+kprobe", "raw_tp", "tracepoint+kprobe", "tracepoint" };
	const char *force = getenv("XPUTRACE_VBLANK_HOOK");
	char rawwhy[160] = "";
	struct xp_kside *k;
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
	if (!(k = xp_kside_new(NULL, skel_destroy)))
		return -ENOMEM;
	/*
	 * Raw tracepoints with the probes first; the probes are what is left out
	 * first (no kprobes, no drm BTF to relocate against), then the raw
	 * tracepoints (a kernel that cannot attach them to a module's events).
	 */
	if (h >= 0) {
		raw = h < 2;
		*probes = !(h & 1);
		err = try_open(k, l, f, share, *probes, raw, why, whylen);
		if (!*probes)
			snprintf(note, notelen, "XPUTRACE_VBLANK_HOOK=%s: no probes", force);
	} else if (!(err = try_open(k, l, f, share, true, true, note, notelen))) {
		*probes = true;
	} else if ((err = try_open(k, l, f, share, false, true, rawwhy, sizeof(rawwhy)))) {
		raw = false;
		if (!(err = try_open(k, l, f, share, true, false, rawwhy, sizeof(rawwhy))))
			*probes = true;
		else
			err = try_open(k, l, f, share, false, false, why, whylen);
	}
	if (err) {
		xp_kside_close(k);
		return err;
	}
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
