/* The cuda capability: CUDA kernels, copies and GPU busy time from CUPTI, through libxputrace-cuda.so. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/cap.h"
#include "caps/cuda/cuda_live.h"
#include "caps/cuda/cuda_metrics.h"
#include "caps/cuda/cuda_report.h"
#include "caps/cuda/cuda_stats.h"
#include "core/msg.h"
#include "live/features.h"
#include "live/kernel_side.h"
#include "live/session.h"

/* serve, record: how often running processes' mappings are scanned for new files of the library */
#define SCAN_NS 5000000000ull

struct cuda_opts {
	struct xp_api_plan plan;	/* one library: libxputrace-cuda.so, its files once opened */
	uint64_t scanned_ns;		/* the last scan of the mappings */
	struct xp_api_pids seen;	/* the processes whose environment was looked at */
	const char *where;		/* how the files being rechecked are found */
};

enum { O_LIB };

static const struct xp_cap_opt opts[] = {
	[O_LIB] = { "lib", 0, "PATH", "libxputrace-cuda.so at this path too (where no\nrunning process maps it "
				      "yet and it is not on the\nloader's paths)", true, NULL },
	{ NULL },
};

static void cuda_opts_init(void *p)
{
	struct xp_api_plan *plan = &((struct cuda_opts *)p)->plan;

	memset(plan, 0, sizeof(*plan));
	plan->nlib = 1;
	plan->builtin_done = true;
	snprintf(plan->lib[0].soname, sizeof(plan->lib[0].soname), "%s", XP_CUDA_SONAME);
}

static int cuda_opt(void *p, int i, const char *arg)
{
	struct xp_api_lib *l = &((struct cuda_opts *)p)->plan.lib[0];

	if (i != O_LIB)
		return xp_fail(2, "cuda: internal error: option %d", i);
	if (!*arg || strlen(arg) >= sizeof(l->given))
		return xp_fail(2, "cuda: --lib: a path of 1 to %zu characters", sizeof(l->given) - 1);
	if (l->given[0])
		return xp_fail(2, "cuda: --lib given twice");
	snprintf(l->given, sizeof(l->given), "%s", arg);
	return 0;
}

static bool cuda_available(const struct xp_doctor_env *d, char *why, size_t len)
{
	bool ok = d->at[XP_AT_UPROBE].ok;

	snprintf(why, len, "%s", ok ? "USDT probes of libxputrace-cuda.so (CUPTI, CUDA_INJECTION64_PATH)"
				 : d->at[XP_AT_UPROBE].why);
	return ok;
}

static void cuda_no_events(const struct xp_cap_inst *ci, char *msg, size_t len)
{
	const struct cuda_opts *o = ci->opts;
	bool given = o->plan.lib[0].given[0] && o->plan.nnotes;

	snprintf(msg, len, "%s: no running process maps it and it is not on the loader's paths%s%s; give it "
			   "with --lib PATH (docs/nvidia.md)", XP_CUDA_SONAME, given ? ": " : "",
		 given ? o->plan.note[0] : "");
}

static int cuda_open(struct xp_cap_inst *ci, const struct xp_open_args *a, char *why, size_t len)
{
	struct cuda_opts *o = ci->opts;
	int err;

	/* none found is told after the load, so that a lack of privileges is told first */
	xp_api_plan_find(&o->plan, "");
	o->scanned_ns = xp_now_ns();
	/* serve: where none is found yet, one a process maps later is attached then (cuda_upkeep) */
	if ((err = xp_cuda_live_open(&ci->k, &o->plan, a->metrics_only, a->f, a->share, why, len)) == -ENOENT &&
	    !o->plan.lib[0].nfiles)
		cuda_no_events(ci, why, len);
	/* what serve's "Tracing" line says of it */
	if (!err && !xp_cuda_live_files(ci->k))
		ci->k->hook = "usdt, once a process maps " XP_CUDA_SONAME;
	return err;
}

/* A file of the library found while tracing: attached, and said. */
static void attach_new(void *ctx, int li, int fi)
{
	struct xp_cap_inst *ci = ctx;
	struct cuda_opts *o = ci->opts;
	struct xp_api_plan *p = &o->plan;
	const char *path = p->lib[li].file[fi];
	int n = xp_cuda_live_attach(ci->k, p, path);

	if (n > 0)
		fprintf(stderr, "note: cuda: %s: found while tracing (%s), traced from now on\n", path, o->where);
	else
		fprintf(stderr, "note: cuda: %s: found while tracing (%s), not traced: %s\n", path, o->where,
			n < 0 ? strerror(-n) : p->nnotes ? p->note[p->nnotes - 1] : "no probes attached");
}

/*
 * serve's and record's upkeep, about once a second: files of the library
 * that appeared since: at the paths looked at, in the environment of the
 * processes started since (before they load it: a short job is not missed
 * between two scans of the mappings), in the mappings every SCAN_NS.
 */
static int cuda_upkeep(struct xp_cap_inst *ci, uint64_t *let_go)
{
	struct cuda_opts *o = ci->opts;
	uint64_t now = xp_now_ns();

	(void)let_go;
	if (!ci->k || ci->k->detached)
		return 0;
	o->where = "replaced at a path looked at";
	xp_api_plan_recheck(&o->plan, "", attach_new, ci);
	o->where = "named by a new process's CUDA_INJECTION64_PATH";
	xp_api_plan_recheck_env(&o->plan, 0, "CUDA_INJECTION64_PATH", &o->seen, attach_new, ci);
	if (now - o->scanned_ns >= SCAN_NS) {
		o->scanned_ns = now;
		o->where = "mapped by a process";
		xp_api_plan_recheck_mapped(&o->plan, "", attach_new, ci);
	}
	return 0;
}

