/* The npu analysis: the category rules, the pairing of the vpu events, the
 * per-process and per-device split, and the baseline comparison. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps/npu/npu_metrics.h"
#include "caps/npu/npu_stats.h"
#include "core/find_refused.h"
#include "caps/npu/npu_report.h"
#include "sinks/perfetto.h"
#include "unit.h"
#include "metrics_util.h"

static void test_categories(void)
{
	static const struct {
		const char *fn;
		enum xp_npu_cat c;
	} t[] = {
		{ "ivpu_mmu_context_map_page", XP_NPU_CAT_MEM },
		{ "ivpu_mmu_context_init", XP_NPU_CAT_MEM },
		{ "ivpu_pgtable_free_page", XP_NPU_CAT_MEM },
		{ "ivpu_ipc_irq_handler", XP_NPU_CAT_IPC },
		{ "ivpu_hw_ip_ipc_rx_count_get", XP_NPU_CAT_IPC },
		{ "ivpu_ipc_receive", XP_NPU_CAT_IPC },
		{ "ivpu_jsm_msg_type_to_str", XP_NPU_CAT_IPC },
		{ "ivpu_bo_create_ioctl", XP_NPU_CAT_BUF },
		{ "ivpu_gem_create_object", XP_NPU_CAT_BUF },
		{ "ivpu_bo_pin", XP_NPU_CAT_BUF },
		{ "ivpu_submit_ioctl", XP_NPU_CAT_JOB },
		{ "ivpu_cmdq_release_all_locked", XP_NPU_CAT_JOB },
		{ "ivpu_job_done_callback", XP_NPU_CAT_JOB },
		{ "ivpu_rpm_get", XP_NPU_CAT_POWER },
		{ "ivpu_pm_runtime_suspend_cb", XP_NPU_CAT_POWER },
		{ "ivpu_fw_boot_params_setup", XP_NPU_CAT_FW },
		{ "ivpu_hw_boot_fw", XP_NPU_CAT_FW },
		{ "ivpu_boot", XP_NPU_CAT_FW },
		{ "ivpu_get_param_ioctl", XP_NPU_CAT_OTHER },
		{ "ivpu_open", XP_NPU_CAT_OTHER },
		{ "ivpu_postclose", XP_NPU_CAT_OTHER },
		{ "ivpu_bopx", XP_NPU_CAT_OTHER },	/* "_bo" must be a word */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (xp_npu_category(t[i].fn) != t[i].c) {
			fprintf(stderr, "%s: category %s, want %s\n", t[i].fn,
				xp_npu_cat_name(xp_npu_category(t[i].fn)), xp_npu_cat_name(t[i].c));
			CHECK(0);
		}
	CHECK_STR(xp_npu_cat_name(XP_NPU_CAT_MEM), "memory/MMU");
	CHECK_STR(xp_npu_cat_key(XP_NPU_CAT_FW), "firmware");
	CHECK(xp_npu_role("ivpu_ipc_receive") == XP_NPU_ROLE_IPC_MSG);
	CHECK(xp_npu_role("ivpu_mmu_context_map_page") == XP_NPU_ROLE_PAGE_MAP);
	CHECK(xp_npu_role("ivpu_gem_create_object") == XP_NPU_ROLE_BUFFER);
	CHECK(xp_npu_role("ivpu_submit_ioctl") == XP_NPU_ROLE_JOB);
	CHECK(xp_npu_role("ivpu_ipc_irq_handler") == XP_NPU_ROLE_NONE);
	CHECK(xp_npu_irq_name("ivpu_ipc_irq_handler"));
	CHECK(xp_npu_irq_name("ivpu_hw_40xx_irq_handler"));
	CHECK(!xp_npu_irq_name("ivpu_submit_ioctl"));
}

static struct xp_npu_rec rec(uint8_t kind, uint64_t ts, const char *name)
{
	struct xp_npu_rec r;

	memset(&r, 0, sizeof(r));
	r.h.type = XP_REC_NPU;
	r.h.size = sizeof(r);
	r.h.ts_ns = ts;
	r.h.pid = 42;
	r.kind = kind;
	snprintf(r.name, sizeof(r.name), "%s", name);
	snprintf(r.comm, sizeof(r.comm), "app");
	return r;
}

