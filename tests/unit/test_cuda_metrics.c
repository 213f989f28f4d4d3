/* cuda's metrics for serve on synthetic records: busy seconds per cgroup and
 * device as the union of kernels (source="cupti"), kernels and bytes, a
 * counter that never goes back, exited processes let go, the table bounded;
 * and top's one rule for which source of GPU time a process's row shows. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "caps/cuda/cuda_metrics.h"
#include "sinks/top.h"

#define MS 1000000ull

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

static struct xp_cuda_rec rec(uint32_t what, uint32_t pid, uint64_t cg, uint32_t dev, uint64_t s, uint64_t e)
{
	struct xp_cuda_rec r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = XP_REC_CUDA;
	r.hdr.size = sizeof(r);
	r.hdr.pid = pid;
	r.hdr.ts_ns = s;
	r.end_ns = e;
	r.what = what;
	r.device = dev;
	r.cgroup_id = cg;
	strcpy(r.comm, "app");
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

static void test_busy(void)
{
	struct xp_metrics m;
	struct xp_metrics_in in = { .m = &m, .cgroup_labels = cg_labels };
	struct xp_cuda_metrics x = { 0 };
	struct xp_cuda_rec r;
	char *out;

	xp_metrics_init(&m, 100);
	CHECK(xp_cuda_metrics_init(&x, &in) == 0);
	/* two processes of cgroup 5 on device 0: each one's union; overlap within one counts once */
	feed(&x, rec(XP_CUDA_KERNEL, 10, 5, 0, 0, 10 * MS));
	feed(&x, rec(XP_CUDA_KERNEL, 10, 5, 0, 5 * MS, 20 * MS));
	feed(&x, rec(XP_CUDA_KERNEL, 10, 5, 0, 2 * MS, 3 * MS));	/* inside: adds nothing */
	feed(&x, rec(XP_CUDA_KERNEL, 11, 5, 0, 0, 30 * MS));
	feed(&x, rec(XP_CUDA_KERNEL, 10, 5, 1, 0, 1 * MS));
	r = rec(XP_CUDA_MEMCPY, 10, 5, 0, 0, 1);
	r.kind = XP_CUDA_COPY_HTOD;
	r.bytes = 4096;
	feed(&x, r);
	r = rec(XP_CUDA_DROPS, 10, 5, 0, 7, 7);
	r.bytes = 3;
	feed(&x, r);
	feed(&x, rec(XP_CUDA_LAUNCH, 10, 5, 0, 7, 7));
	r = rec(99, 10, 5, 0, 7, 7);
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
static void test_bounded(void)
{
	struct xp_metrics m;
	struct xp_metrics_in in = { .m = &m, .cgroup_labels = cg_labels, .per_process = true };
	struct xp_cuda_metrics x = { 0 };
	char *out;

	xp_metrics_init(&m, 100);
	CHECK(xp_cuda_metrics_init(&x, &in) == 0);
	x.alive = fake_alive;
	gone = false;
	feed(&x, rec(XP_CUDA_KERNEL, 1, 1, 0, 0, 1 * MS));
	feed(&x, rec(XP_CUDA_KERNEL, 2, 1, 0, 0, 2 * MS));
	CHECK(x.nprocs == 2);
	gone = true;	/* pid 2 exits; past the idle time its state goes, pid 1's stays */
	feed(&x, rec(XP_CUDA_KERNEL, 1, 1, 0, XP_CUDA_METRICS_IDLE_NS + 5 * MS, XP_CUDA_METRICS_IDLE_NS + 6 * MS));
	CHECK(x.nprocs == 1 && x.procs[0].p.pid == 1);
	CHECK_U64(x.let_go, 1);
	/* full: the longest idle one goes, the counters keep what they counted */
	for (uint32_t pid = 100; pid < 100 + XP_CUDA_METRICS_PROCS; pid++)
		feed(&x, rec(XP_CUDA_KERNEL, pid, 2, 0, XP_CUDA_METRICS_IDLE_NS + 10 * MS + pid,
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

static void put_labels(void *ctx, char *buf, size_t len)
{
	snprintf(buf, len, "%s", (const char *)ctx);
}

/* top: drm_sched, then cupti, then fdinfo, per process: its best source only */
static void test_top_rank(void)
{
	static const char *const l[5] = {
		"cgroup=\"/x\",pid=\"1\",comm=\"a\",device=\"0\",source=\"cupti\"",
		"cgroup=\"/x\",pid=\"1\",comm=\"a\",device=\"1\",source=\"cupti\"",
		"cgroup=\"/x\",pid=\"1\",comm=\"a\",device=\"d\",driver=\"nvidia\",engine=\"gfx\",source=\"fdinfo\"",
		"cgroup=\"/y\",pid=\"2\",comm=\"b\",ring=\"gfx\",source=\"drm_sched\"",
		"cgroup=\"/y\",pid=\"2\",comm=\"b\",device=\"0\",source=\"cupti\"",
	};
	static const uint64_t v[5] = { 200000000, 50000000, 900000000, 400000000, 100000000 };
	struct xp_metrics m;
	struct xp_top_opts o = { 0 };
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	int fam;

	CHECK(xp_source_rank("a=\"b\"") == 0);
	CHECK(xp_source_rank("source=\"drm_sched\"") < xp_source_rank("source=\"cupti\""));
	CHECK(xp_source_rank("source=\"cupti\"") < xp_source_rank("source=\"fdinfo\""));
	xp_metrics_init(&m, 100);
	fam = xp_metrics_family(&m, "xputrace_gpu_busy_seconds", XP_GPU_BUSY_HELP, "seconds", XP_METRIC_COUNTER,
				1e-9, true);
	for (int i = 0; i < 5; i++) {
		struct xp_series *x = xp_metrics_series(&m, fam, &(struct xp_metric_key){ { (uint64_t)i } },
							put_labels, (void *)l[i]);

		CHECK(x != NULL);
		if (x)
			x->value = v[i];
	}
	f = open_memstream(&out, &len);
	CHECK(xp_top_write(f, &m, 1.0, &o) == 2);
	fclose(f);
	/* a: its two devices' cupti time, not fdinfo's; b: drm_sched's alone */
	CHECK(strstr(out, "1        a                             25.0  /x\n") != NULL);
	CHECK(strstr(out, "2        b                             40.0  /y\n") != NULL);
	free(out);
	xp_metrics_free(&m);
}

int main(void)
{
	RUN(test_busy);
	RUN(test_bounded);
	RUN(test_top_rank);
	UNIT_EXIT();
}
