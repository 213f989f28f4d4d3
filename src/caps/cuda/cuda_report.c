/* `cuda` summary (text, JSON) and --stream lines. */
#include <inttypes.h>
#include <string.h>

#include "caps/cuda/cuda_report.h"
#include "sinks/text.h"

static const char *const what_names[] = {
	[XP_CUDA_KERNEL] = "kernel", [XP_CUDA_MEMCPY] = "memcpy", [XP_CUDA_MEMSET] = "memset",
	[XP_CUDA_LAUNCH] = "launch", [XP_CUDA_DROPS] = "drops",
};

static const char *what_name(uint32_t w)
{
	return w < sizeof(what_names) / sizeof(what_names[0]) && what_names[w] ? what_names[w] : "?";
}

/* busy ns as seconds with nanoseconds */
static const char *secs(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
	return buf;
}

static double pct(uint64_t ns, double duration_s)
{
	return duration_s > 0 ? 100.0 * (double)ns / (duration_s * 1e9) : 0;
}

static void text_kernels(FILE *f, const struct xp_cuda_state *s)
{
	char who[40], a[16], b[16], c[16], d[16], e[16];

	fprintf(f, "%-32s %-22s %3s %8s %10s %10s %12s %8s %10s %10s\n", "KERNEL", "PROCESS/PID", "DEV",
		"LAUNCHES", "GPU p50", "GPU p99", "GPU sum", "JOINED", "START p50", "START p99");
	for (int i = 0; i < s->nkrows; i++) {
		const struct xp_cuda_krow *k = &s->krows[i];

		snprintf(who, sizeof(who), "%.16s/%u", k->comm, k->pid);
		fprintf(f, "%-32.95s %-22s %3u %8" PRIu64 " %10s %10s %12s %8" PRIu64 " %10s %10s\n", k->name, who,
			k->device, k->kernels, xp_fmt_ns(xp_hist_percentile(&k->gpu, 50), a, sizeof(a)),
			xp_fmt_ns(xp_hist_percentile(&k->gpu, 99), b, sizeof(b)),
			xp_fmt_ns(k->gpu.sum, c, sizeof(c)), k->delay.count,
			k->delay.count ? xp_fmt_ns(xp_hist_percentile(&k->delay, 50), d, sizeof(d)) : "-",
			k->delay.count ? xp_fmt_ns(xp_hist_percentile(&k->delay, 99), e, sizeof(e)) : "-");
	}
}

static void text_procs(FILE *f, const struct xp_cuda_state *s, double dur)
{
	char who[40], busy[32], x[XP_CUDA_NDIR][48];

	fprintf(f, "\n%-22s %-10s %3s %8s %20s %6s  %s\n", "PROCESS/PID", "CGROUP", "DEV", "KERNELS", "BUSY(s)",
		"GPU%", "COPIES n/bytes/time: htod dtoh dtod other memset");
	for (int i = 0; i < s->nprows; i++) {
		const struct xp_cuda_prow *p = &s->prows[i];
		uint64_t b = xp_cuda_busy(p) - p->busy_base;

		for (int k = 0; k < XP_CUDA_NDIR; k++) {
			char t[16];

			snprintf(x[k], sizeof(x[k]), "%" PRIu64 "/%" PRIu64 "/%s", p->x[k].n, p->x[k].bytes,
				 xp_fmt_ns(p->x[k].ns, t, sizeof(t)));
		}
		snprintf(who, sizeof(who), "%.16s/%u", p->comm, p->pid);
		fprintf(f, "%-22s %-10" PRIu64 " %3u %8" PRIu64 " %20s %6.2f  %s %s %s %s %s\n", who, p->cgroup_id,
			p->device, p->kernels, secs(b, busy, sizeof(busy)), pct(b, dur), x[0], x[1], x[2], x[3],
			x[4]);
	}
}