/* The double's run: open, boot, 3 buffers of 16 pages, 4 jobs, 5 IPC messages (1 from the boot). */
static void fill(struct xp_npu_state *s, int pages_per_bo)
{
	static const char *const fns[] = { "ivpu_mmu_context_map_page", "ivpu_gem_create_object",
					   "ivpu_submit_ioctl", "ivpu_ipc_receive", "ivpu_ipc_irq_handler",
					   "ivpu_open", "ivpu_rpm_get" };

	xp_npu_init(s);
	for (int i = 0; i < 7; i++)
		xp_npu_set_fn(s, (uint32_t)i, fns[i]);
	xp_npu_set_fn(s, 9, "ivpu_never_called");
	xp_npu_add_calls(s, 0, NULL, 42, "app", 3 * (uint64_t)pages_per_bo);
	xp_npu_add_calls(s, 1, NULL, 42, "app", 3);
	xp_npu_add_calls(s, 2, NULL, 42, "app", 4);
	xp_npu_add_calls(s, 3, NULL, 0, NULL, 5);
	xp_npu_add_calls(s, 4, NULL, 0, NULL, 5);
	xp_npu_add_calls(s, 5, NULL, 43, "other", 1);
	xp_npu_add_calls(s, 6, NULL, 42, "app", 4);
}

static void test_calls(void)
{
	struct xp_npu_state *s = malloc(sizeof(*s));
	struct xp_npu_ratios r;

	fill(s, 16);
	CHECK_U64(s->cat[XP_NPU_CAT_MEM], 48);
	CHECK_U64(s->cat[XP_NPU_CAT_BUF], 3);
	CHECK_U64(s->cat[XP_NPU_CAT_JOB], 4);
	CHECK_U64(s->cat[XP_NPU_CAT_IPC], 10);
	CHECK_U64(s->cat[XP_NPU_CAT_OTHER], 1);
	CHECK_U64(s->cat[XP_NPU_CAT_POWER], 4);
	CHECK_U64(s->dev_calls, 10);
	CHECK_U64(s->dev_cat[XP_NPU_CAT_IPC], 10);
	CHECK_U64(s->nprocs, 2);
	CHECK_U64(s->procs[0].tgid, 42);
	CHECK_U64(s->procs[0].calls, 48 + 3 + 4 + 4);
	CHECK_STR(s->procs[1].comm, "other");
	CHECK_U64(s->ipc_msgs, 5);
	xp_npu_ratios(s, 2.0, &r);
	CHECK(r.has_pages_per_buffer && r.pages_per_buffer == 16.0);
	CHECK(r.has_ipc_per_job && r.ipc_per_job == 1.25);
	CHECK(r.per_s[XP_NPU_CAT_MEM] == 24.0);
	/* a call of an index never named cannot be told: counted as past the tables */
	xp_npu_add_calls(s, 20, NULL, 42, "app", 2);
	CHECK_U64(s->overflow, 2);
	xp_npu_reset(s);
	CHECK_U64(s->cat[XP_NPU_CAT_MEM], 0);
	CHECK_U64(s->nprocs, 0);
	CHECK_STR(s->fn[0].name, "ivpu_mmu_context_map_page");
	free(s);
}

