/* serve's metrics in the unit tests: the labels of a cgroup id, and what a store serves. */
#ifndef XP_TESTS_METRICS_UTIL_H
#define XP_TESTS_METRICS_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include "sinks/metrics.h"

/* A cgroup id's labels: cgroup="/cgID" (as a serve's cgroup_labels, without a tree to walk). */
static inline void cg_labels(void *ctx, uint64_t id, char *buf, size_t len)
{
	char p[32];

	(void)ctx;
	snprintf(p, sizeof(p), "/cg%llu", (unsigned long long)id);
	xp_labels_add(buf, len, "cgroup", p);
}

/* The store in the Prometheus text format, allocated (free() it). */
static inline char *served(const struct xp_metrics *m)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	xp_metrics_write(f, m, false);
	fclose(f);
	return out;
}

#endif
