/*
 * `nvidia`'s metrics for `xputrace serve`: Xids by GPU and code, from the
 * module's Xid tracepoint (serve attaches nothing else of nvidia.ko). No
 * libbpf.
 */
#ifndef XP_CAPS_NVIDIA_METRICS_H
#define XP_CAPS_NVIDIA_METRICS_H

#include "caps/nvidia/nvidia.h"
#include "sinks/metrics.h"

struct xp_nv_metrics {
	struct xp_metrics_in in;
	int xids;	/* the family */
};

/* Declares the family into in->m. 0 or -ENOMEM. */
int xp_nv_metrics_init(struct xp_nv_metrics *s, const struct xp_metrics_in *in);
/* One nvidia record (Xids counted, the rest passed over). 0, 1 when it cannot be decoded, or -ENOMEM. */
int xp_nv_metrics_feed(struct xp_nv_metrics *s, const struct xp_rec_hdr *h);

#endif
