/*
 * Tests for src/shared/hist_buckets.h and src/core/hist.c: the log-linear bucket
 * function shared with the kernel, bucket bounds, percentiles, the log2
 * view, merging and kernel-aggregated bucket counts.
 *
 * Expected bucket numbers are written out by hand from the layout described
 * in src/shared/hist_buckets.h (8 exact buckets for 0..7, then 8 sub-buckets per
 * power of two from 2^3 to 2^36, then one overflow bucket), so that a wrong
 * formula shows up here instead of being computed the same wrong way twice.
 */
#include <math.h>
#include <stdlib.h>

#include "core/hist.h"

#include "unit.h"

#define LAST (XP_HIST_BUCKETS - 1)

/* A fixed-seed xorshift64* generator: the same sweep every run. */
static uint64_t rng_state = 0x243f6a8885a308d3ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

/* A random value with a random bit length, so that every power of two is hit. */
static uint64_t rnd_value(void)
{
	unsigned int bits = (unsigned int)(rnd() % 65);

	if (bits == 0)
		return 0;
	if (bits == 64)
		return rnd();
	return rnd() & ((1ULL << bits) - 1);
}

static uint64_t rnd_range(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

/* floor(log2(v)) by another route than xp_log2_u64 */
static unsigned int ref_log2(uint64_t v)
{
	return 63u - (unsigned int)__builtin_clzll(v);
}

static int within(uint64_t v, double expect, double rel)
{
	return fabs((double)v - expect) <= expect * rel;
}

static void test_layout(void)
{
	/* 8 exact + 34 powers of two (2^3..2^36) x 8 + 1 overflow */
	CHECK_U64(XP_HIST_BUCKETS, 281);
	CHECK_U64(XP_HIST_SUB, 8);
}

static void test_bucket_exact_values(void)
{
	/* below 2^3: one bucket each */
	for (uint64_t v = 0; v < 8; v++)
		CHECK_U64(xp_hist_bucket(v), v);
	/* [8, 16): width 1 */
	CHECK_U64(xp_hist_bucket(8), 8);
	CHECK_U64(xp_hist_bucket(9), 9);
	CHECK_U64(xp_hist_bucket(15), 15);
	/* [16, 32): width 2 */
	CHECK_U64(xp_hist_bucket(16), 16);
	CHECK_U64(xp_hist_bucket(17), 16);
	CHECK_U64(xp_hist_bucket(18), 17);
	CHECK_U64(xp_hist_bucket(30), 23);
	CHECK_U64(xp_hist_bucket(31), 23);
	/* [32, 64): width 4 */
	CHECK_U64(xp_hist_bucket(32), 24);
	CHECK_U64(xp_hist_bucket(35), 24);
	CHECK_U64(xp_hist_bucket(36), 25);
	CHECK_U64(xp_hist_bucket(63), 31);
	CHECK_U64(xp_hist_bucket(64), 32);
	/* [512, 1024): width 64; 1000 is in sub-bucket 7: [960, 1024) */
	CHECK_U64(xp_hist_bucket(512), 56);
	CHECK_U64(xp_hist_bucket(959), 62);
	CHECK_U64(xp_hist_bucket(960), 63);
	CHECK_U64(xp_hist_bucket(1000), 63);
	CHECK_U64(xp_hist_bucket(1023), 63);
	/* [1024, 2048) */
	CHECK_U64(xp_hist_bucket(1024), 64);
	CHECK_U64(xp_hist_bucket(1151), 64);
	CHECK_U64(xp_hist_bucket(1152), 65);
	/* 2^35..2^36-1: msb 35 -> first bucket 8 + 32*8 = 264 */
	CHECK_U64(xp_hist_bucket(1ULL << 35), 264);
	CHECK_U64(xp_hist_bucket((1ULL << 36) - 1), 271);
	/* 2^36..2^37-1: the last regular power of two */
	CHECK_U64(xp_hist_bucket(1ULL << 36), 272);
	CHECK_U64(xp_hist_bucket((1ULL << 36) + (1ULL << 33)), 273);
	CHECK_U64(xp_hist_bucket((1ULL << 37) - 1), 279);
	/* 2^37 and up: the overflow bucket */
	CHECK_U64(xp_hist_bucket(1ULL << 37), LAST);
	CHECK_U64(xp_hist_bucket((1ULL << 37) + 1), LAST);
	CHECK_U64(xp_hist_bucket(1ULL << 40), LAST);
	CHECK_U64(xp_hist_bucket(1ULL << 63), LAST);
	CHECK_U64(xp_hist_bucket(UINT64_MAX), LAST);
}

static void test_log2_helper(void)
{
	/* xp_log2_u64 against the compiler's count of leading zeros */
	for (unsigned int k = 0; k < 64; k++) {
		uint64_t p = 1ULL << k;

		CHECK_U64(xp_log2_u64(p), k);
		CHECK_U64(xp_log2_u64(p | (p - 1)), k);
		if (k)
			CHECK_U64(xp_log2_u64(p - 1), k - 1);
	}
	for (int i = 0; i < 100000; i++) {
		uint64_t v = rnd_value();

		if (v)
			CHECK_U64(xp_log2_u64(v), ref_log2(v));
	}
}

static void test_bucket_bounds_by_hand(void)
{
	CHECK_U64(xp_hist_bucket_lo(0), 0);
	CHECK_U64(xp_hist_bucket_hi(0), 0);
	CHECK_U64(xp_hist_bucket_lo(7), 7);
	CHECK_U64(xp_hist_bucket_hi(7), 7);
	CHECK_U64(xp_hist_bucket_lo(15), 15);
	CHECK_U64(xp_hist_bucket_hi(15), 15);
	CHECK_U64(xp_hist_bucket_lo(16), 16);
	CHECK_U64(xp_hist_bucket_hi(16), 17);
	CHECK_U64(xp_hist_bucket_lo(23), 30);
	CHECK_U64(xp_hist_bucket_hi(23), 31);
	CHECK_U64(xp_hist_bucket_lo(63), 960);
	CHECK_U64(xp_hist_bucket_hi(63), 1023);
	CHECK_U64(xp_hist_bucket_lo(64), 1024);
	CHECK_U64(xp_hist_bucket_hi(64), 1151);
	CHECK_U64(xp_hist_bucket_lo(272), 1ULL << 36);
	CHECK_U64(xp_hist_bucket_lo(279), (1ULL << 36) + 7 * (1ULL << 33));
	CHECK_U64(xp_hist_bucket_hi(279), (1ULL << 37) - 1);
	CHECK_U64(xp_hist_bucket_lo(LAST), 1ULL << 37);
	CHECK_U64(xp_hist_bucket_hi(LAST), UINT64_MAX);
}

static void check_in_bucket(uint64_t v)
{
	uint32_t b = xp_hist_bucket(v);

	CHECK(b < XP_HIST_BUCKETS);
	if (b >= XP_HIST_BUCKETS)
		return;
	if (!(xp_hist_bucket_lo(b) <= v && v <= xp_hist_bucket_hi(b))) {
		unit_failed_checks++;
		fprintf(stderr, "%s:%d: value %" PRIu64 " in bucket %u = [%" PRIu64 ", %" PRIu64 "]\n",
			__FILE__, __LINE__, v, b, xp_hist_bucket_lo(b), xp_hist_bucket_hi(b));
	}
}

static void test_every_value_in_its_bucket(void)
{
	/* every small value */
	for (uint64_t v = 0; v < 70000; v++)
		check_in_bucket(v);
	/* around every power of two and every sub-bucket boundary */
	for (unsigned int k = 0; k < 64; k++) {
		uint64_t p = 1ULL << k;

		check_in_bucket(p);
		check_in_bucket(p - 1);
		check_in_bucket(p + 1);
		if (k >= 3)
			for (uint64_t s = 0; s < 8; s++) {
				uint64_t edge = p + s * (p >> 3);

				check_in_bucket(edge);
				check_in_bucket(edge - 1);
				check_in_bucket(edge + 1);
			}
	}
	check_in_bucket(UINT64_MAX);
	check_in_bucket(UINT64_MAX - 1);
	/* random values of every bit length */
	for (int i = 0; i < 500000; i++)
		check_in_bucket(rnd_value());
}

static void test_buckets_partition_and_widths(void)
{
	CHECK_U64(xp_hist_bucket_lo(0), 0);
	for (uint32_t b = 0; b < XP_HIST_BUCKETS; b++) {
		uint64_t lo = xp_hist_bucket_lo(b), hi = xp_hist_bucket_hi(b);

		CHECK(lo <= hi);
		/* the bounds of a bucket map back into it */
		CHECK_U64(xp_hist_bucket(lo), b);
		CHECK_U64(xp_hist_bucket(hi), b);
		if (b + 1 < XP_HIST_BUCKETS) {
			/* contiguous and strictly increasing: no gap, no overlap */
			CHECK_U64(xp_hist_bucket_lo(b + 1), hi + 1);
			CHECK(xp_hist_bucket_lo(b + 1) > lo);
		}
		if (b < 8) {
			CHECK_U64(hi - lo + 1, 1);
		} else if (b < LAST) {
			uint64_t w = hi - lo + 1;

			/* at most 12.5% of the lower bound, a power of two */
			CHECK(w * 8 <= lo);
			CHECK((w & (w - 1)) == 0);
		}
	}
	/* monotonic over a sorted sweep */
	uint32_t prev = 0;

	for (uint64_t v = 0; v < 300000; v++) {
		uint32_t b = xp_hist_bucket(v);

		/* one value more moves at most one bucket on */
		CHECK(b == prev || b == prev + 1);
		prev = b;
	}
	prev = 0;
	for (unsigned int k = 0; k < 64; k++)
		for (uint64_t s = 0; s < 16; s++) {
			uint64_t v = (1ULL << k) + s * ((1ULL << k) >> 4);
			uint32_t b = xp_hist_bucket(v);

			CHECK(b >= prev);
			prev = b;
		}
	for (int i = 0; i < 100000; i++) {
		uint64_t a = rnd_value(), c = rnd_value();

		if (a <= c)
			CHECK(xp_hist_bucket(a) <= xp_hist_bucket(c));
		else
			CHECK(xp_hist_bucket(a) >= xp_hist_bucket(c));
	}
}

static void test_percentile_empty(void)
{
	struct xp_hist h = { 0 };

	CHECK_U64(xp_hist_percentile(&h, 50), 0);
	CHECK_U64(xp_hist_percentile(&h, 99), 0);
	CHECK_U64(xp_hist_percentile(&h, 100), 0);
	CHECK_U64(xp_hist_percentile(&h, 0), 0);
}

static void test_percentile_single_value(void)
{
	static const uint64_t vals[] = { 0, 1, 5, 7, 12, 16, 17, 100, 1000, 123456789,
					 (1ULL << 36) + 12345 };

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		struct xp_hist h = { 0 };
		uint64_t v = vals[i];

		xp_hist_add(&h, v);
		CHECK_U64(h.count, 1);
		CHECK_U64(h.sum, v);
		CHECK_U64(h.max, v);
		for (double p = 1; p <= 100; p += 7) {
			uint64_t q = xp_hist_percentile(&h, p);

			/* never above the only value, never below its bucket */
			CHECK(q <= v);
			CHECK(q >= xp_hist_bucket_lo(xp_hist_bucket(v)));
			CHECK(within(q, (double)v, 0.125));
		}
		CHECK(xp_hist_percentile(&h, 100) <= v);
		CHECK(within(xp_hist_percentile(&h, 100), (double)v, 0.125));
		/* exact buckets below 16 give the exact value, at every p */
		if (v < 16) {
			CHECK_U64(xp_hist_percentile(&h, 50), v);
			CHECK_U64(xp_hist_percentile(&h, 100), v);
		}
	}
	/* 16 shares [16, 17] with 17: the interpolated 17 is clamped to the max */
	struct xp_hist h = { 0 };

	xp_hist_add(&h, 16);
	CHECK_U64(xp_hist_percentile(&h, 50), 16);
}

