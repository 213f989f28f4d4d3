/* The live runner of every tracing verb, and what the runners say. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/runner.h"
#include "core/msg.h"
#include "core/parse.h"
#include "live/kernel_side.h"
#include "live/session.h"

int xp_open_failed(const char *verb, const struct xp_cap_inst *ci, int err, const char *why)
{
	char msg[320];
	bool priv = err == -EPERM || err == -EACCES;

	if (err == -ENOENT && !why[0] && ci->cap->no_events) {
		ci->cap->no_events(ci, msg, sizeof(msg));
		return xp_fail(1, "%s: %s", verb, msg);
	}
	if (!why[0] && !strcmp(verb, ci->cap->name))	/* "ioctl: ioctl: ..." says nothing more */
		return xp_fail(1, "%s: %s", verb, xp_bpf_error_hint(err));
	if (!why[0])
		return xp_fail(1, "%s: %s: %s", verb, ci->cap->name, xp_bpf_error_hint(err));
	/* `why` names the step and errno; privileges get the advice */
	return xp_fail(1, "%s: %s%s%s", verb, why, priv ? ": " : "", priv ? xp_bpf_error_hint(err) : "");
}

struct live_run {
	const struct xp_cap *cap;
	struct xp_live_opts o;
	struct xp_devices devs;
	struct xp_cap_env env;
	struct xp_cap_inst ci;
	/* the row it joins (cap->joins), fed quietly when it opened here */
	struct xp_cap_env jenv;
	struct xp_cap_inst jci;
	bool joined;
	struct bpf_object *jobj;
	struct xp_session sess;
	struct xp_json sj;
	uint64_t intervals;
};

static void help_cap(const void *ctx)
{
	const struct xp_cap *cap = ctx;

	printf("Usage: xputrace %s [OPTIONS]%s\n\n%s\nOptions:\n", cap->name,
	       cap->flags & XP_CAP_POSITIONAL_INTERVAL ? " [INTERVAL [COUNT]]" : "", cap->about);
	xp_opts_help(stdout, xp_cap_common(cap), cap->opts);
	printf("\nExamples:\n%s", cap->examples);
}

void xp_say_undecodable(const char *verb, const struct xp_cap_inst *ci)
{
	if (!ci->undecodable || (ci->cap->flags & XP_CAP_SAYS_UNDECODABLE))
		return;
	if (strcmp(verb, ci->cap->name))
		fprintf(stderr, "xputrace: %s: %llu %s record%s could not be decoded\n", verb,
			(unsigned long long)ci->undecodable, ci->cap->name, ci->undecodable == 1 ? "" : "s");
	else
		fprintf(stderr, "xputrace: %s: %llu record%s could not be decoded\n", verb,
			(unsigned long long)ci->undecodable, ci->undecodable == 1 ? "" : "s");
}

void xp_say_skipped(const char *verb, uint64_t unclaimed, uint64_t malformed)
{
	if (unclaimed)
		fprintf(stderr, "xputrace: %s: %llu record%s of a type no capability claims, skipped\n",
			verb, (unsigned long long)unclaimed, unclaimed == 1 ? "" : "s");
	if (malformed)
		fprintf(stderr, "xputrace: %s: %llu malformed record%s, skipped\n", verb,
			(unsigned long long)malformed, malformed == 1 ? "" : "s");
}

void xp_say_unread(const char *verb, const struct xp_session *s)
{
	if (s->unread)
		fprintf(stderr, "xputrace: %s: %llu records still queued at the end were not read (a stop "
				"ends the reading within 0.3 s)\n", verb, (unsigned long long)s->unread);
}

static int on_record(void *ctx, const struct xp_rec_hdr *h)
{
	struct live_run *r = ctx;

	int err;

	if (r->joined && h->type == r->jci.cap->rec->type)
		return r->jci.cap->feed(&r->jci, h);
	if (h->type != r->cap->rec->type)
		return 0;
	err = r->cap->feed(&r->ci, h);
	/* a stream line that could not be written (a reader gone) ends the run */
	return !err && r->o.stream && ferror(stdout) ? -EIO : err;
}

