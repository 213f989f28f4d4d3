#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "live/features.h"
#include "live/tracefs.h"
#include "probe.skel.h"

/* The uprobe probe attaches here, in our own binary. */
__attribute__((noinline, used)) void xp_uprobe_probe_target(void)
{
	__asm__ __volatile__("" ::: "memory");
}

static const char *const names[XP_AT_MAX] = {
	[XP_AT_TRACEPOINT] = "tracepoint",	[XP_AT_TP_BTF] = "tp_btf",
	[XP_AT_RAW_TP] = "raw_tp",		[XP_AT_KPROBE] = "kprobe",
	[XP_AT_KPROBE_MULTI] = "kprobe.multi",	[XP_AT_FENTRY] = "fentry",
	[XP_AT_UPROBE] = "uprobe",
};

static struct bpf_program *prog_of(struct probe_bpf *skel, enum xp_attach at)
{
	switch (at) {
	case XP_AT_TRACEPOINT: return skel->progs.probe_tracepoint;
	case XP_AT_TP_BTF: return skel->progs.probe_tp_btf;
	case XP_AT_RAW_TP: return skel->progs.probe_raw_tp;
	case XP_AT_KPROBE: return skel->progs.probe_kprobe;
	case XP_AT_KPROBE_MULTI: return skel->progs.probe_kprobe_multi;
	case XP_AT_FENTRY: return skel->progs.probe_fentry;
	case XP_AT_UPROBE: return skel->progs.probe_uprobe;
	default: return NULL;
	}
}

static void probe_one(enum xp_attach at, struct xp_feature *f)
{
	struct probe_bpf *skel = probe_bpf__open();
	struct bpf_program *p, *target;
	struct bpf_link *link = NULL;
	char why[128];
	int err;

	f->name = names[at];
	f->ok = false;
	if (!skel) {
		snprintf(f->why, sizeof(f->why), "cannot open the probe object: %s", strerror(errno));
		return;
	}
	target = prog_of(skel, at);
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == target);
	if (at == XP_AT_TRACEPOINT && !xp_tracefs(why, sizeof(why), NULL)) {
		snprintf(f->why, sizeof(f->why), "%s", why);
		goto out;
	}
	err = probe_bpf__load(skel);
	if (err) {
		snprintf(f->why, sizeof(f->why), "the kernel refuses to load it: %s", strerror(-err));
		goto out;
	}
	if (at == XP_AT_UPROBE) {
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = "xp_uprobe_probe_target");
		link = bpf_program__attach_uprobe_opts(target, getpid(), "/proc/self/exe", 0, &uo);
	} else {
		link = bpf_program__attach(target);
	}
	if (!link) {
		err = -errno;
		if (at == XP_AT_KPROBE &&
		    access("/sys/bus/event_source/devices/kprobe", F_OK))
			snprintf(f->why, sizeof(f->why), "kernel built without kprobes (no kprobe PMU)");
		else
			snprintf(f->why, sizeof(f->why), "attach failed: %s", strerror(-err));
		goto out;
	}
	f->ok = true;
out:
	bpf_link__destroy(link);
	probe_bpf__destroy(skel);
}

void xp_probe_attach_types(struct xp_feature out[XP_AT_MAX])
{
	xp_probe_attach_types_of(out, (1u << XP_AT_MAX) - 1);
}

void xp_probe_attach_types_of(struct xp_feature out[XP_AT_MAX], unsigned int which)
{
	for (int i = 0; i < XP_AT_MAX; i++) {
		if (which & (1u << i)) {
			probe_one((enum xp_attach)i, &out[i]);
		} else {
			out[i].name = names[i];
			out[i].ok = false;
			snprintf(out[i].why, sizeof(out[i].why), "not tried");
		}
	}
}

bool xp_kernel_has_kfunc(const char *name)
{
	static struct btf *vmlinux;
	static bool tried;

	if (!tried) {
		tried = true;
		vmlinux = btf__load_vmlinux_btf();
		if (libbpf_get_error(vmlinux))
			vmlinux = NULL;
	}
	return vmlinux && btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC) > 0;
}

bool xp_module_loaded(const char *name)
{
	char line[256], want[80];
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

bool xp_kernel_counts_skips(void)
{
	static int v = -1;
	struct utsname u;
	unsigned int maj = 0, min = 0;

	if (v < 0)
		v = !uname(&u) && sscanf(u.release, "%u.%u", &maj, &min) == 2 &&
		    (maj > 6 || (maj == 6 && min >= 7));
	return v;
}
