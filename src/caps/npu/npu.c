/* The npu capability: every ivpu_* function of Intel's NPU driver and its tracepoints; amdxdna's jobs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/cap.h"
#include "core/hash_table.h"
#include "core/msg.h"
#include "caps/npu/npu_stats.h"
#include "core/parse.h"
#include "live/features.h"
#include "caps/npu/npu_live.h"
#include "caps/npu/npu_metrics.h"
#include "caps/npu/npu_report.h"

struct npu_opts {
	const char *lat[XP_NPU_MAX_LAT];	/* --latency FUNC, NULL-ended */
	int nlat;
	const char *baseline;			/* --baseline FILE */
	double threshold;			/* --threshold PERCENT, as a fraction */
	bool has_base;
	struct xp_npu_ratios base;
};

static const struct xp_cap_opt opts[] = {
	{ "latency", 0, "FUNC", "also time this ivpu_* function, entry to return\n"
				"(repeatable; ivpu_bo_create_ioctl is always timed)", true, NULL },
	{ "baseline", 0, "FILE", "compare with an earlier 'npu --json' summary: print the\n"
				 "ratios that moved beyond --threshold", false, NULL },
	{ "threshold", 0, "PERCENT", "how far a ratio moves to be reported (default 50)", false, NULL },
	{ NULL },
};

static void npu_opts_init(void *p)
{
	((struct npu_opts *)p)->threshold = 0.5;
}

/*
 * The baseline is read as the option is taken: a bad file is refused before
 * tracing starts, and a recording's report reads it the same way.
 */
static int read_baseline(struct npu_opts *o)
{
	char why[160], *text;
	FILE *f;
	long len;

	if (!(f = fopen(o->baseline, "re")))
		return xp_fail(2, "npu: --baseline %s: %s", o->baseline, strerror(errno));
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || len > (16 << 20) || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return xp_fail(2, "npu: --baseline %s: not a regular file of at most 16 MiB", o->baseline);
	}
	if (!(text = calloc(1, (size_t)len + 1))) {
		fclose(f);
		return xp_fail(1, "npu: out of memory");
	}
	if (fread(text, 1, (size_t)len, f) != (size_t)len) {
		fclose(f);
		free(text);
		return xp_fail(2, "npu: --baseline %s: cannot read it", o->baseline);
	}
	fclose(f);
	if (memchr(text, '\0', (size_t)len)) {
		free(text);
		return xp_fail(2, "npu: --baseline %s: not a text file", o->baseline);
	}
	if (xp_npu_baseline_parse(text, &o->base, why, sizeof(why))) {
		free(text);
		return xp_fail(2, "npu: --baseline %s: %s", o->baseline, why);
	}
	free(text);
	o->has_base = true;
	return 0;
}

