/* The mem analysis on synthetic amdgpu/i915/xe streams decoded with the
 * real format files' layouts: exact counts, byte totals and delays. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "rawtp_util.h"
#include "mem_formats.h"
#include "caps/mem/mem_metrics.h"
#include "metrics_util.h"
#include "caps/mem/mem_stats.h"
#include "caps/mem/mem_int.h"

static struct xp_rawtp_layout L;
static struct xp_mem_state *S;

static void setup(void)
{
	xp_rawtp_layout_init(&L, xp_mem_events, XP_MEM_NEV);
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_AMD_BO_CREATE, fmt_bo_create));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_AMD_BO_MOVE, fmt_bo_move));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_AMD_CS_IOCTL, fmt_cs_61));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_AMD_RUN_JOB, fmt_run_73));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_AMD_IV, fmt_iv));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_I915_CREATE, fmt_i915_create));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_I915_DESTROY, fmt_i915_destroy));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_I915_BIND, fmt_i915_bind));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_I915_UNBIND, fmt_i915_unbind));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_I915_FAULT, fmt_i915_fault));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_I915_RQ_ADD, fmt_rq_add));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_I915_RQ_RETIRE, fmt_rq_retire));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_I915_RQ_WAIT_BEGIN, fmt_rq_wait_begin));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_I915_RQ_WAIT_END, fmt_rq_wait_end));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_XE_QUEUE_CREATE, fmt_xe_queue));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_XE_BO_MOVE, fmt_xe_bo_move));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_XE_BO_CREATE, fmt_xe_bo_create));
	if (!S)
		S = malloc(sizeof(*S));
	else
		xp_mem_free(S);
	CHECK(!xp_mem_init(S, 4096));
}

static struct xp_rawtp_rec R;

static void start(int ev, uint64_t ts, uint32_t pid, const char *comm)
{
	rec_init(&L, &R, XP_REC_MEM, ev, ts, pid, comm);
}
#define PUT(n, v) CHECK(!rec_put(&L, &R, n, v))
static void add(void) { CHECK(!xp_mem_add(S, &L, &R)); }

static void test_amdgpu(void)
{
	setup();
	/* 3 BOs: 256 pages preferring VRAM placed in VRAM, 16 preferring VRAM
	 * placed in GTT (flagged), 8 preferring GTT */
	uint32_t pages[] = { 256, 16, 8 }, type[] = { 2, 1, 1 }, pref[] = { 4, 6, 2 };

	for (int i = 0; i < 3; i++) {
		start(XP_MEM_AMD_BO_CREATE, 100 + i, 500, "game");
		PUT("bo", 0xffff0000 + i);
		PUT("pages", pages[i]);
		PUT("type", type[i]);
		PUT("prefer", pref[i]);
		PUT("allow", 6);
		add();
	}
	CHECK_U64(S->amd_bos, 3);
	CHECK_U64(S->amd_bo_bytes, 280 * 4096);
	CHECK_U64(S->amd_bo_bytes_by_pref[0], 272 * 4096);
	CHECK_U64(S->amd_vram_in_gtt, 1);
	CHECK_U64(S->amd_vram_in_gtt_bytes, 16 * 4096);
	CHECK_U64(S->procs[0].pid, 500);
	CHECK_U64(S->procs[0].amd_vram_in_gtt, 1);
	/* moves: 2 x 1 MiB VRAM -> GTT, 1 x 64 KiB GTT -> VRAM */
	for (int i = 0; i < 3; i++) {
		start(XP_MEM_AMD_BO_MOVE, 200 + i, 77, "kworker/1:0");
		PUT("bo_size", i < 2 ? 1 << 20 : 65536);
		PUT("new_placement", i < 2 ? 1 : 2);
		PUT("old_placement", i < 2 ? 2 : 1);
		add();
	}
	CHECK_U64(S->amd_moves, 3);
	CHECK_U64(S->amd_move_bytes, 2 * (1 << 20) + 65536);
	CHECK_U64(S->amd_move_n[2][1], 2);
	CHECK_U64(S->amd_move_b[1][2], 65536);
	CHECK_U64(S->nprocs, 1);	/* moves are not charged to the worker */
	/* submit -> run: two jobs on gfx, matched by (context, seqno) across
	 * two layouts (u32 fields in cs_ioctl, u64 in run_job) */
	for (int i = 0; i < 2; i++) {
		start(XP_MEM_AMD_CS_IOCTL, 1000 + i * 10, 500, "game");
		PUT("context", 7);
		PUT("seqno", 40 + i);
		rec_str(&R, 0, "gfx_0.0.0");
		add();
	}
	start(XP_MEM_AMD_RUN_JOB, 1500, 0, "gfx_0.0.0");
	PUT("context", 7);
	PUT("seqno", 41);
	rec_str(&R, 0, "gfx_0.0.0");
	add();
	start(XP_MEM_AMD_RUN_JOB, 1800, 0, "gfx_0.0.0");
	PUT("context", 7);
	PUT("seqno", 40);
	rec_str(&R, 0, "gfx_0.0.0");
	add();
	CHECK_U64(S->nrings, 1);
	CHECK_STR(S->rings[0].name, "gfx_0.0.0");
	CHECK_U64(S->rings[0].submits, 2);
	CHECK_U64(S->rings[0].run, 2);
	CHECK_U64(S->rings[0].delay.count, 2);
	CHECK_U64(S->rings[0].delay.sum, 490 + 800);
	CHECK_U64(S->rings[0].delay.max, 800);
	CHECK_U64(S->procs[0].amd_submits, 2);
	CHECK_U64(S->npending, 0);
	/* interrupts by client, source, pasid */
	for (int i = 0; i < 5; i++) {
		start(XP_MEM_AMD_IV, 2000 + i, 0, "swapper/0");
		PUT("client_id", 0);
		PUT("src_id", i < 3 ? 181 : 146);
		PUT("pasid", i < 3 ? 0 : 32770);
		add();
	}
	CHECK_U64(S->amd_iv, 5);
	CHECK_U64(S->niv, 2);
	CHECK_U64(S->iv[0].count, 3);
	CHECK_U64(S->iv[1].pasid, 32770);
	CHECK_U64(S->iv[1].count, 2);
}

