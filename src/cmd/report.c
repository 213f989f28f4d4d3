/* xputrace report: the analyses of a live run, on a recorded trace file. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "core/ioctl_stats.h"
#include "core/mem_stats.h"
#include "core/sched_stats.h"
#include "core/tracefile.h"
#include "core/vblank_stats.h"
#include "sinks/ioctl_report.h"
#include "sinks/mem_report.h"
#include "sinks/sched_report.h"
#include "sinks/vblank_report.h"

int xp_cmd_read_trace(const char *verb, const char *path, struct xp_trace_reader *r,
		      int (*on_open)(void *ctx, const struct xp_trace_reader *r),
		      xp_trace_record_fn fn, void *ctx)
{
	FILE *f = fopen(path, "rb");
	int err;

	if (!f)
		return xp_fail(1, "%s: cannot open %s: %s", verb, path, strerror(errno));
	err = xp_trace_reader_open(r, f);
	if (!err && on_open)
		err = on_open(ctx, r);
	if (!err)
		err = xp_trace_reader_run(r, fn, ctx);
	xp_trace_reader_close(r);
	fclose(f);
	if (err == -ECANCELED)	/* the callback said why */
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

static void help(FILE *f)
{
	fprintf(f,
"Usage: xputrace report FILE [OPTIONS] [VIEW]\n"
"\n"
"Reads a trace file written by 'xputrace record' and prints what the live\n"
"command prints: the same analysis, the same text and JSON. Devices are\n"
"named, and tracepoint records decoded, from what the file says about the\n"
"recording machine, so it reads the same on another machine. Views: ioctl,\n"
"sched, vblank, mem (default: the file's first capability). Shares of wall\n"
"time are shares of the recording's duration; sched applies the recording's\n"
"process filters after joining each job, as 'xputrace sched' does (mem's were\n"
"applied in the kernel while recording, as 'xputrace mem' applies them). A file\n"
"cut short (the recorder was killed) is read up to its last whole block,\n"
"with a warning; a damaged or foreign file is refused.\n"
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
"  xputrace report mem.xpt mem --json\n");
}

struct report_ctx {
	const char *view;		/* the capability analysed */
	const char *path;
	struct xp_ioctl_table table;
	struct xp_rawtp_layout *layout;	/* sched, vblank, mem: the file's layouts */
	struct xp_sched_state *sched;
	struct xp_vbl_state *vbl;
	struct xp_mem_state *mem;
	bool mem_filtered;		/* the recording had process filters */
	uint64_t undecodable;
};

/* The analysis starts once the file's capabilities and layouts are known. */
static int on_open(void *ctx, const struct xp_trace_reader *r)
{
	struct report_ctx *c = ctx;
	int err;

	if (!c->view && r->meta.ncaps)
		c->view = r->meta.caps[0];
	if (!c->view || !xp_trace_has_cap(r, c->view)) {
		xp_fail(1, "report: %s has no %s capture", c->path, c->view ? c->view : "known");
		return -ECANCELED;
	}
	if (!strcmp(c->view, "ioctl"))
		return 0;
	if (!(c->layout = calloc(1, sizeof(*c->layout))))
		return -ENOMEM;
	if (!strcmp(c->view, "sched")) {
		xp_rawtp_layout_init(c->layout, xp_sched_events, XP_TP_SCHED_MAX);
		xp_trace_meta_layout(&r->meta, XP_REC_SCHED, c->layout);
		if (!(c->sched = calloc(1, sizeof(*c->sched))))
			return -ENOMEM;
		if ((err = xp_sched_init(c->sched, 0, 0)))
			return err;
		/* the recording's filters, after the join, as the live command applies them */
		c->sched->filt.pid = r->meta.filter_pid;
		c->sched->filt.comm = r->meta.filter_comm[0] ? r->meta.filter_comm : NULL;
		c->sched->last_expire = r->meta.start_ns;
	} else if (!strcmp(c->view, "mem")) {
		xp_rawtp_layout_init(c->layout, xp_mem_events, XP_MEM_NEV);
		xp_trace_meta_layout(&r->meta, XP_REC_MEM, c->layout);
		if (!(c->mem = calloc(1, sizeof(*c->mem))))
			return -ENOMEM;
		/* the recording host's page size; files from before it was kept: this machine's */
		if ((err = xp_mem_init(c->mem, r->meta.page_size ? r->meta.page_size
								 : (uint32_t)sysconf(_SC_PAGESIZE)))) {
			free(c->mem);
			c->mem = NULL;
			return err;
		}
		c->mem_filtered = r->meta.filter_pid || r->meta.filter_comm[0] || r->meta.filter_cgroup;
	} else {
		xp_rawtp_layout_init(c->layout, xp_vbl_events, XP_VBL_NEV);
		xp_trace_meta_layout(&r->meta, XP_REC_VBLANK, c->layout);
		if (!(c->vbl = calloc(1, sizeof(*c->vbl))))
			return -ENOMEM;
		xp_vbl_init(c->vbl, 1000000);	/* the live command's default --late-ms */
	}
	if (!c->layout->npresent) {
		xp_fail(1, "report: %s carries no tracepoint layouts for %s", c->path, c->view);
		return -ECANCELED;
	}
	return 0;
}