static int live_report(struct live_run *r, uint64_t interval, bool final)
{
	const struct xp_cap *cap = r->cap;
	struct xp_run_info ri = {
		.command = cap->name,
		.source = "live",
		.mode = r->o.stream ? "stream" : "summary",
		.hook = r->ci.k ? r->ci.k->hook : NULL,
		.duration_s = xp_session_elapsed(&r->sess, interval != 0),
		.interval = interval,
	};
	struct xp_cap_report rep = { .ri = &ri, .json = r->o.json, .hist = r->o.hist, .final = final };
	int err;

	if (!r->o.stream && cap->drain && (r->ci.k || (cap->flags & XP_CAP_SAMPLER)) &&
	    (err = cap->drain(&r->ci, false)))
		return err;
	rep.now = xp_now_ns();
	if (r->sess.rb) {	/* else nothing was loaded (stopped during start-up): no drops */
		xp_session_drops_for(&r->sess, ri.drops, interval != 0);
		ri.skips_uncounted = xp_session_skips_uncounted(&r->sess);
	}
	cap->report(&r->ci, stdout, &rep);
	xp_say_undecodable(cap->name, &r->ci);
	fflush(stdout);
	cap->reset(&r->ci, rep.now);
	r->ci.undecodable = 0;
	return ferror(stdout) ? -EIO : 0;
}

/* Summary mode (and XP_CAP_STREAM_TICK): what the kernel counted moves to user space every
 * second, so its maps never fill with processes long gone (the table bounds memory). */
static int on_tick(void *ctx)
{
	struct live_run *r = ctx;

	return r->cap->drain(&r->ci, true);
}

/*
 * Between reads: a stream's lines go out (a pipe's stdio buffer would hold
 * them until the end), and a reader that went away ends the run even when
 * no event comes to fail a write.
 */
static int on_idle(void *ctx)
{
	struct live_run *r = ctx;

	if (r->o.stream && fflush(stdout))
		return errno == EPIPE ? -EPIPE : -EIO;
	return xp_reader_gone(STDOUT_FILENO) ? -EPIPE : 0;
}

static int on_interval(void *ctx, uint64_t n)
{
	struct live_run *r = ctx;

	r->intervals = n;
	return live_report(r, n, false);
}

/*
 * INTERVAL [COUNT] after the options, as bcc tools take them: -i INTERVAL,
 * and with COUNT -d INTERVAL*COUNT, so COUNT summaries are printed (the
 * last one when the duration ends).
 */
static int positional_interval(struct live_run *r, int argc, char **argv)
{
	const char *verb = r->cap->name;
	double iv;
	uint64_t count;

	if (optind >= argc)
		return 0;
	if (r->o.interval_s)
		return xp_fail(2, "%s: an INTERVAL after the options and -i: give one of them", verb);
	if (xp_parse_seconds(argv[optind], &iv) || iv < 0.01)
		return xp_fail(2, "%s: INTERVAL wants seconds from 0.01 up, not '%s'", verb, argv[optind]);
	r->o.interval_s = iv;
	optind++;
	if (optind >= argc)
		return 0;
	if (xp_parse_u64(argv[optind], 1, 1000000, &count))
		return xp_fail(2, "%s: COUNT wants a number of intervals from 1, not '%s'", verb, argv[optind]);
	if (r->o.duration_s)
		return xp_fail(2, "%s: a COUNT after the options and -d: give one of them", verb);
	r->o.duration_s = iv * (double)count;
	optind++;
	return 0;
}

static char stream_buf[1 << 16];

