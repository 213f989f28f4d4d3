/* xputrace export: a trace file as Chrome/Perfetto trace-event JSON. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "core/tracefile.h"
#include "sinks/perfetto.h"

static void help(FILE *f)
{
	fprintf(f,
"Usage: xputrace export --perfetto FILE -o OUT.json\n"
"\n"
"Writes a trace file recorded by 'xputrace record' as Chrome trace-event\n"
"JSON, which ui.perfetto.dev and chrome://tracing open: each ioctl is a\n"
"slice on the thread that made it, named as 'report' names it, with its\n"
"device, command, fd and result; processes and threads carry their names.\n"
"Times are microseconds from the start of the recording.\n"
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
};

static int on_record(void *ctx, const struct xp_rec_hdr *h)
{
	struct export_ctx *c = ctx;

	if (h->type == XP_REC_IOCTL)
		xp_perfetto_ioctl(&c->p, (const struct xp_ioctl_rec *)h, c->devs);
	return ferror(c->p.j.f) ? -EIO : 0;
}

/* The sink starts once the file's start time and devices are known. */
static int on_open(void *ctx, const struct xp_trace_reader *r)
{
	struct export_ctx *c = ctx;

	c->devs = &r->meta.devs;
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
	if (!status && (fflush(c.f) || ferror(c.f)))
		status = xp_fail(1, "export: writing %s: %s", out, strerror(errno));
	if (c.f != stdout && fclose(c.f) && !status)
		status = xp_fail(1, "export: writing %s: %s", out, strerror(errno));
	if (status && c.f != stdout)
		unlink(out);	/* no half-written JSON left behind */
	else if (!status)
		fprintf(stderr, "Wrote %llu trace events (%llu ioctls) to %s\n",
			(unsigned long long)c.p.events, (unsigned long long)r->records, out);
out:
	free(r);
	return xp_finish_stdout(status);
}