static void test_percentile_identical_values(void)
{
	struct xp_hist h = { 0 }, s = { 0 };

	for (int i = 0; i < 100; i++) {
		xp_hist_add(&h, 1000);
		xp_hist_add(&s, 5);
	}
	CHECK_U64(h.count, 100);
	CHECK_U64(h.sum, 100000);
	CHECK_U64(h.max, 1000);
	for (double p = 1; p <= 100; p += 1) {
		uint64_t q = xp_hist_percentile(&h, p);

		/* inside 1000's bucket [960, 1023] and clamped to 1000 */
		CHECK(q >= 960 && q <= 1000);
		CHECK_U64(xp_hist_percentile(&s, p), 5);
	}
	CHECK_U64(xp_hist_percentile(&h, 100), 1000);
	CHECK_U64(xp_hist_percentile(&h, 99), 1000);
	CHECK(within(xp_hist_percentile(&h, 50), 1000, 0.125));
}

static void test_percentile_exact_ranks(void)
{
	struct xp_hist h = { 0 };

	/* 0..9: buckets of width 1, so nearest rank gives exact values */
	for (uint64_t v = 0; v < 10; v++)
		xp_hist_add(&h, v);
	CHECK_U64(xp_hist_percentile(&h, 10), 0);
	CHECK_U64(xp_hist_percentile(&h, 10.01), 1);
	CHECK_U64(xp_hist_percentile(&h, 20), 1);
	CHECK_U64(xp_hist_percentile(&h, 50), 4);
	CHECK_U64(xp_hist_percentile(&h, 51), 5);
	CHECK_U64(xp_hist_percentile(&h, 90), 8);
	CHECK_U64(xp_hist_percentile(&h, 95), 9);
	CHECK_U64(xp_hist_percentile(&h, 100), 9);
	/* out-of-range p: the smallest and the largest rank */
	CHECK_U64(xp_hist_percentile(&h, 0), 0);
	CHECK_U64(xp_hist_percentile(&h, -5), 0);
	CHECK_U64(xp_hist_percentile(&h, 150), 9);
}

