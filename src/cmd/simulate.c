/* xputrace simulate: a recorded GPU workload under another scheduling policy (src/sim/). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/runner.h"
#include "core/outfile.h"
#include "core/parse.h"
#include "sim/sim_perfetto.h"
#include "sim/sim_report.h"
#include "sim/simload.h"

/* ---- what simulate and analyze share: the jobs of a file, the tasks' settings ---- */

struct load_ctx {
	const char *verb, *path;
	struct xp_sim_load *l;
	bool by_client;
};

static int load_open(void *ctx, const struct xp_trace_reader *r)
{
	struct load_ctx *c = ctx;
	int err = xp_sim_load_open(c->l, &r->meta);

	c->l->by_client = c->by_client;
	if (err == -ENOENT && c->l->i915_requests) {
		xp_fail(1, "%s: %s has i915 requests (mem) but no sched capture: i915's events say when a "
			   "request was added and retired (reaped), not when it ran; that takes "
			   "i915_request_in/out (CONFIG_DRM_I915_LOW_LEVEL_TRACEPOINTS), or a driver on the "
			   "DRM scheduler (record ... sched)", c->verb, c->path);
		return -ECANCELED;
	}
	if (err == -ENOENT) {
		xp_fail(1, "%s: %s has no sched capture (record it with 'xputrace record ... sched')",
			c->verb, c->path);
		return -ECANCELED;
	}
	return err;
}

static int load_record(void *ctx, const struct xp_rec_hdr *h)
{
	return xp_sim_load_feed(((struct load_ctx *)ctx)->l, h);
}

int xp_sim_file_operand(const char *verb, int argc, char **argv, const char **path)
{
	for (; optind < argc; optind++) {
		if (*path)
			return xp_fail(2, "%s: unexpected argument '%s'", verb, argv[optind]);
		*path = argv[optind];
	}
	if (!*path)
		return xp_fail(2, "%s: which trace file? see 'xputrace %s --help'", verb, verb);
	return 0;
}

int xp_sim_parse_by(const char *verb, const char *arg, bool *by_client)
{
	if (strcmp(arg, "process") && strcmp(arg, "client"))
		return xp_fail(2, "%s: --by wants process or client, not '%s'", verb, arg);
	*by_client = !strcmp(arg, "client");
	return 0;
}

int xp_sim_parse_format(const char *verb, const char *arg, bool *proto)
{
	if (strcmp(arg, "json") && strcmp(arg, "proto"))
		return xp_fail(2, "%s: --format wants json or proto, not '%s'", verb, arg);
	*proto = !strcmp(arg, "proto");
	return 0;
}

int xp_sim_load_file(const char *verb, const char *path, bool by_client, struct xp_sim_load *l,
		     uint64_t *t0, uint64_t *t_end)
{
	struct xp_trace_reader *r = calloc(1, sizeof(*r));
	struct load_ctx c = { verb, path, l, false };
	int status, err;

	memset(l, 0, sizeof(*l));
	c.by_client = by_client;
	if (!r)
		return xp_fail(1, "%s: out of memory", verb);
	status = xp_cmd_read_trace(verb, path, r, load_open, load_record, &c);
	if (!status) {
		*t0 = xp_trace_began(r);
		*t_end = *t0 + (uint64_t)(xp_trace_duration(r) * 1e9 + 0.5);
		if ((err = xp_sim_load_build(l, *t_end)) == -ENODATA)
			status = xp_fail(1, "%s: %s: --by client: the scheduler's events carry no DRM client "
					    "id (Linux 6.17 and later give it)", verb, path);
		else if (err)
			status = xp_fail(1, "%s: %s: %s", verb, path, strerror(-err));
		else if (!l->in.njobs)
			status = xp_fail(1, "%s: %s: no GPU job with its queue, run and done events "
					    "(%llu sched records could not be decoded)", verb, path,
					 (unsigned long long)l->undecodable);
		else if (l->undecodable)
			fprintf(stderr, "xputrace: %s: %llu sched record%s could not be decoded\n", verb,
				(unsigned long long)l->undecodable, l->undecodable == 1 ? "" : "s");
	}
	xp_trace_meta_free(&r->meta);
	free(r);
	if (status)
		xp_sim_load_free(l);
	return status;
}

