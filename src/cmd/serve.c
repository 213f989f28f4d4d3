/*
 * xputrace serve: what the capabilities trace, as Prometheus / OpenMetrics
 * metrics over HTTP, per cgroup (and container, pod, unit), for as long as
 * it runs. xputrace top: the same metrics, per process, as a table
 * refreshed every interval (sinks/top.c), on the terminal or as plain text.
 *
 * The rows with metrics hooks (cap.h) are opened as `record` opens them,
 * into one ring buffer, records not aggregated in the kernel (each carries
 * its cgroup id); the tracing thread feeds them into the metrics under a
 * lock; the HTTP server (sinks/http.c) renders a scrape on its own thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/runner.h"
#include "cmd/serve.h"
#include "core/cgroups.h"
#include "sinks/cgroup_labels.h"
#include "core/parse.h"
#include "live/kernel_side.h"
#include "live/session.h"
#include "sinks/http.h"
#include "sinks/metrics.h"
#include "live/tracefs.h"
#include "sinks/top.h"

#define DEFAULT_LISTEN "127.0.0.1:9464"
/* where a Kubernetes node's kubelet keeps containers/ and pods/ (core/cgroups.h's xp_k8s_names) */
#define KUBELET_LOGS "/var/log"

static const struct xp_cap_opt serve_own[] = {
	{ "listen", 'l', "ADDR:PORT", "where to serve (default " DEFAULT_LISTEN ", loopback only;\n"
				      "another address exposes the metrics to whoever reaches it)", false, NULL },
	{ "per-process", 0, NULL, "pid and comm labels too (series churn with processes)", false, NULL },
	{ "max-series", 0, "N", "series kept (default 10000); later ones are added up in\n"
				"an `other` series, and xputrace_series_folded_total counts them", false, NULL },
	{ NULL },
};
const struct xp_verb_opts xp_serve_opts = {
	XP_O_DURATION | XP_O_FILTERS | XP_O_DEVICE | XP_O_VERBOSE, serve_own
};

static const struct xp_cap_opt top_own[] = {
	{ "sort", 's', "KEY", "the column the rows are sorted by, most first (default:\n"
			      "the first; pid, comm and cgroup sort by name)", false, NULL },
	{ "max-series", 0, "N", "series kept (default 10000); later ones are added up in\n"
				"an (other) row", false, NULL },
	{ "sources", 0, NULL, "GPU busy time a column per source (drm_sched, cupti,\n"
			      "fdinfo) and the first two's difference, not the best\n"
			      "source's alone", false, NULL },
	{ NULL },
};
const struct xp_verb_opts xp_top_opts = {
	XP_O_DURATION | XP_O_INTERVAL | XP_O_FILTERS | XP_O_DEVICE | XP_O_VERBOSE, top_own
};

static bool has_metrics(const struct xp_cap *c)
{
	return c->metrics_init != NULL;
}

/* Unless capabilities are named: those with metrics whose events this kernel has (any of them). */
static bool serve_default(const struct xp_cap *c)
{
	if (!has_metrics(c))
		return false;
	for (int i = 0; c->events && i < c->nev; i++)
		if (xp_tracefs_event_exists(c->events[i].group, c->events[i].name))
			return true;
	if (!c->events && c->metrics_tp[0])
		return xp_tracefs_event_exists(c->metrics_tp[0], c->metrics_tp[1]);
	return !c->events;
}

static const char top_about[] =
"The numbers 'xputrace serve' serves, per process: a row per process active\n"
"in the last interval with each counter's rate per second (time in seconds\n"
"as a percentage of one CPU), its cgroup beside it, and a row per ring,\n"
"CRTC or timeline for the counters of no process; refreshed every -i\n"
"SECONDS (default 1). On a terminal it takes the screen: a strip per ring of\n"
"its GPU busy share over the last 60 refreshes (else of the events per\n"
"second) above the table, fitted to the window's width; keys: q quits,\n"
"s or > sorts by the next column, < by the one before, r reverses, v shows\n"
"processes, cgroups or devices, h shows the keys. Piped (or where no key can\n"
"be read) each refresh is a block of plain text. Columns come\n"
"from the capabilities with metrics (%s; unless named, those whose\n"
"events this kernel has); --sort picks the order. q, Ctrl-C, SIGTERM or the\n"
"end of -d ends it.\n";
static const char top_examples[] =
"  xputrace top                              every process using a GPU, each second\n"
"  xputrace top -s ioctl_errors -i 5         the most failing first, every 5 s\n"
"  xputrace top -d 10 | tail                 plain text when piped\n";

