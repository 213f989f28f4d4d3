/* xputrace record: what capabilities produce, into a trace file for later. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/flight.h"
#include "cmd/runner.h"
#include "core/outfile.h"
#include "core/tracefile.h"
#include "live/kernel_side.h"
#include "live/session.h"

struct record_run {
	struct xp_live_opts o;
	const char *out;
	bool summary, force, compress, v1;
	struct xp_outfile of;
	bool of_open;
	struct xp_cap_env env;
	struct xp_cap_inst *ci;		/* every runnable capability, table order (xp_ncaps) */
	bool *want;
	struct bpf_object **more_obj;		/* the session's more_obj: all but the first opened */
	int nci;
	struct xp_kside *owner;			/* the first opened: its ring buffer is shared */
	struct xp_trace_meta *meta;
	struct xp_trace_writer *w;
	struct xp_session sess;
	int write_err;
	uint64_t *let_go;			/* nci: what each row's upkeep let go */
	struct xp_flight_cfg fc;		/* --last: a flight recorder */
	struct xp_flight *fl;
};

/* record_opt takes them by index; the help text is what the man page says */
static const struct xp_cap_opt record_own[] = {
	{ "output", 'o', "FILE", "the trace file to write (required); with --last, the\ndirectory of the files", false, NULL },
	{ "summary", 0, NULL, "also print each capability's summary on stdout at the\nend, as 'report FILE CAPABILITY' prints it", false, NULL },
	{ "force", 0, NULL, "write through a symbolic link at FILE", false, NULL },
	{ "compress", 0, NULL, "compress each block of records with zstd", false, NULL },
	{ "format1", 0, NULL, "write format 1.1 (records as they are, 80 bytes an\nioctl), for older xputrace", false, NULL },
	{ "last", 0, "SECONDS", "a flight recorder: keep the last SECONDS in memory,\nwrite them when a --trigger is met", false, NULL },
	{ "after", 0, "SECONDS", "with --last: and SECONDS after the trigger (default 1)", false, NULL },
	{ "trigger", 0, "COND", "with --last: what writes a file (conditions above;\nseveral: any of them)", false, NULL },
	{ "ring-size", 0, "MIB", "with --last: the ring's bound in memory (default 64)", false, NULL },
	{ "max-triggers", 0, "N", "with --last: files written at most (default 100)", false, NULL },
	{ "holdoff", 0, "SECONDS", "with --last: no new file within SECONDS of the last\none's trigger (default 1)", false, NULL },
	{ NULL },
};
const struct xp_verb_opts xp_record_opts = {
	XP_O_DURATION | XP_O_JSON | XP_O_FILTERS | XP_O_DEVICE | XP_O_VERBOSE, record_own
};

/* A capability's option that shapes its summary: into the file, for report. */
static int keep_opt(void *ctx, const struct xp_cap *c, const struct xp_cap_opt *o, const char *arg)
{
	struct record_run *r = ctx;
	int err = xp_trace_meta_add_capopt(r->meta, c->name, o->name, arg);

	if (err == -ENAMETOOLONG)
		return xp_fail(2, "record: %s --%s: the value is too long to keep in the file (at most 199 "
				  "bytes)", c->name, o->name);
	return err ? xp_fail(1, "record: %s", strerror(-err)) : 0;
}