void xp_cuda_report_text(FILE *f, const struct xp_cuda_report *r)
{
	struct xp_cuda_state *s = r->st;

	xp_cuda_sort(s);
	xp_print_drops(f, r->ri);
	fprintf(f, "GPU activity (CUPTI): %" PRIu64 " kernels, %" PRIu64 " joined to their launch call of %" PRIu64
		   " launch calls seen, %" PRIu64 " copies, %" PRIu64 " memsets\n",
		s->kernels, s->joined, s->launches, s->copies, s->memsets);
	if (s->cupti_dropped)
		fprintf(f, "warning: CUPTI dropped %" PRIu64 " activity records (its buffers were full): kernels "
			   "and copies not counted here\n", s->cupti_dropped);
	for (int i = 0; i < r->nnotes; i++)
		fprintf(f, "note: %s\n", r->notes[i]);
	if (!s->kernels && !s->copies && !s->memsets && !s->launches) {
		fprintf(f, "no GPU activity seen: is CUDA_INJECTION64_PATH set to libxputrace-cuda.so in the "
			   "processes? (docs/nvidia.md)\n");
	} else {
		text_kernels(f, s);
		text_procs(f, s, r->ri->duration_s);
	}
	if (s->marks_pushed)
		fprintf(f, "note: %" PRIu64 " launch calls pushed out of the table (%u) before their kernel came\n",
			s->marks_pushed, XP_CUDA_MARKS);
	for (int i = 0; i < s->nprows; i++)
		if (s->prows[i].late)
			fprintf(f, "note: pid %u device %u: %" PRIu64 " kernels came over %.1f s late: busy counted "
				   "from the last folded end only\n", s->prows[i].pid, s->prows[i].device,
				s->prows[i].late, (double)XP_CUDA_HORIZON_NS / 1e9);
	if (s->rows_full)
		fprintf(f, "note: %" PRIu64 " records past the tables' rows: not counted per row\n", s->rows_full);
	if (r->undecodable)
		fprintf(f, "note: %" PRIu64 " records could not be decoded\n", r->undecodable);
}

static void json_xfer(struct xp_json *j, const struct xp_cuda_xfer *x)
{
	xp_json_begin_obj(j);
	xp_json_ku64(j, "n", x->n);
	xp_json_ku64(j, "bytes", x->bytes);
	xp_json_ku64(j, "ns", x->ns);
	xp_json_end_obj(j);
}

static void json_rows(struct xp_json *j, const struct xp_cuda_state *s, double dur)
{
	xp_json_key(j, "by_kernel");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->nkrows; i++) {
		const struct xp_cuda_krow *k = &s->krows[i];

		xp_json_begin_obj(j);
		xp_json_kstr(j, "name", k->name);
		xp_json_ku64(j, "pid", k->pid);
		xp_json_kstr(j, "comm", k->comm);
		xp_json_ku64(j, "device", k->device);
		xp_json_ku64(j, "launches", k->kernels);
		xp_json_khist(j, "gpu_ns", &k->gpu);
		xp_json_khist(j, "launch_to_start_ns", &k->delay);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
	xp_json_key(j, "by_process");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->nprows; i++) {
		const struct xp_cuda_prow *p = &s->prows[i];
		uint64_t b = xp_cuda_busy(p) - p->busy_base;

		xp_json_begin_obj(j);
		xp_json_ku64(j, "pid", p->pid);
		xp_json_kstr(j, "comm", p->comm);
		xp_json_ku64(j, "cgroup_id", p->cgroup_id);
		xp_json_ku64(j, "device", p->device);
		xp_json_ku64(j, "kernels", p->kernels);
		xp_json_ku64(j, "busy_ns", b);
		xp_json_kdouble(j, "gpu_percent", pct(b, dur));
		xp_json_ku64(j, "late", p->late);
		for (int k = 0; k < XP_CUDA_NDIR; k++) {
			xp_json_key(j, xp_cuda_dir_names[k]);
			json_xfer(j, &p->x[k]);
		}
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
}

