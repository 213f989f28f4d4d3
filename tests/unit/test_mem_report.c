/* xputrace mem's output: every section says whether it is per process, events
 * the kernel lacks are noted, figures and stream lines come out exact. */
#include <stdlib.h>
#include "unit.h"
#include "rawtp_util.h"
#include "mem_formats.h"
#include "caps/mem/mem_stats.h"
#include "caps/mem/mem_report.h"

static struct xp_rawtp_layout L;
static struct xp_mem_state S;
static struct xp_rawtp_rec R;
static char *out;
static size_t outlen;

#define PUT(n, v) CHECK(!rec_put(&L, &R, n, v))

static void setup(void)
{
	xp_rawtp_layout_init(&L, xp_mem_events, XP_MEM_NEV);
	/* amdgpu read from a test module's group; i915 create only; no xe */
	CHECK_U64(xp_rawtp_set_group(&L, "amdgpu", "xpmem_amdgpu"), 5);
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_AMD_BO_CREATE, fmt_bo_create));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_AMD_BO_MOVE, fmt_bo_move));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_AMD_CS_IOCTL, fmt_cs_61));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_I915_CREATE, fmt_i915_create));
	CHECK(!xp_mem_init(&S, 4096));
	rec_init(&L, &R, XP_REC_MEM, XP_MEM_AMD_BO_CREATE, 1000, 42, "game");
	PUT("pages", 512);
	PUT("type", 1);		/* GTT */
	PUT("prefer", 4);	/* VRAM */
	CHECK(!xp_mem_add(&S, &L, &R));
	rec_init(&L, &R, XP_REC_MEM, XP_MEM_AMD_BO_MOVE, 2000, 7, "kworker/0:1");
	PUT("bo_size", 1 << 20);
	PUT("new_placement", 1);
	PUT("old_placement", 2);
	CHECK(!xp_mem_add(&S, &L, &R));
	rec_init(&L, &R, XP_REC_MEM, XP_MEM_I915_CREATE, 3000, 42, "game");
	PUT("obj", 0xffff888000001000ULL);
	PUT("size", 65536);
	CHECK(!xp_mem_add(&S, &L, &R));
}

static void render(bool json)
{
	struct xp_run_info ri = { .command = "mem", .source = "live", .mode = "summary", .duration_s = 2 };
	struct xp_tp_report rep = { .st = &S, .layout = &L, .ri = &ri, .hist = true };
	FILE *f;

	free(out);
	f = open_memstream(&out, &outlen);
	if (json)
		xp_mem_report_json(f, &rep);
	else
		xp_mem_report_text(f, &rep);
	fclose(f);
}

static void test_text(void)
{
	setup();
	render(false);
	CHECK(strstr(out, "amdgpu 3/5 read from group xpmem_amdgpu"));
	CHECK(strstr(out, "note: no xe events on this kernel"));
	CHECK(strstr(out, "note: this kernel has no xpmem_amdgpu/amdgpu_iv event: skipped"));
	CHECK(strstr(out, "amdgpu buffer objects created [per process]"));
	CHECK(strstr(out, "amdgpu buffer moves (migration traffic) [per device, not per process]"));
	CHECK(strstr(out, "VRAM requested, placed in GTT: 1 BOs, 2.0 MiB"));
	CHECK(strstr(out, "1 moves, 1.0 MiB, 512.0 KiB/s"));
	CHECK(strstr(out, "i915 GEM objects [per process]"));
	CHECK(strstr(out, "42/game"));
	CHECK(!strstr(out, "kworker"));		/* a move names no process */
	CHECK(!strstr(out, "\nxe "));			/* no section for an absent driver */
	CHECK(!strstr(out, "i915 faults"));		/* nor for an absent event */
	xp_mem_free(&S);
}

static void test_json(void)
{
	setup();
	render(true);
	CHECK(strstr(out, "\"amdgpu\":{\"group\":\"xpmem_amdgpu\",\"events\":5,\"events_present\":3,"));
	CHECK(strstr(out, "\"bo_create\":{\"per_process\":true,"));
	CHECK(strstr(out, "\"bo_move\":{\"per_process\":false,"));
	CHECK(strstr(out, "\"per_process_figures\":\"submits"));
	CHECK(strstr(out, "\"vram_in_gtt_bytes\":2097152"));
	CHECK(strstr(out, "\"bytes_per_s\":524288"));
	CHECK(strstr(out, "\"xe\":{\"group\":\"xe\",\"events\":7,\"events_present\":0}"));
	CHECK(strstr(out, "\"processes\":[{\"pid\":42,\"comm\":\"game\",\"amdgpu_bos\":1,"));
	CHECK(strstr(out, "\"i915_live_bytes\":65536"));
	CHECK(out[outlen - 1] == '\n');
	xp_mem_free(&S);
}