static void test_events(void)
{
	struct xp_npu_state *s = malloc(sizeof(*s));
	struct xp_npu_rec r;

	xp_npu_init(s);
	/* two jobs on ctx 1 engine 0, one on ctx 2: 5 ms and 7 ms; one never done */
	r = rec(XP_NPU_JOB, 1000000, "submit"), r.a = 1, r.b = 0, r.c = 1;
	CHECK(!xp_npu_add(s, &r));
	r = rec(XP_NPU_JOB, 2000000, "submit"), r.a = 2, r.b = 0, r.c = 1;
	CHECK(!xp_npu_add(s, &r));
	r = rec(XP_NPU_JOB, 6000000, "done"), r.a = 1, r.b = 0, r.c = 1;
	CHECK(!xp_npu_add(s, &r));
	r = rec(XP_NPU_JOB, 9000000, "done"), r.a = 2, r.b = 0, r.c = 1;
	CHECK(!xp_npu_add(s, &r));
	r = rec(XP_NPU_JOB, 9500000, "submit"), r.a = 1, r.b = 0, r.c = 2;
	CHECK(!xp_npu_add(s, &r));
	CHECK_U64(s->njobq, 2);
	CHECK_U64(s->jobq[0].submitted, 2);
	CHECK_U64(s->jobq[0].done, 1);
	CHECK_U64(s->jobq[0].lat.count, 1);
	CHECK_U64(s->jobq[0].lat.sum, 5000000);
	CHECK_U64(s->jobq[1].lat.sum, 7000000);

	/* a request and its response by request id; an unsolicited message has no time */
	r = rec(XP_NPU_JSM, 1000, "[tx]"), snprintf(r.type, sizeof(r.type), "SUBMIT_JOB"), r.a = 1, r.b = 7;
	CHECK(!xp_npu_add(s, &r));
	r = rec(XP_NPU_JSM, 4000, "[rx]"), snprintf(r.type, sizeof(r.type), "JOB_DONE"), r.a = 0, r.b = 7;
	CHECK(!xp_npu_add(s, &r));
	r = rec(XP_NPU_JSM, 5000, "[rx]"), snprintf(r.type, sizeof(r.type), "READY"), r.b = 0;
	CHECK(!xp_npu_add(s, &r));
	CHECK_U64(s->njsm, 3);
	CHECK_STR(s->jsm[0].type, "SUBMIT_JOB");
	CHECK_U64(s->jsm[0].lat.count, 1);
	CHECK_U64(s->jsm[0].lat.sum, 3000);
	CHECK_U64(s->jsm[1].msgs, 1);
	CHECK_U64(s->jsm[2].lat.count, 0);

	/* PM: each event's time to the next */
	r = rec(XP_NPU_PM, 100, "suspend");
	CHECK(!xp_npu_add(s, &r));
	r = rec(XP_NPU_PM, 20100, "resume");
	CHECK(!xp_npu_add(s, &r));
	CHECK_U64(s->npm, 2);
	CHECK_U64(s->pm[0].dur.sum, 20000);
	CHECK_U64(s->pm[1].dur.count, 0);

	/* a timed return, a call record, and what cannot be decoded */
	r = rec(XP_NPU_RET, 0, "ivpu_bo_create_ioctl"), r.slot = 0, r.dur_ns = 3000000;
	CHECK(!xp_npu_add(s, &r));
	CHECK_STR(s->lat[0].name, "ivpu_bo_create_ioctl");
	CHECK_U64(s->lat[0].h.sum, 3000000);
	r = rec(XP_NPU_CALL, 0, "ivpu_ipc_irq_handler"), r.fn = 3, r.dev = 1;
	CHECK(!xp_npu_add(s, &r));
	CHECK_U64(s->dev_calls, 1);
	CHECK_U64(s->cat[XP_NPU_CAT_IPC], 1);
	r = rec(9, 0, "x");
	CHECK(xp_npu_add(s, &r) != 0);
	r = rec(XP_NPU_RET, 0, "x"), r.slot = XP_NPU_MAX_LAT;
	CHECK(xp_npu_add(s, &r) != 0);
	free(s);
}

/* An amdxdna job event of hw context `ctx` for the job of fence fctx:fseq. */
static struct xp_npu_rec xj(uint64_t ts, const char *ctx, const char *ev, uint64_t fctx, uint64_t fseq)
{
	struct xp_npu_rec r = rec(XP_NPU_XDNA, ts, ev);

	snprintf(r.type, sizeof(r.type), "%s", ctx);
	r.fctx = fctx, r.fseq = fseq, r.seq = fseq - 1;
	r.dev = 1;
	return r;
}

static struct xp_npu_rec sq(uint64_t ts, uint32_t pid, uint64_t fctx, uint64_t fseq)
{
	struct xp_npu_rec r = rec(XP_NPU_SQUEUE, ts, "");

	snprintf(r.type, sizeof(r.type), "amdxdna_js");
	r.h.pid = pid;
	r.fctx = fctx, r.fseq = fseq;
	return r;
}

