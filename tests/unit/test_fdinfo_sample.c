/*
 * fdinfo's accounting across samples (ns, cycles over total cycles or the
 * maximum frequency, capacity, a shared file, gone clients), a sample of a
 * fixture /proc tree (shared descriptors, an exit between samples, a
 * process it may not read), the summary and serve's metrics.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "metrics_util.h"
#include "caps/fdinfo/fdinfo_metrics.h"
#include "caps/fdinfo/fdinfo_report.h"
#include "caps/fdinfo/fdinfo_scan.h"
#include "sinks/top.h"

#define SEC 1000000000ull

static struct xp_fdi_stats S;
static struct xp_fdinfo FI;

static struct xp_fdi_client *add(uint32_t pid, const char *text)
{
	bool first;

	CHECK(xp_fdinfo_parse(text, strlen(text), &FI));
	return xp_fdi_add(&S, pid, &FI, &first);
}

static const struct xp_fdi_ceng *ceng(const struct xp_fdi_client *c, const char *name)
{
	for (int i = 0; c && i < c->neng; i++)
		if (!strcmp(c->eng[i].name, name))
			return &c->eng[i];
	static const struct xp_fdi_ceng none;

	CHECK(!"engine found");
	return &none;
}

static void test_ns_and_gone(void)
{
	struct xp_fdi_client *a, *b;

	xp_fdi_init(&S);
	/* the first sample is the baseline: what came before is not counted */
	xp_fdi_begin(&S, 1 * SEC);
	a = add(10, "drm-client-id: 1\ndrm-pdev: p\ndrm-engine-gfx: 5000 ns\n");
	xp_fdi_end(&S);
	CHECK_U64(ceng(a, "gfx")->busy_ns, 0);
	xp_fdi_begin(&S, 2 * SEC);
	a = add(10, "drm-client-id: 1\ndrm-pdev: p\ndrm-engine-gfx: 9000 ns\ndrm-engine-dma: 30 ns\n");
	/* a client opened since counts from zero; the same id on another device is another client */
	b = add(11, "drm-client-id: 1\ndrm-pdev: q\ndrm-engine-gfx: 700 ns\n");
	xp_fdi_end(&S);
	CHECK(a != b);
	CHECK_U64(S.n, 2);
	CHECK_U64(ceng(a, "gfx")->busy_ns, 4000);
	CHECK_U64(ceng(a, "dma")->busy_ns, 30);	/* an engine that appears counts from zero */
	CHECK_U64(ceng(b, "gfx")->busy_ns, 700);
	/* b is gone at the next sample: it keeps what it used, and nothing goes back */
	xp_fdi_begin(&S, 3 * SEC);
	a = add(10, "drm-client-id: 1\ndrm-pdev: p\ndrm-engine-gfx: 8000 ns\n");
	xp_fdi_end(&S);
	b = &S.c[1];
	CHECK(b->closed && !a->closed);
	CHECK_U64(ceng(b, "gfx")->busy_ns, 700);
	CHECK_U64(ceng(a, "gfx")->busy_ns, 4000);	/* went back: a new baseline, not a loss */
	CHECK_U64(S.closed_total, 1);
	/* the interval's end forgets the gone client and zeroes the others' interval */
	xp_fdi_reset(&S);
	CHECK_U64(S.n, 1);
	CHECK_U64(S.c[0].eng[0].busy_ns, 0);
	CHECK_U64(S.c[0].eng[0].busy_total_ns, 4000);
	xp_fdi_begin(&S, 4 * SEC);
	a = add(10, "drm-client-id: 1\ndrm-pdev: p\ndrm-engine-gfx: 8500 ns\n");
	xp_fdi_end(&S);
	CHECK_U64(ceng(a, "gfx")->busy_ns, 500);
	CHECK_U64(ceng(a, "gfx")->busy_total_ns, 4500);
	xp_fdi_free(&S);
}