static void test_i915(void)
{
	uint64_t bytes;

	setup();
	/* process A creates 3 objects, B one; A's second and B's are destroyed
	 * (by a worker); an object from before tracing is destroyed too */
	struct { uint32_t pid; uint64_t obj, size; } c[] = {
		{ 10, 0xa000, 4096 }, { 10, 0xa100, 1 << 20 }, { 10, 0xa200, 65536 }, { 20, 0xb000, 8192 },
	};
	for (int i = 0; i < 4; i++) {
		start(XP_MEM_I915_CREATE, 10 + i, c[i].pid, c[i].pid == 10 ? "A" : "B");
		PUT("obj", c[i].obj);
		PUT("size", c[i].size);
		add();
	}
	uint64_t gone[] = { 0xa100, 0xb000, 0xdead00 };
	for (int i = 0; i < 3; i++) {
		start(XP_MEM_I915_DESTROY, 100 + i, 3, "kworker/u4:2");
		PUT("obj", gone[i]);
		add();
	}
	CHECK_U64(S->i915_creates, 4);
	CHECK_U64(S->i915_create_bytes, 4096 + (1 << 20) + 65536 + 8192);
	CHECK_U64(S->i915_destroys, 3);
	CHECK_U64(S->i915_destroy_bytes, (1 << 20) + 8192);
	CHECK_U64(S->i915_destroy_untracked, 1);
	CHECK_U64(S->procs[0].i915_live_objs, 2);
	CHECK_U64(S->procs[0].i915_live_bytes, 4096 + 65536);
	CHECK_U64(S->procs[1].i915_live_objs, 0);
	CHECK_U64(xp_mem_live_objects(S, &bytes), 2);
	CHECK_U64(bytes, 4096 + 65536);
	/* bind, unbind, bind again: one rebind */
	int seq[] = { XP_MEM_I915_BIND, XP_MEM_I915_UNBIND, XP_MEM_I915_BIND, XP_MEM_I915_BIND };
	for (int i = 0; i < 4; i++) {
		start(seq[i], 200 + i, 10, "A");
		PUT("obj", 0xa000);
		PUT("vm", 0x5000);
		PUT("size", 4096);
		add();
	}
	CHECK_U64(S->i915_binds, 3);
	CHECK_U64(S->i915_unbinds, 1);
	CHECK_U64(S->i915_rebinds, 1);
	/* faults: 2 GTT writes, 1 CPU read */
	int gtt[] = { 1, 1, 0 }, wr[] = { 1, 1, 0 };
	for (int i = 0; i < 3; i++) {
		start(XP_MEM_I915_FAULT, 300 + i, 10, "A");
		PUT("obj", 0xa000);
		PUT("gtt", (uint64_t)gtt[i]);
		PUT("write", (uint64_t)wr[i]);
		add();
	}
	CHECK_U64(S->i915_faults[1][1], 2);
	CHECK_U64(S->i915_faults[0][0], 1);
	CHECK_U64(S->procs[0].i915_faults, 3);
	/* a new interval keeps what is alive */
	xp_mem_reset(S);
	CHECK_U64(S->i915_creates, 0);
	CHECK_U64(S->procs[0].i915_live_bytes, 4096 + 65536);
	CHECK_U64(xp_mem_live_objects(S, NULL), 2);
	/* an event the kernel lacks is refused, not miscounted */
	start(XP_MEM_XE_VMA_FAULT, 1, 1, "x");
	CHECK(xp_mem_add(S, &L, &R) == -ENOENT);
}

