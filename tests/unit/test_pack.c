/*
 * Tests for src/core/pack.c, the packed records of trace file format 2:
 * varints and zigzag at their edges; interned values past the table's size;
 * records of every kind packed and unpacked back to the same bytes, whatever
 * their contents and sizes; packed records cut anywhere or with any byte
 * changed fail with a reason, never reading past their end; and a format 2
 * file whose packed block is damaged but resealed is refused in one line.
 */
#include <errno.h>
#include <stdlib.h>

#include "caps/api/api_stats.h"
#include "core/pack.h"
#include "core/tracefile.h"
#include "kinds.h"
#include "unit.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void test_varint_zigzag(void)
{
	static const uint64_t vals[] = { 0, 1, 127, 128, 16383, 16384, 1ULL << 32, (1ULL << 63) - 1,
					 1ULL << 63, UINT64_MAX };
	static const int64_t svals[] = { 0, -1, 1, -64, 64, INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX };
	static const size_t lens[] = { 1, 1, 1, 2, 2, 3, 5, 9, 10, 10 };
	uint8_t buf[16];

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		const uint8_t *p = buf;
		uint64_t v = 7;
		size_t n = xp_varint_put(buf, vals[i]);

		CHECK_U64(n, lens[i]);
		CHECK(xp_varint_get(&p, buf + n, &v) && v == vals[i] && p == buf + n);
		p = buf;	/* one byte short: not read past the end */
		CHECK(!xp_varint_get(&p, buf + n - 1, &v) && p == buf);
	}
	for (size_t i = 0; i < sizeof(svals) / sizeof(svals[0]); i++)
		CHECK(xp_unzigzag(xp_zigzag(svals[i])) == svals[i]);
	CHECK_U64(xp_zigzag(0), 0);
	CHECK_U64(xp_zigzag(-1), 1);
	CHECK_U64(xp_zigzag(1), 2);
	{	/* more than 64 bits: 11 bytes, or a 10th byte over 1 */
		uint8_t over[11] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };
		uint8_t high[10] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
		const uint8_t *p = over;
		uint64_t v;

		CHECK(!xp_varint_get(&p, over + sizeof(over), &v));
		p = high;
		CHECK(!xp_varint_get(&p, high + sizeof(high), &v));
		p = over;
		CHECK(!xp_varint_get(&p, over, &v));	/* nothing to read */
	}
}

static const struct xp_rec_kind *const all_kinds[] = {
	&xp_ioctl_rec_kind, &xp_sched_rec_kind, &xp_vbl_rec_kind, &xp_mem_rec_kind, &xp_nv_rec_kind,
	&xp_npu_rec_kind, &xp_lat_rec_kind, &xp_fence_rec_kind, &xp_api_rec_kind,
};
#define NKINDS (sizeof(all_kinds) / sizeof(all_kinds[0]))

static struct xp_pack *new_pack(void)
{
	struct xp_pack *p = xp_pack_new();

	CHECK(p != NULL);
	for (size_t i = 0; p && i < NKINDS; i++)
		CHECK(xp_pack_plan_kind(p, all_kinds[i]) == 0);
	if (p)
		xp_pack_reset(p);
	return p;
}

/* A record of kind k: random bytes or runs of zeros, a header like the kernel's. */
static size_t make_rec(uint64_t *rec, const struct xp_rec_kind *k, int i, bool noise)
{
	struct xp_rec_hdr *h = (void *)rec;
	uint8_t *b = (uint8_t *)rec;
	size_t size = k->min_size + (i % 3 == 1 ? rng() % 64 : 0);

	if (i % 7 == 3)	/* shorter than its kind: fields left as bytes */
		size = sizeof(*h) + rng() % (k->min_size - sizeof(*h));
	for (size_t at = 0; at < size; at++)
		b[at] = noise || rng() % 4 == 0 ? (uint8_t)rng() : 0;
	h->type = k->type;
	h->size = (uint16_t)size;
	h->cpu = (uint32_t)(i % 4);
	h->ts_ns = 1000000000ULL + 1000ULL * (uint64_t)i - (uint64_t)(i % 5) * 300;
	h->pid = 100 + (uint32_t)(i % 6);
	h->tid = i % 2 ? h->pid : h->pid + (uint32_t)(rng() % 9) - 4;
	return size;
}

