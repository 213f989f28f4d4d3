/* One ring buffer for several capabilities: see struct xp_live_share. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "live/capture.h"

int xp_live_share_maps(const struct xp_live_share *s, struct bpf_map *events,
		       struct bpf_map *drops, char *why, size_t whylen)
{
	int err;

	if (!s->events || !s->drops)
		return 0;
	err = bpf_map__reuse_fd(events, bpf_map__fd(s->events));
	if (!err)
		err = bpf_map__reuse_fd(drops, bpf_map__fd(s->drops));
	if (err)
		snprintf(why, whylen, "sharing the ring buffer: %s", strerror(-err));
	return err;
}
