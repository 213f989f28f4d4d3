/* `ioctl` output: the summary as text or JSON, and the per-call stream. */
#ifndef XP_CAPS_IOCTL_REPORT_H
#define XP_CAPS_IOCTL_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "core/devices.h"
#include "caps/ioctl/ioctl_stats.h"
#include "sinks/json.h"
#include "sinks/run_info.h"

void xp_ioctl_report_text(FILE *f, const struct xp_ioctl_table *t, const struct xp_devices *d,
			  const struct xp_run_info *ri, bool hist);
void xp_ioctl_report_json(FILE *f, const struct xp_ioctl_table *t, const struct xp_devices *d,
			  const struct xp_run_info *ri);

/* One call as it completes; `t0` is the monotonic time shown as 0. */
void xp_ioctl_stream_header(FILE *f);
void xp_ioctl_stream_text(FILE *f, const struct xp_ioctl_rec *r, const struct xp_devices *d,
			  uint64_t t0);
void xp_ioctl_stream_json(struct xp_json *j, const struct xp_ioctl_rec *r,
			  const struct xp_devices *d, uint64_t t0);

/* The name of a call on a device, e.g. "DRM_IOCTL_VERSION". */
const char *xp_ioctl_entry_name(const struct xp_devices *d, uint32_t dev, uint32_t cmd,
				char *buf, size_t len);

struct xp_perfetto;	/* src/sinks/perfetto.h */
/* An ioctl as a slice on its thread, named as the reports name it. */
void xp_perfetto_ioctl(struct xp_perfetto *p, const struct xp_ioctl_rec *r,
		       const struct xp_devices *d);

#endif