static void rq(int ev, uint64_t ts, uint32_t pid, uint64_t cls, uint64_t ctx, uint64_t seqno)
{
	start(ev, ts, pid, pid == 3 ? "kworker/0:1" : "glxgears");
	PUT("dev", 0);
	PUT("ctx", ctx);
	PUT("class", cls);
	PUT("instance", 0);
	PUT("seqno", seqno);
	add();
}

static void test_i915_requests(void)
{
	char name[24];

	setup();
	/* render: seqnos 1..3 added by pid 50 at 1000, 2000, 3000 ns; copy: one */
	for (int i = 0; i < 3; i++)
		rq(XP_MEM_I915_RQ_ADD, 1000 * (i + 1), 50, 0, 7, i + 1);
	rq(XP_MEM_I915_RQ_ADD, 5000, 50, 1, 8, 1);
	/* retired by a worker, out of order; one retire of a request from before tracing */
	rq(XP_MEM_I915_RQ_RETIRE, 9000, 3, 0, 7, 2);		/* 7000 ns */
	rq(XP_MEM_I915_RQ_RETIRE, 9500, 3, 0, 7, 1);		/* 8500 ns */
	rq(XP_MEM_I915_RQ_RETIRE, 9600, 3, 0, 7, 99);		/* never added while tracing */
	rq(XP_MEM_I915_RQ_RETIRE, 6000, 3, 1, 8, 1);		/* 1000 ns */
	/* a duplicate retire finds nothing to match */
	rq(XP_MEM_I915_RQ_RETIRE, 9700, 3, 1, 8, 1);
	CHECK_U64(S->i915_requests, 4);
	CHECK_U64(S->i915_retires, 5);
	CHECK_U64(S->i915_retire_unseen, 2);
	CHECK(S->nengines == 2);
	CHECK_STR(xp_i915_engine_name(&S->engines[0], name, sizeof(name)), "rcs0");
	CHECK_STR(xp_i915_engine_name(&S->engines[1], name, sizeof(name)), "bcs0");
	CHECK_U64(S->engines[0].added, 3);
	CHECK_U64(S->engines[0].retired, 3);
	CHECK_U64(S->engines[0].add_unseen, 1);
	CHECK_U64(S->engines[0].life.count, 2);
	CHECK_U64(S->engines[0].life.sum, 7000 + 8500);
	CHECK_U64(S->engines[0].life.max, 8500);
	CHECK_U64(S->engines[1].life.sum, 1000);
	CHECK_U64(xp_mem_pending_count(S, XP_PEND_I915_RQ, 0), 1);	/* seqno 3 still in flight */
	CHECK_U64(xp_mem_pending_count(S, XP_PEND_I915_RQ, 1), 0);
	CHECK_U64(S->procs[0].i915_requests, 4);
	CHECK(S->nprocs == 1);	/* the retiring worker is no process of the requests */
	/* waits: pid 50 and pid 60 wait on the same request; each end pairs with its own begin */
	rq(XP_MEM_I915_RQ_WAIT_BEGIN, 10000, 50, 0, 7, 3);
	rq(XP_MEM_I915_RQ_WAIT_BEGIN, 10500, 60, 0, 7, 3);
	rq(XP_MEM_I915_RQ_WAIT_END, 11000, 60, 0, 7, 3);	/* 500 ns */
	rq(XP_MEM_I915_RQ_WAIT_END, 14000, 50, 0, 7, 3);	/* 4000 ns */
	rq(XP_MEM_I915_RQ_WAIT_END, 15000, 50, 0, 7, 3);	/* no begin left */
	CHECK_U64(S->i915_waits, 2);
	CHECK_U64(S->i915_wait_unseen, 1);
	CHECK_U64(S->i915_wait.sum, 4500);
	CHECK_U64(S->procs[0].i915_waits, 1);
	CHECK_U64(S->procs[0].i915_wait_ns, 4000);
	CHECK_U64(S->procs[1].pid, 60);
	CHECK_U64(S->procs[1].i915_wait_ns, 500);
	/* a new interval: counts to zero, engines and the request in flight kept */
	xp_mem_reset(S);
	CHECK_U64(S->engines[0].added, 0);
	CHECK(S->nengines == 2);
	rq(XP_MEM_I915_RQ_RETIRE, 20000, 3, 0, 7, 3);
	CHECK_U64(S->engines[0].life.sum, 17000);
	CHECK_U64(S->i915_retire_unseen, 0);
	/* an engine class newer than the name table keeps its number */
	struct xp_mem_engine e = { .class = 9, .instance = 2 };
	CHECK_STR(xp_i915_engine_name(&e, name, sizeof(name)), "class9:2");
}

