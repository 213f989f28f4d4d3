/* The api capability: GPU/NPU runtime calls joined with the ioctls they issued. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/api/api_live.h"
#include "caps/api/api_report.h"
#include "caps/api/api_stats.h"
#include "caps/cap.h"
#include "core/flight_trigger.h"
#include "core/msg.h"
#include "core/tracefile.h"
#include "live/features.h"

struct api_opts {
	struct xp_api_plan plan;	/* the built-in lists and --lib; files and notes once opened */
};

enum { O_LIB };

static const struct xp_cap_opt opts[] = {
	[O_LIB] = { "lib", 0, "PATH[:FUNC,...]", "also trace these functions of this library (a\npath, "
						   "or a name the loader finds); without\nFUNC, a built-in "
						   "library's list (repeatable)", true, NULL },
	{ NULL },
};

static void api_opts_init(void *p)
{
	xp_api_plan_init(&((struct api_opts *)p)->plan);
}

static int api_opt(void *p, int i, const char *arg)
{
	struct api_opts *o = p;
	char err[400];

	if (i != O_LIB)
		return xp_fail(2, "api: internal error: option %d", i);
	if (xp_api_plan_add_spec(&o->plan, arg, err, sizeof(err)))
		return xp_fail(2, "api: %s", err);
	return 0;
}

static bool api_available(const struct xp_doctor_env *d, char *why, size_t len)
{
	bool ok = d->at[XP_AT_UPROBE].ok;

	snprintf(why, len, "%s", ok ? "uprobes on runtime libraries (Level Zero, CUDA, OpenCL, Vulkan, HIP, HSA, libdrm)"
				 : d->at[XP_AT_UPROBE].why);
	return ok;
}

static int api_open(struct xp_cap_inst *ci, const struct xp_open_args *a, char *why, size_t len)
{
	struct api_opts *o = ci->opts;

	xp_api_plan_find(&o->plan, "");
	return xp_api_live_open(&ci->k, &o->plan, a->f, a->devs, a->aggregate, a->share, why, len);
}

static void api_no_events(const struct xp_cap_inst *ci, char *msg, size_t len)
{
	const struct api_opts *o = ci->opts;

	snprintf(msg, len, "no runtime function to trace here%s%s; give one with --lib PATH[:FUNC,...]",
		 o->plan.nnotes ? ": " : "", o->plan.nnotes ? o->plan.note[0] : "");
}

/* What the kernel counted at the interval's start, so a report shows its own interval's. */
struct api_inst {
	struct xp_api_state s;
	uint64_t deep_base, unmatched_base;
	uint64_t ended_base[XP_API_MAX_FN];
};

/* A library's file found while tracing (replaced, as a package upgrade does): traced too. */
static void attach_new(void *ctx, int li, int fi)
{
	struct xp_cap_inst *ci = ctx;
	struct xp_api_plan *p = &((struct api_opts *)ci->opts)->plan;
	const struct xp_api_lib *l = &p->lib[li];
	const char *how = "appeared";
	int n = xp_api_live_attach_file(ci->k, p, li, fi);

	for (int i = 0; i < fi; i++)
		if (!strcmp(l->file[i], l->file[fi]))
			how = "was replaced";
	if (n > 0)
		xp_api_plan_note(p, "%s %s while tracing: the new file is traced too (%d function%s)",
				 l->file[fi], how, n, n == 1 ? "" : "s");
	else
		xp_api_plan_note(p, "%s %s while tracing: the new file is not traced (%s); processes that "
				 "load it are not seen", l->file[fi], how, n ? strerror(-n) : "no function attached");
}

/*
 * Once a second (and before a report): libraries replaced or added while
 * tracing; in summary mode the calls the kernel counted.
 */
static int api_drain(struct xp_cap_inst *ci, bool tick)
{
	struct xp_api_plan *p = &((struct api_opts *)ci->opts)->plan;

	if (!ci->k)
		return 0;
	if (!ci->k->detached)
		xp_api_plan_recheck(p, "", attach_new, ci);
	if (!ci->st)
		return 0;
	return xp_api_live_drain(ci->k, p, &((struct api_inst *)ci->st)->s,
				 tick ? XP_DRAIN_TICK : ci->k->detached ? XP_DRAIN_ALL : XP_DRAIN_REPORT);
}