static void test_shared_once(void)
{
	struct xp_fdi_client *a, *b;
	bool first;

	xp_fdi_init(&S);
	xp_fdi_begin(&S, 1 * SEC);
	add(20, "drm-client-id: 5\ndrm-engine-render: 100 ns\n");
	xp_fdi_end(&S);
	xp_fdi_begin(&S, 2 * SEC);
	/* one file in three descriptors of two processes (dup, then fork or SCM_RIGHTS) */
	CHECK(xp_fdinfo_parse("drm-client-id: 5\ndrm-engine-render: 600 ns\n", 44, &FI));
	a = xp_fdi_add(&S, 20, &FI, &first);
	CHECK(first);
	b = xp_fdi_add(&S, 20, &FI, &first);
	CHECK(!first && a == b);
	b = xp_fdi_add(&S, 21, &FI, &first);
	CHECK(!first && a == b);
	xp_fdi_end(&S);
	CHECK_U64(S.n, 1);
	CHECK_U64(a->nproc, 2);
	CHECK_U64(a->pid, 20);
	CHECK_U64(S.fds, 3);
	CHECK_U64(ceng(a, "render")->busy_ns, 500);	/* once, not three times */
	xp_fdi_free(&S);
}

/* Many clients: each found again by its key at the next sample, none made twice. */
static void test_many_clients(void)
{
	char t[128];
	bool first;
	int found = 0;

	xp_fdi_init(&S);
	for (int pass = 0; pass < 2; pass++) {
		xp_fdi_begin(&S, (uint64_t)(pass + 1) * SEC);
		for (int i = 0; i < 5000; i++) {
			struct xp_fdi_client *c;

			snprintf(t, sizeof(t), "drm-client-id: %d\ndrm-pdev: 0000:0%d:00.0\ndrm-engine-gfx: %d ns\n",
				 i / 2, i % 2, pass * 1000);
			CHECK(xp_fdinfo_parse(t, strlen(t), &FI));
			c = xp_fdi_add(&S, (uint32_t)i + 1, &FI, &first);
			found += c && c->id == (uint64_t)(i / 2) && first;
		}
		xp_fdi_end(&S);
	}
	CHECK_U64(found, 10000);
	CHECK_U64(S.n, 5000);
	CHECK_U64(S.c[4999].eng[0].busy_ns, 1000);
	xp_fdi_reset(&S);
	CHECK_U64(S.n, 5000);
	xp_fdi_free(&S);
}

static void test_cycles(void)
{
	struct xp_fdi_client *c;

	xp_fdi_init(&S);
	xp_fdi_begin(&S, 1 * SEC);
	add(1, "drm-client-id: 2\ndrm-cycles-rcs: 1000\ndrm-total-cycles-rcs: 100000\n"
	       "drm-cycles-ccs: 0\ndrm-total-cycles-ccs: 100000\ndrm-engine-capacity-ccs: 4\n"
	       "drm-cycles-gpu: 0\ndrm-maxfreq-gpu: 500 MHz\n");
	xp_fdi_end(&S);
	/* 2 s later: rcs busy a quarter of its clock, ccs two engines' worth of four */
	xp_fdi_begin(&S, 3 * SEC);
	c = add(1, "drm-client-id: 2\ndrm-cycles-rcs: 26000\ndrm-total-cycles-rcs: 200000\n"
		   "drm-cycles-ccs: 200000\ndrm-total-cycles-ccs: 200000\ndrm-engine-capacity-ccs: 4\n"
		   "drm-cycles-gpu: 250000000\ndrm-maxfreq-gpu: 500 MHz\n");
	xp_fdi_end(&S);
	CHECK_U64(ceng(c, "rcs")->src, XP_FDI_SRC_TOTAL);
	CHECK_U64(ceng(c, "rcs")->busy_ns, SEC / 2);
	CHECK(xp_fdi_pct(ceng(c, "rcs")->busy_ns, 2 * SEC, 1) == 25.0);
	CHECK_U64(ceng(c, "ccs")->busy_ns, 4 * SEC);
	CHECK(xp_fdi_pct(ceng(c, "ccs")->busy_ns, 2 * SEC, ceng(c, "ccs")->capacity) == 50.0);
	CHECK_U64(ceng(c, "gpu")->src, XP_FDI_SRC_MAXFREQ);
	CHECK_U64(ceng(c, "gpu")->busy_ns, SEC / 2);
	/* a client first seen later: cycles over total need two of its samples; over maxfreq count from zero */
	xp_fdi_begin(&S, 4 * SEC);
	c = add(2, "drm-client-id: 3\ndrm-cycles-rcs: 999\ndrm-total-cycles-rcs: 300000\n"
		   "drm-cycles-gpu: 5000\ndrm-maxfreq-gpu: 1 GHz\n");
	xp_fdi_end(&S);
	CHECK_U64(ceng(c, "rcs")->busy_ns, 0);
	CHECK_U64(ceng(c, "gpu")->busy_ns, 5000);
	xp_fdi_free(&S);
}

