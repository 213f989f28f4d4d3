/* `api`'s kernel side: the program pair on every runtime function found, and the ioctl events. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "caps/api/api_live.h"
#include "caps/ioctl/ioctl_live.h"
#include "live/features.h"
#include "live/probe_attach.h"
#include "live/skel.h"
#include "live/tracefs.h"
#include "live/uprobe_multi.h"
#include "api.skel.h"

struct api_k {
	struct api_bpf *skel;
	struct bpf_link **links;	/* the uprobes: more than a kside holds */
	size_t nlinks, cap;
	int *fds;		/* uprobe.multi links: (return, entry) per file */
	int nfds;
	int nfn, nfiles;
	bool fn_on[XP_API_MAX_FN];	/* functions attached in some file */
	bool ioctls;
	bool multi;		/* uprobe.multi, not a uprobe perf event per function */
	bool aggregate;		/* summary mode: calls that need no record counted in the kernel */
	bool jobs_seen;		/* the DRM scheduler's queue event marks the calls around a job */
	uint32_t undrained;	/* the oldest generation whose counts are not all taken out yet */
};

/* the uprobes' links, entry probes first (a call beginning now is not seen to end only) */
static void destroy_links(struct api_k *ak)
{
	for (int pass = 1; pass >= 0; pass--) {
		for (int i = pass; i < ak->nfds; i += 2)
			close(ak->fds[i]);
		for (size_t i = (size_t)pass; i < ak->nlinks; i += 2)
			bpf_link__destroy(ak->links[i]);
	}
	ak->nfds = 0;
	ak->nlinks = 0;
}

/* with the kernel side's own (k->on_detach) */
static void links_destroy(struct xp_kside *k)
{
	if (k->priv)
		destroy_links(k->priv);
}

static void ak_free(void *p)
{
	struct api_k *ak = p;

	if (!ak)
		return;
	destroy_links(ak);
	free(ak->links);
	free(ak->fds);
	free(ak);
}

XP_SKEL_OPS(api);

/* a (return, entry) pair of links, kept together or destroyed together */
static int keep_links(struct api_k *ak, struct bpf_link *ret, struct bpf_link *ent)
{
	if (ak->nlinks + 2 > ak->cap) {
		size_t n = ak->cap ? 2 * ak->cap : 64;
		struct bpf_link **v = realloc(ak->links, n * sizeof(*v));

		if (!v) {
			bpf_link__destroy(ent);
			bpf_link__destroy(ret);
			return -ENOMEM;
		}
		ak->links = v;
		ak->cap = n;
	}
	ak->links[ak->nlinks++] = ret;
	ak->links[ak->nlinks++] = ent;
	return 0;
}

/* A probe's cookie: the function's index, its rule above (api.bpf.c reads both). */
static uint64_t cookie_of(const struct xp_api_plan *p, int fn)
{
	return (uint64_t)(uint32_t)fn | (uint64_t)p->fn[fn].rule << 32;
}

/*
 * uprobe.multi: the functions of `l` that file `fi` has, two links (the
 * return probes first). Those it lacks into one note. The number
 * attached, or a negative error.
 */
