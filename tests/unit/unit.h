/* A small unit-test harness: each test prints one PASS/FAIL line that
 * tests/run.sh counts; a failed check prints where and what. */
#ifndef XP_TESTS_UNIT_H
#define XP_TESTS_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int unit_failed_checks;
static int unit_failed_tests;

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			unit_failed_checks++;                                    \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,   \
				__LINE__, #cond);                                \
		}                                                                \
	} while (0)

#define CHECK_U64(a, b)                                                          \
	do {                                                                     \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                 \
		if (a_ != b_) {                                                  \
			unit_failed_checks++;                                    \
			fprintf(stderr, "%s:%d: %s == %" PRIu64 ", expected %" PRIu64 "\n", \
				__FILE__, __LINE__, #a, a_, b_);                 \
		}                                                                \
	} while (0)

#define CHECK_STR(a, b)                                                          \
	do {                                                                     \
		const char *a_ = (a), *b_ = (b);                                 \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                         \
			unit_failed_checks++;                                    \
			fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", \
				__FILE__, __LINE__, #a, a_ ? a_ : "(null)",      \
				b_ ? b_ : "(null)");                             \
		}                                                                \
	} while (0)

static inline void unit_run(const char *name, void (*fn)(void))
{
	int before = unit_failed_checks;

	fn();
	if (unit_failed_checks != before) {
		unit_failed_tests++;
		printf("FAIL %s\n", name);
	} else {
		printf("PASS %s\n", name);
	}
}

#define RUN(fn) unit_run(#fn, fn)
#define UNIT_EXIT() return unit_failed_tests ? 1 : 0

#endif