int xp_sim_perfetto_out(const char *verb, const char *out, bool proto, uint64_t t0,
			int (*fn)(struct xp_perfetto *p, void *ctx), void *ctx)
{
	struct xp_perfetto *p = calloc(1, sizeof(*p));
	struct xp_outfile of;
	char why[256];
	int err;

	if (!p)
		return xp_fail(1, "%s: out of memory", verb);
	if ((err = xp_out_open(&of, out, false, why, sizeof(why)))) {
		free(p);
		return xp_fail(err == -EEXIST ? 2 : 1, "%s: %s", verb, why);
	}
	if (!proto)
		xp_perfetto_begin(p, of.f, t0);
	else if ((err = xp_perfetto_begin_proto(p, of.f, t0))) {
		xp_out_abort(&of);
		free(p);
		return xp_fail(1, "%s: %s", verb, strerror(-err));
	}
	err = fn(p, ctx);
	xp_perfetto_end(p, NULL);
	if (err || ferror(of.f)) {
		xp_out_abort(&of);
		free(p);
		return xp_fail(1, "%s: writing %s: %s", verb, out, strerror(err ? -err : EIO));
	}
	if ((err = xp_out_commit(&of, why, sizeof(why)))) {
		free(p);
		return err == -EPIPE ? 1 : xp_fail(1, "%s: %s", verb, why);
	}
	fprintf(stderr, "Wrote %llu trace events to %s\n", (unsigned long long)p->events, out);
	free(p);
	return 0;
}

/* "KEY=VALUE": the tasks KEY names get the value; 0, or status 2 when it names none. */
int xp_sim_apply(const char *verb, const char *opt, const char *spec, struct xp_sim_input *in,
		 int (*set)(struct xp_sim_task *t, const char *val))
{
	const char *eq = strchr(spec, '=');
	char key[64];
	int named = 0;

	if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof(key))
		return xp_fail(2, "%s: --%s wants COMM=VALUE or PID=VALUE, not '%s'", verb, opt, spec);
	memcpy(key, spec, (size_t)(eq - spec));
	key[eq - spec] = '\0';
	for (uint32_t t = 0; t < in->ntasks; t++)
		if (xp_sim_task_match(&in->tasks[t], key)) {
			if (set(&in->tasks[t], eq + 1))
				return xp_fail(2, "%s: --%s %s: bad value '%s'", verb, opt, spec, eq + 1);
			named++;
		}
	if (!named)
		return xp_fail(2, "%s: --%s %s: no process '%s' submitted GPU jobs in the file", verb, opt,
			       spec, key);
	return 0;
}

int xp_sim_set_prio(struct xp_sim_task *t, const char *v)
{
	char *end;
	long p;

	errno = 0;
	p = strtol(v, &end, 10);
	if (!*v || *end || errno || p < -1000000 || p > 1000000)
		return -EINVAL;
	t->prio = (int)p;
	return 0;
}

/* milliseconds > 0 as ns */
static int parse_ms(const char *s, uint64_t *ns)
{
	double v;

	if (xp_parse_seconds(s, &v) || v > 1e7)
		return -EINVAL;
	*ns = (uint64_t)(v * 1e6 + 0.5);
	return *ns ? 0 : -EINVAL;
}

static int set_deadline(struct xp_sim_task *t, const char *v)
{
	return parse_ms(v, &t->deadline);
}

static int set_drm_prio(struct xp_sim_task *t, const char *v)
{
	static const char *const names[] = { "kernel", "high", "normal", "low" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(v, names[i])) {
			t->drm_prio = (int8_t)(XP_SIM_DRM_KERNEL + i);
			return 0;
		}
	return -EINVAL;
}

