/* The npu capability's kernel side (src/caps/npu/npu.bpf.c), on the generic multi-attach (kmulti). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "caps/npu/npu_stats.h"
#include "core/tpformat.h"
#include "live/features.h"
#include "caps/npu/npu_live.h"
#include "live/skel.h"
#include "live/tracefs.h"
#include "npu.skel.h"

XP_SKEL_OPS(npu);

static void live_free(void *p)
{
	struct xp_npu_live *l = p;

	xp_kmulti_free(&l->km);
	free(l->forget);
	free(l);
}

static void live_detach(struct xp_kside *k)
{
	xp_kmulti_detach(&((struct xp_npu_live *)k->priv)->km);
}

/* The address of a kernel symbol of vmlinux (not a module's), 0 when not found or hidden. */
static unsigned long long ksym(const char *name)
{
	char line[512], sym[256];
	unsigned long long addr, found = 0;
	FILE *f = fopen("/proc/kallsyms", "re");
	int n;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%llx %*c %255s", &addr, sym);
		if (n == 2 && !strcmp(sym, name) && !strchr(line, '['))
			found = addr;
	}
	fclose(f);
	return found;
}

/* A field of a vpu event: its offset where it has the name and size expected, else -1. */
static int field(const struct xp_tp_format *fmt, const char *name, unsigned int size)
{
	const struct xp_tp_field *f = xp_tp_field(fmt, name);

	return f && !f->data_loc && f->size == size ? f->offset : -1;
}

/* The driver's tracepoints, where this kernel has them with the fields read. */
static void tracepoints(struct xp_npu_live *l, const char *root)
{
	struct npu_bpf *s = l->skel;
	struct xp_tp_format *fmt = calloc(1, sizeof(*fmt));
	int o[5];

	if (!fmt)
		return;
	snprintf(l->tp_why, sizeof(l->tp_why), "this kernel's intel_vpu has no vpu:job/jsm/pm tracepoints");
	if (root && !xp_tp_format_load(root, XP_NPU_TP_GROUP, "job", fmt)) {
		o[0] = field(fmt, "event", 8), o[1] = field(fmt, "ctx_id", 4);
		o[2] = field(fmt, "engine_id", 4), o[3] = field(fmt, "job_id", 4);
		if ((l->tp_job = o[0] >= 0 && o[1] >= 0 && o[2] >= 0 && o[3] >= 0)) {
			s->rodata->job_event_off = (__u32)o[0], s->rodata->job_ctx_off = (__u32)o[1];
			s->rodata->job_engine_off = (__u32)o[2], s->rodata->job_id_off = (__u32)o[3];
		}
	}
	if (root && !xp_tp_format_load(root, XP_NPU_TP_GROUP, "jsm", fmt)) {
		o[0] = field(fmt, "event", 8), o[1] = field(fmt, "type", 8), o[2] = field(fmt, "status", 4);
		o[3] = field(fmt, "request_id", 4), o[4] = field(fmt, "result", 4);
		if ((l->tp_jsm = o[0] >= 0 && o[1] >= 0 && o[2] >= 0 && o[3] >= 0 && o[4] >= 0)) {
			s->rodata->jsm_event_off = (__u32)o[0], s->rodata->jsm_type_off = (__u32)o[1];
			s->rodata->jsm_status_off = (__u32)o[2], s->rodata->jsm_req_off = (__u32)o[3];
			s->rodata->jsm_result_off = (__u32)o[4];
		}
	}
	if (root && !xp_tp_format_load(root, XP_NPU_TP_GROUP, "pm", fmt)) {
		o[0] = field(fmt, "event", 8);
		if ((l->tp_pm = o[0] >= 0))
			s->rodata->pm_event_off = (__u32)o[0];
	}
	free(fmt);
	if ((l->tp_job || l->tp_jsm || l->tp_pm) ||
	    (!xp_tracefs_event_exists(XP_NPU_TP_GROUP, "job") && !xp_tracefs_event_exists(XP_NPU_TP_GROUP, "jsm") &&
	     !xp_tracefs_event_exists(XP_NPU_TP_GROUP, "pm")))
		return;
	snprintf(l->tp_why, sizeof(l->tp_why), "the vpu tracepoints have other fields than event, ctx_id, "
					       "engine_id, job_id / type, status, request_id, result");
}