/* Packs n records of every kind into out; keeps them in recs. */
static size_t pack_many(struct xp_pack *p, uint8_t *out, uint64_t (*recs)[XP_PACK_MAX_REC / 8 + 1], int n,
			bool noise)
{
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		size_t size = make_rec(recs[i], all_kinds[(size_t)i % NKINDS], i, noise);

		CHECK(len + xp_pack_bound(size) < (size_t)n * 400);
		len += xp_pack_rec(p, (const struct xp_rec_hdr *)recs[i], out + len);
	}
	return len;
}

#define NREC 600
static uint64_t recs[NREC][XP_PACK_MAX_REC / 8 + 1];
static uint64_t got[XP_PACK_MAX_REC / 8 + 1];

/* Every kind, noisy or mostly zeros, its full size, longer or shorter: the same bytes back. */
static void test_round_trip_every_kind(void)
{
	uint8_t *out = malloc(NREC * 400);

	for (int noise = 0; noise < 2; noise++) {
		struct xp_pack *w = new_pack(), *r = new_pack();
		size_t len = pack_many(w, out, recs, NREC, noise);
		const uint8_t *p = out;
		const char *why = NULL;
		int same = 0;
		size_t raw = 0;

		for (int i = 0; i < NREC; i++) {
			const struct xp_rec_hdr *h = (const void *)recs[i];
			size_t size = h->size;

			if (xp_unpack_rec(r, &p, out + len, got, &why)) {
				fprintf(stderr, "record %d: %s\n", i, why);
				break;
			}
			same += !memcmp(got, recs[i], size);
			raw += size;
		}
		CHECK_U64(same, NREC);
		CHECK(p == out + len);
		if (!noise)	/* three zeros in four: under the records' size */
			CHECK(len < raw);
		xp_pack_free(w);
		xp_pack_free(r);
	}
	free(out);
}

/* Many ioctls of a few processes: the benchmark's shape, at most 24 bytes each. */
static void test_ioctl_size(void)
{
	struct xp_pack *p = new_pack();
	uint8_t out[64];
	size_t total = 0;

	for (int i = 0; i < 10000; i++) {
		struct xp_ioctl_rec r = { 0 };

		r.hdr = (struct xp_rec_hdr){ XP_REC_IOCTL, sizeof(r), (uint32_t)(i % 2),
					     1000000000ULL + 500ULL * (uint64_t)i, 4000u + (uint32_t)(i % 2), 0 };
		r.hdr.tid = r.hdr.pid;
		r.lat_ns = 300 + rng() % 2000;
		r.arg = 0x7ffd00001000ULL + (uint64_t)(i % 2) * 0x10000;
		r.cgroup_id = 4242;
		r.cmd = 0xc0186444;
		r.dev = XP_KDEV(1, 3);
		r.fd = 3;
		r.ret = -25;
		snprintf(r.comm, sizeof(r.comm), "loop%d", i % 2);
		total += xp_pack_rec(p, &r.hdr, out);
	}
	CHECK(total <= 10000 * 24);
	xp_pack_free(p);
}

/* More distinct values than a block interns: the rest are written out, and read back. */
static void test_intern_overflow(void)
{
	struct xp_pack *w = new_pack(), *r = new_pack();
	int n = XP_PACK_INTERN_MAX * 2 + 10;
	uint8_t *out = malloc((size_t)n * 200);
	size_t len = 0;
	const uint8_t *p = out;
	const char *why;
	int same = 0;

	for (int pass = 0; pass < 2; pass++) {	/* a second block starts empty again */
		len = 0;
		p = out;
		for (int i = 0; i < n; i++) {
			struct xp_ioctl_rec rec = { 0 };

			rec.hdr = (struct xp_rec_hdr){ XP_REC_IOCTL, sizeof(rec), 0, (uint64_t)i, (uint32_t)i, (uint32_t)i };
			snprintf(rec.comm, sizeof(rec.comm), "c%d", i % (n - 5));
			rec.cmd = (uint32_t)i;
			len += xp_pack_rec(w, &rec.hdr, out + len);
		}
		for (int i = 0; i < n; i++) {
			const struct xp_ioctl_rec *g = (const void *)got;
			char want[16] = { 0 };

			snprintf(want, sizeof(want), "c%d", i % (n - 5));
			if (xp_unpack_rec(r, &p, out + len, got, &why))
				break;
			same += !memcmp(g->comm, want, 16) && g->cmd == (uint32_t)i;
		}
		xp_pack_reset(w);
		xp_pack_reset(r);
	}
	CHECK_U64(same, 2 * n);
	CHECK(p == out + len);
	xp_pack_free(w);
	xp_pack_free(r);
	free(out);
}

