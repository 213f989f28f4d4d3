/* The ioctl capability's kernel side (ioctl.bpf.c beside it), for its row. */
#ifndef XP_CAPS_IOCTL_LIVE_H
#define XP_CAPS_IOCTL_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/devices.h"
#include "core/filters.h"
#include "live/kernel_side.h"

/*
 * The ioctl capability's kernel side (src/caps/ioctl/ioctl.bpf.c), on `hook` or, when
 * NULL, on the first that attaches: kprobes on the ioctl syscall functions,
 * the classic syscall events (not while a 32-bit program runs: then `note`
 * names it), tp_btf, raw_tp on sys_enter/sys_exit. `why` says why each hook
 * tried failed.
 */
int xp_ioctl_live_open(struct xp_kside **out, const char *hook, const struct xp_filters *f,
		       const struct xp_devices *d, bool aggregate, const struct xp_live_share *share,
		       char *why, size_t whylen, char *note, size_t notelen);
/*
 * The device maps of ioctl_dev.bpf.h, in any skeleton that includes it, loaded:
 * the majors traced as a whole and the single nodes; the first `in_list`
 * single nodes are left to the rodata list when all fit there (0: the map
 * holds them all). 0 or -errno.
 */
struct bpf_map;
int xp_ioctl_fill_device_maps(struct bpf_map *majors, struct bpf_map *devs, const struct xp_devices *d,
			      int in_list);
/* "kprobe", "tracepoint", "tp_btf", "raw_tp" */
bool xp_ioctl_hook_known(const char *hook);
/*
 * On the classic events: how many 32-bit programs started while tracing (the
 * first one's pid and name), whose ioctls those events do not see. 0 on other hooks.
 */
uint64_t xp_ioctl_live_exec32(const struct xp_kside *k, uint32_t *pid, char comm[16]);
struct xp_ioctl_table;
/* Moves what the kernel aggregated into `t`: at a tick, at a report, or all once detached. */
int xp_ioctl_live_drain(struct xp_kside *k, struct xp_ioctl_table *t, enum xp_drain how);

#endif
