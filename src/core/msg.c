#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/msg.h"

int xp_fail(int status, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("xputrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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
