/* xputrace sched: DRM GPU scheduler jobs from queue to done, per ring and per process. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/options.h"
#include "core/parse.h"
#include "core/sched_stats.h"
#include "live/capture.h"
#include "live/session.h"
#include "sinks/sched_report.h"

struct sched_opts {
	struct xp_live_opts l;
	bool hist;
	struct xp_sched_filter filt;	/* applied after the join: see sched.bpf.c */
	uint64_t max_jobs;
};

struct sched_run {
	struct sched_opts *o;
	struct xp_sched_live *live;
	struct xp_rawtp_layout layout;
	struct xp_sched_state st;
	struct xp_session sess;
	struct xp_json stream_json;
	uint64_t t0;
	uint64_t undecodable;
	uint64_t intervals;
	int out_err;
};

static void help(FILE *f)
{
	fprintf(f,
"Usage: xputrace sched [OPTIONS]\n"
"\n"
"Traces the jobs of the DRM GPU scheduler (amdgpu, xe, nouveau, v3d, etnaviv,\n"
"panfrost, lima, amdxdna, ...) from its gpu_scheduler tracepoints, either\n"
"generation (up to 6.16: drm_sched_job, drm_run_job, drm_sched_process_job,\n"
"drm_sched_job_wait_dep; from 6.17: drm_sched_job_queue/_run/_done/_add_dep/\n"
"_unschedulable), found at start-up. Per ring and per submitting process\n"
"(and DRM client on 6.17+): jobs, queue depth, jobs in flight, busy share,\n"
"queue delay (queue -> run) and execution time (run -> done) with p50/p90/p99\n"
"and log2 histograms, dependencies and dependency waits, unschedulable events,\n"
"and jobs never seen to complete (incomplete).\n"
"\n"
"Options:\n"
"  -d, --duration SECONDS   stop after SECONDS (default: until Ctrl-C)\n"
"  -i, --interval SECONDS   print and reset the summary every SECONDS\n"
"      --stream             print each job as it completes\n"
"  -j, --json               JSON: the summary as one document (with --stream,\n"
"                           one object per job, then the summary)\n"
"  -p, --pid PID            only jobs submitted by this process\n"
"  -c, --comm NAME          only jobs submitted by threads with this name\n"
"  -r, --ring NAME          only this ring (scheduler), e.g. gfx_0.0.0\n"
"      --max-jobs N         jobs tracked at once (default 16384); older ones are\n"
"                           counted as incomplete\n"
"      --no-hist            no histograms in the text summary\n"
"  -v, --verbose            show libbpf's messages\n"
"  -h, --help               this text\n"
"\n"
"Process filters apply to the submitter, after joining each job's events:\n"
"run and done fire in the scheduler's worker or an interrupt, not in it.\n"
"\n"
"Examples:\n"
"  xputrace sched -d 10                   every job for 10 s\n"
"  xputrace sched --stream -c vkcube      one application's jobs as they finish\n"
"  xputrace sched -i 1 -r gfx_0.0.0 -j    one ring, a JSON summary per second\n");
}

static int parse(int argc, char **argv, struct sched_opts *o)
{
	enum { OPT_NOHIST = XP_OPT_VERB, OPT_MAXJOBS };
	static const struct option lo[] = {
		XP_COMMON_LONG,
		XP_INTERVAL_LONG,
		{ "ring", required_argument, NULL, 'r' },
		{ "max-jobs", required_argument, NULL, OPT_MAXJOBS },
		{ "no-hist", no_argument, NULL, OPT_NOHIST },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c, err;

	o->hist = true;
	o->max_jobs = 16384;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" XP_COMMON_SHORT XP_INTERVAL_SHORT "r:h", lo, NULL)) != -1) {
		if ((err = xp_live_opt(&o->l, "sched", c, argv)) != 1) {
			if (err)
				return err;
			continue;
		}
		switch (c) {
		case 'r':
			if (!*optarg || strlen(optarg) >= XP_SCHED_STR)
				return xp_fail(2, "sched: --ring wants a ring name of 1 to %d characters", XP_SCHED_STR - 1);
			o->filt.ring = optarg;
			break;
		case OPT_MAXJOBS:
			if (xp_parse_u64(optarg, 16, 1u << 24, &v))
				return xp_fail(2, "sched: --max-jobs wants a number from 16 to 16777216, not '%s'", optarg);
			o->max_jobs = v;
			break;
		case OPT_NOHIST: o->hist = false; break;
		case 'h': help(stdout); return xp_finish_stdout(0) ? 1 : -1;
		default: return xp_fail(2, "sched: unknown option '%s'", argv[optind - 1]);
		}
	}
	o->filt.pid = o->l.f.pid;
	o->filt.comm = o->l.f.comm;
	if (optind < argc)
		return xp_fail(2, "sched: unexpected argument '%s'", argv[optind]);
	return 0;
}

static void on_job(void *ctx, const struct xp_sched_job_info *j)
{
	struct sched_run *r = ctx;

	if (r->o->l.json)
		xp_sched_stream_json(&r->stream_json, j, r->t0);
	else
		xp_sched_stream_text(stdout, j, r->t0);
	if (ferror(stdout))
		r->out_err = -EIO;
}