static void test_xdna(void)
{
	struct xp_npu_state *s = malloc(sizeof(*s));
	struct xp_npu_info in = { .known = true, .xdna = true, .xdna_sched = true };
	struct xp_run_info ri = { .command = "npu", .duration_s = 1 };
	struct xp_npu_rec r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	xp_npu_init(s);
	/* hwctx.7.1 (pid 7): two jobs; the second one interleaved with hwctx.8.2's */
	r = sq(1000, 7, 5, 1); CHECK(!xp_npu_add(s, &r));
	r = xj(3000, "hwctx.7.1", "job run", 5, 1); CHECK(!xp_npu_add(s, &r));
	r = xj(3500, "hwctx.7.1", "sent to device", 5, 1); CHECK(!xp_npu_add(s, &r));
	r = sq(4000, 7, 5, 2); CHECK(!xp_npu_add(s, &r));
	r = sq(4100, 8, 9, 1); CHECK(!xp_npu_add(s, &r));
	r = xj(4200, "hwctx.8.2", "job run", 9, 1); CHECK(!xp_npu_add(s, &r));
	r = xj(5500, "hwctx.7.1", "signaling fence", 5, 1); CHECK(!xp_npu_add(s, &r));
	r = rec(XP_NPU_SDONE, 5600, ""), r.fctx = 5, r.fseq = 1; CHECK(!xp_npu_add(s, &r));
	r = xj(6000, "hwctx.7.1", "job run", 5, 2); CHECK(!xp_npu_add(s, &r));
	r = xj(6000, "hwctx.7.1", "job free", 5, 1); CHECK(!xp_npu_add(s, &r));
	r = xj(6100, "hwctx.7.1", "sent to device", 5, 2); CHECK(!xp_npu_add(s, &r));
	r = xj(9100, "hwctx.7.1", "signaling fence", 5, 2); CHECK(!xp_npu_add(s, &r));
	/* a job whose queue event came before tracing began: no process, no scheduler time */
	r = xj(9200, "hwctx.9.3", "job run", 11, 4); CHECK(!xp_npu_add(s, &r));
	r = xj(9300, "hwctx.9.3", "sent to device", 11, 4); CHECK(!xp_npu_add(s, &r));
	r = xj(9400, "hwctx.9.3", "job timedout", 11, 4); CHECK(!xp_npu_add(s, &r));
	/* a done of a fence never seen counts nowhere */
	r = rec(XP_NPU_SDONE, 9500, ""), r.fctx = 77, r.fseq = 1; CHECK(!xp_npu_add(s, &r));

	CHECK_U64(s->nhw, 3);
	CHECK_STR(s->hw[0].name, "hwctx.7.1");
	CHECK_U64(s->hw[0].tgid, 7);
	CHECK_STR(s->hw[0].comm, "app");
	CHECK_U64(s->hw[0].queued, 2);
	CHECK_U64(s->hw[0].run, 2);
	CHECK_U64(s->hw[0].sent, 2);
	CHECK_U64(s->hw[0].signaled, 2);
	CHECK_U64(s->hw[0].done, 1);
	CHECK_U64(s->hw[0].freed, 1);
	CHECK_U64(s->hw[0].wait.count, 2);
	CHECK_U64(s->hw[0].wait.sum, 2000 + 2000);	/* 1000 -> 3000, 4000 -> 6000 */
	CHECK_U64(s->hw[0].submit.sum, 500 + 100);
	CHECK_U64(s->hw[0].exec.sum, 2000 + 3000);
	CHECK_U64(s->hw[0].total.sum, 4500 + 5100);
	CHECK_U64(s->hw[1].tgid, 8);
	CHECK_U64(s->hw[1].queued, 1);
	CHECK_U64(s->hw[1].wait.sum, 100);
	CHECK_U64(s->hw[1].signaled, 0);
	CHECK_U64(s->hw[2].tgid, 0);
	CHECK_U64(s->hw[2].queued, 0);
	CHECK_U64(s->hw[2].wait.count, 0);
	CHECK_U64(s->hw[2].submit.sum, 100);
	CHECK_U64(s->hw[2].other, 1);

	f = open_memstream(&text, &len);
	xp_npu_report_text(f, s, &in, &ri, false);
	fclose(f);
	CHECK(strstr(text, "amdxdna: xdna_job + gpu_scheduler") != NULL);
	CHECK(strstr(text, "CATEGORY") == NULL);	/* intel_vpu was not traced */
	CHECK(strstr(text, "hwctx.7.1            app[7]") != NULL);
	free(text);

	/* a new interval: counts to zero, the open job of hwctx.8.2 still joins */
	xp_npu_reset(s);
	r = xj(10000, "hwctx.8.2", "sent to device", 9, 1); CHECK(!xp_npu_add(s, &r));
	r = xj(12000, "hwctx.8.2", "signaling fence", 9, 1); CHECK(!xp_npu_add(s, &r));
	CHECK_U64(s->hw[1].run, 0);
	CHECK_U64(s->hw[1].signaled, 1);
	CHECK_U64(s->hw[1].submit.sum, 10000 - 4200);
	CHECK_U64(s->hw[1].total.sum, 12000 - 4100);
	CHECK_U64(s->hw[0].queued, 0);

	/*
	 * The jobs in flight by fence: 20000 jobs on 3 fence contexts, up to
	 * 300 open at once, freed out of order, all joined; then more open at
	 * once than the table holds: the oldest are dropped, counted.
	 */
	xp_npu_init(s);
	for (uint64_t i = 0; i < 20300; i++) {
		if (i < 20000) {
			r = sq(100 + i * 10, 7, i % 3, i); CHECK(!xp_npu_add(s, &r));
			r = xj(100 + i * 10 + 1, "hwctx.7.1", "job run", i % 3, i);
			CHECK(!xp_npu_add(s, &r));
		}
		if (i >= 300) {	/* free an earlier job, in a scrambled order */
			uint64_t k = (i - 300) ^ 1;	/* pairs swapped: out of order */

			r = xj(100 + i * 10 + 2, "hwctx.7.1", "signaling fence", k % 3, k);
			CHECK(!xp_npu_add(s, &r));
			r = xj(100 + i * 10 + 3, "hwctx.7.1", "job free", k % 3, k);
			CHECK(!xp_npu_add(s, &r));
		}
	}
	CHECK_U64(s->hw[0].queued, 20000);
	CHECK_U64(s->hw[0].signaled, 20000);
	CHECK_U64(s->hw[0].total.count, 20000);
	CHECK_U64(s->hw[0].freed, 20000);
	CHECK_U64(s->xjobs_open, 0);
	CHECK_U64(s->xjobs_evicted, 0);
	for (uint64_t i = 0; i < XP_NPU_MAX_XJOBS + 5; i++) {
		r = sq(1000000 + i, 7, 4, i);
		CHECK(!xp_npu_add(s, &r));
	}
	CHECK_U64(s->xjobs_open, XP_NPU_MAX_XJOBS);
	CHECK_U64(s->xjobs_evicted, 5);
	/* a dropped one comes back as new, with no scheduler time, and pushes out the next oldest (5) */
	r = xj(2000000, "hwctx.7.1", "job run", 4, 0);
	CHECK(!xp_npu_add(s, &r));
	CHECK_U64(s->xjobs_evicted, 6);
	r = xj(2000001, "hwctx.7.1", "job run", 4, 6);	/* the oldest kept */
	CHECK(!xp_npu_add(s, &r));
	CHECK_U64(s->hw[0].wait.count, 20000 + 1);
	CHECK_U64(s->hw[0].wait.max, 2000001 - 1000006);
	free(s);
}