/* ---- a fixture /proc tree ---- */

static char root[64];

static void put(const char *rel, const char *text)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
		close(fd);
	}
}

static void proc(unsigned pid, const char *comm, const char *cg)
{
	char p[256], t[300];

	snprintf(p, sizeof(p), "%s/%u", root, pid);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%u/fd", root, pid);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%u/fdinfo", root, pid);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%u/comm", pid);
	snprintf(t, sizeof(t), "%s\n", comm);
	put(p, t);
	snprintf(p, sizeof(p), "%u/cgroup", pid);
	snprintf(t, sizeof(t), "0::%s\n", cg);
	put(p, t);
}

static void fd(unsigned pid, int n, const char *target, const char *info)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%u/fd/%d", root, pid, n);
	unlink(p);
	CHECK(!symlink(target, p));
	snprintf(p, sizeof(p), "%u/fdinfo/%d", pid, n);
	put(p, info);
}

static void gone(unsigned pid)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%u'", root, pid);
	CHECK(!system(cmd));
}

#define CLIENT(id, ns) "pos:\t0\ndrm-driver:\tmock\ndrm-client-id:\t" id "\ndrm-engine-ring0:\t" ns " ns\n" \
		       "drm-total-memory:\t3 MiB\ndrm-resident-memory:\t2 MiB\n"

/* client 8: one file in 101 (twice) and 102, every descriptor showing the same */
static void client8(const char *text)
{
	fd(101, 4, "/dev/dri/renderD128", text);
	fd(101, 5, "/dev/dri/renderD128", text);	/* dup */
	fd(102, 4, "/dev/dri/renderD128", text);	/* inherited */
}

static void tree(void)
{
	snprintf(root, sizeof(root), "/tmp/xp_fdinfo_XXXXXX");
	CHECK(mkdtemp(root) != NULL);
	chmod(root, 0755);
	proc(100, "gla", "/ga");
	fd(100, 0, "/dev/pts/0", "pos:\t0\n");
	fd(100, 3, "/dev/dri/renderD128", CLIENT("7", "1000"));
	proc(101, "glb", "/gb");
	fd(101, 6, "/dev/dri/card0", "pos:\t0\ndrm-driver:\tvkms\n");	/* no usage stats */
	proc(102, "child", "/gb");
	client8(CLIENT("8", "5000"));
	proc(103, "other", "/gc");
	fd(103, 3, "/dev/accel/accel0", CLIENT("9", "0"));
	put("self", "");	/* not a process */
}

