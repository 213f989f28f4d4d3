/* The kernel side of raw-tracepoint capabilities (src/bpf/rawtp.bpf.h): one
 * skeleton per capability, programs xp_<cap>_<index>, the layouts from
 * src/core/rawtp.h. Events the kernel lacks are not loaded, never an error. */
#ifndef XP_LIVE_RAWTP_LIVE_H
#define XP_LIVE_RAWTP_LIVE_H

#include <stddef.h>
#include <bpf/libbpf.h>
#include "core/rawtp.h"

/*
 * Between open and load: per event, autoload its program only when the
 * event is present, and fill the rodata settings `cfg` (the skeleton's
 * xp_rawtp_cfg). -ENOENT with `why` when a program is missing.
 */
int xp_rawtp_live_prepare(struct bpf_object *obj, const char *cap, const struct xp_rawtp_layout *l,
			  struct xp_rawtp_cfg *cfg, char *why, size_t whylen);
/* After load: attaches every present event's program to it (its group in l->group). */
int xp_rawtp_live_attach(struct bpf_object *obj, const char *cap, const struct xp_rawtp_layout *l,
			 struct bpf_link *links[XP_RAWTP_MAX_EV], char *why, size_t whylen);
void xp_rawtp_live_detach(struct bpf_link *links[XP_RAWTP_MAX_EV]);

/* One capability's whole kernel side. */
struct xp_rawtp_live;

/*
 * vblank: parses the drm events' formats into `l` (initialized by the caller
 * with its event table, groups possibly redirected), opens, loads and
 * attaches. -ENOENT: none of the events exists; `why` says why otherwise.
 */
int xp_vblank_live_open(struct xp_rawtp_live **out, struct xp_rawtp_layout *l, char *why,
			size_t whylen);
/* The same, writing into another skeleton's ring buffer (struct xp_live_share, capture.h). */
struct xp_live_share;
int xp_vblank_live_open_shared(struct xp_rawtp_live **out, struct xp_rawtp_layout *l,
			       const struct xp_live_share *share, char *why, size_t whylen);
int xp_mem_live_open(struct xp_rawtp_live **out, struct xp_rawtp_layout *l, char *why,
		     size_t whylen);
/* mem with process filters: they apply to the events whose table entry says
 * proc_ctx (the others fire in no process's context and are all kept). */
struct xp_filters;
int xp_mem_live_open_filtered(struct xp_rawtp_live **out, struct xp_rawtp_layout *l,
			      const struct xp_filters *f, char *why, size_t whylen);
/* The same, writing into another skeleton's ring buffer when `share` is not
 * NULL (record); `f` may be NULL for no filters. */
int xp_mem_live_open_shared(struct xp_rawtp_live **out, struct xp_rawtp_layout *l,
			    const struct xp_filters *f, const struct xp_live_share *share, char *why,
			    size_t whylen);
/* The BPF object: the session counts its programs' missed runs as drops. */
struct bpf_object *xp_rawtp_live_object(const struct xp_rawtp_live *lv);
struct bpf_map *xp_rawtp_live_events(const struct xp_rawtp_live *lv);
struct bpf_map *xp_rawtp_live_drops(const struct xp_rawtp_live *lv);
void xp_rawtp_live_close(struct xp_rawtp_live *lv);

#endif
