/* The nvidia capability: calls into the loaded nvidia.ko through kprobes. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "caps/cap.h"
#include "caps/nvidia/nvidia_metrics.h"
#include "core/msg.h"
#include "caps/nvidia/nvidia_facts.h"
#include "caps/nvidia/nvidia_flight.h"
#include "core/outfile.h"
#include "core/parse.h"
#include "live/kprobe.h"
#include "caps/nvidia/nvidia_stats.h"
#include "live/features.h"
#include "live/kernel_side.h"
#include "caps/nvidia/nvidia_live.h"
#include "live/procs.h"
#include "caps/nvidia/nvidia_report.h"

#define NV_MAJOR 195	/* /dev/nvidia0.., /dev/nvidiactl */

struct nv_opts {
	const char *on_xid;	/* --on-xid FILE */
	double keep_s;		/* --keep SECONDS */
	uint64_t sample;	/* --sample N: 1 in N ioctls per escape timed */
	/* set by the open, not by the user: what it found, for the summary */
	bool found_known;
	struct xp_nv_open_info info;	/* the functions attached, the Xid tracepoint, the hooks passed over */
	bool no_kprobes;	/* only the Xid tracepoint */
};

static const struct xp_cap_opt opts[] = {
	{ "on-xid", 0, "FILE", "flight recorder: keep the last --keep seconds of events in\n"
			       "memory; when an Xid comes, write them (and the next second's)\n"
			       "to FILE as a trace file for 'report' and 'export'", false,
	  "is the live verb's own recorder; 'record' keeps every event" },
	{ "keep", 0, "SECONDS", "what --on-xid keeps (default 10)", false,
	  "is --on-xid's window; 'record' keeps every event" },
	{ "sample", 0, "N", "time 1 in N ioctls of each escape (default 1: every call);\n"
			    "every call is still counted, in the kernel, and shown beside\n"
			    "the sampled ones", false,
	  "leaves the untimed calls as kernel counts, which a trace file lacks" },
	{ NULL },
};

static void nv_opts_init(void *p)
{
	((struct nv_opts *)p)->keep_s = 10;
	((struct nv_opts *)p)->sample = 1;
}

static int nv_opt(void *p, int i, const char *arg)
{
	struct nv_opts *o = p;

	if (i == 0) {
		if (!*arg)
			return xp_fail(2, "nvidia: --on-xid wants a file name");
		o->on_xid = arg;
		return 0;
	}
	if (i == 2) {
		if (xp_parse_u64(arg, 1, 1000000, &o->sample))
			return xp_fail(2, "nvidia: --sample wants a whole number from 1 to 1000000, not '%s'", arg);
		return 0;
	}
	if (xp_parse_seconds(arg, &o->keep_s) || o->keep_s < 0.1 || o->keep_s > 3600)
		return xp_fail(2, "nvidia: --keep wants seconds from 0.1 to 3600, not '%s'", arg);
	return 0;
}

static int nv_opts_check(void *p)
{
	const struct nv_opts *o = p;

	if (o->on_xid && o->sample > 1)
		return xp_fail(2, "nvidia: --on-xid keeps every call: it does not go with --sample %" PRIu64,
			       o->sample);
	return 0;
}

/* The instance's state: the analysis, and the flight recorder when --on-xid. */
struct nv_st {
	struct xp_nv_state *s;
	struct xp_nv_flight fl;
	bool flight;
	uint64_t pending;	/* an Xid's time: write once a second of later events is kept */
	bool written;
	uint64_t xids_after;	/* Xids after the file was written */
	/* --sample: the kernel's count per escape at the start of the interval */
	struct nv_seen { uint32_t cmd; uint64_t n; } seen_base[XP_NV_MAX_ESC], seen_next[XP_NV_MAX_ESC];
	int nseen_base, nseen_next;
};

