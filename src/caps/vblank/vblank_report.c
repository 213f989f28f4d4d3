#include <inttypes.h>
#include <string.h>

#include "sinks/text.h"
#include "caps/vblank/vblank_report.h"
#include "sinks/rows.h"

static const char *who(uint32_t pid, uint64_t file, const char *comm, char *buf, size_t len)
{
	if (!file)
		snprintf(buf, len, "(kernel commit)");
	else if (pid)
		snprintf(buf, len, "%u/%s", pid, comm);
	else
		snprintf(buf, len, "(unknown)");
	return buf;
}

/* "card0", or "?" when the device is not known */
static const char *devname(int32_t dev, char *buf, size_t len)
{
	if (dev < 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "card%d", dev);
	return buf;
}

static bool has_frames(const struct xp_vbl_client *k)
{
	return k->asked || k->completed || k->unseen || ((k->before || k->unsubmitted) && k->kinds & ~XP_VBL_K_WAIT);
}

/* the drm events of the layout present, of the drm ones */
static int drm_present(const struct xp_rawtp_layout *l, int *n)
{
	int p = 0;

	*n = l->n < XP_VBL_NDRM ? l->n : XP_VBL_NDRM;
	for (int i = 0; i < *n; i++)
		p += l->present[i];
	return p;
}

static bool probes_ran(const struct xp_rawtp_layout *l)
{
	return l->n > XP_VBL_SUBMIT && l->present[XP_VBL_SUBMIT];
}

/* The rows: per CRTC; per client (a DRM file on a CRTC); the frames a client asked for. */
static void client_who(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_vbl_client *k = row;

	(void)ctx;
	v->s = who(k->pid, k->file, k->comm, v->buf, sizeof(v->buf));
}

static void client_pid(const void *row, const void *ctx, struct xp_val *v)
{
	(void)ctx;
	v->u = ((const struct xp_vbl_client *)row)->pid;
	v->none = !v->u;
}

static void client_comm(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_vbl_client *k = row;

	(void)ctx;
	v->s = k->comm;
	v->none = !k->pid;
}

/* Who a client is when no process asked: the kernel's own commit, or only interrupts' events. */
static void client_attribution(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_vbl_client *k = row;

	(void)ctx;
	v->none = k->pid != 0;
	v->s = !k->file ? "none: completion events of atomic commits that no DRM file asked for"
			: "none: only events from the vblank interrupt (page flip, atomic or CRTC-sequence "
			  "events) reached this file";
}

#define CL(m) XP_FIELD(struct xp_vbl_client, m)
static const struct xp_col client_cols[] = {
	{ XP_TEXT("PROCESS", -22, XP_COL_STR), .flags = XP_COL_CUT, .get = client_who },
	{ XP_JSON("pid", XP_COL_INT), .get = client_pid },
	{ XP_JSON("comm", XP_COL_STR), .flags = XP_COL_OMIT, .get = client_comm },
	{ XP_JSON("attribution", XP_COL_STR), .flags = XP_COL_OMIT, .get = client_attribution },
	{ XP_JSON("file", XP_COL_INT), CL(file) },
	{ XP_BOTH("CRTC", -5, "crtc", XP_COL_SINT), CL(crtc) },
	{ XP_BOTH("REQUESTS", 8, "requests", XP_COL_INT), CL(queued) },
	{ XP_BOTH("DELIVERED", 9, "delivered", XP_COL_INT), CL(delivered) },
	{ XP_JSON("delivered_unrequested", XP_COL_INT), CL(unqueued) },
	{ XP_BOTH("MISSFRM", 7, "missed_frames", XP_COL_INT), CL(missed_frames) },
	{ XP_BOTH("LATE", 6, "late", XP_COL_INT), CL(late) },
	{ XP_JSON("late_frames", XP_COL_INT), CL(late_frames) },
	{ XP_BOTH("LATENCY p50/p99/max", -26, "latency_ns", XP_COL_HIST), CL(latency), .stat = XP_HIST_P50_P99_MAX },
	{ XP_BOTH("LATENESS p50/p99", -20, "lateness_ns", XP_COL_HIST), CL(lateness), .stat = XP_HIST_P50_P99 },
	{ XP_BOTH("FRAME p50/p99", -14, "frame_ns", XP_COL_HIST), CL(frame), .stat = XP_HIST_P50_P99 },
};

