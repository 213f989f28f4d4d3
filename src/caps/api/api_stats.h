/*
 * `api`'s analysis, without libbpf: joins each call with the ioctls its
 * thread issued inside it, and counts per function and process: calls,
 * errors, latency, ioctls per call, calls that issued none.
 *
 * The kernel writes an ioctl's record when it returns, and a call's when the
 * call returns, into one ring buffer, so the ioctls of a thread's call come
 * before the call: they wait per thread until a call whose [entry, return]
 * holds them; the outermost call's return lets them go.
 */
#ifndef XP_CAPS_API_STATS_H
#define XP_CAPS_API_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include "caps/api/api.h"
#include "core/hist.h"
#include "core/reckind.h"

extern const struct xp_rec_kind xp_api_rec_kind;

#define XP_API_JOIN_MAX 32	/* ioctls of one call kept for its stream line */
#define XP_API_PENDING 256	/* ioctls of one thread waiting for their call */
#define XP_API_ROW_CMDS 6	/* ioctl commands named per row */
#define XP_API_ROW_ERRS 4	/* error codes counted apart per row */
#define XP_API_MAX_ROWS 4096
#define XP_API_MAX_THREADS 4096

struct xp_api_ioctl {
	uint64_t ts, end;
	int64_t ret;
	uint32_t cmd, dev;
};

/* What a call record completed: the call and the ioctls inside it. */
struct xp_api_joined {
	const struct xp_api_rec *call;
	bool error;
	uint32_t n;		/* ioctls inside it */
	uint32_t nkept;		/* the first of them, in ioc */
	struct xp_api_ioctl ioc[XP_API_JOIN_MAX];
};

struct xp_api_cmdcount {
	uint32_t dev, cmd;
	uint64_t n;
};

/* One function in one process. */
struct xp_api_row {
	uint32_t pid;
	uint32_t rule;
	char comm[XP_COMM_LEN];
	char lib[XP_API_LIB];
	char name[XP_API_NAME];
	uint64_t calls, errors, ioctls, no_ioctl, max_ioctls;
	struct xp_hist lat;
	int ncmd;
	struct xp_api_cmdcount cmd[XP_API_ROW_CMDS];
	uint64_t other_cmds;	/* ioctls of commands past the named ones */
	int nerr;
	int64_t err_code[XP_API_ROW_ERRS];
	uint64_t err_n[XP_API_ROW_ERRS];
	uint64_t other_errs;
};

struct xp_api_thread {
	uint32_t tid;
	uint32_t n;
	struct xp_api_ioctl ioc[XP_API_PENDING];
};

struct xp_api_state {
	struct xp_api_row *rows;
	int nrows;
	struct xp_api_thread *threads;	/* XP_API_MAX_THREADS, allocated */
	int nthreads;
	uint64_t calls, ioctls;		/* this interval */
	uint64_t rows_full;		/* calls of functions past XP_API_MAX_ROWS: counted nowhere else */
	uint64_t ioctls_lost;		/* ioctls not kept for their call (a thread's or the table's limit) */
};

int xp_api_init(struct xp_api_state *s);
void xp_api_free(struct xp_api_state *s);
/* A new interval: rows go, ioctls waiting for their call stay. */
void xp_api_reset(struct xp_api_state *s);
/* Whether a call's return value is an error under its rule. */
bool xp_api_is_error(uint32_t rule, int64_t ret);
/*
 * One record: 1 when it completed a call (then `j` has it and its
 * ioctls), 0 when it was an ioctl kept for its call, -EINVAL when the record
 * is not one this build reads.
 */
int xp_api_add(struct xp_api_state *s, const struct xp_api_rec *r, struct xp_api_joined *j);
/* The rows, most calls first (the order reports use); sorts s->rows. */
void xp_api_sort(struct xp_api_state *s);

#endif
