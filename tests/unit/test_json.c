/*
 * Tests for src/sinks/json.c, the one JSON writer, and for the run-info
 * members of src/sinks/run_info.c that every summary starts with.
 *
 * Compact documents are compared byte for byte with hand-written JSON;
 * pretty ones are compared for one small case and otherwise checked by
 * Python's json module (skipped, with a note, when python3 is missing).
 */
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "caps/ioctl/ioctl_report.h"
#include "sinks/json.h"
#include "sinks/run_info.h"

#include "unit.h"

static char *out;
static size_t outlen;
static FILE *mf;
static struct xp_json J;

/* A writer over a fresh memory stream. */
static struct xp_json *start(bool pretty)
{
	if (mf)
		fclose(mf);
	free(out);
	out = NULL;
	outlen = 0;
	mf = open_memstream(&out, &outlen);
	xp_json_init(&J, mf, pretty);
	return &J;
}

/* The document written so far. */
static const char *text(void)
{
	fflush(mf);
	return out ? out : "";
}

static int have_python(void)
{
	static int have = -1;

	if (have < 0) {
		have = system("command -v python3 >/dev/null 2>&1") == 0;
		if (!have)
			printf("SKIP JSON validation by python3: python3 not found\n");
	}
	return have;
}

static int python_run(const char *doc, const char *script, int quiet)
{
	char cmd[2048];
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "python3 -c '%s' %s", script, quiet ? ">/dev/null 2>&1" : "1>&2");
	p = popen(cmd, "w");
	if (!p)
		return 0;
	fputs(doc, p);
	st = pclose(p);
	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

#define PY_VALID "import json,sys; json.load(sys.stdin)"

/* Valid JSON by Python's parser (strict: no NaN, no trailing commas). */
#define CHECK_VALID(doc)                                                               \
	do {                                                                           \
		if (have_python())                                                     \
			CHECK(python_run((doc), "import json,sys\n"                   \
					 "def bad(c): raise ValueError(c)\n"           \
					 "json.load(sys.stdin, parse_constant=bad)", 0)); \
	} while (0)

static void test_validator_can_fail(void)
{
	if (!have_python())
		return;
	CHECK(python_run("{\"a\":[1,2]}\n", PY_VALID, 0));
	CHECK(!python_run("{\"a\":[1,2,]}\n", PY_VALID, 1));
	CHECK(!python_run("{\"a\":1}{\"b\":2}\n", PY_VALID, 1));
	CHECK(!python_run("{\"a\":NaN}\n", "import json,sys\n"
			  "def bad(c): raise ValueError(c)\n"
			  "json.load(sys.stdin, parse_constant=bad)", 1));
}

static void test_scalars_top_level(void)
{
	struct xp_json *j;

	j = start(false);
	xp_json_u64(j, 42);
	xp_json_finish(j);
	CHECK_STR(text(), "42\n");
	j = start(false);
	xp_json_str(j, "hi");
	xp_json_finish(j);
	CHECK_STR(text(), "\"hi\"\n");
	j = start(false);
	xp_json_null(j);
	xp_json_finish(j);
	CHECK_STR(text(), "null\n");
	j = start(true);
	xp_json_bool(j, true);
	xp_json_finish(j);
	CHECK_STR(text(), "true\n");
}

static void test_empty_containers(void)
{
	struct xp_json *j;

	j = start(false);
	xp_json_begin_obj(j);
	xp_json_end_obj(j);
	xp_json_finish(j);
	CHECK_STR(text(), "{}\n");
	j = start(false);
	xp_json_begin_arr(j);
	xp_json_end_arr(j);
	xp_json_finish(j);
	CHECK_STR(text(), "[]\n");
	/* pretty: empty ones stay on one line */
	j = start(true);
	xp_json_begin_obj(j);
	xp_json_end_obj(j);
	xp_json_finish(j);
	CHECK_STR(text(), "{}\n");
	j = start(true);
	xp_json_begin_obj(j);
	xp_json_key(j, "a");
	xp_json_begin_arr(j);
	xp_json_end_arr(j);
	xp_json_key(j, "o");
	xp_json_begin_obj(j);
	xp_json_end_obj(j);
	xp_json_end_obj(j);
	xp_json_finish(j);
	CHECK_STR(text(), "{\n  \"a\": [],\n  \"o\": {}\n}\n");
	CHECK_VALID(text());
	/* arrays of empty containers */
	j = start(false);
	xp_json_begin_arr(j);
	xp_json_begin_arr(j);
	xp_json_end_arr(j);
	xp_json_begin_obj(j);
	xp_json_end_obj(j);
	xp_json_begin_arr(j);
	xp_json_begin_arr(j);
	xp_json_end_arr(j);
	xp_json_end_arr(j);
	xp_json_end_arr(j);
	xp_json_finish(j);
	CHECK_STR(text(), "[[],{},[[]]]\n");
	CHECK_VALID(text());
}