static const struct xp_rows client_rows = { XP_ROWS(client_cols) };

static void client_dev(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_vbl_client *k = row;

	(void)ctx;
	v->i = k->dev;
	v->none = k->dev < 0;
}

static void client_devname(const void *row, const void *ctx, struct xp_val *v)
{
	(void)ctx;
	v->s = devname(((const struct xp_vbl_client *)row)->dev, v->buf, sizeof(v->buf));
}

static void client_crtc(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_vbl_client *k = row;

	(void)ctx;
	snprintf(v->buf, sizeof(v->buf), k->crtc < 0 ? "?" : "%d", k->crtc);
	v->s = v->buf;
}

static void client_kind(const void *row, const void *ctx, struct xp_val *v)
{
	(void)ctx;
	v->s = xp_vbl_kind_name(((const struct xp_vbl_client *)row)->kinds & ~(unsigned int)XP_VBL_K_WAIT, v->buf,
				sizeof(v->buf));
}

static void client_rate(const void *row, const void *ctx, struct xp_val *v)
{
	(void)ctx;
	v->u = xp_vbl_present_mhz(row);
	v->none = !v->u;
}

static void client_hz(const void *row, const void *ctx, struct xp_val *v)
{
	(void)ctx;
	v->u = xp_vbl_present_mhz(row);
}

static const struct xp_col frame_cols[] = {
	{ XP_TEXT("PROCESS", -22, XP_COL_STR), .flags = XP_COL_CUT, .get = client_who },
	{ XP_JSON("device", XP_COL_SINT), .flags = XP_COL_OMIT, .get = client_dev },
	{ XP_BOTH("TID", -8, "tid", XP_COL_INT), CL(tid) },
	{ XP_TEXT("DEVICE", -7, XP_COL_STR), .get = client_devname },
	{ XP_TEXT("CRTC", -4, XP_COL_STR), .get = client_crtc },
	{ XP_BOTH("KIND", -11, "kind", XP_COL_STR), .get = client_kind },
	{ XP_BOTH("ASKED", 6, "asked", XP_COL_INT), CL(asked) },
	{ XP_BOTH("DONE", 6, "completed", XP_COL_INT), CL(completed) },
	{ XP_BOTH("MISSED", 6, "missed_target", XP_COL_INT), CL(missed_target) },
	{ XP_JSON("target_unknown", XP_COL_INT), CL(target_unknown) },
	{ XP_JSON("before_tracing", XP_COL_INT), CL(before) },
	{ XP_JSON("submit_unseen", XP_COL_INT), CL(unsubmitted) },
	{ XP_JSON("completion_unseen", XP_COL_INT), CL(unseen) },
	{ XP_BOTH("SCANOUT p50/p99", -19, "scanout_ns", XP_COL_HIST), CL(scanout), .stat = XP_HIST_P50_P99 },
	{ XP_TEXT("VBL->DELIV p50/p99", -19, XP_COL_HIST), CL(lateness), .stat = XP_HIST_P50_P99 },
	{ XP_BOTH("INTERVAL p50/p99", -19, "frame_interval_ns", XP_COL_HIST), CL(interval),
	  .stat = XP_HIST_P50_P99 },
	{ XP_TEXT("RATE_HZ", 9, XP_COL_MILLI), .get = client_rate },
	{ XP_JSON("present_hz", XP_COL_MILLI), .get = client_hz },
};

static const struct xp_rows frame_rows = { XP_ROWS(frame_cols) };

static void crtc_devname(const void *row, const void *ctx, struct xp_val *v)
{
	(void)ctx;
	v->s = devname(((const struct xp_vbl_crtc *)row)->dev, v->buf, sizeof(v->buf));
}

static void crtc_dev(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_vbl_crtc *k = row;

	(void)ctx;
	v->i = k->dev;
	v->none = k->dev < 0;
}

/* The first and last sequence numbers, where it had vblanks. */
static void crtc_first(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_vbl_crtc *k = row;

	(void)ctx;
	v->u = k->first_seq;
	v->none = !k->vblanks;
}

static void crtc_last(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_vbl_crtc *k = row;

	(void)ctx;
	v->u = k->last_seq_seen;
	v->none = !k->vblanks;
}