static void test_scan_tree(void)
{
	struct xp_fdi_scan sc = { .root = root };
	const struct xp_fdi_client *c7 = NULL, *c8 = NULL;

	xp_fdi_init(&S);
	tree();
	CHECK(!xp_fdi_sample(&S, &sc, 1 * SEC));
	CHECK_U64(S.n, 3);
	CHECK_U64(S.procs, 4);
	CHECK_U64(S.fds, 5);
	CHECK_U64(S.nostats, 1);
	CHECK_U64(S.unreadable, 0);
	/* 100 uses 2000 ns more and exits before the next sample but one; 101 and 102 share 8 */
	fd(100, 3, "/dev/dri/renderD128", CLIENT("7", "3000"));
	client8(CLIENT("8", "9000"));
	CHECK(!xp_fdi_sample(&S, &sc, 2 * SEC));
	gone(100);
	CHECK(!xp_fdi_sample(&S, &sc, 3 * SEC));
	for (int i = 0; i < S.n; i++) {
		if (S.c[i].id == 7)
			c7 = &S.c[i];
		if (S.c[i].id == 8)
			c8 = &S.c[i];
	}
	CHECK(c7 && c8);
	if (c7 && c8) {
		CHECK(c7->closed);
		CHECK_U64(c7->eng[0].busy_ns, 2000);
		CHECK_STR(c7->comm, "gla");
		CHECK_STR(c7->cgroup, "/ga");
		CHECK_U64(c8->eng[0].busy_ns, 4000);
		CHECK_U64(c8->nproc, 2);
		CHECK_U64(c8->pid, 101);
		CHECK_U64(c8->reg[0].bytes[XP_FDI_RESIDENT], 2u << 20);
	}
	/* -p and -c choose the processes read */
	xp_fdi_free(&S);
	xp_fdi_init(&S);
	sc.comm = "other";
	CHECK(!xp_fdi_sample(&S, &sc, 4 * SEC));
	CHECK_U64(S.n, 1);
	CHECK_STR(S.n ? S.c[0].driver : "", "mock");
	xp_fdi_free(&S);
	/* a root that is not there */
	sc.root = "/nonexistent/proc";
	CHECK(xp_fdi_sample(&S, &sc, 5 * SEC) == -ENOENT);
}

/* A process it may not read (another user's): counted, named, the others read. */
static void test_scan_unreadable(void)
{
	struct xp_fdi_scan sc = { .root = root };
	char p[128];
	pid_t child;
	int st = 0;

	snprintf(p, sizeof(p), "%s/103/fd", root);
	CHECK(!chmod(p, 0700));
	if (!geteuid()) {
		/* root reads everything: the check runs as nobody */
		child = fork();
		if (!child) {
			if (setgid(65534) || setuid(65534))
				_exit(3);
			xp_fdi_init(&S);
			_exit(xp_fdi_sample(&S, &sc, SEC) || S.unreadable != 1 || S.unreadable_pid != 103 ||
			      S.n != 1 ? 1 : 0);
		}
		CHECK(child > 0 && waitpid(child, &st, 0) == child);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	} else {
		CHECK(!chmod(p, 0));
		xp_fdi_init(&S);
		CHECK(!xp_fdi_sample(&S, &sc, SEC));
		CHECK_U64(S.unreadable, 1);
		CHECK_U64(S.unreadable_pid, 103);
		xp_fdi_free(&S);
	}
}

static char *report(bool json, double secs)
{
	struct xp_run_info ri = { .command = "fdinfo", .source = "live", .mode = "summary", .duration_s = secs };
	struct xp_fdi_report r = { .st = &S, .ri = &ri };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(json ? xp_fdi_report_json : xp_fdi_report_text)(f, &r);
	fclose(f);
	return out;
}