static int npu_opt(void *p, int i, const char *arg)
{
	struct npu_opts *o = p;
	double v;

	switch (i) {
	case 0:
		if (strncmp(arg, "ivpu_", 5) || strlen(arg) >= XP_NPU_NAME ||
		    strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") != strlen(arg))
			return xp_fail(2, "npu: --latency wants an ivpu_* function name, not '%s'", arg);
		if (o->nlat >= XP_NPU_MAX_LAT - 1)
			return xp_fail(2, "npu: at most %d --latency functions", XP_NPU_MAX_LAT - 1);
		o->lat[o->nlat++] = arg;
		return 0;
	case 1:
		if (!*arg)
			return xp_fail(2, "npu: --baseline wants a file name");
		o->baseline = arg;
		return read_baseline(o);
	default:
		if (xp_parse_seconds(arg, &v) || v <= 0 || v > 10000)
			return xp_fail(2, "npu: --threshold wants a percentage above 0, not '%s'", arg);
		o->threshold = v / 100;
		return 0;
	}
}

static bool npu_available(const struct xp_doctor_env *d, char *why, size_t len)
{
	bool km = d->at[XP_AT_KPROBE_MULTI].ok, kp = d->at[XP_AT_KPROBE].ok;
	bool intel = d->module_loaded(XP_NPU_MODULE), tp = d->group_events(XP_NPU_TP_GROUP) > 0;
	bool xmod = d->module_loaded(XP_XDNA_MODULE), xdna = xmod && d->event_exists(XP_XDNA_TP_GROUP, "xdna_job");
	bool xsched = d->event_exists("gpu_scheduler", "drm_sched_job_queue");
	char a[160] = "", b[160] = "";

	if (intel && (km || kp))
		snprintf(a, sizeof(a), "intel_vpu: %s on its ivpu_* functions%s", km ? "kprobe.multi" : "one kprobe each",
			 tp ? ", vpu tracepoints" : "; no vpu tracepoints");
	else if (intel)
		snprintf(a, sizeof(a), "intel_vpu: kprobes unavailable (%.100s)", d->at[XP_AT_KPROBE].why);
	if (xdna)
		snprintf(b, sizeof(b), "amdxdna: its xdna_job tracepoint%s",
			 xsched ? " joined with gpu_scheduler's" : "; gpu_scheduler's events do not name fences");
	else if (xmod)
		snprintf(b, sizeof(b), "amdxdna: loaded without its xdna_job tracepoint");
	if (!intel && !xmod)
		snprintf(why, len, "no NPU driver is loaded: neither intel_vpu (Intel NPU) nor amdxdna (AMD NPU)");
	else
		snprintf(why, len, "%s%s%s", a, a[0] && b[0] ? "; " : "", b);
	return (intel && (km || kp)) || xdna;
}

static int npu_open(struct xp_cap_inst *ci, const struct xp_open_args *a, char *why, size_t len)
{
	struct npu_opts *o = ci->opts;

	return xp_npu_live_open(&ci->k, a->f, a->share, !a->aggregate, a->metrics_only, o->lat, why, len);
}

static void npu_describe(const struct xp_cap_inst *ci, char *buf, size_t len)
{
	const struct xp_npu_live *l = ci->k->priv;
	int n = 0;

	buf[0] = '\0';
	if (l->intel)
		n = snprintf(buf, len, "intel_vpu (%d of %d ivpu_* functions, %s%s)", l->km.n - l->km.nrefused,
			     l->km.n, ci->k->hook,
			     l->tp_job || l->tp_jsm || l->tp_pm ? ", vpu tracepoints" : "; no vpu tracepoints");
	if (l->xdna && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%samdxdna jobs (xdna_job%s)", n ? " and " : "",
			 l->xdna_sched ? " joined with gpu_scheduler's events" : "; not joined with the scheduler's");
}

/* The last cumulative count seen for a (process, function) of the kernel's map. */
#define LAST_SLOTS 32768
struct last {
	uint32_t tgid, fn;
	uint64_t calls;
	bool used;
};

struct npu_st {
	struct xp_npu_state s;
	struct xp_npu_info info;
	struct last last[LAST_SLOTS];
	uint64_t last_lost;	/* keys past the table: their deltas cannot be told */
};

static int npu_init(struct xp_cap_inst *ci)
{
	const struct npu_opts *o = ci->opts;
	struct npu_st *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	xp_npu_init(&st->s);
	st->info.threshold = o->threshold;
	st->info.has_base = o->has_base;
	st->info.base = o->base;
	st->info.base_file = o->baseline;
	if (ci->env->live && ci->k) {
		const struct xp_npu_live *l = ci->k->priv;
		struct xp_npu_info *in = &st->info;

		in->known = true;
		in->intel = l->intel;
		snprintf(in->intel_why, sizeof(in->intel_why), "%s", l->intel_why);
		in->xdna = l->xdna;
		in->xdna_sched = l->xdna_sched;
		snprintf(in->xdna_why, sizeof(in->xdna_why), "%s", l->xdna_why);
		snprintf(in->hook, sizeof(in->hook), "%s", ci->k->hook);
		in->offered = l->km.n;
		in->attached = l->km.n - l->km.nrefused;
		for (int i = 0; i < l->km.n; i++) {
			xp_npu_set_fn(&st->s, (uint32_t)i, l->km.fn[i].name);
			if (l->km.fn[i].err && in->nrefused < XP_NPU_MAX_REFUSED) {
				snprintf(in->refused[in->nrefused].name, sizeof(in->refused[0].name), "%s",
					 l->km.fn[i].name);
				in->refused[in->nrefused++].err = l->km.fn[i].err;
			}
		}
		in->nrefused = l->km.nrefused;
		for (int j = 0; j < l->nlat; j++)
			xp_npu_set_lat(&st->s, j, l->km.fn[l->lat_fn[j]].name);
		in->tp_job = l->tp_job;
		in->tp_jsm = l->tp_jsm;
		in->tp_pm = l->tp_pm;
		snprintf(in->tp_why, sizeof(in->tp_why), "%s", l->tp_why);
	}
	ci->st = st;
	return 0;
}

static void npu_free(struct xp_cap_inst *ci)
{
	free(ci->st);
}

static int npu_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	const struct xp_npu_rec *in = (const void *)h;
	const struct xp_cap_env *e = ci->env;
	struct npu_st *st = ci->st;
	struct xp_npu_rec full;
	const struct xp_npu_rec *r = in;

	/* files written before amdxdna have shorter records, of the intel_vpu kinds only */
	if (h->size < XP_NPU_REC_V1_SIZE || in->kind < XP_NPU_CALL || in->kind > XP_NPU_SDONE ||
	    (in->kind > XP_NPU_PM && h->size < sizeof(*in)))
		return ci->undecodable++, 0;
	if (h->size < sizeof(*in)) {
		memset(&full, 0, sizeof(full));
		memcpy(&full, in, h->size);
		r = &full;
	}
	if (e->out == XP_OUT_PERFETTO) {
		xp_perfetto_npu(e->pf, r);
		return 0;
	}
	if (e->out == XP_OUT_STREAM)
		(void)(e->json ? xp_npu_stream_json(e->stream_json, r, e->t0) : xp_npu_stream_text(e->f, r, e->t0));
	if (xp_npu_add(&st->s, r))
		ci->undecodable++;
	return 0;
}

