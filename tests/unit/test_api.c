/* The api join and counts on synthetic call and ioctl records, and finding libraries under a fake root. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "caps/api/api_funcs.h"
#include "caps/api/api_report.h"
#include "caps/api/api_stats.h"

static struct xp_api_state S;
static struct xp_api_joined J;

static struct xp_api_rec ioctl_rec(uint32_t pid, uint32_t tid, uint64_t ts, uint64_t end, uint32_t cmd)
{
	struct xp_api_rec r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = XP_REC_API;
	r.hdr.size = sizeof(r);
	r.hdr.ts_ns = ts;
	r.hdr.pid = pid;
	r.hdr.tid = tid;
	r.end_ns = end;
	r.what = XP_API_IOCTL;
	r.cmd = cmd;
	r.dev = 0x100003;
	strcpy(r.comm, "app");
	return r;
}

static struct xp_api_rec call_rec(uint32_t pid, uint32_t tid, uint64_t ts, uint64_t end, const char *fn,
				  uint32_t depth, int64_t ret, uint32_t rule)
{
	struct xp_api_rec r = ioctl_rec(pid, tid, ts, end, 0);

	r.what = XP_API_CALL;
	r.depth = depth;
	r.ret = ret;
	r.rule = rule;
	snprintf(r.name, sizeof(r.name), "%s", fn);
	snprintf(r.lib, sizeof(r.lib), "%s", "libze_loader.so.1");
	return r;
}

static int add(struct xp_api_rec r)
{
	static struct xp_api_rec keep[64];	/* J.call points at the last call */
	static int k;

	keep[k % 64] = r;
	return xp_api_add(&S, &keep[k++ % 64], &J);
}

static const struct xp_api_row *row(uint32_t pid, const char *fn)
{
	for (int i = 0; i < S.nrows; i++)
		if (S.rows[i].pid == pid && !strcmp(S.rows[i].name, fn))
			return &S.rows[i];
	return NULL;
}

static void setup(void)
{
	xp_api_free(&S);
	CHECK(!xp_api_init(&S));
}

/* A call takes the ioctls of its thread inside [entry, return], not those of other threads. */
static void test_join_threads(void)
{
	setup();
	CHECK_U64(add(ioctl_rec(1, 10, 110, 120, 7)), 0);
	CHECK_U64(add(ioctl_rec(1, 11, 112, 118, 8)), 0);	/* another thread's, interleaved */
	CHECK_U64(add(ioctl_rec(1, 10, 130, 140, 7)), 0);
	CHECK_U64(add(call_rec(1, 10, 100, 200, "zeCommandQueueExecuteCommandLists", 0, 0, 0)), 1);
	CHECK_U64(J.n, 2);
	CHECK_U64(J.nkept, 2);
	CHECK_U64(J.ioc[0].cmd, 7);
	CHECK(!J.error);
	CHECK_U64(add(call_rec(1, 11, 105, 125, "zeCommandQueueExecuteCommandLists", 0, 0, 0)), 1);
	CHECK_U64(J.n, 1);
	CHECK_U64(J.ioc[0].cmd, 8);
	const struct xp_api_row *w = row(1, "zeCommandQueueExecuteCommandLists");
	CHECK(w != NULL);
	if (w) {
		CHECK_U64(w->calls, 2);
		CHECK_U64(w->ioctls, 3);
		CHECK_U64(w->max_ioctls, 2);
		CHECK_U64(w->no_ioctl, 0);
		CHECK_U64(w->lat.max, 100);
		CHECK_U64(w->ncmd, 2);
	}
	/* the outermost returns let their ioctls go */
	CHECK_U64(S.threads[0].n + S.threads[1].n, 0);
}

/* Nested calls: the inner takes its ioctls, the outer all of them. */
static void test_join_nested(void)
{
	setup();
	add(ioctl_rec(2, 20, 110, 111, 1));
	add(ioctl_rec(2, 20, 120, 121, 1));
	add(ioctl_rec(2, 20, 122, 123, 1));
	add(call_rec(2, 20, 115, 130, "drmIoctl", 1, 0, XP_API_RET_NEGATIVE));
	CHECK_U64(J.n, 2);
	add(ioctl_rec(2, 20, 140, 141, 1));
	add(call_rec(2, 20, 100, 150, "amdgpu_cs_submit_raw2", 0, -22, XP_API_RET_NEGATIVE));
	CHECK_U64(J.n, 4);
	CHECK(J.error);
	CHECK_U64(row(2, "amdgpu_cs_submit_raw2")->errors, 1);
	CHECK_U64(row(2, "amdgpu_cs_submit_raw2")->err_code[0], (uint64_t)-22);
	CHECK_U64(row(2, "drmIoctl")->errors, 0);
}

