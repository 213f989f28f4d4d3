/*
 * The conditions of `record --last ... --trigger COND`: what makes the
 * flight recorder write the window it keeps. COND is
 *
 *   sigusr1                    the recorder got SIGUSR1 (by hand)
 *   CAP:error[=ERRNO][:NAME]   a call of CAP failed (with ERRNO: EFAULT, 14)
 *   CAP:over=T[:NAME]          a call of CAP took longer than T (5ms, 200us, 1s)
 *   CAP:queue=T[:NAME]         a job waited longer than T from queued to run
 *   CAP:run=T[:NAME]           a job ran longer than T
 *   CAP:missed[:NAME]          a frame missed its vblank
 *   CAP:xid[=CODE]             an Xid (of that code)
 *
 * NAME limits it to the calls of that name (an ioctl's, as the summary names
 * it; a ring's, a process's). Which CAP takes which condition is its row's
 * `triggers`.
 */
#ifndef XP_CORE_FLIGHT_TRIGGER_H
#define XP_CORE_FLIGHT_TRIGGER_H

#include <stddef.h>
#include <stdint.h>

enum xp_trig_kind {
	XP_TRIG_SIGUSR1,
	XP_TRIG_ERROR,
	XP_TRIG_OVER,
	XP_TRIG_QUEUE,
	XP_TRIG_RUN,
	XP_TRIG_MISSED,
	XP_TRIG_XID,
};

struct xp_trigger {
	char spec[128];		/* as given */
	char label[48];		/* in the file's name: "ioctl-error", "sigusr1" */
	char cap[16];		/* the capability; "" for sigusr1 */
	enum xp_trig_kind kind;
	char name[96];		/* the call's name; "" any */
	int err;		/* XP_TRIG_ERROR: a positive errno, 0 any; XP_TRIG_XID: the code, -1 any */
	uint64_t over_ns;	/* XP_TRIG_OVER, _QUEUE, _RUN: the threshold */
	uint64_t met;		/* times the condition was met */
};

/* The condition's word ("error", "over", ..., "sigusr1"). */
const char *xp_trigger_word(enum xp_trig_kind k);
/* Parses COND into t: 0, or -EINVAL with one line in why. */
int xp_trigger_parse(struct xp_trigger *t, const char *spec, char *why, size_t len);
/* "5ms", "200us", "1.5s", "800ns" ("2": seconds) into ns: 0 or -EINVAL. */
int xp_parse_time_ns(const char *s, uint64_t *ns);

#endif
