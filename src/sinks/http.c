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
 * slot and a buffer, never the tracer a wait.
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
#include <time.h>
#include <unistd.h>

#include "sinks/http.h"
#include "sinks/metrics.h"

/* ---- requests ---- */

static bool is_tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Whether the comma-separated header value has `token` (case-insensitive). */
static bool has_token(const char *v, size_t n, const char *token)
{
	size_t tl = strlen(token);

	while (n) {
		size_t k = 0, s = 0;

		while (k < n && v[k] != ',')
			k++;
		while (s < k && (v[s] == ' ' || v[s] == '\t'))
			s++;
		size_t e = k;
		while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e - s == tl && !strncasecmp(v + s, token, tl))
			return true;
		v += k < n ? k + 1 : k;
		n -= k < n ? k + 1 : k;
	}
	return false;
}

/*
 * The request line, METHOD SP target SP HTTP/1.x, at buf[0..n) (its \n not
 * included): the target and method into r (405 for a method other than
 * GET and HEAD), *http11. False when it is malformed.
 */
static bool request_line(const char *buf, size_t n, struct xp_http_req *r, bool *http11)
{
	size_t le = n && buf[n - 1] == '\r' ? n - 1 : n, sp1, sp2, pl, q;
	const char *p;

	for (sp1 = 0; sp1 < le && is_tchar(buf[sp1]); sp1++)
		;
	if (sp1 == 0 || sp1 >= le || buf[sp1] != ' ')
		return false;
	for (sp2 = sp1 + 1; sp2 < le && buf[sp2] > ' ' && buf[sp2] != 0x7f; sp2++)
		;
	if (sp2 == sp1 + 1 || sp2 >= le || buf[sp2] != ' ' || buf[sp1 + 1] != '/')
		return false;
	if (le - (sp2 + 1) != 8 || memcmp(buf + sp2 + 1, "HTTP/1.", 7) ||
	    (buf[sp2 + 8] != '0' && buf[sp2 + 8] != '1'))
		return false;
	*http11 = buf[sp2 + 8] == '1';
	/* the path, without its query */
	p = buf + sp1 + 1;
	pl = sp2 - (sp1 + 1);
	for (q = 0; q < pl && p[q] != '?' && p[q] != '#'; q++)
		;
	if (q == 8 && !memcmp(p, "/metrics", 8))
		r->target = XP_HTTP_METRICS;
	else if (q == 1)
		r->target = XP_HTTP_ROOT;
	if (sp1 == 4 && !memcmp(buf, "HEAD", 4))
		r->head = true;
	else if (!(sp1 == 3 && !memcmp(buf, "GET", 3)))
		r->status = 405;
	return true;
}

long xp_http_parse(const char *buf, size_t n, struct xp_http_req *r)
{
	size_t i = 0, end, line_end;
	bool http11, host = false, body = false, conn_close = false, conn_keep = false;
	char accept[512] = "";

	memset(r, 0, sizeof(*r));
	/* empty lines before a request are allowed (RFC 9112 2.2) */
	while (i < n && (buf[i] == '\r' || buf[i] == '\n'))
		i++;
	/* the end of the head: an empty line */
	for (end = i; end < n; end++)
		if (buf[end] == '\n' && ((end >= 1 && buf[end - 1] == '\n') ||
					 (end >= 2 && buf[end - 1] == '\r' && buf[end - 2] == '\n')))
			break;
	if (end >= n)
		return n >= XP_HTTP_MAX_HEAD ? -1 : 0;
	end++;
	if (end > XP_HTTP_MAX_HEAD)
		return -1;

	r->status = 400;
	for (line_end = i; buf[line_end] != '\n'; line_end++)
		;
	if (!request_line(buf + i, line_end - i, r, &http11))
		return (long)end;
	/* header fields: NAME ":" OWS value OWS */
	for (size_t l = line_end + 1; l < end;) {
		size_t e = l, le, c, vs;

		while (buf[e] != '\n')
			e++;
		le = e > l && buf[e - 1] == '\r' ? e - 1 : e;
		if (le == l)
			break;	/* the empty line */
		for (c = l; c < le && is_tchar(buf[c]); c++)
			;
		/* no name, no colon, a space before it, or an obsolete folded line */
		if (c == l || c >= le || buf[c] != ':') {
			r->status = 400;
			return (long)end;
		}
		for (vs = c + 1; vs < le && (buf[vs] == ' ' || buf[vs] == '\t'); vs++)
			;
		for (size_t k = vs; k < le; k++)
			if ((unsigned char)buf[k] < 0x20 && buf[k] != '\t') {
				r->status = 400;
				return (long)end;
			}
#define NAME_IS(s) (c - l == sizeof(s) - 1 && !strncasecmp(buf + l, s, sizeof(s) - 1))
		if (NAME_IS("Host"))
			host = true;
		else if (NAME_IS("Accept") && le - vs < sizeof(accept))
			snprintf(accept, sizeof(accept), "%.*s", (int)(le - vs), buf + vs);
		else if (NAME_IS("Connection")) {
			conn_close |= has_token(buf + vs, le - vs, "close");
			conn_keep |= has_token(buf + vs, le - vs, "keep-alive");
		} else if (NAME_IS("Transfer-Encoding"))
			body = true;
		else if (NAME_IS("Content-Length"))
			body |= !(le - vs == 1 && buf[vs] == '0');
#undef NAME_IS
		l = e + 1;
	}
	/* HTTP/1.1 requires Host (RFC 9112 3.2) */
	if (http11 && !host) {
		r->status = 400;
		return (long)end;
	}
	if (r->status == 400)
		r->status = 0;
	r->openmetrics = xp_metrics_wants_openmetrics(accept);
	r->keep_alive = !body && !conn_close && (http11 || conn_keep);
	return (long)end;
}