static void test_percentile_uniform(void)
{
	struct xp_hist h = { 0 };

	for (uint64_t v = 1; v <= 1000; v++)
		xp_hist_add(&h, v);
	CHECK_U64(h.count, 1000);
	CHECK_U64(h.sum, 500500);
	CHECK_U64(h.max, 1000);
	CHECK(within(xp_hist_percentile(&h, 50), 500, 0.125));
	CHECK(within(xp_hist_percentile(&h, 90), 900, 0.125));
	CHECK(within(xp_hist_percentile(&h, 99), 990, 0.125));
	CHECK(within(xp_hist_percentile(&h, 10), 100, 0.125));
	CHECK(xp_hist_percentile(&h, 99) <= 1000);
	CHECK(within(xp_hist_percentile(&h, 100), 1000, 0.125));
	CHECK(xp_hist_percentile(&h, 100) <= 1000);
	/* percentiles do not decrease with p */
	uint64_t prev = 0;

	for (double p = 0.5; p <= 100; p += 0.5) {
		uint64_t q = xp_hist_percentile(&h, p);

		CHECK(q >= prev);
		prev = q;
	}
}

static void test_percentile_bimodal(void)
{
	struct xp_hist h = { 0 };

	/* 90% fast calls near 100 ns, 10% slow ones near 1 ms */
	for (int i = 0; i < 900; i++)
		xp_hist_add(&h, rnd_range(90, 110));
	for (int i = 0; i < 100; i++)
		xp_hist_add(&h, rnd_range(900000, 1100000));
	uint64_t p50 = xp_hist_percentile(&h, 50), p89 = xp_hist_percentile(&h, 89);
	uint64_t p91 = xp_hist_percentile(&h, 91), p99 = xp_hist_percentile(&h, 99);

	/* bucket [104, 111] holds the top of the fast mode */
	CHECK(p50 >= 88 && p50 <= 111);
	CHECK(p89 >= 88 && p89 <= 111);
	CHECK(p91 >= 900000 * 7 / 8 && p91 <= 1100000);
	CHECK(p99 >= 900000 * 7 / 8 && p99 <= 1100000);
	CHECK(xp_hist_percentile(&h, 100) <= h.max);

	/* an even split: the halves fall on their own side */
	struct xp_hist e = { 0 };

	for (int i = 0; i < 500; i++) {
		xp_hist_add(&e, 2000);
		xp_hist_add(&e, 5000000);
	}
	CHECK(within(xp_hist_percentile(&e, 25), 2000, 0.125));
	CHECK(within(xp_hist_percentile(&e, 50), 2000, 0.125));
	CHECK(within(xp_hist_percentile(&e, 50.1), 5000000, 0.125));
	CHECK(within(xp_hist_percentile(&e, 99), 5000000, 0.125));
	CHECK(xp_hist_percentile(&e, 99) <= 5000000);
}

