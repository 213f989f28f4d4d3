/* The ioctl capability: ioctls on GPU/NPU device nodes, named, counted, timed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/cap.h"
#include "caps/ioctl/ioctl_stats.h"
#include "core/flight_trigger.h"
#include "core/msg.h"
#include "core/parse.h"
#include "live/features.h"
#include "caps/ioctl/ioctl_live.h"
#include "live/kernel_side.h"
#include "caps/ioctl/ioctl_report.h"
#include "caps/ioctl/ioctl_metrics.h"
#include "sinks/perfetto.h"

static bool io_available(const struct xp_doctor_env *d, char *why, size_t len)
{
	bool btf = d->at[XP_AT_TP_BTF].ok, ok = btf || d->at[XP_AT_RAW_TP].ok;

	/* the order xp_ioctl_live_open tries them in */
	if (d->at[XP_AT_KPROBE].ok)
		snprintf(why, len, "GPU ioctls from kprobes on the ioctl syscall (other syscalls pay "
			 "nothing; a run the kernel skips is counted)");
	else if (d->at[XP_AT_TRACEPOINT].ok && !d->runs32)
		snprintf(why, len, "GPU ioctls from the syscall tracepoints (no kprobes): other syscalls "
			 "pay a bitmap test; no 32-bit program can run here, so none is missed");
	else if (d->at[XP_AT_TRACEPOINT].ok)
		snprintf(why, len, "GPU ioctls from the syscall tracepoints (no kprobes): other syscalls "
			 "pay a bitmap test; 32-bit calls need %s, taken while a 32-bit program runs",
			 btf ? "tp_btf" : "raw_tp");
	else if (ok)
		snprintf(why, len, "GPU ioctls from the sys_enter/sys_exit hooks (%s): no kprobes, so "
			 "every syscall pays a little; on 7.x kernels runs can be skipped (counted)",
			 btf ? "tp_btf" : "raw_tp");
	else
		snprintf(why, len, "neither kprobes, tracepoints, tp_btf nor raw_tp attach here");
	return ok || d->at[XP_AT_KPROBE].ok || d->at[XP_AT_TRACEPOINT].ok;
}

struct ioctl_opts {
	uint64_t max_keys;
	const char *hook;	/* NULL: the first that attaches */
	char note[96];		/* why the default passed a hook over */
};

static int io_open_k(struct xp_cap_inst *ci, const struct xp_open_args *a, char *why, size_t len)
{
	struct ioctl_opts *o = ci->opts;

	why[0] = 0;
	return xp_ioctl_live_open(&ci->k, o->hook, a->f, a->devs, a->aggregate, a->share, why, len,
				  o->note, sizeof(o->note));
}

static void io_describe(const struct xp_cap_inst *ci, char *buf, size_t len)
{
	const struct ioctl_opts *o = ci->opts;

	snprintf(buf, len, "GPU ioctls (%s%s%s)", ci->k->hook, o->note[0] ? ": " : "", o->note);
}

/* The 32-bit programs the classic events did not see, said once the run ends. */
static void io_say_unseen(const struct xp_cap_inst *ci, const char *verb)
{
	char comm[XP_COMM_LEN];
	uint32_t pid = 0;
	uint64_t n = xp_ioctl_live_exec32(ci->k, &pid, comm);

	if (n)
		fprintf(stderr, "%s: %llu 32-bit program%s started while tracing (first: %u %s); the "
			"tracepoint hook does not see their ioctls, --hook tp_btf does\n", verb,
			(unsigned long long)n, n == 1 ? "" : "s", pid, comm);
}

static const struct xp_cap_opt opts[] = {
	{ "max-keys", 0, "N", "process rows kept (default 4096); the calls of later\nprocesses are added up in (other) rows", false, NULL },
	{ "hook", 0, "HOOK", "kprobe, tracepoint, tp_btf or raw_tp (default: the first\nthat attaches; doctor says which and why)", true, NULL },
	{ NULL },
};

static void io_opts_init(void *p)
{
	((struct ioctl_opts *)p)->max_keys = XP_IOCTL_DEFAULT_MAX_KEYS;
}

static int io_opt(void *p, int i, const char *arg)
{
	struct ioctl_opts *o = p;

	if (i == 1) {
		if (!xp_ioctl_hook_known(arg))
			return xp_fail(2, "ioctl: --hook wants kprobe, tracepoint, tp_btf or raw_tp, not '%s'", arg);
		o->hook = arg;
		return 0;
	}
	if (xp_parse_u64(arg, 16, 1u << 24, &o->max_keys))
		return xp_fail(2, "ioctl: --max-keys wants a number from 16 to 16777216, not '%s'", arg);
	return 0;
}

static int io_init(struct xp_cap_inst *ci)
{
	struct xp_ioctl_table *t = malloc(sizeof(*t));

	if (!t)
		return -ENOMEM;
	xp_ioctl_table_init(t);
	t->max_keys = ((const struct ioctl_opts *)ci->opts)->max_keys;
	ci->st = t;
	return 0;
}

