/* xputrace record: what a capability produces, into a trace file for later. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/options.h"
#include "core/devices.h"
#include "core/ioctl_stats.h"
#include "core/mem_stats.h"
#include "core/parse.h"
#include "core/tracefile.h"
#include "core/vblank_stats.h"
#include "live/capture.h"
#include "live/rawtp_live.h"
#include "live/session.h"
#include "sinks/ioctl_report.h"

#ifndef XP_VERSION
#define XP_VERSION "0.1.0"
#endif

enum { CAP_IOCTL = 1, CAP_SCHED = 2, CAP_VBLANK = 4, CAP_MEM = 8 };

struct record_opts {
	struct xp_live_opts l;
	const char *out;
	bool summary;
	unsigned int caps;
};

struct record_run {
	struct record_opts *o;
	struct xp_ioctl_live *live;
	struct xp_sched_live *sched;
	struct xp_rawtp_live *vblank, *mem;
	struct xp_rawtp_layout *sched_l, *vbl_l, *mem_l;	/* large: on the heap */
	struct xp_live_share share;			/* the first capability's ring buffer */
	struct bpf_object *obj, *more_obj[3];	/* the ring buffer's owner, the others */
	struct xp_trace_meta *meta;
	struct xp_trace_writer *w;
	struct xp_ioctl_table table;
	struct xp_session sess;
	int write_err;
};

static void help(FILE *f)
{
	fprintf(f,
"Usage: xputrace record -o FILE [OPTIONS] [CAPABILITY...]\n"
"\n"
"Writes every event the capabilities produce into FILE, a versioned binary\n"
"trace file with the host, kernel, clock, filters, device names and the\n"
"kernel's tracepoint layouts needed to analyse it on another machine\n"
"('xputrace report', 'xputrace export'). Capabilities: ioctl (the default),\n"
"sched (gpu_scheduler jobs), vblank (drm vblank events), mem (amdgpu, i915\n"
"and xe buffer and submission events); several share one ring buffer. Drops\n"
"are recorded in the file. On Ctrl-C, SIGTERM or the end of -d, what was\n"
"captured is written out; a recorder that is killed leaves a file readable up\n"
"to its last block. Process filters apply to ioctls in the kernel, and to mem's\n"
"events in process context as 'xputrace mem' applies them; for sched they are\n"
"stored and 'report' applies them after joining each job's events, as\n"
"'xputrace sched' does.\n"
"\n"
"Options:\n"
"  -o, --output FILE        the trace file to write (required)\n"
"  -d, --duration SECONDS   stop after SECONDS (default: until Ctrl-C)\n"
"      --device PATH        also trace this character device node (repeatable)\n"
"  -p, --pid PID            only this process\n"
"  -c, --comm NAME          only threads with this name\n"
"  -G, --cgroup PATH        only tasks in this cgroup v2 directory\n"
"      --summary            also print each capability's summary on stdout at the\n"
"                           end: ioctl's from the live run, the others from the\n"
"                           file as 'report FILE VIEW' prints them\n"
"  -j, --json               the same, as JSON (one object per line and capability)\n"
"  -v, --verbose            show libbpf's messages\n"
"  -h, --help               this text\n"
"\n"
"Examples:\n"
"  xputrace record -o gpu.xpt -d 30           GPU ioctls for 30 s\n"
"  xputrace record -o app.xpt -p 1234 ioctl   one process, until Ctrl-C\n"
"  xputrace record -o gpu.xpt sched vblank    GPU jobs and frames together\n"
"  xputrace record -o mem.xpt -d 10 mem       buffer memory and submissions\n"
"  xputrace report gpu.xpt                    the summary, from the file\n");
}