/* Unpacks what it can of out[0, len): 0 when every record of n came back. */
static struct xp_pack *reader;

static int unpack_all(const uint8_t *out, size_t len, int n, const char **why)
{
	const uint8_t *p = out;
	int err = 0;

	*why = NULL;
	xp_pack_reset(reader);
	for (int i = 0; i < n && !err; i++)
		err = xp_unpack_rec(reader, &p, out + len, got, why);
	if (!err && p != out + len) {
		*why = "bytes left over";
		err = -EBADMSG;
	}
	return err;
}

/*
 * Cut anywhere: a reason, never a read past the cut (the cut bytes live in a
 * buffer of their own, so ASan sees any such read). Any byte changed: the
 * same bytes back or a reason, never a crash.
 */
static void test_cut_and_damaged(void)
{
	enum { N = 60 };
	struct xp_pack *w = new_pack();
	uint8_t *out = malloc(N * 400);
	size_t len = pack_many(w, out, recs, N, false);
	const char *why;
	int refused = 0;

	reader = new_pack();
	for (size_t cut = 0; cut < len; cut++) {
		uint8_t *part = malloc(cut ? cut : 1);

		memcpy(part, out, cut);
		if (unpack_all(part, cut, N, &why) == -EBADMSG && why && !strchr(why, '\n'))
			refused++;
		free(part);
	}
	CHECK_U64(refused, len);
	for (size_t at = 0; at < len; at++)
		for (int x = 1; x < 256; x <<= 1) {
			int err;

			out[at] ^= (uint8_t)x;
			err = unpack_all(out, len, N, &why);
			out[at] ^= (uint8_t)x;
			CHECK(err == 0 || (err == -EBADMSG && why && !strchr(why, '\n')));
		}
	{	/* a record's type as a varint of more than 64 bits */
		uint8_t bad[16];

		memset(bad, 0xff, sizeof(bad));
		CHECK(unpack_all(bad, sizeof(bad), 1, &why) == -EBADMSG);
		CHECK(why && strstr(why, "header") != NULL);
	}
	xp_pack_free(reader);
	xp_pack_free(w);
	free(out);
}

/* Descriptions that overlap and plans that do not add up are refused. */
static void test_plans(void)
{
	static const struct xp_rec_pack overlap[] = {
		{ 24, 8, XP_PACK_UINT }, { 28, 4, XP_PACK_UINT },
	};
	static const struct xp_rec_pack badsize[] = { { 24, 3, XP_PACK_UINT } };
	const struct xp_rec_kind k1 = { .type = 90, .min_size = 40, .name = "t", .pack = overlap, .npack = 2 };
	const struct xp_rec_kind k2 = { .type = 91, .min_size = 40, .name = "t", .pack = badsize, .npack = 1 };
	const struct xp_pack_seg gap[] = { { 24, 4, XP_PACK_UINT, 0 }, { 32, 4, XP_PACK_UINT, 0 } };
	const struct xp_pack_seg code[] = { { 24, 4, 99, 0 } };
	struct xp_pack *p = xp_pack_new();
	const char *why;

	CHECK(xp_pack_plan_kind(p, &k1) == -EINVAL);
	CHECK(xp_pack_plan_kind(p, &k2) == -EINVAL);
	CHECK(xp_pack_plan_add(p, 92, gap, 2, &why) == -EBADMSG && why);
	CHECK(xp_pack_plan_add(p, 93, code, 1, &why) == -EBADMSG && why);
	CHECK(xp_pack_plan_kind(p, &xp_ioctl_rec_kind) == 0);
	CHECK(xp_pack_plan_kind(p, &xp_ioctl_rec_kind) == -E2BIG);	/* twice */
	xp_pack_free(p);
}

int main(void)
{
	use_record_kinds();
	RUN(test_varint_zigzag);
	RUN(test_round_trip_every_kind);
	RUN(test_ioctl_size);
	RUN(test_intern_overflow);
	RUN(test_cut_and_damaged);
	RUN(test_plans);
	UNIT_EXIT();
}
