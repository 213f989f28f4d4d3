/* The metrics store and its Prometheus / OpenMetrics writers (sinks/metrics). */
#include <stdlib.h>
#include <string.h>

#include "sinks/metrics.h"
#include "sinks/top.h"
#include "unit.h"

/* What the writer writes, as one string (free it). */
static char *written(const struct xp_metrics *m, bool om)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	xp_metrics_write(f, m, om);
	fclose(f);
	return buf;
}

static void label_fn(void *ctx, char *buf, size_t len)
{
	const char *const *kv = ctx;

	for (int i = 0; kv[i]; i += 2)
		xp_labels_add(buf, len, kv[i], kv[i + 1]);
}

static void test_escaping(void)
{
	char buf[128] = "";

	xp_labels_add(buf, sizeof(buf), "a", "x");
	xp_labels_add(buf, sizeof(buf), "b", "back\\slash \"quoted\"\nline");
	CHECK_STR(buf, "a=\"x\",b=\"back\\\\slash \\\"quoted\\\"\\nline\"");
	/* control bytes and invalid UTF-8 become '?', valid UTF-8 stays */
	buf[0] = '\0';
	xp_labels_add(buf, sizeof(buf), "c", "t\tab\xff\xc3\xa9");
	CHECK_STR(buf, "c=\"t?ab?\xc3\xa9\"");
	/* a label that does not fit is left out whole, never half written */
	char small[12] = "";
	xp_labels_add(small, sizeof(small), "a", "1");
	xp_labels_add(small, sizeof(small), "bb", "long value");
	CHECK_STR(small, "a=\"1\"");
}

static void test_prometheus_text(void)
{
	struct xp_metrics m;
	const char *kv1[] = { "cgroup", "/a\"b", "name", "X", NULL };
	const char *kv2[] = { "cgroup", "/c", "name", "Y", NULL };
	int calls, secs, gauge;
	struct xp_series *s;
	char *out;

	xp_metrics_init(&m, 0);
	calls = xp_metrics_family(&m, "xp_calls", "Calls\\done\nhere", NULL, XP_METRIC_COUNTER, 1, true);
	secs = xp_metrics_family(&m, "xp_time_seconds", "Time", "seconds", XP_METRIC_COUNTER, 1e-9, true);
	gauge = xp_metrics_family(&m, "xp_series", "Series", NULL, XP_METRIC_GAUGE, 1, false);
	s = xp_metrics_series(&m, calls, &(struct xp_metric_key){ { 1 } }, label_fn, kv1);
	s->value += 3;
	/* the same key: the same series, labels not rendered again */
	CHECK(xp_metrics_series(&m, calls, &(struct xp_metric_key){ { 1 } }, NULL, NULL) == s);
	s->value++;
	xp_metrics_series(&m, calls, &(struct xp_metric_key){ { 2 } }, label_fn, kv2)->value = 7;
	xp_metrics_series(&m, secs, &(struct xp_metric_key){ { 1 } }, label_fn, kv1)->value = 1500000000;
	xp_metrics_series(&m, gauge, &(struct xp_metric_key){ { 0 } }, label_fn, (const char *[]){ NULL })->value = 2;
	out = written(&m, false);
	CHECK_STR(out,
		  "# HELP xp_calls_total Calls\\\\done\\nhere\n"
		  "# TYPE xp_calls_total counter\n"
		  "xp_calls_total{cgroup=\"/a\\\"b\",name=\"X\"} 4\n"
		  "xp_calls_total{cgroup=\"/c\",name=\"Y\"} 7\n"
		  "# HELP xp_time_seconds_total Time\n"
		  "# TYPE xp_time_seconds_total counter\n"
		  "xp_time_seconds_total{cgroup=\"/a\\\"b\",name=\"X\"} 1.5\n"
		  "# HELP xp_series Series\n"
		  "# TYPE xp_series gauge\n"
		  "xp_series 2\n");
	free(out);
	out = written(&m, true);
	CHECK_STR(out,
		  "# TYPE xp_calls counter\n"
		  "# HELP xp_calls Calls\\\\done\\nhere\n"
		  "xp_calls_total{cgroup=\"/a\\\"b\",name=\"X\"} 4\n"
		  "xp_calls_total{cgroup=\"/c\",name=\"Y\"} 7\n"
		  "# TYPE xp_time_seconds counter\n"
		  "# UNIT xp_time_seconds seconds\n"
		  "# HELP xp_time_seconds Time\n"
		  "xp_time_seconds_total{cgroup=\"/a\\\"b\",name=\"X\"} 1.5\n"
		  "# TYPE xp_series gauge\n"
		  "# HELP xp_series Series\n"
		  "xp_series 2\n"
		  "# EOF\n");
	free(out);
	xp_metrics_free(&m);
}