static void test_xe(void)
{
	setup();
	/* queues: 2 render, 1 copy, 1 of a class newer than this table */
	uint64_t cls[] = { 0, 0, 3, 9 };
	for (int i = 0; i < 4; i++) {
		start(XP_MEM_XE_QUEUE_CREATE, 10 + i, 40, "vkcube");
		PUT("class", cls[i]);
		add();
	}
	CHECK_U64(S->xe_queues, 4);
	CHECK_U64(S->xe_queues_by_class[0], 2);
	CHECK_U64(S->xe_queues_by_class[3], 1);
	CHECK_U64(S->xe_queues_by_class[XP_XE_CLASSES - 1], 1);
	CHECK_STR(xp_xe_class_name(3), "copy");
	CHECK_U64(S->procs[0].xe_queues, 4);
	/* BOs: two of 1 MiB; moves: 3 vram0 -> system, 1 first placement in gtt */
	for (int i = 0; i < 2; i++) {
		start(XP_MEM_XE_BO_CREATE, 20 + i, 40, "vkcube");
		PUT("size", 1 << 20);
		add();
	}
	struct { const char *from, *to; uint64_t size, fresh; } mv[] = {
		{ "vram0", "system", 4096, 0 }, { "vram0", "system", 8192, 0 },
		{ "system", "gtt", 65536, 1 }, { "vram0", "system", 4096, 0 },
	};
	for (int i = 0; i < 4; i++) {
		start(XP_MEM_XE_BO_MOVE, 30 + i, 7, "kworker/1:1");
		PUT("bo", 0xb0 + i);
		PUT("size", mv[i].size);
		PUT("move_lacks_source", mv[i].fresh);
		rec_str(&R, 0, mv[i].to);	/* new_placement_name */
		rec_str(&R, 1, mv[i].from);	/* old_placement_name */
		add();
	}
	CHECK_U64(S->xe_bos, 2);
	CHECK_U64(S->xe_bo_bytes, 2 << 20);
	CHECK_U64(S->procs[0].xe_bo_bytes, 2 << 20);
	CHECK_U64(S->xe_moves, 4);
	CHECK_U64(S->xe_move_bytes, 4096 + 8192 + 65536 + 4096);
	CHECK_U64(S->xe_moves_new, 1);
	CHECK_U64(S->xe_move_new_bytes, 65536);
	CHECK(S->nxe_moves == 2);
	CHECK_STR(S->xe_move[0].from, "vram0");
	CHECK_STR(S->xe_move[0].to, "system");
	CHECK_U64(S->xe_move[0].count, 3);
	CHECK_U64(S->xe_move[0].bytes, 4096 + 8192 + 4096);
	CHECK_STR(S->xe_move[1].to, "gtt");
	CHECK_U64(S->xe_move[1].count, 1);
	CHECK(S->nprocs == 1);	/* moves name no process */
}