static const char serve_about[] =
"Serves what the capabilities trace as metrics over HTTP: GET /metrics in the\n"
"Prometheus text format 0.0.4, or OpenMetrics 1.0.0 when the Accept header asks\n"
"for application/openmetrics-text. Counters per cgroup v2 path, with the\n"
"container id (docker, containerd, cri-o, podman), the Kubernetes pod UID and\n"
"the systemd unit the path names, and on a Kubernetes node the namespace, pod\n"
"and container names from the kubelet's /var/log/containers and /var/log/pods;\n"
"with --per-process per pid and comm too.\n"
"Capabilities: unless named, every one with metrics (%s) whose\n"
"events this kernel has. xputrace's own drops and events are metrics too, and\n"
"the HTTP connections it shed (past 512, idle or slow, or not reading).\n"
"It listens on loopback unless --listen names another address: whoever\n"
"reaches it sees the cgroup paths, container ids and (with --per-process)\n"
"the process names of GPU users on this machine.\n"
"Ctrl-C, SIGTERM or the end of -d ends it.\n";
static const char serve_examples[] =
"  xputrace serve                            metrics at http://127.0.0.1:9464/metrics\n"
"  xputrace serve --listen 0.0.0.0:9464      to a Prometheus on another host\n"
"  xputrace serve --per-process -G /sys/fs/cgroup/gpu.slice\n"
"  curl -s 127.0.0.1:9464/metrics | grep xputrace_ioctls_total\n";

/* serve's or top's --help: `about` names the capabilities with metrics where it says %s */
static void help(const void *ctx)
{
	const struct serve_run *r = ctx;
	const struct xp_verb_opts *vo = r->top ? &xp_top_opts : &xp_serve_opts;
	char names[128] = "";
	size_t k = 0;

	for (int i = 0; i < r->nci && k < sizeof(names); i++)
		if (has_metrics(r->ci[i].cap))
			k += (size_t)snprintf(names + k, sizeof(names) - k, "%s%s", k ? ", " : "", r->ci[i].cap->name);
	printf("Usage: xputrace %s [OPTIONS] [CAPABILITY...]\n\n", r->verb);
	printf(r->top ? top_about : serve_about, names);
	printf("\nOptions:\n");
	xp_opts_help(stdout, vo->common, vo->opts);
	xp_multi_caps_help(stdout, &(struct xp_multi_caps){ .ci = r->ci, .nci = r->nci, .takes = has_metrics });
	printf("\nExamples:\n%s", r->top ? top_examples : serve_examples);
}

static int serve_opt(void *ctx, int i, const char *arg)
{
	struct serve_run *r = ctx;

	if (i == 0) {
		if (!*arg)
			return xp_fail(2, "%s: --listen wants ADDR:PORT, not ''", r->verb);
		r->listen = arg;
	} else if (i == 1) {
		r->per_process = true;
	} else if (xp_parse_u64(arg, 1, 100000000, &r->max_series)) {
		return xp_fail(2, "%s: --max-series wants a number from 1 to 100000000, not '%s'", r->verb, arg);
	}
	return 0;
}

static int top_opt(void *ctx, int i, const char *arg)
{
	struct serve_run *r = ctx;

	if (i == 0) {
		r->sort = arg;
		return 0;
	}
	if (i == 2) {
		r->sources = true;
		return 0;
	}
	return serve_opt(ctx, 2, arg);	/* --max-series, as serve takes it */
}

static int parse(int argc, char **argv, struct serve_run *r)
{
	struct xp_optset own = { r->top ? xp_top_opts.opts : xp_serve_opts.opts, r->top ? top_opt : serve_opt,
				 r };
	struct xp_multi_caps mc = { r->ci, r->nci, r->want, has_metrics, serve_default,
				    r->top ? "shows" : "serves", "metrics", NULL, NULL, false, false };
	int status = xp_opts_parse_multi(r->verb, argc, argv, r->top ? xp_top_opts.common : xp_serve_opts.common,
					 &r->o, &own, &mc, help, r);

	r->named = mc.named;
	return status;
}

