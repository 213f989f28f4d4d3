/* `xputrace cuda` output: the summary in text and JSON, --stream lines. */
#ifndef XP_CAPS_CUDA_REPORT_H
#define XP_CAPS_CUDA_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "caps/cuda/cuda_stats.h"
#include "sinks/json.h"
#include "sinks/run_info.h"

struct xp_cuda_report {
	struct xp_cuda_state *st;
	const struct xp_run_info *ri;
	bool final;
	uint64_t undecodable;
	const char *const *notes;	/* live: how the library was found */
	int nnotes;
};

void xp_cuda_report_text(FILE *f, const struct xp_cuda_report *r);
void xp_cuda_report_json(FILE *f, const struct xp_cuda_report *r);

/* --stream: one line (or JSON object) per kernel, copy, memset, launch call and drop count. */
void xp_cuda_stream_header(FILE *f);
void xp_cuda_stream_text(FILE *f, const struct xp_cuda_rec *r, const struct xp_cuda_done *d, uint64_t t0);
void xp_cuda_stream_json(struct xp_json *j, const struct xp_cuda_rec *r, const struct xp_cuda_done *d, uint64_t t0);

struct xp_perfetto;	/* src/sinks/perfetto.h */
/*
 * A kernel, copy or memset: a slice on its GPU stream's track ("CUDA
 * streams"); joined with its launch call, a zero-length "launch" slice on
 * the calling thread and an arrow from it. Other records write nothing.
 */
void xp_perfetto_cuda(struct xp_perfetto *p, const struct xp_cuda_rec *r, const struct xp_cuda_done *d);

#endif