/* A call without an ioctl counts and is timed; an ioctl before a call is not its. */
static void test_no_ioctl(void)
{
	setup();
	add(ioctl_rec(3, 30, 50, 60, 1));	/* before the call: not inside it */
	add(call_rec(3, 30, 100, 180, "cuLaunchKernel", 0, 0, 0));
	CHECK_U64(J.n, 0);
	add(call_rec(3, 30, 200, 210, "cuLaunchKernel", 0, 1, 0));
	const struct xp_api_row *w = row(3, "cuLaunchKernel");
	CHECK_U64(w->calls, 2);
	CHECK_U64(w->no_ioctl, 2);
	CHECK_U64(w->errors, 1);
	CHECK_U64(w->lat.count, 2);
	CHECK_U64(S.threads[0].n, 0);
}

/*
 * Calls the kernel counted (no ioctl, no job) join the rows of the records:
 * calls, latency, errors by value (its err1 and the others apart), calls
 * without an ioctl, and without a job where jobs are followed.
 */
static void test_counted(void)
{
	struct xp_api_fn fn = { .name = "zeMemFree", .lib = "libze_loader.so.1", .rule = XP_API_RET_NONZERO };
	static struct xp_api_agg v;
	const struct xp_api_row *w;

	setup();
	add(call_rec(5, 50, 100, 300, "zeMemFree", 0, 0x78000004, 0));
	memset(&v, 0, sizeof(v));
	strcpy(v.comm, "app");
	v.sum_ns = 1000;
	v.max_ns = 400;
	v.err1 = 0x78000004;
	v.err1_calls = 6;
	v.hist[xp_hist_bucket(100)] = 9;
	v.hist[xp_hist_bucket(400)] = 1;
	xp_api_add_counted(&S, 5, &fn, &v);
	xp_api_add_counted_err(&S, 5, &fn, -5, 3);
	w = row(5, "zeMemFree");
	CHECK(w != NULL);
	if (w) {
		CHECK_U64(w->calls, 11);
		CHECK_U64(w->errors, 10);
		CHECK_U64(w->nerr, 2);
		CHECK_U64(w->err_code[0], 0x78000004);
		CHECK_U64(w->err_n[0], 7);
		CHECK_U64(w->err_code[1], (uint64_t)-5);
		CHECK_U64(w->err_n[1], 3);
		CHECK_U64(w->lat.count, 11);
		CHECK_U64(w->lat.sum, 1200);
		CHECK_U64(w->lat.max, 400);
		CHECK_U64(w->no_ioctl, 11);
		CHECK_U64(w->no_job, 0);
		CHECK_U64(xp_hist_percentile(&w->lat, 50) <= 110, 1);
	}
	CHECK_U64(S.calls, 11);
	/* another process: a row of its own, named by the kernel's comm; jobs followed: no job either */
	S.jobs_on = true;
	v.err1 = 0;
	v.err1_calls = 0;
	xp_api_add_counted(&S, 6, &fn, &v);
	w = row(6, "zeMemFree");
	CHECK(w != NULL);
	if (w) {
		CHECK_STR(w->comm, "app");
		CHECK_U64(w->errors, 0);
		CHECK_U64(w->no_job, 10);
	}
	S.jobs_on = false;
}

/* Return rules and how codes are written. */
static void test_rules(void)
{
	char b[32];

	CHECK(xp_api_is_error(XP_API_RET_NONZERO, 0x78000004));
	CHECK(xp_api_is_error(XP_API_RET_NONZERO, -36));
	CHECK(!xp_api_is_error(XP_API_RET_NONZERO, 0));
	CHECK(xp_api_is_error(XP_API_RET_NEGATIVE, -22));
	CHECK(!xp_api_is_error(XP_API_RET_NEGATIVE, 4));
	CHECK(!xp_api_is_error(XP_API_RET_VALUE, 1));	/* hsa_signal_wait_*: the signal's value */
	CHECK_STR(xp_api_ret_str(XP_API_RET_NONZERO, 0x78000004, b, sizeof(b)), "0x78000004");
	CHECK_STR(xp_api_ret_str(XP_API_RET_NONZERO, -36, b, sizeof(b)), "-36");
	CHECK_STR(xp_api_ret_str(XP_API_RET_NEGATIVE, -22, b, sizeof(b)), "-EINVAL");
}