/*
 * The labels of a cgroup id, first in a series' labels: its path and what the
 * path names, kept per id by the cache. Under r->lock.
 */
static void cgroup_labels(void *ctx, uint64_t id, char *buf, size_t len)
{
	struct serve_run *r = ctx;
	const char *l = r->cg && !buf[0] ? xp_cgroup_cache_labels(r->cg, id, KUBELET_LOGS, xp_now_ns()) : NULL;
	const char *path;

	if (l && strlen(l) < len) {
		memcpy(buf, l, strlen(l) + 1);
		return;
	}
	path = r->cg ? xp_cgroup_cache_path(r->cg, id) : NULL;
	/* a cgroup gone before it was first seen: one series for all such */
	xp_cgroup_labels(path ? path : "(unknown)", KUBELET_LOGS, buf, len);
}

static void no_labels(void *ctx, char *buf, size_t len)
{
	(void)ctx, (void)buf, (void)len;
}

static void one_label(void *ctx, char *buf, size_t len)
{
	const char *const *kv = ctx;

	xp_labels_add(buf, len, kv[0], kv[1]);
}

/* serve: the HTTP connections its server shed (sinks/http.h), by reason. */
static int shed_metrics(struct serve_run *r)
{
	int sh = xp_metrics_family(&r->m, "xputrace_http_connections_shed", "HTTP connections closed "
				   "by serve: for a newer one past 512 (idle, slow_head, unread), not reading "
				   "while responses held passed their bound (unread), or past a timeout "
				   "(head_timeout, write_timeout)", NULL, XP_METRIC_COUNTER, 1, false);

	if (sh < 0)
		return -ENOMEM;
	for (int i = 0; i < XP_HTTP_SHED_N; i++) {
		const char *kv[2] = { "reason", xp_http_shed_names[i] };

		if (!(r->shed[i] = xp_metrics_series(&r->m, sh, &(struct xp_metric_key){ { (uint64_t)i } },
						     one_label, kv)))
			return -ENOMEM;
	}
	return 0;
}

/* xputrace's own metrics: not bounded by --max-series, made once here. */
static int self_metrics(struct serve_run *r)
{
	static const char *const causes[XP_DROP_ALL] = { "ringbuf", "map_full", "kernel_missed" };
	struct xp_metrics *m = &r->m;
	int ev, dr, se, fo;

	ev = xp_metrics_family(m, "xputrace_events", "Records read from the kernel, by capability",
			       NULL, XP_METRIC_COUNTER, 1, false);
	dr = xp_metrics_family(m, "xputrace_drops", "Records lost: ring buffer full, a kernel map "
			       "full, or runs the kernel skipped", NULL, XP_METRIC_COUNTER, 1, false);
	se = xp_metrics_family(m, "xputrace_series", "Series served, of at most --max-series",
			       NULL, XP_METRIC_GAUGE, 1, false);
	fo = xp_metrics_family(m, "xputrace_series_folded", "Label sets added up in an other=\"true\" "
			       "series, past --max-series", NULL, XP_METRIC_COUNTER, 1, false);
	if (ev < 0 || dr < 0 || se < 0 || fo < 0)
		return -ENOMEM;
	for (int i = 0; i < r->nci; i++) {
		const char *kv[2] = { "capability", r->ci[i].cap->name };

		if (r->want[i] && r->ci[i].k &&
		    !(r->events[i] = xp_metrics_series(m, ev, &(struct xp_metric_key){ { (uint64_t)i } },
						       one_label, kv)))
			return -ENOMEM;
	}
	for (int i = 0; i < XP_DROP_ALL; i++) {
		const char *kv[2] = { "cause", causes[i] };

		if (!(r->drops[i] = xp_metrics_series(m, dr, &(struct xp_metric_key){ { (uint64_t)i } },
						      one_label, kv)))
			return -ENOMEM;
	}
	r->series = xp_metrics_series(m, se, &(struct xp_metric_key){ { 0 } }, no_labels, NULL);
	r->folded = xp_metrics_series(m, fo, &(struct xp_metric_key){ { 0 } }, no_labels, NULL);
	return r->series && r->folded ? (r->top ? 0 : shed_metrics(r)) : -ENOMEM;
}