/* One document with a bit of everything; pretty or not. */
static void write_nested(struct xp_json *j)
{
	xp_json_begin_obj(j);
	xp_json_kstr(j, "name", "xputrace");
	xp_json_ku64(j, "n", 3);
	xp_json_key(j, "list");
	xp_json_begin_arr(j);
	xp_json_u64(j, 1);
	xp_json_begin_obj(j);
	xp_json_kbool(j, "ok", false);
	xp_json_key(j, "none");
	xp_json_null(j);
	xp_json_end_obj(j);
	xp_json_begin_arr(j);
	xp_json_i64(j, -1);
	xp_json_str(j, NULL);
	xp_json_end_arr(j);
	xp_json_end_arr(j);
	xp_json_key(j, "inner");
	xp_json_begin_obj(j);
	xp_json_key(j, "deeper");
	xp_json_begin_obj(j);
	xp_json_kdouble(j, "x", 0.5);
	xp_json_end_obj(j);
	xp_json_end_obj(j);
	xp_json_ki64(j, "last", -7);
	xp_json_end_obj(j);
	xp_json_finish(j);
}

static void test_nested_compact(void)
{
	write_nested(start(false));
	CHECK_STR(text(), "{\"name\":\"xputrace\",\"n\":3,\"list\":[1,{\"ok\":false,\"none\":null},"
			  "[-1,null]],\"inner\":{\"deeper\":{\"x\":0.5}},\"last\":-7}\n");
	CHECK_VALID(text());
	if (have_python())
		CHECK(python_run(text(), "import json,sys\n"
				 "d = json.load(sys.stdin)\n"
				 "assert d == {\"name\": \"xputrace\", \"n\": 3, "
				 "\"list\": [1, {\"ok\": False, \"none\": None}, [-1, None]], "
				 "\"inner\": {\"deeper\": {\"x\": 0.5}}, \"last\": -7}, d\n", 0));
}

static void test_nested_pretty(void)
{
	write_nested(start(true));
	CHECK_STR(text(), "{\n"
			  "  \"name\": \"xputrace\",\n"
			  "  \"n\": 3,\n"
			  "  \"list\": [\n"
			  "    1,\n"
			  "    {\n"
			  "      \"ok\": false,\n"
			  "      \"none\": null\n"
			  "    },\n"
			  "    [\n"
			  "      -1,\n"
			  "      null\n"
			  "    ]\n"
			  "  ],\n"
			  "  \"inner\": {\n"
			  "    \"deeper\": {\n"
			  "      \"x\": 0.5\n"
			  "    }\n"
			  "  },\n"
			  "  \"last\": -7\n"
			  "}\n");
	CHECK_VALID(text());
	if (have_python())
		CHECK(python_run(text(), "import json,sys\n"
				 "d = json.load(sys.stdin)\n"
				 "assert d[\"list\"][2] == [-1, None] and d[\"inner\"][\"deeper\"][\"x\"] == 0.5\n",
				 0));
}

static void test_strings(void)
{
	struct xp_json *j;

	j = start(false);
	xp_json_begin_arr(j);
	xp_json_str(j, "");
	xp_json_str(j, "say \"hi\"");
	xp_json_str(j, "C:\\dir\\");
	xp_json_str(j, "a\nb\rc\td");
	xp_json_str(j, "\x01\x1f\x7f");
	xp_json_str(j, "\b\f");
	xp_json_str(j, "/dev/dri/card0");
	xp_json_str(j, "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x9a\x80"); /* héllo € 🚀 */
	xp_json_end_arr(j);
	xp_json_finish(j);
	CHECK_STR(text(), "[\"\",\"say \\\"hi\\\"\",\"C:\\\\dir\\\\\",\"a\\nb\\rc\\td\","
			  "\"\\u0001\\u001f\\u007f\",\"\\u0008\\u000c\",\"/dev/dri/card0\","
			  "\"h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x9a\x80\"]\n");
	CHECK_VALID(text());
	if (have_python())
		CHECK(python_run(text(), "import json,sys\n"
				 "d = json.load(sys.stdin)\n"
				 "assert d[1] == \"say \\\"hi\\\"\", d[1]\n"
				 "assert d[2] == \"C:\\\\dir\\\\\", d[2]\n"
				 "assert d[3] == \"a\\nb\\rc\\td\"\n"
				 "assert d[4] == \"\\x01\\x1f\\x7f\"\n"
				 "assert d[5] == \"\\b\\f\"\n"
				 "assert d[7] == \"h\\u00e9llo \\u20ac \\U0001f680\", d[7]\n", 0));

	/* keys are escaped the same way */
	j = start(true);
	xp_json_begin_obj(j);
	xp_json_kstr(j, "k\"\\\n", "v");
	xp_json_kstr(j, "null", NULL);
	xp_json_end_obj(j);
	xp_json_finish(j);
	CHECK_STR(text(), "{\n  \"k\\\"\\\\\\n\": \"v\",\n  \"null\": null\n}\n");
	CHECK_VALID(text());
}

