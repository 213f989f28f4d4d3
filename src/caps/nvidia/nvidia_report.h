/* `xputrace nvidia` output: the summary in text and JSON, and --stream lines. */
#ifndef XP_CAPS_NVIDIA_REPORT_H
#define XP_CAPS_NVIDIA_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "caps/nvidia/nvidia_stats.h"
#include "sinks/json.h"
#include "sinks/run_info.h"

void xp_nv_report_text(FILE *f, const struct xp_nv_state *s, const struct xp_run_info *ri, bool hist);
void xp_nv_report_json(FILE *f, const struct xp_nv_state *s, const struct xp_run_info *ri);
void xp_nv_stream_header(FILE *f);
void xp_nv_stream_text(FILE *f, const struct xp_nv_rec *r, uint64_t t0);
void xp_nv_stream_json(struct xp_json *j, const struct xp_nv_rec *r, uint64_t t0);
struct xp_perfetto;
/* A call as a slice (timed) or an instant: client calls on their thread,
 * interrupts on a track per line, Xids on their GPU's track. */
void xp_perfetto_nvidia(struct xp_perfetto *p, const struct xp_nv_rec *r);

#endif
