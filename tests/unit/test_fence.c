/* The fence analysis on synthetic dma_fence streams decoded with the real
 * format file's layout (the same field lines on Debian 6.1 and 7.3): pairing,
 * signals of fences created before tracing, never signaled, waits, filters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "rawtp_util.h"
#include "caps/fence/fence_metrics.h"
#include "metrics_util.h"
#include "caps/fence/fence_report.h"
#include "caps/fence/fence_stats.h"

#define FMT_FENCE(name)                                                                         \
	"name: " name "\nID: 1\nformat:\n" FMT_COMMON                                           \
	"\tfield:__data_loc char[] driver;\toffset:8;\tsize:4;\tsigned:0;\n"                    \
	"\tfield:__data_loc char[] timeline;\toffset:12;\tsize:4;\tsigned:0;\n"                 \
	"\tfield:unsigned int context;\toffset:16;\tsize:4;\tsigned:0;\n"                       \
	"\tfield:unsigned int seqno;\toffset:20;\tsize:4;\tsigned:0;\n\nprint fmt: \"\"\n"

static struct xp_rawtp_layout L;
static struct xp_fence_state *S;
static struct xp_rawtp_rec R;
static struct xp_fence_done D;

static void setup(void)
{
	static const char *const fmt[XP_FENCE_NEV] = {
		FMT_FENCE("dma_fence_init"), FMT_FENCE("dma_fence_emit"), FMT_FENCE("dma_fence_enable_signal"),
		FMT_FENCE("dma_fence_signaled"), FMT_FENCE("dma_fence_wait_start"),
		FMT_FENCE("dma_fence_wait_end"), FMT_FENCE("dma_fence_destroy"),
	};

	xp_rawtp_layout_init(&L, xp_fence_events, XP_FENCE_NEV);
	for (int i = 0; i < XP_FENCE_NEV; i++)
		CHECK(!xp_rawtp_layout_parse(&L, i, fmt[i]));
	if (!S)
		S = malloc(sizeof(*S));
	else
		xp_fence_free(S);
	CHECK(!xp_fence_init(S));
}

/* One event: ts, task (pid/tid, comm; pid 0 with irq: an interrupt), fence. */
static void ev(int e, uint64_t ts, uint32_t pid, uint32_t tid, bool irq, const char *drv, const char *tl,
	       uint32_t ctx, uint32_t seqno)
{
	rec_init(&L, &R, XP_REC_FENCE, e, ts, pid, pid ? "client" : "swapper/0");
	R.hdr.tid = tid;
	(void)irq;	/* where it fired: the events table says, not the record */
	CHECK(!rec_put(&L, &R, "context", ctx));
	CHECK(!rec_put(&L, &R, "seqno", seqno));
	rec_str(&R, 0, drv);
	rec_str(&R, 1, tl);
	CHECK(!xp_fence_add(S, &L, &R, &D));
}

static const struct xp_fence_tl *tl_named(const char *drv, const char *name)
{
	for (int i = 0; i < S->ntl; i++)
		if (!strcmp(S->tl[i].driver, drv) && !strcmp(S->tl[i].name, name))
			return &S->tl[i];
	return NULL;
}

