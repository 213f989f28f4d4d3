#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "caps/ioctl/ioctl_names.h"
#include "caps/nvidia/nvidia_facts.h"
#include "caps/nvidia/nvidia_report.h"
#include "sinks/perfetto.h"
#include "sinks/rows.h"
#include "sinks/text.h"

/* Who used the device files: a process's row, "comm[pid]" in text */
static void proc_who(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_nv_proc *p = row;

	(void)ctx;
	snprintf(v->buf, sizeof(v->buf), "%s[%u]", p->comm, p->pid);
	v->s = v->buf;
}

#define PROC(m) XP_FIELD(struct xp_nv_proc, m)
static const struct xp_col proc_cols[] = {
	{ XP_TEXT("PROCESS", -24, XP_COL_STR), .flags = XP_COL_CUT, .get = proc_who },
	{ XP_JSON("pid", XP_COL_INT), PROC(pid) },
	{ XP_JSON("comm", XP_COL_STR), PROC(comm) },
	{ XP_BOTH("OPENS", 6, "opens", XP_COL_INT), PROC(opens) },
	{ XP_BOTH("CLOSES", 6, "closes", XP_COL_INT), PROC(closes) },
	{ XP_BOTH("IOCTLS", 7, "ioctls", XP_COL_INT), PROC(ioctls) },
	{ XP_BOTH("ERRORS", 6, "ioctl_errors", XP_COL_INT), PROC(ioctl_errors) },
	{ XP_BOTH("MMAPS", 6, "mmaps", XP_COL_INT), PROC(mmaps) },
	{ XP_BOTH("MMAP_BYTES", 10, "mmap_bytes", XP_COL_INT), PROC(mmap_bytes) },
	{ XP_BOTH("FAULTS", 7, "faults", XP_COL_INT), PROC(faults) },
};

static const struct xp_rows proc_rows = { XP_ROWS(proc_cols) };

static const char *const irq_part[XP_NV_IRQ_N] = { "isr", "isr_msix", "bottom_half", "msix_bottom_half" };

static const char *esc_name(uint32_t cmd, char *buf, size_t len)
{
	return xp_ioctl_name(XP_DEV_NVIDIA, NULL, cmd, buf, len);
}

static void lat_line(FILE *f, const char *what, const struct xp_hist *h)
{
	fprintf(f, "%-26s", what);
	xp_print_lat_cols(f, h);
}

/* The first lines: what was probed, and what to know of the figures below */
static void head_text(FILE *f, const struct xp_nv_state *s, const struct xp_run_info *ri)
{
	int nprobed = 0;

	if (ri->interval)
		fprintf(f, "--- interval %" PRIu64 " ---\n", ri->interval);
	for (int i = 0; i < XP_NV_NFN; i++)
		nprobed += s->probed[i];
	fprintf(f, "%s: %.1f s, ", ri->command, ri->duration_s);
	if (s->no_kprobes)
		fprintf(f, "Xids only, ");
	else if (s->probed_known)
		fprintf(f, "%d of %d nvidia.ko functions probed, ", nprobed, XP_NV_NFN);
	xp_print_drops(f, ri);
	if (s->no_kprobes)
		fprintf(f, "note: this kernel has no kprobes: calls into nvidia.ko are not seen (ioctls to "
			   "/dev/nvidia* are, by 'xputrace ioctl'); the holders are read from /proc at each Xid\n");
	else if (s->probed_known && nprobed < XP_NV_NFN) {
		fprintf(f, "note: not in the loaded module:");
		for (int i = 0; i < XP_NV_NFN; i++)
			if (!s->probed[i])
				fprintf(f, " %s", xp_nv_funcs[i].name);
		fprintf(f, "\n");
	}
	if (s->sample > 1)
		fprintf(f, "note: --sample %u: 1 in %u ioctls of each escape timed (the first, then every "
			   "%uth): %" PRIu64 " ioctls seen (counted in the kernel); the ioctl CALLS, TIMED, "
			   "IOCTLS and ERRORS below count the timed ones, unscaled\n",
			s->sample, s->sample, s->sample, s->ioctl_seen);
	if (s->overflow)
		fprintf(f, "note: %" PRIu64 " calls past the tracked processes/escapes/interrupts\n", s->overflow);
}