static void crtc_refresh(const void *row, const void *ctx, struct xp_val *v)
{
	(void)ctx;
	v->u = xp_vbl_refresh_mhz(row);
}

/* The period: "-" in text where the refresh is not known. */
static void crtc_period_text(const void *row, const void *ctx, struct xp_val *v)
{
	(void)ctx;
	v->u = xp_vbl_period_ns(row);
	v->none = !xp_vbl_refresh_mhz(row);
}

static void crtc_period(const void *row, const void *ctx, struct xp_val *v)
{
	(void)ctx;
	v->u = xp_vbl_period_ns(row);
}

static void crtc_stddev_text(const void *row, const void *ctx, struct xp_val *v)
{
	const struct xp_vbl_crtc *k = row;

	(void)ctx;
	v->none = k->n1 <= 1;
	v->u = v->none ? 0 : (uint64_t)(xp_vbl_interval_stddev_ns(k) + 0.5);
}

static void crtc_stddev(const void *row, const void *ctx, struct xp_val *v)
{
	(void)ctx;
	v->d = xp_vbl_interval_stddev_ns(row);
}

#define CR(m) XP_FIELD(struct xp_vbl_crtc, m)
static const struct xp_col crtc_cols[] = {
	{ XP_TEXT("DEVICE", -7, XP_COL_STR), .get = crtc_devname },
	{ XP_JSON("device", XP_COL_SINT), .flags = XP_COL_OMIT, .get = crtc_dev },
	{ XP_BOTH("CRTC", -5, "crtc", XP_COL_SINT), CR(crtc) },
	{ XP_BOTH("VBLANKS", 8, "vblanks", XP_COL_INT), CR(vblanks) },
	{ XP_JSON("first_seq", XP_COL_INT), .flags = XP_COL_OMIT, .get = crtc_first },
	{ XP_JSON("last_seq", XP_COL_INT), .flags = XP_COL_OMIT, .get = crtc_last },
	{ XP_BOTH("REFRESH_HZ", 11, "refresh_hz", XP_COL_MILLI), .get = crtc_refresh },
	{ XP_TEXT("PERIOD", 10, XP_COL_NS), .get = crtc_period_text },
	{ XP_JSON("period_ns", XP_COL_INT), .get = crtc_period },
	{ XP_TEXT("STDDEV", 9, XP_COL_NS), .get = crtc_stddev_text },
	{ XP_JSON("interval_stddev_ns", XP_COL_DOUBLE), .get = crtc_stddev },
	{ XP_TEXT("P99", 9, XP_COL_HIST), CR(interval), .stat = XP_HIST_P99 },
	{ XP_TEXT("MAX", 9, XP_COL_HIST), CR(interval), .stat = XP_HIST_MAX },
	{ XP_BOTH("MISSED", 7, "missed", XP_COL_INT), CR(missed) },
	{ XP_BOTH("IDLE", 6, "idle_gaps", XP_COL_INT), CR(idle_gaps) },
	{ XP_JSON("out_of_order", XP_COL_INT), CR(backwards) },
	{ XP_BOTH("REQUESTS", 9, "requests", XP_COL_INT), CR(queued) },
	{ XP_BOTH("DELIVERED", 9, "delivered", XP_COL_INT), CR(delivered) },
	{ XP_JSON("delivered_unrequested", XP_COL_INT), CR(unqueued) },
	{ XP_BOTH("MISSFRM", 7, "missed_frames", XP_COL_INT), CR(missed_frames) },
	{ XP_BOTH("LATE", 6, "late", XP_COL_INT), CR(late) },
	{ XP_JSON("late_frames", XP_COL_INT), CR(late_frames) },
	{ XP_JSON("interval_ns", XP_COL_HIST), CR(interval) },
	{ XP_JSON("latency_ns", XP_COL_HIST), CR(latency) },
	{ XP_JSON("lateness_ns", XP_COL_HIST), CR(lateness) },
};

/* Without known devices, the table starts at CRTC. */
static const struct xp_rows crtc_rows = { XP_ROWS(crtc_cols) };
static const struct xp_rows crtc_rows_nodev = { .cols = crtc_cols + 1, .n = XP_NCOLS(crtc_cols) - 1 };

