/* What this kernel accepts, found by loading and attaching tiny programs. */
#ifndef XP_LIVE_FEATURES_H
#define XP_LIVE_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

enum xp_attach {
	XP_AT_TRACEPOINT,
	XP_AT_TP_BTF,
	XP_AT_RAW_TP,
	XP_AT_KPROBE,
	XP_AT_KPROBE_MULTI,
	XP_AT_FENTRY,
	XP_AT_UPROBE,
	XP_AT_MAX,
};

struct xp_feature {
	const char *name;
	bool ok;
	char why[160];	/* the reason when !ok */
};

void xp_probe_attach_types(struct xp_feature out[XP_AT_MAX]);
/*
 * Only the types in `which` (1 << XP_AT_*), the others "not tried": each
 * probe is a load, an attach and a detach, and a tracepoint's detach waits
 * for the kernel's grace periods.
 */
void xp_probe_attach_types_of(struct xp_feature out[XP_AT_MAX], unsigned int which);

/* Whether the running kernel's BTF has the kfunc NAME (looked up once per name). */
bool xp_kernel_has_kfunc(const char *name);
/*
 * Whether 32-bit x86 programs can run here (found once, by running one);
 * when they cannot, `why` says so. True where it cannot be found out.
 */
bool xp_runs_32bit(char *why, size_t len);
/*
 * Whether this kernel counts the runs it skips of kprobe (and kprobe.multi,
 * uprobe) and classic tracepoint programs, in recursion_misses and
 * kprobe_multi.missed: Linux 6.7 and later (trampolines, raw_tp and tp_btf
 * always have). Found once.
 */
bool xp_kernel_counts_skips(void);
/* Whether the module `name` is loaded (listed in /proc/modules). */
bool xp_module_loaded(const char *name);

#endif