/* record: the same, once a second */
static int api_upkeep(struct xp_cap_inst *ci, uint64_t *let_go)
{
	(void)let_go;
	return api_drain(ci, true);
}

static void api_describe(const struct xp_cap_inst *ci, char *buf, size_t len)
{
	int nfn = 0, nfiles = 0;
	bool ioctls = false, multi = false;

	if (ci->k) {
		xp_api_live_attached(ci->k, &nfn, &nfiles, &ioctls);
		multi = !strncmp(ci->k->hook, "uprobe.multi", 12);
	}
	snprintf(buf, len, "runtime API calls: %d function%s in %d librar%s (%s)%s%s", nfn, nfn == 1 ? "" : "s",
		 nfiles, nfiles == 1 ? "y" : "ies", multi ? "uprobe.multi" : "uprobe",
		 ioctls ? ", their ioctls (tracepoint)" : "",
		 ci->st && ((const struct api_inst *)ci->st)->s.jobs_on ? ", their DRM scheduler jobs" : "");
}

static int api_init(struct xp_cap_inst *ci)
{
	struct api_inst *ai = calloc(1, sizeof(*ai));
	int err;

	if (!ai)
		return -ENOMEM;
	if ((err = xp_api_init(&ai->s))) {
		free(ai);
		return err;
	}
	ci->st = ai;
	return 0;
}

/* sched's analysis beside this one: it tells of every job, and the calls join them. */
static int api_link(struct xp_cap_inst *ci, struct xp_cap_inst *other)
{
	struct api_inst *ai = ci->st;

	if (strcmp(other->cap->name, "sched") || !other->st)
		return 0;
	if (ci->k)
		xp_api_live_follow_jobs(ci->k);
	return xp_api_follow_jobs(&ai->s, &((struct xp_sched_state *)other->st)->lis);
}

static void api_free(struct xp_cap_inst *ci)
{
	struct api_inst *ai = ci->st;

	xp_api_free(&ai->s);
	free(ai);
}

/* Whether the file holds `ioctl`'s records too: then that capability draws every ioctl. */
static bool recorded_ioctl(const struct xp_cap_env *e)
{
	for (int i = 0; e->meta && i < e->meta->ncaps; i++)
		if (!strcmp(e->meta->caps[i], "ioctl"))
			return true;
	return false;
}

static int api_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	struct api_inst *ai = ci->st;
	const struct xp_cap_env *e = ci->env;
	struct xp_api_joined j;
	int n;

	if (h->size < sizeof(struct xp_api_rec) || (n = xp_api_add(&ai->s, (const void *)h, &j)) < 0) {
		ci->undecodable++;
		return 0;
	}
	if (n && e->out == XP_OUT_PERFETTO) {
		xp_perfetto_api(e->pf, &j, e->devs, !recorded_ioctl(e));
		return 0;
	}
	if (n && e->out == XP_OUT_STREAM) {
		if (e->json)
			xp_api_stream_json(e->stream_json, &j, e->devs, e->t0);
		else
			xp_api_stream_text(e->f, &j, e->devs, e->t0);
	}
	return 0;
}

static void api_report(struct xp_cap_inst *ci, FILE *f, const struct xp_cap_report *r)
{
	uint64_t ended[XP_API_MAX_FN], open[XP_API_MAX_FN];
	struct api_inst *ai = ci->st;
	const struct api_opts *o = ci->opts;
	struct xp_api_report rep = {
		.st = &ai->s, .devs = ci->env->devs, .ri = r->ri, .hist = r->hist, .final = r->final,
		.undecodable = ci->undecodable,
	};

	if (r->final)
		xp_api_finish(&ai->s);	/* calls still waiting for a job: never done */
	if (ci->env->live && o) {
		rep.notes = o->plan.note;
		rep.nnotes = o->plan.nnotes;
	}
	if (ci->k) {
		xp_api_live_counts(ci->k, &rep.too_deep, &rep.unmatched);
		rep.too_deep -= ai->deep_base;
		rep.unmatched -= ai->unmatched_base;
		xp_api_live_lost(ci->k, ended, open);
		for (int i = 0; i < XP_API_MAX_FN; i++)
			ended[i] -= ai->ended_base[i];
		rep.lost_known = true;
		rep.fns = o->plan.fn;
		rep.nfn = o->plan.nfn;
		rep.ended = ended;
		rep.open = open;
	}
	(r->json ? xp_api_report_json : xp_api_report_text)(f, &rep);
}