static uint32_t home(uint32_t tgid, uint32_t fn)
{
	return ((tgid * 2654435761u) ^ (fn * 40503u)) % LAST_SLOTS;
}

static bool last_used(const void *e)
{
	return ((const struct last *)e)->used;
}

static uint32_t last_home(const void *e)
{
	const struct last *l = e;

	return home(l->tgid, l->fn);
}

/*
 * One (process, function) of the kernel's cumulative counts: what it
 * gained since the last drain. `gone`: its process had ended before the
 * count was read, which is its last; the entry leaves the map.
 */
static void count_one(void *ctx, const struct xp_npu_key *k, const struct xp_npu_val *v, bool gone)
{
	struct xp_cap_inst *ci = ctx;
	struct npu_st *st = ci->st;
	uint32_t h = home(k->tgid, k->fn), at = 0;
	struct last *l = NULL;
	char comm[XP_COMM_LEN + 1];

	for (uint32_t i = 0; i < LAST_SLOTS && !l; i++) {
		struct last *c = &st->last[(h + i) % LAST_SLOTS];

		if (!c->used || (c->tgid == k->tgid && c->fn == k->fn))
			l = c, at = (h + i) % LAST_SLOTS;
	}
	if (!l) {
		st->last_lost++;
		return;
	}
	if (!l->used)
		*l = (struct last){ .tgid = k->tgid, .fn = k->fn, .used = true };
	if (v->calls > l->calls) {
		memcpy(comm, v->comm, XP_COMM_LEN);
		comm[XP_COMM_LEN] = '\0';
		xp_npu_add_calls(&st->s, k->fn, NULL, k->tgid, comm, v->calls - l->calls);
		l->calls = v->calls;
	}
	if (gone)
		xp_lp_delete(st->last, sizeof(st->last[0]), LAST_SLOTS, at, last_used, last_home);
}

static int npu_drain(struct xp_cap_inst *ci, bool tick)
{
	(void)tick;
	if (!ci->k)
		return 0;
	return xp_npu_live_counts(ci->k, count_one, ci);
}