/* The timed calls: ioctl escapes, interrupts, suspend and resume */
static void timings_text(FILE *f, const struct xp_nv_state *s)
{
	char name[64], what[64];

	if (s->nescs) {
		fprintf(f, "\n%-26s ", "ESCAPE");
		if (s->sample > 1)
			fprintf(f, "%10s %8s", "SEEN", "TIMED");
		else
			fprintf(f, "%8s", "CALLS");
		fprintf(f, " %10s %10s %10s %10s %6s\n", "AVG", "P50", "P99", "MAX", "ERRORS");
		for (int i = 0; i < s->nescs; i++) {
			const struct xp_nv_esc *e = &s->escs[i];
			char a[16], b[16], c[16], d[16];

			fprintf(f, "%-26.26s ", esc_name(e->cmd, name, sizeof(name)));
			if (s->sample > 1)
				fprintf(f, "%10" PRIu64 " ", e->seen);
			fprintf(f, "%8" PRIu64 " %10s %10s %10s %10s %6" PRIu64 "\n", e->lat.count,
				xp_fmt_ns(e->lat.count ? e->lat.sum / e->lat.count : 0, a, sizeof(a)),
				xp_fmt_ns(xp_hist_percentile(&e->lat, 50), b, sizeof(b)),
				xp_fmt_ns(xp_hist_percentile(&e->lat, 99), c, sizeof(c)),
				xp_fmt_ns(e->lat.max, d, sizeof(d)), e->errors);
		}
	}
	if (s->nirqs || s->suspend.count || s->resume.count) {
		fprintf(f, "\n%-26s %8s %10s %10s %10s %10s\n", "INTERRUPT / POWER", "CALLS", "AVG", "P50",
			"P99", "MAX");
		for (int i = 0; i < s->nirqs; i++)
			for (int k = 0; k < XP_NV_IRQ_N; k++)
				if (s->irqs[i].lat[k].count) {
					snprintf(what, sizeof(what), "irq %u %s", s->irqs[i].irq, irq_part[k]);
					lat_line(f, what, &s->irqs[i].lat[k]);
				}
		if (s->suspend.count)
			lat_line(f, "suspend", &s->suspend);
		if (s->resume.count)
			lat_line(f, "resume", &s->resume);
	}
}

/* The Xids: each one's GPU, who held it and the ioctls in flight then */
static void xids_text(FILE *f, const struct xp_nv_state *s)
{
	char dev[32], name[64];

	if (s->xid_known && !s->xid_probed)
		fprintf(f, "\nnote: Xids not traced: %s\n", s->xid_why);
	if (s->nxids || s->xids_past)
		fprintf(f, "\nXIDS: %d%s\n", s->nxids + (int)s->xids_past,
			s->xids_past ? " (the first ones detailed)" : "");
	for (int i = 0; i < s->nxids; i++) {
		const struct xp_nv_xid *x = &s->xids[i];
		char t[32];

		*xp_put_rel_s(t, x->ts, s->t0) = '\0';
		fprintf(f, "Xid %u on %s (%s) at %s s: %s\n", x->code, x->dev,
			x->minor >= 0 ? xp_nv_minor_name((uint32_t)x->minor, dev, sizeof(dev)) : "device file unknown",
			t, x->msg);
		fprintf(f, "  holding the GPU:%s\n", x->nholders ? "" : " none");
		for (int k = 0; k < x->nholders; k++)
			fprintf(f, "    %s[%u] %s\n", x->holders[k].comm, x->holders[k].pid,
				xp_nv_minor_name(x->holders[k].minor, dev, sizeof(dev)));
		fprintf(f, "  ioctls in flight:%s\n", x->ninflight ? "" : " none");
		for (int k = 0; k < x->ninflight; k++) {
			const struct xp_nv_inflight *q = &x->inflight[k];
			char a[16], b[16];

			fprintf(f, "    %s[%u/%u] %s on %s, %s in when the Xid came, %s in all\n", q->comm, q->pid,
				q->tid, esc_name(q->cmd, name, sizeof(name)),
				xp_nv_minor_name(q->minor, dev, sizeof(dev)),
				xp_fmt_ns(x->ts - q->start_ns, a, sizeof(a)), xp_fmt_ns(q->dur_ns, b, sizeof(b)));
		}
		if (x->more)
			fprintf(f, "  and %" PRIu64 " more\n", x->more);
	}
}

