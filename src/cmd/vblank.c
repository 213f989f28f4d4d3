/* xputrace vblank: frame timing per CRTC and per client from the drm vblank events. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "core/devices.h"
#include "core/parse.h"
#include "core/vblank_stats.h"
#include "live/rawtp_live.h"
#include "live/session.h"
#include "sinks/vblank_report.h"

struct vblank_opts {
	double duration_s, interval_s;
	bool stream, json, hist, verbose;
	uint64_t late_ns;
};

struct vblank_run {
	struct vblank_opts *o;
	struct xp_rawtp_live *live;
	struct xp_rawtp_layout layout;
	struct xp_vbl_state st;
	struct xp_session sess;
	struct xp_json stream_json;
	uint64_t t0, undecodable, intervals;
	uint64_t read_drops[XP_DROP_REASON_MAX];
	int out_err;
};

static void help(FILE *f)
{
	fprintf(f,
"Usage: xputrace vblank [OPTIONS]\n"
"\n"
"Frame timing from the DRM vblank tracepoints (drm_vblank_event, _queued,\n"
"_delivered; their layouts are read from the running kernel at start-up).\n"
"Per CRTC: the measured refresh rate, the vblank interval's jitter (stddev,\n"
"p99, max), and missed vblanks (sequence numbers skipped between handled\n"
"vblanks; a silence of 1 s or more is counted as an idle gap: the interrupt\n"
"was off because nobody waited). Per client (DRM file and CRTC, named by the\n"
"process that queued wait-vblank requests on it): requests, deliveries, the\n"
"queued -> delivered latency, frames missed (sequence numbers skipped between\n"
"two deliveries), and late deliveries: delivered more than --late-ms after the\n"
"timestamp of the vblank requested, or on a later vblank than requested.\n"
"Deliveries fire in the vblank interrupt: a file that never queued a request\n"
"(page flips, atomic commits) cannot be named and shows as (unknown).\n"
"The vblank events carry a CRTC index and no device: with several display\n"
"devices, a CRTC row adds up that index on all of them (said at start-up).\n"
"\n"
"Options:\n"
"  -d, --duration SECONDS   stop after SECONDS (default: until Ctrl-C)\n"
"  -i, --interval SECONDS   print and reset the summary every SECONDS\n"
"      --stream             print each delivered event as it is settled\n"
"  -j, --json               JSON: the summary as one document (with --stream,\n"
"                           one object per delivery, then the summary)\n"
"      --late-ms MS         a delivery later than this is late (default 1)\n"
"      --no-hist            no histograms in the text summary\n"
"  -v, --verbose            show libbpf's messages\n"
"  -h, --help               this text\n"
"\n"
"Examples:\n"
"  xputrace vblank -d 10                 refresh, misses and latency for 10 s\n"
"  xputrace vblank --stream --late-ms 2  every delivery, late ones flagged\n"
"  xputrace vblank -i 1 -j               a JSON summary per second\n");
}

static int parse(int argc, char **argv, struct vblank_opts *o)
{
	enum { OPT_STREAM = 256, OPT_NOHIST, OPT_LATE };
	static const struct option lo[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "stream", no_argument, NULL, OPT_STREAM },
		{ "json", no_argument, NULL, 'j' },
		{ "late-ms", required_argument, NULL, OPT_LATE },
		{ "no-hist", no_argument, NULL, OPT_NOHIST },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	double ms;
	int c;

	o->hist = true;
	o->late_ns = 1000000;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:i:jvh", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (xp_parse_seconds(optarg, &o->duration_s))
				return xp_fail(2, "vblank: --duration wants a positive number of seconds, not '%s'", optarg);
			break;
		case 'i':
			if (xp_parse_seconds(optarg, &o->interval_s))
				return xp_fail(2, "vblank: --interval wants a positive number of seconds, not '%s'", optarg);
			break;
		case OPT_STREAM: o->stream = true; break;
		case 'j': o->json = true; break;
		case OPT_LATE:
			/* same grammar as seconds: a positive decimal number */
			if (xp_parse_seconds(optarg, &ms) || ms > 10000)
				return xp_fail(2, "vblank: --late-ms wants milliseconds from 0.001 to 10000, not '%s'", optarg);
			o->late_ns = (uint64_t)(ms * 1e6 + 0.5);
			break;
		case OPT_NOHIST: o->hist = false; break;
		case 'v': o->verbose = true; break;
		case 'h': help(stdout); return xp_finish_stdout(0) ? 1 : -1;
		case ':': return xp_fail(2, "vblank: %s needs a value", argv[optind - 1]);
		default: return xp_fail(2, "vblank: unknown option '%s'; see 'xputrace vblank --help'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return xp_fail(2, "vblank: unexpected argument '%s'", argv[optind]);
	return 0;
}

static void on_delivery(void *ctx, const struct xp_vbl_delivery *d)
{
	struct vblank_run *r = ctx;

	if (r->o->json)
		xp_vbl_stream_json(&r->stream_json, d, r->t0);
	else
		xp_vbl_stream_text(stdout, d, r->t0);
	if (ferror(stdout))
		r->out_err = -EIO;
}

