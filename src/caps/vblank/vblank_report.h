/* `xputrace vblank` output: the summary in text and JSON, and --stream lines. */
#ifndef XP_CAPS_VBLANK_REPORT_H
#define XP_CAPS_VBLANK_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "caps/vblank/vblank_stats.h"
#include "sinks/json.h"
#include "sinks/run_info.h"

void xp_vbl_report_text(FILE *f, const struct xp_tp_report *r);
void xp_vbl_report_json(FILE *f, const struct xp_tp_report *r);
void xp_vbl_stream_header(FILE *f);
void xp_vbl_stream_text(FILE *f, const struct xp_vbl_delivery *d, uint64_t t0);
void xp_vbl_stream_json(struct xp_json *j, const struct xp_vbl_delivery *d, uint64_t t0);

struct xp_perfetto;	/* src/sinks/perfetto.h */
/* A vblank event: an instant on its CRTC's track (vblanks, deliveries, requests). */
void xp_perfetto_vblank(struct xp_perfetto *p, const struct xp_vbl_event *ev);
/*
 * A frame (page flip, atomic commit, CRTC sequence) once settled: a slice on
 * the asking thread from its submit to its delivery, split at the vblank it
 * completed on (to scanout, to delivery), and a flow arrow to a "scanout"
 * slice at that vblank on its CRTC's track.
 */
void xp_perfetto_vblank_frame(struct xp_perfetto *p, const struct xp_vbl_delivery *d);

#endif
