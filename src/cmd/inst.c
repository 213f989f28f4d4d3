/*
 * An instance of a capability in one run, made and freed the same way by
 * every runner (live, record, report, export, serve).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "caps/cap.h"
#include "cmd/runner.h"

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
