/* Latency histograms in user space: the same buckets as the kernel side
 * (src/shared/hist_buckets.h), with percentiles and the log2 view. */
#ifndef XP_CORE_HIST_H
#define XP_CORE_HIST_H

#include <stdint.h>
#include "shared/hist_buckets.h"

struct xp_hist {
	uint64_t count;
	uint64_t sum;
	uint64_t max;
	uint64_t buckets[XP_HIST_BUCKETS];
};

void xp_hist_add(struct xp_hist *h, uint64_t v);
/* Adds counts aggregated elsewhere (a kernel map value). */
void xp_hist_add_buckets(struct xp_hist *h, const uint32_t *b, uint32_t n);
void xp_hist_merge(struct xp_hist *dst, const struct xp_hist *src);

/* Smallest and largest value a bucket holds. */
uint64_t xp_hist_bucket_lo(uint32_t b);
uint64_t xp_hist_bucket_hi(uint32_t b);

/*
 * The p-th percentile (0 < p <= 100), by the nearest-rank rule over buckets,
 * interpolated linearly inside the bucket that holds that rank and clamped to
 * the maximum seen. 0 for an empty histogram.
 */
uint64_t xp_hist_percentile(const struct xp_hist *h, double p);

/* The classic log2 view: slot k counts values in [2^k, 2^(k+1)), slot 0 also holds 0. */
#define XP_LOG2_SLOTS (XP_HIST_MAX_MSB + 2)
void xp_hist_log2(const struct xp_hist *h, uint64_t slots[XP_LOG2_SLOTS]);

#endif