/* i915 requests: add and retire present, waits absent */
static void test_requests(void)
{
	int ev[] = { XP_MEM_I915_RQ_ADD, XP_MEM_I915_RQ_ADD, XP_MEM_I915_RQ_RETIRE };
	uint64_t ts[] = { 1000000, 2000000, 4000000 };

	setup();
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_I915_RQ_ADD, fmt_rq_add));
	CHECK(!xp_rawtp_layout_parse(&L, XP_MEM_I915_RQ_RETIRE, fmt_rq_retire));
	for (int i = 0; i < 3; i++) {
		rec_init(&L, &R, XP_REC_MEM, ev[i], ts[i], ev[i] == XP_MEM_I915_RQ_ADD ? 42 : 9,
			 ev[i] == XP_MEM_I915_RQ_ADD ? "game" : "kworker/0:1");
		PUT("ctx", 5);
		PUT("class", 2);
		PUT("instance", 1);
		PUT("seqno", i ? 1 : 2);	/* seqno 1 retired after 2 ms, 2 in flight */
		CHECK(!xp_mem_add(&S, &L, &R));
	}
	render(false);
	CHECK(strstr(out, "i915 requests: add -> retire [adds and waits per process, retires per engine]"));
	CHECK(strstr(out, "added 2, retired 1 (0 added before tracing or filtered out), in flight 1"));
	CHECK(strstr(out, "    0 vcs1            2        1        0         1  "));
	CHECK(strstr(out, "engine 0 vcs1 add -> retire:"));
	CHECK(!strstr(out, "waits on requests"));	/* no wait events on this layout */
	render(true);
	CHECK(strstr(out, "\"requests\":{\"per_process\":false,"));
	CHECK(strstr(out, "\"engines\":[{\"dev\":0,\"engine\":\"vcs1\",\"class\":2,\"instance\":1,"
			  "\"added\":2,\"retired\":1,\"add_unseen\":0,\"in_flight\":1,"
			  "\"add_to_retire_ns\":{\"count\":1,\"sum\":2000000,"));
	CHECK(strstr(out, "\"i915_requests\":2,"));
	xp_mem_free(&S);
}

static void test_stream(void)
{
	struct xp_json j;
	FILE *f;

	setup();
	rec_init(&L, &R, XP_REC_MEM, XP_MEM_AMD_CS_IOCTL, 1500000, 42, "game");
	PUT("context", 77);
	PUT("seqno", 9);
	rec_str(&R, 0, "gfx_0.0.0");
	free(out);
	f = open_memstream(&out, &outlen);
	xp_mem_stream_text(f, &L, &R, 500000);
	rec_init(&L, &R, XP_REC_MEM, XP_MEM_AMD_BO_MOVE, 2500000, 7, "kworker/0:1");
	PUT("bo_size", 4096);
	xp_mem_stream_text(f, &L, &R, 500000);
	xp_json_init(&j, f, false);
	xp_mem_stream_json(&j, &L, &R, 500000);
	fclose(f);
	CHECK(strstr(out, "    0.001000 42/game"));
	CHECK(strstr(out, "amdgpu_cs_ioctl"));
	CHECK(strstr(out, " context=77 seqno=9 fence=0x0 ring=gfx_0.0.0 num_ibs=0\n"));
	CHECK(strstr(out, "    0.002000 -                        amdgpu_bo_move"));
	CHECK(strstr(out, "{\"t_ns\":2000000,\"event\":\"amdgpu_bo_move\",\"group\":\"xpmem_amdgpu\","
			  "\"pid\":null,\"fields\":{\"bo\":0,\"bo_size\":4096,"));
	xp_mem_free(&S);
}

/* An event stamped before the session's start: a negative time, never clamped or wrapped. */
static void test_stream_before_start(void)
{
	struct xp_json j;
	FILE *f;

	setup();
	rec_init(&L, &R, XP_REC_MEM, XP_MEM_AMD_BO_MOVE, 500000, 7, "kworker/0:1");
	PUT("bo_size", 4096);
	free(out);
	f = open_memstream(&out, &outlen);
	xp_mem_stream_text(f, &L, &R, 2500000);
	xp_json_init(&j, f, false);
	xp_mem_stream_json(&j, &L, &R, 2500000);
	fclose(f);
	CHECK(!strncmp(out, "   -0.002000 -", 14));
	CHECK(strstr(out, "{\"t_ns\":-2000000,\"event\":\"amdgpu_bo_move\"") != NULL);
	xp_mem_free(&S);
}

int main(void)
{
	RUN(test_text);
	RUN(test_json);
	RUN(test_requests);
	RUN(test_stream);
	RUN(test_stream_before_start);
	free(out);
	UNIT_EXIT();
}