static int attach_file_multi(struct api_k *ak, struct xp_api_plan *p, const struct xp_api_lib *l, int fi,
			     bool *fn_on)
{
	const char *names[XP_API_MAX_FN];
	uint64_t off[XP_API_MAX_FN], offs[XP_API_MAX_FN], cookies[XP_API_MAX_FN];
	char lacks[XP_API_NOTE_LEN] = "";
	int n = 0, nlack = 0, fds[2], *v, found;

	for (int i = 0; i < l->nfn; i++)
		names[i] = p->fn[l->first_fn + i].name;
	found = xp_elf_func_offsets(l->file[fi], names, l->nfn, off);
	if (found < 0) {
		xp_api_plan_note(p, "%s: not an ELF file a uprobe can go into: %s", l->file[fi], strerror(-found));
		return 0;
	}
	for (int i = 0; i < l->nfn; i++) {
		if (off[i]) {
			offs[n] = off[i];
			cookies[n++] = cookie_of(p, l->first_fn + i);
			continue;
		}
		nlack++;
		snprintf(lacks + strlen(lacks), sizeof(lacks) - strlen(lacks), "%s%s", lacks[0] ? ", " : "",
			 names[i]);
	}
	if (nlack)
		xp_api_plan_note(p, "%s: %d of %d functions not in it: %s", l->file[fi], nlack, l->nfn, lacks);
	if (!n)
		return 0;
	fds[0] = xp_umulti_attach(bpf_program__fd(ak->skel->progs.api_exit), l->file[fi], offs, cookies, n, true);
	fds[1] = fds[0] < 0 ? fds[0] :
		 xp_umulti_attach(bpf_program__fd(ak->skel->progs.api_enter), l->file[fi], offs, cookies, n, false);
	if (fds[1] < 0) {
		if (fds[0] >= 0)
			close(fds[0]);
		xp_api_plan_note(p, "%s: attaching uprobes: %s", l->file[fi], strerror(-fds[1]));
		return fds[1] == -EINTR ? -EINTR : 0;
	}
	if (!(v = realloc(ak->fds, (size_t)(ak->nfds + 2) * sizeof(*v)))) {
		close(fds[1]);
		close(fds[0]);
		return -ENOMEM;
	}
	ak->fds = v;
	v[ak->nfds++] = fds[0];
	v[ak->nfds++] = fds[1];
	for (int i = 0; i < n; i++)
		fn_on[(uint32_t)cookies[i]] = true;
	return n;
}

/*
 * Every function of `l` in its file `fi`: the return probe first, so a call
 * that starts while attaching is not cut in two. Functions the file lacks go
 * into one note. The number attached, or a negative error.
 */
static int attach_file(struct api_k *ak, struct xp_api_plan *p, const struct xp_api_lib *l, int fi,
		       bool *fn_on)
{
	char lacks[XP_API_NOTE_LEN] = "", why[400] = "";
	int n = 0, nlack = 0, err;

	for (int i = l->first_fn; i < l->first_fn + l->nfn; i++) {
		struct xp_probe pr = { .kind = XP_PROBE_URETPROBE, .cookie = cookie_of(p, i) };
		struct bpf_link *ret, *ent = NULL;

		snprintf(pr.name, sizeof(pr.name), "%s", p->fn[i].name);
		snprintf(pr.path, sizeof(pr.path), "%s", l->file[fi]);
		ret = xp_probe_attach(ak->skel->progs.api_exit, &pr, why, sizeof(why));
		if (ret) {
			pr.kind = XP_PROBE_UPROBE;
			if (!(ent = xp_probe_attach(ak->skel->progs.api_enter, &pr, why, sizeof(why))))
				bpf_link__destroy(ret);
		}
		if (!ent) {
			if (errno == EINTR)
				return -EINTR;	/* a signal during start-up: attach no more */
			if (errno == ENOENT) {
				nlack++;
				snprintf(lacks + strlen(lacks), sizeof(lacks) - strlen(lacks), "%s%s",
					 lacks[0] ? ", " : "", p->fn[i].name);
			} else {
				xp_api_plan_note(p, "%s", why);
			}
			continue;
		}
		if ((err = keep_links(ak, ret, ent)))
			return err;
		fn_on[i] = true;
		n++;
	}
	if (nlack)
		xp_api_plan_note(p, "%s: %d of %d functions not in it: %s", l->file[fi], nlack, l->nfn, lacks);
	return n;
}

static int attach_ioctls(struct xp_kside *k, struct api_k *ak, char *why, size_t len)
{
	if (!xp_tracefs(why, len, NULL))
		return -ENOENT;
	if (!(k->links[0] = bpf_program__attach(ak->skel->progs.api_ioctl_exit)) ||
	    !(k->links[1] = bpf_program__attach(ak->skel->progs.api_ioctl_enter))) {
		int err = -errno;

		snprintf(why, len, "the syscalls:sys_enter_ioctl/sys_exit_ioctl events: %s", strerror(-err));
		return err;
	}
	return 0;
}

/* Threads that end inside a call (exit or exec): their calls are counted, their frames freed. */
static int attach_ends(struct xp_kside *k, struct api_k *ak)
{
	if (!(k->links[2] = bpf_program__attach(ak->skel->progs.api_thread_exit)) ||
	    !(k->links[3] = bpf_program__attach(ak->skel->progs.api_thread_exec)))
		return -errno;
	return 0;
}