static bool nv_available(const struct xp_doctor_env *d, char *why, size_t len)
{
	bool mod = d->module_loaded("nvidia");
	bool xid = mod && d->at[XP_AT_TRACEPOINT].ok && d->event_exists(XP_NV_XID_GROUP, XP_NV_XID_EVENT);
	char passed[400];
	const char *hook = xp_nv_hook_plan(d->at, passed, sizeof(passed));

	if (hook && mod)
		snprintf(why, len, "%s on nvidia.ko%s%s%s", hook, passed[0] ? " (not " : "", passed,
			 passed[0] ? ")" : "");
	else
		snprintf(why, len, "%s", !hook && xid ? "kprobes unavailable: Xids only (nvidia:nvidia_dev_xid); "
							"ioctls to /dev/nvidia* are traced by 'ioctl'"
				       : !hook ? "kprobes unavailable; ioctls to /dev/nvidia* are still traced by 'ioctl'"
					       : "the nvidia module is not loaded");
	return mod && (hook || xid);
}

static int nv_open_k(struct xp_cap_inst *ci, const struct xp_open_args *a, char *why, size_t len)
{
	struct nv_opts *o = ci->opts;
	int err;

	o->info.sample = (unsigned int)o->sample;
	o->info.xid_only = a->metrics_only;	/* serve counts Xids: the rest of nvidia.ko stays unprobed */
	err = xp_nv_live_open(&ci->k, a->f, a->share, &o->info, why, len);
	o->found_known = !err;
	o->no_kprobes = true;
	for (int i = 0; i < XP_NV_NFN; i++)
		o->no_kprobes &= !o->info.found[i];
	return err;
}

static void nv_describe(const struct xp_cap_inst *ci, char *buf, size_t len)
{
	const struct nv_opts *o = ci->opts;
	int n = 0;

	for (int i = 0; i < XP_NV_NFN; i++)
		n += o->info.found[i];
	if (o->no_kprobes)
		snprintf(buf, len, "nvidia Xids (tracepoint; no kprobes here: calls into nvidia.ko "
				   "are not seen)");
	else
		snprintf(buf, len, "nvidia.ko (%d of %d functions, %s%s%s%s%s%s)", n, XP_NV_NFN, ci->k->hook,
			 o->info.hook_note[0] ? ", " : "", o->info.hook_note,
			 o->info.xid ? ", Xid tracepoint" : "; no Xid tracepoint",
			 o->info.hook_why[0] ? "; not " : "", o->info.hook_why);
}

struct holders {
	int (*add)(void *ctx, uint32_t pid, const char *comm, uint32_t minor);
	void *ctx;
};

/* One process's fds on major 195, handed to `add`. */
static int holder_fds(void *ctx, unsigned long pid, const char *comm)
{
	const struct holders *h = ctx;
	struct dirent *fe;
	char path[300];
	struct stat st;
	DIR *fds;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%lu/fd", pid);
	if (!(fds = opendir(path)))
		return 0;
	while (!err && (fe = readdir(fds))) {
		if (fe->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%lu/fd/%s", pid, fe->d_name);
		if (!stat(path, &st) && S_ISCHR(st.st_mode) && major(st.st_rdev) == NV_MAJOR)
			err = h->add(h->ctx, (uint32_t)pid, comm, minor(st.st_rdev));
	}
	closedir(fds);
	return err;
}

/* The device files open now: every process's fds on major 195, handed to `add`. */
static int scan_holders(const struct xp_filters *filt,
			int (*add)(void *ctx, uint32_t pid, const char *comm, uint32_t minor), void *ctx)
{
	struct holders h = { add, ctx };

	return xp_procs_each(filt, holder_fds, &h);
}

/* The GPUs' PCI names and device minors, from the driver's procfs files. */
static int scan_gpus(int (*add)(void *ctx, const char *pci, uint32_t minor), void *ctx)
{
	DIR *d = opendir("/proc/driver/nvidia/gpus");
	struct dirent *e;
	char path[400], line[256];
	unsigned int minor;
	int err = 0;

	if (!d)
		return 0;
	while (!err && (e = readdir(d))) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information", e->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		while (!err && fgets(line, sizeof(line), f))
			if (sscanf(line, "Device Minor: %u", &minor) == 1)
				err = add(ctx, e->d_name, minor);
		fclose(f);
	}
	closedir(d);
	return err;
}