static int parse(int argc, char **argv, struct record_opts *o)
{
	enum { OPT_SUMMARY = XP_OPT_VERB };
	static const struct option lo[] = {
		XP_COMMON_LONG,
		XP_TARGET_LONG,
		{ "output", required_argument, NULL, 'o' },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, err;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" XP_COMMON_SHORT XP_TARGET_SHORT "o:h", lo, NULL)) != -1) {
		if ((err = xp_live_opt(&o->l, "record", c, argv)) != 1) {
			if (err)
				return err;
			continue;
		}
		switch (c) {
		case 'o': o->out = optarg; break;
		case OPT_SUMMARY: o->summary = true; break;
		case 'h': help(stdout); return xp_finish_stdout(0) ? 1 : -1;
		default: return xp_fail(2, "record: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->l.json)
		o->summary = true;
	for (; optind < argc; optind++) {
		if (!strcmp(argv[optind], "ioctl"))
			o->caps |= CAP_IOCTL;
		else if (!strcmp(argv[optind], "sched"))
			o->caps |= CAP_SCHED;
		else if (!strcmp(argv[optind], "vblank"))
			o->caps |= CAP_VBLANK;
		else if (!strcmp(argv[optind], "mem"))
			o->caps |= CAP_MEM;
		else
			return xp_fail(2, "record: unknown capability '%s' (this build records: ioctl, sched, vblank, mem)",
				       argv[optind]);
	}
	if (!o->caps)
		o->caps = CAP_IOCTL;
	if (!o->out)
		return xp_fail(2, "record: -o FILE is required; see 'xputrace record --help'");
	return 0;
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

	if ((err = xp_trace_writer_add(r->w, h))) {
		r->write_err = err;
		return err;
	}
	if (r->o->summary && h->type == XP_REC_IOCTL)
		return xp_ioctl_table_add_rec(&r->table, (const struct xp_ioctl_rec *)h);
	return 0;
}

/* Every second: the block so far and the drops so far go to the file. */
static int on_tick(void *ctx, uint64_t n)
{
	struct record_run *r = ctx;
	struct xp_trace_stats st;
	int err;

	(void)n;
	stats_now(r, &st);
	if ((err = xp_trace_writer_stats(r->w, &st)))
		r->write_err = err;
	return err;
}

static int print_summary(struct record_run *r, const struct xp_trace_stats *st)
{
	struct xp_run_info ri = {
		.command = "ioctl",
		.source = "live",
		.mode = "stream",
		.hook = xp_ioctl_live_hook(r->live),
		.duration_s = xp_session_elapsed(&r->sess, false),
	};

	memcpy(ri.drops, st->drops, sizeof(st->drops));
	if (r->o->l.json)
		xp_ioctl_report_json(stdout, &r->table, &r->meta->devs, &ri);
	else
		xp_ioctl_report_text(stdout, &r->table, &r->meta->devs, &ri, true);
	return fflush(stdout) || ferror(stdout) ? -EIO : 0;
}

static void add_cap(struct record_run *r, const char *name)
{
	snprintf(r->meta->caps[r->meta->ncaps++], sizeof(r->meta->caps[0]), "%s", name);
}

/*
 * A capability opened on the shared ring buffer: the first one opened owns
 * the buffer, the others' objects (more_obj[slot]) are polled too. Its
 * tracefs layouts and its name go into the file. 0, or 1 after the error.
 */
static int join_cap(struct record_run *r, const char *cap, uint16_t rectype,
		    const struct xp_rawtp_layout *l, struct bpf_object *obj, struct bpf_map *events,
		    struct bpf_map *drops, int slot)
{
	int err;

	if (!r->share.events) {
		r->share.events = events;
		r->share.drops = drops;
		r->obj = obj;
	} else {
		r->more_obj[slot] = obj;
	}
	if ((err = xp_trace_meta_add_layout(r->meta, rectype, l)))
		return xp_fail(1, "record: %s", strerror(-err));
	add_cap(r, cap);
	return 0;
}

/*
 * Opens every capability asked for, in one ring buffer: the first one
 * opened owns it, the later ones write into it. Returns an exit status.
 */
static int open_caps(struct record_run *r)
{
	unsigned int caps = r->o->caps;
	char why[256] = "";
	int err;

	if (caps & CAP_IOCTL) {
		err = xp_ioctl_live_open(&r->live, &r->o->l.f, &r->meta->devs, false);
		if (err)
			return xp_fail(1, "record: cannot trace sys_enter/sys_exit: %s", xp_bpf_error_hint(err));
		r->share.events = xp_ioctl_live_events(r->live);
		r->share.drops = xp_ioctl_live_drops(r->live);
		r->obj = xp_ioctl_live_object(r->live);
		add_cap(r, "ioctl");
		snprintf(r->meta->hook, sizeof(r->meta->hook), "%s", xp_ioctl_live_hook(r->live));
	} else {
		snprintf(r->meta->hook, sizeof(r->meta->hook), "tracepoint");
	}
	if (caps & CAP_SCHED) {
		if (!(r->sched_l = calloc(1, sizeof(*r->sched_l))))
			return xp_fail(1, "record: out of memory");
		err = xp_sched_live_open(&r->sched, r->sched_l, &r->share, why, sizeof(why));
		if (err == -ENOENT)
			return xp_fail(1, "record: this kernel has no gpu_scheduler events (no driver using "
				       "the DRM GPU scheduler is loaded); see 'xputrace doctor'");
		if (err)
			return xp_fail(1, "record: sched: %s%s%s", why, err == -EPERM ? ": " : "",
				       err == -EPERM ? xp_bpf_error_hint(err) : "");
		if ((err = join_cap(r, "sched", XP_REC_SCHED, r->sched_l, xp_sched_live_object(r->sched),
				    xp_sched_live_events(r->sched), xp_sched_live_drops(r->sched), 0)))
			return err;
	}
	if (caps & CAP_VBLANK) {
		if (!(r->vbl_l = calloc(1, sizeof(*r->vbl_l))))
			return xp_fail(1, "record: out of memory");
		xp_rawtp_layout_init(r->vbl_l, xp_vbl_events, XP_VBL_NEV);
		err = xp_vblank_live_open_shared(&r->vblank, r->vbl_l, &r->share, why, sizeof(why));
		if (err == -ENOENT)
			return xp_fail(1, "record: this kernel has no drm vblank events (the drm module is "
				       "not loaded); see 'xputrace doctor'");
		if (err)
			return xp_fail(1, "record: vblank: %s%s%s", why, err == -EPERM ? ": " : "",
				       err == -EPERM ? xp_bpf_error_hint(err) : "");
		if ((err = join_cap(r, "vblank", XP_REC_VBLANK, r->vbl_l, xp_rawtp_live_object(r->vblank),
				    xp_rawtp_live_events(r->vblank), xp_rawtp_live_drops(r->vblank), 1)))
			return err;
	}
	if (caps & CAP_MEM) {
		if (!(r->mem_l = calloc(1, sizeof(*r->mem_l))))
			return xp_fail(1, "record: out of memory");
		xp_rawtp_layout_init(r->mem_l, xp_mem_events, XP_MEM_NEV);
		err = xp_mem_live_open_shared(&r->mem, r->mem_l, &r->o->l.f, &r->share, why, sizeof(why));
		if (err == -ENOENT && !r->mem) {
			if (why[0])
				return xp_fail(1, "record: mem: %s", why);
			return xp_fail(1, "record: this kernel has no amdgpu, i915 or xe events (none of "
				       "those drivers is loaded); see 'xputrace doctor'");
		}
		if (err)
			return xp_fail(1, "record: mem: %s%s%s", why,
				       err == -EPERM || err == -EACCES ? ": " : "",
				       err == -EPERM || err == -EACCES ? xp_bpf_error_hint(err) : "");
		if ((err = join_cap(r, "mem", XP_REC_MEM, r->mem_l, xp_rawtp_live_object(r->mem),
				    xp_rawtp_live_events(r->mem), xp_rawtp_live_drops(r->mem), 2)))
			return err;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { 0 };
	struct record_run r = { .o = &o };
	struct xp_trace_stats st;
	int err, fd = -1, status = 1;

	err = parse(argc, argv, &o);
	if (err)
		return err < 0 ? 0 : err;
	xp_libbpf_quiet(o.l.verbose);
	xp_ioctl_table_init(&r.table);
	if (!(r.meta = calloc(1, sizeof(*r.meta))))
		return xp_fail(1, "record: out of memory");
	if ((status = xp_live_targets(&o.l, "record", &r.meta->devs)))
		goto out;
	status = 1;
	/* the start time is taken before attaching: no record is older */
	xp_trace_meta_host(r.meta, XP_VERSION);
	r.meta->filter_pid = o.l.f.pid;
	if (o.l.f.comm)
		snprintf(r.meta->filter_comm, sizeof(r.meta->filter_comm), "%s", o.l.f.comm);
	r.meta->filter_cgroup = o.l.f.cgroup_id;
	if ((status = open_caps(&r)))
		goto out;
	status = 1;
	/* created once tracing works: a failed start leaves FILE as it was */
	fd = open(o.out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		xp_fail(1, "record: cannot create %s: %s", o.out, strerror(errno));
		goto out;
	}
	if ((err = xp_trace_writer_open(&r.w, fd, r.meta, 0))) {
		xp_fail(1, "record: writing %s: %s", o.out, strerror(-err));
		goto out;
	}
	if (o.caps & CAP_IOCTL)
		xp_warn_no_devices("record", &r.meta->devs);

	r.sess.duration_s = o.l.duration_s;
	r.sess.interval_s = 1.0;	/* the writer's timer: stats and a flush */
	r.sess.on_record = on_record;
	r.sess.on_interval = on_tick;
	r.sess.ctx = &r;
	r.sess.obj = r.obj;
	r.sess.more_obj[0] = r.more_obj[0];
	r.sess.more_obj[1] = r.more_obj[1];
	r.sess.more_obj[2] = r.more_obj[2];
	if ((err = xp_session_open(&r.sess, r.share.events, r.share.drops))) {
		xp_fail(1, "record: cannot read the ring buffer: %s", strerror(-err));
		goto out;
	}
	xp_signals_install();
	fprintf(stderr, "Tracing");	/* tests wait for this word */
	for (int i = 0; i < r.meta->ncaps; i++)
		fprintf(stderr, "%s %s", i ? "," : "", r.meta->caps[i]);
	fprintf(stderr, " (%s) into %s... %s\n", r.meta->hook, o.out,
		o.l.duration_s ? "" : "Ctrl-C to end.");
	err = xp_session_run(&r.sess);
	/* whatever ended the run, what was captured goes to the file */
	stats_now(&r, &st);
	if (!r.write_err)
		r.write_err = xp_trace_writer_finish(r.w, &st);
	if (!r.write_err && fsync(fd) && errno != EINVAL)
		r.write_err = -errno;
	if (r.write_err) {
		xp_fail(1, "record: writing %s: %s", o.out, strerror(-r.write_err));
		goto out;
	}
	if (err) {
		xp_fail(1, "record: %s", strerror(-err));
		goto out;
	}
	fprintf(stderr, "Recorded %llu records in %llu blocks (%llu bytes) to %s; drops: %llu\n",
		(unsigned long long)xp_trace_writer_records(r.w),
		(unsigned long long)xp_trace_writer_blocks(r.w),
		(unsigned long long)xp_trace_writer_bytes(r.w), o.out,
		(unsigned long long)(st.drops[XP_DROP_RINGBUF] + st.drops[XP_DROP_MAP_FULL] +
				     st.drops[XP_DROP_KERNEL_MISSED]));
	status = 0;
	if (o.summary && (o.caps & CAP_IOCTL) && print_summary(&r, &st))
		status = 1;
	/* the others as report prints them: from the file just written */
	for (int i = 0; o.summary && !status && i < r.meta->ncaps; i++)
		if (strcmp(r.meta->caps[i], "ioctl"))
			status = xp_report_file(o.out, r.meta->caps[i], o.l.json, true, false);
out:
	if (fd >= 0 && close(fd) && !status)
		status = xp_fail(1, "record: closing %s: %s", o.out, strerror(errno));
	xp_session_close(&r.sess);
	xp_rawtp_live_close(r.mem);
	xp_rawtp_live_close(r.vblank);
	xp_sched_live_close(r.sched);
	xp_ioctl_live_close(r.live);
	xp_trace_writer_free(r.w);
	xp_ioctl_table_free(&r.table);
	if (r.meta)
		xp_trace_meta_free_layouts(r.meta);
	free(r.meta);
	free(r.sched_l);
	free(r.vbl_l);
	free(r.mem_l);
	return xp_finish_stdout(status);
}