static void test_pairing(void)
{
	const struct xp_fence_tl *t;

	setup();
	/* 3 vgem fences made by thread 101 and 102, signaled 2, 4, 6 ms later in the task */
	for (uint32_t i = 0; i < 3; i++)
		ev(XP_FENCE_INIT, 1000 + i, 100, 101 + (i & 1), false, "vgem", "unbound", 50 + i, 1);
	for (uint32_t i = 0; i < 3; i++) {
		ev(XP_FENCE_SIGNALED, 1000 + i + 2000000 * (i + 1), 100, 101, false, "vgem", "unbound", 50 + i, 1);
		CHECK(D.paired);
		CHECK_U64(D.start, 1000 + i);
	}
	/* an i915 request: init, emit 1 ms later, signaled in an interrupt 3 ms after the emit */
	ev(XP_FENCE_INIT, 5000, 200, 200, false, "i915", "rcs0", 7, 9);
	ev(XP_FENCE_EMIT, 1005000, 0, 0, false, "i915", "rcs0", 7, 9);
	ev(XP_FENCE_SIGNALED, 4005000, 0, 0, true, "i915", "signaled", 7, 9);
	CHECK(D.paired);
	CHECK(!D.in_task);
	CHECK_U64(D.start, 1005000);
	CHECK(S->ntl == 2);	/* "signaled" was no timeline of its own: the fence's was used */
	t = tl_named("vgem", "unbound");
	CHECK(t != NULL);
	CHECK_U64(t->created, 3);
	CHECK_U64(t->signaled, 3);
	CHECK_U64(t->open, 0);
	CHECK_U64(t->life.count, 3);
	CHECK_U64(t->life.sum, 12000000);
	t = tl_named("i915", "rcs0");
	CHECK_U64(t->emitted, 1);
	CHECK_U64(t->life.sum, 3000000);	/* emit -> signaled: the device's time */
	CHECK_U64(S->created, 4);
	CHECK_U64(S->signaled, 4);
	/* processes: the vgem client created 3, i915's creator 1; signals name none */
	CHECK(S->nprocs == 2);
	CHECK_U64(S->procs[0].pid, 100);
	CHECK_U64(S->procs[0].created, 3);
	CHECK_U64(S->procs[1].pid, 200);
	CHECK_U64(S->procs[1].created, 1);
}

static void test_unseen_and_never(void)
{
	const struct xp_fence_tl *t;

	setup();
	/* signaled, its init before tracing: counted apart, not paired */
	ev(XP_FENCE_SIGNALED, 100, 0, 0, true, "drm_sched", "gfx", 3, 41);
	CHECK(!D.paired);
	/* two made while tracing: one signaled, one never; one destroyed unsignaled */
	ev(XP_FENCE_INIT, 200, 10, 10, false, "drm_sched", "gfx", 3, 42);
	ev(XP_FENCE_INIT, 300, 10, 10, false, "drm_sched", "gfx", 3, 43);
	ev(XP_FENCE_INIT, 350, 10, 10, false, "drm_sched", "gfx", 3, 44);
	ev(XP_FENCE_ENABLE_SIGNAL, 360, 10, 10, false, "drm_sched", "gfx", 3, 42);
	ev(XP_FENCE_SIGNALED, 400, 0, 0, true, "drm_sched", "gfx", 3, 42);
	ev(XP_FENCE_DESTROY, 450, 0, 0, true, "drm_sched", "gfx", 3, 44);
	/* 7.3 names a signaled fence's destroy by placeholders: the context says whose */
	ev(XP_FENCE_DESTROY, 500, 0, 0, false, "detached-driver", "signaled-timeline", 3, 42);
	CHECK(S->ntl == 1);
	t = &S->tl[0];
	CHECK_STR(t->driver, "drm_sched");
	CHECK_U64(t->signaled_unseen, 1);
	CHECK_U64(S->signaled_unseen, 1);
	CHECK_U64(t->created, 3);
	CHECK_U64(t->signaled, 1);
	CHECK_U64(t->enabled, 1);
	CHECK_U64(t->destroyed, 2);
	CHECK_U64(t->destroyed_unsignaled, 1);
	CHECK_U64(t->open, 1);
	CHECK_U64(xp_fence_open(S, -1), 1);
	/* a new interval keeps the one in flight and pairs it later */
	xp_fence_reset(S);
	CHECK_U64(S->created, 0);
	CHECK_U64(S->tl[0].open, 1);
	ev(XP_FENCE_SIGNALED, 1300, 0, 0, true, "drm_sched", "gfx", 3, 43);
	CHECK(D.paired);
	CHECK_U64(S->tl[0].life.sum, 1000);
	CHECK_U64(xp_fence_open(S, -1), 0);
}

