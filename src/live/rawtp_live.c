#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/rawtp_live.h"
#include "live/tracefs.h"
#include "live/capture.h"
#include "mem.skel.h"
#include "vblank.skel.h"

static struct bpf_program *prog(struct bpf_object *obj, const char *cap, int i)
{
	char name[64];

	snprintf(name, sizeof(name), "xp_%s_%d", cap, i);
	return bpf_object__find_program_by_name(obj, name);
}

int xp_rawtp_live_prepare(struct bpf_object *obj, const char *cap, const struct xp_rawtp_layout *l,
			  struct xp_rawtp_cfg *cfg, char *why, size_t whylen)
{
	struct xp_rawtp_cfg tmp[XP_RAWTP_MAX_EV];
	struct bpf_program *p;

	xp_rawtp_cfg_fill(l, tmp);
	memcpy(cfg, tmp, sizeof(tmp));
	for (int i = 0; i < XP_RAWTP_MAX_EV; i++) {
		p = prog(obj, cap, i);
		if (!p && i < l->n) {
			snprintf(why, whylen, "BPF program xp_%s_%d (%s) is missing", cap, i, l->ev[i].name);
			return -ENOENT;
		}
		if (p)
			bpf_program__set_autoload(p, i < l->n && l->present[i]);
	}
	return 0;
}

int xp_rawtp_live_attach(struct bpf_object *obj, const char *cap, const struct xp_rawtp_layout *l,
			 struct bpf_link *links[XP_RAWTP_MAX_EV], char *why, size_t whylen)
{
	/*
	 * Last event first: the tables list a capability's events from start to
	 * end (queue, run, done; queued, delivered; create, destroy), so the end
	 * of anything seen starting is already watched. The other order loses
	 * the completions of jobs that start and end while attaching.
	 */
	for (int i = l->n - 1; i >= 0; i--) {
		if (!l->present[i])
			continue;
		links[i] = bpf_program__attach_tracepoint(prog(obj, cap, i), l->group[i], l->ev[i].name);
		if (!links[i]) {
			int err = -errno;

			snprintf(why, whylen, "attaching to %s/%s: %s", l->group[i], l->ev[i].name,
				 strerror(-err));
			return err;
		}
	}
	return 0;
}

void xp_rawtp_live_detach(struct bpf_link *links[XP_RAWTP_MAX_EV])
{
	for (int i = 0; i < XP_RAWTP_MAX_EV; i++) {
		bpf_link__destroy(links[i]);
		links[i] = NULL;
	}
}

/* ---- per capability: the skeleton differs, the steps do not ---- */

struct xp_rawtp_live {
	struct vblank_bpf *vblank;
	struct mem_bpf *mem;
	struct bpf_object *obj;
	struct bpf_map *events, *drops;
	struct bpf_link *links[XP_RAWTP_MAX_EV];
};

static int load_layouts(struct xp_rawtp_layout *l, char *why, size_t whylen)
{
	bool mounted;
	const char *tfs = xp_tracefs(why, whylen, &mounted);
	int n;

	if (!tfs)
		return -ENODEV;
	n = xp_rawtp_layout_load(l, tfs, why, whylen);
	if (n < 0)
		return n;
	return n ? 0 : -ENOENT;
}

static int finish_open(struct xp_rawtp_live *lv, const char *cap, struct xp_rawtp_layout *l,
		       int (*load)(struct xp_rawtp_live *), char *why, size_t whylen)
{
	int err = load(lv);

	if (err) {
		snprintf(why, whylen, "loading the BPF programs: %s", strerror(-err));
		return err;
	}
	return xp_rawtp_live_attach(lv->obj, cap, l, lv->links, why, whylen);
}

static int vblank_load(struct xp_rawtp_live *lv) { return vblank_bpf__load(lv->vblank); }

int xp_vblank_live_open(struct xp_rawtp_live **out, struct xp_rawtp_layout *l, char *why,
			size_t whylen)
{
	return xp_vblank_live_open_shared(out, l, NULL, why, whylen);
}

