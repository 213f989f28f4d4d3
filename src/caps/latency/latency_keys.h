/*
 * `latency`'s keys: the names the user gave (--key) turned into where the
 * kernel reads each field on one side (caps/latency/latency.h), checked against
 * the probe: tracepoints have the fields of their tracefs format, function
 * probes have arg0..arg5 (not at a return), every probe has tid and pid.
 */
#ifndef XP_CAPS_LATENCY_KEYS_H
#define XP_CAPS_LATENCY_KEYS_H

#include <stddef.h>
#include <stdint.h>
#include "core/probespec.h"
#include "core/tpformat.h"
#include "caps/latency/latency.h"

/*
 * One side: `fmt` is the tracepoint's format (NULL for other probes).
 * Fills cfg and the kinds of the key fields. 0, or -EINVAL with a one-line
 * reason in err.
 */
int xp_lat_key_resolve(const struct xp_keyspec *k, const struct xp_probe *p,
		       const struct xp_tp_format *fmt, struct xp_lat_side_cfg *cfg,
		       uint8_t kind[XP_LAT_MAX_KEYS], char *err, size_t len);
/* Both sides: the kinds must agree, field by field. */
int xp_lat_key_agree(const struct xp_keyspec *k, const uint8_t a[XP_LAT_MAX_KEYS],
		     const uint8_t b[XP_LAT_MAX_KEYS], char *err, size_t len);

#endif