/* The HTTP thread's scrape: the metrics as they are now. */
static void render(void *ctx, FILE *f, bool openmetrics, const uint64_t *shed)
{
	struct serve_run *r = ctx;

	pthread_mutex_lock(&r->lock);
	if (r->shed[XP_HTTP_SHED_N - 1]) {	/* else start-up has not made them yet */
		r->series->value = r->m.nbounded;
		r->folded->value = r->m.folded;
		for (int i = 0; i < XP_HTTP_SHED_N; i++)
			r->shed[i]->value = shed[i];
	}
	xp_metrics_write(f, &r->m, openmetrics);
	pthread_mutex_unlock(&r->lock);
}

static int on_record(void *ctx, const struct xp_rec_hdr *h)
{
	struct serve_run *r = ctx;
	int err = 0;

	for (int i = 0; i < r->nci; i++)
		if (r->want[i] && r->ci[i].k && r->ci[i].cap->rec->type == h->type) {
			pthread_mutex_lock(&r->lock);
			r->events[i]->value++;
			err = r->ci[i].cap->metrics_feed(&r->ci[i], h);
			pthread_mutex_unlock(&r->lock);
			if (err == 1) {	/* undecodable: counted, not fatal */
				r->ci[i].undecodable++;
				err = 0;
			}
			break;
		}
	return err;
}

/* The samplers' metrics, at most about once a second (`force`: now). 0 or -errno. */
static int sample(struct serve_run *r, bool force)
{
	uint64_t now = xp_now_ns();
	int err = 0;

	if (!r->samplers || (!force && r->sampled_ns && now - r->sampled_ns < 900000000ull))
		return 0;
	r->sampled_ns = now;
	for (int i = 0; !err && i < r->nci; i++)
		if (r->want[i] && (r->ci[i].cap->flags & XP_CAP_SAMPLER)) {
			pthread_mutex_lock(&r->lock);
			err = r->ci[i].cap->metrics_sample(&r->ci[i]);
			pthread_mutex_unlock(&r->lock);
		}
	return err;
}

/* The session's timer: the rows' upkeep (cuda: new library files), the drop counters, the samples. */
static int on_tick(void *ctx, uint64_t n)
{
	struct serve_run *r = ctx;
	uint64_t d[XP_DROP_ALL];
	int err;

	(void)n;
	if ((err = xp_caps_upkeep(r->ci, r->nci, r->want, NULL)))
		return err;
	if (!r->sess.rb || xp_session_drops_for(&r->sess, d, false))
		return sample(r, r->top);
	pthread_mutex_lock(&r->lock);
	for (int i = 0; i < XP_DROP_ALL; i++)
		r->drops[i]->value = d[i];
	pthread_mutex_unlock(&r->lock);
	return sample(r, r->top);
}

/* top's timer: the drops, then the table. */
static int on_refresh(void *ctx, uint64_t n)
{
	struct serve_run *r = ctx;

	on_tick(ctx, n);
	return xp_top_refresh(r);
}

/* Opens the rows asked for into one ring buffer, as record does. Returns an exit status. */
static int open_caps(struct serve_run *r)
{
	struct xp_live_share share = { 0 };
	struct xp_open_args oa = { .f = &r->o.f, .devs = &r->devs, .aggregate = false, .share = &share,
				   .metrics_only = true };
	struct xp_metrics_in mi = { .m = &r->m, .per_process = r->per_process,
				    .cgroup_labels = cgroup_labels, .ctx = r, .pids = &r->pids };
	struct xp_multi_caps mc = { .ci = r->ci, .nci = r->nci, .want = r->want, .named = r->named,
				    .optional = true };
	int err, status;

	for (int i = 0; i < r->nci; i++) {
		if (!r->want[i])
			continue;
		if ((status = xp_open_shared(r->verb, &mc, i, &oa, &share, &r->sess, &r->owner)))
			return status < 0 ? 0 : status;
		if (!r->ci[i].k && !(r->ci[i].cap->flags & XP_CAP_SAMPLER))
			continue;	/* optional, and it failed: said */
		if (!(r->ci[i].mst = calloc(1, r->ci[i].cap->metrics_size)))
			return xp_fail(1, "%s: %s", r->verb, strerror(ENOMEM));
		if ((err = r->ci[i].cap->metrics_init(&r->ci[i], &mi)))
			return xp_fail(1, "%s: %s", r->verb, strerror(-err));
		r->samplers |= (r->ci[i].cap->flags & XP_CAP_SAMPLER) != 0;
	}
	return 0;
}

