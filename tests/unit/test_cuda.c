/* The cuda analysis on synthetic records: busy time as the union of kernels
 * that come out of order and overlap, folding past the horizon and kernels
 * that come later still, the launch join, copies by direction, drops; its
 * metrics for serve: busy seconds per cgroup and device (source="cupti"),
 * kernels and bytes, exited processes let go, the table bounded. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include <stdio.h>
#include "caps/cuda/cuda_metrics.h"

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

static void cg_labels(void *ctx, uint64_t id, char *buf, size_t len)
{
	char v[32];

	(void)ctx;
	snprintf(v, sizeof(v), "/cg%llu", (unsigned long long)id);
	xp_labels_add(buf, len, "cgroup", v);
}

static bool gone;
static bool fake_alive(uint32_t pid)
{
	return !gone || pid == 1;
}

/* a record of cgroup cg (test_cuda's rec has none) */
static struct xp_cuda_rec crec(uint32_t what, uint32_t pid, uint64_t cg, uint32_t dev, uint64_t s, uint64_t e)
{
	struct xp_cuda_rec r = rec(what, pid, dev, s, e, 0);

	r.cgroup_id = cg;
	return r;
}

static char *scrape(struct xp_metrics *m)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	xp_metrics_write(f, m, false);
	fclose(f);
	return out;
}

static void feed(struct xp_cuda_metrics *x, struct xp_cuda_rec r)
{
	CHECK(xp_cuda_metrics_feed(x, &r) == 0);
}

static void test_metrics_busy(void)
{
	struct xp_metrics m;
	struct xp_metrics_in in = { .m = &m, .cgroup_labels = cg_labels };
	struct xp_cuda_metrics x = { 0 };
	struct xp_cuda_rec r;
	char *out;

	xp_metrics_init(&m, 100);
	CHECK(xp_cuda_metrics_init(&x, &in) == 0);
	/* two processes of cgroup 5 on device 0: each one's union; overlap within one counts once */
	feed(&x, crec(XP_CUDA_KERNEL, 10, 5, 0, 0, 10 * MS));
	feed(&x, crec(XP_CUDA_KERNEL, 10, 5, 0, 5 * MS, 20 * MS));
	feed(&x, crec(XP_CUDA_KERNEL, 10, 5, 0, 2 * MS, 3 * MS));	/* inside: adds nothing */
	feed(&x, crec(XP_CUDA_KERNEL, 11, 5, 0, 0, 30 * MS));
	feed(&x, crec(XP_CUDA_KERNEL, 10, 5, 1, 0, 1 * MS));
	r = crec(XP_CUDA_MEMCPY, 10, 5, 0, 0, 1);
	r.kind = XP_CUDA_COPY_HTOD;
	r.bytes = 4096;
	feed(&x, r);
	r = crec(XP_CUDA_DROPS, 10, 5, 0, 7, 7);
	r.bytes = 3;
	feed(&x, r);
	feed(&x, crec(XP_CUDA_LAUNCH, 10, 5, 0, 7, 7));
	r = crec(99, 10, 5, 0, 7, 7);
	CHECK(xp_cuda_metrics_feed(&x, &r) == 1);
	out = scrape(&m);
	CHECK(strstr(out, "xputrace_gpu_busy_seconds_total{cgroup=\"/cg5\",device=\"0\",source=\"cupti\"} 0.05\n") != NULL);
	CHECK(strstr(out, "xputrace_gpu_busy_seconds_total{cgroup=\"/cg5\",device=\"1\",source=\"cupti\"} 0.001\n") != NULL);
	CHECK(strstr(out, "xputrace_cuda_kernels_total{cgroup=\"/cg5\",device=\"0\"} 4\n") != NULL);
	CHECK(strstr(out, "xputrace_cuda_copy_bytes_total{cgroup=\"/cg5\",device=\"0\",direction=\"htod\"} 4096\n") != NULL);
	CHECK(strstr(out, "xputrace_cuda_cupti_dropped_total{cgroup=\"/cg5\",device=\"0\"} 3\n") != NULL);
	free(out);
	xp_cuda_metrics_free(&x);
	xp_metrics_free(&m);
}

/* Exited processes let go after a while; a full table lets the longest idle go; counters stay. */
static void test_metrics_bounded(void)
{
	struct xp_metrics m;
	struct xp_metrics_in in = { .m = &m, .cgroup_labels = cg_labels, .per_process = true };
	struct xp_cuda_metrics x = { 0 };
	char *out;

	xp_metrics_init(&m, 100);
	CHECK(xp_cuda_metrics_init(&x, &in) == 0);
	x.alive = fake_alive;
	gone = false;
	feed(&x, crec(XP_CUDA_KERNEL, 1, 1, 0, 0, 1 * MS));
	feed(&x, crec(XP_CUDA_KERNEL, 2, 1, 0, 0, 2 * MS));
	CHECK(x.nprocs == 2);
	gone = true;	/* pid 2 exits; past the idle time its state goes, pid 1's stays */
	feed(&x, crec(XP_CUDA_KERNEL, 1, 1, 0, XP_CUDA_METRICS_IDLE_NS + 5 * MS, XP_CUDA_METRICS_IDLE_NS + 6 * MS));
	CHECK(x.nprocs == 1 && x.procs[0].p.pid == 1);
	CHECK_U64(x.let_go, 1);
	/* full: the longest idle one goes, the counters keep what they counted */
	for (uint32_t pid = 100; pid < 100 + XP_CUDA_METRICS_PROCS; pid++)
		feed(&x, crec(XP_CUDA_KERNEL, pid, 2, 0, XP_CUDA_METRICS_IDLE_NS + 10 * MS + pid,
			     XP_CUDA_METRICS_IDLE_NS + 10 * MS + pid + 1));
	CHECK(x.nprocs == XP_CUDA_METRICS_PROCS);
	CHECK_U64(x.let_go, 2);
	for (int i = 0; i < x.nprocs; i++)
		CHECK(x.procs[i].p.pid != 1);
	out = scrape(&m);
	CHECK(strstr(out, "xputrace_gpu_busy_seconds_total{cgroup=\"/cg1\",pid=\"1\",comm=\"app\",device=\"0\","
			  "source=\"cupti\"} 0.002\n") != NULL);
	CHECK(strstr(out, "pid=\"2\",comm=\"app\",device=\"0\",source=\"cupti\"} 0.002\n") != NULL);
	/* past --max-series (100): the rest added up in the other series */
	CHECK(m.folded > 0);
	free(out);
	xp_cuda_metrics_free(&x);
	xp_metrics_free(&m);
}

int main(void)
{
	if (xp_cuda_init(&S))
		return 1;
	RUN(test_union);
	RUN(test_fold);
	RUN(test_join);
	RUN(test_copies_drops);
	RUN(test_metrics_busy);
	RUN(test_metrics_bounded);
	xp_cuda_free(&S);
	UNIT_EXIT();
}
