/*
 * The HTTP layer of `serve` (sinks/http): its request parser, and its server
 * against hostile clients on loopback (idle and slow connections past its
 * limit, clients that never read a large response).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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
	/* other methods are 405 whatever the form of their target */
	CHECK(parse("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", &r) > 0 && r.status == 405);
	CHECK(parse("CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n", &r) > 0 && r.status == 405);
	CHECK(parse("BREW http://x/pot HTTP/1.1\r\nHost: x\r\n\r\n", &r) > 0 && r.status == 405);
	CHECK(parse("GET * HTTP/1.1\r\nHost: x\r\n\r\n", &r) > 0 && r.status == 400);
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

/* ---- the server, on 127.0.0.1 ---- */

struct fake {
	size_t size;		/* of each body */
	int renders;		/* atomic: the server's thread counts */
};

static void fake_render(void *ctx, FILE *f, bool openmetrics, const uint64_t *shed)
{
	struct fake *fk = ctx;
	char line[100];

	(void)openmetrics, (void)shed;
	__atomic_add_fetch(&fk->renders, 1, __ATOMIC_RELAXED);
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\n';
	fputs("xputrace_events_total 1\n", f);
	for (size_t n = 0; n + sizeof(line) <= fk->size; n += sizeof(line))
		fwrite(line, 1, sizeof(line), f);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A connection to the server; a receive buffer of `rcvbuf` bytes where not 0. */
static int connect_to(const struct xp_http_server *s, int rcvbuf)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	a.sin_port = htons((uint16_t)atoi(strrchr(xp_http_addr(s), ':') + 1));
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One GET /metrics on a new connection, given `limit` seconds: the seconds it took, or -1. */
static double scrape(const struct xp_http_server *s, double limit)
{
	static const char get[] = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	double t0 = now_s();
	int fd = connect_to(s, 0), ok = 0;
	char buf[65536];

	if (fd < 0)
		return -1;
	if (write(fd, get, sizeof(get) - 1) == (ssize_t)sizeof(get) - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		while (now_s() - t0 < limit && poll(&p, 1, 100) >= 0) {
			if (!(p.revents & POLLIN))
				continue;
			if ((n = read(fd, buf, sizeof(buf))) <= 0)
				break;
			ok |= !memcmp(buf, "HTTP/1.1 200 ", 13);
		}
	}
	close(fd);
	return ok && now_s() - t0 < limit ? now_s() - t0 : -1;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* 100 scrapes one after another, each answered in under 1 s, the median well under it. */
static void scrapes_answered(const struct xp_http_server *s, const char *with)
{
	double took[100];
	int failed = 0;

	for (int i = 0; i < 100; i++)
		if ((took[i] = scrape(s, 1)) < 0)
			failed++;
	qsort(took, 100, sizeof(*took), cmp_d);
	CHECK(failed == 0 && took[50] < 0.25);
	if (failed || took[50] >= 0.25)
		fprintf(stderr, "with %s: %d of 100 scrapes failed, median %.3f s\n", with, failed, took[50]);
}

static bool enough_files(rlim_t n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return false;
	if (rl.rlim_cur >= n)
		return true;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < n)
		return false;
	rl.rlim_cur = n;
	return !setrlimit(RLIMIT_NOFILE, &rl);
}

/*
 * Past XP_HTTP_MAX_CLIENTS idle connections, and as many trickling a head,
 * every scrape is still answered at once, and the oldest were shed.
 */
static void test_idle_and_slow(void)
{
	enum { N = 2 * XP_HTTP_MAX_CLIENTS };
	struct fake fk = { .size = 1000 };
	struct xp_http_server *s;
	uint64_t shed[XP_HTTP_SHED_N];
	char why[256];
	static int fds[2 * N];
	int n = 0;

	if (!enough_files(2 * N + XP_HTTP_MAX_CLIENTS + 64)) {
		printf("SKIP test_idle_and_slow: fewer open files allowed than %d\n", 2 * N + XP_HTTP_MAX_CLIENTS + 64);
		return;
	}
	CHECK(xp_http_start(&s, "127.0.0.1:0", fake_render, &fk, why, sizeof(why)) == 0);
	for (int i = 0; i < N; i++)
		if ((fds[n] = connect_to(s, 0)) >= 0)
			n++;
	CHECK(n == N);
	scrapes_answered(s, "idle connections");
	/* slowloris: a head begun and never ended */
	for (int i = 0; i < N; i++)
		if ((fds[n] = connect_to(s, 0)) >= 0 && write(fds[n], "GET /metrics HTTP/1.1\r\nHo", 26) == 26)
			n++;
	CHECK(n == 2 * N);
	scrapes_answered(s, "slow heads");
	xp_http_stop(s, shed);
	/* the idle ones went first (each scrape closes its own when done) */
	CHECK(shed[XP_HTTP_SHED_IDLE] >= N - XP_HTTP_MAX_CLIENTS);
	CHECK(shed[XP_HTTP_SHED_IDLE] + shed[XP_HTTP_SHED_SLOW_HEAD] + shed[XP_HTTP_SHED_HEAD_TIMEOUT] >=
	      2 * N - XP_HTTP_MAX_CLIENTS);
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

/*
 * 200 clients ask for a 16 MB body, one each 10 ms, and never read: the
 * body is rendered once each XP_HTTP_SHARE_MS at most (shared), not 200
 * times, and as the bytes held pass XP_HTTP_MAX_HELD (by the eighth) the
 * clients sitting on old bodies are shed; scrapes go on.
 */
static void test_unread(void)
{
	static const char get[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	struct fake fk = { .size = 16 << 20 };
	struct xp_http_server *s;
	uint64_t shed[XP_HTTP_SHED_N];
	int fds[200];
	double t0 = now_s(), took;
	char why[256];

	if (!enough_files(512)) {
		printf("SKIP test_unread: fewer than 512 open files allowed\n");
		return;
	}
	CHECK(xp_http_start(&s, "127.0.0.1:0", fake_render, &fk, why, sizeof(why)) == 0);
	for (int i = 0; i < 200; i++) {
		fds[i] = connect_to(s, 4096);
		CHECK(fds[i] >= 0 && write(fds[i], get, sizeof(get) - 1) == (ssize_t)sizeof(get) - 1);
		usleep(10000);
	}
	usleep(1500000);	/* past a second without progress */
	for (int i = 0; i < 12; i++) {	/* a new body each XP_HTTP_SHARE_MS: room is made for it */
		CHECK(scrape(s, 10) >= 0);
		usleep(XP_HTTP_SHARE_MS * 1000 / 4);
	}
	took = now_s() - t0;
	xp_http_stop(s, shed);
	CHECK(fk.renders <= (int)(took * 1000 / XP_HTTP_SHARE_MS) + 2);
	CHECK(shed[XP_HTTP_SHED_UNREAD] > 0);
	if (fk.renders > (int)(took * 1000 / XP_HTTP_SHARE_MS) + 2 || !shed[XP_HTTP_SHED_UNREAD])
		fprintf(stderr, "%d renders in %.1f s, %llu shed unread\n", fk.renders, took,
			(unsigned long long)shed[XP_HTTP_SHED_UNREAD]);
	for (int i = 0; i < 200; i++)
		close(fds[i]);
}

int main(void)
{
	RUN(test_requests);
	RUN(test_bad);
	RUN(test_idle_and_slow);
	RUN(test_unread);
	UNIT_EXIT();
}
