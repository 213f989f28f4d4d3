/*
 * The capability contract. A capability is one thing xputrace traces (GPU
 * ioctls, scheduler jobs, vblanks, buffer memory, ...), described once by a
 * struct xp_cap: its name and help, the options it adds, what doctor checks
 * for it, how it opens its kernel side, how it decodes and aggregates
 * records, and how it prints them. `main`, the top-level help, the live
 * runner, `record`, `report`, `export` and `doctor` walk the table
 * (src/caps/table.c) and name no capability; a new capability is its own
 * files plus one row there (see "Adding a capability" in src/caps/README.md).
 *
 * The same instance type runs live and on a trace file: only where the
 * records come from differs, so a file reports what the live run printed.
 */
#ifndef XP_CAPS_CAP_H
#define XP_CAPS_CAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/devices.h"
#include "core/filters.h"
#include "core/rawtp_layout.h"
#include "core/record_kind.h"
#include "shared/record.h"
#include "sinks/json.h"
#include "sinks/run_info.h"

struct xp_kside;		/* a kernel side, src/live/kernel_side.h */
struct xp_live_share;		/* a ring buffer to write into, src/live/kernel_side.h */
struct xp_perfetto;		/* src/sinks/perfetto.h */
struct xp_trace_meta;		/* src/core/tracefile.h */
struct xp_feature;		/* src/live/features.h */
struct xp_metrics_in;		/* src/sinks/metrics.h */
struct xp_trigger;		/* src/core/flight_trigger.h */

/* What the records are turned into as they arrive. */
enum xp_cap_out {
	XP_OUT_SUMMARY,		/* aggregate only: the summary at the end (or per interval) */
	XP_OUT_STREAM,		/* also one line (or JSON object) per event */
	XP_OUT_PERFETTO,	/* trace events for the Perfetto export */
};

/* Where an instance runs: the same for a live run and a trace file. */
struct xp_cap_env {
	bool live;			/* false: records come from a trace file */
	enum xp_cap_out out;
	bool json;			/* stream as JSON objects (XP_OUT_STREAM) */
	FILE *f;			/* where stream lines go */
	struct xp_json *stream_json;	/* the JSON stream writer on f */
	struct xp_perfetto *pf;		/* XP_OUT_PERFETTO */
	struct xp_filters filt;		/* the run's (live) or the recording's (file) */
	const struct xp_devices *devs;	/* device names: this machine's, or the file's */
	uint32_t page_size;		/* the recording host's */
	uint64_t t0;			/* the time shown as 0 in stream lines */
	const struct xp_trace_meta *meta;	/* a trace file's header (NULL live) */
};

/* One capability in one run. */
struct xp_cap_inst {
	const struct xp_cap *cap;
	const struct xp_cap_env *env;
	void *opts;			/* cap->opts_size bytes, set by cap->opts_init and cap->opt */
	struct xp_rawtp_layout *layout;	/* tracepoint capabilities: from tracefs or the file */
	void *st;			/* the analysis state (cap->init) */
	struct xp_kside *k;		/* the kernel side (live only) */
	uint64_t undecodable;		/* records the analysis could not decode, this interval */
	void *mst;			/* serve: the metrics state (cap->metrics_init), freed with free() */
};

/* What the kernel side is opened with. */
struct xp_open_args {
	const struct xp_filters *f;
	const struct xp_devices *devs;
	bool aggregate;				/* summary only: count in the kernel where it can */
	const struct xp_live_share *share;	/* NULL, or the ring buffer to write into */
	bool metrics_only;			/* serve: only what the row's metrics_feed needs */
};

/* One summary: of an interval, or the final one. */
struct xp_cap_report {
	const struct xp_run_info *ri;
	bool json, hist;
	bool final;		/* the run ended: what is still open never completed */
	uint64_t now;		/* the records' clock at this report */
};

/* An option a capability adds to the common ones (see src/cmd/options.c). */
struct xp_cap_opt {
	const char *name;	/* long name */
	int short_name;		/* 0: none */
	const char *arg;	/* the value's name in --help; NULL: takes no value */
	const char *help;	/* '\n' starts a continuation line */
	/*
	 * true: changes what is traced (the kernel side reads it), so `record`
	 * applies it while recording. false: shapes the summary; `record` keeps
	 * it in the file and `report` applies it (xp_cap_inst_from_file).
	 */
	bool record;
	/* NULL: `record` takes it; else why `record` refuses it (one line, after "--NAME ") */
	const char *no_record;
};

/* What doctor found, for a capability's `available` check. */
struct xp_doctor_env {
	const struct xp_feature *at;		/* XP_AT_MAX attach types, each tried */
	bool (*module_loaded)(const char *name);
	int (*group_events)(const char *group);	/* events in a tracefs group, -1 unknown */
	bool (*event_exists)(const char *group, const char *event);
	bool runs32;				/* 32-bit programs can run here */
};