static int on_record(void *ctx, const struct xp_rec_hdr *h)
{
	struct vblank_run *r = ctx;
	struct xp_vbl_event ev;

	if (h->type != XP_REC_VBLANK)
		return 0;
	if (xp_vbl_decode(&r->layout, (const struct xp_rawtp_rec *)h, &ev)) {
		r->undecodable++;
		return 0;
	}
	xp_vbl_add(&r->st, &ev);
	return r->out_err;
}

static int report(struct vblank_run *r, uint64_t interval, bool final)
{
	struct xp_run_info ri = {
		.command = "vblank",
		.source = "live",
		.mode = r->o->stream ? "stream" : "summary",
		.hook = "tracepoint",
		.duration_s = xp_session_elapsed(&r->sess, interval != 0),
		.interval = interval,
	};
	struct xp_vbl_report rep = { .st = &r->st, .layout = &r->layout, .ri = &ri, .hist = r->o->hist };
	uint64_t now[XP_DROP_REASON_MAX] = { 0 };

	if (final)
		xp_vbl_finish(&r->st);
	xp_session_drops(&r->sess, now);
	for (int i = 0; i < XP_DROP_REASON_MAX; i++) {
		ri.drops[i] = now[i] - (interval ? r->read_drops[i] : 0);
		if (interval)
			r->read_drops[i] = now[i];
	}
	if (r->o->json)
		xp_vbl_report_json(stdout, &rep);
	else
		xp_vbl_report_text(stdout, &rep);
	if (r->undecodable)
		fprintf(stderr, "xputrace: vblank: %llu records could not be decoded\n",
			(unsigned long long)r->undecodable);
	fflush(stdout);
	xp_vbl_reset(&r->st);
	return ferror(stdout) ? -EIO : 0;
}

static int on_interval(void *ctx, uint64_t n)
{
	struct vblank_run *r = ctx;

	r->intervals = n;
	return report(r, n, false);
}

int cmd_vblank(int argc, char **argv)
{
	struct vblank_opts o = { 0 };
	struct vblank_run *r = calloc(1, sizeof(*r));	/* the state is large */
	char why[256] = "";
	int err, status = 1;

	if (!r)
		return xp_fail(1, "vblank: out of memory");
	r->o = &o;
	err = parse(argc, argv, &o);
	if (err) {
		free(r);
		return err < 0 ? 0 : err;
	}
	xp_libbpf_quiet(o.verbose);
	xp_vbl_init(&r->st, o.late_ns);
	if (o.stream) {
		r->st.on_delivery = on_delivery;
		r->st.cb_ctx = r;
	}
	xp_rawtp_layout_init(&r->layout, xp_vbl_events, XP_VBL_NEV);
	err = xp_vblank_live_open(&r->live, &r->layout, why, sizeof(why));
	if (err == -ENOENT) {
		xp_fail(1, "vblank: this kernel has no drm vblank events (the drm module is not "
			   "loaded); see 'xputrace doctor'");
		goto out;
	}
	if (err) {
		xp_fail(1, "vblank: %s%s%s", why, err == -EPERM || err == -EACCES ? ": " : "",
			err == -EPERM || err == -EACCES ? xp_bpf_error_hint(err) : "");
		goto out;
	}
	r->sess.duration_s = o.duration_s;
	r->sess.interval_s = o.interval_s;
	r->sess.on_record = on_record;
	r->sess.on_interval = on_interval;
	r->sess.ctx = r;
	if ((err = xp_session_open(&r->sess, xp_rawtp_live_events(r->live), xp_rawtp_live_drops(r->live)))) {
		xp_fail(1, "vblank: cannot read the ring buffer: %s", strerror(-err));
		goto out;
	}
	r->t0 = r->sess.t_start_ns;
	xp_json_init(&r->stream_json, stdout, false);
	xp_signals_install();
	if (o.stream && !o.json)
		xp_vbl_stream_header(stdout);
	{
		char cards[128];
		int n = xp_display_devices("", cards, sizeof(cards));

		if (n > 1)
			fprintf(stderr, "note: %d display devices (%s); the vblank events name only the "
					"CRTC index, so each CRTC row adds up that index on all of them\n",
				n, cards);
	}
	if (o.duration_s)
		fprintf(stderr, "Tracing vblanks (%d drm events) for %g s.\n", r->layout.npresent, o.duration_s);
	else
		fprintf(stderr, "Tracing vblanks (%d drm events)... Ctrl-C to end.\n", r->layout.npresent);
	err = xp_session_run(&r->sess);
	{
		int rerr = report(r, o.interval_s ? r->intervals + 1 : 0, true);

		if (!err)
			err = rerr;
	}
	if (err == -EIO)
		status = 1;
	else if (err)
		xp_fail(1, "vblank: %s", strerror(-err));
	else
		status = 0;
out:
	xp_session_close(&r->sess);
	xp_rawtp_live_close(r->live);
	free(r);
	return xp_finish_stdout(status);
}