static void test_baseline(void)
{
	struct xp_npu_state *s = malloc(sizeof(*s));
	struct xp_npu_info in;
	struct xp_run_info ri = { .command = "npu", .source = "live", .mode = "summary", .duration_s = 2 };
	struct xp_npu_ratios base, now;
	struct xp_npu_moved mv[16];
	char *text = NULL, why[160];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int n;

	memset(&in, 0, sizeof(in));
	fill(s, 16);
	xp_npu_report_json(f, s, &in, &ri);
	fclose(f);
	/* a summary's own JSON reads back as its ratios */
	CHECK(!xp_npu_baseline_parse(text, &base, why, sizeof(why)));
	CHECK(base.has_pages_per_buffer && base.pages_per_buffer == 16.0);
	CHECK(base.has_ipc_per_job && base.ipc_per_job == 1.25);
	CHECK(base.per_s[XP_NPU_CAT_MEM] == 24.0);
	CHECK(base.per_s[XP_NPU_CAT_JOB] == 2.0);
	/* the same run again: nothing moved */
	xp_npu_ratios(s, 2.0, &now);
	CHECK_U64(xp_npu_compare(&base, &now, 0.5, mv, 16), 0);
	/* 64 pages per buffer: that ratio and memory calls per second moved */
	fill(s, 64);
	xp_npu_ratios(s, 2.0, &now);
	n = xp_npu_compare(&base, &now, 0.5, mv, 16);
	CHECK_U64(n, 2);
	CHECK_STR(mv[0].what, "MMU pages mapped per buffer");
	CHECK(mv[0].base == 16.0 && mv[0].now == 64.0);
	CHECK_STR(mv[1].what, "memory/MMU calls per second");
	/* below the threshold: not reported; a higher threshold hides it */
	CHECK_U64(xp_npu_compare(&base, &now, 5.0, mv, 16), 0);
	/* from zero: moved */
	memset(&base, 0, sizeof(base));
	CHECK(xp_npu_compare(&base, &now, 0.5, mv, 16) >= 1);
	free(text);

	/* no buffer or job: the ratio is null and not compared */
	xp_npu_init(s);
	text = NULL;
	f = open_memstream(&text, &len);
	xp_npu_report_json(f, s, &in, &ri);
	fclose(f);
	CHECK(strstr(text, "\"mmu_pages_per_buffer\":null") != NULL);
	CHECK(!xp_npu_baseline_parse(text, &base, why, sizeof(why)));
	CHECK(!base.has_pages_per_buffer && !base.has_ipc_per_job);
	free(text);
	free(s);

	/* what is not an npu summary */
	CHECK(xp_npu_baseline_parse("", &base, why, sizeof(why)) == -EINVAL);
	CHECK(xp_npu_baseline_parse("{\"command\":\"npu\",\"ratios\":{\"mmu_pages_per_buffer\":1", &base, why,
				    sizeof(why)) == -EINVAL);
	CHECK(strstr(why, "not a JSON document") != NULL);
	CHECK(xp_npu_baseline_parse("{\"command\":\"ioctl\",\"ratios\":{}}", &base, why, sizeof(why)) == -EINVAL);
	CHECK(strstr(why, "not the JSON summary") != NULL);
	CHECK(xp_npu_baseline_parse("{\"command\":\"npu\",\"ratios\":{\"ipc_messages_per_job\":x}}", &base, why,
				    sizeof(why)) == -EINVAL);
	CHECK(xp_npu_baseline_parse("[1,2]", &base, why, sizeof(why)) == -EINVAL);
	CHECK(!xp_npu_baseline_parse("{\"command\":\"npu\",\"x\":[true,false,null,\"a\\\"b\"],"
				     "\"ratios\":{\"ipc_messages_per_job\":2.5e0}}\n{garbage", &base, why,
				     sizeof(why)));
	CHECK(base.has_ipc_per_job && base.ipc_per_job == 2.5);
}

