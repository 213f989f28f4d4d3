/*
 * fdinfo's accounting: the DRM clients of every sample (one per open DRM
 * file, however many descriptors and processes share it), each engine's
 * busy time turned from the driver's counters into nanoseconds, and each
 * region's sizes. A client that is gone at a sample (closed, or its
 * process exited) keeps what it used; no counter goes backwards. No libbpf.
 */
#ifndef XP_CAPS_FDINFO_STATS_H
#define XP_CAPS_FDINFO_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "caps/fdinfo/fdinfo_parse.h"

#define XP_FDI_MAX_CLIENTS 65536

/* How an engine's busy time is had */
enum xp_fdi_src {
	XP_FDI_SRC_NONE,	/* no busy keys (yet) */
	XP_FDI_SRC_NS,		/* drm-engine-<e> ns */
	XP_FDI_SRC_TOTAL,	/* drm-cycles-<e> over drm-total-cycles-<e>, times the time between samples */
	XP_FDI_SRC_MAXFREQ,	/* drm-cycles-<e> over drm-maxfreq-<e> */
};

struct xp_fdi_ceng {
	char name[XP_FDI_NAME];
	enum xp_fdi_src src;
	uint32_t capacity;
	uint64_t last, last_total;	/* the counters at the last sample (ns or cycles) */
	uint64_t busy_ns;		/* this interval */
	uint64_t busy_total_ns;		/* since the start */
	uint64_t delta_ns;		/* at the last sample */
};

struct xp_fdi_client {
	char pdev[XP_FDI_NAME], driver[XP_FDI_NAME], name[64];
	uint64_t id;			/* drm-client-id */
	uint32_t pid;			/* the lowest pid that holds it */
	uint32_t nproc;			/* processes that hold it */
	char comm[16];
	char cgroup[256];		/* its cgroup v2 path, "" unknown */
	uint64_t cgroup_id;		/* 0: unknown */
	bool closed;			/* not there at the last sample: closed, or its process exited */
	uint64_t seen_ts;		/* when last seen */
	uint64_t gen;			/* the sample that saw it last */
	uint32_t last_pid;		/* the last process counted in nproc */
	int neng, nreg;
	struct xp_fdi_ceng eng[XP_FDI_MAX_ENGINES];
	struct xp_fdi_region reg[XP_FDI_MAX_REGIONS];	/* the last sample's sizes */
};

struct xp_fdi_stats {
	struct xp_fdi_client *c;
	int n, cap;
	int *slot;			/* open addressing: index + 1, 0 free */
	size_t nslot;
	uint64_t gen;			/* samples taken since the start */
	uint64_t now;			/* this sample's time (CLOCK_MONOTONIC ns) */
	uint64_t samples;		/* this interval */
	/* the last sample's */
	uint64_t procs, fds, nostats, unreadable, unknown_keys, over;
	uint64_t unreadable_pid;	/* one of the unreadable processes, to name */
	uint64_t lost_clients;		/* past XP_FDI_MAX_CLIENTS, since the start */
	uint64_t closed_total;		/* clients gone since the start */
};

void xp_fdi_init(struct xp_fdi_stats *s);
void xp_fdi_free(struct xp_fdi_stats *s);
/* A sample begins at `now`: its counts of processes, fds, ... to zero. */
void xp_fdi_begin(struct xp_fdi_stats *s, uint64_t now);
/*
 * A descriptor with usage stats, in process `pid`: its client, counted
 * once a sample however many descriptors and processes share it; *first:
 * the process's details are to be filled in (its first descriptor this
 * sample, or a lower pid than the one seen so far). NULL past the limit.
 */
struct xp_fdi_client *xp_fdi_add(struct xp_fdi_stats *s, uint32_t pid, const struct xp_fdinfo *fi, bool *first);
/* The sample ends: clients not seen are gone, keeping what they used. */
void xp_fdi_end(struct xp_fdi_stats *s);
/* A new interval: gone clients dropped, busy times of the interval to zero. */
void xp_fdi_reset(struct xp_fdi_stats *s);
/* The busy % of `ns` over `elapsed_ns` on an engine of `capacity` */
double xp_fdi_pct(uint64_t ns, uint64_t elapsed_ns, uint32_t capacity);
const char *xp_fdi_src_name(enum xp_fdi_src src);

#endif