void xp_nv_report_text(FILE *f, const struct xp_nv_state *s, const struct xp_run_info *ri, bool hist)
{
	char dev[32], name[64];

	head_text(f, s, ri);
	/* no table where no function was probed or called (Xids only) */
	for (int i = 0, head = 0; i < XP_NV_NFN; i++)
		if (s->calls[i] || (s->probed_known && s->probed[i])) {
			if (!head++)
				fprintf(f, "\n%-28s %8s\n", "FUNCTION", "CALLS");
			fprintf(f, "%-28s %8" PRIu64, xp_nv_funcs[i].name, s->calls[i]);
			if (i == XP_NV_IOCTL && s->sample > 1)
				fprintf(f, "  (1 in %u of %" PRIu64 " seen)", s->sample, s->ioctl_seen);
			fprintf(f, "\n");
		}

	if (s->nprocs) {
		fputc('\n', f);
		xp_rows_head(f, &proc_rows, s);
		for (int i = 0; i < s->nprocs; i++)
			xp_rows_text(f, &proc_rows, &s->procs[i], s);
	}
	fprintf(f, "\nholding the device files now:%s\n", s->nholds ? "" : " none");
	for (int i = 0; i < s->nholds; i++) {
		const struct xp_nv_hold *h = &s->holds[i];

		fprintf(f, "  %-16s %s[%u]%s\n", xp_nv_minor_name(h->minor, dev, sizeof(dev)), h->comm,
			h->pid, h->before ? " (opened before tracing began)" : "");
	}
	if (s->closes_unknown)
		fprintf(f, "closes of files opened before tracing began by another process: %" PRIu64 "\n",
			s->closes_unknown);

	timings_text(f, s);
	if (s->calls[XP_NV_P2P_GET] || s->calls[XP_NV_P2P_PUT] || s->calls[XP_NV_P2P_DMA_MAP])
		fprintf(f, "\np2p: get_pages %" PRIu64 " (%" PRIu64 " bytes), put_pages %" PRIu64
			", dma_map_pages %" PRIu64 "\n", s->calls[XP_NV_P2P_GET], s->p2p_bytes,
			s->calls[XP_NV_P2P_PUT], s->calls[XP_NV_P2P_DMA_MAP]);
	xids_text(f, s);
	if (!hist)
		return;
	for (int i = 0; i < s->nescs; i++) {
		fprintf(f, "\n%s latency:\n", esc_name(s->escs[i].cmd, name, sizeof(name)));
		xp_print_log2_hist(f, &s->escs[i].lat, 2);
	}
	for (int i = 0; i < s->nirqs; i++)
		for (int k = 0; k < XP_NV_IRQ_N; k++)
			if (s->irqs[i].lat[k].count) {
				fprintf(f, "\nirq %u %s latency:\n", s->irqs[i].irq, irq_part[k]);
				xp_print_log2_hist(f, &s->irqs[i].lat[k], 2);
			}
}

/* Who used the device files: per process, and who holds them now */
static void files_json(struct xp_json *j, const struct xp_nv_state *s)
{
	char dev[32];

	xp_rows_json_arr(j, "processes", &proc_rows, s->procs, s->nprocs, sizeof(s->procs[0]), s, NULL);
	xp_json_key(j, "holders");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->nholds; i++) {
		const struct xp_nv_hold *h = &s->holds[i];

		xp_json_begin_obj(j);
		xp_json_kstr(j, "device", xp_nv_minor_name(h->minor, dev, sizeof(dev)));
		xp_json_ku64(j, "pid", h->pid);
		xp_json_kstr(j, "comm", h->comm);
		xp_json_kbool(j, "before_start", h->before);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
}