static int serve(struct serve_run *r, int argc, char **argv)
{
	const char *verb = r->verb;
	char why[256], what[512] = "";
	size_t k = 0;
	uint64_t stopped;
	bool screen = false;	/* top took the terminal's screen */
	int err, status;

	r->ci = calloc(xp_ncaps, sizeof(*r->ci));
	r->want = calloc(xp_ncaps, sizeof(*r->want));
	r->more_obj = calloc(xp_ncaps, sizeof(*r->more_obj));
	r->events = calloc(xp_ncaps, sizeof(*r->events));
	r->sess.more_obj = r->more_obj;
	if (!r->ci || !r->want || !r->more_obj || !r->events)
		return xp_fail(1, "%s: out of memory", verb);
	for (size_t i = 0; i < xp_ncaps; i++)
		if (xp_cap_runs(xp_caps[i]) && !xp_cap_inst_new(&r->ci[r->nci], xp_caps[i], &r->env))
			r->nci++;
	r->listen = DEFAULT_LISTEN;
	r->max_series = XP_METRICS_DEFAULT_MAX_SERIES;
	status = parse(argc, argv, r);
	if (status)
		return status < 0 ? xp_finish_stdout(0) : status;
	if (optind < argc)
		return xp_fail(2, "%s: unexpected argument '%s'", verb, argv[optind]);
	/* top is per process: that is its table's row */
	r->per_process |= r->top;
	xp_libbpf_quiet(r->o.verbose);
	if ((status = xp_live_targets(&r->o, verb, &r->devs)))
		return status;
	r->env = (struct xp_cap_env){ .live = true, .out = XP_OUT_SUMMARY, .f = stdout, .filt = r->o.f,
				      .devs = &r->devs };
	xp_metrics_init(&r->m, r->max_series);
	if (!(r->cg = xp_cgroup_cache_new(NULL)))
		return xp_fail(1, "%s: out of memory", verb);
	/* the port first: a port taken fails before any program is loaded */
	if (!r->top && (err = xp_http_start(&r->http, r->listen, render, r, why, sizeof(why))))
		return xp_fail(err == -EINVAL ? 2 : 1, "%s: %s", verb, why);
	/* the HTTP thread renders from here on: everything it reads is made under the lock */
	pthread_mutex_lock(&r->lock);
	status = open_caps(r);
	if (!status && (err = self_metrics(r)))
		status = xp_fail(1, "%s: %s", verb, strerror(-err));
	pthread_mutex_unlock(&r->lock);
	if (status)
		return status;
	if (r->top && r->sort && !xp_top_sort_known(&r->m, r->sort))
		return xp_fail(2, "top: --sort wants a column (see the heads: ioctls, ...), pid, comm or "
				  "cgroup, not '%s'", r->sort);
	if (!r->owner && (!r->samplers || xp_stop)) {	/* a signal during start-up */
		xp_caps_detach(r->verb, r->ci, r->nci);
		return 0;
	}
	r->sess.duration_s = r->o.duration_s;
	/* serve: the timer that reads the drops; top: its refresh */
	r->sess.interval_s = r->top ? (r->o.interval_s ? r->o.interval_s : 1.0) : 0.5;
	r->sess.on_record = on_record;
	r->sess.on_interval = r->top ? on_refresh : on_tick;
	r->sess.ctx = r;
	if (!r->owner)		/* samplers alone: no ring buffer, the session only waits */
		r->sess.drops_fd = -1;
	else if ((err = xp_session_open(&r->sess, r->owner->events, r->owner->drops)))
		return xp_fail(1, "%s: cannot read the ring buffer: %s", verb, strerror(-err));
	/* the samplers' first sample: what was used before it is not counted */
	if ((err = sample(r, true)))
		return xp_fail(1, "%s: %s", verb, strerror(-err));
	r->sess.t_start_ns = r->sess.t_interval_ns = r->last_ns = xp_now_ns();
	for (int i = 0; i < r->nci; i++)
		if (r->want[i] && (r->ci[i].k || r->ci[i].cap->flags & XP_CAP_SAMPLER) && k < sizeof(what))
			k += (size_t)snprintf(what + k, sizeof(what) - k, "%s%s (%s)", k ? ", " : "",
					      r->ci[i].cap->name, r->ci[i].k ? r->ci[i].k->hook : "sampled");
	if (!xp_stop) {
		/* tests wait for "Tracing" and read the address from this line */
		if (r->top)
			fprintf(stderr, "Tracing %s%s\n", what, r->o.duration_s ? "" : "... Ctrl-C to end.");
		else
			fprintf(stderr, "Tracing %s; metrics at http://%s/metrics%s\n", what,
				xp_http_addr(r->http), r->o.duration_s ? "" : "... Ctrl-C to end.");
		xp_top_take_screen(r);
		err = xp_session_run(&r->sess);
		screen = xp_top_give_screen(r);	/* the terminal back before anything more is said */
		if (screen)
			xp_kside_release_later();	/* and the shell's prompt at once */
	}
	stopped = xp_now_ns();
	err = xp_multi_finish(verb, &(struct xp_multi_caps){ .ci = r->ci, .nci = r->nci, .want = r->want },
			      &r->sess, stopped, err);
	for (int i = 0; i < r->nci; i++)
		if (r->want[i] && r->ci[i].k)
			xp_say_undecodable(verb, &r->ci[i]);
	/* top: what came since the last refresh is shown too */
	if (r->top && !screen && (!err || err == -EINTR)) {
		on_tick(r, 0);
		err = xp_top_refresh(r);
	}
	if (err == -EIO || err == -EPIPE)	/* the output failed, or its reader went away */
		return 1;
	if (err)
		return xp_fail(1, "%s: %s", verb, strerror(-err));
	return 0;
}