/* A new interval: rows go, ioctls waiting for their call stay; bad records are refused. */
static void test_reset_and_bad(void)
{
	struct xp_api_rec r = ioctl_rec(4, 40, 10, 20, 1);

	setup();
	add(call_rec(4, 40, 1, 5, "clFinish", 0, 0, 0));
	add(ioctl_rec(4, 40, 10, 20, 1));
	xp_api_reset(&S);
	CHECK_U64(S.nrows, 0);
	add(call_rec(4, 40, 5, 30, "clFinish", 0, 0, 0));
	CHECK_U64(J.n, 1);
	r.what = 9;
	CHECK(xp_api_add(&S, &r, &J) < 0);
	r.what = XP_API_IOCTL;
	r.hdr.size = 8;
	CHECK(xp_api_add(&S, &r, &J) < 0);
}

/* Process churn: rows past the processes' room fold into one (other) row per function, all counted. */
static void test_churn_folds(void)
{
	const int procs = XP_API_MAX_ROWS + 1000, kept = XP_API_MAX_ROWS - XP_API_MAX_FN;
	const struct xp_api_row *o;
	uint64_t in_rows = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct xp_devices devs = { 0 };
	struct xp_run_info ri = { .command = "api", .source = "live", .mode = "summary" };
	struct xp_api_report rep = { .st = &S, .devs = &devs, .ri = &ri };

	setup();
	for (int p = 1; p <= procs; p++) {
		add(call_rec(p, p, 10, 20, "zeMemFree", 0, 0, 0));
		add(call_rec(p, p, 30, 40, p % 2 ? "zeInit" : "zeMemFree", 0, 0, 0));
	}
	CHECK_U64(S.calls, 2 * procs);
	CHECK_U64(S.rows_full, 0);
	CHECK(S.nrows <= XP_API_MAX_ROWS);
	o = row(XP_API_PID_OTHER, "zeMemFree");
	CHECK(o && !strcmp(o->comm, "(other)"));
	CHECK(row(XP_API_PID_OTHER, "zeInit") != NULL);
	for (int i = 0; i < S.nrows; i++)
		in_rows += S.rows[i].calls;
	CHECK_U64(in_rows, 2 * procs);
	CHECK(S.calls_folded > 2 * (uint64_t)(procs - kept) - 2 && S.calls_folded < 2 * (uint64_t)(procs - kept / 2));
	f = open_memstream(&buf, &len);
	xp_api_report_text(f, &rep);
	xp_api_report_json(f, &rep);
	fclose(f);
	CHECK(strstr(buf, "calls of later processes are added up in the (other) rows") != NULL);
	CHECK(strstr(buf, "\n-       (other)         libze_loader.so.1  zeMemFree") != NULL);
	CHECK(strstr(buf, "{\"pid\":null,\"comm\":\"(other)\"") != NULL);
	CHECK(!strstr(buf, "4294967295"));
	free(buf);
}

static int fn_index(const struct xp_api_plan *p, const char *lib, const char *fn)
{
	for (int i = 0; i < p->nfn; i++)
		if (!strcmp(p->fn[i].lib, lib) && !strcmp(p->fn[i].name, fn))
			return i;
	return -1;
}

