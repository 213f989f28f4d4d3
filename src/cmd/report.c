/* xputrace report: the analyses of a live run, on a recorded trace file. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/runner.h"
#include "core/tracefile.h"

int xp_cmd_read_trace(const char *verb, const char *path, struct xp_trace_reader *r,
		      int (*on_open)(void *ctx, const struct xp_trace_reader *r),
		      xp_trace_record_fn fn, void *ctx)
{
	bool is_stdin = !strcmp(path, "-");	/* '-': standard input, as -o - is standard output */
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	struct stat st;
	int err;

	if (!f)
		return xp_fail(1, "%s: cannot open %s: %s", verb, path, strerror(errno));
	/* opened, as a directory is, but every read fails: said in words */
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		if (!is_stdin)
			fclose(f);
		return xp_fail(1, "%s: %s is a directory, not a trace file", verb, is_stdin ? "standard input" : path);
	}
	err = xp_trace_reader_open(r, f);
	if (!err && on_open)
		err = on_open(ctx, r);
	if (!err)
		err = xp_trace_reader_run(r, fn, ctx);
	xp_trace_reader_close(r);
	if (!is_stdin)
		fclose(f);
	if (err == -ECANCELED || err == -EPIPE)	/* the callback said why; the reader went away */
		return 1;
	if (err == -EIO && !r->error[0])
		return xp_fail(1, "%s: %s: %s", verb, path, strerror(EIO));
	if (err < 0 && r->error[0])
		return xp_fail(1, "%s: %s: %s", verb, path, r->error);
	if (err < 0)	/* the callback's own failure */
		return xp_fail(1, "%s: %s: %s", verb, path, strerror(-err));
	if (r->truncated)
		fprintf(stderr, "xputrace: %s: warning: %s: %s\n", verb, path, r->error);
	return 0;
}

bool xp_trace_has_cap(const struct xp_trace_reader *r, const char *cap)
{
	for (int i = 0; i < r->meta.ncaps; i++)
		if (!strcmp(r->meta.caps[i], cap))
			return true;
	return false;
}

int xp_cap_inst_from_file(struct xp_cap_inst *ci, const struct xp_cap *cap,
			  struct xp_cap_env *env, const struct xp_trace_reader *r)
{
	const struct xp_trace_meta *m = &r->meta;
	int err;

	env->live = false;
	env->filt.pid = m->filter_pid;
	env->filt.comm = m->filter_comm[0] ? m->filter_comm : NULL;
	env->filt.cgroup_id = m->filter_cgroup;
	env->devs = &m->devs;
	/* the recording host's page size; files from before it was kept: this machine's */
	env->page_size = m->page_size ? m->page_size : (uint32_t)sysconf(_SC_PAGESIZE);
	env->t0 = m->start_ns;
	env->meta = m;
	if ((err = xp_cap_inst_new(ci, cap, env)))
		return err;
	/* the options record kept for this capability's summary, as its verb takes them */
	for (int i = 0; i < m->ncapopts; i++) {
		const struct xp_trace_capopt *o = &m->capopts[i];
		int k = 0;

		if (strcmp(o->cap, cap->name))
			continue;
		while (cap->opts && cap->opts[k].name && strcmp(cap->opts[k].name, o->name))
			k++;
		if (!cap->opts || !cap->opts[k].name || cap->opts[k].record)
			continue;	/* a newer writer's option: its summary as this build makes it */
		if (cap->opt(ci->opts, k, cap->opts[k].arg ? o->value : NULL))
			return -ECANCELED;	/* said, naming the option */
	}
	if (ci->layout && !xp_trace_meta_layout(m, cap->rec->type, ci->layout))
		return -ENOENT;
	return cap->init(ci);
}

