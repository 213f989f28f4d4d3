/* `api`'s kernel side (api.bpf.c beside it), for its row. */
#ifndef XP_CAPS_API_LIVE_H
#define XP_CAPS_API_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include "caps/api/api_funcs.h"
#include "caps/api/api_stats.h"
#include "core/devices.h"
#include "core/filters.h"
#include "live/kernel_side.h"

/*
 * Loads the programs, fills the function table and the device maps,
 * attaches the ioctl events and a uprobe and uretprobe on every function of
 * every file `plan` found. With `aggregate` (summary mode) the kernel
 * counts the calls that need no record (xp_api_live_drain takes them).
 * What does not attach (a function a file lacks,
 * the ioctl events) becomes a note in `plan`. -ENOENT when no function at
 * all attached; other errors with a one-line reason in `why`.
 */
int xp_api_live_open(struct xp_kside **out, struct xp_api_plan *plan, const struct xp_filters *f,
		     const struct xp_devices *d, bool aggregate, const struct xp_live_share *share, char *why,
		     size_t len);
/* Functions attached (in one file or more), files, and whether ioctls are joined. */
void xp_api_live_attached(const struct xp_kside *k, int *nfn, int *nfiles, bool *ioctls);
/*
 * A file of library `li` found after attaching (plan->lib[li].file[fi], as
 * when the library was replaced): its uprobes, as at the start. The number
 * of functions attached (0: none, noted in `p`), or -errno.
 */
int xp_api_live_attach_file(struct xp_kside *k, struct xp_api_plan *p, int li, int fi);
/*
 * Calls that never returned, by function index: `ended` since load (their
 * thread ended inside them), `open` still open in live threads now.
 */
void xp_api_live_lost(const struct xp_kside *k, uint64_t ended[XP_API_MAX_FN], uint64_t open[XP_API_MAX_FN]);
/* The kernel's counts since load: calls nested too deep, returns that matched no open call. */
void xp_api_live_counts(const struct xp_kside *k, uint64_t *too_deep, uint64_t *unmatched);

/* Whether the kernel counts calls that need no record (summary mode). */
bool xp_api_live_aggregates(const struct xp_kside *k);
/*
 * DRM scheduler jobs are joined from now on: where this side does not see
 * them queued, every call gets its record again.
 */
void xp_api_live_follow_jobs(struct xp_kside *k);

/* The kernel's counts of the generations done (all of them once detached) into `s`. */
int xp_api_live_drain(struct xp_kside *k, const struct xp_api_plan *p, struct xp_api_state *s,
		      enum xp_drain how);

#endif