int xp_vblank_live_open_shared(struct xp_rawtp_live **out, struct xp_rawtp_layout *l,
			       const struct xp_live_share *share, char *why, size_t whylen)
{
	struct xp_rawtp_live *lv;
	int err = load_layouts(l, why, whylen);

	if (err)
		return err;
	lv = calloc(1, sizeof(*lv));
	if (!lv)
		return -ENOMEM;
	lv->vblank = vblank_bpf__open();
	if (!lv->vblank) {
		err = -errno;
		snprintf(why, whylen, "opening the BPF object: %s", strerror(-err));
		free(lv);
		return err;
	}
	lv->obj = lv->vblank->obj;
	lv->events = lv->vblank->maps.events;
	lv->drops = lv->vblank->maps.drops;
	lv->vblank->rodata->self_tgid = (uint32_t)getpid();
	err = xp_rawtp_live_prepare(lv->obj, "vblank", l,
				    (struct xp_rawtp_cfg *)lv->vblank->rodata->xp_rawtp_cfg, why, whylen);
	if (!err && share)
		err = xp_live_share_maps(share, lv->events, lv->drops, why, whylen);
	if (!err)
		err = finish_open(lv, "vblank", l, vblank_load, why, whylen);
	if (err) {
		xp_rawtp_live_close(lv);
		return err;
	}
	*out = lv;
	return 0;
}

static int mem_load(struct xp_rawtp_live *lv) { return mem_bpf__load(lv->mem); }

int xp_mem_live_open_filtered(struct xp_rawtp_live **out, struct xp_rawtp_layout *l,
			      const struct xp_filters *f, char *why, size_t whylen)
{
	return xp_mem_live_open_shared(out, l, f, NULL, why, whylen);
}

int xp_mem_live_open_shared(struct xp_rawtp_live **out, struct xp_rawtp_layout *l,
			    const struct xp_filters *f, const struct xp_live_share *share, char *why,
			    size_t whylen)
{
	static const struct xp_filters none = { 0 };
	struct xp_rawtp_cfg *cfg;
	struct xp_rawtp_live *lv;
	int err = load_layouts(l, why, whylen);

	if (err)
		return err;
	lv = calloc(1, sizeof(*lv));
	if (!lv)
		return -ENOMEM;
	lv->mem = mem_bpf__open();
	if (!lv->mem) {
		err = -errno;
		snprintf(why, whylen, "opening the BPF object: %s", strerror(-err));
		free(lv);
		return err;
	}
	lv->obj = lv->mem->obj;
	lv->events = lv->mem->maps.events;
	lv->drops = lv->mem->maps.drops;
	XP_APPLY_FILTERS(lv->mem, f ? f : &none);
	cfg = (struct xp_rawtp_cfg *)lv->mem->rodata->xp_rawtp_cfg;
	err = xp_rawtp_live_prepare(lv->obj, "mem", l, cfg, why, whylen);
	/* only events in the causing process's context can be filtered by process */
	for (int i = 0; !err && i < l->n; i++)
		cfg[i].filter = l->ev[i].proc_ctx;
	if (!err && share)
		err = xp_live_share_maps(share, lv->events, lv->drops, why, whylen);
	if (!err)
		err = finish_open(lv, "mem", l, mem_load, why, whylen);
	if (err) {
		xp_rawtp_live_close(lv);
		return err;
	}
	*out = lv;
	return 0;
}

int xp_mem_live_open(struct xp_rawtp_live **out, struct xp_rawtp_layout *l, char *why,
		     size_t whylen)
{
	return xp_mem_live_open_filtered(out, l, NULL, why, whylen);
}

struct bpf_object *xp_rawtp_live_object(const struct xp_rawtp_live *lv) { return lv->obj; }
struct bpf_map *xp_rawtp_live_events(const struct xp_rawtp_live *lv) { return lv->events; }
struct bpf_map *xp_rawtp_live_drops(const struct xp_rawtp_live *lv) { return lv->drops; }

void xp_rawtp_live_close(struct xp_rawtp_live *lv)
{
	if (!lv)
		return;
	xp_rawtp_live_detach(lv->links);
	vblank_bpf__destroy(lv->vblank);
	mem_bpf__destroy(lv->mem);
	free(lv);
}