static void cuda_describe(const struct xp_cap_inst *ci, char *buf, size_t len)
{
	int n = ci->k ? xp_cuda_live_files(ci->k) : 0;

	snprintf(buf, len, "CUDA kernels, copies and launches from CUPTI (usdt on %d file%s of %s)", n,
		 n == 1 ? "" : "s", XP_CUDA_SONAME);
}

static int cuda_init(struct xp_cap_inst *ci)
{
	struct xp_cuda_state *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	if ((err = xp_cuda_init(s))) {
		free(s);
		return err;
	}
	ci->st = s;
	return 0;
}

static void cuda_free(struct xp_cap_inst *ci)
{
	xp_cuda_free(ci->st);
	free(ci->st);
}

static int cuda_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	const struct xp_cuda_rec *r = (const void *)h;
	const struct xp_cap_env *e = ci->env;
	struct xp_cuda_done d;
	int err;

	if (h->size < sizeof(*r) || (err = xp_cuda_add(ci->st, r, &d)) == -EINVAL) {
		ci->undecodable++;
		return 0;
	}
	if (err)
		return err;
	if (e->out == XP_OUT_PERFETTO)
		xp_perfetto_cuda(e->pf, r, &d);
	else if (e->out == XP_OUT_STREAM && e->json)
		xp_cuda_stream_json(e->stream_json, r, &d, e->t0);
	else if (e->out == XP_OUT_STREAM)
		xp_cuda_stream_text(e->f, r, &d, e->t0);
	return 0;
}

static void cuda_report(struct xp_cap_inst *ci, FILE *f, const struct xp_cap_report *r)
{
	const struct cuda_opts *o = ci->opts;
	struct xp_cuda_report rep = {
		.st = ci->st, .ri = r->ri, .final = r->final, .undecodable = ci->undecodable,
	};
	const char *notes[XP_API_NOTES];

	if (ci->env->live && o) {
		for (int i = 0; i < o->plan.nnotes; i++)
			notes[i] = o->plan.note[i];
		rep.notes = notes;
		rep.nnotes = o->plan.nnotes;
	}
	(r->json ? xp_cuda_report_json : xp_cuda_report_text)(f, &rep);
}

static void cuda_reset(struct xp_cap_inst *ci, uint64_t now)
{
	(void)now;
	xp_cuda_reset(ci->st);
}

static int cuda_metrics_init(struct xp_cap_inst *ci, const struct xp_metrics_in *mi)
{
	return xp_cuda_metrics_init(ci->mst, mi);
}

static int cuda_metrics_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	if (h->size < sizeof(struct xp_cuda_rec))
		return 1;
	return xp_cuda_metrics_feed(ci->mst, (const void *)h);
}

static void cuda_metrics_free(struct xp_cap_inst *ci)
{
	xp_cuda_metrics_free(ci->mst);
}

const struct xp_cap xp_cap_cuda = {
	.name = "cuda",
	.summary = "CUDA kernels, copies and GPU busy time per process, from CUPTI (libxputrace-cuda.so)",
	.about =
"CUDA's own activity records (CUPTI), handed over by libxputrace-cuda.so through\n"
"USDT probes in every process that loads it: CUDA_INJECTION64_PATH=/path/to/\n"
"libxputrace-cuda.so in the process's environment (docs/nvidia.md). The library\n"
"is found in the mappings of running processes (containers' too) and on the\n"
"loader's paths; --lib names another copy. Its probes cost nothing while no\n"
"tracer is attached.\n"
"  per kernel name, process and device: launches, GPU time p50/p99/sum, and\n"
"          launch call -> start on the GPU (p50/p99) for kernels joined with\n"
"          their launch call by CUPTI's correlation id;\n"
"  per process (and cgroup) and device: GPU busy seconds as the union of its\n"
"          kernels' intervals (kernels running at once count once), GPU%,\n"
"          copies and memsets: count, bytes, time per direction.\n"
"Records CUPTI dropped (its buffers full) are counted and said. xputrace serve\n"
"exports the busy time as xputrace_gpu_busy_seconds_total{source=\"cupti\"}, and\n"
"xputrace top shows it per process (docs/verbs.md).\n",
	.examples =
"  xputrace cuda -d 10                  10 s of kernels and busy time per process\n"
"  xputrace cuda --stream -c python3    one application's kernels as CUPTI hands them over\n"
"  xputrace cuda --lib /opt/xp/libxputrace-cuda.so -i 1 -j   a JSON summary per second\n",
	.flags = XP_CAP_SAYS_UNDECODABLE | XP_CAP_SERVE_OPTIONAL,
	.rec = &xp_cuda_rec_kind,
	.opts = opts, .opts_size = sizeof(struct cuda_opts), .opts_init = cuda_opts_init, .opt = cuda_opt,
	.available = cuda_available, .open = cuda_open, .no_events = cuda_no_events, .describe = cuda_describe,
	.init = cuda_init, .free = cuda_free, .feed = cuda_feed, .stream_header = xp_cuda_stream_header,
	.report = cuda_report, .reset = cuda_reset, .file_hook = "usdt", .upkeep = cuda_upkeep,
	.metrics_size = sizeof(struct xp_cuda_metrics), .metrics_init = cuda_metrics_init,
	.metrics_feed = cuda_metrics_feed, .metrics_free = cuda_metrics_free,
};
