/* Options the live verbs share (ioctl, sched, record, ...), parsed one way. */
#ifndef XP_CMD_OPTIONS_H
#define XP_CMD_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include "core/devices.h"
#include "live/capture.h"

struct xp_live_opts {
	double duration_s;	/* -d: 0 until a signal */
	double interval_s;	/* -i: 0 no periodic output */
	bool json, stream, verbose;
	struct xp_filters f;	/* -p, -c; --cgroup resolved by xp_live_targets */
	const char *cgroup;
	const char *devices[64];	/* --device */
	int ndevices;
};

enum { XP_OPT_DEVICE = 200, XP_OPT_STREAM, XP_OPT_VERB = 300 /* verbs' own from here */ };

/* Entries for a verb's long option table, with their short forms. */
#define XP_COMMON_LONG                                                           \
	{ "duration", required_argument, NULL, 'd' },                            \
	{ "pid", required_argument, NULL, 'p' },                                 \
	{ "comm", required_argument, NULL, 'c' },                                \
	{ "json", no_argument, NULL, 'j' },                                      \
	{ "verbose", no_argument, NULL, 'v' }
#define XP_COMMON_SHORT "d:p:c:jv"
/* periodic and per-event output */
#define XP_INTERVAL_LONG                                                         \
	{ "interval", required_argument, NULL, 'i' },                            \
	{ "stream", no_argument, NULL, XP_OPT_STREAM }
#define XP_INTERVAL_SHORT "i:"
/* what to trace by device node and cgroup (filters applied in the kernel) */
#define XP_TARGET_LONG                                                           \
	{ "device", required_argument, NULL, XP_OPT_DEVICE },                    \
	{ "cgroup", required_argument, NULL, 'G' }
#define XP_TARGET_SHORT "G:"

/*
 * Handles one getopt_long result. Returns 0 when it was a shared option, 1
 * when it is the verb's own, or exit status 2 after a one-line usage error
 * (bad value, missing value, unknown option).
 */
int xp_live_opt(struct xp_live_opts *o, const char *verb, int c, char **argv);

/*
 * Finds the GPU/NPU majors and nodes, adds the --device nodes, resolves
 * --cgroup. Returns 0, or the exit status after a one-line error.
 */
int xp_live_targets(struct xp_live_opts *o, const char *verb, struct xp_devices *d);

/* Says on stderr when nothing would be traced: no GPU majors and no --device. */
void xp_warn_no_devices(const char *verb, const struct xp_devices *d);

#endif