/* A __data_loc string field of an event: its offset, or -1. */
static int loc_field(const struct xp_tp_format *fmt, const char *name)
{
	const struct xp_tp_field *f = xp_tp_field(fmt, name);

	return f && f->data_loc && !f->rel_loc && f->size == 4 ? f->offset : -1;
}

/* amdxdna's job event, and the gpu_scheduler's queue and done events that join its jobs. */
static void xdna_tracepoints(struct xp_npu_live *l, const char *root)
{
	struct npu_bpf *s = l->skel;
	struct xp_tp_format *fmt = calloc(1, sizeof(*fmt));
	int o[6];

	if (!fmt)
		return;
	snprintf(l->xdna_why, sizeof(l->xdna_why), "this kernel's amdxdna has no %s:xdna_job tracepoint",
		 XP_XDNA_TP_GROUP);
	if (!xp_tp_format_load(root, XP_XDNA_TP_GROUP, "xdna_job", fmt)) {
		o[0] = loc_field(fmt, "name"), o[1] = loc_field(fmt, "str");
		o[2] = field(fmt, "fence_context", 8), o[3] = field(fmt, "fence_seqno", 8);
		o[4] = field(fmt, "seq", 8), o[5] = field(fmt, "op", 4);
		/* an xdna_job without op: offset 0 tells the program there is none */
		if ((l->xdna = o[0] >= 0 && o[1] >= 0 && o[2] >= 0 && o[3] >= 0 && o[4] >= 0)) {
			s->rodata->xj_name_off = (__u32)o[0], s->rodata->xj_str_off = (__u32)o[1];
			s->rodata->xj_fctx_off = (__u32)o[2], s->rodata->xj_fseq_off = (__u32)o[3];
			s->rodata->xj_seq_off = (__u32)o[4];
			s->rodata->xj_op_off = o[5] >= 0 ? (__u32)o[5] : 0;
			l->xdna_why[0] = '\0';
		} else {
			snprintf(l->xdna_why, sizeof(l->xdna_why),
				 "%s:xdna_job has other fields than name, str, fence_context, fence_seqno, seq",
				 XP_XDNA_TP_GROUP);
		}
	}
	if (l->xdna && !xp_tp_format_load(root, "gpu_scheduler", "drm_sched_job_queue", fmt)) {
		o[0] = loc_field(fmt, "name"), o[1] = field(fmt, "fence_context", 8), o[2] = field(fmt, "fence_seqno", 8);
		if (o[0] >= 0 && o[1] >= 0 && o[2] >= 0 && !xp_tp_format_load(root, "gpu_scheduler", "drm_sched_job_done", fmt)) {
			o[3] = field(fmt, "fence_context", 8), o[4] = field(fmt, "fence_seqno", 8);
			if ((l->xdna_sched = o[3] >= 0 && o[4] >= 0)) {
				s->rodata->sq_name_off = (__u32)o[0], s->rodata->sq_fctx_off = (__u32)o[1];
				s->rodata->sq_fseq_off = (__u32)o[2];
				s->rodata->sd_fctx_off = (__u32)o[3], s->rodata->sd_fseq_off = (__u32)o[4];
			}
		}
	}
	if (l->xdna && !l->xdna_sched)
		snprintf(l->xdna_why, sizeof(l->xdna_why), "this kernel's gpu_scheduler events do not name the "
			 "job's fence (drm_sched_job_queue/done): no queue time, no submitting process");
	free(fmt);
}