/* The Xids: each one's GPU, who held it and the ioctls in flight then */
static void xids_json(struct xp_json *j, const struct xp_nv_state *s)
{
	char dev[32], name[64];

	if (s->xid_known) {
		xp_json_kbool(j, "xid_traced", s->xid_probed);
		if (!s->xid_probed)
			xp_json_kstr(j, "xid_why", s->xid_why);
	}
	xp_json_ku64(j, "xids_past", s->xids_past);
	xp_json_key(j, "xids");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->nxids; i++) {
		const struct xp_nv_xid *x = &s->xids[i];

		xp_json_begin_obj(j);
		xp_json_ku64(j, "ts_ns", x->ts);
		xp_json_kstr(j, "dev", x->dev);
		xp_json_ku64(j, "code", x->code);
		xp_json_kstr(j, "msg", x->msg);
		if (x->minor >= 0)
			xp_json_kstr(j, "device", xp_nv_minor_name((uint32_t)x->minor, dev, sizeof(dev)));
		xp_json_key(j, "holders");
		xp_json_begin_arr(j);
		for (int k = 0; k < x->nholders; k++) {
			xp_json_begin_obj(j);
			xp_json_ku64(j, "pid", x->holders[k].pid);
			xp_json_kstr(j, "comm", x->holders[k].comm);
			xp_json_kstr(j, "device", xp_nv_minor_name(x->holders[k].minor, dev, sizeof(dev)));
			xp_json_end_obj(j);
		}
		xp_json_end_arr(j);
		xp_json_key(j, "in_flight");
		xp_json_begin_arr(j);
		for (int k = 0; k < x->ninflight; k++) {
			const struct xp_nv_inflight *q = &x->inflight[k];

			xp_json_begin_obj(j);
			xp_json_ku64(j, "pid", q->pid);
			xp_json_ku64(j, "tid", q->tid);
			xp_json_kstr(j, "comm", q->comm);
			xp_json_kstr(j, "name", esc_name(q->cmd, name, sizeof(name)));
			xp_json_kstr(j, "device", xp_nv_minor_name(q->minor, dev, sizeof(dev)));
			xp_json_ku64(j, "since_ns", x->ts - q->start_ns);
			xp_json_ku64(j, "duration_ns", q->dur_ns);
			xp_json_end_obj(j);
		}
		xp_json_end_arr(j);
		xp_json_ku64(j, "more", x->more);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
}