static void help(const void *ctx)
{
	char names[128];

	(void)ctx;
	printf(
"Usage: xputrace report FILE [OPTIONS] [VIEW]\n"
"\n"
"Reads a trace file written by 'xputrace record' ('-': standard input) and\n"
"prints what the live command prints: the same analysis, the same text and\n"
"JSON. Devices are named, and tracepoint records decoded, from what the file\n"
"says about the recording machine, so it reads the same on another machine.\n"
"Views: %s\n"
"(default: the file's first capability). Shares of wall time are shares of\n"
"the recording's duration; the recording's process filters apply as the\n"
"live command applies them. A file cut short (the recorder was killed) is\n"
"read up to its last whole block, with a warning; a damaged or foreign file\n"
"is refused.\n"
"\n"
"Options:\n"
"  -j, --json      the summary as one JSON document\n"
"      --no-hist   no histograms in the text summary\n"
"      --info      what the file says about the recording, not the summary\n"
"  -h, --help      this text\n"
"\n"
"Examples:\n"
"  xputrace report gpu.xpt\n"
"  xputrace report gpu.xpt --json ioctl\n"
"  xputrace report gpu.xpt sched\n"
"  xputrace report mem.xpt mem --json\n", xp_cap_names(names, sizeof(names)));
}

struct report_ctx {
	const char *view;		/* the capability analysed */
	const char *path;
	struct xp_cap_env env;
	struct xp_cap_inst ci;
	bool have_ci;
	/* the row the view joins (cap->joins), when the file has its records */
	struct xp_cap_env jenv;
	struct xp_cap_inst jci;
	bool joined;
};

/* The row the view joins, read beside it when the file recorded it. */
static int open_joined(struct report_ctx *c, const struct xp_trace_reader *r)
{
	const struct xp_cap *jc = c->ci.cap->joins ? xp_cap_find(c->ci.cap->joins) : NULL;
	int err;

	if (!jc || !xp_trace_has_cap(r, jc->name))
		return 0;
	err = xp_cap_inst_from_file(&c->jci, jc, &c->jenv, r);
	if (err) {
		xp_cap_inst_free(&c->jci);
		return err == -ENOENT ? 0 : err;	/* no layouts: its records cannot be decoded */
	}
	c->joined = true;
	return c->ci.cap->link ? c->ci.cap->link(&c->ci, &c->jci) : 0;
}

/* The analysis starts once the file's capabilities and layouts are known. */
static int on_open(void *ctx, const struct xp_trace_reader *r)
{
	struct report_ctx *c = ctx;
	const struct xp_cap *cap;
	int err;

	if (!c->view && r->meta.ncaps)
		c->view = r->meta.caps[0];
	cap = c->view ? xp_cap_find(c->view) : NULL;
	if (!cap || !xp_trace_has_cap(r, c->view)) {
		xp_fail(1, "report: %s has no %s capture", c->path, c->view ? c->view : "known");
		return -ECANCELED;
	}
	c->have_ci = true;
	err = xp_cap_inst_from_file(&c->ci, cap, &c->env, r);
	if (err == -ENOENT) {
		xp_fail(1, "report: %s carries no tracepoint layouts for %s", c->path, c->view);
		return -ECANCELED;
	}
	return err ? err : open_joined(c, r);
}

static int on_record(void *ctx, const struct xp_rec_hdr *h)
{
	struct report_ctx *c = ctx;

	if (c->joined && h->type == c->jci.cap->rec->type)
		return c->jci.cap->feed(&c->jci, h);
	if (!c->ci.cap || h->type != c->ci.cap->rec->type)	/* --info: no analysis */
		return 0;
	return c->ci.cap->feed(&c->ci, h);
}

static void report_summary(struct report_ctx *c, const struct xp_trace_reader *r, bool json,
			   bool hist)
{
	const struct xp_cap *cap = c->ci.cap;
	/* what the live run said, from what the file says about it */
	struct xp_run_info ri = {
		.command = cap->name,
		.source = c->path,
		/* the file holds every event, not the kernel's aggregates */
		.mode = cap->flags & XP_CAP_KERNEL_AGG ? "stream" : "summary",
		.hook = cap->file_hook ? cap->file_hook : r->meta.hook[0] ? r->meta.hook : NULL,
		.duration_s = xp_trace_duration(r),
	};
	struct xp_cap_report rep = {
		.ri = &ri, .json = json, .hist = hist, .final = true,
		.now = xp_trace_began(r) + (uint64_t)(ri.duration_s * 1e9 + 0.5),
	};

	memcpy(ri.drops, r->stats.drops, sizeof(r->stats.drops));
	cap->report(&c->ci, stdout, &rep);
	xp_say_undecodable("report", &c->ci);
	if (c->joined)
		xp_say_undecodable("report", &c->jci);
	xp_say_skipped("report", r->skipped, 0);
}

