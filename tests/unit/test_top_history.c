/* `top`'s history strips (sinks/top_history.c): what each refresh adds. */
#include <stdio.h>
#include <string.h>

#include "sinks/top_tui_draw.h"
#include "unit.h"

/* A refresh of one column `name`, a row per key with its value. */
static void refresh(struct xp_top_tui *t, const char *name, const char *const *keys, const double *v, int n,
		    double events)
{
	static struct xp_top_row rows[4];

	memset(&t->cur, 0, sizeof(t->cur));
	t->cur.ncol = 1;
	snprintf(t->cur.name[0], sizeof(t->cur.name[0]), "%s", name);
	for (int i = 0; i < n; i++) {
		memset(&rows[i], 0, sizeof(rows[i]));
		snprintf(rows[i].key, sizeof(rows[i].key), "%s", keys[i]);
		rows[i].v[0] = v[i];
	}
	t->cur.rows = rows;
	t->cur.nrows = n;
	xp_top_tui_history(t, events);
}

/* A ring's busy share rising, then falling: its strip follows, the newest last, 60 kept. */
static void test_ring_busy(void)
{
	static struct xp_top_tui t;
	const char *keys[2] = { "-\x1fmock-ring0\x1f-", "-\x1fmock-ring1\x1f-" };

	for (int i = 0; i < 80; i++) {
		double v[2] = { i < 40 ? i * 2.5 : (80 - i) * 2.5, 10 };

		/* ring1 is idle (no row) in the first ten refreshes */
		refresh(&t, "gpu_ring_busy_seconds", keys, v, i < 10 ? 1 : 2, 1000);
	}
	CHECK_U64(t.nstrip, 2);
	CHECK_STR(t.strip[0].label, "mock-ring0");
	CHECK(t.strip[0].pct);
	CHECK_U64(t.strip[0].n, XP_TOP_HISTORY);
	/* the last 60 of 80: refreshes 20..79, the peak (100 %) at refresh 40 */
	CHECK(t.strip[0].v[0] == 50);
	CHECK(t.strip[0].v[20] == 100);
	CHECK(t.strip[0].v[59] == 2.5);
	for (int i = 1; i < 60; i++)
		CHECK(i <= 20 ? t.strip[0].v[i] > t.strip[0].v[i - 1] : t.strip[0].v[i] < t.strip[0].v[i - 1]);
	CHECK_STR(t.strip[1].label, "mock-ring1");
	CHECK(t.strip[1].v[59] == 10);
	/* a refresh where the ring did nothing: 0, not the last value */
	refresh(&t, "gpu_ring_busy_seconds", keys, (double[]){ 0, 0 }, 0, 1000);
	CHECK(t.strip[0].v[59] == 0);
}

/* No ring's time: the processes' busy time added up; no GPU time at all: the events per second. */
static void test_fallbacks(void)
{
	static struct xp_top_tui t, u;
	const char *keys[2] = { "10\x1f" "a\x1f/x", "11\x1f" "b\x1f/y" };

	refresh(&t, "gpu_busy_seconds", keys, (double[]){ 30, 12.5 }, 2, 5);
	CHECK_U64(t.nstrip, 1);
	CHECK_STR(t.strip[0].label, "GPU busy");
	CHECK(t.strip[0].v[0] == 42.5);
	refresh(&u, "ioctls", keys, (double[]){ 30, 12.5 }, 2, 321);
	refresh(&u, "ioctls", keys, (double[]){ 30, 12.5 }, 2, 123);
	CHECK_U64(u.nstrip, 1);
	CHECK_STR(u.strip[0].label, "events");
	CHECK(!u.strip[0].pct);
	CHECK_U64(u.strip[0].n, 2);
	CHECK(u.strip[0].v[0] == 321 && u.strip[0].v[1] == 123);
}

/* top --sources: the processes' busy time of the first (best) source, not the difference */
static void test_sources(void)
{
	static struct xp_top_tui t;
	static struct xp_top_row row;
	const char *names[3] = { "gpu_busy_seconds:drm_sched", "gpu_busy_seconds:fdinfo",
				 "gpu_busy_seconds:fdinfo-drm_sched" };

	t.cur.ncol = 3;
	for (int c = 0; c < 3; c++)
		snprintf(t.cur.name[c], sizeof(t.cur.name[c]), "%s", names[c]);
	snprintf(row.key, sizeof(row.key), "10\x1f" "a\x1f/x");
	row.v[0] = 40, row.v[1] = 41, row.v[2] = 1;
	t.cur.rows = &row;
	t.cur.nrows = 1;
	xp_top_tui_history(&t, 5);
	CHECK_U64(t.nstrip, 1);
	CHECK_STR(t.strip[0].label, "GPU busy");
	CHECK(t.strip[0].v[0] == 40);
}

int main(void)
{
	RUN(test_ring_busy);
	RUN(test_fallbacks);
	RUN(test_sources);
	UNIT_EXIT();
}