static int set_reserve(struct xp_sim_task *t, const char *v)
{
	char c[64];
	const char *slash = strchr(v, '/');

	if (!slash || (size_t)(slash - v) >= sizeof(c))
		return -EINVAL;
	memcpy(c, v, (size_t)(slash - v));
	c[slash - v] = '\0';
	if (parse_ms(c, &t->res_c) || parse_ms(slash + 1, &t->res_p) || t->res_c > t->res_p)
		return -EINVAL;
	t->has_res = true;
	return 0;
}

/* ---- simulate ---- */

#define MAX_SETTINGS 32

enum { O_POLICY, O_COMPARE, O_PRIO, O_RESERVE, O_ENFORCE, O_PREDICT, O_DEADLINE, O_DEPTH, O_OVERHEAD,
       O_PERFETTO, O_FORMAT, O_BY, O_DRM_PRIO };

static const struct xp_cap_opt sim_own[] = {
	[O_POLICY] = { "policy", 0, "POLICY", "fifo, rr, prt, ht, drm-fifo, drm-rr or drm-fair", false, NULL },
	[O_COMPARE] = { "compare", 0, "LIST", "several policies side by side (fifo,prt,ht)", false, NULL },
	[O_PRIO] = { "prio", 0, "TASK=N", "a task's priority, higher first (COMM, PID or the\ntask's name, comm/pid#client; repeatable)", false, NULL },
	[O_RESERVE] = { "reserve", 0, "TASK=C/P", "a reservation: C ms of GPU time every P ms (repeatable)", false, NULL },
	[O_ENFORCE] = { "enforce", 0, "pe|ae", "reservations posterior (pe, default) or apriori (ae)", false, NULL },
	[O_PREDICT] = { "predict", 0, "HOW", "cost prediction: history (default), mean or last", false, NULL },
	[O_DEADLINE] = { "deadline", 0, "TASK=MS", "count the task's jobs answered later (repeatable)", false, NULL },
	[O_DEPTH] = { "depth", 0, "N", "jobs a ring holds at once under fifo and rr\n(default: the most the recording shows)", false, NULL },
	[O_OVERHEAD] = { "overhead", 0, "US", "the scheduler's reaction to a completion\n(default: the recording's, in order)", false, NULL },
	[O_PERFETTO] = { "perfetto", 0, "OUT", "also write the schedules as a Perfetto trace to OUT\n('-': instead of the summary)", false, NULL },
	[O_FORMAT] = { "format", 0, "FORMAT", "--perfetto's format: json (the default) or proto\n(Perfetto's own protobuf)", false, NULL },
	[O_BY] = { "by", 0, "WHAT", "a task is a process (default) or a DRM client (6.17+)", false, NULL },
	[O_DRM_PRIO] = { "drm-prio", 0, "TASK=P", "the task's drm_sched priority for the drm-* policies:\nkernel, high, normal (default) or low (repeatable)", false, NULL },
	[O_DRM_PRIO + 1] = { NULL },
};
const struct xp_verb_opts xp_simulate_opts = { XP_O_JSON, sim_own };

struct sim_opts {
	int policies[XP_SIM_NPOLICIES];
	int npolicies;
	bool policy, compare;
	const char *set[4][MAX_SETTINGS];	/* --prio, --reserve, --deadline, --drm-prio */
	int nset[4];
	struct xp_sim_params p;
	uint64_t depth, overhead;
	bool has_depth, has_overhead;
	const char *perfetto;
	bool proto;		/* --format proto */
	bool has_format, has_enforce;
	bool by_client;
};

static int add_policy(struct sim_opts *o, const char *s)
{
	int p = xp_sim_policy_parse(s);

	if (p < 0)
		return xp_fail(2, "simulate: unknown policy '%s' (fifo, rr, prt, ht, drm-fifo, drm-rr, drm-fair)", s);
	for (int i = 0; i < o->npolicies; i++)
		if (o->policies[i] == p)
			return 0;
	o->policies[o->npolicies++] = p;
	return 0;
}