/* intel_vpu's functions: resolved, and the timed ones found. 0, or -errno with `why`. */
static int intel_functions(struct xp_npu_live *l, const char *root, const char *const *lat, char *why,
			   size_t whylen)
{
	char path[300];
	int n;

	snprintf(path, sizeof(path), "%s/available_filter_functions", root);
	n = xp_kmulti_resolve(&l->km, path, XP_NPU_MODULE, XP_NPU_PATTERN, why, whylen);
	if (n <= 0) {
		if (!n)
			snprintf(why, whylen, "no %s function of %s is in %s", XP_NPU_PATTERN, XP_NPU_MODULE, path);
		return n ? n : -ENOENT;
	}
	if (n > XP_NPU_MAX_FN)
		l->km.n = XP_NPU_MAX_FN;
	/* the timed functions: buffer creation, then what --latency names */
	if (xp_kmulti_find(&l->km, "ivpu_bo_create_ioctl") >= 0)
		l->lat_fn[l->nlat++] = xp_kmulti_find(&l->km, "ivpu_bo_create_ioctl");
	for (int i = 0; lat && lat[i]; i++) {
		int fi = xp_kmulti_find(&l->km, lat[i]), dup = 0;

		if (fi < 0) {
			snprintf(why, whylen, "--latency %s: not an attachable function of %s (%s)", lat[i],
				 XP_NPU_MODULE, path);
			return -EINVAL;
		}
		for (int j = 0; j < l->nlat; j++)
			dup |= l->lat_fn[j] == fi;
		if (!dup && l->nlat < XP_NPU_MAX_LAT)
			l->lat_fn[l->nlat++] = fi;
	}
	return 0;
}

static int attach_tp(struct xp_kside *k, int *li, struct bpf_program *p, const char *group, const char *ev,
		     char *why, size_t whylen)
{
	int err;

	if (!(k->links[*li] = bpf_program__attach_tracepoint(p, group, ev))) {
		err = -errno;
		snprintf(why, whylen, "attaching to the tracepoint %s:%s: %s", group, ev, strerror(-err));
		return err;
	}
	(*li)++;
	return 0;
}

/* What xp_npu_live_open found before the skeleton, for its steps. */
struct npu_open {
	struct xp_feature at[XP_AT_MAX];
	const char *root;		/* tracefs */
	bool intel_mod, xdna_mod, per_call;
	bool jobs_only;			/* intel_vpu's job tracepoint alone (serve's metrics) */
	struct xp_npu_live *l;
};

/* The programs of what is traced here: intel_vpu's functions and tracepoints, amdxdna's events. */
static int configure(struct xp_kside *k, void *ctx, char *why, size_t whylen)
{
	struct npu_open *o = ctx;
	struct xp_npu_live *l = o->l;
	struct npu_bpf *s = k->skel;

	l->skel = s;
	k->on_detach = live_detach;
	s->rodata->per_call = o->per_call;
	if (l->intel) {
		/* x86-64: where the preempt counter of each CPU is (interrupt or not) */
		s->rodata->preempt_count_sym = ksym("__preempt_count");
		s->rodata->per_cpu_offset_sym = ksym("__per_cpu_offset");
		tracepoints(l, o->root);
		xp_kmulti_prepare(&l->km, s->progs.npu_entry, o->at[XP_AT_KPROBE_MULTI].ok);
		xp_kmulti_prepare(&l->km, s->progs.npu_return, o->at[XP_AT_KPROBE_MULTI].ok);
	}
	if (o->jobs_only) {
		/* serve counts intel_vpu's jobs: no function, message or PM event is probed */
		if (o->intel_mod)
			tracepoints(l, o->root);
		l->tp_jsm = l->tp_pm = false;
		if (!l->tp_job) {
			snprintf(why, whylen, "%s", o->intel_mod ? l->tp_why : "intel_vpu is not loaded");
			return -ENOENT;
		}
	} else if (o->xdna_mod) {
		xdna_tracepoints(l, o->root);
	}
	if (!l->intel && !l->xdna && !o->jobs_only) {
		snprintf(why, whylen, "%s%s%s", o->intel_mod ? "intel_vpu: " : "", o->intel_mod ? l->intel_why : "",
			 o->intel_mod ? "; " : "");
		snprintf(why + strlen(why), whylen - strlen(why), "amdxdna: %s", l->xdna_why);
		return -ENOENT;
	}
	k->hook = !l->intel ? "tracepoint" : l->km.multi ? "kprobe.multi" : "kprobe";
	bpf_program__set_autoload(s->progs.npu_entry, l->intel);
	bpf_program__set_autoload(s->progs.npu_return, l->intel && l->nlat > 0);
	bpf_program__set_autoload(s->progs.npu_job, l->tp_job);
	bpf_program__set_autoload(s->progs.npu_jsm, l->tp_jsm);
	bpf_program__set_autoload(s->progs.npu_pm, l->tp_pm);
	bpf_program__set_autoload(s->progs.xdna_job, l->xdna);
	bpf_program__set_autoload(s->progs.xdna_sched_queue, l->xdna_sched);
	bpf_program__set_autoload(s->progs.xdna_sched_done, l->xdna_sched);
	return 0;
}