enum {
	XP_CAP_DEVICES = 1 << 0,	/* traces device nodes: takes --device, warns when none */
	XP_CAP_RECORD_DEFAULT = 1 << 1,	/* what `record` records when no capability is named */
	XP_CAP_KERNEL_AGG = 1 << 2,	/* aggregates in the kernel in summary mode */
	XP_CAP_SAYS_UNDECODABLE = 1 << 3, /* its summary counts undecodable records itself */
	XP_CAP_POSITIONAL_INTERVAL = 1 << 4, /* takes [INTERVAL [COUNT]] after the options, as bcc tools do */
	XP_CAP_STREAM_TICK = 1 << 5,	/* its drain's tick runs with --stream too (api: libraries replaced) */
	/*
	 * Samples in user space, no kernel side and no records (fdinfo): its
	 * `open` checks what it reads and leaves ci->k NULL; the live runner
	 * calls `drain` as the sample, at the start, every second and before
	 * each summary; it takes no --stream, --no-hist or -v; `record` does not take it;
	 * `serve` calls `metrics_sample` instead of feeding records.
	 */
	XP_CAP_SAMPLER = 1 << 6,
	/*
	 * `serve` and `top` open it by default where they can: unless named, a
	 * failed open is one note and they go on without it (cuda: what a node
	 * without CUDA needs not have).
	 */
	XP_CAP_SERVE_OPTIONAL = 1 << 7,
};

struct xp_cap {
	const char *name;
	const char *summary;	/* one line: top-level help, doctor */
	const char *about;	/* --help: what it traces, after the usage line */
	const char *examples;	/* --help: the examples block */
	unsigned int flags;

	/* doctor: can it run here? `why` says what it uses, or why not */
	bool (*available)(const struct xp_doctor_env *d, char *why, size_t len);

	/* Rows without `open` are planned: doctor lists them, nothing runs them. */
	const struct xp_rec_kind *rec;		/* the records it writes: type, size (core/record_kind.h) */
	const struct xp_rawtp_event *events;	/* tracepoint layouts it needs; NULL: none */
	int nev;

	const struct xp_cap_opt *opts;		/* its own options, ending with { NULL } */
	size_t opts_size;
	void (*opts_init)(void *opts);
	/* option `i` of `opts` with its value: 0, or exit status 2 after the one-line error */
	int (*opt)(void *opts, int i, const char *arg);
	/* After all options: 0, or exit status 2 after the one-line error (options that need each other) */
	int (*opts_check)(void *opts);

	/*
	 * Live: opens, loads and attaches the kernel side into ci->k, parsing the
	 * layouts into ci->layout first where it has events. -ENOENT: this kernel
	 * lacks the events (then `no_events` says so); else `why` says what failed.
	 */
	int (*open)(struct xp_cap_inst *ci, const struct xp_open_args *a, char *why, size_t len);
	/* The one-line error when the kernel lacks the events (after -ENOENT). */
	void (*no_events)(const struct xp_cap_inst *ci, char *msg, size_t len);
	/*
	 * Live, once the kernel side is attached: records of what was so before
	 * tracing began (nvidia: the device files already open), handed to `fn`
	 * with time `ts`. The live runner feeds them before the kernel's
	 * records, `record` writes them first into the file, so a file reports
	 * what the live run found. NULL: none. 0 or fn's negative return.
	 */
	int (*snapshot)(struct xp_cap_inst *ci, const struct xp_filters *f, uint64_t ts,
			int (*fn)(void *ctx, const struct xp_rec_hdr *h), void *ctx);
	/* What "Tracing ..." says it traces, e.g. "GPU ioctls (tp_btf)". */
	void (*describe)(const struct xp_cap_inst *ci, char *buf, size_t len);
	/* Live, once the run ended: one line on stderr for what the hook could not see. NULL: none. */
	void (*say_unseen)(const struct xp_cap_inst *ci, const char *verb);

