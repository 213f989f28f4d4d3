/* The nvidia capability's kernel side (src/bpf/nvidia.bpf.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/nvidia_facts.h"
#include "live/features.h"
#include "live/kprobe.h"
#include "live/nvidia_live.h"
#include "live/tracefs.h"
#include "core/tpformat.h"
#include "nvidia.skel.h"

static void skel_destroy(void *skel) { nvidia_bpf__destroy(skel); }

int xp_nv_module_funcs(const char *kallsyms, const char *module, bool found[XP_NV_NFN])
{
	char line[512], name[256], mod[128], want[140];
	char type;
	int n = 0, fn;
	FILE *f = fopen(kallsyms, "re");

	memset(found, 0, sizeof(bool) * XP_NV_NFN);
	if (!f)
		return -errno;
	snprintf(want, sizeof(want), "[%s]", module);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %c %255s %127s", &type, name, mod) != 3)
			continue;
		if ((type != 't' && type != 'T') || strcmp(mod, want))
			continue;
		if ((fn = xp_nv_fn_by_name(name)) >= 0 && !found[fn]) {
			found[fn] = true;
			n++;
		}
	}
	fclose(f);
	return n;
}

static bool module_loaded(const char *name)
{
	char line[256], want[64];
	FILE *f = fopen("/proc/modules", "re");
	bool ok = false;

	if (!f)
		return false;
	snprintf(want, sizeof(want), "%s ", name);
	while (!ok && fgets(line, sizeof(line), f))
		ok = !strncmp(line, want, strlen(want));
	fclose(f);
	return ok;
}

struct progs {
	struct bpf_program *entry, *ret;
};

static void progs_of(struct nvidia_bpf *s, struct progs p[XP_NV_NFN])
{
	memset(p, 0, sizeof(struct progs) * XP_NV_NFN);
	p[XP_NV_OPEN].entry = s->progs.nv_open;
	p[XP_NV_CLOSE].entry = s->progs.nv_close;
	p[XP_NV_IOCTL] = (struct progs){ s->progs.nv_ioctl, s->progs.nv_ioctl_ret };
	p[XP_NV_MMAP].entry = s->progs.nv_mmap;
	p[XP_NV_FAULT].entry = s->progs.nv_fault;
	p[XP_NV_ISR] = (struct progs){ s->progs.nv_isr, s->progs.nv_isr_ret };
	p[XP_NV_ISR_MSIX] = (struct progs){ s->progs.nv_isr_msix, s->progs.nv_isr_msix_ret };
	p[XP_NV_ISR_BH] = (struct progs){ s->progs.nv_isr_bh, s->progs.nv_isr_bh_ret };
	p[XP_NV_ISR_MSIX_BH] = (struct progs){ s->progs.nv_isr_msix_bh, s->progs.nv_isr_msix_bh_ret };
	p[XP_NV_P2P_GET].entry = s->progs.nv_p2p_get;
	p[XP_NV_P2P_PUT].entry = s->progs.nv_p2p_put;
	p[XP_NV_P2P_DMA_MAP].entry = s->progs.nv_p2p_dma_map;
	p[XP_NV_SUSPEND] = (struct progs){ s->progs.nv_suspend, s->progs.nv_suspend_ret };
	p[XP_NV_RESUME] = (struct progs){ s->progs.nv_resume, s->progs.nv_resume_ret };
}

/* Return probes: as many calls in flight at once as there can be GPU client threads. */
#define NV_MAXACTIVE 1024

