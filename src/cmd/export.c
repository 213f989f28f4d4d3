/* xputrace export: a trace file as Chrome/Perfetto trace-event JSON. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "core/sched_stats.h"
#include "core/tracefile.h"
#include "core/vblank_stats.h"
#include "sinks/perfetto.h"

static void help(FILE *f)
{
	fprintf(f,
"Usage: xputrace export --perfetto FILE -o OUT.json\n"
"\n"
"Writes a trace file recorded by 'xputrace record' as Chrome trace-event\n"
"JSON, which ui.perfetto.dev and chrome://tracing open: each ioctl is a\n"
"slice on the thread that made it, named as 'report' names it, with its\n"
"device, command, fd and result; each GPU job a slice on its ring's track\n"
"(\"GPU rings\"), its time queued an async span, and an arrow from the\n"
"thread that submitted it; vblanks, requests and deliveries instants on\n"
"their CRTC's track (\"Displays\"). Processes and threads carry their\n"
"names. Times are microseconds from the start of the recording.\n"
"\n"
"Options:\n"
"      --perfetto FILE   the trace file to read\n"
"  -o, --output OUT      where to write the JSON ('-' for stdout)\n"
"  -h, --help            this text\n"
"\n"
"Example:\n"
"  xputrace record -o gpu.xpt -d 10 && xputrace export --perfetto gpu.xpt -o gpu.json\n");
}

struct export_ctx {
	struct xp_perfetto p;
	const struct xp_devices *devs;
	FILE *f;
	bool begun;
	struct xp_rawtp_layout *sl, *vl;	/* the file's layouts, when it has them */
	struct xp_sched_state *sched;		/* jobs come out of the join */
	uint64_t undecodable;
};

static void on_job(void *ctx, const struct xp_sched_job_info *j)
{
	struct export_ctx *c = ctx;

	xp_perfetto_sched_job(&c->p, j);
}

static int on_record(void *ctx, const struct xp_rec_hdr *h)
{
	struct export_ctx *c = ctx;
	struct xp_vbl_event ev;
	int err;

	if (h->type == XP_REC_IOCTL) {
		xp_perfetto_ioctl(&c->p, (const struct xp_ioctl_rec *)h, c->devs);
	} else if (h->type == XP_REC_SCHED && c->sched) {
		err = xp_sched_feed(c->sched, c->sl, (const struct xp_rawtp_rec *)h);
		if (err == -ENOENT || err == -EBADMSG)
			c->undecodable++;
	} else if (h->type == XP_REC_VBLANK && c->vl) {
		if (xp_vbl_decode(c->vl, (const struct xp_rawtp_rec *)h, &ev))
			c->undecodable++;
		else
			xp_perfetto_vblank(&c->p, &ev);
	}
	return ferror(c->p.j.f) ? -EIO : 0;
}

/* The sink starts once the file's start time, devices and layouts are known. */
static int on_open(void *ctx, const struct xp_trace_reader *r)
{
	struct export_ctx *c = ctx;
	int err;

	c->devs = &r->meta.devs;
	if (!(c->sl = calloc(1, sizeof(*c->sl))) || !(c->vl = calloc(1, sizeof(*c->vl))))
		return -ENOMEM;
	xp_rawtp_layout_init(c->sl, xp_sched_events, XP_TP_SCHED_MAX);
	if (xp_trace_meta_layout(&r->meta, XP_REC_SCHED, c->sl)) {
		if (!(c->sched = calloc(1, sizeof(*c->sched))))
			return -ENOMEM;
		if ((err = xp_sched_init(c->sched, 0, 0)))
			return err;
		c->sched->last_expire = r->meta.start_ns;
		c->sched->on_job = on_job;
		c->sched->cb_ctx = c;
	}
	xp_rawtp_layout_init(c->vl, xp_vbl_events, XP_VBL_NEV);
	if (!xp_trace_meta_layout(&r->meta, XP_REC_VBLANK, c->vl)) {
		free(c->vl);
		c->vl = NULL;
	}
	xp_perfetto_begin(&c->p, c->f, r->meta.start_ns);
	c->begun = true;
	return 0;
}

int cmd_export(int argc, char **argv)
{
	enum { OPT_PERFETTO = 256 };
	static const struct option lo[] = {
		{ "perfetto", required_argument, NULL, OPT_PERFETTO },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *in = NULL, *out = NULL;
	struct xp_trace_reader *r = NULL;
	struct export_ctx c = { 0 };
	int ch, status = 1;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":o:h", lo, NULL)) != -1) {
		switch (ch) {
		case OPT_PERFETTO: in = optarg; break;
		case 'o': out = optarg; break;
		case 'h': help(stdout); return xp_finish_stdout(0);
		case ':': return xp_fail(2, "export: %s needs a value", argv[optind - 1]);
		default: return xp_fail(2, "export: unknown option '%s'; see 'xputrace export --help'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return xp_fail(2, "export: unexpected argument '%s'", argv[optind]);
	if (!in)
		return xp_fail(2, "export: --perfetto FILE is required (the only format so far)");
	if (!out)
		return xp_fail(2, "export: -o OUT.json is required");

	if (!(r = calloc(1, sizeof(*r))))
		return xp_fail(1, "export: out of memory");
	c.f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!c.f) {
		status = xp_fail(1, "export: cannot create %s: %s", out, strerror(errno));
		goto out;
	}
	status = xp_cmd_read_trace("export", in, r, on_open, on_record, &c);
	if (c.begun)
		xp_perfetto_end(&c.p, &r->meta);
	if (c.undecodable)
		fprintf(stderr, "xputrace: export: %llu records could not be decoded\n",
			(unsigned long long)c.undecodable);
	if (!status && (fflush(c.f) || ferror(c.f)))
		status = xp_fail(1, "export: writing %s: %s", out, strerror(errno));
	if (c.f != stdout && fclose(c.f) && !status)
		status = xp_fail(1, "export: writing %s: %s", out, strerror(errno));
	if (status && c.f != stdout)
		unlink(out);	/* no half-written JSON left behind */
	else if (!status)
		fprintf(stderr, "Wrote %llu trace events (from %llu records) to %s\n",
			(unsigned long long)c.p.events, (unsigned long long)r->records, out);
out:
	if (c.sched)
		xp_sched_free(c.sched);
	free(c.sched);
	free(c.sl);
	free(c.vl);
	free(r);
	return xp_finish_stdout(status);
}