static void test_histogram(void)
{
	static const uint64_t le[] = { 1000, 4000 };
	struct xp_metrics m;
	const char *kv[] = { "name", "X", NULL };
	struct xp_series *s;
	int h;
	char *out;

	xp_metrics_init(&m, 0);
	h = xp_metrics_histogram(&m, "xp_duration_seconds", "Durations", "seconds", le, 2, 1e-9, true);
	s = xp_metrics_series(&m, h, &(struct xp_metric_key){ { 1 } }, label_fn, kv);
	xp_series_observe(&m, s, 500);
	xp_series_observe(&m, s, 1000);		/* le is inclusive */
	xp_series_observe(&m, s, 3000);
	xp_series_observe(&m, s, 2000000000);	/* past the last bound: +Inf only */
	out = written(&m, false);
	CHECK_STR(out,
		  "# HELP xp_duration_seconds Durations\n"
		  "# TYPE xp_duration_seconds histogram\n"
		  "xp_duration_seconds_bucket{name=\"X\",le=\"1e-06\"} 2\n"
		  "xp_duration_seconds_bucket{name=\"X\",le=\"4e-06\"} 3\n"
		  "xp_duration_seconds_bucket{name=\"X\",le=\"+Inf\"} 4\n"
		  "xp_duration_seconds_sum{name=\"X\"} 2.0000045\n"
		  "xp_duration_seconds_count{name=\"X\"} 4\n");
	free(out);
	out = written(&m, true);
	CHECK(strstr(out, "# TYPE xp_duration_seconds histogram\n# UNIT xp_duration_seconds seconds\n") == out);
	CHECK(strstr(out, "\nxp_duration_seconds_count{name=\"X\"} 4\n# EOF\n") != NULL);
	free(out);
	xp_metrics_free(&m);
}

static void test_max_series_folds(void)
{
	struct xp_metrics m;
	const char *kv[] = { "k", "v", NULL };
	int f, own;
	char *out;

	xp_metrics_init(&m, 3);
	f = xp_metrics_family(&m, "xp_calls", "Calls", NULL, XP_METRIC_COUNTER, 1, true);
	own = xp_metrics_family(&m, "xp_own", "Own", NULL, XP_METRIC_COUNTER, 1, false);
	for (uint64_t i = 0; i < 10; i++)	/* 10 keys, 2 events each */
		for (int rep = 0; rep < 2; rep++)
			xp_metrics_series(&m, f, &(struct xp_metric_key){ { i } }, label_fn, kv)->value++;
	CHECK_U64(m.nbounded, 3);
	CHECK_U64(m.folded, 7);		/* each folded key counted once */
	/* xputrace's own series are not bounded */
	for (uint64_t i = 0; i < 5; i++)
		CHECK(xp_metrics_series(&m, own, &(struct xp_metric_key){ { i } }, label_fn, kv) != NULL);
	CHECK_U64(m.nbounded, 3);
	out = written(&m, false);
	CHECK(strstr(out, "xp_calls_total{other=\"true\"} 14\n") != NULL);
	free(out);
	xp_metrics_free(&m);
}

static void test_accept(void)
{
	CHECK(!xp_metrics_wants_openmetrics(NULL));
	CHECK(!xp_metrics_wants_openmetrics("*/*"));
	CHECK(!xp_metrics_wants_openmetrics("text/plain;version=0.0.4"));
	CHECK(xp_metrics_wants_openmetrics("application/openmetrics-text"));
	/* what Prometheus 2.x sends */
	CHECK(xp_metrics_wants_openmetrics("application/openmetrics-text;version=1.0.0,application/"
					   "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
					   "q=0.5,*/*;q=0.1"));
	CHECK(!xp_metrics_wants_openmetrics("text/plain;q=0.9, application/openmetrics-text;q=0.5"));
	CHECK(!xp_metrics_wants_openmetrics("application/openmetrics-text;q=0"));
}

static void test_labels_get(void)
{
	char buf[64];
	const char *l = "cgroup=\"/a\\\"b\",pid=\"12\",comm=\"x\\ny\"";

	CHECK_STR(xp_labels_get(l, "cgroup", buf, sizeof(buf)), "/a\"b");
	CHECK_STR(xp_labels_get(l, "pid", buf, sizeof(buf)), "12");
	CHECK_STR(xp_labels_get(l, "comm", buf, sizeof(buf)), "x\ny");
	CHECK(xp_labels_get(l, "name", buf, sizeof(buf)) == NULL);
	CHECK(xp_labels_get("", "pid", buf, sizeof(buf)) == NULL);
}

