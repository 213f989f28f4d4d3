/*
 * What the tracing verbs share: the common options, parsed one way, the
 * help they print, the device and cgroup targets, and the one live runner
 * that every capability's verb is (`xputrace ioctl`, `sched`, ...).
 */
#ifndef XP_CMD_RUNNER_H
#define XP_CMD_RUNNER_H

#include <stdbool.h>
#include <stdio.h>
#include "caps/cap.h"
#include "core/devices.h"

/* The common options, by bit: a verb takes the ones it names. */
enum {
	XP_O_DURATION = 1 << 0,	/* -d SECONDS */
	XP_O_INTERVAL = 1 << 1,	/* -i SECONDS */
	XP_O_STREAM = 1 << 2,	/* --stream */
	XP_O_JSON = 1 << 3,	/* -j */
	XP_O_PID = 1 << 4,	/* -p PID */
	XP_O_COMM = 1 << 5,	/* -c NAME */
	XP_O_CGROUP = 1 << 6,	/* -G PATH */
	XP_O_DEVICE = 1 << 7,	/* --device PATH */
	XP_O_NOHIST = 1 << 8,	/* --no-hist */
	XP_O_VERBOSE = 1 << 9,	/* -v */
	XP_O_FILTERS = XP_O_PID | XP_O_COMM | XP_O_CGROUP,
	XP_O_TRACE = XP_O_DURATION | XP_O_INTERVAL | XP_O_STREAM | XP_O_JSON | XP_O_FILTERS |
		     XP_O_NOHIST | XP_O_VERBOSE,
};

struct xp_live_opts {
	double duration_s;	/* -d: 0 until a signal */
	double interval_s;	/* -i: 0 no periodic output */
	bool json, stream, verbose, hist;
	struct xp_filters f;	/* -p, -c; --cgroup resolved by xp_live_targets */
	const char *cgroup;
	const char *devices[64];	/* --device */
	int ndevices;
};

/* A verb's or a capability's own options, and what takes them. */
struct xp_optset {
	const struct xp_cap_opt *opts;	/* ending with { NULL } */
	int (*fn)(void *ctx, int i, const char *arg);	/* 0, or status 2 after the error */
	void *ctx;
};

/*
 * Parses argv[1..] (argv[0] is the verb): the common options in `common`,
 * then those of `sets`. -h/--help calls help(help_ctx) and returns -1.
 * Returns 0 (argv[optind..] are the operands), -1 after help, or exit
 * status 2 after a one-line usage error.
 */
int xp_opts_parse(const char *verb, int argc, char **argv, unsigned int common,
		  struct xp_live_opts *lo, const struct xp_optset *sets, int nsets,
		  void (*help)(const void *ctx), const void *help_ctx);
/* The --help lines of the common options in `common`, then of `opts` (may be NULL). */
void xp_opts_help(FILE *f, unsigned int common, const struct xp_cap_opt *opts);
/* The common options a capability's verb takes. */
unsigned int xp_cap_common(const struct xp_cap *cap);
/* The common options in `common` as --help shows them, in its order, into out[max]: their number. */
int xp_common_opts(unsigned int common, const struct xp_cap_opt **out, int max);

/*
 * A verb that opens several capabilities at once, into one ring buffer
 * (record, serve): which rows it takes, and which it opens.
 */
struct xp_multi_caps {
	struct xp_cap_inst *ci;		/* an instance of every runnable row, table order */
	int nci;
	bool *want;			/* nci: set by xp_opts_parse_multi, the ones to open */
	bool (*takes)(const struct xp_cap *c);		/* rows it can open; NULL: all */
	bool (*by_default)(const struct xp_cap *c);	/* opened when none is named */
	const char *does;		/* "records": "this build records: ioctl, ..." */
	const char *lacks;		/* what a row it does not take lacks: "metrics" */
	/*
	 * A row's option that shapes its summary (xp_cap_opt.record false),
	 * once applied: the verb keeps it (record: into the file), 0 or the
	 * exit status after the one-line error. NULL: the verb prints no such
	 * summary and refuses them, naming the option.
	 */
	int (*keep)(void *ctx, const struct xp_cap *c, const struct xp_cap_opt *o, const char *arg);
	void *keep_ctx;
	bool named;			/* set by xp_opts_parse_multi: rows were named (none: by_default) */
	/* xp_open_shared: a row flagged XP_CAP_SERVE_OPTIONAL, not named, that fails is a note */
	bool optional;
};
/*
 * xp_opts_parse with the verb's own options `own` and every taken row's
 * options, then the CAPABILITY... operands into mc->want (none named:
 * by_default). The rows' options are applied after the operands, to every
 * wanted row with an option of that name (ioctl and latency both have
 * --max-keys); one no wanted row has is refused, naming its rows; one that
 * shapes a summary goes to mc->keep, or is refused without it; one with
 * no_record is refused with that reason when mc->keep is set (record).
 * Then the wanted rows' opts_check. Returns as xp_opts_parse does.
 */
