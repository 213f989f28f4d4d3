/* What live capture of any capability shares: the process filters, and the
 * kernel side of each capability behind a small open/attach/drain API so that
 * the live commands and `record` start them the same way. */
#ifndef XP_LIVE_CAPTURE_H
#define XP_LIVE_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <bpf/libbpf.h>
#include "core/devices.h"
#include "core/ioctl_stats.h"

struct xp_filters {
	uint32_t pid;		/* 0: all */
	const char *comm;	/* NULL: all */
	uint64_t cgroup_id;	/* 0: all */
};

/* Resolves --cgroup PATH to the cgroup v2 id; -ENOTDIR when it is no directory. */
int xp_cgroup_id(const char *path, uint64_t *id);

/* Sets the filter globals every kernel-side program has (src/bpf/common.bpf.h). */
#define XP_APPLY_FILTERS(skel, f)                                                        \
	do {                                                                             \
		(skel)->rodata->self_tgid = (uint32_t)getpid();                          \
		(skel)->rodata->filter_tgid = (f)->pid;                                  \
		(skel)->rodata->filter_cgid = (f)->cgroup_id;                            \
		if ((f)->comm) {                                                         \
			(skel)->rodata->filter_comm_on = 1;                              \
			strncpy((char *)(skel)->rodata->filter_comm, (f)->comm,          \
				sizeof((skel)->rodata->filter_comm) - 1);                \
		}                                                                        \
	} while (0)

/* The ioctl capability's kernel side. */
struct xp_ioctl_live;

/*
 * Opens, loads (tp_btf, else raw_tp) and attaches. `aggregate`: count in
 * kernel maps (summary mode) instead of one record per call.
 */
int xp_ioctl_live_open(struct xp_ioctl_live **out, const struct xp_filters *f,
		       const struct xp_devices *d, bool aggregate);
const char *xp_ioctl_live_hook(const struct xp_ioctl_live *l);
struct bpf_map *xp_ioctl_live_events(const struct xp_ioctl_live *l);
struct bpf_map *xp_ioctl_live_drops(const struct xp_ioctl_live *l);
struct bpf_object *xp_ioctl_live_object(const struct xp_ioctl_live *l);
/* Moves what the kernel aggregated into `t` (each map entry taken atomically). */
int xp_ioctl_live_drain(struct xp_ioctl_live *l, struct xp_ioctl_table *t);
void xp_ioctl_live_close(struct xp_ioctl_live *l);

/*
 * Several capabilities into one ring buffer (record): a skeleton opened with
 * a share writes into the first one's `events` and `drops` maps instead of
 * its own (bpf_map__reuse_fd between open and load; the map definitions are
 * the same, src/bpf/common.bpf.h), so one reader sees every record in
 * reservation order and one drops map counts every loss.
 */
struct xp_live_share {
	struct bpf_map *events, *drops;	/* of a skeleton already loaded */
};
int xp_live_share_maps(const struct xp_live_share *s, struct bpf_map *events,
		       struct bpf_map *drops, char *why, size_t whylen);

/* The sched capability's kernel side (gpu_scheduler tracepoints, both generations). */
#include "core/sched_stats.h"

struct xp_sched_live;

/*
 * Parses the format of every gpu_scheduler event this kernel has into `l`
 * (initialized here with xp_sched_events), then loads and attaches one
 * program per event found; with `share`, into that ring buffer. -ENOENT:
 * the kernel has no gpu_scheduler events (no driver using the DRM GPU
 * scheduler is loaded); `why` says why otherwise.
 */
int xp_sched_live_open(struct xp_sched_live **out, struct xp_rawtp_layout *l,
		       const struct xp_live_share *share, char *why, size_t whylen);
struct bpf_map *xp_sched_live_events(const struct xp_sched_live *l);
struct bpf_map *xp_sched_live_drops(const struct xp_sched_live *l);
struct bpf_object *xp_sched_live_object(const struct xp_sched_live *l);
/* "tracepoint+raw_tp": the completion event as a raw tracepoint (not skipped
 * when it interrupts another BPF program); "tracepoint": all classic. */
const char *xp_sched_live_hook(const struct xp_sched_live *l);
void xp_sched_live_close(struct xp_sched_live *l);

#endif
