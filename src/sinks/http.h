/*
 * A small HTTP/1.1 server for `xputrace serve`: GET and HEAD of /metrics
 * (and of / for a pointer to it), keep-alive and pipelining, 404 for other
 * paths, 405 for other methods, 400 for malformed requests, 431 for heads
 * past XP_HTTP_MAX_HEAD. No libbpf.
 *
 * It runs on a thread of its own with non-blocking sockets in one poll
 * loop; see http.c for why.
 */
#ifndef XP_SINKS_HTTP_H
#define XP_SINKS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define XP_HTTP_MAX_HEAD 8192		/* request line and headers */
#define XP_HTTP_MAX_CLIENTS 512		/* more wait in the listen queue */
#define XP_HTTP_HEAD_TIMEOUT_S 10	/* to send a whole request head */
#define XP_HTTP_IDLE_TIMEOUT_S 60	/* between requests of a kept-alive connection */
#define XP_HTTP_WRITE_TIMEOUT_S 30	/* a response not taken by then is dropped */

enum xp_http_target { XP_HTTP_OTHER, XP_HTTP_ROOT, XP_HTTP_METRICS };

struct xp_http_req {
	bool head;		/* HEAD: headers only */
	bool keep_alive;	/* the connection stays open after the response */
	bool openmetrics;	/* Accept asks for application/openmetrics-text */
	enum xp_http_target target;
	int status;		/* 0: to be served; else the error status to answer (then close) */
};

/*
 * Parses one request head at buf[0..n): the bytes it took (head included,
 * with r set; r->status says an error to answer), or 0 when the head is not
 * complete yet (or -1 when it can never be: longer than XP_HTTP_MAX_HEAD,
 * answer 431). A request with a body (Content-Length, Transfer-Encoding) is
 * answered and its connection closed.
 */
long xp_http_parse(const char *buf, size_t n, struct xp_http_req *r);

/* What GET /metrics returns: the body written into f. */
typedef void (*xp_http_render_fn)(void *ctx, FILE *f, bool openmetrics);

struct xp_http_server;
/*
 * Binds `listen` ("ADDR:PORT", "[V6ADDR]:PORT" or "PORT" for 127.0.0.1;
 * port 0 takes a free one) and starts serving on a thread of its own. 0, or
 * -errno with `why` said.
 */
int xp_http_start(struct xp_http_server **out, const char *listen, xp_http_render_fn render,
		  void *ctx, char *why, size_t len);
/* The address bound, "127.0.0.1:9464" or "[::1]:9464". */
const char *xp_http_addr(const struct xp_http_server *s);
/* Stops the thread (within its poll period), closes every connection, frees. */
void xp_http_stop(struct xp_http_server *s);

#endif
