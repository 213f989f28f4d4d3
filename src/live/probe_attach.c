/* Attaching programs to probes (probe_attach.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "live/kprobe.h"
#include "live/probe_attach.h"
#include "live/skel.h"
#include "live/tracefs.h"

int xp_probe_check(const struct xp_probe *p, struct xp_tp_format *fmt, char *why, size_t len)
{
	char ps[512];
	bool mounted;
	const char *tfs;
	int err;

	xp_probe_str(p, ps, sizeof(ps));
	switch (p->kind) {
	case XP_PROBE_TRACEPOINT:
		if (!(tfs = xp_tracefs(why, len, &mounted)))
			return -ENODEV;
		if (!fmt)
			return 0;
		err = xp_tp_format_load(tfs, p->group, p->name, fmt);
		if (err == -ENOENT)
			snprintf(why, len, "%s: this kernel has no such tracepoint (no %s/events/%s/%s)", ps,
				 tfs, p->group, p->name);
		else if (err)
			snprintf(why, len, "%s: reading its format: %s", ps, strerror(-err));
		return err;
	case XP_PROBE_UPROBE:
	case XP_PROBE_URETPROBE:
		if (strchr(p->path, '/') && access(p->path, R_OK)) {
			err = -errno;
			snprintf(why, len, "%s: %s: %s", ps, p->path, strerror(-err));
			return err;
		}
		return 0;
	default:
		return 0;
	}
}

struct bpf_link *xp_probe_attach(struct bpf_program *prog, const struct xp_probe *p, char *why,
				 size_t len)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo);
	struct bpf_link *l = NULL;
	char ps[512], kwhy[160];
	int err;

	if ((err = xp_startup_stopped(why, len))) {
		errno = -err;
		return NULL;
	}
	xp_probe_str(p, ps, sizeof(ps));
	switch (p->kind) {
	case XP_PROBE_TRACEPOINT:
		l = bpf_program__attach_tracepoint(prog, p->group, p->name);
		break;
	case XP_PROBE_KPROBE:
	case XP_PROBE_KRETPROBE:
		/*
		 * Through tracefs, not the perf PMU: what the kernel misses is then
		 * counted (kprobe_profile), and a return probe gets room for as many
		 * calls in flight as the kernel allows, not max(10, 2 x CPUs).
		 */
		if (access("/sys/bus/event_source/devices/kprobe/type", F_OK)) {
			errno = ENOENT;
			break;
		}
		err = p->kind == XP_PROBE_KRETPROBE
			      ? xp_kretprobe_attach(prog, p->name, XP_KRETPROBE_MAXACTIVE, &l, kwhy, sizeof(kwhy))
			      : xp_kprobe_attach(prog, p->name, &l, kwhy, sizeof(kwhy));
		errno = err == -EINVAL ? ENOENT : -err;	/* tracefs says EINVAL for an unknown function */
		break;
	case XP_PROBE_FENTRY:
	case XP_PROBE_FEXIT:
		/* the target was set before load */
		l = bpf_program__attach_trace(prog);
		break;
	case XP_PROBE_UPROBE:
	case XP_PROBE_URETPROBE:
		uo.func_name = p->name;
		uo.retprobe = p->kind == XP_PROBE_URETPROBE;
		uo.bpf_cookie = p->cookie;
		l = bpf_program__attach_uprobe_opts(prog, -1, p->path, 0, &uo);
		break;
	}
	if (!l && errno == 0)
		errno = EINVAL;
	if (l)
		return l;
	err = errno;
	if (err == ENOENT && (p->kind == XP_PROBE_KPROBE || p->kind == XP_PROBE_KRETPROBE) &&
	    access("/sys/bus/event_source/devices/kprobe/type", F_OK))
		snprintf(why, len, "%s: this kernel has no kprobes (no kprobe event source); see "
				   "'xputrace doctor'", ps);
	else if (err == ENOENT && (p->kind == XP_PROBE_KPROBE || p->kind == XP_PROBE_KRETPROBE))
		snprintf(why, len, "%s: no such kernel function, or one that cannot be probed", ps);
	else if (err == ENOENT && (p->kind == XP_PROBE_UPROBE || p->kind == XP_PROBE_URETPROBE))
		snprintf(why, len, "%s: no such library, or no symbol '%s' in it", ps, p->name);
	else if (err >= LIBBPF_ERRNO__LIBELF && (p->kind == XP_PROBE_UPROBE || p->kind == XP_PROBE_URETPROBE))
		/* libbpf's own codes (4001: libelf failed) come from reading the file */
		snprintf(why, len, "%s: %s is not an ELF executable or library a uprobe can go into", ps,
			 p->path);
	else {
		char e[128];

		/* libbpf's own codes (>= 4000) in words, as strerror has them for errno */
		libbpf_strerror(err, e, sizeof(e));
		snprintf(why, len, "%s: attaching: %s", ps, e);
	}
	errno = err;
	return NULL;
}
