/* xputrace analyze: the recorded schedule of a trace file's GPU jobs (src/sim/analysis.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/runner.h"
#include "core/parse.h"
#include "sim/analysis.h"
#include "sim/sim_perfetto.h"
#include "sim/simload.h"

#define MAX_PRIO 32

enum { O_WINDOW, O_PRIO, O_PERFETTO, O_BY };

static const struct xp_cap_opt an_own[] = {
	[O_WINDOW] = { "window", 0, "S", "the share table's window in seconds (default: the\nwhole recording)", false, NULL },
	[O_PRIO] = { "prio", 0, "TASK=N", "a process's priority (COMM or PID; repeatable), for\nthe priority inversions", false, NULL },
	[O_PERFETTO] = { "perfetto", 0, "OUT", "also write the recorded schedule with its blame\narrows as Perfetto JSON to OUT ('-': instead of the summary)", false, NULL },
	[O_BY] = { "by", 0, "WHAT", "shares and blame per process (default) or per DRM\nclient (6.17+)", false, NULL },
	[O_BY + 1] = { NULL },
};
const struct xp_verb_opts xp_analyze_opts = { XP_O_JSON, an_own };

struct an_opts {
	double window_s;
	const char *prio[MAX_PRIO];
	int nprio;
	const char *perfetto;
	bool by_client;
};

static int an_opt(void *ctx, int i, const char *arg)
{
	struct an_opts *o = ctx;

	if (i == O_WINDOW) {
		if (xp_parse_seconds(arg, &o->window_s))
			return xp_fail(2, "analyze: --window wants seconds > 0, not '%s'", arg);
		/* in whole nanoseconds: one that rounds to none would mean the whole recording */
		if (o->window_s * 1e9 + 0.5 < 1)
			return xp_fail(2, "analyze: --window %s is under a nanosecond, the shortest window", arg);
		return 0;
	}
	if (i == O_BY)
		return xp_sim_parse_by("analyze", arg, &o->by_client);
	if (i == O_PERFETTO) {
		if (!*arg)
			return xp_fail(2, "analyze: --perfetto wants a file name, not ''");
		o->perfetto = arg;
		return 0;
	}
	if (o->nprio == MAX_PRIO)
		return xp_fail(2, "analyze: --prio: at most %d", MAX_PRIO);
	o->prio[o->nprio++] = arg;
	return 0;
}

static void an_help(const void *ctx)
{
	(void)ctx;
	printf(
"Usage: xputrace analyze FILE [OPTIONS]\n"
"\n"
"Reads the GPU jobs of a trace file recorded with the sched capability and\n"
"says how the rings were shared and who made whom wait:\n"
"  - each process's share of the GPU time per --window, and Jain's fairness\n"
"    index over the processes that ran (1: equal shares, 1/n: one took all);\n"
"  - for every job, how long it waited (queue -> run) and who held its ring\n"
"    meanwhile: another process's jobs, its own earlier ones, the ring idle\n"
"    while its dependencies had not signalled \"(dependency)\", or idle\n"
"    otherwise \"(scheduler)\"; summed per waiter and holder, the longest\n"
"    waits listed (every job's in --json);\n"
"  - each process's critical path: its job whose dependency chain (each job\n"
"    back to the dependency that signalled last) spans longest from the\n"
"    first queue to that job's done, split into time on the rings, waiting\n"
"    to start, and the CPU's (a dependency done before the next job was\n"
"    queued);\n"
"  - priority inversions (a job started while a higher-priority one, ready,\n"
"    waited on its ring): the scheduler's events carry no priority, so only\n"
"    with --prio.\n"
"A process's GPU time is its jobs' time on the rings (from run, or the end\n"
"of the job before on the ring, to done). --perfetto draws the recorded\n"
"schedule for ui.perfetto.dev, a track per ring, each wait an async span on\n"
"its process, and an arrow (\"blame\") from every job that held a ring to\n"
"each job that waited for it.\n"
"i915's requests (recorded by mem) are not analyzed: Debian's kernels give\n"
"when a request was added and retired (reaped), not when it ran; that takes\n"
"i915_request_in/out (CONFIG_DRM_I915_LOW_LEVEL_TRACEPOINTS).\n"
"\n"
"Options:\n");
	xp_opts_help(stdout, xp_analyze_opts.common, xp_analyze_opts.opts);
	printf(
"\n"
"Examples:\n"
"  xputrace analyze gpu.xpt\n"
"  xputrace analyze gpu.xpt --window 0.1 --prio frame=10\n"
"  xputrace analyze gpu.xpt --json\n"
"  xputrace analyze gpu.xpt --perfetto blame.json\n");
}

static int an_perfetto(struct xp_perfetto *p, void *ctx)
{
	return xp_sim_perfetto_blame(p, ctx);
}

int cmd_analyze(int argc, char **argv)
{
	struct an_opts o = { 0 };
	struct xp_optset set = { xp_analyze_opts.opts, an_opt, &o };
	struct xp_live_opts lo = { 0 };
	struct xp_analysis a;
	struct xp_sim_load l;
	const char *path = NULL;
	uint64_t t0, t_end;
	int status, err;

	status = xp_opts_parse("analyze", argc, argv, xp_analyze_opts.common, &lo, &set, 1, an_help, NULL);
	if (status)
		return status < 0 ? xp_finish_stdout(0) : status;
	if ((status = xp_sim_file_operand("analyze", argc, argv, &path)) ||
	    (status = xp_sim_perfetto_json("analyze", o.perfetto, lo.json)))
		return status;
	if ((status = xp_sim_load_file("analyze", path, o.by_client, &l, &t0, &t_end)))
		return xp_finish_stdout(status);
	for (int i = 0; i < o.nprio && !status; i++)
		status = xp_sim_apply("analyze", "prio", o.prio[i], &l.in, xp_sim_set_prio);
	if (status)
		goto out;
	err = xp_analyze(&l.in, t0, t_end, (uint64_t)(o.window_s * 1e9 + 0.5), o.nprio > 0, &a);
	if (err == -E2BIG) {
		status = xp_fail(2, "analyze: --window %g: more than %d windows", o.window_s, XP_AN_MAX_WINDOWS);
		goto out;
	}
	if (err) {
		status = xp_fail(1, "analyze: %s", strerror(-err));
		goto out;
	}
	if (o.perfetto)
		status = xp_sim_perfetto_out("analyze", o.perfetto, false, t0, an_perfetto, &l.in);
	if (!status && (!o.perfetto || strcmp(o.perfetto, "-")))
		(lo.json ? xp_analysis_json : xp_analysis_text)(stdout, path, &l.in, &a);
	xp_analysis_free(&a);
out:
	xp_sim_load_free(&l);
	return xp_finish_stdout(status);
}