static void io_free_st(struct xp_cap_inst *ci)
{
	xp_ioctl_table_free(ci->st);
	free(ci->st);
}

static int io_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	const struct xp_ioctl_rec *rec = (const void *)h;
	const struct xp_cap_env *e = ci->env;

	if (h->size < sizeof(*rec))
		return ci->undecodable++, 0;
	if (e->out == XP_OUT_PERFETTO) {
		xp_perfetto_ioctl(e->pf, rec, e->devs);
		return 0;
	}
	if (e->out == XP_OUT_STREAM) {
		if (e->json)
			xp_ioctl_stream_json(e->stream_json, rec, e->devs, e->t0);
		else
			xp_ioctl_stream_text(e->f, rec, e->devs, e->t0);
	}
	return xp_ioctl_table_add_rec(ci->st, rec);
}

static int io_drain(struct xp_cap_inst *ci, bool tick)
{
	return xp_ioctl_live_drain(ci->k, ci->st, tick ? XP_DRAIN_TICK
						 : ci->k->detached ? XP_DRAIN_ALL
						 : XP_DRAIN_REPORT);
}

static void io_report(struct xp_cap_inst *ci, FILE *f, const struct xp_cap_report *r)
{
	if (r->json)
		xp_ioctl_report_json(f, ci->st, ci->env->devs, r->ri);
	else
		xp_ioctl_report_text(f, ci->st, ci->env->devs, r->ri, r->hist);
}

static void io_reset(struct xp_cap_inst *ci, uint64_t now)
{
	(void)now;
	xp_ioctl_table_reset(ci->st);
}

static int io_metrics_init(struct xp_cap_inst *ci, const struct xp_metrics_in *mi)
{
	return xp_ioctl_metrics_init(ci->mst, mi, ci->env->devs);
}

static int io_metrics_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	if (h->size < sizeof(struct xp_ioctl_rec))
		return 1;
	return xp_ioctl_metrics_add(ci->mst, (const struct xp_ioctl_rec *)h);
}

/* record --trigger ioctl:error[=ERRNO][:NAME], ioctl:over=T[:NAME] */
static bool io_trigger(const struct xp_cap_inst *ci, const struct xp_trigger *t, const struct xp_rec_hdr *h,
			uint64_t *when)
{
	const struct xp_ioctl_rec *rec = (const void *)h;
	char name[96];

	if (h->size < sizeof(*rec))
		return false;
	if (t->kind == XP_TRIG_ERROR && (rec->ret >= 0 || (t->err && -rec->ret != t->err)))
		return false;
	if (t->kind == XP_TRIG_OVER && (rec->lat_ns == XP_IOCTL_UNTIMED || rec->lat_ns <= t->over_ns))
		return false;
	if (rec->lat_ns != XP_IOCTL_UNTIMED)
		*when = h->ts_ns + rec->lat_ns;	/* its return: when the condition became known */
	return !t->name[0] ||
	       !strcmp(xp_ioctl_entry_name(ci->env->devs, rec->dev, rec->cmd, name, sizeof(name)), t->name);
}

const struct xp_cap xp_cap_ioctl = {
	.name = "ioctl",
	.summary = "ioctls on GPU/NPU device nodes: named, counted, timed",
	.about =
"Traces ioctl() on GPU and NPU device nodes (DRM /dev/dri/*, DRM accel\n"
"/dev/accel/*, /dev/nvidia*, /dev/kfd), chosen in the kernel by the device\n"
"number of the file. Names each call (DRM core and driver ioctls, NVIDIA\n"
"escapes) and prints, per process and per ioctl, calls, errors by errno,\n"
"p50/p99/max latency and a log2 latency histogram. The summary is counted\n"
"in the kernel; --stream prints each call as it completes.\n",
	.examples =
"  xputrace ioctl -d 10                     every GPU ioctl for 10 s\n"
"  xputrace ioctl --stream -p 1234          calls of one process as they happen\n"
"  xputrace ioctl --device /dev/null -j     trace another node, JSON summary\n",
	.flags = XP_CAP_DEVICES | XP_CAP_RECORD_DEFAULT | XP_CAP_KERNEL_AGG,
	.opts = opts, .opts_size = sizeof(struct ioctl_opts), .opts_init = io_opts_init, .opt = io_opt,
	.rec = &xp_ioctl_rec_kind,
	.available = io_available, .open = io_open_k, .describe = io_describe, .say_unseen = io_say_unseen,
	.init = io_init, .free = io_free_st, .feed = io_feed, .drain = io_drain, .stream_header = xp_ioctl_stream_header,
	.report = io_report, .reset = io_reset,
	.triggers = "error over", .trigger_match = io_trigger,
	.metrics_size = sizeof(struct xp_ioctl_metrics),
	.metrics_init = io_metrics_init, .metrics_feed = io_metrics_feed,
};