int xp_nv_live_open(struct xp_kside **out, const struct xp_filters *f,
		    const struct xp_live_share *share, unsigned int sample, bool found[XP_NV_NFN], bool *xid,
		    char *xid_why, size_t xid_whylen, char *why, size_t whylen)
{
	struct xp_tp_format *fmt = NULL;
	const struct xp_tp_field *fdev, *fcode, *fmsg;
	const char *root;
	struct xp_feature at[XP_AT_MAX];
	struct progs p[XP_NV_NFN];
	struct nvidia_bpf *skel;
	struct xp_kside *k;
	int err, n, li = 0;
	bool kp;

	xp_probe_attach_types(at);
	if (!at[XP_AT_KPROBE].ok && !at[XP_AT_TRACEPOINT].ok) {
		snprintf(why, whylen, "loading a BPF program: %s", at[XP_AT_KPROBE].why);
		return -EPERM;
	}
	/* XPUTRACE_NVIDIA_HOOK=tracepoint: the Xid tracepoint alone, as without kprobes */
	kp = at[XP_AT_KPROBE].ok && !(getenv("XPUTRACE_NVIDIA_HOOK") &&
				      !strcmp(getenv("XPUTRACE_NVIDIA_HOOK"), "tracepoint"));
	/* without kprobes, the Xid tracepoint alone where the module has it */
	if (!kp && !(module_loaded("nvidia") &&
		     xp_tracefs_event_exists(XP_NV_XID_GROUP, XP_NV_XID_EVENT))) {
		snprintf(why, whylen, "kprobes are not available on this kernel (%s); ioctls to "
				      "/dev/nvidia* are still traced by 'xputrace ioctl'", at[XP_AT_KPROBE].why);
		return -EOPNOTSUPP;
	}
	if (!module_loaded("nvidia")) {
		snprintf(why, whylen, "the nvidia module is not loaded; ioctls to /dev/nvidia* are "
				      "traced by 'xputrace ioctl'");
		return -ENOENT;
	}
	n = kp ? xp_nv_module_funcs("/proc/kallsyms", "nvidia", found) : 0;
	if (!kp)
		memset(found, 0, sizeof(bool) * XP_NV_NFN);
	if (kp && n <= 0) {
		snprintf(why, whylen, "none of the probed functions is in the loaded nvidia module "
				      "(/proc/kallsyms: %s)", n < 0 ? strerror(-n) : "no match");
		return -ENOENT;
	}
	if (!(skel = nvidia_bpf__open())) {
		err = -errno;
		snprintf(why, whylen, "opening the BPF object: %s", strerror(-err));
		return err;
	}
	if (!(k = xp_kside_new(skel, skel_destroy))) {
		nvidia_bpf__destroy(skel);
		return -ENOMEM;
	}
	k->obj = skel->obj;
	k->events = skel->maps.events;
	k->drops = skel->maps.drops;
	k->hook = kp ? "kprobe" : "tracepoint";
	XP_APPLY_FILTERS(skel, f);
	skel->rodata->sample_n = sample > 1 ? sample : 1;
	progs_of(skel, p);
	/* the Xid tracepoint: its fields found by name in its format file */
	*xid = false;
	snprintf(xid_why, xid_whylen, "the module has no nvidia:%s tracepoint (NVIDIA added it in %s)",
		 XP_NV_XID_EVENT, XP_NV_XID_SINCE);
	if ((root = xp_tracefs(why, whylen, NULL)) && xp_tracefs_event_exists(XP_NV_XID_GROUP, XP_NV_XID_EVENT) &&
	    (fmt = calloc(1, sizeof(*fmt))) &&
	    !xp_tp_format_load(root, XP_NV_XID_GROUP, XP_NV_XID_EVENT, fmt)) {
		fdev = xp_tp_field(fmt, "dev");
		fcode = xp_tp_field(fmt, "error_code");
		fmsg = xp_tp_field(fmt, "msg");
		if (fdev && fdev->data_loc && !fdev->rel_loc && fcode && fcode->size == 4 && fmsg &&
		    fmsg->data_loc && !fmsg->rel_loc) {
			*xid = true;
			skel->rodata->xid_dev_off = fdev->offset;
			skel->rodata->xid_code_off = fcode->offset;
			skel->rodata->xid_msg_off = fmsg->offset;
		} else {
			snprintf(xid_why, xid_whylen, "nvidia:%s has other fields than %s", XP_NV_XID_EVENT,
				 XP_NV_XID_FIELDS);
		}
	}
	free(fmt);
	why[0] = '\0';
	if (!kp && !*xid) {
		snprintf(why, whylen, "kprobes are not available on this kernel and %s; ioctls to "
				      "/dev/nvidia* are still traced by 'xputrace ioctl'", xid_why);
		err = -EOPNOTSUPP;
		goto fail;
	}
	bpf_program__set_autoload(skel->progs.nv_xid, *xid);
	for (int i = 0; i < XP_NV_NFN; i++) {
		bpf_program__set_autoload(p[i].entry, found[i]);
		if (p[i].ret)
			bpf_program__set_autoload(p[i].ret, found[i]);
	}
	if ((err = xp_live_share_maps(share, k->events, k->drops, why, whylen)))
		goto fail;
	if ((err = nvidia_bpf__load(skel))) {
		snprintf(why, whylen, "loading the BPF programs: %s", strerror(-err));
		goto fail;
	}
	/* the returns first: every call whose entry is seen has its return seen */
	for (int i = 0; i < XP_NV_NFN; i++) {
		if (!found[i] || !p[i].ret)
			continue;
		if ((err = xp_kretprobe_attach(p[i].ret, xp_nv_funcs[i].name, NV_MAXACTIVE,
					       &k->links[li], why, whylen)))
			goto fail;
		li++;
	}
	if (*xid) {
		k->links[li] = bpf_program__attach_tracepoint(skel->progs.nv_xid, XP_NV_XID_GROUP,
							      XP_NV_XID_EVENT);
		if (!k->links[li]) {
			err = -errno;
			snprintf(why, whylen, "attaching to the tracepoint nvidia:%s: %s", XP_NV_XID_EVENT,
				 strerror(-err));
			goto fail;
		}
		li++;
	}
	for (int i = 0; i < XP_NV_NFN; i++) {
		if (!found[i])
			continue;
		/*
		 * A kprobe hit while another runs on that CPU is missed by every
		 * probe on that address at once. A timed function's record is
		 * written at its return, so its return probe's missed count is
		 * the calls lost; the entry is made through the perf PMU, whose
		 * misses are those same calls. Other functions' entries are made
		 * through tracefs, where their misses are read back as drops.
		 */
		if (p[i].ret) {
			k->links[li] = bpf_program__attach_kprobe(p[i].entry, false, xp_nv_funcs[i].name);
			err = k->links[li] ? 0 : -errno;
			if (err)
				snprintf(why, whylen, "attaching a kprobe to %s: %s", xp_nv_funcs[i].name,
					 strerror(-err));
		} else {
			err = xp_kprobe_attach(p[i].entry, xp_nv_funcs[i].name, &k->links[li], why, whylen);
		}
		if (err)
			goto fail;
		li++;
	}
	*out = k;
	return 0;
fail:
	xp_kside_close(k);
	return err;
}
