/*
 * libFuzzer target: the trace file reader, and what report and export do
 * with what it hands over (the ioctl table, device naming from the file's
 * metadata, the tracefs layouts in its LAYOUT block decoding sched and
 * vblank records, the text/JSON summaries and the Perfetto sink).
 * Built and run by `make fuzz` (fuzz/run.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "caps/ioctl/ioctl_stats.h"
#include "caps/sched/sched_stats.h"
#include "core/tracefile.h"
#include "caps/vblank/vblank_stats.h"
#include "caps/ioctl/ioctl_report.h"
#include "sinks/perfetto.h"
#include "caps/sched/sched_report.h"
#include "caps/vblank/vblank_report.h"
#include "kinds.h"

struct ctx {
	struct xp_ioctl_table table;
	struct xp_perfetto p;
	const struct xp_devices *devs;
	struct xp_rawtp_layout sl, vl;
	struct xp_sched_state sched;
	struct xp_vbl_state vbl;
};

static void on_job(void *arg, const struct xp_sched_job_info *j)
{
	struct ctx *c = arg;

	xp_perfetto_sched_job(&c->p, j);
}

static int on_record(void *arg, const struct xp_rec_hdr *h)
{
	struct ctx *c = arg;
	struct xp_vbl_event ev;

	if (h->type == XP_REC_SCHED) {
		xp_sched_feed(&c->sched, &c->sl, (const struct xp_rawtp_rec *)h);
		return 0;
	}
	if (h->type == XP_REC_VBLANK) {
		if (!xp_vbl_decode(&c->vl, (const struct xp_rawtp_rec *)h, &ev)) {
			xp_vbl_add(&c->vbl, &ev);
			xp_perfetto_vblank(&c->p, &ev);
		}
		return 0;
	}
	if (h->type != XP_REC_IOCTL)
		return 0;
	xp_perfetto_ioctl(&c->p, (const struct xp_ioctl_rec *)h, c->devs);
	return xp_ioctl_table_add_rec(&c->table, (const struct xp_ioctl_rec *)h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xp_trace_reader r;
	static FILE *null;
	struct xp_run_info ri = { .command = "ioctl", .source = "fuzz", .mode = "stream" };
	static struct ctx c;	/* large: not on the stack */
	FILE *f;
	int err;

	use_record_kinds();
	if (!size)
		return 0;
	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	if (!(f = fmemopen((void *)data, size, "r")))
		return 0;
	xp_ioctl_table_init(&c.table);
	if (xp_sched_init(&c.sched, 64, 0))
		abort();
	c.sched.on_job = on_job;
	c.sched.cb_ctx = &c;
	xp_vbl_init(&c.vbl, 1000000);
	err = xp_trace_reader_open(&r, f);
	if (!err) {
		c.devs = &r.meta.devs;
		xp_rawtp_layout_init(&c.sl, xp_sched_events, XP_TP_SCHED_MAX);
		xp_trace_meta_layout(&r.meta, XP_REC_SCHED, &c.sl);
		xp_rawtp_layout_init(&c.vl, xp_vbl_events, XP_VBL_NEV);
		xp_trace_meta_layout(&r.meta, XP_REC_VBLANK, &c.vl);
		xp_perfetto_begin(&c.p, null, r.meta.start_ns);
		err = xp_trace_reader_run(&r, on_record, &c);
		xp_perfetto_end(&c.p, &r.meta);
		if (!err) {
			struct xp_sched_report sr = { .st = &c.sched, .layout = &c.sl, .ri = &ri, .hist = true };
			struct xp_tp_report vr = { .st = &c.vbl, .layout = &c.vl, .ri = &ri, .hist = true };

			ri.duration_s = xp_trace_duration(&r);
			sr.now = r.meta.start_ns + (uint64_t)(ri.duration_s * 1e9);
			xp_ioctl_report_text(null, &c.table, &r.meta.devs, &ri, true);
			xp_ioctl_report_json(null, &c.table, &r.meta.devs, &ri);
			xp_sched_finish(&c.sched, sr.now);
			xp_sched_report_text(null, &sr);
			xp_sched_report_json(null, &sr);
			xp_vbl_finish(&c.vbl);
			xp_vbl_report_text(null, &vr);
			xp_vbl_report_json(null, &vr);
		}
	}
	xp_trace_reader_close(&r);
	xp_trace_meta_free(&r.meta);	/* the capabilities, which the close keeps for a summary */
	xp_sched_free(&c.sched);
	xp_ioctl_table_free(&c.table);
	fclose(f);
	return 0;
}
