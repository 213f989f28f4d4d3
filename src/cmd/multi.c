/*
 * What the verbs that open several capabilities into one ring buffer share
 * (record, serve, top): their options and CAPABILITY operands, the shared
 * opening, and the end of the run (cmd/runner.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>

#include "cmd/runner.h"
#include "core/msg.h"
#include "live/kernel_side.h"
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

/* A row's option as given: applied once the operands say which rows run. */
struct pending_opt {
	int row, idx;
	const char *arg;
};

struct multi_parse {
	struct pending_opt pend[64];
	int npend;
	bool full;
};

struct multi_set {
	struct multi_parse *mp;
	int row;
};

static int defer_opt(void *ctx, int i, const char *arg)
{
	struct multi_set *ms = ctx;
	struct multi_parse *mp = ms->mp;

	if (mp->npend == (int)(sizeof(mp->pend) / sizeof(mp->pend[0]))) {
		mp->full = true;
		return 0;
	}
	mp->pend[mp->npend++] = (struct pending_opt){ ms->row, i, arg };
	return 0;
}

/* The row's option called `name`: its index, or -1. */
static int opt_index(const struct xp_cap *c, const char *name)
{
	for (int k = 0; c->opts && c->opts[k].name; k++)
		if (!strcmp(c->opts[k].name, name))
			return k;
	return -1;
}

/* One option given: to every wanted row that has it. 0, or the exit status after the one-line error. */
static int apply_opt(const char *verb, struct xp_multi_caps *mc, const struct pending_opt *p)
{
	const char *name = mc->ci[p->row].cap->opts[p->idx].name;
	char owners[128] = "", names[256];
	size_t k = 0;
	int applied = 0, taken = 0, status;

	for (int i = 0; i < mc->nci; i++) {
		const struct xp_cap *c = mc->ci[i].cap;
		int j = opt_index(c, name);
		const struct xp_cap_opt *o = j >= 0 ? &c->opts[j] : NULL;

		if (!o)
			continue;
		if (k < sizeof(owners))
			k += (size_t)snprintf(owners + k, sizeof(owners) - k, "%s%s", k ? ", " : "", c->name);
		if (!multi_takes(mc, c))
			continue;
		taken++;
		if (!mc->want[i])
			continue;
		if (mc->keep && o->no_record)
			return xp_fail(2, "%s: --%s %s", verb, name, o->no_record);
		if (!o->record && !mc->keep)
			return xp_fail(2, "%s: --%s shapes the summary of %s, which %s does not print", verb, name,
				       c->name, verb);
		if (c->opt && (status = c->opt(mc->ci[i].opts, j, p->arg)))
			return status;
		if (!o->record && (status = mc->keep(mc->keep_ctx, c, o, p->arg)))
			return status;
		applied++;
	}
	if (!taken)
		return xp_fail(2, "%s: --%s is an option of %s, which has no %s yet (this build %s: %s)", verb, name,
			       owners, mc->lacks, mc->does, multi_names(mc, names, sizeof(names)));
	if (!applied)
		return xp_fail(2, "%s: --%s is an option of %s, none of which is in this run; name %s among the "
				  "capabilities", verb, name, owners, strchr(owners, ',') ? "one" : "it");
	return 0;
}

int xp_opts_parse_multi(const char *verb, int argc, char **argv, unsigned int common,
			struct xp_live_opts *lo, const struct xp_optset *own, struct xp_multi_caps *mc,
			void (*help)(const void *ctx), const void *help_ctx)
{
	struct xp_optset *sets = calloc(1 + (size_t)mc->nci, sizeof(*sets));
	struct multi_set *ms = calloc((size_t)mc->nci, sizeof(*ms));
	struct multi_parse *mp = calloc(1, sizeof(*mp));
	int nsets = 1, status;
	bool any = false;
	char names[256];

	if (!sets || !ms || !mp) {
		free(sets);
		free(ms);
		free(mp);
		return xp_fail(1, "%s: out of memory", verb);
	}
	sets[0] = *own;
	for (int i = 0; i < mc->nci; i++)
		if (mc->ci[i].cap->opts) {	/* a row it does not take: its options are refused by name */
			ms[i] = (struct multi_set){ mp, i };
			sets[nsets++] = (struct xp_optset){ mc->ci[i].cap->opts, defer_opt, &ms[i] };
		}
	status = xp_opts_parse(verb, argc, argv, common, lo, sets, nsets, help, help_ctx);
	free(sets);
	free(ms);
	if (!status && mp->full)
		status = xp_fail(2, "%s: too many options of the capabilities", verb);
	for (; !status && optind < argc; optind++) {
		int i;

		for (i = 0; i < mc->nci && strcmp(mc->ci[i].cap->name, argv[optind]); i++)
			;
		if (i == mc->nci)
			status = xp_fail(2, "%s: unknown capability '%s' (this build %s: %s)", verb, argv[optind],
					 mc->does, multi_names(mc, names, sizeof(names)));
		else if (!multi_takes(mc, mc->ci[i].cap))
			status = xp_fail(2, "%s: %s has no %s yet (this build %s: %s)", verb, argv[optind],
					 mc->lacks, mc->does, multi_names(mc, names, sizeof(names)));
		else
			mc->want[i] = any = true;
	}
	mc->named = any;
	for (int i = 0; !status && !any && i < mc->nci; i++)
		mc->want[i] = multi_takes(mc, mc->ci[i].cap) && mc->by_default(mc->ci[i].cap);
	/* in the order given: a later one of a name wins, as for one verb */
	for (int p = 0; !status && p < mp->npend; p++)
		status = apply_opt(verb, mc, &mp->pend[p]);
	free(mp);
	if (status)
		return status;
	for (int i = 0; i < mc->nci; i++)
		if (mc->want[i] && mc->ci[i].cap->opts_check && (status = mc->ci[i].cap->opts_check(mc->ci[i].opts)))
			return status;
	return 0;
}