/* intel_vpu's functions: their names for the kernel, each one's cookie, the returns first. */
static int attach_functions(struct xp_npu_live *l, struct npu_bpf *s, char *why, size_t whylen)
{
	int n = l->km.n, err = 0;
	uint64_t *ck = calloc((size_t)n, sizeof(*ck));

	if (!ck)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		char name[XP_NPU_NAME] = { 0 };
		__u32 key = (__u32)i;

		snprintf(name, sizeof(name), "%.*s", XP_NPU_NAME - 1, l->km.fn[i].name);
		bpf_map__update_elem(s->maps.npu_names, &key, sizeof(key), name, sizeof(name), BPF_ANY);
		ck[i] = (uint64_t)i | (xp_npu_irq_name(l->km.fn[i].name) ? XP_NPU_CK_IRQ : 0);
	}
	for (int j = 0; j < l->nlat; j++)
		ck[l->lat_fn[j]] |= (uint64_t)(j + 1) << 16;
	/* the returns first: every timed call whose entry is seen has its return seen */
	if (l->nlat)
		err = xp_kmulti_attach(&l->km, s->progs.npu_return, true, l->lat_fn, l->nlat, ck, why, whylen);
	if (!err)
		err = xp_kmulti_attach(&l->km, s->progs.npu_entry, false, NULL, 0, ck, why, whylen);
	free(ck);
	return err;
}

static int attach(struct xp_kside *k, void *ctx, char *why, size_t whylen)
{
	struct xp_npu_live *l = ((struct npu_open *)ctx)->l;
	struct npu_bpf *s = k->skel;
	int err = 0, li = 0;

	if (l->intel && (err = attach_functions(l, s, why, whylen)))
		return err;
	/* the done and queue events before the driver's: a job's later events are never missed */
	if ((l->xdna_sched &&
	     ((err = attach_tp(k, &li, s->progs.xdna_sched_done, "gpu_scheduler", "drm_sched_job_done", why, whylen)) ||
	      (err = attach_tp(k, &li, s->progs.xdna_sched_queue, "gpu_scheduler", "drm_sched_job_queue", why,
			       whylen)))) ||
	    (l->xdna && (err = attach_tp(k, &li, s->progs.xdna_job, XP_XDNA_TP_GROUP, "xdna_job", why, whylen))) ||
	    (l->tp_job && (err = attach_tp(k, &li, s->progs.npu_job, XP_NPU_TP_GROUP, "job", why, whylen))) ||
	    (l->tp_jsm && (err = attach_tp(k, &li, s->progs.npu_jsm, XP_NPU_TP_GROUP, "jsm", why, whylen))) ||
	    (l->tp_pm && (err = attach_tp(k, &li, s->progs.npu_pm, XP_NPU_TP_GROUP, "pm", why, whylen))))
		return err;
	return 0;
}

/* Whether anything can be traced here: a driver loaded, and a hook for it. 0 or -errno with why. */
static int check(struct npu_open *o, char *why, size_t whylen)
{
	struct xp_feature *at = o->at;
	bool kp;

	xp_probe_attach_types_of(at, 1u << XP_AT_TRACEPOINT | 1u << XP_AT_KPROBE_MULTI | 1u << XP_AT_KPROBE);
	/* nothing loads at all: a privilege, not the kernel */
	if (!at[XP_AT_KPROBE].ok && !at[XP_AT_KPROBE_MULTI].ok && !at[XP_AT_TRACEPOINT].ok) {
		snprintf(why, whylen, "loading a BPF program: %s", at[XP_AT_TRACEPOINT].why);
		return -EPERM;
	}
	kp = at[XP_AT_KPROBE].ok || at[XP_AT_KPROBE_MULTI].ok;
	o->intel_mod = xp_module_loaded(XP_NPU_MODULE);
	o->xdna_mod = xp_module_loaded(XP_XDNA_MODULE);
	if (!o->intel_mod && !o->xdna_mod) {
		snprintf(why, whylen, "no NPU driver is loaded: neither %s (Intel NPU) nor %s (AMD NPU)",
			 XP_NPU_MODULE, XP_XDNA_MODULE);
		return -ENOENT;
	}
	if (o->intel_mod && !kp && !o->xdna_mod && !o->jobs_only) {
		snprintf(why, whylen, "kprobes are not available on this kernel (%s); intel_vpu's "
				      "functions cannot be traced here", at[XP_AT_KPROBE].why);
		return -EOPNOTSUPP;
	}
	if (!(o->root = xp_tracefs(why, whylen, NULL)))
		return -ENOENT;
	return 0;
}