void xp_cuda_report_json(FILE *f, const struct xp_cuda_report *r)
{
	struct xp_cuda_state *s = r->st;
	struct xp_json j;

	xp_cuda_sort(s);
	xp_json_begin_run(&j, f, r->ri);
	xp_json_ku64(&j, "kernels", s->kernels);
	xp_json_ku64(&j, "joined", s->joined);
	xp_json_ku64(&j, "launches", s->launches);
	xp_json_ku64(&j, "copies", s->copies);
	xp_json_ku64(&j, "memsets", s->memsets);
	xp_json_ku64(&j, "cupti_dropped", s->cupti_dropped);
	xp_json_ku64(&j, "launches_pushed", s->marks_pushed);
	xp_json_ku64(&j, "rows_full", s->rows_full);
	xp_json_ku64(&j, "undecodable", r->undecodable);
	xp_json_kbool(&j, "final", r->final);
	json_rows(&j, s, r->ri->duration_s);
	xp_json_key(&j, "notes");
	xp_json_begin_arr(&j);
	for (int i = 0; i < r->nnotes; i++)
		xp_json_str(&j, r->notes[i]);
	xp_json_end_arr(&j);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
}

void xp_cuda_stream_header(FILE *f)
{
	fprintf(f, "%-12s %-24s %-6s %3s %6s %10s %10s  %s\n", "TIME(s)", "PROCESS/PID", "WHAT", "DEV", "STREAM",
		"CORR", "DURATION", "NAME, BYTES, LAUNCH->START");
}

void xp_cuda_stream_text(FILE *f, const struct xp_cuda_rec *r, const struct xp_cuda_done *d, uint64_t t0)
{
	char t[32], who[40], dur[16], dl[16];

	*xp_put_rel_s(t, r->hdr.ts_ns, t0) = 0;
	snprintf(who, sizeof(who), "%.16s/%u", r->comm, r->hdr.pid);
	fprintf(f, "%-12s %-24s %-6s %3u %6u %10u %10s  ", t, who, what_name(r->what), r->device, r->stream, r->corr,
		xp_fmt_ns(r->end_ns - r->hdr.ts_ns, dur, sizeof(dur)));
	switch (r->what) {
	case XP_CUDA_KERNEL:
		fprintf(f, "%.95s grid %u,%u,%u block %u,%u,%u", r->name, r->grid[0], r->grid[1], r->grid[2],
			r->block[0], r->block[1], r->block[2]);
		if (d->joined)
			fprintf(f, " launch->start %s", xp_fmt_ns(r->hdr.ts_ns - d->launch_ts, dl, sizeof(dl)));
		break;
	case XP_CUDA_MEMCPY:
	case XP_CUDA_MEMSET:
		fprintf(f, "%s %" PRIu64 " bytes", xp_cuda_dir_names[xp_cuda_dir(r->what, r->kind)], (uint64_t)r->bytes);
		break;
	case XP_CUDA_LAUNCH:
		fprintf(f, "%.95s tid %u", r->name, r->hdr.tid);
		break;
	case XP_CUDA_DROPS:
		fprintf(f, "%" PRIu64 " records dropped by CUPTI", (uint64_t)r->bytes);
		break;
	}
	fputc('\n', f);
}

void xp_cuda_stream_json(struct xp_json *j, const struct xp_cuda_rec *r, const struct xp_cuda_done *d, uint64_t t0)
{
	xp_json_begin_obj(j);
	xp_json_ki64(j, "t_ns", xp_rel_ns(r->hdr.ts_ns, t0));
	xp_json_ku64(j, "dur_ns", r->end_ns - r->hdr.ts_ns);
	xp_json_ku64(j, "pid", r->hdr.pid);
	xp_json_ku64(j, "tid", r->hdr.tid);
	xp_json_kstr(j, "comm", r->comm);
	xp_json_kstr(j, "what", what_name(r->what));
	xp_json_ku64(j, "device", r->device);
	xp_json_ku64(j, "context", r->context);
	xp_json_ku64(j, "stream", r->stream);
	xp_json_ku64(j, "corr", r->corr);
	xp_json_ku64(j, "bytes", r->bytes);
	if (r->what == XP_CUDA_MEMCPY || r->what == XP_CUDA_MEMSET)
		xp_json_kstr(j, "dir", xp_cuda_dir_names[xp_cuda_dir(r->what, r->kind)]);
	if (r->what == XP_CUDA_KERNEL || r->what == XP_CUDA_LAUNCH)
		xp_json_kstr(j, "name", r->name);
	if (d->joined)
		xp_json_ku64(j, "launch_to_start_ns", r->hdr.ts_ns - d->launch_ts);
	xp_json_end_obj(j);
	xp_json_finish(j);
}
