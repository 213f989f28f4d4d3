/*
 * A small HTTP/1.1 server for `xputrace serve`: GET and HEAD of /metrics
 * (and of / for a pointer to it), keep-alive and pipelining, 404 for other
 * paths, 405 for other methods, 400 for malformed requests, 431 for heads
 * past XP_HTTP_MAX_HEAD. No libbpf.
 *
 * Hostile clients cost a bounded amount: at most XP_HTTP_MAX_CLIENTS
 * connections (a new one sheds an old one, the least useful first), heads
 * and responses on timeouts, and one rendered body shared by the scrapes of
 * XP_HTTP_SHARE_MS, the bytes held for clients not reading bounded.
 *
 * It runs on a thread of its own with non-blocking sockets in one poll
 * loop; see http.c for why.
 */
#ifndef XP_SINKS_HTTP_H
#define XP_SINKS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define XP_HTTP_MAX_HEAD 8192		/* request line and headers */
#define XP_HTTP_MAX_CLIENTS 512		/* past it one is shed for each new connection */
#define XP_HTTP_HEAD_TIMEOUT_S 5	/* to send a whole request head, from connecting or its first byte */
#define XP_HTTP_IDLE_TIMEOUT_S 60	/* between requests of a kept-alive connection */
#define XP_HTTP_WRITE_TIMEOUT_S 30	/* a response not taken by then is dropped */
#define XP_HTTP_SHARE_MS 250		/* a scrape this soon after the last one gets its body */
#define XP_HTTP_MAX_HELD (64u << 20)	/* bytes of responses held for clients (or 4 bodies) */

/*
 * Why the server closed a connection of its own accord (the counts are
 * xputrace_http_connections_shed_total{reason}): for a new connection past
 * XP_HTTP_MAX_CLIENTS, the oldest idle one (idle), else the oldest with half
 * a head (slow_head), else the oldest not reading its response (unread); one
 * not reading an older response while responses held pass XP_HTTP_MAX_HELD
 * (unread); a head not whole in time (head_timeout); a response not taken
 * in time (write_timeout).
 */
enum xp_http_shed {
	XP_HTTP_SHED_IDLE,
	XP_HTTP_SHED_SLOW_HEAD,
	XP_HTTP_SHED_UNREAD,
	XP_HTTP_SHED_HEAD_TIMEOUT,
	XP_HTTP_SHED_WRITE_TIMEOUT,
	XP_HTTP_SHED_N
};
extern const char *const xp_http_shed_names[XP_HTTP_SHED_N];

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

/* "ADDR:PORT", "[ADDR]:PORT", "PORT" (for 127.0.0.1) into host and port: 0 or -EINVAL. */
int xp_http_split_listen(const char *listen, char *host, size_t hl, char *port, size_t pl);

/*
 * What GET /metrics returns: the body written into f; `shed` the server's
 * counts so far, by enum xp_http_shed. Called on the server's thread.
 */
typedef void (*xp_http_render_fn)(void *ctx, FILE *f, bool openmetrics, const uint64_t *shed);

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
/*
 * Stops the thread (within its poll period), closes every connection, frees;
 * the connections shed, by enum xp_http_shed, into shed[] unless NULL.
 */
void xp_http_stop(struct xp_http_server *s, uint64_t *shed);

#endif