static void test_report(void)
{
	struct xp_fdi_scan sc = { .root = root };
	char *t;

	xp_fdi_init(&S);
	t = report(false, 1);
	CHECK(strstr(t, "fdinfo: 0 samples over 1.00 s: no process has a DRM or accel device open\n") != NULL);
	free(t);
	proc(100, "gla", "/ga");
	fd(100, 3, "/dev/dri/renderD128", CLIENT("7", "1000"));
	CHECK(!xp_fdi_sample(&S, &sc, 1 * SEC));
	fd(100, 3, "/dev/dri/renderD128", CLIENT("7", "501000"));
	client8(CLIENT("8", "9250000"));	/* 9000 at the tree's last sample */
	CHECK(!xp_fdi_sample(&S, &sc, 2 * SEC));
	gone(100);
	CHECK(!xp_fdi_sample(&S, &sc, 3 * SEC));
	t = report(false, 2);
	CHECK(strstr(t, "fdinfo: 3 samples over 2.00 s: 3 DRM clients (1 gone) in 3 processes, 1 device\n") != NULL);
	CHECK(strstr(t, "note: 1 DRM descriptor without usage stats") != NULL);
	CHECK(strstr(t, "-              mock             3  ring0              0.010     0.5    1\n"
			"  memory memory     total 6.0 MiB, resident 4.0 MiB\n") != NULL);
	CHECK(strstr(t, "100*      gla                   7  -              ring0              0.001     0.0  /ga\n") != NULL);
	CHECK(strstr(t, "101+      glb                   8  -              ring0              0.009     0.5  /gb\n") != NULL);
	CHECK(strstr(t, "* gone at the last sample") != NULL);
	free(t);
	t = report(true, 2);
	CHECK(strstr(t, "\"busy_s\":0.009241") != NULL);
	CHECK(strstr(t, "\"gone\":true") != NULL);
	CHECK(strstr(t, "\"resident\":2097152") != NULL);
	free(t);
	xp_fdi_free(&S);
}

static uint64_t fake_now;
static uint64_t fake_clock(void)
{
	return fake_now += SEC / 2;	/* each sample "takes" half a second */
}

static void test_metrics(void)
{
	struct xp_metrics m;
	struct xp_metrics_in in = { .m = &m, .cgroup_labels = cg_labels };
	struct xp_fdinfo_metrics x = { 0 };
	char *out;

	xp_metrics_init(&m, 100);
	CHECK(!xp_fdinfo_metrics_init(&x, &in, &(struct xp_filters){ 0 }));
	x.s->sc.root = root;
	client8(CLIENT("8", "0"));
	fd(103, 3, "/dev/accel/accel0", CLIENT("9", "0"));
	CHECK(!xp_fdinfo_metrics_sample(&x, fake_clock));
	client8(CLIENT("8", "250000000"));
	fd(103, 3, "/dev/accel/accel0", CLIENT("9", "1000"));
	fake_now += 10 * SEC;	/* past the cost's wait */
	CHECK(!xp_fdinfo_metrics_sample(&x, fake_clock));
	gone(103);
	fake_now += 10 * SEC;
	CHECK(!xp_fdinfo_metrics_sample(&x, fake_clock));
	/* a sample that took half a second puts the next one 5 s later: this one is skipped */
	client8(CLIENT("8", "990000000"));
	CHECK(!xp_fdinfo_metrics_sample(&x, fake_clock));
	CHECK_U64(x.s->last_cost_ns, SEC / 2);
	out = served(&m);
	CHECK(strstr(out, "xputrace_gpu_busy_seconds_total{cgroup=\"/cg0\",device=\"mock\",driver=\"mock\","
			  "engine=\"ring0\",source=\"fdinfo\"} 0.250001\n") != NULL);
	/* 101 and 102 share client 8: 2 MiB once; 103's client is gone: its memory is not held */
	CHECK(strstr(out, "xputrace_gpu_memory_bytes{cgroup=\"/cg0\",device=\"mock\",driver=\"mock\","
			  "region=\"memory\",kind=\"resident\"} 2097152\n") != NULL);
	CHECK(strstr(out, "kind=\"total\"} 3145728\n") != NULL);
	free(out);
	xp_fdinfo_metrics_free(&x);
	xp_metrics_free(&m);
}

static void put_labels(void *ctx, char *buf, size_t len)
{
	snprintf(buf, len, "%s", (const char *)ctx);
}