/* What the blocks of records take per record, their headers included. */
static double bytes_per_record(const struct xp_trace_reader *r)
{
	uint64_t n = r->records + r->skipped;

	return n ? (double)r->event_bytes / (double)n : 0;
}

static void print_info(const char *path, const struct xp_trace_reader *r, bool json)
{
	const struct xp_trace_meta *m = &r->meta;
	struct xp_json j;

	if (!json) {
		printf("file:      %s (format %u.%u%s)\n", path, r->version_major, r->version_minor,
		       r->complete ? "" : ", cut short");
		printf("written:   by %s on %s, kernel %s\n", m->tool, m->hostname, m->kernel);
		printf("clock:     %s, +%.9f s to wall-clock time\n", m->clock, (double)m->wall_offset_ns / 1e9);
		if (m->page_size)
			printf("page size: %u\n", m->page_size);
		printf("recorded:  ");
		for (int i = 0; i < m->ncaps; i++)
			printf("%s%s", i ? ", " : "", m->caps[i]);
		printf(" (%s), %.1f s, %llu records, %llu of unknown types, drops: %llu\n",
		       m->hook[0] ? m->hook : "?", xp_trace_duration(r), (unsigned long long)r->records,
		       (unsigned long long)r->skipped,
		       (unsigned long long)(r->stats.drops[XP_DROP_RINGBUF] + r->stats.drops[XP_DROP_MAP_FULL] +
					    r->stats.drops[XP_DROP_KERNEL_MISSED]));
		printf("filters:   pid %u, comm '%s', cgroup %llu\n", m->filter_pid, m->filter_comm,
		       (unsigned long long)m->filter_cgroup);
		if (r->version_major >= 2)	/* older files' lines stay as they were */
			printf("records:   packed, %s, %.1f bytes/record in %llu blocks\n",
			       r->zstd_blocks ? "zstd" : "not compressed", bytes_per_record(r),
			       (unsigned long long)r->event_blocks);
		/* what record kept for the summaries, applied by report */
		for (int i = 0; i < m->ncapopts; i++)
			printf("%s%s --%s%s%s%s", i ? ", " : "options:   ", m->capopts[i].cap, m->capopts[i].name,
			       m->capopts[i].value[0] ? " " : "", m->capopts[i].value, i + 1 == m->ncapopts ? "\n" : "");
		printf("devices:   %d majors, %d nodes\n", m->devs.nmajors, m->devs.nnodes);
		for (int i = 0; i < m->devs.nnodes; i++)
			printf("  %-24s %s\n", m->devs.nodes[i].path, m->devs.nodes[i].driver);
		return;
	}
	xp_json_init(&j, stdout, false);
	xp_json_begin_obj(&j);
	xp_json_kstr(&j, "file", path);
	xp_json_ku64(&j, "format_major", r->version_major);
	xp_json_ku64(&j, "format_minor", r->version_minor);
	xp_json_kbool(&j, "complete", r->complete);
	xp_json_kstr(&j, "tool", m->tool);
	xp_json_kstr(&j, "hostname", m->hostname);
	xp_json_kstr(&j, "kernel", m->kernel);
	xp_json_kstr(&j, "clock", m->clock);
	xp_json_ki64(&j, "wall_offset_ns", m->wall_offset_ns);
	xp_json_ku64(&j, "start_ns", m->start_ns);
	if (m->tracing_ns)	/* files from before it have none: their start counts */
		xp_json_ku64(&j, "tracing_ns", xp_trace_began(r));
	xp_json_ku64(&j, "page_size", m->page_size);
	xp_json_key(&j, "capabilities");
	xp_json_begin_arr(&j);
	for (int i = 0; i < m->ncaps; i++)
		xp_json_str(&j, m->caps[i]);
	xp_json_end_arr(&j);
	xp_json_kstr(&j, "hook", m->hook);
	xp_json_kdouble(&j, "duration_s", xp_trace_duration(r));
	xp_json_ku64(&j, "records", r->records);
	xp_json_ku64(&j, "skipped", r->skipped);
	if (r->version_major >= 2) {
		xp_json_kstr(&j, "encoding", "packed");
		xp_json_kstr(&j, "compression", r->zstd_blocks ? "zstd" : "none");
		xp_json_ku64(&j, "event_blocks", r->event_blocks);
		xp_json_ku64(&j, "event_bytes", r->event_bytes);
		xp_json_kdouble(&j, "bytes_per_record", bytes_per_record(r));
	}
	xp_json_key(&j, "drops");
	xp_json_begin_obj(&j);
	xp_json_ku64(&j, "ringbuf", r->stats.drops[XP_DROP_RINGBUF]);
	xp_json_ku64(&j, "map_full", r->stats.drops[XP_DROP_MAP_FULL]);
	xp_json_ku64(&j, "kernel_missed", r->stats.drops[XP_DROP_KERNEL_MISSED]);
	xp_json_end_obj(&j);
	xp_json_key(&j, "devices");
	xp_json_begin_arr(&j);
	for (int i = 0; i < m->devs.nnodes; i++) {
		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "path", m->devs.nodes[i].path);
		xp_json_kstr(&j, "driver", m->devs.nodes[i].driver);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
}

