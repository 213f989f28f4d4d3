/*
 * The HTTP server of `xputrace serve`.
 *
 * Why a thread of its own, not the ring buffer's poll loop: the reader
 * (live/session.c) waits in libbpf's ring_buffer__poll and calls back per
 * record; putting client sockets into that wait would tie every HTTP state
 * change to the tracing loop's timing and its stop rules. Here the tracing
 * thread only ever takes the metrics lock to add to a counter, and this
 * thread takes it only while it renders one scrape into memory (bounded by
 * --max-series); every socket is non-blocking and served from that copy in
 * one poll loop, so a slow, stalled or hostile client costs this thread a
 * slot and a share of a buffer, never the tracer a wait.
 *
 * What hostile clients can hold is bounded: slots (a new connection past
 * XP_HTTP_MAX_CLIENTS sheds the least useful), time (a head must be whole
 * within XP_HTTP_HEAD_TIMEOUT_S of connecting), and memory (scrapes within
 * XP_HTTP_SHARE_MS share one rendered body, refcounted; past
 * XP_HTTP_MAX_HELD bytes held, clients sitting on older bodies are shed,
 * and while that frees nothing new scrapes get the newest body).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "sinks/http.h"
#include "sinks/metrics.h"

/* ---- responses: bodies shared and counted ---- */

/* A response body, shared by the clients it is written to (and the server, while current). */
struct body {
	int refs;
	uint64_t made_ns;
	size_t len;
	char *data;
};

struct client {
	int fd;
	char in[XP_HTTP_MAX_HEAD];
	size_t nin;
	bool out;		/* a response is being written: head, then body[0..nbody) */
	char head[256];		/* its status line and headers */
	size_t nhead, nbody, off;
	struct body *body;	/* NULL where it has none */
	bool close_after;	/* once the response is out */
	bool draining;		/* response out, our side shut: what the client still sends is read and dropped */
	bool asked;		/* it has had a response: between requests the idle timeout applies */
	int shed;		/* 1 + the enum xp_http_shed it is closed for, at the end of this round */
	uint64_t since_ns;	/* connected, a head begun, last response done, or last write progress */
};

struct xp_http_server {
	int lfd, wake[2];
	pthread_t thread;
	bool started;
	int stop;		/* atomic */
	xp_http_render_fn render;
	void *ctx;
	char addr[80];
	struct client *cl[XP_HTTP_MAX_CLIENTS];
	int ncl;
	struct body *cur[2];	/* the last /metrics body rendered, Prometheus text and OpenMetrics */
	size_t held;		/* bytes of every body alive */
	uint64_t shed[XP_HTTP_SHED_N];
};

const char *const xp_http_shed_names[XP_HTTP_SHED_N] = {
	"idle", "slow_head", "unread", "head_timeout", "write_timeout",
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void body_put(struct xp_http_server *s, struct body *b)
{
	if (b && !--b->refs) {
		s->held -= b->len;
		free(b->data);
		free(b);
	}
}

/* What was written into a memstream, as a body with one reference; NULL when out of memory. */
static struct body *body_of(struct xp_http_server *s, char *data, size_t len)
{
	struct body *b = calloc(1, sizeof(*b));

	if (!b) {
		free(data);
		return NULL;
	}
	*b = (struct body){ .refs = 1, .made_ns = mono_ns(), .len = len, .data = data };
	s->held += len;
	return b;
}

/*
 * Marks a client to be closed at the end of this round (the poll loop's
 * indices stay as they are), and lets go of its response now.
 */
static void shed(struct xp_http_server *s, struct client *c, enum xp_http_shed why)
{
	if (c->shed)
		return;
	c->shed = 1 + (int)why;
	s->shed[why]++;
	body_put(s, c->body);
	c->body = NULL;
	c->out = false;
}

/*
 * Responses held past the bound: the clients on bodies older than the
 * current ones that took nothing for a second are shed, the oldest body
 * first, until `need` more bytes fit.
 */
static void shed_unread(struct xp_http_server *s, size_t need, size_t cap, uint64_t now)
{
	while (s->held + need > cap) {
		struct client *worst = NULL;

		for (int i = 0; i < s->ncl; i++) {
			struct client *c = s->cl[i];

			if (c->shed || !c->body || c->body == s->cur[0] || c->body == s->cur[1] ||
			    now - c->since_ns < 1000000000ull)
				continue;
			if (!worst || c->body->made_ns < worst->body->made_ns)
				worst = c;
		}
		if (!worst)
			return;
		shed(s, worst, XP_HTTP_SHED_UNREAD);
	}
}

/*
 * The /metrics body in one format: the current one if it is recent, or while
 * the bytes held are past the bound and cannot be freed; else a new one.
 */
static struct body *metrics_body(struct xp_http_server *s, bool om)
{
	struct body *cur = s->cur[om], *b;
	uint64_t now = mono_ns();
	size_t est = cur ? cur->len : 0, cap = XP_HTTP_MAX_HELD > 4 * est ? XP_HTTP_MAX_HELD : 4 * est;
	char *data = NULL;
	size_t len = 0;
	FILE *f;

	if (!cur || now - cur->made_ns >= XP_HTTP_SHARE_MS * 1000000ull) {
		shed_unread(s, est, cap, now);
		if (!cur || s->held + est <= cap) {
			if (!(f = open_memstream(&data, &len)))
				return NULL;
			s->render(s->ctx, f, om, s->shed);
			if (fclose(f)) {
				free(data);
				return NULL;
			}
			if (!(b = body_of(s, data, len)))
				return NULL;
			body_put(s, cur);
			s->cur[om] = cur = b;
		}
	}
	cur->refs++;
	return cur;
}

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	}
	return "Error";
}

