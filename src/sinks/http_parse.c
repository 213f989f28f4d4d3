/*
 * The request parser of `xputrace serve`'s HTTP server (http.c): one
 * request head at a time, no state, no I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sinks/http.h"
#include "sinks/metrics.h"

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
 * included): the target and method into r, *http11. A method other than GET
 * and HEAD is answered 405 whatever its target's form (OPTIONS *, CONNECT
 * host:port); GET and HEAD want a path. False when it is malformed.
 */
static bool request_line(const char *buf, size_t n, struct xp_http_req *r, bool *http11)
{
	size_t le = n && buf[n - 1] == '\r' ? n - 1 : n, sp1, sp2, pl, q;
	bool get, head;
	const char *p;

	for (sp1 = 0; sp1 < le && is_tchar(buf[sp1]); sp1++)
		;
	if (sp1 == 0 || sp1 >= le || buf[sp1] != ' ')
		return false;
	get = sp1 == 3 && !memcmp(buf, "GET", 3);
	head = sp1 == 4 && !memcmp(buf, "HEAD", 4);
	for (sp2 = sp1 + 1; sp2 < le && buf[sp2] > ' ' && buf[sp2] != 0x7f; sp2++)
		;
	if (sp2 == sp1 + 1 || sp2 >= le || buf[sp2] != ' ' || ((get || head) && buf[sp1 + 1] != '/'))
		return false;
	if (le - (sp2 + 1) != 8 || memcmp(buf + sp2 + 1, "HTTP/1.", 7) ||
	    (buf[sp2 + 8] != '0' && buf[sp2 + 8] != '1'))
		return false;
	*http11 = buf[sp2 + 8] == '1';
	r->head = head;
	if (!get && !head) {
		r->status = 405;
		return true;
	}
	/* the path, without its query */
	p = buf + sp1 + 1;
	pl = sp2 - (sp1 + 1);
	for (q = 0; q < pl && p[q] != '?' && p[q] != '#'; q++)
		;
	if (q == 8 && !memcmp(p, "/metrics", 8))
		r->target = XP_HTTP_METRICS;
	else if (q == 1)
		r->target = XP_HTTP_ROOT;
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

int xp_http_split_listen(const char *listen, char *host, size_t hl, char *port, size_t pl)
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