static bool client_shown(const void *row)
{
	const struct xp_vbl_client *k = row;

	return k->queued || k->delivered;
}

static void frames_text(FILE *f, const struct xp_tp_report *r)
{
	const struct xp_vbl_state *s = r->st;
	char w[48];
	bool any = false;

	for (int i = 0; i < s->nclients; i++)
		any |= has_frames(&s->clients[i]);
	if (!any)
		return;
	fprintf(f, "\nframes (page flips, atomic commits, CRTC sequences), per process and CRTC:\n");
	xp_rows_head(f, &frame_rows, r);
	for (int i = 0; i < s->nclients; i++)
		if (has_frames(&s->clients[i]))
			xp_rows_text(f, &frame_rows, &s->clients[i], r);
	for (int i = 0; i < s->nclients; i++) {
		const struct xp_vbl_client *k = &s->clients[i];

		if (!has_frames(k) || !(k->before || k->unsubmitted || k->unseen))
			continue;
		fprintf(f, "%s CRTC %d: %" PRIu64 " completed that were queued before tracing, %" PRIu64
			   " completed whose submit was not seen, %" PRIu64 " asked whose completion was not "
			   "seen (none of them in ASKED, DONE)\n",
			who(k->pid, k->file, k->comm, w, sizeof(w)), k->crtc, k->before, k->unsubmitted, k->unseen);
	}
	fprintf(f, "MISSED: frames completed one or more vblanks after the first vblank following their "
		   "submit; SCANOUT: submit (the ioctl) -> the vblank it completed on\n");
	if (!r->hist)
		return;
	for (int i = 0; i < s->nclients; i++) {
		const struct xp_vbl_client *k = &s->clients[i];

		if (!has_frames(k))
			continue;
		who(k->pid, k->file, k->comm, w, sizeof(w));
		if (k->scanout.count) {
			fprintf(f, "\n%s CRTC %d submit -> scanout:\n", w, k->crtc);
			xp_print_log2_hist(f, &k->scanout, 2);
		}
		if (k->lateness.count) {
			fprintf(f, "\n%s CRTC %d vblank -> delivered:\n", w, k->crtc);
			xp_print_log2_hist(f, &k->lateness, 2);
		}
		if (k->interval.count) {
			fprintf(f, "\n%s CRTC %d frame interval:\n", w, k->crtc);
			xp_print_log2_hist(f, &k->interval, 2);
		}
	}
}

/* Per process: requests, deliveries, latency, lateness and frame times */
static void clients_text(FILE *f, const struct xp_vbl_state *s)
{
	if (s->nclients) {
		fputc('\n', f);
		xp_rows_head(f, &client_rows, s);
		for (int i = 0; i < s->nclients; i++)
			if (client_shown(&s->clients[i]))
				xp_rows_text(f, &client_rows, &s->clients[i], s);
		for (int i = 0; i < s->nclients; i++)
			if (!s->clients[i].file && s->clients[i].delivered) {
				fprintf(f, "(kernel commit): completion events of atomic commits that no file "
					   "asked for (a legacy mode set, fbdev), sent to no process\n");
				break;
			}
		for (int i = 0; i < s->nclients; i++)
			if (!s->clients[i].pid && s->clients[i].file && s->clients[i].delivered) {
				fprintf(f, "(unknown): events delivered to a DRM file that queued no wait-vblank "
					   "request while tracing (page flips, atomic or CRTC-sequence events); "
					   "they fire in the vblank interrupt, which names no process\n");
				break;
			}
	}
}