static void test_waits(void)
{
	setup();
	ev(XP_FENCE_INIT, 0, 30, 30, false, "mockgpu", "mock-hw", 9, 1);
	/* two threads of one process wait on it: 5 ms and 3 ms; the fence is signaled
	 * between, after which 7.3 names it by placeholders */
	ev(XP_FENCE_WAIT_START, 1000000, 40, 41, false, "mockgpu", "mock-hw", 9, 1);
	ev(XP_FENCE_WAIT_START, 3000000, 40, 42, false, "mockgpu", "mock-hw", 9, 1);
	ev(XP_FENCE_SIGNALED, 5900000, 0, 0, true, "mockgpu", "mock-hw", 9, 1);
	ev(XP_FENCE_WAIT_END, 6000000, 40, 41, false, "detached-driver", "signaled-timeline", 9, 1);
	CHECK(D.paired);
	CHECK(D.tl == 0);
	ev(XP_FENCE_WAIT_END, 6000000, 40, 42, false, "detached-driver", "signaled-timeline", 9, 1);
	/* an end without its start (began before tracing) */
	ev(XP_FENCE_WAIT_END, 7000000, 40, 43, false, "mockgpu", "mock-hw", 9, 1);
	CHECK(!D.paired);
	/* one still waiting */
	ev(XP_FENCE_WAIT_START, 8000000, 50, 50, false, "mockgpu", "mock-hw", 9, 2);
	CHECK_U64(S->waits, 2);
	CHECK_U64(S->wait.sum, 8000000);
	CHECK_U64(S->wait_unseen, 1);
	CHECK(S->nwaiting == 1);
	CHECK_U64(S->tl[0].waits, 2);
	CHECK_U64(S->tl[0].wait_ns, 8000000);
	CHECK(S->nprocs == 2);	/* 30 created, 40 waited */
	CHECK_U64(S->procs[1].pid, 40);
	CHECK_U64(S->procs[1].waits, 2);
	CHECK_U64(S->procs[1].wait_ns, 8000000);
	CHECK_U64(S->procs[1].wait_max, 5000000);
	CHECK(S->nthreads == 2);
	CHECK_U64(S->threads[0].tid, 41);
	CHECK_U64(S->threads[0].wait_ns, 5000000);
	CHECK_U64(S->threads[1].tid, 42);
	CHECK_U64(S->threads[1].wait_ns, 3000000);
}