static void help(const void *ctx)
{
	const struct record_run *r = ctx;
	char names[128];

	printf(
"Usage: xputrace record -o FILE [OPTIONS] [CAPABILITY...]\n"
"       xputrace record --last SECONDS --trigger COND... -o DIR [OPTIONS] [CAPABILITY...]\n"
"\n"
"Writes every event the capabilities produce into FILE, a versioned binary\n"
"trace file with the host, kernel, clock, filters, device names and the\n"
"kernel's tracepoint layouts needed to analyse it on another machine\n"
"('xputrace report', 'xputrace export'). Capabilities: %s\n"
"(default: ioctl); several share one ring buffer. Drops are recorded in the\n"
"file. On Ctrl-C, SIGTERM or the end of -d, what was captured is written\n"
"out. FILE is written beside its place (.FILE.XXXXXX) and renamed over it\n"
"only at the end, so what was there before is never truncated or lost; a\n"
"recorder that is killed leaves that file, readable up to its last block.\n"
"Records are packed field by field (an ioctl takes about 16 bytes, not 80).\n"
"'-' writes the trace to standard output.\n"
"With --last, a flight recorder: the records of the last SECONDS are kept in\n"
"a ring in memory (bounded by --ring-size too; the oldest blocks go first,\n"
"counted), and each trigger writes DIR/<time>-<trigger>.xpt, a trace file of\n"
"the window before it and --after SECONDS after it; triggers within a window\n"
"being written share its file. DIR is made if missing; no file is replaced.\n"
"Conditions (T: 5ms, 200us, 1s): sigusr1; ioctl:error[=ERRNO][:NAME],\n"
"ioctl:over=T[:NAME]; api:over=T[:FUNCTION]; latency:over=T[:COMM];\n"
"sched:queue=T[:RING], sched:run=T[:RING]; fence:over=T[:COMM] (a wait);\n"
"vblank:missed[:COMM]; nvidia:xid[=CODE].\n"
"The process filters apply as the live commands apply them (in the kernel\n"
"where the event fires in the process; sched's after joining each job, by\n"
"'report'), and a capability's own options are taken as its verb takes them.\n"
"\n"
"Options:\n"
"  -o, --output FILE        the trace file to write (required); with --last, the\n"
"                           directory of the files\n"
"      --summary            also print each capability's summary on stdout at the\n"
"                           end, as 'report FILE CAPABILITY' prints it\n"
"      --force              write through a symbolic link at FILE\n"
"      --compress           compress each block of records with zstd\n"
"      --format1            write format 1.1 (records as they are, 80 bytes an\n"
"                           ioctl), for older xputrace\n"
"      --last SECONDS       a flight recorder: keep the last SECONDS in memory,\n"
"                           write them when a --trigger is met\n"
"      --after SECONDS      with --last: and SECONDS after the trigger (default 1)\n"
"      --trigger COND       with --last: what writes a file (conditions above;\n"
"                           several: any of them)\n"
"      --ring-size MIB      with --last: the ring's bound in memory (default 64)\n"
"      --max-triggers N     with --last: files written at most (default 100)\n"
"      --holdoff SECONDS    with --last: no new file within SECONDS of the last\n"
"                           one's trigger (default 1)\n",
	       xp_cap_names(names, sizeof(names)));
	xp_opts_help(stdout, xp_record_opts.common, NULL);
	xp_multi_caps_help(stdout, &(struct xp_multi_caps){ .ci = r->ci, .nci = r->nci, .keep = keep_opt });
	printf("Every option a capability's verb takes is taken here, as there, or refused\n"
	       "above with why. Those that shape a summary are kept in FILE and 'report'\n"
	       "and 'export' apply them, so the file reports what the live run would have\n"
	       "printed; latency's --max-age also ages the kernel's in-flight table while\n"
	       "recording, as the live verb does (how many were aged out is said at the end).\n");
	printf(
"\n"
"Examples:\n"
"  xputrace record -o gpu.xpt -d 30           GPU ioctls for 30 s\n"
"  xputrace record -o app.xpt -p 1234 ioctl   one process, until Ctrl-C\n"
"  xputrace record -o gpu.xpt sched vblank    GPU jobs and frames together\n"
"  xputrace record -o mem.xpt -d 10 mem       buffer memory and submissions\n"
"  xputrace report gpu.xpt                    the summary, from the file\n"
"  xputrace record --last 10 --trigger ioctl:error=EINVAL -o crash/\n"
"                                             the 10 s before each EINVAL, and 1 s after\n");
}

static int record_opt(void *ctx, int i, const char *arg)
{
	struct record_run *r = ctx;

	if (i == 0)
		r->out = arg;
	else if (i == 1)
		r->summary = true;
	else if (i == 2)
		r->force = true;
	else if (i == 3)
		r->compress = true;
	else if (i == 4)
		r->v1 = true;
	else
		return xp_flight_opt(&r->fc, i - 5, arg);
	return 0;
}