static void test_percentile_clamp_and_max(void)
{
	struct xp_hist h = { 0 };

	/* many values at the bottom of a wide bucket: the interpolation would
	 * pass the maximum, the clamp keeps every percentile at or below it */
	for (int i = 0; i < 1000; i++)
		xp_hist_add(&h, 1024);
	CHECK_U64(xp_hist_percentile(&h, 100), 1024);
	CHECK_U64(xp_hist_percentile(&h, 99), 1024);
	CHECK_U64(xp_hist_percentile(&h, 50), 1024);

	/* p100 is the maximum, or within its bucket below it */
	for (int round = 0; round < 200; round++) {
		struct xp_hist r = { 0 };
		int n = 1 + (int)(rnd() % 50);

		for (int i = 0; i < n; i++)
			xp_hist_add(&r, rnd() % (1ULL << (rnd() % 36)));
		uint64_t q = xp_hist_percentile(&r, 100);

		CHECK(q <= r.max);
		CHECK(q >= xp_hist_bucket_lo(xp_hist_bucket(r.max)));
		CHECK(within(q, (double)r.max, 0.125) || r.max < 8);
	}

	/* values past the last regular bucket */
	struct xp_hist o = { 0 };

	xp_hist_add(&o, 200000000000ULL); /* 200 s */
	xp_hist_add(&o, 300000000000ULL);
	CHECK_U64(o.buckets[LAST], 2);
	CHECK(xp_hist_percentile(&o, 50) >= 1ULL << 37);
	CHECK(xp_hist_percentile(&o, 100) <= 300000000000ULL);
}