static void test_numbers(void)
{
	struct xp_json *j;

	j = start(false);
	xp_json_begin_arr(j);
	xp_json_u64(j, 0);
	xp_json_u64(j, UINT64_MAX);
	xp_json_i64(j, INT64_MIN);
	xp_json_i64(j, INT64_MAX);
	xp_json_i64(j, 0);
	xp_json_double(j, 0);
	xp_json_double(j, 1.5);
	xp_json_double(j, -2.25);
	xp_json_double(j, 2.5e-7);
	xp_json_double(j, 1e20);
	xp_json_double(j, 123456789.0);
	xp_json_double(j, NAN);
	xp_json_double(j, INFINITY);
	xp_json_double(j, -INFINITY);
	xp_json_end_arr(j);
	xp_json_finish(j);
	CHECK_STR(text(), "[0,18446744073709551615,-9223372036854775808,9223372036854775807,0,"
			  "0,1.5,-2.25,2.5e-07,1e+20,1.23457e+08,null,null,null]\n");
	CHECK_VALID(text());
	if (have_python())
		CHECK(python_run(text(), "import json,sys\n"
				 "d = json.load(sys.stdin)\n"
				 "assert d[1] == 2**64 - 1 and d[2] == -2**63\n"
				 "assert d[8] == 2.5e-07 and d[9] == 1e20\n"
				 "assert d[11:] == [None, None, None]\n", 0));

	/* NaN as a member value */
	j = start(false);
	xp_json_begin_obj(j);
	xp_json_kdouble(j, "ratio", NAN);
	xp_json_kdouble(j, "s", 2.0);
	xp_json_kbool(j, "t", true);
	xp_json_ku64(j, "u", 7);
	xp_json_ki64(j, "i", -3);
	xp_json_end_obj(j);
	xp_json_finish(j);
	CHECK_STR(text(), "{\"ratio\":null,\"s\":2,\"t\":true,\"u\":7,\"i\":-3}\n");
	CHECK_VALID(text());
}

