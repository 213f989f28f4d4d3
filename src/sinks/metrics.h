/*
 * Metrics for `xputrace serve`: families of counters and gauges, their
 * series keyed by a binary key the feeder chooses (labels are rendered only
 * when a series is made), bounded in number, and written in the Prometheus
 * text format 0.0.4 or OpenMetrics 1.0.0. Names no capability, no libbpf.
 *
 * Not thread-safe: serve holds its lock around every call.
 */
#ifndef XP_SINKS_METRICS_H
#define XP_SINKS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cgroups.h"
#include <stdio.h>

enum xp_metric_type { XP_METRIC_COUNTER, XP_METRIC_GAUGE, XP_METRIC_HISTOGRAM };

/* A series' identity within its family: what the feeder counts by (ids, not strings). */
struct xp_metric_key {
	uint64_t k[4];
};

struct xp_series {
	struct xp_metric_key key;
	int fam;
	char *labels;		/* rendered: `a="x",b="y"`, "" for none */
	uint64_t value;		/* times the family's scale */
	uint64_t shown;		/* top: the value at its last refresh */
	uint64_t *buckets;	/* histograms: observations per bucket (not cumulative), the last +Inf */
	struct xp_series *next;	/* the family's, in creation order */
};

struct xp_metric_fam {
	const char *name;	/* the family: no _total (added to counters' samples) */
	const char *help;
	const char *unit;	/* "seconds", "bytes", or NULL */
	enum xp_metric_type type;
	double scale;		/* value * scale is what is written (ns to seconds: 1e-9) */
	const uint64_t *le;	/* histograms: the buckets' upper bounds, unscaled, ascending */
	int nle;
	bool bounded;		/* its series count against max_series (xputrace's own do not) */
	struct xp_series *first, *last, *other;	/* other: where folded series go */
};

/* Series past max_series are folded into their family's `other` series. */
#define XP_METRICS_DEFAULT_MAX_SERIES 10000

struct xp_metrics {
	struct xp_metric_fam *fams;
	int nfams, capfams;
	struct xp_series **slots;	/* open addressing on (fam, key) */
	size_t cap, n;
	size_t max_series;		/* bounded series kept (others folded); 0: no limit */
	size_t nbounded;		/* bounded series made */
	uint64_t folded;		/* distinct (fam, key) folded into an `other` series */
	size_t nfolded_keys;		/* of them remembered (bounded too) */
};

void xp_metrics_init(struct xp_metrics *m, size_t max_series);
void xp_metrics_free(struct xp_metrics *m);

/*
 * A family, its index; -ENOMEM. The strings must outlive m. A name declared
 * already gives that family (rows share one: the GPU busy time below), or
 * -EEXIST where its type differs.
 */
int xp_metrics_family(struct xp_metrics *m, const char *name, const char *help, const char *unit,
		      enum xp_metric_type type, double scale, bool bounded);

/*
 * A histogram family (sum in `value`, unscaled): `le` the buckets' upper
 * bounds in the values' unit, ascending, kept by reference; +Inf is added.
 */
int xp_metrics_histogram(struct xp_metrics *m, const char *name, const char *help, const char *unit,
			 const uint64_t *le, int nle, double scale, bool bounded);
/*
 * A family a capability declares, in a table: where in its state the index
 * goes, its name, help and unit ("seconds": values in ns, written scaled by
 * 1e-9), and for a histogram its buckets.
 */
struct xp_metric_def {
	size_t at;		/* offsetof the int that keeps the family's index */
	const char *name, *help, *unit;
	enum xp_metric_type type;	/* XP_METRIC_COUNTER, XP_METRIC_GAUGE or XP_METRIC_HISTOGRAM */
	const uint64_t *le;		/* histograms: as xp_metrics_histogram takes them */
	int nle;
};
#define XP_METRIC_NDEFS(defs) ((int)(sizeof(defs) / sizeof((defs)[0])))
/* Every family of the table, bounded; 0, or -ENOMEM. */
int xp_metrics_declare(struct xp_metrics *m, const struct xp_metric_def *d, int n, void *state);

/* One observation of `v` (unscaled) into a histogram's series. */
void xp_series_observe(const struct xp_metrics *m, struct xp_series *s, uint64_t v);

/*
 * The series of `key` in family `fam`: made on first use, its labels then
 * rendered by labels(ctx, buf, len) (see xp_labels_add). Past max_series a
 * new key of a bounded family is folded into its `other` series (labels
 * `other="true"`), and counted in m->folded. NULL only when out of memory.
 */