static int sim_opt(void *ctx, int i, const char *arg)
{
	struct sim_opts *o = ctx;
	int k;

	switch (i) {
	case O_POLICY:
		o->npolicies = 0;
		o->policy = true;
		return add_policy(o, arg);
	case O_COMPARE: {
		char buf[128], *save = NULL, *tok;

		if (strlen(arg) >= sizeof(buf))
			return xp_fail(2, "simulate: --compare: '%s' is too long", arg);
		snprintf(buf, sizeof(buf), "%s", arg);
		o->compare = true;
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (add_policy(o, tok))
				return 2;
		return o->npolicies ? 0 : xp_fail(2, "simulate: --compare wants policies, e.g. fifo,prt,ht");
	}
	case O_PRIO:
	case O_RESERVE:
	case O_DEADLINE:
	case O_DRM_PRIO:
		k = i == O_PRIO ? 0 : i == O_RESERVE ? 1 : i == O_DEADLINE ? 2 : 3;
		if (o->nset[k] == MAX_SETTINGS)
			return xp_fail(2, "simulate: --%s: at most %d", sim_own[i].name, MAX_SETTINGS);
		o->set[k][o->nset[k]++] = arg;
		return 0;
	case O_ENFORCE:
		if (strcmp(arg, "pe") && strcmp(arg, "ae"))
			return xp_fail(2, "simulate: --enforce wants pe or ae, not '%s'", arg);
		o->p.enforce = !strcmp(arg, "ae") ? XP_SIM_AE : XP_SIM_PE;
		o->has_enforce = true;
		return 0;
	case O_PREDICT:
		for (k = 0; k <= XP_SIM_PRED_LAST; k++)
			if (!strcmp(arg, xp_sim_predict_name((enum xp_sim_predict)k))) {
				o->p.predict = (enum xp_sim_predict)k;
				return 0;
			}
		return xp_fail(2, "simulate: --predict wants history, mean or last, not '%s'", arg);
	case O_DEPTH:
		o->has_depth = true;
		if (xp_parse_u64(arg, 1, 1024, &o->depth))
			return xp_fail(2, "simulate: --depth wants a number from 1 to 1024, not '%s'", arg);
		return 0;
	case O_OVERHEAD:
		o->has_overhead = true;
		if (xp_parse_u64(arg, 0, 10000000, &o->overhead))
			return xp_fail(2, "simulate: --overhead wants microseconds from 0 to 10000000, not '%s'", arg);
		o->overhead *= 1000;
		return 0;
	case O_PERFETTO:
		if (!*arg)
			return xp_fail(2, "simulate: --perfetto wants a file name, not ''");
		o->perfetto = arg;
		return 0;
	case O_FORMAT:
		o->has_format = true;
		return xp_sim_parse_format("simulate", arg, &o->proto);
	case O_BY:
		return xp_sim_parse_by("simulate", arg, &o->by_client);
	}
	return 0;
}

/* --perfetto -, which writes the trace instead of the summary, with --json: 2, said; else 0 */
int xp_sim_perfetto_json(const char *verb, const char *perfetto, bool json)
{
	if (json && perfetto && !strcmp(perfetto, "-"))
		return xp_fail(2, "%s: --json shapes the summary, which --perfetto - replaces with the trace", verb);
	return 0;
}