void xp_nv_report_json(FILE *f, const struct xp_nv_state *s, const struct xp_run_info *ri)
{
	char name[64];
	struct xp_json j;

	xp_json_begin_run(&j, f, ri);
	xp_json_ku64(&j, "overflow", s->overflow);
	if (s->probed_known)
		xp_json_kbool(&j, "kprobes", !s->no_kprobes);
	if (s->hook_why[0])
		xp_json_kstr(&j, "hooks_passed_over", s->hook_why);
	if (s->hook_note[0])
		xp_json_kstr(&j, "hook_note", s->hook_note);
	if (s->sample > 1) {
		/* "calls" of ioctls are the timed ones; "seen" every call, counted in the kernel */
		xp_json_ku64(&j, "ioctl_sample", s->sample);
		xp_json_ku64(&j, "ioctl_seen", s->ioctl_seen);
	}
	xp_json_key(&j, "functions");
	xp_json_begin_arr(&j);
	for (int i = 0; i < XP_NV_NFN; i++) {
		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "name", xp_nv_funcs[i].name);
		if (s->probed_known)
			xp_json_kbool(&j, "probed", s->probed[i]);
		xp_json_ku64(&j, "calls", s->calls[i]);
		if (i == XP_NV_IOCTL && s->sample > 1)
			xp_json_ku64(&j, "seen", s->ioctl_seen);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	files_json(&j, s);
	xp_json_ku64(&j, "closes_unknown", s->closes_unknown);
	xp_json_key(&j, "ioctls");
	xp_json_begin_arr(&j);
	for (int i = 0; i < s->nescs; i++) {
		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "name", esc_name(s->escs[i].cmd, name, sizeof(name)));
		xp_json_ku64(&j, "cmd", s->escs[i].cmd);
		xp_json_ku64(&j, "calls", s->escs[i].lat.count);
		if (s->sample > 1)
			xp_json_ku64(&j, "seen", s->escs[i].seen);
		xp_json_ku64(&j, "errors", s->escs[i].errors);
		xp_json_khist(&j, "latency_ns", &s->escs[i].lat);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	xp_json_key(&j, "irqs");
	xp_json_begin_arr(&j);
	for (int i = 0; i < s->nirqs; i++) {
		xp_json_begin_obj(&j);
		xp_json_ku64(&j, "irq", s->irqs[i].irq);
		for (int k = 0; k < XP_NV_IRQ_N; k++)
			xp_json_khist(&j, irq_part[k], &s->irqs[i].lat[k]);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	xp_json_key(&j, "p2p");
	xp_json_begin_obj(&j);
	xp_json_ku64(&j, "get_pages", s->calls[XP_NV_P2P_GET]);
	xp_json_ku64(&j, "get_bytes", s->p2p_bytes);
	xp_json_ku64(&j, "put_pages", s->calls[XP_NV_P2P_PUT]);
	xp_json_ku64(&j, "dma_map_pages", s->calls[XP_NV_P2P_DMA_MAP]);
	xp_json_end_obj(&j);
	xp_json_khist(&j, "suspend_ns", &s->suspend);
	xp_json_khist(&j, "resume_ns", &s->resume);
	xids_json(&j, s);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
}

void xp_nv_stream_header(FILE *f)
{
	fprintf(f, "%-12s %-24s %-28s %-14s %-26s %10s\n", "TIME(s)", "PROCESS", "FUNCTION", "DEVICE",
		"DETAIL", "DURATION");
}

static const char *detail(const struct xp_nv_rec *r, char *buf, size_t len)
{
	const struct xp_nv_xid_rec *x = (const void *)r;

	switch (r->fn) {
	case XP_NV_XID:
		snprintf(buf, len, "Xid %u (%.32s): %.128s", r->arg32, x->dev, x->msg);
		return buf;
	case XP_NV_IOCTL:
		return esc_name(r->arg32, buf, len);
	case XP_NV_MMAP:
	case XP_NV_P2P_GET:
		snprintf(buf, len, "%" PRIu64 " bytes", (uint64_t)r->arg64);
		return buf;
	case XP_NV_ISR:
	case XP_NV_ISR_MSIX:
	case XP_NV_ISR_BH:
	case XP_NV_ISR_MSIX_BH:
		snprintf(buf, len, "irq %u", r->arg32);
		return buf;
	default:
		return "";
	}
}

void xp_nv_stream_text(FILE *f, const struct xp_nv_rec *r, uint64_t t0)
{
	char t[32], who[48], dev[32], d[200], dur[16];
	char comm[XP_COMM_LEN + 1];

	memcpy(comm, r->comm, XP_COMM_LEN);
	comm[XP_COMM_LEN] = '\0';
	*xp_put_rel_s(t, r->h.ts_ns, t0) = '\0';
	snprintf(who, sizeof(who), "%s[%u]", comm, r->h.pid);
	fprintf(f, "%12s %-24.24s %-28s %-14s %-26s %10s\n", t, who, xp_nv_fn_name(r->fn),
		xp_nv_minor_name(r->minor, dev, sizeof(dev)), detail(r, d, sizeof(d)),
		r->timed ? xp_fmt_ns(r->dur_ns, dur, sizeof(dur)) : "-");
}

void xp_nv_stream_json(struct xp_json *j, const struct xp_nv_rec *r, uint64_t t0)
{
	char comm[XP_COMM_LEN + 1], dev[32], d[200];

	memcpy(comm, r->comm, XP_COMM_LEN);
	comm[XP_COMM_LEN] = '\0';
	xp_json_begin_obj(j);
	xp_json_ki64(j, "t_ns", xp_rel_ns(r->h.ts_ns, t0));
	xp_json_ku64(j, "pid", r->h.pid);
	xp_json_ku64(j, "tid", r->h.tid);
	xp_json_kstr(j, "comm", comm);
	xp_json_kstr(j, "function", xp_nv_fn_name(r->fn));
	if (r->minor != XP_NV_NO_MINOR)
		xp_json_kstr(j, "device", xp_nv_minor_name(r->minor, dev, sizeof(dev)));
	if (*detail(r, d, sizeof(d)))
		xp_json_kstr(j, "detail", d);
	if (r->timed) {
		xp_json_ku64(j, "duration_ns", r->dur_ns);
		xp_json_ki64(j, "ret", r->ret);
	}
	xp_json_end_obj(j);
}

void xp_perfetto_nvidia(struct xp_perfetto *p, const struct xp_nv_rec *r)
{
	const struct xp_nv_xid_rec *x = (const void *)r;
	char comm[XP_COMM_LEN + 1], name[200], dev[32];
	uint32_t pid = r->h.pid, tid = r->h.tid;
	bool on_thread = r->fn <= XP_NV_FAULT;	/* called in the client's context */

	memcpy(comm, r->comm, XP_COMM_LEN);
	comm[XP_COMM_LEN] = '\0';
	if (r->fn == XP_NV_GPU)
		return;
	if (r->fn == XP_NV_HOLDER) {	/* an instant at the start, on the holder's track */
		xp_perfetto_name(p, pid, tid, comm);
		snprintf(name, sizeof(name), "holds %s (opened before the trace)",
			 xp_nv_minor_name(r->minor, dev, sizeof(dev)));
		xp_perfetto_instant_begin(p, pid, tid, "nvidia", name, r->h.ts_ns);
		xp_json_kstr(&p->j, "device", dev);
		xp_perfetto_slice_end(p);
		return;
	}
	if (r->fn == XP_NV_XID) {
		snprintf(name, sizeof(name), "GPU %.32s", x->dev);
		xp_perfetto_track(p, "NVIDIA", 0xfff0, name, &pid, &tid);
		snprintf(name, sizeof(name), "Xid %u", r->arg32);
		xp_perfetto_instant_begin(p, pid, tid, "nvidia", name, r->h.ts_ns);
		xp_json_kstr(&p->j, "dev", x->dev);
		xp_json_ku64(&p->j, "code", r->arg32);
		xp_json_kstr(&p->j, "msg", x->msg);
		xp_perfetto_slice_end(p);
		return;
	}
	if (on_thread) {
		xp_perfetto_name(p, pid, tid, comm);
	} else if (r->fn >= XP_NV_ISR && r->fn <= XP_NV_ISR_MSIX_BH) {
		snprintf(name, sizeof(name), "nvidia irq %u", r->arg32);
		xp_perfetto_track(p, "NVIDIA", r->arg32, name, &pid, &tid);
	} else {
		xp_perfetto_track(p, "NVIDIA", 0xfff1, "nvidia p2p / power", &pid, &tid);
	}
	if (r->fn == XP_NV_IOCTL)
		esc_name(r->arg32, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%s", xp_nv_fn_name(r->fn));
	if (r->timed)
		xp_perfetto_slice_begin(p, pid, tid, "nvidia", name, r->h.ts_ns, r->dur_ns);
	else
		xp_perfetto_instant_begin(p, pid, tid, "nvidia", name, r->h.ts_ns);
	if (r->minor != XP_NV_NO_MINOR)
		xp_json_kstr(&p->j, "device", xp_nv_minor_name(r->minor, dev, sizeof(dev)));
	if (!on_thread)
		xp_json_kstr(&p->j, "task", comm);
	if (r->fn == XP_NV_MMAP || r->fn == XP_NV_P2P_GET)
		xp_json_ku64(&p->j, "bytes", r->arg64);
	if (r->timed)
		xp_json_ki64(&p->j, "ret", r->ret);
	xp_perfetto_slice_end(p);
}
