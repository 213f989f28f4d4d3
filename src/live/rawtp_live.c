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

/* The tracefs layouts, then an empty capture: NULL with *err set on failure. */
static struct xp_rawtp_live *live_new(struct xp_rawtp_layout *l, int *err, char *why, size_t whylen)
{
	bool mounted;
	const char *tfs = xp_tracefs(why, whylen, &mounted);
	struct xp_rawtp_live *lv;
	int n;

	if (!tfs) {
		*err = -ENODEV;
		return NULL;
	}
	n = xp_rawtp_layout_load(l, tfs, why, whylen);
	if (n <= 0) {
		*err = n < 0 ? n : -ENOENT;
		return NULL;
	}
	if (!(lv = calloc(1, sizeof(*lv))))
		*err = -ENOMEM;
	return lv;
}

static int open_failed(struct xp_rawtp_live *lv, char *why, size_t whylen)
{
	int err = -errno;

	snprintf(why, whylen, "opening the BPF object: %s", strerror(-err));
	free(lv);
	return err;
}

/*
 * The steps after the skeleton is open and configured (err: how that went):
 * share the ring buffer and drop counters, load, attach. On failure the
 * capture is closed.
 */
static int live_finish(struct xp_rawtp_live *lv, const char *cap, struct xp_rawtp_layout *l,
		       const struct xp_live_share *share, int (*load)(struct xp_rawtp_live *), int err,
		       struct xp_rawtp_live **out, char *why, size_t whylen)
{
	if (!err && share)
		err = xp_live_share_maps(share, lv->events, lv->drops, why, whylen);
	if (!err && (err = load(lv)))
		snprintf(why, whylen, "loading the BPF programs: %s", strerror(-err));
	if (!err)
		err = xp_rawtp_live_attach(lv->obj, cap, l, lv->links, why, whylen);
	if (err) {
		xp_rawtp_live_close(lv);
		return err;
	}
	*out = lv;
	return 0;
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
	int err = 0;
	struct xp_rawtp_live *lv = live_new(l, &err, why, whylen);

	if (!lv)
		return err;
	if (!(lv->vblank = vblank_bpf__open()))
		return open_failed(lv, why, whylen);
	lv->obj = lv->vblank->obj;
	lv->events = lv->vblank->maps.events;
	lv->drops = lv->vblank->maps.drops;
	lv->vblank->rodata->self_tgid = (uint32_t)getpid();
	err = xp_rawtp_live_prepare(lv->obj, "vblank", l,
				    (struct xp_rawtp_cfg *)lv->vblank->rodata->xp_rawtp_cfg, why, whylen);
	return live_finish(lv, "vblank", l, share, vblank_load, err, out, why, whylen);
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
	int err = 0;
	struct xp_rawtp_live *lv = live_new(l, &err, why, whylen);

	if (!lv)
		return err;
	if (!(lv->mem = mem_bpf__open()))
		return open_failed(lv, why, whylen);
	lv->obj = lv->mem->obj;
	lv->events = lv->mem->maps.events;
	lv->drops = lv->mem->maps.drops;
	XP_APPLY_FILTERS(lv->mem, f ? f : &none);
	cfg = (struct xp_rawtp_cfg *)lv->mem->rodata->xp_rawtp_cfg;
	err = xp_rawtp_live_prepare(lv->obj, "mem", l, cfg, why, whylen);
	/* only events in the causing process's context can be filtered by process */
	for (int i = 0; !err && i < l->n; i++)
		cfg[i].filter = l->ev[i].proc_ctx;
	return live_finish(lv, "mem", l, share, mem_load, err, out, why, whylen);
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
