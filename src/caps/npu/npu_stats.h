/*
 * The npu capability's analysis: calls into the NPU driver per function,
 * per category (one rules table, by name) and per process or per device;
 * latency histograms of timed functions; the driver's tracepoints (jobs per
 * context and engine with submit->done time, JSM messages by type and
 * status with request->response time, PM transitions with durations); the
 * ratios a run is compared on (--baseline). No libbpf here.
 */
#ifndef XP_CAPS_NPU_STATS_H
#define XP_CAPS_NPU_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/hist.h"
#include "caps/npu/npu.h"
#include "core/record_kind.h"

enum xp_npu_cat {
	XP_NPU_CAT_MEM,		/* memory / MMU page tables */
	XP_NPU_CAT_IPC,		/* IPC with the firmware, JSM messages */
	XP_NPU_CAT_BUF,		/* buffers, GEM objects */
	XP_NPU_CAT_JOB,		/* jobs, command queues, submission */
	XP_NPU_CAT_POWER,	/* runtime PM, suspend, resume */
	XP_NPU_CAT_FW,		/* firmware loading, boot */
	XP_NPU_CAT_OTHER,
	XP_NPU_NCAT,
};

/* What a function's calls count as in the ratios. */
enum xp_npu_role {
	XP_NPU_ROLE_NONE,
	XP_NPU_ROLE_IPC_MSG,	/* one IPC message sent or received */
	XP_NPU_ROLE_PAGE_MAP,	/* one page mapped into an MMU context */
	XP_NPU_ROLE_BUFFER,	/* one buffer object created */
	XP_NPU_ROLE_JOB,	/* one job submitted */
};

const char *xp_npu_cat_name(enum xp_npu_cat c);	/* "memory/MMU" */
const char *xp_npu_cat_key(enum xp_npu_cat c);	/* "memory": JSON keys */
/* The category of a driver function, by the rules table (first match wins). */
enum xp_npu_cat xp_npu_category(const char *fn);
enum xp_npu_role xp_npu_role(const char *fn);
/* What a vpu:job event says by its string: a submit, a job done (or signaled, completed), or 0. */
enum { XP_NPU_JOB_SUBMIT = 1, XP_NPU_JOB_DONE = 2 };
int xp_npu_job_event(const char *event);
/* An interrupt handler by its name: its calls are per device, never per process. */
bool xp_npu_irq_name(const char *fn);

/* The ratios a run is compared on. */
struct xp_npu_ratios {
	bool has_pages_per_buffer, has_ipc_per_job;
	double pages_per_buffer;	/* pages mapped per buffer created */
	double ipc_per_job;		/* IPC messages per job submitted */
	double per_s[XP_NPU_NCAT];	/* calls per second per category */
};

/* A ratio that moved beyond the threshold. */
struct xp_npu_moved {
	char what[48];
	double base, now;
};

/*
 * The ratios of an earlier `npu --json` summary (its first document).
 * -EINVAL with `why` when the text is not JSON, or not an npu summary.
 */
int xp_npu_baseline_parse(const char *text, struct xp_npu_ratios *r, char *why, size_t whylen);
/*
 * The ratios that moved by more than `threshold` (0.5: by half, up or
 * down; from or to zero counts as moved) from `base` to `now`; how many
 * were written to `out` (at most `max`).
 */
int xp_npu_compare(const struct xp_npu_ratios *base, const struct xp_npu_ratios *now,
		   double threshold, struct xp_npu_moved *out, int max);

#define XP_NPU_MAX_PROCS 256
#define XP_NPU_MAX_JOBQ 64
#define XP_NPU_MAX_PEND 1024
#define XP_NPU_MAX_JSM 128
#define XP_NPU_MAX_PM 32

struct xp_npu_fnstat {
	char name[XP_NPU_NAME];
	uint64_t calls;
	uint8_t cat, role;
	bool known;		/* attached (or seen in a record) */
};

struct xp_npu_proc {
	uint32_t tgid;
	char comm[XP_COMM_LEN];
	uint64_t calls;
	uint64_t cat[XP_NPU_NCAT];
};

struct xp_npu_lat {
	char name[XP_NPU_NAME];
	struct xp_hist h;
};

struct xp_npu_jobq {
	uint32_t ctx, engine;
	uint64_t submitted, done;
	struct xp_hist lat;	/* submit -> done */
};

struct xp_npu_pend {
	uint32_t k[3];
	uint32_t row;		/* JSM: the request's row */
	uint64_t ts;
	bool used;
};

struct xp_npu_jsm {
	char type[XP_NPU_STR];
	uint32_t status;
	uint64_t msgs;
	struct xp_hist lat;	/* request -> response, counted on the response */
};

struct xp_npu_pm {
	char event[XP_NPU_NAME];
	uint64_t n;
	struct xp_hist dur;	/* from this event to the next PM event */
};