/* The response to r (NULL: a head too long) into c: its head, and its body shared or its own. */
static void respond(struct xp_http_server *s, struct client *c, const struct xp_http_req *r, int status)
{
	const char *ctype = "text/plain; charset=utf-8";
	struct body *b = NULL;
	char *data = NULL;
	size_t len = 0;
	FILE *f;

	if (!status && r->target == XP_HTTP_METRICS) {
		b = metrics_body(s, r->openmetrics);
		ctype = r->openmetrics ? XP_METRICS_CT_OPENMETRICS : XP_METRICS_CT_PROMETHEUS;
		status = b ? 200 : 500;
	}
	if (!b) {
		if (!(f = open_memstream(&data, &len))) {
			c->close_after = true;
			return;
		}
		if (!status && r->target == XP_HTTP_ROOT)
			fputs("xputrace: metrics of GPU/NPU driver activity at /metrics\n", f);
		else
			fprintf(f, "%d %s\n", status ? status : 404, reason(status ? status : 404));
		status = status ? status : r->target == XP_HTTP_ROOT ? 200 : 404;
		if (fclose(f)) {
			free(data);
			c->close_after = true;
			return;
		}
		if (!(b = body_of(s, data, len))) {
			c->close_after = true;
			return;
		}
	}
	if (status != 200)
		c->close_after |= status != 404;
	c->close_after |= !r || !r->keep_alive;
	c->nhead = (size_t)snprintf(c->head, sizeof(c->head),
				    "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s\r\n", status,
				    reason(status), ctype, b->len, status == 405 ? "Allow: GET, HEAD\r\n" : "",
				    c->close_after ? "Connection: close\r\n" : "");
	c->nbody = r && r->head ? 0 : b->len;
	if (!c->nbody) {
		body_put(s, b);
		b = NULL;
	}
	c->body = b;
	c->out = true;
	c->off = 0;
	c->since_ns = mono_ns();
}

/* ---- the server ---- */

static void drop_client(struct xp_http_server *s, int i)
{
	close(s->cl[i]->fd);
	body_put(s, s->cl[i]->body);
	free(s->cl[i]);
	s->cl[i] = s->cl[--s->ncl];
}

/* The next request in c->in, if a whole head is there and no response is pending. */
static void serve_next(struct xp_http_server *s, struct client *c)
{
	struct xp_http_req r;
	long used;

	if (c->out || c->close_after || c->shed)
		return;
	used = xp_http_parse(c->in, c->nin, &r);
	if (used == 0)
		return;
	if (used < 0) {
		c->close_after = true;
		respond(s, c, NULL, 431);
		return;
	}
	if (r.status)
		c->close_after = true;
	respond(s, c, &r, r.status);
	memmove(c->in, c->in + used, c->nin - (size_t)used);
	c->nin -= (size_t)used;
}

/* 0: keep the client; -1: drop it. */
static int on_readable(struct xp_http_server *s, struct client *c)
{
	if (c->draining) {
		char junk[4096];
		ssize_t n;

		while ((n = read(c->fd, junk, sizeof(junk))) > 0)
			;
		return n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) ? -1 : 0;
	}
	for (;;) {
		ssize_t n;

		if (c->nin == sizeof(c->in)) {
			/* full: a head this long is refused once whatever is pending is out */
			serve_next(s, c);
			return 0;
		}
		n = read(c->fd, c->in + c->nin, sizeof(c->in) - c->nin);
		if (n > 0) {
			/* a kept-alive connection's next head begins: its time counts from here */
			if (!c->nin && !c->out && c->asked)
				c->since_ns = mono_ns();
			c->nin += (size_t)n;
			continue;
		}
		if (n == 0)
			return -1;	/* the client closed; what it asked last is not owed */
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		return -1;
	}
	serve_next(s, c);
	return 0;
}

