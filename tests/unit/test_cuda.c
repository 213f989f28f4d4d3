/* The cuda analysis on synthetic records: busy time as the union of kernels
 * that come out of order and overlap, folding past the horizon and kernels
 * that come later still, the launch join, copies by direction, drops. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "caps/cuda/cuda_stats.h"

#define MS 1000000ull

static struct xp_cuda_state S;

static struct xp_cuda_rec rec(uint32_t what, uint32_t pid, uint32_t dev, uint64_t s, uint64_t e, uint32_t corr)
{
	struct xp_cuda_rec r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = XP_REC_CUDA;
	r.hdr.size = sizeof(r);
	r.hdr.pid = pid;
	r.hdr.tid = pid + 1;
	r.hdr.ts_ns = s;
	r.end_ns = e;
	r.what = what;
	r.device = dev;
	r.corr = corr;
	strcpy(r.comm, "app");
	strcpy(r.name, "k");
	return r;
}

static void add(struct xp_cuda_rec r, struct xp_cuda_done *d)
{
	struct xp_cuda_done dd;

	CHECK(xp_cuda_add(&S, &r, d ? d : &dd) == 0);
}

static const struct xp_cuda_prow *prow(uint32_t pid, uint32_t dev)
{
	for (int i = 0; i < S.nprows; i++)
		if (S.prows[i].pid == pid && S.prows[i].device == dev)
			return &S.prows[i];
	return NULL;
}

static void test_union(void)
{
	/* out of order, overlapping, touching, nested, on one device; another device apart */
	static const uint64_t iv[][2] = { { 10, 20 }, { 0, 5 }, { 15, 30 }, { 30, 40 }, { 50, 60 }, { 52, 55 },
					  { 4, 11 }, { 45, 50 } };

	for (size_t i = 0; i < sizeof(iv) / sizeof(iv[0]); i++)
		add(rec(XP_CUDA_KERNEL, 7, 0, iv[i][0] * MS, iv[i][1] * MS, 0), NULL);
	add(rec(XP_CUDA_KERNEL, 7, 1, 0, 100 * MS, 0), NULL);
	CHECK(prow(7, 0) && prow(7, 1));
	/* [0,40) and [45,60): 55 ms */
	CHECK_U64(xp_cuda_busy(prow(7, 0)), 55 * MS);
	CHECK_U64(prow(7, 0)->niv, 2);
	CHECK_U64(xp_cuda_busy(prow(7, 1)), 100 * MS);
	CHECK_U64(S.kernels, 9);
	CHECK_U64(S.krows[0].gpu.sum + S.krows[1].gpu.sum, (10 + 5 + 15 + 10 + 10 + 3 + 7 + 5 + 100) * MS);
	/* a new interval: the counts go, the busy base moves, the union stays */
	xp_cuda_reset(&S);
	add(rec(XP_CUDA_KERNEL, 7, 0, 35 * MS, 47 * MS, 0), NULL);
	CHECK_U64(xp_cuda_busy(prow(7, 0)) - prow(7, 0)->busy_base, 5 * MS);
	CHECK_U64(prow(7, 0)->niv, 1);
}

static void test_fold(void)
{
	const struct xp_cuda_prow *p;
	uint64_t h = XP_CUDA_HORIZON_NS;

	add(rec(XP_CUDA_KERNEL, 8, 0, 0, 10 * MS, 0), NULL);
	add(rec(XP_CUDA_KERNEL, 8, 0, 20 * MS, 30 * MS, 0), NULL);
	/* ends a horizon later: the first two fold */
	add(rec(XP_CUDA_KERNEL, 8, 0, h + 40 * MS, h + 50 * MS, 0), NULL);
	p = prow(8, 0);
	CHECK_U64(p->niv, 1);
	CHECK_U64(p->folded, 20 * MS);
	CHECK_U64(p->folded_to, 30 * MS);
	/* one that comes later still counts from the folded edge on only */
	add(rec(XP_CUDA_KERNEL, 8, 0, 25 * MS, 35 * MS, 0), NULL);
	add(rec(XP_CUDA_KERNEL, 8, 0, 1 * MS, 2 * MS, 0), NULL);
	CHECK_U64(p->late, 2);
	CHECK_U64(xp_cuda_busy(p), 35 * MS);
}

static void test_join(void)
{
	struct xp_cuda_done d;
	struct xp_cuda_rec l = rec(XP_CUDA_LAUNCH, 9, 0, 100 * MS, 100 * MS, 42);

	l.hdr.tid = 1234;
	add(l, &d);
	CHECK(!d.joined);
	/* the same id in another process does not join */
	add(rec(XP_CUDA_KERNEL, 10, 0, 103 * MS, 104 * MS, 42), &d);
	CHECK(!d.joined);
	add(rec(XP_CUDA_KERNEL, 9, 0, 103 * MS, 104 * MS, 42), &d);
	CHECK(d.joined);
	CHECK_U64(d.launch_ts, 100 * MS);
	CHECK_U64(d.launch_tid, 1234);
	/* joined once */
	add(rec(XP_CUDA_KERNEL, 9, 0, 105 * MS, 106 * MS, 42), &d);
	CHECK(!d.joined);
	CHECK_U64(S.launches, 1);
	CHECK_U64(S.joined, 1);
}

static void test_copies_drops(void)
{
	struct xp_cuda_rec c = rec(XP_CUDA_MEMCPY, 11, 2, 0, 200, 0), r;

	c.kind = XP_CUDA_COPY_HTOD;
	c.bytes = 1 << 20;
	add(c, NULL);
	add(c, NULL);
	c.kind = 5;	/* array to array: other */
	add(c, NULL);
	c = rec(XP_CUDA_MEMSET, 11, 2, 0, 5, 0);
	c.bytes = 512;
	add(c, NULL);
	c = rec(XP_CUDA_DROPS, 11, 0, 7, 7, 0);
	c.bytes = 9;
	add(c, NULL);
	CHECK_U64(prow(11, 2)->x[XP_CUDA_DIR_HTOD].bytes, 2 << 20);
	CHECK_U64(prow(11, 2)->x[XP_CUDA_DIR_HTOD].ns, 400);
	CHECK_U64(prow(11, 2)->x[XP_CUDA_DIR_OTHER].n, 1);
	CHECK_U64(prow(11, 2)->x[XP_CUDA_DIR_MEMSET].bytes, 512);
	CHECK_U64(S.cupti_dropped, 9);
	/* not ours: refused */
	r = rec(XP_CUDA_KERNEL, 11, 0, 10, 5, 0);
	{
		struct xp_cuda_done d;

		CHECK(xp_cuda_add(&S, &r, &d) == -EINVAL);
		r = rec(99, 11, 0, 1, 5, 0);
		CHECK(xp_cuda_add(&S, &r, &d) == -EINVAL);
	}
}

int main(void)
{
	if (xp_cuda_init(&S))
		return 1;
	RUN(test_union);
	RUN(test_fold);
	RUN(test_join);
	RUN(test_copies_drops);
	xp_cuda_free(&S);
	UNIT_EXIT();
}