static bool record_default(const struct xp_cap *c)
{
	return c->flags & XP_CAP_RECORD_DEFAULT;
}

/* A sampler (fdinfo) writes no records a file could keep. */
static bool has_records(const struct xp_cap *c)
{
	return c->rec != NULL;
}

/* --last and its options: each needs the others. 0 or 2, said. */
static int parse_flight(struct record_run *r)
{
	if (!r->fc.last_s)
		return r->fc.ntrig ? xp_fail(2, "record: --trigger needs --last SECONDS (a flight recorder)") : 0;
	if (!r->fc.ntrig)
		return xp_fail(2, "record: --last needs at least one --trigger COND");
	if (r->summary)
		return xp_fail(2, "record: --summary reads one file; with --last, report each file written");
	if (!strcmp(r->out, "-"))
		return xp_fail(2, "record: with --last, -o names a directory, not standard output");
	if (r->force)
		return xp_fail(2, "record: --force follows a link at FILE; with --last, -o must be the directory itself");
	return xp_flight_check(&r->fc, r->ci, r->want, r->nci);
}

static int parse(int argc, char **argv, struct record_run *r)
{
	struct xp_optset own = { xp_record_opts.opts, record_opt, r };
	struct xp_multi_caps mc = { r->ci, r->nci, r->want, has_records, record_default, "records", "records",
				    keep_opt, r, false, false };
	int status = xp_opts_parse_multi("record", argc, argv, xp_record_opts.common, &r->o, &own, &mc,
					 help, r);

	if (status)
		return status;
	if (r->o.json)
		r->summary = true;
	if (!r->out)
		return xp_fail(2, "record: -o FILE is required; see 'xputrace record --help'");
	if (r->compress && r->v1)
		return xp_fail(2, "record: --compress needs format 2; --format1 writes records as they are");
	if (r->compress && !xp_trace_zstd())
		return xp_fail(2, "record: --compress needs zstd, and this xputrace was built without libzstd");
	if (!*r->out)
		return xp_fail(2, "record: -o wants a file name, not ''");
	if (r->summary && !strcmp(r->out, "-"))	/* -j: the summaries as JSON */
		return xp_fail(2, "record: %s reads the file written; with -o - there is none",
			       r->o.json ? "--json (the summaries)" : "--summary");
	if (r->force && !strcmp(r->out, "-"))
		return xp_fail(2, "record: --force writes through a symbolic link at FILE; -o - is standard output");
	return parse_flight(r);
}

static void stats_now(struct record_run *r, struct xp_trace_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->ts_ns = xp_now_ns();
	/* kernel-skipped runs too: with several tracers, done events in interrupts are lost so */
	xp_session_drops_for(&r->sess, st->drops, false);
}

static int on_record(void *ctx, const struct xp_rec_hdr *h)
{
	struct record_run *r = ctx;
	int err;

	if (r->fl)
		err = xp_flight_add(r->fl, h);
	else
		err = xp_trace_writer_add(r->w, h);
	if (err)
		r->write_err = err;
	return err;
}

/* Every second: the block so far and the drops so far go to the file. */
static int on_tick(void *ctx, uint64_t n)
{
	struct record_run *r = ctx;
	struct xp_trace_stats st;
	int err;

	(void)n;
	/* the kernel-side upkeep a live run's drain does (latency's ageing) */
	if ((err = xp_caps_upkeep(r->ci, r->nci, r->want, r->let_go)))
		return err;
	if (r->fl)
		return xp_flight_poll(r->fl);
	stats_now(r, &st);
	if ((err = xp_trace_writer_stats(r->w, &st)))
		r->write_err = err;
	return err;
}

/* A failed write of the file, said; a reader gone (EPIPE) ends it quietly, as for every verb. */
static void write_failed(const struct record_run *r, int err)
{
	if (err != -EPIPE)
		xp_fail(1, "record: writing %s: %s", r->out, strerror(-err));
}

