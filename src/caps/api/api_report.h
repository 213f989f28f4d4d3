/* `api` output: the summary as text or JSON, and one stream line per call. */
#ifndef XP_CAPS_API_REPORT_H
#define XP_CAPS_API_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "caps/api/api_funcs.h"
#include "caps/api/api_stats.h"
#include "core/devices.h"
#include "sinks/json.h"
#include "sinks/run_info.h"

struct xp_api_report {
	struct xp_api_state *st;		/* rows sorted by the report */
	const struct xp_devices *devs;		/* to name ioctls */
	const struct xp_run_info *ri;
	bool hist, final;
	uint64_t undecodable;
	/* live only: what was traced and what was not found */
	const char (*notes)[XP_API_NOTE_LEN];
	int nnotes;
	uint64_t too_deep, unmatched;		/* the kernel's counts */
	/*
	 * Live only (lost_known): calls that never returned, by function index
	 * (fns[0 .. nfn)): `ended`, their thread ended inside them (exit or
	 * exec); `open`, still in flight as the report is made.
	 */
	bool lost_known;
	const struct xp_api_fn *fns;
	int nfn;
	const uint64_t *ended, *open;
};

void xp_api_report_text(FILE *f, const struct xp_api_report *r);
void xp_api_report_json(FILE *f, const struct xp_api_report *r);

void xp_api_stream_header(FILE *f);
/* A completed call and its ioctls; `t0` the time shown as 0. */
void xp_api_stream_text(FILE *f, const struct xp_api_joined *j, const struct xp_devices *d, uint64_t t0);
void xp_api_stream_json(struct xp_json *js, const struct xp_api_joined *j, const struct xp_devices *d,
			uint64_t t0);
struct xp_perfetto;	/* src/sinks/perfetto.h */
/*
 * A completed call for the Perfetto export: a slice on its thread's track,
 * with the ioctls it issued as slices inside it when `ioctls` (not when the
 * ioctl capability draws them, from the same recording).
 */
void xp_perfetto_api(struct xp_perfetto *p, const struct xp_api_joined *j, const struct xp_devices *d,
		     bool ioctls);
/* A return value as the runtime writes it: "-5", "0x78000001", "-ENOTTY". */
const char *xp_api_ret_str(uint32_t rule, int64_t ret, char *buf, size_t len);

#endif