static int holder_to_state(void *ctx, uint32_t pid, const char *comm, uint32_t minor)
{
	xp_nv_add_holder(ctx, pid, comm, minor);
	return 0;
}

/* The snapshot's records, as the kernel side would write them. */
struct snap {
	int (*fn)(void *ctx, const struct xp_rec_hdr *h);
	void *ctx;
	uint64_t ts;
};

static int holder_rec(void *ctx, uint32_t pid, const char *comm, uint32_t minor)
{
	const struct snap *sn = ctx;
	struct xp_nv_rec r;

	xp_nv_snapshot_rec(&r, XP_NV_HOLDER, sn->ts, pid, comm, minor, 0);
	return sn->fn(sn->ctx, &r.h);
}

static int gpu_rec(void *ctx, const char *pci, uint32_t minor)
{
	const struct snap *sn = ctx;
	struct xp_nv_xid_rec x;

	xp_nv_gpu_rec(&x, sn->ts, pci, minor);
	return sn->fn(sn->ctx, &x.r.h);
}

/* Before tracing began: the GPUs first (Xids are tied by them), then the files held. */
static int nv_snapshot(struct xp_cap_inst *ci, const struct xp_filters *f, uint64_t ts,
		       int (*fn)(void *ctx, const struct xp_rec_hdr *h), void *ctx)
{
	struct snap sn = { fn, ctx, ts };
	int err;

	(void)ci;
	if ((err = scan_gpus(gpu_rec, &sn)))
		return err;
	return scan_holders(f, holder_rec, &sn);
}

static int nv_init(struct xp_cap_inst *ci)
{
	const struct nv_opts *o = ci->opts;
	struct nv_st *st = calloc(1, sizeof(*st));
	struct xp_nv_state *s = malloc(sizeof(*s));

	if (!st || !s) {
		free(st);
		free(s);
		return -ENOMEM;
	}
	xp_nv_init(s);
	s->probed_known = o->found_known;
	memcpy(s->probed, o->info.found, sizeof(s->probed));
	s->xid_known = o->found_known;
	s->xid_probed = o->info.xid;
	s->no_kprobes = o->found_known && o->no_kprobes;
	snprintf(s->xid_why, sizeof(s->xid_why), "%s", o->info.xid_why);
	if (o->found_known && !o->no_kprobes) {
		snprintf(s->hook_why, sizeof(s->hook_why), "%s", o->info.hook_why);
		snprintf(s->hook_note, sizeof(s->hook_note), "%s", o->info.hook_note);
	}
	s->t0 = ci->env->t0;
	s->sample = ci->env->live && o->sample > 1 ? (uint32_t)o->sample : 0;
	st->s = s;
	if (ci->env->live && o->on_xid) {
		if (xp_nv_flight_init(&st->fl, (uint64_t)(o->keep_s * 1e9))) {
			free(s);
			free(st);
			return -ENOMEM;
		}
		st->flight = true;
	}
	ci->st = st;
	return 0;
}

static void nv_free_st(struct xp_cap_inst *ci)
{
	struct nv_st *st = ci->st;

	if (st->flight)
		xp_nv_flight_free(&st->fl);
	free(st->s);
	free(st);
}