/* --lib: built-in lists by name, functions added once, bad specs refused. */
static void test_specs(void)
{
	static struct xp_api_plan p;
	char err[256];
	int n0;

	xp_api_plan_init(&p);
	CHECK(fn_index(&p, "libcuda.so.1", "cuLaunchKernel") >= 0);
	CHECK(fn_index(&p, "libdrm.so.2", "drmIoctl") >= 0);
	CHECK_U64(p.fn[fn_index(&p, "libdrm.so.2", "drmIoctl")].rule, XP_API_RET_NEGATIVE);
	CHECK_U64(p.fn[fn_index(&p, "libamdhip64.so.5", "hipLaunchKernel")].rule, XP_API_RET_NONZERO);
	CHECK_U64(p.fn[fn_index(&p, "libhsa-runtime64.so.1", "hsa_queue_create")].rule, XP_API_RET_NONZERO);
	CHECK_U64(p.fn[fn_index(&p, "libhsa-runtime64.so.1", "hsa_signal_wait_scacquire")].rule, XP_API_RET_VALUE);
	n0 = p.nfn;
	CHECK(!xp_api_plan_add_spec(&p, "/opt/x/libze_loader.so.1", err, sizeof(err)));
	CHECK_U64(p.nfn, n0);	/* the built-in list, already there */
	CHECK(!xp_api_plan_add_spec(&p, "/opt/x/libze_loader.so.1:zeInit,zeMemFree", err, sizeof(err)));
	CHECK_U64(p.nfn, n0 + 1);
	CHECK(fn_index(&p, "libze_loader.so.1", "zeInit") >= 0);
	CHECK(!xp_api_plan_add_spec(&p, "libfoo.so:foo_submit", err, sizeof(err)));
	CHECK(fn_index(&p, "libfoo.so", "foo_submit") == p.nfn - 1);
	/* functions of one library stay together: the indices are the cookies */
	for (int i = 0; i < p.nlib; i++)
		for (int k = p.lib[i].first_fn; k < p.lib[i].first_fn + p.lib[i].nfn; k++)
			CHECK_STR(p.fn[k].lib, p.lib[i].soname);
	CHECK(xp_api_plan_add_spec(&p, "", err, sizeof(err)) < 0);
	CHECK(xp_api_plan_add_spec(&p, ":foo", err, sizeof(err)) < 0);
	CHECK(xp_api_plan_add_spec(&p, "libfoo.so:", err, sizeof(err)) < 0);
	CHECK(xp_api_plan_add_spec(&p, "libfoo.so:a,,b", err, sizeof(err)) < 0);
	CHECK(xp_api_plan_add_spec(&p, "libfoo.so:a b", err, sizeof(err)) < 0);
	CHECK(xp_api_plan_add_spec(&p, "/tmp/", err, sizeof(err)) < 0);
	CHECK(xp_api_plan_add_spec(&p, "libbar.so", err, sizeof(err)) < 0);	/* no list to take */
	CHECK(strstr(err, "no built-in list") != NULL);
}

