/* The npu capability's kernel side (src/bpf/npu.bpf.c), on the generic multi-attach (kmulti). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "core/npu_stats.h"
#include "core/tpformat.h"
#include "live/features.h"
#include "live/npu_live.h"
#include "live/tracefs.h"
#include "npu.skel.h"

static void live_destroy(void *p)
{
	struct xp_npu_live *l = p;

	xp_kmulti_free(&l->km);
	npu_bpf__destroy(l->skel);
	free(l->forget);
	free(l);
}

static void live_detach(void *p)
{
	xp_kmulti_detach(&((struct xp_npu_live *)p)->km);
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

int xp_npu_live_open(struct xp_kside **out, const struct xp_filters *f,
		     const struct xp_live_share *share, bool per_call, const char *const *lat,
		     char *why, size_t whylen)
{
	struct xp_feature at[XP_AT_MAX];
	struct xp_npu_live *l;
	struct xp_kside *k = NULL;
	struct npu_bpf *s;
	uint64_t *ck = NULL;
	char path[300];
	const char *root;
	int err, n, li = 0;

	xp_probe_attach_types(at);
	/* nothing loads at all: a privilege, not the kernel */
	if (!at[XP_AT_KPROBE].ok && !at[XP_AT_KPROBE_MULTI].ok && !at[XP_AT_TRACEPOINT].ok) {
		snprintf(why, whylen, "loading a BPF program: %s", at[XP_AT_TRACEPOINT].why);
		return -EPERM;
	}
	if (!at[XP_AT_KPROBE].ok && !at[XP_AT_KPROBE_MULTI].ok) {
		snprintf(why, whylen, "kprobes are not available on this kernel (%s); intel_vpu's "
				      "functions cannot be traced here", at[XP_AT_KPROBE].why);
		return -EOPNOTSUPP;
	}
	if (!xp_module_loaded(XP_NPU_MODULE)) {
		snprintf(why, whylen, "the %s module (Intel NPU driver) is not loaded%s", XP_NPU_MODULE,
			 xp_module_loaded("amdxdna") ? "; amdxdna (AMD NPU) is, and is not traced yet" : "");
		return -ENOENT;
	}
	if (!(root = xp_tracefs(why, whylen, NULL)))
		return -ENOENT;
	if (!(l = calloc(1, sizeof(*l))))
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/available_filter_functions", root);
	n = xp_kmulti_resolve(&l->km, path, XP_NPU_MODULE, XP_NPU_PATTERN, why, whylen);
	if (n <= 0) {
		if (!n)
			snprintf(why, whylen, "no %s function of %s is in %s", XP_NPU_PATTERN, XP_NPU_MODULE, path);
		free(l->km.fn);
		free(l);
		return n ? n : -ENOENT;
	}
	if (n > XP_NPU_MAX_FN)
		n = l->km.n = XP_NPU_MAX_FN;
	/* the timed functions: buffer creation, then what --latency names */
	if (xp_kmulti_find(&l->km, "ivpu_bo_create_ioctl") >= 0)
		l->lat_fn[l->nlat++] = xp_kmulti_find(&l->km, "ivpu_bo_create_ioctl");
	for (int i = 0; lat && lat[i]; i++) {
		int fi = xp_kmulti_find(&l->km, lat[i]), dup = 0;

		if (fi < 0) {
			snprintf(why, whylen, "--latency %s: not an attachable function of %s (%s)", lat[i],
				 XP_NPU_MODULE, path);
			free(l->km.fn);
			free(l);
			return -EINVAL;
		}
		for (int j = 0; j < l->nlat; j++)
			dup |= l->lat_fn[j] == fi;
		if (!dup && l->nlat < XP_NPU_MAX_LAT)
			l->lat_fn[l->nlat++] = fi;
	}
	if (!(s = npu_bpf__open())) {
		err = -errno;
		snprintf(why, whylen, "opening the BPF object: %s", strerror(-err));
		free(l->km.fn);
		free(l);
		return err;
	}
	l->skel = s;
	if (!(k = xp_kside_new(l, live_destroy))) {
		live_destroy(l);
		return -ENOMEM;
	}
	k->skel_detach = live_detach;
	k->obj = s->obj;
	k->events = s->maps.events;
	k->drops = s->maps.drops;
	XP_APPLY_FILTERS(s, f);
	s->rodata->per_call = per_call;
	/* x86-64: where the preempt counter of each CPU is (interrupt or not) */
	s->rodata->preempt_count_sym = ksym("__preempt_count");
	s->rodata->per_cpu_offset_sym = ksym("__per_cpu_offset");
	tracepoints(l, root);
	xp_kmulti_prepare(&l->km, s->progs.npu_entry, at[XP_AT_KPROBE_MULTI].ok);
	xp_kmulti_prepare(&l->km, s->progs.npu_return, at[XP_AT_KPROBE_MULTI].ok);
	k->hook = l->km.multi ? "kprobe.multi" : "kprobe";
	bpf_program__set_autoload(s->progs.npu_return, l->nlat > 0);
	bpf_program__set_autoload(s->progs.npu_job, l->tp_job);
	bpf_program__set_autoload(s->progs.npu_jsm, l->tp_jsm);
	bpf_program__set_autoload(s->progs.npu_pm, l->tp_pm);
	if ((err = xp_live_share_maps(share, k->events, k->drops, why, whylen)))
		goto fail;
	if ((err = npu_bpf__load(s))) {
		snprintf(why, whylen, "loading the BPF programs: %s", strerror(-err));
		goto fail;
	}
	if (!(ck = calloc((size_t)n, sizeof(*ck)))) {
		err = -ENOMEM;
		goto fail;
	}
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
	if (l->nlat && (err = xp_kmulti_attach(&l->km, s->progs.npu_return, true, l->lat_fn, l->nlat, ck,
					       why, whylen)))
		goto fail;
	if ((err = xp_kmulti_attach(&l->km, s->progs.npu_entry, false, NULL, 0, ck, why, whylen)))
		goto fail;
	{
		struct { bool on; struct bpf_program *p; const char *ev; } tp[] = {
			{ l->tp_job, s->progs.npu_job, "job" },
			{ l->tp_jsm, s->progs.npu_jsm, "jsm" },
			{ l->tp_pm, s->progs.npu_pm, "pm" },
		};

		for (size_t i = 0; i < sizeof(tp) / sizeof(tp[0]); i++) {
			if (!tp[i].on)
				continue;
			if (!(k->links[li] = bpf_program__attach_tracepoint(tp[i].p, XP_NPU_TP_GROUP, tp[i].ev))) {
				err = -errno;
				snprintf(why, whylen, "attaching to the tracepoint %s:%s: %s", XP_NPU_TP_GROUP,
					 tp[i].ev, strerror(-err));
				goto fail;
			}
			li++;
		}
	}
	free(ck);
	*out = k;
	return 0;
fail:
	free(ck);
	xp_kside_close(k);
	return err;
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
	struct xp_npu_live *l = k->skel;
	struct npu_bpf *s = l->skel;
	int fd = bpf_map__fd(s->maps.npu_calls);
	uint32_t n = 0, max = bpf_map__max_entries(s->maps.npu_calls);
	struct xp_npu_key key, next;
	struct xp_npu_val v;
	void *prev = NULL;

	if (!l->forget && !(l->forget = calloc(max, sizeof(*l->forget))))
		return -ENOMEM;
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
	return 0;
}