static void test_filters(void)
{
	struct xp_run_info ri = { .command = "fence", .source = "live", .mode = "summary" };
	struct xp_tp_report rep = { .layout = &L, .ri = &ri, .filtered = true, .final = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	setup();
	/* the kernel filters creation and waits (task context, proc_ctx), never signals */
	CHECK(xp_fence_events[XP_FENCE_INIT].proc_ctx);
	CHECK(xp_fence_events[XP_FENCE_WAIT_START].proc_ctx);
	CHECK(xp_fence_events[XP_FENCE_WAIT_END].proc_ctx);
	CHECK(!xp_fence_events[XP_FENCE_SIGNALED].proc_ctx);
	CHECK(!xp_fence_events[XP_FENCE_EMIT].proc_ctx);
	CHECK(!xp_fence_events[XP_FENCE_DESTROY].proc_ctx);
	/* so a filtered run sees others' fences signaled only: counted apart, and said */
	ev(XP_FENCE_INIT, 10, 7, 7, false, "vgem", "unbound", 1, 1);
	ev(XP_FENCE_SIGNALED, 20, 0, 0, true, "vgem", "unbound", 2, 1);
	rep.st = S;
	f = open_memstream(&buf, &len);
	xp_fence_report_text(f, &rep);
	fclose(f);
	CHECK(strstr(buf, "process filters apply to fences' creation and to waits") != NULL);
	CHECK(strstr(buf, "1 never signaled") != NULL);
	CHECK(strstr(buf, "1 signaled with their init unseen") != NULL);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	xp_fence_report_json(f, &rep);
	fclose(f);
	CHECK(strstr(buf, "\"process_filter\":true") != NULL);
	CHECK(strstr(buf, "\"signaled_init_unseen\":1") != NULL);
	CHECK(strstr(buf, "\"unsignaled\":1") != NULL);
	free(buf);
}

/* One event into the metrics: the cgroup id where the kernel side wrote it (0: none). */
static void mev(struct xp_fence_metrics *fm, int e, uint64_t ts, uint32_t pid, uint64_t cg, uint32_t ctx,
		uint32_t seqno)
{
	rec_init(&L, &R, XP_REC_FENCE, e, ts, pid, "client");
	CHECK(!rec_put(&L, &R, "context", ctx));
	CHECK(!rec_put(&L, &R, "seqno", seqno));
	rec_str(&R, 0, "vgem");
	rec_str(&R, 1, "unbound");
	memcpy(&R.raw[XP_RAWTP_CGROUP_AT], &cg, sizeof(cg));
	CHECK(xp_fence_metrics_feed(fm, &L, &R) == 0);
}

/* serve's fence metrics: fences made and waits per cgroup, the time to signal per timeline */
static void test_metrics(void)
{
	struct xp_metrics m;
	struct xp_metrics_in in = { .m = &m, .cgroup_labels = cg_labels };
	struct xp_fence_metrics *fm = calloc(1, sizeof(*fm));
	char *out;
	int before = unit_failed_checks;

	setup();
	xp_metrics_init(&m, 0);
	CHECK(fm && xp_fence_metrics_init(fm, &in) == 0);
	/* cgroup 7 makes 3 fences, cgroup 8 one; signaled 1, 2, 3 and 40 ms later */
	for (uint32_t i = 0; i < 3; i++)
		mev(fm, XP_FENCE_INIT, 1000000 * i, 100, 7, 50, i + 1);
	mev(fm, XP_FENCE_INIT, 0, 200, 8, 50, 4);
	/* cgroup 8 waits for fence 4 (10 ms), cgroup 7 for fence 1 (0.5 ms); a wait_end without its start */
	mev(fm, XP_FENCE_WAIT_START, 2000000, 200, 8, 50, 4);
	mev(fm, XP_FENCE_WAIT_START, 500000, 100, 7, 50, 1);
	mev(fm, XP_FENCE_WAIT_END, 1000000, 100, 7, 50, 1);
	mev(fm, XP_FENCE_WAIT_END, 12000000, 200, 8, 50, 4);
	mev(fm, XP_FENCE_WAIT_END, 13000000, 200, 8, 50, 9);
	for (uint32_t i = 0; i < 3; i++)
		mev(fm, XP_FENCE_SIGNALED, 1000000 * i + 1000000 * (i + 1), 0, 0, 50, i + 1);
	mev(fm, XP_FENCE_SIGNALED, 40000000, 0, 0, 50, 4);
	/* a signal of a fence made before tracing: no time to signal */
	mev(fm, XP_FENCE_SIGNALED, 41000000, 0, 0, 50, 77);
	out = served(&m);
	CHECK(strstr(out, "xputrace_fences_created_total{cgroup=\"/cg7\",driver=\"vgem\",timeline=\"unbound\"} 3\n") != NULL);
	CHECK(strstr(out, "xputrace_fences_created_total{cgroup=\"/cg8\",driver=\"vgem\",timeline=\"unbound\"} 1\n") != NULL);
	CHECK(strstr(out, "xputrace_fence_waits_total{cgroup=\"/cg8\",driver=\"vgem\",timeline=\"unbound\"} 1\n") != NULL);
	CHECK(strstr(out, "xputrace_fence_waits_total{cgroup=\"/cg7\",driver=\"vgem\",timeline=\"unbound\"} 1\n") != NULL);
	CHECK(strstr(out, "xputrace_fence_wait_seconds_sum{cgroup=\"/cg8\",driver=\"vgem\",timeline=\"unbound\"} 0.01\n") != NULL);
	CHECK(strstr(out, "xputrace_fence_wait_seconds_sum{cgroup=\"/cg7\",driver=\"vgem\",timeline=\"unbound\"} 0.0005\n") != NULL);
	/* 1 + 2 + 3 + 40 ms, four fences; the one made before tracing not among them */
	CHECK(strstr(out, "xputrace_fence_signal_seconds_count{driver=\"vgem\",timeline=\"unbound\"} 4\n") != NULL);
	CHECK(strstr(out, "xputrace_fence_signal_seconds_sum{driver=\"vgem\",timeline=\"unbound\"} 0.046\n") != NULL);
	CHECK(strstr(out, "xputrace_fence_signal_seconds_bucket{driver=\"vgem\",timeline=\"unbound\",le=\"0.00256\"} 2\n") != NULL);
	if (unit_failed_checks != before)
		fputs(out, stderr);	/* what was served, to compare */
	free(out);
	xp_fence_metrics_free(fm);
	free(fm);
	xp_metrics_free(&m);
}

int main(void)
{
	RUN(test_pairing);
	RUN(test_unseen_and_never);
	RUN(test_waits);
	RUN(test_filters);
	RUN(test_metrics);
	xp_fence_free(S);
	free(S);
	UNIT_EXIT();
}