/* An all-or-nothing attach that refuses some items, as a kprobe.multi link does. */
struct fake {
	const int *refuse;	/* -errno per item, 0: taken */
	int tries;
};

static int fake_try(void *p, const int *idx, int n)
{
	struct fake *f = p;

	f->tries++;
	for (int i = 0; i < n; i++)
		if (f->refuse[idx[i]])
			return f->refuse[idx[i]];
	return 0;
}

static void test_find_refused(void)
{
	int refuse[300] = { 0 }, err[300], idx[300], n;
	struct fake f = { refuse, 0 };

	for (int i = 0; i < 300; i++)
		idx[i] = i;
	/* none refused: one try */
	memset(err, 0, sizeof(err));
	CHECK_U64(xp_find_refused(idx, 300, fake_try, &f, err), 0);
	CHECK_U64(f.tries, 1);
	/* three refused, with their own reasons, the first and last included */
	refuse[0] = -EINVAL, refuse[137] = -ESRCH, refuse[299] = -EBUSY;
	f.tries = 0;
	n = xp_find_refused(idx, 300, fake_try, &f, err);
	CHECK_U64(n, 3);
	CHECK(err[0] == -EINVAL && err[137] == -ESRCH && err[299] == -EBUSY);
	for (int i = 1; i < 299; i++)
		if (i != 137 && err[i]) {
			fprintf(stderr, "item %d marked refused\n", i);
			CHECK(0);
		}
	CHECK(f.tries <= 2 * 3 * 9 + 1);	/* about 2 x refused x log2(300) */
	/* a subset: only its items are tried */
	memset(err, 0, sizeof(err));
	CHECK_U64(xp_find_refused(idx + 100, 100, fake_try, &f, err), 1);
	CHECK(err[137] == -ESRCH && !err[0] && !err[299]);
	/* every item refused */
	for (int i = 0; i < 8; i++)
		refuse[i] = -EPERM;
	memset(err, 0, sizeof(err));
	CHECK_U64(xp_find_refused(idx, 8, fake_try, &f, err), 8);
	CHECK_U64(xp_find_refused(idx, 0, fake_try, &f, err), 0);
}