int xp_report_file(const char *path, const char *view, bool json, bool hist, bool info)
{
	struct xp_trace_reader *r;
	struct report_ctx c;
	int status;

	if (!(r = calloc(1, sizeof(*r))))
		return xp_fail(1, "report: out of memory");
	memset(&c, 0, sizeof(c));
	c.view = view;
	c.path = path;
	c.env = (struct xp_cap_env){ .out = XP_OUT_SUMMARY, .f = stdout };
	status = xp_cmd_read_trace("report", path, r, info ? NULL : on_open, on_record, &c);
	if (!status) {
		if (info)
			print_info(path, r, json);
		else
			report_summary(&c, r, json, hist);
	}
	if (c.have_ci)
		xp_cap_inst_free(&c.ci);
	if (c.joined)
		xp_cap_inst_free(&c.jci);
	xp_trace_meta_free(&r->meta);	/* the reader's close kept what the summary shows */
	free(r);
	return status;
}

struct report_opts {
	bool info;
};

static int report_opt(void *ctx, int i, const char *arg)
{
	(void)i;
	(void)arg;
	((struct report_opts *)ctx)->info = true;
	return 0;
}

static const struct xp_cap_opt report_own[] = {
	{ "info", 0, NULL, "what the file says about the recording, not the summary", false, NULL },
	{ NULL },
};
const struct xp_verb_opts xp_report_opts = { XP_O_JSON | XP_O_NOHIST, report_own };

int cmd_report(int argc, char **argv)
{
	struct report_opts ro = { 0 };
	struct xp_optset set = { xp_report_opts.opts, report_opt, &ro };
	struct xp_live_opts lo = { 0 };
	const char *path = NULL, *view = NULL;
	char names[128];
	int status;

	status = xp_opts_parse("report", argc, argv, xp_report_opts.common, &lo, &set, 1, help, NULL);
	if (status)
		return status < 0 ? xp_finish_stdout(0) : status;
	for (; optind < argc; optind++) {
		if (!path)
			path = argv[optind];
		else if (!view)
			view = argv[optind];
		else
			return xp_fail(2, "report: unexpected argument '%s'", argv[optind]);
	}
	if (!path)
		return xp_fail(2, "report: which trace file? see 'xputrace report --help'");
	if (view && !xp_cap_find(view))
		return xp_fail(2, "report: unknown view '%s' (this build reports: %s)", view,
			       xp_cap_names(names, sizeof(names)));
	if (view && ro.info)
		return xp_fail(2, "report: --info describes the whole file and takes no view ('%s')", view);
	if (!lo.hist && ro.info)
		return xp_fail(2, "report: --no-hist shapes the summary, which --info prints none of");
	return xp_finish_stdout(xp_report_file(path, view, lo.json, lo.hist, ro.info));
}
