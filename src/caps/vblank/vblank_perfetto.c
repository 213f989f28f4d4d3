/* vblank's Perfetto events: vblanks, requests and deliveries on each CRTC's
 * track, and each frame on the thread that asked for it (src/sinks/perfetto.h). */
#include <string.h>

#include "caps/vblank/vblank_report.h"
#include "sinks/perfetto.h"

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
