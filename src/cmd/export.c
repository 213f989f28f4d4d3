/* xputrace export: a trace file as a Perfetto trace (native protobuf, or trace-event JSON). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/runner.h"
#include <sys/stat.h>

#include "core/outfile.h"
#include "core/tracefile.h"
#include "sinks/perfetto.h"

static void help(const void *ctx)
{
	(void)ctx;
	printf(
"Usage: xputrace export --perfetto FILE [--format proto|json] [--compress] -o OUT\n"
"\n"
"Writes a trace file recorded by 'xputrace record' as a Perfetto trace, which\n"
"ui.perfetto.dev and trace_processor open: by default in Perfetto's own\n"
"protobuf format (tracks, slices, flows, interned names; compact and fast to\n"
"load), with --format json as Chrome trace-event JSON (chrome://tracing opens\n"
"it too; each event carries its details as args). Each ioctl is a\n"
"slice on the thread that made it, named as 'report' names it, with its\n"
"device, command, fd and result; each GPU job a slice on its ring's track\n"
"(\"GPU rings\"), its time queued an async span, and an arrow from the\n"
"thread that submitted it; vblanks, requests and deliveries instants on\n"
"their CRTC's track (\"Displays\"); buffer memory and submission events\n"
"instants on the thread that caused them, or on their driver's track (\"GPU\n"
"memory\") when they fire in no process's context; calls into nvidia.ko\n"
"slices (timed) or instants on the calling thread, interrupts on a track per\n"
"line and Xids instants on their GPU's track (\"NVIDIA\"). Processes and\n"
"threads carry their names. Times start at the start of the recording.\n"
"\n"
"Options:\n"
"      --perfetto FILE   the trace file to read\n"
"      --format FORMAT   proto (the default) or json\n"
"      --compress        deflate the protobuf in batches of packets (Perfetto's\n"
"                        compressed_packets; trace_processor and the UI read them)\n"
"  -o, --output OUT      where to write the trace ('-' for stdout); written beside\n"
"                        it and renamed into place only when complete\n"
"      --force           write through a symbolic link at OUT\n"
"  -h, --help            this text\n"
"\n"
"Example:\n"
"  xputrace record -o gpu.xpt -d 10 && xputrace export --perfetto gpu.xpt -o gpu.pftrace\n"
"  xputrace export --perfetto gpu.xpt --compress -o gpu.pftrace\n"
"  xputrace export --perfetto gpu.xpt --format json -o gpu.json\n");
}

struct export_ctx {
	struct xp_perfetto p;
	FILE *f;
	const char *out;	/* -o as given, for errors */
	bool begun;
	bool json;		/* --format json */
	bool compress;		/* --compress */
	struct xp_cap_env env;
	struct xp_cap_inst ci[16];	/* the file's capabilities, by table order */
	int nci;
};

static int on_record(void *ctx, const struct xp_rec_hdr *h)
{
	struct export_ctx *c = ctx;
	int err;

	for (int i = 0; i < c->nci; i++)
		if (h->type == c->ci[i].cap->rec->type) {
			if ((err = c->ci[i].cap->feed(&c->ci[i], h)))
				return err;
			break;
		}
	if (ferror(c->f)) {
		/* set by the write that failed, just now */
		int e = c->p.werr ? c->p.werr : errno ? errno : EIO;

		if (e == EPIPE)
			return -EPIPE;	/* the reader went away: quietly */
		/* the output failed (a full disk), not the input: say so, by name */
		xp_fail(1, "export: writing %s: %s", c->out, strerror(e));
		return -ECANCELED;
	}
	return 0;
}

/* The sink starts once the file's start time, devices and layouts are known. */
static int on_open(void *ctx, const struct xp_trace_reader *r)
{
	struct export_ctx *c = ctx;
	int err;

	for (size_t i = 0; i < xp_ncaps && c->nci < (int)(sizeof(c->ci) / sizeof(c->ci[0])); i++) {
		const struct xp_cap *cap = xp_caps[i];

		if (!xp_cap_runs(cap) || !xp_trace_has_cap(r, cap->name))
			continue;
		err = xp_cap_inst_from_file(&c->ci[c->nci], cap, &c->env, r);
		c->nci++;
		if (err == -ENOENT) {	/* no layouts: its records cannot be decoded */
			xp_cap_inst_free(&c->ci[--c->nci]);
			continue;
		}
		if (err)
			return err;
	}
	/* rows that join another's analysis with theirs, where both are drawn */
	for (int i = 0; i < c->nci; i++)
		for (int k = 0; c->ci[i].cap->joins && c->ci[i].cap->link && k < c->nci; k++)
			if (!strcmp(c->ci[k].cap->name, c->ci[i].cap->joins) &&
			    (err = c->ci[i].cap->link(&c->ci[i], &c->ci[k])))
				return err;
	if (c->json)
		xp_perfetto_begin(&c->p, c->f, r->meta.start_ns);
	else if ((err = xp_perfetto_begin_proto(&c->p, c->f, r->meta.start_ns)) ||
		 (c->compress && (err = xp_perfetto_compress(&c->p, 1))))
		return err;
	c->begun = true;
	return 0;
}