static int npu_metrics_init(struct xp_cap_inst *ci, const struct xp_metrics_in *mi)
{
	return xp_npu_metrics_init(ci->mst, mi);
}

static int npu_metrics_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	return xp_npu_metrics_feed(ci->mst, h);
}

static void npu_report(struct xp_cap_inst *ci, FILE *f, const struct xp_cap_report *r)
{
	struct npu_st *st = ci->st;

	if (st->last_lost && r->final)
		fprintf(stderr, "xputrace: npu: %llu counts of processes past the table not shown\n",
			(unsigned long long)st->last_lost);
	if (r->json)
		xp_npu_report_json(f, &st->s, &st->info, r->ri);
	else
		xp_npu_report_text(f, &st->s, &st->info, r->ri, r->hist);
}

static void npu_reset(struct xp_cap_inst *ci, uint64_t now)
{
	(void)now;
	xp_npu_reset(&((struct npu_st *)ci->st)->s);
}

const struct xp_cap xp_cap_npu = {
	.name = "npu",
	.summary = "NPU drivers: every intel_vpu call, IPC, jobs, power; amdxdna jobs",
	.about =
"Intel's intel_vpu: one kprobe.multi attach over every ivpu_* function of the\n"
"loaded module that the kernel can trace (tracefs available_filter_functions; one\n"
"kprobe per function where the kernel has no kprobe.multi); the functions the\n"
"kernel refuses are listed with its reason. Calls are counted in the kernel\n"
"per function, and summed per category by one table of name rules\n"
"(memory/MMU, IPC/JSM, buffer/GEM, job/submit, power, firmware/boot, other):\n"
"per process for calls made in a process's context (ioctls, open, close), per\n"
"device for interrupts and kernel threads (IPC workers). Entry-to-return\n"
"latency of ivpu_bo_create_ioctl and of each --latency function; IPC messages\n"
"per second (per interval with -i); MMU pages mapped per buffer and IPC\n"
"messages per job. Where the module has its tracepoints (vpu:job, vpu:jsm,\n"
"vpu:pm): jobs per context and engine with submit-to-done time, JSM messages\n"
"by type and status with request-to-response time, PM transitions with the\n"
"time to the next. Needs kprobes and the intel_vpu module (Linux 6.3 and\n"
"later).\n"
"\n"
"AMD's amdxdna (Linux 6.14 and later; tracepoints only, no kprobes needed):\n"
"each job of its amdxdna:xdna_job events (job run, sent to device, signaling\n"
"fence, job free) is joined by its scheduler fence with the gpu_scheduler's\n"
"queue and done events, per hardware context (hwctx.PID.ID) with the\n"
"submitting process: time waiting in the scheduler, in the driver, on the\n"
"device, and in all; -p, -c and -G keep the jobs the process queued. Whichever\n"
"of the two drivers is loaded is traced.\n",
	.examples =
"  xputrace npu -d 10                      every ivpu_* call for 10 s\n"
"  xputrace npu -i 1                       per-second summaries (IPC messages per second)\n"
"  xputrace npu --latency ivpu_ipc_send    time a function too\n"
"  xputrace npu -j -d 60 > normal.json     a baseline of a normal run\n"
"  xputrace npu -d 60 --baseline normal.json   what moved by more than half since\n",
	.flags = XP_CAP_KERNEL_AGG,
	.rec = &xp_npu_rec_kind,
	.opts = opts, .opts_size = sizeof(struct npu_opts), .opts_init = npu_opts_init, .opt = npu_opt,
	.available = npu_available, .open = npu_open, .describe = npu_describe,
	.init = npu_init, .free = npu_free, .feed = npu_feed, .drain = npu_drain,
	.stream_header = xp_npu_stream_header, .report = npu_report, .reset = npu_reset,
	.metrics_size = sizeof(struct xp_npu_metrics),
	.metrics_init = npu_metrics_init, .metrics_feed = npu_metrics_feed,
	.metrics_tp = { XP_NPU_TP_GROUP, "job" },
};