static int on_record(void *ctx, const struct xp_rec_hdr *h)
{
	struct sched_run *r = ctx;
	int err;

	if (h->type != XP_REC_SCHED)
		return 0;
	err = xp_sched_feed(&r->st, &r->layout, (const struct xp_rawtp_rec *)h);
	if (err == -ENOENT || err == -EBADMSG)
		r->undecodable++;
	return r->out_err;
}

static int report(struct sched_run *r, uint64_t interval, bool final)
{
	struct xp_run_info ri = {
		.command = "sched",
		.source = "live",
		.mode = r->o->l.stream ? "stream" : "summary",
		.hook = xp_sched_live_hook(r->live),
		.duration_s = xp_session_elapsed(&r->sess, interval != 0),
		.interval = interval,
	};
	struct xp_sched_report rep = {
		.st = &r->st, .layout = &r->layout, .ri = &ri, .hist = r->o->hist,
	};

	rep.now = xp_now_ns();
	if (final)
		xp_sched_finish(&r->st, rep.now);	/* what is still open never completed here */
	xp_session_drops_for(&r->sess, ri.drops, interval != 0);
	if (r->o->l.json)
		xp_sched_report_json(stdout, &rep);
	else
		xp_sched_report_text(stdout, &rep);
	if (r->undecodable)
		fprintf(stderr, "xputrace: sched: %llu records could not be decoded\n",
			(unsigned long long)r->undecodable);
	fflush(stdout);
	xp_sched_reset(&r->st, rep.now);
	return ferror(stdout) ? -EIO : 0;
}

static int on_interval(void *ctx, uint64_t n)
{
	struct sched_run *r = ctx;

	r->intervals = n;
	return report(r, n, false);
}

int cmd_sched(int argc, char **argv)
{
	struct sched_opts o = { 0 };
	struct sched_run r = { .o = &o };
	char why[256] = "";
	int err, status = 1, gen, nev;

	err = parse(argc, argv, &o);
	if (err)
		return err < 0 ? 0 : err;
	xp_libbpf_quiet(o.l.verbose);
	if ((err = xp_sched_init(&r.st, (uint32_t)o.max_jobs, 0)))
		return xp_fail(1, "sched: %s", strerror(-err));
	r.st.filt = o.filt;
	if (o.l.stream) {
		r.st.on_job = on_job;
		r.st.cb_ctx = &r;
	}
	err = xp_sched_live_open(&r.live, &r.layout, NULL, why, sizeof(why));
	if (err == -ENOENT) {
		xp_fail(1, "sched: this kernel has no gpu_scheduler events (no driver using the DRM "
			   "GPU scheduler is loaded); see 'xputrace doctor'");
		goto out;
	}
	if (err) {
		xp_fail(1, "sched: %s%s%s", why, err == -EPERM || err == -EACCES ? ": " : "",
			err == -EPERM || err == -EACCES ? xp_bpf_error_hint(err) : "");
		goto out;
	}
	r.sess.duration_s = o.l.duration_s;
	r.sess.interval_s = o.l.interval_s;
	r.sess.on_record = on_record;
	r.sess.on_interval = on_interval;
	r.sess.ctx = &r;
	r.sess.obj = xp_sched_live_object(r.live);
	if ((err = xp_session_open(&r.sess, xp_sched_live_events(r.live), xp_sched_live_drops(r.live)))) {
		xp_fail(1, "sched: cannot read the ring buffer: %s", strerror(-err));
		goto out;
	}
	r.t0 = r.st.last_expire = r.sess.t_start_ns;
	xp_json_init(&r.stream_json, stdout, false);
	xp_signals_install();
	if (o.l.stream && !o.l.json)
		xp_sched_stream_header(stdout);
	/* on stderr, so it never mixes with a JSON document; tests wait for it */
	gen = xp_sched_layout_gen(&r.layout, &nev);
	if (o.l.duration_s)
		fprintf(stderr, "Tracing GPU scheduler jobs (%d %s, %s) for %g s.\n", nev,
			gen == 2 ? "6.17+ events" : "6.16- events", xp_sched_live_hook(r.live),
			o.l.duration_s);
	else
		fprintf(stderr, "Tracing GPU scheduler jobs (%d %s, %s)... Ctrl-C to end.\n", nev,
			gen == 2 ? "6.17+ events" : "6.16- events", xp_sched_live_hook(r.live));
	err = xp_session_run(&r.sess);
	{
		int rerr = report(&r, o.l.interval_s ? r.intervals + 1 : 0, true);

		if (!err)
			err = rerr;
	}
	if (err == -EIO)
		status = 1;
	else if (err)
		xp_fail(1, "sched: %s", strerror(-err));
	else
		status = 0;
out:
	xp_session_close(&r.sess);
	xp_sched_live_close(r.live);
	xp_sched_free(&r.st);
	return xp_finish_stdout(status);
}
