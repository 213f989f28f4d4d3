/* The capability table: its rows, and lookups over them. */
#include <stdio.h>
#include <string.h>

#include "caps/cap.h"

extern const struct xp_cap xp_cap_ioctl, xp_cap_sched, xp_cap_vblank, xp_cap_mem;
extern const struct xp_cap xp_cap_nvidia, xp_cap_npu, xp_cap_latency;
extern const struct xp_cap xp_cap_fence, xp_cap_api, xp_cap_fdinfo;
extern const struct xp_cap xp_cap_fence, xp_cap_api;
extern const struct xp_cap xp_cap_cuda;

/* One row per capability. Rows without `open` are planned (doctor only). */
const struct xp_cap *const xp_caps[] = {
	&xp_cap_ioctl,
	&xp_cap_sched,
	&xp_cap_vblank,
	&xp_cap_mem,
	&xp_cap_nvidia,
	&xp_cap_npu,
	&xp_cap_latency,
	&xp_cap_fence,
	&xp_cap_api,
	&xp_cap_fdinfo,
	&xp_cap_cuda,
};
const size_t xp_ncaps = sizeof(xp_caps) / sizeof(xp_caps[0]);

int xp_caps_use_records(void)
{
	static const struct xp_rec_kind *kinds[sizeof(xp_caps) / sizeof(xp_caps[0])];
	size_t n = 0;

	for (size_t i = 0; i < xp_ncaps; i++)
		if (xp_caps[i]->rec)
			kinds[n++] = xp_caps[i]->rec;
	return xp_rec_kinds_use(kinds, n);
}

const struct xp_cap *xp_cap_find(const char *name)
{
	for (size_t i = 0; i < xp_ncaps; i++)
		if (xp_cap_runs(xp_caps[i]) && !strcmp(xp_caps[i]->name, name))
			return xp_caps[i];
	return NULL;
}

const char *xp_cap_names(char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < xp_ncaps && k < len; i++)
		if (xp_cap_runs(xp_caps[i]))
			k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "", xp_caps[i]->name);
	return buf;
}