/* top: a process's GPU time from its best source only: drm_sched, then cupti, then fdinfo */
static void test_top_one_source(void)
{
	struct xp_metrics m;
	struct xp_top_opts o = { 0 };
	int fam;
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	static const char *const l[8] = {
		"cgroup=\"/x\",pid=\"1\",comm=\"a\",ring=\"gfx\",source=\"drm_sched\"",
		"cgroup=\"/x\",pid=\"1\",comm=\"a\",device=\"d\",driver=\"amdgpu\",engine=\"gfx\",source=\"fdinfo\"",
		"cgroup=\"/y\",pid=\"2\",comm=\"b\",device=\"e\",driver=\"i915\",engine=\"render\",source=\"fdinfo\"",
		"cgroup=\"/z\",pid=\"3\",comm=\"c\",device=\"0\",source=\"cupti\"",
		"cgroup=\"/z\",pid=\"3\",comm=\"c\",device=\"1\",source=\"cupti\"",
		"cgroup=\"/z\",pid=\"3\",comm=\"c\",device=\"f\",driver=\"nvidia\",engine=\"gfx\",source=\"fdinfo\"",
		"cgroup=\"/w\",pid=\"4\",comm=\"d\",ring=\"gfx\",source=\"drm_sched\"",
		"cgroup=\"/w\",pid=\"4\",comm=\"d\",device=\"0\",source=\"cupti\"",
	};
	static const uint64_t v[8] = { 500000000, 450000000, 300000000, 200000000, 50000000, 900000000,
				       400000000, 100000000 };

	xp_metrics_init(&m, 100);
	fam = xp_metrics_family(&m, "xputrace_gpu_busy_seconds", XP_GPU_BUSY_HELP, "seconds", XP_METRIC_COUNTER, 1e-9, true);
	CHECK(fam >= 0);
	CHECK(xp_metrics_family(&m, "xputrace_gpu_busy_seconds", "again", "seconds", XP_METRIC_COUNTER, 1e-9, true) == fam);
	CHECK(xp_metrics_family(&m, "xputrace_gpu_busy_seconds", "again", "seconds", XP_METRIC_GAUGE, 1, true) == -EEXIST);
	CHECK(xp_source_rank("a=\"b\"") == 0);
	CHECK(xp_source_rank("source=\"drm_sched\"") < xp_source_rank("source=\"cupti\""));
	CHECK(xp_source_rank("source=\"cupti\"") < xp_source_rank("source=\"fdinfo\""));
	for (int i = 0; i < 8; i++) {
		struct xp_series *x = xp_metrics_series(&m, fam, &(struct xp_metric_key){ { (uint64_t)i } },
							put_labels, (void *)l[i]);

		CHECK(x != NULL);
		if (x)
			x->value = v[i];
	}
	f = open_memstream(&out, &len);
	CHECK(xp_top_write(f, &m, 1.0, &o) == 4);
	fclose(f);
	CHECK(strstr(out, "1        a                             50.0  /x\n") != NULL);
	CHECK(strstr(out, "2        b                             30.0  /y\n") != NULL);
	/* c: its two devices' cupti time, not fdinfo's; d: drm_sched's alone */
	CHECK(strstr(out, "3        c                             25.0  /z\n") != NULL);
	CHECK(strstr(out, "4        d                             40.0  /w\n") != NULL);
	free(out);
	xp_metrics_free(&m);
}

static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (root[0] && system(cmd))
		fprintf(stderr, "cannot remove %s\n", root);
}

int main(void)
{
	RUN(test_ns_and_gone);
	RUN(test_shared_once);
	RUN(test_many_clients);
	RUN(test_cycles);
	RUN(test_scan_tree);
	RUN(test_scan_unreadable);
	RUN(test_report);
	RUN(test_metrics);
	RUN(test_top_one_source);
	cleanup();
	UNIT_EXIT();
}