/* What the kernel side dropped so far: its drops map, missed probe hits, skipped runs. */
static void kernel_drops(const struct xp_kside *k, uint64_t d[XP_DROP_ALL])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v = ncpu > 0 ? calloc((size_t)ncpu, sizeof(*v)) : NULL;
	struct bpf_program *p;
	struct xp_map_calls mc;

	memset(d, 0, sizeof(uint64_t) * XP_DROP_ALL);
	xp_map_calls_begin(&mc);	/* (live/kernel_side.h) */
	for (uint32_t r = 0; v && r < XP_DROP_REASON_MAX; r++)
		if (!bpf_map__lookup_elem(k->drops, &r, sizeof(r), v, sizeof(*v) * (size_t)ncpu, 0))
			for (int c = 0; c < ncpu; c++)
				d[r] += v[c];
	xp_map_calls_end(&mc);
	free(v);
	d[XP_DROP_KERNEL_MISSED] = xp_kretprobes_missed();
	bpf_object__for_each_program(p, k->obj) {
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_program__fd(p);

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			d[XP_DROP_KERNEL_MISSED] += info.recursion_misses;
	}
}

static void flight_pre_free(struct xp_rec_hdr **pre, int n)
{
	for (int i = 0; i < n; i++)
		free(pre[i]);
	free(pre);
}

/* What the flight file begins with: the GPUs, and the files held when its first record was written. */
static int flight_pre(const struct nv_st *st, uint64_t ts, struct xp_rec_hdr ***out, int *n)
{
	const struct xp_nv_state *s = st->s;
	struct xp_nv_hold *h = calloc(XP_NV_MAX_HOLDS, sizeof(*h));
	struct xp_rec_hdr **pre = calloc((size_t)s->ngpus + XP_NV_MAX_HOLDS, sizeof(*pre));
	int nh = 0, k = 0, err = 0;

	if (!h || !pre) {
		err = -ENOMEM;
		goto out;
	}
	nh = xp_nv_flight_holders(&st->fl, s->holds, s->nholds, h, XP_NV_MAX_HOLDS);
	for (int i = 0; i < s->ngpus; i++) {
		struct xp_nv_xid_rec *x = malloc(sizeof(*x));

		if (!x) {
			err = -ENOMEM;
			goto out;
		}
		xp_nv_gpu_rec(x, ts, s->gpus[i].pci, s->gpus[i].minor);
		pre[k++] = &x->r.h;
	}
	for (int i = 0; i < nh; i++) {
		struct xp_nv_rec *r = malloc(sizeof(*r));

		if (!r) {
			err = -ENOMEM;
			goto out;
		}
		xp_nv_snapshot_rec(r, XP_NV_HOLDER, ts, h[i].pid, h[i].comm, h[i].minor, h[i].file);
		pre[k++] = &r->h;
	}
out:
	free(h);
	if (err) {
		flight_pre_free(pre, k);
		pre = NULL;
		k = 0;
	}
	*out = pre;
	*n = k;
	return err;
}

/* Writes what the flight recorder kept to the --on-xid file. */
static void flight_write(struct xp_cap_inst *ci, struct nv_st *st)
{
	const struct nv_opts *o = ci->opts;
	struct xp_trace_meta *m = calloc(1, sizeof(*m));
	struct xp_trace_stats ts = { 0 };
	struct xp_outfile of;
	struct xp_rec_hdr **pre = NULL;
	int err, npre = 0;
	char why[256];

	st->pending = 0;
	st->written = true;
	if (!m) {
		fprintf(stderr, "xputrace: nvidia: --on-xid: out of memory\n");
		return;
	}
	xp_trace_meta_host(m, XP_VERSION);
	m->start_ns = xp_nv_flight_oldest(&st->fl);
	xp_trace_meta_add_cap(m, "nvidia");
	snprintf(m->hook, sizeof(m->hook), "%s", ci->k ? ci->k->hook : "kprobe");
	m->filter_pid = ci->env->filt.pid;
	if (ci->env->filt.comm)
		snprintf(m->filter_comm, sizeof(m->filter_comm), "%s", ci->env->filt.comm);
	m->filter_cgroup = ci->env->filt.cgroup_id;
	if (ci->env->devs)
		m->devs = *ci->env->devs;
	if (ci->k)
		kernel_drops(ci->k, ts.drops);
	ts.ts_ns = m->start_ns;
	if ((err = xp_out_open(&of, o->on_xid, false, why, sizeof(why)))) {
		fprintf(stderr, "xputrace: nvidia: --on-xid: %s\n", why);
		xp_trace_meta_free(m);
		free(m);
		return;
	}
	if ((err = flight_pre(st, m->start_ns, &pre, &npre)) ||
	    (err = xp_nv_flight_write(&st->fl, of.fd, m, &ts, (const struct xp_rec_hdr *const *)pre, npre))) {
		xp_out_abort(&of);
		fprintf(stderr, "xputrace: nvidia: --on-xid: writing %s: %s\n", o->on_xid, strerror(-err));
	} else if ((err = xp_out_commit(&of, why, sizeof(why)))) {
		fprintf(stderr, "xputrace: nvidia: --on-xid: %s\n", why);
	} else {
		fprintf(stderr, "nvidia: an Xid came: the last %g s (%" PRIu64 " events%s) written to %s\n",
			o->keep_s, ts.records, st->fl.evicted_full ? ", older ones let go over the memory bound" : "",
			o->on_xid);
	}
	xp_trace_meta_free(m);
	free(m);
	flight_pre_free(pre, npre);
}