/* serve's last line on the connections its server shed, where it shed any. */
static void say_shed(const uint64_t *shed)
{
	char what[256] = "";
	uint64_t all = 0;
	size_t k = 0;

	for (int i = 0; i < XP_HTTP_SHED_N; i++)
		if (shed[i] && k < sizeof(what)) {
			all += shed[i];
			k += (size_t)snprintf(what + k, sizeof(what) - k, "%s%llu %s", k ? ", " : "",
					      (unsigned long long)shed[i], xp_http_shed_names[i]);
		}
	if (all)
		fprintf(stderr, "xputrace: serve: shed %llu HTTP connection%s (%s)\n", (unsigned long long)all,
			all == 1 ? "" : "s", what);
}

static int run_verb(const char *verb, int argc, char **argv)
{
	struct serve_run *r = calloc(1, sizeof(*r));
	uint64_t shed[XP_HTTP_SHED_N] = { 0 };
	int status;

	if (!r)
		return xp_fail(1, "%s: out of memory", verb);
	r->verb = verb;
	r->top = !strcmp(verb, "top");
	r->tty = r->top && isatty(STDOUT_FILENO);
	pthread_mutex_init(&r->lock, NULL);
	xp_pid_cgroups_init(&r->pids);
	r->env = (struct xp_cap_env){ .live = true, .out = XP_OUT_SUMMARY, .f = stdout };
	status = serve(r, argc, argv);
	/* the server first: no scrape reads what is freed below */
	xp_http_stop(r->http, shed);
	say_shed(shed);
	xp_session_close(&r->sess);
	for (int i = r->nci - 1; i >= 0; i--) {
		xp_kside_close(r->ci[i].k);
		xp_cap_inst_free(&r->ci[i]);
	}
	xp_cgroup_cache_free(r->cg);
	xp_pid_cgroups_free(&r->pids);
	xp_metrics_free(&r->m);
	free(r->ci);
	free(r->want);
	free(r->more_obj);
	free(r->events);
	pthread_mutex_destroy(&r->lock);
	free(r);
	return xp_finish_stdout(status);
}

int cmd_serve(int argc, char **argv)
{
	return run_verb("serve", argc, argv);
}

int cmd_top(int argc, char **argv)
{
	return run_verb("top", argc, argv);
}
