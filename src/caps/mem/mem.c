/* The mem capability: buffer memory and submissions of amdgpu, i915 and xe. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/cap.h"
#include "caps/mem/mem_metrics.h"
#include "caps/mem/mem_stats.h"
#include "core/msg.h"
#include "live/features.h"
#include "live/kernel_side.h"
#include "caps/mem/mem_report.h"
#include "sinks/perfetto.h"

#define MAX_GROUPS 8

struct mem_opts {
	int ngroups;
	char group_drv[MAX_GROUPS][16];
	const char *group_name[MAX_GROUPS];
};

static const struct xp_cap_opt opts[] = {
	{ "group", 0, "DRIVER=GROUP", "read DRIVER's events (amdgpu, i915, xe) from event\ngroup GROUP: a test module's events laid out alike",
	  .record = true },
	{ NULL },
};

static int mm_opt(void *p, int i, const char *arg)
{
	struct mem_opts *o = p;
	const char *eq = strchr(arg, '=');
	char *drv;

	(void)i;
	if (!eq || eq == arg || !eq[1] || strchr(eq + 1, '/') || strlen(eq + 1) >= XP_TP_NAME_LEN ||
	    (size_t)(eq - arg) >= sizeof(o->group_drv[0]))
		return xp_fail(2, "mem: --group wants DRIVER=GROUP (e.g. amdgpu=mytest), not '%s'", arg);
	if (o->ngroups == MAX_GROUPS)
		return xp_fail(2, "mem: too many --group options");
	drv = o->group_drv[o->ngroups];
	memcpy(drv, arg, (size_t)(eq - arg));
	drv[eq - arg] = '\0';
	if (strcmp(drv, "amdgpu") && strcmp(drv, "i915") && strcmp(drv, "xe"))
		return xp_fail(2, "mem: --group: unknown driver '%s' (amdgpu, i915 or xe)", drv);
	o->group_name[o->ngroups++] = eq + 1;
	return 0;
}

static bool mm_available(const struct xp_doctor_env *d, char *why, size_t len)
{
	bool ok = d->at[XP_AT_TRACEPOINT].ok &&
		  (d->group_events("amdgpu") > 0 || d->group_events("i915") > 0 || d->group_events("xe") > 0);

	snprintf(why, len, "%s", ok ? "amdgpu, i915 or xe events present"
				 : "no amdgpu, i915 or xe events: none of those drivers is loaded");
	return ok;
}

static int mm_open_k(struct xp_cap_inst *ci, const struct xp_open_args *a, char *why, size_t len)
{
	const struct mem_opts *o = ci->opts;

	for (int i = 0; i < o->ngroups; i++)
		xp_rawtp_set_group(ci->layout, o->group_drv[i], o->group_name[i]);
	return xp_tp_open(&ci->k, ci->layout, ci->cap->rec->type, a->f, a->share, why, len);
}

static void mm_no_events(const struct xp_cap_inst *ci, char *msg, size_t len)
{
	const struct mem_opts *o = ci->opts;
	char redirected[256] = "";
	size_t k = 0;

	for (int i = 0; i < o->ngroups && k < sizeof(redirected); i++)
		k += (size_t)snprintf(redirected + k, sizeof(redirected) - k, "%s%s as %s", i ? ", " : " (read ",
				      o->group_drv[i], o->group_name[i]);
	if (o->ngroups && k < sizeof(redirected))
		snprintf(redirected + k, sizeof(redirected) - k, ")");
	snprintf(msg, len, "this kernel has no amdgpu, i915 or xe events%s (none of those drivers is "
			   "loaded); see 'xputrace doctor'", redirected);
}

static void mm_describe(const struct xp_cap_inst *ci, char *buf, size_t len)
{
	snprintf(buf, len, "GPU memory and submissions (%d of %d events)", ci->layout->npresent,
		 ci->layout->n);
}

static int mm_init(struct xp_cap_inst *ci)
{
	struct xp_mem_state *s = calloc(1, sizeof(*s));	/* large */
	int err;

	if (!s)
		return -ENOMEM;
	if ((err = xp_mem_init(s, ci->env->page_size))) {
		free(s);
		return err;
	}
	ci->st = s;
	return 0;
}

static void mm_free_st(struct xp_cap_inst *ci)
{
	xp_mem_free(ci->st);
	free(ci->st);
}