static int on_writable(struct xp_http_server *s, struct client *c)
{
	while (c->out && c->off < c->nhead + c->nbody) {
		struct iovec iov[2];
		struct msghdr mh = { .msg_iov = iov };
		ssize_t n;

		if (c->off < c->nhead) {
			iov[mh.msg_iovlen++] = (struct iovec){ c->head + c->off, c->nhead - c->off };
			if (c->nbody)
				iov[mh.msg_iovlen++] = (struct iovec){ c->body->data, c->nbody };
		} else {
			iov[mh.msg_iovlen++] = (struct iovec){ c->body->data + (c->off - c->nhead),
							       c->nhead + c->nbody - c->off };
		}
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
		if (n > 0) {
			c->off += (size_t)n;
			c->since_ns = mono_ns();
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		return -1;
	}
	body_put(s, c->body);
	c->body = NULL;
	c->out = false;
	c->asked = true;
	c->since_ns = mono_ns();
	if (c->close_after) {
		/*
		 * Closing with unread input would reset the connection, and the
		 * client could lose the response (a 431 to a huge head): our
		 * side is shut instead, and what still comes is read and dropped
		 * for a while.
		 */
		shutdown(c->fd, SHUT_WR);
		c->draining = true;
		return 0;
	}
	/* pipelined requests already read */
	serve_next(s, c);
	return 0;
}

/*
 * For a new connection past XP_HTTP_MAX_CLIENTS: the least useful, closed at
 * once (no round is under way). Of each kind the oldest: done with, idle (a
 * second or more without a request), half a head, just connected, then not
 * reading its response. A scrape just connected outlives slow heads.
 */
static void shed_one(struct xp_http_server *s)
{
	static const enum xp_http_shed why[] = { XP_HTTP_SHED_IDLE, XP_HTTP_SHED_IDLE, XP_HTTP_SHED_SLOW_HEAD,
						  XP_HTTP_SHED_IDLE, XP_HTTP_SHED_UNREAD };
	uint64_t now = mono_ns();
	int worst = -1, wrank = 0;

	for (int i = 0; i < s->ncl; i++) {
		const struct client *c = s->cl[i];
		int rank = c->draining ? 0 : c->out ? 4 : c->nin ? 2 : now - c->since_ns >= 1000000000ull ? 1 : 3;

		if (worst < 0 || rank < wrank || (rank == wrank && c->since_ns < s->cl[worst]->since_ns)) {
			worst = i;
			wrank = rank;
		}
	}
	if (worst >= 0) {
		shed(s, s->cl[worst], why[wrank]);
		drop_client(s, worst);
	}
}

/* Takes every connection waiting; past XP_HTTP_MAX_CLIENTS each sheds an old one. */
static void accept_all(struct xp_http_server *s)
{
	for (int tries = 0; tries < 4 * XP_HTTP_MAX_CLIENTS; tries++) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct client *c;

		if (fd < 0 && (errno == EMFILE || errno == ENFILE) && s->ncl) {
			shed_one(s);	/* out of descriptors: one is freed for it */
			continue;
		}
		if (fd < 0)
			return;	/* EAGAIN, or a connection gone before it was taken */
		if (s->ncl == XP_HTTP_MAX_CLIENTS)
			shed_one(s);
		if (!(c = calloc(1, sizeof(*c)))) {
			close(fd);
			return;
		}
		c->fd = fd;
		c->since_ns = mono_ns();
		s->cl[s->ncl++] = c;
	}
}

/* Whether a client is past its time: a head too slow, idle too long, a response not taken. */
static bool timed_out(struct xp_http_server *s, struct client *c, uint64_t now)
{
	uint64_t age = now - c->since_ns, sec = 1000000000ull;

	if (c->shed)
		return true;
	if (c->draining)
		return age > 2 * sec;
	if (c->out && age > XP_HTTP_WRITE_TIMEOUT_S * sec)
		shed(s, c, XP_HTTP_SHED_WRITE_TIMEOUT);
	else if (!c->out && (c->nin || !c->asked) && age > XP_HTTP_HEAD_TIMEOUT_S * sec)
		shed(s, c, XP_HTTP_SHED_HEAD_TIMEOUT);
	return c->shed || (!c->out && age > XP_HTTP_IDLE_TIMEOUT_S * sec);
}