static void test_deep_nesting(void)
{
	struct xp_json *j;
	char want[256];
	int n = XP_JSON_MAX_DEPTH - 1, k = 0;

	/* as deep as the writer tracks, two items at each level */
	j = start(false);
	for (int i = 0; i < n; i++) {
		xp_json_begin_arr(j);
		xp_json_u64(j, (uint64_t)i);
	}
	for (int i = 0; i < n; i++) {
		xp_json_end_arr(j);
	}
	xp_json_finish(j);
	for (int i = 0; i < n; i++)
		k += snprintf(want + k, sizeof(want) - (size_t)k, "[%d%s", i, i + 1 < n ? "," : "");
	for (int i = 0; i < n; i++)
		want[k++] = ']';
	want[k++] = '\n';
	want[k] = '\0';
	CHECK_STR(text(), want);
	CHECK_VALID(text());

	/* pretty, with siblings after deep objects */
	j = start(true);
	xp_json_begin_arr(j);
	for (int r = 0; r < 3; r++) {
		for (int i = 0; i < 10; i++) {
			xp_json_begin_obj(j);
			xp_json_ku64(j, "level", (uint64_t)i);
			xp_json_key(j, "next");
		}
		xp_json_null(j);
		for (int i = 0; i < 10; i++)
			xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
	xp_json_finish(j);
	CHECK_VALID(text());
	if (have_python())
		CHECK(python_run(text(), "import json,sys\n"
				 "d = json.load(sys.stdin)\n"
				 "assert len(d) == 3\n"
				 "x = d[2]\n"
				 "for i in range(10):\n"
				 "    assert x[\"level\"] == i\n"
				 "    x = x[\"next\"]\n"
				 "assert x is None\n", 0));
}

static void test_two_documents(void)
{
	struct xp_json *j = start(false);

	/* a stream of documents (one JSON object per line), as stream mode writes */
	for (int i = 0; i < 3; i++) {
		xp_json_begin_obj(j);
		xp_json_ku64(j, "i", (uint64_t)i);
		xp_json_end_obj(j);
		xp_json_finish(j);
	}
	CHECK_STR(text(), "{\"i\":0}\n{\"i\":1}\n{\"i\":2}\n");
	if (have_python())
		CHECK(python_run(text(), "import json,sys\n"
				 "rows = [json.loads(l) for l in sys.stdin]\n"
				 "assert rows == [{\"i\": 0}, {\"i\": 1}, {\"i\": 2}], rows\n", 0));
}

static void test_run_info(void)
{
	struct xp_run_info ri = { .command = "ioctl", .source = "live", .mode = "summary",
				  .hook = "raw_tp", .duration_s = 10, .drops = { 7, 3, 4 } };
	struct xp_json *j;

	CHECK_U64(xp_run_total_drops(&ri), 14);
	j = start(false);
	xp_json_begin_obj(j);
	xp_json_run_info(j, &ri);
	xp_json_end_obj(j);
	xp_json_finish(j);
	CHECK_STR(text(), "{\"tool\":\"xputrace\",\"command\":\"ioctl\",\"source\":\"live\","
			  "\"mode\":\"summary\",\"hook\":\"raw_tp\",\"duration_s\":10,"
			  "\"drops\":{\"total\":14,\"ringbuf\":7,\"map_full\":3,\"kernel_missed\":4}}\n");
	CHECK_VALID(text());

	/* no hook, an interval, a NULL source */
	struct xp_run_info r2 = { .command = "ioctl", .mode = "stream", .duration_s = 0.25,
				  .interval = 4 };

	CHECK_U64(xp_run_total_drops(&r2), 0);
	j = start(true);
	xp_json_begin_obj(j);
	xp_json_run_info(j, &r2);
	xp_json_end_obj(j);
	xp_json_finish(j);
	CHECK_VALID(text());
	CHECK(strstr(text(), "\"hook\"") == NULL);
	CHECK(strstr(text(), "\"source\": null") != NULL);
	CHECK(strstr(text(), "\"interval\": 4") != NULL);
	CHECK(strstr(text(), "\"duration_s\": 0.25") != NULL);
}

/* Task names cut mid-character by the kernel must not break the document. */
static void test_broken_utf8(void)
{
	struct xp_json *j = start(false);

	xp_json_begin_arr(j);
	xp_json_str(j, "abcdefghijklmn\xc3");	/* a two-byte sequence cut short */
	xp_json_str(j, "caf\xc3\xa9");		/* valid: kept as is */
	xp_json_str(j, "\xed\xa0\x80");		/* a surrogate: not valid UTF-8 */
	xp_json_str(j, "\xf0\x9f\x9a\x80");	/* valid four-byte sequence */
	xp_json_end_arr(j);
	CHECK_STR(text(), "[\"abcdefghijklmn\\ufffd\",\"caf\xc3\xa9\",\"\\ufffd\\ufffd\\ufffd\",\"\xf0\x9f\x9a\x80\"]");
}

/* A call that began before tracing did: its stream time is negative, never ~1.8e19. */
static void test_stream_time_before_start(void)
{
	struct xp_ioctl_rec r = { .hdr = { .type = XP_REC_IOCTL, .size = sizeof(r), .ts_ns = 1000000000ull,
					   .pid = 7, .tid = 7 },
				  .lat_ns = 5000, .cmd = 0x5421, .dev = 0x300003 };
	struct xp_devices d = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct xp_json j;

	memcpy(r.comm, "early", 6);
	xp_ioctl_stream_text(f, &r, &d, 1002500000ull);	/* began 2.5 ms before t0 */
	fflush(f);
	CHECK(len && !strncmp(buf, "-0.002500 ", 10));
	rewind(f);
	len = 0;
	xp_json_init(&j, f, false);
	xp_ioctl_stream_json(&j, &r, &d, 1002500000ull);
	fflush(f);
	CHECK(strstr(buf, "\"ts_ns\":-2500000,") != NULL);
	fclose(f);
	free(buf);
}

int main(void)
{
	RUN(test_stream_time_before_start);
	RUN(test_broken_utf8);
	RUN(test_validator_can_fail);
	RUN(test_scalars_top_level);
	RUN(test_empty_containers);
	RUN(test_nested_compact);
	RUN(test_nested_pretty);
	RUN(test_strings);
	RUN(test_numbers);
	RUN(test_deep_nesting);
	RUN(test_two_documents);
	RUN(test_run_info);
	if (mf)
		fclose(mf);
	free(out);
	UNIT_EXIT();
}