static int mm_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	const struct xp_rawtp_rec *rec = (const struct xp_rawtp_rec *)h;
	const struct xp_cap_env *e = ci->env;

	/* a record it cannot decode is counted, not fatal */
	if (h->size < sizeof(*rec) || xp_mem_add(ci->st, ci->layout, rec)) {
		ci->undecodable++;
		return 0;
	}
	if (e->out == XP_OUT_PERFETTO) {
		xp_perfetto_mem(e->pf, ci->layout, rec);
	} else if (e->out == XP_OUT_STREAM) {
		if (e->json)
			xp_mem_stream_json(e->stream_json, ci->layout, rec, e->t0);
		else
			xp_mem_stream_text(e->f, ci->layout, rec, e->t0);
	}
	return 0;
}

static void mm_report(struct xp_cap_inst *ci, FILE *f, const struct xp_cap_report *r)
{
	const struct xp_filters *fl = &ci->env->filt;
	struct xp_tp_report rep = {
		.st = ci->st, .layout = ci->layout, .ri = r->ri, .hist = r->hist,
		.filtered = fl->pid || fl->comm || fl->cgroup_id,
		.undecodable = ci->undecodable,
	};

	(r->json ? xp_mem_report_json : xp_mem_report_text)(f, &rep);
}

static void mm_reset(struct xp_cap_inst *ci, uint64_t now)
{
	(void)now;
	xp_mem_reset(ci->st);
}

static int mm_metrics_init(struct xp_cap_inst *ci, const struct xp_metrics_in *mi)
{
	return xp_mem_metrics_init(ci->mst, mi, ci->env->page_size);
}

static int mm_metrics_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	return h->size < sizeof(struct xp_rawtp_rec) ? 1 :
	       xp_mem_metrics_feed(ci->mst, ci->layout, (const struct xp_rawtp_rec *)h);
}

static void mm_metrics_free(struct xp_cap_inst *ci)
{
	xp_mem_metrics_free(ci->mst);
}

const struct xp_cap xp_cap_mem = {
	.name = "mem",
	.summary = "amdgpu/i915/xe buffers: placement, moves, submits, leaks",
	.about =
"Buffer memory and submissions of the amdgpu, i915 and xe drivers, from their\n"
"tracepoints (whichever of the three are loaded; the layouts are read from the\n"
"running kernel at start-up, and an event the kernel lacks is skipped with a\n"
"note).\n"
"  amdgpu: buffer objects created (size, preferred domain; a VRAM request\n"
"          placed in GTT is flagged), moves (count, bytes, bytes per second,\n"
"          by placement), cs_ioctl -> sched_run_job delay per ring,\n"
"          interrupts (iv) by client, source and pasid;\n"
"  i915:   GEM objects created/destroyed with live bytes per process and leak\n"
"          candidates (created while tracing, never destroyed), VMA binds,\n"
"          unbinds and rebinds, evictions and shrinks, faults (GTT/CPU,\n"
"          read/write), requests per engine and waits on them;\n"
"  xe:     exec queues, scheduler jobs, BOs created and moved, VMA page faults.\n"
"Events that run in the causing process's context are counted per process;\n"
"the others (interrupts, scheduler workers, reclaim, eviction) per device, and\n"
"the output says which is which. The process filters apply to the events in\n"
"process context; per-device events belong to no process and are all\n"
"counted. With -i, live objects and pending submits carry over.\n",
	.examples =
"  xputrace mem -d 10                 10 s of buffer and submission activity\n"
"  xputrace mem --stream -c Xorg      one application's events as they happen\n"
"  xputrace mem -i 1 -j               a JSON summary per second\n",
	.flags = XP_CAP_SAYS_UNDECODABLE,
	.rec = &xp_mem_rec_kind, .events = xp_mem_events, .nev = XP_MEM_NEV,
	.opts = opts, .opts_size = sizeof(struct mem_opts), .opt = mm_opt,
	.available = mm_available, .open = mm_open_k, .no_events = mm_no_events, .describe = mm_describe,
	.init = mm_init, .free = mm_free_st, .feed = mm_feed, .stream_header = xp_mem_stream_header,
	.report = mm_report, .reset = mm_reset, .file_hook = "tracepoint",
	.metrics_size = sizeof(struct xp_mem_metrics),
	.metrics_init = mm_metrics_init, .metrics_feed = mm_metrics_feed, .metrics_free = mm_metrics_free,
};