/* A pipe at -o (standard output, a FIFO) whose reader went away ends the run. */
static int on_idle(void *ctx)
{
	struct record_run *r = ctx;

	if (r->fl)
		return xp_flight_poll(r->fl);
	return xp_reader_gone(r->of.fd) ? -EPIPE : 0;
}

/* What each row's upkeep let go while recording, one line each. */
static void say_let_go(const struct record_run *r)
{
	for (int i = 0; i < r->nci; i++)
		if (r->let_go[i])
			fprintf(stderr, "xputrace: record: %s: %llu %s\n", r->ci[i].cap->name,
				(unsigned long long)r->let_go[i], r->ci[i].cap->let_go);
}

static void flight_stats(void *ctx, struct xp_trace_stats *st)
{
	stats_now(ctx, st);
}

/* The end of a flight recording: stop, drain, the file being written ends, the totals. The status. */
static int finish_flight(struct record_run *r, int err)
{
	uint64_t stopped = xp_now_ns();

	err = xp_multi_finish("record", &(struct xp_multi_caps){ .ci = r->ci, .nci = r->nci, .want = r->want },
			      &r->sess, stopped, err);
	if (!err)
		err = r->write_err;
	if ((err = xp_flight_end(r->fl, stopped) ?: err)) {
		xp_fail(1, "record: %s", strerror(-err));
		return 1;
	}
	say_let_go(r);
	return 0;
}

/*
 * Opens every capability asked for, in one ring buffer: the first one
 * opened owns it, the later ones write into it and are polled beside it.
 * Their tracefs layouts and names go into the file. Returns an exit status.
 */
static int open_caps(struct record_run *r)
{
	struct xp_live_share share = { 0 };
	struct xp_open_args oa = { .f = &r->o.f, .devs = &r->meta->devs, .share = &share };
	struct xp_multi_caps mc = { .ci = r->ci, .nci = r->nci, .want = r->want };
	int err, status;

	for (int i = 0; i < r->nci; i++) {
		struct xp_cap_inst *ci = &r->ci[i];

		if (!r->want[i])
			continue;
		if ((status = xp_open_shared("record", &mc, i, &oa, &share, &r->sess, &r->owner)))
			return status < 0 ? 0 : status;
		if (r->owner == ci->k)
			snprintf(r->meta->hook, sizeof(r->meta->hook), "%s", ci->k->hook);
		if (ci->layout && (err = xp_trace_meta_add_layout(r->meta, ci->cap->rec->type, ci->layout)))
			return xp_fail(1, "record: %s", strerror(-err));
		if ((err = xp_trace_meta_add_cap(r->meta, ci->cap->name)))
			return xp_fail(1, "record: %s", strerror(-err));
	}
	return 0;
}

/* The end of a recording: stop, drain, finish and commit the file, say what was recorded, print the summaries. The status. */
static int finish(struct record_run *r, int err)
{
	struct xp_trace_stats st;
	char why[256];
	uint64_t stopped;
	int status;

	/* nothing new from here on; what is queued is written within XP_STOP_NS */
	stopped = xp_now_ns();
	err = xp_multi_finish("record", &(struct xp_multi_caps){ .ci = r->ci, .nci = r->nci, .want = r->want },
			      &r->sess, stopped, err);
	/* whatever ended the run, what was captured goes to the file; its
	 * time is when tracing ended, not when the queue was read out */
	stats_now(r, &st);
	st.ts_ns = stopped;
	if (!r->write_err && err != -EPIPE)
		r->write_err = xp_trace_writer_finish(r->w, &st);
	/* the reader went away (| head -c100): quietly, as for every verb, status 1 */
	if (r->write_err == -EPIPE || err == -EPIPE)
		return 1;
	if (r->write_err) {
		write_failed(r, r->write_err);
		return 1;
	}
	if (err) {
		xp_fail(1, "record: %s", strerror(-err));
		return 1;
	}
	say_let_go(r);
	fprintf(stderr, "Recorded %llu records in %llu blocks (%llu bytes) to %s; drops: %llu\n",
		(unsigned long long)xp_trace_writer_records(r->w),
		(unsigned long long)xp_trace_writer_blocks(r->w),
		(unsigned long long)xp_trace_writer_bytes(r->w), r->out,
		(unsigned long long)(st.drops[XP_DROP_RINGBUF] + st.drops[XP_DROP_MAP_FULL] +
				     st.drops[XP_DROP_KERNEL_MISSED]));
	r->of_open = false;
	xp_signals_leftover(NULL);	/* renamed into place, or removed */
	if ((err = xp_out_commit(&r->of, why, sizeof(why)))) {
		if (err != -EPIPE)	/* else the reader went away: quietly */
			xp_fail(1, "record: %s", why);
		return 1;
	}
	status = 0;
	/* each summary as report prints it: from the file just written */
	for (int i = 0; r->summary && !status && i < r->meta->ncaps; i++)
		status = xp_report_file(r->out, r->meta->caps[i], r->o.json, true, false);
	return status;
}

