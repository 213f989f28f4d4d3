#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/msg.h"

/* A line longer than this (a huge argument echoed) keeps its two ends. */
#define XP_MSG_MAX 1024

int xp_fail(int status, const char *fmt, ...)
{
	char head[XP_MSG_MAX + 1], *all = NULL;
	va_list ap;
	int n;

	fflush(stdout);
	va_start(ap, fmt);
	n = vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	if (n > XP_MSG_MAX) {
		/* the start says what, the end says why: the middle (the argument) is cut */
		va_start(ap, fmt);
		if (vasprintf(&all, fmt, ap) < 0)
			all = NULL;
		va_end(ap);
	}
	if (all)
		fprintf(stderr, "xputrace: %.*s[... %d characters cut ...]%s\n", XP_MSG_MAX / 2, all,
			n - XP_MSG_MAX, all + n - XP_MSG_MAX / 2);
	else
		fprintf(stderr, "xputrace: %s\n", n < 0 ? fmt : head);
	free(all);
	return status;
}

int xp_finish_stdout(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		int e = errno;

		/* the reader went away (| head): quietly, as SIGPIPE would, but with status 1 */
		if (e != EPIPE)
			fprintf(stderr, "xputrace: writing the output failed: %s\n", strerror(e));
		return status ? status : 1;
	}
	return status;
}