static void api_reset(struct xp_cap_inst *ci, uint64_t now)
{
	struct api_inst *ai = ci->st;

	(void)now;
	if (ci->k) {
		uint64_t open[XP_API_MAX_FN];

		xp_api_live_counts(ci->k, &ai->deep_base, &ai->unmatched_base);
		xp_api_live_lost(ci->k, ai->ended_base, open);
	}
	xp_api_reset(&ai->s);
}

/* record --trigger api:over=T[:FUNCTION]: a traced call longer than T */
static bool api_trigger(const struct xp_cap_inst *ci, const struct xp_trigger *t, const struct xp_rec_hdr *h,
			uint64_t *when)
{
	const struct xp_api_rec *rec = (const void *)h;

	(void)ci;
	if (h->size < sizeof(*rec) || t->kind != XP_TRIG_OVER || rec->what != XP_API_CALL ||
	    rec->end_ns < h->ts_ns || rec->end_ns - h->ts_ns <= t->over_ns)
		return false;
	*when = rec->end_ns;
	return !t->name[0] || !strncmp(rec->name, t->name, sizeof(rec->name));
}

const struct xp_cap xp_cap_api = {
	.name = "api",
	.summary = "GPU/NPU runtime calls (Level Zero, CUDA, OpenCL, Vulkan, HIP, HSA, libdrm) joined with their ioctls",
	.about =
"User-space runtime calls by uprobe and uretprobe, each joined with the ioctls\n"
"its thread issued inside it on traced device nodes (named as `ioctl` names\n"
"them). Built in: Level Zero (libze_loader.so.1), CUDA (libcuda.so.1), OpenCL\n"
"(libOpenCL.so.1), Vulkan (libvulkan.so.1), HIP (libamdhip64.so.5), HSA\n"
"(libhsa-runtime64.so.1), libdrm (libdrm.so.2, libdrm_amdgpu.so.1): their\n"
"submits, allocations, copies and waits. Libraries\n"
"are found in the mappings of running processes (containers' too, through\n"
"/proc/PID/root) and on the loader's paths, so processes that start later are\n"
"traced too; --lib adds any library and functions. A library or function not\n"
"found is a note, not a failure. A library replaced while tracing (a package\n"
"upgrade) is traced in its new file too, with a note. Calls that never return\n"
"(their thread ended inside them, or still in flight at the end) are noted.\n"
"  per function and process: calls, errors (a nonzero return for ze/cu/cl/vk/\n"
"          hip/hsa, a negative one for libdrm; hsa_signal_wait_* return a\n"
"          value, never an error) by value, latency p50/p99/max, ioctls per\n"
"          call and their names, calls that issued no ioctl (the runtime\n"
"          submitted without the kernel: a user-mode queue).\n"
"Where the kernel has gpu_scheduler events (see `sched`), the DRM scheduler jobs\n"
"each call queued are joined too: jobs per call, and call -> the last of its\n"
"jobs done (p50/p99/max); `record` them with `api sched` for `report`.\n"
"--stream prints one line per call with its ioctls (and jobs). Calls nest\n"
"(drmIoctl inside amdgpu_cs_submit_raw2): an ioctl or job counts for every\n"
"traced call around it.\n",
	.examples =
"  xputrace api -d 10                   10 s of runtime calls and their ioctls\n"
"  xputrace api --stream -c python3     one application's calls as they return\n"
"  xputrace api --lib ./libfoo.so:foo_submit,foo_wait   any library's functions\n",
	.flags = XP_CAP_DEVICES | XP_CAP_SAYS_UNDECODABLE | XP_CAP_STREAM_TICK,
	.rec = &xp_api_rec_kind,
	.opts = opts, .opts_size = sizeof(struct api_opts), .opts_init = api_opts_init, .opt = api_opt,
	.available = api_available, .open = api_open, .no_events = api_no_events, .describe = api_describe,
	.init = api_init, .free = api_free, .feed = api_feed, .drain = api_drain, .upkeep = api_upkeep,
	.stream_header = xp_api_stream_header,
	.report = api_report, .reset = api_reset, .file_hook = "uprobe",
	.triggers = "over", .trigger_match = api_trigger,
	.joins = "sched", .link = api_link,
};