/*
 * The instances, the options, the targets and the file's metadata: -1 to go
 * on, else the status to exit with (help, or what was wrong already said).
 */
static int prepare(struct record_run *r, int argc, char **argv)
{
	int status;

	r->ci = calloc(xp_ncaps, sizeof(*r->ci));
	r->want = calloc(xp_ncaps, sizeof(*r->want));
	r->more_obj = calloc(xp_ncaps, sizeof(*r->more_obj));
	r->let_go = calloc(xp_ncaps, sizeof(*r->let_go));
	r->meta = calloc(1, sizeof(*r->meta));	/* before the options: some are kept in it */
	r->sess.more_obj = r->more_obj;
	xp_flight_cfg_init(&r->fc);
	if (!r->ci || !r->want || !r->more_obj || !r->let_go || !r->meta)
		return xp_fail(1, "record: out of memory");
	for (size_t i = 0; i < xp_ncaps; i++)
		if (xp_cap_runs(xp_caps[i]) && !xp_cap_inst_new(&r->ci[r->nci], xp_caps[i], &r->env))
			r->nci++;
	status = parse(argc, argv, r);
	if (status)
		return status < 0 ? xp_finish_stdout(0) : status;
	xp_libbpf_quiet(r->o.verbose);
	if ((status = xp_live_targets(&r->o, "record", &r->meta->devs)))
		return status;
	/* a trigger names the calls as the summary does, and filters as it does */
	r->env.devs = &r->meta->devs;
	r->env.filt = r->o.f;
	/* the start time is taken before attaching: no record is older */
	xp_trace_meta_host(r->meta, XP_VERSION);
	r->meta->filter_pid = r->o.f.pid;
	if (r->o.f.comm)
		snprintf(r->meta->filter_comm, sizeof(r->meta->filter_comm), "%s", r->o.f.comm);
	r->meta->filter_cgroup = r->o.f.cgroup_id;
	return -1;
}