struct xp_series *xp_metrics_series(struct xp_metrics *m, int fam, const struct xp_metric_key *key,
				    void (*labels)(void *ctx, char *buf, size_t len), void *ctx);

/*
 * Appends `name="value"` to the labels in buf (a comma first when buf is not
 * empty), the value escaped as both formats want: backslash, double quote
 * and newline escaped, other control bytes and invalid UTF-8 as '?'.
 * Truncated cleanly when buf is full (no half label). Returns buf.
 */
char *xp_labels_add(char *buf, size_t len, const char *name, const char *value);

/*
 * The value of label `name` in rendered labels (as xp_labels_add wrote
 * them), unescaped into buf; NULL when there is none.
 */
const char *xp_labels_get(const char *labels, const char *name, char *buf, size_t len);

/*
 * Writes every family: Prometheus text 0.0.4, or OpenMetrics 1.0.0 text
 * (counters' families without _total, # UNIT, the closing # EOF).
 */
void xp_metrics_write(FILE *f, const struct xp_metrics *m, bool openmetrics);

/*
 * What a capability counts its metrics with (its row's metrics_init, for
 * `xputrace serve`): the store, whether series are per process, and the
 * labels of a cgroup id.
 */
struct xp_metrics_in {
	struct xp_metrics *m;
	bool per_process;	/* pid and comm labels too (and in the key) */
	/* appends the labels of a cgroup id (cgroup, container_id, pod_uid, systemd_unit) */
	void (*cgroup_labels)(void *ctx, uint64_t cgroup_id, char *buf, size_t len);
	void *ctx;
	/* processes to cgroup ids, one table for every row (NULL: only the ids records carry) */
	struct xp_pid_cgroups *pids;
};

/* A task's cgroup id for its series: `known` where its record carried one, else by pid (in->pids). */
uint64_t xp_metrics_pid_cgroup(const struct xp_metrics_in *in, uint32_t pid, uint64_t known);

/*
 * Appends the labels of a task's series: its cgroup's (in->cgroup_labels),
 * then pid and comm (at most 16 bytes, not NUL-terminated at that length)
 * where the series are per process.
 */
void xp_metrics_task_labels(const struct xp_metrics_in *in, uint64_t cgroup_id, uint32_t pid,
			    const char *comm, char *buf, size_t len);

/*
 * GPU busy time, xputrace_gpu_busy_seconds, is one family for every source
 * (its `source` label): "drm_sched" (sched: each job's time on its ring),
 * "cupti" (cuda: the union of a process's CUDA kernels' intervals per
 * device), "fdinfo" (the drivers' own accounting per DRM client, sampled).
 * Several sources can count the same work: a sum over `source` counts it
 * twice. Each row declares the family by its name
 * (tests/e2e/check_grafana.py reads the names from the calls) with this help.
 */
#define XP_GPU_BUSY_HELP "Time a cgroup's work held the GPU, by source: drm_sched, each job from its run " \
	"(or the ring's previous done if later) to its done, per ring; cupti, the union of a process's " \
	"CUDA kernels' intervals, per device; fdinfo, the driver's own busy time per engine; sources may " \
	"count the same work, so do not add them"
/*
 * Which source of a series to believe where a process has several (`top`):
 * its rank, 0 first. Exact per process first, drm_sched then cupti (a GPU
 * has one or the other), then the drivers' sampled fdinfo. A series with
 * no `source` label (`labels` as rendered) ranks 0.
 */
int xp_source_rank(const char *labels);
/* The source of a rank ("drm_sched", "cupti", "fdinfo"). */
const char *xp_source_of_rank(int rank);
#define XP_SOURCE_RANKS 3

/*
 * The labels of a record's series, as xp_metrics_series takes them (fn
 * xp_rec_labels, ctx this): the task's (xp_metrics_task_labels) where
 * `task`, then the capability's own, name[i]="value[i]" while name[i] is set.
 */
struct xp_rec_labels {
	const struct xp_metrics_in *in;
	bool task;
	uint64_t cgroup_id;
	uint32_t pid;
	const char *comm;
	const char *name[3], *value[3];
};
void xp_rec_labels(void *ctx, char *buf, size_t len);

#define XP_METRICS_CT_PROMETHEUS "text/plain; version=0.0.4; charset=utf-8"
#define XP_METRICS_CT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"
/* Whether an Accept header's value asks for OpenMetrics text. */
bool xp_metrics_wants_openmetrics(const char *accept);

#endif
