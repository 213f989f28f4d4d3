#include <inttypes.h>
#include <string.h>

#include "sinks/text.h"
#include "caps/vblank/vblank_report.h"
#include "sinks/perfetto.h"

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

static void frames_text(FILE *f, const struct xp_vbl_report *r)
{
	const struct xp_vbl_state *s = r->st;
	char a[16], b[16], w[48], dv[16], kd[32], sc[40], vd[40], in[40];
	bool any = false;

	for (int i = 0; i < s->nclients; i++)
		any |= has_frames(&s->clients[i]);
	if (!any)
		return;
	fprintf(f, "\nframes (page flips, atomic commits, CRTC sequences), per process and CRTC:\n");
	fprintf(f, "%-22s %-8s %-7s %-4s %-11s %6s %6s %6s %-19s %-19s %-19s %9s\n", "PROCESS", "TID",
		"DEVICE", "CRTC", "KIND", "ASKED", "DONE", "MISSED", "SCANOUT p50/p99", "VBL->DELIV p50/p99",
		"INTERVAL p50/p99", "RATE_HZ");
	for (int i = 0; i < s->nclients; i++) {
		const struct xp_vbl_client *k = &s->clients[i];
		uint64_t mhz = xp_vbl_present_mhz(k);
		char crtc[8], rate[24];

		if (!has_frames(k))
			continue;
		snprintf(crtc, sizeof(crtc), k->crtc < 0 ? "?" : "%d", k->crtc);
		snprintf(sc, sizeof(sc), "%s/%s", xp_fmt_pct(&k->scanout, 50, a, sizeof(a)), xp_fmt_pct(&k->scanout, 99, b, sizeof(b)));
		snprintf(vd, sizeof(vd), "%s/%s", xp_fmt_pct(&k->lateness, 50, a, sizeof(a)), xp_fmt_pct(&k->lateness, 99, b, sizeof(b)));
		snprintf(in, sizeof(in), "%s/%s", xp_fmt_pct(&k->interval, 50, a, sizeof(a)), xp_fmt_pct(&k->interval, 99, b, sizeof(b)));
		if (mhz)
			snprintf(rate, sizeof(rate), "%" PRIu64 ".%03" PRIu64, mhz / 1000, mhz % 1000);
		else
			snprintf(rate, sizeof(rate), "-");
		fprintf(f, "%-22.22s %-8u %-7s %-4s %-11s %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %-19s %-19s %-19s %9s\n",
			who(k->pid, k->file, k->comm, w, sizeof(w)), k->tid, devname(k->dev, dv, sizeof(dv)), crtc,
			xp_vbl_kind_name(k->kinds & ~(unsigned int)XP_VBL_K_WAIT, kd, sizeof(kd)), k->asked,
			k->completed, k->missed_target, sc, vd, in, rate);
	}
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
	char a[16], b[16], c[16], d[16], w[48];

	if (s->nclients) {
		fprintf(f, "\n%-22s %-5s %8s %9s %7s %6s %-26s %-20s %-14s\n", "PROCESS", "CRTC", "REQUESTS",
			"DELIVERED", "MISSFRM", "LATE", "LATENCY p50/p99/max", "LATENESS p50/p99",
			"FRAME p50/p99");
		for (int i = 0; i < s->nclients; i++) {
			const struct xp_vbl_client *k = &s->clients[i];
			char lat[48], lt[40], fr[40], e[16], g[16];

			if (!k->queued && !k->delivered)
				continue;
			snprintf(lat, sizeof(lat), "%s/%s/%s", xp_fmt_pct(&k->latency, 50, a, sizeof(a)),
				 xp_fmt_pct(&k->latency, 99, b, sizeof(b)),
				 k->latency.count ? xp_fmt_ns(k->latency.max, c, sizeof(c)) : "-");
			snprintf(lt, sizeof(lt), "%s/%s", xp_fmt_pct(&k->lateness, 50, d, sizeof(d)),
				 xp_fmt_pct(&k->lateness, 99, e, sizeof(e)));
			snprintf(fr, sizeof(fr), "%s/%s", xp_fmt_pct(&k->frame, 50, g, sizeof(g)),
				 xp_fmt_pct(&k->frame, 99, a, sizeof(a)));
			fprintf(f, "%-22.22s %-5d %8" PRIu64 " %9" PRIu64 " %7" PRIu64 " %6" PRIu64 " %-26s %-20s %-14s\n",
				who(k->pid, k->file, k->comm, w, sizeof(w)), k->crtc, k->queued, k->delivered,
				k->missed_frames, k->late, lat, lt, fr);
		}
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

void xp_vbl_report_text(FILE *f, const struct xp_vbl_report *r)
{
	const struct xp_vbl_state *s = r->st;
	char a[16], b[16], c[16], d[16], dv[16];
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
	if (devs)
		fprintf(f, "%-7s ", "DEVICE");
	fprintf(f, "%-5s %8s %11s %10s %9s %9s %9s %7s %6s %9s %9s %7s %6s\n", "CRTC", "VBLANKS",
		"REFRESH_HZ", "PERIOD", "STDDEV", "P99", "MAX", "MISSED", "IDLE", "REQUESTS",
		"DELIVERED", "MISSFRM", "LATE");
	for (int i = 0; i < s->ncrtcs; i++) {
		const struct xp_vbl_crtc *k = &s->crtcs[i];
		uint64_t mhz = xp_vbl_refresh_mhz(k);

		if (devs)
			fprintf(f, "%-7s ", devname(k->dev, dv, sizeof(dv)));
		fprintf(f, "%-5d %8" PRIu64 " %7" PRIu64 ".%03" PRIu64 " %10s %9s %9s %9s %7" PRIu64
			   " %6" PRIu64 " %9" PRIu64 " %9" PRIu64 " %7" PRIu64 " %6" PRIu64 "\n",
			k->crtc, k->vblanks, mhz / 1000, mhz % 1000,
			mhz ? xp_fmt_ns(xp_vbl_period_ns(k), a, sizeof(a)) : "-",
			k->n1 > 1 ? xp_fmt_ns((uint64_t)(xp_vbl_interval_stddev_ns(k) + 0.5), b, sizeof(b)) : "-",
			xp_fmt_pct(&k->interval, 99, c, sizeof(c)),
			k->interval.count ? xp_fmt_ns(k->interval.max, d, sizeof(d)) : "-",
			k->missed, k->idle_gaps, k->queued, k->delivered, k->missed_frames, k->late);
	}
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

/* Per CRTC: vblanks, refresh, requests and deliveries */
static void crtcs_json(struct xp_json *j, const struct xp_vbl_state *s)
{
	xp_json_key(j, "crtcs");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->ncrtcs; i++) {
		const struct xp_vbl_crtc *k = &s->crtcs[i];

		xp_json_begin_obj(j);
		if (k->dev >= 0)
			xp_json_ki64(j, "device", k->dev);
		xp_json_ki64(j, "crtc", k->crtc);
		xp_json_ku64(j, "vblanks", k->vblanks);
		if (k->vblanks) {
			xp_json_ku64(j, "first_seq", k->first_seq);
			xp_json_ku64(j, "last_seq", k->last_seq_seen);
		}
		xp_json_key(j, "refresh_hz");
		xp_json_fixed(j, xp_vbl_refresh_mhz(k), 3);
		xp_json_ku64(j, "period_ns", xp_vbl_period_ns(k));
		xp_json_kdouble(j, "interval_stddev_ns", xp_vbl_interval_stddev_ns(k));
		xp_json_ku64(j, "missed", k->missed);
		xp_json_ku64(j, "idle_gaps", k->idle_gaps);
		xp_json_ku64(j, "out_of_order", k->backwards);
		xp_json_ku64(j, "requests", k->queued);
		xp_json_ku64(j, "delivered", k->delivered);
		xp_json_ku64(j, "delivered_unrequested", k->unqueued);
		xp_json_ku64(j, "missed_frames", k->missed_frames);
		xp_json_ku64(j, "late", k->late);
		xp_json_ku64(j, "late_frames", k->late_frames);
		xp_json_khist(j, "interval_ns", &k->interval);
		xp_json_khist(j, "latency_ns", &k->latency);
		xp_json_khist(j, "lateness_ns", &k->lateness);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
}

/* Per process (file and CRTC): requests, deliveries and the frames asked */
static void clients_json(struct xp_json *j, const struct xp_vbl_state *s)
{
	xp_json_key(j, "clients");
	xp_json_begin_arr(j);
	for (int i = 0; i < s->nclients; i++) {
		const struct xp_vbl_client *k = &s->clients[i];

		if (!k->queued && !k->delivered)
			continue;
		xp_json_begin_obj(j);
		if (k->pid) {
			xp_json_ku64(j, "pid", k->pid);
			xp_json_kstr(j, "comm", k->comm);
		} else if (!k->file) {
			xp_json_key(j, "pid");
			xp_json_null(j);
			xp_json_kstr(j, "attribution", "none: completion events of atomic commits "
							 "that no DRM file asked for");
		} else {
			xp_json_key(j, "pid");
			xp_json_null(j);
			xp_json_kstr(j, "attribution", "none: only events from the vblank interrupt "
							 "(page flip, atomic or CRTC-sequence events) reached this file");
		}
		xp_json_ku64(j, "file", k->file);
		xp_json_ki64(j, "crtc", k->crtc);
		xp_json_ku64(j, "requests", k->queued);
		xp_json_ku64(j, "delivered", k->delivered);
		xp_json_ku64(j, "delivered_unrequested", k->unqueued);
		xp_json_ku64(j, "missed_frames", k->missed_frames);
		xp_json_ku64(j, "late", k->late);
		xp_json_ku64(j, "late_frames", k->late_frames);
		xp_json_khist(j, "latency_ns", &k->latency);
		xp_json_khist(j, "lateness_ns", &k->lateness);
		xp_json_khist(j, "frame_ns", &k->frame);
		if (has_frames(k)) {
			char kd[32];

			if (k->dev >= 0)
				xp_json_ki64(j, "device", k->dev);
			xp_json_ku64(j, "tid", k->tid);
			xp_json_kstr(j, "kind", xp_vbl_kind_name(k->kinds & ~(unsigned int)XP_VBL_K_WAIT, kd, sizeof(kd)));
			xp_json_ku64(j, "asked", k->asked);
			xp_json_ku64(j, "completed", k->completed);
			xp_json_ku64(j, "missed_target", k->missed_target);
			xp_json_ku64(j, "target_unknown", k->target_unknown);
			xp_json_ku64(j, "before_tracing", k->before);
			xp_json_ku64(j, "submit_unseen", k->unsubmitted);
			xp_json_ku64(j, "completion_unseen", k->unseen);
			xp_json_khist(j, "scanout_ns", &k->scanout);
			xp_json_khist(j, "frame_interval_ns", &k->interval);
			xp_json_key(j, "present_hz");
			xp_json_fixed(j, xp_vbl_present_mhz(k), 3);
		}
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
}

void xp_vbl_report_json(FILE *f, const struct xp_vbl_report *r)
{
	const struct xp_vbl_state *s = r->st;
	struct xp_json j;

	xp_json_init(&j, f, false);
	xp_json_begin_obj(&j);
	xp_json_run_info(&j, r->ri);
	xp_json_ku64(&j, "late_ns", s->late_ns);
	xp_json_key(&j, "events");
	xp_json_begin_obj(&j);
	for (int i = 0; i < r->layout->n && i < XP_VBL_NDRM; i++)
		xp_json_kbool(&j, r->layout->ev[i].name, r->layout->present[i]);
	xp_json_end_obj(&j);
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
	crtcs_json(&j, s);
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

/* Its Perfetto events (src/sinks/perfetto.h). */
/* A CRTC's track: "CRTC 0", or "card0 CRTC 0" where the device is known. */
static void crtc_track(struct xp_perfetto *p, int32_t dev, int32_t crtc, uint32_t *pid, uint32_t *tid)
{
	uint32_t id = crtc >= 0 && crtc < 0xff ? (uint32_t)crtc : 0xff;
	char track[48];

	if (dev >= 0) {
		snprintf(track, sizeof(track), "card%d CRTC %d", dev, crtc);
		xp_perfetto_track(p, "Displays", 0x10000u + ((uint32_t)dev & 0xfff) * 256 + id, track, pid, tid);
	} else {
		snprintf(track, sizeof(track), "CRTC %d", crtc);
		xp_perfetto_track(p, "Displays", crtc >= 0 && crtc < 0xffff ? (uint32_t)crtc : 0xffff,
				  track, pid, tid);
	}
}

void xp_perfetto_vblank(struct xp_perfetto *p, const struct xp_vbl_event *ev)
{
	static const char *const what[] = { "vblank", "requested", "delivered" };
	uint32_t pid, tid;

	if (ev->kind > XP_VBL_DELIVERED)	/* the probes' records: drawn as frames */
		return;
	crtc_track(p, ev->dev, ev->crtc, &pid, &tid);
	/* a vblank at its own timestamp; requests and deliveries when they happened */
	xp_perfetto_instant_begin(p, pid, tid, "vblank", what[ev->kind],
				  ev->kind == XP_VBL_EVENT && ev->vtime ? ev->vtime : ev->ts);
	xp_json_ku64(&p->j, "seq", ev->seq);
	if (ev->kind != XP_VBL_EVENT) {
		xp_json_ku64(&p->j, "pid", ev->pid);
		xp_json_kstr(&p->j, "comm", ev->comm);
	}
	xp_perfetto_slice_end(p);
}

void xp_perfetto_vblank_frame(struct xp_perfetto *p, const struct xp_vbl_delivery *d)
{
	char kind[32], comm[XP_COMM_LEN];
	uint32_t cpid, ctid, tid = d->tid ? d->tid : d->pid;
	uint64_t id = ++p->next_id, end = d->ts > d->submit_ns ? d->ts : d->submit_ns;

	if (!d->frame || !d->pid)
		return;
	memcpy(comm, d->comm, sizeof(comm));
	comm[XP_COMM_LEN - 1] = '\0';
	xp_perfetto_name(p, d->pid, tid, comm);
	xp_vbl_kind_name(d->kind, kind, sizeof(kind));
	/* the frame on the asking thread: submit -> scanout -> delivered */
	xp_perfetto_slice_begin(p, d->pid, tid, "frame", "frame", d->submit_ns, end - d->submit_ns);
	xp_json_kstr(&p->j, "kind", kind);
	if (d->dev >= 0)
		xp_json_ki64(&p->j, "device", d->dev);
	xp_json_ki64(&p->j, "crtc", d->crtc);
	xp_json_ku64(&p->j, "seq", d->seq);
	if (d->has_lateness && d->vblank_ns >= d->submit_ns)
		xp_json_ku64(&p->j, "scanout_ns", d->vblank_ns - d->submit_ns);
	if (d->has_target)
		xp_json_ku64(&p->j, "missed_vblanks", d->missed_target);
	xp_perfetto_slice_end(p);
	if (!d->has_lateness || d->vblank_ns < d->submit_ns || d->vblank_ns > end)
		return;
	xp_perfetto_slice_begin(p, d->pid, tid, "frame", d->missed_target ? "to scanout (missed)" : "to scanout",
				d->submit_ns, d->vblank_ns - d->submit_ns);
	xp_perfetto_slice_end(p);
	xp_perfetto_slice_begin(p, d->pid, tid, "frame", "to delivery", d->vblank_ns, end - d->vblank_ns);
	xp_perfetto_slice_end(p);
	/* the vblank it went out on, on the CRTC's track, with the arrow to it */
	crtc_track(p, d->dev, d->crtc, &cpid, &ctid);
	xp_perfetto_slice_begin(p, cpid, ctid, "frame", "scanout", d->vblank_ns, 0);
	xp_json_ku64(&p->j, "pid", d->pid);
	xp_json_kstr(&p->j, "comm", comm);
	xp_json_ku64(&p->j, "seq", d->seq);
	xp_perfetto_slice_end(p);
	xp_perfetto_flow(p, id, true, d->pid, tid, d->submit_ns);
	xp_perfetto_flow(p, id, false, cpid, ctid, d->vblank_ns);
}