static int export_opt(void *ctx, int i, const char *arg)
{
	((const char **)ctx)[i] = arg ? arg : "";	/* 0: --perfetto, 1: -o, 2: --force, 3: --format, 4: --compress */
	return 0;
}

static const struct xp_cap_opt export_own[] = {
	{ "perfetto", 0, "FILE", "the trace file to read", false, NULL },
	{ "output", 'o', "OUT", "where to write the trace ('-' for stdout)", false, NULL },
	{ "force", 0, NULL, "write through a symbolic link at OUT", false, NULL },
	{ "format", 0, "FORMAT", "proto (Perfetto's own, the default) or json", false, NULL },
	{ "compress", 0, NULL, "deflate the protobuf in batches (Perfetto reads them)", false, NULL },
	{ NULL },
};
const struct xp_verb_opts xp_export_opts = { 0, export_own };

int cmd_export(int argc, char **argv)
{
	const char *paths[5] = { NULL };	/* in, out, --force, --format, --compress */
	struct xp_outfile of;
	struct stat sin, sout;
	char why[256];
	int err;
	struct xp_optset set = { xp_export_opts.opts, export_opt, paths };
	struct xp_live_opts lo = { 0 };
	struct xp_trace_reader *r = NULL;
	struct export_ctx *c;
	uint64_t undecodable = 0;
	int status;

	status = xp_opts_parse("export", argc, argv, xp_export_opts.common, &lo, &set, 1, help, NULL);
	if (status)
		return status < 0 ? xp_finish_stdout(0) : status;
	if (optind < argc)
		return xp_fail(2, "export: unexpected argument '%s'", argv[optind]);
	if (!paths[0])
		return xp_fail(2, "export: --perfetto FILE is required (the only format so far)");
	if (paths[3] && strcmp(paths[3], "proto") && strcmp(paths[3], "json"))
		return xp_fail(2, "export: --format wants proto or json, not '%s'", paths[3]);
	if (paths[4] && paths[3] && !strcmp(paths[3], "json"))
		return xp_fail(2, "export: --compress is for the protobuf format, not --format json");
	if (!paths[1])
		return xp_fail(2, "export: -o OUT is required");
	if (!*paths[1])
		return xp_fail(2, "export: -o wants a file name, not ''");
	if (paths[2] && !strcmp(paths[1], "-"))
		return xp_fail(2, "export: --force writes through a symbolic link at OUT; -o - is standard output");
	if (!*paths[0])
		return xp_fail(2, "export: --perfetto wants a trace file, not ''");

	if (!(r = calloc(1, sizeof(*r))) || !(c = calloc(1, sizeof(*c)))) {
		free(r);
		return xp_fail(1, "export: out of memory");
	}
	c->env = (struct xp_cap_env){ .out = XP_OUT_PERFETTO, .pf = &c->p };
	c->json = paths[3] && !strcmp(paths[3], "json");
	c->compress = paths[4] != NULL;
	/* the input is read whole before anything is renamed: never export over it */
	if (!stat(paths[0], &sin) && !stat(paths[1], &sout) && sin.st_dev == sout.st_dev &&
	    sin.st_ino == sout.st_ino) {
		status = xp_fail(2, "export: -o %s is the trace file being read", paths[1]);
		goto out;
	}
	if ((err = xp_out_open(&of, paths[1], paths[2] != NULL, why, sizeof(why)))) {
		status = xp_fail(err == -EEXIST ? 2 : 1, "export: %s", why);
		goto out;
	}
	c->f = of.f;
	c->out = paths[1];
	errno = 0;
	status = xp_cmd_read_trace("export", paths[0], r, on_open, on_record, c);
	if (c->begun)
		xp_perfetto_end(&c->p, &r->meta);
	if (!status && c->p.werr == EPIPE)
		status = 1;	/* the reader went away: quietly */
	else if (!status && c->p.werr)	/* the last of the protobuf is written at the end */
		status = xp_fail(1, "export: writing %s: %s", c->out, strerror(c->p.werr));
	if (!status && c->p.oom)
		status = xp_fail(1, "export: out of memory");
	for (int i = 0; i < c->nci; i++)
		undecodable += c->ci[i].undecodable;
	if (undecodable && !status)	/* a refused file's one line says it all: nothing is written */
		fprintf(stderr, "xputrace: export: %llu record%s could not be decoded\n",
			(unsigned long long)undecodable, undecodable == 1 ? "" : "s");
	/* renamed into place only when whole; a failure leaves OUT as it was */
	if (status)
		xp_out_abort(&of);
	else if ((err = xp_out_commit(&of, why, sizeof(why))))
		status = err == -EPIPE ? 1 : xp_fail(1, "export: %s", why);
	if (!status)
		fprintf(stderr, "Wrote %llu trace events (from %llu records) to %s\n",
			(unsigned long long)c->p.events, (unsigned long long)r->records, paths[1]);
out:
	for (int i = 0; i < c->nci; i++)
		xp_cap_inst_free(&c->ci[i]);
	free(c);
	if (r)
		xp_trace_meta_free(&r->meta);
	free(r);
	return xp_finish_stdout(status);
}