/* intel_vpu's side where it is loaded: its functions, or why not. 0 or -errno with why. */
static int intel_side(struct npu_open *o, const char *const *lat, char *why, size_t whylen)
{
	struct xp_npu_live *l = o->l;
	int err;

	if (o->intel_mod && !o->at[XP_AT_KPROBE].ok && !o->at[XP_AT_KPROBE_MULTI].ok) {
		snprintf(l->intel_why, sizeof(l->intel_why), "kprobes are not available on this kernel (%.100s)",
			 o->at[XP_AT_KPROBE].why);
	} else if (o->intel_mod) {
		err = intel_functions(l, o->root, lat, why, whylen);
		if (err == -EINVAL || (err && !o->xdna_mod))
			return err;
		if (err)
			snprintf(l->intel_why, sizeof(l->intel_why), "%.150s", why);
		l->intel = !err;
	}
	if (!l->intel && lat && lat[0]) {
		snprintf(why, whylen, "--latency %s: intel_vpu's functions are not traced here (%s)", lat[0],
			 o->intel_mod ? l->intel_why : "intel_vpu is not loaded");
		return -EINVAL;
	}
	return 0;
}

int xp_npu_live_open(struct xp_kside **out, const struct xp_filters *f,
		     const struct xp_live_share *share, bool per_call, bool jobs_only, const char *const *lat,
		     char *why, size_t whylen)
{
	struct npu_open o = { .per_call = per_call, .jobs_only = jobs_only };
	struct xp_skel_steps s = { .f = f, .share = share, .priv_free = live_free, .configure = configure,
				   .attach = attach, .ctx = &o };
	int err = check(&o, why, whylen);

	if (err)
		return err;
	if (!(o.l = calloc(1, sizeof(*o.l))))
		return -ENOMEM;
	if (!jobs_only && (err = intel_side(&o, lat, why, whylen))) {
		free(o.l->km.fn);
		free(o.l);
		return err;
	}
	s.priv = o.l;
	return xp_skel_open(out, &npu_skel_ops, &s, why, whylen);
}

static bool alive(uint32_t tgid)
{
	return !kill((pid_t)tgid, 0) || errno == EPERM;
}

int xp_npu_live_counts(struct xp_kside *k,
		       void (*fn)(void *ctx, const struct xp_npu_key *key, const struct xp_npu_val *v,
				  bool gone),
		       void *ctx)
{
	struct xp_npu_live *l = k->priv;
	struct npu_bpf *s = k->skel;
	int fd = bpf_map__fd(s->maps.npu_calls);
	uint32_t n = 0, max = bpf_map__max_entries(s->maps.npu_calls);
	struct xp_npu_key key, next;
	struct xp_npu_val v;
	struct xp_map_calls mc;
	void *prev = NULL;

	if (!l->forget && !(l->forget = calloc(max, sizeof(*l->forget))))
		return -ENOMEM;
	xp_map_calls_begin(&mc);
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		/* whether it ended is asked first: the count read after is its last */
		bool gone = next.tgid && !alive(next.tgid);

		if (!bpf_map_lookup_elem(fd, &next, &v)) {
			if (gone && n >= max)
				gone = false;	/* a key more than the map holds: at the next drain */
			fn(ctx, &next, &v, gone);
			if (gone)
				l->forget[n++] = next;
		}
		key = next;
		prev = &key;
	}
	/* after the walk: deleting during it would restart it */
	for (uint32_t i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &l->forget[i]);
	xp_map_calls_end(&mc);
	return 0;
}
