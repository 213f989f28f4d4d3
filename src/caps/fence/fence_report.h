/* `xputrace fence` output: the summary in text and JSON, --stream lines, Perfetto. */
#ifndef XP_CAPS_FENCE_REPORT_H
#define XP_CAPS_FENCE_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "caps/fence/fence_stats.h"
#include "sinks/json.h"
#include "sinks/run_info.h"

void xp_fence_report_text(FILE *f, const struct xp_tp_report *r);
void xp_fence_report_json(FILE *f, const struct xp_tp_report *r);

/* --stream: one line (or JSON object) per event; `d` is what xp_fence_add made of it. */
void xp_fence_stream_header(FILE *f);
void xp_fence_stream_text(FILE *f, const struct xp_fence_state *s, const struct xp_rawtp_layout *l,
			  const struct xp_rawtp_rec *r, const struct xp_fence_done *d, uint64_t t0);
void xp_fence_stream_json(struct xp_json *j, const struct xp_fence_state *s, const struct xp_rawtp_layout *l,
			  const struct xp_rawtp_rec *r, const struct xp_fence_done *d, uint64_t t0);

struct xp_perfetto;	/* src/sinks/perfetto.h */
/*
 * A signaled fence whose creation was seen: a slice from init (or emit) to
 * signaled on its timeline's track ("GPU fences"); a wait: a slice on the
 * waiting thread. Other records write nothing.
 */
void xp_perfetto_fence(struct xp_perfetto *p, const struct xp_fence_state *s, const struct xp_rawtp_rec *r,
		       const struct xp_fence_done *d);

#endif
