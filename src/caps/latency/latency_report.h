/* `latency`'s output: the summary in text and JSON, and one line per pair. */
#ifndef XP_CAPS_LATENCY_REPORT_H
#define XP_CAPS_LATENCY_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "caps/latency/latency_stats.h"
#include "sinks/json.h"
#include "sinks/run_info.h"

struct xp_lat_report {
	struct xp_lat_state *st;
	const struct xp_run_info *ri;
	const char *from, *to;	/* the probes, NULL when unknown (a trace file) */
	bool hist;
};

void xp_lat_report_text(FILE *f, const struct xp_lat_report *r);
void xp_lat_report_json(FILE *f, const struct xp_lat_report *r);
void xp_lat_stream_header(FILE *f);
void xp_lat_stream_text(FILE *f, const struct xp_lat_state *s, const struct xp_lat_rec *rec, uint64_t t0);
void xp_lat_stream_json(struct xp_json *j, const struct xp_lat_state *s, const struct xp_lat_rec *rec,
			uint64_t t0);

/* A pair for the Perfetto export: a slice on the starting thread, named by its key. */
struct xp_perfetto;
void xp_perfetto_latency(struct xp_perfetto *p, const struct xp_lat_state *s, const struct xp_lat_rec *rec);

#endif