/* Options that conflict, or that nothing they shape is asked for: 2, said; else 0. */
static int sim_check(const struct sim_opts *o, bool json)
{
	bool queues = false;	/* a policy that --depth shapes */

	for (int i = 0; i < o->npolicies; i++)
		queues |= o->policies[i] == XP_SIM_FIFO || o->policies[i] == XP_SIM_RR ||
			  o->policies[i] >= XP_SIM_DRM_FIFO;
	if (o->policy && o->compare)
		return xp_fail(2, "simulate: --policy and --compare both name the policies: one or the other");
	if (!o->npolicies)
		return xp_fail(2, "simulate: which policy? --policy fifo|rr|prt|ht|drm-fifo|drm-rr|drm-fair or "
				  "--compare fifo,prt,ht");
	if (o->has_format && !o->perfetto)
		return xp_fail(2, "simulate: --format is --perfetto's format, and no --perfetto is given");
	if (o->has_enforce && !o->nset[1])
		return xp_fail(2, "simulate: --enforce says how reservations are enforced, and no --reserve is given");
	if (o->has_depth && !queues)
		return xp_fail(2, "simulate: --depth shapes fifo, rr and the drm policies, and no policy here is one");
	return xp_sim_perfetto_json("simulate", o->perfetto, json);
}

static void sim_help(const void *ctx)
{
	(void)ctx;
	printf(
"Usage: xputrace simulate FILE --policy POLICY [OPTIONS]\n"
"       xputrace simulate FILE --compare fifo,prt,ht [OPTIONS]\n"
"\n"
"Replays the GPU jobs of a trace file recorded with the sched capability\n"
"under another scheduling policy and says what each task (process) would\n"
"have seen. Each job arrives when it was queued, waits for the jobs it\n"
"depended on, and costs what it took on its ring (run -> done). One engine\n"
"per ring, non-preemptive, as TimeGraph (USENIX ATC 2011) models the GPU:\n"
"  fifo  in arrival order, up to --depth jobs on a ring\n"
"  rr    one job per task in turn, up to --depth jobs on a ring\n"
"  prt   a job waits while any is on the ring; at each completion the\n"
"        highest-priority waiter goes (predictable response times)\n"
"  ht    a job goes at once if the ring is idle, or runs only its own task's\n"
"        jobs and nothing of higher priority waits (high throughput)\n"
"and as Linux's DRM scheduler chooses (one entity per task and ring, --depth\n"
"credits, run queues per --drm-prio):\n"
"  drm-fifo  the entity whose next job was queued first (7.x's default)\n"
"  drm-rr    entities in turn (6.x's list, or 7.x's, as the recording's kernel)\n"
"  drm-fair  the least virtual runtime: GPU time weighted by priority\n"
"            (7.x's gpu_sched.sched_policy=2)\n"
"A job starts no sooner than the scheduler's reaction after it is ready with\n"
"room on its ring: the recording's reactions in the order they happened, or\n"
"--overhead for each job that waited. Reservations give a task C ms of\n"
"GPU time every P ms: pe charges a job's cost after it ran (a task can\n"
"overrun), ae lets a job go only if its predicted cost fits what is left.\n"
"Per task: response time (done - queued) p50/p99/max, deadline misses, jobs\n"
"per second and utilisation over the schedule's span, overruns, and the cost\n"
"predictor's mean error; with a drm-* policy also each task's share of the\n"
"GPU while every task had work and its mean wait (queued -> on the ring).\n"
"The recording's own schedule comes first, as \"recorded\". --perfetto\n"
"writes every schedule as tracks of its own (one per ring) for\n"
"ui.perfetto.dev: trace-event JSON, or with --format proto Perfetto's\n"
"protobuf. docs/simulate.md has the definitions.\n"
"\n"
"Options:\n");
	xp_opts_help(stdout, xp_simulate_opts.common, xp_simulate_opts.opts);
	printf(
"\n"
"Examples:\n"
"  xputrace simulate gpu.xpt --policy prt --prio frame=10\n"
"  xputrace simulate gpu.xpt --compare fifo,prt,ht --prio frame=10 --deadline frame=16\n"
"  xputrace simulate gpu.xpt --policy fifo --reserve greedy=4/16 --enforce ae\n"
"  xputrace simulate gpu.xpt --compare drm-fifo,drm-fair --drm-prio bg=low\n"
"  xputrace simulate gpu.xpt --compare fifo,prt --perfetto sim.json\n"
"  xputrace simulate gpu.xpt --compare fifo,prt --perfetto sim.pftrace --format proto\n");
}