/*
 * Summary mode: the DRM scheduler's queue event (its 6.17+ name, then the
 * older one), so a call that queued a job keeps its record. Without the
 * event (no gpu_sched module) no job can be joined, and none is missed.
 */
static void attach_jobs(struct xp_kside *k, struct api_k *ak)
{
	static const char *const ev[] = { "drm_sched_job_queue", "drm_sched_job" };

	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]) && !ak->jobs_seen; i++) {
		if (!xp_tracefs_event_exists("gpu_scheduler", ev[i]))
			continue;
		k->links[4] = bpf_program__attach_tracepoint(ak->skel->progs.api_job_queued, "gpu_scheduler", ev[i]);
		ak->jobs_seen = k->links[4] != NULL;
	}
}

struct open_ctx {
	struct xp_api_plan *plan;
	const struct xp_devices *d;
};

static int configure(struct xp_kside *k, void *ctx, char *why, size_t len)
{
	struct api_bpf *skel = k->skel;

	(void)ctx, (void)why, (void)len;
	((struct api_k *)k->priv)->skel = skel;
	k->on_detach = links_destroy;
	if (((struct api_k *)k->priv)->multi) {
		bpf_program__set_expected_attach_type(skel->progs.api_enter,
						      (enum bpf_attach_type)XP_ATTACH_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(skel->progs.api_exit,
						      (enum bpf_attach_type)XP_ATTACH_UPROBE_MULTI);
	}
	skel->rodata->have_devs = 1;
	skel->rodata->cast_ok = xp_kernel_has_kfunc("bpf_rdonly_cast");
	return 0;
}

static int attach(struct xp_kside *k, void *vctx, char *why, size_t len)
{
	bool *fn_on = ((struct api_k *)k->priv)->fn_on;
	const struct open_ctx *c = vctx;
	struct xp_api_plan *plan = c->plan;
	struct api_bpf *skel = k->skel;
	struct api_k *ak = k->priv;
	char iwhy[200];
	int err = 0;

	for (int i = 0; !err && i < plan->nfn; i++)
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.fns), &i, &plan->fn[i], BPF_ANY)) {
			err = -errno;
			snprintf(why, len, "filling the function table: %s", strerror(-err));
		}
	if (!err && (err = xp_ioctl_fill_device_maps(skel->maps.majors, skel->maps.devs, c->d, 0)))
		snprintf(why, len, "filling the device maps: %s", strerror(-err));
	if (err)
		return err;
	if (ak->aggregate) {
		attach_jobs(k, ak);
		skel->bss->agg_on = 1;
	}
	/* the ioctls before the calls: a call's ioctls are not missed while attaching */
	ak->ioctls = !attach_ioctls(k, ak, iwhy, sizeof(iwhy));
	if (!ak->ioctls)
		xp_api_plan_note(plan, "ioctls not joined: %s", iwhy);
	if ((err = attach_ends(k, ak)))
		xp_api_plan_note(plan, "calls whose thread ends inside them not counted: %s", strerror(-err));
	memset(fn_on, 0, XP_API_MAX_FN * sizeof(*fn_on));
	for (int li = 0; li < plan->nlib; li++)
		for (int fi = 0; fi < plan->lib[li].nfiles; fi++) {
			int n = ak->multi ? attach_file_multi(ak, plan, &plan->lib[li], fi, fn_on) :
					    attach_file(ak, plan, &plan->lib[li], fi, fn_on);

			if (n < 0) {
				snprintf(why, len, "attaching uprobes: %s", strerror(-n));
				return n;
			}
			ak->nfiles += n > 0;
		}
	for (int i = 0; i < plan->nfn; i++)
		ak->nfn += fn_on[i];
	if (!ak->nfn) {
		snprintf(why, len, "no runtime function attached (give a library with --lib PATH[:FUNC,...])");
		return -ENOENT;
	}
	return 0;
}