/* The end of a run: stop, read what is queued, say what was missed, write the summary. The status. */
static int finish(struct live_run *r, int err)
{
	const struct xp_cap *cap = r->cap;
	const char *verb = cap->name;
	uint64_t stopped;

	/* nothing new from here on; what is queued is read within XP_STOP_NS */
	stopped = r->sess.t_stop_ns = xp_now_ns();
	xp_kside_detach_all(verb, (struct xp_kside *[]){ r->ci.k, r->jci.k }, 2);
	if (!err && r->sess.rb)
		err = xp_session_drain(&r->sess, xp_drain_budget(stopped));
	xp_say_unread(cap->name, &r->sess);
	xp_say_skipped(cap->name, r->sess.unclaimed, r->sess.bad_records - r->sess.unclaimed);
	if (cap->say_unseen && r->ci.k)
		cap->say_unseen(&r->ci, cap->name);
	if (r->joined)
		xp_say_undecodable(cap->name, &r->jci);
	/* whatever ended the run, the summary of what was captured is written */
	{
		int rerr = live_report(r, r->o.interval_s ? r->intervals + 1 : 0, true);

		if (!err)
			err = rerr;
	}
	if (err == -EIO || err == -EPIPE)	/* the output failed, or its reader went away */
		return 1;
	if (err)
		return xp_fail(1, "%s: %s", verb, strerror(-err));
	return 0;
}

/*
 * The row this one joins (cap->joins): opened into its ring buffer, quietly
 * left out when this kernel lacks its events, with a warning when it fails.
 */
static void open_joined(struct live_run *r, const struct xp_open_args *oa)
{
	const struct xp_cap *jc = r->cap->joins ? xp_cap_find(r->cap->joins) : NULL;
	struct xp_live_share share;
	struct xp_open_args ja = *oa;
	char why[512] = "";
	int err;

	if (!jc || !r->ci.k || xp_stop)
		return;
	r->jenv = r->env;
	r->jenv.out = XP_OUT_SUMMARY;
	if (xp_cap_inst_new(&r->jci, jc, &r->jenv)) {
		xp_cap_inst_free(&r->jci);
		return;
	}
	share = (struct xp_live_share){ r->ci.k->events, r->ci.k->drops };
	ja.share = &share;
	ja.aggregate = false;
	if (!(err = jc->open(&r->jci, &ja, why, sizeof(why)))) {
		r->joined = true;
		r->jobj = r->jci.k->obj;
		return;
	}
	if (err != -ENOENT && !xp_stop)
		fprintf(stderr, "xputrace: %s: warning: %s not joined: %s\n", r->cap->name, jc->name,
			why[0] ? why : strerror(-err));
	xp_kside_close(r->jci.k);
	r->jci.k = NULL;
	xp_cap_inst_free(&r->jci);
}

/* The analyses, the joined row's linked in before any record. */
static int init_analysis(struct live_run *r)
{
	int err;

	if ((err = r->cap->init(&r->ci)) || !r->joined)
		return err;
	r->jenv.t0 = r->env.t0;
	if ((err = r->jci.cap->init(&r->jci)))
		return err;
	return r->cap->link ? r->cap->link(&r->ci, &r->jci) : 0;
}