/* top's table: rows per process from the series' changes, rates over dt, sorted */
static void test_top_table(void)
{
	struct xp_metrics m;
	const char *p1a[] = { "cgroup", "/g", "pid", "1", "comm", "one", "name", "A", NULL };
	const char *p1b[] = { "cgroup", "/g", "pid", "1", "comm", "one", "name", "B", NULL };
	const char *p2[] = { "cgroup", "/h", "pid", "2", "comm", "two", "name", "A", NULL };
	struct xp_top_opts o = { 0 };
	int calls, secs;
	char *out = NULL;
	size_t len;
	FILE *f;

	xp_metrics_init(&m, 0);
	calls = xp_metrics_family(&m, "xputrace_ioctls", "c", NULL, XP_METRIC_COUNTER, 1, true);
	static const uint64_t le[] = { 1000 };

	secs = xp_metrics_histogram(&m, "xputrace_ioctl_seconds", "s", "seconds", le, 1, 1e-9, true);
	xp_metrics_family(&m, "xputrace_events", "e", NULL, XP_METRIC_COUNTER, 1, false);	/* not a column */
	xp_metrics_series(&m, calls, &(struct xp_metric_key){ { 1 } }, label_fn, p1a)->value = 10;
	xp_metrics_series(&m, calls, &(struct xp_metric_key){ { 2 } }, label_fn, p1b)->value = 6;
	xp_metrics_series(&m, calls, &(struct xp_metric_key){ { 3 } }, label_fn, p2)->value = 40;
	xp_series_observe(&m, xp_metrics_series(&m, secs, &(struct xp_metric_key){ { 1 } }, label_fn, p1a), 500000000);
	CHECK(xp_top_sort_known(&m, "ioctls") && xp_top_sort_known(&m, "comm"));
	CHECK(!xp_top_sort_known(&m, "events") && !xp_top_sort_known(&m, "nosuch"));
	f = open_memstream(&out, &len);
	CHECK(xp_top_write(f, &m, 2.0, &o) == 2);
	fclose(f);
	CHECK_STR(out,
		  "PID      COMM                   ioctls/s ioctl_seconds%  CGROUP\n"
		  "2        two                        20.0            0.0  /h\n"
		  "1        one                         8.0           25.0  /g\n");
	free(out);
	/* only what changed since: process 1 alone, sorted by comm */
	xp_metrics_series(&m, calls, &(struct xp_metric_key){ { 1 } }, NULL, NULL)->value += 3;
	o.sort = "comm";
	f = open_memstream(&out, &len);
	CHECK(xp_top_write(f, &m, 1.0, &o) == 1);
	fclose(f);
	CHECK(strstr(out, "\n1        one                         3.0            0.0  /g\n") != NULL);
	free(out);
	/* an interval in which nothing changed: no rows (and nothing sorted: check-asan's UBSan) */
	f = open_memstream(&out, &len);
	CHECK(xp_top_write(f, &m, 1.0, &o) == 0);
	fclose(f);
	CHECK(strncmp(out, "PID ", 4) == 0 && strchr(out, '\n') == out + strlen(out) - 1);
	free(out);
	xp_metrics_free(&m);
}

/* top's rows of no process: a ring's series name their row; a family with no series is no column */
static void test_top_rings(void)
{
	struct xp_metrics m;
	const char *p1[] = { "cgroup", "/g", "pid", "1", "comm", "one", "ring", "gfx", NULL };
	const char *r1[] = { "ring", "gfx", NULL };
	const char *r2[] = { "ring", "sdma0", NULL };
	const char *v1[] = { "device", "card0", "crtc", "0", NULL };
	struct xp_top_opts o = { .sort = "pid" };
	int jobs, busy, vbl;
	char *out = NULL;
	size_t len;
	FILE *f;

	xp_metrics_init(&m, 0);
	jobs = xp_metrics_family(&m, "xputrace_gpu_jobs", "j", NULL, XP_METRIC_COUNTER, 1, true);
	busy = xp_metrics_family(&m, "xputrace_gpu_ring_busy_seconds", "b", "seconds", XP_METRIC_COUNTER, 1e-9, true);
	xp_metrics_family(&m, "xputrace_frames", "f", NULL, XP_METRIC_COUNTER, 1, true);	/* no series: no column */
	vbl = xp_metrics_family(&m, "xputrace_vblanks", "v", NULL, XP_METRIC_COUNTER, 1, true);
	xp_metrics_series(&m, jobs, &(struct xp_metric_key){ { 1 } }, label_fn, p1)->value = 30;
	xp_metrics_series(&m, busy, &(struct xp_metric_key){ { 1 } }, label_fn, r1)->value = 500000000;
	xp_metrics_series(&m, busy, &(struct xp_metric_key){ { 2 } }, label_fn, r2)->value = 100000000;
	xp_metrics_series(&m, vbl, &(struct xp_metric_key){ { 1 } }, label_fn, v1)->value = 60;
	CHECK(xp_top_sort_known(&m, "frames"));	/* known before its first series */
	f = open_memstream(&out, &len);
	CHECK(xp_top_write(f, &m, 1.0, &o) == 4);
	fclose(f);
	CHECK_STR(out,
		  "PID      COMM                 gpu_jobs/s gpu_ring_busy_seconds%      vblanks/s  CGROUP\n"
		  "-        card0 0                     0.0                    0.0           60.0  -\n"
		  "-        gfx                         0.0                   50.0            0.0  -\n"
		  "-        sdma0                       0.0                   10.0            0.0  -\n"
		  "1        one                        30.0                    0.0            0.0  /g\n");
	free(out);
	xp_metrics_free(&m);
}

int main(void)
{
	RUN(test_labels_get);
	RUN(test_top_table);
	RUN(test_top_rings);
	RUN(test_escaping);
	RUN(test_prometheus_text);
	RUN(test_histogram);
	RUN(test_max_series_folds);
	RUN(test_accept);
	UNIT_EXIT();
}