static int sim_perfetto(struct xp_perfetto *p, void *ctx)
{
	const struct xp_sim_report *rep = ctx;

	for (int i = 0; i < rep->nres; i++)
		xp_sim_perfetto_schedule(p, rep->in, &rep->res[i], rep->names[i]);
	return 0;
}

int cmd_simulate(int argc, char **argv)
{
	static int (*const setters[4])(struct xp_sim_task *, const char *) = {
		xp_sim_set_prio, set_reserve, set_deadline, set_drm_prio,
	};
	static const int setopt[4] = { O_PRIO, O_RESERVE, O_DEADLINE, O_DRM_PRIO };
	struct sim_opts o = { .npolicies = 0 };
	struct xp_optset set = { xp_simulate_opts.opts, sim_opt, &o };
	struct xp_live_opts lo = { 0 };
	struct xp_sim_report rep = { 0 };
	struct xp_sim_load l;
	const char *path = NULL;
	uint64_t t0, t_end;
	int status, err;

	status = xp_opts_parse("simulate", argc, argv, xp_simulate_opts.common, &lo, &set, 1, sim_help, NULL);
	if (status)
		return status < 0 ? xp_finish_stdout(0) : status;
	if ((status = xp_sim_file_operand("simulate", argc, argv, &path)))
		return status;
	if ((status = sim_check(&o, lo.json)))
		return status;
	if ((status = xp_sim_load_file("simulate", path, o.by_client, &l, &t0, &t_end)))
		return xp_finish_stdout(status);
	for (int k = 0; k < 4 && !status; k++)
		for (int i = 0; i < o.nset[k] && !status; i++)
			status = xp_sim_apply("simulate", sim_own[setopt[k]].name, o.set[k][i], &l.in, setters[k]);
	if (status)
		goto out;
	if (o.has_depth)
		for (uint16_t i = 0; i < l.in.nrings; i++)
			l.in.depth[i] = (uint32_t)o.depth;
	for (uint16_t i = 0; i < l.in.nrings; i++)
		if (!l.in.depth[i])
			l.in.depth[i] = 1;
	if (o.has_overhead) {
		l.in.overhead = o.overhead;
		free(l.in.react);	/* one constant instead of the recording's */
		l.in.react = NULL;
	}
	rep = (struct xp_sim_report){ .path = path, .in = &l.in, .params = o.p,
				      .overhead_measured = !o.has_overhead,
				      .left_out = l.no_queue + l.no_run };
	if ((err = xp_sim_recorded(&l.in, o.p.predict, &rep.res[0]))) {
		status = xp_fail(1, "simulate: %s", strerror(-err));
		goto out;
	}
	rep.names[rep.nres++] = "recorded";
	for (int i = 0; i < o.npolicies; i++) {
		struct xp_sim_params p = o.p;

		p.policy = (enum xp_sim_policy)o.policies[i];
		if ((err = xp_sim_run(&l.in, &p, &rep.res[rep.nres]))) {
			status = xp_fail(1, "simulate: %s: %s", path,
					 err == -EINVAL ? "the jobs' dependencies form a cycle" : strerror(-err));
			goto out;
		}
		rep.names[rep.nres++] = xp_sim_policy_name(p.policy);
	}
	if (o.perfetto)
		status = xp_sim_perfetto_out("simulate", o.perfetto, o.proto, t0, sim_perfetto, &rep);
	if (!status && (!o.perfetto || strcmp(o.perfetto, "-")))
		(lo.json ? xp_sim_report_json : xp_sim_report_text)(stdout, &rep);
out:
	for (int i = 0; i < rep.nres; i++)
		xp_sim_result_free(&rep.res[i]);
	xp_sim_load_free(&l);
	return xp_finish_stdout(status);
}
