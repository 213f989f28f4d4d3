/* The nvidia capability's kernel side: the functions of the loaded nvidia.ko, and its Xid tracepoint. */
#ifndef XP_CAPS_NVIDIA_LIVE_H
#define XP_CAPS_NVIDIA_LIVE_H

#include <stdbool.h>
#include "live/kernel_side.h"
#include "caps/nvidia/nvidia.h"

/* What the opener is asked for, and what it found. */
struct xp_nv_open_info {
	unsigned int sample;		/* in: > 1: 1 in `sample` ioctls per escape timed */
	bool xid_only;			/* in: the Xid tracepoint alone (serve's metrics need no more) */
	bool found[XP_NV_NFN];		/* out: the functions attached */
	bool xid;			/* out: the Xid tracepoint attached */
	char xid_why[160];		/* out: why not */
	char hook_why[400];		/* out: why the hooks cheaper than the one used were not ("": none was) */
	char hook_note[200];		/* out: functions the hook used could not take, and what took them */
};

/*
 * Finds which of the probed functions (caps/nvidia/nvidia_facts.h) the loaded
 * nvidia module has (/proc/kallsyms) and attaches to each, on entry and, for
 * the timed ones, on return, by the cheapest hook that works: fentry/fexit
 * where the module has BTF (/sys/kernel/btf/nvidia), else kprobe.multi (one
 * link for all; only where the kernel counts the calls it misses, Linux 6.7
 * and later), else one kprobe per function (made through tracefs, so that
 * their misses are counted). XPUTRACE_NVIDIA_HOOK=fentry|kprobe.multi|kprobe
 * forces one (kprobe.multi then also where its misses are not counted), and
 * =tracepoint the Xid tracepoint alone. The Xid tracepoint
 * (nvidia:nvidia_dev_xid) too where the module has it with the expected
 * fields. Without any of those hooks, the Xid tracepoint alone where the
 * module has it (`found` all false, k->hook "tracepoint").
 * -EOPNOTSUPP: this kernel has none of those hooks (and no Xid tracepoint to
 * fall back on); -ENOENT: no nvidia module loaded (or none of the functions
 * in it); else `why` says what failed, for each hook tried.
 */
int xp_nv_live_open(struct xp_kside **out, const struct xp_filters *f,
		    const struct xp_live_share *share, struct xp_nv_open_info *io, char *why, size_t whylen);

/*
 * With `sample` > 1, the kernel counts every call per escape in the map
 * XP_NV_SEEN_MAP (cmd -> calls).
 */
#define XP_NV_SEEN_MAP "nv_ioctl_seen"

struct xp_feature;
/*
 * Doctor: the hook the opener tries first with these attach types (NULL:
 * none of them), and in `why` why the cheaper ones would not do.
 */
const char *xp_nv_hook_plan(const struct xp_feature *at, char *why, size_t len);

/* The module's text symbols among the probed functions, from a kallsyms file. */
int xp_nv_module_funcs(const char *kallsyms, const char *module, bool found[XP_NV_NFN]);

#endif
