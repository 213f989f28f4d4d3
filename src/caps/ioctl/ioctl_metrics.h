/* `ioctl`'s metrics for `xputrace serve`: calls, errors and time per cgroup, device and name. */
#ifndef XP_CAPS_IOCTL_METRICS_H
#define XP_CAPS_IOCTL_METRICS_H

#include "caps/ioctl/ioctl.h"
#include "core/devices.h"
#include "sinks/metrics.h"

struct xp_ioctl_metrics {
	struct xp_metrics_in in;
	const struct xp_devices *devs;
	int calls, errors, seconds;	/* the families (seconds: the durations' histogram) */
};

/* Declares the families into in->m. 0 or -ENOMEM. */
int xp_ioctl_metrics_init(struct xp_ioctl_metrics *s, const struct xp_metrics_in *in,
			  const struct xp_devices *devs);
/*
 * One completed call: xputrace_ioctls_total and the histogram of its
 * duration, xputrace_ioctl_duration_seconds, by cgroup, device and name (and pid, comm with per_process), and
 * xputrace_ioctl_errors_total by errno too when it failed. 0 or -ENOMEM.
 */
int xp_ioctl_metrics_add(struct xp_ioctl_metrics *s, const struct xp_ioctl_rec *r);

#endif