static unsigned int ref_slot(uint64_t v)
{
	unsigned int k;

	if (v < 2)
		return 0;
	k = ref_log2(v);
	return k > XP_LOG2_SLOTS - 1 ? XP_LOG2_SLOTS - 1 : k;
}

static void test_log2_view(void)
{
	struct xp_hist h = { 0 };
	uint64_t slots[XP_LOG2_SLOTS], total = 0;

	CHECK_U64(XP_LOG2_SLOTS, 38);
	xp_hist_add(&h, 0);
	xp_hist_add(&h, 1);
	xp_hist_add(&h, 2);
	xp_hist_add(&h, 3);
	xp_hist_add(&h, 4);
	xp_hist_add(&h, 7);
	xp_hist_add(&h, 8);
	xp_hist_add(&h, 1023);
	xp_hist_add(&h, 1024);
	xp_hist_add(&h, 1024);
	xp_hist_add(&h, (1ULL << 36));
	xp_hist_add(&h, (1ULL << 37) - 1);
	xp_hist_add(&h, (1ULL << 37));
	xp_hist_add(&h, (1ULL << 40));
	xp_hist_add(&h, UINT64_MAX);
	xp_hist_log2(&h, slots);
	CHECK_U64(slots[0], 2);		/* 0, 1 */
	CHECK_U64(slots[1], 2);		/* 2, 3 */
	CHECK_U64(slots[2], 2);		/* 4, 7 */
	CHECK_U64(slots[3], 1);		/* 8 */
	CHECK_U64(slots[9], 1);		/* 1023 */
	CHECK_U64(slots[10], 2);	/* 1024 x2 */
	CHECK_U64(slots[36], 2);	/* 2^36, 2^37-1 */
	CHECK_U64(slots[37], 3);	/* 2^37 and up */
	CHECK_U64(slots[4], 0);
	CHECK_U64(slots[11], 0);
	for (int k = 0; k < XP_LOG2_SLOTS; k++)
		total += slots[k];
	CHECK_U64(total, h.count);

	/* a random sweep: every slot matches a count made independently */
	struct xp_hist r = { 0 };
	uint64_t want[XP_LOG2_SLOTS] = { 0 };

	for (int i = 0; i < 200000; i++) {
		uint64_t v = rnd_value();

		xp_hist_add(&r, v);
		want[ref_slot(v)]++;
	}
	xp_hist_log2(&r, slots);
	total = 0;
	for (int k = 0; k < XP_LOG2_SLOTS; k++) {
		CHECK_U64(slots[k], want[k]);
		total += slots[k];
	}
	CHECK_U64(total, 200000);
	CHECK_U64(r.count, 200000);

	/* the output array is cleared first */
	struct xp_hist empty = { 0 };

	for (int k = 0; k < XP_LOG2_SLOTS; k++)
		slots[k] = 99;
	xp_hist_log2(&empty, slots);
	for (int k = 0; k < XP_LOG2_SLOTS; k++)
		CHECK_U64(slots[k], 0);
}