void xp_multi_caps_help(FILE *f, const struct xp_multi_caps *mc)
{
	static const char *const heads[] = {
		"Options of the capabilities (applied while tracing):\n",
		"Options that shape a capability's summary (kept in the file, applied by 'report'):\n",
		"Refused by record:\n",
	};

	for (int part = 0; part < (mc->keep ? 3 : 1); part++) {
		bool head = false;

		for (int i = 0; i < mc->nci; i++) {
			const struct xp_cap_opt *o = mc->ci[i].cap->opts;

			for (int k = 0; o && multi_takes(mc, mc->ci[i].cap) && o[k].name; k++) {
				int is = o[k].no_record ? 2 : o[k].record ? 0 : 1;

				if (is != part)
					continue;
				if (!head)
					fputs(heads[part], f);
				head = true;
				fprintf(f, "  %-8s --%s%s%s%s%s\n", mc->ci[i].cap->name, o[k].name, o[k].arg ? " " : "",
					o[k].arg ? o[k].arg : "", part == 2 ? ": it " : "", part == 2 ? o[k].no_record : "");
			}
		}
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
	if ((err = ci->cap->open(ci, oa, why, sizeof(why)))) {
		if (xp_stop)
			return -1;
		if (!mc->optional || mc->named || !(ci->cap->flags & XP_CAP_SERVE_OPTIONAL))
			return xp_open_failed(verb, ci, err, why);
		fprintf(stderr, "note: %s: %s: %s; going on without it\n", verb, ci->cap->name,
			why[0] ? why : strerror(-err));
		return 0;
	}
	if (!ci->k)		/* a sampler (XP_CAP_SAMPLER): nothing in the kernel to share */
		return 0;
	if (!*owner) {
		*owner = ci->k;
		share->events = ci->k->events;
		share->drops = ci->k->drops;
		s->obj = ci->k->obj;
	} else {
		s->more_obj[s->nmore_obj++] = ci->k->obj;
	}
	if (ci->cap->flags & XP_CAP_DEVICES) {
		bool said = false;	/* by an earlier capability of this run */

		for (int j = 0; j < i; j++)
			said |= mc->want[j] && (mc->ci[j].cap->flags & XP_CAP_DEVICES);
		if (!said)
			xp_warn_no_devices(verb, oa->devs);
	}
	return 0;
}

int xp_caps_upkeep(struct xp_cap_inst *ci, int n, const bool *want, uint64_t *let_go)
{
	uint64_t none = 0;
	int err;

	for (int i = 0; i < n; i++)
		if (want[i] && ci[i].k && ci[i].cap->upkeep &&
		    (err = ci[i].cap->upkeep(&ci[i], let_go ? &let_go[i] : &none)))
			return err;
	return 0;
}

void xp_caps_detach(const char *verb, struct xp_cap_inst *ci, int n)
{
	uint64_t t0 = xp_now_ns();
	int links = 0;

	for (int i = 0; i < n; i++)
		links += xp_kside_detach(ci[i].k);
	xp_kside_say_detach(verb, t0, links);
}

int xp_multi_finish(const char *verb, const struct xp_multi_caps *mc, struct xp_session *s,
		    uint64_t stopped, int err)
{
	xp_caps_detach(verb, mc->ci, mc->nci);
	if (!err && s->rb)
		err = xp_session_drain(s, xp_drain_budget(stopped));
	xp_say_unread(verb, s);
	xp_say_skipped(verb, s->unclaimed, s->bad_records - s->unclaimed);
	for (int i = 0; i < mc->nci; i++)
		if (mc->want[i] && mc->ci[i].k && mc->ci[i].cap->say_unseen)
			mc->ci[i].cap->say_unseen(&mc->ci[i], verb);
	return err;
}