void xp_vbl_report_text(FILE *f, const struct xp_tp_report *r)
{
	const struct xp_vbl_state *s = r->st;
	char a[16];
	int ndrm, pdrm = drm_present(r->layout, &ndrm);
	bool devs = false;

	if (r->ri->interval)
		fprintf(f, "--- interval %" PRIu64 " ---\n", r->ri->interval);
	fprintf(f, "%s: %.1f s, %d of %d drm vblank events, %d CRTC%s, %d client%s, late over %s, ",
		r->ri->command, r->ri->duration_s, pdrm, ndrm, s->ncrtcs,
		s->ncrtcs == 1 ? "" : "s", s->nclients, s->nclients == 1 ? "" : "s",
		xp_fmt_ns(s->late_ns, a, sizeof(a)));
	xp_print_drops(f, r->ri);
	for (int i = 0; i < ndrm; i++)
		if (!r->layout->present[i])
			fprintf(f, "note: this kernel has no drm/%s event\n", r->layout->ev[i].name);
	if (probes_ran(r->layout) && s->before_frames)
		fprintf(f, "note: %" PRIu64 " events delivered that were queued before tracing began\n",
			s->before_frames);
	if (probes_ran(r->layout) && s->unmatched_frames)
		fprintf(f, "note: %" PRIu64 " events delivered whose request or submit was not seen "
			   "(a skipped or dropped event)\n", s->unmatched_frames);
	if (probes_ran(r->layout) && s->unseen_frames)
		fprintf(f, "note: %" PRIu64 " frames asked whose completion was not seen (a skipped or dropped "
			   "event): a later frame on their CRTC completed first\n", s->unseen_frames);
	if (probes_ran(r->layout) && s->devices_guessed)
		fprintf(f, "note: %" PRIu64 " vblanks without their drm_handle_vblank probe (skipped in the "
			   "interrupt) were given the device by their sequence number\n", s->devices_guessed);
	if (s->overflow)
		fprintf(f, "note: %" PRIu64 " events past the tracked CRTCs/clients/requests\n", s->overflow);
	if (s->proc_filter)
		fprintf(f, "process filter: %" PRIu64 " deliveries to files the chosen processes did not queue on "
			   "left out\n", s->filtered);
	if (!s->ncrtcs) {
		fprintf(f, "no vblank events\n");
		return;
	}
	for (int i = 0; i < s->ncrtcs; i++)
		devs |= s->crtcs[i].dev >= 0;
	fprintf(f, "\n");
	xp_rows_head(f, devs ? &crtc_rows : &crtc_rows_nodev, r);
	for (int i = 0; i < s->ncrtcs; i++)
		xp_rows_text(f, devs ? &crtc_rows : &crtc_rows_nodev, &s->crtcs[i], r);
	clients_text(f, s);
	frames_text(f, r);
	if (s->unknown_lateness)
		fprintf(f, "lateness unknown for %" PRIu64 " deliveries (their vblank was not seen)\n",
			s->unknown_lateness);
	if (!r->hist)
		return;
	for (int i = 0; i < s->ncrtcs; i++) {
		const struct xp_vbl_crtc *k = &s->crtcs[i];

		if (k->interval.count) {
			fprintf(f, "\nCRTC %d vblank interval:\n", k->crtc);
			xp_print_log2_hist(f, &k->interval, 2);
		}
		if (k->latency.count) {
			fprintf(f, "\nCRTC %d queued -> delivered:\n", k->crtc);
			xp_print_log2_hist(f, &k->latency, 2);
		}
		if (k->lateness.count) {
			fprintf(f, "\nCRTC %d vblank -> delivered (lateness):\n", k->crtc);
			xp_print_log2_hist(f, &k->lateness, 2);
		}
	}
}

/* Per process (file and CRTC): requests, deliveries and the frames asked */
static void clients_json(struct xp_json *j, const struct xp_vbl_state *s)
{
	xp_json_key(j, "clients");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->nclients; i++) {
		const struct xp_vbl_client *k = &s->clients[i];

		if (!client_shown(k))
			continue;
		xp_json_begin_obj(j);
		xp_rows_json(j, &client_rows, k, s);
		if (has_frames(k))
			xp_rows_json(j, &frame_rows, k, s);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
}

void xp_vbl_report_json(FILE *f, const struct xp_tp_report *r)
{
	const struct xp_vbl_state *s = r->st;
	struct xp_json j;

	xp_json_begin_run(&j, f, r->ri);
	xp_json_ku64(&j, "late_ns", s->late_ns);
	xp_json_kevents(&j, "events", r->layout, XP_VBL_NDRM);
	if (probes_ran(r->layout)) {
		/* who asked for each event, and each vblank's device, from the probes */
		xp_json_kbool(&j, "attributed", true);
		xp_json_ku64(&j, "submits", s->submits);
		xp_json_ku64(&j, "delivered_unmatched", s->unmatched_frames);
		xp_json_ku64(&j, "delivered_before_tracing", s->before_frames);
		xp_json_ku64(&j, "frames_completion_unseen", s->unseen_frames);
		xp_json_ku64(&j, "frames_asked_after_last_vblank", s->asked_after_end);
		xp_json_ku64(&j, "vblank_device_by_sequence", s->devices_guessed);
	}
	xp_json_ku64(&j, "overflow", s->overflow);
	if (s->proc_filter)
		xp_json_ku64(&j, "filtered_deliveries", s->filtered);
	xp_json_ku64(&j, "lateness_unknown", s->unknown_lateness);
	xp_rows_json_arr(&j, "crtcs", &crtc_rows, s->crtcs, s->ncrtcs, sizeof(s->crtcs[0]), r, NULL);
	clients_json(&j, s);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
}

