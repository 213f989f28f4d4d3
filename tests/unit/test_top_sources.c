/*
 * `top --sources` (sinks/top.c): GPU busy time a column per source, the
 * first two's difference beside them; without it, a process's best source
 * alone, never two added.
 */
#include <string.h>

#include "sinks/metrics.h"
#include "sinks/top.h"
#include "unit.h"

static void labels(void *ctx, char *buf, size_t len)
{
	const char *const *kv = ctx;

	for (int i = 0; kv[i]; i += 2)
		xp_labels_add(buf, len, kv[i], kv[i + 1]);
}

/* Process 10 seen by drm_sched (0.4 s) and fdinfo (0.41 s), process 11 by fdinfo alone (0.2 s); 1 s. */
static void fill(struct xp_metrics *m)
{
	int busy = xp_metrics_family(m, "xputrace_gpu_busy_seconds", "Busy", "seconds", XP_METRIC_COUNTER, 1e-9, true);
	int calls = xp_metrics_family(m, "xputrace_ioctls", "Calls", NULL, XP_METRIC_COUNTER, 1, true);

	xp_metrics_series(m, busy, &(struct xp_metric_key){ { 1 } }, labels,
			  (const char *[]){ "pid", "10", "comm", "a", "cgroup", "/x", "source", "fdinfo", NULL })
		->value = 410000000;
	xp_metrics_series(m, busy, &(struct xp_metric_key){ { 2 } }, labels,
			  (const char *[]){ "pid", "10", "comm", "a", "cgroup", "/x", "source", "drm_sched", NULL })
		->value = 400000000;
	xp_metrics_series(m, busy, &(struct xp_metric_key){ { 3 } }, labels,
			  (const char *[]){ "pid", "11", "comm", "b", "cgroup", "/y", "source", "fdinfo", NULL })
		->value = 200000000;
	xp_metrics_series(m, calls, &(struct xp_metric_key){ { 1 } }, labels,
			  (const char *[]){ "pid", "10", "comm", "a", "cgroup", "/x", NULL })
		->value = 50;
}

static int col(const struct xp_top_frame *fr, const char *name)
{
	for (int c = 0; c < fr->ncol; c++)
		if (!strcmp(fr->name[c], name))
			return c;
	return -1;
}

static void test_side_by_side(void)
{
	struct xp_metrics m;
	struct xp_top_frame fr;
	int s, f, d, io;

	xp_metrics_init(&m, 0);
	fill(&m);
	CHECK_U64(xp_top_frame_make(&m, 1.0, true, &fr), 0);
	CHECK_U64(fr.ncol, 4);
	s = col(&fr, "gpu_busy_seconds:drm_sched");
	f = col(&fr, "gpu_busy_seconds:fdinfo");
	d = col(&fr, "gpu_busy_seconds:fdinfo-drm_sched");
	io = col(&fr, "ioctls");
	CHECK(s == 0 && f == 1 && d == 2 && io == 3);
	CHECK_STR(fr.head[d], "gpu_busy_seconds:fdinfo-drm_sched%");
	CHECK_U64(fr.nrows, 2);
	/* rows in key order: 10 then 11 */
	CHECK(fr.rows[0].v[s] > 39.99 && fr.rows[0].v[s] < 40.01);
	CHECK(fr.rows[0].v[f] > 40.99 && fr.rows[0].v[f] < 41.01);
	CHECK(fr.rows[0].v[d] > 0.99 && fr.rows[0].v[d] < 1.01);
	CHECK(fr.rows[0].v[io] == 50);
	CHECK(fr.rows[1].v[s] == 0 && fr.rows[1].v[f] > 19.99 && fr.rows[1].v[f] < 20.01);
	CHECK(fr.rows[1].v[d] > 19.99 && fr.rows[1].v[d] < 20.01);
	/* --sort gpu_busy_seconds: the first source's column */
	CHECK(xp_top_col_named(&fr, "gpu_busy_seconds") == s);
	CHECK(xp_top_col_named(&fr, "gpu_busy_seconds:fdinfo") == f);
	CHECK(xp_top_col_named(&fr, "gpu_busy") == -1);
	xp_top_frame_free(&fr);
	xp_metrics_free(&m);
}

static void test_best_source(void)
{
	struct xp_metrics m;
	struct xp_top_frame fr;

	xp_metrics_init(&m, 0);
	fill(&m);
	CHECK_U64(xp_top_frame_make(&m, 1.0, false, &fr), 0);
	CHECK_U64(fr.ncol, 2);
	CHECK_STR(fr.name[0], "gpu_busy_seconds");
	/* process 10: drm_sched's 40 %, not 81 % */
	CHECK(fr.rows[0].v[0] > 39.99 && fr.rows[0].v[0] < 40.01);
	CHECK(fr.rows[1].v[0] > 19.99 && fr.rows[1].v[0] < 20.01);
	xp_top_frame_free(&fr);
	xp_metrics_free(&m);
}

int main(void)
{
	RUN(test_side_by_side);
	RUN(test_best_source);
	UNIT_EXIT();
}