static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *q = hay; (q = strstr(q, needle)); q += strlen(needle))
		n++;
	return n;
}

static void test_perfetto(void)
{
	struct xp_perfetto *p = calloc(1, sizeof(*p));
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct xp_npu_rec r;

	xp_perfetto_begin(p, f, 1000);
	r = rec(XP_NPU_CALL, 2000, "ivpu_bo_pin"), r.fn = 1;
	xp_perfetto_npu(p, &r);
	r = rec(XP_NPU_RET, 3000, "ivpu_bo_create_ioctl"), r.dur_ns = 10000000;
	xp_perfetto_npu(p, &r);
	r = rec(XP_NPU_JOB, 4000, "submit"), r.a = 1, r.b = 0, r.c = 7;
	xp_perfetto_npu(p, &r);
	r = rec(XP_NPU_JOB, 9000, "done"), r.a = 1, r.b = 0, r.c = 7;
	xp_perfetto_npu(p, &r);
	r = rec(XP_NPU_JSM, 5000, "[tx]"), snprintf(r.type, sizeof(r.type), "SUBMIT_JOB"), r.b = 3;
	xp_perfetto_npu(p, &r);
	r = rec(XP_NPU_PM, 6000, "suspend");
	xp_perfetto_npu(p, &r);
	/* amdxdna: on the device from sent to signaling, on its hw context's track */
	r = xj(6500, "hwctx.7.1", "job run", 5, 1);
	xp_perfetto_npu(p, &r);
	r = xj(7000, "hwctx.7.1", "sent to device", 5, 1);
	xp_perfetto_npu(p, &r);
	r = xj(8000, "hwctx.7.1", "signaling fence", 5, 1);
	xp_perfetto_npu(p, &r);
	xp_perfetto_end(p, NULL);
	fclose(f);
	CHECK_U64(count_of(text, "\"ph\":\"X\""), 1);
	CHECK_U64(count_of(text, "\"name\":\"ivpu_bo_create_ioctl\""), 1);
	CHECK_U64(count_of(text, "ivpu_bo_pin"), 0);	/* untimed calls are not drawn */
	CHECK_U64(count_of(text, "\"ph\":\"b\""), 2);
	CHECK_U64(count_of(text, "\"ph\":\"e\""), 2);
	CHECK_U64(count_of(text, "amdxdna hwctx.7.1"), 1);
	CHECK_U64(count_of(text, "\"ph\":\"i\""), 2);
	CHECK_U64(count_of(text, "\"name\":\"SUBMIT_JOB\""), 1);
	CHECK_U64(count_of(text, "jobs: ctx 1 engine 0"), 1);
	free(text);
	free(p);
}

/* A vpu:job event of pid, for the metrics. */
static void mjob(struct xp_npu_metrics *nm, uint64_t ts, const char *ev, uint32_t pid, uint32_t ctx,
		 uint32_t engine, uint32_t job)
{
	struct xp_npu_rec r = rec(XP_NPU_JOB, ts, ev);

	r.h.pid = r.h.tid = pid;
	r.a = ctx, r.b = engine, r.c = job;
	CHECK(xp_npu_metrics_feed(nm, &r.h) == 0);
}