static int on_record(void *ctx, const struct xp_rec_hdr *h)
{
	struct report_ctx *c = ctx;
	struct xp_vbl_event ev;
	int err;

	if (c->sched && h->type == XP_REC_SCHED) {
		err = xp_sched_feed(c->sched, c->layout, (const struct xp_rawtp_rec *)h);
		if (err == -ENOENT || err == -EBADMSG) {
			c->undecodable++;
			err = 0;
		}
		return err;
	}
	if (c->vbl && h->type == XP_REC_VBLANK) {
		if (xp_vbl_decode(c->layout, (const struct xp_rawtp_rec *)h, &ev))
			c->undecodable++;
		else
			xp_vbl_add(c->vbl, &ev);
		return 0;
	}
	if (c->mem && h->type == XP_REC_MEM) {
		/* as the live command: a record it cannot decode is counted, not fatal */
		if (h->size < sizeof(struct xp_rawtp_rec) ||
		    xp_mem_add(c->mem, c->layout, (const struct xp_rawtp_rec *)h))
			c->undecodable++;
		return 0;
	}
	if (!c->sched && !c->vbl && !c->mem && h->type == XP_REC_IOCTL)
		return xp_ioctl_table_add_rec(&c->table, (const struct xp_ioctl_rec *)h);
	return 0;
}

static void report_summary(struct report_ctx *c, const struct xp_trace_reader *r, bool json,
			   bool hist)
{
	/* what the live run said, from what the file says about it */
	struct xp_run_info ri = {
		.command = c->view,
		.source = c->path,
		.mode = c->sched || c->vbl || c->mem ? "summary" : "stream",
		.hook = r->meta.hook[0] ? r->meta.hook : NULL,
		.duration_s = xp_trace_duration(r),
	};

	memcpy(ri.drops, r->stats.drops, sizeof(r->stats.drops));
	if (c->sched) {
		struct xp_sched_report rep = {
			.st = c->sched, .layout = c->layout, .ri = &ri, .hist = hist,
			.now = r->meta.start_ns + (uint64_t)(ri.duration_s * 1e9 + 0.5),
		};

		ri.hook = "tracepoint";
		xp_sched_finish(c->sched, rep.now);	/* what is still open never completed here */
		if (json)
			xp_sched_report_json(stdout, &rep);
		else
			xp_sched_report_text(stdout, &rep);
	} else if (c->vbl) {
		struct xp_vbl_report rep = { .st = c->vbl, .layout = c->layout, .ri = &ri, .hist = hist };

		ri.hook = "tracepoint";
		xp_vbl_finish(c->vbl);
		if (json)
			xp_vbl_report_json(stdout, &rep);
		else
			xp_vbl_report_text(stdout, &rep);
	} else if (c->mem) {
		struct xp_mem_report rep = {
			.st = c->mem, .layout = c->layout, .ri = &ri, .hist = hist,
			.filtered = c->mem_filtered, .undecodable = c->undecodable,
		};

		ri.hook = "tracepoint";
		if (json)
			xp_mem_report_json(stdout, &rep);
		else
			xp_mem_report_text(stdout, &rep);
	} else if (json) {
		xp_ioctl_report_json(stdout, &c->table, &r->meta.devs, &ri);
	} else {
		xp_ioctl_report_text(stdout, &c->table, &r->meta.devs, &ri, hist);
	}
	if (c->undecodable && !c->mem)	/* mem's summary says it, as live */
		fprintf(stderr, "xputrace: report: %llu %s records could not be decoded\n",
			(unsigned long long)c->undecodable, c->view);
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
	xp_ioctl_table_init(&c.table);
	status = xp_cmd_read_trace("report", path, r, info ? NULL : on_open, on_record, &c);
	if (status)
		goto out;
	if (info)
		print_info(path, r, json);
	else
		report_summary(&c, r, json, hist);
out:
	xp_ioctl_table_free(&c.table);
	if (c.sched)
		xp_sched_free(c.sched);
	free(c.sched);
	free(c.vbl);
	if (c.mem)
		xp_mem_free(c.mem);
	free(c.mem);
	free(c.layout);
	free(r);
	return status;
}

int cmd_report(int argc, char **argv)
{
	enum { OPT_NOHIST = 256, OPT_INFO };
	static const struct option lo[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "no-hist", no_argument, NULL, OPT_NOHIST },
		{ "info", no_argument, NULL, OPT_INFO },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool json = false, hist = true, info = false;
	const char *path = NULL, *view = NULL;
	int ch;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":jh", lo, NULL)) != -1) {
		switch (ch) {
		case 'j': json = true; break;
		case OPT_NOHIST: hist = false; break;
		case OPT_INFO: info = true; break;
		case 'h': help(stdout); return xp_finish_stdout(0);
		default: return xp_fail(2, "report: unknown option '%s'; see 'xputrace report --help'", argv[optind - 1]);
		}
	}
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
	if (view && strcmp(view, "ioctl") && strcmp(view, "sched") && strcmp(view, "vblank") &&
	    strcmp(view, "mem"))
		return xp_fail(2, "report: unknown view '%s' (this build reports: ioctl, sched, vblank, mem)",
			       view);

	return xp_finish_stdout(xp_report_file(path, view, json, hist, info));
}
