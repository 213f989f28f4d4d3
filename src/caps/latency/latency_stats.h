/*
 * `latency`'s analysis: completed pairs (struct xp_lat_rec) grouped by key,
 * with count, mean, standard deviation, min, exact percentiles, max and a
 * histogram per key. No libbpf: live runs and trace files feed the same.
 */
#ifndef XP_CAPS_LATENCY_STATS_H
#define XP_CAPS_LATENCY_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/hist.h"
#include "caps/latency/latency.h"
#include "core/record_kind.h"

/* Values kept per key for exact percentiles; past this, from the histogram. */
#define XP_LAT_KEEP_VALUES (1u << 22)
#define XP_LAT_DEFAULT_MAX_KEYS 4096

struct xp_lat_row {
	struct xp_lat_key key;
	char comm[XP_COMM_LEN];		/* the last starting thread's */
	uint64_t count, min, max;
	double mean, m2;		/* running mean and sum of squared deviations */
	uint64_t *vals;
	size_t nvals, cap;
	struct xp_hist h;
	bool other;			/* the row of keys past max_keys */
};

struct xp_lat_state {
	struct xp_lat_row *rows;
	size_t nrows, cap;
	size_t max_keys;		/* rows kept; later keys go to the (other) row */
	int *index;			/* open addressing over rows, -1 empty */
	size_t index_cap;
	bool have_layout;		/* names and kinds known from a record */
	char names[XP_LAT_NAMES + 1];
	uint8_t kind[XP_LAT_MAX_KEYS];
	uint64_t pairs, bad;		/* bad: end before start */
	uint64_t nested;		/* pairs completed inside another of the same key */
	/* the kernel's counters for this interval (live only) */
	bool have_kernel;
	uint64_t kstat[XP_LAT_ST_MAX];
	uint64_t aged;			/* starts aged out of the in-flight table */
	uint64_t open;			/* starts still in flight at the report */
	uint64_t skipped[2];		/* starts, ends the kernel skipped (their programs never ran) */
	bool skip_known[2];		/* whether this kernel lets them be counted */
};

struct xp_lat_summary {
	uint64_t count, min, max, p50, p90, p99;
	double mean, stddev;
};

void xp_lat_init(struct xp_lat_state *s, size_t max_keys);
void xp_lat_free(struct xp_lat_state *s);
/* One completed pair: 0, or -ENOMEM. */
int xp_lat_add(struct xp_lat_state *s, const struct xp_lat_rec *r);
/* Rows to zero (kept allocated), counters to zero. */
void xp_lat_reset(struct xp_lat_state *s);
/* Sorts the rows by key, for printing. */
void xp_lat_sort(struct xp_lat_state *s);
void xp_lat_summarize(struct xp_lat_row *row, struct xp_lat_summary *out);

/*
 * Nearest-rank percentile of n sorted values: the smallest value with at
 * least p% of the values at or below it. 0 for n == 0.
 */
uint64_t xp_lat_percentile(const uint64_t *sorted, size_t n, double p);

/* The key of a row as text: "tid=1234", "dev=0000:00:01.0 pasid=3". */
const char *xp_lat_key_str(const struct xp_lat_state *s, const struct xp_lat_row *r, char *buf,
			   size_t len);
/* Key field i's name ("key1" when the records carry none). */
const char *xp_lat_key_name(const struct xp_lat_state *s, int i, char *buf, size_t len);
/* Key field i of a row as a value: number (is_num set) or string. */
uint64_t xp_lat_key_num(const struct xp_lat_row *r, int i);
const char *xp_lat_key_text(const struct xp_lat_row *r, int i, char *buf, size_t len);

/* Its record kind (struct xp_lat_rec: one start/end pair), for its row. */
extern const struct xp_rec_kind xp_lat_rec_kind;

#endif
