/* `xputrace mem` output: the summary in text and JSON, and --stream lines. */
#ifndef XP_CAPS_MEM_REPORT_H
#define XP_CAPS_MEM_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "caps/mem/mem_stats.h"
#include "sinks/json.h"
#include "sinks/run_info.h"

void xp_mem_report_text(FILE *f, const struct xp_tp_report *r);
void xp_mem_report_json(FILE *f, const struct xp_tp_report *r);

/* --stream: one line (or JSON object) per event, its fields decoded by name. */
void xp_mem_stream_header(FILE *f);
void xp_mem_stream_text(FILE *f, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r,
			uint64_t t0);
void xp_mem_stream_json(struct xp_json *j, const struct xp_rawtp_layout *l,
			const struct xp_rawtp_rec *r, uint64_t t0);
/* A record's fields, decoded by name, as one JSON object (r->ev < l->n). */
void xp_mem_json_fields(struct xp_json *j, const struct xp_rawtp_layout *l,
			const struct xp_rawtp_rec *r);

struct xp_perfetto;	/* src/sinks/perfetto.h */
/*
 * A buffer memory or submission event (mem): an instant on the thread it
 * fired in when that is the causing process, else on its driver's track
 * ("GPU memory"), with its decoded fields as args.
 */
void xp_perfetto_mem(struct xp_perfetto *p, const struct xp_rawtp_layout *l,
		     const struct xp_rawtp_rec *r);

#endif
