/* `nvidia`'s metrics for `xputrace serve`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "caps/nvidia/nvidia_metrics.h"
#include "caps/nvidia/nvidia_stats.h"

int xp_nv_metrics_init(struct xp_nv_metrics *s, const struct xp_metrics_in *in)
{
	s->in = *in;
	s->xids = xp_metrics_family(in->m, "xputrace_nvidia_xids", "Xid errors the NVIDIA driver "
				    "reported (its nvidia_dev_xid tracepoint), by GPU (PCI name) and Xid "
				    "code", NULL, XP_METRIC_COUNTER, 1, true);
	return s->xids < 0 ? -ENOMEM : 0;
}

static void labels(void *p, char *buf, size_t len)
{
	const struct xp_nv_xid_rec *x = p;
	char dev[XP_NV_XID_DEV + 1], code[16];

	snprintf(dev, sizeof(dev), "%.*s", XP_NV_XID_DEV, x->dev);
	snprintf(code, sizeof(code), "%u", x->r.arg32);
	xp_labels_add(buf, len, "device", dev);
	xp_labels_add(buf, len, "code", code);
}

int xp_nv_metrics_feed(struct xp_nv_metrics *s, const struct xp_rec_hdr *h)
{
	const struct xp_nv_xid_rec *x = (const void *)h;
	struct xp_metric_key k = { { 0 } };
	struct xp_series *c;

	if (!xp_nv_rec_ok(h))
		return 1;
	if (x->r.fn != XP_NV_XID)
		return 0;
	/* the key: the code and the PCI name's first 24 bytes ("0000:01:00.0" has 12) */
	_Static_assert(XP_NV_XID_DEV >= 3 * sizeof(uint64_t), "a PCI name fills the key");
	k.k[0] = x->r.arg32;
	memcpy(&k.k[1], x->dev, 3 * sizeof(uint64_t));
	if (!(c = xp_metrics_series(s->in.m, s->xids, &k, labels, (void *)x)))
		return -ENOMEM;
	c->value++;
	return 0;
}
