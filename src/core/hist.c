#include "core/hist.h"

void xp_hist_add(struct xp_hist *h, uint64_t v)
{
	h->count++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
	h->buckets[xp_hist_bucket(v)]++;
}

void xp_hist_add_buckets(struct xp_hist *h, const uint32_t *b, uint32_t n)
{
	for (uint32_t i = 0; i < n && i < XP_HIST_BUCKETS; i++)
		h->buckets[i] += b[i];
}

void xp_hist_merge(struct xp_hist *dst, const struct xp_hist *src)
{
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->max > dst->max)
		dst->max = src->max;
	for (uint32_t i = 0; i < XP_HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
}

uint64_t xp_hist_bucket_lo(uint32_t b)
{
	uint32_t msb, sub;

	if (b < XP_HIST_SUB)
		return b;
	msb = XP_HIST_SUB_BITS + (b - XP_HIST_SUB) / XP_HIST_SUB;
	sub = (b - XP_HIST_SUB) % XP_HIST_SUB;
	return (uint64_t)(XP_HIST_SUB + sub) << (msb - XP_HIST_SUB_BITS);
}

uint64_t xp_hist_bucket_hi(uint32_t b)
{
	if (b >= XP_HIST_BUCKETS - 1)
		return UINT64_MAX;
	return xp_hist_bucket_lo(b + 1) - 1;
}

uint64_t xp_hist_percentile(const struct xp_hist *h, double p)
{
	uint64_t total = 0, rank, seen = 0;

	for (uint32_t i = 0; i < XP_HIST_BUCKETS; i++)
		total += h->buckets[i];
	if (total == 0)
		return 0;
	if (p <= 0)
		p = 0.000001;
	if (p > 100)
		p = 100;
	/* nearest rank: the smallest rank r with r >= p% of total */
	rank = (uint64_t)((p / 100.0) * (double)total);
	if ((double)rank < (p / 100.0) * (double)total)
		rank++;
	if (rank == 0)
		rank = 1;
	for (uint32_t i = 0; i < XP_HIST_BUCKETS; i++) {
		uint64_t n = h->buckets[i], lo, hi, v;

		if (seen + n < rank) {
			seen += n;
			continue;
		}
		lo = xp_hist_bucket_lo(i);
		hi = i == XP_HIST_BUCKETS - 1 ? lo : xp_hist_bucket_hi(i);
		/* place the k-th of n values at the middle of its 1/n-wide share */
		v = lo + (uint64_t)((double)(hi - lo + 1) * ((double)(rank - seen) - 0.5) / (double)n);
		if (h->max && v > h->max)
			v = h->max;
		return v;
	}
	return h->max;
}

void xp_hist_log2(const struct xp_hist *h, uint64_t slots[XP_LOG2_SLOTS])
{
	for (uint32_t k = 0; k < XP_LOG2_SLOTS; k++)
		slots[k] = 0;
	for (uint32_t i = 0; i < XP_HIST_BUCKETS; i++) {
		uint64_t lo = xp_hist_bucket_lo(i);

		slots[lo ? xp_log2_u64(lo) : 0] += h->buckets[i];
	}
}
