/* The npu capability's summary (text and JSON) and stream lines. */
#ifndef XP_CAPS_NPU_REPORT_H
#define XP_CAPS_NPU_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "caps/npu/npu_stats.h"
#include "sinks/json.h"
#include "sinks/run_info.h"

void xp_npu_report_text(FILE *f, const struct xp_npu_state *s, const struct xp_npu_info *in,
			const struct xp_run_info *ri, bool hist);
void xp_npu_report_json(FILE *f, const struct xp_npu_state *s, const struct xp_npu_info *in,
			const struct xp_run_info *ri);
void xp_npu_stream_header(FILE *f);
int xp_npu_stream_text(FILE *f, const struct xp_npu_rec *r, uint64_t t0);
int xp_npu_stream_json(struct xp_json *j, const struct xp_npu_rec *r, uint64_t t0);

struct xp_perfetto;
/*
 * A record on the Perfetto timeline: a timed call as a slice on its thread
 * (on the NPU's device track when outside a process's context), a job as an
 * async span from submit to done on its context/engine track, JSM messages
 * and PM events as instants on the NPU's tracks. Untimed calls are counts,
 * not drawn.
 */
void xp_perfetto_npu(struct xp_perfetto *p, const struct xp_npu_rec *r);

#endif