static void *server_main(void *arg)
{
	struct xp_http_server *s = arg;
	struct pollfd pfd[XP_HTTP_MAX_CLIENTS + 2];

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		int n = 0, nc = s->ncl;
		uint64_t now;

		pfd[n++] = (struct pollfd){ .fd = s->wake[0], .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
		for (int i = 0; i < nc; i++)
			pfd[n++] = (struct pollfd){ .fd = s->cl[i]->fd,
						    .events = s->cl[i]->out ? POLLOUT : POLLIN };
		if (poll(pfd, (nfds_t)n, 1000) < 0 && errno != EINTR)
			break;
		if (__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
			break;
		/* from the last, so that dropping one (moving the last into its place) skips none */
		for (int i = nc - 1; i >= 0; i--) {
			struct client *c = s->cl[i];
			short re = pfd[2 + i].revents;
			int err = 0;

			if (c->shed)
				continue;	/* by another's response, this round: closed below */
			if (re & (POLLERR | POLLNVAL))
				err = -1;
			else if ((re & POLLOUT) && c->out)
				err = on_writable(s, c);
			else if (re & (POLLIN | POLLHUP))
				err = on_readable(s, c);
			/* a response made just now: out at once if the socket takes it */
			if (!err && c->out && !(re & POLLOUT))
				err = on_writable(s, c);
			if (err)
				drop_client(s, i);
		}
		now = mono_ns();
		for (int i = s->ncl - 1; i >= 0; i--)
			if (timed_out(s, s->cl[i], now))
				drop_client(s, i);
		/* last: shedding for a new one moves clients in s->cl */
		if (pfd[1].revents & POLLIN)
			accept_all(s);
	}
	return NULL;
}

int xp_http_start(struct xp_http_server **out, const char *where, xp_http_render_fn render,
		  void *ctx, char *why, size_t len)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE };
	struct addrinfo *ai = NULL;
	struct sockaddr_storage sa;
	socklen_t salen = sizeof(sa);
	char host[64], port[16], hbuf[64];
	struct xp_http_server *s;
	sigset_t block, old;
	int one = 1, err, gai;

	if (xp_http_split_listen(where, host, sizeof(host), port, sizeof(port))) {
		snprintf(why, len, "--listen wants ADDR:PORT, [ADDR]:PORT or PORT, not '%s'", where);
		return -EINVAL;
	}
	if ((gai = getaddrinfo(host, port, &hints, &ai))) {
		snprintf(why, len, "--listen %s: %s (a numeric address is wanted)", where, gai_strerror(gai));
		return -EINVAL;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		freeaddrinfo(ai);
		return -ENOMEM;
	}
	s->render = render;
	s->ctx = ctx;
	s->wake[0] = s->wake[1] = -1;
	s->lfd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd < 0 || setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->lfd, ai->ai_addr, ai->ai_addrlen) || listen(s->lfd, XP_HTTP_MAX_CLIENTS) ||
	    getsockname(s->lfd, (struct sockaddr *)&sa, &salen) ||
	    pipe2(s->wake, O_NONBLOCK | O_CLOEXEC)) {
		err = -errno;
		snprintf(why, len, "cannot listen on %s: %s", where, strerror(-err));
		goto fail;
	}
	if (sa.ss_family == AF_INET6) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&sa;

		inet_ntop(AF_INET6, &a6->sin6_addr, hbuf, sizeof(hbuf));
		snprintf(s->addr, sizeof(s->addr), "[%s]:%u", hbuf, ntohs(a6->sin6_port));
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)&sa;

		inet_ntop(AF_INET, &a4->sin_addr, hbuf, sizeof(hbuf));
		snprintf(s->addr, sizeof(s->addr), "%s:%u", hbuf, ntohs(a4->sin_port));
	}
	/* the thread takes no stop signal: they go to the tracing thread, which stops us */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	err = -pthread_create(&s->thread, NULL, server_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		snprintf(why, len, "cannot start the HTTP thread: %s", strerror(-err));
		goto fail;
	}
	s->started = true;
	freeaddrinfo(ai);
	*out = s;
	return 0;
fail:
	freeaddrinfo(ai);
	xp_http_stop(s, NULL);
	return err;
}

const char *xp_http_addr(const struct xp_http_server *s)
{
	return s->addr;
}

void xp_http_stop(struct xp_http_server *s, uint64_t *shed)
{
	if (!s)
		return;
	if (s->started) {
		__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
		if (write(s->wake[1], "x", 1) < 0) {
			/* the pipe is full: the thread is awake anyway */
		}
		pthread_join(s->thread, NULL);
	}
	if (shed)
		memcpy(shed, s->shed, sizeof(s->shed));
	while (s->ncl)
		drop_client(s, s->ncl - 1);
	body_put(s, s->cur[0]);
	body_put(s, s->cur[1]);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->wake[0] >= 0)
		close(s->wake[0]);
	if (s->wake[1] >= 0)
		close(s->wake[1]);
	free(s);
}
