/*
 * libFuzzer target: the trace file reader, and what report and export do
 * with what it hands over (the ioctl table, device naming from the file's
 * metadata, the text/JSON summary and the Perfetto sink).
 * Built and run by `make fuzz` (fuzz/run.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/ioctl_stats.h"
#include "core/tracefile.h"
#include "sinks/ioctl_report.h"
#include "sinks/perfetto.h"

struct ctx {
	struct xp_ioctl_table table;
	struct xp_perfetto p;
	const struct xp_devices *devs;
};

static int on_record(void *arg, const struct xp_rec_hdr *h)
{
	struct ctx *c = arg;

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
	struct ctx c;
	FILE *f;
	int err;

	if (!size)
		return 0;
	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	if (!(f = fmemopen((void *)data, size, "r")))
		return 0;
	xp_ioctl_table_init(&c.table);
	err = xp_trace_reader_open(&r, f);
	if (!err) {
		c.devs = &r.meta.devs;
		xp_perfetto_begin(&c.p, null, r.meta.start_ns);
		err = xp_trace_reader_run(&r, on_record, &c);
		xp_perfetto_end(&c.p, &r.meta);
		if (!err) {
			ri.duration_s = xp_trace_duration(&r);
			xp_ioctl_report_text(null, &c.table, &r.meta.devs, &ri, true);
			xp_ioctl_report_json(null, &c.table, &r.meta.devs, &ri);
		}
	}
	xp_trace_reader_close(&r);
	xp_ioctl_table_free(&c.table);
	fclose(f);
	return 0;
}