/* R into serve's metrics, with the cgroup id the kernel side wrote (0: none) */
static void madd(struct xp_mem_metrics *mm, uint64_t cg)
{
	memcpy(&R.raw[XP_RAWTP_CGROUP_AT], &cg, sizeof(cg));
	CHECK(xp_mem_metrics_feed(mm, &L, &R) == 0);
}

/* serve's mem metrics: buffers and bytes created per cgroup and driver, bytes moved per driver */
static void test_metrics(void)
{
	struct xp_metrics m;
	struct xp_metrics_in in = { .m = &m, .cgroup_labels = cg_labels };
	struct xp_mem_metrics *mm = calloc(1, sizeof(*mm));
	char *out;
	int before = unit_failed_checks;

	setup();
	xp_metrics_init(&m, 0);
	CHECK(mm && xp_mem_metrics_init(mm, &in, 4096) == 0);
	/* amdgpu: 3 BOs of 256, 16, 8 pages, two by cgroup 5, one by 6; moves of 1 MiB and 64 KiB */
	for (int i = 0; i < 3; i++) {
		start(XP_MEM_AMD_BO_CREATE, 100 + i, 500, "game");
		PUT("bo", 0xffff0000 + i);
		PUT("pages", i == 0 ? 256 : i == 1 ? 16 : 8);
		PUT("type", 2);
		PUT("prefer", 4);
		PUT("allow", 6);
		madd(mm, i < 2 ? 5 : 6);
	}
	for (int i = 0; i < 2; i++) {
		start(XP_MEM_AMD_BO_MOVE, 200 + i, 77, "kworker/1:0");
		PUT("bo_size", i ? 65536 : 1 << 20);
		PUT("new_placement", 1);
		PUT("old_placement", 2);
		madd(mm, 1);
	}
	/* xe: one 1 MiB BO by cgroup 5; a move of 8 KiB and a first placement (no copy) of 64 KiB */
	start(XP_MEM_XE_BO_CREATE, 300, 500, "game");
	PUT("size", 1 << 20);
	madd(mm, 5);
	for (int i = 0; i < 2; i++) {
		start(XP_MEM_XE_BO_MOVE, 400 + i, 7, "kworker/1:1");
		PUT("bo", 0xb0 + i);
		PUT("size", i ? 65536 : 8192);
		PUT("move_lacks_source", i);
		rec_str(&R, 0, "system");
		rec_str(&R, 1, "vram0");
		madd(mm, 1);
	}
	/* a record of an event the layout lacks: not decodable, counted by the caller */
	start(XP_MEM_XE_JOB_RUN, 500, 7, "kworker/1:1");
	CHECK(xp_mem_metrics_feed(mm, &L, &R) == 1);
	out = served(&m);
	CHECK(strstr(out, "xputrace_gpu_buffers_created_total{cgroup=\"/cg5\",driver=\"amdgpu\"} 2\n") != NULL);
	CHECK(strstr(out, "xputrace_gpu_buffers_created_total{cgroup=\"/cg6\",driver=\"amdgpu\"} 1\n") != NULL);
	CHECK(strstr(out, "xputrace_gpu_buffer_created_bytes_total{cgroup=\"/cg5\",driver=\"amdgpu\"} 1114112\n") != NULL);
	CHECK(strstr(out, "xputrace_gpu_buffer_created_bytes_total{cgroup=\"/cg6\",driver=\"amdgpu\"} 32768\n") != NULL);
	CHECK(strstr(out, "xputrace_gpu_buffer_created_bytes_total{cgroup=\"/cg5\",driver=\"xe\"} 1048576\n") != NULL);
	CHECK(strstr(out, "xputrace_gpu_buffer_moved_bytes_total{driver=\"amdgpu\"} 1114112\n") != NULL);
	CHECK(strstr(out, "xputrace_gpu_buffer_moved_bytes_total{driver=\"xe\"} 8192\n") != NULL);
	CHECK(strstr(out, "cgroup=\"/cg1\"") == NULL);	/* moves are nobody's */
	if (unit_failed_checks != before)
		fputs(out, stderr);	/* what was served, to compare */
	free(out);
	xp_mem_metrics_free(mm);
	free(mm);
	xp_metrics_free(&m);
}

