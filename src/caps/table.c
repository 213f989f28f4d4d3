/* The capability table, and what every instance of any capability shares. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/cap.h"
#include "live/features.h"

extern const struct xp_cap xp_cap_ioctl, xp_cap_sched, xp_cap_vblank, xp_cap_mem;
extern const struct xp_cap xp_cap_nvidia, xp_cap_npu, xp_cap_latency;
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

bool xp_cap_tp_group_available(const struct xp_doctor_env *d, const char *group, const char *missing,
			       char *why, size_t len)
{
	bool tp = d->at[XP_AT_TRACEPOINT].ok, ok = tp && d->group_events(group) > 0;

	if (ok)
		snprintf(why, len, "%s events present", group);
	else
		snprintf(why, len, "%s", !tp ? "classic tracepoints do not attach here" : missing);
	return ok;
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

int xp_cap_inst_new(struct xp_cap_inst *ci, const struct xp_cap *cap, const struct xp_cap_env *env)
{
	memset(ci, 0, sizeof(*ci));
	ci->cap = cap;
	ci->env = env;
	if (cap->opts_size) {
		if (!(ci->opts = calloc(1, cap->opts_size)))
			return -ENOMEM;
		if (cap->opts_init)
			cap->opts_init(ci->opts);
	}
	if (cap->events) {
		/* large: on the heap */
		if (!(ci->layout = calloc(1, sizeof(*ci->layout)))) {
			xp_cap_inst_free(ci);
			return -ENOMEM;
		}
		xp_rawtp_layout_init(ci->layout, cap->events, cap->nev);
	}
	return 0;
}

void xp_cap_inst_free(struct xp_cap_inst *ci)
{
	if (ci->st && ci->cap->free)
		ci->cap->free(ci);
	ci->st = NULL;
	free(ci->opts);
	free(ci->layout);
	if (ci->mst && ci->cap->metrics_free)
		ci->cap->metrics_free(ci);
	free(ci->mst);
	ci->mst = NULL;
	ci->opts = NULL;
	ci->layout = NULL;
}
