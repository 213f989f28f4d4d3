/* The latency capability: the time between any two probes, per key. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/cap.h"
#include "caps/latency/latency_stats.h"
#include "core/flight_trigger.h"
#include "core/msg.h"
#include "core/parse.h"
#include "core/probespec.h"
#include "live/features.h"
#include "live/kernel_side.h"
#include "caps/latency/latency_live.h"
#include "live/tracefs.h"
#include "caps/latency/latency_report.h"

struct lat_opts {
	const char *from, *to, *key, *preset;
	uint64_t max_inflight, max_keys;
	double max_age_s;
	/* set by opts_check / open: what runs */
	struct xp_lat_live_cfg cfg;
	char from_s[512], to_s[512];
	bool resolved;
};

enum { O_FROM, O_TO, O_KEY, O_PRESET, O_MAX_INFLIGHT, O_MAX_AGE, O_MAX_KEYS };

static const struct xp_cap_opt opts[] = {
	[O_FROM] = { "from", 0, "PROBE", "where a pair starts: tracepoint:GROUP:EVENT,\nkprobe:FUNC, "
					  "kretprobe:FUNC, fentry:FUNC,\nfexit:FUNC, uprobe:LIB:SYMBOL, "
					  "uretprobe:LIB:SYMBOL", true, NULL },
	[O_TO] = { "to", 0, "PROBE", "where it ends (the same kinds)", true, NULL },
	[O_KEY] = { "key", 0, "FIELD[,FIELD]", "pair and group by these: tracepoint fields by\nname, "
						 "arg0..arg5 of a function, tid, pid\n(default: tid)", true, NULL },
	[O_PRESET] = { "preset", 0, "NAME", "a ready-made pair: syscall:NAME (enter to exit\nby thread), "
					   "iopf (IO page faults)", true, NULL },
	[O_MAX_INFLIGHT] = { "max-inflight", 0, "N", "starts kept waiting for their end (default\n10240, "
						     "rounded up to a power of two;\na key's starts share 32 places); "
						     "more are\ncounted and dropped", true, NULL },
	[O_MAX_AGE] = { "max-age", 0, "SECONDS", "a start older than this is aged out and\ncounted "
						 "(default 10)", false, NULL },
	[O_MAX_KEYS] = { "max-keys", 0, "N", "keys shown (default 4096); later keys are added\nup in "
					     "an (other keys) row", false, NULL },
	{ NULL },
};

static void lat_opts_init(void *p)
{
	struct lat_opts *o = p;

	o->max_inflight = 10240;
	o->max_keys = XP_LAT_DEFAULT_MAX_KEYS;
	o->max_age_s = 10;
}

static int lat_opt(void *p, int i, const char *arg)
{
	struct lat_opts *o = p;

	switch (i) {
	case O_FROM: o->from = arg; return 0;
	case O_TO: o->to = arg; return 0;
	case O_KEY: o->key = arg; return 0;
	case O_PRESET: o->preset = arg; return 0;
	case O_MAX_INFLIGHT:
		if (xp_parse_u64(arg, 16, 1u << 22, &o->max_inflight))
			return xp_fail(2, "latency: --max-inflight wants a number from 16 to 4194304, not '%s'", arg);
		return 0;
	case O_MAX_AGE:
		if (xp_parse_seconds(arg, &o->max_age_s) || o->max_age_s < 0.001)
			return xp_fail(2, "latency: --max-age wants seconds from 0.001 up, not '%s'", arg);
		return 0;
	case O_MAX_KEYS:
		if (xp_parse_u64(arg, 1, 1u << 20, &o->max_keys))
			return xp_fail(2, "latency: --max-keys wants a number from 1 to 1048576, not '%s'", arg);
		return 0;
	}
	return xp_fail(2, "latency: internal error: option %d", i);
}

/* Parses a probe into `p`; an exit status (2) on error. */
static int parse_probe(const char *what, const char *spec, struct xp_probe *p)
{
	char err[320];

	if (xp_probe_parse(spec, p, err, sizeof(err)))
		return xp_fail(2, "latency: %s %s", what, err);
	return 0;
}

static int set_pair(struct lat_opts *o, const char *from, const char *to, const char *key)
{
	char err[320];
	int st;

	if ((st = parse_probe("--from", from, &o->cfg.from)) || (st = parse_probe("--to", to, &o->cfg.to)))
		return st;
	if (xp_keyspec_parse(key, &o->cfg.key, err, sizeof(err)))
		return xp_fail(2, "latency: %s", err);
	xp_probe_str(&o->cfg.from, o->from_s, sizeof(o->from_s));
	xp_probe_str(&o->cfg.to, o->to_s, sizeof(o->to_s));
	return 0;
}

