/* The rows writer (sinks/rows.h): one table of columns renders the text
 * heading and lines, the JSON object and the stream line alike. */
#include <stdlib.h>
#include "unit.h"
#include "sinks/rows.h"

struct row {
	uint32_t pid;
	char comm[16];
	uint64_t calls;
	int32_t pending;
	uint16_t small;
	uint64_t mhz;
	bool on;
	struct xp_hist lat;
};

struct ctx {
	uint64_t total;
};

static void who(const void *row, const void *ctx, struct xp_val *v)
{
	const struct row *r = row;

	(void)ctx;
	snprintf(v->buf, sizeof(v->buf), "%u/%s", r->pid, r->comm);
	v->s = v->buf;
}

static void share(const void *row, const void *ctx, struct xp_val *v)
{
	const struct row *r = row;
	const struct ctx *c = ctx;

	v->none = !c->total;
	v->d = c->total ? (double)r->calls / (double)c->total : 0;
}

#define R(m) XP_FIELD(struct row, m)
static const struct xp_col cols[] = {
	{ XP_TEXT("PROCESS", -10, XP_COL_STR), .flags = XP_COL_CUT, .get = who },
	{ XP_JSON("pid", XP_COL_INT), R(pid) },
	{ XP_JSON("comm", XP_COL_STR), R(comm) },
	{ XP_BOTH("CALLS", 6, "calls", XP_COL_INT), R(calls) },
	{ XP_BOTH("PEND", 5, "pending", XP_COL_SINT), R(pending) },
	{ XP_BOTH("S", 2, "small", XP_COL_INT), R(small) },
	{ XP_BOTH("HZ", 8, "hz", XP_COL_MILLI), R(mhz) },
	{ XP_JSON("share", XP_COL_DOUBLE), .flags = XP_COL_OMIT, .get = share },
	{ XP_BOTH("ON", -3, "on", XP_COL_BOOL), R(on) },
	{ XP_TEXT("MEAN", 7, XP_COL_HIST), R(lat), .stat = XP_HIST_MEAN },
	{ XP_BOTH("p50/p90/p99", 0, "lat_ns", XP_COL_HIST), R(lat), .gap = 1 },
	{ XP_JSON("total", XP_COL_INT), XP_FIELD(struct ctx, total), .flags = XP_COL_IN_CTX },
};

static const struct xp_rows rows = { XP_ROWS(cols), .indent = "  " };

static char *render(void (*fn)(FILE *f, const struct row *r, const struct ctx *c), const struct row *r,
		    const struct ctx *c)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	fn(f, r, c);
	fclose(f);
	return out;
}

static void head(FILE *f, const struct row *r, const struct ctx *c)
{
	(void)r;
	xp_rows_head(f, &rows, c);
}

static void text(FILE *f, const struct row *r, const struct ctx *c)
{
	xp_rows_text(f, &rows, r, c);
}

static void json(FILE *f, const struct row *r, const struct ctx *c)
{
	struct xp_json j;

	xp_json_init(&j, f, false);
	xp_rows_stream(f, &j, &rows, r, c);
}

static void test_text_and_json(void)
{
	struct row r = { .pid = 42, .comm = "compositor", .calls = 3, .pending = -2, .small = 7,
			 .mhz = 59940, .on = true };
	struct ctx c = { .total = 12 };
	char *s;

	xp_hist_add(&r.lat, 1000);
	xp_hist_add(&r.lat, 3000);
	s = render(head, &r, &c);
	CHECK_STR(s, "  PROCESS     CALLS  PEND  S       HZ ON     MEAN  p50/p90/p99\n");
	free(s);
	s = render(text, &r, &c);
	CHECK_STR(s, "  42/composi      3    -2  7   59.940 yes   2.0us  992ns/2.9us/2.9us\n");
	free(s);
	s = render(json, &r, &c);
	CHECK(!strncmp(s, "{\"pid\":42,\"comm\":\"compositor\",\"calls\":3,\"pending\":-2,\"small\":7,"
			  "\"hz\":59.940,\"share\":0.25,\"on\":true,\"lat_ns\":{\"count\":2,", 100));
	CHECK(strstr(s, "},\"total\":12}\n") != NULL);
	free(s);
}