static void test_merge(void)
{
	struct xp_hist a = { 0 }, b = { 0 }, all = { 0 }, empty = { 0 };

	for (int i = 0; i < 3000; i++) {
		uint64_t v = rnd_range(0, 5000000);

		xp_hist_add(i % 3 ? &a : &b, v);
		xp_hist_add(&all, v);
	}
	xp_hist_add(&b, 77777777);	/* b holds the maximum */
	xp_hist_add(&all, 77777777);
	uint64_t acount = a.count, bcount = b.count, asum = a.sum, bsum = b.sum;

	xp_hist_merge(&a, &b);
	CHECK_U64(a.count, acount + bcount);
	CHECK_U64(a.count, 3001);
	CHECK_U64(a.sum, asum + bsum);
	CHECK_U64(a.sum, all.sum);
	CHECK_U64(a.max, 77777777);
	for (uint32_t i = 0; i < XP_HIST_BUCKETS; i++)
		CHECK_U64(a.buckets[i], all.buckets[i]);
	CHECK_U64(xp_hist_percentile(&a, 50), xp_hist_percentile(&all, 50));
	CHECK_U64(xp_hist_percentile(&a, 99), xp_hist_percentile(&all, 99));
	/* src is left alone */
	CHECK_U64(b.count, bcount);

	/* merging an empty histogram changes nothing; into one copies */
	struct xp_hist c = a;

	xp_hist_merge(&c, &empty);
	CHECK(memcmp(&c, &a, sizeof(c)) == 0);
	xp_hist_merge(&empty, &a);
	CHECK(memcmp(&empty, &a, sizeof(a)) == 0);

	/* a smaller max does not lower the destination's */
	struct xp_hist small = { 0 };

	xp_hist_add(&small, 3);
	xp_hist_merge(&c, &small);
	CHECK_U64(c.max, 77777777);
	CHECK_U64(c.count, 3002);
}

static void test_add_buckets_like_kernel(void)
{
	/* the kernel counts xp_hist_bucket(lat) in a __u32 array (map value) */
	static uint32_t kb[XP_HIST_BUCKETS + 8];
	struct xp_hist one = { 0 }, agg = { 0 };
	static const double ps[] = { 0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 100 };

	memset(kb, 0, sizeof(kb));
	for (int i = 0; i < 5000; i++) {
		uint64_t v = i % 10 == 0 ? rnd_range(1000000, 50000000) : rnd_range(200, 20000);

		if (i == 17)
			v = 0;
		if (i == 18)
			v = 1ULL << 38; /* overflow bucket */
		xp_hist_add(&one, v);
		kb[xp_hist_bucket(v)]++;
	}
	/* junk past XP_HIST_BUCKETS must not be read */
	for (uint32_t i = XP_HIST_BUCKETS; i < XP_HIST_BUCKETS + 8; i++)
		kb[i] = 1000000;

	/* without a maximum the percentiles land in the same buckets */
	xp_hist_add_buckets(&agg, kb, XP_HIST_BUCKETS + 8);
	for (uint32_t i = 0; i < XP_HIST_BUCKETS; i++)
		CHECK_U64(agg.buckets[i], one.buckets[i]);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		CHECK_U64(xp_hist_bucket(xp_hist_percentile(&agg, ps[i])),
			  xp_hist_bucket(xp_hist_percentile(&one, ps[i])));

	/* with the maximum the kernel also reports, they are the same numbers */
	agg.max = one.max;
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		CHECK_U64(xp_hist_percentile(&agg, ps[i]), xp_hist_percentile(&one, ps[i]));

	/* n limits what is read; counts add up over calls */
	struct xp_hist part = { 0 };
	uint32_t ones[XP_HIST_BUCKETS];

	for (uint32_t i = 0; i < XP_HIST_BUCKETS; i++)
		ones[i] = 1;
	xp_hist_add_buckets(&part, ones, 10);
	xp_hist_add_buckets(&part, ones, 10);
	for (uint32_t i = 0; i < XP_HIST_BUCKETS; i++)
		CHECK_U64(part.buckets[i], i < 10 ? 2 : 0);
	/* large u32 counts do not wrap in the u64 buckets */
	uint32_t big[1] = { UINT32_MAX };

	xp_hist_add_buckets(&part, big, 1);
	xp_hist_add_buckets(&part, big, 1);
	CHECK_U64(part.buckets[0], 2 + 2ULL * UINT32_MAX);
}

int main(void)
{
	RUN(test_layout);
	RUN(test_bucket_exact_values);
	RUN(test_log2_helper);
	RUN(test_bucket_bounds_by_hand);
	RUN(test_every_value_in_its_bucket);
	RUN(test_buckets_partition_and_widths);
	RUN(test_percentile_empty);
	RUN(test_percentile_single_value);
	RUN(test_percentile_identical_values);
	RUN(test_percentile_exact_ranks);
	RUN(test_percentile_uniform);
	RUN(test_percentile_bimodal);
	RUN(test_percentile_clamp_and_max);
	RUN(test_log2_view);
	RUN(test_merge);
	RUN(test_add_buckets_like_kernel);
	UNIT_EXIT();
}
