/* The HTTP request parser of `serve` (sinks/http). */
#include <string.h>

#include "sinks/http.h"
#include "unit.h"

static long parse(const char *s, struct xp_http_req *r)
{
	return xp_http_parse(s, strlen(s), r);
}

static void test_requests(void)
{
	struct xp_http_req r;
	const char *two = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\nHEAD / HTTP/1.1\r\nHost: x\r\n\r\n";
	long n;

	n = parse(two, &r);
	CHECK_U64(n, strlen("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
	CHECK(r.status == 0 && r.target == XP_HTTP_METRICS && r.keep_alive && !r.head && !r.openmetrics);
	/* pipelined: the next one from where the first ended */
	CHECK(parse(two + n, &r) > 0 && r.head && r.target == XP_HTTP_ROOT && r.status == 0);
	CHECK(parse("GET /metrics?x=1 HTTP/1.0\n\n", &r) > 0 && r.target == XP_HTTP_METRICS &&
	      !r.keep_alive && r.status == 0);
	CHECK(parse("GET /metrics HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", &r) > 0 && r.keep_alive);
	CHECK(parse("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &r) > 0 && !r.keep_alive);
	CHECK(parse("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/openmetrics-text; "
		    "version=1.0.0\r\n\r\n", &r) > 0 && r.openmetrics);
	CHECK(parse("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", &r) > 0 && r.target == XP_HTTP_OTHER);
	/* a body is not read: answered, then the connection closes */
	CHECK(parse("GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n", &r) > 0 &&
	      r.status == 0 && !r.keep_alive);
}

static void test_bad(void)
{
	struct xp_http_req r;
	char big[XP_HTTP_MAX_HEAD + 100];

	CHECK(parse("GET /metrics HTTP/1.1\r\nHost: x", &r) == 0);	/* not complete yet */
	CHECK(parse("POST /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &r) > 0 && r.status == 405);
	CHECK(parse("GET /metrics HTTP/1.1\r\n\r\n", &r) > 0 && r.status == 400);	/* no Host */
	CHECK(parse("GET  /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &r) > 0 && r.status == 400);
	CHECK(parse("GET metrics HTTP/1.1\r\nHost: x\r\n\r\n", &r) > 0 && r.status == 400);
	CHECK(parse("GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n", &r) > 0 && r.status == 400);
	CHECK(parse("garbage\r\n\r\n", &r) > 0 && r.status == 400);
	CHECK(parse("GET /metrics HTTP/1.1\r\nHost : x\r\n\r\n", &r) > 0 && r.status == 400);
	CHECK(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", &r) > 0 && r.status == 400);
	CHECK(parse("GET /metrics HTTP/1.1\r\nHost: x\x01y\r\n\r\n", &r) > 0 && r.status == 400);
	/* a head that cannot end within the limit */
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
	CHECK(xp_http_parse(big, sizeof(big), &r) == -1);
	CHECK(xp_http_parse(big, XP_HTTP_MAX_HEAD, &r) == -1);
	CHECK(xp_http_parse(big, 100, &r) == 0);
}

int main(void)
{
	RUN(test_requests);
	RUN(test_bad);
	UNIT_EXIT();
}