int xp_opts_parse_multi(const char *verb, int argc, char **argv, unsigned int common,
			struct xp_live_opts *lo, const struct xp_optset *own, struct xp_multi_caps *mc,
			void (*help)(const void *ctx), const void *help_ctx);
/*
 * Opens mc->ci[i] into one ring buffer with those opened before it: the
 * first one opened owns it (into *owner, `share`, s->obj), later ones write
 * into it and are polled beside it (s->more_obj, which holds mc->nci).
 * 0 (ci->k NULL where mc->optional let it go); -1 when a signal broke the
 * opening off (open no more); else the exit status after the one-line error.
 */
struct xp_session;
int xp_open_shared(const char *verb, const struct xp_multi_caps *mc, int i, const struct xp_open_args *oa,
		   struct xp_live_share *share, struct xp_session *s, struct xp_kside **owner);
/*
 * The end of a run of several: every row detached (nothing new comes), what
 * is queued read within XP_STOP_NS of `stopped`, then what was unread,
 * skipped or unseen said. Returns `err`, or the drain's when err is 0.
 */
/* The rows' kernel sides detached (live/kernel_side.h's xp_kside_detach_all). */
/*
 * The kernel-side upkeep of the opened rows (cap->upkeep: latency's ageing,
 * cuda's library found while tracing), into let_go[i] (NULL: not kept).
 * 0, or the first error.
 */
int xp_caps_upkeep(struct xp_cap_inst *ci, int n, const bool *want, uint64_t *let_go);
void xp_caps_detach(const char *verb, struct xp_cap_inst *ci, int n);
int xp_multi_finish(const char *verb, const struct xp_multi_caps *mc, struct xp_session *s,
		    uint64_t stopped, int err);
/*
 * --help's "Options of the capabilities:" block: the taken rows' options
 * that change what is traced; with mc->keep, also those kept for the
 * summary and those refused, with why.
 */
void xp_multi_caps_help(FILE *f, const struct xp_multi_caps *mc);

/*
 * Finds the GPU/NPU majors and nodes, adds the --device nodes, resolves
 * --cgroup. Returns 0, or the exit status after a one-line error.
 */
int xp_live_targets(struct xp_live_opts *o, const char *verb, struct xp_devices *d);
/* Says on stderr when nothing would be traced: no GPU majors and no --device. */
void xp_warn_no_devices(const char *verb, const struct xp_devices *d);

/* The one-line error for a kernel side that did not open (`why` from cap->open). */
int xp_open_failed(const char *verb, const struct xp_cap_inst *ci, int err, const char *why);

struct xp_session;
/* Says on stderr how many records the end's drain left unread, if any. */
void xp_say_unread(const char *verb, const struct xp_session *s);
/*
 * One line on stderr for records skipped: `unclaimed` of a type no
 * capability claims, `malformed` cut short or of a bad size. Nothing when none.
 */
void xp_say_skipped(const char *verb, uint64_t unclaimed, uint64_t malformed);

/* `xputrace CAP`: the live runner, the same for every capability. */
int xp_cmd_live(const struct xp_cap *cap, int argc, char **argv);

/*
 * An instance ready to be fed: layout (tracepoint capabilities), options
 * (defaults), nothing opened or initialized. Free with xp_cap_inst_free.
 */
int xp_cap_inst_new(struct xp_cap_inst *ci, const struct xp_cap *cap, const struct xp_cap_env *env);
void xp_cap_inst_free(struct xp_cap_inst *ci);

#endif