	/* The analysis, live and from a file alike: ci->env, ci->opts, ci->layout are set. */
	int (*init)(struct xp_cap_inst *ci);
	void (*free)(struct xp_cap_inst *ci);
	/* One record of cap->rec->type: aggregate, and stream or export it per ci->env->out. */
	int (*feed)(struct xp_cap_inst *ci, const struct xp_rec_hdr *h);
	/*
	 * Live summary mode: moves what the kernel aggregated into the state;
	 * `tick` for the runner's once-a-second drain, false before a report.
	 */
	int (*drain)(struct xp_cap_inst *ci, bool tick);
	/* --stream's text heading; NULL: no stream writer, so no --stream (refused, exit 2) */
	void (*stream_header)(FILE *f);
	void (*report)(struct xp_cap_inst *ci, FILE *f, const struct xp_cap_report *r);
	/* A new interval: counters to zero, what is still open kept. */
	void (*reset)(struct xp_cap_inst *ci, uint64_t now);
	/*
	 * `record` and `serve`, about once a second while they run: the
	 * kernel-side upkeep the live verb's drain does besides counting
	 * (latency: ages the in-flight table by --max-age; cuda: attaches files
	 * of its library found since), adding to *let_go what it let go. NULL: none.
	 */
	int (*upkeep)(struct xp_cap_inst *ci, uint64_t *let_go);
	/* What upkeep lets go, said at the end of a recording: "starts aged out ..." */
	const char *let_go;
	/*
	 * `record --last --trigger CAP:COND`: the conditions it takes ("error
	 * over": enum xp_trig_kind's words), and whether record h (of its
	 * type) meets t, setting *when (h->ts_ns unless set) to when that became
	 * known where h is stamped earlier (a call's return). NULL: it takes none. A condition on what several
	 * records make (a job's run time, a missed frame) keeps its state in
	 * ci->st, freed by `free`: `trigger_feed` sees each record of its type
	 * once, before trigger_match is asked of it; 0 or -errno. NULL: none.
	 */
	const char *triggers;
	int (*trigger_feed)(struct xp_cap_inst *ci, const struct xp_rec_hdr *h);
	bool (*trigger_match)(const struct xp_cap_inst *ci, const struct xp_trigger *t,
			      const struct xp_rec_hdr *h, uint64_t *when);
	/* From a file: the hook to report (NULL: the one the file names). */
	const char *file_hook;
	/*
	 * Another row whose analysis this one joins with its own (api: sched's
	 * jobs), or NULL. Where both run on one stream of records, `link` is
	 * called once both are initialized, before any record: the live runner
	 * opens that row too, into this one's ring buffer, when its events exist
	 * here, and feeds it without printing it; `report` reads its records
	 * from a file that has them; `export` links the rows it draws. 0 or -errno.
	 */
	const char *joins;
	int (*link)(struct xp_cap_inst *ci, struct xp_cap_inst *other);

	/*
	 * `xputrace serve` (src/cmd/serve.c): rows with these feed metrics and
	 * are opened there with aggregate off, so each record reaches
	 * metrics_feed. metrics_init declares the row's families into mi->m
	 * and keeps its state in ci->mst: metrics_size zeroed bytes, allocated
	 * before and freed with free() after metrics_free; ci->env and
	 * ci->opts are set.
	 */
	size_t metrics_size;
	int (*metrics_init)(struct xp_cap_inst *ci, const struct xp_metrics_in *mi);
	/* One record of cap->rec->type counted: 0, 1 when it cannot be decoded (serve counts it), or -errno. */
	int (*metrics_feed)(struct xp_cap_inst *ci, const struct xp_rec_hdr *h);
	/* A sampler's (XP_CAP_SAMPLER) one sample into its metrics, about every second: 0 or -errno. */
	int (*metrics_sample)(struct xp_cap_inst *ci);
	/* What ci->mst holds besides itself (NULL: nothing); ci->mst is freed after. */
	void (*metrics_free)(struct xp_cap_inst *ci);
	/*
	 * A row without an events table: the tracepoint (group, name) its
	 * metrics come from; serve picks the row by default only where this
	 * kernel has it. NULL: always.
	 */
	const char *metrics_tp[2];
};

/* The table: every capability, in the order help, record and doctor list them. */
extern const struct xp_cap *const xp_caps[];
extern const size_t xp_ncaps;

/* By exact name; NULL when there is none or it is only planned. */
const struct xp_cap *xp_cap_find(const char *name);
static inline bool xp_cap_runs(const struct xp_cap *c) { return c->open != NULL; }
/*
 * Hands the rows' record kinds to the decoder and trace files (core/record_kind.h),
 * once at start-up: -EEXIST when two rows claim one record type.
 */
int xp_caps_use_records(void);
/*
 * doctor's check for a capability on classic tracepoints of one event group
 * (cmd/doctor.c, which makes the xp_doctor_env):
 * true when they attach here and `group` has events; `why` says so, or that
 * tracepoints do not attach, or `missing` ("no dma_fence events: ...").
 */
bool xp_cap_tp_group_available(const struct xp_doctor_env *d, const char *group, const char *missing,
			       char *why, size_t len);
/* "ioctl, sched, vblank, mem": the capabilities this build runs. */
const char *xp_cap_names(char *buf, size_t len);

#endif
