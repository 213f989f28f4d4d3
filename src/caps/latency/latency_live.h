/* `latency`'s kernel side (src/caps/latency/latency.bpf.c). */
#ifndef XP_CAPS_LATENCY_LIVE_H
#define XP_CAPS_LATENCY_LIVE_H

#include <stdint.h>
#include "core/probespec.h"
#include "live/kernel_side.h"
#include "caps/latency/latency.h"

struct xp_lat_live_cfg {
	struct xp_probe from, to;
	struct xp_keyspec key;
	uint32_t max_inflight;
};

/*
 * Checks both probes and the key against this kernel, loads the pair of
 * programs they need and attaches them (the end first). -ENOENT, -EINVAL
 * and others with a one-line reason in `why`.
 */
int xp_lat_live_open(struct xp_kside **out, const struct xp_lat_live_cfg *c,
		     const struct xp_filters *f, const struct xp_live_share *share, char *why,
		     size_t len);
/* Past the kernel's counters: starts and ends the kernel skipped (never ran). */
enum { XP_LAT_LIVE_SKIPPED_STARTS = XP_LAT_ST_MAX, XP_LAT_LIVE_SKIPPED_ENDS, XP_LAT_LIVE_N };

/*
 * The kernel's counters since load, read from memory (no system call on a
 * map), and the starts and ends it skipped; known[side]: whether this
 * kernel lets that side's skips be counted.
 */
int xp_lat_live_counters(struct xp_kside *k, uint64_t out[XP_LAT_LIVE_N], bool known[2]);
/* Frees starts older than max_age_ns (0: none), counting them; counts those left. */
int xp_lat_live_age(struct xp_kside *k, uint64_t max_age_ns, uint64_t *aged, uint64_t *open);

#endif