int xp_api_live_open(struct xp_kside **out, struct xp_api_plan *plan, const struct xp_filters *f,
		     const struct xp_devices *d, bool aggregate, const struct xp_live_share *share, char *why,
		     size_t len)
{
	struct open_ctx c = { plan, d };
	struct api_k *ak = calloc(1, sizeof(*ak));
	const char *force = getenv("XPUTRACE_API_HOOK");	/* tests pick one: uprobe, uprobe.multi */
	bool multi = force && *force ? !strcmp(force, "uprobe.multi") : xp_umulti_supported();
	struct xp_skel_steps steps = {
		.hook = multi ? "uprobe.multi+tracepoint" : "uprobe+tracepoint", .f = f, .share = share,
		.priv = ak, .priv_free = ak_free, .configure = configure, .attach = attach, .ctx = &c,
	};

	if (!ak)
		return -ENOMEM;
	ak->multi = multi;
	ak->aggregate = aggregate;
	return xp_skel_open(out, &api_skel_ops, &steps, why, len);
}

void xp_api_live_attached(const struct xp_kside *k, int *nfn, int *nfiles, bool *ioctls)
{
	const struct api_k *ak = k->priv;

	*nfn = ak->nfn;
	*nfiles = ak->nfiles;
	*ioctls = ak->ioctls;
}

void xp_api_live_counts(const struct xp_kside *k, uint64_t *too_deep, uint64_t *unmatched)
{
	const struct api_k *ak = k->priv;

	*too_deep = __atomic_load_n(&ak->skel->bss->api_too_deep, __ATOMIC_RELAXED);
	*unmatched = __atomic_load_n(&ak->skel->bss->api_unmatched, __ATOMIC_RELAXED);
}

int xp_api_live_attach_file(struct xp_kside *k, struct xp_api_plan *p, int li, int fi)
{
	struct api_k *ak = k->priv;
	bool was[XP_API_MAX_FN];
	int n;

	if (k->detached)
		return 0;
	memcpy(was, ak->fn_on, sizeof(was));
	n = ak->multi ? attach_file_multi(ak, p, &p->lib[li], fi, ak->fn_on) :
			attach_file(ak, p, &p->lib[li], fi, ak->fn_on);
	ak->nfiles += n > 0;
	for (int i = 0; i < p->nfn; i++)
		ak->nfn += ak->fn_on[i] && !was[i];
	return n;
}

/* The calls open in the threads whose frame is in the array, added to `open`. */
static void open_in_array(const struct api_k *ak, uint64_t open[XP_API_MAX_FN])
{
	int fd = bpf_map__fd(ak->skel->maps.fslots);
	struct xp_api_frame *v = calloc(XP_API_FRAME_SLOTS, sizeof(*v));
	uint32_t *keys = calloc(XP_API_FRAME_SLOTS, sizeof(*keys)), out, n = XP_API_FRAME_SLOTS;

	if (!v || !keys)
		goto out;
	/* in one batch where the kernel has them (5.6), one entry at a time where not */
	if (bpf_map_lookup_batch(fd, NULL, &out, keys, v, &n, NULL) && errno != ENOENT)
		for (uint32_t i = n = 0; i < XP_API_FRAME_SLOTS; i++)
			n += !bpf_map_lookup_elem(fd, &i, &v[n]);
	for (uint32_t j = 0; j < n && j < XP_API_FRAME_SLOTS; j++)
		for (uint32_t d = 0; v[j].tid && d < v[j].depth && d < XP_API_DEPTH; d++)
			if (v[j].fn[d] < XP_API_MAX_FN)
				open[v[j].fn[d]]++;
out:
	free(keys);
	free(v);
}

void xp_api_live_lost(const struct xp_kside *k, uint64_t ended[XP_API_MAX_FN], uint64_t open[XP_API_MAX_FN])
{
	const struct api_k *ak = k->priv;
	int efd = bpf_map__fd(ak->skel->maps.ended), ffd = bpf_map__fd(ak->skel->maps.frames);
	uint32_t tid, next, *prev = NULL;
	struct xp_api_frame f;
	struct xp_map_calls mc;

	memset(open, 0, XP_API_MAX_FN * sizeof(*open));
	xp_map_calls_begin(&mc);
	for (uint32_t i = 0; i < XP_API_MAX_FN; i++)
		if (bpf_map_lookup_elem(efd, &i, &ended[i]))
			ended[i] = 0;
	/* the calls open in the threads alive: in flight now (frames in the array, then the others) */
	open_in_array(ak, open);
	while (!bpf_map_get_next_key(ffd, prev, &next)) {
		if (!bpf_map_lookup_elem(ffd, &next, &f))
			for (uint32_t d = 0; d < f.depth && d < XP_API_DEPTH; d++)
				if (f.fn[d] < XP_API_MAX_FN)
					open[f.fn[d]]++;
		tid = next;
		prev = &tid;
	}
	xp_map_calls_end(&mc);
}