/* ---- the server ---- */

struct client {
	int fd;
	char in[XP_HTTP_MAX_HEAD];
	size_t nin;
	char *out;		/* the response being written */
	size_t nout, off;
	bool close_after;	/* once the response is out */
	bool draining;		/* response out, our side shut: what the client still sends is read and dropped */
	uint64_t since_ns;	/* connected, last response done, or last write progress */
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
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

/* The whole response into c->out. */
static void respond(struct xp_http_server *s, struct client *c, const struct xp_http_req *r, int status)
{
	char *body = NULL, *resp = NULL;
	size_t nbody = 0, nresp = 0;
	const char *ctype = "text/plain; charset=utf-8";
	FILE *f = open_memstream(&body, &nbody);

	if (!f) {
		c->close_after = true;
		return;
	}
	if (!status && r->target == XP_HTTP_METRICS) {
		s->render(s->ctx, f, r->openmetrics);
		ctype = r->openmetrics ? XP_METRICS_CT_OPENMETRICS : XP_METRICS_CT_PROMETHEUS;
		status = 200;
	} else if (!status && r->target == XP_HTTP_ROOT) {
		fputs("xputrace: metrics of GPU/NPU driver activity at /metrics\n", f);
		status = 200;
	} else {
		status = status ? status : 404;
		fprintf(f, "%d %s\n", status, reason(status));
	}
	if (fclose(f)) {
		free(body);
		c->close_after = true;
		return;
	}
	if (status != 200)
		c->close_after |= status != 404;
	c->close_after |= !r || !r->keep_alive;
	f = open_memstream(&resp, &nresp);
	if (!f) {
		free(body);
		c->close_after = true;
		return;
	}
	fprintf(f, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s\r\n", status,
		reason(status), ctype, nbody, status == 405 ? "Allow: GET, HEAD\r\n" : "",
		c->close_after ? "Connection: close\r\n" : "");
	if (!(r && r->head))
		fwrite(body, 1, nbody, f);
	free(body);
	if (fclose(f)) {
		free(resp);
		c->close_after = true;
		return;
	}
	c->out = resp;
	c->nout = nresp;
	c->off = 0;
	c->since_ns = mono_ns();
}

static void drop_client(struct xp_http_server *s, int i)
{
	close(s->cl[i]->fd);
	free(s->cl[i]->out);
	free(s->cl[i]);
	s->cl[i] = s->cl[--s->ncl];
}

/* The next request in c->in, if a whole head is there and no response is pending. */
static void serve_next(struct xp_http_server *s, struct client *c)
{
	struct xp_http_req r;
	long used;

	if (c->out || c->close_after)
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
			if (!c->nin && !c->out)
				c->since_ns = mono_ns();	/* a new request's head begins */
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
	while (c->out && c->off < c->nout) {
		ssize_t n = send(c->fd, c->out + c->off, c->nout - c->off, MSG_NOSIGNAL);

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
	free(c->out);
	c->out = NULL;
	if (c->close_after) {
		/*
		 * Closing with unread input would reset the connection, and the
		 * client could lose the response (a 431 to a huge head): our
		 * side is shut instead, and what still comes is read and dropped
		 * for a while.
		 */
		shutdown(c->fd, SHUT_WR);
		c->draining = true;
		c->since_ns = mono_ns();
		return 0;
	}
	c->since_ns = mono_ns();
	/* pipelined requests already read */
	serve_next(s, c);
	return 0;
}

static void accept_all(struct xp_http_server *s)
{
	while (s->ncl < XP_HTTP_MAX_CLIENTS) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct client *c;

		if (fd < 0)
			return;	/* EAGAIN, or a connection gone before it was taken */
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
static bool timed_out(const struct client *c, uint64_t now)
{
	uint64_t age = now - c->since_ns, s = 1000000000ull;

	if (c->draining)
		return age > 2 * s;
	if (c->out)
		return age > XP_HTTP_WRITE_TIMEOUT_S * s;
	if (c->nin)
		return age > XP_HTTP_HEAD_TIMEOUT_S * s;
	return age > XP_HTTP_IDLE_TIMEOUT_S * s;
}

static void *server_main(void *arg)
{
	struct xp_http_server *s = arg;
	struct pollfd pfd[XP_HTTP_MAX_CLIENTS + 2];

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		int n = 0, nc = s->ncl;
		uint64_t now;

		pfd[n++] = (struct pollfd){ .fd = s->wake[0], .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = s->ncl < XP_HTTP_MAX_CLIENTS ? s->lfd : -1, .events = POLLIN };
		for (int i = 0; i < nc; i++)
			pfd[n++] = (struct pollfd){ .fd = s->cl[i]->fd,
						    .events = s->cl[i]->out ? POLLOUT : POLLIN };
		if (poll(pfd, (nfds_t)n, 1000) < 0 && errno != EINTR)
			break;
		if (__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
			break;
		if (pfd[1].revents & POLLIN)
			accept_all(s);
		/* from the last, so that dropping one (moving the last into its place) skips none */
		for (int i = nc - 1; i >= 0; i--) {
			struct client *c = s->cl[i];
			short re = pfd[2 + i].revents;
			int err = 0;

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
			if (timed_out(s->cl[i], now))
				drop_client(s, i);
	}
	return NULL;
}

/* "ADDR:PORT", "[ADDR]:PORT", "PORT" into host and port. */
static int split_listen(const char *listen, char *host, size_t hl, char *port, size_t pl)
{
	const char *colon;

	if (!strchr(listen, ':')) {
		snprintf(host, hl, "127.0.0.1");
		snprintf(port, pl, "%s", listen);
	} else if (listen[0] == '[') {
		const char *rb = strchr(listen, ']');

		if (!rb || rb[1] != ':' || (size_t)(rb - listen - 1) >= hl)
			return -EINVAL;
		snprintf(host, hl, "%.*s", (int)(rb - listen - 1), listen + 1);
		snprintf(port, pl, "%s", rb + 2);
	} else {
		colon = strrchr(listen, ':');
		if ((size_t)(colon - listen) >= hl || strchr(listen, ':') != colon)
			return -EINVAL;
		snprintf(host, hl, "%.*s", (int)(colon - listen), listen);
		snprintf(port, pl, "%s", colon + 1);
	}
	if (!host[0] || !port[0] || strspn(port, "0123456789") != strlen(port) || atol(port) > 65535)
		return -EINVAL;
	return 0;
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

	if (split_listen(where, host, sizeof(host), port, sizeof(port))) {
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
	    bind(s->lfd, ai->ai_addr, ai->ai_addrlen) || listen(s->lfd, 128) ||
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
	xp_http_stop(s);
	return err;
}

const char *xp_http_addr(const struct xp_http_server *s)
{
	return s->addr;
}

void xp_http_stop(struct xp_http_server *s)
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
	while (s->ncl)
		drop_client(s, s->ncl - 1);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->wake[0] >= 0)
		close(s->wake[0]);
	if (s->wake[1] >= 0)
		close(s->wake[1]);
	free(s);
}
