/*
 * What the verbs that open several capabilities into one ring buffer share
 * (record, serve, top): their options and CAPABILITY operands, the shared
 * opening, and the end of the run (cmd/live.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>

#include "cmd/live.h"
#include "core/msg.h"
#include "live/kside.h"
#include "live/session.h"

static bool multi_takes(const struct xp_multi_caps *mc, const struct xp_cap *c)
{
	return !mc->takes || mc->takes(c);
}

/* "ioctl, sched": the rows mc takes. */
static const char *multi_names(const struct xp_multi_caps *mc, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (int i = 0; i < mc->nci && k < len; i++)
		if (multi_takes(mc, mc->ci[i].cap))
			k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "", mc->ci[i].cap->name);
	return buf;
}

int xp_opts_parse_multi(const char *verb, int argc, char **argv, unsigned int common,
			struct xp_live_opts *lo, const struct xp_optset *own, struct xp_multi_caps *mc,
			void (*help)(const void *ctx), const void *help_ctx)
{
	struct xp_optset *sets = calloc(1 + (size_t)mc->nci, sizeof(*sets));
	int nsets = 1, status;
	bool any = false;
	char names[256];

	if (!sets)
		return xp_fail(1, "%s: out of memory", verb);
	sets[0] = *own;
	for (int i = 0; i < mc->nci; i++)
		if (mc->ci[i].cap->opts && multi_takes(mc, mc->ci[i].cap))
			sets[nsets++] = (struct xp_optset){ mc->ci[i].cap->opts, mc->ci[i].cap->opt, mc->ci[i].opts,
							    .record_only = true, .owner = mc->ci[i].cap->name };
	status = xp_opts_parse(verb, argc, argv, common, lo, sets, nsets, help, help_ctx);
	free(sets);
	if (status)
		return status;
	for (; optind < argc; optind++) {
		int i;

		for (i = 0; i < mc->nci && strcmp(mc->ci[i].cap->name, argv[optind]); i++)
			;
		if (i == mc->nci)
			return xp_fail(2, "%s: unknown capability '%s' (this build %s: %s)", verb, argv[optind],
				       mc->does, multi_names(mc, names, sizeof(names)));
		if (!multi_takes(mc, mc->ci[i].cap))
			return xp_fail(2, "%s: %s has no %s yet (this build %s: %s)", verb, argv[optind],
				       mc->lacks, mc->does, multi_names(mc, names, sizeof(names)));
		mc->want[i] = any = true;
	}
	for (int i = 0; !any && i < mc->nci; i++)
		mc->want[i] = multi_takes(mc, mc->ci[i].cap) && mc->by_default(mc->ci[i].cap);
	for (int i = 0; i < mc->nci; i++)
		if (mc->want[i] && mc->ci[i].cap->opts_check && (status = mc->ci[i].cap->opts_check(mc->ci[i].opts)))
			return status;
	return 0;
}

void xp_multi_caps_help(FILE *f, const struct xp_multi_caps *mc)
{
	fprintf(f, "Options of the capabilities:\n");
	for (int i = 0; i < mc->nci; i++) {
		const struct xp_cap_opt *o = mc->ci[i].cap->opts;

		for (int k = 0; o && multi_takes(mc, mc->ci[i].cap) && o[k].name; k++)
			if (o[k].record)
				fprintf(f, "  %-8s --%s%s%s\n", mc->ci[i].cap->name, o[k].name, o[k].arg ? " " : "",
					o[k].arg ? o[k].arg : "");
	}
}

int xp_open_shared(const char *verb, const struct xp_multi_caps *mc, int i, const struct xp_open_args *oa,
		   struct xp_live_share *share, struct xp_session *s, struct xp_kside **owner)
{
	struct xp_cap_inst *ci = &mc->ci[i];
	char why[256] = "";
	int err;

	/* a signal during start-up: what is open stays, nothing more opens */
	if (xp_stop)
		return -1;
	if ((err = ci->cap->open(ci, oa, why, sizeof(why))))
		return xp_stop ? -1 : xp_open_failed(verb, ci, err, why);
	if (!*owner) {
		*owner = ci->k;
		share->events = ci->k->events;
		share->drops = ci->k->drops;
		s->obj = ci->k->obj;
	} else {
		s->more_obj[s->nmore_obj++] = ci->k->obj;
	}
	if (ci->cap->flags & XP_CAP_DEVICES)
		xp_warn_no_devices(verb, oa->devs);
	return 0;
}

int xp_multi_finish(const char *verb, const struct xp_multi_caps *mc, struct xp_session *s,
		    uint64_t stopped, int err)
{
	for (int i = 0; i < mc->nci; i++)
		xp_kside_detach(mc->ci[i].k);
	if (!err && s->rb)
		err = xp_session_drain(s, xp_drain_budget(stopped));
	xp_say_unread(verb, s);
	xp_say_skipped(verb, s->unclaimed, s->bad_records - s->unclaimed);
	for (int i = 0; i < mc->nci; i++)
		if (mc->want[i] && mc->ci[i].k && mc->ci[i].cap->say_unseen)
			mc->ci[i].cap->say_unseen(&mc->ci[i], verb);
	return err;
}