bool xp_api_live_aggregates(const struct xp_kside *k)
{
	const struct api_k *ak = k->priv;

	return ak->aggregate && ak->skel->bss->agg_on;
}

void xp_api_live_follow_jobs(struct xp_kside *k)
{
	struct api_k *ak = k->priv;

	/* jobs joined whose queue this side does not see: every call gets its record */
	if (!ak->jobs_seen)
		__atomic_store_n(&ak->skel->bss->agg_on, 0, __ATOMIC_RELAXED);
}

int xp_api_live_drain(struct xp_kside *k, const struct xp_api_plan *p, struct xp_api_state *s,
		      enum xp_drain how)
{
	static const struct xp_api_agg zero;
	struct api_k *ak = k->priv;
	struct api_bpf *skel = ak->skel;
	int fd = bpf_map__fd(skel->maps.agg), vfd = bpf_map__fd(skel->maps.aggv);
	int efd = bpf_map__fd(skel->maps.errs), err = 0, more;
	struct xp_api_agg *v;
	struct xp_api_agg_key key, next;
	struct xp_api_err_key ek, enext;
	struct xp_map_calls mc;
	uint32_t cur, slot, upto;
	uint64_t n;

	if (!ak->aggregate)
		return 0;
	if (!(v = malloc(sizeof(*v))))
		return -ENOMEM;
	/*
	 * As `ioctl`'s drain: new counts go to the next generation; a tick
	 * leaves the last one a second more (a program preempted in its update
	 * may still write to it), a report waits a moment instead, and once
	 * detached everything is taken.
	 */
	cur = ++skel->bss->drain_gen;
	xp_map_calls_begin(&mc);
	if (how == XP_DRAIN_REPORT)
		usleep(20000);
	for (more = !bpf_map_get_next_key(fd, NULL, &key); more && !err; key = next) {
		more = !bpf_map_get_next_key(fd, &key, &next);
		if (!xp_drain_ripe(key.gen, cur, how))
			continue;
		if ((err = xp_map_take(fd, &key, &slot)) || slot >= XP_API_AGG_ROWS)
			continue;
		if (bpf_map_lookup_elem(vfd, &slot, v) || bpf_map_update_elem(vfd, &slot, &zero, BPF_ANY)) {
			err = -errno;
			continue;
		}
		if (key.fn < (uint32_t)p->nfn)
			xp_api_add_counted(s, key.pid, &p->fn[key.fn], v);
	}
	/* after their entries: the rows are there */
	for (more = !bpf_map_get_next_key(efd, NULL, &ek); more && !err; ek = enext) {
		more = !bpf_map_get_next_key(efd, &ek, &enext);
		if (!xp_drain_ripe(ek.k.gen, cur, how) || (err = xp_map_take(efd, &ek, &n)))
			continue;
		if (ek.k.fn < (uint32_t)p->nfn)
			xp_api_add_counted_err(s, ek.k.pid, &p->fn[ek.k.fn], ek.ret, n);
	}
	/* the quarters of the generations taken out, empty now, for the generations to come */
	upto = how == XP_DRAIN_ALL ? cur + 1 : cur + 1 - (how == XP_DRAIN_TICK ? 2u : 1u);
	if (!err) {
		for (uint32_t g = ak->undrained, i = 0; g != upto && i < XP_API_AGG_GENS; g++, i++)
			__atomic_store_n(&skel->bss->agg_next[g % XP_API_AGG_GENS], 0, __ATOMIC_RELAXED);
		ak->undrained = upto;
	}
	xp_map_calls_end(&mc);
	free(v);
	return err;
}