static int lat_opts_check(void *p)
{
	struct lat_opts *o = p;
	struct xp_lat_preset pr;
	char err[320];
	int pick = 0;

	o->cfg.max_inflight = (uint32_t)o->max_inflight;
	if (o->preset) {
		if (o->from || o->to)
			return xp_fail(2, "latency: --preset names the probes: no --from or --to with it");
		if (xp_lat_preset_get(o->preset, &pr, err, sizeof(err)))
			return xp_fail(2, "latency: %s", err);
		/* the first choice where this kernel has its tracepoint, else the fallback */
		if (pr.from[1][0] && !xp_tracefs_event_exists("smmu", "io_fault_entry"))
			pick = 1;
		return set_pair(o, pr.from[pick], pr.to[pick], o->key ? o->key : pr.key[pick]);
	}
	if (!o->from || !o->to)
		return xp_fail(2, "latency: give --from PROBE and --to PROBE, or --preset NAME; see "
				  "'xputrace latency --help'");
	return set_pair(o, o->from, o->to, o->key ? o->key : "tid");
}

static bool lat_available(const struct xp_doctor_env *d, char *why, size_t len)
{
	bool tp = d->at[XP_AT_TRACEPOINT].ok, kp = d->at[XP_AT_KPROBE].ok, up = d->at[XP_AT_UPROBE].ok;
	bool smmu = d->event_exists("smmu", "io_fault_entry") && d->event_exists("smmu", "io_fault_exit");

	snprintf(why, len, "probes: tracepoint %s, kprobe %s, uprobe %s; --preset iopf: %s",
		 tp ? "yes" : "no", kp ? "yes" : "no", up ? "yes" : "no",
		 smmu ? "smmu:io_fault_entry/exit events"
		 : kp ? "kprobes on iommu_report_device_fault (no smmu fault events)"
		      : "unavailable (no smmu fault events, no kprobes)");
	return tp || kp || up;
}

static int lat_open_k(struct xp_cap_inst *ci, const struct xp_open_args *a, char *why, size_t len)
{
	struct lat_opts *o = ci->opts;
	int err = xp_lat_live_open(&ci->k, &o->cfg, a->f, a->share, why, len);

	if (err && !why[0])
		snprintf(why, len, "latency: %s", strerror(-err));
	return err;
}

static void lat_describe(const struct xp_cap_inst *ci, char *buf, size_t len)
{
	const struct lat_opts *o = ci->opts;
	char keys[XP_LAT_NAMES] = "";

	for (int i = 0; i < o->cfg.key.n; i++)
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s", i ? "," : "",
			 o->cfg.key.name[i]);
	snprintf(buf, len, "latency from %s to %s by %s", o->from_s, o->to_s, keys);
}

struct lat_inst {
	struct xp_lat_state s;
	uint64_t base[XP_LAT_LIVE_N];	/* the kernel's counters at the interval's start */
	uint64_t aged_total, aged_base;
};

static int lat_init(struct xp_cap_inst *ci)
{
	struct lat_inst *li = calloc(1, sizeof(*li));

	if (!li)
		return -ENOMEM;
	xp_lat_init(&li->s, ((const struct lat_opts *)ci->opts)->max_keys);
	ci->st = li;
	return 0;
}

static void lat_free(struct xp_cap_inst *ci)
{
	struct lat_inst *li = ci->st;

	xp_lat_free(&li->s);
	free(li);
}

static int lat_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	const struct xp_lat_rec *r = (const void *)h;
	struct lat_inst *li = ci->st;
	const struct xp_cap_env *e = ci->env;
	int err;

	if (h->size < sizeof(*r))
		return ci->undecodable++, 0;
	if ((err = xp_lat_add(&li->s, r)))
		return err;
	if (e->out == XP_OUT_PERFETTO)
		xp_perfetto_latency(e->pf, &li->s, r);
	if (e->out == XP_OUT_STREAM) {
		if (e->json)
			xp_lat_stream_json(e->stream_json, &li->s, r, e->t0);
		else
			xp_lat_stream_text(e->f, &li->s, r, e->t0);
	}
	return 0;
}

/* Live: the kernel's counters and the in-flight table's ages. */
static int lat_drain(struct xp_cap_inst *ci, bool tick)
{
	(void)tick;
	struct lat_inst *li = ci->st;
	const struct lat_opts *o = ci->opts;
	uint64_t now[XP_LAT_LIVE_N], open = 0;
	bool known[2] = { false, false };
	int err;

	if (!ci->k)
		return 0;
	if ((err = xp_lat_live_age(ci->k, (uint64_t)(o->max_age_s * 1e9), &li->aged_total, &open)))
		return err;
	if ((err = xp_lat_live_counters(ci->k, now, known)))
		return err;
	li->s.have_kernel = true;
	for (int i = 0; i < XP_LAT_ST_MAX; i++)
		li->s.kstat[i] = now[i] - li->base[i];
	for (int i = 0; i < 2; i++) {
		uint64_t n = now[XP_LAT_LIVE_SKIPPED_STARTS + i], b = li->base[XP_LAT_LIVE_SKIPPED_STARTS + i];

		li->s.skipped[i] = n > b ? n - b : 0;
		li->s.skip_known[i] = known[i];
	}
	li->s.aged = li->aged_total - li->aged_base;
	li->s.open = open;
	return 0;
}

