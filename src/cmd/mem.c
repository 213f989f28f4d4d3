/* xputrace mem: buffer memory and submissions of amdgpu, i915 and xe from their tracepoints. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/options.h"
#include "core/mem_stats.h"
#include "live/capture.h"
#include "live/rawtp_live.h"
#include "live/session.h"
#include "sinks/mem_report.h"

#define MAX_GROUPS 8

struct mem_opts {
	struct xp_live_opts l;
	bool hist;
	int ngroups;
	char group_drv[MAX_GROUPS][16];
	const char *group_name[MAX_GROUPS];
};

struct mem_run {
	struct mem_opts *o;
	struct xp_rawtp_live *live;
	struct xp_rawtp_layout layout;
	struct xp_mem_state st;
	struct xp_session sess;
	struct xp_json stream_json;
	uint64_t t0, undecodable, intervals;
	int out_err;
};

static void help(FILE *f)
{
	fprintf(f,
"Usage: xputrace mem [OPTIONS]\n"
"\n"
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
"          read/write);\n"
"  xe:     exec queues, scheduler jobs, BOs created and moved, VMA page faults.\n"
"Events that run in the causing process's context are counted per process;\n"
"the others (interrupts, scheduler workers, reclaim, eviction) per device, and\n"
"the output says which is which.\n"
"\n"
"Options:\n"
"  -d, --duration SECONDS   stop after SECONDS (default: until Ctrl-C)\n"
"  -i, --interval SECONDS   print and reset the summary every SECONDS (live\n"
"                           objects and pending submits carry over)\n"
"      --stream             print each event with its fields\n"
"  -j, --json               JSON: the summary as one document (with --stream,\n"
"                           one object per event, then the summary)\n"
"  -p, --pid PID            only this process's per-process events\n"
"  -c, --comm NAME          only per-process events of threads with this name\n"
"  -G, --cgroup PATH        only per-process events of tasks in this cgroup\n"
"      --group DRIVER=GROUP read DRIVER's events (amdgpu, i915, xe) from event\n"
"                           group GROUP: a test module's events laid out alike\n"
"      --no-hist            no histograms in the text summary\n"
"  -v, --verbose            show libbpf's messages\n"
"  -h, --help               this text\n"
"\n"
"The process filters apply to the events in process context; per-device\n"
"events (moves, interrupts, evictions, ...) belong to no process and are all\n"
"counted.\n"
"\n"
"Examples:\n"
"  xputrace mem -d 10                 10 s of buffer and submission activity\n"
"  xputrace mem --stream -c Xorg      one application's events as they happen\n"
"  xputrace mem -i 1 -j               a JSON summary per second\n");
}

static int parse(int argc, char **argv, struct mem_opts *o)
{
	enum { OPT_NOHIST = XP_OPT_VERB, OPT_GROUP };
	static const struct option lo[] = {
		XP_COMMON_LONG,
		XP_INTERVAL_LONG,
		{ "cgroup", required_argument, NULL, 'G' },
		{ "group", required_argument, NULL, OPT_GROUP },
		{ "no-hist", no_argument, NULL, OPT_NOHIST },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *eq;
	int c, err;

	o->hist = true;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" XP_COMMON_SHORT XP_INTERVAL_SHORT "G:h", lo, NULL)) != -1) {
		if ((err = xp_live_opt(&o->l, "mem", c, argv)) != 1) {
			if (err)
				return err;
			continue;
		}
		switch (c) {
		case OPT_GROUP:
			eq = strchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1] || strchr(eq + 1, '/') || strlen(eq + 1) >= XP_TP_NAME_LEN ||
			    (size_t)(eq - optarg) >= sizeof(o->group_drv[0]))
				return xp_fail(2, "mem: --group wants DRIVER=GROUP (e.g. amdgpu=mytest), not '%s'", optarg);
			if (o->ngroups == MAX_GROUPS)
				return xp_fail(2, "mem: too many --group options");
			memcpy(o->group_drv[o->ngroups], optarg, (size_t)(eq - optarg));
			o->group_drv[o->ngroups][eq - optarg] = '\0';
			if (strcmp(o->group_drv[o->ngroups], "amdgpu") && strcmp(o->group_drv[o->ngroups], "i915") &&
			    strcmp(o->group_drv[o->ngroups], "xe"))
				return xp_fail(2, "mem: --group: unknown driver '%s' (amdgpu, i915 or xe)",
					       o->group_drv[o->ngroups]);
			o->group_name[o->ngroups++] = eq + 1;
			break;
		case OPT_NOHIST: o->hist = false; break;
		case 'h': help(stdout); return xp_finish_stdout(0) ? 1 : -1;
		default: return xp_fail(2, "mem: unknown option '%s'; see 'xputrace mem --help'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return xp_fail(2, "mem: unexpected argument '%s'", argv[optind]);
	return 0;
}

static int on_record(void *ctx, const struct xp_rec_hdr *h)
{
	struct mem_run *r = ctx;
	const struct xp_rawtp_rec *rec = (const struct xp_rawtp_rec *)h;

	if (h->type != XP_REC_MEM)
		return 0;
	if (h->size < sizeof(*rec) || xp_mem_add(&r->st, &r->layout, rec)) {
		r->undecodable++;
		return 0;
	}
	if (r->o->l.stream) {
		if (r->o->l.json)
			xp_mem_stream_json(&r->stream_json, &r->layout, rec, r->t0);
		else
			xp_mem_stream_text(stdout, &r->layout, rec, r->t0);
		if (ferror(stdout))
			r->out_err = -EIO;
	}
	return r->out_err;
}

static int report(struct mem_run *r, uint64_t interval)
{
	struct xp_run_info ri = {
		.command = "mem",
		.source = "live",
		.mode = r->o->l.stream ? "stream" : "summary",
		.hook = "tracepoint",
		.duration_s = xp_session_elapsed(&r->sess, interval != 0),
		.interval = interval,
	};
	struct xp_mem_report rep = {
		.st = &r->st, .layout = &r->layout, .ri = &ri, .hist = r->o->hist,
		.filtered = r->o->l.f.pid || r->o->l.f.comm || r->o->l.f.cgroup_id,
		.undecodable = r->undecodable,
	};

	xp_session_drops_for(&r->sess, ri.drops, interval != 0);
	if (r->o->l.json)
		xp_mem_report_json(stdout, &rep);
	else
		xp_mem_report_text(stdout, &rep);
	fflush(stdout);
	xp_mem_reset(&r->st);
	r->undecodable = 0;
	return ferror(stdout) ? -EIO : 0;
}

static int on_interval(void *ctx, uint64_t n)
{
	struct mem_run *r = ctx;

	r->intervals = n;
	return report(r, n);
}

static void no_events(const struct mem_opts *o)
{
	char redirected[256] = "";
	size_t k = 0;

	for (int i = 0; i < o->ngroups && k < sizeof(redirected); i++)
		k += (size_t)snprintf(redirected + k, sizeof(redirected) - k, "%s%s as %s", i ? ", " : " (read ",
				      o->group_drv[i], o->group_name[i]);
	if (o->ngroups && k < sizeof(redirected))
		snprintf(redirected + k, sizeof(redirected) - k, ")");
	xp_fail(1, "mem: this kernel has no amdgpu, i915 or xe events%s (none of those drivers is "
		   "loaded); see 'xputrace doctor'", redirected);
}

int cmd_mem(int argc, char **argv)
{
	struct mem_opts o = { 0 };
	struct mem_run *r = calloc(1, sizeof(*r));	/* the state is large */
	struct xp_devices devs;
	char why[256] = "";
	int err, status = 1;

	if (!r)
		return xp_fail(1, "mem: out of memory");
	r->o = &o;
	err = parse(argc, argv, &o);
	if (err) {
		free(r);
		return err < 0 ? 0 : err;
	}
	if (o.l.cgroup && (err = xp_live_targets(&o.l, "mem", &devs))) {
		free(r);
		return err;
	}
	xp_libbpf_quiet(o.l.verbose);
	if ((err = xp_mem_init(&r->st, (uint32_t)sysconf(_SC_PAGESIZE)))) {
		free(r);
		return xp_fail(1, "mem: %s", strerror(-err));
	}
	xp_rawtp_layout_init(&r->layout, xp_mem_events, XP_MEM_NEV);
	for (int i = 0; i < o.ngroups; i++)
		xp_rawtp_set_group(&r->layout, o.group_drv[i], o.group_name[i]);
	err = xp_mem_live_open_filtered(&r->live, &r->layout, &o.l.f, why, sizeof(why));
	if (err == -ENOENT && !r->live) {
		if (why[0])
			xp_fail(1, "mem: %s", why);
		else
			no_events(&o);
		goto out;
	}
	if (err) {
		xp_fail(1, "mem: %s%s%s", why, err == -EPERM || err == -EACCES ? ": " : "",
			err == -EPERM || err == -EACCES ? xp_bpf_error_hint(err) : "");
		goto out;
	}
	r->sess.duration_s = o.l.duration_s;
	r->sess.interval_s = o.l.interval_s;
	r->sess.on_record = on_record;
	r->sess.on_interval = on_interval;
	r->sess.ctx = r;
	r->sess.obj = xp_rawtp_live_object(r->live);
	if ((err = xp_session_open(&r->sess, xp_rawtp_live_events(r->live), xp_rawtp_live_drops(r->live)))) {
		xp_fail(1, "mem: cannot read the ring buffer: %s", strerror(-err));
		goto out;
	}
	r->t0 = r->sess.t_start_ns;
	xp_json_init(&r->stream_json, stdout, false);
	xp_signals_install();
	if (o.l.stream && !o.l.json)
		xp_mem_stream_header(stdout);
	/* on stderr, so it never mixes with a JSON document; tests wait for it */
	if (o.l.duration_s)
		fprintf(stderr, "Tracing GPU memory and submissions (%d of %d events) for %g s.\n",
			r->layout.npresent, r->layout.n, o.l.duration_s);
	else
		fprintf(stderr, "Tracing GPU memory and submissions (%d of %d events)... Ctrl-C to end.\n",
			r->layout.npresent, r->layout.n);
	err = xp_session_run(&r->sess);
	{
		int rerr = report(r, o.l.interval_s ? r->intervals + 1 : 0);

		if (!err)
			err = rerr;
	}
	if (err == -EIO)
		status = 1;
	else if (err)
		xp_fail(1, "mem: %s", strerror(-err));
	else
		status = 0;
out:
	xp_session_close(&r->sess);
	xp_rawtp_live_close(r->live);
	xp_mem_free(&r->st);
	free(r);
	return xp_finish_stdout(status);
}