static void put(const char *root, const char *path, const char *text)
{
	char full[512];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	for (char *s = strchr(full + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		mkdir(full, 0755);
		*s = '/';
	}
	if ((f = fopen(full, "w"))) {
		fputs(text, f);
		fclose(f);
	}
}

static int seen_li, seen_fi, nseen;

static void seen(void *ctx, int li, int fi)
{
	(void)ctx;
	seen_li = li;
	seen_fi = fi;
	nseen++;
}

/*
 * A library replaced by rename while tracing (a new file, a new inode) is
 * found once, as a second file of its library; one that appears where the
 * loader looks too; nothing more after.
 */
static void recheck_replaced(struct xp_api_plan *p, const char *root)
{
	char from[300], to[300];

	CHECK_U64(xp_api_plan_recheck(p, root, seen, NULL), 0);
	snprintf(from, sizeof(from), "%s/opt/ocl/new", root);
	snprintf(to, sizeof(to), "%s/opt/ocl/libOpenCL.so.1", root);
	put(root, "/opt/ocl/new", "elf 2");
	CHECK(!rename(from, to));
	nseen = 0;
	CHECK_U64(xp_api_plan_recheck(p, root, seen, NULL), 1);
	CHECK_U64(nseen, 1);
	CHECK(!strcmp(p->lib[seen_li].soname, "libOpenCL.so.1"));
	CHECK_U64(seen_fi, 1);
	CHECK_U64(p->lib[seen_li].nfiles, 2);
	CHECK(!strcmp(p->lib[seen_li].file[1], to));
	CHECK_U64(xp_api_plan_recheck(p, root, seen, NULL), 0);
	put(root, "/usr/lib/libvulkan.so.1", "elf");	/* installed while tracing */
	nseen = 0;
	CHECK_U64(xp_api_plan_recheck(p, root, seen, NULL), 1);
	CHECK(nseen == 1 && !strcmp(p->lib[seen_li].soname, "libvulkan.so.1") && seen_fi == 0);
}

/* Finding files: a running process's mapping (through its root), ld.so.conf's include, a default dir. */
static void test_find(void)
{
	static struct xp_api_plan p;
	char root[] = "/tmp/xp_api_unit_XXXXXX", cmd[600];
	int li;

	CHECK(mkdtemp(root) != NULL);
	put(root, "/proc/123/maps",
	    "7f00-7f10 r-xp 00000000 08:01 42 /opt/ze/libze_loader.so.1.8.12\n"
	    "7f10-7f20 r-xp 00000000 08:01 43 /usr/lib/libc.so.6\n");
	put(root, "/proc/123/root/opt/ze/libze_loader.so.1.8.12", "elf");
	put(root, "/etc/ld.so.conf", "include ld.so.conf.d/*.conf\n");
	put(root, "/etc/ld.so.conf.d/x.conf", "# comment\n/opt/ocl\n");
	put(root, "/opt/ocl/libOpenCL.so.1", "elf");
	put(root, "/usr/lib/x86_64-linux-gnu/libdrm.so.2", "elf");
	xp_api_plan_init(&p);
	CHECK(!xp_api_plan_add_spec(&p, "/nonexistent/libfoo.so:f", cmd, sizeof(cmd)));
	CHECK_U64(xp_api_plan_find(&p, root), 3);
	for (li = 0; li < p.nlib; li++) {
		const struct xp_api_lib *l = &p.lib[li];

		if (!strcmp(l->soname, "libze_loader.so.1")) {
			CHECK_U64(l->nfiles, 1);
			CHECK(strstr(l->file[0], "/proc/123/root/opt/ze/libze_loader.so.1.8.12") != NULL);
		} else if (!strcmp(l->soname, "libOpenCL.so.1") || !strcmp(l->soname, "libdrm.so.2")) {
			CHECK_U64(l->nfiles, 1);
		} else {
			CHECK_U64(l->nfiles, 0);
		}
	}
	CHECK_U64(p.nnotes, 2);
	CHECK(strstr(p.note[0], "/nonexistent/libfoo.so: no such file") != NULL);
	CHECK(strstr(p.note[1], "libcuda.so.1") && strstr(p.note[1], "libvulkan.so.1") &&
	      !strstr(p.note[1], "libOpenCL"));
	recheck_replaced(&p, root);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(!system(cmd));
}

/* The summary names what a call issued and says when a runtime submitted without the kernel. */
static void test_report_text(void)
{
	static struct xp_devices devs;
	struct xp_run_info ri = { .command = "api", .source = "live", .mode = "summary" };
	struct xp_api_report rep = { .st = &S, .devs = &devs, .ri = &ri };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	setup();
	add(ioctl_rec(5, 50, 110, 120, 0x5421));
	add(call_rec(5, 50, 100, 200, "zeFenceHostSynchronize", 0, 0, 0));
	add(call_rec(5, 50, 300, 400, "cuLaunchKernel", 0, 0, 0));
	xp_api_report_text(f, &rep);
	fclose(f);
	CHECK(strstr(buf, "2 calls, 1 ioctls inside them") != NULL);
	CHECK(strstr(buf, "cuLaunchKernel (libze_loader.so.1, pid 5): none of its 1 call issued an ioctl") != NULL);
	CHECK(strstr(buf, "zeFenceHostSynchronize") != NULL);
	CHECK(!strstr(buf, "never returned") && !strstr(buf, "in flight"));
	free(buf);
}

/* Calls that never returned: a note each, by function; JSON totals and rows. */
static void test_report_lost(void)
{
	static struct xp_devices devs;
	static const struct xp_api_fn fns[3] = { { "zeA", "libze_loader.so.1", 0, 0 }, { "zeB", "libze_loader.so.1", 0, 0 },
						 { "zeC", "libze_loader.so.1", 0, 0 } };
	static const uint64_t ended[3] = { 2, 0, 1 }, open[3] = { 0, 3, 0 };
	struct xp_run_info ri = { .command = "api", .source = "live", .mode = "summary" };
	struct xp_api_report rep = { .st = &S, .devs = &devs, .ri = &ri, .final = true, .lost_known = true,
				     .fns = fns, .nfn = 3, .ended = ended, .open = open };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	setup();
	xp_api_report_text(f, &rep);
	xp_api_report_json(f, &rep);
	fclose(f);
	CHECK(strstr(buf, "note: 3 calls never returned") != NULL);
	CHECK(strstr(buf, ": zeA 2, zeC 1\n") != NULL);
	CHECK(strstr(buf, "note: 3 calls still in flight when tracing ended, not counted: zeB 3\n") != NULL);
	CHECK(strstr(buf, "\"calls_thread_ended\":3,\"calls_in_flight\":3,") != NULL);
	CHECK(strstr(buf, "{\"function\":\"zeB\",\"lib\":\"libze_loader.so.1\",\"thread_ended\":0,"
			  "\"in_flight\":3}") != NULL);
	free(buf);
}

int main(void)
{
	RUN(test_join_threads);
	RUN(test_join_nested);
	RUN(test_no_ioctl);
	RUN(test_counted);
	RUN(test_rules);
	RUN(test_reset_and_bad);
	RUN(test_churn_folds);
	RUN(test_specs);
	RUN(test_find);
	RUN(test_report_text);
	RUN(test_report_lost);
	xp_api_free(&S);
	UNIT_EXIT();
}