/* record: starts older than --max-age leave the in-flight table, as the live drain ages them */
static int lat_upkeep(struct xp_cap_inst *ci, uint64_t *let_go)
{
	const struct lat_opts *o = ci->opts;
	uint64_t open = 0;

	return ci->k ? xp_lat_live_age(ci->k, (uint64_t)(o->max_age_s * 1e9), let_go, &open) : 0;
}

static void lat_report(struct xp_cap_inst *ci, FILE *f, const struct xp_cap_report *r)
{
	struct lat_inst *li = ci->st;
	const struct lat_opts *o = ci->opts;
	struct xp_lat_report rep = { .st = &li->s, .ri = r->ri, .hist = r->hist };

	/* stream mode is never drained on a timer: the counters now */
	if (ci->env->live && ci->env->out == XP_OUT_STREAM)
		lat_drain(ci, false);
	if (ci->env->live) {
		rep.from = o->from_s;
		rep.to = o->to_s;
	}
	(r->json ? xp_lat_report_json : xp_lat_report_text)(f, &rep);
}

static void lat_reset(struct xp_cap_inst *ci, uint64_t now)
{
	struct lat_inst *li = ci->st;

	(void)now;
	for (int i = 0; i < XP_LAT_ST_MAX; i++)
		li->base[i] += li->s.kstat[i];
	for (int i = 0; i < 2; i++)
		li->base[XP_LAT_LIVE_SKIPPED_STARTS + i] += li->s.skipped[i];
	li->aged_base = li->aged_total;
	xp_lat_reset(&li->s);
}

/* record --trigger latency:over=T[:COMM]: a pair longer than T (COMM: of its starting thread) */
static bool lat_trigger(const struct xp_cap_inst *ci, const struct xp_trigger *t, const struct xp_rec_hdr *h,
			uint64_t *when)
{
	const struct xp_lat_rec *rec = (const void *)h;

	(void)ci;
	if (h->size < sizeof(*rec) || t->kind != XP_TRIG_OVER || rec->end_ns < h->ts_ns ||
	    rec->end_ns - h->ts_ns <= t->over_ns)
		return false;
	*when = rec->end_ns;
	return !t->name[0] || !strncmp(rec->comm, t->name, sizeof(rec->comm));
}

const struct xp_cap xp_cap_latency = {
	.name = "latency",
	.summary = "the time between any two probes, per key: count, stddev, percentiles, histogram",
	.about =
"The time from a --from probe to a --to probe, paired in the kernel by a key\n"
"(default: the thread), bcc style. PROBE is tracepoint:GROUP:EVENT,\n"
"kprobe:FUNC, kretprobe:FUNC, fentry:FUNC, fexit:FUNC, uprobe:LIB:SYMBOL or\n"
"uretprobe:LIB:SYMBOL. --key names up to two fields: a tracepoint's fields by\n"
"name (numbers and strings, read through its tracefs format), arg0..arg5 of a\n"
"function (at its entry, or at fexit), tid or pid; both probes must have them.\n"
"Per key: count, mean, standard deviation, min, p50/p90/p99 (exact), max and a\n"
"log2 histogram. INTERVAL prints and resets the summary every INTERVAL\n"
"seconds, COUNT times. Nested starts of one key end innermost first (up to 16\n"
"deep). Pairing takes no lock, so an end from an interrupt, a worker or another\n"
"CPU pairs with its start. The kernel counts ends without a start and starts\n"
"the in-flight table (--max-inflight) could not keep; starts older than\n"
"--max-age are aged out and counted; starts and ends the kernel skipped (one\n"
"BPF program per CPU at a time) are counted, or done from the event's\n"
"arguments where xputrace's own program was the cause; all are shown. The\n"
"process filters choose the starts; an end pairs with its start in any thread.\n",
	.examples =
"  xputrace latency --preset syscall:clock_nanosleep 1 5\n"
"                                       sleeps per thread, every second, 5 times\n"
"  xputrace latency --from tracepoint:smmu:io_fault_entry \\\n"
"        --to tracepoint:smmu:io_fault_exit --key dev,pasid 1 10\n"
"                                       IO page faults per device and PASID\n"
"  xputrace latency --from uprobe:libc.so.6:malloc --to uretprobe:libc.so.6:malloc -p 1234\n"
"                                       malloc() time per thread of one process\n",
	.flags = XP_CAP_POSITIONAL_INTERVAL,
	.rec = &xp_lat_rec_kind,
	.opts = opts, .opts_size = sizeof(struct lat_opts), .opts_init = lat_opts_init, .opt = lat_opt,
	.opts_check = lat_opts_check,
	.available = lat_available, .open = lat_open_k, .describe = lat_describe,
	.init = lat_init, .free = lat_free, .feed = lat_feed, .drain = lat_drain,
	.upkeep = lat_upkeep, .let_go = "starts aged out of the in-flight table (older than --max-age)",
	.stream_header = xp_lat_stream_header, .report = lat_report, .reset = lat_reset,
	.triggers = "over", .trigger_match = lat_trigger,
};