static int nv_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	const struct xp_nv_rec *r = (const void *)h;
	const struct xp_cap_env *e = ci->env;
	struct nv_st *st = ci->st;

	if (!xp_nv_rec_ok(h))
		return ci->undecodable++, 0;
	if (e->out == XP_OUT_PERFETTO) {
		xp_perfetto_nvidia(e->pf, r);
		return 0;
	}
	if (e->out == XP_OUT_STREAM && r->fn != XP_NV_GPU)
		(void)(e->json ? xp_nv_stream_json(e->stream_json, r, e->t0) : xp_nv_stream_text(e->f, r, e->t0));
	/* opens and closes unseen: who holds the GPU is read when an Xid comes */
	if (r->fn == XP_NV_XID && e->live && st->s->no_kprobes) {
		st->s->nholds = 0;
		scan_holders(&e->filt, holder_to_state, st->s);
	}
	xp_nv_add(st->s, r);
	/* the flight file gets the holders and GPUs of its own start, when written */
	if (st->flight && r->fn != XP_NV_HOLDER && r->fn != XP_NV_GPU) {
		xp_nv_flight_add(&st->fl, h);
		if (r->fn == XP_NV_XID) {
			if (st->written)
				st->xids_after++;
			else if (!st->pending)
				st->pending = h->ts_ns;
		}
		/* the ioctls in flight at the Xid end later: a second more is kept with it */
		if (st->pending && h->ts_ns >= st->pending + 1000000000ull)
			flight_write(ci, st);
	}
	return 0;
}

/*
 * --sample: the calls per escape the kernel counted since the last report;
 * what it read becomes the next interval's base at the reset.
 */
static void read_seen(struct xp_cap_inst *ci)
{
	struct nv_st *st = ci->st;
	struct bpf_map *m = ci->k ? bpf_object__find_map_by_name(ci->k->obj, XP_NV_SEEN_MAP) : NULL;
	uint32_t key, next, *prev = NULL;
	struct xp_map_calls mc;
	uint64_t n;

	if (!m || !st->s->sample)
		return;
	st->nseen_next = 0;
	xp_map_calls_begin(&mc);
	while (!bpf_map__get_next_key(m, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		if (bpf_map__lookup_elem(m, &key, sizeof(key), &n, sizeof(n), 0))
			continue;
		if (st->nseen_next < XP_NV_MAX_ESC)
			st->seen_next[st->nseen_next++] = (struct nv_seen){ key, n };
		for (int i = 0; i < st->nseen_base; i++)
			if (st->seen_base[i].cmd == key)
				n -= st->seen_base[i].n;
		xp_nv_set_seen(st->s, key, n);
	}
	xp_map_calls_end(&mc);
}

static void nv_report(struct xp_cap_inst *ci, FILE *f, const struct xp_cap_report *r)
{
	struct nv_st *st = ci->st;

	read_seen(ci);
	if (st->pending)
		flight_write(ci, st);
	if (r->final && st->xids_after)
		fprintf(stderr, "nvidia: %" PRIu64 " Xid%s after the --on-xid file was written: not in it\n",
			st->xids_after, st->xids_after == 1 ? "" : "s");
	if (r->json)
		xp_nv_report_json(f, st->s, r->ri);
	else
		xp_nv_report_text(f, st->s, r->ri, r->hist);
}

static void nv_reset(struct xp_cap_inst *ci, uint64_t now)
{
	struct nv_st *st = ci->st;

	(void)now;
	xp_nv_reset(st->s);
	memcpy(st->seen_base, st->seen_next, sizeof(st->seen_base));
	st->nseen_base = st->nseen_next;
}

static int nv_metrics_init(struct xp_cap_inst *ci, const struct xp_metrics_in *mi)
{
	return xp_nv_metrics_init(ci->mst, mi);
}

static int nv_metrics_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	return xp_nv_metrics_feed(ci->mst, h);
}

