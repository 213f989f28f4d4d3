/*
 * Tests for src/core/parse.c: command-line numbers are taken whole or
 * refused, and a refused one leaves the output alone.
 */
#include <errno.h>
#include <math.h>

#include "core/parse.h"

#include "unit.h"

static void accept_seconds(const char *s, double want)
{
	double v = -99;
	int rc = xp_parse_seconds(s, &v);

	if (rc != 0 || fabs(v - want) > 1e-12 * (want > 1 ? want : 1)) {
		unit_failed_checks++;
		fprintf(stderr, "%s:%d: xp_parse_seconds(\"%s\") == %d, %g; expected 0, %g\n",
			__FILE__, __LINE__, s, rc, v, want);
	}
}

static void reject_seconds(const char *s)
{
	double v = -99;
	int rc = xp_parse_seconds(s, &v);

	if (rc != -EINVAL || v != -99) {
		unit_failed_checks++;
		fprintf(stderr, "%s:%d: xp_parse_seconds(\"%s\") == %d, %g; expected -EINVAL, untouched\n",
			__FILE__, __LINE__, s ? s : "(null)", rc, v);
	}
}

static void test_seconds_accepted(void)
{
	accept_seconds("5", 5);
	accept_seconds("0.5", 0.5);
	accept_seconds("1e1", 10);
	accept_seconds("10", 10);
	accept_seconds("0.001", 0.001);
	accept_seconds(".25", 0.25);
	accept_seconds("3600", 3600);
	accept_seconds("1000000000", 1e9);
	accept_seconds("1e9", 1e9);
}

static void test_seconds_rejected(void)
{
	reject_seconds(NULL);
	reject_seconds("");
	reject_seconds(" 5");
	reject_seconds("\t5");
	reject_seconds("5 ");
	reject_seconds("5\n");
	reject_seconds("5s");
	reject_seconds("5ms");
	reject_seconds("1,5");
	reject_seconds("-1");
	reject_seconds("-0.5");
	reject_seconds("0");
	reject_seconds("0.0");
	reject_seconds("-0");
	reject_seconds("nan");
	reject_seconds("NaN");
	reject_seconds("inf");
	reject_seconds("infinity");
	reject_seconds("-inf");
	reject_seconds("1e10");
	reject_seconds("1000000001");
	reject_seconds("1e400");
	reject_seconds("1e-400");
	reject_seconds("abc");
	reject_seconds(".");
	reject_seconds("e1");
}

static void accept_u64(const char *s, uint64_t min, uint64_t max, uint64_t want)
{
	uint64_t v = 0xdeadbeef;
	int rc = xp_parse_u64(s, min, max, &v);

	if (rc != 0 || v != want) {
		unit_failed_checks++;
		fprintf(stderr, "%s:%d: xp_parse_u64(\"%s\") == %d, %" PRIu64 "; expected 0, %" PRIu64 "\n",
			__FILE__, __LINE__, s, rc, v, want);
	}
}

static void reject_u64(const char *s, uint64_t min, uint64_t max, int want_rc)
{
	uint64_t v = 0xdeadbeef;
	int rc = xp_parse_u64(s, min, max, &v);

	if (rc != want_rc || v != 0xdeadbeef) {
		unit_failed_checks++;
		fprintf(stderr, "%s:%d: xp_parse_u64(\"%s\", %" PRIu64 ", %" PRIu64 ") == %d; expected %d, untouched\n",
			__FILE__, __LINE__, s ? s : "(null)", min, max, rc, want_rc);
	}
}

static void test_u64_accepted(void)
{
	accept_u64("0", 0, 10, 0);
	accept_u64("10", 0, 10, 10);
	accept_u64("1", 1, 1, 1);
	accept_u64("007", 0, 10, 7);
	accept_u64("4096", 1, 1ULL << 20, 4096);
	accept_u64("18446744073709551615", 0, UINT64_MAX, UINT64_MAX);
	accept_u64("18446744073709551614", 0, UINT64_MAX, UINT64_MAX - 1);
}

static void test_u64_range(void)
{
	reject_u64("11", 0, 10, -ERANGE);
	reject_u64("0", 1, 10, -ERANGE);
	reject_u64("5", 6, 10, -ERANGE);
	reject_u64("1000000", 1, 65535, -ERANGE);
	/* past 2^64 - 1 */
	reject_u64("18446744073709551616", 0, UINT64_MAX, -ERANGE);
	reject_u64("99999999999999999999999", 0, UINT64_MAX, -ERANGE);
}

static void test_u64_junk(void)
{
	reject_u64(NULL, 0, 10, -EINVAL);
	reject_u64("", 0, 10, -EINVAL);
	reject_u64("-1", 0, UINT64_MAX, -EINVAL);
	reject_u64("-0", 0, 10, -EINVAL);
	reject_u64("+1", 0, 10, -EINVAL);
	reject_u64(" 1", 0, 10, -EINVAL);
	reject_u64("1 ", 0, 10, -EINVAL);
	reject_u64("1\n", 0, 10, -EINVAL);
	reject_u64("12abc", 0, 100, -EINVAL);
	reject_u64("0x10", 0, 100, -EINVAL);
	reject_u64("1.5", 0, 10, -EINVAL);
	reject_u64("1e3", 0, 10000, -EINVAL);
	reject_u64("abc", 0, 10, -EINVAL);
}

int main(void)
{
	RUN(test_seconds_accepted);
	RUN(test_seconds_rejected);
	RUN(test_u64_accepted);
	RUN(test_u64_range);
	RUN(test_u64_junk);
	UNIT_EXIT();
}