static int run(struct live_run *r, int argc, char **argv)
{
	const struct xp_cap *cap = r->cap;
	const char *verb = cap->name;
	struct xp_optset set = { cap->opts, cap->opt, r->ci.opts };
	struct xp_open_args oa;
	char why[512] = "", what[640];
	int err, status;

	status = xp_opts_parse(verb, argc, argv, xp_cap_common(cap),
			       &r->o, &set, cap->opts ? 1 : 0, help_cap, cap);
	if (status)
		return status < 0 ? xp_finish_stdout(0) : status;
	if ((cap->flags & XP_CAP_POSITIONAL_INTERVAL) && (status = positional_interval(r, argc, argv)))
		return status;
	if (optind < argc)
		return xp_fail(2, "%s: unexpected argument '%s'", verb, argv[optind]);
	if (cap->opts_check && (status = cap->opts_check(r->ci.opts)))
		return status;
	xp_libbpf_quiet(r->o.verbose);
	/* a stream into a file or pipe: one write per 64 KiB, not per 4 KiB (a terminal: per line) */
	if (r->o.stream && !isatty(STDOUT_FILENO))
		setvbuf(stdout, stream_buf, _IOFBF, sizeof(stream_buf));
	if ((status = xp_live_targets(&r->o, verb, &r->devs)))
		return status;

	r->env = (struct xp_cap_env){
		.live = true, .out = r->o.stream ? XP_OUT_STREAM : XP_OUT_SUMMARY,
		.json = r->o.json, .f = stdout, .stream_json = &r->sj, .filt = r->o.f,
		.devs = &r->devs, .page_size = (uint32_t)sysconf(_SC_PAGESIZE),
	};
	oa = (struct xp_open_args){ .f = &r->o.f, .devs = &r->devs, .aggregate = !r->o.stream };
	/*
	 * A signal during start-up stops it where it is: nothing more is
	 * loaded, what is attached is detached at once, tracing never starts,
	 * and the (empty) summary is still written. A load that a signal broke
	 * off is such a stop too, not a failure.
	 */
	if (!xp_stop && (err = cap->open(&r->ci, &oa, why, sizeof(why))) && !xp_stop)
		return xp_open_failed(verb, &r->ci, err, why);
	open_joined(r, &oa);
	if (xp_stop) {
		xp_kside_detach_all(verb, (struct xp_kside *[]){ r->ci.k, r->jci.k }, 2);
	} else if (cap->flags & XP_CAP_DEVICES) {
		xp_warn_no_devices(verb, &r->devs);
	}

	r->sess.duration_s = r->o.duration_s;
	r->sess.interval_s = r->o.interval_s;
	r->sess.on_record = on_record;
	r->sess.on_interval = on_interval;
	r->sess.on_idle = on_idle;
	if (cap->drain && (!r->o.stream || (cap->flags & XP_CAP_STREAM_TICK))) {
		r->sess.tick_s = 1.0;
		r->sess.on_tick = on_tick;
	}
	r->sess.ctx = r;
	if (r->ci.k) {
		r->sess.obj = r->ci.k->obj;
		if (r->joined) {
			r->sess.more_obj = &r->jobj;
			r->sess.nmore_obj = 1;
		}
		if ((err = xp_session_open(&r->sess, r->ci.k->events, r->ci.k->drops)))
			return xp_fail(1, "%s: cannot read the ring buffer: %s", verb, strerror(-err));
	} else {
		r->sess.drops_fd = -1;
		r->sess.t_start_ns = r->sess.t_interval_ns = xp_now_ns();
	}
	r->env.t0 = r->sess.t_start_ns;
	if ((err = init_analysis(r)))
		return xp_fail(1, "%s: %s", verb, strerror(-err));
	xp_json_init(&r->sj, stdout, false);
	xp_signals_install();
	if (r->o.stream && !r->o.json && cap->stream_header)
		cap->stream_header(stdout);
	/* what was so before tracing began, fed as the kernel's records are */
	if (!xp_stop && cap->snapshot && (err = cap->snapshot(&r->ci, &r->o.f, r->env.t0, on_record, r)))
		return xp_fail(1, "%s: %s", verb, strerror(-err));
	if (!xp_stop) {
		/* on stderr, so it never mixes with a JSON document; tests wait for it */
		cap->describe(&r->ci, what, sizeof(what));
		if (r->o.duration_s)
			fprintf(stderr, "Tracing %s for %g s.\n", what, r->o.duration_s);
		else
			fprintf(stderr, "Tracing %s... Ctrl-C to end.\n", what);
		/* -d counts from here, when everything is attached and read */
		r->sess.t_start_ns = r->sess.t_interval_ns = xp_now_ns();
		err = xp_session_run(&r->sess);
	}
	return finish(r, err);
}

int xp_cmd_live(const struct xp_cap *cap, int argc, char **argv)
{
	struct live_run *r = calloc(1, sizeof(*r));
	int status;

	if (!r)
		return xp_fail(1, "%s: out of memory", cap->name);
	r->cap = cap;
	if (xp_cap_inst_new(&r->ci, cap, &r->env)) {
		free(r);
		return xp_fail(1, "%s: out of memory", cap->name);
	}
	status = run(r, argc, argv);
	xp_session_close(&r->sess);
	xp_kside_close(r->ci.k);
	xp_kside_close(r->jci.k);
	xp_cap_inst_free(&r->ci);
	xp_cap_inst_free(&r->jci);
	free(r);
	return xp_finish_stdout(status);
}