/* An empty histogram and a value that is none: "-" in text; null, or left out. */
static void test_none(void)
{
	struct row r = { .pid = 1, .comm = "a" };
	struct ctx c = { 0 };
	char *s;

	s = render(text, &r, &c);
	CHECK_STR(s, "  1/a             0     0  0    0.000 no        -  -\n");
	free(s);
	s = render(json, &r, &c);
	CHECK(strstr(s, "\"share\"") == NULL);
	CHECK(strstr(s, "\"lat_ns\":{\"count\":0,") != NULL);
	free(s);
}

static bool odd(const void *row)
{
	return ((const struct row *)row)->pid % 2;
}

static void test_array(void)
{
	struct row r[3] = { { .pid = 1 }, { .pid = 2 }, { .pid = 3 } };
	struct ctx c = { 0 };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct xp_json j;

	xp_json_init(&j, f, false);
	xp_json_begin_obj(&j);
	xp_rows_json_arr(&j, "rows", &rows, r, 3, sizeof(r[0]), &c, odd);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
	fclose(f);
	CHECK(!strncmp(out, "{\"rows\":[{\"pid\":1,", 18));
	CHECK(strstr(out, "{\"pid\":3,") != NULL);
	CHECK(strstr(out, "{\"pid\":2,") == NULL);
	free(out);
}

/* A histogram's texts, "-" where empty but for the p50/p99 forms; and counters embedded in a row. */
struct counts {
	uint64_t n;
	struct xp_hist h;
};

struct keyed {
	char name[8];
	struct counts c;
};

static const struct xp_col count_cols[] = {
	{ XP_BOTH("N", 3, "n", XP_COL_INT), XP_FIELD(struct counts, n) },
	{ XP_TEXT("P50/P99", -12, XP_COL_HIST), XP_FIELD(struct counts, h), .stat = XP_HIST_P50_P99 },
	{ XP_TEXT("MAX", 6, XP_COL_HIST), XP_FIELD(struct counts, h), .stat = XP_HIST_MAX },
	{ XP_TEXT("AVG/P99", 16, XP_COL_HIST), XP_FIELD(struct counts, h), .stat = XP_HIST_MEAN_P99 },
};
static const struct xp_rows count_rows = { XP_ROWS(count_cols) };
static const struct xp_col keyed_cols[] = {
	{ XP_BOTH("NAME", -5, "name", XP_COL_STR), XP_FIELD(struct keyed, name) },
};
static const struct xp_rows keyed_rows = { XP_ROWS(keyed_cols), .more = &count_rows,
					   .more_off = offsetof(struct keyed, c) };

static void test_hist_and_more(void)
{
	struct keyed k = { .name = "ring0", .c = { .n = 2 } };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct xp_json j;

	xp_rows_head(f, &keyed_rows, NULL);
	xp_rows_text(f, &keyed_rows, &k, NULL);
	xp_hist_add(&k.c.h, 2000);
	xp_rows_text(f, &keyed_rows, &k, NULL);
	xp_json_init(&j, f, false);
	xp_rows_stream(f, &j, &keyed_rows, &k, NULL);
	fclose(f);
	CHECK_STR(out, "NAME    N P50/P99         MAX          AVG/P99\n"
		       "ring0   2 -/-               -                -\n"
		       "ring0   2 2.0us/2.0us   2.0us    2.0us / 2.0us\n"
		       "{\"name\":\"ring0\",\"n\":2}\n");
	free(out);
}

int main(void)
{
	RUN(test_text_and_json);
	RUN(test_none);
	RUN(test_array);
	RUN(test_hist_and_more);
	UNIT_EXIT();
}
