/* What the mem summary's common part (mem_report.c) and its per-driver sections
 * (mem_report_amdgpu.c, mem_report_i915.c, mem_report_xe.c) share; not part of
 * the API (mem_report.h is). The helpers are static inline so that each file
 * keeps calling them by their short names. */
#ifndef XP_CAPS_MEM_REPORT_INT_H
#define XP_CAPS_MEM_REPORT_INT_H

#include <inttypes.h>
#include <string.h>

#include "caps/mem/mem_report.h"
#include "sinks/text.h"

/* What each section's figures can be charged to, said in text and JSON. */
#define PER_PROC "per process"
#define PER_DEV "per device, not per process"

static inline const char *human(uint64_t b, char *buf, size_t len)
{
	return xp_fmt_bytes(b, buf, len);
}

/* One row of a moves-by-placement table (amdgpu and xe), text and JSON. */
#define MOVE_HDR "  %-9s %-9s %8s %12s\n", "FROM", "TO", "MOVES", "BYTES"
static inline void text_move(FILE *f, const char *from, const char *to, uint64_t n, uint64_t bytes)
{
	fprintf(f, "  %-9s %-9s %8" PRIu64 " %12" PRIu64 "\n", from, to, n, bytes);
}

static inline void json_move(struct xp_json *j, const char *from, const char *to, uint64_t n, uint64_t bytes)
{
	xp_json_begin_obj(j);
	xp_json_kstr(j, "from", from);
	xp_json_kstr(j, "to", to);
	xp_json_ku64(j, "count", n);
	xp_json_ku64(j, "bytes", bytes);
	xp_json_end_obj(j);
}

static inline bool has(const struct xp_rawtp_layout *l, int ev) { return ev < l->n && l->present[ev]; }

static inline void section(FILE *f, const char *title, const char *attr, const char *why)
{
	fprintf(f, "\n%s [%s]\n  (%s)\n", title, attr, why);
}

/* per_process: the section's figures are per process; where only some are,
 * per_process_figures says which, and where processes[] has them. */
static inline void attribution(struct xp_json *j, const char *attr, const char *why)
{
	xp_json_kbool(j, "per_process", !strcmp(attr, PER_PROC));
	xp_json_kstr(j, "attribution", why);
}

static inline void partial(struct xp_json *j, const char *why, const char *figures)
{
	attribution(j, PER_DEV, why);
	xp_json_kstr(j, "per_process_figures", figures);
}

/* Each driver's section, printed when the driver has an event on the kernel. */
void xp_mem_text_amdgpu(FILE *f, const struct xp_tp_report *r);
void xp_mem_text_i915(FILE *f, const struct xp_tp_report *r);
void xp_mem_text_xe(FILE *f, const struct xp_tp_report *r);
void xp_mem_json_amdgpu(struct xp_json *j, const struct xp_tp_report *r);
void xp_mem_json_i915(struct xp_json *j, const struct xp_tp_report *r);
void xp_mem_json_xe(struct xp_json *j, const struct xp_tp_report *r);

#endif