/* serve's NPU metrics: jobs per cgroup (and process) and engine, submit -> done per the submitter */
static void test_metrics(void)
{
	struct xp_metrics m;
	struct xp_pid_cgroups pc;
	struct xp_metrics_in in = { .m = &m, .cgroup_labels = cg_labels, .per_process = true, .pids = &pc };
	struct xp_npu_metrics *nm = calloc(1, sizeof(*nm));
	struct xp_npu_rec call = rec(XP_NPU_CALL, 1, "ivpu_submit_ioctl");
	uint32_t me = (uint32_t)getpid(), gone = 0x7ffffff0;
	uint64_t cg;
	char *out, want[256];
	int before = unit_failed_checks;

	xp_pid_cgroups_init(&pc);
	cg = xp_pid_cgroup(&pc, me, 0);	/* this process's cgroup, as the metrics find it */
	xp_metrics_init(&m, 0);
	CHECK(nm && xp_npu_metrics_init(nm, &in) == 0);
	/* this process: 3 jobs on engine 0 (done after 1, 2 and 30 ms), 1 on engine 1 never done */
	for (uint32_t i = 0; i < 3; i++)
		mjob(nm, 1000000 * i, "submit", me, 5, 0, i + 1);
	mjob(nm, 500000, "submit", me, 5, 1, 9);
	mjob(nm, 1000000, "done", 0, 5, 0, 1);
	mjob(nm, 3000000, "done", 0, 5, 0, 2);
	mjob(nm, 32000000, "done", 0, 5, 0, 3);
	/* another process's job with the same numbers in another context; a done never submitted */
	mjob(nm, 4000000, "submit", gone, 6, 0, 1);
	mjob(nm, 9000000, "done", 0, 6, 0, 1);
	mjob(nm, 9500000, "done", 0, 6, 0, 77);
	/* a job whose record carries its cgroup (the kernel side read it): that cgroup, not /proc's */
	{
		struct xp_npu_rec r = rec(XP_NPU_JOB, 10000000, "submit");

		r.h.pid = r.h.tid = me;
		r.a = 8, r.b = 2, r.c = 1, r.cgroup = 77;
		CHECK(xp_npu_metrics_feed(nm, &r.h) == 0);
	}
	/* other records pass, short ones are undecodable */
	CHECK(xp_npu_metrics_feed(nm, &call.h) == 0);
	call.h.size = 8;
	CHECK(xp_npu_metrics_feed(nm, &call.h) == 1);
	out = served(&m);
	snprintf(want, sizeof(want), "xputrace_npu_jobs_total{cgroup=\"/cg%llu\",pid=\"%u\",comm=\"app\","
		 "driver=\"intel_vpu\",engine=\"0\"} 3\n", (unsigned long long)cg, me);
	CHECK(strstr(out, want) != NULL);
	snprintf(want, sizeof(want), "xputrace_npu_jobs_total{cgroup=\"/cg%llu\",pid=\"%u\",comm=\"app\","
		 "driver=\"intel_vpu\",engine=\"1\"} 1\n", (unsigned long long)cg, me);
	CHECK(strstr(out, want) != NULL);
	snprintf(want, sizeof(want), "xputrace_npu_job_seconds_count{cgroup=\"/cg%llu\",pid=\"%u\",comm=\"app\","
		 "driver=\"intel_vpu\",engine=\"0\"} 3\n", (unsigned long long)cg, me);
	CHECK(strstr(out, want) != NULL);
	/* 1 + 2 + 30 ms */
	snprintf(want, sizeof(want), "xputrace_npu_job_seconds_sum{cgroup=\"/cg%llu\",pid=\"%u\",comm=\"app\","
		 "driver=\"intel_vpu\",engine=\"0\"} 0.033\n", (unsigned long long)cg, me);
	CHECK(strstr(out, want) != NULL);
	/* the job on engine 1 was never done: no time */
	CHECK(strstr(out, "engine=\"1\"} 0\n") == NULL);
	snprintf(want, sizeof(want), "pid=\"%u\",comm=\"app\",driver=\"intel_vpu\",engine=\"0\"} 0.005\n", gone);
	CHECK(strstr(out, want) != NULL);
	CHECK(count_of(out, "xputrace_npu_job_seconds_count{") == 2);
	snprintf(want, sizeof(want), "xputrace_npu_jobs_total{cgroup=\"/cg77\",pid=\"%u\",comm=\"app\","
		 "driver=\"intel_vpu\",engine=\"2\"} 1\n", me);
	CHECK(strstr(out, want) != NULL);
	if (unit_failed_checks != before)
		fputs(out, stderr);	/* what was served, to compare */
	free(out);
	xp_pid_cgroups_free(&pc);
	free(nm);
	xp_metrics_free(&m);
}

int main(void)
{
	RUN(test_metrics);
	RUN(test_perfetto);
	RUN(test_find_refused);
	RUN(test_categories);
	RUN(test_calls);
	RUN(test_events);
	RUN(test_xdna);
	RUN(test_baseline);
	UNIT_EXIT();
}
