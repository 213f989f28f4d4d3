/* `ioctl`'s metrics for `xputrace serve`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "caps/ioctl/ioctl_metrics.h"
#include "caps/ioctl/ioctl_report.h"

/* Buckets of the call durations, in ns: from 1 us by fours to 1 s. */
static const uint64_t dur_le[] = {
	1000, 4000, 16000, 64000, 256000, 1000000, 4000000, 16000000, 64000000, 256000000, 1000000000,
};

int xp_ioctl_metrics_init(struct xp_ioctl_metrics *s, const struct xp_metrics_in *in,
			  const struct xp_devices *devs)
{
	struct xp_metrics *m = in->m;

	s->in = *in;
	s->devs = devs;
	s->calls = xp_metrics_family(m, "xputrace_ioctls", "ioctl() calls on GPU/NPU device nodes, "
				     "completed", NULL, XP_METRIC_COUNTER, 1, true);
	s->errors = xp_metrics_family(m, "xputrace_ioctl_errors", "ioctl() calls on GPU/NPU device "
				      "nodes that failed, by errno", NULL, XP_METRIC_COUNTER, 1, true);
	s->seconds = xp_metrics_histogram(m, "xputrace_ioctl_duration_seconds", "Time from entry to "
					  "return of ioctl() on GPU/NPU device nodes", "seconds", dur_le,
					  (int)(sizeof(dur_le) / sizeof(dur_le[0])), 1e-9, true);
	return s->calls < 0 || s->errors < 0 || s->seconds < 0 ? -ENOMEM : 0;
}

struct label_ctx {
	const struct xp_ioctl_metrics *s;
	const struct xp_ioctl_rec *r;
	bool err;
};

static void labels(void *p, char *buf, size_t len)
{
	const struct label_ctx *c = p;
	const struct xp_ioctl_rec *r = c->r;
	struct xp_devdesc dd;
	char name[96], num[16];

	xp_metrics_task_labels(&c->s->in, r->cgroup_id, r->hdr.pid, r->comm, buf, len);
	xp_devices_describe(c->s->devs, r->dev, &dd);
	xp_labels_add(buf, len, "device", dd.name);
	xp_labels_add(buf, len, "name", xp_ioctl_entry_name(c->s->devs, r->dev, r->cmd, name, sizeof(name)));
	if (c->err) {
		const char *en = strerrorname_np(-r->ret);

		snprintf(num, sizeof(num), "%d", -r->ret);
		xp_labels_add(buf, len, "errno", en ? en : num);
	}
}

int xp_ioctl_metrics_add(struct xp_ioctl_metrics *s, const struct xp_ioctl_rec *r)
{
	struct xp_metrics *m = s->in.m;
	uint64_t pid = s->in.per_process ? r->hdr.pid : 0;
	/* the labels' ids: cgroup, process, device, command (and errno) */
	struct xp_metric_key k = { { r->cgroup_id, pid << 32 | r->dev, r->cmd, 0 } };
	struct label_ctx c = { s, r, false };
	struct xp_series *calls = xp_metrics_series(m, s->calls, &k, labels, &c);
	struct xp_series *secs = xp_metrics_series(m, s->seconds, &k, labels, &c);

	if (!calls || !secs)
		return -ENOMEM;
	calls->value++;
	if (r->lat_ns != XP_IOCTL_UNTIMED)	/* its start unseen: counted, not timed */
		xp_series_observe(m, secs, r->lat_ns);
	if (r->ret < 0) {
		struct xp_series *e;

		k.k[3] = (uint32_t)-r->ret;
		c.err = true;
		if (!(e = xp_metrics_series(m, s->errors, &k, labels, &c)))
			return -ENOMEM;
		e->value++;
	}
	return 0;
}