static int record(struct record_run *r, int argc, char **argv)
{
	char why[256];
	int err, status;

	if ((status = prepare(r, argc, argv)) >= 0)
		return status;
	if (r->fc.last_s) {
		/* DIR, before any BPF; a SIGUSR1 during start-up is kept for when tracing begins */
		struct xp_flight_io io = { .meta = r->meta, .stats = flight_stats, .ctx = r, .ci = r->ci,
					   .want = r->want, .nci = r->nci,
					   .wopts = { .raw = r->v1, .zstd_level = r->compress ? 3 : 0 } };

		if (!(r->fl = xp_flight_open(&r->fc, r->out, &io, &status)))
			return status;
	} else {
		/* beside FILE, before any BPF: FILE itself changes only by the final rename */
		if ((err = xp_out_open(&r->of, r->out, r->force, why, sizeof(why))))
			return xp_fail(err == -EEXIST ? 2 : 1, "record: %s", why);
		r->of_open = true;
		/* a second signal exits at once: it says where the recording so far is */
		xp_signals_leftover(r->of.tmp);
	}
	if ((status = open_caps(r)))
		goto out;
	if (xp_stop) {
		/* stopped during start-up: what was attached stops, tracing never begins */
		xp_caps_detach("record", r->ci, r->nci);
		if (!r->owner) {
			xp_fail(0, "record: stopped during start-up, before anything was attached; "
				   "%s not written", r->out);
			goto out;
		}
	}
	status = 1;
	/* everything is attached: tracing began (the start, taken before
	 * attaching, stays the file's origin: no record is older) */
	r->meta->tracing_ns = xp_now_ns();
	if (!r->fl && (err = xp_trace_writer_open_opts(&r->w, r->of.fd, r->meta, &(struct xp_trace_wopts){
			.raw = r->v1, .zstd_level = r->compress ? 3 : 0 }))) {
		write_failed(r, err);
		goto out;
	}
	/* what was so before recording began goes first: a file reports what a live run finds */
	for (int i = 0; i < r->nci; i++)
		if (!xp_stop && r->want[i] && r->ci[i].cap->snapshot &&
		    (err = r->ci[i].cap->snapshot(&r->ci[i], &r->o.f, r->meta->start_ns, on_record, r))) {
			write_failed(r, err);
			goto out;
		}
	r->sess.duration_s = r->o.duration_s;
	r->sess.interval_s = 1.0;	/* the writer's timer: stats and a flush */
	r->sess.on_record = on_record;
	r->sess.on_interval = on_tick;
	r->sess.on_idle = on_idle;
	r->sess.ctx = r;
	if ((err = xp_session_open(&r->sess, r->owner->events, r->owner->drops))) {
		xp_fail(1, "record: cannot read the ring buffer: %s", strerror(-err));
		goto out;
	}
	/* -d counts from when tracing began */
	r->sess.t_start_ns = r->sess.t_interval_ns = r->meta->tracing_ns;
	if (!xp_stop) {
		fprintf(stderr, "Tracing");	/* tests wait for this word */
		for (int i = 0; i < r->meta->ncaps; i++)
			fprintf(stderr, "%s %s", i ? "," : "", r->meta->caps[i]);
		if (r->fl)
			fprintf(stderr, " (%s), the last %.3g s in memory, into %s/ when triggered... %s\n",
				r->meta->hook, r->fc.last_s, r->out, r->o.duration_s ? "" : "Ctrl-C to end.");
		else
			fprintf(stderr, " (%s) into %s%s%s%s... %s\n", r->meta->hook, r->out,
				r->of.tmp[0] ? " (" : "", r->of.tmp, r->of.tmp[0] ? " until the end)" : "",
				r->o.duration_s ? "" : "Ctrl-C to end.");
		/* a trigger during start-up (SIGUSR1) writes its file now */
		err = r->fl ? xp_flight_poll(r->fl) : 0;
		if (!err)
			err = xp_session_run(&r->sess);
	}
	status = r->fl ? finish_flight(r, err) : finish(r, err);
out:
	/* a failed recording is dropped; FILE stays as it was */
	xp_signals_leftover(NULL);
	if (r->of_open)
		xp_out_abort(&r->of);
	r->of_open = false;
	return status;
}

int cmd_record(int argc, char **argv)
{
	struct record_run *r = calloc(1, sizeof(*r));
	int status;

	if (!r)
		return xp_fail(1, "record: out of memory");
	r->env = (struct xp_cap_env){ .live = true, .out = XP_OUT_SUMMARY, .f = stdout };
	status = record(r, argc, argv);
	if (status)
		xp_flight_failed(r->fl);
	xp_session_close(&r->sess);
	for (int i = r->nci - 1; i >= 0; i--) {
		xp_kside_close(r->ci[i].k);
		xp_cap_inst_free(&r->ci[i]);
	}
	free(r->ci);
	free(r->want);
	free(r->more_obj);
	free(r->let_go);
	xp_trace_writer_free(r->w);
	xp_flight_free(r->fl);
	if (r->meta)
		xp_trace_meta_free(r->meta);
	free(r->meta);
	free(r);
	return xp_finish_stdout(status);
}
