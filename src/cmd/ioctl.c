/* xputrace ioctl: ioctls on GPU/NPU device nodes, named, counted and timed. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "core/devices.h"
#include "core/ioctl_stats.h"
#include "core/parse.h"
#include "cmd/options.h"
#include "live/capture.h"
#include "live/session.h"
#include "sinks/ioctl_report.h"

struct ioctl_opts {
	struct xp_live_opts l;
	bool hist;
};

struct ioctl_run {
	struct ioctl_opts *o;
	struct xp_ioctl_live *live;
	struct xp_devices devs;
	struct xp_ioctl_table table;
	struct xp_session sess;
	struct xp_json stream_json;
	uint64_t t0;
	uint64_t intervals;				/* printed so far */
};

static void help(FILE *f)
{
	fprintf(f,
"Usage: xputrace ioctl [OPTIONS]\n"
"\n"
"Traces ioctl() on GPU and NPU device nodes (DRM /dev/dri/*, DRM accel\n"
"/dev/accel/*, /dev/nvidia*, /dev/kfd), chosen in the kernel by the device\n"
"number of the file. Names each call (DRM core and driver ioctls, NVIDIA\n"
"escapes) and prints, per process and per ioctl, calls, errors by errno,\n"
"p50/p99/max latency and a log2 latency histogram.\n"
"\n"
"Options:\n"
"  -d, --duration SECONDS   stop after SECONDS (default: until Ctrl-C)\n"
"  -i, --interval SECONDS   print and reset the summary every SECONDS\n"
"      --stream             print each call as it completes\n"
"  -j, --json               JSON: the summary as one document (with --stream,\n"
"                           one object per call, then the summary)\n"
"      --device PATH        also trace this character device node (repeatable)\n"
"  -p, --pid PID            only this process\n"
"  -c, --comm NAME          only threads with this name\n"
"  -G, --cgroup PATH        only tasks in this cgroup v2 directory\n"
"      --no-hist            no histograms in the text summary\n"
"  -v, --verbose            show libbpf's messages\n"
"  -h, --help               this text\n"
"\n"
"Examples:\n"
"  xputrace ioctl -d 10                     every GPU ioctl for 10 s\n"
"  xputrace ioctl --stream -p 1234          calls of one process as they happen\n"
"  xputrace ioctl --device /dev/null -j     trace another node, JSON summary\n");
}

static int parse(int argc, char **argv, struct ioctl_opts *o)
{
	enum { OPT_NOHIST = XP_OPT_VERB };
	static const struct option lo[] = {
		XP_COMMON_LONG,
		XP_INTERVAL_LONG,
		XP_TARGET_LONG,
		{ "no-hist", no_argument, NULL, OPT_NOHIST },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, err;

	o->hist = true;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" XP_COMMON_SHORT XP_INTERVAL_SHORT XP_TARGET_SHORT "h", lo, NULL)) != -1) {
		if ((err = xp_live_opt(&o->l, "ioctl", c, argv)) != 1) {
			if (err)
				return err;
			continue;
		}
		switch (c) {
		case OPT_NOHIST: o->hist = false; break;
		case 'h': help(stdout); return xp_finish_stdout(0) ? 1 : -1;
		default: return xp_fail(2, "ioctl: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return xp_fail(2, "ioctl: unexpected argument '%s'", argv[optind]);
	return 0;
}

static int on_record(void *ctx, const struct xp_rec_hdr *h)
{
	struct ioctl_run *r = ctx;
	const struct xp_ioctl_rec *rec = (const void *)h;

	if (h->type != XP_REC_IOCTL)
		return 0;
	if (r->o->l.stream) {
		if (r->o->l.json)
			xp_ioctl_stream_json(&r->stream_json, rec, &r->devs, r->t0);
		else
			xp_ioctl_stream_text(stdout, rec, &r->devs, r->t0);
		if (ferror(stdout))
			return -EIO;
	}
	return xp_ioctl_table_add_rec(&r->table, rec);
}

static int report(struct ioctl_run *r, uint64_t interval)
{
	struct xp_run_info ri = {
		.command = "ioctl",
		.source = "live",
		.mode = r->o->l.stream ? "stream" : "summary",
		.hook = xp_ioctl_live_hook(r->live),
		.duration_s = xp_session_elapsed(&r->sess, interval != 0),
		.interval = interval,
	};
	int err;

	if (!r->o->l.stream && (err = xp_ioctl_live_drain(r->live, &r->table)))
		return err;
	xp_session_drops_for(&r->sess, ri.drops, interval != 0);
	if (r->o->l.json)
		xp_ioctl_report_json(stdout, &r->table, &r->devs, &ri);
	else
		xp_ioctl_report_text(stdout, &r->table, &r->devs, &ri, r->o->hist);
	fflush(stdout);
	xp_ioctl_table_reset(&r->table);
	return ferror(stdout) ? -EIO : 0;
}

static int on_interval(void *ctx, uint64_t n)
{
	struct ioctl_run *r = ctx;

	r->intervals = n;
	return report(r, n);
}

int cmd_ioctl(int argc, char **argv)
{
	struct ioctl_opts o = { 0 };
	struct ioctl_run r = { .o = &o };
	int err, status = 1;

	err = parse(argc, argv, &o);
	if (err)
		return err < 0 ? 0 : err;
	xp_libbpf_quiet(o.l.verbose);
	xp_ioctl_table_init(&r.table);
	if ((err = xp_live_targets(&o.l, "ioctl", &r.devs)))
		return err;
	err = xp_ioctl_live_open(&r.live, &o.l.f, &r.devs, !o.l.stream);
	if (err) {
		xp_fail(1, "ioctl: cannot trace sys_enter/sys_exit: %s", xp_bpf_error_hint(err));
		goto out;
	}
	xp_warn_no_devices("ioctl", &r.devs);
	r.sess.duration_s = o.l.duration_s;
	r.sess.interval_s = o.l.interval_s;
	r.sess.on_record = on_record;
	r.sess.on_interval = on_interval;
	r.sess.ctx = &r;
	r.sess.obj = xp_ioctl_live_object(r.live);
	if ((err = xp_session_open(&r.sess, xp_ioctl_live_events(r.live), xp_ioctl_live_drops(r.live)))) {
		xp_fail(1, "ioctl: cannot read the ring buffer: %s", strerror(-err));
		goto out;
	}
	r.t0 = r.sess.t_start_ns;
	xp_json_init(&r.stream_json, stdout, false);
	xp_signals_install();
	if (o.l.stream && !o.l.json)
		xp_ioctl_stream_header(stdout);
	/* on stderr, so it never mixes with a JSON document; tests wait for it */
	if (o.l.duration_s)
		fprintf(stderr, "Tracing GPU ioctls (%s) for %g s.\n", xp_ioctl_live_hook(r.live), o.l.duration_s);
	else
		fprintf(stderr, "Tracing GPU ioctls (%s)... Ctrl-C to end.\n", xp_ioctl_live_hook(r.live));
	err = xp_session_run(&r.sess);
	/* whatever ended the run, the summary of what was captured is written */
	{
		int rerr = report(&r, o.l.interval_s ? r.intervals + 1 : 0);

		if (!err)
			err = rerr;
	}
	if (err == -EIO)
		status = 1;
	else if (err)
		xp_fail(1, "ioctl: %s", strerror(-err));
	else
		status = 0;
out:
	xp_session_close(&r.sess);
	xp_ioctl_live_close(r.live);
	xp_ioctl_table_free(&r.table);
	return xp_finish_stdout(status);
}