/* Every pending entry counted in its hash bucket, no more. */
static bool pend_hash_consistent(void)
{
	uint64_t sum = 0;

	for (int i = 0; i < XP_MEM_PEND_HASH; i++)
		sum += S->pend_hash[i];
	return sum == (uint64_t)S->npending;
}

/*
 * The starts waiting for their end, with thousands left unmatched before the
 * ones that end (their ends lost): the oldest of equal keys first, the process
 * when asked, the oldest dropped and counted when full, kept by a reset.
 */
static void test_pending(void)
{
	struct xp_mem_pending q;

	setup();
	for (uint64_t i = 1; i <= 3000; i++)
		xp_mem_pending_push(S, XP_PEND_I915_RQ, 1, i, i, 0, 0);
	xp_mem_pending_push(S, XP_PEND_I915_RQ, 9, 5, 100000, 2, 0);
	xp_mem_pending_push(S, XP_PEND_I915_RQ, 9, 5, 200000, 3, 0);
	xp_mem_pending_push(S, XP_PEND_I915_WAIT, 7, 7, 300000, -1, 3);
	CHECK(!xp_mem_pending_take(S, XP_PEND_I915_RQ, 9, 6, -1, &q));	/* never started */
	CHECK(!xp_mem_pending_take(S, XP_PEND_I915_WAIT, 9, 5, -1, &q));	/* another kind */
	CHECK(xp_mem_pending_take(S, XP_PEND_I915_RQ, 9, 5, -1, &q));
	CHECK_U64(q.ts, 100000);
	CHECK_U64(q.ring, 2);
	CHECK(xp_mem_pending_take(S, XP_PEND_I915_RQ, 9, 5, -1, &q));
	CHECK_U64(q.ts, 200000);
	CHECK(!xp_mem_pending_take(S, XP_PEND_I915_RQ, 9, 5, -1, &q));
	CHECK(!xp_mem_pending_take(S, XP_PEND_I915_WAIT, 7, 7, 4, &q));	/* another process's wait */
	CHECK(xp_mem_pending_take(S, XP_PEND_I915_WAIT, 7, 7, 3, &q));
	CHECK_U64(q.ts, 300000);
	CHECK_U64(S->npending, 3000);
	CHECK(pend_hash_consistent());
	/* full: the oldest go, counted */
	for (uint64_t i = 3001; i <= XP_MEM_MAX_PENDING + 10; i++)
		xp_mem_pending_push(S, XP_PEND_I915_RQ, 1, i, i, 0, 0);
	CHECK_U64(S->npending, XP_MEM_MAX_PENDING);
	CHECK_U64(S->overflow, 10);
	CHECK(!xp_mem_pending_take(S, XP_PEND_I915_RQ, 1, 10, -1, &q));
	CHECK(xp_mem_pending_take(S, XP_PEND_I915_RQ, 1, 11, -1, &q));
	CHECK_U64(q.ts, 11);
	xp_mem_reset(S);
	CHECK(xp_mem_pending_take(S, XP_PEND_I915_RQ, 1, XP_MEM_MAX_PENDING + 10, -1, &q));
	CHECK(xp_mem_pending_take(S, XP_PEND_I915_RQ, 1, 12, -1, &q));
	CHECK_U64(S->npending, XP_MEM_MAX_PENDING - 3);
	CHECK(pend_hash_consistent());
}

int main(void)
{
	RUN(test_amdgpu);
	RUN(test_i915);
	RUN(test_i915_requests);
	RUN(test_xe);
	RUN(test_metrics);
	RUN(test_pending);
	xp_mem_free(S);
	free(S);
	UNIT_EXIT();
}
