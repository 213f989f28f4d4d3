/*
 * `record --last SECONDS --trigger COND -o DIR`: the flight recorder. The
 * records go into a ring in memory (core/flight_ring.h) instead of a file;
 * each trigger (core/flight_trigger.h) writes DIR/<time>-<trigger>.xpt, a
 * normal trace file of the window before it and --after seconds after it.
 */
#ifndef XP_CMD_FLIGHT_H
#define XP_CMD_FLIGHT_H

#include <stdbool.h>
#include <stdint.h>
#include "caps/cap.h"
#include "core/flight_trigger.h"
#include "core/tracefile.h"

#define XP_FLIGHT_MAX_TRIG 16
#define XP_FLIGHT_OPTS 6	/* the options xp_flight_opt takes, in record's table */

struct xp_flight_cfg {
	double last_s;		/* 0: not a flight recorder */
	double after_s, holdoff_s;
	uint64_t ring_bytes;
	uint64_t max_triggers;	/* files written at most */
	struct xp_trigger trig[XP_FLIGHT_MAX_TRIG];
	int row[XP_FLIGHT_MAX_TRIG];	/* the instance each condition is of (-1: sigusr1) */
	int ntrig;
	int feed[XP_FLIGHT_MAX_TRIG];	/* the instances with a trigger_feed, once each */
	int nfeed;
};

/* What a flight recorder writes its files with. */
struct xp_flight_io {
	const struct xp_trace_meta *meta;
	struct xp_trace_wopts wopts;
	void (*stats)(void *ctx, struct xp_trace_stats *st);	/* the drops so far */
	void *ctx;
	struct xp_cap_inst *ci;		/* a condition's state goes into its instance */
	const bool *want;
	int nci;
};

struct xp_flight;

void xp_flight_cfg_init(struct xp_flight_cfg *c);
/* record's option `i` of the flight ones (--last, --after, --trigger, --ring-size, --max-triggers, --holdoff): 0 or 2, said */
int xp_flight_opt(struct xp_flight_cfg *c, int i, const char *arg);
/* Once the capabilities are chosen: each condition of one recorded that takes it. 0 or 2, said. */
int xp_flight_check(struct xp_flight_cfg *c, const struct xp_cap_inst *ci, const bool *want, int nci);
/* Makes DIR if it is missing (said); NULL with the error said and *status set. SIGUSR1 is caught from here on. */
struct xp_flight *xp_flight_open(const struct xp_flight_cfg *c, const char *dir,
				 const struct xp_flight_io *io, int *status);
/* One record: into the ring, into the file being written, through the conditions. 0 or -errno. */
int xp_flight_add(struct xp_flight *f, const struct xp_rec_hdr *h);
/* Ages the ring, takes a SIGUSR1, ends a file whose window is over. 0 or -errno. */
int xp_flight_poll(struct xp_flight *f);
/* Tracing ended at stopped_ns: the file being written ends there; the totals said. 0 or -errno. */
int xp_flight_end(struct xp_flight *f, uint64_t stopped_ns);
/* A run that failed: DIR goes again if this run made it and wrote nothing into it. */
void xp_flight_failed(struct xp_flight *f);
void xp_flight_free(struct xp_flight *f);

#endif