/* amdxdna: one hardware context's jobs (its events name it, "hwctx.PID.ID"). */
#define XP_NPU_MAX_HWCTX 64
#define XP_NPU_MAX_XJOBS 2048
struct xp_npu_hwctx {
	char name[XP_NPU_STR];
	uint32_t tgid;			/* the submitter, from the scheduler's queue event; 0 unknown */
	char comm[XP_COMM_LEN];
	uint64_t queued;		/* jobs whose scheduler queue event was seen (joined) */
	uint64_t run, sent, signaled, freed, done, other;
	struct xp_hist wait;		/* queued -> run: waiting in the scheduler */
	struct xp_hist submit;		/* run -> sent to device: the driver */
	struct xp_hist exec;		/* sent to device -> signaling fence: the device */
	struct xp_hist total;		/* queued -> signaling fence */
};

/* An amdxdna job in flight, by its scheduler fence. */
struct xp_npu_xjob {
	uint64_t fctx, fseq;
	uint64_t queue_ts, run_ts, sent_ts;
	uint32_t tgid;
	char comm[XP_COMM_LEN];
	int row;			/* its hw context, -1 not yet known */
	bool used;
};

struct xp_npu_state {
	struct xp_npu_fnstat fn[XP_NPU_MAX_FN];
	int nfn;			/* highest index + 1 */
	struct xp_npu_proc procs[XP_NPU_MAX_PROCS];
	int nprocs;
	uint64_t procs_overflow;	/* calls of processes past the table */
	uint64_t dev_calls, dev_cat[XP_NPU_NCAT];
	uint64_t cat[XP_NPU_NCAT];
	uint64_t ipc_msgs, pages, buffers, jobs;
	struct xp_npu_lat lat[XP_NPU_MAX_LAT];
	int nlat;
	struct xp_npu_jobq jobq[XP_NPU_MAX_JOBQ];
	int njobq;
	struct xp_npu_pend jobs_open[XP_NPU_MAX_PEND];
	struct xp_npu_jsm jsm[XP_NPU_MAX_JSM];
	int njsm;
	struct xp_npu_pend jsm_open[XP_NPU_MAX_PEND];
	struct xp_npu_pm pm[XP_NPU_MAX_PM];
	int npm;
	int pm_last;			/* the last PM event's entry, -1 none */
	uint64_t pm_last_ts;
	uint64_t tp_events, overflow;	/* events past the tables */
	struct xp_npu_hwctx hw[XP_NPU_MAX_HWCTX];
	int nhw;
	struct xp_npu_xjob xjobs[XP_NPU_MAX_XJOBS];	/* by fence (npu_stats.c) */
	int xjobs_open;
	uint64_t xdna_events;
	uint64_t xjobs_evicted;		/* jobs still open when the table was full: never completed */
};

/* What the live run attached, and the baseline it compares with: for the summary. */
#define XP_NPU_MAX_REFUSED 64
struct xp_npu_info {
	bool known;			/* a live run: what follows is set */
	char hook[16];			/* "kprobe.multi" or "kprobe" */
	int offered, attached, nrefused;
	struct {
		char name[128];
		int err;		/* -errno */
	} refused[XP_NPU_MAX_REFUSED];
	bool intel;			/* intel_vpu traced */
	char intel_why[160];		/* why not, when it is loaded */
	bool tp_job, tp_jsm, tp_pm;
	char tp_why[160];
	bool xdna, xdna_sched;		/* amdxdna's job event; joined with gpu_scheduler's */
	char xdna_why[160];
	bool has_base;
	const char *base_file;
	struct xp_npu_ratios base;
	double threshold;		/* 0.5: moved by half */
};

void xp_npu_init(struct xp_npu_state *s);
/* Names the function of index `fn` (attached): listed even with no call. */
void xp_npu_set_fn(struct xp_npu_state *s, uint32_t fn, const char *name);
void xp_npu_set_lat(struct xp_npu_state *s, int slot, const char *name);
/* `n` calls of function `fn` by process `tgid` (0: per device). */
void xp_npu_add_calls(struct xp_npu_state *s, uint32_t fn, const char *name, uint32_t tgid,
		      const char *comm, uint64_t n);
/*
 * A record: a call, a return (duration), or a tracepoint event. -EINVAL:
 * undecodable. An amdxdna job is joined by its scheduler fence: the
 * gpu_scheduler's queue event (the submitter, the time queued), the
 * driver's "job run", "sent to device", "signaling fence", "job free",
 * and the scheduler's done.
 */
int xp_npu_add(struct xp_npu_state *s, const struct xp_npu_rec *r);
/* The ratios of this state over `secs` seconds. */
void xp_npu_ratios(const struct xp_npu_state *s, double secs, struct xp_npu_ratios *r);
/* A new interval: counts to zero; names, open jobs and requests kept. */
void xp_npu_reset(struct xp_npu_state *s);

/* Its record kind (struct xp_npu_rec: an NPU driver call or event), for its row. */
extern const struct xp_rec_kind xp_npu_rec_kind;

#endif
