/* The processes running now, as /proc lists them. */
#ifndef XP_LIVE_PROCS_H
#define XP_LIVE_PROCS_H

#include "core/filters.h"

/*
 * Calls fn for each process the filters keep (-p, -c; not -G), the tracer
 * itself left out, with its name. fn returns 0 to go on; anything else ends
 * the walk and is returned. 0 also when /proc cannot be read.
 */
int xp_procs_each(const struct xp_filters *f,
		  int (*fn)(void *ctx, unsigned long pid, const char *comm), void *ctx);

#endif
