/* The nvidia capability's kernel side: kprobes on the functions of the loaded nvidia.ko. */
#ifndef XP_LIVE_NVIDIA_LIVE_H
#define XP_LIVE_NVIDIA_LIVE_H

#include <stdbool.h>
#include "live/kside.h"
#include "shared/nvidia.h"

/*
 * Finds which of the probed functions (core/nvidia_facts.h) the loaded
 * nvidia module has (/proc/kallsyms), loads their programs and attaches a
 * kprobe to each, and a return probe to the timed ones. `found` says which
 * were attached. The Xid tracepoint (nvidia:nvidia_dev_xid) too where the
 * module has it with the expected fields: `xid` says so, and `xid_why` why
 * not. Without kprobes, the Xid tracepoint alone where the module has it
 * (`found` all false). -EOPNOTSUPP: this kernel has no kprobes (and no Xid
 * tracepoint to fall back on); -ENOENT: no nvidia
 * module loaded (or none of the functions in it); else `why` says what failed.
 */
int xp_nv_live_open(struct xp_kside **out, const struct xp_filters *f,
		    const struct xp_live_share *share, unsigned int sample, bool found[XP_NV_NFN], bool *xid,
		    char *xid_why, size_t xid_whylen, char *why, size_t whylen);

/*
 * `sample` > 1: 1 in `sample` ioctls of each escape is timed; the kernel
 * counts every call per escape in the map XP_NV_SEEN_MAP (cmd -> calls).
 */
#define XP_NV_SEEN_MAP "nv_ioctl_seen"

/* The module's text symbols among the probed functions, from a kallsyms file. */
int xp_nv_module_funcs(const char *kallsyms, const char *module, bool found[XP_NV_NFN]);

#endif
