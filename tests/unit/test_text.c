/*
 * Stream times never wrap (issue 11): ts - t0 through xp_rel_ns and
 * xp_put_rel_s, and the stream lines of sched and vblank for an event
 * stamped before the session's start (ioctl's is in test_json.c, mem's in
 * test_mem_report.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "caps/sched/sched_report.h"
#include "sinks/text.h"
#include "caps/vblank/vblank_report.h"
#include "unit.h"

static const char *rel_s(uint64_t ts, uint64_t t0)
{
	static char buf[40];

	*xp_put_rel_s(buf, ts, t0) = '\0';
	return buf;
}

static void test_rel_ns(void)
{
	CHECK(xp_rel_ns(1500, 1000) == 500);
	CHECK(xp_rel_ns(1000, 1000) == 0);
	CHECK(xp_rel_ns(1000, 1500) == -500);
	/* the far ends saturate instead of flipping sign */
	CHECK(xp_rel_ns(UINT64_MAX, 0) == INT64_MAX);
	CHECK(xp_rel_ns(0, UINT64_MAX) == INT64_MIN);
	CHECK(xp_rel_ns((uint64_t)INT64_MAX, 0) == INT64_MAX);
	CHECK(xp_rel_ns(0, (uint64_t)INT64_MAX) == -INT64_MAX);
}

static void test_rel_s(void)
{
	CHECK_STR(rel_s(1000000000ull + 2500000, 1000000000ull), "0.002500");
	CHECK_STR(rel_s(1000000000ull, 1002500000ull), "-0.002500");
	CHECK_STR(rel_s(5, 5), "0.000000");
	/* truncated toward zero at the microsecond, on both sides of t0 */
	CHECK_STR(rel_s(12000001999ull, 0), "12.000001");
	CHECK_STR(rel_s(0, 12000001999ull), "-12.000001");
	/* 300 ns before t0 is still before it */
	CHECK_STR(rel_s(700, 1000), "-0.000000");
	CHECK_STR(rel_s(UINT64_MAX, 0), "18446744073.709551");
	CHECK_STR(rel_s(0, UINT64_MAX), "-18446744073.709551");
}

#define MS 1000000ull

static char *out;
static size_t outlen;

/* A job done 1.5 ms before t0 (it completed between attach and the session's start). */
static void test_sched_stream_before_start(void)
{
	struct xp_sched_job_info j = {
		.gen = 2, .ring = "ring0", .pid = 40, .tid = 40, .comm = "game", .k1 = 1, .k2 = 2,
		.has_queue = true, .has_run = true, .q_ts = 1 * MS, .run_ts = 2 * MS, .done_ts = 3 * MS + MS / 2,
		.ndep = 1, .deps = 1,
		.dep = { { .ctx = 9, .seqno = 1, .signaled = true, .signal_ts = 2 * MS } },
	};
	struct xp_json js;
	FILE *f = open_memstream(&out, &outlen);

	xp_sched_stream_text(f, &j, 5 * MS);
	xp_json_init(&js, f, false);
	xp_sched_stream_json(&js, &j, 5 * MS);
	fclose(f);
	CHECK(!strncmp(out, "-0.001500    ring0 ", 19));
	CHECK(strstr(out, "{\"event\":\"job\",\"ts_ns\":-1500000,") != NULL);
	CHECK(strstr(out, "\"signaled_ns\":-3000000}") != NULL);
	CHECK(strstr(out, "18446744") == NULL);
	/* after t0: the same layout as ever */
	free(out);
	f = open_memstream(&out, &outlen);
	xp_sched_stream_text(f, &j, 1 * MS);
	fclose(f);
	CHECK(!strncmp(out, "0.002500     ring0 ", 19));
	free(out);
	out = NULL;
}

static void test_vblank_stream_before_start(void)
{
	struct xp_vbl_delivery d = { .ts = 1 * MS, .file = 3, .crtc = 0, .seq = 10, .req_seq = 10,
				     .pid = 7, .comm = "compositor", .queued = true, .latency_ns = 16 * MS };
	struct xp_json js;
	FILE *f = open_memstream(&out, &outlen);

	xp_vbl_stream_text(f, &d, 3 * MS);
	d.ts = 5 * MS;
	xp_vbl_stream_text(f, &d, 3 * MS);
	d.ts = 1 * MS;
	xp_json_init(&js, f, false);
	xp_vbl_stream_json(&js, &d, 3 * MS);
	fclose(f);
	/* right-aligned in 12 columns, as "%5u.%06u" was */
	CHECK(!strncmp(out, "   -0.002000 ", 13));
	CHECK(strstr(out, "\n    0.002000 ") != NULL);
	CHECK(strstr(out, "{\"t_ns\":-2000000,") != NULL);
	CHECK(strstr(out, "18446744") == NULL);
	free(out);
	out = NULL;
}

int main(void)
{
	RUN(test_rel_ns);
	RUN(test_rel_s);
	RUN(test_sched_stream_before_start);
	RUN(test_vblank_stream_before_start);
	UNIT_EXIT();
}