const struct xp_cap xp_cap_nvidia = {
	.name = "nvidia",
	.summary = "the NVIDIA driver from the inside: probes on nvidia.ko, Xid errors",
	.about =
"Probes on the functions of the loaded nvidia.ko (names and signatures from\n"
"NVIDIA's open kernel modules, listed in docs/nvidia.md with the versions they\n"
"hold for), looked up in the loaded module: one it lacks is a note, not a\n"
"failure. Attached by the cheapest hook that works: fentry/fexit where the\n"
"module has BTF, else kprobe.multi (Linux 6.7 and later, which count what it\n"
"misses), else one kprobe per function; 'Tracing ...' says which, and why not\n"
"the cheaper ones. Per process: opens, closes, ioctls, mmaps and bytes mapped, page\n"
"faults; the processes holding each device file now, also those that opened\n"
"it before tracing began (kept in 'record' files too). Per escape (NV_ESC_*):\n"
"calls, errors, latency, of every call or of 1 in N (--sample). Per\n"
"interrupt line: ISR, MSI-X ISR and bottom-half calls with latency histograms.\n"
"P2P page requests and DMA mappings; suspend and resume durations. Xid errors (the\n"
"nvidia:nvidia_dev_xid tracepoint, NVIDIA 575 and later) with the GPU's PCI\n"
"name, code and message, the processes that held that GPU and the ioctls in\n"
"flight at that moment. Where the kernel has none of those hooks, only Xids\n"
"are traced (where the module has the tracepoint), and 'xputrace ioctl'\n"
"still sees /dev/nvidia*. Not yet run on real NVIDIA hardware: checked\n"
"against a test double of the module with the same names and argument shapes.\n",
	.examples =
"  xputrace nvidia -d 10               calls into nvidia.ko for 10 s\n"
"  xputrace nvidia --stream -p 1234    one process's calls as they happen\n"
"  xputrace nvidia -j --no-hist        a JSON summary\n"
"  xputrace nvidia --sample 100        time 1 in 100 ioctls per escape, count all\n"
"  xputrace nvidia --on-xid xid.xpt    keep 10 s of events; write them when an Xid comes\n",
	.rec = &xp_nv_rec_kind,
	.opts = opts, .opts_size = sizeof(struct nv_opts), .opts_init = nv_opts_init, .opt = nv_opt,
	.opts_check = nv_opts_check,
	.available = nv_available, .open = nv_open_k, .snapshot = nv_snapshot, .describe = nv_describe,
	.init = nv_init, .free = nv_free_st, .feed = nv_feed, .stream_header = xp_nv_stream_header,
	.report = nv_report, .reset = nv_reset, .triggers = "xid", .trigger_match = xp_nv_xid_trigger,
	.metrics_size = sizeof(struct xp_nv_metrics),
	.metrics_init = nv_metrics_init, .metrics_feed = nv_metrics_feed,
	.metrics_tp = { XP_NV_XID_GROUP, XP_NV_XID_EVENT },
};