void xp_vbl_stream_header(FILE *f)
{
	fprintf(f, "%-12s %-22s %-5s %9s %9s %10s %10s %6s %s\n", "TIME(s)", "PROCESS", "CRTC", "SEQ",
		"REQ_SEQ", "LATENCY", "LATENESS", "MISSED", "");
}

void xp_vbl_stream_text(FILE *f, const struct xp_vbl_delivery *d, uint64_t t0)
{
	char a[16], b[16], w[48], t[32], fr[96] = "", k[32], c[16];

	*xp_put_rel_s(t, d->ts, t0) = '\0';	/* before t0: negative, never wrapped */
	if (d->frame) {
		int n = snprintf(fr, sizeof(fr), " %s", xp_vbl_kind_name(d->kind, k, sizeof(k)));

		if (d->has_lateness)
			n += snprintf(fr + n, sizeof(fr) - (size_t)n, " scanout=%s",
				      xp_fmt_ns(d->vblank_ns >= d->submit_ns ? d->vblank_ns - d->submit_ns : 0,
						c, sizeof(c)));
		if (d->has_target)
			snprintf(fr + n, sizeof(fr) - (size_t)n, " missed=%u", d->missed_target);
	}
	fprintf(f, "%12s %-22.22s %-5d %9u %9u %10s %10s %6u %s%s\n",
		t, who(d->pid, d->file, d->comm, w, sizeof(w)), d->crtc,
		d->seq, d->req_seq, d->queued ? xp_fmt_ns(d->latency_ns, a, sizeof(a)) : "-",
		d->has_lateness ? xp_fmt_ns(d->lateness_ns, b, sizeof(b)) : "?", d->missed_before,
		d->late ? "LATE" : "", fr);
}

void xp_vbl_stream_json(struct xp_json *j, const struct xp_vbl_delivery *d, uint64_t t0)
{
	xp_json_begin_obj(j);
	xp_json_ki64(j, "t_ns", xp_rel_ns(d->ts, t0));
	if (d->pid) {
		xp_json_ku64(j, "pid", d->pid);
		xp_json_kstr(j, "comm", d->comm);
	}
	xp_json_ku64(j, "file", d->file);
	xp_json_ki64(j, "crtc", d->crtc);
	xp_json_ku64(j, "seq", d->seq);
	xp_json_ku64(j, "req_seq", d->req_seq);
	xp_json_kbool(j, "requested", d->queued);
	if (d->queued)
		xp_json_ku64(j, "latency_ns", d->latency_ns);
	if (d->has_lateness)
		xp_json_ku64(j, "lateness_ns", d->lateness_ns);
	xp_json_ku64(j, "missed_before", d->missed_before);
	xp_json_kbool(j, "late", d->late);
	if (d->frame) {
		char k[32];

		if (d->tid)
			xp_json_ku64(j, "tid", d->tid);
		if (d->dev >= 0)
			xp_json_ki64(j, "device", d->dev);
		xp_json_kstr(j, "kind", xp_vbl_kind_name(d->kind, k, sizeof(k)));
		xp_json_ki64(j, "submit_ns", xp_rel_ns(d->submit_ns, t0));
		if (d->has_lateness) {
			xp_json_ki64(j, "vblank_ns", xp_rel_ns(d->vblank_ns, t0));
			xp_json_ku64(j, "scanout_ns", d->vblank_ns >= d->submit_ns ? d->vblank_ns - d->submit_ns : 0);
		}
		if (d->has_target)
			xp_json_ku64(j, "missed_target", d->missed_target);
	}
	xp_json_end_obj(j);
	xp_json_finish(j);
}
